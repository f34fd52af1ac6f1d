"""``scmspec schema [--out FILE]``: the card language's JSON Schema, for editors."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def schema_command(
    out: Annotated[Path | None, typer.Option("--out", "-o", help="write to FILE")] = None,
) -> None:
    """Print (or write) the JSON Schema of cards; docs/card.schema.json is its committed copy."""
    from scmspec.compiler.validate import export_schema
    text = export_schema()
    if out is None:
        typer.echo(text, nl=False)
        return
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:  # a folder in the way, no permission: the user's to fix
        typer.echo(f"scmspec schema: cannot write {out}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1) from None
