"""scmspec: a declarative compiler for structural causal models.

Public API:
    load(path) -> LoadedCard          read and validate a card file
    compile(card) -> SCM              resolve, unit-check and lower it
    compile_file(path) -> SCM         both at once
    compile_text(text) -> SCM         from a YAML string
    load_spec(path) -> SCM            rebuild an SCM from a compiled spec.json
    Environment.open(path) -> Environment   a sealed SCM an agent queries under a budget

The names are loaded on first use (PEP 562): importing any ``scmspec.<module>`` runs this
file first, and the compiler behind the API (sympy, pint, scipy) takes seconds to import.
A process that needs one small module, such as the process an evaluation row runs in
(``scmspec.evaluation.child``), should not pay for it.
"""

from __future__ import annotations

from scmspec.kernels import choose_kernels

choose_kernels()  # before anything imports numpy: portable kernels (scmspec.kernels says why)

import importlib  # noqa: E402
from typing import TYPE_CHECKING, Any  # noqa: E402

from scmspec.version import __version__  # noqa: E402

if TYPE_CHECKING:
    from scmspec.api import LoadedCard, compile, compile_file, compile_text, load, load_spec
    from scmspec.environment import Environment
    from scmspec.errors import CardError, Diagnostic, ScmspecError, Span
    from scmspec.samplers.scm import SCM, InterventionalData

_EXPORTS = {
    "LoadedCard": "scmspec.api", "compile": "scmspec.api", "compile_file": "scmspec.api",
    "compile_text": "scmspec.api", "load": "scmspec.api", "load_spec": "scmspec.api",
    "CardError": "scmspec.errors", "Diagnostic": "scmspec.errors",
    "ScmspecError": "scmspec.errors", "Span": "scmspec.errors",
    "SCM": "scmspec.samplers.scm", "InterventionalData": "scmspec.samplers.scm",
    "Environment": "scmspec.environment",
}

__all__ = [
    "SCM", "CardError", "Diagnostic", "Environment", "InterventionalData", "LoadedCard",
    "ScmspecError", "Span", "__version__", "compile", "compile_file", "compile_text", "load",
    "load_spec",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'scmspec' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups are ordinary attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
