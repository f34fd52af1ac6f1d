"""Graph objects beyond the DAG: mixed graphs, CPDAGs (Meek rules) and latent projections.

A :class:`MixedGraph` holds three 0/1 matrices over one node order: ``directed`` (``[i, j] = 1``
iff ``i -> j``), ``undirected`` and ``bidirected`` (both symmetric). A DAG uses only the first,
a CPDAG the first two, an ADMG the first and third. Every exporter and reader in
:mod:`scmspec.interop` and every metric in :mod:`scmspec.scoring` works on this one type.

Invariants: no self loops; ``undirected`` and ``bidirected`` are symmetric; a pair is never both
directed and undirected (an ADMG pair may be both directed and bidirected).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np

from scmspec.errors import ScmspecError

EDGE_TYPES = ("directed", "undirected", "bidirected")


class InteropError(ScmspecError):
    """A user-supplied graph, prediction or data folder cannot be read (message + hint)."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message, self.hint = message, hint

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.message, self.hint))

    def render(self) -> str:
        return f"error: {self.message}" + (f"\n  hint: {self.hint}" if self.hint else "")


def _square(matrix: np.ndarray | None, d: int) -> np.ndarray:
    if matrix is None:
        return np.zeros((d, d), dtype=np.int8)
    out = (np.asarray(matrix) != 0).astype(np.int8)
    if out.shape != (d, d):
        raise InteropError(f"a {out.shape} matrix does not fit {d} nodes")
    return out


@dataclass(frozen=True, eq=False)
class MixedGraph:
    """A graph with directed, undirected and bidirected edges over named nodes.

    Example:
        >>> g = MixedGraph.from_dag(["a", "b"], [[0, 1], [0, 0]])
        >>> list(g.edges())
        [('a', 'b', 'directed')]
        >>> g.is_dag
        True
    """

    nodes: tuple[str, ...]
    directed: np.ndarray
    undirected: np.ndarray
    bidirected: np.ndarray

    @classmethod
    def build(cls, nodes: Sequence[str], directed: object = None, undirected: object = None,
              bidirected: object = None) -> MixedGraph:
        """Validate and normalise the three matrices (0/1 int8, symmetric where required)."""
        names = tuple(str(n) for n in nodes)
        if len(set(names)) != len(names):
            raise InteropError("duplicate node names", "give every variable a unique name")
        d = len(names)
        dr, un, bi = (_square(m, d) for m in (directed, undirected, bidirected))  # type: ignore[arg-type]
        un, bi = un | un.T, bi | bi.T
        if np.any(np.diag(dr) | np.diag(un) | np.diag(bi)):
            raise InteropError("the graph has a self loop", "remove edges from a node to itself")
        if np.any((dr | dr.T) & un):
            raise InteropError("a pair is both directed and undirected")
        return cls(names, dr, un, bi)

    @classmethod
    def from_dag(cls, nodes: Sequence[str], adjacency: object) -> MixedGraph:
        return cls.build(nodes, directed=adjacency)

    @classmethod
    def from_cpdag_matrix(cls, nodes: Sequence[str], matrix: object) -> MixedGraph:
        """Read the CPDAG encoding: ``A[i,j]=1, A[j,i]=0`` is ``i -> j``; both 1 is ``i -- j``."""
        a = (np.asarray(matrix) != 0).astype(np.int8)
        both = a & a.T
        return cls.build(nodes, directed=a & (1 - both), undirected=both)

    # -- views -------------------------------------------------------------------------------
    @property
    def d(self) -> int:
        return len(self.nodes)

    @property
    def is_dag(self) -> bool:
        """Only directed edges and no directed cycle."""
        return not self.undirected.any() and not self.bidirected.any() and _acyclic(self.directed)

    @property
    def skeleton(self) -> np.ndarray:
        """Symmetric 0/1 adjacency of the pairs joined by any edge."""
        return (self.directed | self.directed.T | self.undirected | self.bidirected).astype(np.int8)

    def cpdag_matrix(self) -> np.ndarray:
        """The CPDAG encoding (undirected edges as both directions); bidirected edges dropped."""
        return (self.directed | self.undirected).astype(np.int8)

    def edges(self) -> Iterator[tuple[str, str, str]]:
        """``(a, b, type)`` in node order; undirected and bidirected pairs once, a before b."""
        n = self.nodes
        for i in range(self.d):
            for j in range(self.d):
                if self.directed[i, j]:
                    yield n[i], n[j], "directed"
                if i < j and self.undirected[i, j]:
                    yield n[i], n[j], "undirected"
                if i < j and self.bidirected[i, j]:
                    yield n[i], n[j], "bidirected"

    def reorder(self, nodes: Sequence[str]) -> MixedGraph:
        """The same graph over a permutation of its nodes."""
        if sorted(nodes) != sorted(self.nodes):
            raise InteropError("cannot reorder: the node sets differ")
        idx = [self.nodes.index(n) for n in nodes]
        pick = np.ix_(idx, idx)
        return MixedGraph(tuple(nodes), self.directed[pick], self.undirected[pick],
                          self.bidirected[pick])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MixedGraph) or sorted(self.nodes) != sorted(other.nodes):
            return False
        o = other.reorder(self.nodes)
        return all(np.array_equal(a, b) for a, b in ((self.directed, o.directed),
                   (self.undirected, o.undirected), (self.bidirected, o.bidirected)))

    def __hash__(self) -> int:  # pragma: no cover - graphs are compared, not hashed
        return hash(self.nodes)

    def __repr__(self) -> str:
        return f"MixedGraph({self.d} nodes, {sum(1 for _ in self.edges())} edges)"


def _acyclic(directed: np.ndarray) -> bool:
    return bool(nx.is_directed_acyclic_graph(nx.from_numpy_array(directed,
                                                                 create_using=nx.DiGraph)))


def to_digraph(g: MixedGraph) -> nx.DiGraph:
    """Directed edges only, as a networkx DiGraph over ``g.nodes`` (in order)."""
    out = nx.DiGraph()
    out.add_nodes_from(g.nodes)
    out.add_edges_from((a, b) for a, b, t in g.edges() if t == "directed")
    return out


# -- CPDAG -------------------------------------------------------------------------------------
def cpdag(dag: MixedGraph) -> MixedGraph:
    """The CPDAG (essential graph) of a DAG: its Markov equivalence class.

    Keeps the v-structures ``a -> c <- b`` (a, b non-adjacent) directed, undirects every other
    edge, then applies Meek's rules R1-R3 to a fixed point; Meek (1995) shows R1-R3 are
    complete for a pattern without background knowledge. Each rule only ever orients an edge
    the way the DAG does, which the final assertion checks.

    Example:
        >>> g = cpdag(MixedGraph.from_dag("abc", [[0, 1, 0], [0, 0, 1], [0, 0, 0]]))
        >>> [t for *_, t in g.edges()]
        ['undirected', 'undirected']
    """
    if not dag.is_dag:
        raise InteropError("the CPDAG is defined for a DAG; this graph is not one")
    a = dag.directed.astype(bool)
    adj = a | a.T
    directed = np.zeros_like(a)
    for c in range(dag.d):
        parents = np.flatnonzero(a[:, c])
        for i, p in enumerate(parents):
            for q in parents[i + 1:]:
                if not adj[p, q]:
                    directed[p, c] = directed[q, c] = True
    undirected = adj & ~(directed | directed.T)
    while _meek_step(directed, undirected, adj):
        pass
    if np.any(directed & ~a):
        raise AssertionError("Meek rules oriented an edge against the DAG")  # our bug
    return MixedGraph.build(dag.nodes, directed=directed, undirected=undirected)


def _orient(directed: np.ndarray, undirected: np.ndarray, i: int, j: int) -> None:
    directed[i, j] = True
    undirected[i, j] = undirected[j, i] = False


def _meek_step(directed: np.ndarray, undirected: np.ndarray, adj: np.ndarray) -> bool:
    """Apply the first applicable Meek rule (R1, R2, R3) once; False at the fixed point."""
    for i, j in zip(*np.nonzero(np.triu(undirected))):
        for x, y in ((i, j), (j, i)):
            pa = np.flatnonzero(directed[:, x])
            # R1: p -> x -- y with p, y non-adjacent  =>  x -> y
            if any(not adj[p, y] for p in pa if p != y):
                _orient(directed, undirected, x, y)
                return True
            # R2: x -> k -> y with x -- y  =>  x -> y
            if np.any(directed[x, :] & directed[:, y]):
                _orient(directed, undirected, x, y)
                return True
            # R3: x -- k1 -> y, x -- k2 -> y, k1, k2 non-adjacent, x -- y  =>  x -> y
            ks = np.flatnonzero(undirected[x, :] & directed[:, y])
            if any(not adj[k1, k2] for n, k1 in enumerate(ks) for k2 in ks[n + 1:]):
                _orient(directed, undirected, x, y)
                return True
    return False


# -- latent projection ---------------------------------------------------------------------------
def latent_projection(full: MixedGraph, latent: Sequence[str]) -> MixedGraph:
    """The Verma-Pearl latent projection of a DAG onto its observed nodes (an ADMG).

    ``a -> b`` iff the DAG has a directed path ``a -> ... -> b`` whose intermediate nodes are
    all latent; ``a <-> b`` iff some latent ``u`` has directed paths to ``a`` and to ``b`` whose
    nodes other than the endpoints ``a``, ``b`` are all latent (a common latent ancestor through
    latent-only paths). Observed nodes keep the order of ``full.nodes``.

    Example:
        >>> g = MixedGraph.from_dag("uab", [[0, 1, 1], [0, 0, 0], [0, 0, 0]])
        >>> list(latent_projection(g, ["u"]).edges())
        [('a', 'b', 'bidirected')]
    """
    hidden = latent_set(full, latent, "the latent projection")
    g = to_digraph(full)
    observed = [n for n in full.nodes if n not in hidden]
    index = {n: k for k, n in enumerate(observed)}
    d = len(observed)
    directed = np.zeros((d, d), dtype=np.int8)
    for a in observed:
        for b in _reach(g.successors, a, hidden):
            directed[index[a], index[b]] = 1
    sources = {a: _latent_sources(g, a, hidden) for a in observed}
    bidirected = np.zeros((d, d), dtype=np.int8)
    for i, a in enumerate(observed):
        for b in observed[i + 1:]:
            if sources[a] & sources[b]:
                bidirected[index[a], index[b]] = bidirected[index[b], index[a]] = 1
    return MixedGraph.build(observed, directed=directed, bidirected=bidirected)


def latent_set(full: MixedGraph, latent: Sequence[str], what: str) -> set[str]:
    """The latent names as a set, after checking that ``full`` is a DAG holding all of them
    (``what`` names the graph being built, for the message).

    Example:
        >>> latent_set(MixedGraph.from_dag("ab", [[0, 1], [0, 0]]), ["z"], "the MAG")
        Traceback (most recent call last):
        ...
        scmspec.interop.graphs.InteropError: latent variables not in the graph: z
    """
    if not full.is_dag:
        raise InteropError(f"{what} is defined for a DAG; this graph is not one")
    hidden = set(latent)
    unknown = hidden - set(full.nodes)
    if unknown:
        raise InteropError(f"latent variables not in the graph: {', '.join(sorted(unknown))}")
    return hidden


def _reach(step: object, start: str, hidden: set[str]) -> set[str]:
    """Observed nodes reached from ``start`` through latent-only intermediates."""
    found: set[str] = set()
    seen, stack = {start}, [start]
    while stack:
        for nxt in step(stack.pop()):  # type: ignore[operator]
            if nxt in seen:
                continue
            seen.add(nxt)
            if nxt in hidden:
                stack.append(nxt)
            else:
                found.add(nxt)
    return found


def _latent_sources(g: nx.DiGraph, node: str, hidden: set[str]) -> set[str]:
    """Latent ancestors of ``node`` reachable backwards through latent nodes only."""
    seen, stack = set(), [node]
    while stack:
        for p in g.predecessors(stack.pop()):
            if p in hidden and p not in seen:
                seen.add(p)
                stack.append(p)
    return seen
