"""``scmspec leaderboard RUNS... --out SITE``: compare methods' runs on one release."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scmspec.cli.common import echo


def leaderboard_command(
    runs: Annotated[list[Path], typer.Argument(help="run folders (scmspec evaluate --out)",
                                                     exists=True)],
    out: Annotated[Path, typer.Option("--out", "-o", help="site folder")] = Path("leaderboard"),
) -> None:
    """Scores per slice, pairwise win rates and figures in an offline HTML site."""
    from scmspec.interop.graphs import InteropError
    from scmspec.leaderboard import build_leaderboard
    try:
        board = build_leaderboard(runs, out)
    except InteropError as exc:
        typer.echo(exc.render(), err=True)
        raise typer.Exit(1) from None
    for r in board.runs:
        echo(f"{r['name']:20} {r['rows']:5} rows: {r['ok']} ok, {r['failed']} failed, "
             f"{r['timed_out']} timed out, {r['invalid_output']} invalid, "
             f"{r['unscored']} unscored")
    echo(f"leaderboard of release {board.version}: {out / 'index.html'}")
