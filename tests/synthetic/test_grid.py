"""Grid cards: the 1,000-configuration pool with the reference schedule, stable ids,
byte-identical re-expansion, slices, suites, distinct topologies and the CLI."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import networkx as nx
import pandas as pd
import pytest
from typer.testing import CliRunner

from scmspec.cli import app
from scmspec.compiler.load import SourceMap
from scmspec.synthetic.errors import SynthesisError
from scmspec.synthetic.graphs.draw import draw_graph, in_degree_caps, to_networkx
from scmspec.synthetic.grid.expand import choose, expand_file, factors_of
from scmspec.synthetic.grid.yaml_out import card_yaml
from scmspec.synthetic.nodes.mixing import family_count_range
from scmspec.synthetic.protocols import target_pool_range

ROOT = Path(__file__).resolve().parents[2]
POOL = ROOT / "cards" / "synthetic" / "causalarena.grid.yaml"
SMALL = """grid: 1
id: small
title: Small grid
seed: {seed}
graphs: [tree, chain]
d: [10]
per_cell: {per_cell}
root_dependency: {{per_cell: 1}}
protocol: {{n_obs: 300, n_int_obs: 240, n_int: 60, replicates: 1}}
"""


@pytest.fixture(scope="module")
def pool() -> list:
    cards, _ = expand_file(POOL, resolve=False)  # factors only: no graph, no materialising
    return cards


def _grid(tmp_path: Path, seed: int = 1, per_cell: int = 4, name: str = "small") -> Path:
    path = tmp_path / f"{name}.grid.yaml"
    path.write_text(SMALL.format(seed=seed, per_cell=per_cell), encoding="utf-8")
    return path


def test_the_pool_expands_to_1000_distinct_ids(pool: list) -> None:
    assert len(pool) == 1000 and len({c.id for c in pool}) == 1000
    cells = Counter((factors_of(c)["graph"], factors_of(c)["d"]) for c in pool)
    assert len(cells) == 50 and set(cells.values()) == {20}


def test_the_pool_follows_the_reference_schedule(pool: list) -> None:
    by_cell: dict[tuple[str, int], list] = {}
    for c in pool:
        f = factors_of(c)
        by_cell.setdefault((f["graph"], f["d"]), []).append(c.synthetic)
    stressors: Counter[str] = Counter()
    for (_, d), specs in by_cell.items():
        sizes = Counter(len(s.difficulty) for s in specs)
        assert sizes == {0: 5, 1: 10, 2: 5}  # one clean, two single, one paired, x5
        singles = [s.difficulty[0] for s in specs if len(s.difficulty) == 1]
        assert len(set(singles)) == 8  # a cell's singles cover all eight stressors
        stressors.update(t for s in specs for t in s.difficulty)
        assert sum(s.root_dependency != "independent" for s in specs) == 4
        lo, hi = family_count_range(d)
        tlo, thi = target_pool_range(d)
        for s in specs:
            assert s.graph.in_degree_cap in in_degree_caps(d)
            assert lo <= len(s.mechanisms) <= hi and lo <= len(s.noise) <= hi
            assert tlo <= s.targets <= thi
            assert s.protocol == "default"
    assert len(stressors) == 8
    deps = Counter(c.synthetic.root_dependency for c in pool)
    assert deps == {"independent": 800, "common_factor": 67, "random_covariance": 67,
                    "uniform_ball": 66}
    assert {c.protocol.n_obs for c in pool} == {1000}


def test_reexpansion_is_byte_identical_and_a_new_seed_changes_it(tmp_path: Path) -> None:
    def texts(path: Path) -> list[str]:
        cards, _ = expand_file(path)
        return [card_yaml(c) for c in cards]

    first = texts(_grid(tmp_path))
    assert first == texts(_grid(tmp_path))
    other = texts(_grid(tmp_path, seed=2, name="other"))
    assert len(other) == len(first) and all(a != b for a, b in zip(first, other))


def test_grids_hold_distinct_topologies(tmp_path: Path) -> None:
    cards, _ = expand_file(_grid(tmp_path, per_cell=20))  # 40 trees and chains at d = 10
    graphs = [to_networkx(draw_graph(c.synthetic.graph.family, 10, c.synthetic.seed,
                                     c.synthetic.key, c.synthetic.graph.density,
                                     c.synthetic.graph.in_degree_cap,
                                     c.synthetic.graph.attempt)) for c in cards]
    for i, g in enumerate(graphs):
        assert not any(nx.is_isomorphic(g, h) for h in graphs[:i]), cards[i].id
    assert any(c.synthetic.graph.attempt > 0 for c in cards)  # duplicates were redrawn


def test_select_slices_by_factor(pool: list) -> None:
    smap = SourceMap("g")
    chosen = choose(pool, "graph=collider_rich,d=30", smap)
    assert len(chosen) == 20 and all(c.id.startswith("causalarena.collider_rich.d30.") for c in
                                     chosen)
    assert len(choose(pool, "d=10|20,difficulty=outliers", smap)) > 0
    assert len(choose(pool, "difficulty=clean", smap)) == 250
    assert len(choose(pool, "id=causalarena.tree.*", smap)) == 100
    with pytest.raises(SynthesisError) as err:
        choose(pool, "colour=red", smap)
    assert err.value.diagnostics[0].code == "SCM705"


def test_suites_reuse_the_pool_scms() -> None:
    folder = ROOT / "cards" / "synthetic"
    protocols, _ = expand_file(folder / "causalarena_protocols.grid.yaml", resolve=False)
    sizes, _ = expand_file(folder / "causalarena_sample_size.grid.yaml", resolve=False)
    assert len(protocols) == 600 and len(sizes) == 700
    keys = {c.synthetic.key for c in protocols}
    assert len(keys) == 100 and keys == {c.synthetic.key for c in sizes}
    assert all(c.synthetic.graph.d == 30 for c in protocols)
    assert Counter(c.synthetic.protocol for c in protocols) == {
        p: 100 for p in ("default", "setpoint", "parameter_shift", "high_fraction",
                         "multi_target", "dense_mixed")}
    assert Counter(c.protocol.n_obs for c in sizes) == {
        n: 100 for n in (100, 200, 500, 1000, 2000, 5000, 10000)}


def test_grid_mistakes_are_located(tmp_path: Path) -> None:
    bad = tmp_path / "bad.grid.yaml"
    bad.write_text("grid: 1\nid: bad\ntitle: t\ngraphs: [chain]\nd: [10]\npercell: 3\n")
    with pytest.raises(SynthesisError) as err:
        expand_file(bad)
    assert err.value.diagnostics[0].code == "SCM201" and err.value.diagnostics[0].span.line == 6
    base = tmp_path / "suite.grid.yaml"
    base.write_text("grid: 1\nid: s\ntitle: t\nbase: nowhere.grid.yaml\n")
    with pytest.raises(SynthesisError) as err:
        expand_file(base)
    assert err.value.diagnostics[0].code == "SCM704"


def _run(*args: str) -> object:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_synth_writes_frozen_cards_and_compile_accepts_grids(tmp_path: Path) -> None:
    grid = _grid(tmp_path)
    for out in ("a", "b"):
        result = _run("synth", str(grid), "--out", str(tmp_path / out), "--select", "graph=tree")
        assert result.exit_code == 0, result.output
    files = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert files == [f"small.tree.d10.{i:02d}.yaml" for i in range(4)]
    for name in files:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    result = _run("synth", str(grid), "--out", str(tmp_path / "m"), "--materialize",
                  "--select", "index=0")
    assert result.exit_code == 0, result.output
    assert "variables:" in (tmp_path / "m" / "small.chain.d10.00.yaml").read_text()
    result = _run("compile", str(grid), "--out", str(tmp_path / "data"), "--select",
                  "graph=chain,index=0|1")
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "data" / "manifest.json").read_text())
    assert [e["id"] for e in manifest["scms"]] == ["small.chain.d10.00", "small.chain.d10.01"]
    assert manifest["scms"][0]["card"].endswith("small.grid.yaml#small.chain.d10.00")
    frozen = _run("compile", str(tmp_path / "m"), "--out", str(tmp_path / "frozen"))
    assert frozen.exit_code == 0, frozen.output
    for rel in ("graph/adjacency.csv", "spec.json", "rep-0/obs.csv"):  # frozen == on the fly
        rel = f"small.chain.d10.00/{rel}"
        assert (tmp_path / "data" / rel).read_bytes() == (tmp_path / "frozen" / rel).read_bytes()


def test_folder_walks_skip_grid_cards(tmp_path: Path) -> None:
    from scmspec.build.discover import discover

    grid = _grid(tmp_path)
    assert discover([tmp_path]) == [] and [f.path for f in discover([grid])] == [grid]


def test_protocol_variants_of_one_scm_pass_duplicate_topology_together(tmp_path: Path) -> None:
    """A suite's variants share their base SCM's graph on purpose: one pool accepts them,
    while a generated card with another key and an isomorphic graph still fails."""
    from scmspec.compiler.pipeline import compile_card
    from scmspec.synthetic.materialize import materialize
    from scmspec.validators import run_pool_gates

    _grid(tmp_path, per_cell=2)
    suite = tmp_path / "suite.grid.yaml"
    suite.write_text("grid: 1\nid: suite\ntitle: Suite\nbase: small.grid.yaml\n"
                     "protocols: [default, setpoint]\n", encoding="utf-8")
    cards, _ = expand_file(suite)
    assert len(cards) == 8
    pool = [compile_card(materialize(c)) for c in cards]
    results = run_pool_gates(pool)
    assert {r.status for rs in results.values() for r in rs} == {"pass"}
    variants = [r for rs in results.values() for r in rs if "a variant of" in r.detail]
    assert len(variants) == 4  # each configuration's second protocol
    # The same graph under another key (a materialised card relabelled): a duplicate.
    done = materialize(cards[0])
    assert done.synthetic is not None
    relabelled = done.model_copy(update={
        "id": "impostor", "synthetic": done.synthetic.model_copy(update={"key": "other"})})
    res = run_pool_gates([pool[0], compile_card(relabelled)])
    assert res["impostor"][0].status == "fail"
    assert "is isomorphic to that of" in res["impostor"][0].detail


def test_a_standardised_binary_root_is_released_under_its_resample_intervention(
        tmp_path: Path) -> None:
    # causalarena.chain.d10.15: x05 is a Bernoulli root of an independent block, so its
    # column holds its two codes standardised; a resample intervention picks among the
    # observed levels. The value check compared them with the raw codes 0/1 and refused
    # every such configuration (SCM604; 18 of the 400 at d = 10 and 20).
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["compile", str(POOL), "--out", str(out), "--select",
                                      "id=causalarena.chain.d10.15", "--replicates", "1"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["released"] == 1
    rep = out / "causalarena.chain.d10.15" / "rep-0"
    x, mask = pd.read_csv(rep / "obsint.csv")["x05"], pd.read_csv(rep / "obsint_mask.csv")["x05"]
    natural = set(x[mask == 0].round(9))
    assert len(natural) == 2 and 0.0 not in natural and mask.sum() > 0  # standardised codes
    assert set(x[mask == 1].round(9)) <= natural
