"""``scmspec optimize`` finds each CausalGame card's documented optimum without being told it.

Each search is given only the card, the outcome (``survived``), the direction and the
knobs; the weather scenario also holds its context fixed (Stage 2 weather, the stage the
paper optimises for), which is not the answer. The found design's survival, estimated on
an independent check run, must be within 1 percentage point of the documented value, and
so must the naive (trap) design's, estimated on the same run. Documented values:
REFERENCE.md and CausalGame appendix C.4 table 8 (optima), the cards' descriptions
(naive designs; the paper's antenna table gives 53.2% for the protected antenna).
At 50,000 rows a survival rate's standard error is at most 0.23 points (the zone card's
naive design survives 41.6% against the documented 41%, so the margin is 2.6 standard
errors at worst; each search is deterministic for its seed).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scmspec.cli import app

CARDS = Path(__file__).resolve().parents[2] / "cards" / "causalgame"
POINT = 0.01
ROWS = "50000"

# card, knobs, extra options (context, more designs), naive design, documented survival of
# the optimum and of the naive design
SCENARIOS = {
    "antenna": ("drone_antenna_trap.yaml", "antenna_def", [], "antenna_def=50", 0.82, 0.53),
    "zone": ("drone_deployment_zone_trap.yaml", "shield_def,enhancement_module", ["--top", "8"],
             "shield_def=0,enhancement_module=power_core", 0.80, 0.41),
    # The card: the exact optimum is x_ant = 8.5 at 79% (x_ant = 8 gives about 78%, compared
    # too); the naive design keeps the Stage 1 optimum x_ant = 22 and gets about 50%.
    "weather": ("drone_weather_noise.yaml", "antenna_def,engine_def",
                ["--set", "campaign_stage=stage_2", "--compare", "antenna_def=8,engine_def=50"],
                "antenna_def=22,engine_def=50", 0.79, 0.50),
}


@cache
def search(name: str) -> dict:
    card, knobs, extra, naive, _, _ = SCENARIOS[name]
    result = CliRunner().invoke(app, ["optimize", str(CARDS / card), "--outcome", "survived",
                                      "--maximize", "--knobs", knobs, "--compare", naive,
                                      *extra, "--rows", ROWS, "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_search_finds_the_documented_optimum_and_naive_survival(name: str) -> None:
    found = search(name)
    *_, optimum, naive = SCENARIOS[name]
    assert found["population"] == "all"  # survival is read before selection
    assert found["best"]["estimate"] == pytest.approx(optimum, abs=POINT), found["best"]
    assert found["compared"][0]["estimate"] == pytest.approx(naive, abs=POINT)
    assert found["best"]["se"] < 0.0025 and found["compared"][0]["diff"] < -0.2


def test_the_designs_found_are_the_papers() -> None:
    antenna = search("antenna")["best"]["values"]
    assert antenna == {"antenna_def": 0.0}
    zone = search("zone")["best"]["values"]
    assert zone["enhancement_module"] == 4.0  # signal_filter
    assert zone["shield_def"] >= 25 - 1  # flat from 26.7 up (the 95% attenuation cap)
    weather = search("weather")
    assert 7.5 <= weather["best"]["values"]["antenna_def"] <= 9.5
    assert weather["best"]["values"]["engine_def"] == 50.0
    assert weather["compared"][1]["estimate"] == pytest.approx(0.78, abs=POINT)


def test_the_zone_runner_ups_show_the_plateau_and_the_other_modules_lose() -> None:
    found = search("zone")
    modules = [r["design"] for r in found["runners"]]
    assert any("signal_filter" not in d for d in modules)
    for r in found["runners"]:
        if "signal_filter" not in r["design"]:
            assert r["diff"] < -0.03 and abs(r["diff"]) > 4 * r["diff_se"]
