"""The catalogue in headless Chromium from file://: images load, no console errors, JS works.

Chromium is driven through its command line (``--dump-dom``, ``--screenshot``), with
the flags that keep it off the network, and a fresh profile per run. The pages'
script marks ``<html data-images="ok">`` once every ``<img>`` decoded, so the DOM
dump proves the figures loaded. Skipped only when no Chromium is installed (CI
installs Debian's ``chromium``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.render.conftest import Catalogue

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--enable-logging=stderr", "--v=0")

pytestmark = [pytest.mark.needs_dot, pytest.mark.needs_chromium]


def _chromium(*args: str, url: str) -> tuple[str, list[str]]:
    """Run Chromium once; returns stdout and the page's console messages."""
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        proc = subprocess.run([str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *args, url],
                              capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return proc.stdout, console


def _dom(page: Path, query: str = "") -> tuple[str, list[str]]:
    return _chromium("--dump-dom", "--virtual-time-budget=5000", url=page.as_uri() + query)


def _row_ids(dom: str, hidden: bool | None = None) -> list[str]:
    rows = re.findall(r'<tr data-id="([^"]+)"[^>]*?( hidden="")?>', dom)
    return [i for i, h in rows if hidden is None or bool(h) == hidden]


def test_index_lists_every_scm_with_no_console_errors(catalogue: Catalogue) -> None:
    dom, console = _dom(catalogue.site / "index.html")
    assert console == []
    assert 'data-images="ok"' in dom
    assert sorted(_row_ids(dom)) == sorted(catalogue.ids)
    assert '<span id="shown-count">3</span>' in dom


def test_index_filters_and_sorts_from_the_query_string(catalogue: Catalogue) -> None:
    dom, console = _dom(catalogue.site / "index.html", "?q=clinic")
    assert console == []
    assert _row_ids(dom, hidden=False) == ["clinic"]
    assert '<span id="shown-count">1</span>' in dom
    dom, _ = _dom(catalogue.site / "index.html", "?sort=d&order=desc")
    d = dict(re.findall(r'<tr data-id="([^"]+)".*?<td class="num">(\d*)</td>', dom))
    ordered = [i for i in _row_ids(dom) if d.get(i)]
    assert [int(d[i]) for i in ordered] == sorted((int(d[i]) for i in ordered), reverse=True)
    dom, _ = _dom(catalogue.site / "index.html", "?status=failed")
    assert _row_ids(dom, hidden=False) == ["broken"]


def test_every_scm_page_loads_its_figure_and_plots(catalogue: Catalogue) -> None:
    for scm_id, page in sorted(catalogue.result.pages.items()):
        dom, console = _dom(page)
        assert console == [], f"{scm_id}: {console}"
        assert 'data-images="ok"' in dom, re.search(r'data-broken-images="[^"]*"', dom)
        count = int(re.search(r'data-image-count="(\d+)"', dom).group(1))  # type: ignore[union-attr]
        assert count >= 3  # graph, histograms, correlation
        assert f'<img src="{scm_id}/graph.svg"' in dom and "<math" in dom


def test_screenshots_of_index_and_one_scm_page(catalogue: Catalogue,
                                               tmp_path_factory: pytest.TempPathFactory) -> None:
    from PIL import Image

    shots = tmp_path_factory.mktemp("screenshots")
    targets = {"index": (catalogue.site / "index.html", "1280,800"),
               "clinic": (catalogue.result.pages["clinic"], "1280,2400")}
    for name, (page, size) in targets.items():
        out = shots / f"{name}.png"
        _chromium(f"--screenshot={out}", f"--window-size={size}", "--hide-scrollbars",
                  url=page.as_uri())
        with Image.open(out) as image:
            colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
            assert image.size == tuple(int(v) for v in size.split(","))
        assert colours is None or len(colours) > 20, f"{name} screenshot looks blank"
    print(f"screenshots in {shots}")
