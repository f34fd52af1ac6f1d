"""``scmspec compile PATH... --out DIR``: cards to datasets, specs and a manifest."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from scmspec.cli.common import echo, print_diagnostics, protocol_overrides

if TYPE_CHECKING:  # the build is imported when the command runs, not for --help
    from scmspec.build.cards import CardResult
    from scmspec.build.driver import BuildReport


def compile_command(
    paths: Annotated[list[Path], typer.Argument(help="card files or folders (recursive)",
                                                exists=True)],
    out: Annotated[Path, typer.Option("--out", "-o", help="output folder")] = Path("data"),
    seed: Annotated[int | None, typer.Option(help="override every card's seed")] = None,
    n_obs: Annotated[int | None, typer.Option(help="rows of the obs split")] = None,
    n_int_obs: Annotated[int | None, typer.Option(help="observational rows of obs+int")] = None,
    n_int: Annotated[int | None, typer.Option(help="interventional rows of obs+int")] = None,
    replicates: Annotated[int | None, typer.Option(help="replicates per card")] = None,
    gates: Annotated[bool, typer.Option(help="run the release gates")] = True,
    select: Annotated[str | None, typer.Option(
        help="grid cards: compile a slice, e.g. 'graph=collider_rich,d=30'")] = None,
    workers: Annotated[int, typer.Option("--workers", "-j", min=1,
                                         help="local worker processes")] = 1,
    executor: Annotated[Literal["local", "dask"], typer.Option(
        help="where cards run (docs/scaling.md)")] = "local",
    scheduler: Annotated[str | None, typer.Option(
        help="Dask scheduler address, e.g. tcp://host:8786")] = None,
    force: Annotated[bool, typer.Option(help="rebuild even unchanged cards")] = False,
    prune: Annotated[bool, typer.Option(help="delete output folders no card produces")] = False,
    progress: Annotated[bool | None, typer.Option(
        help="progress bar (default: only on a terminal)")] = None,
    debug: Annotated[bool, typer.Option(
        help="print the traceback of an internal error (SCM901)")] = False,
    effects: Annotated[bool, typer.Option(
        help="also write effect and counterfactual truth (effects/; docs/effects.md)")] = False,
    effect_rows: Annotated[int, typer.Option(
        min=100, max=1_000_000, help="rows of the effect run (with --effects)")] = 20_000,
    table_format: Annotated[Literal["csv", "parquet", "both"], typer.Option(
        "--format", help="replicate tables as CSV, Parquet or both (docs/data-layout.md)")]
    = "csv",
) -> None:
    """Compile cards and write one dataset per SCM plus data/manifest.json."""
    from scmspec.build.driver import OutputError, compile_cards
    from scmspec.build.progress import card_progress, wanted
    from scmspec.effects.write import EffectOptions
    overrides = protocol_overrides(seed, n_obs, n_int_obs, n_int, replicates)
    try:
        with card_progress(wanted(progress)) as bar:
            report = compile_cards(paths, out, overrides, gates=gates, select=select,
                                   workers=workers, executor=executor, scheduler=scheduler,
                                   force=force, prune=prune, on_done=bar.done,
                                   on_total=bar.total,
                                   effects=EffectOptions(effect_rows) if effects else None,
                                   table_format=table_format)
    except OutputError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    _report(report, out, debug)


def _report(report: BuildReport, out: Path, debug: bool) -> None:
    results = report.results
    for r in results:
        _report_card(r, r.path in report.reused, debug)
    for name in report.stale:
        echo(f"stale     {name:40} " + ("pruned" if report.pruned else
                                         "no card produces it (--prune deletes it)"))
    bad = sum(r.status != "released" for r in results)
    reused = f", {len(report.reused)} reused" if report.reused else ""
    echo(f"{len(results) - bad} released, {bad} not released{reused}; "
         f"manifest: {out / 'manifest.json'}")
    if bad or not results:
        raise typer.Exit(1)


def _report_card(r: CardResult, reused: bool, debug: bool) -> None:
    """The card's status line, then its findings (so they read as this card's)."""
    echo(f"{r.status:9} {r.id or '-':40} {r.path}" + ("  (reused)" if reused else ""))
    for g in (g for g in r.gates if g.blocking_failure):
        echo(f"  gate {g.gate} failed: {g.detail}" + (f" ({g.location})" if g.location else ""))
    print_diagnostics(r.diagnostics, r.source_lines)
    if debug and r.traceback:
        typer.echo(r.traceback, err=True)
