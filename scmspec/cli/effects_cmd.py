"""``scmspec effects CARD [--out DIR]``: effect and counterfactual truth of one card."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from scmspec.cli.common import echo, print_diagnostics
from scmspec.errors import CardError

Opt = typer.Option


def effects_command(
    card: Annotated[Path, typer.Argument(help="a card file", exists=True, dir_okay=False)],
    out: Annotated[Path | None, Opt("--out", "-o", help="write effects.csv, "
                                    "counterfactual.csv and effects.json to this folder")] = None,
    rows: Annotated[int, Opt(min=100, max=1_000_000, help="rows of the effect run")] = 20_000,
    seed: Annotated[int | None, Opt(min=0, help="seed (default: the card's)")] = None,
    counterfactual_rows: Annotated[int, Opt(min=0, help="released rows recomputed")] = 100,
    as_json: Annotated[bool, Opt("--json", help="print every effect as JSON")] = False,
) -> None:
    """Average causal effects (card, unit and level contrasts) with standard errors."""
    from scmspec.api import load
    from scmspec.build.outputs import AtomicFolder, ForeignFolderError
    from scmspec.effects.report import records, summary
    from scmspec.effects.write import EffectOptions, compute_effects, released_obs, write_effects
    try:
        scm = load(card).compile()
        seed = scm.compiled.card.protocol.seed if seed is None else seed
        files = compute_effects(scm, seed, released_obs(scm, seed),
                                EffectOptions(rows, counterfactual_rows))
        if out is not None:
            with AtomicFolder(out) as folder:
                write_effects(folder, files)
    except CardError as exc:
        print_diagnostics(exc.diagnostics, card.read_text(encoding="utf-8").splitlines())
        raise typer.Exit(1) from None
    except ForeignFolderError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    truth = files.truth
    echo(json.dumps(records(truth.table), indent=2) if as_json else summary(truth))
