"""Graph file formats: write a :class:`MixedGraph` and read it back, losslessly.

| format      | file                     | mixed edges                                            |
|-------------|--------------------------|--------------------------------------------------------|
| adjacency   | ``<name>.csv``           | CPDAG encoding; an ADMG is two files (see below)       |
| networkx    | ``<name>.json``          | node-link JSON; edge attribute ``type``                |
| gml         | ``<name>.gml``           | edge attribute ``type``                                |
| graphml     | ``<name>.graphml``       | edge attribute ``type``                                |
| dot         | ``<name>.dot``           | ``dir=none`` undirected, ``dir=both`` bidirected       |
| bnlearn     | ``<name>.bnlearn.txt``   | DAGs only: ``[a][b|a][c|a:b]``                         |
| causallearn | ``<name>.causallearn.npy`` | causal-learn GeneralGraph endpoint matrix            |

In networkx-based formats a graph without bidirected edges is a ``DiGraph`` and an undirected
edge appears in both directions, so ``nx.to_numpy_array`` gives the CPDAG encoding; a graph with
bidirected edges is a ``MultiDiGraph`` and each bidirected edge appears once (first node first in
node order). :func:`read_graph` accepts every file :func:`write_graph` writes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from scmspec.interop.graphs import EDGE_TYPES, InteropError, MixedGraph

GRAPH_FORMATS = ("adjacency", "networkx", "gml", "graphml", "dot", "bnlearn", "causallearn")
SUFFIX = {"adjacency": ".csv", "networkx": ".json", "gml": ".gml", "graphml": ".graphml",
          "dot": ".dot", "bnlearn": ".bnlearn.txt", "causallearn": ".causallearn.npy"}
# causal-learn endpoint codes (causallearn.graph.Endpoint): graph[i, j] is the mark at i.
TAIL, ARROW, CIRCLE, TAIL_AND_ARROW, ARROW_AND_ARROW = -1, 1, 2, 4, 5


def supports(fmt: str, g: MixedGraph) -> bool:
    """bnlearn model strings hold DAGs only; every other format holds any mixed graph."""
    return fmt != "bnlearn" or (not g.undirected.any() and not g.bidirected.any())


def write_graph(g: MixedGraph, stem: Path, fmt: str,
                node_attrs: Mapping[str, Mapping[str, Any]] | None = None,
                graph_attrs: Mapping[str, Any] | None = None) -> list[Path]:
    """Write ``g`` as ``stem`` + the format's suffix; returns the files written."""
    if fmt not in GRAPH_FORMATS:
        raise InteropError(f"unknown graph format {fmt!r}",
                           f"use one of {', '.join(GRAPH_FORMATS)}")
    if not supports(fmt, g):
        raise InteropError(f"{fmt} cannot hold undirected or bidirected edges")
    stem.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "adjacency":
        return write_adjacency(g, stem)
    path = stem.with_name(stem.name + SUFFIX[fmt])
    if fmt == "causallearn":
        np.save(path, to_causallearn(g))
    elif fmt == "dot":
        path.write_text(to_dot(g, stem.name), encoding="utf-8")
    elif fmt == "bnlearn":
        path.write_text(to_bnlearn(g) + "\n", encoding="utf-8")
    else:
        _write_nx(to_nx(g, node_attrs, graph_attrs), path, fmt)
    return [path]


def read_graph(path: Path, nodes: Sequence[str] | None = None) -> MixedGraph:
    """Read any file written by :func:`write_graph` (``nodes`` names a bare ``.npy`` matrix)."""
    path = Path(path)
    name = path.name
    if name.endswith("_directed.csv"):
        return read_admg_csv(path, path.with_name(name.replace("_directed.csv", "_bidirected.csv")))
    if name.endswith(".npy"):
        matrix = np.load(path)
        return from_causallearn(matrix, nodes or _default_nodes(matrix.shape[0]))
    if name.endswith(".csv"):
        return read_adjacency(path)
    text = path.read_text(encoding="utf-8")
    if name.endswith(".dot"):
        return from_dot(text)
    if name.endswith(".bnlearn.txt") or text.lstrip().startswith("["):
        return from_bnlearn(text)
    if name.endswith(".json"):
        return from_nx(nx.node_link_graph(json.loads(text), edges="edges"))
    if name.endswith(".gml"):
        return from_nx(nx.parse_gml(text, label="label"))
    if name.endswith(".graphml"):
        return from_nx(nx.read_graphml(path, node_type=str))
    raise InteropError(f"cannot tell the graph format of {path}",
                       "use .csv, .npy, .json, .gml, .graphml, .dot or .bnlearn.txt")


def _default_nodes(d: int) -> list[str]:
    return [f"x{i}" for i in range(d)]


# -- adjacency CSV ---------------------------------------------------------------------------------
def write_adjacency(g: MixedGraph, stem: Path) -> list[Path]:
    """``stem.csv`` (CPDAG encoding) or, with bidirected edges, ``stem_directed.csv`` and
    ``stem_bidirected.csv`` (the ADMG's two matrices)."""
    def frame(m: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame(m.astype(np.int64), index=list(g.nodes), columns=list(g.nodes))

    if not g.bidirected.any():
        path = stem.with_name(stem.name + ".csv")
        frame(g.cpdag_matrix()).to_csv(path, lineterminator="\n")
        return [path]
    out = [stem.with_name(f"{stem.name}_directed.csv"),
           stem.with_name(f"{stem.name}_bidirected.csv")]
    frame(g.directed).to_csv(out[0], lineterminator="\n")
    frame(g.bidirected).to_csv(out[1], lineterminator="\n")
    return out


def read_adjacency(path: Path) -> MixedGraph:
    table = pd.read_csv(path, index_col=0)
    _check_labels(table, path)
    return MixedGraph.from_cpdag_matrix([str(c) for c in table.columns], table.to_numpy())


def read_admg_csv(directed: Path, bidirected: Path) -> MixedGraph:
    a, b = pd.read_csv(directed, index_col=0), pd.read_csv(bidirected, index_col=0)
    _check_labels(a, directed)
    b = b.loc[a.index, a.columns]
    return MixedGraph.build([str(c) for c in a.columns], a.to_numpy(), bidirected=b.to_numpy())


def _check_labels(table: pd.DataFrame, path: Path) -> None:
    if [str(i) for i in table.index] != [str(c) for c in table.columns]:
        raise InteropError(f"{path}: row labels differ from column labels",
                           "write the matrix with the same variable order on both axes")


# -- networkx-based formats ----------------------------------------------------------------------
def to_nx(g: MixedGraph, node_attrs: Mapping[str, Mapping[str, Any]] | None = None,
          graph_attrs: Mapping[str, Any] | None = None) -> nx.DiGraph:
    """A DiGraph (MultiDiGraph if bidirected edges exist) with edge attribute ``type``."""
    out: nx.DiGraph = nx.MultiDiGraph() if g.bidirected.any() else nx.DiGraph()
    out.graph.update({k: v for k, v in (graph_attrs or {}).items() if v is not None})
    for n in g.nodes:
        attrs = {k: _scalar(v) for k, v in (node_attrs or {}).get(n, {}).items() if v is not None}
        out.add_node(n, **attrs)
    for a, b, t in g.edges():
        out.add_edge(a, b, type=t)
        if t == "undirected":
            out.add_edge(b, a, type=t)
    return out


def _scalar(v: Any) -> Any:
    """GraphML and GML hold scalars: lists become ';'-joined text, booleans stay booleans."""
    if isinstance(v, (list, tuple)):
        return ";".join(map(str, v))
    return v if isinstance(v, (str, int, float, bool)) else str(v)


def _write_nx(graph: nx.DiGraph, path: Path, fmt: str) -> None:
    if fmt == "networkx":
        doc = nx.node_link_data(graph, edges="edges")
        path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    elif fmt == "gml":
        path.write_text("\n".join(nx.generate_gml(graph)) + "\n", encoding="utf-8")
    else:
        nx.write_graphml(graph, path)


def from_nx(graph: nx.Graph) -> MixedGraph:
    """Inverse of :func:`to_nx`; edges without a ``type`` are directed."""
    nodes = [str(n) for n in graph.nodes]
    index = {n: k for k, n in enumerate(nodes)}
    d = len(nodes)
    mats = {t: np.zeros((d, d), dtype=np.int8) for t in EDGE_TYPES}
    for a, b, data in graph.edges(data=True):
        kind = str(data.get("type", "directed"))
        if kind not in mats:
            raise InteropError(f"unknown edge type {kind!r}", f"use one of {', '.join(EDGE_TYPES)}")
        mats[kind][index[str(a)], index[str(b)]] = 1
    return MixedGraph.build(nodes, mats["directed"], mats["undirected"], mats["bidirected"])


# -- DOT -----------------------------------------------------------------------------------------
_DOT_ATTRS = {"directed": "", "undirected": " [dir=none]",
              "bidirected": " [dir=both, style=dashed]"}
_DOT_NAME = r'"((?:[^"\\]|\\.)*)"'
_DOT_EDGE = re.compile(rf"^\s*{_DOT_NAME}\s*->\s*{_DOT_NAME}\s*(\[[^\]]*\])?\s*;?\s*$")
_DOT_NODE = re.compile(r'^\s*"((?:[^"\\]|\\.)*)"\s*(\[[^\]]*\])?\s*;?\s*$')


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _unq(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s)


def to_dot(g: MixedGraph, name: str = "G") -> str:
    """Graphviz DOT: every node declared, then one line per edge.

    The graph is anonymous (``digraph {``), its name kept in the ``comment`` attribute: DoWhy
    recognises a DOT string by ``graph`` followed by ``{`` and rejects ``digraph "dag" {``. No
    ``//`` comments either, since DoWhy joins the lines of a DOT string into one.

    Example:
        >>> print(to_dot(MixedGraph.from_dag("ab", [[0, 1], [0, 0]]), "dag"), end="")
        digraph {
          graph [comment="dag"];
          "a";
          "b";
          "a" -> "b";
        }
    """
    lines = ["digraph {", f"  graph [comment={_q(name)}];"]
    lines += [f"  {_q(n)};" for n in g.nodes]
    lines += [f"  {_q(a)} -> {_q(b)}{_DOT_ATTRS[t]};" for a, b, t in g.edges()]
    return "\n".join(lines + ["}"]) + "\n"


def from_dot(text: str) -> MixedGraph:
    """Read the DOT subset :func:`to_dot` writes (quoted names, ``->`` edges, ``dir=``)."""
    nodes: list[str] = []
    edges: list[tuple[str, str, str]] = []
    for line in text.splitlines():
        m = _DOT_EDGE.match(line)
        if m:
            attrs = m.group(3) or ""
            kind = ("undirected" if "dir=none" in attrs else
                    "bidirected" if "dir=both" in attrs else "directed")
            edges.append((_unq(m.group(1)), _unq(m.group(2)), kind))
            continue
        m = _DOT_NODE.match(line)
        if m:
            nodes.append(_unq(m.group(1)))
    return from_edge_list(nodes, edges)


def from_edge_list(nodes: Sequence[str], edges: Sequence[tuple[str, str, str]]) -> MixedGraph:
    """A graph from ``(a, b, type)`` triples; nodes only named by edges are appended."""
    names = list(dict.fromkeys([*nodes, *(n for a, b, _ in edges for n in (a, b))]))
    index = {n: k for k, n in enumerate(names)}
    d = len(names)
    mats = {t: np.zeros((d, d), dtype=np.int8) for t in EDGE_TYPES}
    for a, b, t in edges:
        mats[t][index[a], index[b]] = 1
    return MixedGraph.build(names, mats["directed"], mats["undirected"], mats["bidirected"])


# -- bnlearn -------------------------------------------------------------------------------------
def to_bnlearn(g: MixedGraph) -> str:
    """bnlearn model string ``[a][b|a][c|a:b]``: nodes in topological order (ties in node
    order), parents in node order. Only DAGs have one."""
    if not g.is_dag:
        raise InteropError("bnlearn model strings hold DAGs only")
    digraph = nx.from_numpy_array(g.directed, create_using=nx.DiGraph)
    order = list(nx.lexicographical_topological_sort(digraph))
    parts = []
    for j in order:
        parents = [g.nodes[i] for i in np.flatnonzero(g.directed[:, j])]
        parts.append(f"[{g.nodes[j]}" + (f"|{':'.join(parents)}" if parents else "") + "]")
    return "".join(parts)


def from_bnlearn(text: str) -> MixedGraph:
    blocks = re.findall(r"\[([^\]]*)\]", text.strip())
    if not blocks or "".join(f"[{b}]" for b in blocks) != re.sub(r"\s+", "", text):
        raise InteropError("not a bnlearn model string", 'write it like "[a][b|a][c|a:b]"')
    nodes = [b.split("|")[0] for b in blocks]
    edges = [(p, b.split("|")[0], "directed") for b in blocks if "|" in b
             for p in b.split("|", 1)[1].split(":") if p]
    return from_edge_list(nodes, edges)


# -- causal-learn endpoint matrix ----------------------------------------------------------------
def to_causallearn(g: MixedGraph) -> np.ndarray:
    """causal-learn ``GeneralGraph.graph``: ``M[i, j]`` is the endpoint mark at ``i`` of the
    edge i-j; ``i -> j`` is ``M[i,j]=-1, M[j,i]=1``; ``i -- j`` both -1; ``i <-> j`` both 1;
    ``i -> j`` plus ``i <-> j`` is ``M[i,j]=4, M[j,i]=5`` (TAIL_AND_ARROW, ARROW_AND_ARROW)."""
    m = np.zeros((g.d, g.d), dtype=np.int64)
    m[g.undirected == 1] = TAIL
    m[g.bidirected == 1] = ARROW
    for i, j in zip(*np.nonzero(g.directed)):
        both = bool(g.bidirected[i, j])
        m[i, j], m[j, i] = (TAIL_AND_ARROW, ARROW_AND_ARROW) if both else (TAIL, ARROW)
    return m


_PAIR_CODES: dict[tuple[int, int], tuple[str, ...]] = {
    (TAIL, ARROW): ("fwd",), (ARROW, TAIL): ("back",), (TAIL, TAIL): ("undirected",),
    (ARROW, ARROW): ("bidirected",), (CIRCLE, ARROW): ("fwd",), (ARROW, CIRCLE): ("back",),
    (CIRCLE, CIRCLE): ("undirected",), (CIRCLE, TAIL): ("undirected",),
    (TAIL, CIRCLE): ("undirected",), (TAIL_AND_ARROW, ARROW_AND_ARROW): ("fwd", "bidirected"),
    (ARROW_AND_ARROW, TAIL_AND_ARROW): ("back", "bidirected"),
}


def from_causallearn(matrix: np.ndarray, nodes: Sequence[str]) -> MixedGraph:
    """Inverse of :func:`to_causallearn`. PAG circles are read as tails: ``i o-> j`` becomes
    ``i -> j`` and ``i o-o j`` becomes ``i -- j`` (documented in docs/interop.md)."""
    m = np.asarray(matrix)
    d = len(nodes)
    if m.shape != (d, d):
        raise InteropError(f"a {m.shape} endpoint matrix does not fit {d} variables")
    dr, un, bi = (np.zeros((d, d), dtype=np.int8) for _ in range(3))
    for i in range(d):
        for j in range(i + 1, d):
            pair = (int(m[i, j]), int(m[j, i]))
            if pair == (0, 0):
                continue
            if pair not in _PAIR_CODES:
                raise InteropError(f"endpoint codes {pair} between {nodes[i]} and {nodes[j]} are "
                                   "not a causal-learn edge")
            for kind in _PAIR_CODES[pair]:
                if kind == "fwd":
                    dr[i, j] = 1
                elif kind == "back":
                    dr[j, i] = 1
                else:
                    (un if kind == "undirected" else bi)[i, j] = 1
    return MixedGraph.build(nodes, dr, un, bi)
