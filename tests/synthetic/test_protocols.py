"""Intervention protocols: split sizes, eligible targets, per-row counts and handler
parameters inside their documented ranges, and cards that pass the intervention gates."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scmspec.compiler.pipeline import compile_card
from scmspec.compiler.spec import Card
from scmspec.compiler.synthetic_spec import GraphFactor, SyntheticSpec
from scmspec.samplers.scm import SCM
from scmspec.synthetic.materialize import materialize
from scmspec.synthetic.protocols import (
    PROTOCOLS,
    SAMPLE_SIZES,
    handler_for,
    stressed_handler,
    target_pool_range,
)
from scmspec.synthetic.rng import stream
from scmspec.validators import GateContext, ReplicateData, run_gates


def _card(protocol: str, difficulty: list[str] | None = None, seed: int = 3, d: int = 12) -> Card:
    factor = Card(id=f"p-{protocol}", title="t", family="synthetic", domain="synthetic",
                  protocol={"replicates": 1},
                  synthetic=SyntheticSpec(seed=seed, graph=GraphFactor(family="layered", d=d),
                                          protocol=protocol, difficulty=difficulty or []))
    return materialize(factor)


def _handlers(card: Card) -> dict[str, dict]:
    return {t: card.variables[t].intervention.handler.model_dump()  # type: ignore[union-attr]
            for t in card.interventions.targets or []}


def test_six_protocols_and_the_sample_size_suite() -> None:
    assert sorted(PROTOCOLS) == sorted(["default", "setpoint", "parameter_shift", "high_fraction",
                                        "multi_target", "dense_mixed"])
    sizes = {t: (p.n_int_obs, p.n_int) for t, p in PROTOCOLS.items()}
    assert sizes["high_fraction"] == sizes["dense_mixed"] == (200, 800)
    assert all(sizes[t] == (800, 200) for t in ("default", "setpoint", "parameter_shift",
                                                 "multi_target"))
    assert SAMPLE_SIZES == (100, 200, 500, 1000, 2000, 5000, 10000)


def test_target_pool_sizes_grow_with_d() -> None:
    assert [target_pool_range(d) for d in (10, 20, 30, 50, 100)] == [
        (2, 4), (3, 6), (4, 8), (5, 12), (8, 20)]


@settings(max_examples=40, derandomize=True, deadline=None)
@given(family=st.sampled_from(["setpoint", "scale", "shift", "parameter_shift", "resample"]),
       seed=st.integers(0, 10**6))
def test_handler_parameters_lie_in_their_ranges(family: str, seed: int) -> None:
    h = handler_for(family, "x", False, {}, stream(seed, "h"))
    if h["kind"] == "setpoint":
        assert h["percentile"] in (0.2, 0.5, 0.8) and h["jitter"] == 0.01
    elif h["kind"] == "scale":
        assert 0.6 <= h["factor"] <= 0.85 or 1.15 <= h["factor"] <= 1.6
    elif h["kind"] == "shift":
        assert 0.3 <= abs(h["iqr"]) <= 0.8
    else:
        assert h == {"kind": "resample"} and family == "resample"


@settings(max_examples=30, derandomize=True, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_intervention_stressors_use_their_ranges(seed: int) -> None:
    both = ["distribution_shift", "soft_interventions"]
    h = stressed_handler(both, False, stream(seed, "s"))
    assert h is not None
    if h["kind"] == "soft":
        assert h == {"kind": "soft", "softness": 0.45}
    elif h["kind"] == "shift":
        assert 0.5 <= abs(h["iqr"]) <= 1.5
    else:
        assert 0.5 <= h["factor"] <= 0.8 or 1.25 <= h["factor"] <= 2.0
    assert stressed_handler(both, True, stream(seed, "s")) is None  # discrete: keep resample


def test_discrete_setpoint_targets_get_a_valid_level() -> None:
    pilot = {"b": np.array([-0.7, 1.4, 1.4, -0.7, 1.4])}
    h = handler_for("setpoint", "b", True, pilot, stream(0, "d"))
    assert h["kind"] == "do" and h["value"] in (-0.7, 1.4)


@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
def test_each_protocol_materialises_and_passes_the_intervention_gates(protocol: str) -> None:
    card = _card(protocol)
    p = PROTOCOLS.lookup(protocol)
    targets = card.interventions.targets or []
    lo, hi = target_pool_range(12)
    assert lo <= len(targets) <= hi
    assert (card.protocol.n_int_obs, card.protocol.n_int) == (p.n_int_obs, p.n_int)
    roots = {v for v, s in card.variables.items() if s.distribution is not None}
    if p.structural_only:
        assert not set(targets) & roots
    assert (2 <= card.interventions.per_row <= 4) if p.multi_target else \
        card.interventions.per_row == 1
    kinds = {h["kind"] for h in _handlers(card).values()}
    expected = {"default": {"resample"}, "high_fraction": {"resample"},
                "multi_target": {"resample"}, "setpoint": {"setpoint", "do"},
                "parameter_shift": {"scale", "shift"},
                "dense_mixed": {"resample", "setpoint", "scale", "shift", "do"}}[protocol]
    assert kinds <= expected
    compiled = compile_card(card)
    scm = SCM(compiled, compiled.plan)
    proto = card.protocol
    obs = scm.streams(proto.seed, "obs", 0)
    from scmspec.samplers import numpy_sampler

    rep = ReplicateData(0, numpy_sampler.sample(compiled.plan, proto.n_obs, 0, obs),
                        numpy_sampler.sample(compiled.plan, proto.n_int_obs, proto.n_int,
                                             scm.streams(proto.seed, "obsint", 0)))
    results = run_gates(GateContext(compiled, (rep,), protocol=proto),
                        only=["intervention_effect", "mask_consistency"])
    assert not [r for r in results if r.blocking_failure], [r.detail for r in results]


def test_dense_mixed_balances_its_handlers() -> None:
    card = _card("dense_mixed", d=20, seed=5)
    families = []
    for h in _handlers(card).values():
        families.append("parameter_shift" if h["kind"] in ("scale", "shift") else h["kind"])
    counts = {f: families.count(f) for f in set(families)}
    assert len(counts) >= 2 and max(counts.values()) - min(counts.values()) <= 1


def test_soft_intervention_stressor_applies_under_the_default_protocol() -> None:
    card = _card("default", ["soft_interventions"])
    kinds = {h["kind"] for t, h in _handlers(card).items()
             if card.variables[t].kind == "continuous"}
    assert kinds == {"soft"}
