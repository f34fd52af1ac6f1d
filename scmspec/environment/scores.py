"""Scores of an episode's submission: a graph as ``scmspec score`` scores it, a design by its
true expected outcome against the optimum.

Graphs: a directed adjacency over the observed variables (row -> column), scored against the
observed DAG with :func:`scmspec.scoring.score_prediction` (target ``dag``, convention
``scmspec``): precision, recall, F1, SHD, SID, ... exactly as ``scmspec score`` prints them.

Designs: :func:`scmspec.effects.optimize.optimize` searches the goal's knobs on one
common-random-numbers run (split ``optimize``, the card's protocol seed, ``goal.rows`` rows)
and re-estimates its best design and the submitted one on an independent run of the same
size (``optimize-check``): ``value`` and ``optimum`` are Monte Carlo estimates of E[Y | do(d)]
on the same rows, ``regret`` their paired difference with its standard error. The seed is the
card's, not the episode's, so every episode is measured against the same optimum.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from scmspec.effects.designs import DesignError
from scmspec.effects.optimize import Goal, optimize
from scmspec.environment.config import DesignGoal, EnvironmentError
from scmspec.environment.queries import check_design, context_handlers
from scmspec.interop.graphs import InteropError
from scmspec.interop.predictions import matrix_marks
from scmspec.interop.truth import load_truth
from scmspec.samplers.scm import SCM
from scmspec.scoring.targets import score_prediction


def graph_scores(scm: SCM, adjacency: Any, variables: Sequence[str] | None = None
                 ) -> dict[str, Any]:
    """Every DAG metric of a submitted adjacency (matrix, nested lists, DataFrame or edges)."""
    observed = list(scm.observed)
    matrix, names = _matrix(adjacency, variables, observed)
    try:
        marks = matrix_marks(matrix, names, observed, "adjacency")
        out = score_prediction(marks, load_truth(scm), "dag", "scmspec")
    except InteropError as exc:
        raise EnvironmentError(exc.render().removeprefix("error: ")) from None
    return jsonable(out)


def _matrix(adjacency: Any, variables: Sequence[str] | None, observed: list[str]
            ) -> tuple[np.ndarray, list[str]]:
    if isinstance(adjacency, Mapping) and "edges" in adjacency:
        return _from_edges(adjacency["edges"], observed), observed
    if hasattr(adjacency, "columns") and hasattr(adjacency, "to_numpy"):
        variables = [str(c) for c in adjacency.columns]
        adjacency = adjacency.to_numpy()
    try:
        matrix = np.asarray(adjacency, dtype=float)
    except (TypeError, ValueError):
        raise EnvironmentError("the adjacency is not a square matrix of numbers",
                               "send rows of 0/1 in the order of 'variables'") from None
    names = list(variables) if variables is not None else observed
    if matrix.ndim != 2 or matrix.shape != (len(names), len(names)):
        raise EnvironmentError(f"the adjacency is {matrix.shape}, not {len(names)}x{len(names)}",
                               f"one row and column per variable: {', '.join(names)}")
    return matrix, names


def _from_edges(edges: Any, observed: list[str]) -> np.ndarray:
    index = {v: i for i, v in enumerate(observed)}
    matrix = np.zeros((len(observed), len(observed)))
    for edge in edges if isinstance(edges, list) else [None]:
        if not (isinstance(edge, list) and len(edge) == 2 and all(e in index for e in edge)):
            raise EnvironmentError(f"edge {edge!r} is not [cause, effect] over the variables",
                                   f"variables: {', '.join(observed)}")
        matrix[index[edge[0]], index[edge[1]]] = 1.0
    return matrix


def design_scores(scm: SCM, goal: DesignGoal, design: Mapping[str, Any],
                  kinds: tuple[str, ...]) -> dict[str, Any]:
    """The submitted design's expected outcome, the optimum's, and the regret (points)."""
    handlers = check_design(scm, design, goal.knobs, ("do",), goal.context)
    missing = [k for k in goal.knobs if k not in handlers]
    if missing:
        raise EnvironmentError(f"the design leaves {', '.join(missing)} unset",
                               f"set every knob: {', '.join(goal.knobs)}")
    values = {k: float(h.value) for k, h in handlers.items()}  # type: ignore[attr-defined]
    fixed = {k: float(h.value) for k, h in  # type: ignore[attr-defined]
             context_handlers(scm, goal.context).items()}
    try:
        found = optimize(scm, Goal(goal.outcome, goal.maximize, "auto", fixed), goal.knobs,
                         rows=goal.rows, compare=[values])
    except DesignError as exc:
        raise EnvironmentError(exc.message) from None
    sign = 1.0 if goal.maximize else -1.0
    mine = found.compared[0]
    return jsonable({
        "outcome": goal.outcome, "maximize": goal.maximize, "population": found.population,
        "value": mine.estimate, "value_se": mine.se, "optimum": found.best.estimate,
        "optimum_se": found.best.se, "regret": 0.0 - sign * mine.diff, "regret_se": mine.diff_se,
        "regret_points": 0.0 - sign * mine.diff * 100.0, "rows": found.rows, "seed": found.seed,
        "method": "monte carlo: common random numbers, paired check run (docs/environment.md)"})


def jsonable(value: Any) -> Any:
    """numpy scalars to Python; NaN and infinities to None (strict JSON)."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
