"""``scmspec synth GRID --out DIR``: expand a grid card into one synthetic card per SCM."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scmspec.cli.common import echo, print_diagnostics
from scmspec.errors import CardError


def synth_command(
    grid: Annotated[Path, typer.Argument(help="a grid card (*.grid.yaml)", exists=True,
                                         dir_okay=False)],
    out: Annotated[Path, typer.Option("--out", "-o", help="folder for the expanded cards")],
    select: Annotated[str | None, typer.Option(
        help="a slice, e.g. 'graph=collider_rich,d=30' (docs/synthetic.md)")] = None,
    materialize: Annotated[bool, typer.Option(
        help="write fully materialised cards (every parameter) instead of factor cards")] = False,
) -> None:
    """Write each configuration of a grid card as its own YAML card (frozen, regenerable)."""
    from scmspec.synthetic.grid.writer import write_cards
    try:
        written, failed = write_cards(grid, out, select, materialize)
    except CardError as exc:
        print_diagnostics(exc.diagnostics, grid.read_text(encoding="utf-8").splitlines())
        raise typer.Exit(1) from None
    for card_id, error in failed:
        echo(f"failed    {card_id}")
        print_diagnostics(error.diagnostics, [])
    echo(f"{len(written)} cards written to {out}" + (f", {len(failed)} failed" if failed else ""))
    if failed or not written:
        raise typer.Exit(1)
