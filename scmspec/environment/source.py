"""Where an environment's SCM comes from: a compiled SCM folder, a compiled pool, a release.

``open_scm(path, scm_id, truth)`` returns the executable SCM and the sha256 of the
``spec.json`` it was rebuilt from (the episode log records it, so a replay refuses another
SCM). Accepted layouts:

* ``DATA_DIR/<id>`` (``spec.json``), or ``DATA_DIR`` with ``scm_id`` (``manifest.json``);
* a release package ``PKG`` with ``scm_id``: a public SCM's ``public/<id>/spec.json``, or a
  reserved SCM's ``<id>/spec.json`` inside the truth archive passed as ``truth``.
"""

from __future__ import annotations

import json
from pathlib import Path

from scmspec.api import load_spec
from scmspec.environment.config import ConfigError
from scmspec.release.changes import MANIFEST
from scmspec.release.truth import extracted
from scmspec.samplers.scm import SCM
from scmspec.textio import sha256


def open_scm(path: str | Path, scm_id: str | None = None,
             truth: str | Path | None = None) -> tuple[SCM, str]:
    """The SCM and its spec hash (raises :class:`ConfigError` when nothing fits)."""
    root = Path(path)
    if not root.exists():
        raise ConfigError(f"{root} does not exist")
    if (root / "spec.json").is_file():
        return _read(root / "spec.json")
    if (root / MANIFEST).is_file():
        return _from_release(root, _need_id(root, scm_id), truth)
    if (root / "manifest.json").is_file():
        folder = root / _need_id(root, scm_id)
        if not (folder / "spec.json").is_file():
            raise ConfigError(f"{root} has no compiled SCM {scm_id!r} (no {folder}/spec.json)",
                              "pass an id listed in the manifest with status released")
        return _read(folder / "spec.json")
    raise ConfigError(f"{root} is no compiled SCM folder (spec.json), compiled pool "
                      f"(manifest.json) nor release package ({MANIFEST})",
                      "pass the --out folder of scmspec compile or scmspec release")


def _need_id(root: Path, scm_id: str | None) -> str:
    if not scm_id:
        raise ConfigError(f"{root} holds several SCMs; name one", "pass --scm ID")
    return scm_id


def _read(spec: Path) -> tuple[SCM, str]:
    return load_spec(spec), sha256(spec)


def _from_release(root: Path, scm_id: str, truth: str | Path | None) -> tuple[SCM, str]:
    parts = {e.get("id"): e.get("part") for e in
             json.loads((root / MANIFEST).read_text(encoding="utf-8")).get("scms", [])}
    if scm_id not in parts:
        raise ConfigError(f"release {root} has no SCM {scm_id!r}")
    if parts[scm_id] == "public":
        return _read(root / "public" / scm_id / "spec.json")
    if truth is None:
        raise ConfigError(f"{scm_id} is reserved: its spec is in the truth archive",
                          "pass --truth TRUTH.tar (the file scmspec release wrote)")
    with extracted(Path(truth)) as (_, folder):
        if not (folder / scm_id / "spec.json").is_file():
            raise ConfigError(f"the truth archive {truth} holds no {scm_id}/spec.json")
        return _read(folder / scm_id / "spec.json")
