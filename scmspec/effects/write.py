"""The ``effects/`` folder of a compiled SCM: effects.csv, counterfactual.csv, effects.json.

Written by ``scmspec compile --effects`` into each dataset folder (inside its atomic
temporary folder) and by ``scmspec effects CARD --out DIR``. Files are byte-stable
(:mod:`scmspec.textio`): the same card, seed and options give the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from scmspec.effects.counterfactual import DEFAULT_CF_ROWS, counterfactuals
from scmspec.effects.truth import DEFAULT_ROWS, EffectTruth, effect_truth
from scmspec.samplers import numpy_sampler
from scmspec.samplers.numpy_sampler import Sample
from scmspec.samplers.scm import SCM
from scmspec.textio import write_csv, write_json

RELEASED = "rep-0/obs.csv"  # the released rows whose counterfactuals are written


@dataclass(frozen=True)
class EffectOptions:
    """How much effect truth to compute (picklable: build workers receive it)."""

    rows: int = DEFAULT_ROWS  # rows of the common-random-numbers run
    counterfactual_rows: int = DEFAULT_CF_ROWS  # first rows of rep-0/obs.csv

    def to_json(self) -> dict[str, Any]:
        return {"rows": self.rows, "counterfactual_rows": self.counterfactual_rows}


@dataclass(frozen=True)
class EffectFiles:
    """Everything ``effects/`` holds, computed but not yet written."""

    truth: EffectTruth
    counterfactual: pd.DataFrame
    doc: dict[str, Any]  # effects.json


def compute_effects(scm: SCM, seed: int, released: Sample,
                    options: EffectOptions = EffectOptions()) -> EffectFiles:
    """Effect truth and the counterfactuals of ``released`` (replicate 0's obs split)."""
    truth = effect_truth(scm, options.rows, seed)
    handlers = {t: h for t in truth.settings["targets"]
                if (h := scm.plan.step(t).handler) is not None}
    cf = counterfactuals(scm, released, scm.streams(seed, "obs", 0), handlers, truth.control,
                         options.counterfactual_rows)
    doc = {**truth.settings, "counterfactual": {
        "released": RELEASED, "rows": int(min(options.counterfactual_rows, released.n)),
        "targets": list(handlers)}}
    return EffectFiles(truth, cf, doc)


def write_effects(folder: Path, files: EffectFiles) -> None:
    """Write ``folder/effects.csv``, ``counterfactual.csv`` and ``effects.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    write_csv(folder / "effects.csv", files.truth.table)
    write_csv(folder / "counterfactual.csv", files.counterfactual)
    write_json(folder / "effects.json", files.doc)


def released_obs(scm: SCM, seed: int) -> Sample:
    """Replicate 0's obs split exactly as ``scmspec compile`` writes it (same streams)."""
    n_obs = scm.compiled.card.protocol.n_obs
    return numpy_sampler.sample(scm.plan, n_obs, 0, scm.streams(seed, "obs", 0))
