"""SHD, precision, recall and F1 as causal-learn, gCastle and cdt define them.

The same prediction gets different numbers from different libraries, and each is right by its
own definition. ``scmspec score --convention NAME`` reproduces one library's definitions on the
prediction as written (no random orientation: each library takes undirected edges as they
are), so a user can put scmspec's numbers next to the ones they already trust. Each function
below restates its library's rule; tests compare them with the library's own function on the
same graphs. Skeleton metrics and SID stay scmspec's under every convention.

* ``causal-learn`` (``causallearn.graph.SHD``, ``ArrowConfusion``): SHD counts unordered pairs
  whose two endpoint marks differ (a reversal counts once); precision and recall are its arrow
  precision and recall (an undirected edge has no arrowhead, so it is neither right nor
  wrong); causal-learn defines no F1, so F1 is their harmonic mean.
* ``gcastle`` (``castle.metrics.MetricsDAG``): a symmetric pair is one undirected edge,
  "treated favourably": it is not counted in SHD when the truth has the pair in either
  direction. SHD = extra pairs + missing pairs + predicted directed edges whose reverse is
  true. Precision and recall are over matrix entries after writing undirected edges back as
  both directions: TP = entries that are 1 in both, precision = TP / predicted entries (an
  undirected edge counts twice), recall = TP / true edges. gCastle rounds to 4 decimals;
  scmspec does not.
* ``cdt`` (``cdt.metrics.SHD`` with its default ``double_for_anticausal=True``, and
  ``precision_recall``): SHD is the number of differing matrix entries, so a reversed edge
  counts twice and an undirected edge over a true directed one once. cdt defines no F1 and
  scores precision through the area under sklearn's precision-recall curve (``aupr``,
  reported); precision, recall and F1 here are that curve's point at threshold 1 (matrix
  entries, as in gCastle).

Where a library would divide by zero (no predicted edges, no true edges, or an F1 without a
true positive) it returns NaN; scmspec keeps its own rule (docs/scoring.md) so that means over
a pool stay defined.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from scmspec.interop.graphs import InteropError, MixedGraph
from scmspec.interop.marks import MarkGraph
from scmspec.scoring.marks import endpoints, mark_shd
from scmspec.scoring.metrics import prf

CONVENTIONS = ("scmspec", "causal-learn", "gcastle", "cdt")
DAG_ONLY = ("gcastle", "cdt")  # these libraries score against a true DAG only


def _matrix(pred: MixedGraph, convention: str) -> np.ndarray:
    """The prediction as the 0/1 matrix these libraries take (undirected = both entries)."""
    if pred.bidirected.any():
        raise InteropError(f"the {convention} convention scores DAG and CPDAG predictions; this "
                           "one has bidirected edges", "use --target admg, mag or pag")
    return pred.cpdag_matrix().astype(np.int64)


def gcastle_scores(pred: MixedGraph, truth: MixedGraph) -> dict[str, Any]:
    """gCastle's ``MetricsDAG`` SHD, precision, recall and F1 of ``pred`` against a DAG.

    Example:
        >>> t = MixedGraph.from_dag("abc", [[0, 1, 0], [0, 0, 1], [0, 0, 0]])
        >>> p = MixedGraph.from_cpdag_matrix("abc", [[0, 1, 0], [1, 0, 0], [0, 1, 0]])
        >>> s = gcastle_scores(p, t)   # a -- b (favourable), c -> b (reversed)
        >>> s["shd"], s["precision"], s["recall"]
        (1, 0.3333333333333333, 0.5)
    """
    est, true = _matrix(pred, "gcastle"), truth.directed.astype(np.int64)
    directed = est & (1 - (est & est.T))
    skeleton_true = true | true.T
    reverse = int(np.sum(directed & (1 - true) & true.T))
    pairs_pred = np.triu(est | est.T, 1)
    pairs_true = np.triu(skeleton_true, 1)
    extra = int(np.sum(pairs_pred & (1 - pairs_true)))
    missing = int(np.sum(pairs_true & (1 - pairs_pred)))
    tp = int(np.sum(est & true))
    precision, recall, f1 = prf(tp, int(est.sum()), int(true.sum()))
    return {"shd": extra + missing + reverse, "precision": precision, "recall": recall, "f1": f1}


def cdt_scores(pred: MixedGraph, truth: MixedGraph) -> dict[str, Any]:
    """cdt's ``SHD`` (reversals count twice) and its precision-recall numbers.

    Example:
        >>> t = MixedGraph.from_dag("abc", [[0, 1, 0], [0, 0, 1], [0, 0, 0]])
        >>> p = MixedGraph.from_dag("abc", [[0, 1, 0], [0, 0, 0], [0, 1, 0]])
        >>> cdt_scores(p, t)["shd"]   # c -> b for b -> c: two entries differ
        2
    """
    est, true = _matrix(pred, "cdt"), truth.directed.astype(np.int64)
    tp, n_pred, n_true = int(np.sum(est & true)), int(est.sum()), int(true.sum())
    precision, recall, f1 = prf(tp, n_pred, n_true)
    return {"shd": int(np.abs(true - est).sum()), "precision": precision, "recall": recall,
            "f1": f1, "aupr": _aupr(tp, n_pred, n_true, true.size)}


def _aupr(tp: int, n_pred: int, n_true: int, cells: int) -> float | None:
    """cdt's ``auc(recall, precision)`` of sklearn's curve for 0/1 scores over every matrix
    cell: the points (recall 1, precision n_true / cells), the threshold-1 point when some
    entry is predicted, and (0, 1); trapezoids between them."""
    if n_true == 0:
        return None  # sklearn's recall is undefined without positives
    points = [(1.0, n_true / cells)]
    if n_pred:
        points.append((tp / n_true, tp / n_pred))
    points.append((0.0, 1.0))
    return float(sum((r0 - r1) * (p0 + p1) / 2 for (r0, p0), (r1, p1) in zip(points, points[1:])))


def causallearn_scores(pred: MarkGraph, truth: MarkGraph) -> dict[str, Any]:
    """causal-learn's ``SHD`` and ``ArrowConfusion`` precision and recall (F1 their mean).

    Example:
        >>> t = MarkGraph.parse("abc", ["a --> b", "b --> c"])
        >>> p = MarkGraph.parse("abc", ["a --- b", "c --> b"])
        >>> s = causallearn_scores(p, t)
        >>> s["shd"], s["precision"], s["recall"]
        (2, 0.0, 0.0)
    """
    p, t = endpoints(pred, 2), endpoints(truth.reorder(pred.nodes), 2)
    precision, recall, f1 = prf(len(p & t), len(p), len(t))
    return {"shd": mark_shd(pred, truth), "precision": precision, "recall": recall, "f1": f1}
