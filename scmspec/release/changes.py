"""What changed since the previous release, and the release notes that say so.

Changes compare the new release's SCM list with the previous ``release.json``:
added (new ids), removed (ids gone, with the reason when this release excluded them),
changed (same id, different spec hash: see :func:`scmspec.release.pool.spec_hash`) and moved
(reserved before, public now). The notes are Markdown written from the manifest alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scmspec.release.pool import ReleaseError

RELEASE_FORMAT = "scmspec.release/1"
MANIFEST = "release.json"


def read_release(pkg: Path) -> dict[str, Any]:
    """A package's ``release.json`` (:class:`ReleaseError` when there is none)."""
    path = Path(pkg) / MANIFEST
    try:
        doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ReleaseError(f"cannot read {path} ({exc.__class__.__name__})",
                           "pass a package folder written by `scmspec release`") from None
    if doc.get("format") != RELEASE_FORMAT:
        raise ReleaseError(f"{path} is not a release manifest (format {RELEASE_FORMAT})")
    return doc


def changes(previous: dict[str, Any], scms: list[dict[str, Any]],
            excluded: list[dict[str, str]]) -> dict[str, Any]:
    """Added, removed, changed and moved ids (each sorted) against ``previous``.

    Example:
        >>> old = {"version": "1", "scms": [{"id": "a", "part": "reserved", "spec_sha256": "x"},
        ...                                 {"id": "b", "part": "public", "spec_sha256": "y"}]}
        >>> new = [{"id": "a", "part": "public", "spec_sha256": "x"},
        ...        {"id": "c", "part": "public", "spec_sha256": "z"}]
        >>> c = changes(old, new, [{"id": "b", "reason": "release state retired"}])
        >>> c["added"], c["removed"], c["changed"], c["moved"]
        (['c'], [{'id': 'b', 'reason': 'release state retired'}], [], ['a'])
    """
    before = {e["id"]: e for e in previous.get("scms", [])}
    now = {e["id"]: e for e in scms}
    why = {e["id"]: e["reason"] for e in excluded}
    return {
        "previous": previous.get("version"),
        "added": sorted(set(now) - set(before)),
        "removed": [{"id": i, "reason": why.get(i, "not in the pools")}
                    for i in sorted(set(before) - set(now))],
        "changed": sorted(i for i in set(now) & set(before)
                          if now[i]["spec_sha256"] != before[i]["spec_sha256"]),
        "moved": sorted(i for i in set(now) & set(before)
                        if before[i]["part"] == "reserved" and now[i]["part"] == "public"),
    }


def _table(headers: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def _ids(ids: list[str], limit: int = 50) -> str:
    shown = ", ".join(f"`{i}`" for i in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "") or "none"


def release_notes(doc: dict[str, Any]) -> str:
    """RELEASE_NOTES.md of a release manifest."""
    by_family = doc["counts"]["by_family"]
    out = [f"# Benchmark release {doc['version']}", ""]
    if doc.get("date"):
        out += [f"Date: {doc['date']}", ""]
    out += [f"scmspec {doc['scmspec_version']}; release seed {doc['seed']}; public fraction "
            f"{doc['fraction']:g} per family, stratified (domain for semantic and formula "
            "SCMs, graph family x dimension for synthetic ones)."
            + (" Cards in state draft are included: a trial release."
               if doc.get("include_drafts") else ""), "",
            "## Contents", "",
            _table(["family", "public", "reserved"],
                   [[f, c.get("public", 0), c.get("reserved", 0)] for f, c in by_family.items()]),
            "", "`public/<id>/`: data, ground truth and spec. `reserved/<id>/`: only the data "
            "methods receive (`data.json`, `rep-<r>/obs.csv`, `obsint.csv`, `obsint_mask.csv`, "
            "`obsint_records.csv`); the reserved ground truth is in a separate truth archive "
            "kept by the evaluators.", "", "## Strata", "",
            _table(["family", "stratum", "SCMs", "public", "reserved"],
                   [[s["family"], s["stratum"], s["scms"], s["public"], s["reserved"]]
                    for s in doc["strata"]]), ""]
    if doc.get("excluded"):
        out += ["## Not in this release", "",
                _table(["id", "why"], [[f"`{e['id']}`", e["reason"]] for e in doc["excluded"]]),
                ""]
    if doc.get("changes"):
        c = doc["changes"]
        out += [f"## Changes since {c['previous']}", "",
                f"- added: {_ids(c['added'])}",
                "- removed: " + _ids([f"{r['id']} ({r['reason']})" for r in c["removed"]]),
                f"- changed (spec hash): {_ids(c['changed'])}",
                f"- moved from reserved to public: {_ids(c['moved'])}", ""]
    out += ["## Using this release", "",
            f"Label every result with the benchmark version ({doc['version']}), and disclose "
            "whether public SCMs, their samples or related generators were used in "
            "pretraining. Scores on reserved SCMs come from the evaluators' runs "
            "(`scmspec evaluate`, `scmspec leaderboard`; see docs/benchmarking.md).", ""]
    return "\n".join(out)
