"""Scoring predicted graphs against compiled ground truth.

Public API:
    score_graph(pred, true_dag, target, seed)   precision, recall, F1, SHD, nSHD, skeleton F1, SID
    shd(pred, truth), sid(true, pred), sid_bounds(true, pred_cpdag)
    orientation_seed(key), orient_randomly(graph, seed)   the seeded CPDAG-to-DAG rule
    score_pool(data_dir, preds, options, by)    a whole pool, replicate-averaged, sliced by metadata
    run_baselines(data_dir, out, options)       PC / GES via the optional causal-learn
"""

from __future__ import annotations

from scmspec.scoring.baselines import BaselineOptions, run_baselines
from scmspec.scoring.metrics import (
                                     METRICS,
                                     TARGETS,
                                     orient_randomly,
                                     orientation_seed,
                                     score_graph,
                                     shd,
)
from scmspec.scoring.pool import PoolScore, ScoreOptions, score_pool
from scmspec.scoring.sid import sid, sid_bounds

__all__ = [
    "METRICS", "TARGETS", "BaselineOptions", "PoolScore", "ScoreOptions", "orient_randomly",
    "orientation_seed", "run_baselines", "score_graph", "score_pool", "shd", "sid", "sid_bounds",
]
