"""Read a predicted graph in whatever shape a method wrote it, aligned to the true variables.

Accepted (see docs/scoring.md for the full rules):

* adjacency matrix as CSV/TSV, with or without a header row and/or an index column, or NPY;
  a symmetric pair is an undirected (CPDAG) edge;
* causal-learn endpoint matrices (``cg.G.graph``, ``Record['G'].graph``) as NPY or CSV;
* weighted matrices (|w| > threshold is an edge);
* edge lists: text lines ``a -> b``, ``a -- b``, ``a <-> b`` (also ``<-``, ``o->``, ``o-o``) or
  CSV with ``source,target`` columns and an optional ``type`` column;
* any file :func:`scmspec.interop.formats.write_graph` writes.

Every reader returns a :class:`MixedGraph` over the true variables in their order, or raises
:class:`InteropError` saying what is wrong with the file.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd

from scmspec.interop.formats import from_bnlearn, from_causallearn, from_edge_list, read_graph
from scmspec.interop.graphs import InteropError, MixedGraph

ENCODINGS = ("auto", "adjacency", "causallearn", "weighted")
PREDICTION_SUFFIXES = (".csv", ".tsv", ".npy", ".txt", ".edges", ".json", ".gml", ".graphml",
                       ".dot")
_ARROWS = {"->": "fwd", "-->": "fwd", "<-": "back", "<--": "back", "--": "undirected",
           "---": "undirected", "<->": "bidirected", "o->": "fwd", "<-o": "back",
           "o-o": "undirected"}
_TYPES = {"directed": "fwd", "undirected": "undirected", "bidirected": "bidirected", **_ARROWS}
_CAUSALLEARN_CODES = {-1.0, 0.0, 1.0, 2.0, 4.0, 5.0}


def read_prediction(path: Path, nodes: Sequence[str], encoding: str = "auto",
                    threshold: float = 0.5) -> MixedGraph:
    """A predicted graph over ``nodes`` (the true observed variables, in order).

    Example:
        >>> import tempfile
        >>> p = Path(tempfile.mkdtemp()) / "pred.txt"
        >>> _ = p.write_text("a -> b\\nb -- c\\n")
        >>> sorted(read_prediction(p, ["a", "b", "c"]).edges())
        [('a', 'b', 'directed'), ('b', 'c', 'undirected')]
    """
    path = Path(path)
    if encoding not in ENCODINGS:
        raise InteropError(f"unknown encoding {encoding!r}", f"use one of {', '.join(ENCODINGS)}")
    if not path.is_file():
        raise InteropError(f"no prediction file {path}")
    try:
        return _read(path, nodes, encoding, threshold)
    except InteropError:
        raise
    except (ValueError, OSError, KeyError, IndexError, SyntaxError, nx.NetworkXError) as exc:
        # a malformed file (CSV, NPY, JSON, GML, GraphML) is the user's, not our bug
        raise InteropError(f"{path}: cannot read ({type(exc).__name__}: {exc})") from None


def _read(path: Path, nodes: Sequence[str], encoding: str, threshold: float) -> MixedGraph:
    name = path.name.lower()
    if name.endswith(".npy"):
        matrix = np.load(path, allow_pickle=False)
        return matrix_graph(np.asarray(matrix, dtype=float), None, nodes, encoding, threshold)
    if name.endswith((".csv", ".tsv")):
        return _read_table(path, nodes, encoding, threshold)
    if name.endswith((".json", ".gml", ".graphml", ".dot")):
        return embed(read_graph(path), nodes)
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        return embed(from_bnlearn(text), nodes)
    return embed(parse_edge_lines(text), nodes)


def embed(g: MixedGraph, nodes: Sequence[str]) -> MixedGraph:
    """``g`` placed over ``nodes``: names missing from ``g`` become isolated nodes, and a pair
    given in both directions becomes one undirected edge (the CPDAG-matrix rule)."""
    unknown = [n for n in g.nodes if n not in set(nodes)]
    if unknown:
        raise InteropError(f"the prediction names variables the truth does not have: "
                           f"{', '.join(unknown[:10])}", "use the observed column names of obs.csv")
    idx = [list(nodes).index(n) for n in g.nodes]
    d = len(nodes)
    mats = []
    for m in (g.directed, g.undirected, g.bidirected):
        out = np.zeros((d, d), dtype=np.int8)
        out[np.ix_(idx, idx)] = m
        mats.append(out)
    mutual = mats[0] & mats[0].T  # a pair given both ways is undirected, as in a CPDAG matrix
    return MixedGraph.build(nodes, mats[0] & (1 - mutual), mats[1] | mutual, mats[2])


def parse_edge_lines(text: str) -> MixedGraph:
    """Edge-list text: one edge per line (``a -> b``), a bare name declares a node, ``#``
    starts a comment."""
    nodes: list[str] = []
    edges: list[tuple[str, str, str]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip().rstrip(";")
        if not line:
            continue
        parts = line.split()
        if len(parts) == 1 and not any(a in line for a in _ARROWS):
            nodes.append(parts[0])
            continue
        if len(parts) != 3 or parts[1] not in _ARROWS:
            raise InteropError(f"line {number}: cannot read {raw.strip()!r} as an edge",
                               'write one edge per line: "a -> b", "a -- b" or "a <-> b"')
        edges.append(_edge(parts[0], parts[2], _ARROWS[parts[1]]))
    return from_edge_list(nodes, edges)


def _edge(a: str, b: str, kind: str) -> tuple[str, str, str]:
    if kind == "fwd":
        return a, b, "directed"
    if kind == "back":
        return b, a, "directed"
    return a, b, kind


def _read_table(path: Path, nodes: Sequence[str], encoding: str, threshold: float) -> MixedGraph:
    sep = "\t" if path.name.lower().endswith(".tsv") else ","
    raw = pd.read_csv(path, header=None, dtype=str, keep_default_na=False, sep=sep)
    if raw.empty:
        return embed(MixedGraph.build([]), nodes)
    first = [c.strip().lower() for c in raw.iloc[0]]
    if "source" in first and "target" in first:
        return _read_edge_table(raw, first, nodes)
    # "a,0,1" starts an index-only matrix; a header row has a non-number after its first cell
    has_header = any(not _is_number(c) for c in raw.iloc[0, 1:]) or raw.shape[1] == 1
    body = raw.iloc[1:] if has_header else raw
    has_index = any(not _is_number(c) for c in body.iloc[:, 0])
    header = [str(c).strip() for c in raw.iloc[0]] if has_header else None
    col_names: list[str] | None
    row_names: list[str] | None
    if has_index:
        row_names = [str(c).strip() for c in body.iloc[:, 0]]
        body = body.iloc[:, 1:]
        col_names = header[1:] if header else row_names
    else:
        col_names = header
        row_names = header
    if body.empty:
        raise InteropError(f"{path}: no matrix rows below the header",
                           "write a d x d matrix, or an edge list with source,target columns")
    values = _numbers(body, path)
    if col_names is not None and row_names is not None and row_names != col_names:
        if sorted(row_names) != sorted(col_names):
            raise InteropError(f"{path}: row labels and column labels name different variables")
        values = pd.DataFrame(values, index=row_names, columns=col_names).loc[col_names].to_numpy()
    return matrix_graph(values, col_names, nodes, encoding, threshold)


def _read_edge_table(raw: pd.DataFrame, first: list[str], nodes: Sequence[str]) -> MixedGraph:
    table = raw.iloc[1:]
    s, t = first.index("source"), first.index("target")
    kinds = table.iloc[:, first.index("type")] if "type" in first else ["directed"] * len(table)
    edges = []
    for a, b, k in zip(table.iloc[:, s], table.iloc[:, t], kinds):
        kind = _TYPES.get(str(k).strip().lower() or "directed")
        if kind is None:
            raise InteropError(f"unknown edge type {k!r}", "use directed, undirected or bidirected")
        edges.append(_edge(str(a).strip(), str(b).strip(), kind))
    return embed(from_edge_list([], edges), nodes)


def _is_number(text: object) -> bool:
    try:
        float(str(text))
    except ValueError:
        return False
    return True


def _numbers(body: pd.DataFrame, path: Path) -> np.ndarray:
    try:
        return body.to_numpy(dtype=float)
    except ValueError as exc:
        raise InteropError(f"{path}: a matrix cell is not a number ({exc})") from None


def matrix_graph(m: np.ndarray, names: Sequence[str] | None, nodes: Sequence[str],
                 encoding: str = "auto", threshold: float = 0.5) -> MixedGraph:
    """Interpret a square matrix (see :data:`ENCODINGS`) and align its names to ``nodes``."""
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise InteropError(f"the prediction matrix is {m.shape}, not square")
    if not np.all(np.isfinite(m)):
        raise InteropError("the prediction matrix has NaN or infinite entries")
    if names is None:
        if m.shape[0] != len(nodes):
            raise InteropError(f"the unlabelled {m.shape[0]}x{m.shape[0]} matrix does not fit "
                               f"{len(nodes)} observed variables", "label rows and columns")
        names = list(nodes)
    elif sorted(names) != sorted(nodes):
        missing = sorted(set(nodes) - set(names))
        extra = sorted(set(names) - set(nodes))
        raise InteropError("the prediction's variables differ from the truth's (missing: "
                           f"{', '.join(missing) or '-'}; unknown: {', '.join(extra) or '-'})")
    kind = detect_encoding(m) if encoding == "auto" else encoding
    if kind == "causallearn":
        return from_causallearn(m.astype(np.int64), names).reorder(nodes)
    if kind == "adjacency" and not np.isin(m, (0.0, 1.0)).all():
        raise InteropError("an adjacency matrix holds only 0 and 1",
                           "pass --encoding weighted with --threshold for weights")
    edges = (np.abs(m) > threshold) if kind == "weighted" else (m != 0)
    np.fill_diagonal(edges, False)
    return MixedGraph.from_cpdag_matrix(names, edges).reorder(nodes)


def detect_encoding(m: np.ndarray) -> str:
    """0/1 -> adjacency; integer codes with a -1 -> causal-learn; anything else -> weighted."""
    values = set(np.unique(m).tolist())
    if values <= {0.0, 1.0}:
        return "adjacency"
    if values <= _CAUSALLEARN_CODES and -1.0 in values and all(math.isfinite(v) for v in values):
        return "causallearn"
    return "weighted"
