"""The episode log: one JSON object per line, appended and flushed as the episode runs.

Events (``event``): ``start`` (format, scm id, spec sha256, episode seed, config, scmspec
version), ``query`` (index, kind, n, design as sent, split, cost, running totals, units
drawn, rows returned, the sha256 of the returned table), ``refused`` (the query as sent, the
error code and message), ``submit`` (graph or design, the submission, the scores, the
budget), ``end`` (``finished`` or ``truncated``, with a reason). Every event carries ``t``,
seconds since the start, which only reports use: a replay reads the seed and the queries.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import IO, Any

from scmspec.environment.config import EnvironmentError

EPISODE_FORMAT = "scmspec.episode/1"


class LogError(EnvironmentError):
    code, status = "invalid_log", 400


class EpisodeLog:
    """Events in memory, and in a JSON-lines file when a path is given."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = None if path is None else Path(path)
        self.events: list[dict[str, Any]] = []
        self._start = time.monotonic()
        self._file: IO[str] | None = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._file = self.path.open("x", encoding="utf-8")  # never overwrite a log
            except FileExistsError:
                raise LogError(f"{self.path} exists: an episode log is never overwritten",
                               "give each episode a new file") from None

    def write(self, event: dict[str, Any]) -> None:
        event = {**event, "t": round(time.monotonic() - self._start, 6)}
        self.events.append(event)
        if self._file is not None:
            self._file.write(json.dumps(event, sort_keys=True, allow_nan=False) + "\n")
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def read_log(path: str | Path) -> list[dict[str, Any]]:
    """The events of one log file (a trailing partial line, from a crash, is ignored)."""
    events = []
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, 1):
        try:
            event = json.loads(line)
        except ValueError:
            if number == len(lines):
                break
            raise LogError(f"{path}:{number}: not a JSON object") from None
        if not isinstance(event, dict):
            raise LogError(f"{path}:{number}: not a JSON object")
        events.append(event)
    if not events or events[0].get("format") != EPISODE_FORMAT:
        raise LogError(f"{path} is not a {EPISODE_FORMAT} log (its first line must be 'start')")
    return events
