"""Score a whole pool of predictions and aggregate by metadata factors.

Protocol (CausalArena section 4.5): every (SCM, replicate) prediction is scored against the SCM's
observed DAG; replicate scores are averaged per SCM first; SCM scores are then averaged within
each slice (``--by family``, ``domain``, ``d``, ``tags``, any ``metadata.json`` key). Missing and
unreadable predictions are rows with status ``missing`` / ``invalid`` and are counted in every
summary, never dropped silently; with ``missing="empty"`` they are scored as the empty graph.

Prediction files: ``PRED_DIR/<id>/rep-<r>.<ext>`` (one per replicate) or ``PRED_DIR/<id>.<ext>``
(one per SCM). If any ``PRED_DIR/<id>/`` folder exists the pool is per-replicate, and an SCM
without predictions counts one missing row per replicate; otherwise one missing row per SCM.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from scmspec.interop.graphs import InteropError
from scmspec.interop.marks import MarkGraph
from scmspec.interop.predictions import PREDICTION_SUFFIXES, read_marks
from scmspec.interop.truth import GroundTruth, load_truth, scm_folders
from scmspec.scoring.targets import ALL_METRICS as METRICS  # every metric a row can carry
from scmspec.scoring.targets import check_options, score_prediction

MISSING_RULES = ("skip", "empty")


@dataclass(frozen=True)
class ScoreOptions:
    """How predictions are read and scored."""

    target: str = "dag"
    encoding: str = "auto"
    threshold: float = 0.5
    seed: int = 0
    missing: str = "skip"
    with_sid: bool = True
    convention: str = "scmspec"


@dataclass
class PoolScore:
    """Per-prediction rows, per-SCM means and per-slice aggregates."""

    rows: pd.DataFrame
    scms: pd.DataFrame
    groups: pd.DataFrame
    by: list[str] = field(default_factory=list)
    target: str = "dag"
    convention: str = "scmspec"

    def counts(self) -> dict[str, int]:
        status = self.rows["status"].value_counts()
        return {"predictions": len(self.rows), "ok": int(status.get("ok", 0)),
                "missing": int(status.get("missing", 0)), "invalid": int(status.get("invalid", 0)),
                "scms": len(self.scms), "scms_scored": int(self.scms["scored"].sum())}

    def to_json(self) -> dict[str, Any]:
        return {"by": self.by, "counts": self.counts(), "groups": json_records(self.groups),
                "scms": json_records(self.scms), "rows": json_records(self.rows)}


def json_records(df: pd.DataFrame) -> list[dict[str, Any]]:
    """A table's rows as JSON-ready dicts (numpy scalars to Python, NaN to None)."""
    return [{k: _plain(v) for k, v in r.items()} for r in df.to_dict("records")]


def _plain(v: Any) -> Any:
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        return None if np.isnan(v) else float(v)
    if isinstance(v, (np.bool_,)):
        return bool(v)
    return v


def find_prediction(folder: Path, stem: str) -> Path | None:
    """``folder/stem.<ext>`` for the first accepted extension that exists."""
    for suffix in PREDICTION_SUFFIXES:
        path = folder / f"{stem}{suffix}"
        if path.is_file():
            return path
    return None


def prediction_slots(preds: Path, scm_id: str, replicates: int,
                     per_replicate: bool) -> list[tuple[str, Path | None]]:
    """(label, file or None) for every prediction one SCM should have."""
    if (preds / scm_id).is_dir():
        return [(f"rep-{r}", find_prediction(preds / scm_id, f"rep-{r}"))
                for r in range(replicates)]
    single = find_prediction(preds, scm_id)
    if single is not None:
        return [(scm_id, single)]
    if per_replicate:
        return [(f"rep-{r}", None) for r in range(replicates)]
    return [(scm_id, None)]


def score_pool(data_dir: Path, preds: Path, options: ScoreOptions = ScoreOptions(),
               by: Sequence[str] = ()) -> PoolScore:
    """Score every SCM of a compiled pool against the predictions under ``preds``."""
    check_options(options.target, options.convention)
    if not Path(preds).is_dir():
        raise InteropError(f"no prediction folder {preds}")
    folders = scm_folders(Path(data_dir))
    per_replicate = any((preds / f.name).is_dir() for f in folders)
    rows: list[dict[str, Any]] = []
    factors: dict[str, dict[str, Any]] = {}
    for folder in folders:
        truth = load_truth(folder)
        factors[truth.id] = truth.metadata
        replicates = int(truth.metadata.get("replicates", 1))
        for label, path in prediction_slots(preds, truth.id, replicates, per_replicate):
            rows.append(score_one(truth, label, path, preds, options))
    table = pd.DataFrame(rows, columns=ROW_COLUMNS)
    scms = per_scm(table)
    groups = aggregate(scms, factors, list(by))
    return PoolScore(table, scms, groups, list(by), options.target, options.convention)


ROW_COLUMNS = ["id", "replicate", "status", "file", "detail", *METRICS, "pred_undirected"]


def score_one(truth: GroundTruth, label: str, path: Path | None, preds: Path,
              options: ScoreOptions) -> dict[str, Any]:
    """One row: the metrics of one prediction file, or why it has none."""
    row: dict[str, Any] = {"id": truth.id, "replicate": label, "status": "ok",
                           "file": path.relative_to(preds).as_posix() if path else None,
                           "detail": None}
    pred: MarkGraph | None = None
    if path is None:
        row.update(status="missing", detail="no prediction file")
    else:
        try:
            pred = read_marks(path, truth.observed, options.encoding, options.threshold)
        except InteropError as exc:
            row.update(status="invalid", detail=exc.message)
    if pred is None and options.missing == "empty":
        pred = MarkGraph.build(truth.observed, [])
    if pred is not None:
        try:
            metrics = score_prediction(pred, truth, options.target, options.convention,
                                       options.seed, options.with_sid)
        except InteropError as exc:  # e.g. a bidirected edge under --convention gcastle
            row.update(status="invalid", detail=exc.message)
            return row
        row.update({k: metrics.get(k) for k in (*METRICS, "pred_undirected")})
    return row


def score_file(pred: Path, truth_dir: Path,
               options: ScoreOptions = ScoreOptions()) -> dict[str, Any]:
    """Every metric of one prediction file against one compiled SCM folder (raises
    :class:`InteropError` when the file cannot be read)."""
    check_options(options.target, options.convention)
    truth = load_truth(truth_dir)
    graph = read_marks(pred, truth.observed, options.encoding, options.threshold)
    metrics = score_prediction(graph, truth, options.target, options.convention, options.seed,
                               options.with_sid)
    return {"id": truth.id, "file": Path(pred).as_posix(), **metrics}


def per_scm(rows: pd.DataFrame) -> pd.DataFrame:
    """Replicate-averaged metrics per SCM plus its ok / missing / invalid counts."""
    out = []
    for scm_id, group in rows.groupby("id", sort=False):
        scored = group[group[METRICS[0]].notna()]
        rec: dict[str, Any] = {"id": scm_id, "scored": len(scored) > 0,
                               "ok": int((group["status"] == "ok").sum()),
                               "missing": int((group["status"] == "missing").sum()),
                               "invalid": int((group["status"] == "invalid").sum())}
        for m in METRICS:
            values = pd.to_numeric(scored[m], errors="coerce")
            rec[m] = float(values.mean()) if values.notna().any() else np.nan
        out.append(rec)
    return pd.DataFrame(out, columns=["id", "scored", "ok", "missing", "invalid", *METRICS])


def factor_values(meta: dict[str, Any], key: str) -> list[Any]:
    """A metadata value by (dotted) key; lists give one value per element (an SCM counts in
    every slice it belongs to). ``KEY:PREFIX`` keeps the list elements written ``PREFIX:value``
    or ``PREFIX=value`` (e.g. ``tags:graph`` for tags like ``graph:chain``), prefix removed.

    Example:
        >>> factor_values({"tags": ["graph:chain", "mech:linear"]}, "tags:graph")
        ['chain']
    """
    if ":" in key:
        base, prefix = key.split(":", 1)
        return [str(v)[len(prefix) + 1:] for v in factor_values(meta, base)
                if str(v).startswith((f"{prefix}:", f"{prefix}="))]
    value: Any = meta
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            return []
        value = value[part]
    if isinstance(value, list):
        return list(value) or ["(none)"]
    return [value if not isinstance(value, dict) else str(value)]


def aggregate(scms: pd.DataFrame, factors: dict[str, dict[str, Any]],
              by: list[str], metrics: Sequence[str] = METRICS) -> pd.DataFrame:
    """Mean and standard deviation of each metric over SCMs, per slice (all SCMs if no ``by``).

    ``scms`` has one row per SCM: ``id``, ``scored``, ``missing``, ``invalid`` and the metrics.
    """
    for key in by:
        if not any(factor_values(m, key) for m in factors.values()):
            known = sorted({k for m in factors.values() for k in m})
            raise InteropError(f"no SCM has metadata key {key!r}", f"use one of {', '.join(known)}")
    if scms.empty:
        return pd.DataFrame(columns=[*by, "scms", "scored", "missing", "invalid", *metrics])
    exploded = []
    for rec in scms.to_dict("records"):
        combos: list[tuple[Any, ...]] = [()]
        for key in by:
            values = factor_values(factors[rec["id"]], key) or ["(missing)"]
            combos = [c + (v,) for c in combos for v in values]
        exploded += [{**dict(zip(by, c)), **rec} for c in combos]
    table = pd.DataFrame(exploded)
    keys = by or None
    grouped = table.groupby(keys, sort=True, dropna=False) if keys else [((), table)]
    out = []
    for name, group in grouped:
        name = name if isinstance(name, tuple) else (name,)
        rec = dict(zip(by, name))
        scored = group[group["scored"]]
        rec.update(scms=len(group), scored=len(scored), missing=int(group["missing"].sum()),
                   invalid=int(group["invalid"].sum()))
        for m in metrics:
            values = pd.to_numeric(scored[m], errors="coerce").dropna()
            rec[m] = float(values.mean()) if len(values) else np.nan
            rec[f"{m}_sd"] = float(values.std(ddof=0)) if len(values) else np.nan
        out.append(rec)
    return pd.DataFrame(out)
