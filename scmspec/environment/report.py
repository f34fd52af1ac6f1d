"""``scmspec episodes LOGS --out SITE``: what happened in a set of episodes.

Per episode (``episodes.csv``): SCM, seed, status, queries served and refused, budget used,
duration, the submission's scores. Per SCM (``summary.csv``, the site's first table), as
Heuresis reports its cells: the episodes, the finished ones and the truncation rate, and each
score's mean over *all* episodes and over *finished* ones. A truncated graph episode counts
as the empty graph (its end event carries that score); a design episode without a
submission has no value, so its all-episodes mean is over those that have one. Every
query is a row of ``queries.csv``; the site draws the budget used against time per episode.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from scmspec.environment.log import LogError, read_log

SCORES = ("f1", "precision", "recall", "shd", "sid", "value", "optimum", "regret_points")


def collect(paths: Sequence[Path]) -> list[Path]:
    """Every ``*.jsonl`` file under the given files and folders, sorted."""
    found: set[Path] = set()
    for p in paths:
        found.update(p.rglob("*.jsonl") if p.is_dir() else [p])
    return sorted(found)


def episode_row(path: Path, events: list[dict[str, Any]]) -> dict[str, Any]:
    start, end = events[0], next((e for e in events if e["event"] == "end"), None)
    submit = next((e for e in events if e["event"] == "submit"), None)
    served = [e for e in events if e["event"] == "query"]
    budget = start["config"]["budget"]
    scores = (submit or {}).get("scores") or (end or {}).get("scores") or {}
    return {"log": path.as_posix(), "scm": start["scm"], "seed": start["seed"],
            "status": end["status"] if end else "truncated",
            "reason": (end or {}).get("reason", "" if end else "no end event (interrupted)"),
            "submission": (submit or {}).get("kind", ""), "queries": len(served),
            "refused": sum(e["event"] == "refused" for e in events),
            "rows_spent": served[-1]["rows_spent"] if served else 0.0,
            "rows_budget": budget["rows"],
            "budget_used": (served[-1]["rows_spent"] / budget["rows"]) if served and
            budget["rows"] else 0.0,
            "seconds": events[-1].get("t", 0.0),
            **{k: scores.get(k) for k in SCORES}}


def summarise(rows: pd.DataFrame) -> pd.DataFrame:
    """Per SCM: episodes, finished, truncation rate, each score over all and finished."""
    out = []
    for scm, group in rows.groupby("scm", sort=True):
        done = group[group["status"] == "finished"]
        rec: dict[str, Any] = {"scm": scm, "episodes": len(group), "finished": len(done),
                               "truncated_rate": 1 - len(done) / len(group),
                               "mean_queries": group["queries"].mean(),
                               "mean_budget_used": group["budget_used"].mean()}
        for k in SCORES:
            every, fin = (pd.to_numeric(g[k], errors="coerce") for g in (group, done))
            if every.notna().any():
                rec[f"{k}_all"], rec[f"{k}_finished"] = every.mean(), fin.mean()
        out.append(rec)
    return pd.DataFrame(out)


def episodes_report(paths: Sequence[Path], out: Path) -> pd.DataFrame:
    """Read every log, write the site into ``out``; the per-SCM summary."""
    files = collect(paths)
    if not files:
        raise LogError(f"no episode logs (*.jsonl) in {', '.join(map(str, paths))}")
    logs = [(f, read_log(f)) for f in files]
    rows = pd.DataFrame([episode_row(f, ev) for f, ev in logs])
    queries = pd.DataFrame([{"log": f.as_posix(), **{k: e.get(k) for k in (
        "index", "kind", "n", "cost", "rows_spent", "drawn", "returned", "t")}}
        for f, ev in logs for e in ev if e["event"] == "query"])
    summary = summarise(rows)
    out.mkdir(parents=True, exist_ok=True)
    for name, frame in (("episodes", rows), ("queries", queries), ("summary", summary)):
        frame.to_csv(out / f"{name}.csv", index=False, lineterminator="\n")
    (out / "index.html").write_text(_page(summary, rows, logs), encoding="utf-8")
    return summary


def _page(summary: pd.DataFrame, rows: pd.DataFrame,
          logs: list[tuple[Path, list[dict[str, Any]]]]) -> str:
    charts = "".join(_chart(scm, [ev for _, ev in logs if ev[0]["scm"] == scm])
                     for scm in sorted(rows["scm"].unique()))
    fmt = lambda t: t.to_html(index=False, na_rep="", float_format=lambda x: f"{x:.4g}")  # noqa: E731
    return ("<!doctype html><meta charset='utf-8'><title>scmspec episodes</title>"
            "<style>body{font:14px sans-serif;margin:2em}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:2px 6px}</style>"
            f"<h1>Episodes</h1><p>{len(rows)} episodes, {int((rows.status == 'finished').sum())}"
            " finished. Scores over all episodes and over finished ones, with the truncation "
            "rate (docs/environment.md).</p><h2>Per SCM</h2>" + fmt(summary) +
            "<h2>Budget used over time</h2>" + charts + "<h2>Episodes</h2>" + fmt(rows))


def _chart(scm: str, episodes: list[list[dict[str, Any]]]) -> str:
    """Budget share used against seconds, one line per episode (inline SVG)."""
    lines, width, height = [], 480, 160
    tmax = max((ev[-1].get("t", 0.0) for ev in episodes), default=1.0) or 1.0
    for ev in episodes:
        total = ev[0]["config"]["budget"]["rows"] or 1.0
        pts = [(0.0, 0.0)] + [(e["t"], e["rows_spent"] / total) for e in ev
                               if e["event"] == "query"]
        xy = " ".join(f"{40 + x / tmax * (width - 50):.1f},{height - 20 - y * (height - 30):.1f}"
                      for x, y in pts)
        lines.append(f"<polyline fill='none' stroke='#369' points='{xy}'/>")
    axis = (f"<text x='40' y='{height - 4}'>0 s</text><text x='{width - 60}' y='{height - 4}'>"
            f"{tmax:.3g} s</text><text x='0' y='14'>100%</text>")
    return (f"<h3>{html.escape(scm)}</h3><svg width='{width}' height='{height}' "
            f"xmlns='http://www.w3.org/2000/svg'>{axis}{''.join(lines)}</svg>")


def summary_json(summary: pd.DataFrame) -> str:
    return json.dumps(json.loads(summary.replace({np.nan: None}).to_json(orient="records")),
                      indent=2)
