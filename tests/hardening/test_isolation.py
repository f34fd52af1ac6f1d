"""One card's failure, even a bug in scmspec, never stops the others.

Before, a batch of 3 shipped cards and 1 hostile card exited 70 with no manifest: any
exception other than a card error escaped the build. Here a fault is injected into one
card at each stage (parsing, compiling, sampling, gating, writing, a lost worker); the
other cards must be built, the manifest written, the broken card recorded as an SCM901
internal error with its location, and the traceback printed only with ``--debug``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scmspec.build import cards as cards_module
from scmspec.build import driver
from scmspec.build import evaluate as evaluate_module
from scmspec.build import write as write_module
from scmspec.build.cards import CardResult, ProtocolOverrides
from scmspec.cli import app
from tests.parallel.cards import write_cards

VICTIM = "par_chain"
# Without a fault: chain and diamond released, fork and collider rejected (depth 1).
CLEAN = {"par_chain": "released", "par_collider": "rejected", "par_diamond": "released",
         "par_fork": "rejected"}


def _boom(*args: Any, **kwargs: Any) -> None:
    raise ZeroDivisionError("injected fault")


def _only_for_victim(real: Any, card_of: Any) -> Any:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if card_of(*args, **kwargs) == VICTIM:
            _boom()
        return real(*args, **kwargs)
    return wrapped


STAGES = {  # stage: (module, function, the card id of a call)
    "compiling": (evaluate_module, "compile_card", lambda card, *a, **k: card.id),
    "sampling": (evaluate_module, "_sample_replicate", lambda scm, *a, **k: scm.compiled.card.id),
    "running the gates": (evaluate_module, "run_gates", lambda ctx, *a, **k: ctx.compiled.card.id),
    "writing": (write_module, "_write_dataset", lambda tmp, done, res, loaded, *a: loaded.id),
}


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_a_fault_in_one_card_fails_that_card_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: str) -> None:
    module, name, card_of = STAGES[stage]
    monkeypatch.setattr(module, name, _only_for_victim(getattr(module, name), card_of))
    if name == "compile_card":  # the pool compiles each card first; both paths break
        monkeypatch.setattr(driver, "compile_pool", lambda loaded: {})
    cards = write_cards(tmp_path / "cards")
    out = tmp_path / "data"
    result = CliRunner().invoke(app, ["compile", str(cards), "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert f"internal error while {stage}: ZeroDivisionError: injected fault" in result.output
    doc = json.loads((out / "manifest.json").read_text())
    entries = {e["id"]: e for e in doc["scms"]}
    assert {k: e["status"] for k, e in entries.items()} == {**CLEAN, VICTIM: "failed"}
    (diag,) = entries[VICTIM]["diagnostics"]
    assert diag["code"] == "SCM901" and diag["location"] == "chain.yaml:1:1"
    assert not (out / VICTIM).exists()
    assert not [p for p in out.iterdir() if p.name.startswith(".tmp-")]


def test_debug_prints_the_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evaluate_module, "_sample_replicate", _boom)
    cards = write_cards(tmp_path / "cards")
    args = ["compile", str(cards), "--out", str(tmp_path / "data"), "--no-gates"]
    quiet = CliRunner().invoke(app, args)
    loud = CliRunner().invoke(app, [*args, "--debug", "--force"])
    assert "Traceback" not in quiet.output
    assert "Traceback" in loud.output and "ZeroDivisionError: injected fault" in loud.output


def test_a_fault_while_parsing_one_card(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                        ) -> None:
    real = cards_module.synthetic_hooks.parsers

    def parsers(path: Path, raw: bytes, name: str, select: str | None = None) -> Any:
        if path.name == "chain.yaml":
            yield "", _boom
            return
        yield from real(path, raw, name, select)

    monkeypatch.setattr(cards_module.synthetic_hooks, "parsers", parsers)
    cards = write_cards(tmp_path / "cards")
    for command in ("compile", "validate"):
        extra = ["--out", str(tmp_path / "data")] if command == "compile" else []
        result = CliRunner().invoke(app, [command, str(cards), *extra])
        assert result.exit_code == 1 and "Traceback" not in result.output
        assert "SCM901" in result.output and "internal error while loading" in result.output
    doc = json.loads((tmp_path / "data" / "manifest.json").read_text())
    assert doc["counts"] == {"released": 1, "rejected": 2, "failed": 1}


def test_validate_isolates_a_card_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module, name, card_of = STAGES["sampling"]
    monkeypatch.setattr(module, name, _only_for_victim(getattr(module, name), card_of))
    result = CliRunner().invoke(app, ["validate", str(write_cards(tmp_path / "cards"))])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.count(": ok") == 1 and "SCM901" in result.output


def test_a_lost_worker_fails_its_card_only() -> None:
    task = driver.Task(0, None, CardResult("c.yaml", "0" * 64), Path("."),  # type: ignore[arg-type]
                       ProtocolOverrides(), True, ())
    res = driver._result(_boom, task)  # type: ignore[arg-type]
    assert res.status == "failed" and res.diagnostics[0].code == "SCM901"
    assert "while running in a worker" in res.diagnostics[0].message
