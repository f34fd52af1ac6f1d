"""Build the static HTML catalogue of a compiled ``data/`` folder.

Takes the folder ``scmspec compile`` wrote (layout: ``docs/data-layout.md``) and
writes a site that opens from ``file://`` with no server and no network::

    SITE/index.html                  every SCM in the manifest: sortable, filterable
    SITE/assets/catalogue.{css,js}
    SITE/scm/<id>.html               graph, variables, edges, gates, data diagnostics
    SITE/scm/<id>/graph.svg          drawn from spec.json through scmspec.load_spec
    SITE/scm/<id>/hist-<k>.png, correlation.png

The graph is rebuilt from ``spec.json`` (not from a card file), so the figure is
the graph of the SCM that produced the data. Only ``SITE/index.html``,
``SITE/assets`` and ``SITE/scm`` are written; ``SITE/scm`` is replaced whole so
pages of SCMs no longer in the manifest do not linger.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scmspec.api import load_spec
from scmspec.errors import CardError, ScmspecError
from scmspec.render.assets import CSS, JS
from scmspec.render.graphviz import GraphvizNotFound, dot_available, to_dot, write_figure
from scmspec.render.pages import IndexRow, ScmPage, index_page, scm_page
from scmspec.render.plots import correlation_image, histogram_images, regimes
from scmspec.textio import read_table


class ReportInputError(ScmspecError):
    """The data folder is not a compiled ``data/`` folder (no readable manifest)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class ReportResult:
    """What was written: the index, one page per SCM, and SCMs listed without a page."""

    site: Path
    index: Path
    pages: dict[str, Path] = field(default_factory=dict)
    without_page: dict[str, str] = field(default_factory=dict)


def read_manifest(data_dir: Path) -> dict[str, Any]:
    """The manifest of a compiled folder; a clear :class:`ReportInputError` if there is none."""
    path = data_dir / "manifest.json"
    if not path.is_file():
        raise ReportInputError(f"{path} not found: pass the folder written by "
                               "`scmspec compile CARDS --out DIR`")
    try:
        doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ReportInputError(f"{path} is not readable JSON ({exc})") from None
    if doc.get("format") != "scmspec.manifest/1" or not isinstance(doc.get("scms"), list):
        raise ReportInputError(f"{path} is not an scmspec manifest (format scmspec.manifest/1)")
    return doc


def build_report(data_dir: Path, site: Path) -> ReportResult:
    """Write the catalogue of ``data_dir`` into ``site``.

    Raises :class:`ReportInputError` for a folder without a manifest and
    :class:`~scmspec.render.graphviz.GraphvizNotFound` when ``dot`` is missing.
    """
    manifest = read_manifest(data_dir)
    if not dot_available():
        raise GraphvizNotFound()
    _write_assets(site)
    shutil.rmtree(site / "scm", ignore_errors=True)
    result = ReportResult(site, site / "index.html")
    rows = [_index_row(entry, data_dir, site, result) for entry in manifest["scms"]]
    result.index.write_text(index_page(rows, manifest), encoding="utf-8")
    return result


def _write_assets(site: Path) -> None:
    assets = site / "assets"
    assets.mkdir(parents=True, exist_ok=True)
    (assets / "catalogue.css").write_text(CSS, encoding="utf-8")
    (assets / "catalogue.js").write_text(JS, encoding="utf-8")


def _index_row(entry: dict[str, Any], data_dir: Path, site: Path,
               result: ReportResult) -> IndexRow:
    scm_id = entry.get("id")
    folder = data_dir / scm_id if scm_id else None
    if not scm_id or folder is None or not (folder / "spec.json").is_file():
        note = "; ".join(d.get("message", "") for d in entry.get("diagnostics", [])[:1])
        result.without_page[scm_id or entry.get("card", "?")] = note or "no dataset"
        return IndexRow(entry, None, note)
    try:
        page = _scm_page(folder, entry, site)
    except CardError as exc:
        note = f"spec.json could not be rebuilt: {exc.diagnostics[0].message}"
        result.without_page[scm_id] = note
        return IndexRow(entry, None, note)
    result.pages[scm_id] = page
    return IndexRow(entry, page.relative_to(site).as_posix(), release=_release_state(folder))


def _release_state(folder: Path) -> str:
    """The card's release state as compiled into spec.json (``draft`` when the card has none)."""
    card = _read_json(folder / "spec.json", {}).get("card", {})
    return str(card.get("release") or "draft")


def _read_json(path: Path, default: Any) -> Any:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else default


def _scm_page(folder: Path, entry: dict[str, Any], site: Path) -> Path:
    scm = load_spec(folder / "spec.json")
    scm_id = scm.compiled.card.id
    out = site / "scm" / scm_id
    write_figure(to_dot(scm.compiled), out / "graph.svg", "svg")
    meta: dict[str, Any] = _read_json(folder / "metadata.json", {})
    rep = folder / "rep-0"
    obs = read_table(rep / "obs")
    obsint = read_table(rep / "obsint")
    records = read_table(rep / "obsint_records", keep_default_na=False)
    shown, dropped = regimes(obs, obsint, records, meta.get("handlers", {}))
    discrete = {v for v, s in scm.compiled.card.variables.items() if s.kind != "continuous"}
    hists = histogram_images(shown, list(obs.columns), discrete, out)
    corr = correlation_image(obs, out / "correlation.png")
    n_int = int((records["targets"] != "").sum()) if len(records) else 0
    page = ScmPage(
        compiled=scm.compiled, entry=entry, metadata=meta,
        gates=_read_json(folder / "gates.json", []),
        figure=f"{scm_id}/graph.svg", histograms=[f"{scm_id}/{p.name}" for p in hists],
        regimes=[r.label for r in shown], dropped=dropped, correlation=f"{scm_id}/{corr.name}",
        rows={"obs": len(obs), "obs+int observational": len(obsint) - n_int,
              "obs+int intervened": n_int})
    path = site / "scm" / f"{scm_id}.html"
    path.write_text(scm_page(page), encoding="utf-8")
    return path
