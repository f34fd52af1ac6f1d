"""The run folder ``RUNS`` of ``scmspec evaluate``: what was run, and one record per row.

::

    RUNS/run.json                                  method (name, kind, target, output kind,
                                                   parameters, library), release (version,
                                                   seed, manifest hash), input preparation
    RUNS/rows/<id>/<split>/rep-<r>.json            the row's record (status, time, error,
                                                   metrics when scored, slice factors)
    RUNS/predictions/<id>/<split>/rep-<r>.csv      the method's graph (source,target,type)

A row is done when its record exists; a later run skips it (``--retry STATUS`` runs rows of
that status again). Records and predictions are written through a temporary file and a
rename, so an interrupted run leaves whole files only. A folder that holds anything but a
run of the same method on the same release is refused, never written into.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from scmspec.interop.graphs import InteropError
from scmspec.textio import write_json

RUN_FORMAT = "scmspec.runs/1"
RUN_FILE = "run.json"


class RunFolderError(InteropError):
    """The run folder cannot be used for this run (message and hint)."""


def _identity(doc: dict[str, Any]) -> dict[str, Any]:
    method = {k: v for k, v in doc.get("method", {}).items() if k != "library"}
    return {"method": method, "release": doc.get("release"),
            "standardize": doc.get("standardize"), "shuffle_columns": doc.get("shuffle_columns")}


def read_run(runs: Path) -> dict[str, Any]:
    """``run.json`` of a run folder (:class:`RunFolderError` when there is none)."""
    path = Path(runs) / RUN_FILE
    try:
        doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise RunFolderError(f"{runs} is not a run folder (no readable {RUN_FILE})",
                             "pass folders written by `scmspec evaluate --out RUNS`") from None
    if doc.get("format") != RUN_FORMAT:
        raise RunFolderError(f"{path} is not a run record (format {RUN_FORMAT})")
    return doc


def open_run(runs: Path, doc: dict[str, Any]) -> None:
    """Start a run folder, or check that the one there is a run of the same method and release."""
    if (runs / RUN_FILE).is_file():
        old = read_run(runs)
        if _identity(old) != _identity(doc):
            raise RunFolderError(f"{runs} holds a run of another method, release or "
                                 "input preparation", "resume with the same options, or choose "
                                 "another --out")
        return
    if runs.exists() and (not runs.is_dir() or any(runs.iterdir())):
        raise RunFolderError(f"{runs} exists and is not a run folder scmspec wrote",
                             "scmspec leaves it alone: choose another --out")
    runs.mkdir(parents=True, exist_ok=True)
    write_atomic(runs / RUN_FILE, doc)


def write_atomic(path: Path, doc: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".tmp-{os.getpid()}-{path.name}")
    write_json(tmp, doc)
    os.replace(tmp, path)


def read_records(runs: Path) -> dict[str, dict[str, Any]]:
    """Every row record of a run folder, keyed ``<id>/<split>/rep-<r>``, in sorted order."""
    out = {}
    rows = Path(runs) / "rows"
    for path in sorted(rows.rglob("*.json")) if rows.is_dir() else []:
        if path.name.startswith(".tmp-"):
            continue
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # unreadable: the row is simply not done, and runs again
        out[path.relative_to(rows).with_suffix("").as_posix()] = record
    return out
