"""The ten graph families of the synthetic grid (CausalArena appendix A.1), as generators.

Each generator takes (d, density, rng) and returns a DAG over nodes 0..d-1 in
generation order (edges only from lower to higher index, so acyclic by
construction), the mask of edges the family *allows* (used to repair isolated nodes
without breaking the family's shape, and by tests: layered graphs stay inside it)
and a small ``meta`` record (layers, blocks, modules). ``density`` is each family's
own knob, documented per family in docs/synthetic.md; the realised edge density
edges / C(d, 2) is recorded separately. Node labels are permuted afterwards
(``graphs.draw_graph``), so generation order never leaks into names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scmspec.synthetic.rng import Rng

Array = np.ndarray


@dataclass(frozen=True)
class Generated:
    """A family's draw: adjacency (i -> j only for i < j), allowed edges, metadata."""

    adjacency: Array
    allowed: Array
    meta: dict[str, Any] = field(default_factory=dict)


def _upper(d: int) -> Array:
    return np.triu(np.ones((d, d), dtype=bool), 1)


def _pairs(d: int) -> float:
    return d * (d - 1) / 2.0


def _groups(d: int, k: int, rng: Rng) -> Array:
    """Group index (0..k-1, non-decreasing) of each node: k non-empty consecutive groups."""
    cuts = np.sort(rng.choice(np.arange(1, d), size=k - 1, replace=False))
    return np.searchsorted(cuts, np.arange(d), side="right")


def erdos_renyi(d: int, density: float, rng: Rng) -> Generated:
    """Every pair i < j is an edge with probability ``density``."""
    allowed = _upper(d)
    return Generated(allowed & (rng.random((d, d)) < density), allowed)


def _seeds(d: int, rng: Rng, most: int = 3) -> int:
    """How many initial nodes start as roots (1 to ``most``, at most d // 4)."""
    return int(rng.integers(1, max(1, min(most, d // 4)) + 1))


def scale_free(d: int, density: float, rng: Rng) -> Generated:
    """Preferential attachment: after 1-3 seed nodes, node t takes ~m parents among earlier
    nodes with probability ~ degree + 1.

    m = density (d - 1) / 2 (at least 1, randomly rounded), so about density x C(d, 2)
    edges; hubs are the early, high out-degree nodes.
    """
    adj = np.zeros((d, d), dtype=bool)
    degree = np.zeros(d)
    m = max(1.0, density * (d - 1) / 2.0)
    for t in range(_seeds(d, rng), d):
        k = min(t, int(m) + int(rng.random() < m - int(m)))
        w = degree[:t] + 1.0
        parents = rng.choice(t, size=k, replace=False, p=w / w.sum())
        adj[parents, t] = True
        degree[parents] += 1
        degree[t] += k
    return Generated(adj, _upper(d))


CHAIN_BAND = 4  # skip edges of a chain span at most this many steps (long, local propagation)


def chain(d: int, density: float, rng: Rng) -> Generated:
    """Directed paths through every node (a new path starts with probability U[0, 0.1] per
    node), plus skip edges i -> j (2 <= j - i <= 4), each with probability ``density``:
    sparse, path-like, deep."""
    span = np.subtract.outer(np.arange(d), np.arange(d)) * -1
    allowed = (span >= 1) & (span <= CHAIN_BAND)
    starts = rng.random(d) < rng.uniform(0.0, 0.1)
    link = (span == 1) & ~starts[None, :]
    adj = link | (allowed & (span >= 2) & (rng.random((d, d)) < density))
    return Generated(adj, allowed, {"band": CHAIN_BAND})


def tree(d: int, density: float, rng: Rng) -> Generated:
    """A forest of out-trees (in-degree <= 1): after 1-3 roots, node t hangs below node t - 1
    or, with the branching probability min(0.8, 5 x density), below a uniformly chosen
    earlier node."""
    adj = np.zeros((d, d), dtype=bool)
    branch = min(0.8, 5.0 * density)
    for t in range(_seeds(d, rng), d):
        parent = int(rng.integers(t)) if rng.random() < branch else t - 1
        adj[parent, t] = True
    allowed = np.zeros((d, d), dtype=bool)  # repairs never add an edge: trees are complete
    return Generated(adj, allowed, {"branching": round(branch, 6)})


def _layer_mask(layer: Array, skip: bool) -> Array:
    gap = layer[None, :] - layer[:, None]
    return (gap >= 1) if skip else (gap == 1)


def _layer_count(d: int, rng: Rng, lo: int, hi: int) -> int:
    return int(rng.integers(lo, max(lo, min(hi, d - 1)) + 1))


SKIP_WEIGHT = 0.25  # a layered graph's skip-layer edges are this much rarer than adjacent ones


def layered(d: int, density: float, rng: Rng) -> Generated:
    """3 to max(4, sqrt(d)) layers; edges only forward between layers, mostly to the next.

    Adjacent-layer pairs are edges with probability p, skip-layer pairs with p / 4; p is
    set so the expected edge count is density x C(d, 2).
    """
    layer = _groups(d, _layer_count(d, rng, 3, max(4, int(np.sqrt(d)))), rng)
    adjacent, forward = _layer_mask(layer, False), _layer_mask(layer, True)
    weight = np.where(adjacent, 1.0, SKIP_WEIGHT) * forward
    p = min(1.0, density * _pairs(d) / weight.sum())
    adj = forward & (rng.random((d, d)) < p * weight)
    return Generated(adj, forward, {"layers": layer.tolist()})


def bipartite_layered(d: int, density: float, rng: Rng) -> Generated:
    """3 or 4 stages; edges only between consecutive stages (bipartite-like blocks)."""
    layer = _groups(d, _layer_count(d, rng, 3, 4), rng)
    allowed = _layer_mask(layer, False)
    p = min(1.0, density * _pairs(d) / allowed.sum())
    return Generated(allowed & (rng.random((d, d)) < p), allowed, {"layers": layer.tolist()})


def small_world(d: int, density: float, rng: Rng) -> Generated:
    """Watts-Strogatz: each node links to its next k ring neighbours (k ~ density (d - 1) / 2),
    each link rewired to a random later node with probability U[0.05, 0.3]; edges point
    forward in ring order (the first 1-3 nodes are unlinked seeds), so local clusters plus
    a few long shortcuts."""
    adj = np.zeros((d, d), dtype=bool)
    k_mean = max(1.0, density * (d - 1) / 2.0)
    rewire = float(rng.uniform(0.05, 0.3))
    seeds = _seeds(d, rng)
    for i in range(d - 1):
        k = int(k_mean) + int(rng.random() < k_mean - int(k_mean))
        for j in range(max(i + 1, seeds), min(d, i + 1 + k)):
            if rng.random() < rewire and i + 1 < d - 1:
                j = int(rng.integers(i + 1, d))
            adj[i, j] = True
    return Generated(adj, _upper(d), {"rewire": round(rewire, 6)})


CROSS_RATIO = 0.1  # cross-block (between-module) edges are this much rarer than local ones


def block_sparse_layered(d: int, density: float, rng: Rng) -> Generated:
    """Blocks of ~5-10 nodes, each a small layered DAG (2-3 layers); sparse edges from earlier
    to later blocks (probability / 10)."""
    blocks = _groups(d, max(2, int(round(d / rng.uniform(5, 10)))), rng)
    layer = np.zeros(d, dtype=int)
    for b in np.unique(blocks):
        members = np.flatnonzero(blocks == b)
        k = min(len(members), int(rng.integers(2, 4)))
        layer[members] = _groups(len(members), k, rng) if k > 1 else 0
    same = blocks[:, None] == blocks[None, :]
    inside = same & _layer_mask(layer, True)
    across = blocks[:, None] < blocks[None, :]
    weight = np.where(inside, 1.0, 0.0) + np.where(across, CROSS_RATIO, 0.0)
    p = min(1.0, density * _pairs(d) / weight.sum())
    adj = (rng.random((d, d)) < p * weight) & (weight > 0)
    return Generated(adj, weight > 0, {"blocks": blocks.tolist(), "layers": layer.tolist()})


def dense_local_module(d: int, density: float, rng: Rng) -> Generated:
    """Modules of 4-8 consecutive nodes, dense inside (probability p), sparse between (p / 10)."""
    sizes: list[int] = []
    while sum(sizes) < d:
        sizes.append(int(rng.integers(4, 9)))
    sizes[-1] -= sum(sizes) - d
    module = np.repeat(np.arange(len(sizes)), sizes)
    upper = _upper(d)
    same = (module[:, None] == module[None, :]) & upper
    weight = np.where(same, 1.0, CROSS_RATIO) * upper
    p = min(1.0, density * _pairs(d) / weight.sum())
    adj = upper & (rng.random((d, d)) < p * weight)
    return Generated(adj, upper, {"modules": module.tolist()})


SOURCE_SHARE = (0.3, 0.5)  # collider_rich: share of nodes that are sources (roots)


def collider_rich(d: int, density: float, rng: Rng) -> Generated:
    """30-50% of the nodes are sources; every other node is a collider with 2 + Poisson
    parents that are pairwise non-adjacent (unshielded v-structures), proposed among the
    earlier colliders first and the sources after them. The Poisson mean is set so the
    expected edge count is density x C(d, 2) where that allows (at least two parents per
    collider).

    Parents among colliders share ancestors, as in the paper's difficulty: drawn first
    among childless sources (independent roots), every v-structure sat on independent
    parents and PC scored 0.50 on this family against the paper's 0.28 (0.40 now;
    docs/synthetic.md, "Calibration"; the paper does not say how its parents are drawn).

    Concentrating the edges on colliders with several parents is what raises the
    v-structure count: per edge it is (k - 1) / 2 for a node with k parents.
    """
    adj = np.zeros((d, d), dtype=bool)
    sources = int(round(d * rng.uniform(*SOURCE_SHARE)))
    sources = min(max(sources, 2), d - 2)
    extra = max(0.0, density * _pairs(d) / (d - sources) - 2.0)
    for t in range(sources, d):
        want = 2 + int(rng.poisson(extra))
        chosen: list[int] = []
        for c in _collider_candidates(t, sources, rng):
            if len(chosen) == want:
                break
            if c not in chosen and not any(adj[c, q] or adj[q, c] for q in chosen):
                chosen.append(c)
        adj[chosen, t] = True
    return Generated(adj, _upper(d), {"sources": sources})


def _collider_candidates(t: int, sources: int, rng: Rng) -> list[int]:
    """The nodes before ``t`` in proposal order: earlier colliders, then sources (each
    shuffled). A source left childless is attached later, like any isolated node."""
    order = rng.permutation(t).tolist()
    return [i for i in order if i >= sources] + [i for i in order if i < sources]


GraphGenerator = Callable[[int, float, Rng], Generated]
GRAPH_TABLE: tuple[tuple[str, str, tuple[float, float], int, GraphGenerator], ...] = (
    ("erdos_renyi", "random ordered graph: each forward pair with probability density",
     (0.05, 0.25), 2, erdos_renyi),
    ("scale_free", "preferential attachment, ~density (d-1)/2 parents per node, oriented by "
     "arrival", (0.04, 0.22), 3, scale_free),
    ("chain", "a directed path plus skip edges (span <= 4) with probability density",
     (0.03, 0.16), 3, chain),
    ("tree", "an out-tree (in-degree <= 1); branching probability min(0.8, 5 density)",
     (0.03, 0.16), 3, tree),
    ("layered", "3 to sqrt(d) layers, forward edges, skip-layer edges 4x rarer",
     (0.04, 0.20), 2, layered),
    ("bipartite_layered", "3-4 stages, edges only between consecutive stages",
     (0.04, 0.20), 2, bipartite_layered),
    ("small_world", "Watts-Strogatz ring lattice, forward edges, rewiring 0.05-0.3",
     (0.04, 0.20), 3, small_world),
    ("block_sparse_layered", "layered blocks of 5-10 nodes, cross-block edges 10x rarer",
     (0.04, 0.20), 2, block_sparse_layered),
    ("dense_local_module", "modules of 4-8 nodes, dense inside, 10x sparser between",
     (0.06, 0.24), 2, dense_local_module),
    ("collider_rich", "30-50% sources; every other node a collider with >= 2 pairwise "
     "non-adjacent parents",
     (0.06, 0.24), 2, collider_rich),
)
