"""Stage 8, write: datasets, specs and the manifest, atomically and byte-stably.

Each SCM is written into a hidden temporary folder beside its final place and
renamed into place only when complete, so a crash or a failing card never
leaves a half-written dataset under a final name. Files hold no timestamps or
absolute paths, and floats are written with their shortest round-trip text,
so the same cards and seed give byte-identical files on every machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

MANIFEST = "manifest.json"


def write_json(path: Path, doc: Any) -> None:
    path.write_text(json.dumps(doc, indent=2, sort_keys=True, allow_nan=False) + "\n",
                    encoding="utf-8")


def write_csv(path: Path, frame: pd.DataFrame, index: bool = False) -> None:
    frame.to_csv(path, index=index, lineterminator="\n")


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def file_hashes(folder: Path) -> dict[str, str]:
    """sha256 of every file under ``folder``, keyed by POSIX relative path, sorted."""
    return {p.relative_to(folder).as_posix(): sha256(p)
            for p in sorted(folder.rglob("*")) if p.is_file()}


class AtomicFolder:
    """A folder that appears under its final name only once it is complete.

    Example:
        >>> import tempfile
        >>> root = Path(tempfile.mkdtemp())
        >>> with AtomicFolder(root / "scm") as tmp:
        ...     _ = (tmp / "a.txt").write_text("x")
        >>> sorted(p.name for p in root.iterdir())
        ['scm']
    """

    def __init__(self, final: Path) -> None:
        self.final = final
        self.tmp: Path | None = None

    def __enter__(self) -> Path:
        self.final.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{self.final.name}-", dir=self.final.parent))
        return self.tmp

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        assert self.tmp is not None
        if exc_type is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            return
        os.chmod(self.tmp, 0o755)
        replace_folder(self.tmp, self.final)


def replace_folder(src: Path, final: Path) -> None:
    """Swap ``src`` into ``final``; the old content is removed only after the swap."""
    if final.exists():
        old = final.with_name(f".old-{final.name}-{os.getpid()}")
        shutil.rmtree(old, ignore_errors=True)
        os.replace(final, old)
        os.replace(src, final)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(src, final)


def write_manifest(out: Path, doc: Mapping[str, Any]) -> None:
    """Write the manifest through a temporary file and an atomic rename."""
    out.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".manifest-", dir=out)
    os.close(fd)
    write_json(Path(tmp), doc)
    os.chmod(tmp, 0o644)
    os.replace(tmp, out / MANIFEST)


def remove_stale(out: Path, scm_id: str) -> bool:
    """Remove a previous dataset of a card that now fails, so it cannot look current."""
    target = out / scm_id
    if target.is_dir():
        shutil.rmtree(target)
        return True
    return False


def clean_temporaries(out: Path) -> None:
    """Remove leftovers of a crashed run (hidden ``.tmp-*`` / ``.old-*`` folders)."""
    if not out.is_dir():
        return
    for p in out.iterdir():
        if p.name.startswith((".tmp-", ".old-", ".manifest-")):
            shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
