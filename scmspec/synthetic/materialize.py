"""Materialise a synthetic factor card: every concrete parameter, drawn deterministically.

Takes a :class:`~scmspec.compiler.spec.Card` whose ``synthetic:`` section names factors
and whose ``variables`` are empty; hands on an ordinary card (variables with
``mechanism:``/``distribution:`` and ``noise:``, edges with reasons, a standardising
root block, target pool and handlers, protocol) plus the filled-in ``synthetic:``
section, so the compiled ``spec.json`` records every number. Every decision draws from
its own named stream (seed, key, decision, ...), so a factor given explicitly or left
to be drawn never shifts another decision's numbers: the section of a materialised
card reproduces it exactly. Invariant established: the card passes the synthetic
structural gates, and its pilot sample passes the data gates with margins; otherwise a
located ``SynthesisError`` says which factor or node could not be made valid.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import TypeAdapter
from scipy import special

from scmspec.compiler.kinds.interventions import HandlerSpec
from scmspec.compiler.load import SourceMap
from scmspec.compiler.spec import Card
from scmspec.compiler.synthetic_spec import NodeRecord, SyntheticSpec
from scmspec.samplers.numpy_sampler import ball_uniforms
from scmspec.synthetic.errors import SynthesisError, check_tags, fail
from scmspec.synthetic.graphs.draw import DrawnGraph, GraphError, draw_graph, min_roots
from scmspec.synthetic.nodes.dependency import ROOT_DEPENDENCIES, draw_block, standardised
from scmspec.synthetic.nodes.draw import integer
from scmspec.synthetic.nodes.factors import MECHANISM_FACTORS, NOISE_FACTORS, ROOT_FACTORS
from scmspec.synthetic.nodes.mixing import (
    assign_noise,
    draw_families,
    family_count_range,
    root_family_count_range,
    spread,
)
from scmspec.synthetic.pilot import MAX_NODE_ATTEMPTS, NEAR_COPY, PILOT_ROWS, Pilot, draw_node
from scmspec.synthetic.protocols import (
    PROTOCOLS,
    handler_for,
    per_row,
    stressed_handler,
    target_pool_range,
)
from scmspec.synthetic.rng import sample, stream
from scmspec.synthetic.stressors import observation_specs, strength

Array = np.ndarray
DISCRETE_VALUED = ("multinomial", "zipf")  # continuous-typed roots with a discrete support
HANDLER: TypeAdapter[Any] = TypeAdapter(HandlerSpec)
MIN_PROPAGATION = 0.5  # a target must move some child on half the pilot rows (see Pilot)


def materialize(card: Card, smap: SourceMap | None = None) -> Card:
    """The fully specified card of a factor card (other cards come back unchanged).

    Example:
        >>> from scmspec.compiler.synthetic_spec import GraphFactor
        >>> factor = Card(id="demo", title="t", family="synthetic", domain="synthetic",
        ...     synthetic=SyntheticSpec(seed=1, graph=GraphFactor(family="chain", d=6)))
        >>> full = materialize(factor)
        >>> len(full.variables), full.synthetic.graph.density is not None
        (6, True)
    """
    spec = card.synthetic
    if spec is None or card.variables:
        return card
    smap = smap or SourceMap(f"<{card.id}>")
    if spec.preset is not None:
        from scmspec.synthetic.grid.presets import materialize_preset

        return materialize_preset(card, smap)
    check_tags(spec, smap)
    return _Builder(card, spec, smap).build()


class _Builder:
    """One materialisation: the graph, families, roots, nodes, targets, then the card."""

    def __init__(self, card: Card, spec: SyntheticSpec, smap: SourceMap) -> None:
        self.card, self.spec, self.smap = card, spec, smap
        self.seed, self.key = spec.seed, spec.key or card.id
        # Parameter streams: a new SCM-level attempt redraws every parameter, not the graph.
        self.params = self.key if spec.attempt == 0 else f"{self.key}#{spec.attempt}"
        self.pilot = Pilot(PILOT_ROWS)
        self.variables: dict[str, dict[str, Any]] = {}
        self.records: dict[str, NodeRecord] = {}

    def rng(self, *parts: object) -> np.random.Generator:
        return stream(self.seed, self.params, *parts)

    def build(self) -> Card:
        g = self.graph()
        self.g = g
        roots = [v for v in g.order() if not g.parents(v)]
        others = [v for v in g.order() if g.parents(v)]
        fams = self.families(len(roots))
        mech = spread(others, fams["mechanisms"], self.rng("assign", "mechanisms"))
        noise = assign_noise(others, fams["noise"], mech, {v: g.parents(v) for v in others},
                             self.rng("assign", "noise"))
        block = self.roots(roots, spread(roots, fams["roots"], self.rng("assign", "roots")))
        for v in others:
            self.node(v, mech[v], noise[v], fams)
        return self.card_of(fams, block)

    def graph(self) -> DrawnGraph:
        gf = self.spec.graph
        try:
            return draw_graph(gf.family, gf.d, self.seed, self.key, gf.density, gf.in_degree_cap,
                              gf.attempt, min_roots=min_roots(self.spec))
        except GraphError as exc:
            raise fail("SCM701", f"{exc}; the structural gates need no isolated node, enough "
                       "depth and at least ceil(0.8 d) edges", self.smap, ("synthetic", "graph"),
                       "raise the density (or leave it out to draw it), or lower the in-degree "
                       "cap") from exc

    def families(self, n_roots: int) -> dict[str, list[str]]:
        s, d = self.spec, self.spec.graph.d
        return {
            "mechanisms": s.mechanisms or draw_families(list(MECHANISM_FACTORS), family_count_range(
                d), self.rng("families", "mechanisms")),
            "noise": s.noise or draw_families(list(NOISE_FACTORS), family_count_range(d),
                                              self.rng("families", "noise")),
            "roots": s.roots or draw_families(list(ROOT_FACTORS), root_family_count_range(
                n_roots), self.rng("families", "roots")),
        }

    def roots(self, roots: list[str], family: dict[str, str]) -> dict[str, Any]:
        names = sorted(roots)
        dists = {}
        for r in names:
            dist, kind = ROOT_FACTORS.lookup(family[r]).draw(self.rng("root", r))
            dists[r] = dist
            self.variables[r] = {"meaning": f"synthetic root ({family[r]})", "kind": kind,
                                 "role": "root", "distribution": dist}
            self.records[r] = NodeRecord(position=self.g.position[r], root=family[r])
        block, raw = self._dependent_roots(names, dists)
        loc = [float(raw[r].mean()) for r in names]
        scale = [float(raw[r].std()) or 1.0 for r in names]
        block = standardised(block, loc, scale)
        for r, m, s in zip(names, block["loc"], block["scale"]):
            values = (raw[r] - m) / s
            self.pilot.add(r, values)
            if family[r] in DISCRETE_VALUED:
                self.variables[r]["boundary"] = ("synthetic: a discrete-valued root; its lowest "
                                                 "and highest values carry probability mass by "
                                                 "design, not by clipping")
        return block

    def _dependent_roots(self, names: list[str], dists: dict[str, Any]
                         ) -> tuple[dict[str, Any], dict[str, Array]]:
        kind, why = self.spec.root_dependency, ""
        for attempt in range(MAX_NODE_ATTEMPTS):
            block = draw_block(kind, tuple(names), self.rng("dependency", attempt))
            raw = _root_pilot(block, dists, self.pilot.n, self.rng("pilot", "roots", attempt))
            why = _root_copies(raw)
            if not why:
                return block, raw
        raise fail("SCM702", f"the {kind} root block could not be drawn without near-copy "
                   f"roots in {MAX_NODE_ATTEMPTS} attempts ({why})", self.smap,
                   ("synthetic", "root_dependency"), "use another root dependency")

    def node(self, v: str, mech: str, noise: str, fams: dict[str, list[str]]) -> None:
        parents = tuple(sorted(self.g.parents(v), key=self.g.position.__getitem__))
        pairs = [(m, n) for m in fams["mechanisms"] for n in fams["noise"] if n != "none"]
        fallback = [pairs[int(i)] for i in self.rng("fallback", v).permutation(len(pairs))]
        drawn, why = draw_node(v, parents, (mech, noise), self.pilot,
                               strength(self.spec.difficulty), "high_noise" in self.spec.difficulty,
                               self.seed, self.params, fallback)
        if drawn is None:
            raise fail("SCM702", f"node {v!r} ({mech} mechanism, {noise} noise, parents "
                       f"{', '.join(parents)}) failed the pilot data checks in "
                       f"{MAX_NODE_ATTEMPTS} attempts; last: {why}", self.smap,
                       ("synthetic",), "change the seed, or the active mechanism/noise families")
        mech, noise = drawn.families
        self.pilot.add(v, drawn.values, drawn.mechanism, parents)
        self.variables[v] = {"meaning": f"synthetic node ({mech} mechanism, {noise} noise)",
                             "mechanism": drawn.mechanism, "noise": drawn.noise}
        self.records[v] = NodeRecord(position=self.g.position[v], mechanism=mech, noise=noise,
                                     attempt=drawn.attempt)

    def card_of(self, fams: dict[str, list[str]], block: dict[str, Any]) -> Card:
        s, g = self.spec, self.g
        protocol = PROTOCOLS.lookup(s.protocol)
        targets, rows = self.targets(protocol)
        continuous = [v for v in g.names if self.variables[v].get("kind", "continuous")
                      == "continuous"]
        filled = s.model_copy(update={
            "key": self.key, "mechanisms": fams["mechanisms"], "noise": fams["noise"],
            "roots": fams["roots"], "targets": len(targets), "per_row": rows,
            "graph": s.graph.model_copy(update={"density": g.density, "attempt": g.attempt}),
            "nodes": {v: self.records[v] for v in g.names},
            "observation": observation_specs(s.difficulty, continuous, self.rng("observation")),
        })
        edges = [{"from": p, "to": v, "reason": f"synthetic: {self.records[v].mechanism}"}
                 for v in g.names for p in g.parents(v)]
        data = self.card.model_dump(by_alias=True, exclude={"variables", "edges", "synthetic"})
        data.update(
            variables={v: self.variables[v] for v in g.names}, edges=edges, root_blocks=[block],
            interventions={"targets": targets, "per_row": rows}, synthetic=filled,
            tags=_tags(self.card.tags, s), protocol={**data["protocol"], "n_int_obs":
                                                     protocol.n_int_obs, "n_int": protocol.n_int})
        return Card.model_validate(data)

    def targets(self, protocol: Any) -> tuple[list[str], int]:
        g, s = self.g, self.spec
        eligible = [v for v in g.names if not protocol.structural_only or g.parents(v)]
        k = s.targets if s.targets is not None else integer(self.rng("targets", "count"),
                                                            *target_pool_range(g.d))
        chosen: dict[str, dict[str, Any]] = {}
        for t in sample(self.rng("targets", "pick"), eligible, len(eligible)):
            if len(chosen) == k:
                break
            handler = self.handler(protocol, len(chosen), t)
            discrete = self.variables[t].get("kind", "continuous") != "continuous"
            share = self.pilot.propagation(t, HANDLER.validate_python(handler), discrete,
                                           self.rng("propagation", t))
            if share >= MIN_PROPAGATION:
                chosen[t] = handler
        for t, handler in chosen.items():
            self.variables[t]["intervention"] = {"meaning": f"synthetic: {handler['kind']} "
                                                 "intervention", "handler": handler}
        rows = s.per_row or per_row(protocol, len(chosen), self.rng("targets", "per_row"))
        return sorted(chosen), min(rows, max(1, len(chosen)))

    def handler(self, protocol: Any, i: int, t: str) -> dict[str, Any]:
        """The protocol's handler for the i-th chosen target (stressors may replace it)."""
        rng = self.rng("handler", t)
        family = protocol.handler(i, rng)
        discrete = self.variables[t].get("kind", "continuous") != "continuous"
        handler = handler_for(family, t, discrete, self.pilot.columns, rng)
        if family == "resample":
            handler = stressed_handler(self.spec.difficulty, discrete, rng) or handler
        return handler


def _root_pilot(block: dict[str, Any], dists: dict[str, Any], n: int,
                rng: np.random.Generator) -> dict[str, Array]:
    names = block["variables"]
    if block["kind"] == "independent":
        return {r: np.asarray(dists[r].draw(rng, n), dtype=float) for r in names}
    z = rng.standard_normal((n, len(names)))
    if block["kind"] == "uniform_ball":
        u = ball_uniforms(z, rng.random(n))
    else:
        u = special.ndtr(z @ np.linalg.cholesky(np.asarray(block["correlation"])).T)
    return {r: np.asarray(dists[r].ppf(u[:, j]), dtype=float) for j, r in enumerate(names)}


def _root_copies(raw: dict[str, Array]) -> str:
    names = list(raw)
    if len(names) < 2:
        return ""
    x = np.vstack([raw[r] for r in names])
    sd = x.std(axis=1)
    if (sd == 0).any():
        return "a constant root"
    corr = np.abs(np.corrcoef(x))
    np.fill_diagonal(corr, 0.0)
    i, j = np.unravel_index(int(np.argmax(corr)), corr.shape)
    return f"{names[i]} ~ {names[j]}, |corr| {corr[i, j]:.3f}" if corr[i, j] >= NEAR_COPY else ""


def _tags(existing: list[str], s: SyntheticSpec) -> list[str]:
    ours = ["synthetic", f"graph={s.graph.family}", f"d={s.graph.d}",
            f"difficulty={'+'.join(s.difficulty) or 'clean'}", f"protocol={s.protocol}",
            f"root_dependency={s.root_dependency}"]
    return list(dict.fromkeys([*existing, *ours]))


__all__ = ["ROOT_DEPENDENCIES", "SynthesisError", "materialize"]
