"""Leaderboard numbers from run folders: rows -> SCM units -> slices, and pairwise win rates.

Protocol (CausalArena sections 4.5 and 5; Heuresis for the two means):

* Only rows whose truth the evaluator held count (``scored``); the others are listed as
  unscored, never mixed in.
* A *unit* is one (method, SCM, split). Its scores are replicate means, two of them:
  over finished rows (status ``ok``), and over all rows with every failed, timed-out or
  invalid row scored as the empty graph (F1 0, SHD = the number of true edges).
* A slice (family, domain, graph family, ...) averages its units, each split apart; a unit
  counts in every slice its factors name (an SCM with three mechanism families counts in
  three). Beside every score: the share of the slice's rows that failed, timed out or were invalid.
* Win rates (Figure 1): on each unit two methods both ran, the one with the higher F1 wins
  one comparison and the one with the lower SHD another, ties give 0.5 each; a method's rate
  is its wins over all its comparisons. Units use the all-rows means, so a failure loses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from scmspec.scoring.metrics import prf

SCORES = ("f1", "shd", "precision", "recall")
FAILURES = ("failed", "timed_out", "invalid_output")
SLICES = (("family", "family"), ("domain", "domain"), ("graph", "graph family"),
          ("mechanism", "mechanism"), ("noise", "noise"), ("d", "dimension"),
          ("n", "sample size"), ("protocol", "intervention protocol"), ("split", "split"))
FACTORS = tuple(k for k, _ in SLICES if k != "split")  # split is a row column already


def empty_graph(true_edges: int) -> dict[str, float]:
    """The scores of predicting no edge at all (what a failed row counts as).

    Example:
        >>> empty_graph(3)
        {'precision': 0.0, 'recall': 0.0, 'f1': 0.0, 'shd': 3.0}
    """
    precision, recall, f1 = prf(0, 0, true_edges)
    return {"precision": precision, "recall": recall, "f1": f1, "shd": float(true_edges)}


def row_table(records: Sequence[dict[str, Any]], method: str) -> pd.DataFrame:
    """One row per record: status, the scores of finished rows, the all-rows scores, factors."""
    out = []
    for r in records:
        metrics, factors = r.get("metrics") or {}, r.get("factors") or {}
        row: dict[str, Any] = {"method": method, "id": r["id"], "split": r["split"],
                               "replicate": r["replicate"], "status": r["status"],
                               "scored": bool(r.get("scored")), "elapsed": r.get("elapsed")}
        for k in FACTORS:
            row[k] = factors.get(k)
        for k in SCORES:
            row[k] = float(metrics[k]) if r["status"] == "ok" and k in metrics else np.nan
        fallback = empty_graph(int(r.get("true_edges") or 0)) if r.get("scored") else {}
        for k in SCORES:
            row[f"{k}_all"] = row[k] if r["status"] == "ok" else fallback.get(k, np.nan)
        out.append(row)
    columns = ["method", "id", "split", "replicate", "status", "scored", "elapsed", *FACTORS,
               *SCORES, *(f"{k}_all" for k in SCORES)]
    return pd.DataFrame(out, columns=columns)


def units(rows: pd.DataFrame) -> pd.DataFrame:
    """Replicate means per (method, SCM, split), with the unit's row counts by status."""
    scored = rows[rows["scored"]]
    if scored.empty:
        return pd.DataFrame(columns=["method", "id", "split", "rows", *FAILURES, *FACTORS,
                                     *SCORES, *(f"{k}_all" for k in SCORES)])
    grouped = scored.groupby(["method", "id", "split"], sort=True)
    table = grouped[[*SCORES, *(f"{k}_all" for k in SCORES)]].mean()
    table["rows"] = grouped.size()
    for status in FAILURES:
        table[status] = grouped["status"].agg(lambda s, st=status: int((s == st).sum()))
    firsts = grouped[list(FACTORS)].first()
    return table.join(firsts).reset_index()


def _values(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return list(value) or ["(none)"]
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return []
    return [value]


def slice_table(unit_table: pd.DataFrame, key: str) -> pd.DataFrame:
    """Per (slice value, split, method): units, mean scores (finished and all rows) and the
    shares of failed, timed-out and invalid rows. Splits stay apart (obs and obs+int are
    different tasks), except in the ``split`` slice itself."""
    exploded = [{**rec, "value": v} for rec in unit_table.to_dict("records")
                for v in _values(rec.get(key))]
    if not exploded:
        return pd.DataFrame()
    table = pd.DataFrame(exploded)
    table["value"] = table["value"].astype(str)
    out = []
    for (value, split, method), group in table.groupby(["value", "split", "method"], sort=True):
        rec: dict[str, Any] = {"value": value, "split": split, "method": method,
                               "units": len(group), "rows": int(group["rows"].sum())}
        for k in SCORES:
            rec[k] = float(group[k].mean()) if group[k].notna().any() else np.nan
            rec[f"{k}_all"] = float(group[f"{k}_all"].mean())
        for status in FAILURES:
            rec[f"{status}_share"] = float(group[status].sum() / max(rec["rows"], 1))
        out.append(rec)
    return pd.DataFrame(out).sort_values(["value", "split", "f1_all", "method"],
                                         ascending=[True, True, False, True], ignore_index=True)


def win_rates(unit_table: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series]:
    """Pairwise win-rate matrix (row method over column method) and each method's pooled rate.

    Example:
        >>> u = pd.DataFrame({"method": ["a", "b"], "id": ["s", "s"], "split": ["obs", "obs"],
        ...                   "f1_all": [0.5, 0.5], "shd_all": [1.0, 3.0]})
        >>> matrix, pooled = win_rates(u)
        >>> float(matrix.loc["a", "b"]), float(pooled["b"])
        (0.75, 0.25)
    """
    methods = sorted(unit_table["method"].unique())
    f1 = unit_table.pivot_table(index=["id", "split"], columns="method", values="f1_all")
    shd = unit_table.pivot_table(index=["id", "split"], columns="method", values="shd_all")
    matrix = pd.DataFrame(np.nan, index=methods, columns=methods)
    wins = dict.fromkeys(methods, 0.0)
    games = dict.fromkeys(methods, 0)
    for a in methods:
        for b in methods:
            if a == b or a not in f1 or b not in f1:
                continue
            both = f1[a].notna() & f1[b].notna()
            n = int(both.sum())
            if n == 0:
                continue
            fa, fb, sa, sb = f1[a][both], f1[b][both], shd[a][both], shd[b][both]
            won = float((fa > fb).sum() + 0.5 * (fa == fb).sum()
                        + (sa < sb).sum() + 0.5 * (sa == sb).sum())
            matrix.loc[a, b] = won / (2 * n)
            wins[a] += won
            games[a] += 2 * n
    pooled = pd.Series({m: wins[m] / games[m] if games[m] else np.nan for m in methods})
    return matrix, pooled


def family_win_rates(unit_table: pd.DataFrame) -> pd.DataFrame:
    """Pooled win rate per (split, family, method), as in CausalArena's Figure 1."""
    out = []
    for (split, family), group in unit_table.groupby(["split", "family"], sort=True):
        _, pooled = win_rates(group)
        out += [{"split": split, "family": family, "method": m, "win_rate": float(r)}
                for m, r in pooled.items()]
    return pd.DataFrame(out, columns=["split", "family", "method", "win_rate"])
