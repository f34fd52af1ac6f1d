"""Metrics against graphs with endpoint marks: the ADMG, the MAG and the PAG.

Every graph is a :class:`~scmspec.interop.marks.MarkGraph`: a set of edges, each an unordered
pair with a mark (tail, arrowhead or circle) at each end. docs/scoring.md states the
definitions; in short:

* ``precision`` / ``recall`` / ``f1``: over edges, an edge counting as a true positive only when
  the pair and both of its marks match (``a o-> b`` is not ``a --> b``);
* ``skeleton_*``: over adjacent pairs, marks ignored;
* ``arrowhead_*`` and ``tail_*``: over endpoints ``(edge, node)``: an arrowhead at ``b`` on the
  edge between ``a`` and ``b`` is a claim that ``b`` is not an ancestor of ``a`` (nor of the
  selection), a tail a claim that it is. A circle claims neither, so it is never a positive.
  arrowhead precision and recall are causal-learn's ``ArrowConfusion`` (non-"CE") numbers;
* ``shd``: unordered pairs whose edges differ (missing, extra, or any mark different: a
  reversed edge counts once), which is causal-learn's ``SHD`` on ``GeneralGraph`` objects;
  ``nshd`` = ``shd / (d (d - 1))`` as for DAGs.
"""

from __future__ import annotations

from typing import Any

from scmspec.interop.marks import ARROW, CIRCLE, TAIL, MarkGraph
from scmspec.scoring.metrics import aligned, prf

MARK_METRICS = ("arrowhead_precision", "arrowhead_recall", "arrowhead_f1", "tail_precision",
                "tail_recall", "tail_f1")


def endpoints(g: MarkGraph, mark: int) -> set[tuple[int, int]]:
    """``(other, node)`` for every edge end at ``node`` carrying ``mark``.

    Example:
        >>> sorted(endpoints(MarkGraph.parse("ab", ["a o-> b"]), ARROW))
        [(0, 1)]
    """
    out = set()
    for i, j, mi, mj in g.edges:
        if mi == mark:
            out.add((j, i))
        if mj == mark:
            out.add((i, j))
    return out


def pair_edges(g: MarkGraph) -> dict[tuple[int, int], frozenset[tuple[int, int]]]:
    """The marks of the edges of each adjacent pair (two edges for an ADMG's ``->`` + ``<->``)."""
    out: dict[tuple[int, int], set[tuple[int, int]]] = {}
    for i, j, mi, mj in g.edges:
        out.setdefault((i, j), set()).add((mi, mj))
    return {k: frozenset(v) for k, v in out.items()}


def mark_shd(pred: MarkGraph, truth: MarkGraph) -> int:
    """Unordered pairs whose edges differ (a reversed edge, or ``o->`` for ``->``, counts once).

    Example:
        >>> t = MarkGraph.parse("abc", ["a o-> b", "b <-> c"])
        >>> mark_shd(MarkGraph.parse("abc", ["a --> b", "b <-> c"]), t)
        1
    """
    p, t = pair_edges(pred), pair_edges(aligned(pred, truth))
    return sum(p.get(k) != t.get(k) for k in set(p) | set(t))


def score_marks(pred: MarkGraph, truth: MarkGraph, target: str = "pag") -> dict[str, Any]:
    """Every mark metric of a prediction against an ADMG, MAG or PAG (same variables).

    Example:
        >>> truth = MarkGraph.parse("abcd", ["a o-> b", "b <-> c", "c <-o d"])
        >>> pred = MarkGraph.parse("abcd", ["a --> b", "b <-> c"])
        >>> s = score_marks(pred, truth)
        >>> s["f1"], s["shd"], s["arrowhead_recall"], s["tail_precision"]
        (0.4, 2, 0.75, 0.0)
    """
    truth = aligned(pred, truth)
    tp = len(pred.edges & truth.edges)
    out: dict[str, Any] = dict(zip(("precision", "recall", "f1"),
                                   prf(tp, len(pred.edges), len(truth.edges))))
    distance, d = mark_shd(pred, truth), pred.d
    out.update(shd=distance, nshd=distance / (d * (d - 1)) if d > 1 else 0.0)
    p_pairs, t_pairs = pred.pairs(), truth.pairs()
    out.update(zip(("skeleton_precision", "skeleton_recall", "skeleton_f1"),
                   prf(len(p_pairs & t_pairs), len(p_pairs), len(t_pairs))))
    for name, mark in (("arrowhead", ARROW), ("tail", TAIL)):
        p, t = endpoints(pred, mark), endpoints(truth, mark)
        out.update(zip((f"{name}_precision", f"{name}_recall", f"{name}_f1"),
                       prf(len(p & t), len(p), len(t))))
    circles = sum((mi == CIRCLE) + (mj == CIRCLE) for _, _, mi, mj in pred.edges)
    out.update(sid=None, sid_lower=None, sid_upper=None, target=target, d=d,
               true_edges=len(truth.edges), pred_edges=len(pred.edges),
               pred_undirected=sum((mi, mj) == (TAIL, TAIL) for _, _, mi, mj in pred.edges),
               pred_bidirected=sum((mi, mj) == (ARROW, ARROW) for _, _, mi, mj in pred.edges),
               pred_circles=circles, pred_acyclic=None)
    return out
