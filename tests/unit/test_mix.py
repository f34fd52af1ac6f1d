"""The library's composition categories (CausalArena's Figure 18 labels), one rule each."""

from __future__ import annotations

import pytest

from scmspec.authoring.mix import composition, mechanism_category, noise_category
from scmspec.compiler.pipeline import compile_card, parse_card_text
from scmspec.compiler.resolve import ResolvedCard

HEAD = """id: mix
title: Mix
family: FAMILY
domain: d
variables:
  a: {meaning: m, distribution: {kind: lognormal, meanlog: 0, sdlog: 0.3}}
  b: {meaning: m, distribution: {kind: lognormal, meanlog: 0, sdlog: 0.3}}
  y: {meaning: m, SPEC}
edges: [{from: a, to: y, reason: r}, {from: b, to: y, reason: r}]
"""


def _resolved(spec: str, family: str = "semantic") -> ResolvedCard:
    text = HEAD.replace("SPEC", spec).replace("FAMILY", family)
    return compile_card(*parse_card_text(text)).resolved


@pytest.mark.parametrize(("spec", "category"), [
    ("equation: 'poisson(a + b)', kind: count", "event_count"),
    ("equation: 'where(a > 1, 2, where(b > 1, 1, 0))', kind: ordinal, levels: [lo, mid, hi]",
     "ordinal_categorical"),
    ("equation: a + b", "stock_flow"),
    ("role: readout, equation: 2 * a + b + 1, noise: {kind: normal, sd: 0.1}",
     "calibration_offset"),
    # a reading plus a drift has the sum form of a stock and its inflow: still calibration
    ("role: readout, equation: a + b, noise: {kind: normal, sd: 0.1}", "calibration_offset"),
    ("equation: 'where(a > b, 3, 0)'", "threshold"),
    ("equation: 'where(a > 1, 2 * b, b + 5)'", "regime_switch"),
    ("equation: 'min(a, b)'", "clamp_minmax"),
    ("equation: 2 * sigmoid(a - b) + 1", "sigmoid_index"),
    ("equation: a / (a + b)", "ratio_normalization"),
    ("equation: 0.5 * a - 0.2 * b, noise: {kind: normal, sd: 0.1}", "linear_affine"),
    ("role: formula, equation: a * b", "physical_law"),
    ("role: formula, equation: a * exp(-b / a)", "explicit_equation"),
])
def test_each_rule(spec: str, category: str) -> None:
    assert mechanism_category("y", _resolved(spec)) == category


def test_an_accumulation_is_affine_in_a_formula_card() -> None:
    """The paper's formula mix has no stock-flow label: a reference level minus a drop
    there is a linear-affine relation; the same sum in a semantic card is a stock and a
    flow."""
    spec = "equation: a - b"
    assert mechanism_category("y", _resolved(spec, "formula")) == "linear_affine"
    assert mechanism_category("y", _resolved(spec)) == "stock_flow"


@pytest.mark.parametrize(("spec", "noise"), [
    ("equation: a + b", "none"),
    ("equation: a + b, noise: {kind: student_t, df: 4, scale: 0.1}", "student_t"),
    ("equation: 'bernoulli(sigmoid(a - b))', kind: binary", "bernoulli"),
    # Figure 18's count-style families each have their own bar
    ("equation: 'binomial(10, sigmoid(a - b))', kind: count", "binomial"),
    ("equation: 'poisson(a + b)', kind: count", "poisson"),
    ("equation: 'negative_binomial(a + b, 3)', kind: count", "negative_binomial"),
    ("equation: 'a * gamma_draw(b, 4)'", "gamma"),
    ("equation: a + b, noise: {kind: mixture_outlier, sd: 0.1, outlier_prob: 0.05, "
     "outlier_scale: 1}", "mixture"),
])
def test_noise_categories(spec: str, noise: str) -> None:
    assert noise_category("y", _resolved(spec)) == noise


def test_edges_take_their_childs_category_and_roots_carry_no_noise() -> None:
    mix = composition(_resolved("equation: a + b"))
    assert mix.mechanisms == {"stock_flow": 2} and mix.roots == 2
    assert mix.noise == {"none": 1} and mix.edge_share("stock_flow") == 100.0
