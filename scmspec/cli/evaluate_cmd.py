"""``scmspec evaluate PKG --method M --out RUNS``: run a method on every row of a package."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from scmspec.cli.common import echo

Opt = typer.Option


def _params(pairs: list[str] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"--param {pair!r}: write key=value")
        try:
            out[key] = json.loads(text)
        except ValueError:
            out[key] = text
    return out


def _choices(values: list[str] | None, allowed: tuple[str, ...], flag: str) -> tuple[str, ...]:
    bad = [v for v in values or [] if v not in allowed]
    if bad:
        raise typer.BadParameter(f"{flag} {bad[0]!r}: use one of {', '.join(allowed)}")
    return tuple(values) if values else ()


def evaluate_command(
    pkg: Annotated[Path, typer.Argument(help="release package (scmspec release --out)",
                                                    exists=True)],
    out: Annotated[Path, Opt("--out", "-o", help="run folder (resumed if it exists)")],
    method: Annotated[str | None, Opt(help="built-in (pc, ges, fci, lingam, notears, "
                                      "random_regress) or module:function")] = None,
    command: Annotated[str | None, Opt(help="program per row, e.g. 'python fit.py {data} "
                                       "{out}' ({mask} {meta} {seed} too)")] = None,
    name: Annotated[str | None, Opt(help="the method's name on the leaderboard")] = None,
    param: Annotated[list[str] | None, Opt(help="key=value for the method (repeat)")] = None,
    output: Annotated[str, Opt(help="what a custom method returns: dag | cpdag | pag")] = "dag",
    budget: Annotated[float, Opt(min=0.001, help="wall-time seconds per row")] = 3600.0,
    workers: Annotated[int, Opt("--workers", "-j", min=1, help="rows at once")] = 1,
    executor: Annotated[str, Opt(help="local | dask")] = "local",
    scheduler: Annotated[str | None, Opt(help="Dask scheduler address")] = None,
    truth: Annotated[Path | None, Opt(help="truth archive: also score reserved rows",
                                         exists=True)] = None,
    part: Annotated[list[str] | None, Opt(help="public | reserved (default both)")] = None,
    split: Annotated[list[str] | None, Opt(help="obs | obsint (default both)")] = None,
    ids: Annotated[list[str] | None, Opt("--ids", help="only SCM ids matching (glob)")] = None,
    standardize: Annotated[bool, Opt(help="standardise each table's columns")] = True,
    shuffle_columns: Annotated[bool, Opt(help="shuffle columns with the row's seed")] = True,
    retry: Annotated[list[str] | None, Opt(help="run recorded rows of this status again")]
    = None,
) -> None:
    """Run a method on every SCM x split x replicate; record status, time and scores."""
    from scmspec.evaluation import EXECUTORS, STATUSES, EvalOptions, evaluate, resolve_method
    from scmspec.interop.graphs import InteropError
    if executor not in EXECUTORS or output not in ("dag", "cpdag", "pag"):
        raise typer.BadParameter("--executor: local | dask; --output: dag | cpdag | pag")
    options = EvalOptions(budget, workers, executor, scheduler,
                          _choices(part, ("public", "reserved"), "--part") or
                          ("public", "reserved"),
                          _choices(split, ("obs", "obsint"), "--split") or ("obs", "obsint"),
                          tuple(ids or ()), truth, standardize, _choices(retry, STATUSES,
                                                                         "--retry"),
                          shuffle_columns)
    try:
        m = resolve_method(method, command, name, _params(param), output)
        report = evaluate(pkg, m, out, options, on_row=lambda r: echo(
            f"{r['status']:14} {r['id']}/{r['split']}/rep-{r['replicate']} {r['elapsed']:.2f}s"
            + (f"  {str(r['error']).splitlines()[0][:120]}" if r.get("error") else "")))
    except InteropError as exc:
        typer.echo(exc.render(), err=True)
        raise typer.Exit(1) from None
    counts = {s: sum(r["status"] == s for r in report.records) for s in STATUSES}
    echo(f"{m.name}: {len(report.records)} rows ({report.ran} run, {report.skipped} already "
         f"done, {report.rescored} rescored): " + ", ".join(f"{v} {k}" for k, v in
                                                           counts.items()) + f"; in {out}")
