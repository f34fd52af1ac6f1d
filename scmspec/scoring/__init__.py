"""Scoring predicted graphs against compiled ground truth.

Public API:
    score_prediction(pred, truth, target, convention)   every metric for one target
                                                (dag, cpdag, skeleton, admg, mag, pag)
    score_graph(pred, true_dag, target, seed)   precision, recall, F1, SHD, nSHD, skeleton F1, SID
    score_marks(pred, truth)                    edge, arrowhead and tail metrics (ADMG/MAG/PAG)
    CONVENTIONS                                 scmspec, causal-learn, gcastle, cdt
    shd(pred, truth), sid(true, pred), sid_bounds(true, pred_cpdag)
    content_seed(id, graph), orient_randomly(graph, seed)   the seeded CPDAG-to-DAG rule
    score_pool(data_dir, preds, options, by)    a whole pool, replicate-averaged, sliced by metadata
    run_baselines(data_dir, out, options)       PC / GES via the optional causal-learn
"""

from __future__ import annotations

from scmspec.scoring.baselines import BaselineOptions, run_baselines
from scmspec.scoring.conventions import CONVENTIONS
from scmspec.scoring.marks import score_marks
from scmspec.scoring.metrics import (
    METRICS,
    content_seed,
    orient_randomly,
    orientation_seed,
    score_graph,
    shd,
)
from scmspec.scoring.pool import PoolScore, ScoreOptions, score_pool
from scmspec.scoring.sid import sid, sid_bounds
from scmspec.scoring.targets import TARGETS, score_prediction

__all__ = [
    "CONVENTIONS", "METRICS", "TARGETS", "BaselineOptions", "PoolScore", "ScoreOptions",
    "content_seed", "orient_randomly", "orientation_seed", "run_baselines", "score_graph",
    "score_marks", "score_pool", "score_prediction", "shd", "sid", "sid_bounds",
]
