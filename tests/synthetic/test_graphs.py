"""Graph factors: documented density ranges, intended shapes, validity by construction."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scmspec.synthetic.graphs.draw import (
    GRAPH_FAMILIES,
    GraphError,
    depth,
    draw_graph,
    draw_once,
    in_degree_caps,
    to_networkx,
    v_structures,
)
from scmspec.synthetic.rng import stream

SETTINGS = settings(max_examples=25, derandomize=True, deadline=None)
FAMILIES = sorted(GRAPH_FAMILIES)
DOCUMENTED = {"erdos_renyi": (0.05, 0.25), "scale_free": (0.04, 0.22), "chain": (0.03, 0.16),
              "tree": (0.03, 0.16), "layered": (0.04, 0.20), "bipartite_layered": (0.04, 0.20),
              "small_world": (0.04, 0.20), "block_sparse_layered": (0.04, 0.20),
              "dense_local_module": (0.06, 0.24), "collider_rich": (0.06, 0.24)}
DEEP = {"chain", "tree", "small_world", "scale_free"}


def test_ten_families_with_the_reference_ranges_and_depths() -> None:
    assert set(GRAPH_FAMILIES) == set(DOCUMENTED)
    for tag, fam in GRAPH_FAMILIES.items():
        assert fam.density == DOCUMENTED[tag]
        assert fam.min_depth == (3 if tag in DEEP else 2)


@SETTINGS
@given(family=st.sampled_from(FAMILIES), d=st.sampled_from([10, 20, 30]),
       seed=st.integers(0, 10**6))
def test_drawn_density_lies_in_the_documented_range(family: str, d: int, seed: int) -> None:
    fam = GRAPH_FAMILIES.lookup(family)
    _, density = draw_once(fam, d, None, None, stream(seed, "prop", family))
    lo, hi = DOCUMENTED[family]
    assert lo <= density <= hi


@SETTINGS
@given(family=st.sampled_from(FAMILIES), d=st.sampled_from([10, 20, 30, 50]),
       seed=st.integers(0, 10**6), cap_index=st.integers(0, 2))
def test_every_draw_passes_the_structural_gates(family: str, d: int, seed: int,
                                                cap_index: int) -> None:
    cap = in_degree_caps(d)[cap_index]
    g = draw_graph(family, d, seed, "prop", cap=cap)
    a = g.adjacency
    assert nx.is_directed_acyclic_graph(to_networkx(g))
    assert ((a.sum(axis=0) + a.sum(axis=1)) > 0).all(), "isolated node"
    assert g.edges >= math.ceil(0.8 * d)
    assert nx.dag_longest_path_length(to_networkx(g)) >= GRAPH_FAMILIES.lookup(family).min_depth
    if cap is not None:
        assert a.sum(axis=0).max() <= cap
    assert sorted(g.position.values()) == list(range(d))


def test_in_degree_caps_follow_the_reference() -> None:
    assert in_degree_caps(10) == in_degree_caps(20) == (None, 4, 5)
    assert in_degree_caps(30) == in_degree_caps(50) == (4, 5, 6)
    assert in_degree_caps(100) == (5, 6, 8)


def _draws(family: str, d: int, n: int = 10, density: float | None = None) -> list:
    return [draw_graph(family, d, seed, "shape", density=density) for seed in range(n)]


def test_trees_have_in_degree_at_most_one() -> None:
    for g in _draws("tree", 30):
        assert g.adjacency.sum(axis=0).max() <= 1


def test_chains_are_deep() -> None:
    for g in _draws("chain", 30):
        assert g.meta["depth"] >= 10  # long directed propagation (ER at this size: ~7)


def test_layered_graphs_respect_their_layers() -> None:
    for family, adjacent_only in (("layered", False), ("bipartite_layered", True)):
        for g in _draws(family, 30):
            layer = g.meta["layers"]
            for i, j in zip(*np.nonzero(g.adjacency)):
                gap = layer[g.names[j]] - layer[g.names[i]]
                assert gap == 1 if adjacent_only else gap >= 1, (family, gap)


def test_block_sparse_edges_stay_inside_blocks_or_go_forward() -> None:
    for g in _draws("block_sparse_layered", 30):
        blocks = g.meta["blocks"]
        for i, j in zip(*np.nonzero(g.adjacency)):
            assert blocks[g.names[j]] >= blocks[g.names[i]]


def test_dense_modules_are_denser_inside_than_between() -> None:
    inside = across = 0
    for g in _draws("dense_local_module", 30):
        module = g.meta["modules"]
        for i, j in zip(*np.nonzero(g.adjacency)):
            inside += module[g.names[i]] == module[g.names[j]]
            across += module[g.names[i]] != module[g.names[j]]
    assert inside > across


def test_collider_rich_has_more_v_structures_than_er_at_the_same_density() -> None:
    # Per edge 1.25x ER's here (1.34x when colliders drew their parents among childless
    # sources first, which made the family far too easy for PC: docs/synthetic.md).
    density = 0.15
    er_graphs, cr_graphs = _draws("erdos_renyi", 30, 40, density), _draws("collider_rich", 30, 40,
                                                                         density)
    er = [v_structures(g.adjacency) for g in er_graphs]
    cr = [v_structures(g.adjacency) for g in cr_graphs]
    edges_er = np.mean([g.edges for g in er_graphs])
    edges_cr = np.mean([g.edges for g in cr_graphs])
    assert np.mean(cr) / edges_cr > 1.2 * np.mean(er) / edges_er  # per edge
    assert np.mean(cr) > np.mean(er)


def test_v_structures_and_depth_on_small_graphs() -> None:
    collider = np.array([[0, 0, 1], [0, 0, 1], [0, 0, 0]], dtype=bool)
    shielded = collider | np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]], dtype=bool)
    assert v_structures(collider) == 1 and v_structures(shielded) == 0
    assert depth(collider) == 1 and depth(shielded) == 2


def test_same_key_same_graph_other_key_other_graph() -> None:
    a, b = draw_graph("erdos_renyi", 20, 3, "k"), draw_graph("erdos_renyi", 20, 3, "k")
    assert (a.adjacency == b.adjacency).all() and a.position == b.position
    c = draw_graph("erdos_renyi", 20, 3, "other")
    assert not (a.adjacency == c.adjacency).all()


def test_names_do_not_reveal_the_causal_order() -> None:
    identity = sum(list(g.order()) == list(g.names) for g in _draws("chain", 10, 20))
    assert identity <= 1


def test_dependent_blocks_get_two_roots() -> None:
    for family in FAMILIES:
        g = draw_graph(family, 10, 1, "roots", min_roots=2)
        assert (g.adjacency.sum(axis=0) == 0).sum() >= 2, family


def test_an_infeasible_configuration_fails_with_the_reason() -> None:
    with pytest.raises(GraphError) as err:  # 3 nodes cannot hold a path of 3 edges
        draw_graph("tree", 3, 0, "k", max_attempts=5)
    assert "depth" in str(err.value) and err.value.attempts == 5
