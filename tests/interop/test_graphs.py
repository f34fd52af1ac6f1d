"""CPDAGs and latent projections on textbook graphs, and the CPDAG against brute force."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from scmspec.interop import InteropError, MixedGraph, cpdag, latent_projection
from scmspec.interop.truth import GroundTruth, selection_variables


def dag(nodes: str, *edges: str) -> MixedGraph:
    """``dag("abc", "ab", "bc")`` is a -> b -> c."""
    a = np.zeros((len(nodes), len(nodes)), dtype=int)
    for e in edges:
        a[nodes.index(e[0]), nodes.index(e[1])] = 1
    return MixedGraph.from_dag(list(nodes), a)


def edge_set(g: MixedGraph) -> set[tuple[str, str, str]]:
    return set(g.edges())


# -- MixedGraph ---------------------------------------------------------------------------------
def test_mixed_graph_rejects_self_loops_and_conflicts() -> None:
    with pytest.raises(InteropError, match="self loop"):
        MixedGraph.build("ab", directed=[[1, 0], [0, 0]])
    with pytest.raises(InteropError, match="both directed and undirected"):
        MixedGraph.build("ab", directed=[[0, 1], [0, 0]], undirected=[[0, 1], [1, 0]])


def test_cpdag_matrix_encoding_reads_symmetric_pairs_as_undirected() -> None:
    g = MixedGraph.from_cpdag_matrix("abc", [[0, 1, 1], [1, 0, 0], [0, 0, 0]])
    assert edge_set(g) == {("a", "b", "undirected"), ("a", "c", "directed")}
    assert np.array_equal(g.cpdag_matrix(), [[0, 1, 1], [1, 0, 0], [0, 0, 0]])


def test_equality_ignores_node_order() -> None:
    assert dag("abc", "ab", "bc") == dag("cba", "ab", "bc")
    assert dag("abc", "ab") != dag("abc", "ba")


# -- CPDAG on textbook graphs ------------------------------------------------------------------
def test_cpdag_keeps_a_v_structure() -> None:
    assert edge_set(cpdag(dag("abc", "ac", "bc"))) == {("a", "c", "directed"),
                                                        ("b", "c", "directed")}


def test_cpdag_of_a_chain_and_a_fork_is_undirected() -> None:
    expected = {("a", "b", "undirected"), ("b", "c", "undirected")}
    assert edge_set(cpdag(dag("abc", "ab", "bc"))) == expected
    assert edge_set(cpdag(dag("abc", "ba", "bc"))) == expected


def test_cpdag_meek_r1_orients_below_a_collider() -> None:
    # a -> c <- b is compelled; c - d would otherwise be a new v-structure, so c -> d (R1)
    assert edge_set(cpdag(dag("abcd", "ac", "bc", "cd"))) == {
        ("a", "c", "directed"), ("b", "c", "directed"), ("c", "d", "directed")}


def test_cpdag_meek_r2() -> None:
    # a -> d <- b is compelled; R1 then gives d -> c (a, c non-adjacent); b -> d -> c with
    # b - c leaves only b -> c acyclic (R2). Every edge ends up directed.
    g = cpdag(dag("abcd", "ad", "bd", "dc", "bc"))
    assert edge_set(g) == {("a", "d", "directed"), ("b", "d", "directed"),
                           ("d", "c", "directed"), ("b", "c", "directed")}


def test_cpdag_meek_r3() -> None:
    # c -> b <- d is compelled (c, d non-adjacent); a - c, a - d, a - b with c -> b, d -> b:
    # b -> a would make a v-structure c - a - d impossible to avoid, so R3 gives a -> b.
    g = cpdag(dag("abcd", "ab", "ac", "ad", "cb", "db"))
    assert edge_set(g) == {("a", "b", "directed"), ("c", "b", "directed"),
                           ("d", "b", "directed"), ("a", "c", "undirected"),
                           ("a", "d", "undirected")}


def test_cpdag_of_the_m_graph() -> None:
    # M-graph a <- u1 -> c <- u2 -> b, all observed: only the collider at c is compelled
    assert edge_set(cpdag(_m_graph())) == {("u1", "c", "directed"), ("u2", "c", "directed"),
                                           ("a", "u1", "undirected"), ("u2", "b", "undirected")}


def _m_graph() -> MixedGraph:
    nodes = ["a", "u1", "c", "u2", "b"]
    a = np.zeros((5, 5), dtype=int)
    for s, t in (("u1", "a"), ("u1", "c"), ("u2", "c"), ("u2", "b")):
        a[nodes.index(s), nodes.index(t)] = 1
    return MixedGraph.from_dag(nodes, a)


def test_cpdag_refuses_a_cyclic_graph() -> None:
    with pytest.raises(InteropError):
        cpdag(MixedGraph.from_dag("ab", [[0, 1], [1, 0]]))


def _all_dags(n: int):
    pairs = list(itertools.combinations(range(n), 2))
    for states in itertools.product((0, 1, 2), repeat=len(pairs)):
        a = np.zeros((n, n), dtype=np.int8)
        for (i, j), s in zip(pairs, states):
            if s:
                a[(i, j) if s == 1 else (j, i)] = 1
        if nx.is_directed_acyclic_graph(nx.from_numpy_array(a, create_using=nx.DiGraph)):
            yield a


def _class_key(a: np.ndarray) -> tuple[bytes, frozenset[tuple[int, int, int]]]:
    skel = a | a.T
    vs = frozenset((p, q, c) for c in range(len(a)) for p, q in
                   itertools.combinations(np.flatnonzero(a[:, c]), 2) if not skel[p, q])
    return skel.tobytes(), vs


def test_cpdag_equals_the_union_of_its_markov_equivalence_class() -> None:
    # Verma-Pearl: same skeleton + same v-structures = same class. An edge of the CPDAG is
    # directed iff every DAG of the class has it that way. 543 DAGs, 185 classes on 4 nodes.
    classes: dict[object, list[np.ndarray]] = {}
    for a in _all_dags(4):
        classes.setdefault(_class_key(a), []).append(a)
    assert (sum(map(len, classes.values())), len(classes)) == (543, 185)
    names = list("abcd")
    for members in classes.values():
        union = np.bitwise_or.reduce(members)
        expected = MixedGraph.from_cpdag_matrix(names, union)
        for a in members:
            assert cpdag(MixedGraph.from_dag(names, a)) == expected


def test_cpdag_matches_causal_learn() -> None:
    pytest.importorskip("causallearn")
    from causallearn.graph.Dag import Dag
    from causallearn.graph.GraphNode import GraphNode
    from causallearn.utils.DAG2CPDAG import dag2cpdag

    from scmspec.interop.formats import to_causallearn

    rng = np.random.default_rng(3)
    for _ in range(40):
        d = int(rng.integers(3, 8))
        a = np.triu((rng.random((d, d)) < 0.45).astype(int), 1)
        perm = rng.permutation(d)
        a = a[np.ix_(perm, perm)]
        names = [f"X{i + 1}" for i in range(d)]
        nodes = [GraphNode(n) for n in names]
        ref = Dag(nodes)
        for i, j in zip(*np.nonzero(a)):
            ref.add_directed_edge(nodes[i], nodes[j])
        mine = to_causallearn(cpdag(MixedGraph.from_dag(names, a)))
        assert np.array_equal(dag2cpdag(ref).graph, mine)


# -- latent projection -------------------------------------------------------------------------
def test_projection_of_a_confounded_chain() -> None:
    # u -> x, u -> y, x -> y with u latent: x -> y and x <-> y
    g = latent_projection(dag("uxy", "ux", "uy", "xy"), ["u"])
    assert edge_set(g) == {("x", "y", "directed"), ("x", "y", "bidirected")}


def test_projection_of_the_m_graph() -> None:
    # a <- u1 -> c <- u2 -> b with u1, u2 latent: a <-> c <-> b, and a, b stay non-adjacent
    g = latent_projection(_m_graph(), ["u1", "u2"])
    assert edge_set(g) == {("a", "c", "bidirected"), ("c", "b", "bidirected")}


def test_projection_through_latent_mediators_and_chains() -> None:
    # x -> l -> y: x -> y; a latent chain w -> v -> a with w -> b: a <-> b;
    # an observed intermediate stops both: v -> a -> c gives no c <-> b
    g = latent_projection(dag("xlywvabc", "xl", "ly", "wv", "va", "wb", "ac"), ["l", "w", "v"])
    assert edge_set(g) == {("x", "y", "directed"), ("a", "b", "bidirected"),
                           ("a", "c", "directed")}


def test_projection_without_latents_is_the_dag() -> None:
    g = dag("abc", "ab", "bc")
    assert latent_projection(g, []) == g


def test_projection_rejects_unknown_latents() -> None:
    with pytest.raises(InteropError, match="not in the graph"):
        latent_projection(dag("ab", "ab"), ["zz"])


# -- ground truth -------------------------------------------------------------------------------
def test_ground_truth_views_and_statement() -> None:
    truth = GroundTruth("demo", ("x", "m", "y"), dag("uxmy", "ux", "uy", "xm", "my"), ("u",),
                        "y > 0")
    assert edge_set(truth.dag) == {("x", "m", "directed"), ("m", "y", "directed")}
    assert edge_set(truth.cpdag) == {("x", "m", "undirected"), ("m", "y", "undirected")}
    assert edge_set(truth.admg) == {("x", "m", "directed"), ("m", "y", "directed"),
                                    ("x", "y", "bidirected")}
    doc = truth.statement()
    assert doc["latent"] == ["u"] and doc["selection"]["variables"] == ["y"]
    assert "ignores selection" in doc["selection"]["statement"]


def test_selection_variables_are_the_names_in_the_condition() -> None:
    assert selection_variables("survived == 1", ("x", "survived")) == ("survived",)
    assert selection_variables(None, ("x",)) == ()
