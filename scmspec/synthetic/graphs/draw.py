"""Graph factors: the family registry and validity-by-construction graph draws.

``draw_graph`` draws a family's DAG, applies the in-degree cap, attaches isolated
nodes along the family's allowed edges, and checks the structural gates of the
synthetic grid: no isolated node, enough depth (3 for chain, tree, small-world and
scale-free, 2 otherwise) and at least ceil(0.8 d) edges. A draw that fails is
redrawn with the next ``attempt`` in its stream key; after ``MAX_GRAPH_ATTEMPTS`` the
configuration is reported as failed, never silently replaced. Node labels are a
random permutation of generation order, so names and column order carry no hint of
the causal order.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import numpy as np

from scmspec.registry import Registry
from scmspec.synthetic.graphs.families import GRAPH_TABLE, Generated, GraphGenerator
from scmspec.synthetic.rng import Rng, stream

Array = np.ndarray
MAX_GRAPH_ATTEMPTS = 200
MIN_EDGES_PER_NODE = 0.8


@dataclass(frozen=True)
class GraphFamily:
    """A graph family: density range, minimum depth and generator."""

    tag: str
    doc: str
    density: tuple[float, float]
    min_depth: int
    generate: GraphGenerator


GRAPH_FAMILIES: Registry[GraphFamily] = Registry("graph family")
for _tag, _doc, _density, _depth, _gen in GRAPH_TABLE:
    GRAPH_FAMILIES.add(_tag, GraphFamily(_tag, _doc, _density, _depth, _gen))


def in_degree_caps(d: int) -> tuple[int | None, ...]:
    """The in-degree caps a grid draws from: none/4/5 (d <= 20), 4/5/6 (<= 50), else 5/6/8.

    Example:
        >>> in_degree_caps(10), in_degree_caps(30), in_degree_caps(100)
        ((None, 4, 5), (4, 5, 6), (5, 6, 8))
    """
    if d <= 20:
        return (None, 4, 5)
    return (4, 5, 6) if d <= 50 else (5, 6, 8)


@dataclass(frozen=True)
class DrawnGraph:
    """A valid DAG over named nodes, with the draw that produced it."""

    family: str
    names: tuple[str, ...]  # declaration order (x01, x02, ...)
    adjacency: Array  # (d, d) bool over ``names``: [i, j] is the edge names[i] -> names[j]
    position: dict[str, int]  # generation (causal) index of each name
    density: float
    attempt: int
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def d(self) -> int:
        return len(self.names)

    @property
    def edges(self) -> int:
        return int(self.adjacency.sum())

    def parents(self, name: str) -> tuple[str, ...]:
        """Parents of ``name`` in declaration order."""
        j = self.names.index(name)
        return tuple(self.names[i] for i in np.flatnonzero(self.adjacency[:, j]))

    def order(self) -> tuple[str, ...]:
        """Names in generation (topological) order."""
        return tuple(sorted(self.names, key=self.position.__getitem__))


def node_names(d: int) -> tuple[str, ...]:
    """Anonymous, zero-padded names, so that sorting by name is sorting by number.

    Example:
        >>> node_names(10)[:2], node_names(100)[-1]
        (('x01', 'x02'), 'x100')
    """
    width = max(2, len(str(d)))
    return tuple(f"x{i:0{width}d}" for i in range(1, d + 1))


def depth(adjacency: Array) -> int:
    """Longest directed path, in edges, of a DAG whose edges go from lower to higher index.

    Example:
        >>> depth(np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=bool))
        2
    """
    level = [0] * len(adjacency)
    src, dst = np.nonzero(adjacency)
    for i, j in sorted(zip(dst.tolist(), src.tolist())):  # by child: parents come first
        level[i] = max(level[i], level[j] + 1)
    return max(level, default=0)


def problems(adjacency: Array, min_depth: int, cap: int | None, min_roots: int = 1
             ) -> list[str]:
    """Why a generation-order DAG fails the synthetic structural gates ([] when it passes).

    Example:
        >>> problems(np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]], dtype=bool), 2, None)[:1]
        ['1 isolated node(s)']
    """
    d = len(adjacency)
    out = []
    degree = adjacency.sum(axis=0) + adjacency.sum(axis=1)
    if (degree == 0).any():
        out.append(f"{int((degree == 0).sum())} isolated node(s)")
    if depth(adjacency) < min_depth:
        out.append(f"depth {depth(adjacency)} < {min_depth}")
    need = math.ceil(MIN_EDGES_PER_NODE * d)
    if adjacency.sum() < need:
        out.append(f"{int(adjacency.sum())} edges < ceil(0.8 d) = {need}")
    if cap is not None and adjacency.sum(axis=0).max() > cap:
        out.append(f"in-degree above the cap {cap}")
    roots = int((adjacency.sum(axis=0) == 0).sum())
    if roots < min_roots:
        out.append(f"{roots} root(s), fewer than the {min_roots} a dependent root block needs")
    return out


def _apply_cap(adj: Array, cap: int | None, rng: Rng) -> None:
    """Keep a random ``cap`` of the parents of every node with more."""
    if cap is None:
        return
    for j in np.flatnonzero(adj.sum(axis=0) > cap):
        parents = np.flatnonzero(adj[:, j])
        adj[rng.permutation(parents)[cap:], j] = False


def _attach_isolated(g: Generated, cap: int | None, rng: Rng) -> None:
    """Give each isolated node one edge the family allows (a parent, else a child)."""
    adj, allowed = g.adjacency, g.allowed
    for v in range(len(adj)):
        if adj[v].any() or adj[:, v].any():
            continue
        parents = np.flatnonzero(allowed[:, v])
        room = adj.sum(axis=0) < (cap if cap is not None else len(adj))
        children = np.flatnonzero(allowed[v] & room)
        if parents.size:
            adj[int(rng.choice(parents)), v] = True
        elif children.size:
            adj[v, int(rng.choice(children))] = True


def min_roots(spec: object) -> int:
    """Roots a factor card's graph needs: 2 under a dependent root block, else 1."""
    return 1 if getattr(spec, "root_dependency", "independent") == "independent" else 2


def draw_once(family: GraphFamily, d: int, density: float | None, cap: int | None,
              rng: Rng) -> tuple[Generated, float]:
    """One raw draw (before the checks): the density variate is always drawn first, so a
    recorded density reproduces the same stream."""
    variate = float(rng.uniform(*family.density))
    used = density if density is not None else round(variate, 6)
    g = family.generate(d, used, rng)
    _apply_cap(g.adjacency, cap, rng)
    _attach_isolated(g, cap, rng)
    return g, used


def draw_graph(family: str, d: int, seed: int, key: str, density: float | None = None,
               cap: int | None = None, attempt: int = 0,
               accept: Callable[[DrawnGraph], bool] | None = None,
               max_attempts: int = MAX_GRAPH_ATTEMPTS, min_roots: int = 1) -> DrawnGraph:
    """The first valid graph from ``attempt`` on (streams (seed, key, "graph", attempt)).

    ``accept`` adds a condition (a grid uses it to refuse a topology it already has);
    ``min_roots`` is 2 for a dependent root block.
    Raises ``GraphError`` after ``max_attempts`` failed draws.

    Example:
        >>> g = draw_graph("chain", 10, seed=0, key="demo")
        >>> g.d, g.edges >= 8, sorted(g.names)[0]
        (10, True, 'x01')
    """
    fam = GRAPH_FAMILIES.lookup(family)
    last: list[str] = []
    for a in range(attempt, attempt + max_attempts):
        rng = stream(seed, key, "graph", a)
        g, used = draw_once(fam, d, density, cap, rng)
        last = problems(g.adjacency, fam.min_depth, cap, min_roots)
        if last:
            continue
        drawn = _label(fam.tag, g, used, a, rng)
        if accept is None or accept(drawn):
            return drawn
        last = ["isomorphic to a graph the grid already holds"]
    raise GraphError(family, d, max_attempts, last)


def _label(family: str, g: Generated, density: float, attempt: int, rng: Rng) -> DrawnGraph:
    d = len(g.adjacency)
    names = node_names(d)
    perm = rng.permutation(d)  # generation index i gets the name names[perm[i]]
    adj = np.zeros((d, d), dtype=bool)
    adj[np.ix_(perm, perm)] = g.adjacency
    position = {names[int(perm[i])]: i for i in range(d)}
    edges = int(adj.sum())
    meta = {**g.meta, "edge_density": round(edges / (d * (d - 1) / 2), 6),
            "depth": depth(g.adjacency)}
    for k in ("layers", "blocks", "modules"):  # re-key per-node metadata by name
        if k in meta:
            meta[k] = {names[int(perm[i])]: int(v) for i, v in enumerate(meta[k])}
    return DrawnGraph(family, names, adj, position, density, attempt, meta)


class GraphError(Exception):
    """No valid graph within the attempt budget (materialisation turns it into a diagnostic)."""

    def __init__(self, family: str, d: int, attempts: int, last: list[str]) -> None:
        self.family, self.d, self.attempts, self.last = family, d, attempts, last
        super().__init__(f"no valid {family} graph with d = {d} in {attempts} attempts "
                         f"(last draw: {'; '.join(last)})")


def to_networkx(g: DrawnGraph) -> nx.DiGraph:
    """The drawn graph as a networkx DiGraph over names."""
    out = nx.DiGraph()
    out.add_nodes_from(g.names)
    out.add_edges_from((g.names[i], g.names[j]) for i, j in zip(*np.nonzero(g.adjacency)))
    return out


def v_structures(adjacency: Array) -> int:
    """Unshielded colliders a -> c <- b (a, b non-adjacent) of a DAG adjacency matrix.

    Example:
        >>> v_structures(np.array([[0, 0, 1], [0, 0, 1], [0, 0, 0]], dtype=bool))
        1
    """
    a = np.asarray(adjacency, dtype=bool)
    skeleton = a | a.T
    total = 0
    for c in range(len(a)):
        ps = np.flatnonzero(a[:, c])
        sub = skeleton[np.ix_(ps, ps)]
        total += len(ps) * (len(ps) - 1) // 2 - int(sub.sum()) // 2
    return total
