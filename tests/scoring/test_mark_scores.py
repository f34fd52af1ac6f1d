"""PAG, MAG and ADMG scoring on small graphs with hand-computed answers, and against
causal-learn's own SHD and ArrowConfusion on the same graphs.

Endpoints are written (other end, node): an arrowhead at b on the edge a-b is (a, b).
"""

from __future__ import annotations

import numpy as np
import pytest

from scmspec.interop.graphs import MixedGraph
from scmspec.interop.marks import MarkGraph
from scmspec.interop.truth import GroundTruth
from scmspec.scoring.marks import score_marks
from scmspec.scoring.targets import score_prediction
from tests.interop.test_ancestral import HAND


def truth_of(name: str) -> GroundTruth:
    full, latent, selection, _, _ = HAND[name]
    observed = tuple(n for n in full.nodes if n not in latent)
    condition = " and ".join(f"{v} > 0" for v in selection) or None
    return GroundTruth(name, observed, full, tuple(latent), condition)


def marks(nodes: tuple[str, ...], *lines: str) -> MarkGraph:
    return MarkGraph.parse(nodes, lines)


# (hand case, target, prediction, expected metrics)
CASES = [
    # Truth a o-> b <-> c <-o d. The observed-DAG guess a -> b <- c <- d matches no edge
    # exactly (every pair differs: SHD 3), but its 3 arrowheads are all true (of 4: b <-> c
    # has two); its 3 tails are all wrong (the PAG has none).
    ("latent_confounder", "pag", ("a --> b", "c --> b", "d --> c"),
     dict(precision=0.0, recall=0.0, f1=0.0, shd=3, arrowhead_precision=1.0,
          arrowhead_recall=0.75, arrowhead_f1=6 / 7, tail_precision=0.0, tail_recall=0.0,
          tail_f1=0.0, skeleton_f1=1.0)),
    # The same guess against the ADMG a -> b <-> c <- d: a -> b and d -> c are right (2 of
    # 3 both ways); only the pair b, c differs; true tails at a and d, plus a false one at c.
    ("latent_confounder", "admg", ("a --> b", "c --> b", "d --> c"),
     dict(precision=2 / 3, recall=2 / 3, f1=2 / 3, shd=1, arrowhead_precision=1.0,
          arrowhead_recall=0.75, tail_precision=2 / 3, tail_recall=1.0, tail_f1=0.8)),
    # Truth a o-> b <-o c, b --> d (the latent mediator is invisible). The DAG a -> b <- c,
    # b -> d claims tails at a and c the PAG leaves open: 1 exact edge of 3, SHD 2; every
    # arrowhead right; tails: 1 right of 3, recall 1.
    ("latent_mediator", "pag", ("a --> b", "c --> b", "b --> d"),
     dict(precision=1 / 3, recall=1 / 3, f1=1 / 3, shd=2, arrowhead_precision=1.0,
          arrowhead_recall=1.0, arrowhead_f1=1.0, tail_precision=1 / 3, tail_recall=1.0,
          tail_f1=0.5)),
    # Truth (MAG) a --- b, a --- c, b --- c, c --> d after selecting on c. The causal DAG
    # a -> c <- b, c -> d: only c --> d exact (P 1/3, R 1/4, F1 2/7); a - b missing and two
    # pairs differ (SHD 3); arrowheads: 1 right of 3 (the one true); tails: 3 right of the
    # 7 true ones.
    ("selection_on_a_collider", "mag", ("a --> c", "b --> c", "c --> d"),
     dict(precision=1 / 3, recall=0.25, f1=2 / 7, shd=3, skeleton_precision=1.0,
          skeleton_recall=0.75, arrowhead_precision=1 / 3, arrowhead_recall=1.0,
          arrowhead_f1=0.5, tail_precision=1.0, tail_recall=3 / 7, tail_f1=0.6)),
    # Truth d o-> a <-o b, a --> c, b --> c. FCI without the discriminating-path rule leaves
    # b o-> c: 3 of 4 edges, SHD 1, arrowheads all right, tails 1 of 2.
    ("discriminating_path_non_collider", "pag",
     ("d o-> a", "b o-> a", "a --> c", "b o-> c"),
     dict(precision=0.75, recall=0.75, f1=0.75, shd=1, arrowhead_precision=1.0,
          arrowhead_recall=1.0, tail_precision=1.0, tail_recall=0.5, tail_f1=2 / 3)),
    # Truth (MAG) d --> a <-> b <-> c, a --> c. Guessing b --> c instead of b <-> c: 3 of 4
    # edges, SHD 1; arrowheads 5 of the 6 true, none false; tails: 2 true plus a false one at b.
    ("discriminating_path_collider", "mag", ("d --> a", "a <-> b", "a --> c", "b --> c"),
     dict(precision=0.75, recall=0.75, f1=0.75, shd=1, arrowhead_precision=1.0,
          arrowhead_recall=5 / 6, arrowhead_f1=10 / 11, tail_precision=2 / 3, tail_recall=1.0,
          tail_f1=0.8)),
    # Truth PAG a --- b --- c --- d --- a (selection on c and d): the prediction has every
    # adjacency but circles everywhere: no exact edge, every pair differs, no tail claimed
    # (precision 0 of 0 claims with 8 true tails is 0); no arrowhead claimed and none true
    # scores 1, the empty-prediction-of-an-empty-truth rule.
    ("selection_on_two_effects", "pag", ("a o-o b", "a o-o d", "b o-o c", "c o-o d"),
     dict(precision=0.0, recall=0.0, f1=0.0, shd=4, skeleton_f1=1.0, tail_precision=0.0,
          tail_recall=0.0, arrowhead_precision=1.0, arrowhead_f1=1.0)),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_hand_computed_scores(case: tuple[str, str, tuple[str, ...], dict[str, float]]) -> None:
    name, target, lines, expected = case
    truth = truth_of(name)
    got = score_prediction(marks(truth.observed, *lines), truth, target)
    assert {k: got[k] for k in expected} == pytest.approx(expected)
    d = len(truth.observed)
    assert got["nshd"] == pytest.approx(expected["shd"] / (d * (d - 1)))


def test_the_truth_scores_perfectly_on_every_target() -> None:
    for name in HAND:
        truth = truth_of(name)
        for target, graph in (("admg", MarkGraph.from_mixed(truth.admg)), ("mag", truth.mag),
                              ("pag", truth.pag)):
            s = score_prediction(graph, truth, target)
            assert (s["f1"], s["shd"], s["skeleton_f1"]) == (1.0, 0, 1.0), (name, target)


def test_an_admg_pair_with_two_edges() -> None:
    """u confounds x and y and x -> y: the ADMG has x -> y and x <-> y on one pair. A
    prediction with only x -> y gets 1 of 2 edges and the pair counts once in SHD."""
    full = MixedGraph.from_dag("uxy", [[0, 1, 1], [0, 0, 1], [0, 0, 0]])
    truth = GroundTruth("bow", ("x", "y"), full, ("u",))
    s = score_prediction(marks(("x", "y"), "x --> y"), truth, "admg")
    assert (s["precision"], s["recall"], s["f1"], s["shd"]) == pytest.approx((1, 0.5, 2 / 3, 1))
    assert (s["arrowhead_recall"], s["tail_precision"]) == (0.5, 1.0)
    both = score_prediction(marks(("x", "y"), "x --> y", "x <-> y"), truth, "admg")
    assert (both["f1"], both["shd"]) == (1.0, 0)


def test_circles_are_never_positives() -> None:
    truth = marks(tuple("ab"), "a --> b")
    s = score_marks(marks(tuple("ab"), "a o-o b"), truth)
    assert (s["arrowhead_precision"], s["tail_precision"], s["skeleton_f1"]) == (0.0, 0.0, 1.0)
    assert s["pred_circles"] == 2


# -- causal-learn's own functions ---------------------------------------------------------------
def _general_graph(g: MarkGraph) -> object:
    from causallearn.graph.GeneralGraph import GeneralGraph
    from causallearn.graph.GraphNode import GraphNode

    graph = GeneralGraph([GraphNode(n) for n in g.nodes])
    graph.graph = g.to_causallearn()
    return graph


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_shd_and_arrowheads_equal_causal_learns(case: tuple[str, str, tuple[str, ...],
                                                            dict[str, float]]) -> None:
    pytest.importorskip("causallearn", reason="causal-learn is not installed "
                                              "(pip install 'scmspec[baselines]')")
    from causallearn.graph.ArrowConfusion import ArrowConfusion
    from causallearn.graph.SHD import SHD

    name, target, lines, _ = case
    truth = truth_of(name)
    pred = marks(truth.observed, *lines)
    ref = {"admg": MarkGraph.from_mixed(truth.admg), "mag": truth.mag, "pag": truth.pag}[target]
    ours = score_marks(pred, ref)
    t, e = _general_graph(ref), _general_graph(pred)
    assert ours["shd"] == SHD(t, e).get_shd()
    arrows = ArrowConfusion(t, e)
    tp, fp, fn = arrows.get_arrows_tp(), arrows.get_arrows_fp(), arrows.get_arrows_fn()
    if tp + fp:
        assert ours["arrowhead_precision"] == pytest.approx(tp / (tp + fp))
    if tp + fn:
        assert ours["arrowhead_recall"] == pytest.approx(tp / (tp + fn))


def test_a_causallearn_fci_matrix_is_read_with_its_circles(tmp_path: object) -> None:
    """An FCI ``G.graph`` saved with numpy and scored against the PAG: circles kept."""
    from pathlib import Path

    from scmspec.interop.predictions import read_marks, read_prediction

    truth = truth_of("latent_confounder")
    path = Path(str(tmp_path)) / "fci.npy"
    np.save(path, truth.pag.to_causallearn())
    assert read_marks(path, truth.observed) == truth.pag
    s = score_prediction(read_marks(path, truth.observed), truth, "pag")
    assert (s["f1"], s["shd"]) == (1.0, 0)
    # the DAG view reads circles as tails: a o-> b is a -> b
    assert ("a", "b", "directed") in set(read_prediction(path, truth.observed).edges())
