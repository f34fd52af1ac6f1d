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
    """Compile three cards (one released, one generated, one broken) and build the site."""
    root = tmp_path_factory.mktemp("catalogue")
    cards = root / "cards"
    cards.mkdir()
    (cards / "clinic.yaml").write_text((GOLDEN / "clinic.yaml").read_text(encoding="utf-8"))
    (cards / "gen8.yaml").write_text(synthetic_card(8, seed=3, card_id="gen8"))
    (cards / "broken.yaml").write_text("id: broken\ntitle: b\nfamily: semantic\ndomain: d\n"
                                       "variables:\n  x: {meaning: m, equation: y + 1}\n")
    overrides = ProtocolOverrides(n_obs=400, n_int_obs=300, n_int=150, replicates=1)
    results = build([cards], root / "data", overrides)
    result = build_report(root / "data", root / "site")
    return Catalogue(root / "data", root / "site", result,
                     tuple(sorted(r.id or r.path for r in results)))
