"""Benchmark releases: versioned public/reserved packages cut from compiled pools.

Public API:
    make_release(pools, out, options, truth)   ``scmspec release``: the package and truth archive
    ReleaseOptions, ReleaseResult, ReleaseError
    read_release(pkg)                          a package's release.json
    split(units, fraction, seed, keep_public)  the stratified, seeded public/reserved split
    spec_hash(spec)                            the hash that says whether an SCM changed
    extracted(archive)                         a truth archive unpacked into a temporary folder
"""

from __future__ import annotations

from scmspec.release.changes import read_release
from scmspec.release.package import (
    DATA_FILES,
    ReleaseOptions,
    ReleaseResult,
    default_truth_path,
    make_release,
)
from scmspec.release.pool import ReleaseError, spec_hash
from scmspec.release.split import Unit, split
from scmspec.release.truth import extracted, read_index

__all__ = [
    "DATA_FILES", "ReleaseError", "ReleaseOptions", "ReleaseResult", "Unit",
    "default_truth_path", "extracted", "make_release", "read_index", "read_release",
    "spec_hash", "split",
]
