"""A parallel build of a synthetic grid: the workers draw the cards, the parent only plans.

With ``--workers 2`` the parent ships grid configurations unmaterialised and runs the pool
gates on summaries the workers send back (scmspec.build.pool). These tests make the parent
unable to materialise or compile a card (the workers are fresh processes, so they can) and
check that the outputs equal a serial build's, byte for byte, and that a second run reuses
every dataset.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scmspec.build import ProtocolOverrides, driver, evaluate
from scmspec.build.driver import compile_cards
from scmspec.synthetic import build_hooks
from tests.parallel.cards import tree

ROOT = Path(__file__).resolve().parents[2]
GRID = ROOT / "cards" / "synthetic" / "causalarena.grid.yaml"
SLICE = "d=10,index=0|1,graph=chain|collider_rich"
SMALL = ProtocolOverrides(replicates=1, n_obs=300, n_int_obs=150, n_int=50)


def _refuse(*_: Any, **__: Any) -> Any:
    raise AssertionError("the parent process drew or compiled a card")


@pytest.fixture(scope="module")
def serial(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("serial") / "out"
    report = compile_cards([GRID], out, SMALL, select=SLICE)
    assert len(report.results) == 4 and all(r.status != "failed" for r in report.results)
    return tree(out)


def test_workers_draw_the_cards_and_write_the_serial_bytes(
        serial: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for module, name in ((build_hooks, "materialize"), (build_hooks, "materialise"),
                         (driver, "compile_card"), (evaluate, "compile_card")):
        monkeypatch.setattr(module, name, _refuse)
    out = tmp_path / "out"
    report = compile_cards([GRID], out, SMALL, select=SLICE, workers=2)
    assert [r.status for r in report.results].count("failed") == 0, report.results
    assert tree(out) == serial
    doc = json.loads((out / "manifest.json").read_text())
    assert [e["id"] for e in doc["scms"]] == sorted(e["id"] for e in doc["scms"])

    again = compile_cards([GRID], out, SMALL, select=SLICE, workers=2)
    assert again.reused == {r.path for r in report.results}
    assert tree(out) == serial


@pytest.mark.slow  # two more worker processes; the full suite and CI run it
def test_the_pool_gates_see_every_card(tmp_path: Path) -> None:
    out = tmp_path / "out"
    compile_cards([GRID], out, SMALL, select=SLICE, workers=2)
    for folder in sorted(p for p in out.iterdir() if p.is_dir() and not p.name.startswith(".")):
        gates = json.loads((folder / "gates.json").read_text())
        (dup,) = [g for g in gates if g["gate"] == "duplicate_topology"]
        assert "among 4" in dup["detail"], dup
