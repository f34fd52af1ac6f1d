"""Noise kinds whose effect depends on the row: input-dependent scale, rounding, clipping.

Each draws standard (or base Gaussian) variation in ``draw`` and combines it with the
mechanism output ``f`` (and, for ``rff_heteroskedastic``, the parent columns) in
``apply``. All numbers they use are stored in the spec: censoring bounds, for
instance, are fixed once from a pilot sample by the generator, never recomputed from
the batch being sampled. These kinds are additive only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import numpy as np
from pydantic import Field, model_validator

from scmspec.compiler.kinds.mechanism_base import (
    RandomFeatureFields,
    random_features,
    sigmoid,
    softplus,
)
from scmspec.compiler.kinds.noise_base import NOISE, NoiseBase, Positive

Array = np.ndarray


@NOISE.register("heteroskedastic")
class HeteroskedasticNoise(NoiseBase):
    """(base + slope * sigmoid(|f|)) * z, z ~ N(0, 1): the scale grows with the signal |f|."""

    kind: Literal["heteroskedastic"] = "heteroskedastic"
    mode: Literal["additive"] = "additive"
    base: Positive
    slope: float = Field(ge=0)

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        return rng.standard_normal(n)

    def apply(self, f: Array, eps: Array | None,
              parents: Mapping[str, Array] | None = None) -> Array:
        assert eps is not None
        return f + (self.base + self.slope * sigmoid(np.abs(f))) * eps


@NOISE.register("rff_heteroskedastic")
class RFFHeteroskedasticNoise(NoiseBase, RandomFeatureFields):
    """softplus(g(parents)) * z, z ~ N(0, 1), g a stored random-Fourier-feature function.

    g = output_scale * sqrt(2/F) * sum_j weights[j] * cos(omega[j] . parents + phases[j]),
    so the noise scale is a smooth, positive, input-dependent function of the parents
    listed in ``inputs`` (which must be the variable's parents).
    """

    kind: Literal["rff_heteroskedastic"] = "rff_heteroskedastic"
    mode: Literal["additive"] = "additive"
    inputs_: list[str] = Field(alias="inputs", min_length=1)

    def inputs(self) -> tuple[str, ...]:
        return tuple(self.inputs_)

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        return rng.standard_normal(n)

    def scale(self, parents: Mapping[str, Array]) -> Array:
        """The row-wise noise scale softplus(g(parents))."""
        missing = [p for p in self.inputs_ if p not in parents]
        if missing:
            raise ValueError(f"rff_heteroskedastic noise reads {missing}, which are not "
                             f"parents of the variable (parents: {sorted(parents)})")
        x = np.stack([np.asarray(parents[p], dtype=float) for p in self.inputs_], axis=1)
        om, ph, w = self.features()
        return softplus(random_features(x, om, ph, w, self.output_scale))

    def apply(self, f: Array, eps: Array | None,
              parents: Mapping[str, Array] | None = None) -> Array:
        assert eps is not None
        return f + self.scale(parents or {}) * eps


@NOISE.register("quantised")
class QuantisedNoise(NoiseBase):
    """step * round((f + e) / step), e ~ N(0, sd): Gaussian-noisy values on a grid.

    ``low`` (optional) is the smallest value the grid reports: a self-reported time
    or count is never below 0, whatever the noise drew.
    """

    kind: Literal["quantised"] = "quantised"
    mode: Literal["additive"] = "additive"
    step: Positive
    sd: Positive
    low: float | None = Field(None, description="smallest reported value (e.g. 0)")

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        return rng.normal(0.0, self.sd, n)

    def apply(self, f: Array, eps: Array | None,
              parents: Mapping[str, Array] | None = None) -> Array:
        assert eps is not None
        out = self.step * np.round((f + eps) / self.step)
        return out if self.low is None else np.maximum(out, self.low)


@NOISE.register("censored")
class CensoredNoise(NoiseBase):
    """clip(f + e, low, high), e ~ N(0, sd): Gaussian-noisy values censored at fixed bounds.

    The generator sets low/high once, to the 3rd and 97th percentiles of a pilot of the
    noisy values; they are stored numbers, not statistics of the batch being sampled.
    """

    kind: Literal["censored"] = "censored"
    mode: Literal["additive"] = "additive"
    sd: Positive
    low: float
    high: float

    @model_validator(mode="after")
    def _ordered(self) -> CensoredNoise:
        if not self.low < self.high:
            raise ValueError(f"low ({self.low}) must be below high ({self.high})")
        return self

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        return rng.normal(0.0, self.sd, n)

    def apply(self, f: Array, eps: Array | None,
              parents: Mapping[str, Array] | None = None) -> Array:
        assert eps is not None
        return np.clip(f + eps, self.low, self.high)

