"""Fuzzing the shipped cards: mutate, then parse -> compile -> sample -> gates, bounded.

Every file under ``cards/`` except the synthetic grids (``*.grid.yaml``) is a seed. A
mutant is the seed damaged by one to three operators of ``mutators.py`` (numbers made
0, -1, huge, tiny, NaN, infinite or long; operators, function names, kinds and units
swapped; lines deleted or duplicated; tokens swapped; and the generic file damage). It
then goes the way ``scmspec build`` takes a card (``build._evaluate``): parse and
validate, compile, sample one small replicate (obs and obs+int), run every gate.

Outcomes: ``ok``; ``card_error`` (a :class:`CardError` whose every diagnostic is located,
``file:line:col``); ``crash`` (any other exception, a CardError without a location, or a
ComplexWarning: something complex reached numpy); ``hang`` (past the time bound).

Mutants run in a forked worker process, watched from the parent: a hang inside C code
(scipy, numpy), where ``signal.alarm`` cannot interrupt, is still caught by the parent,
which kills the worker, records the mutant and starts a new worker after it. The worker's
address space is bounded too, so a memory blow-up fails as a crash, not the machine.
"""

from __future__ import annotations

import multiprocessing as mp
import resource
import signal
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tests.properties.mutators import AIMED, GENERIC, RandomChooser, mutate

ROOT = Path(__file__).resolve().parents[2]
SEEDS = sorted(p for p in (ROOT / "cards").rglob("*.yaml") if not p.name.endswith(".grid.yaml"))
OPERATORS = {**GENERIC, **{f"aimed_{k}": v for k, v in AIMED.items()}}
ROWS_OBS, ROWS_INT_OBS, ROWS_INT = 50, 40, 10
MEMORY_BYTES = 3 * 1024**3  # address space of the worker


@dataclass(frozen=True)
class Mutant:
    """One mutant: replayable from (seed card, number)."""

    number: int
    seed_card: str
    text: str


@dataclass
class Report:
    """What a fuzzing run found."""

    outcomes: Counter[str] = field(default_factory=Counter)
    failures: list[tuple[str, Mutant, str]] = field(default_factory=list)  # kind, mutant, why
    seconds: float = 0.0

    def summary(self) -> str:
        n = sum(self.outcomes.values())
        parts = ", ".join(f"{k} {self.outcomes[k]}" for k in ("ok", "card_error", "crash",
                                                               "hang"))
        return f"{n} mutants in {self.seconds:.0f} s: {parts}"


def mutants(count: int, seed: int = 0) -> Iterator[Mutant]:
    """``count`` mutants of the shipped cards, the same ones for the same seed."""
    texts = [p.read_text(encoding="utf-8") for p in SEEDS]
    for i in range(count):
        chooser = RandomChooser(seed * 1_000_003 + i)
        j = chooser.integer(0, len(SEEDS) - 1)
        yield Mutant(i, str(SEEDS[j].relative_to(ROOT)), mutate(texts[j], chooser, OPERATORS))


def evaluate(text: str) -> tuple[str, str]:
    """Parse, compile, sample and gate one card text: ("ok" | "card_error", detail).

    Raises (AssertionError or the original exception) on anything that is a crash.
    """
    from scmspec.api import LoadedCard
    from scmspec.compiler.pipeline import parse_card_text
    from scmspec.errors import CardError
    from scmspec.synthetic.materialize import materialize

    smap = None
    try:
        card, smap = parse_card_text(text, "mutant.yaml")
        _sample_and_gate(LoadedCard(materialize(card, smap), smap).compile())
    except CardError as exc:
        _check_located(exc, smap)
        return "card_error", exc.diagnostics[0].code
    return "ok", ""


def _sample_and_gate(scm: Any) -> None:
    """One small replicate and every gate, as ``build._evaluate`` runs them."""
    from scmspec.samplers import numpy_sampler
    from scmspec.validators import GateContext, ReplicateData, run_gates

    proto = scm.compiled.card.protocol.model_copy(update={
        "n_obs": ROWS_OBS, "n_int_obs": ROWS_INT_OBS, "n_int": ROWS_INT, "replicates": 1})
    obs = numpy_sampler.sample(scm.plan, ROWS_OBS, 0, scm.streams(proto.seed, "obs", 0))
    obsint = numpy_sampler.sample(scm.plan, ROWS_INT_OBS, ROWS_INT,
                                  scm.streams(proto.seed, "obsint", 0))
    run_gates(GateContext(scm.compiled, (ReplicateData(0, obs, obsint),), protocol=proto))


def _check_located(exc: Any, smap: Any) -> None:
    """Every diagnostic has a location (a field-only one is located as the build does)."""
    assert exc.diagnostics, f"{type(exc).__name__} without diagnostics"
    for d in exc.diagnostics:
        span = d.span
        if span is None and d.field_path and smap is not None:  # as build._locate does
            loc = tuple(int(p) if p.isdigit() else p for p in d.field_path.split("."))
            span = smap.nearest(loc)
        assert span is not None, f"{d.code} without a location: {d.message}"
        assert span.path == "mutant.yaml" and span.line >= 1 and span.col >= 1, str(span)
        assert d.code.startswith("SCM") and d.code != "SCM901", d.code


WALL_FACTOR = 4  # wall-clock allowance per CPU-second before a silent worker is killed


def _classify(text: str, seconds: float) -> tuple[str, str]:
    """Run one mutant in this (worker) process under an alarm; never raises."""

    def timeout(signum: int, frame: Any) -> None:
        raise TimeoutError(f"no result within {seconds:g} CPU-s")

    # CPU time, not wall time: a loaded machine (pytest-xdist, a busy CI runner) must not
    # turn a slow mutant into a "hang"; a mutant that sleeps is caught by the wall deadline.
    signal.signal(signal.SIGPROF, timeout)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            warnings.simplefilter("error", np.exceptions.ComplexWarning)
            return evaluate(text)
    except TimeoutError:
        return "hang", traceback.format_exc(limit=-8)
    except BaseException:  # noqa: BLE001 - every other exception is the finding
        return "crash", traceback.format_exc(limit=-12)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)


def _worker(jobs: Any, results: Any, seconds: float) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    while True:
        job = jobs.get()
        if job is None:
            return
        number, text = job
        results.put((number, "start", ""))
        results.put((number, *_classify(text, seconds)))


def run(batch: list[Mutant], seconds: float = 20.0, log: Any = None,
        grace: float = 10.0) -> Report:
    """Run mutants in a watched worker; a mutant past ``seconds`` of CPU time is a hang.

    The worker's own CPU-time alarm reports a hang in Python code with its traceback; one
    stuck in C code (where the alarm is not seen) or asleep is killed by this process after
    ``WALL_FACTOR * seconds + grace`` seconds of wall time, and a new worker takes the rest
    of the batch.
    """
    report, start = Report(), time.perf_counter()
    by_number = {m.number: m for m in batch}
    pending = [m.number for m in batch]
    ctx = mp.get_context("fork")
    while pending:
        jobs, results = ctx.Queue(), ctx.Queue()
        worker = ctx.Process(target=_worker, args=(jobs, results, seconds), daemon=True)
        worker.start()
        for number in pending:
            jobs.put((number, by_number[number].text))
        jobs.put(None)
        deadline = WALL_FACTOR * seconds + grace
        pending = _collect(pending, results, worker, deadline, report, by_number, log)
        worker.join(timeout=5)
        if worker.is_alive():
            worker.kill()
    report.seconds = time.perf_counter() - start
    return report


def _collect(pending: list[int], results: Any, worker: Any, deadline: float, report: Report,
             by_number: dict[int, Mutant], log: Any) -> list[int]:
    """Read results until the batch is done or the worker hangs; return what is left."""
    done: set[int] = set()
    current, since = None, time.perf_counter()
    while len(done) < len(pending):
        try:
            number, outcome, detail = results.get(timeout=1.0)
        except Exception:  # noqa: BLE001 - queue.Empty: check the worker and the clock
            stuck = current is not None and time.perf_counter() - since > deadline
            if stuck or not worker.is_alive():
                if current is None:  # died between mutants: nothing to blame
                    current = next(n for n in pending if n not in done)
                why = "killed: no result" if stuck else f"worker died ({worker.exitcode})"
                _record(report, by_number[current], "hang" if stuck else "crash", why, log)
                worker.kill()
                done.add(current)
                return [n for n in pending if n not in done]
            continue
        if outcome == "start":
            current, since = number, time.perf_counter()
            continue
        done.add(number)
        current = None
        _record(report, by_number[number], outcome, detail, log)
    return []


def _record(report: Report, mutant: Mutant, outcome: str, detail: str, log: Any) -> None:
    report.outcomes[outcome] += 1
    if outcome in ("crash", "hang"):
        report.failures.append((outcome, mutant, detail))
        if log is not None:
            print(f"== {outcome.upper()} mutant {mutant.number} of {mutant.seed_card}\n"
                  f"{detail}\n--- mutant text ---\n{mutant.text}\n--- end ---", file=log,
                  flush=True)
    n = sum(report.outcomes.values())
    if log is not None and n % 250 == 0:
        print(f"[{n}] {dict(report.outcomes)}", file=log, flush=True)
