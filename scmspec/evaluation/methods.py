"""Which method a run evaluates: a built-in, a Python entry point, or a command.

* ``--method pc`` (``ges``, ``fci``, ``lingam``, ``notears``, ``random_regress``): a built-in
  wrapper (:mod:`scmspec.evaluation.builtins`), its defaults recorded.
* ``--method package.module:function`` or ``--method path/to/file.py:function``: a Python
  function ``function(data, mask, meta) -> adjacency`` (a d x d array or a labelled
  DataFrame; row -> column; a pair set both ways is undirected; causal-learn endpoint
  matrices are recognised).
* ``--command 'python fit.py {data} {out}'``: a program run once per row. Placeholders:
  ``{data}`` (CSV of the table), ``{mask}`` (CSV, 1 where a cell was intervened), ``{meta}``
  (JSON), ``{out}`` (where to write the adjacency CSV), ``{seed}``. It is split like a shell
  line but run without a shell.

Mistakes (an unknown built-in, a missing library, module or program) are found here, before
any row runs, and reported as :class:`MethodError` with a hint.
"""

from __future__ import annotations

import difflib
import importlib.util
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scmspec.evaluation.builtins import BUILTINS, library_version, missing_modules
from scmspec.interop.graphs import InteropError

KINDS = ("builtin", "python", "command")
PLACEHOLDERS = ("{data}", "{mask}", "{meta}", "{out}", "{seed}")


class MethodError(InteropError):
    """The method cannot be run as given (message and hint)."""


@dataclass(frozen=True)
class Method:
    """A method as a run records it (``run.json``) and rows execute it."""

    name: str
    kind: str
    target: str
    output: str = "dag"
    encoding: str = "auto"
    params: dict[str, Any] = field(default_factory=dict)
    library: str | None = None

    def record(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "target": self.target,
                "output": self.output, "params": self.params, "library": self.library}

    def identity(self) -> dict[str, Any]:
        """What must match for a run folder to be resumed with this method."""
        return {k: v for k, v in self.record().items() if k != "library"}


def resolve_method(method: str | None, command: str | None, name: str | None = None,
                   params: dict[str, Any] | None = None, output: str = "dag") -> Method:
    """The :class:`Method` for the command-line options (exactly one of method and command).

    Example:
        >>> m = resolve_method("random_regress", None)
        >>> m.kind, m.output, m.params["alpha"]
        ('builtin', 'dag', 0.1)
    """
    params = dict(params or {})
    if (method is None) == (command is None):
        raise MethodError("give exactly one of --method and --command")
    if command is not None:
        return _command(command, name, output, params)
    assert method is not None
    if ":" in method:
        return _entry_point(method, name, output, params)
    if method not in BUILTINS:
        guess = difflib.get_close_matches(method, BUILTINS, n=1)
        raise MethodError(f"unknown method {method!r}", (f"did you mean {guess[0]!r}? " if guess
                                                         else "") + "built-ins: "
                          + ", ".join(BUILTINS) + "; or module:function, or --command")
    builtin = BUILTINS[method]
    missing = missing_modules(builtin)
    if missing:
        raise MethodError(f"{method} needs {', '.join(missing)}, which is not installed",
                          builtin.install)
    unknown = sorted(set(params) - set(builtin.defaults))
    if unknown:
        raise MethodError(f"{method} has no parameter {', '.join(unknown)}",
                          f"its parameters: {', '.join(builtin.defaults)}")
    return Method(name or method, "builtin", method, builtin.output, builtin.encoding,
                  {**builtin.defaults, **params}, library_version(builtin))


def _entry_point(target: str, name: str | None, output: str, params: dict[str, Any]) -> Method:
    module, _, function = target.rpartition(":")
    if not module or not function.isidentifier():
        raise MethodError(f"--method {target!r} is not module:function",
                          "e.g. mypackage.discover:fit or methods/fit.py:fit")
    if module.endswith(".py"):
        if not Path(module).is_file():
            raise MethodError(f"no file {module}", "paths are relative to where you run scmspec")
    else:
        try:
            found = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            found = None
        if found is None:
            raise MethodError(f"cannot import {module!r}", "install it, or run scmspec from "
                              "the folder that holds it (the working folder is on sys.path)")
    return Method(name or target, "python", target, output, "auto", params)


def _command(template: str, name: str | None, output: str, params: dict[str, Any]) -> Method:
    try:
        argv = shlex.split(template)
    except ValueError as exc:
        raise MethodError(f"cannot split --command ({exc})") from None
    if not argv:
        raise MethodError("--command is empty")
    if "{out}" not in template or "{data}" not in template:
        raise MethodError("--command must name {data} and {out}",
                          "e.g. --command 'python fit.py {data} {out}'")
    if shutil.which(argv[0]) is None and not Path(argv[0]).is_file():
        raise MethodError(f"program {argv[0]!r} not found", "give a program on PATH or a path")
    if params:
        raise MethodError("--param is for built-ins and Python methods",
                          "pass a command's options in the command itself")
    return Method(name or Path(argv[0]).name + (f" {argv[1]}" if len(argv) > 1 else ""),
                  "command", template, output, "auto")


def command_argv(template: str, values: dict[str, str]) -> list[str]:
    """The command line of one row: placeholders replaced inside each word, no shell.

    Example:
        >>> command_argv("python fit.py {data} --out={out}", {"data": "d.csv", "out": "o.csv"})
        ['python', 'fit.py', 'd.csv', '--out=o.csv']
    """
    words = []
    for word in shlex.split(template):
        for key, value in values.items():
            word = word.replace("{" + key + "}", value)
        words.append(word)
    return words
