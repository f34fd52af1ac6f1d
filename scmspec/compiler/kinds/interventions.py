"""Intervention handlers: what an intervention does to its target's values.

A handler maps the target's natural values on the intervened rows (what the
mechanism would have produced from the same noise) to new values. Data-driven
handlers read the target's empirical observational baseline (its values on the
observational rows of the same pass), never the intervened rows themselves.
Discrete targets are rounded to valid integer codes.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal, Union

import numpy as np
from pydantic import Field, model_validator

from scmspec.compiler.kinds.roots import RootSpec
from scmspec.compiler.specmodel import SpecModel
from scmspec.registry import Registry

Array = np.ndarray
Quantile = Annotated[float, Field(ge=0, le=1)]


class HandlerBase(SpecModel):
    """Common behaviour of intervention handlers."""

    kind: str  # each handler narrows it to its own literal tag
    uses_baseline: ClassVar[bool] = False

    def needs_baseline(self) -> bool:
        """Whether this handler reads the target's observational baseline (its values
        on the rows no intervention touched); a knob's baseline is one constant value."""
        return self.uses_baseline

    def apply(self, natural: Array, baseline: Array, rng: np.random.Generator,
              discrete: bool) -> Array:  # pragma: no cover - every kind overrides
        raise NotImplementedError


INTERVENTIONS: Registry[type[HandlerBase]] = Registry("intervention handler")


def _resample(baseline: Array, lo_q: float, hi_q: float, rng: np.random.Generator, m: int,
              discrete: bool) -> Array:
    lo, hi = np.quantile(baseline, [lo_q, hi_q])
    if not discrete:
        if np.isfinite(hi - lo):
            return rng.uniform(lo, hi, m)
        # numpy refuses a range past float (or NaN) with an OverflowError; the same
        # formula gives inf/NaN values, which the finite gate reports on the card.
        with np.errstate(all="ignore"):
            return lo + (hi - lo) * rng.random(m)
    values = np.unique(baseline[(baseline >= lo) & (baseline <= hi)])
    if values.size < 2:  # a narrow baseline: fall back to every observed level
        values = np.unique(baseline)
    return values[rng.integers(0, values.size, m)]


@INTERVENTIONS.register("do")
class DoHandler(HandlerBase):
    """Hard do(): set the target to a fixed value (or, for a categorical target, a level)."""

    kind: Literal["do"] = "do"
    value: float | str

    def apply(self, natural: Array, baseline: Array, rng: np.random.Generator,
              discrete: bool) -> Array:
        return np.full(natural.shape, float(self.value))


@INTERVENTIONS.register("resample")
class ResampleHandler(HandlerBase):
    """Hard do() to a fresh draw: from ``distribution`` (any root kind, in the target's
    unit) when given, else uniformly between baseline quantiles (default 10th-90th)."""

    kind: Literal["resample"] = "resample"
    low_quantile: Quantile = 0.1
    high_quantile: Quantile = 0.9
    distribution: RootSpec | None = Field(None, description="draw from this distribution "
                                          "(in the target's unit) instead of the baseline")
    uses_baseline: ClassVar[bool] = True

    @model_validator(mode="after")
    def _ordered(self) -> ResampleHandler:
        if not self.low_quantile < self.high_quantile:
            raise ValueError("low_quantile must be below high_quantile")
        return self

    def needs_baseline(self) -> bool:
        return self.distribution is None

    def apply(self, natural: Array, baseline: Array, rng: np.random.Generator,
              discrete: bool) -> Array:
        if self.distribution is not None:
            return np.asarray(self.distribution.draw(rng, natural.size), dtype=float)
        return _resample(baseline, self.low_quantile, self.high_quantile, rng, natural.size,
                         discrete)


@INTERVENTIONS.register("setpoint")
class SetpointHandler(HandlerBase):
    """Hard do() to the baseline's percentile, plus uniform jitter of +-jitter x IQR."""

    kind: Literal["setpoint"] = "setpoint"
    percentile: Quantile = 0.5
    jitter: Annotated[float, Field(ge=0)] = 0.01
    uses_baseline: ClassVar[bool] = True

    def apply(self, natural: Array, baseline: Array, rng: np.random.Generator,
              discrete: bool) -> Array:
        q25, centre, q75 = np.quantile(baseline, [0.25, self.percentile, 0.75])
        values = centre + self.jitter * (q75 - q25) * rng.uniform(-1.0, 1.0, natural.size)
        return np.round(values) if discrete else values


@INTERVENTIONS.register("shift")
class ShiftHandler(HandlerBase):
    """Soft: add a fixed amount (by, in the target's unit) or iqr x the baseline IQR."""

    kind: Literal["shift"] = "shift"
    by: float | None = None
    iqr: float | None = None
    uses_baseline: ClassVar[bool] = True

    @model_validator(mode="after")
    def _one_amount(self) -> ShiftHandler:
        if (self.by is None) == (self.iqr is None):
            raise ValueError("give exactly one of 'by' (in the target's unit) or 'iqr'")
        return self

    def needs_baseline(self) -> bool:
        return self.by is None

    def apply(self, natural: Array, baseline: Array, rng: np.random.Generator,
              discrete: bool) -> Array:
        if self.by is not None:
            delta = self.by
        else:
            q25, q75 = np.quantile(baseline, [0.25, 0.75])
            delta = float(self.iqr or 0.0) * (q75 - q25)
        out = natural + delta
        return np.round(out) if discrete else out


@INTERVENTIONS.register("scale")
class ScaleHandler(HandlerBase):
    """Soft: multiply the target's natural value by factor."""

    kind: Literal["scale"] = "scale"
    factor: float

    def apply(self, natural: Array, baseline: Array, rng: np.random.Generator,
              discrete: bool) -> Array:
        out = natural * self.factor
        return np.round(out) if discrete else out


@INTERVENTIONS.register("soft")
class SoftHandler(HandlerBase):
    """Soft intervention with weight w = softness, in one of two readings (``mode``).

    ``blend`` (the default): every row gets (1 - w) x natural + w x value. ``mixture``:
    each row independently is set to value with probability w, else keeps its natural
    value (a policy that reaches a share w of units). value is resampled from the
    baseline (10th-90th percentile) when not given.
    """

    kind: Literal["soft"] = "soft"
    softness: Annotated[float, Field(gt=0, le=1)] = 0.45
    value: float | None = None
    mode: Literal["blend", "mixture"] | None = Field(
        None, description="blend (default): a weighted average of natural and value; "
        "mixture: value with probability softness, else the natural value")
    uses_baseline: ClassVar[bool] = True

    def needs_baseline(self) -> bool:
        return self.value is None

    def apply(self, natural: Array, baseline: Array, rng: np.random.Generator,
              discrete: bool) -> Array:
        if self.value is None:
            target = _resample(baseline, 0.1, 0.9, rng, natural.size, discrete)
        else:
            target = np.full(natural.shape, self.value)
        if self.mode == "mixture":  # the natural value is kept as is: no rounding needed
            return np.where(rng.random(natural.size) < self.softness, target, natural)
        out = (1.0 - self.softness) * natural + self.softness * target
        return np.round(out) if discrete else out


HandlerSpec = Annotated[
    Union[DoHandler, ResampleHandler, SetpointHandler, ShiftHandler, ScaleHandler, SoftHandler],
    Field(discriminator="kind"),
]
