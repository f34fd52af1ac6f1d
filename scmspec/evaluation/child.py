"""The process one row of a built-in or Python method runs in: ``python -m
scmspec.evaluation.child REQUEST.json``.

Each row gets a fresh process in its own session, so the parent can kill it, and anything it
started, when the budget runs out; a crash or a leak in one row cannot touch another. The
process stays small on purpose (numpy, pandas, the wrapper): it calls the method and saves
what it returned as ``output.npy`` (a float matrix) plus ``labels.json`` (the DataFrame's
column and row labels, if any), then writes ``result.json``: ``ok``, ``failed`` (the method
raised: type, message, the end of the traceback) or ``invalid_output`` (not a numeric
matrix). Reading the matrix as a graph over the table's columns is the parent's job
(:mod:`scmspec.evaluation.runner`). If this process dies first, the parent records ``failed``.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

TRACEBACK_LINES = 12


def load_function(target: str) -> Callable[..., Any]:
    """The callable named ``module:function`` or ``path/file.py:function``."""
    module_name, _, function = target.rpartition(":")
    if module_name.endswith(".py"):
        spec = importlib.util.spec_from_file_location(Path(module_name).stem, module_name)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {module_name}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(module_name)
    fn = getattr(module, function)
    if not callable(fn):
        raise TypeError(f"{target} is not callable")
    return fn  # type: ignore[no-any-return]


def _call(request: dict[str, Any], data: pd.DataFrame, mask: pd.DataFrame,
          meta: dict[str, Any]) -> Any:
    if request["kind"] == "builtin":
        from scmspec.evaluation.builtins import BUILTINS, call_params

        builtin = BUILTINS[request["target"]]
        return builtin.fn(data, mask, meta, **call_params(builtin, request["params"]))
    return load_function(request["target"])(data, mask, meta, **request["params"])


def save_output(value: Any, folder: Path) -> None:
    """The return value as ``output.npy`` and ``labels.json`` (raises if it is not numeric)."""
    labels: dict[str, list[str] | None] = {"columns": None, "index": None}
    if isinstance(value, pd.DataFrame):
        labels = {"columns": [str(c) for c in value.columns],
                  "index": [str(i) for i in value.index]}
        value = value.to_numpy()
    matrix = np.asarray(value, dtype=float)
    np.save(folder / "output.npy", matrix, allow_pickle=False)
    (folder / "labels.json").write_text(json.dumps(labels), encoding="utf-8")


def run(request: dict[str, Any]) -> dict[str, Any]:
    """Run one row as ``request`` says; the result record (never raises for a method's error)."""
    data = pd.read_csv(request["data"])
    mask = pd.read_csv(request["mask"])
    meta = json.loads(Path(request["meta"]).read_text(encoding="utf-8"))
    start = time.perf_counter()
    try:
        value = _call(request, data, mask, meta)
    except BaseException as exc:  # noqa: BLE001 - the method's failure is this row's result
        lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
        tail = "".join(lines)[-4000:].splitlines()[-TRACEBACK_LINES:]
        return {"status": "failed", "seconds": time.perf_counter() - start,
                "error": f"{type(exc).__name__}: {exc}", "traceback": "\n".join(tail)}
    seconds = time.perf_counter() - start
    try:
        save_output(value, Path(request["folder"]))
    except (ValueError, TypeError) as exc:
        return {"status": "invalid_output", "seconds": seconds,
                "error": f"the method returned {type(value).__name__}, not a numeric "
                         f"matrix ({exc})"}
    return {"status": "ok", "seconds": seconds, "error": None}


def main(argv: list[str]) -> int:
    request = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    result = run(request)
    Path(request["folder"], "result.json").write_text(json.dumps(result) + "\n",
                                                      encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
