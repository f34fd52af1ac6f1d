"""The ``scmspec`` command line: one module per command, each a thin shell over the API.

Exit codes, the same for every command (docs/errors.md): 0 ok; 1 card errors, blocking
gate failures, failed runs, or an input that exists but cannot be used; 2 usage: an
unknown option, a bad value, or an input path that does not exist; 70 internal error
(a bug: traceback shown).
"""

from __future__ import annotations

import sys
import traceback
from typing import Annotated

import typer

from scmspec.cli import (
    baseline_cmd,
    compile_cmd,
    effects_cmd,
    episodes_cmd,
    evaluate_cmd,
    export_cmd,
    leaderboard_cmd,
    new_cmd,
    optimize_cmd,
    release_cmd,
    render_cmd,
    report_cmd,
    schema_cmd,
    score_cmd,
    score_effects_cmd,
    serve_cmd,
    synth_cmd,
    validate_cmd,
)
from scmspec.cli.help import App
from scmspec.version import __version__

app = App(add_completion=True, no_args_is_help=True, pretty_exceptions_enable=False,
          help="Compile structural-causal-model cards into samplers, datasets and gates.")


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"scmspec {__version__}")
        raise typer.Exit()


@app.callback()
def _options(version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print the version and exit.")] = False) -> None:
    """Compile structural-causal-model cards into samplers, datasets and gates."""


app.command("compile")(compile_cmd.compile_command)
app.command("validate")(validate_cmd.validate_command)
app.command("schema")(schema_cmd.schema_command)
app.command("render")(render_cmd.render_command)
app.command("report")(report_cmd.report_command)
app.command("export")(export_cmd.export_command)
app.command("score")(score_cmd.score_command)
app.command("baseline")(baseline_cmd.baseline_command)
app.command("new")(new_cmd.new_command)
app.command("synth")(synth_cmd.synth_command)
app.command("effects")(effects_cmd.effects_command)
app.command("optimize")(optimize_cmd.optimize_command)
app.command("score-effects")(score_effects_cmd.score_effects_command)
app.command("release")(release_cmd.release_command)
app.command("evaluate")(evaluate_cmd.evaluate_command)
app.command("leaderboard")(leaderboard_cmd.leaderboard_command)
app.command("serve")(serve_cmd.serve_command)
app.command("episodes")(episodes_cmd.episodes_command)

EXIT_INTERNAL = 70


def main() -> None:
    """Entry point: run the app; turn an unexpected exception into exit code 70.

    Click (inside typer) handles usage errors (exit 2) and ``typer.Exit``; card
    errors are reported by the commands themselves (exit 1). Anything else is a
    bug in scmspec and keeps its traceback.
    """
    try:
        app()
    except Exception:  # noqa: BLE001 - last resort: our bug, keep the traceback
        traceback.print_exc()
        print("scmspec: internal error (a bug in scmspec, not in your card); please report it",
              file=sys.stderr)
        sys.exit(EXIT_INTERNAL)
