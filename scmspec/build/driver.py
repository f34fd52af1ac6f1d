"""Run ``scmspec compile`` on many cards: in this process, in N local processes, or on Dask.

The parent discovers and parses every card, runs the pool gates (which compare cards,
so they need all of them at once), decides which cards can be reused (see
:mod:`scmspec.build.incremental`) and ships the rest as :class:`Task` objects. A task holds
only picklable things (the pydantic card, its source map, paths, options and its
pool-gate results); the worker compiles, samples, gates and writes the dataset itself,
because a compiled card holds lambdified functions that do not pickle. Each dataset is
written atomically by the worker (:class:`scmspec.build.outputs.AtomicFolder`), so outputs do
not depend on which worker ran a card or when it finished; the manifest is sorted.
"""

from __future__ import annotations

import errno
import multiprocessing as mp
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from scmspec.api import LoadedCard
from scmspec.build import incremental
from scmspec.build.cards import CardResult, ProtocolOverrides, parse_all, record_internal
from scmspec.build.discover import discover
from scmspec.build.evaluate import compile_pool, pool_gates
from scmspec.build.outputs import (
    ForeignFolderError,
    clean_temporaries,
    foreign_entries,
    remove_stale,
    write_manifest,
)
from scmspec.build.write import build_one, manifest
from scmspec.compiler.pipeline import CompiledCard
from scmspec.effects.write import EffectOptions
from scmspec.errors import Diagnostic, Span
from scmspec.validators import GateResult

EXECUTORS = ("local", "dask")
T = TypeVar("T")
R = TypeVar("R")


class OutputError(Exception):
    """The output folder cannot be written (missing permission, full disk, not a folder)."""


@dataclass(frozen=True)
class Task:
    """One card to build in a worker; everything in it pickles."""

    index: int
    loaded: LoadedCard
    res: CardResult
    out: Path
    overrides: ProtocolOverrides
    gates: bool
    pooled: tuple[GateResult, ...]
    env: tuple[tuple[str, str], ...] = ()
    effects: EffectOptions | None = None
    table_format: str = "csv"


@dataclass
class BuildReport:
    """Results in card order, which of them were reused, and stale output folders."""

    results: list[CardResult]
    reused: set[str] = field(default_factory=set)
    stale: list[str] = field(default_factory=list)
    pruned: bool = False


def run_task(task: Task, compiled: CompiledCard | None = None) -> CardResult:
    """Build one card; whatever goes wrong becomes a diagnostic of this card, not an exception.

    A write error is SCM801, a dataset place taken by someone else's folder or a link
    SCM802 (left untouched), anything unexpected SCM901 (a bug; traceback kept for --debug).
    """
    res = task.res
    with _environment(task.env):
        try:
            build_one(task.loaded, res, task.out, task.overrides, task.gates, compiled,
                      task.pooled, task.effects, task.table_format)
        except ForeignFolderError as exc:
            res.status, res.gates, res.files = "failed", [], {}
            res.diagnostics = [Diagnostic(
                "SCM802", f"cannot write the dataset of {task.loaded.id!r}: {exc}",
                task.loaded.source.nearest(("id",)),
                "scmspec leaves it alone: move it away, or choose another --out folder")]
        except OSError as exc:
            res.status, res.gates, res.files = "failed", [], {}
            res.diagnostics = [_write_diagnostic(task, exc)]
            remove_stale(task.out, task.loaded.id)
        except Exception as exc:  # noqa: BLE001 - one card's bug must not stop the others
            record_internal(res, exc)
            remove_stale(task.out, task.loaded.id)
    return res


def _write_diagnostic(task: Task, exc: OSError) -> Diagnostic:
    why = exc.strerror or str(exc)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        why = "the disk is full (no space left on device)"
    return Diagnostic("SCM801", f"cannot write the dataset of {task.loaded.id!r} to "
                      f"{task.out}: {why}", Span(task.res.path, 1, 1),
                      "free disk space or choose another --out folder, then re-run")


@contextmanager
def _environment(env: Sequence[tuple[str, str]]) -> Iterator[None]:
    """Apply the parent's SCMSPEC_* limits in a worker (Dask workers have their own env)."""
    old = {k: os.environ.get(k) for k, _ in env}
    os.environ.update(dict(env))
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def check_writable(out: Path) -> None:
    """Fail before any work if ``out`` cannot hold files."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".tmp-probe-", dir=out)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise OutputError(f"cannot write to output folder {out}: "
                          f"{exc.strerror or exc}") from None


def build(paths: Iterable[str | Path], out: Path, overrides: ProtocolOverrides,
          run_gate_checks: bool = True, select: str | None = None) -> list[CardResult]:
    """Compile every card under ``paths`` into ``out`` in this process, rebuilding all.

    The same driver as ``scmspec compile`` (:func:`scmspec.build.driver.compile_cards`);
    returns one result per card file.
    """
    return compile_cards(paths, out, overrides, gates=run_gate_checks, select=select,
                         force=True).results




def check_not_cards(out: Path) -> None:
    """Refuse an output folder that holds cards: outputs and sources must not mix."""
    cards = discover([out]) if out.is_dir() else []
    if cards:
        raise OutputError(f"--out {out} holds cards ({cards[0].record}"
                          f"{' and more' if len(cards) > 1 else ''}); write datasets to "
                          "a folder of their own, e.g. --out data/")


def check_prunable(out: Path) -> None:
    """--prune deletes folders; refuse it while ``out`` holds anything scmspec did not write."""
    foreign = foreign_entries(out)
    if foreign:
        listed = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more"
                                            if len(foreign) > 5 else "")
        raise OutputError(f"--prune refused: {out} holds {listed}, which scmspec did not "
                          "write; nothing was deleted. Move them out of the folder, or "
                          "compile without --prune")


def compile_cards(paths: Iterable[str | Path], out: Path, overrides: ProtocolOverrides, *,
                  gates: bool = True, select: str | None = None, workers: int = 1,
                  executor: str = "local", scheduler: str | None = None, force: bool = False,
                  prune: bool = False, effects: EffectOptions | None = None,
                  table_format: str = "csv",
                  on_done: Callable[[CardResult], None] | None = None,
                  on_total: Callable[[int], None] | None = None) -> BuildReport:
    """Compile every card under ``paths`` into ``out``, reusing unchanged outputs.

    Outputs are byte-identical whatever ``workers``/``executor`` is and whether cards were
    reused. Raises :class:`OutputError` when ``out`` cannot be written. With ``effects``
    every dataset also gets its effect truth (``effects/``, docs/effects.md). ``table_format``
    (csv, parquet or both) is how the replicate tables are written (docs/data-layout.md).
    """
    paths = list(paths)
    check_writable(out)
    check_not_cards(out)
    if prune:
        check_prunable(out)
    results, loaded = parse_all(discover(paths), select)
    compiled = compile_pool(loaded) if gates or (workers <= 1 and executor == "local") else {}
    pooled = pool_gates(compiled) if gates else {}
    clean_temporaries(out)
    report = BuildReport(results)
    tasks, keys = _plan(report, loaded, out, overrides, gates, pooled, force, effects,
                        table_format)
    if on_total:
        on_total(len(tasks))

    def finished(res: CardResult, index: int) -> None:
        results[index] = res
        if res.status == "failed" and res.id:
            incremental.forget(out, res.id)
        else:
            incremental.record(out, res, keys[index])
        if on_done:
            on_done(res)

    _execute(tasks, workers, executor, scheduler, compiled, finished)
    _finish(report, out, overrides, prune, effects, table_format)
    return report


def _plan(report: BuildReport, loaded: dict[str, LoadedCard], out: Path,
          overrides: ProtocolOverrides, gates: bool, pooled: dict[str, list[GateResult]],
          force: bool, effects: EffectOptions | None, table_format: str
          ) -> tuple[list[Task], dict[int, str]]:
    env = tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("SCMSPEC_MAX_")))
    tasks: list[Task] = []
    keys: dict[int, str] = {}
    for i, res in enumerate(report.results):
        if res.path not in loaded:
            if res.id:
                remove_stale(out, res.id)
            continue
        card, gate_results = loaded[res.path], tuple(pooled.get(res.path, []))
        keys[i] = incremental.build_key(card, res, overrides, gates, gate_results, effects,
                                        table_format)
        again = None if force else incremental.reuse(out, res, keys[i])
        if again is not None:
            report.results[i] = again
            report.reused.add(res.path)
            continue
        tasks.append(Task(i, card, res, out, overrides, gates, gate_results, env, effects,
                          table_format))
    return tasks, keys


def _execute(tasks: Sequence[Task], workers: int, executor: str, scheduler: str | None,
             compiled: dict[str, CompiledCard],
             finished: Callable[[CardResult, int], None]) -> None:
    if executor == "dask":
        _execute_dask(tasks, scheduler, finished)
    elif workers <= 1 or len(tasks) <= 1:
        for t in tasks:
            finished(run_task(t, compiled.get(t.res.path)), t.index)
    else:
        ctx = mp.get_context("forkserver" if "forkserver" in mp.get_all_start_methods()
                             else "spawn")
        with ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=ctx) as pool:
            futures = {pool.submit(run_task, t): t for t in tasks}
            for fut in as_completed(futures):
                finished(_result(fut.result, futures[fut]), futures[fut].index)


def _execute_dask(tasks: Sequence[Task], scheduler: str | None,
                  finished: Callable[[CardResult, int], None]) -> None:
    for task, get in dask_completed_tasks(run_task, tasks, scheduler):
        finished(_result(get, task), task.index)


def dask_completed_tasks(fn: Callable[[T], R], tasks: Sequence[T], scheduler: str | None
                         ) -> Iterator[tuple[T, Callable[[], R]]]:
    """Run ``fn(task)`` for every task on the Dask cluster at ``scheduler``; yield each task with
    a function that returns its result (or raises what the worker raised), as each finishes.

    Shared by the build and by evaluation runs. Raises :class:`OutputError` when
    dask.distributed is not installed or no scheduler address is given.
    """
    try:
        from dask.distributed import Client
        from dask.distributed import as_completed as dask_completed
    except ImportError:
        raise OutputError("--executor dask needs dask.distributed: "
                          "pip install 'scmspec[dask]'") from None
    if not scheduler:
        raise OutputError("--executor dask needs --scheduler ADDRESS (e.g. tcp://host:8786)")
    with Client(scheduler) as client:
        futures = {client.submit(fn, t, pure=False): t for t in tasks}
        for fut in dask_completed(list(futures)):
            yield futures[fut], fut.result


def _result(get: Callable[[], CardResult], task: Task) -> CardResult:
    """A worker's result; a worker that died or could not return one is this card's failure."""
    try:
        return get()
    except Exception as exc:  # noqa: BLE001 - a lost worker fails its card, not the run
        task.res.stage = "running in a worker"
        record_internal(task.res, exc)
        return task.res


def _finish(report: BuildReport, out: Path, overrides: ProtocolOverrides, prune: bool,
            effects: EffectOptions | None, table_format: str) -> None:
    ids = [r.id for r in report.results if r.id]
    report.stale = incremental.stale_outputs(out, ids)
    doc = manifest(report.results, overrides, effects, table_format)
    if prune:
        incremental.prune(out, report.stale)
        report.pruned = True
    elif report.stale:
        doc["stale"] = report.stale
    try:
        write_manifest(out, doc)
    except OSError as exc:
        raise OutputError(f"cannot write {out / 'manifest.json'}: {exc.strerror or exc}") from None
