"""Where ``scmspec compile`` / ``validate`` meet the synthetic family.

``build`` calls these few functions and nothing else of this package:

- :func:`parsers`: one parse step per card a file holds (a grid card expands into many
  synthetic cards, each materialised lazily; a factor card is materialised);
  :func:`factor_card` gives a grid configuration's step's card *before* materialisation,
  so a parallel build can ship it to a worker, which calls :func:`materialise`;
- :func:`redraw`: after gating, a synthetic card whose sampled data fail a data gate is
  redrawn with the next parameter attempt (deterministic, at most ``MAX_SCM_ATTEMPTS``);
  when every attempt fails the card is reported failed with a diagnostic (SCM706);
- :func:`observe`: observation stressors and output standardisation, applied to the
  written frames only, just before writing (the gates have run on the clean values);
- :func:`summary`, :func:`metadata`, :func:`write_graph_extras`: factor tags for the
  manifest, per-node factors and the sortability audit for metadata.json, the CPDAG.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from scmspec.compiler.load import SourceMap
from scmspec.compiler.pipeline import parse_card_text
from scmspec.compiler.spec import Card
from scmspec.errors import CardError, Diagnostic
from scmspec.synthetic.materialize import materialize
from scmspec.synthetic.rng import stream
from scmspec.synthetic.stressors import MASK_CODES, apply_observation_stressors

Parse = Callable[[], tuple[Card, SourceMap]]
MAX_SCM_ATTEMPTS = 4
DATA_GATES = frozenset({"finite", "nonconstant", "category_dominance", "boundary_mass",
                        "near_copy", "intervention_effect"})
_GRID = re.compile(rb"^grid\s*:", re.MULTILINE)


def parsers(path: Path, raw: bytes, name: str, select: str | None = None
            ) -> Iterator[tuple[str, Parse]]:
    """(display suffix, parse step) for each card in the file, in order.

    ``raw`` is the file's text, read once by the caller; ``name`` is how diagnostics
    name the file. An ordinary card yields one step ("", parse and materialise); a grid
    card yields one step per selected configuration ("#<id>", materialise it).
    """
    if not _GRID.search(raw):
        yield "", lambda: _materialised(*parse_card_text(raw, name))
        return
    from scmspec.synthetic.grid.expand import expand_file

    try:
        cards, smap = expand_file(path, select, name=name)
    except CardError as exc:
        error = exc
        yield "", lambda: _raise(error)
        return
    for card in cards:
        yield f"#{card.id}", _materialiser(card, smap)


class _Materialiser:
    """The parse step of one grid configuration: materialise it when the build asks."""

    def __init__(self, card: Card, smap: SourceMap) -> None:
        self.card, self.smap = card, smap

    def __call__(self) -> tuple[Card, SourceMap]:
        return materialize(self.card, self.smap), self.smap


def _materialiser(card: Card, smap: SourceMap) -> Parse:
    return _Materialiser(card, smap)


def factor_card(parse: Parse) -> tuple[Card, SourceMap] | None:
    """The not yet materialised card of a grid configuration's parse step, else None.

    Its id is the materialised card's id; :func:`materialise` draws the rest (graph,
    mechanisms, pilot data), which is most of a grid card's parse time.
    """
    return (parse.card, parse.smap) if isinstance(parse, _Materialiser) else None


def materialise(card: Card, smap: SourceMap) -> Card:
    """The fully specified card of a factor card; any other card is returned as it is."""
    return materialize(card, smap)


def _raise(exc: Exception) -> tuple[Card, SourceMap]:
    raise exc


def _materialised(card: Card, smap: SourceMap) -> tuple[Card, SourceMap]:
    return materialize(card, smap), smap


def redraw(card: Card, result: Any) -> Card | None:
    """The next parameter attempt of a synthetic card that failed a data gate, else None.

    ``result`` is build's CardResult (its gates and diagnostics are read and, when the
    attempts run out, extended).
    """
    spec = card.synthetic
    failed = sorted({g.gate for g in result.gates if g.blocking_failure and g.gate in DATA_GATES})
    if spec is None or not failed:
        return None
    if spec.attempt + 1 >= MAX_SCM_ATTEMPTS:
        result.diagnostics.append(Diagnostic(
            "SCM706", f"synthetic configuration {card.id!r} still fails the data gate(s) "
            f"{', '.join(failed)} after {MAX_SCM_ATTEMPTS} parameter attempts",
            None, "see gates.json; change its seed or factors", "synthetic.attempt"))
        result.status = "failed"
        return None
    factors = spec.model_copy(update={"attempt": spec.attempt + 1, "nodes": None,
                                      "observation": None})
    data = card.model_dump(by_alias=True, include={"scmspec", "id", "title", "family", "domain",
                                                    "version", "description", "references",
                                                    "tags", "protocol", "justifications"})
    try:
        return materialize(Card.model_validate({**data, "synthetic": factors}))
    except CardError as exc:  # the next attempt cannot be drawn: report, keep the last data
        result.diagnostics.extend(exc.diagnostics)
        result.status = "failed"
        return None


def observe(card: Card, seed: int, replicate: int, folder: Path,
            frames: dict[str, pd.DataFrame]) -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
    """Stressed and/or standardised copies of a replicate's written frames, and a record.

    Touched cells go to ``<folder>/<split>_stressed_cells.csv``; streams are keyed by
    (seed, card id, split, replicate, "stressor").
    """
    spec = card.synthetic
    if spec is None or not (spec.observation or spec.output.standardize):
        return frames, {}
    from scmspec.textio import write_csv

    continuous = {v for v, s in card.variables.items() if s.kind == "continuous"}
    out: dict[str, pd.DataFrame] = {}
    record: dict[str, Any] = {}
    for split, frame in frames.items():
        if spec.observation:
            rng = stream(seed, card.id, split, replicate, "stressor")
            frame, mask = apply_observation_stressors(frame, spec.observation, continuous, rng)
            cells = stressed_cells(mask)
            write_csv(folder / f"{split}_stressed_cells.csv", cells)
            record[f"{split}_stressed_cells"] = len(cells)
        if spec.output.standardize:
            mean, sd = frame.mean(), frame.std(ddof=0).replace(0.0, 1.0)
            frame = (frame - mean) / sd
            record[f"{split}_standardized"] = {"mean": mean.round(12).to_dict(),
                                               "sd": sd.round(12).to_dict()}
        out[split] = frame
    return out, record


def stressed_cells(mask: pd.DataFrame) -> pd.DataFrame:
    """The touched cells of a stressor mask, one row each: row, column, flags.

    Feature warping is column-level (every cell of the columns listed in the card's
    ``synthetic.observation``), so its bit is left out here and the file stays small.

    Example:
        >>> stressed_cells(pd.DataFrame({"a": [0, 2], "b": [9, 1]}))
           row column  flags
        0    1      a      2
        1    0      b      8
    """
    m = mask.to_numpy() & ~MASK_CODES["feature_warping"]
    rows, cols = np.nonzero(m.T)  # column by column, rows ascending
    return pd.DataFrame({"row": cols, "column": np.asarray(mask.columns)[rows],
                         "flags": m.T[rows, cols]})


def summary(card: Card) -> dict[str, Any]:
    """Factor tags for the manifest (empty for non-synthetic cards)."""
    spec = card.synthetic
    if spec is None or spec.nodes is None:
        return {}
    nodes = spec.nodes.values()
    count = lambda attr: dict(sorted(Counter(getattr(n, attr) for n in nodes  # noqa: E731
                                             if getattr(n, attr)).items()))
    mech, noise, roots = count("mechanism"), count("noise"), count("root")
    return {"factors": {
        "preset": spec.preset, "split": spec.split, "graph": spec.graph.family,
        "d": spec.graph.d, "density": spec.graph.density, "in_degree_cap": spec.graph.in_degree_cap,
        "difficulty": spec.difficulty or ["clean"], "protocol": spec.protocol,
        "root_dependency": spec.root_dependency, "mechanism_families": sorted(mech),
        "noise_families": sorted(noise), "root_families": sorted(roots),
        "mechanism_counts": mech, "noise_counts": noise, "root_counts": roots,
        "seed": spec.seed, "key": spec.key, "attempt": spec.attempt}}


def metadata(card: Card, replicates: Sequence[Any], scm: Any,
             records: dict[str, Any]) -> dict[str, Any]:
    """metadata.json additions: per-node factors, the sortability audit, output records."""
    spec = card.synthetic
    if spec is None or spec.nodes is None:
        return {}
    nodes = {v: r.model_dump(exclude_none=True) for v, r in spec.nodes.items()}
    return {"synthetic": {**summary(card)["factors"], "nodes": nodes,
                          "observation": [s.model_dump(exclude_none=True)
                                          for s in spec.observation or []],
                          "output": records},
            "audit": audit(scm, replicates)}


def audit(scm: Any, replicates: Sequence[Any]) -> dict[str, float | None]:
    """Varsortability and R2-sortability of the clean observational rows (0.5 = chance)."""
    from scmspec.validators.base import reachability
    from scmspec.validators.sortability import r2_scores, sortability

    names = list(scm.plan.columns)
    x = np.vstack([np.concatenate([r.obs.columns[v] for r in replicates]) for v in names])
    sd = x.std(axis=1)
    keep = np.flatnonzero(np.isfinite(sd) & (sd > 0))
    reach = reachability(scm.compiled.resolved.graph, [names[i] for i in keep])
    if len(keep) < 2 or not reach.any():
        return {"varsortability": None, "r2_sortability": None}
    corr = np.corrcoef(x[keep])
    return {"varsortability": round(sortability(sd[keep] ** 2, reach), 6),
            "r2_sortability": round(sortability(r2_scores(corr), reach), 6)}


def write_graph_extras(folder: Path, scm: Any) -> None:
    """graph/cpdag.csv (the Markov equivalence class of the observed DAG) for synthetic cards."""
    if scm.compiled.card.synthetic is None:
        return
    from scmspec.interop.graphs import MixedGraph, cpdag
    from scmspec.textio import write_csv

    adj = scm.adjacency(True)
    g = cpdag(MixedGraph.from_dag(list(adj.columns), adj.to_numpy()))
    matrix = (g.directed | g.undirected).astype(int)  # i -- j: both entries 1
    write_csv(folder / "cpdag.csv", pd.DataFrame(matrix, index=adj.index, columns=adj.columns),
              index=True)
