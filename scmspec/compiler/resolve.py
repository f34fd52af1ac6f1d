"""Stage 3, resolve: Card -> ResolvedCard (names, equations, graph, interventions).

Takes a validated Card; hands on a :class:`ResolvedCard` holding each equation
as sympy, each variable's parents, the DAG and a deterministic topological order.
Invariants it establishes: every equation symbol is a declared variable or
constant; each variable's parents (its equation's free variables) equal the
edges the card lists into it; the graph is acyclic; intervention targets,
root blocks and the selection condition refer to real variables.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import networkx as nx
import numpy as np
import sympy as sp

from scmspec.compiler.constructs import (
    check_interventions,
    check_names,
    level_values,
    noise_scales,
    observed_if_conditions,
)
from scmspec.compiler.expressions import ExpressionIssue, parse_equation
from scmspec.compiler.kinds.functions import FUNCTIONS
from scmspec.compiler.kinds.interventions import DoHandler, SoftHandler
from scmspec.compiler.lets import expanded_size, let_sizes, substitute_lets, within_size
from scmspec.compiler.load import SourceMap
from scmspec.compiler.spec import Card, VariableSpec
from scmspec.errors import DiagnosticBag, ResolveError

if TYPE_CHECKING:
    from scmspec.compiler.unit_conversion import Conversion

DISCRETE_KINDS = frozenset({"binary", "count", "ordinal", "categorical"})


# Level codes of the categorical/ordinal variables, and which of them are ordinal.
Levels = tuple[dict[str, dict[str, float]], frozenset[str]]


@dataclass(frozen=True)
class ResolvedCard:
    """A card whose names, equations and graph are known to be consistent."""

    card: Card
    equations: dict[str, sp.Expr]  # variable -> expression (constants still symbolic)
    random_sites: dict[str, int]  # variable -> number of random draws in its equation
    parents: dict[str, tuple[str, ...]]  # variable -> parents, in topological order
    order: tuple[str, ...]  # deterministic topological order of all variables
    graph: nx.DiGraph
    targets: tuple[str, ...]  # the intervention target pool
    selection: sp.Basic | None
    level_codes: dict[str, dict[str, float]] = field(default_factory=dict)
    lets: dict[str, sp.Expr] = field(default_factory=dict)  # let name -> expanded expression
    # equation (or "selection") -> unit conversion factors check_units inserted into it
    unit_conversions: dict[str, tuple[Conversion, ...]] = field(default_factory=dict)
    observed_if: dict[str, sp.Basic] = field(default_factory=dict)  # variable -> condition
    # Heteroscedastic noise: variable -> (the noise's scale field, its expression).
    noise_scales: dict[str, tuple[str, sp.Basic]] = field(default_factory=dict)

    @property
    def observed(self) -> tuple[str, ...]:
        return tuple(v for v in self.order if self.card.variables[v].observed)

    def descendants(self, name: str) -> set[str]:
        return set(nx.descendants(self.graph, name))


def resolve(card: Card, smap: SourceMap) -> ResolvedCard:
    """Resolve names, equations and the graph of a validated card.

    Example:
        >>> from scmspec.compiler.load import SourceMap
        >>> card = Card.model_validate({"id": "a", "title": "t", "family": "semantic",
        ...     "domain": "d", "variables": {
        ...     "x": {"meaning": "m", "distribution": {"kind": "normal"}},
        ...     "y": {"meaning": "m", "equation": "2 * x"}},
        ...     "edges": [{"from": "x", "to": "y", "reason": "r"}]})
        >>> r = resolve(card, SourceMap("a.yaml"))
        >>> r.order, r.parents["y"]
        (('x', 'y'), ('x',))
    """
    bag = DiagnosticBag()
    check_names(card, smap, bag)
    levels = _level_names(card, smap, bag)
    lets = _parse_lets(card, smap, bag, levels)
    equations, sites = _parse_equations(card, smap, bag, levels, lets)
    _check_formula_draws(card, equations, smap, bag)
    bag.raise_if_any(ResolveError)
    graph = _graph(card, equations, smap, bag)
    bag.raise_if_any(ResolveError)
    order = tuple(nx.lexicographical_topological_sort(graph))
    position = {v: i for i, v in enumerate(order)}
    parents = {v: tuple(sorted(graph.predecessors(v), key=position.__getitem__)) for v in order}
    codes = levels[0]
    _check_kinds(card, smap, bag)
    targets = _targets(card, codes, smap, bag)
    if card.interventions.targets is None:  # the default pool must not depend on card order
        targets = tuple(sorted(targets, key=position.__getitem__))
    _check_blocks(card, parents, smap, bag)
    selection = _selection(card, smap, bag, levels, lets)
    missing = observed_if_conditions(card, smap, bag, lambda text, loc, what: _condition(
        card, text, loc, what, smap, bag, levels, lets))
    check_interventions(card, codes, smap, bag)
    scales = noise_scales(card, parents, smap, bag, lambda text, loc, what: _condition(
        card, text, loc, what, smap, bag, levels, lets, draws=False))
    bag.raise_if_any(ResolveError)
    return ResolvedCard(card, equations, sites, parents, order, graph, targets, selection, codes,
                        {str(k): v for k, v in lets.items()}, observed_if=missing,
                        noise_scales=scales)


def _level_names(card: Card, smap: SourceMap, bag: DiagnosticBag) -> Levels:
    """Level codes of the categorical/ordinal variables, and which of them are ordered.

    A level's code is the number its column holds: 0..k-1, base..base+k-1 with ``base``,
    or the level's value (in the variable's unit) when ``levels:`` is a mapping.
    """
    values = level_values(card, smap, bag)
    codes: dict[str, dict[str, float]] = {
        v: dict(zip(spec.levels, values[v])) if v in values else
        {lv: i + (spec.base or 0) for i, lv in enumerate(spec.levels)}
        for v, spec in card.variables.items() if spec.levels}
    return codes, frozenset(v for v in codes if card.variables[v].kind == "ordinal")


def parse_one(text: str, loc: tuple[str | int, ...], known: set[str], smap: SourceMap,
               bag: DiagnosticBag, what: str, levels: Levels) -> tuple[sp.Expr | None, int]:
    try:
        parsed = parse_equation(text, None, *levels)
    except ExpressionIssue as issue:
        bag.add("SCM302", issue.message, smap.at(loc, issue.offset, issue.width), issue.hint,
                ".".join(map(str, loc)))
        return None, 0
    for name in sorted(parsed.names - known):
        guess = difflib.get_close_matches(name, sorted(known), n=1)
        offset = max(0, find_name(text, name))
        bag.add("SCM301", f"{what} uses {name!r}, which is neither a variable nor a constant",
                smap.at(loc, offset, len(name)),
                f"did you mean {guess[0]!r}?" if guess else
                f"declare {name!r} under variables: (with an edge) or constants: (with a unit)",
                ".".join(map(str, loc)))
    return parsed.expr, parsed.random_sites


def _parse_lets(card: Card, smap: SourceMap, bag: DiagnosticBag,
                levels: Levels) -> dict[sp.Symbol, sp.Expr]:
    """Each ``let`` as a symbol -> its expression, earlier lets already substituted."""
    known = set(card.variables) | set(card.constants)
    subs: dict[sp.Symbol, sp.Expr] = {}
    sizes: dict[sp.Basic, int] = {}  # let symbol -> nodes once substituted (-1: too big)
    for name, spec in card.let.items():
        loc = ("let", name, "equation")
        expr, n_sites = parse_one(spec.equation, loc, known, smap, bag,
                                   f"the let {name!r}", levels)
        if expr is not None and n_sites:
            bag.add("SCM302", f"the let {name!r} draws random numbers", smap.nearest(loc),
                    "a let is substituted into each equation that names it, which would "
                    "make each use a separate draw: draw in a variable's equation instead",
                    ".".join(loc))
        elif expr is not None and within_size(expr, sizes, f"the let {name!r}", loc, smap,
                                               bag):
            symbol = sp.Symbol(name, real=True)
            sizes[symbol] = expanded_size(expr, sizes)
            subs[symbol] = substitute_lets(expr, subs, loc, smap, bag)
        known.add(name)  # later lets may use it (an error in it is reported once, above)
    return subs


def _parse_equations(card: Card, smap: SourceMap, bag: DiagnosticBag, levels: Levels,
                     lets: dict[sp.Symbol, sp.Expr]) -> tuple[dict[str, sp.Expr], dict[str, int]]:
    known = set(card.variables) | set(card.constants) | set(card.let)
    sizes = let_sizes(lets)
    equations: dict[str, sp.Expr] = {}
    sites: dict[str, int] = {}
    for name, spec in card.variables.items():
        if spec.equation is None:
            continue
        loc = ("variables", name, "equation")
        expr, n_sites = parse_one(spec.equation, loc, known, smap, bag,
                                   f"the equation of {name!r}", levels)
        if expr is not None and within_size(expr, sizes, f"the equation of {name!r}", loc,
                                             smap, bag):
            equations[name], sites[name] = substitute_lets(expr, lets, loc, smap, bag), n_sites
        elif expr is not None:
            equations[name], sites[name] = expr, n_sites  # reported; never substituted
    return equations, sites


def _parent_site(card: Card, text: str, parent: str) -> tuple[int, int, str]:
    """Where a parent shows in an equation: (offset, width, note).

    A parent read only through a let points at the let's name, and the note
    says so (`` (through let 'e_s')``).
    """
    at = find_name(text, parent)
    if at >= 0:
        return at, len(parent), ""
    for name in card.let:
        at = find_name(text, name)
        if at >= 0:
            return at, len(name), f" (through let {name!r})"
    return 0, len(parent), ""


def find_name(text: str, name: str) -> int:
    import re

    m = re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text)
    return m.start() if m else -1


def equation_parents(expr: sp.Expr, variables: set[str]) -> set[str]:
    """The variables an expression reads (its free symbols that are variables)."""
    return {s.name for s in expr.free_symbols if s.name in variables}


def _graph(card: Card, equations: dict[str, sp.Expr], smap: SourceMap, bag: DiagnosticBag
           ) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(card.variables)
    listed: dict[tuple[str, str], int] = {}
    for i, edge in enumerate(card.edges):
        for end in (edge.source, edge.target):
            if end not in card.variables:
                key = "from" if end == edge.source else "to"
                guess = difflib.get_close_matches(end, list(card.variables), n=1)
                bag.add("SCM305", f"edge {edge.source} -> {edge.target} names {end!r}, "
                        "which is not a declared variable", smap.nearest(("edges", i, key)),
                        f"did you mean {guess[0]!r}?" if guess else "declare it under variables:")
        pair = (edge.source, edge.target)
        if pair in listed:
            bag.add("SCM306", f"edge {edge.source} -> {edge.target} is listed twice (first as "
                    f"edges[{listed[pair]}])", smap.nearest(("edges", i)), "remove one of them")
        listed.setdefault(pair, i)
    variables = set(card.variables)
    into: dict[str, set[str]] = {}  # target -> its listed sources (one pass, not d passes)
    for (s, t) in listed:
        into.setdefault(t, set()).add(s)
    for name, spec in card.variables.items():
        used = equation_parents(equations[name], variables) if name in equations else set()
        if spec.mechanism is not None:
            used = set(spec.mechanism.inputs())
            for p in sorted(used - variables):
                bag.add("SCM301", f"the mechanism of {name!r} reads {p!r}, which is not a "
                        "declared variable", smap.nearest(("variables", name, "mechanism")),
                        "declare it under variables:")
            used &= variables
        # An edge from an undeclared name is already SCM305; do not call it unused too.
        declared = into.get(name, set()) & variables
        for p in sorted(used - declared):
            loc = ("variables", name, "equation")
            at, width, note = _parent_site(card, spec.equation or "", p)
            bag.add("SCM304", f"the equation of {name!r} uses {p!r}{note}, but the edges list "
                    f"no edge {p} -> {name} (hidden parent)", smap.at(loc, at, width),
                    f"add `- {{from: {p}, to: {name}, reason: ...}}` to edges, or drop {p!r} "
                    "from the equation")
        for p in sorted(declared - used):
            i = listed[(p, name)]
            what = "is a root (it has a distribution)" if spec.distribution is not None else \
                f"does not use {p!r} in its {'equation' if spec.equation else 'mechanism'}"
            if spec.equation is not None and name in equations and \
                    find_name(spec.equation, p) >= 0:  # written, then cancelled: w - w
                what = (f"writes {p!r} in its equation in terms that cancel (it simplifies to "
                        f"'{sp.sstr(equations[name])[:60]}'), so it does not depend on {p!r}")
            cancelled = what.startswith("writes")
            bag.add("SCM304", f"edge {p} -> {name} is listed, but {name!r} {what} "
                    "(omitted parent)", smap.nearest(("edges", i)),
                    f"remove the edge and the terms that cancel, or write the dependence on "
                    f"{p!r} you meant" if cancelled else
                    f"use {p!r} in the equation of {name!r}, or remove the edge")
        graph.add_edges_from((p, name) for p in used)
    if not bag.items and not nx.is_directed_acyclic_graph(graph):
        cycle = nx.find_cycle(graph)
        path = " -> ".join([u for u, _ in cycle] + [cycle[0][0]])
        first = next((i for i, e in enumerate(card.edges)
                      if (e.source, e.target) == tuple(cycle[0][:2])), None)
        span = smap.nearest(("edges", first)) if first is not None else None
        lines = "; ".join(f"{u} -> {v} at {smap.nearest(('edges', listed[(u, v)]))}"
                          for u, v in cycle if (u, v) in listed)
        bag.add("SCM307", f"the graph has a cycle: {path}", span,
                f"a structural causal model must be acyclic; break one edge ({lines})")
    return graph


def _check_kinds(card: Card, smap: SourceMap, bag: DiagnosticBag) -> None:
    for name, spec in card.variables.items():
        dist = spec.distribution
        loc = ("variables", name, "distribution")
        if dist is None:
            continue
        if spec.noise.kind != "none":
            bag.add("SCM314", f"{name!r} is a root: its distribution already is its exogenous "
                    "variation, so it takes no noise", smap.nearest(("variables", name, "noise")),
                    "remove `noise:`, or widen the distribution")
        if spec.kind == "continuous" and dist.discrete:
            bag.add("SCM313", f"{name!r} is continuous but its distribution {dist.kind!r} is "
                    "discrete", smap.nearest(loc), f"set `kind:` of {name!r} to binary, count, "
                    "ordinal or categorical")
        if spec.kind in DISCRETE_KINDS and not dist.discrete:
            bag.add("SCM313", f"{name!r} is {spec.kind} but its distribution {dist.kind!r} is "
                    "continuous", smap.nearest(loc), "use bernoulli, poisson, categorical or "
                    "ordinal, or declare the variable continuous")
        probs = getattr(dist, "probs", None)
        if probs is not None and spec.levels is not None and len(probs) != len(spec.levels):
            bag.add("SCM313", f"{name!r} has {len(spec.levels)} levels but {len(probs)} "
                    "probabilities", smap.nearest(loc + ("probs",)),
                    "give one probability per level, in level order")


def allowed_values(card: Card, codes: dict[str, dict[str, float]], name: str
                   ) -> tuple[float, ...] | None:
    """The values a variable of a coded kind may take (binary 0/1, level codes), else None."""
    kind = card.variables[name].kind
    if kind == "binary":
        return (0.0, 1.0)
    if kind in ("categorical", "ordinal") and name in codes:
        return tuple(float(c) for c in codes[name].values())
    return None


def value_problem(card: Card, codes: dict[str, dict[str, float]], name: str, value: float
                  ) -> tuple[str, str] | None:
    """(what is wrong, how to fix) when ``value`` is not a value ``name``'s kind allows.

    Example:
        >>> card = Card.model_validate({"id": "a", "title": "t", "family": "semantic",
        ...     "domain": "d", "variables": {"m": {"meaning": "m", "kind": "categorical",
        ...     "levels": ["a", "b"], "distribution": {"kind": "categorical",
        ...     "probs": [0.5, 0.5]}}}})
        >>> value_problem(card, {"m": {"a": 0, "b": 1}}, "m", 7.0)[0]
        'which is not one of its level codes (0, 1; levels: a, b)'
    """
    allowed = allowed_values(card, codes, name)
    if allowed is None or value in allowed:
        return None
    kind = card.variables[name].kind
    if kind == "binary":
        return "but it is binary (0 or 1)", "set it to 0 or 1, or declare it continuous"
    levels = ", ".join(codes[name])
    shown = ", ".join(f"{c:g}" for c in allowed)
    return (f"which is not one of its level codes ({shown}; levels: {levels})",
            f"set it to a level by name (value: {next(iter(codes[name]))}) or by its code")


_RANDOM = frozenset(name for name, entry in FUNCTIONS.items() if entry.random)


def _check_formula_draws(card: Card, equations: dict[str, sp.Expr], smap: SourceMap,
                         bag: DiagnosticBag) -> None:
    """A ``role: formula`` node is an exact function of its parents: no random draw in it.

    (The residual gate checks that formula nodes are noise-free on the data; a draw inside
    the equation would make it a noisy node the gate reads as exact.)
    """
    for name, expr in equations.items():
        spec = card.variables[name]
        if spec.role != "formula" or spec.equation is None:
            continue
        draws = sorted({f.func.__name__ for f in expr.atoms(sp.core.function.AppliedUndef)
                        if f.func.__name__ in _RANDOM})
        if not draws:
            continue
        loc = ("variables", name, "equation")
        found = [m for d in draws if (m := _call_site(spec.equation, d)) is not None]
        where = min(found) if found else None
        bag.add("SCM318", f"{name!r} is a formula node (an exact function of its parents) but "
                f"its equation draws at random ({', '.join(d + '()' for d in draws)})",
                smap.at(loc, *where) if where else smap.nearest(loc),
                "move the randomness to a parent (a root or measurement variable) or to the "
                "variable's `noise:`, and declare the role process or measurement", ".".join(loc))


def _call_site(text: str, function: str) -> tuple[int, int] | None:
    import re

    m = re.search(rf"(?<![A-Za-z0-9_]){re.escape(function)}\s*\(", text)
    return (m.start(), len(function)) if m else None


def _targets(card: Card, codes: dict[str, dict[str, float]], smap: SourceMap,
             bag: DiagnosticBag) -> tuple[str, ...]:
    intervenable = [v for v, s in card.variables.items() if s.intervention is not None]
    pool = card.interventions.targets
    if pool is None:
        pool = [v for v in intervenable if card.variables[v].observed]
    for i, t in enumerate(pool):
        loc = ("interventions", "targets", i)
        spec = card.variables.get(t)
        if spec is None:
            bag.add("SCM309", f"intervention target {t!r} is not a declared variable",
                    smap.nearest(loc), "list declared variable names")
        elif spec.intervention is None:
            bag.add("SCM309", f"intervention target {t!r} is not intervenable",
                    smap.nearest(loc), f"give {t!r} an `intervention:` with its meaning")
        elif not spec.observed:
            # Decided: the protocol never targets a latent variable. Its column is not
            # written, so the mask could not mark the cells an intervention set, and a
            # benchmark would hold interventional rows whose cause no method can see.
            bag.add("SCM309", f"intervention target {t!r} is latent (observed: false): its "
                    "values are never written, so its interventional rows could not be "
                    "marked in the mask", smap.nearest(loc),
                    f"make {t!r} observed, or intervene on an observed variable (in Python, "
                    "scm.do() still pins a latent variable for what-if analysis)")
    for name, spec in card.variables.items():  # numeric values a coded kind cannot take
        if spec.intervention is None:
            continue
        named = spec.intervention.handlers is not None
        for hname, handler in spec.intervention.named_handlers().items():
            if not isinstance(handler, (DoHandler, SoftHandler)) or handler.value is None \
                    or isinstance(handler.value, str):
                continue  # level names are checked by check_interventions
            problem = value_problem(card, codes, name, float(handler.value))
            if problem is not None:
                where = ("variables", name, "intervention") + (
                    ("handlers", hname) if named else ("handler",))
                bag.add("SCM311", f"the {handler.kind} handler sets {name!r} to "
                        f"{handler.value:g}, {problem[0]}", smap.nearest(where + ("value",)),
                        problem[1])
    if card.interventions.per_row > max(1, len(pool)):
        bag.add("SCM309", f"per_row is {card.interventions.per_row} but the pool has "
                f"{len(pool)} targets", smap.nearest(("interventions", "per_row")),
                "lower per_row or add targets")
    return tuple(dict.fromkeys(pool))


def _check_blocks(card: Card, parents: dict[str, tuple[str, ...]], smap: SourceMap,
                  bag: DiagnosticBag) -> None:
    seen: set[str] = set()
    for i, block in enumerate(card.root_blocks):
        loc = ("root_blocks", i)
        for v in block.variables:
            spec = card.variables.get(v)
            if spec is None or spec.distribution is None:
                bag.add("SCM312", f"root block {i} lists {v!r}, which is not a root variable",
                        smap.nearest(loc + ("variables",)), "list variables with a distribution")
            if v in seen:
                bag.add("SCM312", f"{v!r} is in more than one root block",
                        smap.nearest(loc + ("variables",)), "merge the blocks")
            seen.add(v)
        if block.correlation is None:  # uniform_ball / independent blocks carry no matrix
            continue
        corr = np.asarray(block.correlation, dtype=float)
        k = len(block.variables)
        if corr.shape != (k, k):
            bag.add("SCM312", f"root block {i}: correlation is {corr.shape}, expected ({k}, {k})",
                    smap.nearest(loc + ("correlation",)), "one row and column per variable")
        elif (not np.allclose(corr, corr.T) or not np.allclose(np.diag(corr), 1.0)
              or np.linalg.eigvalsh(corr).min() <= 1e-10):
            bag.add("SCM312", f"root block {i}: correlation must be symmetric, positive "
                    "definite, with ones on the diagonal", smap.nearest(loc + ("correlation",)),
                    "check the off-diagonal entries lie in (-1, 1) and are mutually consistent")


def _selection(card: Card, smap: SourceMap, bag: DiagnosticBag, levels: Levels,
               lets: dict[sp.Symbol, sp.Expr]) -> sp.Basic | None:
    if card.selection is None:
        return None
    return _condition(card, card.selection.condition, ("selection", "condition"),
                      "the selection condition", smap, bag, levels, lets)


def _condition(card: Card, text: str, loc: tuple[str | int, ...], what: str, smap: SourceMap,
               bag: DiagnosticBag, levels: Levels, lets: dict[sp.Symbol, sp.Expr],
               draws: bool = True) -> sp.Basic | None:
    """An expression over any variables, constants and lets (selection, observed_if, a
    noise scale); with ``draws=False`` a random draw in it is reported."""
    expr, sites = parse_one(text, loc, set(card.variables) | set(card.constants) |
                            set(card.let), smap, bag, what, levels)
    if sites and not draws:
        bag.add("SCM302", f"{what} draws random numbers", smap.nearest(loc), "the noise "
                "kind is the draw: write its scale as a deterministic expression of the "
                "parents", ".".join(map(str, loc)))
        return None
    if expr is None or not within_size(expr, let_sizes(lets), what, loc, smap, bag):
        return expr
    return substitute_lets(expr, lets, loc, smap, bag)


def variable_spec(resolved: ResolvedCard, name: str) -> VariableSpec:
    return resolved.card.variables[name]
