"""Difficulty stressors: the nine difficulty settings of the synthetic grid.

``clean`` plus eight stressors (CausalArena appendix A.1, Table 11). They act at
three stages, and none of them touches the ground truth:

- *structural* (in the SCM itself, so descendants feel them): ``weak_signal``
  multiplies every mechanism's strength by 0.45; ``high_noise`` adds Gaussian
  noise of sd 0.35 after each node's own noise (see ``noise_boost``);
- *interventional* (the obs+int split's handlers): ``distribution_shift`` makes each
  target's intervention a shift or scale of its value; ``soft_interventions`` blends
  the natural and the resampled value with softness 0.45 (see ``protocols``);
- *observation* (a post-sampling transform of the written data only): feature warping
  (signed-log, tanh or signed-sqrt on ~55% of the continuous columns), outliers
  (~2.5% of entries), missingness with mean imputation plus jitter (~5%), feature
  corruption (~3% of entries permuted within their column). Build applies them just
  before writing; the gates have already run on the clean values. Every touched cell is
  recorded in ``rep-r/<split>_stressed_cells.csv`` (row, column, bit flags of
  ``MASK_CODES``); warping is column-level and listed in the card and metadata.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from scmspec.compiler.synthetic_spec import ObservationStressorSpec
from scmspec.registry import Registry
from scmspec.synthetic.rng import Rng, pick

Array = np.ndarray
WARPS = ("signed_log", "tanh", "signed_sqrt")
MASK_CODES = {"feature_warping": 1, "outliers": 2, "missingness": 4, "feature_corruption": 8}
OBSERVATION_ORDER = tuple(MASK_CODES)  # applied in this order: warp, jump, impute, permute
OUTLIER_MIN_JUMP = 3.0  # an outlier moves its cell by sd x (3 + |t_3|), random sign (ours)
IMPUTE_JITTER = 0.05  # imputed cells: column mean + N(0, (0.05 sd)^2) (ours)


@dataclass(frozen=True)
class Stressor:
    """A difficulty setting: its stage and its documented constants."""

    tag: str
    stage: str  # clean | structural | intervention | observation
    doc: str
    params: dict[str, float] = field(default_factory=dict)


STRESSORS: Registry[Stressor] = Registry("difficulty stressor")
for _s in (
    Stressor("clean", "clean", "the baseline: no stressor"),
    Stressor("weak_signal", "structural", "every mechanism's strength x 0.45",
             {"strength": 0.45}),
    Stressor("high_noise", "structural", "extra Gaussian structural noise, sd 0.35, after "
             "each node's own noise", {"sd": 0.35}),
    Stressor("feature_warping", "observation", "signed-log, tanh or signed-sqrt on ~55% of "
             "the continuous columns", {"fraction": 0.55}),
    Stressor("outliers", "observation", "~2.5% of continuous entries jump by sd (3 + |t_3|)",
             {"fraction": 0.025}),
    Stressor("missingness", "observation", "~5% of continuous entries replaced by the column "
             "mean plus jitter (0.05 sd)", {"fraction": 0.05}),
    Stressor("feature_corruption", "observation", "~3% of entries permuted within their "
             "column", {"fraction": 0.03}),
    Stressor("distribution_shift", "intervention", "each target's intervention shifts "
             "(0.5-1.5 IQR) or scales (0.5-0.8 or 1.25-2) its value", {}),
    Stressor("soft_interventions", "intervention", "each target's intervention blends natural "
             "and resampled values, softness 0.45", {"softness": 0.45}),
):
    STRESSORS.add(_s.tag, _s)

DIFFICULTY_STRESSORS = tuple(t for t in STRESSORS if t != "clean")


def strength(difficulty: list[str]) -> float:
    """The mechanism strength the difficulty implies (0.45 under weak_signal, else 1).

    Example:
        >>> strength(["weak_signal", "outliers"]), strength([])
        (0.45, 1.0)
    """
    return STRESSORS.lookup("weak_signal").params["strength"] if "weak_signal" in difficulty \
        else 1.0


def observation_specs(difficulty: list[str], continuous: list[str],
                      rng: Rng) -> list[ObservationStressorSpec]:
    """The observation stressors of a difficulty, with their concrete parameters.

    Feature warping picks round(0.55 x #continuous) columns (at least one) and a
    transform for each, here, once: the choice is part of the generated SCM's record.

    Example:
        >>> from scmspec.synthetic.rng import stream
        >>> [s.kind for s in observation_specs(["outliers"], ["a"], stream(0, "k"))]
        ['outliers']
    """
    out = []
    for tag in OBSERVATION_ORDER:
        if tag not in difficulty:
            continue
        frac = STRESSORS.lookup(tag).params["fraction"]
        if tag != "feature_warping":
            out.append(ObservationStressorSpec(kind=tag, fraction=frac))  # type: ignore[arg-type]
            continue
        k = max(1, int(round(frac * len(continuous)))) if continuous else 0
        chosen = sorted(rng.permutation(len(continuous))[:k].tolist())
        columns = {continuous[i]: pick(rng, WARPS) for i in chosen}
        out.append(ObservationStressorSpec(kind=tag, fraction=frac, columns=columns))  # type: ignore[arg-type]
    return out


def _warp(x: Array, how: str) -> Array:
    if how == "signed_log":
        return np.sign(x) * np.log1p(np.abs(x))
    if how == "tanh":
        return np.tanh(x)
    return np.sign(x) * np.sqrt(np.abs(x))


def apply_observation_stressors(frame: pd.DataFrame, specs: list[ObservationStressorSpec],
                                continuous: set[str], rng: Rng
                                ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The stressed copy of ``frame`` and its cell mask (bit flags of ``MASK_CODES``).

    Warping, outliers and missingness touch continuous columns only (a jump or an
    imputed mean is not a valid level); corruption permutes any column. The input
    frame is not modified.

    Example:
        >>> from scmspec.synthetic.rng import stream
        >>> f = pd.DataFrame({"a": np.arange(100.0)})
        >>> s = [ObservationStressorSpec(kind="outliers", fraction=0.5)]
        >>> out, mask = apply_observation_stressors(f, s, {"a"}, stream(0, "k"))
        >>> bool(((out["a"] != f["a"]) == (mask["a"] == 2)).all()), float(f["a"].iloc[0])
        (True, 0.0)
    """
    x = {c: frame[c].to_numpy(dtype=float, copy=True) for c in frame.columns}
    mask = {c: np.zeros(len(frame), dtype=np.int8) for c in frame.columns}
    for spec in specs:
        code = MASK_CODES[spec.kind]
        if spec.kind == "feature_warping":
            for c, how in (spec.columns or {}).items():
                if c in x:
                    x[c] = _warp(x[c], how)
                    mask[c] |= code
            continue
        for c in frame.columns:
            hit = rng.random(len(frame)) < spec.fraction
            if spec.kind != "feature_corruption" and c not in continuous:
                continue
            _stress_column(spec.kind, x[c], hit, rng)
            mask[c][hit] |= code
    out = pd.DataFrame({c: _retype(x[c], frame[c]) for c in frame.columns}, index=frame.index)
    return out, pd.DataFrame(mask, index=frame.index)


def _stress_column(kind: str, col: Array, hit: Array, rng: Rng) -> None:
    """Apply one cell-level stressor in place on the ``hit`` rows of ``col``."""
    if not hit.any():
        return
    sd = float(np.std(col)) or 1.0
    k = int(hit.sum())
    if kind == "outliers":
        sign = rng.choice([-1.0, 1.0], size=k)
        col[hit] += sign * sd * (OUTLIER_MIN_JUMP + np.abs(rng.standard_t(3, size=k)))
    elif kind == "missingness":
        keep = col[~hit]
        mean = float(keep.mean()) if keep.size else 0.0
        col[hit] = mean + rng.normal(0.0, IMPUTE_JITTER * sd, size=k)
    else:  # feature_corruption: the hit cells swap values among themselves
        col[hit] = col[hit][rng.permutation(k)]


def _retype(values: Array, original: pd.Series) -> Array:
    """Keep integer columns integer when no stressor made a value fractional."""
    if original.dtype.kind in "iu" and np.all(values == np.round(values)):
        return values.astype(original.dtype)
    return values
