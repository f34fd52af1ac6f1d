"""Replaying an episode from its log: the same seed and queries give bit-identical data.

The SCM must be the one the log names (its ``spec.json`` sha256); every served query is
issued again in order (refused ones are skipped: they drew nothing) and the sha256 of each
returned table is compared with the log's.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from scmspec.environment.config import EnvironmentConfig
from scmspec.environment.episode import Episode
from scmspec.environment.log import LogError, read_log
from scmspec.environment.queries import frame_digest
from scmspec.environment.source import open_scm


def replay(log: str | Path, path: str | Path, scm_id: str | None = None,
           truth: str | Path | None = None) -> list[pd.DataFrame]:
    """The tables of every served query of a logged episode, checked against the log."""
    events = read_log(log)
    start = events[0]
    scm, spec_hash = open_scm(path, scm_id or start.get("scm"), truth)
    if spec_hash != start.get("spec_sha256"):
        raise LogError(f"{log} was recorded on another spec of {start.get('scm')} "
                       f"(sha256 {start.get('spec_sha256')}, this one {spec_hash})")
    episode = Episode(scm, spec_hash, EnvironmentConfig.from_json(start["config"]),
                      seed=int(start["seed"]))
    frames = []
    for event in (e for e in events if e.get("event") == "query"):
        frame, arrays = episode.query(event["kind"], event["n"], event.get("design"))
        if frame_digest(arrays) != event["sha256"]:
            raise LogError(f"{log}: query {event['index']} replays to different data")
        frames.append(frame)
    return frames
