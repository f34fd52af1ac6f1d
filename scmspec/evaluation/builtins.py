"""Built-in method wrappers: causal-learn PC, GES, FCI and DirectLiNGAM, gCastle NOTEARS, and
the RandomRegress control. Each is ``fn(data, mask, meta, **params) -> matrix``.

Every wrapper runs with the library defaults below (recorded in ``run.json`` of every run) and
treats all rows of a split as observational: the ``obsint`` split is pooled ("obs+int as
obs"), as for these methods in CausalArena. The output kind says which conversion rule the
scorer applies (docs/benchmarking.md): ``cpdag`` (undirected edges oriented at random with a
seed per row), ``pag`` (circles read as tails, then the same), ``dag`` (as returned).
Libraries are imported inside the wrapper, in the row's own process, so an uninstalled
library costs nothing until a run asks for it.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata as importlib_metadata
from typing import Any

import numpy as np
import pandas as pd

from scmspec.evaluation.random_regress import ALPHA, random_regress

Wrapper = Callable[..., Any]


@dataclass(frozen=True)
class Builtin:
    """A built-in method: its wrapper, output kind, defaults, and what it needs installed."""

    fn: Wrapper
    output: str  # dag | cpdag | pag
    encoding: str  # how the returned matrix is read: adjacency | causallearn
    defaults: dict[str, Any] = field(default_factory=dict)
    needs: tuple[str, ...] = ()  # importable modules (a missing one is named in the error)
    distribution: str | None = None  # whose version is recorded
    install: str = ""


def _pc(data: pd.DataFrame, mask: pd.DataFrame, meta: dict[str, Any], **p: Any) -> np.ndarray:
    from causallearn.search.ConstraintBased.PC import pc

    cg = pc(data.to_numpy(float), p["alpha"], p["indep_test"], stable=p["stable"],
            uc_rule=p["uc_rule"], uc_priority=p["uc_priority"], show_progress=False)
    return np.asarray(cg.G.graph)


def _ges(data: pd.DataFrame, mask: pd.DataFrame, meta: dict[str, Any], **p: Any) -> np.ndarray:
    from causallearn.search.ScoreBased.GES import ges

    return np.asarray(ges(data.to_numpy(float), score_func=p["score_func"],
                          maxP=p["maxP"])["G"].graph)


def _fci(data: pd.DataFrame, mask: pd.DataFrame, meta: dict[str, Any], **p: Any) -> np.ndarray:
    from causallearn.search.ConstraintBased.FCI import fci

    graph, _ = fci(data.to_numpy(float), p["indep_test"], p["alpha"], depth=p["depth"],
                   max_path_length=p["max_path_length"], show_progress=False)
    return np.asarray(graph.graph)


def _lingam(data: pd.DataFrame, mask: pd.DataFrame, meta: dict[str, Any],
            **p: Any) -> np.ndarray:
    from causallearn.search.FCMBased.lingam import DirectLiNGAM

    model = DirectLiNGAM(random_state=meta["seed"], measure=p["measure"])
    model.fit(data.to_numpy(float))
    # B[i, j] is the effect of j on i; the adjacency is row -> column
    return (np.abs(np.asarray(model.adjacency_matrix_)) > p["threshold"]).T.astype(np.int8)


def _notears(data: pd.DataFrame, mask: pd.DataFrame, meta: dict[str, Any],
             **p: Any) -> np.ndarray:
    os.environ.setdefault("CASTLE_BACKEND", "pytorch")
    from castle.algorithms import Notears

    model = Notears(lambda1=p["lambda1"], loss_type=p["loss_type"], max_iter=p["max_iter"],
                    h_tol=p["h_tol"], rho_max=p["rho_max"], w_threshold=p["w_threshold"])
    model.learn(data.to_numpy(float))
    return np.asarray(model.causal_matrix, dtype=np.int8)  # [i, j] = 1: i -> j


def _random_regress(data: pd.DataFrame, mask: pd.DataFrame, meta: dict[str, Any],
                    **p: Any) -> np.ndarray:
    return random_regress(data.to_numpy(float), seed=meta["seed"], alpha=p["alpha"])


def _causal_learn(fn: Wrapper, output: str, encoding: str, defaults: dict[str, Any]) -> Builtin:
    return Builtin(fn, output, encoding, defaults, ("causallearn",), "causal-learn",
                   "pip install 'scmspec[baselines]' (causal-learn)")


BUILTINS: dict[str, Builtin] = {
    "pc": _causal_learn(_pc, "cpdag", "causallearn", {"alpha": 0.05, "indep_test": "fisherz",
                                                      "stable": True, "uc_rule": 0,
                                                      "uc_priority": 2}),
    "ges": _causal_learn(_ges, "cpdag", "causallearn", {"score_func": "local_score_BIC",
                                                        "maxP": None}),
    "fci": _causal_learn(_fci, "pag", "causallearn", {"alpha": 0.05, "indep_test": "fisherz",
                                                      "depth": -1, "max_path_length": -1}),
    "lingam": _causal_learn(_lingam, "dag", "adjacency", {"measure": "pwling", "threshold": 0.0,
                                                          "random_state": "row seed"}),
    "notears": Builtin(_notears, "dag", "adjacency",
                       {"lambda1": 0.1, "loss_type": "l2", "max_iter": 100, "h_tol": 1e-8,
                        "rho_max": 1e16, "w_threshold": 0.3},
                       needs=("castle", "torch"), distribution="gcastle",
                       install="pip install gcastle torch (CPU build)"),
    "random_regress": Builtin(_random_regress, "dag", "adjacency",
                              {"alpha": ALPHA, "order": "random, row seed"}),
}


def missing_modules(builtin: Builtin) -> list[str]:
    """The modules a built-in needs that this Python cannot import."""
    return [m for m in builtin.needs if importlib.util.find_spec(m) is None]


def library_version(builtin: Builtin) -> str | None:
    """``name version`` of the library a built-in wraps (None for scmspec's own)."""
    if builtin.distribution is None:
        return None
    try:
        return f"{builtin.distribution} {importlib_metadata.version(builtin.distribution)}"
    except importlib_metadata.PackageNotFoundError:
        return None


def call_params(builtin: Builtin, params: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of a wrapper: its defaults, overridden by ``params``.

    Descriptive defaults (a text such as "row seed") are recorded, never passed.
    """
    merged = {**builtin.defaults, **params}
    return {k: v for k, v in merged.items() if k not in ("random_state", "order")}
