"""``scmspec optimize CARD --outcome Y --maximize|--minimize --knobs a,b``: the best design."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from scmspec.cli.common import echo, print_diagnostics
from scmspec.errors import CardError

Opt = typer.Option


def optimize_command(
    card: Annotated[Path, typer.Argument(help="a card file", exists=True, dir_okay=False)],
    outcome: Annotated[str, Opt(help="the variable whose mean is optimised")],
    knobs: Annotated[str, Opt(help="intervenable variables to search, comma-separated")],
    maximize: Annotated[bool, Opt("--maximize/--minimize", help="direction")] = True,
    fixed: Annotated[list[str] | None, Opt("--set", help="hold a variable fixed: NAME=VALUE")
                     ] = None,
    compare: Annotated[list[str] | None, Opt(help="also estimate a design: 'a=1,b=level'")
                       ] = None,
    budget: Annotated[int, Opt(min=2, max=100_000, help="designs evaluated in the search")] = 100,
    rows: Annotated[int, Opt(min=100, max=1_000_000, help="rows per design")] = 20_000,
    seed: Annotated[int | None, Opt(min=0, help="seed (default: the card's)")] = None,
    top: Annotated[int, Opt(min=0, max=20, help="runner-up designs to report")] = 3,
    population: Annotated[str, Opt(help="auto | all | selected (docs/effects.md)")] = "auto",
    as_json: Annotated[bool, Opt("--json", help="print JSON")] = False,
) -> None:
    """Search several targets' settings for the best expected outcome (docs/effects.md)."""
    from scmspec.api import load
    from scmspec.effects.designs import DesignError, parse_design
    from scmspec.effects.optimize import Goal, optimize
    from scmspec.effects.report import optimum_json, optimum_text
    try:
        scm = load(card).compile()
        goal = Goal(outcome, maximize, population, parse_design(scm, ",".join(fixed))
                    if fixed else {})
        opt = optimize(scm, goal, [k.strip() for k in knobs.split(",") if k.strip()], budget,
                       rows, seed, top, [parse_design(scm, c) for c in compare or []])
    except CardError as exc:
        print_diagnostics(exc.diagnostics, card.read_text(encoding="utf-8").splitlines())
        raise typer.Exit(1) from None
    except DesignError as exc:
        raise typer.BadParameter(exc.message) from None
    echo(json.dumps(optimum_json(opt, scm), indent=2) if as_json else optimum_text(opt, scm))
