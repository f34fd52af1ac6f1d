"""The distributions added in card language v2 against their closed forms.

Each new root kind (drawn directly and through a Gaussian copula's ``ppf``) and each new
in-equation draw is sampled 200,000 times; its sample mean and variance must lie within
4 standard errors of the closed form (scipy's moments; the variance's standard error from
the fourth central moment). Parameters are chosen so the fourth moment exists.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy import stats

from scmspec.errors import SamplingError
from tests.oracles.cards import compile_card

N = 200_000
Z = 4.0


def moments(dist: Any) -> tuple[float, float, float]:
    """(mean, variance, 4th central moment) of a frozen scipy distribution."""
    mean, var, kurt = (float(v) for v in dist.stats(moments="mvk"))
    return mean, var, (kurt + 3.0) * var**2


ROOTS: dict[str, tuple[dict[str, Any], Any]] = {
    "log_uniform": ({"low": 0.5, "high": 40.0}, stats.loguniform(0.5, 40.0)),
    "weibull": ({"shape": 1.7, "scale": 3.0, "loc": 1.0}, stats.weibull_min(1.7, 1.0, 3.0)),
    "rayleigh": ({"scale": 2.0}, stats.rayleigh(scale=2.0)),
    "logistic": ({"loc": -1.0, "scale": 0.7}, stats.logistic(-1.0, 0.7)),
    "student_t": ({"df": 7.0, "loc": 2.0, "scale": 0.5}, stats.t(7.0, 2.0, 0.5)),
    "triangular": ({"low": 1.0, "mode": 2.0, "high": 6.0}, stats.triang(0.2, 1.0, 5.0)),
    "pareto": ({"xmin": 2.0, "alpha": 6.0}, stats.pareto(6.0, scale=2.0)),
    "half_normal": ({"sd": 1.5, "loc": 0.5}, stats.halfnorm(0.5, 1.5)),
    # Already a root kind; v2 makes it an in-equation draw too (below).
    "truncated_normal": ({"mean": 1.0, "sd": 2.0, "low": -0.5, "high": 4.0},
                         stats.truncnorm(-0.75, 1.5, loc=1.0, scale=2.0)),
}

# In-equation draws with constant arguments: equation text -> scipy law.
DRAWS: dict[str, tuple[str, Any]] = {
    "d_log_uniform": ("log_uniform(0.5, 40)", stats.loguniform(0.5, 40.0)),
    "d_truncated_normal": ("truncated_normal(1, 2, -0.5, 4)",
                           stats.truncnorm(-0.75, 1.5, loc=1.0, scale=2.0)),
    "d_weibull": ("weibull(3, 1.7)", stats.weibull_min(1.7, scale=3.0)),
    "d_lognormal": ("lognormal(2, 0.4)", stats.lognorm(0.4, scale=2.0)),
    "d_gamma": ("gamma_draw(6, 2.5)", stats.gamma(2.5, scale=6.0 / 2.5)),
    "d_beta": ("beta_draw(2, 5)", stats.beta(2.0, 5.0)),
    "d_triangular": ("triangular(1, 2, 6)", stats.triang(0.2, 1.0, 5.0)),
    # mean 6, dispersion 2.5: p = 2.5 / 8.5, variance 6 + 36 / 2.5 = 20.4
    "d_negative_binomial": ("negative_binomial(6, 2.5)", stats.nbinom(2.5, 2.5 / 8.5)),
}


def check(x: np.ndarray, law: Any, what: str) -> None:
    mean, var, mu4 = moments(law)
    n = x.size
    z_mean = abs(x.mean() - mean) / np.sqrt(var / n)
    z_var = abs(x.var(ddof=1) - var) / np.sqrt((mu4 - var**2) / n)
    assert z_mean < Z and z_var < Z, f"{what}: mean z={z_mean:.2f}, variance z={z_var:.2f}"


def root_variables() -> dict[str, Any]:
    return {f"r_{k}": {"meaning": k, "distribution": {"kind": k, **p}}
            for k, (p, _) in ROOTS.items()}


@pytest.fixture(scope="module")
def direct() -> dict[str, np.ndarray]:
    df = compile_card(root_variables()).sample(N, seed=31)
    return {c: df[c].to_numpy(dtype=float) for c in df.columns}


@pytest.fixture(scope="module")
def coupled() -> dict[str, np.ndarray]:
    names = list(root_variables())
    k = len(names)
    corr = (np.full((k, k), 0.3) + 0.7 * np.eye(k)).tolist()
    df = compile_card(root_variables(), root_blocks=[{"variables": names, "correlation": corr}]
                      ).sample(N, seed=32)
    return {c: df[c].to_numpy(dtype=float) for c in df.columns}


@pytest.fixture(scope="module")
def drawn() -> dict[str, np.ndarray]:
    variables: dict[str, Any] = {"x": {"meaning": "anchor", "distribution": {"kind": "normal"}}}
    variables.update({k: {"meaning": k, "equation": text} for k, (text, _) in DRAWS.items()})
    df = compile_card(variables).sample(N, seed=33)
    return {c: df[c].to_numpy(dtype=float) for c in df.columns}


@pytest.mark.parametrize("kind", list(ROOTS))
def test_root_draws_match_the_closed_form(direct: dict[str, np.ndarray], kind: str) -> None:
    check(direct[f"r_{kind}"], ROOTS[kind][1], f"{kind} (draw)")


@pytest.mark.parametrize("kind", list(ROOTS))
def test_root_ppf_in_a_copula_keeps_the_marginal(coupled: dict[str, np.ndarray],
                                                 kind: str) -> None:
    check(coupled[f"r_{kind}"], ROOTS[kind][1], f"{kind} (ppf in a copula block)")


@pytest.mark.parametrize("name", list(DRAWS))
def test_equation_draws_match_the_closed_form(drawn: dict[str, np.ndarray], name: str) -> None:
    check(drawn[name], DRAWS[name][1], f"{DRAWS[name][0]}")


def test_roots_stay_in_their_support(direct: dict[str, np.ndarray]) -> None:
    assert direct["r_log_uniform"].min() >= 0.5 and direct["r_log_uniform"].max() <= 40.0
    assert direct["r_triangular"].min() >= 1.0 and direct["r_triangular"].max() <= 6.0
    assert direct["r_pareto"].min() >= 2.0 and direct["r_weibull"].min() >= 1.0


@pytest.mark.parametrize(("equation", "problem"), [
    ("weibull(x, 2)", r"weibull\(\) with scale <= 0"),
    ("negative_binomial(x, 4)", r"negative_binomial\(\) with mean < 0"),
])
def test_parent_dependent_draw_parameters_are_checked_per_row(equation: str,
                                                              problem: str) -> None:
    scm = compile_card({
        "x": {"meaning": "x", "distribution": {"kind": "normal"}},
        "y": {"meaning": "y", "equation": equation}}, [("x", "y")])
    with pytest.raises(SamplingError, match=problem):
        scm.sample(1000, seed=0)


def test_a_large_dispersion_is_the_poisson_limit() -> None:
    """k -> infinity: the gamma-Poisson's variance mean + mean^2/k tends to the mean."""
    df = compile_card({"x": {"meaning": "x", "distribution": {"kind": "normal"}},
                       "y": {"meaning": "y", "equation": "negative_binomial(5, 1e7)"}}
                      ).sample(N, seed=34)
    check(df["y"].to_numpy(dtype=float), stats.poisson(5.0), "negative_binomial(5, 1e7)")
