"""One call from a compiled pool to the tables a method needs: data, mask, graph, metadata.

Public API:
    load(path_or_pool, id=None, split="obs", replicate=0) -> Dataset
    Dataset                              the tables of one SCM, split and replicate
    open_source(path) -> Source          the reader of a pool, an SCM folder (or, later, a
                                         release package)
    SOURCES                              the layouts open_source tries, in order

Example (docs/data-layout.md has the full walk-through)::

    from scmspec import datasets
    ds = datasets.load("data", "barometric_slp", split="obsint", replicate=2)
    X, M, A = ds.data, ds.mask, ds.graph
"""

from __future__ import annotations

from scmspec.datasets.dataset import SPLITS, Dataset, DatasetError
from scmspec.datasets.sources import SOURCES, CompiledPool, Source, load, open_source

__all__ = ["SOURCES", "SPLITS", "CompiledPool", "Dataset", "DatasetError", "Source", "load",
           "open_source"]
