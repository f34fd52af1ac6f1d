"""The pilots' tabulated quantile functions (scmspec.samplers.tabulated): close to the exact
solve, never outside the support, same stream use, and only for kinds that solve."""

from __future__ import annotations

import numpy as np
import pytest

from scmspec.compiler.kinds.roots import (
    BetaRoot,
    GammaRoot,
    GaussianMixtureRoot,
    LognormalRoot,
    RootBase,
    TruncatedNormalRoot,
)
from scmspec.compiler.pipeline import compile_card, parse_card_text
from scmspec.samplers.tabulated import TabulatedRoot, tabulate_roots

SLOW = [
    BetaRoot(a=0.9, b=5, low=0.03, high=13),
    BetaRoot(a=0.3, b=0.4),  # U-shaped: the steepest quantile function near both ends
    TruncatedNormalRoot(mean=1.05, sd=0.28, low=0.55, high=1.9),
    TruncatedNormalRoot(mean=0.0, sd=1.0, low=3.0, high=10.0),  # all mass in a far tail
    GammaRoot(shape=0.7, rate=2.0),
    GaussianMixtureRoot(weights=[0.8, 0.2], means=[0.0, 5.0], sds=[1.0, 0.5]),
]


@pytest.mark.parametrize("root", SLOW, ids=lambda r: r.kind)
def test_table_matches_the_exact_quantiles(root: RootBase) -> None:
    """Each value is the exact quantile at a probability within 0.1% (of the smaller tail)
    of its own; on smooth quantile functions also within 2e-5 of the central width."""
    rng = np.random.default_rng(7)
    u = np.concatenate([rng.random(100_000), np.geomspace(1e-12, 0.5, 2000),
                        1 - np.geomspace(1e-12, 0.5, 2000)])
    fast = TabulatedRoot(inner=root).ppf(u)
    near = 1e-3 * np.minimum(u, 1 - u)
    below, above = root.ppf(u - near), root.ppf(u + near)
    tol = 1e-12 * np.max(np.abs(above))
    assert np.all((below - tol <= fast) & (fast <= above + tol))
    if root.kind != "gaussian_mixture":  # its quantiles jump across the gap between modes
        q = root.ppf(np.array([1e-6, 1 - 1e-6]))
        assert np.max(np.abs(fast - root.ppf(u))) <= 2e-5 * (q[1] - q[0])
    ends = TabulatedRoot(inner=root).ppf(np.array([0.0, 1e-15, 1 - 1e-15, 1.0]))
    lo, hi = root.support()
    assert np.all(ends >= lo) and np.all(ends <= hi) and np.all(np.isfinite(ends))
    assert np.all(np.diff(fast[np.argsort(u)]) >= 0)  # still a quantile function


def test_draws_use_the_stream_as_the_root_does() -> None:
    """Beta draws straight from the generator (kept); a truncated normal through ppf of
    uniforms (the table reads the same uniforms)."""
    beta = BetaRoot(a=2, b=3, low=1, high=4)
    assert np.array_equal(TabulatedRoot(inner=beta).draw(np.random.default_rng(3), 1000),
                          beta.draw(np.random.default_rng(3), 1000))
    tn = TruncatedNormalRoot(mean=0, sd=1, low=-1, high=2)
    a = TabulatedRoot(inner=tn).draw(np.random.default_rng(3), 1000)
    b = tn.draw(np.random.default_rng(3), 1000)
    assert np.max(np.abs(a - b)) < 1e-6 * (2 - -1)


def test_only_roots_that_solve_are_tabulated() -> None:
    text = ("id: t\ntitle: t\nfamily: semantic\ndomain: d\nvariables:\n"
            "  a: {meaning: m, distribution: {kind: beta, a: 2, b: 3}}\n"
            "  b: {meaning: m, distribution: {kind: lognormal, meanlog: 0, sdlog: 0.3}}\n"
            "  c: {meaning: m, equation: a + b}\n"
            "edges: [{from: a, to: c, reason: r}, {from: b, to: c, reason: r}]\n")
    plan = compile_card(*parse_card_text(text)).plan
    steps = {s.name: s for s in tabulate_roots(plan).steps}
    assert isinstance(steps["a"].root, TabulatedRoot)
    assert type(steps["b"].root) is LognormalRoot and steps["c"].root is None
    assert [s.name for s in tabulate_roots(plan).steps] == [s.name for s in plan.steps]
