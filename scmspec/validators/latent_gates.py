"""The ``latent_paths`` gate: the observed ground truth does not silently drop causal paths.

``graph/adjacency.csv`` is the full DAG restricted to the observed variables. When
an observed ``x`` causes an observed ``y`` only through latent variables
(``x -> u -> y`` with ``u`` latent), that restriction has no ``x -> y`` although
``x`` is a cause of ``y`` in the observed data, so a method that finds the edge is
scored as wrong. The latent projection (the ADMG, written by ``scmspec export
--to adjacency``) has it. The gate warns for every such pair and names the latent route, so the
author can observe the mediator, draw the direct edge, or justify the design.
"""

from __future__ import annotations

from collections.abc import Iterator

import networkx as nx

from scmspec.validators.base import GATES, GateContext, GateResult, make_result


def hidden_paths(graph: nx.DiGraph, latent: set[str]) -> dict[tuple[str, str], list[str]]:
    """(x, y) -> a latent route for each observed pair joined only through latent nodes.

    Only pairs without a direct ``x -> y`` edge are returned: those are the directed
    edges of the latent projection that the induced observed subgraph lacks.

    Example:
        >>> g = nx.DiGraph([("x", "u"), ("u", "v"), ("v", "y"), ("x", "z")])
        >>> hidden_paths(g, {"u", "v"})
        {('x', 'y'): ['u', 'v']}
    """
    found: dict[tuple[str, str], list[str]] = {}
    for x in sorted(v for v in graph if v not in latent):
        route = {u: [u] for u in sorted(graph.successors(x)) if u in latent}
        stack = list(route)
        while stack:  # depth-first through latent nodes only, remembering one route each
            u = stack.pop()
            for w in sorted(graph.successors(u)):
                if w in latent and w not in route:
                    route[w] = [*route[u], w]
                    stack.append(w)
                elif w not in latent and w != x and not graph.has_edge(x, w):
                    found.setdefault((x, w), route[u])
    return found


@GATES.register("latent_paths")
def latent_paths(ctx: GateContext) -> Iterator[GateResult]:
    """Warn for observed cause-effect pairs that the observed adjacency drops."""
    card = ctx.compiled.card
    latent = {v for v, s in card.variables.items() if not s.observed}
    if not latent:
        yield make_result("latent_paths", "skip", "no latent variables")
        return
    hidden = hidden_paths(ctx.compiled.resolved.graph, latent)
    for (x, y), route in sorted(hidden.items()):
        path = " -> ".join([x, *route, y])
        yield make_result("latent_paths", "warn", f"{x!r} causes {y!r} only through latent "
                          f"variables ({path}): graph/adjacency.csv has no {x} -> {y}, so a "
                          "method that finds it is scored as wrong (the ADMG written by "
                          "`scmspec export --to adjacency` has it); observe the mediator, add "
                          "the direct edge, or justify the design in justifications.latent_paths",
                          ctx.where("variables", route[0]), (x, y), len(route), 0)
    if not hidden:
        yield make_result("latent_paths", "pass", f"{len(latent)} latent variables; no observed "
                          "pair is joined only through them (the observed adjacency keeps "
                          "every observed cause)")
