"""Error goldens: every bad card in tests/golden/errors renders exactly as its .txt says.

Each ``<case>.yaml`` is parsed and compiled like ``scmspec compile`` does; the
pipeline must raise a :class:`~scmspec.errors.CardError` (never another
exception), and the rendered diagnostics (``file:line:col``, caret, hint) must
equal ``<case>.txt``. Rewrite the goldens with ``pytest --update-golden`` and
read the diff: a caret that moved is a regression in a diagnostic's location.

The hostile cards (code injection through equations or YAML tags) are also
compiled with ``eval``/``exec``/process spawning booby-trapped, to prove that
loading a card never executes anything it contains.
"""

from __future__ import annotations

import builtins
import os
import subprocess
from pathlib import Path

import pytest

from scmspec.compiler.pipeline import compile_card, parse_card
from scmspec.errors import CardError, render_diagnostic
from tests.conftest import check_golden

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "golden" / "errors"
CASES = sorted(p.stem for p in CORPUS.glob("*.yaml"))
HOSTILE = ("import_call", "import_system", "dunder_attribute", "lambda", "lambda_bare",
           "power_tower", "deep_nesting", "expression_too_deep", "python_tag",
           "billion_laughs", "yaml_too_deep", "long_numbers", "sexagesimal", "let_growth",
           "compatibility_name", "overflowing_constants", "binomial_huge_n")
SENTINEL = Path("scmspec_pwned")  # what the hostile cards try to create (in the cwd)

# Codes every corpus must exercise (the list of required cases maps onto these).
REQUIRED_CODES = {"SCM103", "SCM104", "SCM105", "SCM106", "SCM107", "SCM108", "SCM109",
                  "SCM110", "SCM111", "SCM201", "SCM301", "SCM302", "SCM303", "SCM304",
                  "SCM305", "SCM306", "SCM307", "SCM309", "SCM311", "SCM312", "SCM313",
                  "SCM314", "SCM116", "SCM117", "SCM315"}


def compile_path(path: Path) -> None:
    """Stages 1-5 on one card file, as ``scmspec compile`` runs them."""
    card, smap = parse_card(path)
    compile_card(card, smap)


def render_failure(path: Path) -> tuple[CardError, str]:
    """Compile a card expected to fail; return the error and its rendered text."""
    with pytest.raises(CardError) as info:
        compile_path(path)
    # The CLI shows the file's lines, decoded leniently (a non-UTF-8 card still gets a caret).
    lines = path.read_bytes().decode("utf-8", errors="replace").splitlines()
    text = "\n".join(render_diagnostic(d, lines) for d in info.value.diagnostics) + "\n"
    return info.value, text


@pytest.fixture(autouse=True)
def _relative_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    # Spans carry the path as given; run from the repo root so goldens hold repo paths.
    monkeypatch.chdir(HERE.parent)


def rel(case: str) -> Path:
    return (CORPUS / f"{case}.yaml").relative_to(HERE.parent)


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 20
    for case in HOSTILE:
        assert case in CASES, f"hostile case {case} missing from the corpus"


@pytest.mark.parametrize("case", CASES)
def test_error_golden(case: str, update_golden: bool) -> None:
    err, text = render_failure(rel(case))
    assert err.diagnostics, "a CardError must carry at least one diagnostic"
    for d in err.diagnostics:
        assert d.span is not None, f"{d.code} has no location"
        assert d.span.path == str(rel(case))
        assert d.span.line >= 1 and d.span.col >= 1
    check_golden(CORPUS / f"{case}.txt", text, update_golden)


def test_every_required_code_has_a_golden() -> None:
    seen = {line.split("error[", 1)[1][:6] for p in CORPUS.glob("*.txt")
            for line in p.read_text(encoding="utf-8").splitlines() if "error[SCM" in line}
    assert REQUIRED_CODES <= seen, f"no golden for {sorted(REQUIRED_CODES - seen)}"


def test_goldens_have_no_orphans() -> None:
    orphans = {p.stem for p in CORPUS.glob("*.txt")} - set(CASES)
    assert not orphans, f"golden without a card: {sorted(orphans)}"


class Executed(Exception):
    """Raised by a booby-trapped builtin: the card made scmspec run something."""


@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_cards_execute_nothing(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__
    forbidden = {"os", "subprocess", "posix", "pty", "shutil", "socket", "ctypes"}

    def trap(*args: object, **kwargs: object) -> None:
        raise Executed(f"{case} executed code: {args[:1]!r}")

    def guarded_import(name: str, *args: object, **kwargs: object) -> object:
        if name.split(".")[0] in forbidden:
            raise Executed(f"{case} imported {name}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setenv("SCMSPEC_MAX_YAML_NODES", "20000")  # billion laughs: fail sooner
    existed = SENTINEL.exists()
    monkeypatch.setattr(builtins, "eval", trap)
    monkeypatch.setattr(builtins, "exec", trap)
    monkeypatch.setattr(builtins, "__import__", guarded_import)
    monkeypatch.setattr(os, "system", trap)
    monkeypatch.setattr(os, "popen", trap)
    monkeypatch.setattr(subprocess, "Popen", trap)
    with pytest.raises(CardError):
        compile_path(rel(case))
    monkeypatch.undo()
    if not existed:
        assert not SENTINEL.exists(), f"{case} created {SENTINEL}"
