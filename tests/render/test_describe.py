"""Mechanisms shown to people: families, text and MathML (names kept whole, cases for piecewise)."""

from __future__ import annotations

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
    assert bp.startswith('<math display="inline" alttext="bp = ')
    assert "<mi>bp_per_mg</mi>" in bp and "&#x3B5;" in bp  # constants by name, noise as epsilon
    visit = mechanism_mathml(compiled, "visit")
    assert "<mi>bernoulli</mi>" in visit and "<mn>0</mn><mo>)" not in visit  # site index hidden
    assert mechanism_mathml(compiled, "age").startswith("<code>~ uniform(")
