"""``scmspec serve PKG --port P``: episodes of a sealed SCM over HTTP/JSON on localhost."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scmspec.cli.common import echo

Opt = typer.Option


def serve_command(
    package: Annotated[Path, typer.Argument(help="compiled SCM folder, pool or release",
                                            exists=True)],
    port: Annotated[int, Opt(help="port on 127.0.0.1 (0: any free port)", min=0,
                             max=65535)] = 8765,
    scm: Annotated[str | None, Opt("--scm", help="the SCM id in a pool or release")] = None,
    truth: Annotated[Path | None, Opt(help="truth archive (a reserved SCM)", exists=True)] = None,
    config: Annotated[Path | None, Opt(help="environment config (JSON)", exists=True)] = None,
    logs: Annotated[Path, Opt(help="folder for the episode logs")] = Path("episodes"),
    seed: Annotated[int | None, Opt(help="derive episode seeds from this (default: fresh)",
                                    min=0)] = None,
) -> None:
    """Serve one SCM: an episode per token, budgets and logs kept here (docs/environment.md)."""
    from scmspec.environment.config import EnvironmentConfig, EnvironmentError
    from scmspec.environment.server import EnvironmentService, make_server
    from scmspec.environment.source import open_scm

    try:
        model, spec_hash = open_scm(package, scm, truth)
        cfg = EnvironmentConfig.read(config) if config else EnvironmentConfig()
        service = EnvironmentService(model, spec_hash, cfg, logs, seed)
        server = make_server(service, port)
    except (EnvironmentError, OSError) as exc:
        typer.echo(f"error: {getattr(exc, 'message', exc)}", err=True)
        raise typer.Exit(1) from None
    echo(f"serving {model.id} on http://127.0.0.1:{server.server_address[1]} "
         f"(OpenAPI: /openapi.json; logs in {logs}); Ctrl-C stops")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        service.close()
