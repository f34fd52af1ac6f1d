"""``scmspec episodes LOGS --out SITE``: a report of episode logs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scmspec.cli.common import echo


def episodes_command(
    logs: Annotated[list[Path], typer.Argument(help="episode logs (*.jsonl) or folders",
                                                     exists=True)],
    out: Annotated[Path, typer.Option("--out", "-o", help="site folder")] = Path("episodes-site"),
) -> None:
    """Queries over time, budget used, scores, finished and truncated rates per SCM."""
    from scmspec.environment.config import EnvironmentError
    from scmspec.environment.report import episodes_report

    try:
        summary = episodes_report(logs, out)
    except EnvironmentError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(1) from None
    for r in summary.to_dict("records"):
        echo(f"{r['scm']:32} {r['episodes']:4} episodes, {r['finished']} finished, "
             f"truncated {r['truncated_rate']:.0%}")
    echo(f"report: {out / 'index.html'}")
