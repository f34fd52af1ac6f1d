"""Lets substituted into equations: their size, estimated first, and their constants.

A let is substituted wherever it is named, so a chain of lets each naming the previous
one twice doubles at every step (2^25 nodes after 25 steps). ``resolve`` estimates each
let's, equation's and selection's size from the sizes of the lets it names before
substituting anything, and refuses one past ``expression_nodes`` (SCM315); once
substituted, a constant that is not a real float64 number (``1 / d`` with ``d`` zero) is
SCM302.
"""

from __future__ import annotations

import sympy as sp

from scmspec.compiler.load import SourceMap
from scmspec.compiler.numbers import substitute
from scmspec.errors import DiagnosticBag
from scmspec.limits import current_limits

Loc = tuple[str | int, ...]


def let_sizes(lets: dict[sp.Symbol, sp.Expr]) -> dict[sp.Basic, int]:
    """Each substituted let's node count, for estimating what naming it costs.

    Example:
        >>> a, x = sp.Symbol("a"), sp.Symbol("x")
        >>> let_sizes({a: x + 1})
        {a: 3}
    """
    return {s: sum(1 for _ in sp.preorder_traversal(e)) for s, e in lets.items()}


def expanded_size(expr: sp.Basic, sizes: dict[sp.Basic, int]) -> int:
    """Nodes of ``expr`` once each let symbol in it is replaced by its expansion.

    Dynamic programming over the let chain: a let's size comes from the sizes of the
    lets it names times their occurrences, so the size of a chain whose every step
    names the previous let twice (2^25 nodes after 25 steps) is known without building it.

    Example:
        >>> a, x = sp.Symbol("a"), sp.Symbol("x")
        >>> expanded_size(a * x + a, {a: 1000})
        2003
    """
    return sum(sizes.get(node, 1) for node in sp.preorder_traversal(expr))


def within_size(expr: sp.Basic, sizes: dict[sp.Basic, int], what: str, loc: Loc,
                smap: SourceMap, bag: DiagnosticBag) -> bool:
    """Whether ``expr`` stays within ``expression_nodes`` once its lets are substituted.

    Past the limit it is reported (SCM315, naming the let it grows through) unless a
    let it names was already too big, and a let that is too big is marked (size -1) so
    that what names it stays quiet: a 25-step chain is one diagnostic, not thirteen.

    Example:
        >>> from scmspec.errors import DiagnosticBag
        >>> a, x, bag = sp.Symbol("a", real=True), sp.Symbol("x", real=True), DiagnosticBag()
        >>> within_size(a * x + a, {a: 15_000}, "the let 'b'", ("let", "b"),
        ...             SourceMap("c.yaml"), bag)
        False
        >>> bag.items[0].message
        "the let 'b' expands to about 3e+04 expression nodes once its lets are substituted, \
mostly through 'a', over the limit of 20,000"
    """
    named = [s for s in expr.free_symbols if s in sizes]
    if any(sizes[s] < 0 for s in named):
        return False  # the oversized let it names was reported; stay quiet
    size, limit = expanded_size(expr, sizes), current_limits().expression_nodes
    if size <= limit:
        return True
    biggest = max(named, key=lambda s: sizes[s] * _occurrences(expr, s), default=None)
    through = f", mostly through {biggest.name!r}" if biggest is not None else ""
    bag.add("SCM315", f"{what} expands to about {size:.3g} expression nodes once its lets are "
            f"substituted{through}, over the limit of {limit:,}", smap.nearest(loc),
            "a let named twice by the next one doubles at each step: make the quantity a "
            "variable (computed once), or raise SCMSPEC_MAX_EXPRESSION_NODES (docs/limits.md)",
            ".".join(map(str, loc)))
    if loc[0] == "let":
        sizes[sp.Symbol(str(loc[1]), real=True)] = -1
    return False


def _occurrences(expr: sp.Basic, symbol: sp.Basic) -> int:
    return sum(1 for node in sp.preorder_traversal(expr) if node == symbol)


def substitute_lets(expr: sp.Expr, lets: dict[sp.Symbol, sp.Expr], loc: Loc,
                    smap: SourceMap, bag: DiagnosticBag) -> sp.Expr:
    """``expr`` with its lets substituted; a substitution that is not real is SCM302.

    Each let is checked on its own, but together they can make a constant that is not
    a real number (``1 / d`` with a let ``d`` that is zero): caught here, before numpy.

    Example:
        >>> from scmspec.errors import DiagnosticBag
        >>> d, x, bag = sp.Symbol("d", real=True), sp.Symbol("x", real=True), DiagnosticBag()
        >>> substitute_lets(x + 1 / d, {d: x - x}, ("variables", "y", "equation"),
        ...                 SourceMap("c.yaml"), bag)
        zoo
        >>> bag.items[0].code, bag.items[0].message
        ('SCM302', "once its lets are substituted, 'zoo' is not a finite number")
    """
    if not lets or not (expr.free_symbols & lets.keys()):
        return expr
    out, problem = substitute(expr, lets)
    if problem is not None:
        part, why = problem
        bag.add("SCM302", f"once its lets are substituted, '{sp.sstr(part)[:80]}' {why}",
                smap.nearest(loc), "check the lets this expression names: together they "
                "make a constant that is not a real, finite number", ".".join(map(str, loc)))
    return out
