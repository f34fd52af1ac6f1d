"""The tables of one SCM, one split, one replicate, as a method consumes them.

A :class:`Dataset` is plain pandas and numpy, aligned by construction: ``data`` and ``mask``
have the same rows and columns (the observed variables in card order), ``graph`` is the true
adjacency over exactly those columns, and ``targets`` names the intervened variables of each
row (empty for observational rows). Nothing here reads files; a source
(:mod:`scmspec.datasets.sources`) builds it, so every layout (a compiled pool, a release
package) hands over the same object.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from scmspec.errors import ScmspecError

SPLITS = ("obs", "obsint")
SPLIT_ALIASES = {"obs": "obs", "obsint": "obsint", "obs+int": "obsint", "obs_int": "obsint"}


class DatasetError(ScmspecError):
    """A dataset that cannot be loaded as asked (unknown id, split or replicate): the message
    says what exists."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.message,))


def split_name(split: str) -> str:
    """``obs`` or ``obsint`` (``obs+int`` accepted, as the reference protocol writes it).

    Example:
        >>> split_name("obs+int")
        'obsint'
    """
    try:
        return SPLIT_ALIASES[split]
    except KeyError:
        raise DatasetError(f"unknown split {split!r}: use obs or obsint") from None


@dataclass(frozen=True)
class Dataset:
    """One SCM's data, intervention mask, true graph and metadata for one split and replicate.

    Example:
        >>> ds = Dataset("demo", "obs", 0, pd.DataFrame({"x": [0.1, 0.2]}),
        ...              pd.DataFrame({"x": [0, 0]}), pd.DataFrame([[0]], ["x"], ["x"]))
        >>> ds.shape, ds.variables, ds.interventional_rows
        ((2, 1), ('x',), 0)
    """

    id: str
    split: str
    replicate: int
    data: pd.DataFrame
    mask: pd.DataFrame
    graph: pd.DataFrame
    targets: tuple[tuple[str, ...], ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    missing: pd.DataFrame | None = None  # observed_if: 1 where the cell was not recorded

    def __post_init__(self) -> None:
        columns = list(self.data.columns)
        if self.missing is not None and (list(self.missing.columns) != columns
                                         or len(self.missing) != len(self.data)):
            raise DatasetError(f"{self.id}: the missingness mask does not match the data")
        if list(self.mask.columns) != columns or len(self.mask) != len(self.data):
            raise DatasetError(f"{self.id}: the mask does not match the data's shape")
        if list(self.graph.columns) != columns or list(self.graph.index) != columns:
            raise DatasetError(f"{self.id}: the graph is not over the data's columns")

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.data.shape[0]), int(self.data.shape[1]))

    @property
    def variables(self) -> tuple[str, ...]:
        return tuple(str(c) for c in self.data.columns)

    @property
    def interventional_rows(self) -> int:
        """Rows where some variable was set by an intervention."""
        return int(np.asarray(self.mask).any(axis=1).sum())

    @property
    def adjacency(self) -> np.ndarray:
        """The true graph as a 0/1 matrix, row i -> column j, in ``variables`` order."""
        return self.graph.to_numpy(dtype=np.int8)
