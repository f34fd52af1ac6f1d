"""Functions an equation may call: the whitelist.

Each entry names the function as cards write it, its arity, how it becomes a
sympy expression, its vectorised numpy implementation (for functions sympy
does not lower itself), how units flow through it, and one line of docs.
Random draws (``bernoulli``, ``poisson``, ...) consume one exogenous uniform
per call site, drawn from the variable's own stream, so that under an
intervention the same draw is reused and only descendants change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp
from scipy import special

from scmspec.compiler.kinds.count_ppf import poisson_ppf
from scmspec.registry import Registry

Array = np.ndarray


@dataclass(frozen=True)
class FunctionEntry:
    """One whitelisted function.

    ``units`` is one of: ``dimensionless`` (arguments and result dimensionless),
    ``same`` (arguments share a dimension, which the result keeps), ``sqrt``,
    ``cbrt``, ``sign`` (any argument, dimensionless result), ``where``,
    ``piecewise``, ``draw_same`` (a random draw whose arguments share the result's
    dimension), ``draw_dimensionless``, ``draw_first`` (the draw has the unit of its
    first argument, the others are dimensionless) or ``draw_inverse`` (1 / the unit of its
    argument). See docs/units.md.
    """

    name: str
    min_args: int
    max_args: int | None
    build: Callable[..., sp.Expr]
    units: str
    doc: str
    numpy: Callable[..., Array] | None = None
    random: bool = False


FUNCTIONS: Registry[FunctionEntry] = Registry("function")


def _scipy_stats() -> Any:
    """``scipy.stats``, imported on first use: it costs about a second of start-up, and only
    the count and truncated kinds need it."""
    from scipy import stats

    return stats


def _add(name: str, min_args: int, max_args: int | None, build: Callable[..., Any], units: str,
         doc: str, numpy: Callable[..., Array] | None = None, random: bool = False) -> None:
    FUNCTIONS.add(name, FunctionEntry(name, min_args, max_args, build, units, doc, numpy, random))


def _custom(name: str) -> type[sp.Function]:
    return sp.Function(name)  # type: ignore[no-any-return]


def _sigmoid(x: Array) -> Array:
    return special.expit(x)


def _softplus(x: Array) -> Array:
    return np.logaddexp(0.0, x)


def _indicator(c: Any) -> sp.Expr:
    return sp.Piecewise((sp.Integer(1), c), (sp.Integer(0), True))


def _as_condition(c: Any) -> Any:
    if isinstance(c, sp.logic.boolalg.Boolean) and not isinstance(c, sp.Expr):
        return c
    return sp.Ne(c, 0)


def _where(c: Any, a: Any, b: Any) -> sp.Expr:
    return sp.Piecewise((a, _as_condition(c)), (b, True))


def _piecewise(*args: Any) -> sp.Expr:
    if len(args) % 2 == 0:
        raise ValueError("piecewise takes pairs (condition, value) and then a default value")
    pairs = [(args[i + 1], _as_condition(args[i])) for i in range(0, len(args) - 1, 2)]
    return sp.Piecewise(*pairs, (args[-1], True))


# Elementary functions (sympy knows how to lower these).
for _name, _fn, _doc in [
    ("exp", sp.exp, "e to the power x"),
    ("log", sp.log, "natural logarithm"),
    ("log10", lambda x: sp.log(x, 10), "base-10 logarithm"),
    ("log2", lambda x: sp.log(x, 2), "base-2 logarithm"),
    ("log1p", lambda x: sp.log(1 + x), "log(1 + x)"),
    ("expm1", lambda x: sp.exp(x) - 1, "exp(x) - 1"),
    ("sin", sp.sin, "sine (radians)"),
    ("cos", sp.cos, "cosine (radians)"),
    ("tan", sp.tan, "tangent (radians)"),
    ("asin", sp.asin, "arcsine"),
    ("acos", sp.acos, "arccosine"),
    ("atan", sp.atan, "arctangent"),
    ("sinh", sp.sinh, "hyperbolic sine"),
    ("cosh", sp.cosh, "hyperbolic cosine"),
    ("tanh", sp.tanh, "hyperbolic tangent"),
    ("asinh", sp.asinh, "inverse hyperbolic sine, log(x + sqrt(x**2 + 1))"),
]:
    _add(_name, 1, 1, _fn, "dimensionless", _doc)

_add("sigmoid", 1, 1, _custom("sigmoid"), "dimensionless", "logistic 1/(1+exp(-x))", _sigmoid)
_add("softplus", 1, 1, _custom("softplus"), "dimensionless", "log(1 + exp(x)), smooth ReLU",
     _softplus)
_add("sqrt", 1, 1, sp.sqrt, "sqrt", "square root")
_add("cbrt", 1, 1, sp.cbrt, "cbrt", "cube root")
_add("abs", 1, 1, sp.Abs, "same", "absolute value")
_add("sign", 1, 1, sp.sign, "sign", "-1, 0 or 1")
_add("floor", 1, 1, sp.floor, "same", "round down to an integer")
_add("ceil", 1, 1, sp.ceiling, "same", "round up to an integer")
_add("round", 1, 1, _custom("round"), "same", "round half to even", np.round)
_add("min", 2, None, sp.Min, "same", "smallest argument, element-wise")
_add("max", 2, None, sp.Max, "same", "largest argument, element-wise")
_add("clip", 3, 3, lambda x, lo, hi: sp.Min(sp.Max(x, lo), hi), "same",
     "clip(x, lo, hi): x limited to [lo, hi]")
_add("atan2", 2, 2, sp.atan2, "sign", "atan2(y, x): angle of (x, y), arguments share a unit")
_add("where", 3, 3, _where, "where", "where(condition, a, b): a where condition holds, else b")
_add("piecewise", 3, None, _piecewise, "piecewise",
     "piecewise(c1, v1, c2, v2, ..., default): first value whose condition holds")
_add("indicator", 1, 1, _indicator, "sign", "1 where the condition holds, else 0")
_add("erf", 1, 1, _custom("erf"), "dimensionless", "error function", special.erf)
_add("erfc", 1, 1, _custom("erfc"), "dimensionless", "complementary error function 1 - erf(x)",
     special.erfc)
_add("Phi", 1, 1, _custom("Phi"), "dimensionless",
     "standard normal CDF (also written \u03a6)", special.ndtr)
_add("logit", 1, 1, _custom("logit"), "dimensionless", "log(p / (1 - p)), for 0 < p < 1",
     special.logit)
_add("expit", 1, 1, _custom("expit"), "dimensionless", "logistic 1/(1+exp(-x)) (= sigmoid)",
     special.expit)
_add("step", 1, 1, lambda x: _indicator(sp.Ge(x, 0)), "sign", "1 where x >= 0, else 0")


# Random draws: sympy sees an opaque function; lowering replaces each call site
# with an inverse-CDF transform of that site's exogenous uniform.
#
# Each draw states which parameter values are invalid (``_*_bad``: masks that are
# False on NaN, so a NaN parent propagates as NaN rather than being called invalid).
# The same rules run at compile time on constant arguments (``check_draw``, located at
# the call) and at sampling time on every row (the draw raises DrawParameterError, and
# the sampler turns it into a located SCM603). Nothing is clamped: a negative Poisson
# rate is a mistake in the card, and quietly drawing 0 would hide it.
Problems = list[tuple[str, str, Any]]  # (what is wrong, what is needed, bool mask or bool)


class DrawParameterError(ValueError):
    """Invalid parameters of a random draw on ``rows`` of ``n`` rows (the sampler locates it)."""

    def __init__(self, function: str, problem: str, need: str, rows: int, n: int) -> None:
        self.function, self.problem, self.need, self.rows, self.n = function, problem, need, rows, n
        super().__init__(f"{function}(): {problem} on {rows} of {n} rows")


def _draw_count_limit() -> int:
    from scmspec.limits import current_limits  # read at call time: env overrides apply

    return current_limits().draw_count


def _bernoulli_bad(p: Any) -> Problems:
    return [("p outside [0, 1]", "0 <= p <= 1", (p < 0) | (p > 1))]


def _poisson_bad(rate: Any) -> Problems:
    cap = _draw_count_limit()
    return [("rate < 0", "rate >= 0", rate < 0),
            (f"rate > {cap:g}", f"rate <= {cap:g} (SCMSPEC_MAX_DRAW_COUNT)", rate > cap)]


def _binomial_bad(n: Any, p: Any) -> Problems:
    # A parent-dependent n is rounded to whole trials (cards compute counts as products
    # of rates); a constant n must be written whole (see _CONSTANT_RULES).
    cap = _draw_count_limit()
    return [("n < 0", "n >= 0", n < 0),
            (f"n > {cap:g}", f"n <= {cap:g} (SCMSPEC_MAX_DRAW_COUNT)", n > cap),
            *_bernoulli_bad(p)]


def _binomial_constant_bad(n: Any, p: Any) -> Problems:
    return [("n not a whole number", "a whole number of trials n",
             np.abs(n - np.round(n)) > 0), *_binomial_bad(n, p)]


def _negative_binomial_bad(mean: Any, dispersion: Any) -> Problems:
    cap = _draw_count_limit()
    return [("mean < 0", "mean >= 0", mean < 0),
            (f"mean > {cap:g}", f"mean <= {cap:g} (SCMSPEC_MAX_DRAW_COUNT)", mean > cap),
            ("dispersion <= 0", "dispersion > 0", dispersion <= 0)]


def _normal_bad(mean: Any, sd: Any) -> Problems:
    return [("sd <= 0", "sd > 0", sd <= 0)]


def _uniform_bad(low: Any, high: Any) -> Problems:
    return [("high <= low", "low < high", high <= low)]


def _exponential_bad(rate: Any) -> Problems:
    return [("rate <= 0", "rate > 0", rate <= 0)]


def _categorical_bad(*weights: Any) -> Problems:
    negative = np.zeros((), dtype=bool)
    total = 0.0
    for w in weights:
        negative = negative | (w < 0)
        total = total + w
    return [("a weight < 0", "every weight >= 0", negative),
            ("all weights 0", "a positive weight", total == 0)]


def _log_uniform_bad(low: Any, high: Any) -> Problems:
    return [("low <= 0", "0 < low", low <= 0), *_uniform_bad(low, high)]


def _truncated_normal_bad(mean: Any, sd: Any, low: Any, high: Any) -> Problems:
    return [*_normal_bad(mean, sd), *_uniform_bad(low, high)]


def _scale_shape_bad(what: str) -> Callable[[Any, Any], Problems]:
    def bad(scale: Any, shape: Any) -> Problems:
        return [(f"{what} <= 0", f"{what} > 0", scale <= 0), ("shape <= 0", "shape > 0",
                                                              shape <= 0)]
    return bad


def _beta_bad(a: Any, b: Any) -> Problems:
    return [("a <= 0", "a > 0", a <= 0), ("b <= 0", "b > 0", b <= 0)]


def _triangular_bad(low: Any, mode: Any, high: Any) -> Problems:
    return [*_uniform_bad(low, high),
            ("mode outside [low, high]", "low <= mode <= high", (mode < low) | (mode > high))]


DRAW_RULES: dict[str, Callable[..., Problems]] = {
    "bernoulli": _bernoulli_bad, "poisson": _poisson_bad, "binomial": _binomial_bad,
    "negative_binomial": _negative_binomial_bad, "normal": _normal_bad,
    "uniform": _uniform_bad, "exponential": _exponential_bad,
    "categorical": _categorical_bad, "log_uniform": _log_uniform_bad,
    "truncated_normal": _truncated_normal_bad, "weibull": _scale_shape_bad("scale"),
    "lognormal": _scale_shape_bad("median"), "gamma_draw": _scale_shape_bad("mean"),
    "beta_draw": _beta_bad, "triangular": _triangular_bad,
}
_CONSTANT_RULES: dict[str, Callable[..., Problems]] = {"binomial": _binomial_constant_bad}


def check_draw(name: str, *args: float) -> tuple[str, str] | None:
    """(problem, need) when constant arguments of draw ``name`` are invalid, else None.

    Arguments not known at compile time are passed as NaN, which no rule flags.

    Example:
        >>> check_draw("normal", 0.0, -1.0)
        ('sd <= 0', 'sd > 0')
        >>> check_draw("uniform", float("nan"), 1.0) is None
        True
    """
    rules = _CONSTANT_RULES.get(name, DRAW_RULES[name])
    with np.errstate(invalid="ignore"):
        for problem, need, bad in rules(*args):
            if bool(np.any(bad)):
                return problem, need
    return None


def _refuse(name: str, args: tuple[Any, ...], u: Array) -> None:
    """Raise DrawParameterError when any row's parameters of draw ``name`` are invalid."""
    with np.errstate(invalid="ignore"):
        for problem, need, bad in DRAW_RULES[name](*args):
            if np.any(bad):
                rows = int(np.count_nonzero(np.broadcast_to(bad, np.shape(u))))
                raise DrawParameterError(name, problem, need, rows, int(np.size(u)))


def _bernoulli_u(p: Array, u: Array) -> Array:
    _refuse("bernoulli", (p,), u)
    return (u < p).astype(float)


def _poisson_u(rate: Array, u: Array) -> Array:
    _refuse("poisson", (rate,), u)
    rate = np.broadcast_to(rate, np.shape(u))
    return poisson_ppf(u, rate)


def _binomial_u(n: Array, p: Array, u: Array) -> Array:
    _refuse("binomial", (n, p), u)
    return np.asarray(_scipy_stats().binom.ppf(u, np.round(n), p), dtype=float)


def _negative_binomial_u(mean: Array, dispersion: Array, u: Array) -> Array:
    # Gamma-Poisson with shape k = dispersion: p = k / (k + mean), variance mean + mean^2 / k.
    _refuse("negative_binomial", (mean, dispersion), u)
    p = dispersion / (dispersion + mean)
    return np.asarray(_scipy_stats().nbinom.ppf(u, dispersion, p), dtype=float)


def _normal_u(mean: Array, sd: Array, u: Array) -> Array:
    _refuse("normal", (mean, sd), u)
    return mean + sd * special.ndtri(u)


def _uniform_u(low: Array, high: Array, u: Array) -> Array:
    _refuse("uniform", (low, high), u)
    return low + (high - low) * u


def _exponential_u(rate: Array, u: Array) -> Array:
    _refuse("exponential", (rate,), u)
    return -np.log1p(-u) / rate


def _categorical_u(*args: Array) -> Array:
    *weights, u = args
    _refuse("categorical", tuple(weights), u)
    w = np.vstack([np.broadcast_to(w, np.shape(u)) for w in weights])
    cdf = np.cumsum(w, axis=0)
    return (u[None, :] * cdf[-1] >= cdf).sum(axis=0).clip(0, len(weights) - 1).astype(float)


def _log_uniform_u(low: Array, high: Array, u: Array) -> Array:
    _refuse("log_uniform", (low, high), u)
    return np.exp(np.log(low) + (np.log(high) - np.log(low)) * u)


def _truncated_normal_u(mean: Array, sd: Array, low: Array, high: Array, u: Array) -> Array:
    _refuse("truncated_normal", (mean, sd, low, high), u)
    a, b = (low - mean) / sd, (high - mean) / sd
    x = _scipy_stats().truncnorm.ppf(u, a, b, loc=mean, scale=sd)
    return np.clip(np.asarray(x, dtype=float), low, high)


def _weibull_u(scale: Array, shape: Array, u: Array) -> Array:
    _refuse("weibull", (scale, shape), u)
    return scale * (-np.log1p(-u)) ** (1.0 / shape)


def _lognormal_u(median: Array, sdlog: Array, u: Array) -> Array:
    _refuse("lognormal", (median, sdlog), u)
    return median * np.exp(sdlog * special.ndtri(u))


def _gamma_u(mean: Array, shape: Array, u: Array) -> Array:
    _refuse("gamma_draw", (mean, shape), u)
    return np.asarray(special.gammaincinv(shape, u) * (mean / shape), dtype=float)


def _beta_u(a: Array, b: Array, u: Array) -> Array:
    _refuse("beta_draw", (a, b), u)
    return np.asarray(special.betaincinv(a, b, u), dtype=float)


def _triangular_u(low: Array, mode: Array, high: Array, u: Array) -> Array:
    _refuse("triangular", (low, mode, high), u)
    width = high - low
    left = low + np.sqrt(u * width * (mode - low))
    right = high - np.sqrt((1.0 - u) * width * (high - mode))
    return np.where(u < (mode - low) / width, left, right)


_DRAWS: list[tuple[str, int, int | None, Callable[..., Array], str, str]] = [
    ("bernoulli", 1, 1, _bernoulli_u, "draw_dimensionless", "1 with probability p, else 0"),
    ("poisson", 1, 1, _poisson_u, "draw_first", "a count with mean rate"),
    ("binomial", 2, 2, _binomial_u, "draw_first", "binomial(n, p): successes of n trials"),
    ("negative_binomial", 2, 2, _negative_binomial_u, "draw_first",
     "negative_binomial(mean, dispersion): an overdispersed count, variance mean + "
     "mean^2 / dispersion (gamma-Poisson)"),
    ("categorical", 2, None, _categorical_u, "draw_dimensionless",
     "categorical(w0, w1, ...): level code k with probability w_k / sum(w)"),
    ("normal", 2, 2, _normal_u, "draw_same", "normal(mean, sd): a Gaussian draw"),
    ("uniform", 2, 2, _uniform_u, "draw_same", "uniform(low, high): a uniform draw"),
    ("exponential", 1, 1, _exponential_u, "draw_inverse", "exponential(rate): waiting time"),
    ("log_uniform", 2, 2, _log_uniform_u, "draw_same",
     "log_uniform(low, high): log of the draw uniform on [log low, log high]"),
    ("truncated_normal", 4, 4, _truncated_normal_u, "draw_same",
     "truncated_normal(mean, sd, low, high): a Gaussian draw kept within [low, high]"),
    ("weibull", 2, 2, _weibull_u, "draw_first",
     "weibull(scale, shape): lifetimes; scale in the result's unit, shape dimensionless"),
    ("lognormal", 2, 2, _lognormal_u, "draw_first",
     "lognormal(median, sdlog): median x exp(N(0, sdlog))"),
    # Not named plain gamma/beta: cards name constants so (the heat capacity ratio, a rate),
    # and function names are reserved.
    ("gamma_draw", 2, 2, _gamma_u, "draw_first",
     "gamma_draw(mean, shape): a gamma draw, variance mean^2 / shape"),
    ("beta_draw", 2, 2, _beta_u, "draw_dimensionless",
     "beta_draw(a, b): a Beta(a, b) draw in [0, 1]"),
    ("triangular", 3, 3, _triangular_u, "draw_same",
     "triangular(low, mode, high): a three-point estimate"),
]
for _name, _lo, _hi, _impl, _units, _doc in _DRAWS:
    _add(_name, _lo, _hi, _custom(_name), _units, _doc, _impl, random=True)

# Names sympy prints (so a formula pasted from sympy reads as written), each the alias of a
# whitelisted function; ``Piecewise((a, cond), (b, True))`` is read by the parser itself.
ALIASES = {"Min": "min", "Max": "max", "Abs": "abs", "ceiling": "ceil", "\u03a6": "Phi"}
PIECEWISE_ALIAS = "Piecewise"

RESERVED_NAMES = frozenset(FUNCTIONS) | frozenset(ALIASES) | {"pi", PIECEWISE_ALIAS}
