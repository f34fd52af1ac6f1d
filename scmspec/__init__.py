"""scmspec: a declarative compiler for structural causal models.

Public API:
    load(path) -> LoadedCard          read and validate a card file
    compile(card) -> SCM              resolve, unit-check and lower it
    compile_file(path) -> SCM         both at once
    compile_text(text) -> SCM         from a YAML string
    load_spec(path) -> SCM            rebuild an SCM from a compiled spec.json
"""

from __future__ import annotations

from scmspec.api import LoadedCard, compile, compile_file, compile_text, load, load_spec
from scmspec.errors import CardError, Diagnostic, ScmspecError, Span
from scmspec.samplers.scm import SCM, InterventionalData
from scmspec.version import __version__

__all__ = [
    "SCM", "CardError", "Diagnostic", "InterventionalData", "LoadedCard", "ScmspecError", "Span",
    "__version__", "compile", "compile_file", "compile_text", "load", "load_spec",
]
