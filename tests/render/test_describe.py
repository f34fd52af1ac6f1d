"""Mechanisms shown to people: families, text and MathML (names kept whole, cases for piecewise)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import sympy as sp

import scmspec
from scmspec.render.describe import (
    effective_role,
    mechanism_family,
    mechanism_mathml,
    mechanism_text,
    to_mathml,
)

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "render"


def test_mathml_keeps_underscored_names_whole_and_prints_cases() -> None:
    x = sp.Symbol("bp_limit", real=True)
    text = to_mathml(sp.Piecewise((1, x > 3), (0, True)))
    assert "<mi>bp_limit</mi>" in text and "<msub>" not in text
    assert "<mtable" in text and "otherwise" in text and "&Invisible" not in text


def test_clinic_mechanisms() -> None:
    compiled = scmspec.compile_file(GOLDEN / "clinic.yaml").compiled
    assert [effective_role(compiled.card.variables[v]) for v in ("age", "dose", "bp")] == \
        ["root", "setting", "measurement"]
    assert mechanism_family(compiled, "high_bp") == "threshold"
    assert mechanism_family(compiled, "visit") == "event_draw"
    assert mechanism_text(compiled, "age").startswith("~ uniform(")
    assert mechanism_text(compiled, "bp").endswith("+ normal(sd=5.0)")
    bp = mechanism_mathml(compiled, "bp")
    assert bp.startswith('<span class="eq"><span class="term"><math display="inline" '
                         'alttext="bp = ')
    assert "<mi>bp_per_mg</mi>" in bp and "&#x3B5;" in bp  # constants by name, noise as epsilon
    visit = mechanism_mathml(compiled, "visit")
    assert "<mi>bernoulli</mi>" in visit and "<mn>0</mn><mo>)" not in visit  # site index hidden
    assert mechanism_mathml(compiled, "age").startswith("<code>~ uniform(")


def _math(expr_text: str, name: str = "y") -> str:
    """mechanism_mathml of a one-equation card ``name = expr_text`` over x1..x8."""
    import scmspec

    parents = sorted({t for t in re.findall(r"[a-z_][a-z0-9_]*", expr_text)
                      if t not in ("exp", "sqrt")})
    lines = ["id: d", "title: d", "family: semantic", "domain: d", "variables:"]
    lines += [f"  {p}: {{meaning: m, distribution: {{kind: normal}}}}" for p in parents]
    lines += [f"  {name}: {{meaning: m, equation: '{expr_text}'}}", "edges:"]
    lines += [f"  - {{from: {p}, to: {name}, reason: r}}" for p in parents]
    scm = scmspec.compile_text("\n".join(lines) + "\n")
    return mechanism_mathml(scm.compiled, name)


def _visible(mathml: str) -> str:
    """The characters a reader sees, tags dropped."""
    return html.unescape(re.sub(r"<[^>]+>", "", mathml))


def test_a_short_equation_is_one_math_element() -> None:
    text = _math("2 * alpha + beta")
    assert text.startswith("<math") and text.count("<math") == 1


def test_a_long_sum_is_one_wrappable_box_per_term() -> None:
    names = [f"long_variable_name_{i}" for i in range(6)]
    text = _math(" + ".join(names) + " - 3 * other_long_name")
    assert text.startswith('<span class="eq">')
    assert text.count('<span class="term">') == 7 and text.count("<math") == 7
    assert 'alttext="y = ' in text.split("</math>")[0]  # the whole equation, once
    seen = _visible(text)
    assert all(n in seen for n in names) and "\u2212" in seen  # the minus sign kept


def test_a_long_fraction_is_written_linearly_with_balanced_parentheses() -> None:
    text = _math("(first_long_numerator_term + second_long_numerator_term) / "
                 "(exp(first_long_denominator_term) + second_long_denominator_term + 1)")
    seen = _visible(text)
    assert "/" in seen and "<mfrac>" not in text.split("</math>")[0]
    depth = 0
    for ch in seen:  # every parenthesis opened is closed, never below zero
        depth += {"(": 1, ")": -1}.get(ch, 0)
        assert depth >= 0
    assert depth == 0
    assert text.count('<span class="term">') >= 4
