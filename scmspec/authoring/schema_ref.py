"""Where a new card's ``yaml-language-server`` line points: a JSON Schema the editor can open.

The card language's schema ships inside the package (``scmspec/schema/card.schema.json``, kept
identical to ``docs/card.schema.json`` and to ``scmspec schema`` by a test), so every install
has one. Inside a repository checkout (``docs/card.schema.json`` below the working directory)
the line is a path relative to the card, which keeps working when the checkout moves; anywhere
else it is the installed copy's absolute path. ``scmspec new --schema`` overrides both (a URL,
or a copy written with ``scmspec schema -o``).
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

REPOSITORY_SCHEMA = Path("docs") / "card.schema.json"


def installed_schema() -> Path:
    """The schema file inside the installed package.

    Example:
        >>> installed_schema().name, installed_schema().is_file()
        ('card.schema.json', True)
    """
    return Path(str(resources.files("scmspec") / "schema" / "card.schema.json"))


def schema_reference(folder: Path, cwd: Path | None = None) -> str:
    """The ``$schema=`` value for a card written into ``folder``.

    Example:
        >>> import tempfile
        >>> elsewhere = Path(tempfile.mkdtemp())
        >>> schema_reference(Path("cards"), elsewhere) == installed_schema().as_posix()
        True
        >>> (elsewhere / "docs").mkdir()
        >>> _ = (elsewhere / "docs" / "card.schema.json").write_text("{}")
        >>> schema_reference(Path("cards/semantic"), elsewhere)
        '../../docs/card.schema.json'
    """
    base = Path.cwd() if cwd is None else cwd
    checkout = base / REPOSITORY_SCHEMA
    if checkout.is_file():
        return Path(os.path.relpath(checkout.resolve(), (base / folder).resolve())).as_posix()
    return installed_schema().resolve().as_posix()
