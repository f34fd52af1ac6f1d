"""The leaderboard's HTML (pure text builders over a :class:`~scmspec.leaderboard.site.Board`).

Plain HTML5 with the catalogue's stylesheet and script (sortable tables, an image check),
images by relative path, every value from a run folder escaped.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from scmspec.leaderboard.scores import SLICES
from scmspec.render.pages import document, table

if TYPE_CHECKING:
    from scmspec.leaderboard.site import Board


def _e(value: object) -> str:
    return escape("" if value is None else str(value), quote=True)


def _num(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return '<td class="num" data-sort="">-</td>'
    return f'<td class="num" data-sort="{float(value):.6g}">{float(value):.{digits}f}</td>'


def _share(value: float) -> str:
    return f'<td class="num" data-sort="{value:.6g}">{100 * value:.0f}%</td>'


def _runs(board: Board) -> str:
    rows = []
    for r in board.runs:
        params = ", ".join(f"{k}={v}" for k, v in r.get("params", {}).items())
        cells = [f"<td><b>{_e(r['name'])}</b></td>", f"<td>{_e(r['kind'])}</td>",
                 f"<td><code>{_e(r['target'])}</code></td>", f"<td>{_e(r['output'])}</td>",
                 *(f'<td class="num">{r[k]}</td>' for k in ("rows", "ok", "failed", "timed_out",
                                                           "invalid_output", "unscored")),
                 _num(r.get("mean_seconds"), 2), f"<td>{_e(r.get('library') or '')}</td>",
                 f"<td><code>{_e(params)}</code></td>"]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return ('<h2 id="runs">Runs</h2>\n' + table(
        ("method", "kind", "target", "output", "rows", "ok", "failed", "timed out", "invalid",
         "unscored", "mean s", "library", "parameters"), rows, "runs-table", sortable=True))


def _figure(board: Board, key: str, alt: str) -> str:
    name = board.figures.get(key)
    return (f'<figure><img src="figures/{_e(name)}" alt="{_e(alt)}"></figure>' if name else "")


def _wins(board: Board) -> str:
    parts = ['<h2 id="wins">Pairwise win rates</h2>',
             '<p class="muted">On each SCM both methods ran, higher F1 wins one comparison and '
             "lower SHD another; ties count 0.5. A method's rate pools its wins over every "
             "opponent and SCM of the family. Failed rows score as the empty graph.</p>"]
    fw = board.family_wins
    for split, group in fw.groupby("split"):
        wide = group.pivot(index="method", columns="family", values="win_rate")
        wide = wide.loc[wide.mean(axis=1).sort_values(ascending=False).index]
        rows = ["<tr><td><b>" + _e(m) + "</b></td>" + "".join(_num(v) for v in r) + "</tr>"
                for m, r in zip(wide.index, wide.to_numpy())]
        parts += [f"<h3>{_e(split)}</h3>",
                  table(("method", *map(str, wide.columns)), rows, f"wins-{split}",
                        sortable=True),
                  _figure(board, f"wins-{split}", f"win rate by family, {split}"),
                  _figure(board, f"matrix-{split}", f"win-rate matrix, {split}")]
    return "\n".join(parts)


def _slice(board: Board, key: str, label: str, frame: pd.DataFrame) -> str:
    rows = []
    for rec in frame.to_dict("records"):
        cells = [f"<td>{_e(rec['value'])}</td>", f"<td>{_e(rec['split'])}</td>",
                 f"<td><b>{_e(rec['method'])}</b></td>",
                 f'<td class="num">{rec["units"]}</td>', f'<td class="num">{rec["rows"]}</td>',
                 _num(rec["f1"]), _num(rec["f1_all"]), _num(rec["shd"], 1),
                 _num(rec["shd_all"], 1), _num(rec["precision"]), _num(rec["recall"]),
                 _share(rec["failed_share"]), _share(rec["timed_out_share"]),
                 _share(rec["invalid_output_share"])]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    figure = ""
    if key == "family":
        figure = "".join(_figure(board, k, f"F1 by family, {k[3:]}")
                         for k in sorted(board.figures) if k.startswith("f1-"))
    elif key == "domain":
        figure = "".join(_figure(board, k, f"F1, method x domain, {k[7:]}")
                         for k in sorted(board.figures) if k.startswith("domain-"))
    return (f'<h2 id="slice-{_e(key)}">By {_e(label)}</h2>\n'
            + table((label, "split", "method", "SCMs", "rows", "F1", "F1 (all)", "SHD", "SHD (all)",
                     "precision", "recall", "failed", "timed out", "invalid"), rows,
                    f"slice-{key}", sortable=True) + figure)


def leaderboard_page(board: Board) -> str:
    """The leaderboard: runs, win rates, then one table per slice the runs carry."""
    labels = dict(SLICES)
    nav = " &middot; ".join(f'<a href="#slice-{_e(k)}">{_e(labels[k])}</a>'
                            for k in labels if k in board.slices)
    intro = (f"<h1>Leaderboard: release {_e(board.version)}</h1>\n"
             f'<p class="muted">{len(board.runs)} methods. Replicate scores are averaged per '
             "SCM and split first, then over the SCMs of a slice. <b>F1</b>, <b>SHD</b>, "
             "precision and recall: over finished rows; <b>(all)</b>: every row, a failed, "
             "timed-out or invalid one scored as the empty graph. Beside every score: the "
             "share of the slice's rows that failed, timed out or returned invalid output. "
             "Equivalence classes: undirected edges oriented at random with a seed per row; "
             "PAG circles read as tails.</p>\n"
             f'<p class="muted"><a href="#runs">runs</a> &middot; <a href="#wins">win rates'
             f"</a> &middot; {nav} &middot; <a href=\"leaderboard.json\">numbers (JSON)</a></p>")
    body = "\n".join([intro, _runs(board), _wins(board),
                      *(_slice(board, k, labels[k], board.slices[k]) for k in labels
                        if k in board.slices)])
    return document(f"Leaderboard {board.version}", body, "")
