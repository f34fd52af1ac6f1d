"""Reference baselines on a compiled pool: PC (Fisher-z or KCI) and GES from causal-learn.

causal-learn is an optional dependency (``pip install 'scmspec[baselines]'``), imported only
when a baseline runs. Each (SCM, replicate) prediction is written as an edge-list CSV
``OUT/<id>/rep-<r>.csv`` (``source,target,type``; undirected and bidirected edges kept), ready
for ``scmspec score --pool DATA_DIR --preds OUT``. Every run is recorded in ``OUT/baseline.json``
with its status and time; a failing run writes no prediction, so the scorer counts it missing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from scmspec.interop.export import replicate_folders
from scmspec.interop.formats import from_causallearn
from scmspec.interop.graphs import InteropError, MixedGraph
from scmspec.interop.truth import scm_folders

METHODS = ("pc", "ges")
TESTS = ("fisherz", "kci")
SPLITS = ("obs", "obsint")


@dataclass(frozen=True)
class BaselineOptions:
    method: str = "pc"
    test: str = "fisherz"
    alpha: float = 0.05
    split: str = "obs"
    max_rows: int | None = None


@dataclass(frozen=True)
class BaselineRun:
    id: str
    replicate: str
    status: str  # ok | failed
    seconds: float
    detail: str | None = None


def require_causallearn() -> None:
    try:
        import causallearn  # noqa: F401
    except ImportError:
        raise InteropError("the baselines need causal-learn, which is not installed",
                           "pip install 'scmspec[baselines]' (or pip install causal-learn)"
                           ) from None


def _learner(options: BaselineOptions) -> Callable[[np.ndarray, list[str]], np.ndarray]:
    if options.method == "pc":
        from causallearn.search.ConstraintBased.PC import pc

        def run_pc(x: np.ndarray, names: list[str]) -> np.ndarray:
            cg = pc(x, options.alpha, options.test, stable=True, show_progress=False,
                    node_names=names)
            return np.asarray(cg.G.graph)
        return run_pc
    from causallearn.search.ScoreBased.GES import ges

    def run_ges(x: np.ndarray, names: list[str]) -> np.ndarray:
        return np.asarray(ges(x, score_func="local_score_BIC", node_names=names)["G"].graph)
    return run_ges


def check_options(options: BaselineOptions) -> None:
    for value, allowed, what in ((options.method, METHODS, "method"), (options.test, TESTS, "test"),
                                 (options.split, SPLITS, "split")):
        if value not in allowed:
            raise InteropError(f"unknown {what} {value!r}", f"use one of {', '.join(allowed)}")


def run_baselines(data_dir: Path, out: Path, options: BaselineOptions) -> list[BaselineRun]:
    """Run one baseline on every replicate of every SCM under ``data_dir``."""
    check_options(options)
    require_causallearn()
    learn = _learner(options)
    runs = []
    for folder in scm_folders(Path(data_dir)):
        for rep in replicate_folders(folder):
            runs.append(_run_one(learn, folder.name, rep, out, options))
    doc: dict[str, Any] = {"format": "scmspec.baseline/1", **asdict(options),
                           "runs": [asdict(r) for r in runs]}
    out.mkdir(parents=True, exist_ok=True)
    (out / "baseline.json").write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return runs


def _run_one(learn: Callable[[np.ndarray, list[str]], np.ndarray], scm_id: str, rep: Path,
             out: Path, options: BaselineOptions) -> BaselineRun:
    data = pd.read_csv(rep / f"{options.split}.csv")
    if options.max_rows:
        data = data.iloc[: options.max_rows]
    names = [str(c) for c in data.columns]
    start = time.perf_counter()
    try:
        endpoints = learn(data.to_numpy(dtype=float), names)
    except Exception as exc:  # noqa: BLE001 - a library failure on this data is a recorded result
        return BaselineRun(scm_id, rep.name, "failed", time.perf_counter() - start,
                           f"{type(exc).__name__}: {exc}")
    seconds = time.perf_counter() - start
    write_edge_csv(from_causallearn(endpoints, names), out / scm_id / f"{rep.name}.csv")
    return BaselineRun(scm_id, rep.name, "ok", seconds)


def write_edge_csv(g: MixedGraph, path: Path) -> None:
    """``source,target,type`` rows; every node of ``g`` is implied by the truth it is scored on."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = pd.DataFrame(list(g.edges()), columns=["source", "target", "type"])
    rows.to_csv(path, index=False, lineterminator="\n")
