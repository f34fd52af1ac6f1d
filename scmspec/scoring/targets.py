"""Score one prediction against one SCM's truth: pick the target graph and the convention.

Targets (docs/scoring.md): ``dag``, ``cpdag`` and ``skeleton`` compare with the observed DAG
(:func:`scmspec.scoring.metrics.score_graph`; circles in a prediction read as tails);
``admg``, ``mag`` and ``pag`` compare endpoint marks with the latent projection, the maximal
ancestral graph and its equivalence class (:func:`scmspec.scoring.marks.score_marks`; circles
kept). Conventions (:mod:`scmspec.scoring.conventions`) replace SHD, precision, recall and F1
by a library's definitions. The orientation seed comes from the prediction's content and the
truth's id (:func:`~scmspec.scoring.metrics.content_seed`), never from a file name.
"""

from __future__ import annotations

from typing import Any

from scmspec.interop.graphs import InteropError
from scmspec.interop.marks import MarkGraph
from scmspec.interop.predictions import liberal
from scmspec.interop.truth import GroundTruth
from scmspec.scoring.conventions import (
    CONVENTIONS,
    DAG_ONLY,
    causallearn_scores,
    cdt_scores,
    gcastle_scores,
)
from scmspec.scoring.marks import MARK_METRICS, score_marks
from scmspec.scoring.metrics import METRICS, content_seed, score_graph

DAG_TARGETS = ("dag", "cpdag", "skeleton")
MARK_TARGETS = ("admg", "mag", "pag")
TARGETS = (*DAG_TARGETS, *MARK_TARGETS)
ALL_METRICS = (*METRICS, *MARK_METRICS, "aupr")


def check_options(target: str, convention: str) -> None:
    """Refuse an unknown target or convention, or a pair no library defines."""
    if target not in TARGETS:
        raise InteropError(f"unknown target {target!r}", f"use one of {', '.join(TARGETS)}")
    if convention not in CONVENTIONS:
        raise InteropError(f"unknown convention {convention!r}",
                           f"use one of {', '.join(CONVENTIONS)}")
    if convention in DAG_ONLY and target != "dag":
        raise InteropError(f"the {convention} convention scores against the true DAG only",
                           "use --target dag, or --convention scmspec / causal-learn")
    if convention == "causal-learn" and target == "skeleton":
        raise InteropError("the skeleton target has no causal-learn convention (its adjacency "
                           "precision and recall are the skeleton metrics already)",
                           "use --convention scmspec")


def truth_graph(truth: GroundTruth, target: str) -> MarkGraph:
    """The true graph of a target as endpoint marks."""
    if target in ("dag", "skeleton"):
        return MarkGraph.from_mixed(truth.dag)
    if target in ("cpdag", "admg"):
        return MarkGraph.from_mixed(truth.cpdag if target == "cpdag" else truth.admg)
    return truth.mag if target == "mag" else truth.pag


def score_prediction(pred: MarkGraph, truth: GroundTruth, target: str = "dag",
                     convention: str = "scmspec", base_seed: int = 0,
                     with_sid: bool = True) -> dict[str, Any]:
    """Every metric of one prediction (over the truth's observed variables) for one target.

    Example:
        >>> from scmspec.interop.graphs import MixedGraph
        >>> full = MixedGraph.from_dag("uxyz", [[0, 1, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0],
        ...                                     [0, 0, 1, 0]])
        >>> truth = GroundTruth("demo", ("x", "y", "z"), full, ("u",))
        >>> truth.pag.lines()
        ['x o-> y', 'y <-o z']
        >>> pred = MarkGraph.parse("xyz", ["x o-> y", "z --> y"])
        >>> s = score_prediction(pred, truth, "pag")
        >>> s["f1"], s["shd"], s["arrowhead_f1"]
        (0.5, 1, 1.0)
    """
    check_options(target, convention)
    pred = pred.reorder(truth.observed)
    if target in MARK_TARGETS:
        out = score_marks(pred, truth_graph(truth, target), target)
        seed = None
    else:
        mixed = liberal(pred)
        seed = content_seed(truth.id, mixed, base_seed)
        out = score_graph(mixed, truth.dag, target, seed, with_sid)
        if convention == "gcastle":
            out.update(gcastle_scores(mixed, truth.dag))
        elif convention == "cdt":
            out.update(cdt_scores(mixed, truth.dag))
    if convention == "causal-learn":
        out.update(causallearn_scores(pred, truth_graph(truth, target)))
    out.update(convention=convention, seed=seed)
    return out
