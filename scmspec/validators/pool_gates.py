"""Gates over a pool of cards checked together (``scmspec validate`` / ``compile`` inputs).

``duplicate_topology``: no two SCMs in a pool share a causal graph up to
isomorphism. Graphs are bucketed by a Weisfeiler-Lehman hash (a cheap invariant:
isomorphic graphs always share it), and only cards in the same bucket are
compared with networkx's exact VF2 isomorphism test. The first card in pool
order (sorted by path) keeps the topology; each later duplicate fails and names
it. When roles match too (a role-labelled isomorphism), the report says so: the
card is a slot-filled copy of the other's template.

Variants of one generated SCM are not duplicates: suite cards (an intervention
protocol or a sample size crossed with a grid's configurations) name the base
configuration's stream ``key`` and seed, so they draw the very same graph on
purpose. A card whose synthetic seed, key, preset and graph factor equal its
twin's passes and is reported as a variant of it.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import networkx as nx

from scmspec.compiler.pipeline import CompiledCard
from scmspec.validators.base import POOL_GATES, GateResult, make_result

WL_ITERATIONS = 3


def _graph(c: CompiledCard) -> nx.DiGraph:
    g = nx.DiGraph(c.resolved.graph)
    nx.set_node_attributes(g, {v: s.role for v, s in c.card.variables.items()}, "role")
    return g


def _key(g: nx.DiGraph) -> tuple[int, int, str]:
    with warnings.catch_warnings():  # networkx 3.5 warns that hashes changed; we never store them
        warnings.simplefilter("ignore", UserWarning)
        digest = nx.weisfeiler_lehman_graph_hash(g, iterations=WL_ITERATIONS)
    return g.number_of_nodes(), g.number_of_edges(), digest


def _scm_identity(c: CompiledCard) -> tuple[object, ...] | None:
    """What fixes a generated card's graph (None for hand-written cards).

    Two cards with equal identities draw the same graph by construction (the
    graph's random stream is keyed by seed and key), so they are one SCM.
    """
    s = c.card.synthetic
    if s is None:
        return None
    return s.seed, s.key or c.card.id, s.preset, s.split, s.graph.model_dump_json()


def _same_roles(a: nx.DiGraph, b: nx.DiGraph) -> bool:
    return bool(nx.is_isomorphic(a, b, node_match=lambda x, y: x["role"] == y["role"]))


@POOL_GATES.register("duplicate_topology")
def duplicate_topology(pool: Sequence[CompiledCard]) -> dict[str, list[GateResult]]:
    """Fail every card whose graph is isomorphic to an earlier card's in the pool."""
    if len(pool) == 1:  # nothing to compare with: skip the hashing
        (c,) = pool
        return {c.card.id: [make_result("duplicate_topology", "pass", "a pool of one card")]}
    seen: dict[tuple[int, int, str], list[tuple[str, nx.DiGraph]]] = {}
    out: dict[str, list[GateResult]] = {}
    identity = {c.card.id: _scm_identity(c) for c in pool}
    for c in pool:
        g = _graph(c)
        bucket = seen.setdefault(_key(g), [])
        twin = next((cid for cid, h in bucket if nx.is_isomorphic(h, g)), None)
        where = c.source.nearest(("edges",))
        if twin is None:
            out[c.card.id] = [make_result("duplicate_topology", "pass", f"no earlier card among "
                                          f"{len(pool)} has an isomorphic graph "
                                          f"({g.number_of_nodes()} nodes, "
                                          f"{g.number_of_edges()} edges)")]
        elif identity[twin] is not None and identity[twin] == identity[c.card.id]:
            out[c.card.id] = [make_result("duplicate_topology", "pass", f"a variant of "
                                          f"{twin!r} (the same generated SCM: synthetic seed, "
                                          "key and graph factor agree); no other card among "
                                          f"{len(pool)} shares its graph", where, (twin,))]
        else:
            other = dict(bucket)[twin]
            roles = (" and identical role topology (a slot-filled template)"
                     if _same_roles(other, g) else "")
            out[c.card.id] = [make_result("duplicate_topology", "fail", f"the graph of "
                                          f"{c.card.id!r} ({g.number_of_nodes()} nodes, "
                                          f"{g.number_of_edges()} edges) is isomorphic to that "
                                          f"of {twin!r}{roles} (threshold: no isomorphic pair "
                                          "in the pool); change the structure or drop one card",
                                          where, (twin,), 1, 0)]
        bucket.append((c.card.id, g))
    return out
