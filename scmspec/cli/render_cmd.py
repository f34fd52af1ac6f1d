"""``scmspec render CARD_OR_DIR [-o FILE] [--format svg|png|pdf]``: draw cards' causal graphs."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from scmspec.cli.common import echo, print_diagnostics


class FigureFormat(str, Enum):
    svg = "svg"
    png = "png"
    pdf = "pdf"
    dot = "dot"


OUT_HELP = ("figure file (one card; its suffix .svg/.png/.pdf/.dot sets the format), or folder "
            "(a folder of cards; default figures/)")


def render_command(
    path: Annotated[Path, typer.Argument(help="a card file, or a folder of cards", exists=True)],
    out: Annotated[Path | None, typer.Option("--out", "-o", help=OUT_HELP)] = None,
    fmt: Annotated[FigureFormat | None, typer.Option(
        "--format", "-f", help="default: the suffix of -o, else svg")] = None,
    edge_labels: Annotated[bool, typer.Option(help="label edges with mechanism families")] = False,
) -> None:
    """Draw each card's graph: roles, latent and intervenable nodes, selection, units, legend."""
    from scmspec.render.figures import FigureFormatError, figure_format, render_paths
    from scmspec.render.graphviz import GraphvizNotFound
    try:
        chosen = figure_format(out, fmt.value if fmt else None, path.is_dir())
    except FigureFormatError as exc:
        raise typer.BadParameter(exc.message, param_hint="'--out' / '--format'") from None
    try:
        results = render_paths(path, out, chosen, edge_labels)
    except GraphvizNotFound as exc:
        typer.echo(f"scmspec render: {exc.message}", err=True)
        raise typer.Exit(1) from None
    for r in results:
        print_diagnostics(r.diagnostics, r.source_lines)
        echo(f"wrote {r.figure}" if r.figure else f"failed  {r.card}")
    if not results or any(r.figure is None for r in results):
        raise typer.Exit(1)
