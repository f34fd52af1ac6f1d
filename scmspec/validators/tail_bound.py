"""Interval bounds that prove a variable stays in its declared range, without sampling.

The ``ranges`` gate must block a value outside its range at 1 in 10^5 rows. Sampling
alone needs 10^5-10^6 rows per card for that. Most ranged variables can be settled by
reasoning instead, in the style of interval arithmetic (Moore, 1966) applied to the
lowered equations:

* every exogenous source of the card (a root's draw, a noise term, each random-draw
  site in an equation) is cut to its central quantiles ``[q(delta), q(1 - delta)]``,
  with ``delta = PROOF_RATE / (2 x sources)`` (divided by the smallest acceptance a
  selection may have, since a selection can raise a share by at most its inverse);
* intervals are propagated through the equations in topological order (sums, products,
  powers, monotone functions, min/max/clip, piecewise branches, draws);
* a variable whose interval lies inside its declared range is *proved*: it leaves the
  range only when some source leaves its central quantiles, so its share outside is
  below ``PROOF_RATE`` (union bound). A ranged parent enters its children's intervals
  cut to its own range: a violation of the parent is the parent's finding, and a
  child's proof holds on the rows where its parents are in range.

A root's share outside its range is computed exactly from its quantile function
(``root_tail``), so roots never need sampling. Anything the bounds cannot settle (an
interval wider than the range, a construct without a rule) is returned unsettled and
the tail pilot samples it (``tail_sample.tail_pilot``). Every rule is conservative: an
unknown function or a non-finite bound gives the whole real line, never a false proof.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import sympy as sp
from mpmath import libmp as mlib
from scipy import special

from scmspec.compiler.kinds.noise_base import NoiseBase, ScaledNoise
from scmspec.compiler.kinds.roots import NormalRoot
from scmspec.compiler.plan import Plan, Step
from scmspec.limits import current_limits
from scmspec.registry import Registry
from scmspec.validators.thresholds import SELECTION_FAIL, TAIL_PROOF_RATE

Interval = tuple[float, float]
FULL: Interval = (-math.inf, math.inf)
Env = dict[str, Interval]


def hull(*values: float) -> Interval:
    """The smallest interval holding ``values``; the whole line if any is NaN."""
    if any(v != v for v in values):
        return FULL
    return min(values), max(values)


def add(a: Interval, b: Interval) -> Interval:
    lo, hi = a[0] + b[0], a[1] + b[1]
    return FULL if lo != lo or hi != hi else (lo, hi)  # NaN: inf - inf


def mul(a: Interval, b: Interval) -> Interval:
    """Product of two intervals (0 x inf counts as 0: the other corners carry the extent)."""
    a0, a1 = a
    if a0 == a1 and a0 and math.isfinite(a0):  # a number times an interval (a coefficient)
        lo, hi = a0 * b[0] if b[0] else 0.0, a0 * b[1] if b[1] else 0.0
        return (lo, hi) if lo <= hi else (hi, lo)
    corners = [x * y if x and y else 0.0 for x in a for y in b]
    return min(corners), max(corners)


def reciprocal(a: Interval) -> Interval:
    if a[0] > 0 or a[1] < 0:
        return hull(1.0 / a[0], 1.0 / a[1]) if a[0] and a[1] else FULL
    return FULL


def increasing(fn: Callable[[float], float], low: float = -math.inf) -> Callable[..., Interval]:
    """A rule for a non-decreasing function defined for x >= ``low`` (below it: NaN rows)."""
    def rule(a: Interval) -> Interval:
        lo, hi = max(a[0], low), max(a[1], low)
        return hull(_safe(fn, lo), _safe(fn, hi))
    return rule


def decreasing(fn: Callable[[float], float]) -> Callable[..., Interval]:
    def rule(a: Interval) -> Interval:
        return hull(_safe(fn, a[1]), _safe(fn, a[0]))
    return rule


def _safe(fn: Callable[[float], float], x: float) -> float:
    try:
        y = float(fn(x))  # numpy warnings are silenced by interval_bounds
    except (OverflowError, ValueError, ZeroDivisionError):
        return math.nan if math.isnan(x) else (math.inf if x > 0 else -math.inf)
    return y


def _exp(x: float) -> float:
    return math.inf if x > 709 else (0.0 if x == -math.inf else math.exp(x))


def _log(x: float) -> float:
    return -math.inf if x <= 0 else math.log(x)


def _abs(a: Interval) -> Interval:
    lo = 0.0 if a[0] <= 0 <= a[1] else min(abs(a[0]), abs(a[1]))
    return lo, max(abs(a[0]), abs(a[1]))


def _even(fn: Callable[[float], float]) -> Callable[..., Interval]:
    def rule(a: Interval) -> Interval:
        m = _abs(a)
        return hull(_safe(fn, m[0]), _safe(fn, m[1]))
    return rule


def _bounded(lo: float, hi: float) -> Callable[..., Interval]:
    return lambda *a: (lo, hi)


def _minmax(pick: Callable[..., float]) -> Callable[..., Interval]:
    return lambda *args: (pick(a[0] for a in args), pick(a[1] for a in args))


# Rules by function name (sympy class name, or the card's name for custom functions).
FUNCTION_RULES: Registry[Callable[..., Interval]] = Registry("interval rule")
for _name, _rule in {
    "exp": increasing(_exp), "log": increasing(_log, 0.0),
    "sqrt": increasing(math.sqrt, 0.0), "cbrt": increasing(np.cbrt),
    "tanh": _bounded(-1.0, 1.0), "atan": increasing(math.atan),
    "sinh": increasing(lambda x: math.copysign(math.inf, x) if abs(x) > 709 else math.sinh(x)),
    "asinh": increasing(math.asinh),
    "cosh": _even(lambda x: math.inf if x > 709 else math.cosh(x)),
    "asin": increasing(lambda x: math.asin(min(max(x, -1.0), 1.0))),
    "acos": decreasing(lambda x: math.acos(min(max(x, -1.0), 1.0))),
    "sin": _bounded(-1.0, 1.0), "cos": _bounded(-1.0, 1.0),
    "sigmoid": increasing(special.expit), "expit": increasing(special.expit),
    "softplus": increasing(lambda x: float(np.logaddexp(0.0, x))),
    "erf": increasing(special.erf), "erfc": decreasing(special.erfc),
    "Phi": increasing(special.ndtr), "logit": increasing(special.logit),
    "floor": increasing(math.floor), "ceiling": increasing(math.ceil),
    "round": increasing(lambda x: float(np.round(x))),
    "sign": increasing(lambda x: float(np.sign(x))), "Abs": _abs,
    "atan2": _bounded(-math.pi, math.pi),
    "Min": _minmax(min), "Max": _minmax(max),
    "bernoulli": _bounded(0.0, 1.0), "beta_draw": _bounded(0.0, 1.0),
}.items():
    FUNCTION_RULES.add(_name, _rule)


# Random draws: (parameter intervals, z = the standard normal quantile of 1 - delta,
# delta) -> interval. The last argument of a draw in an equation is its site index.
DrawRule = Callable[[list[Interval], float, float], Interval]
DRAW_RULES: Registry[DrawRule] = Registry("draw interval rule")


def _draw(name: str) -> Callable[[DrawRule], DrawRule]:
    def register(rule: DrawRule) -> DrawRule:
        DRAW_RULES.add(name, rule)
        return rule
    return register


@_draw("normal")
def _normal_draw(p: list[Interval], z: float, delta: float) -> Interval:
    spread = mul((-z, z), (0.0, max(p[1][1], 0.0)))
    return add(p[0], spread)


@_draw("uniform")
@_draw("log_uniform")
def _uniform_draw(p: list[Interval], z: float, delta: float) -> Interval:
    return hull(p[0][0], p[1][0], p[0][1], p[1][1])


@_draw("truncated_normal")
def _truncated_draw(p: list[Interval], z: float, delta: float) -> Interval:
    return p[2][0], p[3][1]


@_draw("triangular")
def _triangular_draw(p: list[Interval], z: float, delta: float) -> Interval:
    return p[0][0], p[2][1]


@_draw("poisson")
def _poisson_draw(p: list[Interval], z: float, delta: float) -> Interval:
    from scipy import stats
    rate = p[0][1]
    return (0.0, float(stats.poisson.isf(delta, rate)) if math.isfinite(rate) else math.inf)


@_draw("negative_binomial")
def _negative_binomial_draw(p: list[Interval], z: float, delta: float) -> Interval:
    from scipy import stats
    mean, k = p[0][1], p[1]
    if k[0] != k[1] or k[0] <= 0 or not mean <= current_limits().draw_count:
        # as for gamma_draw: a varying shape has no monotone quantile; and beyond the draw
        # limit (which a sampled row may not pass anyway) boost's root bracketing in
        # ``isf`` does not return (a mean bound of 1e200 hung it): the pilot samples instead
        return 0.0, math.inf
    # For a fixed dispersion the upper quantile grows with the mean.
    return 0.0, float(stats.nbinom.isf(delta, k[0], k[0] / (k[0] + max(mean, 0.0))))


@_draw("binomial")
def _binomial_draw(p: list[Interval], z: float, delta: float) -> Interval:
    return 0.0, max(p[0][1], 0.0)


@_draw("exponential")
def _exponential_draw(p: list[Interval], z: float, delta: float) -> Interval:
    return 0.0, (-math.log(delta) / p[0][0] if p[0][0] > 0 else math.inf)


@_draw("lognormal")
def _lognormal_draw(p: list[Interval], z: float, delta: float) -> Interval:
    if p[0][0] < 0:
        return FULL
    s = max(p[1][1], 0.0)
    return p[0][0] * _exp(-z * s), p[0][1] * _exp(z * s)


@_draw("weibull")
def _weibull_draw(p: list[Interval], z: float, delta: float) -> Interval:
    if p[1][0] <= 0 or p[0][0] < 0:
        return 0.0, math.inf
    return 0.0, p[0][1] * (-math.log(delta)) ** (1.0 / p[1][0])


@_draw("gamma_draw")
def _gamma_draw(p: list[Interval], z: float, delta: float) -> Interval:
    from scipy import stats
    shape = p[1]
    if shape[0] != shape[1] or shape[0] <= 0 or p[0][0] < 0:
        return 0.0, math.inf  # the upper quantile's dependence on the shape is not monotone
    k = shape[0]
    return 0.0, p[0][1] * float(stats.gamma.isf(delta, k)) / k


@_draw("categorical")
def _categorical_draw(p: list[Interval], z: float, delta: float) -> Interval:
    return 0.0, float(len(p) - 1)


# Noise terms eps (before ``mode`` combines them with f): (noise, z, delta) -> interval.
NoiseRule = Callable[[NoiseBase, float, float], Interval]
NOISE_RULES: Registry[NoiseRule] = Registry("noise interval rule")
for _kind, _nrule in {
    "none": lambda n, z, d: (0.0, 0.0),
    "normal": lambda n, z, d: (-z * n.scale_value(), z * n.scale_value()),
    "target_r2": lambda n, z, d: (-z * n.sd, z * n.sd),
    "uniform": lambda n, z, d: (-n.scale_value(), n.scale_value()),
    "laplace": lambda n, z, d: (-n.scale_value() * math.log(1 / (2 * d)),
                                n.scale_value() * math.log(1 / (2 * d))),
    "student_t": lambda n, z, d: _symmetric(n.scale_value() * float(special.stdtrit(n.df, 1 - d))),
    "lognormal": lambda n, z, d: (math.expm1(-z * n.sigma), _safe(math.expm1, z * n.sigma)),
    "mixture_outlier": lambda n, z, d: _symmetric(z * max(n.sd, n.outlier_scale)),
    "beta": lambda n, z, d: (-n.scale * n.a / (n.a + n.b), n.scale * n.b / (n.a + n.b)),
    "exponential": lambda n, z, d: (-n.scale / n.rate, n.scale * (-math.log(d) - 1) / n.rate),
    "gumbel": lambda n, z, d: (n.scale_value() * (-0.5772156649015329 - math.log(-math.log(d))),
                               n.scale_value() * (-0.5772156649015329 - math.log(-math.log1p(-d)))),
    "heteroskedastic": lambda n, z, d: _symmetric(z * (n.base + n.slope)),
}.items():
    NOISE_RULES.add(_kind, _nrule)


def _symmetric(h: float) -> Interval:
    return (-h, h) if not math.isnan(h) else FULL


@dataclass(frozen=True)
class Bounds:
    """Per variable, the interval it stays in unless an exogenous source leaves its cut."""

    intervals: dict[str, Interval]
    delta: float  # tail mass cut from each side of every exogenous source
    sources: int  # exogenous sources of the card


def sources_of(step: Step) -> int:
    """Exogenous draws of a step: its root, its noise term(s), one per random-draw site."""
    if step.constant is not None:
        return 0
    if step.root is not None:
        return 1
    noise = 0 if step.noise.kind == "none" else (2 if step.noise.kind == "mixture_outlier" else 1)
    return noise + step.sites


def interval_bounds(plan: Plan, equations: dict[str, sp.Basic],
                    ranges: dict[str, Interval],
                    scales: dict[str, sp.Basic] | None = None,
                    constants: dict[str, float] | None = None) -> Bounds:
    """Propagate intervals through ``plan`` (natural rows: no targets).

    ``equations`` are the variables' sympy equations, ``constants`` the values of
    the card's named constants they use; ``ranges`` the declared ranges, which cut a
    ranged parent's interval for its children; ``scales`` the sympy scale of
    expression-scaled noise.
    """
    sources = sum(sources_of(s) for s in plan.steps)
    delta = TAIL_PROOF_RATE / (2.0 * max(sources, 1))
    if plan.selection is not None:  # a selection keeps >= SELECTION_FAIL of the rows
        delta *= SELECTION_FAIL
    z = float(-special.ndtri(delta))
    env: Env = {k: (v, v) for k, v in (constants or {}).items()}
    raw: Env = {}
    with np.errstate(all="ignore"):
        for step in plan.steps:
            try:
                iv = _step_interval(step, env, equations.get(step.name),
                                    (scales or {}).get(step.name), z, delta)
            except (TypeError, ValueError, ArithmeticError, RecursionError):
                iv = FULL  # a construct no rule can bound (zoo, a complex power): sample it
            raw[step.name] = iv
            env[step.name] = cut(iv, ranges.get(step.name))
    return Bounds(raw, delta, sources)


def cut(iv: Interval, rng: Interval | None) -> Interval:
    """``iv`` cut to a declared range (a parent's violation is its own finding)."""
    if rng is None:
        return iv
    lo, hi = max(iv[0], rng[0]), min(iv[1], rng[1])
    return (lo, hi) if lo <= hi else rng


def _step_interval(step: Step, env: Env, expr: sp.Basic | None, scale: sp.Basic | None,
                   z: float, delta: float) -> Interval:
    if step.constant is not None:
        return step.constant, step.constant
    if step.root is not None:
        return root_interval(step, delta, z)
    if expr is None:  # a structured mechanism: no sympy form to bound
        return FULL
    f = interval_of(expr, env, z, delta)
    return with_noise(f, step.noise, env, scale, z, delta)


def root_interval(step: Step, delta: float, z: float) -> Interval:
    """A root's central interval [q(delta), q(1 - delta)], standardised and level-mapped.

    ``z`` is the standard normal quantile of 1 - delta (a normal root needs nothing else).
    """
    root = step.root
    assert root is not None
    if type(root) is NormalRoot:
        iv = (root.mean - z * root.sd, root.mean + z * root.sd)
    else:
        q = np.asarray(root.ppf(np.array([delta, 1.0 - delta])), dtype=float)
        iv = hull(float(q[0]), float(q[1]))
    if step.level_values is not None:
        return hull(*step.level_values)
    if step.affine is not None:
        loc, sc = step.affine
        iv = hull((iv[0] - loc) / sc, (iv[1] - loc) / sc)
    return iv


def with_noise(f: Interval, noise: NoiseBase, env: Env, scale: sp.Basic | None,
               z: float, delta: float) -> Interval:
    """The interval of ``noise.apply(f, eps)`` for eps in its central interval."""
    base = noise.base if isinstance(noise, ScaledNoise) else noise
    if base.kind == "censored":
        lo, hi = add(f, (-z * base.sd, z * base.sd))  # type: ignore[attr-defined]
        return (min(max(lo, base.low), base.high),  # type: ignore[attr-defined]
                min(max(hi, base.low), base.high))  # type: ignore[attr-defined]
    if base.kind not in NOISE_RULES:
        return FULL
    try:
        eps = NOISE_RULES.lookup(base.kind)(base, z, delta)
    except (RuntimeError, AttributeError, TypeError):  # an expression scale left unlowered
        return FULL
    if isinstance(noise, ScaledNoise):
        if scale is None:
            return FULL
        s = interval_of(scale, env, z, delta)
        eps = mul(eps, (max(s[0], 0.0), s[1]))
    if base.mode == "multiplicative":
        return mul(f, add((1.0, 1.0), eps))
    return add(f, eps)


def interval_of(expr: sp.Basic, env: Env, z: float, delta: float) -> Interval:
    """The interval of a sympy expression over the intervals of its symbols."""
    rule = _NODE_RULES.get(type(expr))
    if rule is not None:
        return rule(expr, env, z, delta)
    if expr.is_Number:
        v = _number(expr)
        return (v, v) if math.isfinite(v) else FULL
    if isinstance(expr, sp.Symbol):
        return env.get(expr.name, FULL)
    if isinstance(expr, sp.NumberSymbol):
        v = float(expr)
        return v, v
    name = type(expr).__name__
    args = expr.args
    if name in DRAW_RULES:
        params = [interval_of(a, env, z, delta) for a in args[:-1]]
        return _checked(DRAW_RULES.lookup(name)(params, z, delta))
    if name in FUNCTION_RULES:
        return _checked(FUNCTION_RULES.lookup(name)(*[interval_of(a, env, z, delta)
                                                      for a in args]))
    return FULL


def _add_node(expr: sp.Basic, env: Env, z: float, delta: float) -> Interval:
    out: Interval = (0.0, 0.0)
    for a in expr.args:
        out = add(out, interval_of(a, env, z, delta))
    return out


def _mul_node(expr: sp.Basic, env: Env, z: float, delta: float) -> Interval:
    out: Interval = (1.0, 1.0)
    for a in expr.args:
        out = mul(out, interval_of(a, env, z, delta))
    return out


def _piecewise_node(expr: sp.Basic, env: Env, z: float, delta: float) -> Interval:
    branches = [interval_of(e, env, z, delta) for e, _ in expr.args]  # conditions ignored
    return hull(*[b[0] for b in branches], *[b[1] for b in branches])


_NODE_RULES: dict[type, Callable[[sp.Basic, Env, float, float], Interval]] = {
    sp.Symbol: lambda e, env, z, d: env.get(e.name, FULL),
    sp.Add: _add_node, sp.Mul: _mul_node, sp.Piecewise: _piecewise_node,
    sp.Pow: lambda e, env, z, d: _pow(e.args[0], e.args[1], env, z, d),
}


def _number(expr: sp.Basic) -> float:
    """A sympy number as a float (Float read from its mpf directly: float() is slow)."""
    if isinstance(expr, sp.Float):
        return float(mlib.to_float(expr._mpf_))
    if isinstance(expr, sp.Rational):
        return expr.p / expr.q
    return float(expr)  # type: ignore[arg-type]


def _checked(iv: Interval) -> Interval:
    return FULL if math.isnan(iv[0]) or math.isnan(iv[1]) or iv[0] > iv[1] else iv


def _pow(base: sp.Basic, exponent: sp.Basic, env: Env, z: float, delta: float) -> Interval:
    b = interval_of(base, env, z, delta)
    if exponent.is_Number:
        p = _number(exponent)
        if exponent.is_Integer:
            n = int(p)
            if n == 0:
                return 1.0, 1.0
            if n < 0:
                return reciprocal(_pow_int(b, -n))
            return _pow_int(b, n)
        lo = max(b[0], 0.0)  # a negative base gives NaN rows (the finite gate's finding)
        if p > 0:
            return hull(_safe(lambda x: x ** p, lo), _safe(lambda x: x ** p, max(b[1], 0.0)))
        if lo > 0:
            return hull(b[1] ** p, lo ** p)
        return (max(b[1], 0.0) ** p if b[1] > 0 else math.inf), math.inf
    e = interval_of(exponent, env, z, delta)
    if b[0] > 0:  # b ** e = exp(e log b)
        return increasing(_exp)(mul(e, increasing(_log, 0.0)(b)))
    return FULL


def _pow_int(b: Interval, n: int) -> Interval:
    def p(x: float) -> float:
        return _safe(lambda y: y ** n, x)
    if n % 2:
        return hull(p(b[0]), p(b[1]))
    m = _abs(b)
    return hull(p(m[0]), p(m[1]))
