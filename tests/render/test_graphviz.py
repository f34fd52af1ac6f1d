"""DOT text of a card's graph: golden text, styles, legend, layout at 25 and 100 variables."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from itertools import combinations
from pathlib import Path

import pytest

import scmspec
from scmspec.api import spec_document
from scmspec.render.graphviz import LARGE, LEGEND_ID, SELECTION_ID, to_dot, write_figure
from tests.conftest import check_golden

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "render"
CASES = sorted(p.stem for p in GOLDEN.glob("*.yaml"))


@pytest.mark.parametrize("case", CASES)
def test_dot_matches_golden(case: str, update_golden: bool) -> None:
    scm = scmspec.compile_file(GOLDEN / f"{case}.yaml")
    check_golden(GOLDEN / f"{case}.dot", to_dot(scm), update_golden)
    check_golden(GOLDEN / f"{case}.labels.dot", to_dot(scm, edge_labels=True), update_golden)


def _attrs(dot: str, node: str) -> str:
    match = re.search(rf'^  "{node}" \[(.*)\];$', dot, re.MULTILINE)
    assert match, f"node {node} not in DOT"
    return match.group(1)


def test_nodes_edges_and_styles_of_the_clinic_card() -> None:
    scm = scmspec.compile_file(GOLDEN / "clinic.yaml")
    dot = to_dot(scm, edge_labels=True)
    card = scm.compiled.card
    for name in card.variables:
        _attrs(dot, name)
    for edge in card.edges:  # every edge, with its reason as the SVG tooltip
        assert f'"{edge.source}" -> "{edge.target}" [label=' in dot
        assert f"tooltip=\"{edge.source} -> {edge.target}: {edge.reason}\"" in dot
    assert 'fillcolor="#cfe2f3"' in _attrs(dot, "age")  # a distribution with default role: root
    assert 'fillcolor="#fff2cc"' in _attrs(dot, "dose")  # setting
    assert 'fillcolor="#f4cccc"' in _attrs(dot, "high_bp")  # flag
    assert "dashed" in _attrs(dot, "frailty") and "dashed" in _attrs(dot, "visit")  # latent
    assert "dashed" not in _attrs(dot, "bp")
    assert "peripheries=2" in _attrs(dot, "dose") and "peripheries=2" in _attrs(dot, "bp")
    assert "peripheries=2" not in _attrs(dot, "age")
    assert ">mmHg</FONT>" in _attrs(dot, "bp")  # unit under the name
    assert '"bp" -> "high_bp" [label="threshold"' in dot  # mechanism family of the child
    assert f'"visit" -> "{SELECTION_ID}" [style=dotted' in dot
    assert "visit &gt; 0" in _attrs(dot, SELECTION_ID)
    legend = _attrs(dot, LEGEND_ID)
    for entry in ("root", "setting", "measurement", "flag", "outcome", "latent", "intervenable",
                  "selection"):
        assert entry in legend
    assert "process" not in legend  # only the roles that occur
    assert '{ rank=min; "age"; "frailty"; }' in dot


def test_figure_of_card_equals_figure_of_its_spec_json(tmp_path: Path) -> None:
    scm = scmspec.compile_file(GOLDEN / "clinic.yaml")
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec_document(scm)), encoding="utf-8")
    assert to_dot(scmspec.load_spec(path)) == to_dot(scm)
    assert to_dot(scm.compiled) == to_dot(scm)


def _boxes(dot: str) -> tuple[list[tuple[str, tuple[float, ...]]], list[tuple[float, ...]]]:
    """Node rectangles and edge-label rectangles (points) from ``dot -Tjson``."""
    doc = json.loads(subprocess.run(["dot", "-Tjson"], input=dot, capture_output=True,
                                    text=True, check=True).stdout)
    nodes = []
    for obj in doc["objects"]:
        if "pos" in obj and "width" in obj:
            x, y = map(float, obj["pos"].split(","))
            w, h = float(obj["width"]) * 36, float(obj["height"]) * 36  # half-size in points
            nodes.append((obj["name"], (x - w, y - h, x + w, y + h)))
    labels = []
    for edge in doc.get("edges", []):
        for op in edge.get("_ldraw_", []):
            if op.get("op") == "T":
                x, y = op["pt"]
                half = op["width"] / 2
                labels.append((x - half, y - 2, x + half, y + 7))
    return nodes, labels


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.needs_dot
@pytest.mark.parametrize("n", [25, 100])
def test_layout_has_no_overlapping_labels(n: int, make_card: Callable[..., str]) -> None:
    scm = scmspec.compile_text(make_card(n), f"gen{n}.yaml")
    dot = to_dot(scm, edge_labels=n <= LARGE)
    nodes, labels = _boxes(dot)
    assert len(nodes) >= n
    clashes = [(a, b) for (a, ra), (b, rb) in combinations(nodes, 2) if _overlap(ra, rb)]
    assert not clashes, f"overlapping nodes: {clashes[:5]}"
    on_nodes = [(lab, name) for lab in labels for name, r in nodes if _overlap(lab, r)]
    assert not on_nodes, f"edge labels over nodes: {on_nodes[:5]}"
    assert not [p for p in combinations(labels, 2) if _overlap(*p)], "edge labels overlap"


@pytest.mark.needs_dot
def test_large_graph_uses_tight_spacing_and_renders(tmp_path: Path,
                                                    make_card: Callable[..., str]) -> None:
    scm = scmspec.compile_text(make_card(100), "gen100.yaml")
    dot = to_dot(scm)
    assert "nodesep=0.15" in dot and "fontsize=9" in dot
    svg = write_figure(dot, tmp_path / "g.svg", "svg")
    assert svg.stat().st_size > 10_000 and svg.read_text().count('class="node"') > 100


@pytest.mark.needs_dot
def test_svg_labels_are_anchored_at_the_middle_of_their_nodes(tmp_path: Path) -> None:
    """Graphviz anchors HTML-like label lines at their start, computed with its own font; a
    browser with another font then draws them off-centre. write_figure re-anchors every line
    of a variable's node at the node's centre, and the SVG declares the font stack Graphviz
    measured with."""
    import re

    from scmspec.render.figures import render_card

    svg = tmp_path / "clinic.svg"
    assert render_card(GOLDEN / "clinic.yaml", svg, "svg").figure == svg
    text = svg.read_text(encoding="utf-8")
    nodes = re.findall(r'<g id="node\d+" class="node">\n<title>([^<]+)</title>(.*?)\n</g>\n</g>',
                       text, re.S)
    assert len(nodes) >= 6
    for name, body in nodes:
        if name.startswith("__"):
            continue
        xs = [float(x) for pts in re.findall(r'(?:points|d)="([^"]+)"', body)
              for x in re.findall(r"(-?[\d.]+),-?[\d.]+", pts)]
        centre = (min(xs) + max(xs)) / 2
        anchors = re.findall(r'<text text-anchor="(\w+)" x="(-?[\d.]+)"', body)
        assert anchors and all(a == "middle" and abs(float(x) - centre) < 0.01
                               for a, x in anchors), (name, anchors, centre)
    assert 'font-family="Helvetica,Arial,Liberation Sans,sans-serif"' in text
