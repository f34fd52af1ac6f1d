"""Structural intervention distance: hand-checked examples, the SID paper's example, bounds."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from scmspec.interop import MixedGraph, cpdag
from scmspec.scoring import sid, sid_bounds


def adj(d: int, *edges: tuple[int, int]) -> np.ndarray:
    a = np.zeros((d, d), dtype=int)
    for i, j in edges:
        a[i, j] = 1
    return a


CHAIN = adj(3, (0, 1), (1, 2))  # 1 -> 2 -> 3 (0-based below)


def test_sid_of_a_graph_with_itself_is_zero() -> None:
    assert sid(CHAIN, CHAIN) == 0


def test_sid_chain_against_empty_graph() -> None:
    # H empty: Z = {} for every i.
    # (1,2), (1,3): no back-door path, {} valid -> correct.  (2,3): only 2 -> 3 -> correct.
    # (2,1), (3,1), (3,2): no causal effect, but {} leaves them dependent -> 3 mistakes.
    assert sid(CHAIN, adj(3)) == 3


def test_sid_chain_against_reversed_chain() -> None:
    # H: 3 -> 2 -> 1.  i=1, Z={2}: (1,2) 2 in Z but 2 is a descendant -> wrong; (1,3) Z holds 2,
    # which lies on the causal path 1->2->3 -> wrong.  i=2, Z={3}: (2,3) 3 in Z, descendant ->
    # wrong; (2,1) {3} does not block 2 <- 1 -> wrong.  i=3, Z={}: (3,1), (3,2) dependent ->
    # wrong.  All 6 pairs wrong, while SHD is 2.
    assert sid(CHAIN, adj(3, (2, 1), (1, 0))) == 6


def test_sid_a_superset_can_be_free_and_a_reversal_costly() -> None:
    # H = chain + 1 -> 3: Pa_H(3) = {1, 2}, both non-descendants of 3 -> SID 0 (SHD 1).
    assert sid(CHAIN, adj(3, (0, 1), (1, 2), (0, 2))) == 0
    # H = 1 -> 2 <- 3: i=2, Z={1,3}: (2,3) 3 in Z is a descendant -> wrong; i=3, Z={}:
    # (3,1) and (3,2) are dependent -> wrong. SID 3 (SHD 1).
    assert sid(CHAIN, adj(3, (0, 1), (2, 1))) == 3


def test_sid_missing_confounder_edge() -> None:
    # G: 1 -> 2, 1 -> 3, 2 -> 3 (1 confounds 2 -> 3).
    g = adj(3, (0, 1), (0, 2), (1, 2))
    # H drops 1 -> 2: i=2, Z={}: (2,3) back-door 2 <- 1 -> 3 open -> wrong; (2,1) dependent ->
    # wrong. i=3: Z = {1,2} = Pa_G(3) -> correct. SID 2.
    assert sid(g, adj(3, (0, 2), (1, 2))) == 2
    # H drops 1 -> 3: i=3, Z={2}: (3,1) 1 not in Z, 3 and 1 adjacent -> wrong; (3,2) 2 in Z, not
    # a descendant of 3 -> correct. SID 1.
    assert sid(g, adj(3, (0, 1), (1, 2))) == 1


def test_sid_paper_example() -> None:
    # Peters & Buhlmann (2015), figure 2: G has X1 -> X2 and X1, X2 -> X3, X4, X5.
    # H1 adds X3 -> X4 (SHD 1): Pa_H1(X4) = {X1, X2, X3} are non-descendants of X4 and block
    # every path from X4 (its only neighbours X1, X2 are parents) -> SID 0.
    # H2 reverses X1 -> X2 (SHD 1): i=X1, Z={X2}: X2 is a descendant of X1 and lies on every
    # causal path from X1 -> 4 mistakes; i=X2, Z={}: X2 <- X1 -> X3/X4/X5 stays open and X1
    # depends on X2 -> 4 mistakes. SID 8.
    g = adj(5, (0, 1), *((s, t) for s in (0, 1) for t in (2, 3, 4)))
    h1 = g.copy()
    h1[2, 3] = 1
    h2 = g.copy()
    h2[0, 1], h2[1, 0] = 0, 1
    assert (sid(g, h1), sid(g, h2)) == (0, 8)


def test_sid_does_not_need_an_acyclic_prediction() -> None:
    # only parent sets matter: a 2-cycle 1 <-> 2 as two directed edges still scores
    assert sid(CHAIN, adj(3, (0, 1), (1, 0), (1, 2))) >= 1


def test_sid_bounds_cover_the_equivalence_class() -> None:
    # The CPDAG of the chain is 1 - 2 - 3; its DAGs are the chain (SID 0), the reversed chain
    # (SID 6) and the fork 1 <- 2 -> 3. Bounds are the best and worst member.
    names = ["1", "2", "3"]
    lower, upper = sid_bounds(CHAIN, cpdag(MixedGraph.from_dag(names, CHAIN)))
    fork = sid(CHAIN, adj(3, (1, 0), (1, 2)))
    assert (lower, upper) == (0, max(6, fork))


def _members(c: MixedGraph) -> list[np.ndarray]:
    pairs = [(i, j) for i, j in zip(*np.nonzero(np.triu(c.undirected)))]
    out = []
    for bits in itertools.product((0, 1), repeat=len(pairs)):
        a = c.directed.copy()
        for (i, j), b in zip(pairs, bits):
            a[(i, j) if b else (j, i)] = 1
        g = MixedGraph.from_dag(c.nodes, a)
        if g.is_dag and cpdag(g) == c:
            out.append(a)
    return out


def test_sid_bounds_equal_brute_force_over_random_classes() -> None:
    rng = np.random.default_rng(7)
    for _ in range(60):
        d = int(rng.integers(3, 7))
        g, h = (np.triu((rng.random((d, d)) < 0.45).astype(int), 1) for _ in range(2))
        perm = rng.permutation(d)
        h = h[np.ix_(perm, perm)]
        c = cpdag(MixedGraph.from_dag([str(i) for i in range(d)], h))
        values = [sid(g, a) for a in _members(c)]
        assert sid_bounds(g, c) == (min(values), max(values))


def _slow_sid(g: np.ndarray, h: np.ndarray) -> int:
    """SID straight from the definition: d-separation checks with networkx per pair."""
    G = nx.from_numpy_array(g, create_using=nx.DiGraph)
    d = len(g)
    mistakes = 0
    for i, j in itertools.permutations(range(d), 2):
        z = set(np.flatnonzero(h[:, i]).tolist())
        desc_i = nx.descendants(G, i)
        if j in z:
            mistakes += j in desc_i
            continue
        on_causal = {w for w in desc_i if w == j or j in nx.descendants(G, w)}
        forbidden = set().union(*({w} | nx.descendants(G, w) for w in on_causal)) \
            if on_causal else set()
        if z & forbidden:
            mistakes += 1
            continue
        pbd = G.copy()
        pbd.remove_edges_from([(i, c) for c in G.successors(i) if c in on_causal])
        mistakes += not nx.is_d_separator(pbd, {i}, {j}, z)
    return mistakes


@pytest.mark.parametrize("seed", range(4))
def test_sid_matches_the_definition_on_random_dags(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(25):
        d = int(rng.integers(2, 7))
        g, h = (np.triu((rng.random((d, d)) < 0.5).astype(int), 1) for _ in range(2))
        perm = rng.permutation(d)
        h = h[np.ix_(perm, perm)]
        assert sid(g, h) == _slow_sid(g, h)
