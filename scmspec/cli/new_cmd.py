"""``scmspec new --family F --domain D NAME [--out DIR]``: write a commented skeleton card.

The skeleton (``scmspec.authoring.templates``) compiles and passes ``scmspec validate`` as written,
so a newcomer starts from a working card and edits it. An existing file is never
overwritten (exit 1).
"""

from __future__ import annotations

import re
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from scmspec.authoring.schema_ref import schema_reference
from scmspec.authoring.templates import domain_note, skeleton
from scmspec.cli.common import echo


class CardFamily(str, Enum):
    formula = "formula"
    semantic = "semantic"
    synthetic = "synthetic"


def _slug(text: str) -> str:
    """A domain's folder, as the library names them: 'finance and credit' -> finance_credit."""
    words = [w for w in re.split(r"[^a-z0-9]+", text.lower()) if w and w != "and"]
    return "_".join(words) or "misc"


def _card_id(name: str) -> str:
    from scmspec.compiler.spec import ID_PATTERN

    if not re.fullmatch(ID_PATTERN, name):
        raise typer.BadParameter("lowercase letters, digits and _ - . only, starting with a "
                                 "letter or digit (it becomes the card's id and file name)")
    return name


def new_command(
    name: Annotated[str, typer.Argument(help="card id (also the file name)", metavar="NAME",
                                        callback=_card_id)],
    family: Annotated[CardFamily, typer.Option(help="the card family")],
    domain: Annotated[str, typer.Option(help="domain, e.g. 'public health'")],
    out: Annotated[Path | None, typer.Option(help="folder to write into",
                                                show_default="cards/FAMILY/DOMAIN_SLUG")] = None,
    schema: Annotated[str | None, typer.Option(
        help="the schema line's target (a URL or path)",
        show_default="docs/card.schema.json in a checkout, else the installed copy")] = None,
) -> None:
    """Write a commented skeleton card that validates out of the box; refuse to overwrite."""
    folder = out if out is not None else Path("cards") / family.value / _slug(domain)
    path = folder / f"{name}.yaml"
    if path.exists():
        typer.echo(f"scmspec new: {path} already exists; not overwriting it (choose another "
                   "NAME or --out folder, or delete the file first)", err=True)
        raise typer.Exit(1)
    schema = schema or schema_reference(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(skeleton(family.value, domain, name, schema, path.as_posix()),
                        encoding="utf-8")
    except OSError as exc:
        typer.echo(f"scmspec new: cannot write {path}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1) from None
    if note := domain_note(family.value, domain):
        typer.echo(note, err=True)
    echo(f"wrote {path}\nnext: edit it, then run  scmspec validate {path}")
