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

from tests.render.conftest import WIDE_ID

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
    assert f'<span id="shown-count">{len(catalogue.ids)}</span>' in dom


@pytest.mark.slow  # seconds of headless Chromium each: the full suite and CI run it
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


@pytest.mark.slow  # seconds of headless Chromium each: the full suite and CI run it
def test_every_page_fits_the_window(catalogue: Catalogue) -> None:
    """At 1280 px nothing needs horizontal scrolling: long ids and tags wrap in the index,
    and long equations wrap (a sum of eight long terms, a long fraction) on the SCM pages.
    The pages' script records what is wider than its box (assets.py)."""
    pages = {"index": catalogue.site / "index.html", **catalogue.result.pages}
    for name, page in sorted(pages.items()):
        dom, console = _chromium("--dump-dom", "--virtual-time-budget=5000",
                                 "--window-size=1280,900", url=page.as_uri())
        assert console == [], f"{name}: {console}"
        assert 'data-overflow=""' in dom, (name, re.search(r'data-overflow="[^"]*"', dom))
        assert 'data-clipped-terms="0"' in dom, name


def test_equations_of_the_crowded_card_wrap_over_several_lines(catalogue: Catalogue) -> None:
    """The sum of eight long terms is one box per term, and the browser puts them on more
    than one line (the first and last term start at different heights)."""
    page = catalogue.result.pages[WIDE_ID]
    html = page.read_text(encoding="utf-8")
    assert html.count('<span class="term">') >= 9
    probe = page.with_name("probe.html")
    probe.write_text(html.replace("</body>", PROBE_TERMS + "</body>"), encoding="utf-8")
    dom, console = _chromium("--dump-dom", "--virtual-time-budget=5000",
                             "--window-size=1280,900", url=probe.as_uri())
    probe.unlink()
    lines = int(re.search(r'data-term-lines="(\d+)"', dom).group(1))  # type: ignore[union-attr]
    assert lines >= 2 and console == []


PROBE_TERMS = """<script>
window.addEventListener("load", function () {
  var eq = document.querySelector(".eq"), tops = {};
  Array.prototype.forEach.call(eq.querySelectorAll(".term"), function (t) {
    tops[Math.round(t.getBoundingClientRect().top)] = true; });
  document.documentElement.setAttribute("data-term-lines", String(Object.keys(tops).length));
});
</script>"""


@pytest.mark.slow  # seconds of headless Chromium each: the full suite and CI run it
def test_node_labels_are_centred_in_their_boxes(catalogue: Catalogue, tmp_path: Path) -> None:
    """Each graph's SVG, inlined into a page, measured by the browser in whatever font it has:
    every label line of a variable's node is centred on the node (within 1 px)."""
    for scm_id in sorted(catalogue.result.pages):
        svg = (catalogue.site / "scm" / scm_id / "graph.svg").read_text(encoding="utf-8")
        svg = svg[svg.index("<svg"):]
        page = tmp_path / f"{scm_id}.html"
        page.write_text(f"<!DOCTYPE html><html><body>{svg}{PROBE_LABELS}</body></html>",
                        encoding="utf-8")
        dom, console = _chromium("--dump-dom", "--virtual-time-budget=5000", url=page.as_uri())
        offsets = re.search(r'data-label-offsets="([^"]*)"', dom)
        assert offsets is not None and console == [], console
        worst = max(float(v) for v in offsets.group(1).split())
        assert worst <= 1.0, (scm_id, offsets.group(1))


PROBE_LABELS = """<script>
window.addEventListener("load", function () {
  var out = [];
  document.querySelectorAll("g.node").forEach(function (node) {
    var title = node.querySelector("title").textContent;
    if (title.indexOf("__") === 0) { return; }  // the legend and the selection node
    var shape = node.querySelector("path, polygon, ellipse").getBBox();
    var centre = shape.x + shape.width / 2;
    node.querySelectorAll("text").forEach(function (text) {
      var box = text.getBBox();
      out.push(Math.abs(box.x + box.width / 2 - centre).toFixed(2));
    });
  });
  document.documentElement.setAttribute("data-label-offsets", out.join(" "));
});
</script>"""


@pytest.mark.slow  # seconds of headless Chromium each: the full suite and CI run it
def test_screenshots_of_index_and_one_scm_page(catalogue: Catalogue,
                                               tmp_path_factory: pytest.TempPathFactory) -> None:
    from PIL import Image

    shots = tmp_path_factory.mktemp("screenshots")
    targets = {"index": (catalogue.site / "index.html", "1280,800"),
               "clinic": (catalogue.result.pages["clinic"], "1280,2400"),
               "wide": (catalogue.result.pages[WIDE_ID], "1280,2000")}
    for name, (page, size) in targets.items():
        out = shots / f"{name}.png"
        _chromium(f"--screenshot={out}", f"--window-size={size}", "--hide-scrollbars",
                  url=page.as_uri())
        with Image.open(out) as image:
            colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
            assert image.size == tuple(int(v) for v in size.split(","))
        assert colours is None or len(colours) > 20, f"{name} screenshot looks blank"
    print(f"screenshots in {shots}")
