"""``scmspec optimize``: usage errors are exit 2 with a reason, card errors exit 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scmspec.cli import app

ROOT = Path(__file__).resolve().parents[2]
ZONE = str(ROOT / "cards" / "causalgame" / "drone_deployment_zone_trap.yaml")
ANTENNA = str(ROOT / "cards" / "causalgame" / "drone_antenna_trap.yaml")
FAST = ["--rows", "500", "--budget", "12"]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["optimize", *args], catch_exceptions=False)
    return result.exit_code, result.output


@pytest.mark.parametrize("args,message", [
    (["--outcome", "survived", "--knobs", "shield_dfe"], "did you mean 'shield_def'"),
    (["--outcome", "survived", "--knobs", "lost_frames"], "declares no 'intervention:'"),
    (["--outcome", "survivd", "--knobs", "shield_def"], "not a variable"),
    (["--outcome", "enhancement_module", "--knobs", "shield_def"], "categorical"),
    (["--outcome", "survived", "--knobs", "shield_def,shield_def"], "named twice"),
    (["--outcome", "survived", "--knobs", "enhancement_module", "--budget", "3"], "budget"),
    (["--outcome", "survived", "--knobs", "shield_def", "--set", "shield_def=1"], "both"),
    (["--outcome", "survived", "--knobs", "shield_def", "--compare", "enhancement_module=x"],
     "no value 'x'"),
    (["--outcome", "survived", "--knobs", "shield_def", "--compare", "shield_def"], "name=value"),
    (["--outcome", "survived", "--knobs", "shield_def", "--population", "some"], "population"),
])
def test_usage_errors_exit_2_with_the_reason(args: list[str], message: str) -> None:
    code, out = run(ZONE, *FAST, *args)
    assert code == 2 and message in " ".join(out.replace("│", " ").split()), out


def test_a_broken_card_exits_1_with_its_location(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(Path(ANTENNA).read_text().replace("equation: drag_load * wind_speed**2",
                                                     "equation: drag_load * wind_sped**2"))
    code, out = run(str(bad), "--outcome", "survived", "--knobs", "antenna_def", *FAST)
    assert code == 1 and "bad.yaml:" in out


def test_a_non_survival_outcome_is_read_among_selected_rows() -> None:
    code, out = run(ANTENNA, "--outcome", "hull_damage", "--minimize", "--knobs", "body_def",
                    *FAST, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["population"] == "selected" and doc["maximize"] is False
    code, out = run(ANTENNA, "--outcome", "hull_damage", "--minimize", "--knobs", "body_def",
                    "--population", "all", *FAST, "--json")
    every = json.loads(out)
    assert every["population"] == "all"
    assert every["best"]["values"]["body_def"] > 40  # armour helps the whole fleet ...
    assert every["best"]["estimate"] > doc["best"]["estimate"]  # ... survivors are less hurt


def test_the_text_report_names_roles_and_standard_errors() -> None:
    code, out = run(ZONE, "--outcome", "survived", "--knobs", "shield_def,enhancement_module",
                    "--compare", "shield_def=0,enhancement_module=power_core", "--rows", "2000",
                    "--budget", "20")
    assert code == 0
    assert "best" in out and "runner-up" in out and "compared" in out and "+-" in out
    assert "before selection" in out and "20 designs searched" in out


def test_a_budget_below_the_smallest_grid_is_refused() -> None:
    code, out = run(ZONE, "--outcome", "survived", "--knobs", "shield_def,enhancement_module",
                    "--rows", "500", "--budget", "9")
    assert code == 2 and "smallest grid" in " ".join(out.replace("│", " ").split())
