"""Scoring rows against the truth: the package's public truth, the truth archive's reserved one.

Conversion rules for equivalence-class outputs (docs/benchmarking.md), applied to every
prediction before directed-graph metrics: PAG circles are read as tails (``i o-> j`` is
``i -> j``, ``i o-o j`` is ``i -- j``: the liberal rule of :func:`scmspec.interop.formats.
from_causallearn`); undirected edges (CPDAG, PAG) are then oriented at random by
:func:`scmspec.scoring.orient_randomly` with the row's seed
``orientation_seed("<id>/<split>/rep-<r>", release seed)``, which depends on the release seed,
SCM, split and replicate only, never on a file name or a path. Bidirected edges count as
adjacencies, never as directed edges.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from scmspec.evaluation.runner import RowKey
from scmspec.interop.predictions import read_prediction
from scmspec.interop.truth import GroundTruth, load_truth
from scmspec.release import ReleaseError, extracted
from scmspec.scoring import orientation_seed, score_graph
from scmspec.textio import sha256

KEPT = ("precision", "recall", "f1", "shd", "nshd", "skeleton_f1", "sid", "pred_edges",
        "pred_undirected", "pred_bidirected", "pred_acyclic")


def row_orientation_seed(key: RowKey, release_seed: int) -> int:
    """The seed that orients a row's undirected edges.

    Example:
        >>> k = RowKey("a", "obs", 0)
        >>> row_orientation_seed(k, 1) == row_orientation_seed(k, 1) != row_orientation_seed(k, 2)
        True
    """
    return orientation_seed(f"{key.id}/{key.split}/rep-{key.replicate}", release_seed)


class Truths:
    """Ground truth of a package's SCMs: public folders, plus reserved ones from an archive."""

    def __init__(self, pkg: Path, release: dict[str, Any], reserved: Path | None) -> None:
        self.pkg, self.release, self.reserved = pkg, release, reserved
        self._cache: dict[str, GroundTruth] = {}

    def get(self, key: RowKey) -> GroundTruth | None:
        """The truth of ``key``'s SCM, or None when this evaluator does not hold it."""
        if key.id in self._cache:
            return self._cache[key.id]
        folder = self.pkg / "public" / key.id if key.part == "public" else \
            (self.reserved / key.id if self.reserved is not None else None)
        if folder is None or not (folder / "metadata.json").is_file():
            return None
        self._cache[key.id] = load_truth(folder)
        return self._cache[key.id]


@contextmanager
def open_truths(pkg: Path, release: dict[str, Any], archive: Path | None) -> Iterator[Truths]:
    """:class:`Truths` of a package; the archive (if given) must be this release's."""
    with ExitStack() as stack:
        reserved = None
        if archive is not None:
            expected = (release.get("truth_archive") or {}).get("sha256")
            if not archive.is_file() or sha256(archive) != expected:
                raise ReleaseError(f"{archive} is not the truth archive of release "
                                   f"{release.get('version')}", "pass the archive written "
                                   "with this package (its hash is in release.json)")
            _, reserved = stack.enter_context(extracted(archive))
        yield Truths(pkg, release, reserved)


def factors(key: RowKey, facts: dict[str, Any], truth: GroundTruth | None) -> dict[str, Any]:
    """Slice factors of a row: from the truth's metadata when held, else the data facts."""
    meta = truth.metadata if truth is not None else {}
    synthetic = meta.get("factors") or {}
    n = meta.get("n") or {}
    rows = n.get("obs") if key.split == "obs" else \
        (n.get("obsint_obs") or 0) + (n.get("obsint_int") or 0) if n else None
    if rows is None:
        rows = (facts.get("splits", {}).get(key.split) or {}).get("rows")
    return {"family": meta.get("family", facts.get("family")),
            "domain": meta.get("domain", facts.get("domain")),
            "d": meta.get("d", len(facts.get("columns", [])) or None),
            "graph": synthetic.get("graph"), "mechanism": synthetic.get("mechanism_families"),
            "noise": synthetic.get("noise_families"), "protocol": synthetic.get("protocol"),
            "n": rows, "split": key.split}


def score(key: RowKey, prediction: Path, truth: GroundTruth, release_seed: int
          ) -> dict[str, Any]:
    """Directed-graph metrics of a row's prediction (conversion rules in the module docstring)."""
    graph = read_prediction(prediction, truth.observed)
    metrics = score_graph(graph, truth.dag, "dag", row_orientation_seed(key, release_seed))
    return {k: metrics[k] for k in KEPT}
