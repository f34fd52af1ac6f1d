"""Gates on a compiled card's structure: compile stages, graph shape, mechanism mix.

These read the card and its resolved graph only (no data), so they cost
microseconds. ``schema``, ``acyclic``, ``parents_match`` and ``units`` are
enforced by the compiler (a violation is a located diagnostic that stops
compilation); on a card that compiled they record an explicit pass.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator

import networkx as nx

from scmspec.validators.base import GATES, GateContext, GateResult, make_result
from scmspec.validators.mechanisms import FAMILIES, read_equation
from scmspec.validators.thresholds import (
    DEEP_GRAPH_FAMILIES,
    MAX_SIGMOID_SHARE,
    MIN_DEPTH,
    MIN_DEPTH_DEEP_FAMILIES,
    MIN_EDGES_PER_VARIABLE,
    MIN_MECHANISM_FAMILIES,
)

COMPILE_STAGE_GATES = {
    "schema": "the card matches the card schema (fields, kinds, ids)",
    "acyclic": "the causal graph is acyclic",
    "parents_match": "every equation uses exactly the parents its edges list",
    "units": "every equation is dimensionally consistent with its declared unit",
}


def _compile_stage(gate: str, detail: str) -> None:
    def check(ctx: GateContext) -> Iterator[GateResult]:
        yield make_result(gate, "pass", detail)

    GATES.add(gate, check)


for _gate, _detail in COMPILE_STAGE_GATES.items():
    _compile_stage(_gate, _detail)


def deep_family(ctx: GateContext) -> str | None:
    """The deep graph family (chain, tree, small_world, scale_free) a synthetic card names.

    Read from a generated card's ``synthetic.graph.family``, else from its tags or domain.
    """
    card = ctx.compiled.card
    factors = getattr(card, "synthetic", None)
    declared = str(factors.graph.family) if factors is not None else ""
    for text in (declared, *card.tags, card.domain):
        for token in re.split(r"[:=/,;\s]+", text.lower()):
            token = token.replace("-", "_")
            if token in DEEP_GRAPH_FAMILIES:
                return token
    return None


def _depth(ctx: GateContext) -> int:
    """Longest directed path in edges, by one pass over the topological order."""
    resolved = ctx.compiled.resolved
    level: dict[str, int] = {}
    for v in resolved.order:
        ps = resolved.parents[v]
        level[v] = 1 + max([level[p] for p in ps]) if ps else 0
    return max(level.values(), default=0)


@GATES.register("graph_shape")
def graph_shape(ctx: GateContext) -> Iterator[GateResult]:
    """No isolated variables, a minimum depth, and (synthetic) at least ceil(0.8 d) edges.

    Degrees and the edge count are read from ``resolved.parents`` (each variable's
    predecessors in the resolved graph, so the same numbers networkx would count).
    """
    resolved = ctx.compiled.resolved
    graph, parents = resolved.graph, resolved.parents
    card = ctx.compiled.card
    d, m = graph.number_of_nodes(), sum(map(len, parents.values()))
    has_child = {p for ps in parents.values() for p in ps}
    ok = True
    for v in (v for v in card.variables if not parents[v] and v not in has_child):
        ok = False
        yield make_result("graph_shape", "fail", f"{v!r} is isolated (no edge in or out; "
                          "threshold: degree >= 1); connect it to the graph or remove it",
                          ctx.where("variables", v), (v,), 0, 1)
    depth = _depth(ctx)
    family = deep_family(ctx) if card.family == "synthetic" else None
    need = MIN_DEPTH_DEEP_FAMILIES if family else MIN_DEPTH
    if depth < need:
        ok = False
        why = f"a synthetic {family} graph" if family else f"a {card.family} card"
        path = " -> ".join(_longest_path(graph)) if m else "(no edges)"
        yield make_result("graph_shape", "fail", f"depth {depth} (longest path {path}) is below "
                          f"the minimum of {need} for {why}; add a mediating variable so some "
                          f"cause acts through a chain of {need} edges", ctx.where("edges"),
                          (), depth, need)
    need_edges = math.ceil(MIN_EDGES_PER_VARIABLE * d)
    if card.family == "synthetic" and m < need_edges:
        ok = False
        yield make_result("graph_shape", "fail", f"{m} edges for d = {d} variables; a synthetic "
                          f"card needs at least ceil({MIN_EDGES_PER_VARIABLE} d) = {need_edges}; "
                          "add edges or regenerate with a higher density", ctx.where("edges"),
                          (), m, need_edges)
    if ok:
        yield make_result("graph_shape", "pass", f"{d} variables, {m} edges, depth {depth} "
                          f"(minimum {need}), no isolated variables", statistic=depth,
                          threshold=need)


# (canonical equation text, parents) -> (family, bounded sigmoid?). Pools repeat mechanisms,
# and a string key is cheap to hash and compare where a sympy tree is not.
_SEEN: dict[tuple[str, tuple[str, ...]], tuple[str, bool]] = {}


def _readings(ctx: GateContext) -> dict[str, tuple[str, bool]]:
    """(family, bounded sigmoid?) of each equation variable, read once per context."""
    def read() -> dict[str, tuple[str, bool]]:
        resolved = ctx.compiled.resolved
        text = {s.name: s.text for s in ctx.compiled.plan.steps}
        out = {}
        for v, expr in resolved.equations.items():
            key = (text[v], resolved.parents[v])
            if key not in _SEEN:
                if len(_SEEN) > 4096:
                    _SEEN.clear()
                _SEEN[key] = read_equation(expr, key[1])
            out[v] = _SEEN[key]
        return out

    return ctx.cached("mechanism_readings", read)


def mechanism_families(ctx: GateContext) -> dict[str, str]:
    """Each equation variable's mechanism family (see :mod:`scmspec.validators.mechanisms`)."""
    out = {v: r[0] for v, r in _readings(ctx).items()}
    for v, spec in ctx.compiled.card.variables.items():
        if getattr(spec, "mechanism", None) is not None:  # structured kinds carry a family tag
            out[v] = str(spec.mechanism.family)  # type: ignore[union-attr]
    return out


@GATES.register("mechanism_mix")
def mechanism_mix(ctx: GateContext) -> Iterator[GateResult]:
    """Semantic/formula cards: >= 3 mechanism families; bounded-sigmoid children <= 25%."""
    card = ctx.compiled.card
    if card.family == "synthetic":
        yield make_result("mechanism_mix", "skip", "synthetic card: mechanisms come from the "
                          "factor grid, not from a hand-written mix")
        return
    families = mechanism_families(ctx)
    counts = Counter(f for f in families.values() if f != "constant")
    order = [f for f in FAMILIES if counts[f]] + sorted(set(counts) - set(FAMILIES))
    summary = ", ".join(f"{f}: {counts[f]}" for f in order) or "none"
    ok = True
    if len(counts) < MIN_MECHANISM_FAMILIES:
        ok = False
        yield make_result("mechanism_mix", "warn", f"{len(counts)} mechanism families "
                          f"({summary}) across {len(families)} equations; at least "
                          f"{MIN_MECHANISM_FAMILIES} expected: write mechanisms as the domain "
                          "has them (thresholds, counts, ratios, accumulation...)",
                          ctx.where("variables"), (), len(counts), MIN_MECHANISM_FAMILIES)
    sig = sorted(v for v, r in _readings(ctx).items() if r[1])
    share = len(sig) / len(families) if families else 0.0
    if share > MAX_SIGMOID_SHARE:
        ok = False
        yield make_result("mechanism_mix", "warn", f"{len(sig)} of {len(families)} equations "
                          f"({share:.0%}) are a generic bounded sigmoid ({', '.join(sig)}); at "
                          f"most {MAX_SIGMOID_SHARE:.0%}: replace some with the domain's own "
                          "mechanism", ctx.where("variables", sig[0], "equation"), sig, share,
                          MAX_SIGMOID_SHARE)
    if ok:
        yield make_result("mechanism_mix", "pass", f"{len(counts)} families ({summary}); "
                          f"bounded sigmoids {share:.0%} (max {MAX_SIGMOID_SHARE:.0%})",
                          statistic=len(counts), threshold=MIN_MECHANISM_FAMILIES)


def _longest_path(graph: nx.DiGraph) -> list[str]:
    """A longest path that does not depend on the order nodes and edges were inserted."""
    ordered = nx.DiGraph()
    ordered.add_nodes_from(sorted(graph))
    ordered.add_edges_from(sorted(graph.edges))
    return nx.dag_longest_path(ordered, topo_order=list(
        nx.lexicographical_topological_sort(ordered)))
