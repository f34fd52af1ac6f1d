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
from scipy import special, stats

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
_add("step", 1, 1, lambda x: _indicator(sp.Ge(x, 0)), "sign", "1 where x >= 0, else 0")


# Random draws: sympy sees an opaque function; lowering replaces each call site
# with an inverse-CDF transform of that site's exogenous uniform.
def _bernoulli_u(p: Array, u: Array) -> Array:
    return (u < p).astype(float)


def _poisson_u(rate: Array, u: Array) -> Array:
    rate = np.broadcast_to(np.maximum(rate, 0.0), np.shape(u))
    return np.asarray(stats.poisson.ppf(u, rate), dtype=float)


def _binomial_u(n: Array, p: Array, u: Array) -> Array:
    return np.asarray(stats.binom.ppf(u, np.round(n), np.clip(p, 0.0, 1.0)), dtype=float)


def _normal_u(mean: Array, sd: Array, u: Array) -> Array:
    return mean + sd * special.ndtri(u)


def _uniform_u(low: Array, high: Array, u: Array) -> Array:
    return low + (high - low) * u


def _exponential_u(rate: Array, u: Array) -> Array:
    return -np.log1p(-u) / rate


def _categorical_u(*args: Array) -> Array:
    *weights, u = args
    w = np.clip(np.vstack([np.broadcast_to(w, np.shape(u)) for w in weights]), 0.0, None)
    cdf = np.cumsum(w, axis=0)
    return (u[None, :] * cdf[-1] >= cdf).sum(axis=0).clip(0, len(weights) - 1).astype(float)


for _name, _lo, _hi, _impl, _units, _doc in [
    ("bernoulli", 1, 1, _bernoulli_u, "draw_dimensionless", "1 with probability p, else 0"),
    ("poisson", 1, 1, _poisson_u, "draw_first", "a count with mean rate"),
    ("binomial", 2, 2, _binomial_u, "draw_first", "binomial(n, p): successes of n trials"),
    ("categorical", 2, None, _categorical_u, "draw_dimensionless",
     "categorical(w0, w1, ...): level code k with probability w_k / sum(w)"),
    ("normal", 2, 2, _normal_u, "draw_same", "normal(mean, sd): a Gaussian draw"),
    ("uniform", 2, 2, _uniform_u, "draw_same", "uniform(low, high): a uniform draw"),
    ("exponential", 1, 1, _exponential_u, "draw_inverse", "exponential(rate): waiting time"),
]:
    _add(_name, _lo, _hi, _custom(_name), _units, _doc, _impl, random=True)

RESERVED_NAMES = frozenset(FUNCTIONS) | {"pi"}
