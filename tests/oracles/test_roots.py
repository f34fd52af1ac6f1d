"""Root distributions against closed forms, drawn directly and through a Gaussian copula.

Each root kind draws with numpy (fast path) and also offers ``ppf``, which the
Gaussian-copula root blocks use. Both paths must give the documented law: the
sample mean and variance of every kind lie within 5 standard errors of the
closed form. Inside a copula block the marginals must not change, normal roots
must have exactly the block's correlation, and other continuous roots the
Gaussian copula's Spearman correlation (6/pi) asin(rho/2).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy import stats

from tests.oracles.cards import compile_card

N = 100_000
Z = 5.0


def mixture_moments(w: list[float], m: list[float], s: list[float]) -> tuple[float, float, float]:
    wa, ma, sa = map(np.asarray, (w, m, s))
    mean = float(wa @ ma)
    d = ma - mean
    var = float(wa @ (sa**2 + d**2))
    mu4 = float(wa @ (d**4 + 6 * d**2 * sa**2 + 3 * sa**4))
    return mean, var, mu4


def scipy_moments(dist: Any) -> tuple[float, float, float]:
    mean, var, kurt = (float(v) for v in dist.stats(moments="mvk"))
    return mean, var, (kurt + 3.0) * var**2


# name -> (variable spec, (mean, variance, 4th central moment))
MIX = {"weights": [0.3, 0.7], "means": [-2.0, 1.0], "sds": [0.5, 1.0]}
CATEGORICAL = [0.2, 0.5, 0.3]
ROOTS: dict[str, tuple[dict[str, Any], tuple[float, float, float]]] = {
    "r_normal": ({"kind": "normal", "mean": 2.0, "sd": 0.5},
                 scipy_moments(stats.norm(2.0, 0.5))),
    "r_uniform": ({"kind": "uniform", "low": -1.0, "high": 2.0},
                  scipy_moments(stats.uniform(-1.0, 3.0))),
    "r_gamma": ({"kind": "gamma", "shape": 2.5, "rate": 1.5},
                scipy_moments(stats.gamma(2.5, scale=1 / 1.5))),
    "r_beta": ({"kind": "beta", "a": 2.0, "b": 5.0, "low": -1.0, "high": 3.0},
               scipy_moments(stats.beta(2.0, 5.0, loc=-1.0, scale=4.0))),
    "r_lognormal": ({"kind": "lognormal", "meanlog": 0.3, "sdlog": 0.5},
                    scipy_moments(stats.lognorm(0.5, scale=np.exp(0.3)))),
    "r_exponential": ({"kind": "exponential", "rate": 2.0, "loc": 1.0},
                      scipy_moments(stats.expon(loc=1.0, scale=0.5))),
    "r_gumbel": ({"kind": "gumbel", "loc": 1.0, "scale": 2.0},
                 scipy_moments(stats.gumbel_r(loc=1.0, scale=2.0))),
    "r_truncnorm": ({"kind": "truncated_normal", "mean": 1.0, "sd": 2.0, "low": 0.0,
                     "high": 3.0}, scipy_moments(stats.truncnorm(-0.5, 1.0, loc=1.0, scale=2.0))),
    "r_mixture": ({"kind": "gaussian_mixture", **MIX}, mixture_moments(**{
        "w": MIX["weights"], "m": MIX["means"], "s": MIX["sds"]})),
    "r_poisson": ({"kind": "poisson", "rate": 3.5}, scipy_moments(stats.poisson(3.5))),
    "r_bernoulli": ({"kind": "bernoulli", "p": 0.3}, scipy_moments(stats.bernoulli(0.3))),
    "r_negbin": ({"kind": "negative_binomial", "mean": 4.0, "dispersion": 1.5},
                 scipy_moments(stats.nbinom(1.5, 1.5 / (1.5 + 4.0)))),
    "r_zip": ({"kind": "zero_inflated_poisson", "rate": 3.0, "zero_prob": 0.4}, scipy_moments(
        stats.rv_discrete(values=(np.arange(80), 0.6 * stats.poisson(3.0).pmf(np.arange(80))
                                  + 0.4 * (np.arange(80) == 0))))),
    "r_categorical": ({"kind": "categorical", "probs": CATEGORICAL}, scipy_moments(
        stats.rv_discrete(values=([0, 1, 2], CATEGORICAL)))),
}
KINDS = {"r_poisson": {"kind": "count"}, "r_bernoulli": {"kind": "binary"},
         "r_negbin": {"kind": "count"}, "r_zip": {"kind": "count"},
         "r_categorical": {"kind": "categorical", "levels": ["a", "b", "c"]}}


def variables() -> dict[str, Any]:
    return {name: {"meaning": name, "distribution": dist, **KINDS.get(name, {})}
            for name, (dist, _) in ROOTS.items()}


def equicorrelation(k: int, rho: float) -> list[list[float]]:
    return (np.full((k, k), rho) + (1 - rho) * np.eye(k)).tolist()


@pytest.fixture(scope="module")
def direct() -> dict[str, np.ndarray]:
    df = compile_card(variables()).sample(N, seed=21)
    return {c: df[c].to_numpy(dtype=float) for c in df.columns}


@pytest.fixture(scope="module")
def coupled() -> dict[str, np.ndarray]:
    names = list(ROOTS)
    block = {"variables": names, "correlation": equicorrelation(len(names), 0.3)}
    df = compile_card(variables(), root_blocks=[block]).sample(N, seed=22)
    return {c: df[c].to_numpy(dtype=float) for c in df.columns}


def check_marginal(x: np.ndarray, expected: tuple[float, float, float], what: str) -> None:
    mean, var, mu4 = expected
    n = x.size
    z_mean = abs(x.mean() - mean) / np.sqrt(var / n)
    z_var = abs(x.var(ddof=1) - var) / np.sqrt((mu4 - var**2) / n)
    assert z_mean < Z and z_var < Z, f"{what}: mean z={z_mean:.2f}, variance z={z_var:.2f}"


@pytest.mark.parametrize("name", list(ROOTS))
def test_direct_draws_match_the_closed_form(direct: dict[str, np.ndarray], name: str) -> None:
    check_marginal(direct[name], ROOTS[name][1], f"{name} (draw)")


@pytest.mark.parametrize("name", list(ROOTS))
def test_copula_marginals_match_the_closed_form(coupled: dict[str, np.ndarray], name: str) -> None:
    check_marginal(coupled[name], ROOTS[name][1], f"{name} (ppf in a copula block)")


@pytest.mark.parametrize("name", ["r_poisson", "r_bernoulli", "r_categorical", "r_negbin",
                                  "r_zip"])
def test_discrete_roots_give_integer_codes(direct: dict[str, np.ndarray],
                                           coupled: dict[str, np.ndarray], name: str) -> None:
    for x in (direct[name], coupled[name]):
        assert np.array_equal(x, np.round(x)) and x.min() >= 0


@pytest.mark.parametrize("name", ["r_uniform", "r_beta", "r_truncnorm", "r_exponential"])
def test_bounded_roots_stay_in_their_support(direct: dict[str, np.ndarray],
                                             coupled: dict[str, np.ndarray], name: str) -> None:
    spec = ROOTS[name][0]
    low = spec.get("low", spec.get("loc", -np.inf))
    high = spec.get("high", np.inf)
    for x in (direct[name], coupled[name]):
        assert low <= x.min() and x.max() <= high


def test_independent_roots_are_uncorrelated(direct: dict[str, np.ndarray]) -> None:
    data = np.column_stack([direct[n] for n in ROOTS])
    corr = np.corrcoef(data, rowvar=False)
    off = corr[~np.eye(len(ROOTS), dtype=bool)]
    assert np.abs(off).max() < Z / np.sqrt(N)


def test_copula_spearman_correlation_of_continuous_roots(coupled: dict[str, np.ndarray]) -> None:
    names = [n for n in ROOTS if n not in KINDS]  # continuous: ranks are the copula's ranks
    rho_s = stats.spearmanr(np.column_stack([coupled[n] for n in names])).statistic
    expected = 6 / np.pi * np.arcsin(0.3 / 2)
    off = rho_s[~np.eye(len(names), dtype=bool)]
    assert np.abs(off - expected).max() < Z / np.sqrt(N)


CORR = [[1.0, 0.6, -0.3], [0.6, 1.0, 0.2], [-0.3, 0.2, 1.0]]


def test_gaussian_copula_of_normal_roots_has_the_block_correlation() -> None:
    roots = {f"n{i}": {"meaning": "m", "distribution": {"kind": "normal", "mean": i, "sd": 1 + i}}
             for i in range(3)}
    other = {"free": {"meaning": "m", "distribution": {"kind": "normal"}}}
    block = {"variables": ["n0", "n1", "n2"], "correlation": CORR}
    df = compile_card({**roots, **other}, root_blocks=[block]).sample(N, seed=23)
    corr = np.corrcoef(df[["n0", "n1", "n2"]].to_numpy(), rowvar=False)
    rho = np.asarray(CORR)
    se = (1 - rho**2) / np.sqrt(N)
    off = ~np.eye(3, dtype=bool)
    assert np.all(np.abs(corr - rho)[off] < Z * se[off])
    for i in range(3):
        check_marginal(df[f"n{i}"].to_numpy(), scipy_moments(stats.norm(i, 1 + i)), f"n{i}")
    # A root outside the block stays independent of it.
    free = np.corrcoef(df[["n0", "free"]].to_numpy(), rowvar=False)[0, 1]
    assert abs(free) < Z / np.sqrt(N)
