"""Materialisation: deterministic, complete, reproducible from its own record, valid by
construction, and failing with located diagnostics when it cannot be made valid."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scmspec.api import spec_document
from scmspec.build import ProtocolOverrides, build
from scmspec.compiler.load import load_text
from scmspec.compiler.pipeline import compile_card
from scmspec.compiler.spec import Card
from scmspec.compiler.synthetic_spec import GraphFactor, SyntheticSpec
from scmspec.compiler.validate import validate
from scmspec.samplers.scm import SCM
from scmspec.synthetic.build_hooks import MAX_SCM_ATTEMPTS, redraw
from scmspec.synthetic.errors import SynthesisError
from scmspec.synthetic.graphs.draw import GRAPH_FAMILIES
from scmspec.synthetic.grid.yaml_out import card_yaml
from scmspec.synthetic.materialize import materialize
from scmspec.synthetic.nodes.dependency import ROOT_DEPENDENCIES, draw_block
from scmspec.synthetic.nodes.mixing import family_count_range, root_family_count_range
from scmspec.synthetic.rng import stream
from scmspec.validators import make_result


def _factor(family: str = "erdos_renyi", d: int = 10, seed: int = 1, **extra: object) -> Card:
    return Card(id=f"m-{family}-{d}-{seed}", title="t", family="synthetic", domain="synthetic",
                protocol={"replicates": 1},
                synthetic=SyntheticSpec(seed=seed, graph=GraphFactor(family=family, d=d),
                                        **extra))  # type: ignore[arg-type]


def test_same_factors_same_card_other_seed_other_numbers() -> None:
    a, b = materialize(_factor()), materialize(_factor())
    assert a.model_dump_json() == b.model_dump_json()
    c = materialize(_factor(seed=2).model_copy(update={"id": a.id}))
    assert c.model_dump_json() != a.model_dump_json()


def test_the_materialised_section_reproduces_the_card() -> None:
    full = materialize(_factor("scale_free", 12, root_dependency="common_factor",
                               difficulty=["high_noise", "outliers"]))
    again = materialize(full.model_copy(update={
        "variables": {}, "edges": [], "root_blocks": [],
        "synthetic": full.synthetic.model_copy(update={"nodes": None, "observation": None})}))
    assert again.model_dump_json() == full.model_dump_json()


def test_every_number_is_in_the_card_and_spec_json() -> None:
    full = materialize(_factor("tree", 10))
    doc = spec_document(SCM(compile_card(full), compile_card(full).plan))["card"]
    assert set(doc["variables"]) == set(full.variables)
    for v, spec in doc["variables"].items():
        assert ("mechanism" in spec) != ("distribution" in spec), v
    (block,) = doc["root_blocks"]
    assert len(block["loc"]) == len(block["scale"]) == len(block["variables"])
    assert doc["synthetic"]["graph"]["density"] is not None
    assert all(e["reason"].startswith("synthetic: ") for e in doc["edges"])


def test_a_written_card_reparses_to_the_same_model() -> None:
    full = materialize(_factor("collider_rich", 12, difficulty=["feature_warping"]))
    data, smap = load_text(card_yaml(full), "c.yaml")
    assert validate(data, smap).model_dump_json() == full.model_dump_json()


@settings(max_examples=12, derandomize=True, deadline=None)
@given(family=st.sampled_from(sorted(GRAPH_FAMILIES)), d=st.sampled_from([10, 20]),
       seed=st.integers(0, 10**5),
       dependency=st.sampled_from(["independent", "common_factor", "random_covariance",
                                   "uniform_ball"]))
def test_family_mixing_follows_the_reference_counts(family: str, d: int, seed: int,
                                                    dependency: str) -> None:
    full = materialize(_factor(family, d, seed, root_dependency=dependency))
    s = full.synthetic
    nodes = s.nodes.values()
    roots = [n for n in nodes if n.root]
    lo, hi = family_count_range(d)
    assert lo <= len(s.mechanisms) <= hi and lo <= len(s.noise) <= hi
    rlo, rhi = root_family_count_range(len(roots))
    assert rlo <= len(s.roots) <= rhi
    assert {n.root for n in roots} <= set(s.roots)
    others = [n for n in nodes if not n.root]
    assert sum(n.noise == "none" for n in others) <= 0.1 * len(others)
    (block,) = full.root_blocks
    assert block.variables == sorted(v for v, r in s.nodes.items() if r.root)
    expected = "independent" if dependency == "independent" else (
        "uniform_ball" if dependency == "uniform_ball" else "gaussian_copula")
    assert block.kind == expected
    assert "graph=" + family in full.tags and f"d={d}" in full.tags


@settings(max_examples=20, derandomize=True, deadline=None)
@given(kind=st.sampled_from(sorted(ROOT_DEPENDENCIES)), r=st.integers(2, 8),
       seed=st.integers(0, 10**6))
def test_dependency_draws_lie_in_their_ranges(kind: str, r: int, seed: int) -> None:
    roots = tuple(f"r{i}" for i in range(r))
    block = draw_block(kind, roots, stream(seed, "dep"))
    if block["kind"] == "gaussian_copula":
        c = np.asarray(block["correlation"])
        assert np.allclose(c, c.T) and np.allclose(np.diag(c), 1)
        assert np.linalg.eigvalsh(c).min() > 0
        if kind == "common_factor":
            off = np.abs(c[~np.eye(r, dtype=bool)])
            assert np.allclose(off, off[0]) and 0.25 <= off[0] <= 0.75
    assert block["variables"] == list(roots)


def test_roots_are_standardised_and_a_ball_block_samples() -> None:
    full = materialize(_factor("layered", 20, seed=3, root_dependency="uniform_ball"))
    compiled = compile_card(full)
    data = SCM(compiled, compiled.plan).sample(5000, seed=2)
    (block,) = full.root_blocks
    assert block.kind == "uniform_ball" and len(block.variables) >= 2
    for v in block.variables:
        assert abs(data[v].mean()) < 0.1 and abs(data[v].std() - 1) < 0.1, v
    corr = np.corrcoef(data[block.variables].to_numpy().T)
    assert np.abs(corr[~np.eye(len(block.variables), dtype=bool)]).max() < 0.985


def test_superlinear_mechanisms_do_not_compound_an_extreme_row() -> None:
    # A chain of quartics and products: without input ranges a root row at 1e3 would
    # become 1e12, then 1e48, then inf; with them it stays near what the pilot saw.
    full = materialize(_factor("chain", 8, seed=4, mechanisms=["polynomial", "interaction"],
                               noise=["student_t"]))
    compiled = compile_card(full)
    superlinear = {n for n, v in full.variables.items()
                   if v.mechanism is not None and type(v.mechanism).superlinear}
    assert superlinear and all(full.variables[n].mechanism.input_range for n in superlinear)

    def propagate(root: np.ndarray, ranged: bool = True) -> dict[str, np.ndarray]:
        values: dict[str, np.ndarray] = {}
        for name in compiled.resolved.order:
            mech, parents = full.variables[name].mechanism, compiled.resolved.parents[name]
            if mech is not None and not ranged:
                mech = mech.model_copy(update={"input_range": None})
            values[name] = root if mech is None else np.asarray(
                mech.lower(tuple(parents))(*(values[p] for p in parents)))
        return values

    typical = propagate(np.random.default_rng(1).standard_normal(2000))  # roots have sd 1
    extreme = propagate(np.array([1e3, -1e3, 1e12, -1e12]))
    for name in superlinear:
        assert np.all(np.isfinite(extreme[name])), name
        assert np.abs(extreme[name]).max() < 1e3 * np.abs(typical[name]).max(), name
    with np.errstate(all="ignore"):  # the same chain without them: the row takes over
        unranged = propagate(np.array([1e3, -1e3, 1e12, -1e12]), ranged=False)
    assert any(not np.all(np.abs(unranged[n]) < 1e3 * np.abs(typical[n]).max())
               for n in superlinear)


def test_a_linear_node_is_never_noiseless() -> None:
    """A noiseless linear node is an exact linear combination of its parents: the dataset's
    correlation matrix is singular and a Fisher-z test (causal-learn's PC) refuses it."""
    from scmspec.synthetic.nodes.mixing import assign_noise
    from scmspec.synthetic.rng import stream

    nodes = [f"v{i}" for i in range(40)]
    mech = {v: ("linear" if i % 2 else "polynomial") for i, v in enumerate(nodes)}
    out = assign_noise(nodes, ["none", "gaussian"], mech, {v: ("a", "b") for v in nodes},
                       stream(0, "k"))
    assert any(f == "none" for f in out.values())
    assert all(out[v] != "none" for v in nodes if mech[v] == "linear")
    full = materialize(_factor("erdos_renyi", 12, seed=2, mechanisms=["linear"],
                               noise=["none", "gaussian"]))
    assert all(v.noise is None or v.noise.kind != "none" for v in full.variables.values()
               if v.mechanism is not None)
    x = SCM(compile_card(full), compile_card(full).plan).sample(500, seed=1).to_numpy(float)
    assert np.linalg.matrix_rank(np.corrcoef(x.T)) == x.shape[1]


def test_unknown_tags_are_located_diagnostics() -> None:
    text = ("id: bad\ntitle: t\nfamily: synthetic\ndomain: s\nsynthetic:\n  graph: {family: "
            "erdos_renyl, d: 10}\n  noise: [gaussian, gausian]\n  protocol: defualt\n")
    data, smap = load_text(text, "bad.yaml")
    with pytest.raises(SynthesisError) as err:
        materialize(validate(data, smap), smap)
    codes = {(d.code, d.span.line) for d in err.value.diagnostics}
    assert codes == {("SCM703", 6), ("SCM703", 7), ("SCM703", 8)}
    hints = " ".join(d.hint or "" for d in err.value.diagnostics)
    assert "erdos_renyi" in hints and "'gaussian'" in hints and "'default'" in hints


def test_an_infeasible_graph_is_reported_not_dropped() -> None:
    card = _factor("tree", 10).model_copy(update={"synthetic": SyntheticSpec(
        graph=GraphFactor(family="tree", d=10, in_degree_cap=1), root_dependency="uniform_ball",
        roots=["gaussian"])})
    tiny = card.model_copy(update={"synthetic": card.synthetic.model_copy(update={
        "graph": GraphFactor(family="bipartite_layered", d=3)})})
    with pytest.raises(SynthesisError) as err:
        materialize(tiny)
    assert err.value.diagnostics[0].code == "SCM701"


def test_a_data_gate_failure_redraws_then_fails_with_a_diagnostic() -> None:
    full = materialize(_factor())
    gate = make_result("near_copy", "fail", "x")
    result = SimpleNamespace(gates=[gate], diagnostics=[], status="rejected")
    again = redraw(full, result)
    assert again is not None and again.synthetic.attempt == 1
    assert again.model_dump_json() != full.model_dump_json()
    pairs = [(e.source, e.target) for e in full.edges]
    assert [(e.source, e.target) for e in again.edges] == pairs  # the graph stays
    assert list(again.variables) == list(full.variables)
    last = full.model_copy(update={"synthetic": full.synthetic.model_copy(
        update={"attempt": MAX_SCM_ATTEMPTS - 1})})
    assert redraw(last, result) is None
    assert result.status == "failed" and result.diagnostics[0].code == "SCM706"
    ok = SimpleNamespace(gates=[make_result("sortability", "warn", "x")], diagnostics=[],
                         status="released")
    assert redraw(full, ok) is None


def test_compile_writes_factor_tags_for_slicing(tmp_path: Path) -> None:
    cards = tmp_path / "cards"
    cards.mkdir()
    for seed, family in ((1, "chain"), (2, "collider_rich")):
        (cards / f"{family}.yaml").write_text(card_yaml(_factor(family, 10, seed)),
                                              encoding="utf-8")
    results = build([cards], tmp_path / "out", ProtocolOverrides(n_obs=300))
    assert [r.status for r in results] == ["released", "released"]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    factors = {e["id"]: e["factors"] for e in manifest["scms"]}
    assert {f["graph"] for f in factors.values()} == {"chain", "collider_rich"}
    for entry in factors.values():
        assert entry["d"] == 10 and entry["mechanism_families"] and entry["difficulty"] == ["clean"]
    meta = json.loads((tmp_path / "out" / "m-chain-10-1" / "metadata.json").read_text())
    assert set(meta["synthetic"]["nodes"]) == set(meta["variables"])
    assert 0 <= meta["audit"]["varsortability"] <= 1 and 0 <= meta["audit"]["r2_sortability"] <= 1
    assert (tmp_path / "out" / "m-chain-10-1" / "graph" / "cpdag.csv").is_file()


@pytest.mark.parametrize(("d", "ok"), [(10_000, True), (10_001, False), (2, False)])
def test_graph_size_runs_from_3_to_10000(d: int, ok: bool) -> None:
    import pydantic

    from scmspec.compiler.synthetic_spec import GraphFactor

    if ok:
        assert GraphFactor(family="erdos_renyi", d=d).d == d
        return
    with pytest.raises(pydantic.ValidationError):
        GraphFactor(family="erdos_renyi", d=d)
