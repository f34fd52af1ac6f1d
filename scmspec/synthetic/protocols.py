"""Intervention protocols of the synthetic grid, target pools and the sample-size suite.

Six protocols (CausalArena appendix A.2), each a registry entry that fixes the split
sizes, which nodes may be targets, targets per row and each target's handler:

- ``default``: 800 obs + 200 int rows, one target per row, hard do-resampling from
  the target's baseline 10th-90th percentile range (``resample``);
- ``setpoint``: targets set to their baseline 20th, 50th or 80th percentile plus
  jitter of 1% of the IQR (``setpoint``);
- ``parameter_shift``: structural (non-root) targets only; the reference changes the
  target's mechanism (scale parent effects, shift a bias/threshold by 0.3-0.8 IQR, or
  scale nonlinear strength by 0.6-0.85 or 1.15-1.6). Handlers act on the target's
  value, so we use ``scale`` (factor from those ranges; synthetic signals are centred,
  so scaling the value scales the mechanism's strength, its noise included) or
  ``shift`` (0.3-0.8 IQR, random sign), one of the two per target;
- ``high_fraction``: 200 obs + 800 int rows, otherwise default;
- ``multi_target``: 2-4 targets per interventional row (``interventions.per_row``);
- ``dense_mixed``: 200 + 800 rows, 2-4 structural targets per row, handlers a
  balanced mix of resample, setpoint and parameter shift.

Discrete targets (standardised codes) always get a handler that keeps a valid value:
``resample`` (it draws observed levels), or for ``setpoint`` a ``do`` at the pilot's
percentile level.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from scmspec.registry import Registry
from scmspec.synthetic.nodes.draw import r6
from scmspec.synthetic.nodes.mixing import by_reference_size
from scmspec.synthetic.rng import Rng, pick

Handler = dict[str, Any]
SAMPLE_SIZES = (100, 200, 500, 1000, 2000, 5000, 10000)
TARGET_POOL = {10: (2, 4), 20: (3, 6), 30: (4, 8), 50: (5, 12), 100: (8, 20)}
SETPOINT_PERCENTILES = (0.2, 0.5, 0.8)
SHIFT_IQR = (0.3, 0.8)
SCALE_FACTORS = ((0.6, 0.85), (1.15, 1.6))
PER_ROW = (2, 4)


@dataclass(frozen=True)
class Protocol:
    """An intervention protocol: split sizes, eligible targets, per-row count, handlers."""

    tag: str
    doc: str
    n_int_obs: int
    n_int: int
    structural_only: bool
    multi_target: bool
    handler: Callable[[int, Rng], str]  # (target index, rng) -> handler family


def _resample(i: int, rng: Rng) -> str:
    return "resample"


def _setpoint(i: int, rng: Rng) -> str:
    return "setpoint"


def _parameter_shift(i: int, rng: Rng) -> str:
    return pick(rng, ("scale", "shift"))


def _mixed(i: int, rng: Rng) -> str:
    return ("resample", "setpoint", "parameter_shift")[i % 3]


PROTOCOLS: Registry[Protocol] = Registry("intervention protocol")
for _p in (
    Protocol("default", "800/200, one target per row, hard resampling (10th-90th pct)",
             800, 200, False, False, _resample),
    Protocol("setpoint", "800/200, targets set to the 20th/50th/80th percentile + 1% IQR",
             800, 200, False, False, _setpoint),
    Protocol("parameter_shift", "800/200, structural targets, value scaled or shifted",
             800, 200, True, False, _parameter_shift),
    Protocol("high_fraction", "200/800, one target per row, hard resampling",
             200, 800, False, False, _resample),
    Protocol("multi_target", "800/200, 2-4 targets per row, hard resampling",
             800, 200, False, True, _resample),
    Protocol("dense_mixed", "200/800, 2-4 structural targets per row, mixed handlers",
             200, 800, True, True, _mixed),
):
    PROTOCOLS.add(_p.tag, _p)


def target_pool_range(d: int) -> tuple[int, int]:
    """Target-pool size range for d (the reference's five sizes; other d: the next size up).

    Example:
        >>> target_pool_range(10), target_pool_range(30), target_pool_range(40)
        ((2, 4), (4, 8), (5, 12))
    """
    return by_reference_size(TARGET_POOL, d)


def handler_for(family: str, target: str, discrete: bool, pilot: Mapping[str, np.ndarray],
                rng: Rng) -> Handler:
    """A concrete handler of a family (resample, setpoint, scale/shift, parameter_shift).

    Example:
        >>> from scmspec.synthetic.rng import stream
        >>> handler_for("setpoint", "x", False, {}, stream(0, "k"))["kind"]
        'setpoint'
    """
    if family == "parameter_shift":
        family = pick(rng, ("scale", "shift"))
    if discrete and family != "resample":
        if family == "setpoint":
            q = pick(rng, tuple(map(str, SETPOINT_PERCENTILES)))
            value = np.quantile(pilot[target], float(q), method="inverted_cdf")
            return {"kind": "do", "value": r6(value)}
        return {"kind": "resample"}
    if family == "setpoint":
        return {"kind": "setpoint", "percentile": float(pick(rng, tuple(
            map(str, SETPOINT_PERCENTILES)))), "jitter": 0.01}
    if family == "scale":
        lo, hi = SCALE_FACTORS[int(rng.integers(2))]
        return {"kind": "scale", "factor": r6(rng.uniform(lo, hi))}
    if family == "shift":
        return {"kind": "shift", "iqr": r6(rng.choice([-1.0, 1.0]) * rng.uniform(*SHIFT_IQR))}
    return {"kind": "resample"}


def stressed_handler(difficulty: list[str], discrete: bool, rng: Rng) -> Handler | None:
    """The handler an intervention stressor imposes (None: keep the protocol's).

    ``distribution_shift``: shift by +-0.5-1.5 IQR or scale by 0.5-0.8 / 1.25-2;
    ``soft_interventions``: a soft blend with softness 0.45. With both, one per target.

    Example:
        >>> from scmspec.synthetic.rng import stream
        >>> stressed_handler(["soft_interventions"], False, stream(0, "k"))
        {'kind': 'soft', 'softness': 0.45}
    """
    options: list[str] = [t for t in ("distribution_shift", "soft_interventions")
                          if t in difficulty]
    if discrete or not options:
        return None
    if pick(rng, options) == "soft_interventions":
        return {"kind": "soft", "softness": 0.45}
    if rng.random() < 0.5:
        return {"kind": "shift", "iqr": r6(rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 1.5))}
    lo, hi = ((0.5, 0.8), (1.25, 2.0))[int(rng.integers(2))]
    return {"kind": "scale", "factor": r6(rng.uniform(lo, hi))}


def per_row(protocol: Protocol, pool: int, rng: Rng) -> int:
    """Targets per interventional row: 1, or 2-4 (at most the pool) for multi-target."""
    if not protocol.multi_target:
        return 1
    return max(1, min(pool, int(rng.integers(PER_ROW[0], PER_ROW[1] + 1))))
