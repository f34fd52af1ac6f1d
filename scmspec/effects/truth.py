"""Effect truth of one SCM: every contrast of every intervenable target on every outcome.

One large common-random-numbers run (split ``effects``, replicate 0: streams no released
file uses) gives a control pass of n rows; each contrast's arms are the same n rows
with an intervention applied. The card's own intervention is a full forced pass, so that
a non-descendant's effect is *computed* (and must come out exactly 0: the streams are
keyed by variable, never by position, and a bug there raises an internal error); unit
and level arms recompute only the target and its descendants
(:func:`scmspec.samplers.arms.rerun`, bit-identical to a full pass).

Effects are differences in the mean of each measure (:mod:`scmspec.effects.estimate`)
over the whole population before selection (``all``), within strata of the target's
discrete parents, and, for cards with a selection condition, among the rows that pass it
(``selected``: what the released rows show). docs/effects.md states every formula.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from scmspec.compiler.kinds.interventions import HandlerBase
from scmspec.effects.contrasts import (
    Contrast,
    baseline_summary,
    card_contrast,
    intervenable,
    levels,
    realised,
    strata,
    unit_contrasts,
)
from scmspec.effects.estimate import Measure, outcome_measures, paired, paired_selected, table
from scmspec.effects.exact import LinearModel, linear_gaussian, mean_change
from scmspec.errors import InternalError
from scmspec.samplers.arms import affected, rerun
from scmspec.samplers.numpy_sampler import run_pass, selected
from scmspec.samplers.scm import SCM
from scmspec.samplers.streams import Streams

Array = np.ndarray
EFFECT_SPLIT = "effects"
DEFAULT_ROWS = 20_000
FORMAT = "scmspec.effects/1"
COLUMNS = ["target", "contrast", "treated", "control", "delta", "population", "stratum",
           "outcome", "measure", "event", "descendant", "estimate", "se", "exact", "n"]


@dataclass(frozen=True)
class EffectTruth:
    """The effect table, what produced it (effects.json), and the run's control pass."""

    table: pd.DataFrame
    settings: dict[str, Any]
    control: dict[str, Array]  # the baseline every data-driven handler read


@dataclass(frozen=True)
class _Run:
    """What every target of one effect run shares."""

    scm: SCM
    streams: Streams
    rows: int
    control: dict[str, Array]
    measures: list[Measure]
    values: Array  # (measures, rows): the control pass's measure values
    kept: Array | None  # rows passing selection in the control pass (None: no selection)
    linear: LinearModel | None


def effect_truth(scm: SCM, rows: int = DEFAULT_ROWS, seed: int | None = None) -> EffectTruth:
    """Compute the effect table of an SCM from one common-random-numbers run of ``rows`` rows.

    Example:
        >>> import scmspec
        >>> scm = scmspec.compile_text('''
        ... id: demo
        ... title: demo
        ... family: semantic
        ... domain: demo
        ... variables:
        ...   x: {meaning: a, distribution: {kind: normal},
        ...       intervention: {meaning: set x, handler: {kind: do, value: 1.0}}}
        ...   y: {meaning: b, equation: 2 * x, noise: {kind: normal, sd: 0.5}}
        ... edges: [{from: x, to: y, reason: r}]
        ... ''')
        >>> t = effect_truth(scm, rows=2000).table
        >>> row = t[(t.contrast == "card") & (t.outcome == "y")].iloc[0]
        >>> round(float(row.exact), 6), bool(abs(row.estimate - row.exact) < 4 * row.se)
        (2.0, True)
    """
    streams = scm.streams(seed, EFFECT_SPLIT, 0)
    control = run_pass(scm.plan, rows, streams)
    measures = [m for o in scm.plan.columns for m in outcome_measures(scm, o, control[o])]
    kept = selected(scm.plan, control, rows) if scm.plan.selection is not None else None
    run = _Run(scm, streams, rows, control, measures, table(measures, control), kept,
               linear_gaussian(scm))
    records: list[dict[str, Any]] = []
    targets: dict[str, Any] = {}
    for t in intervenable(scm):
        found, targets[t] = _target(run, t)
        records += found
    settings = {"format": FORMAT, "card": scm.id, "rows": rows,
                "seed": scm.compiled.card.protocol.seed if seed is None else seed,
                "streams": {"split": EFFECT_SPLIT, "replicate": 0},
                "populations": ["all"] + (["selected"] if kept is not None else []),
                "selection": scm.compiled.card.selection.condition
                if scm.compiled.card.selection else None,
                "linear_gaussian": run.linear is not None, "targets": targets}
    return EffectTruth(pd.DataFrame(records, columns=COLUMNS), settings, control)


def _target(run: _Run, target: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every row of one target, and its entry in effects.json."""
    scm, base = run.scm, run.control[target]
    card = card_contrast(scm, target)
    units, unit_doc = unit_contrasts(scm, target, base)
    contrasts = ([card] if card else []) + units
    keep = np.array([m.outcome != target for m in run.measures])
    descendants = scm.descendants(target)
    layers = _strata(run, target)
    arms: dict[str, dict[str, Array]] = {}
    records: list[dict[str, Any]] = []
    for c in contrasts:
        treated = _arm(run, target, c.treated_handler, arms)
        control = _arm(run, target, c.control_handler, arms)
        records += _rows(run, c, keep, descendants, treated, control, layers)
    handler = card.treated_handler if card else None
    doc = {"kind": scm.plan.step(target).kind, "in_pool": target in scm.plan.targets,
           "observed": scm.plan.step(target).observed,
           "handler": handler.model_dump(mode="json") if handler else None,
           "card_contrast": card.treated if card else None,
           "realised": realised(handler, base) if handler else {},
           "baseline": baseline_summary(base), "unit": unit_doc,
           "strata": list(strata(scm, target)),
           "descendants": [v for v in scm.plan.columns if v in descendants]}
    return records, doc


def _arm(run: _Run, target: str, handler: HandlerBase | None,
         cache: dict[str, dict[str, Array]]) -> dict[str, Array]:
    """The columns of one arm (cached by handler); the card's arm checks stream isolation."""
    if handler is None:
        return run.control
    key = handler.model_dump_json()
    if key in cache:
        return cache[key]
    scm = run.scm
    if handler is scm.plan.step(target).handler:  # the card's own: a full pass, checked
        cols = run_pass(scm.plan, run.rows, run.streams, forced={target: handler},
                        pilot=lambda: run.control)
        moved = affected(scm.plan, [target])
        leaked = [v for v in cols if v not in moved
                  and cols[v].tobytes() != run.control[v].tobytes()]
        if leaked:
            raise InternalError(f"do({target}) changed non-descendants {leaked}: the random "
                                "streams are not isolated (a bug in scmspec)")
    else:
        cols = rerun(scm.plan, run.rows, run.streams, run.control, {target: handler},
                     baseline=run.control)
    cache[key] = cols
    return cols


def _strata(run: _Run, target: str) -> dict[str, Array | None]:
    """Row masks: '' for all rows, then 'parent=level' for each level with >= 2 rows."""
    out: dict[str, Array | None] = {"": None}
    for p in strata(run.scm, target):
        codes, names = levels(run.scm, p, run.control[p])
        for code, name in zip(codes, names):
            rows = run.control[p] == code
            if rows.sum() >= 2:
                out[f"{p}={name}"] = rows
    return out


def _rows(run: _Run, c: Contrast, keep: Array, descendants: set[str], treated: dict[str, Array],
          control: dict[str, Array], layers: dict[str, Array | None]) -> list[dict[str, Any]]:
    """Rows of one contrast: all rows, each stratum and, with selection, the selected rows."""
    measures = [m for m, k in zip(run.measures, keep) if k]
    y1 = table(measures, treated) if treated is not run.control else run.values[keep]
    y0 = table(measures, control) if control is not run.control else run.values[keep]
    out = []
    for name, rows in layers.items():
        a, b = (y1, y0) if rows is None else (y1[:, rows], y0[:, rows])
        est, se = paired(a, b)
        n = a.shape[1]
        out += _records(run, c, measures, descendants, "all", name, est, se, n)
    if run.kept is not None:
        s1 = selected(run.scm.plan, treated, run.rows)
        s0 = selected(run.scm.plan, control, run.rows)
        est, se, _ = paired_selected(y1, y0, s1.astype(float), s0.astype(float))
        out += _records(run, c, measures, descendants, "selected", "", est, se, run.rows)
    return out


def _records(run: _Run, c: Contrast, measures: list[Measure], descendants: set[str],
             population: str, stratum: str, est: Array, se: Array,
             n: int) -> list[dict[str, Any]]:
    out = []
    for m, e, s in zip(measures, est, se):
        desc = m.outcome in descendants
        out.append({"target": c.target, "contrast": c.kind, "treated": c.treated,
                    "control": c.control, "delta": c.delta, "population": population,
                    "stratum": stratum, "outcome": m.outcome, "measure": m.measure,
                    "event": m.event, "descendant": int(desc), "estimate": float(e),
                    "se": float(s), "exact": _exact(run, c, m, desc, population, stratum),
                    "n": n})
    return out


def _exact(run: _Run, c: Contrast, m: Measure, desc: bool, population: str,
           stratum: str) -> float | None:
    """The closed form where one exists: 0 off the target's descendants, and linear-Gaussian."""
    if population != "all":
        return None
    if not desc:
        return 0.0
    lin = run.linear
    if lin is None or stratum or m.measure != "mean_difference":
        return None
    tau = lin.total_effect(c.target, m.outcome)
    if c.kind == "unit" and c.delta is not None:
        return tau * c.delta
    if c.kind == "card" and c.treated_handler is not None:
        change = mean_change(c.treated_handler, lin.mean_of(c.target), run.control[c.target])
        return None if change is None else tau * change
    return None
