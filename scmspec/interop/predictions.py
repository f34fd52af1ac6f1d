"""Read a predicted graph in whatever shape a method wrote it, aligned to the true variables.

Accepted (see docs/scoring.md for the full rules):

* adjacency matrix as CSV/TSV, with or without a header row and/or an index column, or NPY;
  a symmetric pair is an undirected (CPDAG) edge;
* causal-learn endpoint matrices (``cg.G.graph``, ``Record['G'].graph``) as NPY or CSV;
* weighted matrices (|w| > threshold is an edge);
* edge lists: text lines ``a -> b``, ``a -- b``, ``a <-> b`` (also ``<-``, ``o->``, ``o-o``,
  ``--o``; any token :func:`scmspec.interop.marks.parse_arrow` reads) or CSV with
  ``source,target`` columns and an optional ``type`` column;
* any file :func:`scmspec.interop.formats.write_graph` writes.

Everything is read into a :class:`~scmspec.interop.marks.MarkGraph` first (:func:`read_marks`:
circles kept, for PAG/MAG/ADMG scoring); :func:`read_prediction` is the DAG-scoring view of the
same file, where a circle reads as a tail (``o->`` is ``->``, ``o-o`` is ``--``).

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

from scmspec.interop.formats import from_bnlearn, read_graph
from scmspec.interop.graphs import InteropError, MixedGraph
from scmspec.interop.marks import (
    ARROW,
    CIRCLE,
    TAIL,
    Edge,
    MarkGraph,
    from_causallearn_marks,
    parse_arrow,
)

ENCODINGS = ("auto", "adjacency", "causallearn", "weighted")
PREDICTION_SUFFIXES = (".csv", ".tsv", ".npy", ".txt", ".edges", ".json", ".gml", ".graphml",
                       ".dot")
_TYPES = {"directed": (TAIL, ARROW), "undirected": (TAIL, TAIL), "bidirected": (ARROW, ARROW)}
_CAUSALLEARN_CODES = {-1.0, 0.0, 1.0, 2.0, 4.0, 5.0}


def read_prediction(path: Path, nodes: Sequence[str], encoding: str = "auto",
                    threshold: float = 0.5) -> MixedGraph:
    """A predicted graph over ``nodes`` (the true observed variables, in order), circles read
    as tails (the liberal rule for DAG and CPDAG scoring).

    Example:
        >>> import tempfile
        >>> p = Path(tempfile.mkdtemp()) / "pred.txt"
        >>> _ = p.write_text("a -> b\\nb -- c\\nc o-> a\\n")
        >>> sorted(read_prediction(p, ["a", "b", "c"]).edges())
        [('a', 'b', 'directed'), ('b', 'c', 'undirected'), ('c', 'a', 'directed')]
    """
    return liberal(read_marks(path, nodes, encoding, threshold))


def read_marks(path: Path, nodes: Sequence[str], encoding: str = "auto",
               threshold: float = 0.5) -> MarkGraph:
    """A predicted graph over ``nodes`` with every endpoint mark as written (circles kept).

    Example:
        >>> import tempfile
        >>> p = Path(tempfile.mkdtemp()) / "pred.txt"
        >>> _ = p.write_text("a o-> b\\nb <-> c\\n")
        >>> read_marks(p, ["a", "b", "c"]).lines()
        ['a o-> b', 'b <-> c']
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


def liberal(g: MarkGraph) -> MixedGraph:
    """The mixed graph with every circle read as a tail (``o->`` is ``->``, ``o-o`` is ``--``).

    Example:
        >>> liberal(MarkGraph.parse("ab", ["a o-> b"])).edges().__next__()
        ('a', 'b', 'directed')
    """
    swap = {CIRCLE: TAIL}
    return MarkGraph.build(g.nodes, {(i, j, swap.get(mi, mi), swap.get(mj, mj))
                                     for i, j, mi, mj in g.edges}).to_mixed()


def _read(path: Path, nodes: Sequence[str], encoding: str, threshold: float) -> MarkGraph:
    name = path.name.lower()
    if name.endswith(".npy"):
        matrix = np.load(path, allow_pickle=False)
        return matrix_marks(np.asarray(matrix, dtype=float), None, nodes, encoding, threshold)
    if name.endswith((".csv", ".tsv")):
        return _read_table(path, nodes, encoding, threshold)
    if name.endswith((".json", ".gml", ".graphml", ".dot")):
        return embed(MarkGraph.from_mixed(read_graph(path)), nodes)
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        return embed(MarkGraph.from_mixed(from_bnlearn(text)), nodes)
    return embed(parse_edge_lines(text), nodes)


def embed(g: MarkGraph, nodes: Sequence[str]) -> MarkGraph:
    """``g`` placed over ``nodes``: names missing from ``g`` become isolated nodes, and a pair
    given as ``a -> b`` and ``b -> a`` becomes one undirected edge (the CPDAG-matrix rule)."""
    known = set(nodes)
    unknown = [n for n in g.nodes if n not in known]
    if unknown:
        raise InteropError(f"the prediction names variables the truth does not have: "
                           f"{', '.join(unknown[:10])}", "use the observed column names of obs.csv")
    index = {n: k for k, n in enumerate(nodes)}
    by_pair: dict[tuple[int, int], set[tuple[int, int]]] = {}
    for i, j, mi, mj in g.edges:
        a, b = index[g.nodes[i]], index[g.nodes[j]]
        pair, ends = ((a, b), (mi, mj)) if a < b else ((b, a), (mj, mi))
        by_pair.setdefault(pair, set()).add(ends)
    edges: list[Edge] = []
    for (a, b), marks in by_pair.items():
        if {(TAIL, ARROW), (ARROW, TAIL)} <= marks:  # both directions: one undirected edge
            marks = (marks - {(TAIL, ARROW), (ARROW, TAIL)}) | {(TAIL, TAIL)}
        if len(marks) > 1 and not (len(marks) == 2 and (ARROW, ARROW) in marks and (
                marks & {(TAIL, ARROW), (ARROW, TAIL)})):
            raise InteropError(f"two different edges between {nodes[a]} and {nodes[b]}",
                               "give each pair one edge (a pair may add <-> to a directed edge)")
        edges += [(a, b, mi, mj) for mi, mj in marks]
    return MarkGraph.build(nodes, edges)


def parse_edge_lines(text: str) -> MarkGraph:
    """Edge-list text: one edge per line (``a -> b``, ``a o-> b``), a bare name declares a
    node, ``#`` starts a comment."""
    nodes: list[str] = []
    edges: list[tuple[str, str, int, int]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip().rstrip(";")
        if not line:
            continue
        parts = line.split()
        if len(parts) == 1 and parse_arrow(parts[0]) is None:
            nodes.append(parts[0])
            continue
        marks = parse_arrow(parts[1]) if len(parts) == 3 else None
        if marks is None:
            raise InteropError(f"line {number}: cannot read {raw.strip()!r} as an edge",
                               'write one edge per line: "a -> b", "a -- b", "a <-> b" or '
                               '"a o-> b"')
        edges.append((parts[0], parts[2], *marks))
    return named_edges(nodes, edges)


def named_edges(nodes: Sequence[str], edges: Sequence[tuple[str, str, int, int]]) -> MarkGraph:
    """A graph from ``(a, b, mark at a, mark at b)``; nodes only named by edges are appended."""
    names = list(dict.fromkeys([*nodes, *(n for a, b, _, _ in edges for n in (a, b))]))
    index = {n: k for k, n in enumerate(names)}
    out: list[Edge] = []
    for a, b, ma, mb in edges:
        if a == b:
            raise InteropError(f"the edge {a} - {b} is a self loop")
        out.append((index[a], index[b], ma, mb))
    return MarkGraph.build(names, out)


def _read_table(path: Path, nodes: Sequence[str], encoding: str, threshold: float) -> MarkGraph:
    sep = "\t" if path.name.lower().endswith(".tsv") else ","
    raw = pd.read_csv(path, header=None, dtype=str, keep_default_na=False, sep=sep)
    if raw.empty:
        return embed(MarkGraph.build([], []), nodes)
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
    return matrix_marks(values, col_names, nodes, encoding, threshold)


def _read_edge_table(raw: pd.DataFrame, first: list[str], nodes: Sequence[str]) -> MarkGraph:
    table = raw.iloc[1:]
    s, t = first.index("source"), first.index("target")
    kinds = table.iloc[:, first.index("type")] if "type" in first else ["directed"] * len(table)
    edges = []
    for a, b, k in zip(table.iloc[:, s], table.iloc[:, t], kinds):
        text = str(k).strip()
        marks = _TYPES.get(text.lower() or "directed") or parse_arrow(text)
        if marks is None:
            raise InteropError(f"unknown edge type {k!r}",
                               "use directed, undirected, bidirected or an arrow such as o->")
        edges.append((str(a).strip(), str(b).strip(), *marks))
    return embed(named_edges([], edges), nodes)


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


def matrix_marks(m: np.ndarray, names: Sequence[str] | None, nodes: Sequence[str],
                 encoding: str = "auto", threshold: float = 0.5) -> MarkGraph:
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
        return from_causallearn_marks(m.astype(np.int64), names).reorder(nodes)
    if kind == "adjacency" and not np.isin(m, (0.0, 1.0)).all():
        raise InteropError("an adjacency matrix holds only 0 and 1",
                           "pass --encoding weighted with --threshold for weights")
    edges = (np.abs(m) > threshold) if kind == "weighted" else (m != 0)
    np.fill_diagonal(edges, False)
    return MarkGraph.from_mixed(MixedGraph.from_cpdag_matrix(names, edges).reorder(nodes))


def detect_encoding(m: np.ndarray) -> str:
    """0/1 -> adjacency; causal-learn endpoint codes with a tail (-1) or a circle (2) and a mark
    at both ends of every edge -> causal-learn; anything else -> weighted.

    Example:
        >>> detect_encoding(np.array([[0, 2], [1, 0]]))  # FCI's a o-> b
        'causallearn'
        >>> detect_encoding(np.array([[0, 2], [0, 0]]))  # a weight
        'weighted'
    """
    values = set(np.unique(m).tolist())
    if values <= {0.0, 1.0}:
        return "adjacency"
    both_ends = np.array_equal(m != 0, (m != 0).T)
    if values <= _CAUSALLEARN_CODES and values & {-1.0, 2.0} and both_ends \
            and all(math.isfinite(v) for v in values):
        return "causallearn"
    return "weighted"
