"""Game cards as compiled SCM folders (spec.json only: all an environment reads)."""

from __future__ import annotations

from pathlib import Path

import pytest

import scmspec
from scmspec.api import spec_document
from scmspec.textio import write_json

CARDS = Path(__file__).resolve().parents[2] / "cards" / "causalgame"
GAMES = ("drone_antenna_trap", "drone_deployment_zone_trap", "drone_weather_noise")


@pytest.fixture(scope="session")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("games")
    out = {}
    for name in GAMES:
        scm = scmspec.compile_file(CARDS / f"{name}.yaml")
        (root / name).mkdir()
        write_json(root / name / "spec.json", spec_document(scm))
        out[name] = root / name
    return out
