"""Heuresis presets: d = 10, n = 600, ER/BA graphs, anonymous shuffled names, standardised
columns, disjoint development and test seeds, the per-instance record with its CPDAG."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scmspec.build import ProtocolOverrides, build
from scmspec.interop.graphs import MixedGraph, cpdag
from scmspec.synthetic.errors import SynthesisError
from scmspec.synthetic.grid.expand import expand_file
from scmspec.synthetic.grid.presets import PRESETS
from scmspec.synthetic.materialize import materialize

ROOT = Path(__file__).resolve().parents[2]
HEURESIS = ROOT / "cards" / "synthetic" / "heuresis.grid.yaml"
FAMILIES = ["lg", "anm", "hetero", "wild", "mixed", "gauntlet"]


@pytest.fixture(scope="module")
def instances() -> list:
    cards, _ = expand_file(HEURESIS, resolve=False)
    return cards


def test_six_families_with_100_dev_and_32_test_instances(instances: list) -> None:
    assert sorted(PRESETS) == sorted(FAMILIES)
    assert len(instances) == 6 * 132 and len({c.id for c in instances}) == 792
    for family in FAMILIES:
        mine = [c for c in instances if c.synthetic.preset == family]
        dev = {c.synthetic.seed for c in mine if c.synthetic.split == "dev"}
        test = {c.synthetic.seed for c in mine if c.synthetic.split == "test"}
        assert len(dev) == 100 and len(test) == 32 and not dev & test
    for c in instances:
        s = c.synthetic
        assert s.graph.d == 10 and c.protocol.n_obs == 600 and c.protocol.n_int == 0
        assert s.graph.family in ("erdos_renyi", "scale_free") and s.output.standardize
        assert c.protocol.seed == s.seed


def test_overlapping_seed_ranges_are_refused(tmp_path: Path) -> None:
    grid = tmp_path / "h.grid.yaml"
    grid.write_text("grid: 1\nid: h\ntitle: t\npresets: [lg]\ninstances: {dev: 10, test: 2}\n"
                    "seeds: {dev: 0, test: 5}\n")
    with pytest.raises(SynthesisError) as err:
        expand_file(grid)
    assert err.value.diagnostics[0].code == "SCM704"


def _one(instances: list, family: str, split: str = "dev", i: int = 0) -> object:
    return next(c for c in instances if c.id == f"heuresis.{family}.{split}.{i:03d}")


@pytest.mark.parametrize("family", FAMILIES)
def test_instances_use_the_family_s_node_types_and_ranges(instances: list, family: str) -> None:
    preset = PRESETS.lookup(family)
    full = materialize(_one(instances, family))
    assert list(full.variables) == [f"x{i:02d}" for i in range(1, 11)]
    positions = [full.synthetic.nodes[v].position for v in full.variables]
    assert sorted(positions) == list(range(10))
    for v, spec in full.variables.items():
        node = full.synthetic.nodes[v]
        if spec.distribution is not None:
            lo, hi = preset.root_sd
            assert spec.distribution.mean == 0 and lo <= spec.distribution.sd <= hi
            continue
        assert node.mechanism in preset.types
        lo, hi = preset.sigma[node.mechanism]
        sd = spec.noise.sd if spec.noise.kind == "normal" else getattr(spec.noise, "scale", None)
        if sd is not None:
            assert lo <= sd <= hi, (v, node.mechanism, sd)
        if node.mechanism == "linear" and family == "lg":
            assert all(0.5 <= abs(w) <= 2 for w in spec.mechanism.weights.values())
        if node.mechanism == "mlp":
            assert len(spec.mechanism.hidden_weights) == 10


def test_names_are_shuffled_against_the_causal_order(instances: list) -> None:
    orders = []
    for i in range(10):
        full = materialize(_one(instances, "lg", "dev", i))
        orders.append([full.synthetic.nodes[v].position for v in full.variables])
    assert sum(o == sorted(o) for o in orders) <= 1


def test_the_instance_record_is_standardised_data_dag_and_cpdag(tmp_path: Path) -> None:
    results = build([HEURESIS], tmp_path, ProtocolOverrides(),
                    select="preset=wild|hetero,split=test,index=0")
    assert [r.status for r in results] == ["released", "released"], [r.gates for r in results]
    for r in results:
        folder = tmp_path / (r.id or "")
        data = pd.read_csv(folder / "rep-0" / "obs.csv")
        assert data.shape == (600, 10)
        assert np.allclose(data.mean(), 0, atol=1e-9) and np.allclose(data.std(ddof=0), 1)
        adj = pd.read_csv(folder / "graph" / "adjacency.csv", index_col=0)
        written = pd.read_csv(folder / "graph" / "cpdag.csv", index_col=0).to_numpy()
        g = cpdag(MixedGraph.from_dag(list(adj.columns), adj.to_numpy()))
        assert (written == (g.directed | g.undirected)).all()
        meta = json.loads((folder / "metadata.json").read_text())
        moments = meta["synthetic"]["output"]["0"]["obs_standardized"]
        assert set(moments["mean"]) == set(data.columns)
        assert meta["synthetic"]["preset"] in ("wild", "hetero")
        assert meta["synthetic"]["split"] == "test"
