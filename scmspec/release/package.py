"""``scmspec release``: a versioned benchmark package from compiled pools.

Takes compiled pools, keeps the SCMs that passed their gates and are reviewed (or released),
splits them (:mod:`scmspec.release.split`) and writes::

    PKG/release.json          version, seed, fraction, pool hashes, counts per slice and stratum,
                              every SCM (id, part, family, spec hash), exclusions, changes, files
    PKG/RELEASE_NOTES.md
    PKG/public/<id>/          the compiled SCM folder (data, truth, spec) plus data.json
    PKG/reserved/<id>/        data.json and rep-<r>/{obs,obsint,obsint_mask,obsint_records}.csv
    TRUTH (a separate file)   the reserved SCMs' truth (:mod:`scmspec.release.truth`)

A reserved folder holds only what a method receives: the tables, the intervention mask and
records, and ``data.json`` (columns, their kinds and levels, row counts). No spec, metadata,
gate result or graph file, and no per-SCM slice factor in ``release.json`` beyond family and
domain. The package is written into a temporary folder and renamed into place complete
(:class:`scmspec.build.outputs.AtomicFolder`), so it never replaces a folder scmspec did not
write. Nothing in it depends on the machine, the time or the order of the pools.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scmspec.build.outputs import AtomicFolder, ForeignFolderError, file_hashes
from scmspec.release.changes import MANIFEST, RELEASE_FORMAT, changes, read_release, release_notes
from scmspec.release.pool import PoolInfo, PoolScm, ReleaseError, read_pools
from scmspec.release.split import Unit, split
from scmspec.release.truth import stage_truth
from scmspec.textio import sha256, write_json
from scmspec.version import __version__

DATA_FORMAT = "scmspec.data/1"
DATA_FILES = ("obs.csv", "obsint.csv", "obsint_mask.csv", "obsint_records.csv",
              "obs_missing.csv", "obsint_missing.csv")  # the last two: observed_if cards only
SLICES = ("family", "domain", "graph", "d", "protocol")


@dataclass(frozen=True)
class ReleaseOptions:
    """How to cut a release (docs/benchmarking.md)."""

    version: str
    seed: int | None = None  # None: the previous release's seed, else 0
    fraction: float = 0.5
    include_drafts: bool = False
    previous: Path | None = None
    date: str | None = None


@dataclass
class ReleaseResult:
    """What was written, for the command line to report."""

    package: Path
    truth: Path
    manifest: dict[str, Any] = field(default_factory=dict)


def default_truth_path(out: Path) -> Path:
    """``PKG`` -> ``PKG.truth.tar`` beside it (never inside the package)."""
    return out.parent / f"{out.name}.truth.tar"


def make_release(pools: Sequence[Path], out: Path, options: ReleaseOptions,
                 truth: Path | None = None) -> ReleaseResult:
    """Cut a release of ``pools`` into ``out`` and its truth archive (default beside ``out``)."""
    truth = truth or default_truth_path(out)
    _check_places(pools, out, truth, options)
    previous = read_release(options.previous) if options.previous else None
    seed = options.seed if options.seed is not None else int((previous or {}).get("seed", 0))
    infos, scms, excluded = read_pools(pools, options.include_drafts)
    if not scms:
        raise ReleaseError("no SCM can be released: none passed its gates in a reviewed or "
                           "released state", "mark cards `release: reviewed`, or pass "
                           "--include-drafts for a trial release")
    keep = [e["id"] for e in (previous or {}).get("scms", []) if e["part"] == "public"]
    parts = split([Unit(s.id, s.family, s.stratum) for s in scms], options.fraction, seed, keep)
    reserved = [s for s in scms if parts[s.id] == "reserved"]
    doc = _manifest(options, seed, infos, scms, parts, [vars(e) for e in excluded])
    if previous is not None:
        doc["changes"] = changes(previous, doc["scms"], doc["excluded"])
    staged = stage_truth(truth, reserved, options.version, seed)
    try:
        doc["truth_archive"] = {"file": truth.name, "sha256": sha256(staged)}
        with AtomicFolder(out) as tmp:
            for scm in scms:
                _write_scm(tmp / parts[scm.id] / scm.id, scm, parts[scm.id])
            (tmp / "RELEASE_NOTES.md").write_text(release_notes(doc), encoding="utf-8")
            doc["files"] = file_hashes(tmp)
            write_json(tmp / MANIFEST, doc)
        os.replace(staged, truth)
    except ForeignFolderError as exc:
        raise ReleaseError(str(exc), "scmspec leaves it alone: choose another --out") from None
    finally:
        staged.unlink(missing_ok=True)
    return ReleaseResult(out, truth, doc)


def _check_places(pools: Sequence[Path], out: Path, truth: Path, options: ReleaseOptions) -> None:
    if not 0.0 <= options.fraction <= 1.0:
        raise ReleaseError(f"--fraction {options.fraction} is not between 0 and 1")
    target = out.resolve()
    for pool in pools:
        p = Path(pool).resolve()
        if target == p or p in target.parents or target in p.parents:
            raise ReleaseError(f"--out {out} overlaps the pool {pool}",
                               "write the package to a folder of its own")
    if target in truth.resolve().parents or truth.resolve() == target:
        raise ReleaseError(f"the truth archive {truth} would be inside the package",
                           "keep it outside: the package is what you publish")


def _write_scm(dest: Path, scm: PoolScm, part: str) -> None:
    """Copy the SCM's files for its part, each checked against the pool manifest's hash."""
    wanted = sorted(scm.files) if part == "public" else \
        sorted(f for f in scm.files if f.startswith("rep-") and f.split("/")[-1] in DATA_FILES)
    for rel in wanted:
        src = scm.folder / rel
        if not src.is_file() or sha256(src) != scm.files[rel]:
            raise ReleaseError(f"{src} differs from the pool manifest (edited after compiling?)",
                               "recompile the pool, then release")
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest / rel)
    write_json(dest / "data.json", data_facts(scm))


def data_facts(scm: PoolScm) -> dict[str, Any]:
    """What every method may know of an SCM besides its tables: no graph, no mechanism."""
    meta = scm.metadata
    observed = {v: s for v, s in (meta.get("variables") or {}).items() if s.get("observed", True)}
    n = meta.get("n") or {}
    return {"format": DATA_FORMAT, "id": scm.id, "family": scm.family, "domain": scm.domain,
            "columns": list(observed),
            "kinds": {v: s.get("kind", "continuous") for v, s in observed.items()},
            "levels": {v: s["levels"] for v, s in observed.items() if s.get("levels")},
            "replicates": int(meta.get("replicates", 1)),
            "splits": {"obs": {"rows": n.get("obs")},
                       "obsint": {"rows": (n.get("obsint_obs") or 0) + (n.get("obsint_int") or 0),
                                  "observational": n.get("obsint_obs"),
                                  "interventional": n.get("obsint_int")}}}


def slice_values(scm: PoolScm) -> dict[str, Any]:
    """The slice factors counted in the manifest (totals only for reserved SCMs)."""
    factors = scm.metadata.get("factors") or {}
    return {"family": scm.family, "domain": scm.domain, "graph": factors.get("graph"),
            "d": scm.metadata.get("d"), "protocol": factors.get("protocol")}


def _manifest(options: ReleaseOptions, seed: int, infos: list[PoolInfo], scms: list[PoolScm],
              parts: dict[str, str], excluded: list[dict[str, str]]) -> dict[str, Any]:
    counts: dict[str, Any] = {"by_family": {}, "public": {}, "reserved": {}}
    fam: dict[str, Counter[str]] = defaultdict(Counter)
    strata: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for s in scms:
        fam[s.family][parts[s.id]] += 1
        strata[(s.family, s.stratum)][parts[s.id]] += 1
        for key, value in slice_values(s).items():
            if value is not None:
                bucket = counts[parts[s.id]].setdefault(key, {})
                bucket[str(value)] = bucket.get(str(value), 0) + 1
    counts["by_family"] = {f: {p: c[p] for p in ("public", "reserved")}
                           for f, c in sorted(fam.items())}
    doc: dict[str, Any] = {
        "format": RELEASE_FORMAT, "version": options.version, "seed": seed,
        "fraction": options.fraction, "include_drafts": options.include_drafts,
        "scmspec_version": __version__,
        "pools": [vars(i) for i in sorted(infos, key=lambda i: (i.name, i.manifest_sha256))],
        "counts": counts,
        "strata": [{"family": f, "stratum": st, "scms": c["public"] + c["reserved"],
                    "public": c["public"], "reserved": c["reserved"]}
                   for (f, st), c in sorted(strata.items())],
        "scms": [{"id": s.id, "part": parts[s.id], "family": s.family, "domain": s.domain,
                  "state": s.state, "spec_sha256": s.spec_sha256} for s in scms],
        "excluded": excluded,
    }
    if options.date:
        doc["date"] = options.date
    return doc
