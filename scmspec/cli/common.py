"""Shared CLI helpers: printing diagnostics with their source lines."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import typer

from scmspec.errors import Diagnostic, render_diagnostic

if TYPE_CHECKING:  # the build loads the compiler: imported when a command runs, not for --help
    from scmspec.build.cards import ProtocolOverrides


def print_diagnostics(diagnostics: Sequence[Diagnostic], lines: Sequence[str]) -> None:
    for d in diagnostics:
        typer.echo(render_diagnostic(d, lines), err=True)


def echo(text: str) -> None:
    typer.echo(text)


def is_tty() -> bool:
    return sys.stdout.isatty()


def protocol_overrides(seed: int | None, n_obs: int | None, n_int_obs: int | None,
                       n_int: int | None, replicates: int | None) -> ProtocolOverrides:
    """The protocol flags, checked by the card's own protocol model (usage error: exit 2)."""
    from scmspec.build.cards import OverrideError, ProtocolOverrides

    try:
        return ProtocolOverrides(seed, n_obs, n_int_obs, n_int, replicates)
    except OverrideError as exc:
        raise typer.BadParameter(str(exc)) from None
