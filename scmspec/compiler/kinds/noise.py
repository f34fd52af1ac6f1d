"""Noise terms: exogenous variation added to (or multiplied into) a mechanism.

Every kind draws a zero-centred term ``eps`` of length n from the variable's own
stream. ``mode: additive`` gives ``f + eps`` (eps in the variable's unit);
``mode: multiplicative`` gives ``f * (1 + eps)`` (eps dimensionless). ``none``
draws nothing, so formula nodes stay exact functions of their parents.

This module holds the kinds that are a plain draw; kinds that reshape ``f`` or whose
scale depends on the row (heteroskedastic, quantised, censored) live in
``noise_shaped``. Every kind is gathered into the ``NoiseSpec`` union here.
"""

from __future__ import annotations

import math
from typing import Annotated, ClassVar, Literal, Union

import numpy as np
from pydantic import Field, model_validator

from scmspec.compiler.kinds.noise_base import NOISE, NoiseBase, Positive, Scale
from scmspec.compiler.kinds.noise_shaped import (
    CensoredNoise,
    HeteroskedasticNoise,
    QuantisedNoise,
    RFFHeteroskedasticNoise,
)

Array = np.ndarray
Probability = Annotated[float, Field(gt=0, lt=1)]
EULER_GAMMA = 0.5772156649015329

__all__ = [
    "NOISE", "BetaNoise", "CensoredNoise", "ExponentialNoise", "GumbelNoise",
    "HeteroskedasticNoise", "LaplaceNoise", "LognormalNoise", "MixtureOutlierNoise", "NoNoise",
    "NoiseBase", "NoiseSpec", "NormalNoise", "QuantisedNoise", "RFFHeteroskedasticNoise",
    "StudentTNoise", "TargetR2Noise", "UniformNoise",
]


@NOISE.register("none")
class NoNoise(NoiseBase):
    """No noise: the variable is an exact function of its parents."""

    kind: Literal["none"] = "none"

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        return None


@NOISE.register("normal")
class NormalNoise(NoiseBase):
    """Gaussian with standard deviation sd."""

    kind: Literal["normal"] = "normal"
    sd: Scale
    scale_field: ClassVar[str | None] = "sd"

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        return rng.normal(0.0, self.scale_value(), n)


@NOISE.register("uniform")
class UniformNoise(NoiseBase):
    """Uniform on [-scale, scale]."""

    kind: Literal["uniform"] = "uniform"
    scale: Scale
    scale_field: ClassVar[str | None] = "scale"

    @model_validator(mode="after")
    def _width(self) -> UniformNoise:
        # numpy draws from the width 2 * scale, which must be a float (uniform(-1e308,
        # 1e308) raises an OverflowError).
        if not isinstance(self.scale, str) and not math.isfinite(2 * self.scale):
            raise ValueError(f"scale ({self.scale:g}) makes the width 2 * scale overflow a "
                             "float; use a smaller scale")
        return self

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        scale = self.scale_value()
        return rng.uniform(-scale, scale, n)


@NOISE.register("laplace")
class LaplaceNoise(NoiseBase):
    """Laplace (double exponential) with scale b."""

    kind: Literal["laplace"] = "laplace"
    scale: Scale
    scale_field: ClassVar[str | None] = "scale"

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        return rng.laplace(0.0, self.scale_value(), n)


@NOISE.register("student_t")
class StudentTNoise(NoiseBase):
    """Student-t with df degrees of freedom, multiplied by scale (heavy tails)."""

    kind: Literal["student_t"] = "student_t"
    df: Positive
    scale: Scale
    scale_field: ClassVar[str | None] = "scale"

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        return self.scale_value() * rng.standard_t(self.df, n)


@NOISE.register("lognormal")
class LognormalNoise(NoiseBase):
    """exp(N(0, sigma)) - 1: median zero, right-skewed; natural as multiplicative noise."""

    kind: Literal["lognormal"] = "lognormal"
    sigma: Positive

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        return np.expm1(self.sigma * rng.standard_normal(n))


@NOISE.register("target_r2")
class TargetR2Noise(NoiseBase):
    """Gaussian with standard deviation sd, chosen so that signal / (signal + noise) = r2.

    ``sd`` is the concrete number, computed once by the generator from a pilot
    signal variance: sd = sqrt(var(f) (1 - r2) / r2). ``r2`` records the design target;
    sampling uses only ``sd`` (no batch statistics).
    """

    kind: Literal["target_r2"] = "target_r2"
    r2: Probability
    sd: Positive

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        return rng.normal(0.0, self.sd, n)


@NOISE.register("mixture_outlier")
class MixtureOutlierNoise(NoiseBase):
    """Gaussian sd, except with probability outlier_prob Gaussian outlier_scale (rare jumps)."""

    kind: Literal["mixture_outlier"] = "mixture_outlier"
    sd: Positive
    outlier_prob: Probability
    outlier_scale: Positive

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        z = rng.standard_normal(n)
        outlier = rng.random(n) < self.outlier_prob
        return np.where(outlier, self.outlier_scale, self.sd) * z


@NOISE.register("beta")
class BetaNoise(NoiseBase):
    """scale * (Beta(a, b) - a / (a + b)): bounded, centred, skewed when a != b."""

    kind: Literal["beta"] = "beta"
    a: Positive
    b: Positive
    scale: Positive

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        return self.scale * (rng.beta(self.a, self.b, n) - self.a / (self.a + self.b))


@NOISE.register("exponential")
class ExponentialNoise(NoiseBase):
    """scale * (E - 1 / rate), E ~ Exponential(rate): a centred one-sided disturbance."""

    kind: Literal["exponential"] = "exponential"
    rate: Positive
    scale: Positive

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        return self.scale * (rng.exponential(1.0 / self.rate, n) - 1.0 / self.rate)


@NOISE.register("gumbel")
class GumbelNoise(NoiseBase):
    """Gumbel (maximum) with the given scale, centred: G - scale * Euler's gamma."""

    kind: Literal["gumbel"] = "gumbel"
    scale: Scale
    scale_field: ClassVar[str | None] = "scale"

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        scale = self.scale_value()
        return rng.gumbel(-scale * EULER_GAMMA, scale, n)


NoiseSpec = Annotated[
    Union[
        NoNoise, NormalNoise, UniformNoise, LaplaceNoise, StudentTNoise, LognormalNoise,
        TargetR2Noise, MixtureOutlierNoise, BetaNoise, ExponentialNoise, GumbelNoise,
        HeteroskedasticNoise, RFFHeteroskedasticNoise, QuantisedNoise, CensoredNoise,
    ],
    Field(discriminator="kind"),
]
