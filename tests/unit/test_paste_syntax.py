"""Paste-able syntax and functions (issue 12, items 8 and 2): sympy's spellings are aliases
inside the same whitelist (never sympify), and Phi, erf, erfc, logit, expit match scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

from scmspec.api import compile_text
from scmspec.compiler.expressions import ExpressionIssue, parse_equation


@pytest.mark.parametrize(("pasted", "native"), [
    ("Piecewise((a, x > 1), (b, True))", "piecewise(x > 1, a, b)"),
    ("Piecewise((a, x > 1), (b, x > 0), (0, True))", "piecewise(x > 1, a, x > 0, b, 0)"),
    ("Min(a, b) + Max(a, b, x)", "min(a, b) + max(a, b, x)"),
    ("Abs(x) + ceiling(a)", "abs(x) + ceil(a)"),
    ("where((x > 1) & (a < 2), a, b)", "where(x > 1 and a < 2, a, b)"),
    ("where((x > 1) | (a < 2), a, b)", "where(x > 1 or a < 2, a, b)"),
    ("where(~(x > 1), a, b)", "where(not x > 1, a, b)"),
    ("Φ(x)", "Phi(x)"),
])
def test_sympy_spellings_parse_to_the_native_expression(pasted: str, native: str) -> None:
    assert parse_equation(pasted).expr == parse_equation(native).expr


@pytest.mark.parametrize(("text", "said"), [
    ("x > 1 & a < 2", "put parentheses around each comparison"),
    ("Piecewise((a, x > 1))", "no default"),
    ("Piecewise((a, True), (b, x > 1))", "only the last pair"),
    ("Piecewise(a, b)", "pair (value, condition)"),
    ("Piecewise((x > 1, a), (b, True))", "takes a number here"),
    ("~x", "applies only to conditions"),
    ("a & b", "combines conditions"),
    ("Piecewise((__import__('os'), True))", "unknown function '__import__'"),
    ("Piecewise((x.real, True))", "attribute access"),
])
def test_misuse_of_the_aliases_is_a_located_issue(text: str, said: str) -> None:
    with pytest.raises(ExpressionIssue) as err:
        parse_equation(text)
    assert said in err.value.message + err.value.hint


def test_aliases_are_reserved_names() -> None:
    text = ("id: t\ntitle: t\nfamily: formula\ndomain: d\nvariables:\n"
            "  Max: {meaning: m, distribution: {kind: normal}}\nedges: []\n")
    with pytest.raises(Exception, match="reserved"):
        compile_text(text)


def test_new_functions_match_scipy_and_pasted_piecewise_samples() -> None:
    text = ("id: t\ntitle: t\nfamily: formula\ndomain: d\nvariables:\n"
            "  x: {meaning: m, distribution: {kind: uniform, low: 0.01, high: 0.99}}\n"
            "  y: {meaning: m, role: formula, equation: 'Phi(x) + 2 * erf(x) + 3 * erfc(x) + "
            "5 * logit(x) + 7 * expit(x)'}\n"
            "  z: {meaning: m, role: formula, equation: 'Piecewise((Max(x, 0.5), (x > 0.3) & "
            "(x < 0.8)), (Min(x, 0.2), True))'}\n"
            "edges: [{from: x, to: y, reason: r}, {from: x, to: z, reason: r}]\n")
    d = compile_text(text).sample(2000, seed=4)
    x = d["x"].to_numpy()
    want = (special.ndtr(x) + 2 * special.erf(x) + 3 * special.erfc(x) + 5 * special.logit(x)
            + 7 * special.expit(x))
    np.testing.assert_allclose(d["y"], want, rtol=1e-14, atol=1e-14)
    np.testing.assert_array_equal(d["z"], np.where((x > 0.3) & (x < 0.8), np.maximum(x, 0.5),
                                                   np.minimum(x, 0.2)))


def test_functions_need_plain_numbers() -> None:
    text = ("id: t\ntitle: t\nfamily: formula\ndomain: d\nunits: strict\nvariables:\n"
            "  x: {meaning: m, unit: m, distribution: {kind: uniform, low: 0.1, high: 0.9}}\n"
            "  y: {meaning: m, equation: 'Phi(x)'}\nedges: [{from: x, to: y, reason: r}]\n")
    with pytest.raises(Exception, match="SCM403"):
        compile_text(text)
