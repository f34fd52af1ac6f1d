"""``scmspec compile`` on a folder holding one bad and one good card.

The bad card must not stop the good one: the command exits 1, writes the good
card's dataset, records the bad card as failed in manifest.json with its
location, and prints ``file:LINE:COL`` diagnostics (never a traceback) on stderr.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scmspec.cli import app

GOOD = """\
id: good_card
title: A good card
family: semantic
domain: cli test
variables:
  x: {meaning: cause, distribution: {kind: normal}, intervention: {meaning: set x}}
  y: {meaning: effect, equation: 2 * x, noise: {kind: normal, sd: 0.5}}
edges:
  - {from: x, to: y, reason: x drives y}
"""

BAD = """\
id: bad_card
title: A bad card
family: semantic
domain: cli test
variables:
  x: {meaning: cause, distribution: {kind: normal}}
  y: {meaning: effect, equation: 2 * x + gain}
edges:
  - {from: x, to: y, reason: x drives y}
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    root = tmp_path_factory.mktemp("cli")
    cards = root / "cards"
    cards.mkdir()
    (cards / "good.yaml").write_text(GOOD, encoding="utf-8")
    (cards / "bad.yaml").write_text(BAD, encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        result = CliRunner().invoke(
            app, ["compile", "cards", "--out", "data", "--n-obs", "200", "--n-int-obs", "100",
                  "--n-int", "60", "--replicates", "1", "--no-gates"], catch_exceptions=False)
    return root, result


def test_exit_code_is_one(run: tuple[Path, object]) -> None:
    _, result = run
    assert result.exit_code == 1, result.output  # type: ignore[attr-defined]


def test_stderr_names_the_file_line_and_column(run: tuple[Path, object]) -> None:
    _, result = run
    stderr = result.stderr  # type: ignore[attr-defined]
    assert "cards/bad.yaml:7:42: error[SCM301]" in stderr
    assert "    7 |   y: {meaning: effect, equation: 2 * x + gain}" in stderr
    assert "^^^^" in stderr
    assert "Traceback" not in stderr and "Traceback" not in result.output  # type: ignore[attr-defined]


def test_the_good_card_is_written(run: tuple[Path, object]) -> None:
    root, _ = run
    folder = root / "data" / "good_card"
    assert (folder / "spec.json").is_file()
    assert (folder / "rep-0" / "obs.csv").is_file()
    lines = (folder / "rep-0" / "obs.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "x,y" and len(lines) == 201
    assert not (root / "data" / "bad_card").exists()


def test_manifest_records_the_failure_with_its_location(run: tuple[Path, object]) -> None:
    root, _ = run
    manifest = json.loads((root / "data" / "manifest.json").read_text(encoding="utf-8"))
    by_card = {e["card"]: e for e in manifest["scms"]}
    # Recorded relative to the folder the cards were found in (cards/), not the cwd.
    bad, good = by_card["bad.yaml"], by_card["good.yaml"]
    assert good["status"] == "released" and good["id"] == "good_card"
    assert bad["status"] == "failed"
    (diag,) = bad["diagnostics"]
    assert diag["code"] == "SCM301"
    assert diag["location"] == "bad.yaml:7:42"
    assert "gain" in diag["message"]
    assert manifest["counts"]["failed"] == 1 and manifest["counts"]["released"] == 1


def test_validate_takes_split_sizes_for_a_tail_check(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from scmspec.cli import app

    card = Path(__file__).resolve().parents[2] / "cards" / "formula" / "barometric_slp.yaml"
    result = CliRunner().invoke(app, ["validate", str(card), "--n-obs", "20000",
                                      "--n-int-obs", "0", "--n-int", "10000", "--json"])
    assert result.exit_code == 0, result.output
    assert "(n = 20000)" in result.output


def test_each_cards_findings_follow_its_own_status_line(tmp_path: Path) -> None:
    """A card with an error, a card failing a blocking gate and a good card compiled together:
    every finding (diagnostic on stderr, gate failure on stdout) is printed after the status
    line of its own card and before the next card's."""
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "a.yaml").write_text(BAD, encoding="utf-8")
    (cards / "b.yaml").write_text(LONE.replace("id: good_card", "id: lonely"), encoding="utf-8")
    (cards / "c.yaml").write_text(GOOD, encoding="utf-8")
    result = CliRunner().invoke(app, ["compile", str(cards), "--out", str(tmp_path / "data"),
                                      "--replicates", "1"])
    lines = result.output.splitlines()

    def where(text: str, prefix: str = "") -> int:
        return next(i for i, line in enumerate(lines) if text in line and
                    line.startswith(prefix))

    bad, lonely, good = where("bad_card", "failed"), where("lonely", "rejected"), \
        where("good_card", "re")
    assert bad < where("SCM301") < lonely < where("'lone' is isolated") < good, lines


LONE = GOOD.replace("variables:\n", "variables:\n  lone: {meaning: alone, distribution: "
                    "{kind: normal}}\n")
