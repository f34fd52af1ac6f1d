"""Differential oracle: lambdified numpy equals sympy evaluation on zero-noise cards.

With no noise and no random draws every non-root is an exact function of its
parents, so each sampled row can be recomputed by substituting the parents'
sampled values into the resolved sympy expression and evaluating it at 30
digits. Lowering (constants substituted, functions mapped to numpy, the
lambdify cache) must agree to 1e-12 relative error, as sqlglot checks
optimized SQL against duckdb.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from tests.oracles.cards import compile_card

ROWS = 40
# Functions that sympy cannot evaluate by name get their textbook definitions.
DEFINITIONS = {
    "sigmoid": lambda a: 1 / (1 + sp.exp(-a)),
    "softplus": lambda a: sp.log(1 + sp.exp(a)),
    "round": lambda a: sp.Integer(int(np.round(float(a)))),
}

EQUATIONS = {
    "a": "exp(-x / 3) * sin(2 * y) + k * tanh(x - y)",
    "b": "sqrt(abs(a) + 1) * log1p(x ** 2) - cbrt(y) + atan2(y, x)",
    "c": "where(a > b, sigmoid(a - b), softplus(b - a)) + clip(x, -0.5, 0.5) ** 3",
    "d": "piecewise(c < 0.8, log(c + 2), c < 1.5, cosh(c), -c) + max(a, b, 0.25) * min(x, y)",
    "e": "floor(3 * y) + ceil(x) - 2 * (y % 0.7) + indicator(x > 0 and y < 0.5) + step(a)",
    "f": "(x + 1) ** 2.5 / (1 + y ** 2) - log10(2 + d ** 2) + log2(3 + abs(e)) + expm1(-abs(c))",
    "g": "x if e > 0 else -y * acos(clip(a / 10, -1, 1)) + asin(0.5 * sin(b)) + atan(f)",
    "h": "round(4 * sign(b) * abs(g)) / 4 + sinh(y / 2) - cos(pi * x) + tan(0.3 * x)",
}
PARENTS = {"a": "xy", "b": "axy", "c": "abx", "d": "abcxy", "e": "axy", "f": "cdexy",
           "g": "abefxy", "h": "bgxy"}


@pytest.fixture(scope="module")
def scm():  # noqa: ANN201 - an SCM
    variables = {
        "x": {"meaning": "x", "distribution": {"kind": "uniform", "low": -0.9, "high": 0.9}},
        "y": {"meaning": "y", "distribution": {"kind": "beta", "a": 2, "b": 2}},
        **{v: {"meaning": v, "equation": text} for v, text in EQUATIONS.items()},
    }
    edges = [(p, v) for v, ps in PARENTS.items() for p in ps]
    return compile_card(variables, edges, constants={"k": {"value": 0.75}})


def sympy_value(expr: sp.Expr, row: dict[str, float], constants: dict[sp.Symbol, sp.Float]
                ) -> float:
    subs = {sp.Symbol(k, real=True): sp.Float(v, 30) for k, v in row.items()}
    value = expr.xreplace(constants).xreplace(subs)  # numbers only from here on
    for name, definition in DEFINITIONS.items():
        value = value.replace(sp.Function(name), definition)
    return float(sp.N(value, 30))


def test_lowered_equations_equal_sympy_evaluation(scm) -> None:  # noqa: ANN001
    df = scm.sample(ROWS, seed=31, include_latent=True)
    resolved = scm.compiled.resolved
    constants = {sp.Symbol(k, real=True): sp.Float(c.value)
                 for k, c in scm.compiled.card.constants.items()}
    worst = 0.0
    for r in range(ROWS):
        row = {c: float(df[c].iloc[r]) for c in df.columns}
        for v in EQUATIONS:
            want = sympy_value(resolved.equations[v], {p: row[p] for p in PARENTS[v]}, constants)
            got = row[v]
            err = abs(got - want) / max(1.0, abs(want))
            worst = max(worst, err)
            assert err <= 1e-12, f"row {r}, {v}: numpy {got!r} vs sympy {want!r}"
    assert worst <= 1e-12


def test_every_branch_is_exercised(scm) -> None:  # noqa: ANN001
    # Guards the oracle itself: the rows must reach both sides of each condition.
    df = scm.sample(ROWS, seed=31, include_latent=True)  # the rows the oracle checks
    assert 0 < (df["a"] > df["b"]).mean() < 1
    assert 0 < (df["e"] > 0).mean() < 1
    assert (df["c"] < 0.8).any() and ((df["c"] >= 0.8) & (df["c"] < 1.5)).any()
    assert (df["c"] >= 1.5).any()


def test_no_noise_means_identical_repeats(scm) -> None:  # noqa: ANN001
    a = scm.sample(50, seed=1, include_latent=True)
    b = scm.sample(50, seed=1, include_latent=True)
    assert a.equals(b)
    c = scm.sample(50, seed=2, include_latent=True)
    assert not np.allclose(a["x"], c["x"])
