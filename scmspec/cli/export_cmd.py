"""``scmspec export DATA_DIR --to FORMAT [--out DIR]``: graphs and data for other toolkits."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scmspec.cli.common import echo

# interop.export.EXPORT_FORMATS, spelt out so that --help does not import pandas and
# networkx (tests/cli checks that the two agree).
FORMAT_NAMES = ("adjacency", "networkx", "gml", "graphml", "dot", "bnlearn", "csv", "parquet",
                "causal-learn", "gcastle", "dowhy")


def export_command(
    data_dir: Annotated[Path, typer.Argument(help="compiled pool (with manifest.json) or one SCM",
                                             exists=True)],
    to: Annotated[list[str], typer.Option("--to", help=f"{', '.join(FORMAT_NAMES)} or all "
                                          "(repeat for several)")],
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="output folder [default: DATA_DIR-export beside DATA_DIR]")] = None,
) -> None:
    """Export ground-truth graphs (DAG, CPDAG, full DAG, ADMG, MAG, PAG) and data; see
    docs/interop.md."""
    from scmspec.interop.export import expand_formats, export
    from scmspec.interop.graphs import InteropError
    try:
        expand_formats(to)
    except InteropError as exc:
        raise typer.BadParameter(exc.render().removeprefix("error: ")) from None
    target = out or data_dir.parent / f"{data_dir.resolve().name}-export"
    try:
        results = export(data_dir, to, target)
    except InteropError as exc:
        typer.echo(exc.render(), err=True)
        raise typer.Exit(1) from None
    for r in results:
        skipped = f"; skipped {len(r.skipped)} (see export.json)" if r.skipped else ""
        echo(f"{r.id:40} {len(r.files)} files{skipped}")
    echo(f"exported {len(results)} SCMs to {target}")
