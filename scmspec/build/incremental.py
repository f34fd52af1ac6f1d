"""Incremental builds: reuse a card's dataset when nothing that shapes it has changed.

A card's *build key* is a sha256 over everything its outputs depend on: the card
file's bytes and display path, the parsed card (grid cards expand one file into many),
the effective protocol, whether gates ran, its pool-gate results (another card can
change them), the size limits and the scmspec version. After a dataset is written its
key and manifest entry are recorded in ``OUT/.build/<id>.json``; a later run with the
same key reuses the dataset if every recorded file still has its recorded sha256.

The record is written only after the dataset folder is in place, so a crash can lose
a record (the card is rebuilt) but never make a half-written dataset look reusable.
The manifest does not say which cards were reused, so it is byte-identical to a full
rebuild; the CLI prints ``reused`` instead.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from scmspec.api import LoadedCard
from scmspec.build.cards import CardResult, ProtocolOverrides
from scmspec.build.outputs import legacy_ids, owned
from scmspec.effects.write import EffectOptions
from scmspec.errors import Span
from scmspec.limits import current_limits
from scmspec.textio import sha256, write_compact_json
from scmspec.validators import GateResult
from scmspec.version import __version__

RECORDS = ".build"


@dataclass
class ReusedResult(CardResult):
    """A card whose previous outputs were reused; ``entry`` is its earlier manifest entry."""

    entry: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        assert self.entry is not None
        return self.entry


def build_key(loaded: LoadedCard, res: CardResult, overrides: ProtocolOverrides,
              run_gate_checks: bool, pooled: Sequence[GateResult],
              effects: EffectOptions | None = None, table_format: str = "csv") -> str:
    """sha256 over the card, the effective options and the scmspec version."""
    doc = {
        "version": __version__, "card": res.record or res.path, "card_sha256": res.card_sha256,
        "spec": loaded.card.model_dump(mode="json"),
        "protocol": overrides.apply(loaded.card.protocol).model_dump(mode="json"),
        "gates": run_gate_checks,
        "pooled": [res.relocated(g.to_json(loaded.id)) for g in pooled],
        "limits": asdict(current_limits()),
    }
    if effects is not None:  # absent without --effects, so earlier keys stay valid
        doc["effects"] = effects.to_json()
    if table_format != "csv":  # likewise: CSV builds keep their keys
        doc["table_format"] = table_format
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()


def record(out: Path, res: CardResult, key: str) -> None:
    """Remember how ``res`` was built (after its folder is in place)."""
    if res.id is None or res.status == "failed":
        return
    folder = out / RECORDS
    folder.mkdir(exist_ok=True)
    write_compact_json(folder / f"{res.id}.json", {  # read by reuse() only
        "key": key, "entry": res.to_json(),
        "gates": [res.relocated(g.to_json(res.id)) for g in res.gates if g.blocking_failure]})


def reuse(out: Path, res: CardResult, key: str) -> ReusedResult | None:
    """The recorded result of ``res`` if its key matches and its files are intact."""
    if res.id is None or not owned(out / res.id, legacy_ids(out)):
        return None  # never reuse through a link or someone else's folder
    path = out / RECORDS / f"{res.id}.json"
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if rec.get("key") != key or not _files_intact(out, rec["entry"].get("files", {})):
        return None
    entry = rec["entry"]
    gates = [GateResult(g["gate"], g["status"], g["severity"], g["detail"],
                        _span(g["location"])) for g in rec.get("gates", [])]
    return ReusedResult(res.path, res.card_sha256, res.id, entry["status"], [], gates,
                        {}, entry.get("files", {}), res.source_lines, entry=entry)


def _span(text: str | None) -> Span | None:
    if not text:
        return None
    file, _, rest = text.rpartition(":")
    file, _, line = file.rpartition(":")
    try:
        return Span(file, int(line), int(rest))
    except ValueError:
        return None


def _files_intact(out: Path, files: dict[str, str]) -> bool:
    if not files:
        return False
    for rel, digest in files.items():
        p = out / rel
        if not p.is_file() or sha256(p) != digest:
            return False
    return True


def forget(out: Path, scm_id: str) -> None:
    """Drop the record of a card that is rebuilt or failed now."""
    (out / RECORDS / f"{scm_id}.json").unlink(missing_ok=True)


def stale_outputs(out: Path, current_ids: Iterable[str]) -> list[str]:
    """Dataset folders scmspec wrote in ``out`` that no current card produces, sorted.

    Folders scmspec did not write (no stamp, or a link) are never stale: they are not ours.
    """
    if not out.is_dir():
        return []
    keep, legacy = set(current_ids), legacy_ids(out)
    return sorted(p.name for p in out.iterdir()
                  if not p.name.startswith(".") and p.name not in keep and owned(p, legacy))


def prune(out: Path, stale: Iterable[str]) -> None:
    """Delete stale dataset folders and their records (only with ``--prune``).

    Each folder is checked again just before it goes: only a dataset scmspec wrote.
    """
    legacy = legacy_ids(out)
    for name in stale:
        if owned(out / name, legacy):
            shutil.rmtree(out / name, ignore_errors=True)
        forget(out, name)
