"""``scmspec compile PATH... --out DIR``: cards to datasets, specs and a manifest."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from scmspec.build import ProtocolOverrides, build
from scmspec.cli.common import echo, print_diagnostics


def compile_command(
    paths: Annotated[list[Path], typer.Argument(help="card files or folders (recursive)")],
    out: Annotated[Path, typer.Option("--out", "-o", help="output folder")] = Path("data"),
    seed: Annotated[Optional[int], typer.Option(help="override every card's seed")] = None,
    n_obs: Annotated[Optional[int], typer.Option(help="rows of the obs split")] = None,
    n_int_obs: Annotated[Optional[int], typer.Option(help="observational rows of obs+int")] = None,
    n_int: Annotated[Optional[int], typer.Option(help="interventional rows of obs+int")] = None,
    replicates: Annotated[Optional[int], typer.Option(help="replicates per card")] = None,
    gates: Annotated[bool, typer.Option(help="run the release gates")] = True,
) -> None:
    """Compile cards and write one dataset per SCM plus data/manifest.json."""
    missing = [p for p in paths if not p.exists()]
    if missing:
        raise typer.BadParameter(f"no such file or folder: {', '.join(map(str, missing))}")
    overrides = ProtocolOverrides(seed, n_obs, n_int_obs, n_int, replicates)
    results = build(paths, out, overrides, run_gate_checks=gates)
    for r in results:
        print_diagnostics(r.diagnostics, r.source_lines)
        failed = [g for g in r.gates if g.blocking_failure]
        for g in failed:
            echo(f"  gate {g.gate} failed: {g.detail}" + (f" ({g.location})" if g.location else ""))
        echo(f"{r.status:9} {r.id or '-':40} {r.path}")
    bad = sum(r.status != "released" for r in results)
    echo(f"{len(results) - bad} released, {bad} not released; manifest: {out / 'manifest.json'}")
    if bad or not results:
        raise typer.Exit(1)
