"""The same cards give byte-identical released files wherever they sit and however named.

Before, ``gates.json`` and the manifest recorded each finding's location as the card path
typed on the command line, so the same cards compiled from two folders (or by a relative
and an absolute path) gave different files. Card locations are now recorded relative to
the folder the card was found in.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scmspec.cli import app
from tests.parallel.cards import tree, write_cards


def test_two_folders_relative_and_absolute_give_identical_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = write_cards(tmp_path / "here" / "cards")
    second = tmp_path / "elsewhere" / "deeper" / "library"
    shutil.copytree(first, second)
    monkeypatch.chdir(tmp_path / "here")
    runs = {"relative": ("cards", tmp_path / "out-a"), "absolute": (str(second),
                                                                    tmp_path / "out-b")}
    for source, out in runs.values():
        result = CliRunner().invoke(app, ["compile", source, "--out", str(out)])
        assert result.exit_code == 1, result.output  # two of the cards are rejected (depth 1)
    a, b = (tree(out) for _, out in runs.values())
    assert a == b
    gates = json.loads((tmp_path / "out-a" / "par_fork" / "gates.json").read_text())
    located = [g["location"] for g in gates if g["location"]]
    assert located and all(loc.startswith("fork.yaml:") for loc in located)
    manifest = (tmp_path / "out-a" / "manifest.json").read_text()
    assert str(tmp_path) not in manifest and "cards/" not in manifest
