"""--convention reproduces each library's SHD / precision / recall / F1: compared with the
library's own function on the same graphs (skipped, with the reason, where it is not
installed), plus hand-computed cases that differ between libraries.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from scmspec.interop.graphs import InteropError, MixedGraph
from scmspec.interop.marks import MarkGraph
from scmspec.interop.truth import GroundTruth
from scmspec.scoring.conventions import causallearn_scores, cdt_scores, gcastle_scores
from scmspec.scoring.targets import check_options, score_prediction

NODES = tuple("abcdef")


def random_pair(seed: int) -> tuple[MixedGraph, MixedGraph]:
    """A random DAG truth and a random CPDAG-encoded prediction (directed and undirected)."""
    rng = np.random.default_rng(seed)
    d = len(NODES)
    truth = np.triu(rng.random((d, d)) < 0.4, 1).astype(int)
    perm = rng.permutation(d)
    truth = truth[np.ix_(perm, perm)]
    pred = (rng.random((d, d)) < 0.25).astype(int)
    np.fill_diagonal(pred, 0)
    return MixedGraph.from_cpdag_matrix(NODES, pred), MixedGraph.from_dag(NODES, truth)


SEEDS = range(40)


def test_one_prediction_three_libraries() -> None:
    """Truth a -> b -> c -> d. Prediction: a -- b (undirected), c -> b (reversed), a -> d
    (extra), c -> d missing.

    * scmspec/causal-learn: pairs differ {a,b}, {b,c}, {a,d}, {c,d}: SHD 4.
    * gCastle: extra {a,d} + missing {c,d} + reversed c -> b = 3 (a -- b treated favourably);
      entries (a,b), (b,a), (c,b), (a,d): TP 1 -> precision 1/4, recall 1/3.
    * cdt: differing entries (b,a), (c,b), (b,c), (a,d), (c,d) = 5 (the reversal twice).
    """
    truth = MixedGraph.from_dag("abcd", [[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0] * 4])
    pred = MixedGraph.from_cpdag_matrix("abcd", [[0, 1, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0],
                                                 [0] * 4])
    g = gcastle_scores(pred, truth)
    assert (g["shd"], g["precision"], g["recall"]) == (3, 0.25, pytest.approx(1 / 3))
    assert cdt_scores(pred, truth)["shd"] == 5
    cl = causallearn_scores(MarkGraph.from_mixed(pred), MarkGraph.from_mixed(truth))
    # causal-learn arrowheads (other end, node): predicted (c, b), (a, d); true (a, b), (b, c),
    # (c, d): none shared
    assert (cl["shd"], cl["precision"], cl["recall"]) == (4, 0.0, 0.0)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # gCastle's own 0/0 F1
@pytest.mark.parametrize("seed", SEEDS)
def test_gcastle_metricsdag(seed: int) -> None:
    metrics = pytest.importorskip("castle.metrics", reason="gCastle is not installed "
                                                           "(pip install gcastle)")
    pred, truth = random_pair(seed)
    theirs = metrics.MetricsDAG(pred.cpdag_matrix().astype(int),
                                truth.directed.astype(int)).metrics
    ours = gcastle_scores(pred, truth)
    assert ours["shd"] == theirs["shd"]
    for k, key in (("precision", "precision"), ("recall", "recall"), ("f1", "F1")):
        if math.isnan(theirs[key]):  # 0/0 in gCastle; scmspec's empty rule instead
            continue
        assert round(ours[k], 4) == theirs[key], k


@pytest.mark.parametrize("seed", SEEDS)
def test_cdt_shd_and_precision_recall(seed: int) -> None:
    cdt_metrics = pytest.importorskip("cdt.metrics", reason="cdt is not installed (pip install "
                                                            "cdt; it imports torch)")
    pred, truth = random_pair(seed)
    p, t = pred.cpdag_matrix().astype(int), truth.directed.astype(int)
    ours = cdt_scores(pred, truth)
    assert ours["shd"] == cdt_metrics.SHD(t, p)  # default double_for_anticausal=True
    aupr, curve = cdt_metrics.precision_recall(t, p)
    assert ours["aupr"] == pytest.approx(aupr)
    if p.any():  # the curve's threshold-1 point
        assert (ours["precision"], ours["recall"]) == pytest.approx(curve[1])


@pytest.mark.parametrize("seed", SEEDS)
def test_causallearn_shd_and_arrow_confusion(seed: int) -> None:
    pytest.importorskip("causallearn", reason="causal-learn is not installed")
    from causallearn.graph.ArrowConfusion import ArrowConfusion
    from causallearn.graph.GeneralGraph import GeneralGraph
    from causallearn.graph.GraphNode import GraphNode
    from causallearn.graph.SHD import SHD

    def general(g: MarkGraph) -> GeneralGraph:
        out = GeneralGraph([GraphNode(n) for n in g.nodes])
        out.graph = g.to_causallearn()
        return out

    pred, truth = (MarkGraph.from_mixed(g) for g in random_pair(seed))
    ours = causallearn_scores(pred, truth)
    assert ours["shd"] == SHD(general(truth), general(pred)).get_shd()
    arrows = ArrowConfusion(general(truth), general(pred))
    tp, fp, fn = arrows.get_arrows_tp(), arrows.get_arrows_fp(), arrows.get_arrows_fn()
    if tp + fp and tp + fn:
        assert (ours["precision"], ours["recall"]) == pytest.approx((tp / (tp + fp),
                                                                      tp / (tp + fn)))


def test_conventions_through_score_prediction() -> None:
    """No random orientation under a library convention; SID and skeleton stay scmspec's."""
    full = MixedGraph.from_dag("abc", [[0, 1, 0], [0, 0, 1], [0, 0, 0]])
    truth = GroundTruth("chain", ("a", "b", "c"), full)
    pred = MarkGraph.parse("abc", ["a --- b", "c --> b"])
    default = score_prediction(pred, truth, "dag")
    assert default["seed"] is not None and default["convention"] == "scmspec"
    g = score_prediction(pred, truth, "dag", "gcastle")
    assert (g["shd"], g["precision"], g["recall"], g["convention"]) == (1, 1 / 3, 0.5, "gcastle")
    assert g["skeleton_f1"] == default["skeleton_f1"] == 1.0
    c = score_prediction(pred, truth, "dag", "cdt")
    assert (c["shd"], c["aupr"] is not None) == (3, True)
    cl = score_prediction(pred, truth, "cpdag", "causal-learn")
    assert cl["shd"] == 1  # true CPDAG a --- b --- c: only the pair {b, c} differs


def test_convention_and_target_combinations_are_checked() -> None:
    with pytest.raises(InteropError, match="scores against the true DAG only"):
        check_options("cpdag", "gcastle")
    with pytest.raises(InteropError, match="unknown convention"):
        check_options("dag", "networkx")
    with pytest.raises(InteropError, match="unknown target"):
        check_options("cpag", "scmspec")
    with pytest.raises(InteropError, match="bidirected"):
        gcastle_scores(MixedGraph.build("ab", bidirected=[[0, 1], [1, 0]]),
                       MixedGraph.from_dag("ab", [[0, 1], [0, 0]]))
