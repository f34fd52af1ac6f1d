"""Read only what was asked: no file outside the cards' folder ever reaches a diagnostic.

Before, a card that was a link to ``/proc/self/environ`` printed the process environment
(a planted token included) as "card lines", a grid card's ``base:`` read any absolute path
and reported its key names, ``validate`` on a FIFO hung and on ``/dev/zero`` read the whole
stream, and an edge reason starting with ``=HYPERLINK(`` became a spreadsheet formula.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scmspec.cli import app
from tests.parallel.cards import card_text

TOKEN = "scmspec-planted-token-4f9d2c"


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fail (instead of hanging the suite) when the block takes longer than ``seconds``."""
    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"took longer than {seconds} s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _validate(*args: str) -> tuple[int, str]:
    with deadline(60):
        result = CliRunner().invoke(app, ["validate", *args])
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def test_a_card_linked_to_the_process_environment_is_refused_unread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCMSPEC_TEST_SECRET", TOKEN)
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "good.yaml").write_text(card_text("good", [("a", "b")]), encoding="utf-8")
    (cards / "evil.yaml").symlink_to("/proc/self/environ")
    outside = tmp_path / "outside.yaml"
    outside.write_text(f"secret: {TOKEN}\n", encoding="utf-8")
    (cards / "sneaky.yaml").symlink_to(outside)
    code, output = _validate(str(cards))
    assert code == 1 and TOKEN not in output
    assert output.count("SCM114") >= 2 and "par_good" in output
    code, output = _validate(str(cards / "evil.yaml"))  # named on the command line too
    assert code == 1 and TOKEN not in output and "SCM114" in output


def test_a_link_to_a_card_inside_the_folder_is_read(tmp_path: Path) -> None:
    cards = tmp_path / "cards"
    (cards / "real").mkdir(parents=True)
    (cards / "real" / "c.yaml").write_text(card_text("linked", [("a", "b")]))
    (cards / "alias.yaml").symlink_to(cards / "real" / "c.yaml")
    code, output = _validate(str(cards / "alias.yaml"))
    assert "SCM114" not in output


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_special_files_are_refused_before_reading(tmp_path: Path, kind: str) -> None:
    if kind == "fifo":
        path = tmp_path / "card.yaml"
        os.mkfifo(path)  # opening it for reading would wait for a writer forever
    elif kind == "device":
        path = Path("/dev/zero")  # reading it never ends
    else:
        path = tmp_path / "folder.yaml"
        path.mkdir()
        (path / "inner.yaml").write_text(card_text("inner", [("a", "b")]))
    code, output = _validate(str(path))
    if kind == "folder":  # a folder is walked, not read
        assert "par_inner" in output
    else:
        assert code == 1 and "SCM113" in output


def test_a_huge_card_is_refused_after_reading_only_the_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCMSPEC_MAX_CARD_BYTES", "1000")
    path = tmp_path / "big.yaml"
    path.write_text("# " + "x" * 5000 + "\n" + card_text("big", [("a", "b")]))
    code, output = _validate(str(path))
    assert code == 1 and "SCM102" in output and "more than 1000 bytes" in output


def _grid(folder: Path, base: str) -> Path:
    grid = folder / "suite.grid.yaml"
    grid.write_text(f"grid: 1\nid: suite\ntitle: A suite\nbase: {base!r}\n"
                    "protocols: [default]\n")
    return grid


@pytest.mark.parametrize("base", ["ABS", "../secret.grid.yaml", "suite.grid.yaml"])
def test_a_grid_base_may_not_leave_its_folder_or_loop(tmp_path: Path, base: str) -> None:
    secret = tmp_path / "secret.grid.yaml"
    secret.write_text(f"grid: 1\n{TOKEN}_key: 1\n", encoding="utf-8")
    cards = tmp_path / "cards"
    cards.mkdir()
    grid = _grid(cards, str(secret) if base == "ABS" else base)
    code, output = _validate(str(grid))
    assert code == 1 and "SCM704" in output and TOKEN not in output
    if base == "suite.grid.yaml":
        assert "loop" in output and "nesting" not in output
    else:
        assert "outside this grid card's folder" in output
        if base != "ABS":  # the message adds no machine path the card did not hold
            assert str(secret) not in output


def test_text_cells_that_spreadsheets_would_run_are_neutralised(tmp_path: Path) -> None:
    text = card_text("formula", [("a", "b")]).replace(
        "reason: a drives b", "reason: '=HYPERLINK(\"http://evil.example\",\"click\")'")
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "c.yaml").write_text(text, encoding="utf-8")
    result = CliRunner().invoke(app, ["compile", str(tmp_path / "cards"), "--out",
                                      str(tmp_path / "data"), "--no-gates"])
    assert result.exit_code == 0, result.output
    edges = (tmp_path / "data" / "par_formula" / "graph" / "edges.csv").read_text()
    assert "'=HYPERLINK(" in edges and ",=HYPERLINK" not in edges
