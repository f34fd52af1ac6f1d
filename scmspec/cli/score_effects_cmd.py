"""``scmspec score-effects PRED --truth DATA_DIR/ID`` or ``--pool DATA_DIR --preds DIR``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from scmspec.cli.common import echo

Opt = typer.Option


def score_effects_command(
    pred: Annotated[Path | None, typer.Argument(help="predicted effects (CSV)",
                                                exists=True)] = None,
    truth: Annotated[Path | None, Opt("--truth", help="compiled SCM folder DATA_DIR/ID",
                                      exists=True)] = None,
    pool: Annotated[Path | None, Opt("--pool", help="compiled pool DATA_DIR", exists=True)] = None,
    preds: Annotated[Path | None, Opt("--preds", help="folder of <id>.csv predictions",
                                      exists=True)] = None,
    by: Annotated[list[str] | None, Opt("--by", help="metadata key to slice by")] = None,
    as_json: Annotated[bool, Opt("--json", help="print JSON")] = False,
    rows: Annotated[Path | None, Opt("--rows", help="write per-prediction rows (CSV)")] = None,
) -> None:
    """Absolute and relative error, interval coverage and sign accuracy (docs/effects.md)."""
    from scmspec.interop.graphs import InteropError
    from scmspec.scoring.effects import score_effects_file, score_effects_pool
    from scmspec.scoring.pool import json_records
    from scmspec.scoring.report import effects_pool_report, effects_report
    if (pred is None or truth is None) == (pool is None or preds is None):
        raise typer.BadParameter("give PRED --truth DATA_DIR/ID, or --pool DATA_DIR --preds DIR")
    try:
        if pool is not None and preds is not None:
            scored, scms, groups = score_effects_pool(pool, preds, by or [])
            if rows:
                scored.to_csv(rows, index=False, lineterminator="\n")
            doc = {"by": by or [], "groups": json_records(groups), "scms": json_records(scms)}
            echo(json.dumps(doc, indent=2) if as_json else effects_pool_report(groups, by or []))
        else:
            summary, scored = score_effects_file(pred, truth)  # type: ignore[arg-type]
            if rows:
                scored.to_csv(rows, index=False, lineterminator="\n")
            echo(json.dumps(summary, indent=2) if as_json else effects_report(summary))
    except InteropError as exc:
        typer.echo(exc.render(), err=True)
        raise typer.Exit(1) from None
