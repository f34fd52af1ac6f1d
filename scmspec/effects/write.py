"""The ``effects/`` folder of a compiled SCM: effects.csv, counterfactual.csv, effects.json.

Written by ``scmspec compile --effects`` into each dataset folder (inside its atomic
temporary folder) and by ``scmspec effects CARD --out DIR``. Files are byte-stable
(:mod:`scmspec.textio`): the same card, seed and options give the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scmspec.effects.counterfactual import DEFAULT_CF_ROWS, counterfactuals
from scmspec.effects.truth import DEFAULT_ROWS, EffectTruth, effect_truth
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


def write_effects(folder: Path, scm: SCM, seed: int, released: Sample,
                  options: EffectOptions = EffectOptions()) -> EffectTruth:
    """Compute and write ``folder/effects.csv``, ``counterfactual.csv`` and ``effects.json``.

    ``released`` is replicate 0's obs split as the dataset holds it (drawn with ``seed``).
    """
    truth = effect_truth(scm, options.rows, seed)
    handlers = {t: scm.plan.step(t).handler for t in truth.settings["targets"]}
    cf = counterfactuals(scm, released, scm.streams(seed, "obs", 0),
                         {t: h for t, h in handlers.items() if h is not None}, truth.control,
                         options.counterfactual_rows)
    folder.mkdir(parents=True, exist_ok=True)
    write_csv(folder / "effects.csv", truth.table)
    write_csv(folder / "counterfactual.csv", cf)
    doc = {**truth.settings, "counterfactual": {
        "released": RELEASED, "rows": int(min(options.counterfactual_rows, released.n)),
        "targets": [t for t, h in handlers.items() if h is not None]}}
    write_json(folder / "effects.json", doc)
    return truth
