"""The Poisson inverse CDF by search returns scipy's quantile on every row."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from scmspec.compiler.kinds.count_ppf import poisson_ppf


def test_equals_scipy_over_rates_from_tiny_to_huge() -> None:
    rng = np.random.default_rng(7)
    u = rng.random(10_000)
    mu = np.exp(rng.uniform(np.log(1e-6), np.log(1e9), u.size))
    assert np.array_equal(poisson_ppf(u, mu), stats.poisson.ppf(u, mu))


def test_edges_are_scipys() -> None:
    # the last two: where scipy's own quantile is one to 38 counts above the exact one
    u = np.array([0.0, 1.0, np.nan, 0.5, 0.5, 0.5, 1e-300, 1 - 1e-16, 0.9999999999999999,
                  0.99999895])
    mu = np.array([2.0, 2.0, 2.0, 0.0, -1.0, np.nan, 5.0, 5.0, 622.0, 12528405.61203644])
    assert np.array_equal(poisson_ppf(u, mu), stats.poisson.ppf(u, mu), equal_nan=True)


def test_broadcasts_like_scipy() -> None:
    u = np.linspace(0.01, 0.99, 12).reshape(3, 4)
    assert np.array_equal(poisson_ppf(u, 3.5), stats.poisson.ppf(u, 3.5))
    assert np.array_equal(poisson_ppf(0.3, np.array([1.0, 40.0])),
                          stats.poisson.ppf(0.3, np.array([1.0, 40.0])))


@settings(max_examples=200, deadline=None)
@given(u=st.floats(0.0, 1.0) | st.floats(1 - 1e-9, 1.0) | st.floats(0.0, 1e-9),
       mu=st.floats(0.0, 1e7))
def test_any_rate_and_level(u: float, mu: float) -> None:
    expected = stats.poisson.ppf(u, mu)
    assert np.array_equal(poisson_ppf(np.array([u]), np.array([mu])), np.atleast_1d(expected),
                          equal_nan=True)
