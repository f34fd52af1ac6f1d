"""Plain-text tables for ``scmspec score`` (JSON output uses the same numbers, unrounded)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from scmspec.scoring.marks import MARK_METRICS
from scmspec.scoring.pool import PoolScore

SHOWN = ("f1", "precision", "recall", "shd", "nshd", "skeleton_f1", "sid")
SHOWN_MARKS = ("f1", "precision", "recall", "shd", "nshd", "skeleton_f1", "arrowhead_f1",
               "tail_f1")
MAX_LISTED = 20


def _fmt(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        return f"{v:.3f}" if not v.is_integer() or abs(v) < 1 else f"{v:.1f}"
    return str(v)


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Columns padded to their widest cell; first column left-aligned, the rest right-aligned.

    Example:
        >>> print(table(["a", "b"], [["x", 1.5]]))
        a      b
        x  1.500
    """
    cells = [list(header)] + [[_fmt(v) for v in r] for r in rows]
    widths = [max(len(r[k]) for r in cells) for k in range(len(header))]
    lines = ["  ".join(c.ljust(w) if k == 0 else c.rjust(w)
                       for k, (c, w) in enumerate(zip(r, widths))).rstrip() for r in cells]
    return "\n".join(lines)


def single_report(metrics: dict[str, Any]) -> str:
    """One prediction: metric, value (SID with its bounds when the prediction had undirected
    edges)."""
    rows: list[list[Any]] = [[m, metrics[m]] for m in ("precision", "recall", "f1", "shd",
                                                          "nshd", "skeleton_precision",
                                                          "skeleton_recall", "skeleton_f1")]
    rows += [[m, metrics[m]] for m in MARK_METRICS if metrics.get(m) is not None]
    if metrics.get("aupr") is not None:
        rows.append(["aupr", metrics["aupr"]])
    sid = metrics["sid"]
    if metrics.get("pred_undirected") and sid is not None:
        sid = f"{_fmt(sid)} [{_fmt(metrics['sid_lower'])}, {_fmt(metrics['sid_upper'])}]"
    rows.append(["sid", sid])
    circles = f", {metrics['pred_circles']} circle marks" if metrics.get("pred_circles") else ""
    note = (f"target {metrics['target']}; convention {metrics.get('convention', 'scmspec')}; "
            f"d = {metrics['d']}; true edges {metrics['true_edges']}; "
            f"predicted edges {metrics['pred_edges']} ({metrics['pred_undirected']} undirected, "
            f"{metrics['pred_bidirected']} bidirected{circles})")
    return table(["metric", "value"], rows) + "\n" + note


def pool_report(score: PoolScore) -> str:
    """Slice table, then counts, then every missing or invalid prediction (up to a limit)."""
    shown = SHOWN_MARKS if score.target in ("admg", "mag", "pag") else SHOWN
    header = [*(score.by or ["slice"]), "scms", "scored", "missing", "invalid", *shown]
    rows = []
    for rec in score.groups.to_dict("records"):
        key = [rec[b] for b in score.by] if score.by else ["all"]
        rows.append([*key, *(rec[c] for c in ("scms", "scored", "missing", "invalid")),
                     *(rec[m] for m in shown)])
    c = score.counts()
    lines = [table(header, rows),
             f"{c['ok']} of {c['predictions']} predictions scored ({c['missing']} missing, "
             f"{c['invalid']} invalid); {c['scms_scored']} of {c['scms']} SCMs scored; "
             "replicates averaged per SCM, then SCMs averaged per slice"]
    bad = score.rows[score.rows["status"] != "ok"]
    for rec in bad.head(MAX_LISTED).to_dict("records"):
        where = rec["file"] or f"{rec['id']}/{rec['replicate']}"
        lines.append(f"  {rec['status']:8} {where}: {rec['detail']}")
    if len(bad) > MAX_LISTED:
        lines.append(f"  ... and {len(bad) - MAX_LISTED} more (see --json or --rows)")
    return "\n".join(lines)


EFFECT_SHOWN = ("mean_abs_error", "median_rel_error", "coverage", "sign_accuracy")


def effects_report(summary: dict[str, Any]) -> str:
    """One prediction file of effects: the four numbers, then the counts behind them."""
    rows = [[m, summary[m]] for m in (*EFFECT_SHOWN[:2], "mean_rel_error", *EFFECT_SHOWN[2:])]
    note = (f"{summary['ok']} of {summary['predictions']} predictions scored "
            f"({summary['unmatched']} unmatched, {summary['ambiguous']} ambiguous, "
            f"{summary['invalid']} invalid); {summary['intervals']} with intervals; "
            f"{summary['signs']} with a clear true sign")
    return table(["metric", "value"], rows) + "\n" + note


def effects_pool_report(groups: Any, by: Sequence[str]) -> str:
    """Slice table of per-SCM effect scores (SCMs averaged per slice)."""
    header = [*(by or ["slice"]), "scms", "scored", "missing", "invalid", *EFFECT_SHOWN]
    rows = []
    for rec in groups.to_dict("records"):
        key = [rec[b] for b in by] if by else ["all"]
        rows.append([*key, *(rec[c] for c in ("scms", "scored", "missing", "invalid")),
                     *(rec[m] for m in EFFECT_SHOWN)])
    return (table(header, rows) + "\nper SCM: errors averaged over its scored predictions; "
            "invalid counts unreadable files and unmatched, ambiguous or non-finite rows")
