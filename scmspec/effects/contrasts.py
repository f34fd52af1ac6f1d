"""Which interventions effect truth compares, chosen from the card and a baseline sample.

Per intervenable target (every variable whose card declares an ``intervention:``):

* ``card``: the card's own handler on every row against no intervention (the natural
  value). Data-driven handlers (resample, setpoint, shift by IQR, soft without a value)
  read the target's *baseline*: its values in the control pass of the effect run, a large
  sample of the population before selection. Their realised parameters (the quantiles
  used) are recorded, so the compared intervention is a fixed, documented one.
* ``unit``: do(x = a + delta) against do(x = a) at points a. Continuous targets: a at the
  baseline's quartiles (25th, 50th, 75th percentile), delta = IQR / 10 (sd / 10 if the IQR
  is 0, else 1). Binary, count and ordinal targets: a at the distinct rounded quartiles
  (at most the second-highest level of a binary or ordinal target), delta = 1.
* ``level``: categorical targets, do(x = level) against do(x = reference) for every other
  level; the reference is the first declared level (code 0).

Strata (conditional effects): the levels of each observed binary, ordinal or categorical
*parent* of the target. A parent is not downstream of the target, so a row's stratum is
the same in every arm and the conditional contrast is a plain subset of paired rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from scmspec.compiler.kinds.interventions import (
    DoHandler,
    HandlerBase,
    ResampleHandler,
    SetpointHandler,
    ShiftHandler,
    SoftHandler,
)
from scmspec.samplers.scm import SCM

Array = np.ndarray
POINTS = (0.25, 0.5, 0.75)  # quartiles at which unit contrasts are taken
DELTA_IQR = 0.1  # delta = IQR / 10 for continuous targets
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
DISCRETE = ("binary", "ordinal", "categorical")


@dataclass(frozen=True)
class Contrast:
    """Two arms compared on the same rows; a handler of None is the natural (no) intervention."""

    target: str
    kind: str  # card | unit | level
    treated: str | float  # label (handler text, do value or level name)
    control: str | float
    treated_handler: HandlerBase | None
    control_handler: HandlerBase | None
    delta: float | None = None  # treated - control (unit contrasts)


def intervenable(scm: SCM) -> tuple[str, ...]:
    """Variables whose card declares an intervention, in plan (topological) order.

    The pool targets are among them; a latent one (the weather card's campaign stage)
    counts too, since its effects on observed variables are well defined.
    """
    variables = scm.compiled.card.variables
    return tuple(s.name for s in scm.plan.steps if variables[s.name].intervention is not None)


def levels(scm: SCM, name: str, values: Array) -> tuple[tuple[float, ...], tuple[str, ...]]:
    """Codes and names of a discrete variable's levels (declared, else the range, else seen)."""
    spec = scm.compiled.card.variables[name]
    if spec.levels:
        declared = scm.compiled.resolved.level_codes[name]  # values, or base + index
        return tuple(float(declared[lv]) for lv in spec.levels), tuple(spec.levels)
    if spec.kind == "binary":
        return (0.0, 1.0), ("0", "1")
    if spec.range is not None and spec.range[1] - spec.range[0] <= 50:
        codes = tuple(float(k) for k in range(int(np.ceil(spec.range[0])),
                                              int(np.floor(spec.range[1])) + 1))
    else:
        codes = tuple(float(v) for v in np.unique(values[np.isfinite(values)]))
    return codes, tuple(_number(c) for c in codes)


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def handler_text(handler: HandlerBase) -> str:
    """A short, stable label: ``do(value=0.0)``, ``setpoint(percentile=0.8, jitter=0.01)``.

    Example:
        >>> handler_text(ShiftHandler(by=2.0))
        'shift(by=2.0)'
    """
    fields = handler.model_dump(exclude_none=True)
    kind = fields.pop("kind")
    return f"{kind}(" + ", ".join(f"{k}={v}" for k, v in fields.items()) + ")"


def realised(handler: HandlerBase, baseline: Array) -> dict[str, float]:
    """The fixed numbers a data-driven handler takes from its baseline (empty when none).

    These are what the effect truth's ``card`` contrast applies: e.g. a resample handler
    draws uniformly between ``low`` and ``high``.

    Example:
        >>> realised(ResampleHandler(), np.arange(101.0))
        {'low': 10.0, 'high': 90.0}
    """
    if isinstance(handler, ResampleHandler):
        lo, hi = np.quantile(baseline, [handler.low_quantile, handler.high_quantile])
        return {"low": float(lo), "high": float(hi)}
    if isinstance(handler, SetpointHandler):
        q25, centre, q75 = np.quantile(baseline, [0.25, handler.percentile, 0.75])
        return {"centre": float(centre), "jitter_halfwidth": float(handler.jitter * (q75 - q25))}
    if isinstance(handler, ShiftHandler) and handler.iqr is not None:
        q25, q75 = np.quantile(baseline, [0.25, 0.75])
        return {"by": float(handler.iqr * (q75 - q25))}
    if isinstance(handler, SoftHandler) and handler.value is None:
        lo, hi = np.quantile(baseline, [0.1, 0.9])
        return {"low": float(lo), "high": float(hi)}
    return {}


def card_contrast(scm: SCM, target: str) -> Contrast | None:
    """The card's own intervention against none (None when the target has no handler)."""
    handler = scm.plan.step(target).handler
    if handler is None:
        return None
    label = handler_text(handler)
    codes = scm.compiled.resolved.level_codes.get(target) or {}  # level -> code or value
    if isinstance(handler, DoHandler) and codes:
        named = [lv for lv, v in codes.items() if float(v) == float(handler.value)]
        if named:  # the level, not its code (or its value, for `levels: {small: 8 cm}`)
            label = f"do(value={named[0]})"
    return Contrast(target, "card", label, "natural", handler, None)


def unit_contrasts(scm: SCM, target: str, baseline: Array) -> tuple[list[Contrast], dict[str, Any]]:
    """The target's unit (or level) contrasts and what chose them (for effects.json)."""
    kind = scm.plan.step(target).kind
    if kind == "categorical":
        codes, names = levels(scm, target, baseline)
        out = [Contrast(target, "level", names[k], names[0], DoHandler(value=codes[k]),
                        DoHandler(value=codes[0])) for k in range(1, len(codes))]
        return out, {"reference": names[0], "levels": list(names)}
    if kind == "continuous":
        q = np.quantile(baseline, POINTS)
        spread = float(np.subtract(*np.quantile(baseline, [0.75, 0.25])))
        delta = DELTA_IQR * (spread or float(np.std(baseline)) or 10.0)
        points = [float(a) for a in q]
    else:
        delta = 1.0
        points = sorted({float(a) for a in np.round(np.quantile(baseline, POINTS))})
        if kind in ("binary", "ordinal"):
            codes, _ = levels(scm, target, baseline)
            top = codes[-2] if len(codes) >= 2 else codes[0]
            points = sorted({min(max(a, codes[0]), top) for a in points})
    out = [Contrast(target, "unit", a + delta, a, DoHandler(value=a + delta), DoHandler(value=a),
                    delta) for a in points]
    return out, {"points": points, "delta": delta}


def strata(scm: SCM, target: str) -> tuple[str, ...]:
    """Observed discrete parents of the target: their levels are the documented strata."""
    plan = scm.plan
    return tuple(p for p in plan.step(target).parents
                 if plan.step(p).observed and plan.step(p).kind in DISCRETE)


def baseline_summary(values: Array) -> dict[str, float]:
    """Mean, sd and the quantiles the contrasts and handlers use."""
    q = np.quantile(values, QUANTILES)
    out = {"mean": float(np.mean(values)), "sd": float(np.std(values))}
    out.update({f"q{round(p * 100)}": float(v) for p, v in zip(QUANTILES, q)})
    return out
