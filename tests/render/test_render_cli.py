"""``scmspec render``: figures for one card, a folder of cards, every card under cards/."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from scmspec.build.discover import discover
from scmspec.cli import app
from scmspec.render.figures import render_card
from scmspec.render.graphviz import GraphvizNotFound, write_figure
from tests.library import FAMILY_SAMPLE, card_params

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "render"
REPO_CARDS = [f.path for f in discover([ROOT / "cards"])] if (ROOT / "cards").is_dir() else []
MAGIC = {"svg": b"<?xml", "png": b"\x89PNG", "pdf": b"%PDF"}
BROKEN = ("id: broken\ntitle: b\nfamily: semantic\ndomain: d\nvariables:\n"
          "  x: {meaning: m, equation: y + 1}\n")


def _run(*args: str) -> object:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


@pytest.mark.needs_dot
@pytest.mark.parametrize("card", card_params(fast=FAMILY_SAMPLE))  # all in the full suite
def test_every_repository_card_renders_through_dot(card: Path, tmp_path: Path) -> None:
    """Every card's graph goes through dot; PNG (the same dot source, another output
    driver) for one card per family, so the per-card cost is one layout."""
    for fmt in ("svg", "png") if card in FAMILY_SAMPLE else ("svg",):
        result = render_card(card, tmp_path / f"figure.{fmt}", fmt)
        assert not result.diagnostics, f"{card} does not compile: {result.diagnostics[0]}"
        data = (tmp_path / f"figure.{fmt}").read_bytes()
        assert data.startswith(MAGIC[fmt]) and len(data) > 1000


@pytest.mark.needs_dot
@pytest.mark.parametrize("fmt", ["svg", "png", "pdf"])
def test_render_one_card_in_each_format(fmt: str, tmp_path: Path) -> None:
    out = tmp_path / f"clinic.{fmt}"
    result = _run("render", str(GOLDEN / "clinic.yaml"), "-o", str(out), "--format", fmt)
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(MAGIC[fmt])


@pytest.mark.needs_dot
def test_svg_carries_tooltips_for_meanings_and_edge_reasons(tmp_path: Path) -> None:
    out = tmp_path / "clinic.svg"
    assert _run("render", str(GOLDEN / "clinic.yaml"), "-o", str(out)).exit_code == 0
    svg = out.read_text(encoding="utf-8")
    assert "age &#45;&gt; dose: dosing guidelines scale with age" in svg
    assert "bp: systolic blood pressure [measurement]" in svg


@pytest.mark.needs_dot
def test_render_folder_writes_one_figure_per_card_and_reports_bad_cards(tmp_path: Path) -> None:
    cards = tmp_path / "cards"
    (cards / "sub").mkdir(parents=True)
    (cards / "clinic.yaml").write_text((GOLDEN / "clinic.yaml").read_text(encoding="utf-8"))
    (cards / "sub" / "broken.yaml").write_text(BROKEN)
    result = CliRunner().invoke(app, ["render", str(cards), "-o", str(tmp_path / "figs"),
                                      "--format", "png", "--edge-labels"])
    assert result.exit_code == 1
    assert (tmp_path / "figs" / "clinic.png").read_bytes().startswith(MAGIC["png"])
    assert not (tmp_path / "figs" / "sub" / "broken.png").exists()
    assert "broken.yaml:6:" in result.output and "SCM301" in result.output


def test_dot_format_writes_the_dot_text(tmp_path: Path) -> None:
    out = tmp_path / "clinic.dot"
    assert _run("render", str(GOLDEN / "clinic.yaml"), "-o", str(out), "-f", "dot").exit_code == 0
    assert out.read_text(encoding="utf-8") == (GOLDEN / "clinic.dot").read_text(encoding="utf-8")


def test_missing_dot_is_a_clear_message_not_a_traceback(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no `dot` anywhere
    result = CliRunner().invoke(app, ["render", str(GOLDEN / "clinic.yaml"),
                                      "-o", str(tmp_path / "x.svg")])
    assert result.exit_code == 1
    assert "apt-get install graphviz" in result.output and "brew install graphviz" in result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    with pytest.raises(GraphvizNotFound):
        write_figure("digraph {}", tmp_path / "y.svg")


@pytest.mark.needs_dot
@pytest.mark.parametrize("fmt", ["svg", "png", "pdf", "dot"])
def test_the_suffix_of_out_sets_the_format(fmt: str, tmp_path: Path) -> None:
    """``-o x.png`` without ``--format`` writes PNG (it used to write SVG bytes into x.png)."""
    out = tmp_path / f"clinic.{fmt}"
    result = _run("render", str(GOLDEN / "clinic.yaml"), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(MAGIC.get(fmt, b"digraph"))


@pytest.mark.parametrize("out, fmt, message", [
    ("clinic.jpg", None, ".jpg is not one of .svg, .png, .pdf, .dot"),
    ("clinic.png", "svg", "ends in .png but --format is svg"),
    ("clinic", None, "give it a suffix"),
])
def test_a_suffix_that_names_no_format_is_refused(out: str, fmt: str | None, message: str,
                                                  tmp_path: Path) -> None:
    args = ["render", str(GOLDEN / "clinic.yaml"), "-o", str(tmp_path / out)]
    result = CliRunner().invoke(app, args + (["--format", fmt] if fmt else []))
    assert result.exit_code == 2
    assert message in " ".join(result.output.replace("│", " ").split())
    assert not any(tmp_path.iterdir())
