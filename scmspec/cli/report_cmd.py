"""``scmspec report DATA_DIR --out SITE_DIR``: a static HTML catalogue of compiled SCMs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scmspec.cli.common import echo


def report_command(
    data_dir: Annotated[Path, typer.Argument(help="folder written by `scmspec compile`",
                                             exists=True)],
    out: Annotated[Path, typer.Option("--out", "-o", help="site folder")] = Path("site"),
) -> None:
    """Build an offline HTML catalogue: index table, one page per SCM, figures and plots."""
    from scmspec.render.graphviz import GraphvizNotFound
    from scmspec.render.report import ReportInputError, build_report
    try:
        result = build_report(data_dir, out)
    except (GraphvizNotFound, ReportInputError) as exc:
        typer.echo(f"scmspec report: {exc.message}", err=True)
        raise typer.Exit(1) from None
    for name, why in result.without_page.items():
        echo(f"no page   {name}: {why}")
    echo(f"{len(result.pages)} SCM pages; open {result.index}")
