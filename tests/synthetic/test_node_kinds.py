"""Structured mechanism, noise and root kinds: evaluation, parent-order mapping, round
trips, documented moments, and hand-computed values for the less obvious kinds."""

from __future__ import annotations

import typing

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError
from scipy import special, stats

from scmspec.compiler.kinds import mechanisms as m
from scmspec.compiler.kinds import noise as nz
from scmspec.compiler.kinds import roots as rt
from scmspec.compiler.kinds.mechanism_base import soft_range
from scmspec.compiler.kinds.mechanisms import MECHANISMS, MechanismSpec
from scmspec.compiler.kinds.noise import NOISE, NoiseSpec
from scmspec.compiler.kinds.roots import ROOTS, RootSpec
from scmspec.synthetic.nodes.factors import MECHANISM_FACTORS

SETTINGS = settings(max_examples=30, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
NAMES = ("a", "b", "c", "d", "e", "f")
MECH = TypeAdapter(MechanismSpec)


def _variant(spec: object) -> tuple[str, str]:
    for field in ("activation", "form", "function"):
        if hasattr(spec, field):
            return spec.kind, str(getattr(spec, field))  # type: ignore[attr-defined]
    return spec.kind, ""  # type: ignore[attr-defined]


def _all_variants() -> list[object]:
    """One drawn spec per (kind, variant) pair, from deterministic factor draws."""
    found: dict[tuple[str, str], object] = {}
    for seed in range(300):
        rng = np.random.default_rng(seed)
        for _tag, factor in MECHANISM_FACTORS.items():
            spec = factor.draw(NAMES[: 1 + seed % 4], rng, 1.0)
            found.setdefault(_variant(spec), spec)
    return [found[k] for k in sorted(found)]


VARIANTS = _all_variants()


def _union_kinds(union: object) -> set[str]:
    members = typing.get_args(typing.get_args(union)[0])
    return {typing.get_args(c.model_fields["kind"].annotation)[0] for c in members}


@pytest.mark.parametrize(("registry", "union"), [(MECHANISMS, MechanismSpec),
                                                 (NOISE, NoiseSpec), (ROOTS, RootSpec)])
def test_registry_matches_union(registry: object, union: object) -> None:
    assert set(registry) == _union_kinds(union)  # type: ignore[call-overload]


def test_every_kind_and_variant_is_covered() -> None:
    kinds = {s.kind for s in VARIANTS}  # type: ignore[attr-defined]
    assert kinds == set(MECHANISMS)
    activations = {v for k, v in map(_variant, VARIANTS) if k == "activation"}
    assert len(activations) == 15


@pytest.mark.parametrize("spec", VARIANTS, ids=lambda s: "-".join(_variant(s)))
@SETTINGS
@given(n=st.integers(1, 40), seed=st.integers(0, 2**16))
def test_finite_on_standard_normal_inputs(spec: object, n: int, seed: int) -> None:
    parents = spec.inputs()  # type: ignore[attr-defined]
    cols = np.random.default_rng(seed).standard_normal((len(parents), n))
    y = spec.lower(parents)(*cols)  # type: ignore[attr-defined]
    assert y.shape == (n,) and np.isfinite(y).all()


@pytest.mark.parametrize("spec", VARIANTS, ids=lambda s: "-".join(_variant(s)))
@SETTINGS
@given(perm_seed=st.integers(0, 2**16))
def test_parent_order_is_mapped_by_name(spec: object, perm_seed: int) -> None:
    parents = spec.inputs()  # type: ignore[attr-defined]
    rng = np.random.default_rng(perm_seed)
    cols = dict(zip(parents, rng.standard_normal((len(parents), 64))))
    order = tuple(rng.permutation(parents))
    base = spec.lower(parents)(*(cols[p] for p in parents))  # type: ignore[attr-defined]
    shuffled = spec.lower(order)(*(cols[p] for p in order))  # type: ignore[attr-defined]
    np.testing.assert_array_equal(base, shuffled)


@pytest.mark.parametrize("spec", VARIANTS, ids=lambda s: "-".join(_variant(s)))
def test_json_round_trip_evaluates_identically(spec: object) -> None:
    dumped = spec.model_dump(mode="json", by_alias=True)  # type: ignore[attr-defined]
    again = MECH.validate_python(dumped)
    assert again == spec
    parents = spec.inputs()  # type: ignore[attr-defined]
    cols = np.random.default_rng(0).standard_normal((len(parents), 200))
    np.testing.assert_array_equal(spec.lower(parents)(*cols), again.lower(parents)(*cols))


def _eval(spec: object, **cols: float) -> np.ndarray:
    names = tuple(cols)
    return spec.lower(names)(*(np.atleast_1d(np.asarray(v, float)) for v in cols.values()))


def test_hand_computed_values() -> None:
    tree = m.TreeMechanism(inputs=["a", "b"], depth=2, split_inputs=["a", "b", "a"],
                           thresholds=[0.0, 1.0, 2.0], leaf_values=[1, 2, 3, 4])
    assert _eval(tree, a=[-1, -1, 1, 3], b=[0, 2, 0, 0]).tolist() == [1, 2, 3, 4]
    binned = m.BinnedMechanism(inputs=["a"], weights=[1.0], cuts=[-1, 1], values=[5, 6, 7])
    assert _eval(binned, a=[-2, -1, 0, 1, 2]).tolist() == [5, 6, 6, 7, 7]
    pw = m.PiecewiseMechanism(inputs=["a"], weights=[1.0], cutoff=1.0, slope_low=0.5,
                              slope_high=2.0, offset_low=-1.0, offset_high=1.0)
    assert _eval(pw, a=[0.0, 3.0]).tolist() == [-1.5, 5.0]
    agg = m.AggregationMechanism(inputs=["a", "b"], weights=[1, 2], form="max", anchor=0.5)
    assert _eval(agg, a=[3, -1, -1], b=[0, 1, -1]).tolist() == [3, 2, 0.5]
    lse = m.AggregationMechanism(inputs=["a"], weights=[1], form="logsumexp", temperature=0.5)
    assert _eval(lse, a=[0.7]).tolist() == pytest.approx([0.7])
    rat = m.RationalMechanism(inputs=["a"], numerator=[2.0], numerator_bias=1.0,
                              denominator=[-1.0], denominator_offset=1.0)
    assert _eval(rat, a=[-3.0]).tolist() == [-5.0 / 4.0]
    inter = m.InteractionMechanism(inputs=["a", "b"], weights=[1, 0], pairs=[("a", "b")],
                                   pair_weights=[2.0], bias=1.0)
    assert _eval(inter, a=[2.0], b=[3.0]).tolist() == [15.0]
    explog = m.ExpLogMechanism(inputs=["a"], weights=[1.0], form="exp", clip=3.0)
    assert _eval(explog, a=[10.0]).tolist() == pytest.approx([np.exp(3.0)])


def test_input_range_is_exact_inside_and_logarithmic_beyond() -> None:
    coefficients = [[0.0, 0.0, 0.0, 1.0]]  # x^4
    free = m.PolynomialMechanism(inputs=["a"], coefficients=coefficients)
    held = m.PolynomialMechanism(inputs=["a"], coefficients=coefficients,
                                 input_range=[(-2.0, 2.0)])
    inside = np.linspace(-2.0, 2.0, 41)
    assert _eval(held, a=inside).tolist() == _eval(free, a=inside).tolist()
    # s = 0.5: 2 + 0.5 log(1 + 2 (x - 2)); increasing, slope 1 at the edge, x^4 of that
    x = np.array([2.0 + 1e-6, 3.0, 1e6, -1e6])
    z = np.array([2.0 + 1e-6, 2.0 + 0.5 * np.log(3.0), 2.0 + 0.5 * np.log1p(2 * (1e6 - 2)),
                  -(2.0 + 0.5 * np.log1p(2 * (1e6 - 2)))])
    assert _eval(held, a=x) == pytest.approx(z**4, rel=1e-9)
    assert _eval(held, a=[1e300]).item() < 2e10  # (2 + 0.5 log 4e300)^4; free: inf
    ordered = np.linspace(-50, 50, 1001)
    assert np.all(np.diff(soft_range(ordered[:, None], np.array([-2.0]),
                                       np.array([2.0]))[:, 0]) > 0)


@pytest.mark.parametrize(("name", "params", "x", "expected"), [
    ("modulo", {"period": 2.0}, [2.5, -0.5], [-0.5, 0.5]),
    ("round", {"step": 0.5}, [0.7, -1.3], [0.5, -1.5]),
    ("leaky_relu", {"negative_slope": 0.1}, [2.0, -2.0], [2.0, -0.2]),
    ("relu6", {}, [7.0, -1.0], [6.0, 0.0]),
    ("step", {}, [0.0, -0.1], [1.0, 0.0]),
    ("rank", {"rank_grid": [[-1.0, 0.0, 1.0, 2.0]]}, [0.0, 5.0, -5.0], [-0.25, 0.75, -0.75]),
])
def test_activation_values(name: str, params: dict, x: list, expected: list) -> None:
    spec = m.ActivationMechanism(inputs=["a"], activation=name, weights=[1.0], **params)
    assert _eval(spec, a=x).tolist() == pytest.approx(expected)


@pytest.mark.parametrize("bad", [
    {"kind": "activation", "inputs": ["a"], "activation": "modulo", "weights": [1.0]},
    {"kind": "activation", "inputs": ["a"], "activation": "relu", "weights": [1.0], "step": 1},
    {"kind": "tree", "inputs": ["a", "b"], "depth": 1, "split_inputs": ["a"], "thresholds": [0],
     "leaf_values": [0, 1]},
    {"kind": "binned", "inputs": ["a"], "weights": [1], "cuts": [1, 0], "values": [0, 1, 2]},
    {"kind": "polynomial", "inputs": ["a", "b"], "coefficients": [[1.0]]},
    {"kind": "interaction", "inputs": ["a"], "weights": [1], "pairs": [["a", "z"]],
     "pair_weights": [1]},
    {"kind": "aggregation", "inputs": ["a"], "weights": [1], "form": "max", "temperature": 1},
    {"kind": "rff", "inputs": ["a"], "omega": [[1.0, 2.0]], "phases": [0], "weights": [1]},
    {"kind": "saturation", "inputs": ["a", "a"], "weights": [1, 1]},
    {"kind": "polynomial", "inputs": ["a"], "coefficients": [[1.0]], "input_range": [[1, 1]]},
    {"kind": "product", "inputs": ["a", "b"], "weights": [1, 1], "input_range": [[0, 1]]},
])
def test_malformed_mechanisms_are_rejected(bad: dict) -> None:
    with pytest.raises(ValidationError):
        MECH.validate_python(bad)


# -- noise: documented mean and variance within 5 standard errors ---------------------------
N = 200_000


def _check_moments(x: np.ndarray, mean: float, var: float) -> None:
    se_mean = np.sqrt(var / len(x))
    m4 = np.mean((x - x.mean()) ** 4)
    se_var = np.sqrt(max(m4 - x.var() ** 2, 1e-300) / len(x))
    assert abs(x.mean() - mean) < 5 * se_mean, (x.mean(), mean)
    assert abs(x.var() - var) < 5 * se_var, (x.var(), var)


NOISE_CASES = [
    (nz.NormalNoise(sd=0.3), 0.0, 0.09),
    (nz.UniformNoise(scale=0.4), 0.0, 0.16 / 3),
    (nz.LaplaceNoise(scale=0.2), 0.0, 2 * 0.04),
    (nz.StudentTNoise(df=8, scale=0.2), 0.0, 0.04 * 8 / 6),
    (nz.LognormalNoise(sigma=0.2), np.exp(0.02) - 1, (np.exp(0.04) - 1) * np.exp(0.04)),
    (nz.TargetR2Noise(r2=0.5, sd=0.7), 0.0, 0.49),
    (nz.MixtureOutlierNoise(sd=0.1, outlier_prob=0.05, outlier_scale=2.0), 0.0,
     0.95 * 0.01 + 0.05 * 4.0),
    (nz.BetaNoise(a=2, b=5, scale=0.4), 0.0, 0.16 * 10 / (49 * 8)),
    (nz.ExponentialNoise(rate=2.0, scale=0.3), 0.0, (0.3 / 2.0) ** 2),
    (nz.GumbelNoise(scale=0.2), 0.0, 0.04 * np.pi**2 / 6),
]


@pytest.mark.parametrize(("noise", "mean", "var"), NOISE_CASES,
                         ids=lambda v: getattr(v, "kind", ""))
def test_noise_moments(noise: object, mean: float, var: float) -> None:
    eps = noise.draw(np.random.default_rng(1), N)  # type: ignore[attr-defined]
    _check_moments(noise.apply(np.zeros(N), eps), mean, var)  # type: ignore[attr-defined]


def test_heteroskedastic_scale_follows_the_signal() -> None:
    noise = nz.HeteroskedasticNoise(base=0.1, slope=0.2)
    for level in (0.0, 3.0):
        f = np.full(N, level)
        out = noise.apply(f, noise.draw(np.random.default_rng(2), N))
        _check_moments(out - f, 0.0, (0.1 + 0.2 * special.expit(level)) ** 2)


def test_rff_heteroskedastic_scale_is_softplus_of_the_features() -> None:
    rng = np.random.default_rng(3)
    om, ph, w = rng.standard_normal((64, 2)), rng.uniform(0, 6.28, 64), rng.standard_normal(64)
    noise = nz.RFFHeteroskedasticNoise(inputs=["a", "b"], omega=om.tolist(), phases=ph.tolist(),
                                       weights=w.tolist(), output_scale=0.8)
    n = 40_000
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    g = 0.8 * np.sqrt(2 / 64) * np.cos(np.column_stack([a, b]) @ om.T + ph) @ w
    out = noise.apply(np.zeros(n), noise.draw(rng, n), {"b": b, "a": a})
    _check_moments(out / np.logaddexp(0, g), 0.0, 1.0)
    with pytest.raises(ValueError, match="not parents"):
        noise.apply(np.zeros(3), np.zeros(3), {"a": np.zeros(3)})


def test_quantised_and_censored() -> None:
    rng = np.random.default_rng(4)
    q = nz.QuantisedNoise(step=0.2, sd=0.1)
    f = rng.uniform(0, 20, N)
    out = q.apply(f, q.draw(rng, N))
    assert np.allclose(out / 0.2, np.round(out / 0.2))
    _check_moments(out - f, 0.0, 0.01 + 0.04 / 12)
    c = nz.CensoredNoise(sd=0.1, low=-1.0, high=2.0)
    f = rng.normal(0, 1, N)
    eps = c.draw(rng, N)
    out = c.apply(f, eps)
    assert out.min() == -1.0 and out.max() == 2.0
    inside = (f + eps > -1) & (f + eps < 2)
    np.testing.assert_array_equal(out[inside], (f + eps)[inside])


def test_none_noise_is_exact() -> None:
    f = np.arange(3.0)
    assert nz.NoNoise().draw(np.random.default_rng(0), 3) is None
    np.testing.assert_array_equal(nz.NoNoise().apply(f, None), f)


# -- roots: documented moments, ppf and support ----------------------------------------------
def _zipf_moments(size: int, alpha: float, cap: float) -> tuple[float, float]:
    v = np.arange(1, size + 1.0)
    p = v**-alpha / np.sum(v**-alpha)
    c = np.minimum(v, cap)
    return 0.0, float(p @ c**2 - (p @ c) ** 2)


_TN = stats.truncnorm(-1.0, 2.0, loc=0.5, scale=1.5)
_ORD = np.array([0.2, 0.5, 0.3])
ROOT_CASES = [
    (rt.UniformRoot(low=-1, high=3), 1.0, 16 / 12),
    (rt.NormalRoot(mean=0.5, sd=2), 0.5, 4.0),
    (rt.TruncatedNormalRoot(mean=0.5, sd=1.5, low=-1.0, high=3.5), _TN.mean(), _TN.var()),
    (rt.LognormalRoot(meanlog=0.2, sdlog=0.5), np.exp(0.325), (np.exp(0.25) - 1) * np.exp(0.65)),
    (rt.GammaRoot(shape=3, rate=2), 1.5, 0.75),
    (rt.BetaRoot(a=2, b=3, low=-1, high=2), -1 + 3 * 0.4, 9 * 6 / (25 * 6)),
    (rt.ExponentialRoot(rate=2.0), 0.5, 0.25),
    (rt.GumbelRoot(loc=0.3, scale=1.2), 0.3 + 1.2 * np.euler_gamma, 1.44 * np.pi**2 / 6),
    (rt.BernoulliRoot(p=0.3), 0.3, 0.21),
    (rt.PoissonRoot(rate=4.0), 4.0, 4.0),
    (rt.OrdinalRoot(probs=_ORD.tolist()), 1.1, _ORD @ np.arange(3.0) ** 2 - 1.21),
    (rt.GaussianMixtureRoot(weights=[0.3, 0.7], means=[-1, 1], sds=[0.5, 0.8]), 0.4,
     0.3 * 1.25 + 0.7 * 1.64 - 0.16),
    (rt.MultinomialRoot(logits=[0.3, -1.0, 1.2, 0.0, 0.5]), 0.0, 1.0),
    (rt.ZipfRoot(support_size=15, alpha=2.5, cap=10), *_zipf_moments(15, 2.5, 10)),
]


@pytest.mark.parametrize(("root", "mean", "var"), ROOT_CASES,
                         ids=lambda v: getattr(v, "kind", ""))
def test_root_moments_ppf_and_support(root: object, mean: float, var: float) -> None:
    rng = np.random.default_rng(5)
    x = root.draw(rng, N)  # type: ignore[attr-defined]
    _check_moments(x, mean, var)
    _check_moments(root.ppf(rng.random(N)), mean, var)  # type: ignore[attr-defined]
    lo, hi = root.support()  # type: ignore[attr-defined]
    assert lo - 1e-12 <= x.min() and x.max() <= hi + 1e-12


def test_stored_moments_are_used() -> None:
    mult = rt.MultinomialRoot(logits=[0.0, 0.0], mean=0.0, sd=1.0)
    assert sorted(set(mult.ppf(np.array([0.1, 0.9])).tolist())) == [0.0, 1.0]
    zipf = rt.ZipfRoot(support_size=8, alpha=2.0, cap=3, centre=0.0)
    assert zipf.ppf(np.array([0.0, 0.999999])).tolist() == [1.0, 3.0]
