"""Stage 8 of a build, per card: write the dataset folder atomically, and the manifest.

A dataset is written into a temporary folder and renamed into place complete
(:class:`scmspec.build.outputs.AtomicFolder`); locations in released files are
card record paths (relative to the folder the card was found in), never paths of
this machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from scmspec.api import LoadedCard, spec_document
from scmspec.build.cards import CardResult, ProtocolOverrides
from scmspec.build.evaluate import Evaluated, card_summary, evaluate
from scmspec.build.outputs import AtomicFolder, file_hashes, remove_stale
from scmspec.compiler.pipeline import CompiledCard
from scmspec.effects.write import EffectOptions, compute_effects, write_effects
from scmspec.errors import (
    Span,
)
from scmspec.samplers.scm import SCM
from scmspec.synthetic import build_hooks as synthetic_hooks
from scmspec.textio import write_csv, write_json, write_table
from scmspec.validators import (
    GateResult,
)
from scmspec.version import __version__


def build_one(loaded: LoadedCard, res: CardResult, out: Path, overrides: ProtocolOverrides,
              run_gate_checks: bool, compiled: CompiledCard | None = None,
              pooled: Sequence[GateResult] = (), effects: EffectOptions | None = None,
              table_format: str = "csv") -> None:
    """Evaluate one card and write its dataset atomically (or remove a stale one).

    With ``effects``, the folder also gets ``effects/`` (docs/effects.md); ``table_format``
    says whether the replicate tables are CSV, Parquet or both.
    """
    done = evaluate(loaded, res, overrides, run_gate_checks, compiled, pooled)
    if done is None:
        remove_stale(out, loaded.id)
        return
    res.stage = "writing"
    with AtomicFolder(out / loaded.id) as tmp:
        _write_dataset(tmp, done, res, loaded, table_format)
        if effects is not None:
            res.stage = "computing effect truth"
            write_effects(tmp / "effects", compute_effects(
                done.scm, done.protocol.seed, done.replicates[0].obs, effects))
    res.files = {f"{loaded.id}/{k}": v for k, v in file_hashes(out / loaded.id).items()}


def _write_dataset(tmp: Path, done: Evaluated, res: CardResult, loaded: LoadedCard,
                   table_format: str) -> None:
    scm, proto, reps = done.scm, done.protocol, done.replicates
    write_json(tmp / "spec.json", spec_document(scm, proto.model_dump()))
    graph = tmp / "graph"
    graph.mkdir()
    write_csv(graph / "adjacency.csv", scm.adjacency(True), index=True)
    write_csv(graph / "adjacency_full.csv", scm.adjacency(False), index=True)
    observed = set(scm.plan.columns)
    edges = pd.DataFrame([{"source": e.source, "target": e.target, "reason": e.reason,
                           "observed": int(e.source in observed and e.target in observed)}
                          for e in scm.compiled.card.edges],
                         columns=["source", "target", "reason", "observed"])
    write_csv(graph / "edges.csv", edges)
    synthetic_hooks.write_graph_extras(graph, scm)
    acceptance: dict[str, Any] = {}
    stressed: dict[str, Any] = {}
    for rep in reps:
        folder = tmp / f"rep-{rep.replicate}"
        folder.mkdir()
        data = scm.interventional_frames(rep.obsint)
        frames, stressed[str(rep.replicate)] = synthetic_hooks.observe(  # stressors, if any
            scm.compiled.card, proto.seed, rep.replicate, folder,
            {"obs": scm.frame(rep.obs.columns), "obsint": data.data})
        write_table(folder / "obs", frames["obs"], table_format)
        write_table(folder / "obsint", frames["obsint"], table_format)
        write_table(folder / "obsint_mask", data.mask, table_format)
        write_table(folder / "obsint_records", data.records, table_format)
        acceptance[str(rep.replicate)] = {"obs": rep.obs.acceptance,
                                          "obsint": rep.obsint.acceptance}
    write_json(tmp / "gates.json", [res.relocated(g.to_json(loaded.id)) for g in res.gates])
    meta = {**card_summary(scm, proto), "id": loaded.id, "status": res.status,
            "scmspec_version": __version__, "version": scm.compiled.card.version,
            "latent": [v for v, s in scm.compiled.card.variables.items() if not s.observed],
            "selection": scm.compiled.card.selection.condition if scm.compiled.card.selection
            else None, "acceptance": acceptance,
            "handlers": handler_kinds(scm),
            "variables": {v: {"kind": s.kind, "unit": s.unit, "role": s.role,
                              "observed": s.observed, "levels": s.levels}
                          for v, s in scm.compiled.card.variables.items()},
            **synthetic_hooks.metadata(scm.compiled.card, reps, scm, stressed)}
    write_json(tmp / "metadata.json", meta)


def handler_kinds(scm: SCM) -> dict[str, str]:
    """The intervention handler kind of each target (for metadata.json)."""
    out = {}
    for t in scm.plan.targets:
        handler = scm.plan.step(t).handler
        if handler is not None:
            out[t] = handler.kind
    return out


def manifest(results: Sequence[CardResult], overrides: ProtocolOverrides,
             effects: EffectOptions | None = None, table_format: str = "csv"
             ) -> dict[str, Any]:
    entries = sorted((r.to_json() for r in results), key=lambda e: (e["id"] or "", e["card"]))
    counts = {s: sum(1 for r in results if r.status == s)
              for s in ("released", "rejected", "failed")}
    doc = {"format": "scmspec.manifest/1", "scmspec_version": __version__,
           "overrides": {k: v for k, v in overrides.__dict__.items() if v is not None},
           "counts": counts, "scms": entries}
    if effects is not None:  # only then: a build without --effects writes what it always did
        doc["effects"] = effects.to_json()
    if table_format != "csv":  # likewise for Parquet tables
        doc["table_format"] = table_format
    return doc


def failure_span(res: CardResult) -> Span | None:
    return res.diagnostics[0].span if res.diagnostics else None
