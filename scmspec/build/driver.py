"""Run ``scmspec compile`` on many cards: in this process, in N local processes, or on Dask.

The parent discovers and parses every card. In this process (``--workers 1``), it then
materialises and compiles every card, runs the pool gates (which compare cards, so they
need all of them at once), decides which cards can be reused (see
:mod:`scmspec.build.incremental`) and builds the rest.

With workers (local processes or Dask) the parent does not draw the cards: a synthetic grid
configuration stays a small factor card (``parse_all(defer=True)``) and the workers do the
rest, in two rounds. Round one (only when the gates run) materialises and compiles each
card and sends back a compact :class:`scmspec.build.pool.PoolSummary`; the parent runs the
pool gates over those. Round two ships each card as a :class:`Task` (the factor card, its
raw pool-gate results, options); the worker loads the card round one drew (pickled to a
scratch folder in the output folder, removed at the end of the run) or, without gates,
materialises it, applies the card's
justifications, computes its build key, reuses its previous outputs when the key matches
and otherwise compiles, samples, gates and writes it (a compiled card holds lambdified
functions that do not pickle). Tasks are submitted a few per worker at a time and each
result goes to the incremental record and the manifest's entry list as it arrives, so the
parent holds no compiled or materialised card and memory grows with the worker count, not
with the pool (only one manifest entry per card is kept, which the manifest needs).

Each dataset is written atomically by its worker
(:class:`scmspec.build.outputs.AtomicFolder`), so outputs do not depend on which worker ran
a card or when it finished; the manifest is sorted.
"""

from __future__ import annotations

import errno
import multiprocessing as mp
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from scmspec.api import LoadedCard
from scmspec.build import incremental
from scmspec.build.cards import (
    CardResult,
    ProtocolOverrides,
    materialised,
    parse_all,
    record_internal,
)
from scmspec.build.discover import discover
from scmspec.build.evaluate import compile_pool, pool_gates
from scmspec.build.outputs import (
    ForeignFolderError,
    clean_temporaries,
    foreign_entries,
    remove_stale,
    scratch_folder,
    write_manifest,
)
from scmspec.build.pool import PoolSummary, justified, raw_pool_gates
from scmspec.build.write import build_one, manifest
from scmspec.compiler.pipeline import CompiledCard, compile_card
from scmspec.compiler.spec import Card
from scmspec.effects.write import EffectOptions
from scmspec.errors import Diagnostic, Span
from scmspec.validators import GateResult

EXECUTORS = ("local", "dask")
IN_FLIGHT = 4  # tasks submitted per worker at a time: workers stay busy, memory stays bounded
T = TypeVar("T")
R = TypeVar("R")


class OutputError(Exception):
    """The output folder cannot be written (missing permission, full disk, not a folder)."""


@dataclass(frozen=True)
class Task:
    """One card to build in a worker; everything in it pickles.

    For :func:`run_deferred` (a parallel build) the card may be a factor card, ``pooled``
    holds its raw pool-gate results and the worker materialises it, justifies them and
    decides on reuse (``force``); for :func:`run_task` the card is materialised and
    ``pooled`` justified.
    """

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
    force: bool = False
    drawn: Path | None = None  # round one's materialised card (a parallel build with gates)


@dataclass(frozen=True)
class Done:
    """A worker's answer: the card's result, its build key (None: no record) and whether the
    previous outputs were reused."""

    res: CardResult
    key: str | None
    reused: bool = False


@dataclass(frozen=True)
class SummaryTask:
    """Round one of a parallel build with gates: materialise and compile one card.

    The materialised card is pickled to ``keep`` (a scratch file in the output folder, which
    the workers share), so round two loads it instead of drawing the card again.
    """

    index: int
    path: str
    loaded: LoadedCard
    env: tuple[tuple[str, str], ...] = ()
    keep: Path | None = None


@dataclass
class BuildReport:
    """Results in card order, which of them were reused, and stale output folders."""

    results: list[CardResult]
    reused: set[str] = field(default_factory=set)
    stale: list[str] = field(default_factory=list)
    pruned: bool = False


def summarise(task: SummaryTask) -> tuple[int, PoolSummary | None]:
    """Round one in a worker: the pool summary of one card (None when it does not compile;
    round two reports why)."""
    with _environment(task.env):
        try:
            loaded = materialised(task.loaded, CardResult(task.path, ""))
            if loaded is None:
                return task.index, None
            if task.keep is not None:
                _save(task.keep, loaded.card)
            return task.index, PoolSummary.of(compile_card(loaded.card, loaded.source))
        except Exception:  # noqa: BLE001 - round two compiles again and records the error
            return task.index, None


def _save(path: Path, card: Card) -> None:
    tmp = path.with_suffix(".part")
    tmp.write_bytes(pickle.dumps(card, protocol=pickle.HIGHEST_PROTOCOL))
    tmp.replace(path)


def _drawn(task: Task) -> LoadedCard | None:
    """The card of ``task`` as round one drew it, if it kept it (else None)."""
    if task.drawn is None:
        return None
    try:
        card = pickle.loads(task.drawn.read_bytes())  # noqa: S301 - our own scratch file
    except (OSError, pickle.UnpicklingError, EOFError):
        return None
    return LoadedCard(card, task.loaded.source) if isinstance(card, Card) else None


def run_deferred(task: Task) -> Done:
    """Round two in a worker: materialise, justify, reuse if the key matches, else build."""
    with _environment(task.env):
        loaded = _drawn(task) or materialised(task.loaded, task.res)
        if loaded is None:
            return Done(task.res, None)
        try:
            pooled = tuple(justified(task.pooled, loaded)) if task.pooled else ()
            key = incremental.build_key(loaded, task.res, task.overrides, task.gates, pooled,
                                        task.effects, task.table_format)
            again = None if task.force else incremental.reuse(task.out, task.res, key)
        except Exception as exc:  # noqa: BLE001 - one card's bug must not stop the others
            record_internal(task.res, exc)
            return Done(task.res, None)
    if again is not None:
        return Done(again, key, True)
    full = Task(task.index, loaded, task.res, task.out, task.overrides, task.gates, pooled,
                task.env, task.effects, task.table_format)
    return Done(run_task(full), key)


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
    parallel = executor == "dask" or workers > 1
    runner = _Runner(workers, executor, scheduler) if parallel else None
    if runner is not None:
        runner.warm()  # the workers start and import while this process expands the grids
    try:
        results, loaded = parse_all(discover(paths), select, defer=parallel)
    except BaseException:
        if runner is not None:
            runner.close(cancel=True)
        raise
    clean_temporaries(out)
    report = BuildReport(results)

    def finished(done: Done, index: int) -> None:
        res = done.res
        results[index] = res
        if done.reused:
            report.reused.add(res.path)
        elif res.status == "failed" and res.id:
            incremental.forget(out, res.id)
        elif done.key is not None:
            incremental.record(out, res, done.key)
        if on_done:
            on_done(res)

    if runner is not None:
        scratch = scratch_folder(out, "pool") if gates else None
        try:
            pooled = _pool_gates_in_workers(runner, loaded, results, scratch) if gates else {}
            tasks = _deferred(report, loaded, out, overrides, gates, pooled, force, effects,
                              table_format, scratch)
            del loaded, pooled  # the tasks hold the (small) factor cards now
            if on_total:
                on_total(len(tasks))
            runner.run(run_deferred, tasks, lambda t, d: finished(d, t.index),
                       lambda t, exc: Done(_lost(t, exc), None))
        finally:
            runner.close()
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
    else:
        compiled = compile_pool(loaded)
        tasks, keys = _plan(report, loaded, out, overrides, gates,
                            pool_gates(compiled) if gates else {}, force, effects,
                            table_format)
        if on_total:
            on_total(len(tasks))
        for t in tasks:
            finished(Done(run_task(t, compiled.get(t.res.path)), keys[t.index]), t.index)
    _finish(report, out, overrides, prune, effects, table_format)
    return report


def _env() -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("SCMSPEC_MAX_")))


def _pool_gates_in_workers(runner: _Runner, loaded: dict[str, LoadedCard],
                           results: Sequence[CardResult], scratch: Path | None
                           ) -> dict[str, list[GateResult]]:
    """Round one: pool summaries from the workers, then the pool gates (raw), by path."""
    env = _env()
    tasks = [SummaryTask(i, r.path, loaded[r.path], env, _kept(scratch, i, loaded[r.path]))
             for i, r in enumerate(results) if r.path in loaded]
    got: dict[int, PoolSummary] = {}

    def keep(_: SummaryTask, answer: tuple[int, PoolSummary | None]) -> None:
        if answer[1] is not None:
            got[answer[0]] = answer[1]

    runner.run(summarise, tasks, keep, lambda t, exc: (t.index, None))
    return raw_pool_gates({results[i].path: got[i] for i in sorted(got)})


def _kept(scratch: Path | None, index: int, loaded: LoadedCard) -> Path | None:
    """Where round one keeps a card it materialised (only factor cards are worth it)."""
    spec = loaded.card.synthetic
    if scratch is None or spec is None or loaded.card.variables:
        return None
    return scratch / f"{index}.pickle"


def _deferred(report: BuildReport, loaded: dict[str, LoadedCard], out: Path,
              overrides: ProtocolOverrides, gates: bool, pooled: dict[str, list[GateResult]],
              force: bool, effects: EffectOptions | None, table_format: str,
              scratch: Path | None) -> list[Task]:
    env, tasks = _env(), []
    for i, res in enumerate(report.results):
        if res.path not in loaded:
            if res.id:
                remove_stale(out, res.id)
            continue
        tasks.append(Task(i, loaded[res.path], res, out, overrides, gates,
                          tuple(pooled.get(res.path, [])), env, effects, table_format,
                          force=force, drawn=_kept(scratch, i, loaded[res.path])))
    return tasks


def _plan(report: BuildReport, loaded: dict[str, LoadedCard], out: Path,
          overrides: ProtocolOverrides, gates: bool, pooled: dict[str, list[GateResult]],
          force: bool, effects: EffectOptions | None, table_format: str
          ) -> tuple[list[Task], dict[int, str]]:
    env = _env()
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


class _Runner:
    """Local worker processes (started once, used by both rounds) or a Dask cluster."""

    def __init__(self, workers: int, executor: str, scheduler: str | None) -> None:
        self.workers, self.executor, self.scheduler = max(workers, 1), executor, scheduler
        self.pool: ProcessPoolExecutor | None = None
        self.warming: list[Future[None]] = []

    def warm(self) -> None:
        """Start the local worker processes now (each imports the build as it starts)."""
        if self.executor != "dask":
            self._start()
            assert self.pool is not None
            self.warming = [self.pool.submit(_warm) for _ in range(self.workers)]

    def _start(self) -> None:
        if self.pool is None:
            ctx = mp.get_context("forkserver" if "forkserver" in mp.get_all_start_methods()
                                 else "spawn")
            self.pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx)

    def run(self, fn: Callable[[T], R], tasks: Sequence[T], done: Callable[[T, R], None],
            lost: Callable[[T, BaseException], R]) -> None:
        """``done(task, fn(task))`` in the parent as each task finishes, in any order;
        ``lost`` turns a worker that died or could not answer into the task's answer."""
        if self.executor == "dask":
            for task, get in dask_completed_tasks(fn, tasks, self.scheduler):
                done(task, _answer(get, task, lost))
            return
        self._start()
        assert self.pool is not None
        todo = list(reversed(tasks))
        running: dict[Future[R], T] = {}
        try:
            while True:
                while todo and len(running) < IN_FLIGHT * self.workers:
                    task = todo.pop()
                    try:
                        running[self.pool.submit(fn, task)] = task
                    except BrokenProcessPool as exc:  # a worker died: the rest fail, not the run
                        done(task, lost(task, exc))
                if not running:
                    return
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in finished:
                    task = running.pop(fut)
                    done(task, _answer(fut.result, task, lost))
        except BaseException:
            self.close(cancel=True)
            raise

    def close(self, cancel: bool = False) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=cancel)
            self.pool = None


def _warm() -> None:
    """A worker's first task: load what materialising a synthetic card needs."""
    import scmspec.synthetic.materialize  # noqa: F401


def _answer(get: Callable[[], R], task: T, lost: Callable[[T, BaseException], R]) -> R:
    try:
        return get()
    except Exception as exc:  # noqa: BLE001 - a lost worker fails its card, not the run
        return lost(task, exc)


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
        return _lost(task, exc)


def _lost(task: Task, exc: BaseException) -> CardResult:
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
