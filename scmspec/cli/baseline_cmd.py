"""``scmspec baseline DATA_DIR --method pc|ges --out PRED_DIR``: reference runs via causal-learn."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from scmspec.cli.common import echo

Opt = typer.Option


def baseline_command(
    data_dir: Annotated[Path, typer.Argument(help="compiled pool (with manifest.json) or one SCM",
                                             exists=True)],
    out: Annotated[Path, Opt("--out", "-o", help="prediction folder for scmspec score --preds")],
    method: Annotated[Literal["pc", "ges"], Opt(help="causal-learn method")] = "pc",
    test: Annotated[Literal["fisherz", "kci"], Opt(help="PC independence test")] = "fisherz",
    alpha: Annotated[float, Opt(help="PC significance level")] = 0.05,
    split: Annotated[Literal["obs", "obsint"], Opt(help="obsint pools obs and int rows")] = "obs",
    max_rows: Annotated[int | None, Opt(help="use only the first N rows (KCI is O(n^3))")] = None,
) -> None:
    """Run PC or GES (causal-learn) on every replicate; write <id>/rep-<r>.csv predictions."""
    from scmspec.interop.graphs import InteropError
    from scmspec.scoring.baselines import BaselineOptions, run_baselines
    try:
        runs = run_baselines(data_dir, out, BaselineOptions(method, test, alpha, split, max_rows))
    except InteropError as exc:
        typer.echo(exc.render(), err=True)
        raise typer.Exit(1) from None
    for r in runs:
        detail = f" {r.detail}" if r.detail else ""
        echo(f"{r.status:7} {r.id}/{r.replicate} {r.seconds:.2f}s{detail}")
    failed = sum(r.status != "ok" for r in runs)
    echo(f"{len(runs) - failed} runs ok, {failed} failed; predictions in {out}; "
         f"log {out / 'baseline.json'}")
