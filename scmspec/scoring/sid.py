"""Structural intervention distance (Peters & Buhlmann, 2015) and its bounds for CPDAGs.

SID(G, H) counts ordered pairs (i, j), i != j, whose interventional distribution
p(x_j | do(x_i)) is inferred wrongly when H's parent set Z = Pa_H(i) is used as adjustment set
in the true DAG G (their Proposition 8):

* j in Z: H says "no effect"; wrong iff j is a descendant of i in G;
* otherwise Z must be a valid adjustment set for (i, j) in G: (a) Z holds no descendant of a
  node (other than i) on a directed path from i to j, and (b) Z blocks every non-directed path
  from i to j, i.e. d-separates i and j in G without the first edges of the directed paths
  from i to j (the proper back-door graph; van der Zander et al., 2014).

SID decomposes over i (only Pa_H(i) matters for row i), so it needs only H's parent sets;
H need not be acyclic. For a prediction with undirected edges, :func:`sid_bounds` follows the
SID R package: per undirected component, the minimum and maximum over its consistent DAG
extensions (orientations without new v-structures or cycles); when a component is not chordal
or has too many extensions, over every subset of each node's undirected neighbours instead.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import networkx as nx
import numpy as np

from scmspec.interop.graphs import MixedGraph

MAX_EXTENSIONS = 5000   # per undirected component; beyond this, local per-node bounds
MAX_LOCAL_NEIGHBOURS = 12


def reachability(a: np.ndarray) -> np.ndarray:
    """``R[i, j]`` is True iff j is i or a descendant of i."""
    d = a.shape[0]
    r = (np.eye(d, dtype=np.int64) + (a != 0)).astype(bool)
    for _ in range(max(1, int(np.ceil(np.log2(max(d, 2)))))):
        r = (r.astype(np.int64) @ r.astype(np.int64)) > 0
    return r


class SIDCounter:
    """Counts SID errors of parent sets against one true DAG (caches per node and set).

    Example:
        >>> chain = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])
        >>> SIDCounter(chain).sid(chain.T)   # the reversed chain 3 -> 2 -> 1
        6
    """

    def __init__(self, true_dag: np.ndarray) -> None:
        self.a = (np.asarray(true_dag) != 0)
        self.d = self.a.shape[0]
        self.r = reachability(self.a)
        self.children = [np.flatnonzero(self.a[i]) for i in range(self.d)]
        self.parents = [np.flatnonzero(self.a[:, i]) for i in range(self.d)]
        self._cache: dict[tuple[int, frozenset[int]], int] = {}

    def sid(self, pred_directed: np.ndarray) -> int:
        """SID of a directed prediction (matrix ``[i, j] = 1`` iff i -> j)."""
        p = np.asarray(pred_directed) != 0
        return sum(self.errors(i, np.flatnonzero(p[:, i])) for i in range(self.d))

    def errors(self, i: int, z: Iterable[int]) -> int:
        key = (i, frozenset(int(k) for k in z))
        if key not in self._cache:
            self._cache[key] = int(self.wrong(i, sorted(key[1])).sum())
        return self._cache[key]

    def wrong(self, i: int, z: list[int]) -> np.ndarray:
        """Boolean vector over j: is p(x_j | do(x_i)) wrong when adjusting for ``z``?"""
        d = self.d
        desc = self.r[i].copy()
        desc[i] = False
        in_z = np.zeros(d, dtype=bool)
        in_z[z] = True
        if set(z) == set(self.parents[i].tolist()):
            return np.zeros(d, dtype=bool)  # the true parents are always a valid adjustment set
        wrong = in_z & desc
        reaches_z = np.asarray(self.r[:, z].any(axis=1)) if z else np.zeros(d, dtype=bool)
        forbidden = (desc & reaches_z).astype(np.int64) @ self.r.astype(np.int64) > 0
        wrong |= ~in_z & desc & forbidden
        todo = [j for j in range(d) if j != i and not in_z[j] and not wrong[j]]
        # Ancestors of Z are taken in G, not in the proper back-door graph: cutting i -> c only
        # changes the ancestry of i and its ancestors through c, and if that reached Z, then Z
        # holds a descendant of c (on a causal path to j), which the forbidden check rejected.
        anc_z = reaches_z
        groups: dict[tuple[int, ...], list[int]] = {}
        for j in todo:
            cut = tuple(int(c) for c in self.children[i] if self.r[c, j])
            groups.setdefault(cut, []).append(j)
        for cut, js in groups.items():
            connected = self._dconnected(i, in_z, anc_z, set(cut))
            for j in js:
                wrong[j] = connected[j]
        return wrong

    def _dconnected(self, i: int, in_z: np.ndarray, anc_z: np.ndarray,
                    cut: set[int]) -> np.ndarray:
        """Nodes d-connected to i given Z once the edges i -> c (c in cut) are removed
        (Bayes-ball reachability, Koller & Friedman algorithm 3.1)."""
        reached = np.zeros(self.d, dtype=bool)
        seen: set[tuple[int, bool]] = set()
        stack = [(i, True)]  # (node, arrived travelling up from a child)
        while stack:
            y, up = stack.pop()
            if (y, up) in seen:
                continue
            seen.add((y, up))
            if not in_z[y]:
                reached[y] = True
            parents = [p for p in self.parents[y] if not (p == i and y in cut)]
            children = [c for c in self.children[y] if not (y == i and c in cut)]
            if up and not in_z[y]:
                stack += [(int(p), True) for p in parents]
                stack += [(int(c), False) for c in children]
            elif not up:
                if not in_z[y]:
                    stack += [(int(c), False) for c in children]
                if anc_z[y]:
                    stack += [(int(p), True) for p in parents]
        reached[i] = False
        return reached


def sid(true_dag: np.ndarray, pred_directed: np.ndarray) -> int:
    """SID between a true DAG and a directed prediction (both ``[i, j] = 1`` iff i -> j)."""
    return SIDCounter(true_dag).sid(pred_directed)


def sid_bounds(true_dag: np.ndarray, pred: MixedGraph) -> tuple[int, int] | None:
    """(lower, upper) SID over the DAGs a partially directed prediction allows; None when a
    component is too large to enumerate. Bidirected edges are ignored."""
    counter = SIDCounter(true_dag)
    directed = pred.directed != 0
    undirected = pred.undirected != 0
    ugraph = nx.from_numpy_array(undirected.astype(np.int8))
    lower = upper = 0
    for comp in nx.connected_components(ugraph):
        nodes = sorted(int(k) for k in comp)
        if len(nodes) == 1:
            n = nodes[0]
            e = counter.errors(n, np.flatnonzero(directed[:, n]))
            lower, upper = lower + e, upper + e
            continue
        totals = _component_totals(counter, directed, undirected, nodes, ugraph)
        if totals is None:
            return None
        lower, upper = lower + min(totals), upper + max(totals)
    return lower, upper


def _component_totals(counter: SIDCounter, directed: np.ndarray, undirected: np.ndarray,
                      nodes: list[int], ugraph: nx.Graph) -> list[int] | None:
    sub = ugraph.subgraph(nodes)
    if nx.is_chordal(sub):
        exts = _extensions(sub, MAX_EXTENSIONS)
        if exts is not None:
            return [sum(counter.errors(n, [*np.flatnonzero(directed[:, n]), *pa.get(n, ())])
                        for n in nodes) for pa in exts]
    return _local_totals(counter, directed, undirected, nodes)


def _local_totals(counter: SIDCounter, directed: np.ndarray, undirected: np.ndarray,
                  nodes: list[int]) -> list[int] | None:
    """Per node, min and max over every subset of its undirected neighbours as extra parents."""
    lo = hi = 0
    for n in nodes:
        nbrs = np.flatnonzero(undirected[n]).tolist()
        if len(nbrs) > MAX_LOCAL_NEIGHBOURS:
            return None
        base = np.flatnonzero(directed[:, n]).tolist()
        errs = [counter.errors(n, base + list(s)) for k in range(len(nbrs) + 1)
                for s in itertools.combinations(nbrs, k)]
        lo, hi = lo + min(errs), hi + max(errs)
    return [lo, hi]


def _extensions(sub: nx.Graph, limit: int) -> list[dict[int, tuple[int, ...]]] | None:
    """Every acyclic orientation of a chordal component without v-structures, as in-component
    parent sets per node; None beyond ``limit``. Backtracking over edges, pruning as soon as
    two parents of a node are non-adjacent or an orientation closes a directed cycle."""
    edges = sorted(tuple(sorted(e)) for e in sub.edges())
    found: list[dict[int, tuple[int, ...]]] = []
    parents: dict[int, list[int]] = {n: [] for n in sub.nodes}
    children: dict[int, list[int]] = {n: [] for n in sub.nodes}

    def reaches(start: int, goal: int) -> bool:
        seen, stack = {start}, [start]
        while stack:
            for c in children[stack.pop()]:
                if c == goal:
                    return True
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
        return False

    def ok(src: int, dst: int) -> bool:
        return all(sub.has_edge(src, p) for p in parents[dst]) and not reaches(dst, src)

    def walk(k: int) -> None:
        if len(found) > limit:
            return
        if k == len(edges):
            found.append({c: tuple(ps) for c, ps in parents.items()})
            return
        a, b = edges[k]
        for src, dst in ((a, b), (b, a)):
            if ok(src, dst):
                parents[dst].append(src)
                children[src].append(dst)
                walk(k + 1)
                parents[dst].pop()
                children[src].pop()

    walk(0)
    return None if len(found) > limit else found
