"""The replay helpers give, bit for bit, what a natural ``run_pass`` holds on the same rows.

``natural_rows`` draws every stream in full but evaluates the mechanisms on chosen rows
only; ``natural_steps`` reruns single variables on given columns. The
``intervention_effect`` gate trusts both to stand in for a natural pass, so each is
checked here against ``run_pass`` on cards that use every kind of draw: normal and
other roots, copula and standardising blocks, additive and multiplicative noise of
each kind, random-draw sites, piecewise equations and constants.
"""

from __future__ import annotations

import numpy as np
import pytest

from scmspec.api import compile_text
from scmspec.samplers.numpy_sampler import run_pass
from scmspec.samplers.replay import natural_rows, natural_steps, rowwise
from scmspec.samplers.streams import Streams

EQUATIONS = """
id: replay
title: every draw the replay must repeat
family: semantic
domain: test
variables:
  a: {meaning: m, distribution: {kind: normal, mean: 1.5, sd: 2.0}}
  b: {meaning: m, distribution: {kind: uniform, low: 0, high: 2}}
  c: {meaning: m, distribution: {kind: gamma, shape: 2.0, rate: 1.0}}
  g: {meaning: m, distribution: {kind: gaussian_mixture, weights: [0.3, 0.7], means: [-1, 2],
      sds: [0.5, 1.0]}}
  k: {meaning: m, kind: count, distribution: {kind: poisson, rate: 3.0}}
  u: {meaning: m, distribution: {kind: lognormal, meanlog: 0.0, sdlog: 0.5}}
  v: {meaning: m, distribution: {kind: normal}}
  w: {meaning: m, distribution: {kind: exponential, rate: 2.0}}
  s: {meaning: m, distribution: {kind: normal, sd: 3.0}}
  y1: {meaning: m, equation: 'a * b + 0.1 * g', noise: {kind: normal, sd: 0.3}}
  y2: {meaning: m, equation: 'exp(0.2 * y1) + u', noise: {kind: laplace, scale: 0.5}}
  y3: {meaning: m, equation: 'where(a > 1, y1, 0.3 * y1)', noise: {kind: student_t, df: 4,
       scale: 0.2}}
  y4: {meaning: m, equation: '1 + 0.5 * c', noise: {kind: lognormal, sigma: 0.1,
       mode: multiplicative}}
  y5: {meaning: m, equation: 'tanh(y2 - y3)', noise: {kind: heteroskedastic, base: 0.1,
       slope: 0.2}}
  y6: {meaning: m, equation: 'y4 + k', noise: {kind: quantised, step: 0.25, sd: 0.1}}
  y7: {meaning: m, equation: 'y5 * v', noise: {kind: censored, sd: 0.2, low: -1, high: 1}}
  y8: {meaning: m, equation: 'y6 - w', noise: {kind: mixture_outlier, sd: 0.2,
       outlier_prob: 0.05, outlier_scale: 3.0}}
  e1: {meaning: m, kind: binary, equation: 'bernoulli(sigmoid(y1 - y7))'}
  e2: {meaning: m, kind: count, equation: 'poisson(exp(0.1 * y8)) + poisson(1 + 0.01 * s**2)'}
  f1: {meaning: m, role: formula, equation: '2 * e1 + e2', noise: {kind: none}}
  f2: {meaning: m, equation: '4'}
edges:
  - {from: a, to: y1, reason: r}
  - {from: b, to: y1, reason: r}
  - {from: g, to: y1, reason: r}
  - {from: y1, to: y2, reason: r}
  - {from: u, to: y2, reason: r}
  - {from: a, to: y3, reason: r}
  - {from: y1, to: y3, reason: r}
  - {from: c, to: y4, reason: r}
  - {from: y2, to: y5, reason: r}
  - {from: y3, to: y5, reason: r}
  - {from: y4, to: y6, reason: r}
  - {from: k, to: y6, reason: r}
  - {from: y5, to: y7, reason: r}
  - {from: v, to: y7, reason: r}
  - {from: y6, to: y8, reason: r}
  - {from: w, to: y8, reason: r}
  - {from: y1, to: e1, reason: r}
  - {from: y7, to: e1, reason: r}
  - {from: y8, to: e2, reason: r}
  - {from: s, to: e2, reason: r}
  - {from: e1, to: f1, reason: r}
  - {from: e2, to: f1, reason: r}
root_blocks:
  - {kind: gaussian_copula, variables: [a, b], correlation: [[1, 0.6], [0.6, 1]]}
  - {kind: uniform_ball, variables: [c, g]}
  - {kind: independent, variables: [s], loc: [0.5], scale: [3.0]}
"""

ROWS = [slice(800, 1000), slice(0, 1000), slice(3, 4), np.array([0, 17, 401, 999]),
        np.array([5, 5, 2])]


@pytest.mark.parametrize("rows", ROWS, ids=["tail", "all", "one", "scattered", "repeated"])
@pytest.mark.parametrize("seed", [0, 7])
def test_natural_rows_are_the_rows_of_a_natural_pass(rows: slice | np.ndarray,
                                                     seed: int) -> None:
    plan = compile_text(EQUATIONS).plan
    assert rowwise(plan)
    full = run_pass(plan, 1000, Streams(seed, "replay", "obsint", 0))
    table = natural_rows(plan, 1000, Streams(seed, "replay", "obsint", 0), rows)
    assert table.shape[0] == len(plan.steps)
    for step, got in zip(plan.steps, table):
        assert got.tobytes() == full[step.name][rows].tobytes(), step.name


def test_natural_steps_rerun_single_variables_on_natural_columns() -> None:
    plan = compile_text(EQUATIONS).plan
    full = run_pass(plan, 500, Streams(3, "replay", "obsint", 1))
    names = [s.name for s in plan.steps]
    again = natural_steps(plan, names, full, 500, Streams(3, "replay", "obsint", 1))
    for v in names:
        assert again[v].tobytes() == full[v].tobytes(), v


STRUCTURED = """
id: structured
title: structured mechanisms multiply matrices
family: synthetic
domain: test
variables:
  a: {meaning: m, distribution: {kind: normal}}
  b: {meaning: m, distribution: {kind: normal}}
  c:
    meaning: m
    mechanism: {kind: mlp, inputs: [a, b], hidden_weights: [[1.0, -0.5], [0.3, 2.0]],
                hidden_bias: [0.1, -0.2], output_weights: [0.7, -1.1]}
    noise: {kind: rff_heteroskedastic, inputs: [a, b], omega: [[1.0, -0.5], [0.3, 2.0]],
            phases: [0.1, 2.0], weights: [0.7, -1.1], output_scale: 0.5}
edges:
  - {from: a, to: c, reason: r}
  - {from: b, to: c, reason: r}
"""


def test_rowwise_is_false_for_matrix_products_and_all_rows_still_match() -> None:
    plan = compile_text(STRUCTURED).plan
    assert not rowwise(plan)  # the rff noise multiplies matrices
    assert not rowwise(compile_text(EQUATIONS).plan, structured=["y1"])
    full = run_pass(plan, 300, Streams(1, "structured", "obsint", 0))
    table = natural_rows(plan, 300, Streams(1, "structured", "obsint", 0), slice(0, 300))
    for step, got in zip(plan.steps, table):  # the same batch: the same BLAS calls
        assert got.tobytes() == full[step.name].tobytes(), step.name
