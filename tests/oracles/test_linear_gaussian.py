"""Analytic oracles for linear-Gaussian cards (sempler's lganm ``population=True`` checks).

With ``X = B^T X + E``, ``E ~ N(m, D)`` and ``B[i, j]`` the weight of edge i -> j,
``mu = (I - B^T)^-1 m`` and ``Sigma = (I - B^T)^-1 D (I - B^T)^-T``. ``do(x = c)`` is
column surgery: zero x's incoming weights, set m_x = c and D_xx = 0. Every sample
moment must lie within 5 standard errors of the population value (fixed seeds,
never flaky retries).
"""

from __future__ import annotations

import numpy as np
import pytest

import scmspec
from tests.oracles.cards import LinearGaussian, random_linear_gaussian

N = 200_000
N_FRAMES = 40_000  # obs+int frames build per-row records; keep them smaller
Z = 5.0


def check_moments(data: np.ndarray, mu: np.ndarray, sigma: np.ndarray, what: str) -> None:
    """Every mean and covariance entry within Z standard errors (population SEs)."""
    n = data.shape[0]
    pinned = np.diag(sigma) < 1e-18  # do() targets: exactly c (the inverse leaves ~1e-33)
    sigma = sigma.copy()
    sigma[pinned, :] = sigma[:, pinned] = 0.0
    se_mean = np.sqrt(np.diag(sigma) / n)
    z_mean = np.abs(data.mean(axis=0) - mu) / np.maximum(se_mean, 1e-300)
    assert np.all(z_mean[~pinned] < Z), f"{what}: mean z-scores {np.round(z_mean, 2)}"
    assert np.allclose(data.mean(axis=0)[pinned], mu[pinned], rtol=0, atol=1e-12)
    cov = np.cov(data, rowvar=False)
    var = np.diag(sigma)
    # Gaussian: var(s_ij) ~ (S_ii S_jj + S_ij^2) / n
    se_cov = np.sqrt((np.outer(var, var) + sigma**2) / n)
    free = se_cov > 0
    z_cov = np.abs(cov - sigma)[free] / se_cov[free]
    assert np.all(z_cov < Z), f"{what}: worst covariance z-score {z_cov.max():.2f}"
    assert np.allclose(cov[~free], 0.0, atol=1e-12)


@pytest.fixture(scope="module", params=[(7, 11), (8, 2024), (6, 5)],
                ids=lambda p: f"d{p[0]}-s{p[1]}")
def model(request: pytest.FixtureRequest) -> LinearGaussian:
    d, seed = request.param
    return random_linear_gaussian(d, seed)


@pytest.fixture(scope="module")
def scm(model: LinearGaussian) -> scmspec.SCM:
    return scmspec.compile(model.card())


def test_the_model_is_not_trivial(model: LinearGaussian) -> None:
    assert np.count_nonzero(model.weights) >= len(model.names)  # enough edges to matter
    mu, sigma = model.moments()
    assert np.abs(sigma - np.diag(np.diag(sigma))).max() > 0.1


def test_observational_mean_and_covariance(model: LinearGaussian, scm: scmspec.SCM) -> None:
    df = scm.sample(N, seed=3)
    data = df[list(model.names)].to_numpy()
    mu, sigma = model.moments()
    check_moments(data, mu, sigma, "observational")


def test_graph_matches_the_weights(model: LinearGaussian, scm: scmspec.SCM) -> None:
    adj = scm.adjacency().loc[list(model.names), list(model.names)].to_numpy()
    assert np.array_equal(adj, (model.weights != 0).astype(int))


@pytest.mark.parametrize("which", [0, 2, -2])
def test_do_is_column_surgery(model: LinearGaussian, scm: scmspec.SCM, which: int) -> None:
    target = model.names[which]
    c = -0.75
    df = scm.do({target: c}).sample(N, seed=4)
    mu, sigma = model.moments({target: c})
    check_moments(df[list(model.names)].to_numpy(), mu, sigma, f"do({target}={c})")


def test_do_of_two_variables(model: LinearGaussian, scm: scmspec.SCM) -> None:
    values = {model.names[1]: 2.0, model.names[3]: -1.0}
    df = scm.do(values).sample(N, seed=5)
    mu, sigma = model.moments(values)
    check_moments(df[list(model.names)].to_numpy(), mu, sigma, f"do({values})")


@pytest.mark.parametrize("which", [-3])
def test_interventional_rows_with_a_do_handler(model: LinearGaussian, scm: scmspec.SCM,
                                               which: int) -> None:
    # Every card variable has handler do(value=1.5); target one of them on every row.
    target = model.names[which]
    data = scm.sample_interventional(n_obs=0, n_int=N_FRAMES, seed=6, targets=(target,))
    assert data.mask[target].all() and set(data.records["targets"]) == {target}
    mu, sigma = model.moments({target: 1.5})
    check_moments(data.data[list(model.names)].to_numpy(), mu, sigma, f"handler do({target})")


def test_observational_rows_of_obsint_follow_the_observational_law(
        model: LinearGaussian, scm: scmspec.SCM) -> None:
    data = scm.sample_interventional(n_obs=N_FRAMES, n_int=2_000, seed=7)
    obs = data.data.iloc[:N_FRAMES][list(model.names)].to_numpy()
    assert data.mask.iloc[:N_FRAMES].to_numpy().sum() == 0
    assert data.mask.iloc[N_FRAMES:].to_numpy().sum(axis=1).tolist() == [1] * 2_000
    mu, sigma = model.moments()
    check_moments(obs, mu, sigma, "obs rows of obs+int")


def test_intervened_rows_match_per_target_surgery(model: LinearGaussian, scm: scmspec.SCM) -> None:
    # Balanced assignment over every target; each target's rows follow its own do() law.
    n_int = N_FRAMES
    data = scm.sample_interventional(n_obs=0, n_int=n_int, seed=8)
    names = list(model.names)
    for target in scm.plan.targets:
        rows = data.mask[target].to_numpy() == 1
        assert abs(rows.sum() - n_int / len(scm.plan.targets)) <= 1
        mu, sigma = model.moments({target: 1.5})
        check_moments(data.data.loc[rows, names].to_numpy(), mu, sigma, f"rows of {target}")
