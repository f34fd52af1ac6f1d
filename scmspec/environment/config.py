"""What an episode allows and charges: the budget, the costs, the design goal, and the errors.

An :class:`EnvironmentConfig` is plain data (JSON in, JSON out) so that the episode log can
carry it and a replay can rebuild the same episode. Every refusal is an
:class:`EnvironmentError` with a short machine code (``unknown_target``, ``out_of_range``,
``budget_exhausted``, ...), a message that says what is wrong and how to fix it, and the HTTP
status ``scmspec serve`` answers with (docs/environment.md lists them).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from scmspec.errors import ScmspecError

MAX_ROWS_PER_QUERY = 100_000  # one query's rows (drawn units); the server lowers it
DESIGN_ROWS = 20_000  # Monte Carlo rows of a design's true value (and of the optimum search)


class EnvironmentError(ScmspecError):  # noqa: A001 - scoped to this package
    """A query or submission the episode refuses; ``code`` and ``status`` name the refusal."""

    code = "invalid_request"
    status = 422

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message, self.hint = message, hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message

    def payload(self) -> dict[str, Any]:
        """The JSON body of the refusal (no traceback, no internals)."""
        out: dict[str, Any] = {"error": self.code, "message": self.message}
        if self.hint:
            out["hint"] = self.hint
        return out

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.message, self.hint))


class UnknownTargetError(EnvironmentError):
    code = "unknown_target"


class OutOfRangeError(EnvironmentError):
    code = "out_of_range"


class BudgetExhaustedError(EnvironmentError):
    code, status = "budget_exhausted", 403


class EpisodeFinishedError(EnvironmentError):
    code, status = "episode_finished", 409


class ConfigError(EnvironmentError):
    code, status = "invalid_config", 400


@dataclass(frozen=True)
class Budget:
    """Row and query budget, with costs per kind of row.

    A query of n rows costs ``n * observe_row`` (observational) or
    ``n * (intervene_row + sum of target_row[t] for each target t)`` (interventional); rows
    are units *drawn* (drones flown), whether or not selection keeps them.

    Example:
        >>> Budget(rows=1000, target_row={"a": 0.5}).cost("intervene", 10, ["a"])
        15.0
    """

    rows: float = 10_000.0
    queries: int = 50
    observe_row: float = 1.0
    intervene_row: float = 1.0
    target_row: dict[str, float] = field(default_factory=dict)
    max_rows_per_query: int = MAX_ROWS_PER_QUERY

    def cost(self, kind: str, n: int, targets: list[str] | tuple[str, ...] = ()) -> float:
        per_row = self.observe_row if kind == "observe" else (
            self.intervene_row + sum(self.target_row.get(t, 0.0) for t in targets))
        return float(n * per_row)


@dataclass(frozen=True)
class DesignGoal:
    """What ``submit_design`` scores: the outcome, the direction, the knobs, fixed context.

    ``context`` holds variables the environment sets on every query of the episode (the
    game's stage, say); it is not the agent's to change.
    """

    outcome: str
    knobs: tuple[str, ...]
    maximize: bool = True
    context: dict[str, float | str] = field(default_factory=dict)
    rows: int = DESIGN_ROWS


@dataclass(frozen=True)
class EnvironmentConfig:
    """Budget, optional design goal, and whether non-``do`` handlers may be used."""

    budget: Budget = field(default_factory=Budget)
    goal: DesignGoal | None = None
    handlers: tuple[str, ...] = ("do",)  # handler kinds an agent may send

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> EnvironmentConfig:
        """Rebuild from :meth:`to_json` (or a hand-written config file); refuses unknown keys."""
        try:
            budget = Budget(**dict(doc.get("budget") or {}))
            goal_doc = doc.get("goal")
            goal = None if goal_doc is None else DesignGoal(
                **{**goal_doc, "knobs": tuple(goal_doc.get("knobs", ()))})
            rest = {k: v for k, v in doc.items() if k not in ("budget", "goal")}
            config = cls(budget, goal, **{k: tuple(v) for k, v in rest.items()})
        except TypeError as exc:
            raise ConfigError(f"environment config: {exc}",
                              "keys: budget {rows, queries, observe_row, intervene_row, "
                              "target_row, max_rows_per_query}, goal {outcome, knobs, maximize, "
                              "context, rows}, handlers") from None
        _check(config)
        return config

    @classmethod
    def read(cls, path: str | Path) -> EnvironmentConfig:
        try:
            doc = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{path}: cannot read the environment config ({exc})") from None
        if not isinstance(doc, dict):
            raise ConfigError(f"{path}: the environment config is not a JSON object")
        return cls.from_json(doc)


def _check(config: EnvironmentConfig) -> None:
    b = config.budget
    numbers = [b.rows, b.observe_row, b.intervene_row, *b.target_row.values()]
    if not all(isinstance(x, (int, float)) and math.isfinite(x) and x >= 0 for x in numbers):
        raise ConfigError("budget rows and costs must be finite numbers >= 0")
    if not (isinstance(b.queries, int) and b.queries >= 0 and 1 <= b.max_rows_per_query
            <= MAX_ROWS_PER_QUERY):
        raise ConfigError(f"budget queries must be >= 0 and max_rows_per_query in 1.."
                          f"{MAX_ROWS_PER_QUERY}")
