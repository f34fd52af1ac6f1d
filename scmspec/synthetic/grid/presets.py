"""Heuresis mechanism families as presets: lg, anm, hetero, wild, mixed, gauntlet.

Each instance (Heuresis appendix; docs/synthetic.md): d = 10, n = 600, an Erdos-Renyi
or Barabasi-Albert graph (one of the two per instance) over a random causal order
with expected degree 2, anonymous variable names in random order, columns standardised
on output; 100 development and 32 test instances per family, from disjoint seed ranges.
The per-instance record is the data (``rep-0/obs.csv``), the true DAG
(``graph/adjacency.csv``) and its CPDAG (``graph/cpdag.csv``).

Families are mixtures of node types (``heuresis_nodes``) with the paper's noise scales:
linear nodes of lg and mixed U[0.5, 2]; MLP nodes and the linear nodes of wild
U[0.5, 1.5]; the maps of wild U[0.15, 0.35] (standardised); everything in gauntlet
U[0.15, 0.40], whose roots are N(0, 1). Roots elsewhere are N(0, sd) with the family's
linear or MLP scale. Graphs are redrawn until they pass the structural gates, and nodes
until their pilot passes the data checks (as for every synthetic card).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from scmspec.compiler.load import SourceMap
from scmspec.compiler.spec import Card, ProtocolSpec
from scmspec.compiler.synthetic_spec import GraphFactor, NodeRecord, OutputSpec, SyntheticSpec
from scmspec.registry import Registry
from scmspec.synthetic.errors import check_count, fail
from scmspec.synthetic.graphs.draw import DrawnGraph, GraphError, draw_graph
from scmspec.synthetic.grid.spec import GridSpec
from scmspec.synthetic.nodes.draw import r6
from scmspec.synthetic.nodes.heuresis import NODE_TYPES
from scmspec.synthetic.pilot import MAX_NODE_ATTEMPTS, PILOT_ROWS, Pilot, problem
from scmspec.synthetic.rng import pick, stream

D, N = 10, 600
EXPECTED_DEGREE = 2.0
GRAPHS = ("erdos_renyi", "scale_free")


@dataclass(frozen=True)
class Preset:
    """A Heuresis family: node types (uniform per node), noise ranges, root sd range."""

    tag: str
    doc: str
    types: tuple[str, ...]
    sigma: dict[str, tuple[float, float]]  # node type -> noise sd range
    root_sd: tuple[float, float]
    standardize_maps: bool = False


LG, MLP_SD, MAP_SD, GAUNTLET = (0.5, 2.0), (0.5, 1.5), (0.15, 0.35), (0.15, 0.40)
PRESETS: Registry[Preset] = Registry("preset")
for _p in (
    Preset("lg", "linear Gaussian, w ~ +-U[0.5, 2]", ("linear",), {"linear": LG}, LG),
    Preset("anm", "additive noise, 10-unit tanh MLPs", ("mlp",), {"mlp": MLP_SD}, MLP_SD),
    Preset("hetero", "MLP plus (softplus(MLP) + 0.2) N(0, 1)", ("hetero_mlp",),
           {"hetero_mlp": (1.0, 1.0)}, MLP_SD),
    Preset("wild", "linear nodes and standardised scalar maps of unit projections",
           ("linear", "piecewise", "sigmoid", "rff", "quadratic", "abs"),
           {"linear": MLP_SD, **{t: MAP_SD for t in ("piecewise", "sigmoid", "rff", "quadratic",
                                                     "abs")}}, MLP_SD, True),
    Preset("mixed", "linear, MLP and input-dependent-noise MLP nodes",
           ("linear", "mlp", "hetero_mlp"), {"linear": LG, "mlp": MLP_SD, "hetero_mlp": MLP_SD},
           LG),
    Preset("gauntlet", "nonlinear, non-monotone and input-dependent-noise nodes, N(0, 1) roots",
           ("piecewise", "rff", "quadratic", "abs", "sigmoid_hetero", "linear_t3", "hetero_mlp"),
           {t: GAUNTLET for t in ("piecewise", "rff", "quadratic", "abs", "sigmoid_hetero",
                                  "linear_t3", "hetero_mlp")}, (1.0, 1.0)),
):
    PRESETS.add(_p.tag, _p)


def expand_presets(grid: GridSpec, smap: SourceMap) -> list[Card]:
    """One factor card per preset x split x instance; seeds seeds[split] + i."""
    instances, seeds = grid.instances or {}, grid.seeds or {}
    check_count(len(grid.presets or []) * sum(instances.values()), smap, ("instances",))
    ranges = {s: range(seeds.get(s, 0), seeds.get(s, 0) + instances.get(s, 0)) for s in seeds}
    if "dev" in ranges and "test" in ranges and _overlap(ranges["dev"], ranges["test"]):
        raise fail("SCM704", f"the dev seeds {ranges['dev']} and test seeds {ranges['test']} "
                   "overlap; development and test instances must be disjoint", smap, ("seeds",),
                   "move the test seeds past the last dev seed")
    bad = [p for p in grid.presets or [] if p not in PRESETS]
    if bad:
        raise fail("SCM703", f"unknown preset {bad[0]!r}", smap, ("presets",),
                   f"known: {', '.join(PRESETS)}")
    cards = []
    for preset in grid.presets or []:
        for split in ("dev", "test"):
            for i, seed in enumerate(ranges.get(split, ())):
                cards.append(_instance(grid, preset, split, i, seed))
    return cards


def _overlap(a: range, b: range) -> bool:
    return max(a.start, b.start) < min(a.stop, b.stop)


def _instance(grid: GridSpec, preset: str, split: str, i: int, seed: int) -> Card:
    cid = f"{grid.id}.{preset}.{split}.{i:03d}"
    family = pick(stream(seed, cid, "graph family"), GRAPHS)
    spec = SyntheticSpec(seed=seed, key=cid, preset=preset, split=split,  # type: ignore[arg-type]
                         graph=GraphFactor(family=family, d=D, density=r6(EXPECTED_DEGREE /
                                                                          (D - 1))),
                         protocol="default", output=OutputSpec(standardize=True))
    proto = ProtocolSpec(n_obs=N, n_int_obs=N, n_int=0, replicates=1, seed=seed)
    return Card(id=cid, title=f"{grid.title}: {preset} {split} #{i}", family="synthetic",
                domain=grid.domain, references=grid.references,
                tags=[*grid.tags, f"preset={preset}", f"split={split}"], protocol=proto,
                synthetic=spec)


def preset_graph(spec: SyntheticSpec, key: str,
                 accept: Callable[[DrawnGraph], bool] | None = None) -> DrawnGraph:
    """An instance's graph: ER (p = 2 / (d - 1)) or BA (one parent per node), no cap."""
    gf = spec.graph
    return draw_graph(gf.family, gf.d, spec.seed, key, gf.density, None, gf.attempt,
                      accept)  # type: ignore[arg-type]


def materialize_preset(card: Card, smap: SourceMap) -> Card:
    """Every number of one preset instance (the preset's counterpart of ``materialize``)."""
    spec = card.synthetic
    assert spec is not None and spec.preset is not None
    preset = PRESETS.lookup(spec.preset)
    key = spec.key or card.id
    params = key if spec.attempt == 0 else f"{key}#{spec.attempt}"
    try:
        g = preset_graph(spec, key)
    except GraphError as exc:
        raise fail("SCM701", str(exc), smap, ("synthetic", "graph")) from exc
    pilot = Pilot(PILOT_ROWS)
    variables: dict[str, dict[str, object]] = {}
    records: dict[str, NodeRecord] = {}
    for v in g.order():
        parents = tuple(sorted(g.parents(v), key=g.position.__getitem__))
        rng = stream(spec.seed, params, "node", v)
        if not parents:
            sd = r6(rng.uniform(*preset.root_sd))
            variables[v] = {"meaning": f"{preset.tag} root", "role": "root",
                            "distribution": {"kind": "normal", "mean": 0.0, "sd": sd}}
            pilot.add(v, rng.normal(0.0, sd, pilot.n))
            records[v] = NodeRecord(position=g.position[v], root="gaussian")
            continue
        kind = pick(rng, preset.types)
        variables[v], values, noise = _node(v, kind, parents, pilot, preset, spec.seed, params,
                                            smap)
        pilot.add(v, values)
        records[v] = NodeRecord(position=g.position[v], mechanism=kind, noise=noise)
    edges = [{"from": p, "to": v, "reason": f"heuresis {preset.tag}: "
              f"{records[v].mechanism}"} for v in g.names for p in g.parents(v)]
    filled = spec.model_copy(update={"key": key, "graph": spec.graph.model_copy(update={
        "density": g.density, "attempt": g.attempt}), "nodes": {v: records[v] for v in g.names}})
    data = card.model_dump(by_alias=True, exclude={"variables", "edges", "synthetic"})
    tags = [*card.tags, "synthetic", f"graph={g.family}", f"d={g.d}", f"preset={preset.tag}"]
    data.update(variables={v: variables[v] for v in g.names}, edges=edges, synthetic=filled,
                tags=list(dict.fromkeys(tags)))
    return Card.model_validate(data)


def _node(v: str, kind: str, parents: tuple[str, ...], pilot: Pilot, preset: Preset, seed: int,
          params: str, smap: SourceMap) -> tuple[dict[str, object], np.ndarray, str]:
    builder, takes_standardize = NODE_TYPES[kind]
    cols = {p: pilot.columns[p] for p in parents}
    why = ""
    for attempt in range(MAX_NODE_ATTEMPTS):
        rng = stream(seed, params, "node", v, kind, attempt)
        sd = r6(rng.uniform(*preset.sigma[kind]))
        extra = {"standardize": preset.standardize_maps} if takes_standardize else {}
        built = builder(parents, cols, rng, sd, **extra)
        why = problem(built.values, pilot) or ""
        if not why:
            fields = {"meaning": f"{preset.tag} node ({kind})", **built.fields}
            return fields, built.values, built.noise
    raise fail("SCM702", f"node {v!r} ({kind}) failed the pilot data checks in "
               f"{MAX_NODE_ATTEMPTS} attempts; last: {why}", smap, ("synthetic",),
               "change the seed")
