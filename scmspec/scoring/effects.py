"""Score effect estimates against the effect truth of compiled SCMs (``effects/effects.csv``).

A prediction file is a CSV with one row per estimated effect: ``target``, ``outcome`` and
``estimate`` are required; ``lower`` and ``upper`` give an interval. The other key columns
of effects.csv narrow the match and default to the headline effect: ``contrast`` (``card``),
``population`` (``all``), ``stratum`` (empty: all rows); ``treated`` and ``control`` (needed
for unit and level contrasts); ``measure`` and ``event`` (default: the outcome's first
measure, the mean difference, or the risk difference of a binary outcome; a categorical
outcome needs ``event``). A row that matches no truth row is ``unmatched``, one that
matches several is ``ambiguous`` (the detail says which column would settle it), one
without a finite estimate is ``invalid``; all are counted, never dropped.

Per scored row, against the truth value t (the exact value where effects.csv has one,
else the Monte Carlo estimate, whose standard error is se):
``abs_error`` = |estimate - t|; ``rel_error`` = |estimate - t| / |t| (t != 0);
``covered`` = lower <= t <= upper; ``sign_correct`` = sign(estimate) == sign(t), only
where the truth's sign is clear (t != 0 and |t| > 3 se). Per SCM these are averaged
(the relative error by its median); pools average SCMs per slice like ``scmspec score``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from scmspec.interop.graphs import InteropError
from scmspec.interop.truth import load_truth, scm_folders
from scmspec.scoring.pool import aggregate

KEYS = ("target", "outcome", "contrast", "treated", "control", "population", "stratum",
        "measure", "event")
ALWAYS = ("target", "outcome", "contrast", "population", "stratum")
OPTIONAL = ("treated", "control", "measure", "event")
DEFAULTS = {"contrast": "card", "population": "all", "stratum": ""}
EFFECT_METRICS = ("mean_abs_error", "median_rel_error", "coverage", "sign_accuracy")
SIGN_Z = 3.0  # a Monte Carlo truth has a clear sign beyond 3 standard errors


def read_truth(folder: Path) -> pd.DataFrame:
    """effects/effects.csv of a compiled SCM folder, with each group's headline measure."""
    path = Path(folder) / "effects" / "effects.csv"
    if not path.is_file():
        raise InteropError(f"{folder} has no effects/effects.csv",
                           "compile with scmspec compile --effects (docs/effects.md)")
    truth = _normalise(pd.read_csv(path, dtype={"stratum": str, "event": str}))
    group = ["target", "contrast", "treated", "control", "population", "stratum", "outcome"]
    first = ~truth.duplicated(group)
    several = truth.groupby(group, sort=False)["measure"].transform("size") > 1
    risks = truth.groupby(group, sort=False)["measure"].transform(
        lambda m: bool((m == "risk_difference").all()))
    truth["headline"] = first & ~(several & risks)  # a categorical outcome has none
    return truth


def _normalise(frame: pd.DataFrame) -> pd.DataFrame:
    """Key cells as comparable text: numbers in one spelling, missing as ''."""
    frame = frame.copy()
    for k in KEYS:
        if k in frame:
            frame[k] = [_key(v) for v in frame[k]]
    return frame


def _key(v: Any) -> str:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return ""
    text = str(v).strip()
    try:
        return repr(float(text))
    except ValueError:
        return text


def read_predictions(path: Path) -> pd.DataFrame:
    """A prediction CSV (raises :class:`InteropError` when it cannot be read)."""
    try:
        pred = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise InteropError(f"cannot read {path}: {exc}") from None
    missing = [c for c in ("target", "outcome", "estimate") if c not in pred]
    if missing:
        raise InteropError(f"{path} has no column {', '.join(missing)}",
                           "columns: target, outcome, estimate[, lower, upper, contrast, ...]")
    return pred


def score_rows(pred: pd.DataFrame, truth: pd.DataFrame) -> pd.DataFrame:
    """One scored (or explained) row per prediction.

    Empty cells of ``contrast``, ``population`` and ``stratum`` take their defaults; an
    empty ``treated``, ``control``, ``measure`` or ``event`` matches any value (rows are
    matched in groups that leave the same cells empty).
    """
    keys = pd.DataFrame({k: pred[k] if k in pred else "" for k in KEYS})
    keys = _normalise(keys).reset_index(drop=True)
    for k, default in DEFAULTS.items():
        keys[k] = keys[k].mask(keys[k] == "", default) if k != "stratum" else keys[k]
    free = keys[list(OPTIONAL)] != ""
    found, counts, vary = [], pd.Series(0, index=keys.index), {}
    for pattern, group in keys.groupby([free[c] for c in OPTIONAL], sort=False):
        on = [*ALWAYS, *(c for c, used in zip(OPTIONAL, pattern) if used)]
        merged = group[on].reset_index().merge(truth, on=on, how="inner")
        if "measure" not in on and "event" not in on:  # the headline measure, if there is one
            headline = merged.groupby("index")["headline"].transform("any")
            merged = merged[merged["headline"] | ~headline]
        counts[group.index] = merged.groupby("index").size().reindex(group.index, fill_value=0)
        found.append(merged.drop_duplicates("index", keep=False))
        several = merged[merged.duplicated("index", keep=False)].groupby("index")
        vary.update({i: [c for c in OPTIONAL if g[c].nunique() > 1] for i, g in several})
    one = pd.concat(found).set_index("index") if found else pd.DataFrame()
    rows = pred.reset_index(drop=True).copy()
    rows["truth"] = one["exact"].fillna(one["estimate"]).reindex(rows.index)
    rows["truth_se"] = one["se"].where(one["exact"].isna(), 0.0).reindex(rows.index)
    rows["status"] = np.where(counts == 1, "ok", np.where(counts == 0, "unmatched", "ambiguous"))
    estimate = pd.to_numeric(rows["estimate"], errors="coerce")
    rows.loc[(rows["status"] == "ok") & ~np.isfinite(estimate), "status"] = "invalid"
    rows["detail"] = [_detail(s, vary.get(i, [])) for i, s in enumerate(rows["status"])]
    return _metrics(rows, estimate)


def _detail(status: str, vary: list[str]) -> str:
    if status == "unmatched":
        return "no truth row has these keys (check target, outcome, contrast and spelling)"
    if status == "ambiguous":
        return "several truth rows match: give " + (" and ".join(vary) or "more key columns")
    return "estimate is not a finite number" if status == "invalid" else ""


def _metrics(rows: pd.DataFrame, estimate: pd.Series) -> pd.DataFrame:
    ok = rows["status"] == "ok"
    t, se = rows["truth"].where(ok), rows["truth_se"].where(ok)
    rows["abs_error"] = (estimate - t).abs()
    rows["rel_error"] = rows["abs_error"] / t.abs().where(t != 0)
    lower = pd.to_numeric(rows.get("lower"), errors="coerce") if "lower" in rows else np.nan
    upper = pd.to_numeric(rows.get("upper"), errors="coerce") if "upper" in rows else np.nan
    has = ok & np.isfinite(lower) & np.isfinite(upper)
    rows["covered"] = ((lower <= t) & (t <= upper)).astype(float).where(has)
    clear = ok & (t != 0) & (t.abs() > SIGN_Z * se)
    rows["sign_correct"] = (np.sign(estimate) == np.sign(t)).astype(float).where(clear)
    return rows


def summarise(rows: pd.DataFrame) -> dict[str, Any]:
    """Counts by status and the four headline numbers of one prediction file."""
    status = rows["status"].value_counts()
    out: dict[str, Any] = {s: int(status.get(s, 0))
                           for s in ("ok", "unmatched", "ambiguous", "invalid")}
    out["predictions"] = len(rows)
    out["mean_abs_error"] = _mean(rows["abs_error"])
    out["median_rel_error"] = _plain(rows["rel_error"].median())
    out["mean_rel_error"] = _mean(rows["rel_error"])
    out["coverage"], out["intervals"] = _mean(rows["covered"]), int(rows["covered"].notna().sum())
    out["sign_accuracy"] = _mean(rows["sign_correct"])
    out["signs"] = int(rows["sign_correct"].notna().sum())
    return out


def _mean(s: pd.Series) -> float | None:
    return _plain(s.mean()) if s.notna().any() else None


def _plain(v: Any) -> float | None:
    return None if v is None or pd.isna(v) else float(v)


def score_effects_file(pred: Path, truth_dir: Path) -> tuple[dict[str, Any], pd.DataFrame]:
    """Summary and per-row scores of one prediction file against one compiled SCM."""
    rows = score_rows(read_predictions(pred), read_truth(truth_dir))
    return {"id": Path(truth_dir).name, "file": Path(pred).as_posix(), **summarise(rows)}, rows


def score_effects_pool(data_dir: Path, preds: Path, by: Sequence[str] = ()
                       ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(per-prediction rows, per-SCM summaries, per-slice means) for ``preds/<id>.csv``."""
    if not Path(preds).is_dir():
        raise InteropError(f"no prediction folder {preds}")
    scms, factors, scored = [], {}, []
    for folder in scm_folders(Path(data_dir)):
        factors[folder.name] = load_truth(folder).metadata
        path = Path(preds) / f"{folder.name}.csv"
        rec: dict[str, Any] = {"id": folder.name, "scored": False, "missing": 0, "invalid": 0}
        if not path.is_file():
            rec["missing"] = 1
        else:
            try:
                summary, rows = score_effects_file(path, folder)
                scored.append(rows.assign(id=folder.name))
                rec.update({**summary, "scored": summary["ok"] > 0,
                            "invalid": summary["invalid"] + summary["unmatched"]
                            + summary["ambiguous"]})
            except InteropError as exc:
                rec.update(invalid=1, detail=exc.message)
        scms.append(rec)
    table = pd.DataFrame(scms)
    for m in EFFECT_METRICS:
        if m not in table:
            table[m] = np.nan
    rows = pd.concat(scored, ignore_index=True) if scored else pd.DataFrame(columns=["id"])
    return rows, table, aggregate(table, factors, list(by), EFFECT_METRICS)
