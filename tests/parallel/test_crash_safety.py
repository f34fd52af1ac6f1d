"""Crash safety: SIGKILL mid-compile never leaves a half-written dataset under its final name,
and a re-run yields the same tree as an uninterrupted run; write failures are clear errors."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scmspec.build import write as write_module
from scmspec.cli import app
from tests.parallel.cards import tree, write_cards

SCMSPEC = [sys.executable, "-c", "from scmspec.cli import main; main()"]
COMPLETE = {"spec.json", "metadata.json", "gates.json", "graph/adjacency.csv",
            "graph/adjacency_full.csv", "graph/edges.csv"}
PER_REP = {"obs.csv", "obsint.csv", "obsint_mask.csv", "obsint_records.csv"}


def _compile(cards: Path, out: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([*SCMSPEC, "compile", str(cards), "--out", str(out), "--no-gates"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _assert_complete(out: Path) -> None:
    for folder in (p for p in out.iterdir() if p.is_dir() and not p.name.startswith(".")):
        files = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
        assert COMPLETE <= files, folder
        for r in (0, 1):
            assert {f"rep-{r}/{name}" for name in PER_REP} <= files, folder


@pytest.mark.slow
def test_sigkill_then_rerun_equals_uninterrupted(tmp_path: Path) -> None:
    cards = write_cards(tmp_path / "cards", n_obs=60_000)
    reference = tmp_path / "reference"
    assert _compile(cards, reference).wait(timeout=600) in (0, 1)  # 1: a gate may reject
    out = tmp_path / "out"
    proc = _compile(cards, out)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and proc.poll() is None:
        if out.is_dir() and any(p.is_dir() and not p.name.startswith(".") for p in out.iterdir()):
            break
        time.sleep(0.02)
    killed = proc.poll() is None
    if killed:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert killed, "the compile finished before it could be killed; make the cards bigger"
    _assert_complete(out)
    assert not (out / "manifest.json").exists()
    _compile(cards, out).wait(timeout=600)
    _assert_complete(out)
    assert tree(out) == tree(reference)


def test_unwritable_output_is_a_one_line_error(tmp_path: Path) -> None:
    cards = write_cards(tmp_path / "cards")
    blocker = tmp_path / "file.txt"
    blocker.write_text("not a folder")
    result = CliRunner().invoke(app, ["compile", str(cards), "--out", str(blocker / "sub")])
    assert result.exit_code == 1
    assert "cannot write to output folder" in result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_full_disk_names_the_card_and_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    cards = write_cards(tmp_path / "cards")
    out = tmp_path / "out"

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(write_module, "write_csv", full)
    result = CliRunner().invoke(app, ["compile", str(cards), "--out", str(out), "--no-gates"])
    assert result.exit_code == 1, result.output
    assert "error[SCM801]" in result.output and "disk is full" in result.output
    assert "par_chain" in result.output
    doc = json.loads((out / "manifest.json").read_text())
    assert doc["counts"]["failed"] == 4
    assert all(e["diagnostics"][0]["code"] == "SCM801" for e in doc["scms"])
    assert not [p for p in out.iterdir() if p.name.startswith(("par_", ".tmp-"))]
