"""Metric values on small graphs computed by hand."""

from __future__ import annotations

import numpy as np
import pytest

from scmspec.interop import InteropError, MixedGraph
from scmspec.scoring import orient_randomly, orientation_seed, score_graph, shd

NODES = list("abcd")


def graph(*edges: str, undirected: tuple[str, ...] = (), bidirected: tuple[str, ...] = ()
          ) -> MixedGraph:
    def mat(pairs: tuple[str, ...] | tuple[str, ...]) -> np.ndarray:
        m = np.zeros((4, 4), dtype=int)
        for e in pairs:
            m[NODES.index(e[0]), NODES.index(e[1])] = 1
        return m
    return MixedGraph.build(NODES, mat(edges), mat(undirected), mat(bidirected))


TRUTH = graph("ab", "bc", "cd")  # a -> b -> c -> d


def test_perfect_prediction() -> None:
    s = score_graph(TRUTH, TRUTH)
    assert (s["precision"], s["recall"], s["f1"], s["shd"], s["nshd"], s["sid"]) == \
        (1.0, 1.0, 1.0, 0, 0.0, 0)
    assert s["skeleton_f1"] == 1.0


def test_a_reversed_edge_counts_once_in_shd() -> None:
    s = score_graph(graph("ba", "bc", "cd"), TRUTH)
    # TP = 2 (b -> c, c -> d) of 3 predicted and 3 true; one pair differs
    assert s["shd"] == 1
    assert s["precision"] == pytest.approx(2 / 3) and s["recall"] == pytest.approx(2 / 3)
    assert s["f1"] == pytest.approx(2 / 3)
    assert s["skeleton_f1"] == 1.0  # same adjacencies
    assert s["nshd"] == pytest.approx(1 / 12)  # SHD / (d (d - 1)) with d = 4


def test_missing_and_extra_edges() -> None:
    # drop c -> d, add a -> c: TP 2, predicted 3, true 3; SHD 2 (one missing, one extra)
    s = score_graph(graph("ab", "bc", "ac"), TRUTH)
    assert s["shd"] == 2
    assert (s["precision"], s["recall"]) == pytest.approx((2 / 3, 2 / 3))
    # only a -> b predicted: precision 1, recall 1/3, F1 = 2*1/(1+3) = 0.5
    s = score_graph(graph("ab"), TRUTH)
    assert (s["precision"], s["recall"], s["f1"], s["shd"]) == pytest.approx((1.0, 1 / 3, 0.5, 2))


def test_empty_graph_conventions() -> None:
    empty = graph()
    s = score_graph(empty, TRUTH)
    assert (s["precision"], s["recall"], s["f1"], s["shd"]) == (0.0, 0.0, 0.0, 3)
    both = score_graph(empty, empty)
    assert (both["precision"], both["recall"], both["f1"], both["shd"]) == (1.0, 1.0, 1.0, 0)


def test_shd_counts_pairs_with_any_mark_difference() -> None:
    assert shd(graph("ab", "bc", undirected=("cd",)), TRUTH) == 1  # c -- d vs c -> d
    assert shd(graph("ab", "bc", "cd", bidirected=("ad",)), TRUTH) == 1  # extra a <-> d
    assert shd(graph("bc", "cd", bidirected=("ab",)), TRUTH) == 1  # a <-> b vs a -> b


def test_skeleton_target() -> None:
    s = score_graph(graph("ba", "cb", "bd"), TRUTH, target="skeleton")
    # skeleton pairs {a,b} {b,c} {b,d} vs {a,b} {b,c} {c,d}: TP 2 of 3 and 3; SHD 2
    assert (s["precision"], s["recall"], s["shd"]) == pytest.approx((2 / 3, 2 / 3, 2))


def test_cpdag_target_compares_equivalence_classes() -> None:
    # the reversed chain d -> c -> b -> a is Markov equivalent to the truth: perfect on cpdag,
    # imperfect on dag
    rev = graph("ba", "cb", "dc")
    assert score_graph(rev, TRUTH, target="cpdag")["shd"] == 0
    assert score_graph(rev, TRUTH, target="cpdag")["f1"] == 1.0
    assert score_graph(rev, TRUTH, target="dag")["shd"] == 3
    # a v-structure a -> b <- c is a different class: pairs {a,b}, {b,c} differ (directed vs
    # undirected) and {c,d} is missing -> SHD 3; no edge mark matches -> F1 0
    s = score_graph(graph("ab", "cb"), TRUTH, target="cpdag")
    assert (s["shd"], s["f1"]) == (3, 0.0)


def test_undirected_edges_are_oriented_by_a_seeded_rng() -> None:
    pred = graph(undirected=("ab", "bc", "cd"))
    seed = orientation_seed("demo/rep-0")
    assert seed == orientation_seed("demo/rep-0") != orientation_seed("demo/rep-1")
    oriented = orient_randomly(pred, seed)
    assert not oriented.undirected.any() and oriented.directed.sum() == 3
    # the rule: pairs in row-major order, i -> j iff the next uniform draw is below 0.5
    draws = np.random.default_rng(seed).random(3)
    expected = [(i, j) if u < 0.5 else (j, i) for (i, j), u in zip([(0, 1), (1, 2), (2, 3)], draws)]
    assert sorted(zip(*np.nonzero(oriented.directed))) == sorted(expected)
    s = score_graph(pred, TRUTH, seed=seed)
    assert s["pred_undirected"] == 3 and s["skeleton_f1"] == 1.0
    assert s["shd"] == sum(u >= 0.5 for u in draws)  # each wrongly oriented edge costs 1
    assert s == score_graph(pred, TRUTH, seed=seed)  # deterministic
    assert s["sid_lower"] == 0  # the true DAG is one of the orientations


def test_unknown_target_and_mismatched_variables() -> None:
    with pytest.raises(InteropError, match="unknown target"):
        score_graph(TRUTH, TRUTH, target="pag")
    other = MixedGraph.from_dag(list("abcz"), np.zeros((4, 4)))
    with pytest.raises(InteropError, match="different variables"):
        score_graph(other, TRUTH)
