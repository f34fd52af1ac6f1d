"""The numpy sampler: target assignment, selection, latent variables, reuse of random draws."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import scmspec
from scmspec.compiler.plan import do as plan_do
from scmspec.errors import SamplingError
from scmspec.samplers import numpy_sampler
from scmspec.samplers.numpy_sampler import assign_targets
from scmspec.samplers.streams import Streams

HEADER = "id: s\ntitle: s\nfamily: semantic\ndomain: d\n"


def compile_text(body: str) -> scmspec.SCM:
    return scmspec.compile_text(HEADER + body, "s.yaml")


CHAIN = compile_text("""\
variables:
  a: {meaning: m, distribution: {kind: normal}, intervention: {meaning: set a}}
  b: {meaning: m, equation: 2 * a, noise: {kind: normal, sd: 1}, intervention: {meaning: set b}}
  c: {meaning: m, equation: b - a, noise: {kind: laplace, scale: 1}, intervention: {meaning: c}}
  d: {meaning: m, distribution: {kind: uniform, low: 0, high: 1}, intervention: {meaning: d}}
edges:
  - {from: a, to: b, reason: r}
  - {from: a, to: c, reason: r}
  - {from: b, to: c, reason: r}
""")


# -- target assignment -------------------------------------------------------------------
@pytest.mark.parametrize(("k", "n", "per_row"), [(3, 7, 1), (4, 100, 2), (5, 101, 3), (6, 12, 6),
                                                 (1, 5, 1), (7, 0, 2)])
def test_assignment_is_balanced_and_distinct(k: int, n: int, per_row: int) -> None:
    pool = tuple(f"t{i}" for i in range(k))
    m = assign_targets(pool, n, per_row, np.random.default_rng(k * 100 + n))
    assert m.shape == (n, k) and m.dtype == bool
    assert (m.sum(axis=1) == per_row).all()  # per_row distinct targets on every row
    counts = m.sum(axis=0)
    if n:
        assert counts.max() - counts.min() <= 1
        assert counts.sum() == n * per_row


def test_assignment_is_shuffled_but_reproducible() -> None:
    pool = ("a", "b", "c")
    m1 = assign_targets(pool, 30, 1, np.random.default_rng(0))
    m2 = assign_targets(pool, 30, 1, np.random.default_rng(0))
    assert np.array_equal(m1, m2)
    assert not np.array_equal(m1[:3], np.eye(3, dtype=bool)) or not np.array_equal(
        m1[3:6], np.eye(3, dtype=bool))


def test_sample_interventional_rows_and_records() -> None:
    data = CHAIN.sample_interventional(n_obs=50, n_int=120, seed=1)
    assert len(data.data) == len(data.mask) == len(data.records) == 170
    assert data.mask.iloc[:50].to_numpy().sum() == 0
    per_row = data.mask.iloc[50:].to_numpy().sum(axis=1)
    assert (per_row == 1).all()
    counts = data.mask.iloc[50:].sum()
    assert counts.max() - counts.min() <= 1 and set(counts.index) == {"a", "b", "c", "d"}
    assert (data.records["targets"].iloc[:50] == "").all()
    for r in range(50, 170):
        target = data.records["targets"].iloc[r]
        assert data.mask[target].iloc[r] == 1
        assert data.records["handlers"].iloc[r] == "resample"


def test_per_row_greater_than_one_gives_distinct_targets() -> None:
    data = CHAIN.sample_interventional(n_obs=0, n_int=90, seed=2, per_row=3)
    mask = data.mask.to_numpy()
    assert (mask.sum(axis=1) == 3).all()
    for r in range(90):
        names = data.records["targets"].iloc[r].split(";")
        assert len(set(names)) == 3 and all(data.mask[t].iloc[r] for t in names)
    counts = mask.sum(axis=0)
    assert counts.max() - counts.min() <= 1


def test_targets_restrict_the_pool() -> None:
    data = CHAIN.sample_interventional(n_obs=10, n_int=40, seed=3, targets=("b",))
    assert data.mask["b"].iloc[10:].all() and data.mask.drop(columns="b").to_numpy().sum() == 0


def test_no_targets_means_all_rows_observational() -> None:
    s = numpy_sampler.sample(CHAIN.plan, 10, 30, CHAIN.streams(0, "obsint", 0), targets=())
    assert s.n == 40 and s.assigned.shape == (40, 0)


# -- interventions reuse the exogenous draws -----------------------------------------------
def test_do_changes_only_descendants_bit_for_bit() -> None:
    base = CHAIN.sample(500, seed=4)
    after = CHAIN.do({"b": 3.0}).sample(500, seed=4)
    assert (after["b"] == 3.0).all()
    assert np.array_equal(base["a"], after["a"]) and np.array_equal(base["d"], after["d"])
    # c = b - a + eps: the same eps, so the shift is exactly the change in b.
    np.testing.assert_allclose(after["c"] - base["c"], 3.0 - base["b"], rtol=0, atol=1e-12)


def test_soft_shift_is_applied_to_the_natural_value() -> None:
    base = CHAIN.sample(300, seed=5)
    shifted = CHAIN.intervene({"b": {"kind": "shift", "by": 2.0}}).sample(300, seed=5)
    np.testing.assert_allclose(shifted["b"], base["b"] + 2.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(shifted["c"], base["c"] + 2.0, rtol=0, atol=1e-12)
    assert np.array_equal(shifted["a"], base["a"])


def test_resample_draws_within_baseline_quantiles() -> None:
    data = CHAIN.sample_interventional(n_obs=2000, n_int=400, seed=6, targets=("a",))
    obs_a = data.data["a"].iloc[:2000]
    lo, hi = np.quantile(obs_a, [0.1, 0.9])
    new = data.data["a"].iloc[2000:]
    assert new.min() >= lo and new.max() <= hi


DRAWS = compile_text("""\
variables:
  x: {meaning: m, kind: binary, distribution: {kind: bernoulli, p: 0.5},
      intervention: {meaning: set x, handler: {kind: do, value: 1}}}
  w: {meaning: m, distribution: {kind: normal}, intervention: {meaning: set w}}
  y: {meaning: m, kind: binary, equation: bernoulli(0.2 + 0.6 * x)}
  z: {meaning: m, equation: 'bernoulli(sigmoid(w)) + x + normal(0, 1)'}
edges:
  - {from: x, to: y, reason: r}
  - {from: x, to: z, reason: r}
  - {from: w, to: z, reason: r}
""")


def test_draws_inside_equations_are_reused_under_do() -> None:
    base = DRAWS.sample(4000, seed=7)
    after = DRAWS.do({"x": 1}).sample(4000, seed=7)
    same_parent = base["x"].to_numpy() == 1
    assert same_parent.sum() > 1000
    assert np.array_equal(after["y"][same_parent], base["y"][same_parent])
    # Where x changed, y only ever moves up (a larger p with the same uniform).
    assert (after["y"] >= base["y"]).all()
    # z's draws (bernoulli + normal) do not depend on x's value: z - x is unchanged on every row.
    np.testing.assert_allclose(after["z"] - after["x"], base["z"] - base["x"], rtol=0, atol=1e-12)


def test_draws_are_reused_in_intervened_rows_of_obsint() -> None:
    streams = DRAWS.streams(8, "obsint", 0)
    natural = numpy_sampler.sample(DRAWS.plan, 500, 1500, streams, targets=())
    mixed = numpy_sampler.sample(DRAWS.plan, 500, 1500, DRAWS.streams(8, "obsint", 0),
                                 targets=("x",))
    hit = mixed.assigned[:, 0]
    assert hit[500:].all() and not hit[:500].any()
    unchanged = hit & (natural.columns["x"] == 1)
    assert unchanged.sum() > 500
    for v in ("y", "z", "w"):
        assert np.array_equal(mixed.columns[v][unchanged], natural.columns[v][unchanged]), v
    assert np.array_equal(mixed.columns["w"], natural.columns["w"])  # not a descendant of x


# -- latent variables, constants, selection ---------------------------------------------
LATENT = compile_text("""\
variables:
  h: {meaning: hidden, observed: false, distribution: {kind: normal}}
  a: {meaning: m, equation: h + 1, noise: {kind: normal, sd: 0.1}}
  b: {meaning: m, equation: 2 * h, noise: {kind: normal, sd: 0.1}, intervention: {meaning: b}}
  k: {meaning: constant node, equation: 3 * c}
constants:
  c: {value: 2}
edges:
  - {from: h, to: a, reason: r}
  - {from: h, to: b, reason: r}
""")


def test_latent_variables_are_sampled_but_not_returned() -> None:
    df = LATENT.sample(200, seed=9)
    assert list(df.columns) == ["a", "b", "k"]
    full = LATENT.sample(200, seed=9, include_latent=True)
    assert "h" in full.columns
    np.testing.assert_allclose(full["a"] - full["h"], 1.0, atol=0.6)
    s = numpy_sampler.sample(LATENT.plan, 20, 0, LATENT.streams(0, "obs", 0))
    assert set(s.columns) == {"h", "a", "b", "k"}
    assert LATENT.adjacency().shape == (3, 3) and LATENT.adjacency(False).shape == (4, 4)


def test_latent_variables_are_not_default_targets() -> None:
    assert LATENT.plan.targets == ("b",)


def test_a_parentless_constant_equation_fills_every_row() -> None:
    df = LATENT.sample(37, seed=1)
    assert len(df) == 37 and (df["k"] == 6.0).all()


SELECTED = compile_text("""\
variables:
  a: {meaning: m, distribution: {kind: normal}, intervention: {meaning: set a}}
  b: {meaning: m, equation: a + 0.5, noise: {kind: normal, sd: 1}}
edges:
  - {from: a, to: b, reason: r}
selection:
  condition: b > 1
""")


def test_selection_returns_the_requested_rows_and_records_acceptance() -> None:
    s = numpy_sampler.sample(SELECTED.plan, 3000, 0, SELECTED.streams(10, "obs", 0))
    assert s.n == 3000 and len(s.columns["b"]) == 3000
    assert (s.columns["b"] > 1).all()
    expected = stats.norm.sf(1, loc=0.5, scale=np.sqrt(2))  # b ~ N(0.5, 2)
    assert abs(s.acceptance - expected) < 5 * np.sqrt(expected * (1 - expected) / s.drawn)
    assert s.drawn > 3000


def test_selection_in_obsint_keeps_obs_rows_first() -> None:
    data = SELECTED.sample_interventional(n_obs=300, n_int=200, seed=11)
    assert len(data.data) == 500 and (data.data["b"] > 1).all()
    assert data.mask["a"].iloc[:300].sum() == 0 and data.mask["a"].iloc[300:].all()
    assert 0 < data.acceptance < 1


def test_selection_below_one_percent_raises_scm601() -> None:
    rare = compile_text("""\
variables:
  a: {meaning: m, distribution: {kind: normal}}
selection:
  condition: a > 3.5
""")
    with pytest.raises(SamplingError) as err:
        rare.sample(1000, seed=0)
    (d,) = err.value.diagnostics
    assert d.code == "SCM601" and "selection" in d.message


# -- streams and determinism -------------------------------------------------------------
def test_streams_are_keyed_by_name() -> None:
    s = Streams(seed=3, card_id="c", split="obs", replicate=0)
    x1 = s.generator("x").random(5)
    s.generator("y").random(100)
    assert np.array_equal(s.generator("x").random(5), x1)
    other = Streams(seed=3, card_id="c", split="obs", replicate=1)
    assert not np.array_equal(other.generator("x").random(5), x1)
    assert not np.array_equal(s.child(split="obsint").generator("x").random(5), x1)
    assert not np.array_equal(s.child(chunk=1).generator("x").random(5), x1)


def test_same_seed_same_frames_different_seed_different_frames() -> None:
    a = CHAIN.sample_interventional(n_obs=40, n_int=60, seed=12)
    b = CHAIN.sample_interventional(n_obs=40, n_int=60, seed=12)
    c = CHAIN.sample_interventional(n_obs=40, n_int=60, seed=13)
    assert a.data.equals(b.data) and a.mask.equals(b.mask) and a.records.equals(b.records)
    assert not a.data.equals(c.data)


def test_plan_do_refuses_unknown_variables() -> None:
    with pytest.raises(KeyError):
        plan_do(CHAIN.plan, {"nope": 1.0})


def test_discrete_columns_come_back_as_integers() -> None:
    df = DRAWS.sample(50, seed=0)
    assert df["x"].dtype == np.int64 and df["y"].dtype == np.int64
    assert df["z"].dtype == np.float64


@pytest.mark.parametrize("name", ["select", "greater", "logical_and", "mod", "nan", "inf", "E",
                                  "I", "numpy", "array"])
def test_variable_names_cannot_shadow_generated_code(name: str) -> None:
    scm = compile_text(f"""\
variables:
  {name}: {{meaning: m, distribution: {{kind: normal}}}}
  y: {{meaning: m, equation: 'where({name} > 0, {name} % 2, -1) + indicator({name} < 1)'}}
edges: [{{from: {name}, to: y, reason: r}}]
""")
    df = scm.sample(400, seed=0)
    x = df[name].to_numpy()
    np.testing.assert_allclose(df["y"], np.where(x > 0, x % 2, -1) + (x < 1), rtol=0, atol=1e-12)


def test_quantised_noise_never_reports_below_its_floor() -> None:
    import numpy as np

    from scmspec.compiler.kinds.noise_shaped import QuantisedNoise

    noise = QuantisedNoise(step=5, sd=2, low=0)
    f = np.zeros(10_000)
    eps = noise.draw(np.random.default_rng(0), f.size)
    out = noise.apply(f, eps)
    assert out.min() == 0 and set(np.unique(out)) <= {0.0, 5.0, 10.0}
    free = QuantisedNoise(step=5, sd=2).apply(f, eps)
    assert free.min() < 0  # without the floor the same draws report -5
