"""Help text people can read: ``PATHS...`` rather than ``{paths}...``, no ``<bool>`` after flags.

typer 0.29 prints a required argument in the usage line as ``{paths}...`` and every type in
angle brackets (``<bool>`` after ``--help`` and each flag, ``<list[Path]>``, ``<str>``).
:class:`HelpCommand` and :class:`HelpGroup` keep typer's layout and change only the
placeholders: arguments in capitals (``[OPTIONS] PATHS...``, ``[PRED]`` when optional),
flags without a type, and click's names for values (``PATH``, ``INTEGER``, ``FLOAT``,
``TEXT``, or the choices ``svg|png|pdf|dot``). :class:`App` makes every command use them, so
a command added later gets them too (``tests/cli/test_exit_codes.py`` checks every command's
help).
"""

from __future__ import annotations

from collections.abc import Callable
from types import MethodType
from typing import Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup

_WORDS = {"int": "INTEGER", "int range": "INTEGER", "float": "FLOAT", "float range": "FLOAT",
          "str": "TEXT", "path": "PATH", "Path": "PATH", "file": "FILE", "bool": "BOOLEAN"}


def value_label(param: Any, ctx: Any) -> str | None:
    """The placeholder of one parameter's value (None for a flag).

    Example:
        >>> import typer
        >>> from typer.testing import CliRunner
        >>> app = App()
        >>> @app.command()
        ... def go(n: int = 1, fast: bool = False) -> None: ...
        >>> out = CliRunner().invoke(app, ["--help"], terminal_width=80).output
        >>> "INTEGER" in out and "<bool>" not in out and "<int>" not in out
        True
    """
    if getattr(param, "is_flag", False):
        return None
    if param.param_type_name == "option" and param.metavar is not None:
        return str(param.metavar)
    raw = param.display_type(ctx)
    if not raw:
        return None
    inner = raw.strip("<>")
    many = inner.startswith("list[")
    inner = inner.removeprefix("list[").removesuffix("]")
    label = inner if "|" in inner else _WORDS.get(inner, inner.upper())
    return label + ("..." if many and param.param_type_name == "argument" else "")


def usage_name(param: TyperArgument) -> str:
    """``PATHS...`` for a required list argument, ``[PRED]`` for an optional one."""
    name = str(param.metavar or param.name).upper() + ("..." if param.nargs != 1 else "")
    return name if param.required else f"[{name}]"


def _clean(params: list[Any]) -> list[Any]:
    """Patch each parameter once: its value placeholder, and an argument's name in capitals
    (also in error messages: "Invalid value for 'DATA_DIR'")."""
    for p in params:
        if not getattr(p, "_scmspec_help", False):
            p.display_type_rich = MethodType(value_label, p)
            if isinstance(p, TyperArgument) and p.metavar is None and p.name:
                p.metavar = p.name.upper()
            p._scmspec_help = True
    return params


class HelpCommand(TyperCommand):
    """A typer command with readable placeholders (module docstring)."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _clean(super().get_params(ctx))

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        return pieces + [usage_name(p) for p in self.get_params(ctx)
                         if isinstance(p, TyperArgument)]


class HelpGroup(TyperGroup):
    """The command group (``scmspec --help``) with the same placeholders."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _clean(super().get_params(ctx))


class App(typer.Typer):
    """A Typer app whose commands default to :class:`HelpCommand`."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cls", HelpGroup)
        super().__init__(**kwargs)

    # Forwards every keyword unchanged; only the default of ``cls`` differs.
    def command(self, name: str | None = None, *,  # type: ignore[override]
                cls: type[TyperCommand] | None = None,
                **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return super().command(name, cls=cls or HelpCommand, **kwargs)
