"""Where datasets come from: a compiled pool or SCM folder today, a release package later.

A *source* lists SCM ids and reads one :class:`~scmspec.datasets.dataset.Dataset`. Sources
are tried in the order of :data:`SOURCES`, each asked whether a path is its layout
(``open(path)`` returns a source or ``None``); the first that recognises it reads it.
Registration is explicit: a release package reader is a class with the same three methods,
added to :data:`SOURCES` (or passed to :func:`load` already opened). Nothing else changes:
:func:`load` and every user of a :class:`Dataset` stay as they are.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from scmspec.datasets.dataset import Dataset, DatasetError, split_name
from scmspec.textio import read_table


class Source(Protocol):
    """A layout of compiled datasets."""

    root: Path

    def ids(self) -> list[str]:
        """Every SCM id with data, in the source's order."""
        ...

    def read(self, scm_id: str, split: str, replicate: int) -> Dataset:
        """One SCM's tables (``split`` is ``obs`` or ``obsint``)."""
        ...


class CompiledPool:
    """The output of ``scmspec compile --out DIR`` (``manifest.json``), or one ``DIR/<id>``.

    SCMs recorded in the manifest without a dataset folder (status ``failed``) are known, so
    asking for one says why it has no data.
    """

    def __init__(self, root: Path, entries: dict[str, dict[str, Any]]) -> None:
        self.root, self._entries = root, entries

    @classmethod
    def open(cls, path: Path) -> CompiledPool | None:
        if (path / "metadata.json").is_file():
            meta = _json(path / "metadata.json")
            scm_id = str(meta.get("id", path.name))
            return cls(path.parent, {scm_id: {"folder": path, **meta}})
        if not (path / "manifest.json").is_file():
            return None
        entries = {}
        for entry in _json(path / "manifest.json").get("scms", []):
            if entry.get("id"):
                entries[str(entry["id"])] = {"folder": path / str(entry["id"]), **entry}
        return cls(path, entries)

    def ids(self) -> list[str]:
        return [i for i, e in self._entries.items() if (e["folder"] / "metadata.json").is_file()]

    def read(self, scm_id: str, split: str, replicate: int) -> Dataset:
        folder = self._folder(scm_id)
        meta = _json(folder / "metadata.json")
        reps = int(meta.get("replicates", 1))
        if not 0 <= replicate < reps:
            raise DatasetError(f"{scm_id} has replicates 0-{reps - 1}, not {replicate}")
        rep = folder / f"rep-{replicate}"
        data = read_table(rep / split)
        if split == "obsint":
            mask = read_table(rep / "obsint_mask")
            records = read_table(rep / "obsint_records", keep_default_na=False,
                                 dtype={"targets": str})
            targets = tuple(tuple(t.split(";")) if t else () for t in records["targets"])
        else:
            mask = pd.DataFrame(0, index=data.index, columns=data.columns)
            targets = ((),) * len(data)
        graph = pd.read_csv(folder / "graph" / "adjacency.csv", index_col=0)
        graph.index = graph.index.astype(str)
        return Dataset(scm_id, split, replicate, data, mask.astype("int8"), graph.astype("int8"),
                       targets, meta)

    def _folder(self, scm_id: str) -> Path:
        if scm_id not in self._entries:
            known = list(self._entries)
            guess = difflib.get_close_matches(scm_id, known, n=1)
            hint = f"did you mean {guess[0]!r}? " if guess else ""
            raise DatasetError(f"no SCM {scm_id!r} in {self.root}; {hint}known: "
                               f"{', '.join(known[:20])}{' ...' if len(known) > 20 else ''}")
        entry = self._entries[scm_id]
        if not (entry["folder"] / "metadata.json").is_file():
            raise DatasetError(f"{scm_id} has no dataset (status {entry.get('status')!r}: "
                               "see the manifest's diagnostics)")
        return Path(entry["folder"])


SOURCES: tuple[Any, ...] = (CompiledPool,)  # the release package reader joins here


def open_source(path: str | Path) -> Source:
    """The source that recognises ``path`` (see :data:`SOURCES`)."""
    root = Path(path)
    if not root.exists():
        raise DatasetError(f"{root} does not exist")
    for kind in SOURCES:
        source = kind.open(root)
        if source is not None:
            return source  # type: ignore[no-any-return]
    raise DatasetError(f"{root} is not a compiled pool (no manifest.json) nor an SCM folder "
                       "(no metadata.json); pass the --out folder of scmspec compile")


def load(path_or_pool: str | Path | Source, id: str | None = None, split: str = "obs",
         replicate: int = 0) -> Dataset:
    """Data, mask, true graph and metadata of one SCM's split and replicate.

    ``path_or_pool`` is a compiled pool (``scmspec compile --out DIR``), one SCM folder
    (``DIR/<id>``), or an opened :class:`Source`. ``id`` may be left out when the source holds
    one SCM. ``split`` is ``obs`` or ``obsint`` (``obs+int``).

    Example:
        >>> import tempfile
        >>> load(tempfile.mkdtemp())
        Traceback (most recent call last):
        ...
        scmspec.datasets.dataset.DatasetError: ... is not a compiled pool ...
    """
    source = open_source(path_or_pool) if isinstance(path_or_pool, (str, Path)) \
        else path_or_pool
    chosen = split_name(split)
    if id is None:
        ids = source.ids()
        if len(ids) != 1:
            raise DatasetError(f"{source.root} holds {len(ids)} SCMs; name one: "
                               f"{', '.join(ids[:20])}")
        id = ids[0]
    return source.read(id, chosen, int(replicate))


def _json(path: Path) -> dict[str, Any]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return doc if isinstance(doc, dict) else {}
