"""Shared CLI helpers: printing diagnostics with their source lines."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import typer

from scmspec.errors import Diagnostic, render_diagnostic


def print_diagnostics(diagnostics: Sequence[Diagnostic], lines: Sequence[str]) -> None:
    for d in diagnostics:
        typer.echo(render_diagnostic(d, lines), err=True)


def echo(text: str) -> None:
    typer.echo(text)


def is_tty() -> bool:
    return sys.stdout.isatty()
