"""The maximal ancestral graph (MAG) of a DAG with latent variables and selection.

Takes the full DAG (observed and latent variables), the latent names and the variables a
selection condition reads; hands on the MAG over the observed variables as a
:class:`~scmspec.interop.marks.MarkGraph` (Richardson & Spirtes 2002, section 4.2.1).

Selection is modelled the standard way: one selection node ``S`` whose parents are the
variables the condition reads, always conditioned on (the data hold only rows where the
condition is true). Then, for observed ``a`` and ``b``:

* **adjacency**: ``a`` and ``b`` are adjacent iff there is an inducing path between them
  relative to (latent, S), which holds iff they are d-connected given
  ``(An({a, b} ∪ S) ∩ O) \\ {a, b} ∪ S`` (Richardson & Spirtes 2002, Theorem 4.2): no set of
  observed variables can separate them once the selection is conditioned on;
* **marks**: the mark at ``a`` is a tail iff ``a`` is an ancestor of ``b`` or of ``S``
  (``a -> b``: a causes b; ``a -- b``: both are ancestors of the selection; ``a <-> b``:
  neither is an ancestor of the other or of S).

The invariant it establishes: the returned graph is ancestral and maximal, and it implies
exactly the conditional independences among observed variables (given S) of the DAG.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx

from scmspec.interop.graphs import InteropError, MixedGraph, latent_set, to_digraph
from scmspec.interop.marks import ARROW, TAIL, Edge, MarkGraph

SELECTION_NODE = "__selection__"


def selection_dag(full: MixedGraph, selection_parents: Sequence[str]) -> nx.DiGraph:
    """The full DAG plus the selection node (a child of every variable the condition reads)."""
    g = to_digraph(full)
    unknown = [v for v in selection_parents if v not in g]
    if unknown:
        raise InteropError(f"selection reads variables not in the graph: {', '.join(unknown)}")
    if selection_parents:
        if SELECTION_NODE in g:
            raise InteropError(f"a variable may not be called {SELECTION_NODE}")
        g.add_edges_from((v, SELECTION_NODE) for v in selection_parents)
    return g


def mag_from_dag(full: MixedGraph, latent: Sequence[str] = (),
                 selection_parents: Sequence[str] = ()) -> MarkGraph:
    """The MAG over the observed variables (``full.nodes`` minus ``latent``, in order).

    Example:
        >>> g = MixedGraph.from_dag("uab", [[0, 1, 1], [0, 0, 0], [0, 0, 0]])
        >>> mag_from_dag(g, ["u"]).lines()
        ['a <-> b']
        >>> c = MixedGraph.from_dag("abc", [[0, 0, 1], [0, 0, 1], [0, 0, 0]])
        >>> mag_from_dag(c, [], ["c"]).lines()  # selection on a collider
        ['a --- b', 'a --- c', 'b --- c']
    """
    hidden = latent_set(full, latent, "the MAG")
    observed = [n for n in full.nodes if n not in hidden]
    if not hidden and not selection_parents:  # a DAG is its own MAG
        return MarkGraph.from_mixed(MixedGraph.from_dag(
            observed, full.directed))
    g = selection_dag(full, selection_parents)
    sel = {SELECTION_NODE} if selection_parents else set()
    anc = {n: nx.ancestors(g, n) | {n} for n in g}
    anc_s = set().union(*(anc[s] for s in sel)) if sel else set()
    obs = set(observed)
    edges: list[Edge] = []
    for i, a in enumerate(observed):
        for j in range(i + 1, len(observed)):
            b = observed[j]
            given = ((anc[a] | anc[b] | anc_s) & obs) - {a, b}
            if nx.is_d_separator(g, {a}, {b}, given | sel):
                continue
            mark_a = TAIL if a in anc[b] or a in anc_s else ARROW
            mark_b = TAIL if b in anc[a] or b in anc_s else ARROW
            edges.append((i, j, mark_a, mark_b))
    return MarkGraph.build(observed, edges)
