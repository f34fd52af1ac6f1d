"""``scmspec leaderboard``: the site from real runs, in headless Chromium, and its refusals."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scmspec.cli import app
from scmspec.evaluation import read_run
from scmspec.evaluation.store import write_atomic
from tests.benchmark.conftest import Evaluated
from tests.render.test_browser import _chromium, _dom

pytestmark = pytest.mark.slow
runner = CliRunner()


@pytest.fixture(scope="module")
def site(evaluated: Evaluated, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("leaderboard") / "site"
    result = runner.invoke(app, ["leaderboard", *map(str, evaluated.runs.values()),
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "sleepy" in result.output and "4 timed out" in result.output
    return out


def test_the_site_holds_every_table_and_figure(site: Path) -> None:
    doc = json.loads((site / "leaderboard.json").read_text())
    assert doc["version"] == "1.0"
    assert {r["name"] for r in doc["runs"]} == {"random_regress", "pc", "sleepy"}
    assert {"family", "domain", "graph", "d", "n", "split"} <= set(doc["slices"])
    synthetic = [r for r in doc["slices"]["family"]
                 if r["value"] == "synthetic" and r["method"] == "sleepy"]
    assert {r["timed_out_share"] for r in synthetic} == {1.0}  # beside the score, not dropped
    html = (site / "index.html").read_text()
    for name in ("win-rate-by-family-obs.png", "f1-by-family-obs.png",
                 "f1-method-x-domain-obs.png", "win-rate-matrix-obs.png"):
        assert (site / "figures" / name).is_file() and f'src="figures/{name}"' in html
    assert (site / "tables" / "family.csv").read_text().startswith("value,split,method,")


@pytest.mark.needs_chromium
def test_the_site_renders_in_chromium_without_console_errors(
        site: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    from PIL import Image

    dom, console = _dom(site / "index.html")
    assert console == []
    assert 'data-images="ok"' in dom, re.search(r'data-broken-images="[^"]*"', dom)
    assert int(re.search(r'data-image-count="(\d+)"', dom).group(1)) >= 6  # type: ignore[union-attr]
    assert dom.count("<table") >= 5 and 'class="sortable"' in dom
    shots = tmp_path_factory.mktemp("leaderboard-screenshots")
    for name, size in (("top", "1280,900"), ("full", "1280,5200")):
        out = shots / f"leaderboard-{name}.png"
        _chromium(f"--screenshot={out}", f"--window-size={size}", "--hide-scrollbars",
                  url=(site / "index.html").as_uri())
        with Image.open(out) as image:
            colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
        assert colours is None or len(colours) > 20, f"{name} screenshot looks blank"
    print(f"screenshots in {shots}")


def test_runs_of_different_releases_or_names_are_refused(evaluated: Evaluated,
                                                         tmp_path: Path) -> None:
    other = tmp_path / "other"
    shutil.copytree(evaluated.runs["pc"], other)
    doc = read_run(other)
    doc["release"]["version"] = "2.0"
    doc["method"]["name"] = "pc-2"
    write_atomic(other / "run.json", doc)
    mixed = runner.invoke(app, ["leaderboard", str(evaluated.runs["pc"]), str(other),
                                "--out", str(tmp_path / "s")])
    assert mixed.exit_code == 1 and "different releases (1.0, 2.0)" in mixed.output
    twice = runner.invoke(app, ["leaderboard", str(evaluated.runs["pc"]),
                                str(evaluated.runs["pc"]), "--out", str(tmp_path / "s")])
    assert twice.exit_code == 1 and "--name" in twice.output
    empty = runner.invoke(app, ["leaderboard", str(tmp_path), "--out", str(tmp_path / "s")])
    assert empty.exit_code == 1 and "not a run folder" in empty.output
    assert not (tmp_path / "s").exists()
