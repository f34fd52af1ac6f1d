"""An experiment environment: a sealed SCM an agent queries under a budget.

``Environment`` (in process) and ``scmspec serve`` (HTTP/JSON) drive one :class:`Episode`
each: observe and intervene on the card's allowed targets, paid from a row and query
budget, every query logged with its seed so the episode replays bit for bit
(:func:`replay`); a graph or design submission ends the episode with its scores.
``episodes_report`` summarises logs (docs/environment.md).
"""

from scmspec.environment.config import (
    Budget,
    BudgetExhaustedError,
    DesignGoal,
    EnvironmentConfig,
    EnvironmentError,
    EpisodeFinishedError,
    OutOfRangeError,
    UnknownTargetError,
)
from scmspec.environment.facade import Environment
from scmspec.environment.replay import replay

__all__ = [
    "Budget", "BudgetExhaustedError", "DesignGoal", "Environment", "EnvironmentConfig",
    "EnvironmentError", "EpisodeFinishedError", "OutOfRangeError", "UnknownTargetError",
    "replay",
]
