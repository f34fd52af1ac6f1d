"""Brute-force oracles for MAGs and PAGs on small graphs, straight from the definitions.

* MAG adjacency: two observed variables are adjacent iff no subset of the other observed
  variables d-separates them once the selection node is conditioned on (maximality).
* PAG: enumerate every assignment of ``->``, ``<-``, ``<->``, ``--`` to the MAG's skeleton,
  keep the ancestral graphs with exactly the MAG's m-separations (the Markov equivalence
  class), and put a mark where all of them agree, a circle elsewhere.

m-separation in a candidate is d-separation in its canonical DAG: a latent parent for every
``<->`` and a conditioned-on child for every ``--`` (Richardson & Spirtes 2002, section 6).
Exponential, so only for a handful of nodes and edges; nothing here shares code with
scmspec.interop.ancestral or scmspec.interop.pag.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import networkx as nx

from scmspec.interop.marks import ARROW, CIRCLE, TAIL, MarkGraph

Edge = tuple[int, int, int, int]
KINDS = ((TAIL, ARROW), (ARROW, TAIL), (ARROW, ARROW), (TAIL, TAIL))


def separable(g: nx.DiGraph, a: str, b: str, observed: Sequence[str], given: set[str]) -> bool:
    """Some subset Z of the other observed variables has a _||_ b | Z + given."""
    rest = [n for n in observed if n not in (a, b)]
    return any(nx.is_d_separator(g, {a}, {b}, set(z) | given)
               for r in range(len(rest) + 1) for z in itertools.combinations(rest, r))


def _canonical(nodes: Sequence[str], edges: Sequence[Edge]) -> tuple[nx.DiGraph, set[str]]:
    g = nx.DiGraph()
    g.add_nodes_from(nodes)
    selected = set()
    for k, (i, j, mi, mj) in enumerate(edges):
        a, b = nodes[i], nodes[j]
        if (mi, mj) == (TAIL, ARROW):
            g.add_edge(a, b)
        elif (mi, mj) == (ARROW, TAIL):
            g.add_edge(b, a)
        elif (mi, mj) == (ARROW, ARROW):
            g.add_edges_from([(f"~L{k}", a), (f"~L{k}", b)])
        else:
            g.add_edges_from([(a, f"~S{k}"), (b, f"~S{k}")])
            selected.add(f"~S{k}")
    return g, selected


def independences(nodes: Sequence[str], edges: Sequence[Edge]) -> tuple[bool, ...]:
    """Every statement a _||_ b | Z (Z over the other nodes), in a fixed order."""
    g, selected = _canonical(nodes, edges)
    out = []
    for a, b in itertools.combinations(nodes, 2):
        rest = [n for n in nodes if n not in (a, b)]
        for r in range(len(rest) + 1):
            out += [nx.is_d_separator(g, {a}, {b}, set(z) | selected)
                    for z in itertools.combinations(rest, r)]
    return tuple(out)


def ancestral(n: int, edges: Sequence[Edge]) -> bool:
    """No directed cycle; no <-> between ancestor and descendant; no arrowhead into an end
    of an undirected edge."""
    d = nx.DiGraph()
    d.add_nodes_from(range(n))
    for i, j, mi, mj in edges:
        if (mi, mj) == (TAIL, ARROW):
            d.add_edge(i, j)
        elif (mi, mj) == (ARROW, TAIL):
            d.add_edge(j, i)
    if not nx.is_directed_acyclic_graph(d):
        return False
    into = {i for i, _, mi, _ in edges if mi == ARROW} | {j for _, j, _, mj in edges
                                                          if mj == ARROW}
    for i, j, mi, mj in edges:
        if (mi, mj) == (ARROW, ARROW) and (nx.has_path(d, i, j) or nx.has_path(d, j, i)):
            return False
        if (mi, mj) == (TAIL, TAIL) and (i in into or j in into):
            return False
    return True


def brute_force_pag(mag: MarkGraph) -> MarkGraph:
    """The marks shared by every ancestral graph Markov equivalent to ``mag``."""
    nodes, skeleton = list(mag.nodes), mag.sorted_edges()
    target = independences(nodes, skeleton)
    members = []
    for combo in itertools.product(KINDS, repeat=len(skeleton)):
        cand = [(i, j, *k) for (i, j, _, _), k in zip(skeleton, combo)]
        if ancestral(len(nodes), cand) and independences(nodes, cand) == target:
            members.append(cand)
    assert members, "the MAG itself must be a member of its class"
    out = []
    for k, (i, j, _, _) in enumerate(skeleton):
        at_i, at_j = {m[k][2] for m in members}, {m[k][3] for m in members}
        out.append((i, j, at_i.pop() if len(at_i) == 1 else CIRCLE,
                    at_j.pop() if len(at_j) == 1 else CIRCLE))
    return MarkGraph.build(nodes, out)
