"""Stage 0, discover: which card files a command works on, and what each is called.

A card is named two ways. Its *display* path (relative to the working directory)
is what diagnostics print, so a terminal or editor can jump to it. Its *record*
path (relative to the folder it was found in, or its bare name when it was named
on the command line) is what released files record, so the same cards compiled
from two places give byte-identical manifests and gate records.

Cards are untrusted, and so is the tree they come in: a folder walk never follows
a linked folder, and a card that is a symbolic link to a file outside the folder it
was found in is refused before anything is read (a link to ``/proc/self/environ``
would otherwise print the process environment as "card lines").
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

CARD_SUFFIXES = (".yaml", ".yml")
GRID_SUFFIXES = (".grid.yaml", ".grid.yml")


@dataclass(frozen=True)
class CardFile:
    """One card file and the folder it was found in."""

    path: Path
    root: Path

    @property
    def display(self) -> str:
        """The path diagnostics print (relative to the working directory when it can be)."""
        return display_path(self.path)

    @property
    def record(self) -> str:
        """The path released files record: relative to the folder it was found in."""
        try:
            return self.path.relative_to(self.root).as_posix()
        except ValueError:
            return self.path.name

    @property
    def refusal(self) -> str | None:
        """Why this file must not be read, or None (a link leaving its folder)."""
        if not self.path.is_symlink():
            return None
        target = self.path.resolve()
        if _inside(target, self.root.resolve()):
            return None
        return ("the card is a symbolic link to a file outside the folder it was found in; "
                "scmspec does not follow it")


def display_path(path: Path) -> str:
    """``path`` relative to the working directory, in POSIX form (absolute if elsewhere).

    Example:
        >>> display_path(Path.cwd() / "cards" / "x.yaml")
        'cards/x.yaml'
    """
    try:
        rel = Path(os.path.relpath(path))
    except ValueError:
        return path.as_posix()
    return path.as_posix() if rel.parts[:1] == ("..",) and path.is_absolute() else rel.as_posix()


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def discover(paths: Iterable[str | Path]) -> list[CardFile]:
    """Card files under the given files and folders (recursive), sorted, without duplicates.

    Folder walks skip hidden entries, linked folders and synthetic grid cards
    (``*.grid.yaml``: one expands into many SCMs, so it is compiled only when named).
    """
    found: dict[Path, CardFile] = {}
    for p in map(Path, paths):
        if p.is_dir():
            for file in _walk(p):
                found.setdefault(file, CardFile(file, p))
        else:
            found.setdefault(p, CardFile(p, p.parent))
    return sorted(found.values(), key=lambda f: f.path.as_posix())


def _walk(root: Path) -> Iterable[Path]:
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if (name.endswith(CARD_SUFFIXES) and not name.startswith(".")
                    and not name.endswith(GRID_SUFFIXES)):
                path = Path(folder) / name
                if path.is_file() or path.is_symlink():
                    yield path
