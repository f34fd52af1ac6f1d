"""One row (SCM x split x replicate) of an evaluation: its own process, under a wall-time budget.

:func:`run_row` prepares the row's inputs in a scratch folder (the table, its columns shuffled
with the row's seed and standardised unless the run says otherwise; the intervention mask,
all zeros for ``obs``; ``meta.json``), starts
the method in a new process session, waits at most the budget, and kills the whole session
when it runs over. It never raises: whatever happens becomes the row's status

* ``ok``: a readable adjacency over the table's columns (written to ``predictions/``);
* ``failed``: the method raised, exited non-zero, or died (error text: the message, or the
  tail of its standard error);
* ``timed_out``: still running when the budget ran out (killed);
* ``invalid_output``: it finished but wrote no readable adjacency over these columns.

It runs in the parent's threads or on a Dask worker (the package and run folder must be on a
file system both see); the parent scores rows and writes their records.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from scmspec.evaluation.methods import Method, command_argv
from scmspec.evaluation.random_regress import standardise
from scmspec.interop.graphs import InteropError, MixedGraph
from scmspec.interop.predictions import liberal, matrix_marks, read_prediction

STATUSES = ("ok", "failed", "timed_out", "invalid_output")
SPLIT_FILES = {"obs": "obs.csv", "obsint": "obsint.csv"}
MAX_OUTPUT_BYTES = 64 << 20  # an adjacency of 2,000 variables is ~8 MB of CSV
ERROR_CHARS = 2000
ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@dataclass(frozen=True, order=True)
class RowKey:
    """Which row: an SCM of the package, a split and a replicate."""

    id: str
    split: str
    replicate: int
    part: str = field(compare=False, default="public")

    @property
    def label(self) -> str:
        return f"{self.id}/{self.split}/rep-{self.replicate}"

    @property
    def prediction(self) -> str:
        """The prediction's path inside the run folder."""
        return f"predictions/{self.label}.csv"

    @property
    def record(self) -> str:
        return f"rows/{self.label}.json"


@dataclass(frozen=True)
class RowTask:
    """Everything a worker needs to run one row (all of it pickles)."""

    key: RowKey
    folder: Path  # the SCM's folder in the package
    runs: Path
    method: Method
    budget: float
    standardize: bool
    seed: int
    facts: dict[str, Any]
    shuffle: bool = True


@dataclass(frozen=True)
class RowOutcome:
    status: str
    elapsed: float
    error: str | None = None
    method_seconds: float | None = None


def _inputs(task: RowTask, scratch: Path) -> tuple[list[str], dict[str, str]]:
    """The row's table, mask and meta in ``scratch``; the columns in the order the method sees.

    Columns are shuffled with the row's seed (unless the run says not to) and standardised;
    the method's answer is matched back by name, or by this order for an unlabelled matrix.
    """
    rep = task.folder / f"rep-{task.key.replicate}"
    table = pd.read_csv(rep / SPLIT_FILES[task.key.split])
    if task.key.split == "obsint":
        mask = pd.read_csv(rep / "obsint_mask.csv")
    else:
        mask = pd.DataFrame(np.zeros(table.shape, dtype=np.int8), columns=table.columns)
    if task.shuffle:  # card order is often causal order: a shortcut no method should get
        # a stream apart from the method's own seed, so the two draws are unrelated
        order = np.random.default_rng([task.seed, 1]).permutation(table.shape[1])
        table, mask = table.iloc[:, order], mask.iloc[:, order]
    if task.standardize:
        table = pd.DataFrame(standardise(table.to_numpy(float)), columns=table.columns)
    paths = {k: str(scratch / f"{k}.{ext}") for k, ext in
             (("data", "csv"), ("mask", "csv"), ("meta", "json"), ("out", "csv"))}
    table.to_csv(paths["data"], index=False, lineterminator="\n")
    mask.to_csv(paths["mask"], index=False, lineterminator="\n")
    facts = task.facts
    meta = {"id": task.key.id, "part": task.key.part, "split": task.key.split,
            "replicate": task.key.replicate, "seed": task.seed, "standardized": task.standardize,
            "columns": [str(c) for c in table.columns], "rows": len(table),
            "kinds": facts.get("kinds", {}), "levels": facts.get("levels", {}),
            "family": facts.get("family"), "domain": facts.get("domain"),
            "targets": [str(c) for c in mask.columns[mask.to_numpy().any(axis=0)]]}
    Path(paths["meta"]).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return [str(c) for c in table.columns], {**paths, "seed": str(task.seed)}


def _environment() -> dict[str, str]:
    """The parent's environment; one BLAS thread per row unless the user chose otherwise."""
    env = dict(os.environ)
    for name in ONE_THREAD:
        env.setdefault(name, "1")
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def _run_process(argv: list[str], budget: float, scratch: Path) -> tuple[bool, int, float, str]:
    """(timed out, exit code, seconds, stderr tail) of one process run in its own session."""
    with open(scratch / "stdout.txt", "wb") as out, open(scratch / "stderr.txt", "wb") as err:
        start = time.monotonic()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                start_new_session=True, env=_environment())
        try:
            code, timed_out = proc.wait(timeout=budget), False
        except subprocess.TimeoutExpired:
            timed_out = True
            try:  # the leader is not reaped yet, so its session id is still its own
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            code = proc.wait()
        elapsed = time.monotonic() - start
    tail = (scratch / "stderr.txt").read_bytes()[-ERROR_CHARS:].decode("utf-8", "replace")
    return timed_out, code, elapsed, tail.strip()


def _read_output(path: Path, columns: list[str]) -> MixedGraph:
    if not path.is_file():
        raise InteropError("the method wrote no output file")
    if path.stat().st_size > MAX_OUTPUT_BYTES:
        raise InteropError(f"the output file is larger than {MAX_OUTPUT_BYTES >> 20} MB")
    return read_prediction(path, columns)


def matrix_output(folder: Path, columns: list[str], encoding: str) -> MixedGraph:
    """The graph a Python method returned (``output.npy`` and ``labels.json`` of its process).

    A labelled DataFrame is matched to the columns by name (rows too, when they are labelled
    with the same names); an unlabelled matrix must be in the table's column order.
    """
    matrix = np.load(folder / "output.npy", allow_pickle=False)
    labels = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
    names, rows = labels.get("columns"), labels.get("index")
    if names is not None and rows is not None and rows != names and sorted(rows) == sorted(names):
        matrix = matrix[[rows.index(n) for n in names]]
    return liberal(matrix_marks(matrix, names, columns, encoding))


def _write_prediction(graph: MixedGraph, final: Path) -> None:
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.with_name(f".tmp-{os.getpid()}-{final.name}")
    edges = pd.DataFrame(list(graph.edges()), columns=["source", "target", "type"])
    edges.to_csv(tmp, index=False, lineterminator="\n")
    os.replace(tmp, final)


def _execute(task: RowTask, scratch: Path) -> RowOutcome:
    columns, paths = _inputs(task, scratch)
    method = task.method
    if method.kind == "command":
        argv = command_argv(method.target, paths)
    else:
        request = {"kind": method.kind, "target": method.target, "params": method.params,
                   "data": paths["data"], "mask": paths["mask"], "meta": paths["meta"],
                   "folder": str(scratch)}
        (scratch / "request.json").write_text(json.dumps(request), encoding="utf-8")
        argv = [sys.executable, "-m", "scmspec.evaluation.child", str(scratch / "request.json")]
    timed_out, code, elapsed, stderr = _run_process(argv, task.budget, scratch)
    if timed_out:
        return RowOutcome("timed_out", elapsed, f"still running after the {task.budget:g} s "
                          "budget; killed")
    seconds = None
    try:
        if method.kind == "command":
            if code != 0:
                return RowOutcome("failed", elapsed,
                                  f"exit code {code}: {stderr or '(no error output)'}")
            graph = _read_output(Path(paths["out"]), columns)
        else:
            result_path = scratch / "result.json"
            if not result_path.is_file():
                return RowOutcome("failed", elapsed, f"the method's process exited with code "
                                  f"{code} before reporting: {stderr or '(no error output)'}")
            result = json.loads(result_path.read_text(encoding="utf-8"))
            seconds = result.get("seconds")
            if result["status"] != "ok":
                error = (result.get("error") or "") + ("\n" + result["traceback"]
                                                       if result.get("traceback") else "")
                return RowOutcome(result["status"], elapsed, error[-ERROR_CHARS:], seconds)
            graph = matrix_output(scratch, columns, method.encoding)
    except InteropError as exc:
        return RowOutcome("invalid_output", elapsed, exc.message, seconds)
    _write_prediction(graph, task.runs / task.key.prediction)
    return RowOutcome("ok", elapsed, None, seconds)


def run_row(task: RowTask) -> RowOutcome:
    """Run one row under its budget; every outcome is a :class:`RowOutcome`, never an error."""
    scratch = Path(tempfile.mkdtemp(prefix="scmspec-row-"))
    try:
        return _execute(task, scratch)
    except OSError as exc:  # the program could not start, the disk is full, ...
        return RowOutcome("failed", 0.0, f"{type(exc).__name__}: {exc}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
