"""Root distributions: how a variable without parents is drawn.

Parameters are in the variable's declared unit. Each kind draws directly with
numpy's Generator (fast path) and offers ``ppf`` (inverse CDF), used when roots
are coupled through a Gaussian-copula block, and ``support`` for range checks.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, ClassVar, Literal, Union

import numpy as np
from pydantic import Field, model_validator
from scipy import special

from scmspec.compiler.kinds.count_ppf import poisson_ppf
from scmspec.compiler.specmodel import SpecModel
from scmspec.limits import current_limits
from scmspec.registry import Registry

Array = np.ndarray
Positive = Annotated[float, Field(gt=0)]
Probability = Annotated[float, Field(ge=0, le=1)]


class RootBase(SpecModel):
    """Common behaviour of root kinds."""

    discrete: ClassVar[bool] = False
    # ppf solves iteratively (~1-3 us a value): the gates' pilots read a table of it
    # instead (scmspec.samplers.tabulated); released data always use ppf itself
    slow_ppf: ClassVar[bool] = False

    def draw(self, rng: np.random.Generator, n: int) -> Array:
        return self.ppf(rng.random(n))

    def ppf(self, u: Array) -> Array:  # pragma: no cover - every kind overrides
        raise NotImplementedError

    def support(self) -> tuple[float, float]:
        return (-np.inf, np.inf)


ROOTS: Registry[type[RootBase]] = Registry("root distribution")


def _scipy_stats() -> Any:
    """``scipy.stats``, imported on first use: it costs about a second of start-up, and only
    the count and truncated kinds need it."""
    from scipy import stats

    return stats


def _check_interval(low: float, high: float) -> None:
    """low < high, with a width a float holds (numpy refuses ``uniform(-1e308, 1e308)``)."""
    if not low < high:
        raise ValueError(f"low ({low}) must be below high ({high})")
    if not math.isfinite(high - low):
        raise ValueError(f"high - low ({high} - {low}) overflows a float; narrow the interval")


def _check_count_rate(what: str, rate: float) -> None:
    """A count's mean within the draw limit: numpy refuses Poisson rates past ~1e19, and
    quantiles of huge rates come back NaN (``SCMSPEC_MAX_DRAW_COUNT``, docs/limits.md)."""
    cap = current_limits().draw_count
    if rate > cap:
        raise ValueError(f"{what} ({rate:g}) is over the limit of {cap:g} for counts "
                         "(SCMSPEC_MAX_DRAW_COUNT)")


@ROOTS.register("uniform")
class UniformRoot(RootBase):
    """Uniform on [low, high]."""

    kind: Literal["uniform"] = "uniform"
    low: float
    high: float

    @model_validator(mode="after")
    def _ordered(self) -> UniformRoot:
        _check_interval(self.low, self.high)
        return self

    def draw(self, rng: np.random.Generator, n: int) -> Array:
        return rng.uniform(self.low, self.high, n)

    def ppf(self, u: Array) -> Array:
        return self.low + (self.high - self.low) * u

    def support(self) -> tuple[float, float]:
        return (self.low, self.high)


@ROOTS.register("normal")
class NormalRoot(RootBase):
    """Gaussian with mean and standard deviation sd."""

    kind: Literal["normal"] = "normal"
    mean: float = 0.0
    sd: Positive = 1.0

    def draw(self, rng: np.random.Generator, n: int) -> Array:
        return rng.normal(self.mean, self.sd, n)

    def ppf(self, u: Array) -> Array:
        return self.mean + self.sd * special.ndtri(u)


@ROOTS.register("truncated_normal")
class TruncatedNormalRoot(RootBase):
    """Gaussian (mean, sd) truncated to [low, high] by rejection-free inverse CDF."""

    kind: Literal["truncated_normal"] = "truncated_normal"
    slow_ppf: ClassVar[bool] = True
    mean: float = 0.0
    sd: Positive = 1.0
    low: float
    high: float

    @model_validator(mode="after")
    def _ordered(self) -> TruncatedNormalRoot:
        if not self.low < self.high:
            raise ValueError(f"low ({self.low}) must be below high ({self.high})")
        return self

    def ppf(self, u: Array) -> Array:
        a, b = (self.low - self.mean) / self.sd, (self.high - self.mean) / self.sd
        x = _scipy_stats().truncnorm.ppf(u, a, b, loc=self.mean, scale=self.sd)
        return np.clip(x, self.low, self.high)

    def support(self) -> tuple[float, float]:
        return (self.low, self.high)


@ROOTS.register("lognormal")
class LognormalRoot(RootBase):
    """exp(N(meanlog, sdlog)): positive, right-skewed (meanlog is the log of the median)."""

    kind: Literal["lognormal"] = "lognormal"
    meanlog: float = 0.0
    sdlog: Positive = 1.0

    def draw(self, rng: np.random.Generator, n: int) -> Array:
        return rng.lognormal(self.meanlog, self.sdlog, n)

    def ppf(self, u: Array) -> Array:
        return np.exp(self.meanlog + self.sdlog * special.ndtri(u))

    def support(self) -> tuple[float, float]:
        return (0.0, np.inf)


@ROOTS.register("gamma")
class GammaRoot(RootBase):
    """Gamma with shape and rate (mean shape/rate)."""

    kind: Literal["gamma"] = "gamma"
    slow_ppf: ClassVar[bool] = True
    shape: Positive
    rate: Positive = 1.0

    def draw(self, rng: np.random.Generator, n: int) -> Array:
        return rng.gamma(self.shape, 1.0 / self.rate, n)

    def ppf(self, u: Array) -> Array:
        return special.gammaincinv(self.shape, u) / self.rate

    def support(self) -> tuple[float, float]:
        return (0.0, np.inf)


@ROOTS.register("beta")
class BetaRoot(RootBase):
    """Beta(a, b) mapped linearly onto [low, high] (default [0, 1])."""

    kind: Literal["beta"] = "beta"
    slow_ppf: ClassVar[bool] = True
    a: Positive
    b: Positive
    low: float = 0.0
    high: float = 1.0

    @model_validator(mode="after")
    def _ordered(self) -> BetaRoot:
        _check_interval(self.low, self.high)
        return self

    def draw(self, rng: np.random.Generator, n: int) -> Array:
        return self.low + (self.high - self.low) * rng.beta(self.a, self.b, n)

    def ppf(self, u: Array) -> Array:
        return self.low + (self.high - self.low) * special.betaincinv(self.a, self.b, u)

    def support(self) -> tuple[float, float]:
        return (self.low, self.high)


@ROOTS.register("exponential")
class ExponentialRoot(RootBase):
    """Exponential with rate (mean 1/rate), shifted by loc."""

    kind: Literal["exponential"] = "exponential"
    rate: Positive = 1.0
    loc: float = 0.0

    def draw(self, rng: np.random.Generator, n: int) -> Array:
        return self.loc + rng.exponential(1.0 / self.rate, n)

    def ppf(self, u: Array) -> Array:
        return self.loc - np.log1p(-u) / self.rate

    def support(self) -> tuple[float, float]:
        return (self.loc, np.inf)


@ROOTS.register("gumbel")
class GumbelRoot(RootBase):
    """Gumbel (maximum) with loc and scale."""

    kind: Literal["gumbel"] = "gumbel"
    loc: float = 0.0
    scale: Positive = 1.0

    def draw(self, rng: np.random.Generator, n: int) -> Array:
        return rng.gumbel(self.loc, self.scale, n)

    def ppf(self, u: Array) -> Array:
        return self.loc - self.scale * np.log(-np.log(u))


@ROOTS.register("bernoulli")
class BernoulliRoot(RootBase):
    """0/1 with P(1) = p."""

    kind: Literal["bernoulli"] = "bernoulli"
    p: Probability
    discrete: ClassVar[bool] = True

    def ppf(self, u: Array) -> Array:
        return (u < self.p).astype(float)

    def support(self) -> tuple[float, float]:
        return (0.0, 1.0)


@ROOTS.register("poisson")
class PoissonRoot(RootBase):
    """Counts with mean rate."""

    kind: Literal["poisson"] = "poisson"
    rate: Positive
    discrete: ClassVar[bool] = True

    @model_validator(mode="after")
    def _bounded(self) -> PoissonRoot:
        _check_count_rate("rate", self.rate)
        return self

    def draw(self, rng: np.random.Generator, n: int) -> Array:
        return rng.poisson(self.rate, n).astype(float)

    def ppf(self, u: Array) -> Array:
        return poisson_ppf(u, self.rate)

    def support(self) -> tuple[float, float]:
        return (0.0, np.inf)


@ROOTS.register("negative_binomial")
class NegativeBinomialRoot(RootBase):
    """Overdispersed counts: mean ``mean``, variance mean + mean^2 / dispersion.

    The gamma-Poisson mixture: each unit has its own Poisson rate, gamma-distributed
    with shape ``dispersion``; small dispersion means bursty counts (calls, incidents,
    defects per shift), large dispersion tends to Poisson.
    """

    kind: Literal["negative_binomial"] = "negative_binomial"
    mean: Positive
    dispersion: Positive
    discrete: ClassVar[bool] = True

    @model_validator(mode="after")
    def _bounded(self) -> NegativeBinomialRoot:
        # numpy draws a Poisson of a gamma rate and refuses when that rate's mean + 10 sd
        # can pass its maximum: mean * (1 + 10 / sqrt(dispersion)) bounds it.
        _check_count_rate("mean * (1 + 10 / sqrt(dispersion))",
                          self.mean * (1.0 + 10.0 / math.sqrt(self.dispersion)))
        return self

    def _p(self) -> float:
        return self.dispersion / (self.dispersion + self.mean)

    def draw(self, rng: np.random.Generator, n: int) -> Array:
        return rng.negative_binomial(self.dispersion, self._p(), n).astype(float)

    def ppf(self, u: Array) -> Array:
        return _scipy_stats().nbinom.ppf(u, self.dispersion, self._p())

    def support(self) -> tuple[float, float]:
        return (0.0, np.inf)


@ROOTS.register("zero_inflated_poisson")
class ZeroInflatedPoissonRoot(RootBase):
    """Counts that are structurally zero with probability ``zero_prob``, else Poisson(rate).

    For processes that are off for part of the population (a machine that did not run,
    a clinic closed that day) and count events when on.
    """

    kind: Literal["zero_inflated_poisson"] = "zero_inflated_poisson"
    rate: Positive
    zero_prob: Annotated[float, Field(ge=0, lt=1)]
    discrete: ClassVar[bool] = True

    @model_validator(mode="after")
    def _bounded(self) -> ZeroInflatedPoissonRoot:
        _check_count_rate("rate", self.rate)
        return self

    def draw(self, rng: np.random.Generator, n: int) -> Array:
        return self.ppf(rng.random(n))

    def ppf(self, u: Array) -> Array:
        # P(X <= k) = z + (1 - z) F(k): below z the structural zero, above it the
        # Poisson quantile of the rescaled level.
        on = (np.asarray(u, dtype=float) - self.zero_prob) / (1.0 - self.zero_prob)
        return np.where(on <= 0, 0.0, poisson_ppf(np.clip(on, 0.0, 1.0), self.rate))

    def support(self) -> tuple[float, float]:
        return (0.0, np.inf)


@ROOTS.register("categorical")
class CategoricalRoot(RootBase):
    """Level codes 0..k-1 with the given probabilities (in the variable's level order)."""

    kind: Literal["categorical"] = "categorical"
    probs: list[Probability] = Field(min_length=2)
    discrete: ClassVar[bool] = True

    @model_validator(mode="after")
    def _sums_to_one(self) -> CategoricalRoot:
        if abs(sum(self.probs) - 1.0) > 1e-6:
            raise ValueError(f"probs must sum to 1, they sum to {sum(self.probs):.6g}")
        return self

    def ppf(self, u: Array) -> Array:
        edges = np.cumsum(self.probs)[:-1]
        return np.searchsorted(edges, u, side="right").astype(float)

    def support(self) -> tuple[float, float]:
        return (0.0, float(len(self.probs) - 1))


@ROOTS.register("ordinal")
class OrdinalRoot(CategoricalRoot):
    """Ordered level codes 0..k-1 with the given probabilities."""

    kind: Literal["ordinal"] = "ordinal"  # type: ignore[assignment]


@ROOTS.register("gaussian_mixture")
class GaussianMixtureRoot(RootBase):
    """Mixture of Gaussians: component i has weight weights[i], mean means[i], sd sds[i]."""

    kind: Literal["gaussian_mixture"] = "gaussian_mixture"
    slow_ppf: ClassVar[bool] = True
    weights: list[Probability] = Field(min_length=2)
    means: list[float]
    sds: list[Positive]

    @model_validator(mode="after")
    def _consistent(self) -> GaussianMixtureRoot:
        if not len(self.weights) == len(self.means) == len(self.sds):
            raise ValueError("weights, means and sds must have the same length")
        if abs(sum(self.weights) - 1.0) > 1e-6:
            raise ValueError(f"weights must sum to 1, they sum to {sum(self.weights):.6g}")
        return self

    def draw(self, rng: np.random.Generator, n: int) -> Array:
        comp = rng.choice(len(self.weights), size=n, p=np.asarray(self.weights))
        z = rng.standard_normal(n)
        return np.asarray(self.means)[comp] + np.asarray(self.sds)[comp] * z

    def ppf(self, u: Array) -> Array:
        # No closed form: vectorised bisection on the mixture CDF (60 halvings ~ 1e-15 rel).
        w, m, s = (np.asarray(v, float)[:, None] for v in (self.weights, self.means, self.sds))
        lo = np.full(u.shape, float(np.min(m - 12 * s)))
        hi = np.full(u.shape, float(np.max(m + 12 * s)))
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            below = (w * special.ndtr((mid[None, :] - m) / s)).sum(axis=0) < u
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        return 0.5 * (lo + hi)


def _index_ppf(probs: Array, u: Array) -> Array:
    """Inverse CDF of a distribution on 0..k-1 with the given probabilities."""
    return np.searchsorted(np.cumsum(probs)[:-1], u, side="right").astype(float)


@ROOTS.register("multinomial")
class MultinomialRoot(RootBase):
    """An unordered category drawn by softmax(logits), output as its standardised index.

    The category index i in 0..k-1 becomes (i - mean) / sd, a continuous-typed column
    with mean 0 and sd 1 when ``mean`` and ``sd`` are the index's exact moments (the
    default when they are omitted; generated cards store them).
    """

    kind: Literal["multinomial"] = "multinomial"
    logits: list[float] = Field(min_length=2, max_length=64)
    mean: float | None = None
    sd: Positive | None = None

    def probs(self) -> Array:
        return special.softmax(np.asarray(self.logits, dtype=float))

    def moments(self) -> tuple[float, float]:
        """The stored (or exact) mean and sd used to standardise the index."""
        p = self.probs()
        idx = np.arange(len(p))
        mean = float(p @ idx) if self.mean is None else self.mean
        sd = float(np.sqrt(p @ (idx - p @ idx) ** 2)) if self.sd is None else self.sd
        return mean, sd

    def ppf(self, u: Array) -> Array:
        mean, sd = self.moments()
        return (_index_ppf(self.probs(), u) - mean) / sd

    def support(self) -> tuple[float, float]:
        mean, sd = self.moments()
        return (-mean / sd, (len(self.logits) - 1 - mean) / sd)


@ROOTS.register("zipf")
class ZipfRoot(RootBase):
    """Power law on 1..support with P(v) proportional to v^-alpha, capped at cap, centred.

    The value is min(v, cap) - centre; ``centre`` defaults to the exact mean of
    min(v, cap), so the column has mean 0 (generated cards store it).
    """

    kind: Literal["zipf"] = "zipf"
    support_size: Annotated[int, Field(ge=2, le=1000)]
    alpha: Positive
    cap: Positive | None = Field(default=None, description="values above cap become cap")
    centre: float | None = None

    def probs(self) -> Array:
        w = np.arange(1, self.support_size + 1, dtype=float) ** -self.alpha
        return w / w.sum()

    def _values(self) -> Array:
        values = np.arange(1, self.support_size + 1, dtype=float)
        return values if self.cap is None else np.minimum(values, self.cap)

    def mean_shift(self) -> float:
        """The stored (or exact) centre subtracted from min(v, cap)."""
        return float(self.probs() @ self._values()) if self.centre is None else self.centre

    def ppf(self, u: Array) -> Array:
        return self._values()[_index_ppf(self.probs(), u).astype(int)] - self.mean_shift()

    def support(self) -> tuple[float, float]:
        values = self._values()
        return (float(values[0]) - self.mean_shift(), float(values[-1]) - self.mean_shift())


# The shapes of roots_shaped register into ROOTS too; imported here, once everything they
# need from this module exists, so that the union below lists every kind (the package's
# __init__ imports this module first, so this is never a partial import of roots_shaped).
from scmspec.compiler.kinds.roots_shaped import (  # noqa: E402
    HalfNormalRoot,
    LogisticRoot,
    LogUniformRoot,
    ParetoRoot,
    RayleighRoot,
    StudentTRoot,
    TriangularRoot,
    WeibullRoot,
)

RootSpec = Annotated[
    Union[
        UniformRoot, NormalRoot, TruncatedNormalRoot, LognormalRoot, GammaRoot, BetaRoot,
        ExponentialRoot, GumbelRoot, BernoulliRoot, PoissonRoot, NegativeBinomialRoot,
        ZeroInflatedPoissonRoot, CategoricalRoot, OrdinalRoot, GaussianMixtureRoot,
        MultinomialRoot, ZipfRoot, LogUniformRoot, WeibullRoot, RayleighRoot, LogisticRoot,
        StudentTRoot, TriangularRoot, ParetoRoot, HalfNormalRoot,
    ],
    Field(discriminator="kind"),
]
