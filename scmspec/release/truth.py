"""The truth archive: the reserved SCMs' ground truth, for whoever runs the held-out evaluation.

One uncompressed tar file, kept apart from the package (never inside it), holding
``truth.json`` (release version, seed, reserved ids) and, per reserved SCM, the files a
method must never see: ``<id>/spec.json``, ``metadata.json``, ``gates.json`` and ``graph/*``.
It is byte-stable (sorted members, zero times and owners), written through a temporary
file and an atomic rename, and never written over a file that is not such an archive.
"""

from __future__ import annotations

import io
import json
import os
import tarfile
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from scmspec.release.pool import PoolScm, ReleaseError

TRUTH_FORMAT = "scmspec.truth/1"
INDEX = "truth.json"
TRUTH_FILES = ("spec.json", "metadata.json", "gates.json")


def _truth_files(scm: PoolScm) -> list[str]:
    return sorted(f for f in scm.files if f in TRUTH_FILES or f.startswith("graph/"))


def _member(name: str, data: bytes) -> tuple[tarfile.TarInfo, io.BytesIO]:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = len(data), 0, 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info, io.BytesIO(data)


def stage_truth(path: Path, reserved: Sequence[PoolScm], version: str, seed: int) -> Path:
    """Write the archive of ``reserved`` to a temporary file beside ``path`` and return it.

    The caller renames it onto ``path`` once the package is in place (and removes it if the
    package fails), so a failed release leaves the earlier archive untouched.
    """
    check_replaceable(path)
    index = {"format": TRUTH_FORMAT, "version": version, "seed": seed,
             "scms": {s.id: {"spec_sha256": s.spec_sha256} for s in reserved}}
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".tmp-{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w",
                                                      format=tarfile.PAX_FORMAT) as tar:
            tar.addfile(*_member(INDEX, (json.dumps(index, indent=2, sort_keys=True)
                                         + "\n").encode()))
            for scm in sorted(reserved, key=lambda s: s.id):
                for rel in _truth_files(scm):
                    tar.addfile(*_member(f"{scm.id}/{rel}", (scm.folder / rel).read_bytes()))
        os.chmod(tmp, 0o644)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def read_index(path: Path) -> dict[str, Any]:
    """The archive's ``truth.json``; :class:`ReleaseError` when ``path`` is not an archive."""
    try:
        with tarfile.open(path, mode="r:") as tar:
            first = tar.next()
            handle = tar.extractfile(first) if first is not None and first.name == INDEX \
                else None
            doc: dict[str, Any] = json.loads(handle.read()) if handle is not None else {}
    except (OSError, tarfile.TarError, ValueError) as exc:
        raise ReleaseError(f"{path} is not a truth archive ({exc})",
                           "pass the file `scmspec release` wrote with --truth-out") from None
    if doc.get("format") != TRUTH_FORMAT:
        raise ReleaseError(f"{path} is not a truth archive (no {INDEX} of format {TRUTH_FORMAT})",
                           "pass the file `scmspec release` wrote with --truth-out")
    return doc


def check_replaceable(path: Path) -> None:
    """Only an earlier truth archive may be written over; anything else is left alone."""
    if path.is_symlink() or path.is_dir():
        raise ReleaseError(f"{path} is a folder or a link", "choose another --truth-out file")
    if path.exists():
        try:
            read_index(path)
        except ReleaseError:
            raise ReleaseError(f"{path} exists and is not a truth archive scmspec wrote",
                               "scmspec leaves it alone: choose another --truth-out") from None


@contextmanager
def extracted(path: Path) -> Iterator[tuple[dict[str, Any], Path]]:
    """The archive's index and a temporary folder holding its ``<id>/`` truth folders.

    Member names are checked (no absolute paths, no ``..``, regular files only) before
    anything is written, because an archive is a file someone handed over.
    """
    index = read_index(path)
    with tempfile.TemporaryDirectory(prefix="scmspec-truth-") as tmp, \
            tarfile.open(path, mode="r:") as tar:
        root = Path(tmp)
        for member in tar.getmembers():
            parts = Path(member.name).parts
            if member.name.startswith("/") or ".." in parts or not member.isfile():
                raise ReleaseError(f"{path}: unsafe archive member {member.name!r}")
            if member.name == INDEX:
                continue
            target = root.joinpath(*parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            handle = tar.extractfile(member)
            assert handle is not None  # a regular file always has a handle
            target.write_bytes(handle.read())
        yield index, root
