"""``scmspec evaluate PKG --method M --out RUNS``: a method on every SCM x split x replicate.

Rows are listed from the package's ``release.json`` (sorted, so a run's records do not
depend on scheduling), rows already recorded in ``RUNS`` are skipped, the rest run in
parallel (``workers`` threads that each wait on a row's own process, or a Dask cluster), and
each finished row is scored here, in the parent, where the truth is: the package's public
truth, and the reserved truth when the evaluator passes the truth archive. A rerun with the
archive scores rows that ran without it, without running them again.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scmspec.build.driver import OutputError, dask_completed_tasks
from scmspec.evaluation.methods import Method
from scmspec.evaluation.runner import RowKey, RowOutcome, RowTask, run_row
from scmspec.evaluation.store import RUN_FORMAT, open_run, read_records, write_atomic
from scmspec.evaluation.truths import Truths, factors, open_truths, row_orientation_seed, score
from scmspec.interop.graphs import InteropError
from scmspec.release import ReleaseError, read_release
from scmspec.textio import sha256
from scmspec.version import __version__

EXECUTORS = ("local", "dask")
PARTS = ("public", "reserved")
SPLITS = ("obs", "obsint")


@dataclass(frozen=True)
class EvalOptions:
    """How to run (docs/benchmarking.md)."""

    budget: float = 3600.0
    workers: int = 1
    executor: str = "local"
    scheduler: str | None = None
    parts: tuple[str, ...] = PARTS
    splits: tuple[str, ...] = SPLITS
    ids: tuple[str, ...] = ()  # shell-style patterns; empty: every SCM
    truth: Path | None = None
    standardize: bool = True
    retry: tuple[str, ...] = ()
    shuffle_columns: bool = True


@dataclass
class EvalReport:
    records: list[dict[str, Any]] = field(default_factory=list)  # every selected row, sorted
    ran: int = 0
    skipped: int = 0
    rescored: int = 0


def method_seed(key: RowKey, release_seed: int) -> int:
    """A randomised method's seed for one row (32 bits, as many libraries want).

    Example:
        >>> 0 <= method_seed(RowKey("a", "obs", 0), 0) < 2**32
        True
    """
    text = f"scmspec.method/{release_seed}/{key.id}/{key.split}/{key.replicate}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")


def _rows(pkg: Path, release: dict[str, Any], options: EvalOptions
          ) -> list[tuple[RowKey, Path, dict[str, Any]]]:
    rows = []
    for entry in release["scms"]:
        if entry["part"] not in options.parts or (
                options.ids and not any(fnmatch.fnmatchcase(entry["id"], p) for p in options.ids)):
            continue
        folder = pkg / entry["part"] / entry["id"]
        try:
            facts = json.loads((folder / "data.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise ReleaseError(f"{folder / 'data.json'} is missing or unreadable",
                               "pass a package written by `scmspec release`") from None
        for split in options.splits:
            for r in range(int(facts.get("replicates", 1))):
                rows.append((RowKey(entry["id"], split, r, entry["part"]), folder, facts))
    return sorted(rows, key=lambda row: row[0])


def run_document(method: Method, release: dict[str, Any], pkg: Path,
                 options: EvalOptions) -> dict[str, Any]:
    return {"format": RUN_FORMAT, "method": method.record(), "scmspec_version": __version__,
            "release": {"version": release["version"], "seed": release["seed"],
                        "manifest_sha256": sha256(pkg / "release.json")},
            "standardize": options.standardize, "shuffle_columns": options.shuffle_columns,
            "conversion": "PAG circles read as tails; undirected edges oriented at random "
                          "with orientation_seed('<id>/<split>/rep-<r>', release seed)"}


def _record(key: RowKey, outcome: RowOutcome | None, old: dict[str, Any] | None,
            runs: Path, truths: Truths, facts: dict[str, Any], release_seed: int,
            budget: float) -> dict[str, Any]:
    """A row's record: a new outcome, or the old record (re)scored now that truth is here."""
    if outcome is not None:
        rec: dict[str, Any] = {"id": key.id, "part": key.part, "split": key.split,
                               "replicate": key.replicate, "status": outcome.status,
                               "elapsed": round(outcome.elapsed, 3),
                               "method_seconds": None if outcome.method_seconds is None
                               else round(outcome.method_seconds, 3),
                               "error": outcome.error, "budget": budget,
                               "seed": method_seed(key, release_seed),
                               "prediction": key.prediction if outcome.status == "ok" else None}
    else:
        rec = dict(old or {})
    truth = truths.get(key)
    rec.update(scored=False, metrics=None, factors=factors(key, facts, truth),
               true_edges=int(truth.dag.directed.sum()) if truth is not None else None)
    if truth is not None and rec["status"] == "ok":
        try:
            rec["metrics"] = score(key, runs / key.prediction, truth, release_seed)
            rec["orientation_seed"] = row_orientation_seed(key, release_seed)
            rec["scored"] = True
        except InteropError as exc:  # a prediction that the truth's columns cannot hold
            rec.update(status="invalid_output", error=exc.message, prediction=None)
    elif truth is not None:
        rec["scored"] = True  # a failed row scores as the empty graph in "all rows" means
    return rec


def evaluate(pkg: Path, method: Method, runs: Path, options: EvalOptions = EvalOptions(),
             on_row: Callable[[dict[str, Any]], None] | None = None) -> EvalReport:
    """Run ``method`` on the package's rows into ``runs``; resume what is already there."""
    release = read_release(pkg)
    # absolute paths for the rows: a Dask worker's working folder is not ours (none of these
    # paths is written into a record)
    rows = _rows(pkg.resolve(), release, options)
    if not rows:
        raise ReleaseError("no row to run: no SCM of the package matches --part and --ids",
                           "check the patterns against the ids in release.json")
    runs = runs.resolve()
    open_run(runs, run_document(method, release, pkg, options))
    done = read_records(runs)
    report, seed = EvalReport(), int(release["seed"])
    with open_truths(pkg, release, options.truth) as truths:
        tasks, facts_of = [], {}
        for key, folder, facts in rows:
            facts_of[key.label] = facts
            old = done.get(key.label)
            if old is None or old.get("status") in options.retry:
                tasks.append(RowTask(key, folder, runs, method, options.budget,
                                     options.standardize, method_seed(key, seed), facts,
                                     options.shuffle_columns))
            elif not old.get("scored") and truths.get(key) is not None:
                write_atomic(runs / key.record, _record(key, None, old, runs, truths, facts,
                                                        seed, options.budget))
                report.rescored += 1
            else:
                report.skipped += 1

        def finished(task: RowTask, outcome: RowOutcome) -> None:
            rec = _record(task.key, outcome, None, runs, truths, facts_of[task.key.label],
                          seed, options.budget)
            if rec["status"] != "ok":  # a retried row must not keep an earlier prediction
                (runs / task.key.prediction).unlink(missing_ok=True)
            write_atomic(runs / task.key.record, rec)
            report.ran += 1
            if on_row:
                on_row(rec)

        _execute(tasks, options, finished)
    records = read_records(runs)
    report.records = [records[k.label] for k, _, _ in rows if k.label in records]
    return report


def _execute(tasks: Sequence[RowTask], options: EvalOptions,
             finished: Callable[[RowTask, RowOutcome], None]) -> None:
    if options.executor == "dask":
        _execute_dask(tasks, options.scheduler, finished)
        return
    if options.workers <= 1:
        for task in tasks:
            finished(task, run_row(task))
        return
    with ThreadPoolExecutor(max_workers=options.workers) as pool:  # each thread waits on a
        futures = {pool.submit(run_row, t): t for t in tasks}       # row's own process
        for fut in as_completed(futures):
            finished(futures[fut], fut.result())


def _execute_dask(tasks: Sequence[RowTask], scheduler: str | None,
                  finished: Callable[[RowTask, RowOutcome], None]) -> None:
    try:
        for task, get in dask_completed_tasks(run_row, tasks, scheduler):
            try:
                outcome = get()
            except Exception as exc:  # noqa: BLE001 - a lost worker fails its row, not the run
                outcome = RowOutcome("failed", 0.0, f"the Dask worker was lost: {exc}")
            finished(task, outcome)
    except OutputError as exc:
        raise ReleaseError(str(exc)) from None
