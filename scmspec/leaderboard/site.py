"""``scmspec leaderboard RUNS... --out SITE``: an offline site comparing methods on one release.

Reads run folders (one method each, :mod:`scmspec.evaluation.store`), computes the numbers
(:mod:`scmspec.leaderboard.scores`) and writes::

    SITE/index.html             runs, win rates, a table per slice, figures
    SITE/leaderboard.json       every number on the page
    SITE/tables/<slice>.csv     one CSV per slice table
    SITE/figures/*.png          win-rate and F1 bars per family, heat maps
    SITE/assets/                the catalogue's stylesheet and script

The site is written into a temporary folder and renamed into place complete (it replaces
only an earlier site of scmspec's, never someone else's folder), opens from ``file://``
with no network, and holds no paths or times of this machine.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from scmspec.build.outputs import AtomicFolder, ForeignFolderError
from scmspec.evaluation import RunFolderError, read_records, read_run
from scmspec.leaderboard import figures
from scmspec.leaderboard.pages import leaderboard_page
from scmspec.leaderboard.scores import (
    SLICES,
    family_win_rates,
    row_table,
    slice_table,
    units,
    win_rates,
)
from scmspec.render.assets import CSS, JS
from scmspec.textio import write_json


class LeaderboardError(RunFolderError):
    """The run folders cannot be compared (message and hint)."""


@dataclass
class Board:
    """Everything the page shows."""

    version: str
    runs: list[dict[str, Any]]
    rows: pd.DataFrame
    units: pd.DataFrame
    slices: dict[str, pd.DataFrame]
    win_matrix: dict[str, pd.DataFrame]
    family_wins: pd.DataFrame
    figures: dict[str, str]


def load_board(paths: Sequence[Path]) -> Board:
    """Read run folders of one release; refuse mixed releases and repeated method names."""
    docs: list[dict[str, Any]] = []
    frames: list[pd.DataFrame] = []
    for path in paths:
        doc = read_run(path)
        name = doc["method"]["name"]
        if any(d["method"]["name"] == name for d in docs):
            raise LeaderboardError(f"two run folders are named {name!r}",
                                   "give each run its own --name in scmspec evaluate")
        docs.append(doc)
        frames.append(row_table(list(read_records(path).values()), name))
    versions = sorted({d["release"]["version"] for d in docs})
    if len(versions) != 1:
        raise LeaderboardError(f"the runs are of different releases ({', '.join(versions)})",
                               "a leaderboard compares methods on one release version")
    rows = pd.concat(frames, ignore_index=True)
    unit_table = units(rows)
    slices = {key: slice_table(unit_table, key) for key, _ in SLICES}
    matrices = {split: win_rates(group)[0] for split, group in unit_table.groupby("split")}
    board = Board(versions[0], [_run_summary(d, rows) for d in docs], rows, unit_table,
                  {k: v for k, v in slices.items() if not v.empty}, matrices,
                  family_win_rates(unit_table), {})
    return board


def _run_summary(doc: dict[str, Any], rows: pd.DataFrame) -> dict[str, Any]:
    mine = rows[rows["method"] == doc["method"]["name"]]
    counts = mine["status"].value_counts()
    elapsed = pd.to_numeric(mine["elapsed"], errors="coerce")
    return {**doc["method"], "rows": len(mine), "unscored": int((~mine["scored"]).sum()),
            **{s: int(counts.get(s, 0)) for s in ("ok", "failed", "timed_out",
                                                  "invalid_output")},
            "mean_seconds": float(elapsed.mean()) if elapsed.notna().any() else None,
            "standardize": doc.get("standardize"), "scmspec_version": doc.get("scmspec_version")}


def _figures(board: Board, folder: Path) -> None:
    colours = figures.palette([r["name"] for r in board.runs])
    fw = board.family_wins
    for split, group in fw.groupby("split"):
        wide = group.pivot(index="family", columns="method", values="win_rate")
        board.figures[f"wins-{split}"] = figures.grouped_bars(
            wide, folder / f"win-rate-by-family-{split}.png", "pooled win rate",
            f"Pairwise win rate by family ({split})", (0, 1), colours).name
    fam = board.slices.get("family")
    if fam is not None:
        for split in sorted(board.units["split"].unique()):
            mine = board.units[board.units["split"] == split]
            table = mine.groupby(["family", "method"])["f1_all"].mean().unstack("method")
            board.figures[f"f1-{split}"] = figures.grouped_bars(
                table, folder / f"f1-by-family-{split}.png", "F1 (all rows)",
                f"Directed F1 by family ({split})", (0, 1), colours).name
    dom = board.slices.get("domain")
    if dom is not None:
        for split, group in dom.groupby("split"):
            wide = group.pivot(index="method", columns="value", values="f1_all")
            board.figures[f"domain-{split}"] = figures.heatmap(
                wide, folder / f"f1-method-x-domain-{split}.png",
                f"Directed F1 (all rows): method x domain ({split})").name
    for split, matrix in board.win_matrix.items():
        if matrix.shape[0] > 1:
            board.figures[f"matrix-{split}"] = figures.heatmap(
                matrix, folder / f"win-rate-matrix-{split}.png",
                f"Win rate of row method over column method ({split})").name


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    def plain(v: Any) -> Any:
        if isinstance(v, (np.floating, float)):
            return None if np.isnan(v) else round(float(v), 6)
        return v.item() if isinstance(v, np.generic) else v
    return [{k: plain(v) for k, v in r.items()} for r in df.to_dict("records")]


def build_leaderboard(paths: Sequence[Path], site: Path) -> Board:
    """Write the leaderboard site of ``paths`` into ``site`` (atomically)."""
    board = load_board(paths)
    try:
        with AtomicFolder(site) as tmp:
            (tmp / "assets").mkdir()
            (tmp / "assets" / "catalogue.css").write_text(CSS, encoding="utf-8")
            (tmp / "assets" / "catalogue.js").write_text(JS, encoding="utf-8")
            _figures(board, tmp / "figures")
            (tmp / "tables").mkdir()
            for key, table in board.slices.items():
                table.to_csv(tmp / "tables" / f"{key}.csv", index=False, lineterminator="\n",
                             float_format="%.6g")
            write_json(tmp / "leaderboard.json", {
                "format": "scmspec.leaderboard/1", "version": board.version, "runs": board.runs,
                "slices": {k: _records(v) for k, v in board.slices.items()},
                "win_rates": _records(board.family_wins),
                "win_matrix": {s: json.loads(m.to_json()) for s, m in board.win_matrix.items()}})
            (tmp / "index.html").write_text(leaderboard_page(board), encoding="utf-8")
    except ForeignFolderError as exc:
        raise LeaderboardError(str(exc), "scmspec leaves it alone: choose another --out") \
            from None
    return board
