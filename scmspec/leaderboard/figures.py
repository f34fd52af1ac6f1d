"""The leaderboard's figures as PNG files: grouped bars and heat maps.

matplotlib's object API on the Agg canvas (no pyplot, no global backend), as the catalogue's
plots, so building a site never opens a window or changes the caller's matplotlib state.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

DPI = 90
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")


def _save(fig: Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    FigureCanvasAgg(fig)
    fig.savefig(path, dpi=DPI, metadata={"Software": None})
    return path


def palette(methods: list[str]) -> dict[str, str]:
    """One colour per method, the same in every figure of a site (sorted names, in turn).

    Example:
        >>> palette(["b", "a"])
        {'a': '#1f77b4', 'b': '#d62728'}
    """
    return {m: COLOURS[i % len(COLOURS)] for i, m in enumerate(sorted(methods))}


def grouped_bars(wide: pd.DataFrame, path: Path, ylabel: str, title: str,
                 ylim: tuple[float, float] | None = None,
                 colours: dict[str, str] | None = None) -> Path:
    """Bars per group (rows of ``wide``) and method (its columns); NaN leaves a gap.

    ``colours`` keeps a method's colour when another figure lacks some method.
    """
    colours = colours or palette([str(m) for m in wide.columns])
    groups, methods = list(wide.index), list(wide.columns)
    fig = Figure(figsize=(max(5.0, 1.2 * len(groups) * max(1, len(methods)) / 3 + 2), 3.6))
    ax = fig.add_subplot(1, 1, 1)
    width = 0.8 / max(len(methods), 1)
    x = np.arange(len(groups))
    for i, m in enumerate(methods):
        ax.bar(x + (i - (len(methods) - 1) / 2) * width, wide[m].to_numpy(float), width,
               label=str(m), color=colours[str(m)])
    ax.set_xticks(x, [str(g) for g in groups])
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    if ylim:
        ax.set_ylim(*ylim)
    ax.legend(fontsize=8, ncol=min(len(methods), 4), loc="upper left", bbox_to_anchor=(0, -0.12))
    fig.subplots_adjust(bottom=0.32)
    return _save(fig, path)


def heatmap(wide: pd.DataFrame, path: Path, title: str, vmin: float = 0.0,
            vmax: float = 1.0) -> Path:
    """A labelled heat map of ``wide`` (rows x columns), each cell printed; NaN is blank."""
    rows, cols = [str(r) for r in wide.index], [str(c) for c in wide.columns]
    fig = Figure(figsize=(max(5.5, 0.9 * len(cols) + 3.0), max(2.8, 0.45 * len(rows) + 1.8)))
    ax = fig.add_subplot(1, 1, 1)
    values = wide.to_numpy(float)
    image = ax.imshow(np.ma.masked_invalid(values), cmap=colormaps["RdBu_r"], vmin=vmin,
                      vmax=vmax, aspect="auto")
    ax.set_xticks(range(len(cols)), cols, rotation=35, ha="right", fontsize=8)
    ax.set_yticks(range(len(rows)), rows, fontsize=8)
    for (i, j), v in np.ndenumerate(values):
        if np.isfinite(v):
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7)
    ax.set_title(title, fontsize=10)
    fig.colorbar(image, ax=ax, fraction=0.05)
    fig.tight_layout()
    return _save(fig, path)
