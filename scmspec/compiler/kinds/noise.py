"""Noise terms: exogenous variation added to (or multiplied into) a mechanism.

Every kind draws a zero-centred term ``eps`` of length n from the variable's own
stream. ``mode: additive`` gives ``f + eps`` (eps in the variable's unit);
``mode: multiplicative`` gives ``f * (1 + eps)`` (eps dimensionless). ``none``
draws nothing, so formula nodes stay exact functions of their parents.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

import numpy as np
from pydantic import Field

from scmspec.compiler.specmodel import SpecModel
from scmspec.registry import Registry

Array = np.ndarray
Positive = Annotated[float, Field(gt=0)]


class NoiseBase(SpecModel):
    """Common behaviour of noise kinds."""

    mode: Literal["additive", "multiplicative"] = "additive"

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:  # pragma: no cover
        raise NotImplementedError

    def apply(self, f: Array, eps: Array | None, parents: tuple[Array, ...] = ()) -> Array:
        """Combine the mechanism's output f with the drawn term (and, for kinds whose
        scale depends on the inputs, such as heteroskedastic noise, the parent columns)."""
        if eps is None:
            return f
        return f + eps if self.mode == "additive" else f * (1.0 + eps)


NOISE: Registry[type[NoiseBase]] = Registry("noise")


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
    sd: Positive

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        return rng.normal(0.0, self.sd, n)


@NOISE.register("uniform")
class UniformNoise(NoiseBase):
    """Uniform on [-scale, scale]."""

    kind: Literal["uniform"] = "uniform"
    scale: Positive

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        return rng.uniform(-self.scale, self.scale, n)


@NOISE.register("laplace")
class LaplaceNoise(NoiseBase):
    """Laplace (double exponential) with scale b."""

    kind: Literal["laplace"] = "laplace"
    scale: Positive

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        return rng.laplace(0.0, self.scale, n)


@NOISE.register("student_t")
class StudentTNoise(NoiseBase):
    """Student-t with df degrees of freedom, multiplied by scale (heavy tails)."""

    kind: Literal["student_t"] = "student_t"
    df: Positive
    scale: Positive

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        return self.scale * rng.standard_t(self.df, n)


@NOISE.register("lognormal")
class LognormalNoise(NoiseBase):
    """exp(N(0, sigma)) - 1: median zero, right-skewed; natural as multiplicative noise."""

    kind: Literal["lognormal"] = "lognormal"
    sigma: Positive

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        return np.expm1(self.sigma * rng.standard_normal(n))


NoiseSpec = Annotated[
    Union[NoNoise, NormalNoise, UniformNoise, LaplaceNoise, StudentTNoise, LognormalNoise],
    Field(discriminator="kind"),
]
