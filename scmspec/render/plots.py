"""Data diagnostics as static PNG images: histograms by regime and a correlation heat map.

Uses matplotlib's object API with the Agg canvas (no pyplot, no global backend
switch), so building a report never opens a window or changes the caller's
matplotlib state. Each figure is written once and referenced by ``<img>``, so
the catalogue works from ``file://`` with no server and no network.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import Colormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch

PANELS_PER_IMAGE = 24  # variables per histogram image (4 columns x 6 rows)
MAX_REGIMES = 6  # interventional regimes overlaid on the observational histogram
COLUMNS = 4
LEGEND_COLUMNS = 4
DPI = 80
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2")


@dataclass(frozen=True)
class Regime:
    """Rows of one data regime: ``obs``, or the rows where one target was intervened."""

    label: str
    frame: pd.DataFrame


def regimes(obs: pd.DataFrame, obsint: pd.DataFrame, records: pd.DataFrame,
            handlers: dict[str, str]) -> tuple[list[Regime], list[str]]:
    """The observational regime plus one regime per target (largest first), and those left out.

    Example:
        >>> obs = pd.DataFrame({"x": [0.0, 1.0]})
        >>> obsint = pd.DataFrame({"x": [0.0, 5.0, 5.0]})
        >>> records = pd.DataFrame({"row": [0, 1, 2], "targets": ["", "x", "x"]})
        >>> shown, dropped = regimes(obs, obsint, records, {"x": "do"})
        >>> [(r.label, len(r.frame)) for r in shown], dropped
        ([('obs', 2), ('do(x)', 2)], [])
    """
    targets = records["targets"].fillna("").astype(str).str.split(";")
    counts: dict[str, list[int]] = {}
    for row, names in zip(records["row"], targets):
        for t in names:
            if t:
                counts.setdefault(t, []).append(int(row))
    ranked = sorted(counts, key=lambda t: (-len(counts[t]), t))
    shown = [Regime("obs", obs)] + [
        Regime(f"{handlers.get(t, 'int')}({t})", obsint.iloc[counts[t]])
        for t in ranked[:MAX_REGIMES]]
    return shown, ranked[MAX_REGIMES:]


def _bins(values: Sequence[np.ndarray], discrete: bool) -> np.ndarray:
    pooled = np.concatenate([v[np.isfinite(v)] for v in values]) if values else np.array([])
    if pooled.size == 0:
        return np.linspace(0.0, 1.0, 2)
    lo, hi = float(pooled.min()), float(pooled.max())
    if discrete and hi - lo <= 40:
        return np.arange(lo - 0.5, hi + 1.5)
    if hi <= lo:
        return np.linspace(lo - 0.5, hi + 0.5, 3)
    return np.linspace(lo, hi, 25)


def _panel(ax: Axes, name: str, shown: list[Regime], discrete: bool) -> None:
    columns = [r.frame[name].to_numpy(dtype=float) for r in shown if len(r.frame)]
    bins = _bins(columns, discrete)
    for i, regime in enumerate(shown):
        values = regime.frame[name].to_numpy(dtype=float)
        values = values[np.isfinite(values)]
        if values.size == 0:
            continue
        # np.histogram + stairs: one artist per regime (ax.hist makes one patch per bar).
        density, edges = np.histogram(values, bins=bins, density=True)
        colour = COLOURS[i % len(COLOURS)]
        ax.stairs(density, edges, fill=i == 0, color=colour, alpha=0.35 if i == 0 else 0.9,
                  linewidth=1.2)
    ax.set_title(name, fontsize=9)
    ax.tick_params(labelsize=7)
    ax.locator_params(axis="x", nbins=4)
    ax.set_yticks([])


def histogram_images(shown: list[Regime], names: Sequence[str], discrete: set[str],
                     folder: Path, stem: str = "hist") -> list[Path]:
    """Write histograms of ``names`` (obs filled, each regime as a line), 24 per image."""
    paths = []
    for start in range(0, len(names), PANELS_PER_IMAGE):
        chunk = names[start:start + PANELS_PER_IMAGE]
        rows = -(-len(chunk) // COLUMNS)
        legend_rows = -(-len(shown) // LEGEND_COLUMNS)
        top = 0.25 + 0.22 * legend_rows  # inches above the panels for the legend
        height = 1.9 * rows + top + 0.25
        fig = Figure(figsize=(2.6 * COLUMNS, height), dpi=DPI)
        FigureCanvasAgg(fig)
        axes = fig.subplots(rows, COLUMNS, squeeze=False).ravel()
        for ax, name in zip(axes, chunk):
            _panel(ax, name, shown, name in discrete)
        for ax in axes[len(chunk):]:
            ax.set_axis_off()
        handles = [_swatch(i) for i in range(len(shown))]
        fig.legend(handles, [r.label for r in shown], loc="upper center",
                   ncol=min(len(shown), LEGEND_COLUMNS), fontsize=8, frameon=False)
        # Fixed margins: tight_layout measures every tick label and costs seconds per image.
        fig.subplots_adjust(left=0.03, right=0.98, bottom=0.25 / height,
                            top=1 - top / height, hspace=0.55, wspace=0.12)
        paths.append(_save(fig, folder / f"{stem}-{start // PANELS_PER_IMAGE}.png"))
    return paths


def _swatch(i: int) -> Patch:
    colour = COLOURS[i % len(COLOURS)]
    if i == 0:
        return Patch(facecolor=colour, alpha=0.35, edgecolor=colour)
    return Patch(facecolor="none", edgecolor=colour, linewidth=1.2)


def correlation_image(obs: pd.DataFrame, path: Path) -> Path:
    """A Pearson correlation heat map of the observational columns (constant columns grey)."""
    corr = obs.astype(float).corr().to_numpy()
    d = corr.shape[0]
    side = float(min(14.0, max(4.0, 0.3 * d + 2.0)))
    fig = Figure(figsize=(side + 1.2, side), dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    cmap = _diverging()
    image = ax.imshow(np.ma.masked_invalid(corr), cmap=cmap, vmin=-1.0, vmax=1.0)
    size = 8 if d <= 30 else max(4, int(8 - (d - 30) / 15))
    ax.set_xticks(range(d), list(obs.columns), rotation=90, fontsize=size)
    ax.set_yticks(range(d), list(obs.columns), fontsize=size)
    fig.colorbar(image, ax=ax, shrink=0.8, label="Pearson correlation (obs)")
    fig.tight_layout()
    return _save(fig, path)


def _diverging() -> Colormap:
    return colormaps["RdBu_r"].with_extremes(bad="#cccccc")


def _save(fig: Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", metadata={"Software": None})
    return path
