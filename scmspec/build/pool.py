"""The pool of a parallel build: pool gates from compact summaries the workers send back.

A pool gate compares cards (``duplicate_topology``: no two graphs isomorphic), so it needs
every card of the pool at once; the cards themselves need not be in one process. In a
parallel build each worker materialises and compiles its cards and returns a
:class:`PoolSummary` (the observed-and-latent graph as a bare edge list, each variable's
role, the synthetic factors that fix a generated graph, and where the card's edges are);
the parent runs the pool gates over :class:`PoolView` objects built from them, which offer
exactly what a pool gate reads of a compiled card (``card.id``, ``card.variables[v].role``,
``card.synthetic``, ``resolved.graph``, ``source.nearest(("edges",))``). A pool gate that
reads anything else fails loudly (every card gets the internal-error result of
:func:`scmspec.build.evaluate.pool_gates`), never silently.

Justifications need the card's text, so they are applied in the worker, with the card at
hand (:func:`justified`): the results then equal :func:`scmspec.validators.run_pool_gates`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import networkx as nx

from scmspec.api import LoadedCard
from scmspec.compiler.pipeline import CompiledCard
from scmspec.compiler.synthetic_spec import SyntheticSpec
from scmspec.errors import Span, internal_error
from scmspec.validators import POOL_GATES, GateResult, make_result
from scmspec.validators.base import justify


@dataclass(frozen=True)
class PoolSummary:
    """What the pool gates need of one compiled card; small and picklable."""

    id: str
    nodes: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]
    roles: tuple[tuple[str, str | None], ...]
    synthetic: SyntheticSpec | None  # without per-node draws (nodes, observation)
    edges_span: Span | None

    @classmethod
    def of(cls, compiled: CompiledCard) -> PoolSummary:
        card, graph = compiled.card, compiled.resolved.graph
        spec = card.synthetic
        if spec is not None:
            spec = spec.model_copy(update={"nodes": None, "observation": None})
        return cls(card.id, tuple(graph.nodes), tuple(graph.edges),
                   tuple((v, s.role) for v, s in card.variables.items()), spec,
                   compiled.source.nearest(("edges",)))


@dataclass(frozen=True)
class _Variable:
    role: str | None


@dataclass(frozen=True)
class _Card:
    id: str
    variables: dict[str, _Variable]
    synthetic: SyntheticSpec | None


@dataclass(frozen=True)
class _Resolved:
    graph: nx.DiGraph


@dataclass(frozen=True)
class _Source:
    edges: Span | None

    def nearest(self, loc: tuple[Any, ...]) -> Span | None:
        if loc != ("edges",):
            raise LookupError(f"a pool gate asked for the location of {loc!r}; "
                              "scmspec.build.pool.PoolSummary keeps only ('edges',)")
        return self.edges


@dataclass(frozen=True)
class PoolView:
    """A compiled card as far as a pool gate reads it, rebuilt from a :class:`PoolSummary`."""

    card: _Card
    resolved: _Resolved
    source: _Source

    @classmethod
    def of(cls, s: PoolSummary) -> PoolView:
        graph = nx.DiGraph()
        graph.add_nodes_from(s.nodes)
        graph.add_edges_from(s.edges)
        return cls(_Card(s.id, {v: _Variable(r) for v, r in s.roles}, s.synthetic),
                   _Resolved(graph), _Source(s.edges_span))


def raw_pool_gates(summaries: dict[str, PoolSummary]) -> dict[str, list[GateResult]]:
    """Every pool gate over the summarised cards (in the given order), by path; unjustified.

    A bug fails every card of the pool with an internal-error result, as
    :func:`scmspec.build.evaluate.pool_gates` does.
    """
    views = [PoolView.of(s) for s in summaries.values()]
    pool = cast(Sequence[CompiledCard], views)
    by_id: dict[str, list[GateResult]] = {v.card.id: [] for v in views}
    try:
        for _, gate in POOL_GATES.items():
            for card_id, results in gate(pool).items():
                by_id[card_id].extend(results)
    except Exception as exc:  # noqa: BLE001 - a bug here must not stop every card
        fail = make_result("duplicate_topology", "fail", internal_error(exc, None,
                           "comparing the cards of the pool").message)
        return {path: [fail] for path in summaries}
    return {path: by_id[s.id] for path, s in summaries.items()}


def justified(results: Sequence[GateResult], loaded: LoadedCard) -> list[GateResult]:
    """``results`` with the card's justifications applied (what ``run_pool_gates`` does)."""
    return justify(results, cast(CompiledCard, _Justifiable(loaded.card, loaded.source)))


@dataclass(frozen=True)
class _Justifiable:
    card: Any
    source: Any
