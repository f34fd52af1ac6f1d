"""Mutants of the shipped cards succeed or fail with located diagnostics, quickly.

The default run checks a fixed set of 150 mutants: the first 40 in the developer loop
(``-m "not slow"``), the other 110 in the full suite. The long run is
selected with the ``fuzz`` marker and prints a summary::

    SCMSPEC_FUZZ_MUTANTS=10000 python -m pytest -m fuzz -s -p no:cacheprovider \\
        tests/properties/test_card_fuzz.py

``SCMSPEC_FUZZ_MUTANTS`` (default 10,000), ``SCMSPEC_FUZZ_SEED`` (default 0) and
``SCMSPEC_FUZZ_SECONDS`` (per mutant, default 20) set its size, its mutants and its time
bound; every crash or hang is printed with the mutant's text (``card_fuzz.py`` says how
mutants are made and run).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.library import stratified
from tests.properties import card_fuzz

DEFAULT_MUTANTS = 150
FAST_MUTANTS = 40  # the developer loop's share; the full suite runs the other 110


def _failures(report: card_fuzz.Report) -> str:
    return "\n\n".join(f"{kind} in mutant {m.number} of {m.seed_card}:\n{why}\n"
                       f"--- mutant text ---\n{m.text}" for kind, m, why in report.failures)


@pytest.mark.parametrize(("part", "least_ok", "least_errors"), [
    pytest.param(slice(0, FAST_MUTANTS), 3, 15, id="first-40"),
    pytest.param(slice(FAST_MUTANTS, DEFAULT_MUTANTS), 7, 35, id="other-110",
                 marks=pytest.mark.slow),
])
def test_shipped_card_mutants_succeed_or_fail_located(part: slice, least_ok: int,
                                                      least_errors: int) -> None:
    batch = list(card_fuzz.mutants(DEFAULT_MUTANTS, seed=22))[part]
    report = card_fuzz.run(batch, seconds=20.0)
    assert not report.failures, _failures(report)
    # The mutator must reach both outcomes, or it tests nothing.
    assert report.outcomes["ok"] >= least_ok, report.summary()
    assert report.outcomes["card_error"] >= least_errors, report.summary()


def test_a_hang_is_reported_with_the_mutant(monkeypatch: pytest.MonkeyPatch) -> None:
    """The watchdog: a mutant past its time bound is a hang, and the run goes on."""
    batch = list(card_fuzz.mutants(3, seed=1))

    def slow(text: str) -> tuple[str, str]:
        if text == batch[1].text:
            while True:  # a busy loop: the CPU-time alarm sees it
                pass
        return "ok", ""

    monkeypatch.setattr(card_fuzz, "evaluate", slow)
    report = card_fuzz.run(batch, seconds=0.5)
    assert report.outcomes == {"ok": 2, "hang": 1}
    (kind, mutant, why), = report.failures
    assert kind == "hang" and mutant.number == 1 and "TimeoutError" in why


def test_a_hang_in_c_code_is_killed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mutant stuck where the worker's alarm is not delivered is killed from outside."""
    batch = list(card_fuzz.mutants(3, seed=2))

    def stuck(text: str) -> tuple[str, str]:
        if text == batch[0].text:
            import signal
            import time

            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGPROF})  # as C code would
            time.sleep(60)
        return "ok", ""

    monkeypatch.setattr(card_fuzz, "evaluate", stuck)
    report = card_fuzz.run(batch, seconds=0.5, grace=1.0)
    assert report.outcomes == {"ok": 2, "hang": 1}
    assert report.failures[0][1].number == 0 and "killed" in report.failures[0][2]


def _seed_sample(developer_loop: bool) -> list[Path]:
    """The stratified sample (first card of every folder), split: one card per family for
    the developer loop, the rest of the sample for the full suite."""
    sample = stratified(card_fuzz.SEEDS)
    families: dict[str, Path] = {}
    for p in sample:
        families.setdefault(p.relative_to(card_fuzz.ROOT / "cards").parts[0], p)
    fast = sorted(families.values())
    return fast if developer_loop else [p for p in sample if p not in fast]


@pytest.mark.parametrize("developer_loop", [
    pytest.param(True, id="one-per-family"),
    pytest.param(False, id="rest-of-sample", marks=pytest.mark.slow),
])
def test_seed_cards_are_valid(developer_loop: bool) -> None:
    """Mutants start from cards that compile: the seeds pass the fuzz pipeline.

    Checked on the first card of every family and domain folder, so the cost stays flat
    as the library grows; that every shipped card compiles and is released is
    ``tests/cli/test_shipped_cards.py``'s whole-library compile."""
    assert len(card_fuzz.SEEDS) >= 40
    assert not any(p.name.endswith(".grid.yaml") for p in card_fuzz.SEEDS)
    sample = _seed_sample(developer_loop)
    assert len(sample) >= (3 if developer_loop else 17)
    report = card_fuzz.run([card_fuzz.Mutant(i, str(p), p.read_text(encoding="utf-8"))
                            for i, p in enumerate(sample)], seconds=60.0)
    assert report.outcomes["ok"] == len(sample), _failures(report)


@pytest.mark.fuzz
def test_fuzz_shipped_cards_long() -> None:
    count = int(os.environ.get("SCMSPEC_FUZZ_MUTANTS", "10000"))
    seed = int(os.environ.get("SCMSPEC_FUZZ_SEED", "0"))
    seconds = float(os.environ.get("SCMSPEC_FUZZ_SECONDS", "20"))
    report = card_fuzz.run(list(card_fuzz.mutants(count, seed)), seconds, log=sys.stdout)
    print(f"\nfuzz summary (seed {seed}): {report.summary()}")
    assert not report.failures, _failures(report)
