"""Unit messages that say what pint read and what would fix it (issue 20, unit diagnostics).

Each test failed on main: "cups" was silently a volume (written 'cp'), an h/d constant was
called dimensionless, hints told authors to give a unit to constants that are genuinely
dimensionless, suggested kJ*K/J where K is meant, and ``w - w`` was "does not use 'w'".
"""

from __future__ import annotations

import pytest

from scmspec.api import compile_text
from scmspec.errors import CardError, Diagnostic


def diagnostic(constants: str, y: str) -> Diagnostic:
    text = ("id: t\ntitle: t\nfamily: formula\ndomain: d\n" + constants +
            "variables:\n  w: {meaning: m, unit: kg, distribution: {kind: uniform, low: 1, "
            "high: 2}}\n  y: " + y + "\nedges: [{from: w, to: y, reason: r}]\n")
    with pytest.raises(CardError) as err:
        compile_text(text)
    return err.value.diagnostics[0]


def test_an_ambiguous_unit_says_how_pint_reads_it() -> None:
    d = diagnostic("", "{meaning: m, unit: cups, equation: w}")
    assert d.code == "SCM404"
    assert "'cup' is read by pint as cup, a volume (US cup, 236.6 mL)" in (d.hint or "")
    assert "cp" not in (d.hint or "").replace("cup", "")  # pint's symbol 'cp' never shows


def test_a_ratio_unit_is_not_called_dimensionless() -> None:
    d = diagnostic("constants: {c: {value: 1, unit: h/d}}\n",
                   "{meaning: m, unit: kg, equation: w + c}")
    assert d.code == "SCM402"
    assert "h/d (a ratio: no net dimension)" in d.message
    assert "to dimensionless" not in d.message


def test_the_unit_a_unitless_constant_needs_is_suggested() -> None:
    d = diagnostic("constants: {k: {value: 2}}\n", "{meaning: m, unit: kg, equation: w + k}")
    assert "give it the unit kg ([mass])" in (d.hint or "")
    d = diagnostic("constants: {k: {value: 2}}\n",
                   "{meaning: m, unit: dimensionless, equation: exp(k * w)}")
    assert d.code == "SCM403" and "give it the unit 1/kg" in (d.hint or "")
    d = diagnostic("constants: {k: {value: 2}}\n", "{meaning: m, unit: m, equation: k * w}")
    assert "give it the unit m/kg" in (d.hint or "")


def test_a_genuinely_dimensionless_constant_is_not_asked_for_a_unit() -> None:
    d = diagnostic("constants: {k: {value: 2}}\n", "{meaning: m, unit: m, equation: exp(k) * w}")
    assert d.code == "SCM404" and "has no unit" not in (d.hint or "")
    assert "'k'" not in (d.hint or "")


def test_a_suggested_unit_cancels_names_of_one_dimension() -> None:
    d = diagnostic("constants: {k: {value: 2, unit: J}}\n",
                   "{meaning: m, unit: kJ*K, equation: w * k}")
    assert "lacks a factor of K/kg" in (d.hint or "")
    assert "kJ*K/J" not in (d.hint or "") and "K*kJ/J" not in (d.hint or "")


def test_terms_that_cancel_are_not_called_unused() -> None:
    text = ("id: t\ntitle: t\nfamily: formula\ndomain: d\nvariables:\n"
            "  w: {meaning: m, unit: kg, distribution: {kind: uniform, low: 1, high: 2}}\n"
            "  v: {meaning: m, unit: kg, distribution: {kind: uniform, low: 1, high: 2}}\n"
            "  y: {meaning: m, unit: kg, equation: w - w + v}\n"
            "edges: [{from: w, to: y, reason: r}, {from: v, to: y, reason: r}]\n")
    with pytest.raises(CardError) as err:
        compile_text(text)
    d = err.value.diagnostics[0]
    assert d.code == "SCM304" and "does not use" not in d.message
    assert "writes 'w' in its equation in terms that cancel (it simplifies to 'v')" in d.message
