"""``scmspec.Environment``: an episode an agent can hold without holding the SCM.

The object keeps one opaque key; the episode (SCM, budget, log) lives in this module's
table, reached only through the methods below. Nothing reachable from the object's
attributes is the spec, the graph or the plan, and the object refuses to be pickled or
copied. This keeps an honest agent honest; it is no sandbox (a program in the same process
can read any memory): to seal the truth from an agent, run ``scmspec serve`` and give the
agent only the URL.
"""

from __future__ import annotations

import secrets
import weakref
from pathlib import Path
from typing import Any, NoReturn

import pandas as pd

from scmspec.environment.config import EnvironmentConfig, EnvironmentError
from scmspec.environment.episode import Episode
from scmspec.environment.source import open_scm

_EPISODES: dict[str, Episode] = {}


class Environment:
    """A sealed SCM an agent queries under a budget (docs/environment.md).

    Example (``scmspec compile cards/causalgame --out data`` first):
        >>> env = Environment.open("data/drone_antenna_trap", seed=7)  # doctest: +SKIP
        >>> survivors = env.intervene({"antenna_def": 0}, 500)  # doctest: +SKIP
        >>> survivors.attrs["drawn"], len(survivors) < 500  # doctest: +SKIP
        (500, True)
    """

    __slots__ = ("_key", "__weakref__")
    _key: str

    def __init__(self, episode: Episode) -> None:
        key = secrets.token_hex(16)
        _EPISODES[key] = episode
        object.__setattr__(self, "_key", key)
        weakref.finalize(self, _forget, key)

    @classmethod
    def open(cls, path: str | Path, scm: str | None = None, *, seed: int | None = None,
             config: EnvironmentConfig | dict[str, Any] | str | Path | None = None,
             log: str | Path | None = None, truth: str | Path | None = None) -> Environment:
        """An episode on a compiled SCM folder, a pool (``scm``: its id) or a release.

        ``seed``: the episode seed (default: fresh from the operating system, recorded in
        the log); ``config``: an :class:`EnvironmentConfig`, its JSON or a JSON file;
        ``log``: a new JSON-lines file for the episode log; ``truth``: a release's truth
        archive, for a reserved SCM.
        """
        scm_obj, spec_hash = open_scm(path, scm, truth)
        return cls(Episode(scm_obj, spec_hash, _config(config), seed, log))

    # -- queries ---------------------------------------------------------------------------
    def observe(self, n: int) -> pd.DataFrame:
        """Draw n units without intervention; the rows that pass selection come back."""
        return _episode(self).observe(n)

    def intervene(self, design: dict[str, Any], n: int) -> pd.DataFrame:
        """Draw n units under ``design`` ({target: value, level name or handler})."""
        return _episode(self).intervene(design, n)

    def submit_graph(self, adjacency: Any, variables: list[str] | None = None
                     ) -> dict[str, Any]:
        """End the episode with a directed adjacency (row -> column); the scores."""
        return _episode(self).submit_graph(adjacency, variables)

    def submit_design(self, values: dict[str, Any]) -> dict[str, Any]:
        """End the episode with a design of every knob; its value against the optimum."""
        return _episode(self).submit_design(values)

    def close(self) -> None:
        """End the episode without a submission (logged as truncated)."""
        _episode(self).close()

    # -- what may be known -----------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """Variables, allowed targets with their ranges or levels, budget and goal."""
        return _episode(self).describe()

    @property
    def budget(self) -> dict[str, Any]:
        return _episode(self).budget_status()

    @property
    def status(self) -> str:
        return _episode(self).status

    @property
    def seed(self) -> int:
        return _episode(self).seed

    @property
    def log(self) -> list[dict[str, Any]]:
        """The episode's events so far (copies)."""
        return [dict(e) for e in _episode(self).events]

    def __enter__(self) -> Environment:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Environment {self.status} budget={self.budget}>"

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("an Environment is read-only")

    def __reduce__(self) -> NoReturn:
        raise TypeError("an Environment cannot be pickled or copied (the SCM stays sealed)")


def _episode(env: Environment) -> Episode:
    """The episode behind an environment (a function, not an attribute of the object)."""
    episode = _EPISODES.get(object.__getattribute__(env, "_key"))
    if episode is None:
        raise EnvironmentError("this environment is gone")
    return episode


def _forget(key: str) -> None:
    episode = _EPISODES.pop(key, None)
    if episode is not None:
        episode.close("the environment object was discarded")


def _config(config: EnvironmentConfig | dict[str, Any] | str | Path | None) -> EnvironmentConfig:
    if config is None:
        return EnvironmentConfig()
    if isinstance(config, EnvironmentConfig):
        return config
    if isinstance(config, dict):
        return EnvironmentConfig.from_json(config)
    return EnvironmentConfig.read(config)
