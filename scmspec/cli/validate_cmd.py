"""``scmspec validate PATH...``: run the release gates on cards and print a table per card."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from scmspec.cli.common import echo, print_diagnostics, protocol_overrides


def validate_command(
    paths: Annotated[list[Path], typer.Argument(help="card files or folders (recursive)",
                                                exists=True)],
    as_json: Annotated[bool, typer.Option("--json", help="emit JSON records")] = False,
    seed: Annotated[int | None, typer.Option(help="override every card's seed")] = None,
    replicates: Annotated[int, typer.Option(help="replicates to sample for data gates")] = 1,
    n_obs: Annotated[int | None, typer.Option(help="rows of the obs split")] = None,
    n_int_obs: Annotated[int | None, typer.Option(help="observational rows of obs+int")] = None,
    n_int: Annotated[int | None, typer.Option(
        help="interventional rows of obs+int (large values stress ranges in the tails)")] = None,
    strict: Annotated[bool, typer.Option(
        "--strict", help="warnings (placeholders, sortability, ...) fail too")] = False,
    explain: Annotated[bool, typer.Option(
        "--explain-units", help="print, per equation, the unit conversion factors the compiler "
        "inserts (docs/units.md); no sampling, no gates")] = False,
) -> None:
    """Check every card: schema, graph, units, then sampled data against the gates.

    Declared ranges are also checked on a tail pilot of 300,000 rows by default;
    larger splits (``--n-obs 200000 --n-int 100000``) check deeper. ``--strict``
    turns every warning into a failure (exit 1).
    """
    if explain:
        _explain(paths)
        return
    from scmspec.build.validate import validate_paths
    overrides = protocol_overrides(seed, n_obs, n_int_obs, n_int, replicates)
    reports = validate_paths(paths, overrides)
    if as_json:
        echo(json.dumps([rec for r in reports for rec in r.records()], indent=2))
    else:
        for r in reports:
            print_diagnostics(r.result.diagnostics, r.result.source_lines)
            echo(r.table())
    if any(r.blocking for r in reports) or not reports:
        raise typer.Exit(1)
    warned = sum(g.status == "warn" for r in reports for g in r.gates)
    if strict and warned:
        echo(f"--strict: {warned} warning(s) count as failures")
        raise typer.Exit(1)


def _explain(paths: list[Path]) -> None:
    from scmspec.build.validate import explain_units

    failed = False
    for res, text in explain_units(paths):
        print_diagnostics(res.diagnostics, res.source_lines)
        failed = failed or bool(res.diagnostics)
        echo(f"{res.path}" + (f"\n{text}" if text else ": does not compile"))
    if failed:
        raise typer.Exit(1)
