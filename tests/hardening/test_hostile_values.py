"""Hostile values (issue 22): refused with a located diagnostic, in bounded time and memory.

Compile-time refusals have error goldens (tests/golden/errors/: draw_invalid_constants,
complex_constants, let_growth, ...). This file holds what goldens cannot show: draws
whose parameters turn invalid only on some rows (SCM603, at sampling time), attacks
that used to hang or exhaust memory (each run in a forked child under a timeout and an
address-space limit, so a regression fails the test instead of the machine), and
checks that nothing complex ever reaches numpy.
"""

from __future__ import annotations

import contextlib
import io
import json
import multiprocessing as mp
import os
import resource
import textwrap
import traceback
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from scmspec.api import compile_text, spec_document
from scmspec.errors import CardError, SamplingError

ROOT = Path(__file__).resolve().parents[2]
CARD = """\
id: hostile
title: Hostile
family: semantic
domain: hardening
variables:
  x: {meaning: cause, distribution: {kind: normal}, intervention: {meaning: set x}}
  y: {meaning: effect, equation: "EQ", noise: {kind: normal, sd: 1}}
edges:
  - {from: x, to: y, reason: demo}
"""


def card(equation: str) -> str:
    return CARD.replace("EQ", equation)


# -- parameters that depend on the parents: checked on every row (SCM603) --------------
ROW_CASES = [
    ("x + normal(0, -x)", "normal() with sd <= 0"),
    ("x + poisson(-x)", "poisson() with rate < 0"),
    ("x + exponential(x)", "exponential() with rate <= 0"),
    ("x + uniform(x, 0)", "uniform() with high <= low"),
    ("x + bernoulli(x)", "bernoulli() with p outside [0, 1]"),
    ("x + binomial(2 * x, 0.5)", "binomial() with n < 0"),
    ("x + binomial(10, x)", "binomial() with p outside [0, 1]"),
    ("x + categorical(x, 1)", "categorical() with a weight < 0"),
    ("x + categorical(floor(abs(x) / 100), floor(abs(x) / 100))",
     "categorical() with all weights 0"),
]


@pytest.mark.parametrize(("equation", "problem"), ROW_CASES)
def test_draw_parameters_invalid_on_some_rows(equation: str, problem: str) -> None:
    scm = compile_text(card(equation), "hostile.yaml")
    with pytest.raises(SamplingError) as info:
        scm.sample(1000, seed=0)
    (diag,) = info.value.diagnostics
    assert diag.code == "SCM603"
    assert f"the equation of 'y' draws {problem} on " in diag.message
    assert "% of rows (" in diag.message
    assert diag.span is not None and (diag.span.path, diag.span.line) == ("hostile.yaml", 7)
    assert diag.field_path == "variables.y.equation" and diag.hint


def test_share_of_invalid_rows_is_reported() -> None:
    """About half the rows of a standard normal parent are negative."""
    scm = compile_text(card("x + normal(0, -x)"), "hostile.yaml")
    with pytest.raises(SamplingError) as info:
        scm.sample(1000, seed=0)
    share = float(info.value.diagnostics[0].message.split(" on ")[1].split("%")[0])
    assert 45.0 < share < 55.0


def test_valid_parent_dependent_draws_still_sample() -> None:
    scm = compile_text(card("poisson(abs(x)) + normal(0, 1 + abs(x)) + uniform(x, x + 1)"),
                       "ok.yaml")
    assert np.isfinite(scm.sample(500, seed=0)["y"]).all()


def test_interventions_that_make_parameters_invalid_are_refused() -> None:
    """do(x = -1) makes sd negative on every intervened row: a card error, not a crash."""
    scm = compile_text(card("x + normal(0, x + 5)"), "hostile.yaml")
    with pytest.raises(CardError) as info:
        scm.do({"x": -10.0}).sample(50, seed=0)
    assert info.value.diagnostics[0].code == "SCM603"
    assert "100.0% of rows" in info.value.diagnostics[0].message


# -- attacks that used to hang or blow up memory: isolated, under time and memory bounds --
def _address_space_mb() -> int:
    """This process's mapped address space (VmSize), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) // 1024
    raise RuntimeError("no VmSize in /proc/self/status")


def _bounded_child(code: str, memory_mb: int, env: dict[str, str], conn: Any) -> None:
    os.environ.update(env)
    limit = (_address_space_mb() + memory_mb) << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(PRELUDE + textwrap.dedent(code), {})
        conn.send(("ok", out.getvalue()))
    except BaseException:  # noqa: BLE001 - everything goes back to the test
        conn.send(("error", traceback.format_exc()[-3000:]))


def run_bounded(code: str, seconds: float, memory_mb: int = 2048,
                env: dict[str, str] | None = None) -> dict[str, object]:
    """Run ``code`` in a forked child with ``memory_mb`` more address space than the test
    process has mapped, and a timeout.

    The code prints one JSON line; a hang fails the test at the timeout (a C-level loop
    such as scipy's binomial quantile cannot be interrupted from inside the process, so
    the parent kills the child). Forking reuses the loaded modules: a fresh interpreter
    per case cost 2.5 CPU-s of imports, six times over.
    """
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_bounded_child, args=(code, memory_mb, env or {}, child))
    proc.start()
    child.close()
    try:
        if not parent.poll(seconds):
            raise AssertionError(f"no result within {seconds} s (a hang)")
        status, text = parent.recv()
    finally:
        proc.kill()
        proc.join()
    assert status == "ok", text
    return json.loads(text.strip().splitlines()[-1])


PRELUDE = """\
import json, time
from scmspec.errors import CardError
from scmspec.api import compile_text
from scmspec.compiler.pipeline import parse_card_text
start = time.process_time()
"""


OUTCOME = """
try:
    {action}
    out = {{"code": None}}
except CardError as exc:
    d = exc.diagnostics[0]
    out = {{"code": d.code, "message": d.message, "located": d.span is not None}}
out["seconds"] = time.process_time() - start
print(json.dumps(out))
"""


def outcome(action: str) -> str:
    return OUTCOME.format(action=action)


def test_binomial_with_a_huge_constant_n_is_refused_fast() -> None:
    text = card("binomial(1e18, 0.5) + 0 * x")
    out = run_bounded(outcome(f"compile_text({text!r}, 'h.yaml').sample(100, seed=0)"), 60)
    assert out["code"] == "SCM302" and "n > 1e+09" in str(out["message"]) and out["located"]
    assert float(out["seconds"]) < 5  # type: ignore[arg-type]


def test_binomial_with_a_huge_parent_dependent_n_is_refused_fast() -> None:
    text = card("binomial(1e18 * (1 + abs(x)), 0.5)")
    out = run_bounded(outcome(f"compile_text({text!r}, 'h.yaml').sample(100, seed=0)"), 60)
    assert out["code"] == "SCM603" and "n > 1e+09 on 100.0% of rows" in str(out["message"])
    assert float(out["seconds"]) < 5  # type: ignore[arg-type]


def test_aliased_text_is_bounded_in_memory() -> None:
    """One 100 kB string referenced by 40,000 aliases took 3.4 GB: now SCM108, in 1 GB."""
    code = textwrap.dedent("""
        big = "a" * 100_000
        text = "\\n".join(["id: r", "title: t", "family: semantic", "domain: d",
                          f"description: &s {big}", "tags:"] + ["  - *s"] * 40_000) + "\\n"
        """) + outcome("parse_card_text(text, 'aliases.yaml')")
    out = run_bounded(code, 60, memory_mb=1024)
    assert out["code"] == "SCM108" and out["located"]
    assert "over the limit of 20,000,000" in str(out["message"])
    assert float(out["seconds"]) < 10  # type: ignore[arg-type]


def test_huge_base60_number_is_refused_fast() -> None:
    """A 4.5 MB base-60 integer took quadratic time to convert; now refused unbuilt."""
    code = textwrap.dedent("""
        text = "id: r\\nversion: " + "1:" * 2_250_000 + "1\\n"
        """) + outcome("parse_card_text(text, 'b60.yaml')")
    out = run_bounded(code, 60)
    assert out["code"] == "SCM116" and out["located"]
    assert float(out["seconds"]) < 10  # type: ignore[arg-type]


def test_doubling_let_chain_is_refused_fast() -> None:
    lets = ["  a0: {equation: x + 1}"] + [f"  a{i}: {{equation: a{i - 1} * x + a{i - 1}}}"
                                          for i in range(1, 25)]
    text = card("a24").replace("edges:", "let:\n" + "\n".join(lets) + "\nedges:")
    out = run_bounded(outcome(f"compile_text({text!r}, 'lets.yaml')"), 60)
    assert out["code"] == "SCM315" and out["located"]
    assert "the let 'a12' expands to about" in str(out["message"])
    assert float(out["seconds"]) < 5  # type: ignore[arg-type]


def test_expression_node_limit_is_configurable() -> None:
    lets = ["  a0: {equation: x + 1}"] + [f"  a{i}: {{equation: a{i - 1} * x + a{i - 1}}}"
                                          for i in range(1, 8)]
    text = card("a7").replace("edges:", "let:\n" + "\n".join(lets) + "\nedges:")
    out = run_bounded(outcome(f"compile_text({text!r}, 'lets.yaml')"), 60,
                      env={"SCMSPEC_MAX_EXPRESSION_NODES": "100"})
    assert out["code"] == "SCM315" and "over the limit of 100" in str(out["message"])


# -- nothing complex reaches numpy; long chains are supported ---------------------------
NAN_NOT_COMPLEX = ["x ** 0.5", "log(x)", "sqrt(x)", "(-1) ** x", "asin(2 * x)", "x ** pi",
                   "log10(x) + acos(x)", "cbrt(x)", "(x - 5) ** 1.5"]


@pytest.mark.parametrize("equation", NAN_NOT_COMPLEX)
def test_parent_dependent_domain_errors_are_nan_never_complex(equation: str) -> None:
    """Negative parents give NaN (the finite gate's job), never a complex value."""
    scm = compile_text(card(equation), "nan.yaml")
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        y = scm.sample(200, seed=0)["y"].to_numpy()
    assert y.dtype == np.float64


def test_a_300_branch_piecewise_compiles_and_picks_the_first_true_branch() -> None:
    pairs = ", ".join(f"x < {(i - 150) / 50}, {i}" for i in range(300))
    scm = compile_text(card(f"piecewise({pairs}, 999)").replace(
        "noise: {kind: normal, sd: 1}", "noise: {kind: none}"), "pw.yaml")
    frame = scm.sample(500, seed=0)
    x, y = frame["x"].to_numpy(), frame["y"].to_numpy()
    below = x[:, None] < (np.arange(300) - 150) / 50
    expected = np.where(below.any(axis=1), below.argmax(axis=1), 999)
    assert np.array_equal(y, expected)


def test_spec_json_holds_only_finite_numbers() -> None:
    """Whatever a card says, spec.json can be written (no NaN or infinity reaches it)."""
    scm = compile_text(card("2 * x"), "ok.yaml")
    json.dumps(spec_document(scm), allow_nan=False)
