"""Node factors: draws stay inside their documented ranges, strength scales the output,
pilot-based numbers are right, and generated kinds compile and sample end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scmspec
from scmspec.compiler.kinds.roots import ROOTS
from scmspec.compiler.spec import Card
from scmspec.synthetic.nodes.factors import (
    MECHANISM_FACTORS,
    NOISE_FACTORS,
    ROOT_FACTORS,
    fit_rank_grid,
)

SETTINGS = settings(max_examples=25, derandomize=True, deadline=None)
NAMES = ("a", "b", "c", "d", "e", "f", "g", "h")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "synthetic-kinds.md"
Values = dict[str, list[float]]


def _abs(v: object, scale: float = 1.0) -> list[float]:
    return list(np.abs(np.asarray(v, float)) * scale)


def _mech_values(s: object, k: int) -> Values:  # noqa: C901 - one branch per kind
    """The drawn numbers of a mechanism spec, undone from their documented scaling."""
    d, kind, rk = s.model_dump(), s.kind, np.sqrt(k)  # type: ignore[attr-defined]
    if kind == "linear":
        return {"weight_magnitude": _abs(list(d["weights"].values()), rk / 0.8),
                "bias": [d["bias"]]}
    if kind == "polynomial":
        c = np.asarray(d["coefficients"])
        out = {"degree": [c.shape[1]], "weight_magnitude": _abs(c[:, 0], rk / 0.8)}
        for j, name in enumerate(("quadratic", "cubic", "quartic"), start=1):
            if c.shape[1] > j:
                out[name] = list(c[:, j])
        return out
    if kind == "product":
        assert d["gain"] * rk == pytest.approx(0.8, rel=1e-5)
        return {"weight_magnitude": _abs(d["weights"]), "bias": [d["bias"]]}
    if kind == "function_product":
        return {"weight_magnitude": _abs(d["slopes"]), "shift": d["shifts"],
                "output_scale": [d["scale"]]}
    if kind == "interaction":
        m = len(d["pairs"])
        return {"pairs": [m], "weight_magnitude": _abs(d["weights"], rk / 0.8)
                + _abs(d["pair_weights"], np.sqrt(m) / 0.5)}
    if kind == "rational":
        return {"weight_magnitude": _abs(d["numerator"], rk) + _abs(d["denominator"], rk),
                "numerator_bias": [d["numerator_bias"]],
                "denominator_offset": [d["denominator_offset"]]}
    if kind == "exp_log":
        assert np.linalg.norm(d["weights"]) == pytest.approx(1.0, abs=1e-5)
        return {"clip": [d["clip"]], "scale_magnitude": _abs([d["scale"]])}
    if kind == "periodic":
        return {"weight_magnitude": _abs(d["amplitudes"], rk / 0.8),
                "frequency": d["frequencies"], "phase": d["phases"]}
    if kind == "piecewise":
        return {"cutoff": [d["cutoff"]], "slope_low": [d["slope_low"]],
                "slope_high": [d["slope_high"]], "offset": [d["offset_low"], d["offset_high"]]}
    if kind == "saturation":
        return {"scale": [d["scale"]], "input_gain": [np.linalg.norm(d["weights"])]}
    if kind == "regime":
        return {k2: [d[k2]] for k2 in ("gate_scale", "cutoff", "alternate_scale")}
    if kind == "mlp":
        units = len(d["hidden_bias"])
        return {"hidden_units": [units], "hidden_weight_magnitude": _abs(d["hidden_weights"], rk),
                "hidden_bias": d["hidden_bias"],
                "output_weight_magnitude": _abs(d["output_weights"], np.sqrt(units))}
    if kind == "rff":
        return {"features": [len(d["omega"])], "length_scale": [d["length_scale"]],
                "output_scale": [d["output_scale"]]}
    if kind == "activation":
        out = {"weight_magnitude": _abs(d["weights"], rk / 0.8), "shift": d["shifts"]}
        out.update({p: [d[p]] for p in ("negative_slope", "period", "step") if d[p] is not None})
        return out
    if kind == "tree":
        return {"depth": [d["depth"]], "threshold": d["thresholds"],
                "leaf_value": d["leaf_values"]}
    if kind == "binned":
        return {"bins": [len(d["values"])], "cut": d["cuts"], "value": d["values"]}
    assert kind == "aggregation"
    out = {"weight_magnitude": _abs(d["weights"]), "anchor": [d["anchor"]]}
    if d["temperature"] is not None:
        out["temperature"] = [d["temperature"]]
    return out


def _noise_values(s: object) -> Values:
    d = s.model_dump(exclude={"kind", "mode", "inputs_", "omega", "phases", "weights",  # type: ignore[attr-defined]
                              "low", "high"})
    if s.kind == "rff_heteroskedastic":  # type: ignore[attr-defined]
        d["features"] = len(s.omega)  # type: ignore[attr-defined]
    if s.kind == "target_r2":  # type: ignore[attr-defined]
        del d["sd"]  # computed from the pilot, checked separately
    return {k: [v] for k, v in d.items()}


def _root_values(s: object) -> Values:
    d, kind = s.model_dump(exclude={"kind"}), s.kind  # type: ignore[attr-defined]
    if kind == "truncated_normal":
        assert d["low"] == pytest.approx(d["mean"] - 2.5 * d["sd"], abs=1e-5)
        assert d["high"] == pytest.approx(d["mean"] + 2.5 * d["sd"], abs=1e-5)
        return {"mean": [d["mean"]], "sd": [d["sd"]]}
    if kind == "ordinal":
        assert sum(d["probs"]) == pytest.approx(1.0, abs=1e-6)
        return {"levels": [len(d["probs"])]}
    if kind == "gaussian_mixture":
        return {"p": [d["weights"][0]], "mean_low": [d["means"][0]],
                "mean_high": [d["means"][1]], "sd": d["sds"]}
    if kind == "multinomial":
        return {"categories": [len(d["logits"])], "logits": d["logits"]}
    if kind == "exponential":
        assert d.pop("loc") == 0.0
    if kind == "zipf":
        return {"support": [d["support_size"]], "alpha": [d["alpha"]], "cap": [d["cap"]]}
    return {k: [v] for k, v in d.items()}


def _inside(values: Values, ranges: dict[str, tuple[float, float]]) -> None:
    for key, vals in values.items():
        assert key in ranges, f"{key!r} is drawn but has no documented range"
        lo, hi = ranges[key]
        tol = 1e-5 * max(1.0, abs(lo), abs(hi))
        for v in np.ravel(np.asarray(vals, float)):
            assert lo - tol <= v <= hi + tol, f"{key}={v} outside [{lo}, {hi}]"


def test_registry_sizes_and_tags() -> None:
    assert len(MECHANISM_FACTORS) == 16 and len(NOISE_FACTORS) == 15 and len(ROOT_FACTORS) == 14
    assert set(MECHANISM_FACTORS) == {
        "linear", "polynomial", "multiplicative", "interaction", "rational", "exp_log",
        "trigonometric", "piecewise", "saturation", "regime", "neural", "rff", "activation",
        "tree", "discretisation", "aggregation"}


@pytest.mark.parametrize("tag", list(MECHANISM_FACTORS))
@SETTINGS
@given(k=st.integers(1, 8), seed=st.integers(0, 2**32 - 1))
def test_mechanism_draws_inside_ranges(tag: str, k: int, seed: int) -> None:
    factor = MECHANISM_FACTORS.lookup(tag)
    parents = NAMES[:k]
    spec = factor.draw(parents, np.random.default_rng(seed), 1.0)
    assert sorted(spec.inputs()) == sorted(parents)
    assert spec.family == tag
    _inside(_mech_values(spec, k), factor.ranges)


@pytest.mark.parametrize("tag", list(MECHANISM_FACTORS))
def test_every_documented_range_is_drawn(tag: str) -> None:
    factor, seen = MECHANISM_FACTORS.lookup(tag), set()
    for seed in range(120):
        k = 1 + seed % 4
        seen |= set(_mech_values(factor.draw(NAMES[:k], np.random.default_rng(seed), 1.0), k))
    assert seen == set(factor.ranges)


@pytest.mark.parametrize("tag", list(MECHANISM_FACTORS))
@SETTINGS
@given(k=st.integers(1, 5), seed=st.integers(0, 2**32 - 1))
def test_strength_scales_the_output(tag: str, k: int, seed: int) -> None:
    factor, parents = MECHANISM_FACTORS.lookup(tag), NAMES[:k]
    full = factor.draw(parents, np.random.default_rng(seed), 1.0)
    weak = factor.draw(parents, np.random.default_rng(seed), 0.45)
    cols = np.random.default_rng(seed + 1).standard_normal((k, 300))
    y1, y2 = full.lower(parents)(*cols), weak.lower(parents)(*cols)
    np.testing.assert_allclose(y2, 0.45 * y1, rtol=1e-4, atol=1e-4 * (1 + np.abs(y1).max()))


def test_draws_are_deterministic() -> None:
    for registry, call in ((MECHANISM_FACTORS, lambda f, r: f.draw(("x", "y"), r, 1.0)),
                           (NOISE_FACTORS, lambda f, r: f.draw(r, np.arange(9.0), ("x",))),
                           (ROOT_FACTORS, lambda f, r: f.draw(r)[0])):
        for _tag, factor in registry.items():
            first = call(factor, np.random.default_rng(7))
            assert first == call(factor, np.random.default_rng(7))


@pytest.mark.parametrize("tag", list(NOISE_FACTORS))
@SETTINGS
@given(k=st.integers(1, 4), seed=st.integers(0, 2**32 - 1))
def test_noise_draws_inside_ranges(tag: str, k: int, seed: int) -> None:
    factor, rng = NOISE_FACTORS.lookup(tag), np.random.default_rng(seed)
    spec = factor.draw(rng, rng.normal(0, 2, 200), NAMES[:k])
    _inside(_noise_values(spec), factor.ranges)


def test_target_r2_sets_sd_from_the_pilot_variance() -> None:
    rng = np.random.default_rng(0)
    pilot = rng.normal(1.0, 3.0, 5000)
    spec = NOISE_FACTORS.lookup("target_r2_gaussian").draw(rng, pilot, ("a",))
    assert np.var(pilot) / (np.var(pilot) + spec.sd**2) == pytest.approx(spec.r2, rel=1e-5)
    fresh = rng.normal(1.0, 3.0, 100_000)
    y = spec.apply(fresh, spec.draw(rng, fresh.size))
    assert np.corrcoef(fresh, y)[0, 1] ** 2 == pytest.approx(spec.r2, abs=0.01)
    constant = NOISE_FACTORS.lookup("target_r2_gaussian").draw(rng, np.zeros(10), ("a",))
    assert constant.sd > 0


def test_censored_bounds_are_pilot_percentiles() -> None:
    rng = np.random.default_rng(1)
    pilot = rng.standard_normal(20_000)
    spec = NOISE_FACTORS.lookup("censored").draw(rng, pilot, ("a",))
    out = spec.apply(pilot, spec.draw(rng, pilot.size))
    assert np.mean(out == spec.low) == pytest.approx(0.03, abs=0.006)
    assert np.mean(out == spec.high) == pytest.approx(0.03, abs=0.006)


def test_rff_noise_reads_exactly_the_parents() -> None:
    spec = NOISE_FACTORS.lookup("rff_heteroskedastic").draw(np.random.default_rng(2),
                                                           np.zeros(5), ("p", "q"))
    assert spec.inputs() == ("p", "q")
    with pytest.raises(ValueError):
        NOISE_FACTORS.lookup("rff_heteroskedastic").draw(np.random.default_rng(2), np.zeros(5), ())


@pytest.mark.parametrize("tag", list(ROOT_FACTORS))
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_root_draws_inside_ranges(tag: str, seed: int) -> None:
    factor = ROOT_FACTORS.lookup(tag)
    spec, kind = factor.draw(np.random.default_rng(seed))
    assert kind in ("continuous", "binary", "count", "ordinal")
    assert type(spec).discrete == (kind != "continuous")
    assert spec.kind in ROOTS
    _inside(_root_values(spec), factor.ranges)


def test_fit_rank_grid_matches_the_pilot() -> None:
    rng = np.random.default_rng(3)
    spec = None
    while spec is None or spec.activation != "rank":
        spec = MECHANISM_FACTORS.lookup("activation").draw(("a",), rng, 1.0)
    pilot = rng.exponential(2.0, 20_000)
    fitted = fit_rank_grid(spec, {"a": pilot})
    fresh = rng.exponential(2.0, 20_000)
    y = (fitted.lower(("a",))(fresh) - fitted.bias) / fitted.weights[0]
    assert np.mean(y) == pytest.approx(0.0, abs=0.03)  # 2 F(x) - 1 is centred on the pilot law
    assert np.std(y) == pytest.approx(1 / np.sqrt(3), abs=0.03)  # uniform on (-1, 1)


def test_docs_list_every_tag_kind_and_range() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for registry in (MECHANISM_FACTORS, NOISE_FACTORS, ROOT_FACTORS):
        for tag, factor in registry.items():
            assert f"`{tag}`" in text, f"{tag!r} missing from docs/synthetic-kinds.md"
            for key in factor.ranges:
                assert f"`{key}`" in text, f"range {key!r} of {tag!r} missing from the docs"


# -- end to end: generated kinds compile and sample --------------------------------------------
def _generated_card(seed: int) -> dict:
    """A card with one root per root factor and one node per mechanism factor, noise
    factors assigned in turn; what a grid generator would write."""
    rng = np.random.default_rng(seed)
    variables: dict = {}
    edges: list = []
    for i, (tag, factor) in enumerate(ROOT_FACTORS.items()):
        spec, kind = factor.draw(rng)
        variables[f"r{i}"] = {"meaning": tag, "kind": kind, "intervention": {"meaning": "set"},
                              "distribution": spec.model_dump(mode="json", by_alias=True)}
    noises = list(NOISE_FACTORS)
    roots = list(variables)
    for j, (tag, factor) in enumerate(MECHANISM_FACTORS.items()):
        parents = tuple(str(p) for p in rng.choice(roots, 1 + j % 3, replace=False))
        mech = factor.draw(parents, rng, 1.0)
        pilot = mech.lower(parents)(*rng.standard_normal((len(parents), 400)))
        noise = NOISE_FACTORS.lookup(noises[j % len(noises)]).draw(rng, pilot, parents)
        variables[f"m{j}"] = {"meaning": tag, "intervention": {"meaning": "set"},
                              "mechanism": mech.model_dump(mode="json", by_alias=True),
                              "noise": noise.model_dump(mode="json", by_alias=True)}
        edges += [{"from": p, "to": f"m{j}", "reason": "generated"} for p in parents]
    return {"id": f"gen{seed}", "title": "generated", "family": "synthetic",
            "domain": "synthetic", "variables": variables, "edges": edges}


def test_generated_card_compiles_and_samples() -> None:
    scm = scmspec.compile(Card.model_validate(_generated_card(11)))
    data = scm.sample(500, seed=1)
    assert data.shape == (500, 30) and np.isfinite(data.to_numpy(float)).all()
    inter = scm.sample_interventional(400, 100, seed=2)
    assert np.isfinite(inter.data.to_numpy(float)).all()
    again = scmspec.compile(Card.model_validate(_generated_card(11))).sample(500, seed=1)
    assert data.equals(again)


CARD = """
id: new_kinds
title: Hand-written card with new kinds
family: synthetic
domain: synthetic
variables:
  a: {meaning: root, distribution: {kind: zipf, support_size: 12, alpha: 2.5, cap: 10},
      intervention: {meaning: set a}}
  b: {meaning: root, distribution: {kind: multinomial, logits: [0.2, -0.4, 1.0]}}
  c:
    meaning: tree over a and b
    mechanism: {kind: tree, inputs: [a, b], depth: 2, split_inputs: [a, b, a],
                thresholds: [0.0, 0.5, 1.0], leaf_values: [-1.0, 0.0, 1.0, 2.0]}
    noise: {kind: heteroskedastic, base: 0.05, slope: 0.1}
  d:
    meaning: random features of c and a
    mechanism: {kind: activation, inputs: [c, a], activation: modulo, period: 1.5,
                weights: [1.0, -0.5]}
    noise: {kind: rff_heteroskedastic, inputs: [a, c], omega: [[1.0, -0.5], [0.3, 2.0]],
            phases: [0.1, 2.0], weights: [0.7, -1.1], output_scale: 0.5}
  e:
    meaning: censored regime switch
    mechanism: {kind: regime, inputs: [d], gate_weights: [1.0], gate_scale: 2.0,
                weights: [1.0], alternate_weights: [-1.0], alternate_scale: 1.5}
    noise: {kind: censored, sd: 0.1, low: -1.0, high: 1.0}
  f:
    meaning: quantised sum
    mechanism: {kind: polynomial, inputs: [e, b], coefficients: [[1.0, 0.2], [0.5, -0.1]]}
    noise: {kind: quantised, step: 0.25, sd: 0.1}
edges:
  - {from: a, to: c, reason: split}
  - {from: b, to: c, reason: split}
  - {from: c, to: d, reason: periodic response}
  - {from: a, to: d, reason: periodic response}
  - {from: d, to: e, reason: regime}
  - {from: e, to: f, reason: polynomial}
  - {from: b, to: f, reason: polynomial}
"""


def test_hand_written_card_with_new_kinds() -> None:
    scm = scmspec.compile_text(CARD, "new_kinds.yaml")
    data = scm.sample(2000, seed=3)
    assert np.isfinite(data.to_numpy(float)).all()
    assert data["e"].between(-1.0, 1.0).all()
    assert np.allclose(data["f"] / 0.25, np.round(data["f"] / 0.25))
    assert abs(data["b"].mean()) < 0.1 and abs(data["b"].std() - 1) < 0.1
    moved = scm.do({"a": 3.0}).sample(2000, seed=3)
    assert (moved["b"] == data["b"]).all() and not (moved["c"] == data["c"]).all()

