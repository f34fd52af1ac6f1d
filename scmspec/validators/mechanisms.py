"""Read an equation's sympy tree: its mechanism family, and whether it copies one parent.

The classifier looks only at the expression (constants are treated as numbers)
and returns the *most distinctive* family present, by this priority:

=================  ==========================================================
event_draw         a random draw (bernoulli, poisson, binomial, categorical...)
threshold          piecewise / where / step / indicator, floor, ceil, round,
                   sign, abs (a kink or jump in a parent)
saturating         sigmoid, tanh, softplus, min, max, clip
trig               sin, cos, tan, their inverses, atan2, sinh, cosh, asinh
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

Speed: :func:`read_equation` answers the family and the bounded-sigmoid question
from one walk of the tree, remembering each node's parent dependence, and an
equation that is a numeric affine combination of its parents is told apart from
an accumulation by its numeric coefficients, without sympy's ``expand``/``coeff``.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import sympy as sp
from mpmath.libmp import to_float

from scmspec.compiler.kinds.functions import FUNCTIONS

FAMILIES = ("event_draw", "threshold", "saturating", "trig", "exp_log", "multiplicative",
            "polynomial", "identity", "accumulation", "linear", "constant")
_RANDOM = frozenset(name for name, e in FUNCTIONS.items() if e.random)
_THRESHOLD = frozenset({"Piecewise", "floor", "ceiling", "round", "sign", "Abs", "Heaviside"})
_SATURATING = frozenset({"sigmoid", "tanh", "softplus", "Min", "Max"})
_TRIG = frozenset({"sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
                   "asinh"})
_EXP_LOG = frozenset({"exp", "log"})
_SIGMOIDS = frozenset({"sigmoid", "tanh"})
_ORDER = (("event_draw", _RANDOM), ("threshold", _THRESHOLD), ("saturating", _SATURATING),
          ("trig", _TRIG), ("exp_log", _EXP_LOG), ("multiplicative", frozenset({"ratio"})),
          ("polynomial", frozenset({"power"})))
_AFFINE_OPS = frozenset({"Add", "Mul"})
_ROUNDING = frozenset({"round", "floor", "ceiling"})  # sympy's names (ceil -> ceiling)
# A numeric coefficient further than this from +-1 cannot be the stock's +1 or a +-1 flow.
_NOT_UNIT = 1e-6
_EXACT = 2**53  # integers below this are held exactly by a double


def _name(node: sp.Basic) -> str:
    # ``node.func`` is the node's class for every sympy type an equation can contain
    # (Basic.func returns self.__class__); reading the class directly skips a property.
    return type(node).__name__


@lru_cache(maxsize=4096)
def _parent_symbols(parents: tuple[str, ...]) -> frozenset[sp.Symbol]:
    return frozenset(sp.Symbol(p, real=True) for p in parents)


def _symbols(expr: sp.Basic, parents: Iterable[str]) -> frozenset[sp.Symbol]:
    """The parents' symbols (as resolve builds them), without walking ``expr``."""
    return _parent_symbols(tuple(parents))


# Per sympy class, keyed by id (an undefined function's class, such as sigmoid's, hashes
# through sympy's class_key: microseconds per lookup): (the class, what _walk records for
# it: 1 = Pow, 2 = Mul, 3 = Relational, 0 = anything else, its name, whether ``_args``
# is its args). A few boolean classes (Xor...) compute ``args`` in a property; every
# other class stores them in ``_args``, which is read without a property call.
_CLASS: dict[int, tuple[type, int, str, bool]] = {}
_BASIC_ARGS = sp.Basic.__dict__["args"]


def _class_info(cls: type) -> tuple[type, int, str, bool]:
    info = _CLASS.get(id(cls))
    if info is None or info[0] is not cls:  # (an id reused after a class was collected)
        code = 1 if cls.is_Pow else 2 if cls.is_Mul else 3 if cls.is_Relational else 0  # type: ignore[attr-defined]
        plain = all(k.__dict__.get("args", _BASIC_ARGS) is _BASIC_ARGS for k in cls.__mro__)
        info = _CLASS[id(cls)] = (cls, code, cls.__name__, plain)
    return info


def _walk(node: sp.Basic, ps: frozenset[sp.Symbol], found: set[str],
          memo: dict[int, bool] | None = None) -> bool:
    """Whether ``node`` depends on a parent; records the operations applied to parents.

    One post-order pass (each child visited once), so classifying costs O(tree size).
    With ``memo`` (keyed by node id) the dependence of every visited node is kept, and a
    subtree met twice (the same object) is not walked again: its operations are
    already in ``found``.
    """
    cls = type(node)
    info = _CLASS.get(id(cls))
    _, code, name, plain = info if info is not None and info[0] is cls else _class_info(cls)
    args = node._args if plain else node.args
    if not args:
        return bool(node.is_Symbol) and node in ps
    if memo is not None:
        seen = memo.get(id(node))
        if seen is not None:
            return seen
    # Leaves (symbols, numbers) are answered inline: about half the nodes, no call each.
    count, dep = 0, False
    for a in args:
        # sympy's is_* class flags are plain attribute reads, much cheaper than isinstance.
        dep = _walk(a, ps, found, memo) if a._args else (a.is_Symbol and a in ps)
        if dep:
            count += 1
    if count:
        if code == 1:  # Pow(base, exp): ``dep`` is the exponent's
            if dep:
                found.add("exp")
            elif node.exp.is_negative:  # an assumption query: no relational is built
                found.add("ratio")
            elif node.exp != 1:
                found.add("power")
        elif code == 2 and count >= 2:
            found.add("ratio")
        elif code == 3:
            found.add("Piecewise")
        found.add(name)
    if memo is not None:
        memo[id(node)] = count > 0
    return count > 0


def _depends(node: sp.Basic, ps: frozenset[sp.Symbol], memo: dict[int, bool] | None = None
             ) -> bool:
    if memo is not None and id(node) in memo:
        return memo[id(node)]
    return _walk(node, ps, set(), memo)


def _dependent_nodes(expr: sp.Basic, ps: frozenset[sp.Symbol]) -> set[str]:
    """Names of the operations applied to parent-dependent arguments."""
    found: set[str] = set()
    _walk(expr, ps, found)
    return found


def operations(expr: sp.Basic, parents: Iterable[str]) -> set[str]:
    """Names of the operations applied to parent-dependent terms (``ratio``, ``Min``, ...).

    Example:
        >>> x, y = sp.symbols("x y", real=True)
        >>> sorted(operations(x / y + sp.Max(x, 1), ("x", "y")))
        ['Add', 'Max', 'Mul', 'Pow', 'ratio']
    """
    return _dependent_nodes(expr, _parent_symbols(tuple(parents)))


def classify(expr: sp.Basic, parents: tuple[str, ...]) -> str:
    """The mechanism family of an equation over ``parents`` (see the module table).

    Example:
        >>> x, y = sp.symbols("x y", real=True)
        >>> [classify(e, ("x", "y")) for e in (2 * x + 1, x * y, sp.exp(x), x)]
        ['linear', 'multiplicative', 'exp_log', 'identity']
    """
    return read_equation(expr, parents)[0]


def read_equation(expr: sp.Basic, parents: Iterable[str]) -> tuple[str, bool]:
    """(mechanism family, whether it is a generic bounded sigmoid), from one walk.

    Example:
        >>> x, y = sp.symbols("x y", real=True)
        >>> read_equation(2 * sp.tanh(x - y) + 1, ("x", "y"))
        ('saturating', True)
    """
    ps = _parent_symbols(tuple(parents))
    ops: set[str] = set()
    memo: dict[int, bool] = {}
    if not _walk(expr, ps, ops, memo):
        return "constant", False
    # A bounded sigmoid's core is a parent-dependent sigmoid or tanh, whose name the walk
    # has recorded; without one, the answer is no.
    bounded = not ops.isdisjoint(_SIGMOIDS) and _bounded_sigmoid(expr, ps, memo)
    return _family(expr, ps, ops, memo), bounded


def _family(expr: sp.Basic, ps: frozenset[sp.Symbol], ops: set[str],
            memo: dict[int, bool]) -> str:
    for family, names in _ORDER:
        if not ops.isdisjoint(names):
            return family
    if expr.is_Symbol and expr in ps:
        return "identity"
    return "accumulation" if _is_accumulation(expr, ps, memo) else "linear"


def _is_accumulation(expr: sp.Basic, ps: frozenset[sp.Symbol],
                     memo: dict[int, bool] | None = None) -> bool:
    """Sum of parents, one with coefficient +1 (the stock), the rest +-1 or +-one named rate."""
    if len(ps) < 2:
        return False
    numeric = _numeric_coefficients(expr, ps, memo or {})
    if numeric is not None and any(abs(abs(c) - 1.0) > _NOT_UNIT for c in numeric):
        return False  # a numeric rate (or a missing parent): the general test says linear too
    coeffs = _coefficients(expr, ps)
    rates = {sp.Abs(c) for c in coeffs if c not in (1, -1)}
    named = all(not r.is_number for r in rates)
    return any(c == 1 for c in coeffs) and len(rates) <= 1 and named


def _numeric_coefficients(expr: sp.Basic, ps: frozenset[sp.Symbol],
                          memo: dict[int, bool]) -> list[float] | None:
    """Each parent's coefficient when ``expr`` is affine in them with numbers only, else None.

    Reads nested sums and numeric scalings (``0.5 * (a * x + y) + 1``) without
    expanding; constant terms are skipped, and a named factor (``dt * x``) or a
    function of a parent gives None (the exact test decides). Numbers are read as
    ``float(number)`` does, without hashing them (a sympy Float hashes through a
    float conversion).
    """
    out = dict.fromkeys(ps, 0.0)
    stack = [(expr, 1.0)]
    while stack:
        node, scale = stack.pop()
        if node.is_Symbol and node in out:
            out[node] += scale
        elif node.is_Number:
            continue
        elif not _depends(node, ps, memo):
            continue  # a constant term, named or not, scales no parent
        elif node.is_Add:
            stack.extend((a, scale) for a in node.args)
        elif node.is_Mul:
            dep = [a for a in node.args if not a.is_Number]
            if len(dep) != 1:
                return None
            factor = 1.0
            for a in node.args:
                if a.is_Number:
                    value = _float(a)
                    if value is None:
                        return None  # oo, nan: leave them to the exact test
                    factor *= value
            stack.append((dep[0], scale * factor))
        else:
            return None
    return list(out.values())


def _float(number: sp.Basic) -> float | None:
    """``float(number)`` for a finite Rational or Float (else None), bit for bit.

    ``Number.__float__`` is ``to_float(number._as_mpf_val(53))``: the value correctly
    rounded, which is also what one IEEE division of two exactly held integers gives.
    """
    if number.is_Rational:
        p, q = number.p, number.q  # type: ignore[attr-defined]
        if abs(p) < _EXACT and q < _EXACT:  # both exact doubles: IEEE division rounds once
            return p / q  # type: ignore[no-any-return]
    elif not isinstance(number, sp.Float):
        return None
    return float(to_float(number._as_mpf_val(53)))


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
    return _bounded_sigmoid(expr, _parent_symbols(tuple(parents)), {})


def _bounded_sigmoid(expr: sp.Basic, ps: frozenset[sp.Symbol], memo: dict[int, bool]) -> bool:
    core = _strip_affine(expr, ps, memo)
    if core is None or _name(core) not in _SIGMOIDS or len(core.args) != 1:
        return False
    return affine_in(core.args[0], ps)


def _strip_affine(expr: sp.Basic, ps: frozenset[sp.Symbol],
                  memo: dict[int, bool] | None = None) -> sp.Basic | None:
    """The single parent-dependent term of ``a + b * term``, without a and b."""
    if isinstance(expr, sp.Add):
        dep = [a for a in expr.args if _depends(a, ps, memo)]
        if len(dep) != 1:
            return None
        expr = dep[0]
    if isinstance(expr, sp.Mul):
        dep = [a for a in expr.args if _depends(a, ps, memo)]
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
    return _dependent_nodes(expr, frozenset(ps)) <= _AFFINE_OPS


def copied_parent(expr: sp.Basic, parents: tuple[str, ...]) -> tuple[str, str] | None:
    """``(parent, kind)`` when the equation is one parent, affine or rounded-affine in it.

    An alias is the parent itself; a unit conversion is ``a * parent + b``; a
    rounded unit conversion is ``round``, ``floor`` or ``ceil`` of one (a value
    reported in whole units of another scale).

    Example:
        >>> x = sp.Symbol("x", real=True)
        >>> [copied_parent(e, ("x",)) for e in (1.8 * x + 32, x, x**2, sp.floor(x / 100))]
        [('x', 'unit conversion'), ('x', 'alias'), None, ('x', 'rounded unit conversion')]
    """
    ps = _parent_symbols(tuple(parents))
    if len(ps) != 1:
        return None
    (p,) = ps
    rounded = getattr(expr.func, "__name__", "") in _ROUNDING and len(expr.args) == 1
    inner = expr.args[0] if rounded else expr
    ops = _dependent_nodes(inner, ps)  # one walk answers both questions
    if ops & _RANDOM:
        return None
    if inner == p:
        return p.name, "rounded unit conversion" if rounded else "alias"
    if ops <= _AFFINE_OPS:
        return p.name, "rounded unit conversion" if rounded else "unit conversion"
    return None


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
