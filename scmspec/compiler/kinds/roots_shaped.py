"""More root distributions: the shapes textbook models reach for.

Log-uniform (a scale-free prior over orders of magnitude), Weibull (lifetimes, wind
speeds), Rayleigh, logistic, Student t, triangular (expert elicitation: low, mode,
high), Pareto (heavy right tails) and half-normal. Like every root kind, parameters are
in the variable's declared unit (shapes and exponents are dimensionless); each kind
draws by its inverse CDF from the variable's own uniforms, so ``draw`` and ``ppf``
(used inside a copula block) give the same law.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import model_validator
from scipy import special

from scmspec.compiler.kinds.roots import ROOTS, Array, Positive, RootBase


@ROOTS.register("log_uniform")
class LogUniformRoot(RootBase):
    """Uniform in log: log(x) uniform on [log(low), log(high)], 0 < low < high."""

    kind: Literal["log_uniform"] = "log_uniform"
    low: Positive
    high: Positive

    @model_validator(mode="after")
    def _ordered(self) -> LogUniformRoot:
        if not self.low < self.high:
            raise ValueError(f"low ({self.low}) must be below high ({self.high})")
        return self

    def ppf(self, u: Array) -> Array:
        return np.exp(math.log(self.low) + (math.log(self.high) - math.log(self.low)) * u)

    def support(self) -> tuple[float, float]:
        return (self.low, self.high)


@ROOTS.register("weibull")
class WeibullRoot(RootBase):
    """Weibull with shape k and scale lambda, shifted by loc: loc + scale (-log(1 - u))^(1/k)."""

    kind: Literal["weibull"] = "weibull"
    shape: Positive
    scale: Positive = 1.0
    loc: float = 0.0

    def ppf(self, u: Array) -> Array:
        return self.loc + self.scale * (-np.log1p(-u)) ** (1.0 / self.shape)

    def support(self) -> tuple[float, float]:
        return (self.loc, np.inf)


@ROOTS.register("rayleigh")
class RayleighRoot(RootBase):
    """Rayleigh with scale sigma: the length of a 2-D Gaussian vector (mean sigma sqrt(pi/2))."""

    kind: Literal["rayleigh"] = "rayleigh"
    scale: Positive = 1.0

    def ppf(self, u: Array) -> Array:
        return self.scale * np.sqrt(-2.0 * np.log1p(-u))

    def support(self) -> tuple[float, float]:
        return (0.0, np.inf)


@ROOTS.register("logistic")
class LogisticRoot(RootBase):
    """Logistic with location loc and scale (variance pi^2 scale^2 / 3)."""

    kind: Literal["logistic"] = "logistic"
    loc: float = 0.0
    scale: Positive = 1.0

    def ppf(self, u: Array) -> Array:
        return self.loc + self.scale * special.logit(u)


@ROOTS.register("student_t")
class StudentTRoot(RootBase):
    """loc + scale x Student t with df degrees of freedom (heavy tails; variance needs df > 2)."""

    kind: Literal["student_t"] = "student_t"
    df: Positive
    loc: float = 0.0
    scale: Positive = 1.0

    def ppf(self, u: Array) -> Array:
        return self.loc + self.scale * special.stdtrit(self.df, u)


@ROOTS.register("triangular")
class TriangularRoot(RootBase):
    """Triangular on [low, high] with its peak at mode (a three-point expert estimate)."""

    kind: Literal["triangular"] = "triangular"
    low: float
    mode: float
    high: float

    @model_validator(mode="after")
    def _ordered(self) -> TriangularRoot:
        if not (self.low <= self.mode <= self.high and self.low < self.high):
            raise ValueError(f"need low <= mode <= high and low < high, got {self.low}, "
                             f"{self.mode}, {self.high}")
        if not math.isfinite(self.high - self.low):
            raise ValueError("high - low overflows a float; narrow the interval")
        return self

    def ppf(self, u: Array) -> Array:
        lo, c, hi = self.low, self.mode, self.high
        cut = (c - lo) / (hi - lo)
        left = lo + np.sqrt(u * (hi - lo) * (c - lo))
        right = hi - np.sqrt((1.0 - u) * (hi - lo) * (hi - c))
        return np.where(u < cut, left, right)

    def support(self) -> tuple[float, float]:
        return (self.low, self.high)


@ROOTS.register("pareto")
class ParetoRoot(RootBase):
    """Pareto (type I) with minimum xmin and tail index alpha: P(X > x) = (xmin / x)^alpha."""

    kind: Literal["pareto"] = "pareto"
    xmin: Positive
    alpha: Positive

    def ppf(self, u: Array) -> Array:
        return self.xmin * (1.0 - u) ** (-1.0 / self.alpha)

    def support(self) -> tuple[float, float]:
        return (self.xmin, np.inf)


@ROOTS.register("half_normal")
class HalfNormalRoot(RootBase):
    """|N(0, sd)| shifted by loc: a non-negative magnitude (mean loc + sd sqrt(2/pi))."""

    kind: Literal["half_normal"] = "half_normal"
    sd: Positive = 1.0
    loc: float = 0.0

    def ppf(self, u: Array) -> Array:
        return self.loc + self.sd * special.ndtri(0.5 + 0.5 * u)

    def support(self) -> tuple[float, float]:
        return (self.loc, np.inf)
