"""Effect truth against closed forms on 20 random linear-Gaussian SCMs.

For X = B^T X + E the total effect of x_i on x_j is T[i, j] with T = (I - B)^-1, and
moving x_i by Delta moves x_j by exactly T[i, j] Delta on every row (descendants are
recomputed from the same noise). The oracle computes T from the *test's own* weights
(not from scmspec's linear-Gaussian detection) and the handler's mean shift from its
definition, then requires every Monte Carlo estimate within 4 of its standard errors.
Unit contrasts are deterministic on every row (standard error ~1e-17), so they must
agree to rounding (1e-9). Non-descendants must be exactly 0 with a standard error of 0.
The reported standard errors must also be honest: the z-scores' root mean square is
near 1, so a too-large standard error cannot pass the 4-SE check vacuously.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pandas as pd
import pytest

import scmspec
from scmspec.effects import effect_truth
from scmspec.effects.exact import linear_gaussian
from tests.oracles.cards import LinearGaussian, random_linear_gaussian

SCMS = [(6 + k % 5, 100 + k) for k in range(20)]  # (d, seed): 20 random SCMs, d 6-10
ROWS = 20_000
Z = 4.0
ROUNDING = 1e-9


def random_handlers(model: LinearGaussian, seed: int) -> dict[str, dict[str, Any]]:
    """One handler per variable, cycling through every kind with random parameters."""
    rng = np.random.default_rng(seed)
    kinds: list[dict[str, Any]] = [
        {"kind": "do", "value": float(rng.uniform(-2, 2))},
        {"kind": "shift", "by": float(rng.uniform(-1, 1))},
        {"kind": "shift", "iqr": float(rng.uniform(0.2, 0.8))},
        {"kind": "scale", "factor": float(rng.uniform(0.5, 1.5))},
        {"kind": "resample"},
        {"kind": "setpoint", "percentile": float(rng.uniform(0.2, 0.8))},
        {"kind": "soft", "softness": 0.45},
        {"kind": "soft", "softness": 0.3, "value": float(rng.uniform(-1, 1))},
    ]
    order = rng.permutation(len(model.names))
    return {model.names[i]: kinds[k % len(kinds)] for k, i in enumerate(order)}


def mean_shift(handler: dict[str, Any], mean: float, base: np.ndarray) -> float:
    """E[x' - x] of a handler, from its definition (docs/card-language.md)."""
    kind = handler["kind"]
    if kind == "do":
        return handler["value"] - mean
    if kind == "shift":
        if "by" in handler:
            return handler["by"]
        q25, q75 = np.quantile(base, [0.25, 0.75])
        return handler["iqr"] * (q75 - q25)
    if kind == "scale":
        return (handler["factor"] - 1.0) * mean
    if kind == "resample":
        return float(np.mean(np.quantile(base, [0.1, 0.9]))) - mean
    if kind == "setpoint":
        return float(np.quantile(base, handler["percentile"])) - mean
    value = handler.get("value", float(np.mean(np.quantile(base, [0.1, 0.9]))))
    return handler["softness"] * (value - mean)


@cache
def case(d: int, seed: int) -> tuple[LinearGaussian, dict[str, dict[str, Any]], pd.DataFrame,
                                     dict[str, np.ndarray]]:
    model = random_linear_gaussian(d, seed)
    handlers = random_handlers(model, seed)
    truth = effect_truth(scmspec.compile(model.card(handlers)), rows=ROWS, seed=seed)
    return model, handlers, truth.table, truth.control


def oracle(model: LinearGaussian, handlers: dict[str, dict[str, Any]], table: pd.DataFrame,
           control: dict[str, np.ndarray]) -> pd.Series:
    """The closed-form value of every row (population all, mean differences)."""
    total = np.linalg.inv(np.eye(len(model.names)) - model.weights)
    mean, _ = model.moments()
    index = {n: i for i, n in enumerate(model.names)}
    out = []
    for r in table.itertuples():
        tau = total[index[r.target], index[r.outcome]]
        if r.contrast == "unit":
            out.append(tau * r.delta)
        else:
            i = index[r.target]
            out.append(tau * mean_shift(handlers[r.target], mean[i], control[r.target]))
    return pd.Series(out, index=table.index)


@pytest.mark.parametrize("d,seed", SCMS, ids=[f"d{d}-s{s}" for d, s in SCMS])
def test_monte_carlo_effects_match_the_closed_form(d: int, seed: int) -> None:
    model, handlers, table, control = case(d, seed)
    assert set(table["population"]) == {"all"} and set(table["stratum"]) == {""}
    expected = oracle(model, handlers, table, control)
    stochastic = table["se"] > ROUNDING
    z = (table["estimate"] - expected).abs() / table["se"].where(stochastic)
    assert (z[stochastic] < Z).all(), table.assign(z=z)[z >= Z]
    exact_rows = ~stochastic
    assert np.allclose(table["estimate"][exact_rows], expected[exact_rows], rtol=0,
                       atol=ROUNDING)
    # scmspec's own closed form (column `exact`) agrees with the test's oracle
    assert np.allclose(table["exact"], expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("d,seed", SCMS, ids=[f"d{d}-s{s}" for d, s in SCMS])
def test_non_descendants_are_exactly_zero(d: int, seed: int) -> None:
    model, _, table, _ = case(d, seed)
    off = table[table["descendant"] == 0]
    assert len(off) > 0 and (off["estimate"] == 0.0).all() and (off["se"] == 0.0).all()
    on = table[(table["descendant"] == 1) & (table["contrast"] == "card")]
    moved = on[on["estimate"] != 0.0]
    assert len(moved) > 0


def test_standard_errors_are_calibrated() -> None:
    """Across the 20 SCMs the z-scores of the stochastic rows have RMS near 1."""
    zs = []
    for d, seed in SCMS:
        model, handlers, table, control = case(d, seed)
        expected = oracle(model, handlers, table, control)
        rows = table["se"] > ROUNDING
        zs.append(((table["estimate"] - expected) / table["se"])[rows])
    z = pd.concat(zs)
    assert len(z) > 200
    assert 0.75 < float(np.sqrt(np.mean(z**2))) < 1.25, float(np.sqrt(np.mean(z**2)))


TWO_NODES = """
id: nl
title: nl
family: semantic
domain: d
variables:
  x: {{meaning: a, distribution: {{kind: normal}}}}
  y: {{meaning: b, equation: {equation}, noise: {noise}}}
edges: [{{from: x, to: y, reason: r}}]
"""


def test_the_detection_refuses_what_is_not_linear_gaussian() -> None:
    model = random_linear_gaussian(5, 1)
    assert linear_gaussian(scmspec.compile(model.card())) is not None
    linear = "{kind: normal, sd: 1}"
    assert linear_gaussian(scmspec.compile_text(TWO_NODES.format(
        equation="2 * x + 1", noise=linear))) is not None
    for equation, noise in [("x * x", linear), ("2 * x", "{kind: laplace, scale: 1}"),
                            ("2 * x + normal(0, 1)", "{kind: none}")]:
        scm = scmspec.compile_text(TWO_NODES.format(equation=f"'{equation}'", noise=noise))
        assert linear_gaussian(scm) is None, equation
