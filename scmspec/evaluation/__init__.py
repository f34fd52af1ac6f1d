"""Evaluation runs: a method on every SCM x split x replicate of a release package.

Public API:
    evaluate(pkg, method, runs, options)   ``scmspec evaluate``; resumable, parallel, scored
    resolve_method(method, command, ...)   a built-in, ``module:function`` or a command
    EvalOptions, EvalReport, Method, MethodError, RunFolderError, RowKey, STATUSES, EXECUTORS
    BUILTINS                               the built-in wrappers and their recorded defaults
    read_run(runs), read_records(runs)     a run folder's run.json and row records
    random_regress(x, seed)                the random-order regression control

Names load on first use (PEP 562), so the process a row runs in
(:mod:`scmspec.evaluation.child`) imports its few modules and not the release and build code.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scmspec.evaluation.builtins import BUILTINS
    from scmspec.evaluation.driver import EXECUTORS, EvalOptions, EvalReport, evaluate
    from scmspec.evaluation.methods import Method, MethodError, resolve_method
    from scmspec.evaluation.random_regress import random_regress
    from scmspec.evaluation.runner import STATUSES, RowKey
    from scmspec.evaluation.store import RunFolderError, read_records, read_run

_EXPORTS = {
    "BUILTINS": "builtins", "EXECUTORS": "driver", "EvalOptions": "driver",
    "EvalReport": "driver", "evaluate": "driver", "Method": "methods",
    "MethodError": "methods", "resolve_method": "methods", "random_regress": "random_regress",
    "STATUSES": "runner", "RowKey": "runner", "RunFolderError": "store",
    "read_records": "store", "read_run": "store",
}
__all__ = [
    "BUILTINS", "EXECUTORS", "STATUSES", "EvalOptions", "EvalReport", "Method", "MethodError",
    "RowKey", "RunFolderError", "evaluate", "random_regress", "read_records", "read_run",
    "resolve_method",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'scmspec.evaluation' has no attribute {name!r}")
    return getattr(importlib.import_module(f"scmspec.evaluation.{module}"), name)
