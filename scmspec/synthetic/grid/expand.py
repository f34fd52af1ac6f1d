"""Expand a grid card into synthetic factor cards, each with a stable id.

Takes a grid card (``grid_spec.GridSpec``); hands on factor cards (``synthetic:``
section, no variables) in a fixed order. Every choice draws from a stream keyed by
(grid seed, grid id, configuration id, purpose), so an id's factors never depend on the
other configurations or on a ``--select`` slice. The one pool-level rule is distinct
topologies: graphs are drawn in grid order and a graph isomorphic to an earlier one is
redrawn with the next graph attempt (recorded in the card), so a pool passes the
``duplicate_topology`` gate. ``resolve=False`` skips that (and graph drawing): the
factor cards then draw their graph from attempt 0 when materialised.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
from pydantic import ValidationError

from scmspec.compiler.load import SourceMap, load
from scmspec.compiler.spec import Card
from scmspec.compiler.synthetic_spec import GraphFactor, SyntheticSpec
from scmspec.compiler.validate import schema_diagnostics
from scmspec.errors import Diagnostic
from scmspec.synthetic.errors import SynthesisError, check_count, fail
from scmspec.synthetic.graphs.draw import (
    DrawnGraph,
    GraphError,
    draw_graph,
    in_degree_caps,
    min_roots,
    to_networkx,
)
from scmspec.synthetic.grid.spec import GridSpec
from scmspec.synthetic.nodes.draw import integer
from scmspec.synthetic.nodes.factors import MECHANISM_FACTORS, NOISE_FACTORS
from scmspec.synthetic.nodes.mixing import draw_families, family_count_range
from scmspec.synthetic.protocols import target_pool_range
from scmspec.synthetic.rng import stream
from scmspec.synthetic.stressors import DIFFICULTY_STRESSORS

SELECT_KEYS = ("id", "graph", "d", "index", "difficulty", "protocol", "root_dependency",
               "preset", "split", "n")


def load_grid(path: Path, name: str | None = None) -> tuple[GridSpec, SourceMap]:
    """Read and validate a grid card (located SCM201 diagnostics on mistakes)."""
    raw, smap = load(path, name=name)
    try:
        return GridSpec.model_validate(raw), smap
    except ValidationError as exc:  # the card validator's messages, located the same way
        raise SynthesisError(schema_diagnostics(exc, raw, smap, "<grid>")) from None


def expand_file(path: Path, select: str | None = None, resolve: bool = True,
                name: str | None = None) -> tuple[list[Card], SourceMap]:
    """The factor cards of a grid file (optionally a ``select`` slice) and its source map.

    ``name`` is how diagnostics name the file (default: the path as given).
    """
    grid, smap = load_grid(path, name)
    cards = expand(grid, path.parent, smap, resolve, (path.resolve(),))
    return choose(cards, select, smap), smap


def expand(grid: GridSpec, base_dir: Path, smap: SourceMap | None = None,
           resolve: bool = True, chain: tuple[Path, ...] = ()) -> list[Card]:
    """Every configuration of a grid, in grid order (``chain``: the grid files above it)."""
    smap = smap or SourceMap(f"<{grid.id}>")
    if grid.presets is not None:
        from scmspec.synthetic.grid.presets import expand_presets

        cards = expand_presets(grid, smap)
    elif grid.base is not None:
        return _suite(grid, base_dir, smap, resolve, chain)
    else:
        cards = _cross(grid, smap)
    cards = _crossed(grid, cards)
    return distinct_topologies(cards, smap) if resolve else cards


def _cross(grid: GridSpec, smap: SourceMap) -> list[Card]:
    from scmspec.synthetic.graphs.draw import GRAPH_FAMILIES

    bad = [g for g in grid.graphs or [] if g not in GRAPH_FAMILIES]
    if bad:
        raise fail("SCM703", f"unknown graph family {bad[0]!r}", smap, ("graphs",),
                   f"known: {', '.join(GRAPH_FAMILIES)}")
    check_count(len(grid.graphs or []) * len(grid.d or []) * grid.per_cell
                * len(grid.protocols) * len(grid.n or [None]), smap, ("per_cell",))
    cards, dependent = [], 0
    for graph in grid.graphs or []:
        for d in grid.d or []:
            slots = _difficulty(grid, graph, d)
            deps = _dependency_slots(grid, graph, d)
            for i in range(grid.per_cell):
                dep = "independent"
                if i in deps:
                    kinds = grid.root_dependency.kinds
                    dep, dependent = kinds[dependent % len(kinds)], dependent + 1
                cards.append(_config(grid, graph, d, i, slots[i], dep))
    return cards


def _difficulty(grid: GridSpec, graph: str, d: int) -> list[list[str]]:
    """Stressors of each configuration of a cell: the cycle's slots; singles walk through a
    shuffled stressor list (so a cell covers them evenly), pairs are random distinct pairs."""
    pool = grid.difficulty.stressors or list(DIFFICULTY_STRESSORS)
    rng = stream(grid.seed, grid.id, "cell", graph, d, "difficulty")
    order = [pool[int(i)] for i in rng.permutation(len(pool))]
    out, singles = [], 0
    for i in range(grid.per_cell):
        slot = grid.difficulty.cycle[i % len(grid.difficulty.cycle)]
        if slot == "single":
            out.append([order[singles % len(order)]])
            singles += 1
        elif slot == "paired":
            out.append(sorted(pool[int(j)] for j in rng.permutation(len(pool))[:2]))
        else:
            out.append([])
    return out


def _dependency_slots(grid: GridSpec, graph: str, d: int) -> set[int]:
    rng = stream(grid.seed, grid.id, "cell", graph, d, "dependency")
    k = min(grid.root_dependency.per_cell, grid.per_cell)
    return {int(i) for i in rng.permutation(grid.per_cell)[:k]}


def _config(grid: GridSpec, graph: str, d: int, i: int, difficulty: list[str],
            dependency: str) -> Card:
    cid = f"{grid.id}.{graph}.d{d}.{i:02d}"
    rng = lambda purpose: stream(grid.seed, grid.id, "config", cid, purpose)  # noqa: E731
    caps = in_degree_caps(d)
    spec = SyntheticSpec(
        seed=grid.seed, key=cid,
        graph=GraphFactor(family=graph, d=d, in_degree_cap=caps[int(rng("cap").integers(3))]),
        mechanisms=grid.mechanisms or draw_families(list(MECHANISM_FACTORS),
                                                    family_count_range(d), rng("mechanisms")),
        noise=grid.noise or draw_families(list(NOISE_FACTORS), family_count_range(d),
                                          rng("noise")),
        roots=grid.roots, root_dependency=dependency, difficulty=difficulty,
        targets=integer(rng("targets"), *target_pool_range(d)), output=grid.output)
    return Card(id=cid, title=f"{grid.title}: {graph}, d = {d}, #{i}", family="synthetic",
                domain=grid.domain, references=grid.references, tags=grid.tags,
                protocol=grid.protocol, synthetic=spec)


def _crossed(grid: GridSpec, cards: list[Card]) -> list[Card]:
    """Cross configurations with protocols and sample sizes (ids get suffixes when crossed)."""
    protocols = grid.protocols
    sizes: list[int | None] = list(grid.n) if grid.n else [None]
    if grid.release is not None:  # the grid's state is every generated card's (suites: its own)
        cards = [c.model_copy(update={"release": grid.release}) for c in cards]
    if len(protocols) == 1 and len(sizes) == 1:
        return [_variant(c, protocols[0], sizes[0], "") for c in cards]
    out = []
    for c in cards:
        for p in protocols:
            for n in sizes:
                suffix = (f".{p}" if len(protocols) > 1 else "") + \
                    (f".n{n}" if len(sizes) > 1 else "")
                out.append(_variant(c, p, n, suffix))
    return out


def _variant(card: Card, protocol: str, n: int | None, suffix: str) -> Card:
    spec = card.synthetic.model_copy(update={"protocol": protocol})  # type: ignore[union-attr]
    proto = card.protocol if n is None else card.protocol.model_copy(update={"n_obs": n})
    return card.model_copy(update={"id": card.id + suffix, "synthetic": spec, "protocol": proto})


def _suite(grid: GridSpec, base_dir: Path, smap: SourceMap, resolve: bool,
           chain: tuple[Path, ...]) -> list[Card]:
    path = _base_path(grid.base or "", base_dir, smap, chain)
    shown = (Path(smap.path).parent / (grid.base or "")).as_posix()  # as this grid is shown
    base, base_smap = load_grid(path, shown)
    cards = expand(base, path.parent, base_smap, resolve, (*chain, path.resolve()))
    check_count(len(cards) * len(grid.protocols) * len(grid.n or [None]), smap, ("n",))
    sub = grid.subset
    if sub is not None:
        cards = [c for c in cards if _in_subset(c, sub.d, sub.graphs, sub.per_cell)]
    cards = [c.model_copy(update={"protocol": grid.protocol, "tags": [*c.tags, *grid.tags]})
             for c in cards]
    return _crossed(grid, cards)


def _base_path(base: str, base_dir: Path, smap: SourceMap, chain: tuple[Path, ...]) -> Path:
    """The base grid's file: inside this grid card's folder, existing, not already above us.

    A grid card names other files; it may not reach out of its own folder (an absolute
    path or ``..`` would let a downloaded grid read any file of the machine).
    """
    folder, path = base_dir.resolve(), base_dir / base
    real = path.resolve()
    if Path(base).is_absolute() or folder not in real.parents:
        raise fail("SCM704", f"the base grid {base!r} is outside this grid card's folder",
                   smap, ("base",), "keep the base grid beside this grid card (or below it) "
                   "and name it by a relative path")
    if real in chain:
        loop = " -> ".join(p.name for p in (*chain, real))
        raise fail("SCM704", f"the base grids form a loop: {loop}", smap, ("base",),
                   "a suite's base must be a grid that does not lead back to this one")
    if not real.is_file():
        raise fail("SCM704", f"the base grid {base!r} does not exist beside this grid card",
                   smap, ("base",), "give a path relative to this grid card")
    return path


def _in_subset(card: Card, ds: list[int] | None, graphs: list[str] | None,
               per_cell: int | None) -> bool:
    f = factors_of(card)
    return ((ds is None or f["d"] in ds) and (graphs is None or f["graph"] in graphs)
            and (per_cell is None or f["index"] < per_cell))


def factors_of(card: Card) -> dict[str, Any]:
    """The selectable factors of an expanded card (see ``SELECT_KEYS``)."""
    s = card.synthetic
    assert s is not None
    parts = (s.key or card.id).split(".")
    index = int(parts[-1]) if parts[-1].isdigit() else 0
    return {"id": card.id, "graph": s.graph.family, "d": s.graph.d, "index": index,
            "difficulty": s.difficulty or ["clean"], "protocol": s.protocol,
            "root_dependency": s.root_dependency, "preset": s.preset, "split": s.split,
            "n": card.protocol.n_obs}


def choose(cards: list[Card], select: str | None, smap: SourceMap) -> list[Card]:
    """The cards matching ``select`` ("key=value[|value...],key=..."; all keys must match).

    Example:
        >>> from scmspec.compiler.synthetic_spec import GraphFactor
        >>> c = Card(id="g.x", title="t", family="synthetic", domain="s", synthetic=
        ...     SyntheticSpec(graph=GraphFactor(family="chain", d=10)))
        >>> [x.id for x in choose([c], "graph=chain|tree,d=10", SourceMap("g"))]
        ['g.x']
    """
    if not select:
        return cards
    wanted = _parse_select(select, smap)
    return [c for c in cards if all(_matches(factors_of(c)[k], v) for k, v in wanted.items())]


def _parse_select(select: str, smap: SourceMap) -> dict[str, list[str]]:
    wanted: dict[str, list[str]] = {}
    for part in filter(None, (p.strip() for p in select.split(","))):
        key, eq, value = part.partition("=")
        if not eq or key.strip() not in SELECT_KEYS:
            raise SynthesisError([_select_diag(part)])
        wanted[key.strip()] = [v.strip() for v in value.split("|")]
    return wanted


def _select_diag(part: str) -> Diagnostic:
    keys = ", ".join(SELECT_KEYS)
    return Diagnostic("SCM705", f"cannot read the selection {part!r}", None,
                      f"write key=value[|value...], comma-separated; keys: {keys}", "--select")


def _matches(actual: object, values: Iterable[str]) -> bool:
    items = actual if isinstance(actual, list) else [actual]
    return any(fnmatch.fnmatchcase(str(a), v) for a in items for v in values)


def distinct_topologies(cards: list[Card], smap: SourceMap) -> list[Card]:
    """Draw every card's graph in order; redraw any graph isomorphic to an earlier one.

    Cards sharing a stream key (suite variants of one SCM) share one graph.
    """
    seen: dict[tuple[Any, ...], list[nx.DiGraph]] = {}
    done: dict[str, GraphFactor] = {}
    out = []
    for card in cards:
        s = card.synthetic
        assert s is not None
        key = s.key or card.id
        if key not in done:
            done[key] = _unique_graph(card, s, key, seen, smap)
        out.append(card.model_copy(update={"synthetic": s.model_copy(
            update={"graph": done[key]})}))
    return out


def _unique_graph(card: Card, s: SyntheticSpec, key: str,
                  seen: dict[tuple[Any, ...], list[nx.DiGraph]], smap: SourceMap) -> GraphFactor:
    from scmspec.synthetic.grid.presets import preset_graph  # presets import this module

    draw: Callable[..., DrawnGraph] = preset_graph if s.preset is not None else _factor_graph

    def fresh(g: DrawnGraph) -> bool:
        bucket = seen.get(_bucket(g), [])
        if not bucket:
            return True
        h = to_networkx(g)
        return not any(nx.is_isomorphic(other, h) for other in bucket)

    try:
        g = draw(s, key, fresh)
    except GraphError as exc:  # report it on this configuration
        raise fail("SCM701", f"{card.id}: {exc}", smap, ("graphs",)) from exc
    seen.setdefault(_bucket(g), []).append(to_networkx(g))
    return s.graph.model_copy(update={"density": g.density, "attempt": g.attempt})


def _factor_graph(s: SyntheticSpec, key: str,
                  accept: Callable[[DrawnGraph], bool] | None = None) -> DrawnGraph:
    gf = s.graph
    return draw_graph(gf.family, gf.d, s.seed, key, gf.density, gf.in_degree_cap, gf.attempt,
                      accept, min_roots=min_roots(s))


def _bucket(g: DrawnGraph) -> tuple[Any, ...]:
    """An isomorphism invariant: size, edges, and the sorted rows (in-degree, out-degree,
    sums of the parents' and of the children's in/out degrees): one round of colour
    refinement, vectorised; isomorphic graphs always share it."""
    a = g.adjacency.astype(np.int64)
    ins, outs = a.sum(axis=0), a.sum(axis=1)
    rows = np.column_stack([ins, outs, a.T @ ins, a.T @ outs, a @ ins, a @ outs,
                            a.T @ ins**2, a @ outs**2])
    return (g.d, g.edges, tuple(sorted(map(tuple, rows.tolist()))))


__all__ = ["choose", "distinct_topologies", "expand", "expand_file", "factors_of", "load_grid"]
