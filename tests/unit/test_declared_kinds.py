"""Values keep their declared kind (issue 12, item 9): each wrong value is refused.

Every test here failed on main before this change (the value was released, clamped or
silently kept); the poisson/normal ones guard the located SCM603 that already existed.
"""

from __future__ import annotations

import pytest

from scmspec.api import compile_text
from scmspec.errors import ResolveError, SamplingError

HEAD = """id: kinds
title: t
family: formula
domain: d
variables:
  x: {meaning: m, distribution: {kind: uniform, low: 0, high: 1}}
"""
EDGE = "edges: [{from: x, to: y, reason: r}]\n"


def card(y: str) -> str:
    return HEAD + "  y: " + y + "\n" + EDGE


def test_a_binary_equation_yielding_fractions_is_a_located_sampling_error() -> None:
    scm = compile_text(card("{meaning: m, kind: binary, role: process, equation: 'x'}"), "c.yaml")
    with pytest.raises(SamplingError) as err:
        scm.sample(1000, seed=1)
    d = err.value.diagnostics[0]
    assert d.code == "SCM604" and "'y' is binary" in d.message and "100.0% of rows" in d.message
    assert str(d.span) == "c.yaml:7:58"  # the quoted equation
    assert "indicator" in (d.hint or "")


def test_a_binary_equation_yielding_zero_and_one_passes() -> None:
    scm = compile_text(card("{meaning: m, kind: binary, role: process, "
                            "equation: 'where(x > 0.5, 1, 0)'}"))
    assert set(scm.sample(500, seed=1)["y"]) == {0.0, 1.0}


def test_a_share_of_rows_outside_zero_one_is_named() -> None:
    scm = compile_text(card("{meaning: m, kind: binary, role: process, "
                            "equation: 'where(x > 0.9, 2, 0)'}"))
    with pytest.raises(SamplingError) as err:
        scm.sample(10_000, seed=3)
    assert "gives 2 on 10." in err.value.diagnostics[0].message


def test_a_do_to_a_code_a_categorical_lacks_is_refused_at_load() -> None:
    text = card("{meaning: m, role: process, kind: categorical, levels: [a, b], "
                "equation: 'where(x > 0.5, 1, 0)', intervention: {meaning: m, "
                "handler: {kind: do, value: 7}}}")
    with pytest.raises(ResolveError) as err:
        compile_text(text, "c.yaml")
    d = err.value.diagnostics[0]
    assert d.code == "SCM311" and "not one of its level codes (0, 1; levels: a, b)" in d.message
    assert d.span is not None and d.span.line == 7


def test_a_do_of_two_on_a_binary_is_refused_at_load() -> None:
    text = card("{meaning: m, role: process, kind: binary, equation: 'where(x > 0.5, 1, 0)', "
                "intervention: {meaning: m, handler: {kind: do, value: 2}}}")
    with pytest.raises(ResolveError) as err:
        compile_text(text)
    assert "binary (0 or 1)" in err.value.diagnostics[0].message


def test_scm_do_with_a_value_that_is_not_a_level_raises_a_clear_error() -> None:
    scm = compile_text(card("{meaning: m, role: process, kind: categorical, levels: [a, b], "
                            "equation: 'where(x > 0.5, 1, 0)'}").replace("  y:", "  module:")
                       .replace("to: y", "to: module"))
    assert set(scm.do({"module": "b"}).sample(10, seed=1)["module"]) == {1.0}
    assert set(scm.do({"module": 0}).sample(10, seed=1)["module"]) == {0.0}
    with pytest.raises(ValueError, match="'module' set to 2.5, which is not one of its level"):
        scm.do({"module": 2.5})


def test_a_shift_handler_pushing_a_categorical_off_its_levels_is_refused() -> None:
    text = card("{meaning: m, role: process, kind: categorical, levels: [a, b], "
                "equation: 'where(x > 0.5, 1, 0)', intervention: {meaning: m, "
                "handler: {kind: shift, by: 1}}}")
    scm = compile_text(text)
    with pytest.raises(SamplingError) as err:
        scm.intervene({"y": {"kind": "shift", "by": 1}}).sample(1000, seed=1)
    d = err.value.diagnostics[0]
    assert d.code == "SCM604" and "its shift intervention gives 2" in d.message


@pytest.mark.parametrize(("equation", "problem"), [
    ("poisson(x - 2)", "poisson() with rate < 0 on 100.0% of rows"),
    ("normal(0, -x)", "normal() with sd <= 0 on 100.0% of rows"),
    ("poisson(x - 0.5)", "poisson() with rate < 0 on"),
])
def test_invalid_in_equation_draw_parameters_are_located_sampling_errors(
        equation: str, problem: str) -> None:
    scm = compile_text(card(f"{{meaning: m, role: process, equation: '{equation}'}}"), "c.yaml")
    with pytest.raises(SamplingError) as err:
        scm.sample(1000, seed=1)
    d = err.value.diagnostics[0]
    assert d.code == "SCM603" and problem in d.message and "'y'" in d.message
    assert d.span is not None and d.span.line == 7


def test_a_formula_node_with_a_random_draw_is_refused_at_the_draw() -> None:
    text = card("{meaning: m, role: formula, equation: 'x + normal(0, 1)'}")
    with pytest.raises(ResolveError) as err:
        compile_text(text, "c.yaml")
    d = err.value.diagnostics[0]
    assert d.code == "SCM318" and "formula node" in d.message and "normal()" in d.message
    line = text.splitlines()[d.span.line - 1]
    assert line[d.span.col - 1:].startswith("normal(0, 1)")


def test_a_formula_node_without_draws_and_a_process_with_one_pass() -> None:
    compile_text(card("{meaning: m, role: formula, equation: '2 * x'}"))
    compile_text(card("{meaning: m, role: process, equation: 'x + normal(0, 1)'}"))
