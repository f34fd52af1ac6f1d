"""Where an environment's SCM comes from: an SCM folder, a pool, a release package."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from scmspec import Environment
from scmspec.environment.config import ConfigError
from scmspec.environment.source import open_scm

ANTENNA = "drone_antenna_trap"


def test_a_pool_and_a_release_open_the_same_scm(games: dict[str, Path], tmp_path: Path) -> None:
    _, spec_hash = open_scm(games[ANTENNA])
    pool = tmp_path / "pool"
    shutil.copytree(games[ANTENNA], pool / ANTENNA)
    (pool / "manifest.json").write_text(json.dumps({"scms": [{"id": ANTENNA}]}))
    assert open_scm(pool, ANTENNA)[1] == spec_hash
    release = tmp_path / "release"
    shutil.copytree(games[ANTENNA], release / "public" / ANTENNA)
    (release / "release.json").write_text(json.dumps(
        {"scms": [{"id": ANTENNA, "part": "public"}, {"id": "hidden", "part": "reserved"}]}))
    assert open_scm(release, ANTENNA)[1] == spec_hash
    a = Environment.open(release, ANTENNA, seed=4).observe(50)
    b = Environment.open(games[ANTENNA], seed=4).observe(50)
    assert a.equals(b)
    with pytest.raises(ConfigError, match="reserved: its spec is in the truth archive"):
        open_scm(release, "hidden")
    with pytest.raises(ConfigError, match="holds several SCMs"):
        open_scm(pool)
    with pytest.raises(ConfigError, match="no SCM 'nope'"):
        open_scm(release, "nope")
    with pytest.raises(ConfigError, match="does not exist"):
        open_scm(tmp_path / "missing")
