"""Read an equation's sympy tree: its mechanism family, and whether it copies one parent.

The classifier looks only at the expression (constants are treated as numbers)
and returns the *most distinctive* family present, by this priority:

=================  ==========================================================
event_draw         a random draw (bernoulli, poisson, binomial, categorical...)
threshold          piecewise / where / step / indicator, floor, ceil, round,
                   sign, abs (a kink or jump in a parent)
saturating         sigmoid, tanh, softplus, min, max, clip
trig               sin, cos, tan, their inverses, atan2, sinh, cosh
exp_log            exp, log (any base), a power with a parent in the exponent
multiplicative     a product or ratio of parent-dependent factors
polynomial         a parent-dependent power (squares, sqrt, power laws)
identity           exactly one parent (an alias, or parent + noise: measurement)
accumulation       a sum of >= 2 parents with coefficients +-1 or one shared
                   +-rate (stock + dt * (inflow - outflow))
linear             any other affine combination of parents
constant           no parent at all
=================  ==========================================================

A *generic bounded sigmoid* is ``a + b * sigmoid(affine)`` or the same with tanh.
"""

from __future__ import annotations

from collections.abc import Iterable

import sympy as sp

from scmspec.compiler.kinds.functions import FUNCTIONS

FAMILIES = ("event_draw", "threshold", "saturating", "trig", "exp_log", "multiplicative",
            "polynomial", "identity", "accumulation", "linear", "constant")
_RANDOM = frozenset(name for name, e in FUNCTIONS.items() if e.random)
_THRESHOLD = frozenset({"Piecewise", "floor", "ceiling", "round", "sign", "Abs", "Heaviside"})
_SATURATING = frozenset({"sigmoid", "tanh", "softplus", "Min", "Max"})
_TRIG = frozenset({"sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh"})
_EXP_LOG = frozenset({"exp", "log"})
_SIGMOIDS = frozenset({"sigmoid", "tanh"})


def _name(node: sp.Basic) -> str:
    return getattr(node.func, "__name__", type(node).__name__)


def _symbols(expr: sp.Basic, parents: Iterable[str]) -> frozenset[sp.Symbol]:
    """The parents' symbols (as resolve builds them), without walking ``expr``."""
    return frozenset(sp.Symbol(p, real=True) for p in parents)


def _walk(node: sp.Basic, ps: frozenset[sp.Symbol], found: set[str]) -> bool:
    """Whether ``node`` depends on a parent; records the operations applied to parents.

    One post-order pass (each child visited once), so classifying costs O(tree size).
    """
    # sympy's is_* class flags are plain attribute reads, much cheaper than isinstance.
    args = node.args
    if not args:
        return bool(node.is_Symbol) and node in ps
    deps = [_walk(a, ps, found) for a in args]
    if True not in deps:
        return False
    if node.is_Pow:
        if deps[1]:
            found.add("exp")
        elif node.exp.is_negative:  # an assumption query: no relational is built
            found.add("ratio")
        elif node.exp != 1:
            found.add("power")
    elif node.is_Mul and deps.count(True) >= 2:
        found.add("ratio")
    elif node.is_Relational:
        found.add("Piecewise")
    found.add(_name(node))
    return True


def _dependent_nodes(expr: sp.Basic, ps: frozenset[sp.Symbol]) -> set[str]:
    """Names of the operations applied to parent-dependent arguments."""
    found: set[str] = set()
    _walk(expr, ps, found)
    return found


def _depends(node: sp.Basic, ps: frozenset[sp.Symbol]) -> bool:
    return _walk(node, ps, set())


def classify(expr: sp.Basic, parents: tuple[str, ...]) -> str:
    """The mechanism family of an equation over ``parents`` (see the module table).

    Example:
        >>> x, y = sp.symbols("x y", real=True)
        >>> [classify(e, ("x", "y")) for e in (2 * x + 1, x * y, sp.exp(x), x)]
        ['linear', 'multiplicative', 'exp_log', 'identity']
    """
    ps = _symbols(expr, parents)
    ops: set[str] = set()
    if not _walk(expr, ps, ops):
        return "constant"
    for family, names in (("event_draw", _RANDOM), ("threshold", _THRESHOLD),
                          ("saturating", _SATURATING), ("trig", _TRIG),
                          ("exp_log", _EXP_LOG), ("multiplicative", {"ratio"}),
                          ("polynomial", {"power"})):
        if ops & names:
            return family
    if expr in ps:
        return "identity"
    return "accumulation" if _is_accumulation(expr, ps) else "linear"


def _is_accumulation(expr: sp.Basic, ps: frozenset[sp.Symbol]) -> bool:
    """Sum of parents, one with coefficient +1 (the stock), the rest +-1 or +-one named rate."""
    if len(ps) < 2:
        return False
    coeffs = _coefficients(expr, ps)
    rates = {sp.Abs(c) for c in coeffs if c not in (1, -1)}
    named = all(not r.is_number for r in rates)
    return any(c == 1 for c in coeffs) and len(rates) <= 1 and named


def _coefficients(expr: sp.Basic, ps: frozenset[sp.Symbol]) -> list[sp.Basic]:
    """Coefficients of an affine expression's parents (expanding only when terms nest)."""
    coeff: dict[sp.Basic, sp.Basic] = {}
    for term in sp.Add.make_args(expr):
        c, rest = term.as_independent(*ps, as_Add=False)
        if rest not in ps:
            expanded = sp.expand(expr)
            return [expanded.coeff(p) for p in ps]
        coeff[rest] = coeff.get(rest, sp.Integer(0)) + c
    return [coeff.get(p, sp.Integer(0)) for p in ps]


def is_bounded_sigmoid(expr: sp.Basic, parents: tuple[str, ...]) -> bool:
    """True for ``a + b * sigmoid(affine score)`` (or tanh): the generic bounded child.

    Example:
        >>> x, y = sp.symbols("x y", real=True)
        >>> sig = sp.Function("sigmoid")
        >>> is_bounded_sigmoid(3 * sig(x - 2 * y) + 1, ("x", "y")), is_bounded_sigmoid(x, ("x",))
        (True, False)
    """
    ps = _symbols(expr, parents)
    core = _strip_affine(expr, ps)
    if core is None or _name(core) not in _SIGMOIDS or len(core.args) != 1:
        return False
    return affine_in(core.args[0], ps)


def _strip_affine(expr: sp.Basic, ps: frozenset[sp.Symbol]) -> sp.Basic | None:
    """The single parent-dependent term of ``a + b * term``, without a and b."""
    if isinstance(expr, sp.Add):
        dep = [a for a in expr.args if _depends(a, ps)]
        if len(dep) != 1:
            return None
        expr = dep[0]
    if isinstance(expr, sp.Mul):
        dep = [a for a in expr.args if _depends(a, ps)]
        if len(dep) != 1:
            return None
        expr = dep[0]
    return expr


def affine_in(expr: sp.Basic, ps: Iterable[sp.Symbol]) -> bool:
    """True when ``expr`` is affine in the symbols ``ps``: only sums and scalings touch them.

    Example:
        >>> x, k = sp.symbols("x k", real=True)
        >>> affine_in(k * (2 * x + 1) - 3, [x]), affine_in(x**2, [x]), affine_in(x / k, [x])
        (True, False, True)
    """
    return _dependent_nodes(expr, frozenset(ps)) <= {"Add", "Mul"}


def copied_parent(expr: sp.Basic, parents: tuple[str, ...]) -> tuple[str, str] | None:
    """``(parent, 'alias' | 'unit conversion')`` when the equation is affine in one parent.

    An alias is the parent itself; a unit conversion is ``a * parent + b``.

    Example:
        >>> x = sp.Symbol("x", real=True)
        >>> [copied_parent(e, ("x",)) for e in (1.8 * x + 32, x, x**2)]
        [('x', 'unit conversion'), ('x', 'alias'), None]
    """
    ps = _symbols(expr, parents)
    if len(ps) != 1 or _dependent_nodes(expr, ps) & _RANDOM:
        return None
    (p,) = ps
    if expr == p:
        return p.name, "alias"
    return (p.name, "unit conversion") if affine_in(expr, ps) else None


def top_level_clip(expr: sp.Basic) -> tuple[float | None, float | None]:
    """The numeric (low, high) an equation's outermost min/max/clip pins it to."""
    low = high = None
    node = expr
    for _ in range(2):
        if not isinstance(node, (sp.Min, sp.Max)):
            break
        nums = [a for a in node.args if a.is_number]
        rest = [a for a in node.args if not a.is_number]
        if not nums or len(rest) != 1:
            break
        if isinstance(node, sp.Min):
            high = float(min(nums))
        else:
            low = float(max(nums))
        node = rest[0]
    return low, high
