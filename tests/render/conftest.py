"""Fixtures for figure and catalogue tests: generated cards and one compiled catalogue."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from scmspec.build import ProtocolOverrides, build
from scmspec.render.report import ReportResult, build_report

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "render"
ROLES = ("input", "setting", "process", "process", "measurement", "readout", "flag", "outcome",
         "formula")


def synthetic_card(n: int, seed: int = 0, card_id: str | None = None) -> str:
    """YAML of an n-variable linear-Gaussian card with mixed roles, latents and interventions.

    Names are long (``v07_level``) on purpose: label width is what crowds a layout.
    """
    rng = random.Random(seed)
    names = [f"v{i:02d}_{rng.choice(['temp', 'rate', 'level', 'dose', 'load'])}" for i in range(n)]
    variables: dict[str, Any] = {}
    edges = []
    for i, v in enumerate(names):
        parents = [u for u in names[:i] if rng.random() < min(0.12, 3 / max(i, 1))]
        if i and not parents:
            parents = [names[rng.randrange(i)]]
        # One unit for all: a linear mechanism with plain weights keeps its parents' unit.
        spec: dict[str, Any] = {"meaning": f"quantity {v}", "unit": "hPa",
                                "observed": i == 0 or rng.random() > 0.1}
        if parents:
            spec.update(role=rng.choice(ROLES), noise={"kind": "normal", "sd": 1.0},
                        mechanism={"kind": "linear", "weights": {u: 0.5 for u in parents}})
            edges += [{"from": u, "to": v, "reason": f"{u} drives {v}"} for u in parents]
        else:
            spec.update(distribution={"kind": "normal"})
        if rng.random() < 0.3 and spec["observed"]:
            spec["intervention"] = {"meaning": f"set {v}"}
        variables[v] = spec
    doc = {"id": card_id or f"gen{n}", "title": f"Generated {n}", "family": "synthetic",
           "domain": "test", "tags": ["generated"], "variables": variables, "edges": edges}
    return yaml.safe_dump(doc, sort_keys=False)


# A card that crowds the page: a long id, many long tags, long variable names, a sum of
# eight long terms and a long fraction (what the catalogue's layout must wrap).
_LONG = ["governor_no_load_frequency_setpoint", "excitation_voltage_at_the_rheostat",
         "connected_village_load_demand", "lagging_load_power_factor",
         "rotor_winding_temperature_reading", "stator_winding_temperature_reading",
         "rtd_lead_resistance_of_the_cable", "measured_line_to_line_voltage"]
WIDE = "\n".join([
    "id: sem_layout_stress_card_with_a_very_long_identifier_for_wrapping",
    "title: A card that crowds every column of the catalogue",
    "family: semantic",
    "domain: energy systems",
    "tags: [instrument-calibration, virtual-temperature, crowdsourcing, latent-confounder,"
    " sensor-fusion, hypsometric-reduction, measurement-error, distribution-shift,"
    " selection-bias, survivorship-with-a-long-tag-name]",
    "variables:",
    *(f"  {v}: {{meaning: input {i} with a long name, distribution: {{kind: normal}}}}"
      for i, v in enumerate(_LONG)),
    "  total_generated_active_power_output:",
    "    meaning: a long sum of long terms",
    "    equation: " + " + ".join(f"0.{i + 1} * {v}" for i, v in enumerate(_LONG)),
    "    noise: {kind: normal, sd: 1.0}",
    "  normalised_efficiency_ratio_of_the_plant:",
    "    meaning: a long fraction",
    f"    equation: ({_LONG[0]} + {_LONG[1]} + total_generated_active_power_output) / "
    f"(exp({_LONG[3]}) + exp({_LONG[4]}) + 1)",
    "    intervention: {meaning: retune the plant controller to a fixed efficiency setpoint}",
    "edges:",
    *(f"  - {{from: {v}, to: total_generated_active_power_output, reason: drives}}"
      for v in _LONG),
    *(f"  - {{from: {v}, to: normalised_efficiency_ratio_of_the_plant, reason: drives}}"
      for v in (*_LONG[:2], *_LONG[3:5], "total_generated_active_power_output")),
]) + "\n"
WIDE_ID = "sem_layout_stress_card_with_a_very_long_identifier_for_wrapping"


@pytest.fixture(scope="session")
def make_card() -> Callable[..., str]:
    return synthetic_card


@dataclass(frozen=True)
class Catalogue:
    """A compiled data folder and the site built from it."""

    data: Path
    site: Path
    result: ReportResult
    ids: tuple[str, ...]


@pytest.fixture(scope="session")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> Catalogue:
    """Compile four cards (one released, one generated, one crowding the layout, one broken)
    and build the site."""
    root = tmp_path_factory.mktemp("catalogue")
    cards = root / "cards"
    cards.mkdir()
    (cards / "clinic.yaml").write_text((GOLDEN / "clinic.yaml").read_text(encoding="utf-8"))
    (cards / "gen8.yaml").write_text(synthetic_card(8, seed=3, card_id="gen8"))
    (cards / "wide.yaml").write_text(WIDE)
    (cards / "broken.yaml").write_text("id: broken\ntitle: b\nfamily: semantic\ndomain: d\n"
                                       "variables:\n  x: {meaning: m, equation: y + 1}\n")
    overrides = ProtocolOverrides(n_obs=400, n_int_obs=300, n_int=150, replicates=1)
    results = build([cards], root / "data", overrides)
    result = build_report(root / "data", root / "site")
    return Catalogue(root / "data", root / "site", result,
                     tuple(sorted(r.id or r.path for r in results)))
