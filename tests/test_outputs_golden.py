"""Compiled outputs are byte-identical to the recorded ones, file by file.

``tests/golden/outputs/cases.json`` names a sample of cards (semantic, formula, a CausalGame
drone card and a slice of the synthetic CausalArena grid) and the compile options;
``hashes.json`` holds the sha256 of every file those compiles wrote, recorded with the code
of main before the speed work (issue 16): the fast CSV writer, lazy imports, caches and
Parquet output must not move one byte of a CSV (nor of the JSON files). A compile with
``--format both`` must write the same CSV files as the default. ``--update-golden`` rewrites
``hashes.json``: only do that for a change that is meant to change data, and say so.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "tests" / "golden" / "outputs"
CASES: dict[str, dict[str, list[str]]] = json.loads((HERE / "cases.json").read_text())


def _compile(case: dict[str, list[str]], out: Path, *extra: str) -> dict[str, str]:
    done = subprocess.run([sys.executable, "-m", "scmspec", "compile", *case["paths"], "--out",
                           str(out), *case["args"], *extra], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode in (0, 1), done.stderr
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file() and ".build" not in p.parts}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_outputs_match_the_recorded_hashes(name: str, tmp_path: Path,
                                           update_golden: bool) -> None:
    got = _compile(CASES[name], tmp_path / name)
    recorded = json.loads((HERE / "hashes.json").read_text())
    if update_golden:
        recorded[name] = got
        (HERE / "hashes.json").write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    assert sorted(got) == sorted(recorded[name])
    changed = [f for f in got if got[f] != recorded[name][f]]
    assert changed == []


@pytest.mark.slow
def test_workers_write_the_recorded_bytes(tmp_path: Path) -> None:
    """With workers the parent ships grid configurations unmaterialised and runs the pool
    gates on the workers' summaries: the files must not move a byte."""
    got = _compile(CASES["synthetic"], tmp_path / "synthetic", "--workers", "2")
    recorded = json.loads((HERE / "hashes.json").read_text())["synthetic"]
    assert got == recorded
