"""``scmspec release POOL... --version V --out PKG``: a versioned public/reserved package."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scmspec.cli.common import echo

Opt = typer.Option


def release_command(
    pools: Annotated[list[Path], typer.Argument(help="compiled pools (scmspec compile --out)",
                                                       exists=True)],
    version: Annotated[str, Opt("--version", help="release version label, e.g. 2026.1")],
    out: Annotated[Path, Opt("--out", "-o", help="package folder (what you publish)")],
    seed: Annotated[int | None, Opt(help="release seed (default: the previous one, else 0)")]
    = None,
    fraction: Annotated[float, Opt(help="public share of each family")] = 0.5,
    previous: Annotated[Path | None, Opt(help="the previous package: list changes, keep its "
                                         "public SCMs public", exists=True)] = None,
    truth_out: Annotated[Path | None, Opt(help="truth archive (default PKG.truth.tar beside "
                                          "PKG); keep it private")] = None,
    include_drafts: Annotated[bool, Opt(help="also release cards in state draft")] = False,
    date: Annotated[str | None, Opt(help="a date to print in the notes (none by default)")]
    = None,
) -> None:
    """Split compiled pools into public and sealed reserved parts; write notes and manifest."""
    from scmspec.release import ReleaseError, ReleaseOptions, make_release
    if not version.strip() or any(c in version for c in "/\\\n"):
        raise typer.BadParameter("--version must be a non-empty label without slashes")
    options = ReleaseOptions(version, seed, fraction, include_drafts, previous, date)
    try:
        result = make_release(pools, out, options, truth_out)
    except ReleaseError as exc:
        typer.echo(exc.render(), err=True)
        raise typer.Exit(1) from None
    doc = result.manifest
    for family, c in doc["counts"]["by_family"].items():
        echo(f"{family:10} public {c['public']:4}  reserved {c['reserved']:4}")
    for kind in ("added", "changed", "moved"):
        if doc.get("changes", {}).get(kind):
            echo(f"{kind:10} " + ", ".join(doc["changes"][kind]))
    for r in doc.get("changes", {}).get("removed", []):
        echo(f"removed    {r['id']} ({r['reason']})")
    echo(f"release {doc['version']}: {out} (publish it); truth archive {result.truth} "
         f"(keep it private); {len(doc['excluded'])} SCMs not released")
