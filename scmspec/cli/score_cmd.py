"""``scmspec score PRED --truth DATA_DIR/ID`` or ``scmspec score --pool DATA_DIR --preds DIR``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import typer

from scmspec.cli.common import echo

Opt = typer.Option


def score_command(
    pred: Annotated[Path | None, typer.Argument(help="predicted graph file", exists=True)] = None,
    truth: Annotated[Path | None, Opt("--truth", help="compiled SCM folder DATA_DIR/ID",
                                      exists=True)] = None,
    pool: Annotated[Path | None, Opt("--pool", help="compiled pool DATA_DIR", exists=True)] = None,
    preds: Annotated[Path | None, Opt("--preds", help="<id>.csv or <id>/rep-<r>.csv",
                                      exists=True)] = None,
    target: Annotated[Literal["dag", "cpdag", "skeleton", "admg", "mag", "pag"], Opt(
        help="the true graph to compare with")] = "dag",
    convention: Annotated[Literal["scmspec", "causal-learn", "gcastle", "cdt"], Opt(
        help="whose SHD / precision / recall / F1 definitions")] = "scmspec",
    by: Annotated[list[str] | None, Opt("--by", help="metadata key to slice by")] = None,
    as_json: Annotated[bool, Opt("--json", help="print JSON")] = False,
    encoding: Annotated[Literal["auto", "adjacency", "causallearn", "weighted"], Opt(
        help="how a matrix file is read")] = "auto",
    threshold: Annotated[float, Opt(help="|w| > threshold is an edge (weighted)")] = 0.5,
    seed: Annotated[int, Opt(help="base seed of the random orientation")] = 0,
    missing: Annotated[Literal["skip", "empty"], Opt(
        help="skip: count only; empty: also score as no edges")] = "skip",
    rows: Annotated[Path | None, Opt("--rows", help="write per-prediction rows (CSV)")] = None,
) -> None:
    """Precision, recall, F1, SHD, nSHD, skeleton F1, SID, endpoint F1; see docs/scoring.md."""
    from scmspec.interop.graphs import InteropError
    from scmspec.scoring.pool import ScoreOptions, score_file, score_pool
    from scmspec.scoring.report import pool_report, single_report
    from scmspec.scoring.targets import check_options
    if (pred is None or truth is None) == (pool is None or preds is None):
        raise typer.BadParameter("give PRED --truth DATA_DIR/ID, or --pool DATA_DIR --preds DIR")
    options = ScoreOptions(target, encoding, threshold, seed, missing, convention=convention)
    try:
        check_options(target, convention)
    except InteropError as exc:
        raise typer.BadParameter(exc.render().removeprefix("error: ")) from None
    try:
        if pool is not None and preds is not None:
            result = score_pool(pool, preds, options, by or [])
            if rows:
                result.rows.to_csv(rows, index=False, lineterminator="\n")
            doc = {"target": target, "convention": convention, **result.to_json()}
            echo(json.dumps(doc, indent=2) if as_json else pool_report(result))
        else:
            metrics = score_file(pred, truth, options)  # type: ignore[arg-type]
            echo(json.dumps(metrics, indent=2) if as_json else single_report(metrics))
    except InteropError as exc:
        typer.echo(exc.render(), err=True)
        raise typer.Exit(1) from None
