"""``scmspec report``: the static catalogue of a compiled data folder (files and HTML text)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from typer.testing import CliRunner

from scmspec.cli import app
from scmspec.render.graphviz import to_dot
from tests.render.conftest import WIDE_ID

if TYPE_CHECKING:
    from tests.render.conftest import Catalogue

PNG = b"\x89PNG"

pytestmark = pytest.mark.needs_dot  # the catalogue draws every figure with dot



def test_index_lists_every_scm_in_the_manifest(catalogue: Catalogue) -> None:
    manifest = json.loads((catalogue.data / "manifest.json").read_text(encoding="utf-8"))
    index = (catalogue.site / "index.html").read_text(encoding="utf-8")
    rows = re.findall(r'<tr data-id="([^"]+)" data-family="([^"]*)" data-status="([^"]*)"', index)
    assert sorted(r[0] for r in rows) == sorted(e["id"] for e in manifest["scms"])
    assert {r[0]: r[2] for r in rows}["broken"] == "failed"
    assert 'href="scm/clinic.html"' in index and 'href="scm/gen8.html"' in index
    assert 'href="scm/broken.html"' not in index
    assert 'id="filter-text"' in index and 'id="filter-family"' in index
    assert sorted(catalogue.result.pages) == sorted(["clinic", "gen8", WIDE_ID])


def test_scm_page_has_figure_variables_edges_gates_and_plots(catalogue: Catalogue) -> None:
    page = (catalogue.site / "scm" / "clinic.html").read_text(encoding="utf-8")
    assert '<img src="clinic/graph.svg"' in page
    for name in ("age", "dose", "frailty", "bp", "high_<wbr>bp", "visit"):
        assert f"<td><b>{name}</b></td>" in page
    assert '<math display="inline" alttext="bp = ' in page and "<mi>bp_per_mg</mi>" in page
    assert "arterial stiffening with age" in page  # an edge reason
    gates = json.loads((catalogue.data / "clinic" / "gates.json").read_text(encoding="utf-8"))
    for g in gates:
        assert f"<td>{g['gate']}</td>" in page
    assert "do(dose)" in page and "resample(bp)" in page  # regimes named by handler
    assert "rows are kept only where <code>visit &gt; 0</code>" in page
    folder = catalogue.site / "scm" / "clinic"
    for img in re.findall(r'<img src="([^"]+)"', page):
        assert (catalogue.site / "scm" / img).stat().st_size > 1000
    assert (folder / "hist-0.png").read_bytes().startswith(PNG)
    assert (folder / "correlation.png").read_bytes().startswith(PNG)


def test_figure_is_drawn_from_spec_json(catalogue: Catalogue) -> None:
    import scmspec

    svg = (catalogue.site / "scm" / "gen8" / "graph.svg").read_text(encoding="utf-8")
    scm = scmspec.load_spec(catalogue.data / "gen8" / "spec.json")
    for u, v in scm.graph.edges:
        assert f"<title>{u}&#45;&gt;{v}</title>" in svg
    assert svg.count('class="edge"') == scm.graph.number_of_edges()  # legend links are invisible
    assert f"<title>{scm.id}</title>" in svg and to_dot(scm).startswith(f'digraph "{scm.id}"')


def test_site_is_offline(catalogue: Catalogue) -> None:
    for page in catalogue.site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r'(src|href)="(https?:)?//', text), page
        for ref in re.findall(r'(?:src|href)="([^"#]+)"', text):
            assert (page.parent / ref).exists(), f"{page.name} links to missing {ref}"


def test_report_cli_replaces_stale_pages_and_reports_bad_input(catalogue: Catalogue,
                                                                 tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "scm" / "stale").mkdir(parents=True)
    (site / "keep.txt").write_text("mine")
    result = CliRunner().invoke(app, ["report", str(catalogue.data), "--out", str(site)])
    assert result.exit_code == 0, result.output
    assert "3 SCM pages" in result.output and "no page   broken" in result.output
    assert not (site / "scm" / "stale").exists() and (site / "keep.txt").exists()
    assert (site / "scm" / "clinic.html").is_file()
    missing = CliRunner().invoke(app, ["report", str(tmp_path / "nothing"), "--out", "x"])
    flat = re.sub(r"[│╭╮╰╯─\s]+", " ", missing.output)  # rich wraps the box at the tmp path
    assert missing.exit_code == 2 and "does not exist" in flat  # usage
    (tmp_path / "nothing").mkdir()
    missing = CliRunner().invoke(app, ["report", str(tmp_path / "nothing"), "--out", "x"])
    assert missing.exit_code == 1 and "manifest.json not found" in missing.output
    assert "Traceback" not in missing.output
