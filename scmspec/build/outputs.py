"""Stage 8, write: datasets, specs and the manifest, atomically and byte-stably.

Each SCM is written into a hidden temporary folder beside its final place and
renamed into place only when complete, so a crash or a failing card never
leaves a half-written dataset under a final name. Files hold no timestamps or
absolute paths, and floats are written with their shortest round-trip text,
so the same cards and seed give byte-identical files on every machine.

scmspec deletes only what it wrote. Every dataset folder carries a stamp
(:data:`STAMP`); stale-output removal, ``--prune`` and failure cleanup touch a
folder only when it is stamped (or listed by the folder's own earlier manifest,
for outputs written before stamps existed), and never follow a symbolic link.
A folder of the same name that someone else made is left alone and reported.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scmspec.textio import sha256, write_json

MANIFEST = "manifest.json"
STAMP = ".scmspec-dataset"  # in every dataset folder scmspec writes; not a dataset file
_STAMP_TEXT = "scmspec.dataset/1\n"
_TEMP_PREFIXES = (".tmp-", ".old-", ".manifest-")
_ABANDONED_AFTER = 24 * 3600  # seconds; temporaries of other hosts are removed after this


class ForeignFolderError(OSError):
    """A dataset's final place is taken by something scmspec did not write (or a link)."""


def file_hashes(folder: Path) -> dict[str, str]:
    """sha256 of every dataset file under ``folder``, keyed by POSIX relative path, sorted."""
    return {p.relative_to(folder).as_posix(): sha256(p)
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != STAMP}


def is_link(path: Path) -> bool:
    """True for a symbolic link (or a Windows junction), whatever it points to."""
    return path.is_symlink() or (hasattr(path, "is_junction") and path.is_junction())


def owned(folder: Path, legacy: frozenset[str] = frozenset()) -> bool:
    """Whether ``folder`` is a dataset folder scmspec wrote (stamped, never a link).

    ``legacy`` names folders listed by the output folder's earlier manifest (outputs
    written before stamps existed); they count as scmspec's if they hold a metadata.json.
    """
    if is_link(folder) or not folder.is_dir():
        return False
    if (folder / STAMP).is_file():
        return True
    return folder.name in legacy and (folder / "metadata.json").is_file()


def legacy_ids(out: Path) -> frozenset[str]:
    """Dataset folders the manifest already in ``out`` lists files for."""
    try:
        doc = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
        return frozenset(f.split("/", 1)[0] for e in doc.get("scms", [])
                         for f in (e.get("files") or {}))
    except (OSError, ValueError, AttributeError, TypeError):
        return frozenset()


def foreign_entries(out: Path) -> list[str]:
    """Visible entries of ``out`` that scmspec did not write, sorted."""
    if not out.is_dir():
        return []
    legacy = legacy_ids(out)
    return sorted(p.name for p in out.iterdir()
                  if not p.name.startswith(".") and p.name != MANIFEST and not owned(p, legacy))


def check_target(final: Path) -> None:
    """Refuse to write a dataset where a link or someone else's folder stands."""
    if is_link(final):
        raise ForeignFolderError(f"{final} is a symbolic link; scmspec does not write "
                                 "through links")
    if final.exists() and not owned(final, legacy_ids(final.parent)):
        raise ForeignFolderError(f"{final} exists and was not written by scmspec")


class AtomicFolder:
    """A folder that appears under its final name only once it is complete.

    The final place must be free or hold an earlier dataset of scmspec's
    (:func:`check_target`); the folder is stamped as scmspec's before it appears.

    Example:
        >>> import tempfile
        >>> root = Path(tempfile.mkdtemp())
        >>> with AtomicFolder(root / "scm") as tmp:
        ...     _ = (tmp / "a.txt").write_text("x")
        >>> sorted(p.name for p in root.iterdir()), owned(root / "scm")
        (['scm'], True)
    """

    def __init__(self, final: Path) -> None:
        self.final = final
        self.tmp: Path | None = None

    def __enter__(self) -> Path:
        self.final.parent.mkdir(parents=True, exist_ok=True)
        check_target(self.final)
        self.tmp = Path(tempfile.mkdtemp(prefix=_temp_prefix(".tmp-", self.final.name),
                                         dir=self.final.parent))
        return self.tmp

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        assert self.tmp is not None
        if exc_type is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            return
        (self.tmp / STAMP).write_text(_STAMP_TEXT, encoding="utf-8")
        os.chmod(self.tmp, 0o755)
        try:
            check_target(self.final)  # another process may have put something there meanwhile
            replace_folder(self.tmp, self.final)
        except BaseException:
            shutil.rmtree(self.tmp, ignore_errors=True)
            raise


def _temp_prefix(kind: str, name: str) -> str:
    """Temporary names carry host and pid, so a later run removes only abandoned ones."""
    return f"{kind}{socket.gethostname()}-{os.getpid()}-{name}-"


def scratch_folder(out: Path, name: str) -> Path:
    """A new hidden scratch folder in ``out`` that a later run removes if this one crashes."""
    return Path(tempfile.mkdtemp(prefix=_temp_prefix(".tmp-", name), dir=out))


def replace_folder(src: Path, final: Path) -> None:
    """Swap ``src`` into ``final``; the old content is removed only after the swap."""
    if final.exists():
        old = Path(tempfile.mkdtemp(prefix=_temp_prefix(".old-", final.name), dir=final.parent))
        os.replace(final, old / final.name)
        os.replace(src, final)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(src, final)


def write_manifest(out: Path, doc: Mapping[str, Any]) -> None:
    """Write the manifest through a temporary file and an atomic rename."""
    out.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(".manifest-", "m"), dir=out)
    os.close(fd)
    write_json(Path(tmp), doc)
    os.chmod(tmp, 0o644)
    os.replace(tmp, out / MANIFEST)


def remove_stale(out: Path, scm_id: str) -> bool:
    """Remove an earlier dataset of a card that now fails, so it cannot look current.

    Only a folder scmspec wrote is removed; anything else of that name is left alone.
    """
    target = out / scm_id
    if owned(target, legacy_ids(out)):
        shutil.rmtree(target)
        return True
    return False


def clean_temporaries(out: Path) -> None:
    """Remove leftovers of crashed runs: hidden ``.tmp-*``/``.old-*``/``.manifest-*`` entries.

    An entry is removed when the process that made it (host and pid in its name) is gone,
    or, for another host's, when it is older than a day; a concurrent run keeps its own.
    """
    if not out.is_dir() or is_link(out):
        return
    for p in out.iterdir():
        if p.name.startswith(_TEMP_PREFIXES) and _abandoned(p):
            if p.is_dir() and not is_link(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)


def _abandoned(p: Path) -> bool:
    rest = p.name.split("-", 1)[1] if "-" in p.name else ""
    here = socket.gethostname() + "-"
    if rest.startswith(here):
        pid = rest[len(here):].split("-", 1)[0]
        if pid.isdigit():
            return not _alive(int(pid))
    try:
        return time.time() - p.lstat().st_mtime > _ABANDONED_AFTER
    except OSError:
        return False


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
