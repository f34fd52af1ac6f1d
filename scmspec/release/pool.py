"""Read compiled pools for a release: which SCMs may be released, their strata and spec hashes.

A pool is a folder ``scmspec compile`` wrote (docs/data-layout.md). Its manifest says which SCMs
passed the gates (status ``released``) and lists every dataset file with its sha256; the release
copies exactly those files, after checking the hashes, so a pool edited after compilation is
refused instead of being published. Each SCM's release state is read from the card compiled into
its ``spec.json`` (the card's ``release:`` field; unset means draft).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scmspec.interop.graphs import InteropError
from scmspec.textio import sha256

RELEASABLE_STATES = ("reviewed", "released")


class ReleaseError(InteropError):
    """A pool, package or option that a release cannot use (message and hint for people)."""


@dataclass(frozen=True)
class PoolScm:
    """One compiled SCM a release may include."""

    id: str
    folder: Path
    family: str
    domain: str
    stratum: str
    state: str
    spec_sha256: str
    files: dict[str, str]  # path relative to the SCM folder -> sha256 (from the pool manifest)
    metadata: dict[str, Any]


@dataclass(frozen=True)
class PoolInfo:
    """A pool as the release manifest records it: its folder name and manifest hash."""

    name: str
    manifest_sha256: str
    scms: int


@dataclass(frozen=True)
class Excluded:
    id: str
    reason: str


def spec_hash(spec: dict[str, Any]) -> str:
    """sha256 of a spec.json document without the scmspec version and the card's release state.

    Promoting a card from reviewed to released, or upgrading scmspec, is not a change of the
    SCM; anything else in the spec (the card, its effective protocol, the resolved plan) is.

    Example:
        >>> a = {"scmspec_version": "0.1", "card": {"id": "x", "release": "draft"}}
        >>> b = {"scmspec_version": "0.2", "card": {"id": "x", "release": "reviewed"}}
        >>> spec_hash(a) == spec_hash(b), spec_hash(a) == spec_hash({"card": {"id": "y"}})
        (True, False)
    """
    doc = {k: v for k, v in spec.items() if k != "scmspec_version"}
    doc["card"] = {k: v for k, v in doc.get("card", {}).items() if k != "release"}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def stratum_of(family: str, metadata: dict[str, Any]) -> str:
    """The split stratum: the domain for grounded families, graph family x d for synthetic.

    Example:
        >>> stratum_of("synthetic", {"d": 10, "factors": {"graph": "chain"}})
        'graph=chain,d=10'
        >>> stratum_of("formula", {"domain": "optics and waves"})
        'domain=optics and waves'
    """
    if family == "synthetic":
        graph = (metadata.get("factors") or {}).get("graph") or "unspecified"
        return f"graph={graph},d={metadata.get('d')}"
    return f"domain={metadata.get('domain')}"


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ReleaseError(f"cannot read {what} {path} ({exc})",
                           "pass folders written by `scmspec compile CARDS --out DIR`") from None


def read_pool(pool: Path) -> tuple[PoolInfo, list[PoolScm], list[Excluded]]:
    """Every SCM of one pool that passed its gates, and those that did not (with why)."""
    path = pool / "manifest.json"
    if not path.is_file():
        raise ReleaseError(f"{pool} has no manifest.json", "pass the --out folder of "
                           "`scmspec compile`")
    manifest = _read_json(path, "the pool manifest")
    if manifest.get("format") != "scmspec.manifest/1" or not isinstance(manifest.get("scms"),
                                                                         list):
        raise ReleaseError(f"{path} is not an scmspec manifest (format scmspec.manifest/1)")
    scms, excluded = [], []
    for entry in manifest["scms"]:
        scm_id = entry.get("id")
        if entry.get("status") != "released" or not scm_id:
            excluded.append(Excluded(scm_id or str(entry.get("card")),
                                     f"compile status {entry.get('status')}"))
            continue
        scms.append(_pool_scm(pool, scm_id, entry))
    return PoolInfo(pool.resolve().name, sha256(path), len(manifest["scms"])), scms, excluded


def _pool_scm(pool: Path, scm_id: str, entry: dict[str, Any]) -> PoolScm:
    folder = pool / scm_id
    prefix = f"{scm_id}/"
    files = {k[len(prefix):]: v for k, v in (entry.get("files") or {}).items()
             if k.startswith(prefix)}
    for needed in ("spec.json", "metadata.json", "graph/adjacency.csv"):
        if needed not in files or not (folder / needed).is_file():
            raise ReleaseError(f"{folder / needed} is missing", "recompile the pool")
    spec = _read_json(folder / "spec.json", "the spec")
    metadata = _read_json(folder / "metadata.json", "the metadata")
    family = str(metadata.get("family") or entry.get("family"))
    return PoolScm(scm_id, folder, family, str(metadata.get("domain")),
                   stratum_of(family, metadata), str(spec["card"].get("release") or "draft"),
                   spec_hash(spec), files, metadata)


def read_pools(pools: Sequence[Path], include_drafts: bool = False
               ) -> tuple[list[PoolInfo], list[PoolScm], list[Excluded]]:
    """The releasable SCMs of every pool (sorted by id), the excluded ones, and pool records.

    Releasable: passed the gates, and in state reviewed or released (drafts too with
    ``include_drafts``); retired SCMs never are. An id in two pools is refused.
    """
    infos, chosen, excluded = [], {}, []
    seen: dict[str, Path] = {}
    for pool in pools:
        info, scms, skipped = read_pool(Path(pool))
        infos.append(info)
        excluded += skipped
        for scm in scms:
            if scm.id in seen:
                raise ReleaseError(f"SCM {scm.id!r} is in two pools ({seen[scm.id]} and "
                                   f"{scm.folder.parent})", "release each id from one pool")
            seen[scm.id] = scm.folder.parent
            allowed = scm.state in RELEASABLE_STATES or (include_drafts and scm.state == "draft")
            if allowed:
                chosen[scm.id] = scm
            else:
                excluded.append(Excluded(scm.id, f"release state {scm.state}"))
    return infos, [chosen[k] for k in sorted(chosen)], sorted(excluded, key=lambda e: e.id)
