"""Graph-recovery metrics: precision, recall, F1, SHD, normalised SHD, skeleton F1 and SID.

Conventions (docs/scoring.md has the full text):

* SHD counts unordered pairs whose edge differs (missing, extra, reversed or a different edge
  mark): a reversed edge counts once.
* nSHD = SHD / (d (d - 1)), the CausalArena normalisation (appendix C); the largest possible
  SHD is d (d - 1) / 2, so nSHD <= 0.5.
* precision = TP / predicted, recall = TP / true, F1 = 2 TP / (predicted + true); an empty
  denominator gives 0, except that an empty prediction of an empty truth scores 1 on all three.
* Undirected edges of a predicted CPDAG are oriented by a seeded RNG before DAG metrics (the
  CausalArena rule), with the seed from :func:`content_seed`: the prediction's edges and the
  truth's id, never a file name, so the same graph always gets the same score.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

import numpy as np

from scmspec.interop.graphs import InteropError, MixedGraph, cpdag
from scmspec.scoring.sid import SIDCounter, sid_bounds

TARGETS = ("dag", "cpdag", "skeleton")
METRICS = ("precision", "recall", "f1", "shd", "nshd", "skeleton_precision", "skeleton_recall",
           "skeleton_f1", "sid", "sid_lower", "sid_upper")


def orientation_seed(key: str, base_seed: int = 0) -> int:
    """The first 8 bytes (little endian) of sha256("scmspec.orient/<base_seed>/<key>").

    Example:
        >>> orientation_seed("demo/abc") == orientation_seed("demo/abc")
        True
    """
    digest = hashlib.sha256(f"scmspec.orient/{base_seed}/{key}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def graph_text(g: MixedGraph) -> str:
    """One edge per line (``a --> b``, ``a --- b``, ``a <-> b``) in :meth:`MixedGraph.edges`
    order (row-major over the node order): the text a prediction's orientation seed hashes.

    Example:
        >>> g = MixedGraph.from_cpdag_matrix("abc", [[0, 1, 0], [1, 0, 1], [0, 0, 0]])
        >>> print(graph_text(g))
        a --- b
        b --> c
    """
    kinds = {"directed": "-->", "undirected": "---", "bidirected": "<->"}
    return "\n".join(f"{a} {kinds[t]} {b}" for a, b, t in g.edges())


def content_seed(truth_id: str, pred: MixedGraph, base_seed: int = 0) -> int:
    """The seed for orienting a prediction's undirected edges, from its content alone:
    ``orientation_seed(f"{truth_id}/{sha256(graph_text(pred)).hexdigest()}", base_seed)``
    with ``pred`` over the truth's variables in the truth's order. The same graph scores the
    same under any file name, in single and pool mode, on any machine.

    Example:
        >>> g = MixedGraph.from_cpdag_matrix("ab", [[0, 1], [1, 0]])
        >>> content_seed("demo", g) == content_seed("demo", g.reorder("ba").reorder("ab"))
        True
    """
    digest = hashlib.sha256(graph_text(pred).encode()).hexdigest()
    return orientation_seed(f"{truth_id}/{digest}", base_seed)


def orient_randomly(g: MixedGraph, seed: int) -> MixedGraph:
    """Each undirected edge i -- j (i < j, row-major order) becomes i -> j when the next draw of
    ``numpy.random.default_rng(seed).random()`` is below 0.5, else j -> i."""
    if not g.undirected.any():
        return g
    rng = np.random.default_rng(seed)
    directed = g.directed.copy()
    for i, j in zip(*np.nonzero(np.triu(g.undirected))):
        if rng.random() < 0.5:
            directed[i, j] = 1
        else:
            directed[j, i] = 1
    return MixedGraph.build(g.nodes, directed, None, g.bidirected)


def prf(tp: int, n_pred: int, n_true: int) -> tuple[float, float, float]:
    """Precision, recall and F1 from counts (conventions in the module docstring).

    Example:
        >>> prf(2, 4, 3)
        (0.5, 0.6666666666666666, 0.5714285714285714)
    """
    precision = tp / n_pred if n_pred else float(n_true == 0)
    recall = tp / n_true if n_true else float(n_pred == 0)
    f1 = 2 * tp / (n_pred + n_true) if n_pred + n_true else 1.0
    return precision, recall, f1


def pair_codes(g: MixedGraph) -> np.ndarray:
    """One code per unordered pair i < j that differs whenever the edge marks differ."""
    iu = np.triu_indices(g.d, 1)
    fwd, back = g.directed[iu], g.directed.T[iu]
    return (fwd.astype(np.int64) + 2 * back + 4 * g.undirected[iu] + 8 * g.bidirected[iu])


def shd(pred: MixedGraph, truth: MixedGraph) -> int:
    """Structural Hamming distance: pairs whose edge differs (a reversal counts once).

    Example:
        >>> t = MixedGraph.from_dag("abc", [[0, 1, 0], [0, 0, 1], [0, 0, 0]])
        >>> p = MixedGraph.from_dag("abc", [[0, 0, 0], [1, 0, 1], [0, 0, 0]])
        >>> shd(p, t)
        1
    """
    return int(np.sum(pair_codes(pred) != pair_codes(aligned(pred, truth))))


class _Graph(Protocol):
    @property
    def nodes(self) -> tuple[str, ...]: ...

    def reorder(self, nodes: Sequence[str]) -> Any: ...


G = TypeVar("G", bound=_Graph)


def aligned(pred: _Graph, truth: G) -> G:
    """``truth`` over ``pred``'s node order (a MixedGraph or a MarkGraph); refuses graphs over
    different variables."""
    if pred.nodes == truth.nodes:
        return truth
    if sorted(pred.nodes) != sorted(truth.nodes):
        raise InteropError("the prediction and the truth have different variables")
    return truth.reorder(pred.nodes)  # type: ignore[no-any-return]


def skeleton_counts(pred: MixedGraph, truth: MixedGraph) -> tuple[int, int, int]:
    iu = np.triu_indices(pred.d, 1)
    p, t = pred.skeleton[iu] != 0, truth.skeleton[iu] != 0
    return int(np.sum(p & t)), int(p.sum()), int(t.sum())


def mark_counts(pred: MixedGraph, truth: MixedGraph) -> tuple[int, int, int]:
    """Edge objects for CPDAG scoring: directed (i, j) entries and undirected {i, j} pairs."""
    iu = np.triu_indices(pred.d, 1)
    tp = int(np.sum(pred.directed & truth.directed)
             + np.sum(pred.undirected[iu] & truth.undirected[iu]))
    n_pred = int(pred.directed.sum() + pred.undirected[iu].sum())
    n_true = int(truth.directed.sum() + truth.undirected[iu].sum())
    return tp, n_pred, n_true


def score_graph(pred: MixedGraph, true_dag: MixedGraph, target: str = "dag",
                seed: int = 0, with_sid: bool = True) -> dict[str, Any]:
    """Every metric of a prediction against the true DAG (both over the same variables).

    ``target`` picks what precision / recall / F1 / SHD compare: ``dag`` (directed edges, after
    seeded orientation of undirected ones), ``cpdag`` (edge marks against the true CPDAG; a DAG
    prediction is first reduced to its CPDAG) or ``skeleton``. Skeleton F1 and SID are reported
    for every target.

    Example:
        >>> t = MixedGraph.from_dag("ab", [[0, 1], [0, 0]])
        >>> score_graph(t, t)["f1"], score_graph(t, t)["shd"]
        (1.0, 0)
    """
    if target not in TARGETS:
        raise InteropError(f"unknown target {target!r}", f"use one of {', '.join(TARGETS)}")
    truth = aligned(pred, true_dag)
    if not truth.is_dag:
        raise InteropError("the truth must be a DAG")
    oriented = orient_randomly(pred, seed)
    if target == "dag":
        tp, n_pred, n_true = int(np.sum(oriented.directed & truth.directed)), \
            int(oriented.directed.sum()), int(truth.directed.sum())
        distance = shd(oriented, truth)
    elif target == "cpdag":
        ref = cpdag(truth)
        mine = cpdag(pred) if pred.is_dag else pred
        tp, n_pred, n_true = mark_counts(mine, ref)
        distance = shd(mine, ref)
    else:
        tp, n_pred, n_true = skeleton_counts(pred, truth)
        distance = int(np.sum(np.triu(pred.skeleton != truth.skeleton, 1)))
    d = pred.d
    out: dict[str, Any] = dict(zip(("precision", "recall", "f1"), prf(tp, n_pred, n_true)))
    out.update(shd=distance, nshd=distance / (d * (d - 1)) if d > 1 else 0.0)
    out.update(zip(("skeleton_precision", "skeleton_recall", "skeleton_f1"),
                   prf(*skeleton_counts(pred, truth))))
    out.update(_sid(pred, oriented, truth) if with_sid else
               {"sid": None, "sid_lower": None, "sid_upper": None})
    out.update(target=target, d=d, true_edges=int(truth.directed.sum()),
               pred_edges=int(pred.directed.sum() + np.triu(pred.undirected).sum()
                              + np.triu(pred.bidirected).sum()),
               pred_undirected=int(np.triu(pred.undirected).sum()),
               pred_bidirected=int(np.triu(pred.bidirected).sum()),
               pred_acyclic=bool(MixedGraph.build(oriented.nodes, oriented.directed).is_dag))
    return out


def _sid(pred: MixedGraph, oriented: MixedGraph, truth: MixedGraph) -> dict[str, Any]:
    value = SIDCounter(truth.directed).sid(oriented.directed)
    if not pred.undirected.any():
        return {"sid": value, "sid_lower": value, "sid_upper": value}
    bounds = sid_bounds(truth.directed, pred)
    lower, upper = bounds if bounds is not None else (None, None)
    return {"sid": value, "sid_lower": lower, "sid_upper": upper}
