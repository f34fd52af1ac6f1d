"""Stages 3-7 of a build, per card: compile, sample every replicate, run the gates.

The pool is compiled first (the pool gates compare cards); then each card is
evaluated on its own. Sizes are checked before anything is allocated (rows,
variables, cells, replicates and an estimate of the memory the gates will hold).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from scmspec.api import LoadedCard
from scmspec.build.cards import CardResult, ProtocolOverrides
from scmspec.compiler.load import SourceMap
from scmspec.compiler.pipeline import CompiledCard, compile_card
from scmspec.compiler.spec import Card, ProtocolSpec
from scmspec.errors import (
    CardError,
    Diagnostic,
    SamplingError,
    internal_error,
)
from scmspec.limits import current_limits
from scmspec.samplers import numpy_sampler
from scmspec.samplers.scm import SCM
from scmspec.synthetic import build_hooks as synthetic_hooks
from scmspec.validators import (
    GateContext,
    GateResult,
    ReplicateData,
    make_result,
    run_gates,
    run_pool_gates,
)


@dataclass(frozen=True)
class Evaluated:
    """A compiled, sampled and gated card, ready to write."""

    scm: SCM
    protocol: ProtocolSpec
    replicates: tuple[ReplicateData, ...]


def compile_pool(loaded: dict[str, LoadedCard]) -> dict[str, CompiledCard]:
    """Compile every parsed card, by path; cards that fail are left out (evaluate reports them)."""
    out = {}
    for path, card in loaded.items():
        try:
            out[path] = compile_card(card.card, card.source)
        except Exception:  # noqa: BLE001 - evaluate() compiles again and records the error
            continue
    return out


def pool_gates(compiled: dict[str, CompiledCard]) -> dict[str, list[GateResult]]:
    """Pool gate results (e.g. duplicate_topology) of cards compiled together, by path."""
    try:
        by_id = run_pool_gates(list(compiled.values()))
    except Exception as exc:  # noqa: BLE001 - a bug here must not stop every card
        fail = make_result("duplicate_topology", "fail", internal_error(exc, None,
                           "comparing the cards of the pool").message)
        return {path: [fail] for path in compiled}
    return {path: by_id[c.card.id] for path, c in compiled.items()}


def evaluate(loaded: LoadedCard, res: CardResult, overrides: ProtocolOverrides,
             run_gate_checks: bool = True, compiled: CompiledCard | None = None,
             pooled: Sequence[GateResult] = ()) -> Evaluated | None:
    """Compile (unless given), sample and gate one card; card errors land in ``res``.

    ``pooled`` are this card's pool-gate results; they count towards its status. A
    synthetic card whose data fail a data gate is redrawn (next parameter attempt).
    """
    done = _evaluate(loaded, res, overrides, run_gate_checks, compiled, pooled)
    while done is not None and run_gate_checks:
        again = synthetic_hooks.redraw(done.scm.compiled.card, res)
        if again is None:
            break
        loaded = LoadedCard(again, loaded.source)
        done = _evaluate(loaded, res, overrides, run_gate_checks, None, pooled)
    return done


def _evaluate(loaded: LoadedCard, res: CardResult, overrides: ProtocolOverrides,
              run_gate_checks: bool, compiled: CompiledCard | None,
              pooled: Sequence[GateResult]) -> Evaluated | None:
    proto = overrides.apply(loaded.card.protocol)
    try:
        _check_protocol(loaded.card, proto, loaded)
        res.stage = "compiling"
        compiled = compiled or compile_card(loaded.card, loaded.source)
        scm = SCM(compiled, compiled.plan)
        res.stage = "sampling"
        reps = tuple(_sample_replicate(scm, proto, r) for r in range(proto.replicates))
        res.stage = "running the gates"  # gates sample too (replays, pilots): same errors
        res.gates = (run_gates(GateContext(compiled, reps, protocol=proto)) + list(pooled)
                     if run_gate_checks else [])
    except CardError as exc:
        res.diagnostics = [_locate(d, loaded.source) for d in exc.diagnostics]
        res.gates = []
        return None
    res.status = "rejected" if any(g.blocking_failure for g in res.gates) else "released"
    res.summary = card_summary(scm, proto)
    return Evaluated(scm, proto, reps)


def _locate(diag: Diagnostic, smap: SourceMap) -> Diagnostic:
    """Give a sampling diagnostic that only names a field (e.g. SCM601) its card location."""
    if diag.span is not None or not diag.field_path:
        return diag
    loc = tuple(int(p) if p.isdigit() else p for p in diag.field_path.split("."))
    return replace(diag, span=smap.nearest(loc))


def _check_protocol(card: Card, proto: ProtocolSpec, loaded: LoadedCard) -> None:
    limits = current_limits()
    d = len(card.variables)
    problems = []
    n_max = max(proto.n_obs, proto.n_int_obs + proto.n_int)
    if n_max > limits.rows:
        problems.append(f"{n_max} rows per split exceed the limit of {limits.rows}")
    if d > limits.variables:
        problems.append(f"{d} variables exceed the limit of {limits.variables}")
    if n_max * d > limits.cells:
        problems.append(f"{n_max} x {d} cells exceed the limit of {limits.cells}")
    if proto.replicates > limits.replicates:
        problems.append(f"{proto.replicates} replicates exceed the limit of {limits.replicates}")
    need = memory_estimate(d, proto)
    if need > limits.memory and not problems:
        problems.append(f"sampling and gating {proto.replicates} replicate(s) of {d} variables x "
                        f"{proto.n_obs + proto.n_int_obs + proto.n_int} rows needs about "
                        f"{need / 1e9:.1f} GB, over the memory limit of "
                        f"{limits.memory / 1e9:.1f} GB")
    if problems:
        span = loaded.source.nearest(("protocol",))
        raise SamplingError([Diagnostic("SCM602", p, span, "lower it, or raise the limit with "
                                        "SCMSPEC_MAX_* (docs/limits.md)") for p in problems])


BYTES_PER_CELL = 24  # measured: ~17 B per sampled cell held for the gates, plus headroom
BYTES_PER_PAIR = 24  # the gates' (d, d) correlation matrix and its temporaries


def memory_estimate(d: int, proto: ProtocolSpec) -> int:
    """Bytes to sample and gate a card: every replicate is held until the gates have run.

    Example:
        >>> round(memory_estimate(50, ProtocolSpec()) / 1e6)  # the paper's protocol, d = 50
        12
    """
    rows = proto.n_obs + proto.n_int_obs + proto.n_int
    return BYTES_PER_CELL * rows * d * proto.replicates + BYTES_PER_PAIR * d * d


def _sample_replicate(scm: SCM, proto: ProtocolSpec, r: int) -> ReplicateData:
    obs = numpy_sampler.sample(scm.plan, proto.n_obs, 0, scm.streams(proto.seed, "obs", r))
    obsint = numpy_sampler.sample(scm.plan, proto.n_int_obs, proto.n_int,
                                  scm.streams(proto.seed, "obsint", r))
    return ReplicateData(r, obs, obsint)


def card_summary(scm: SCM, proto: ProtocolSpec) -> dict[str, Any]:
    """What the manifest and metadata.json say of a card: family, sizes, targets, protocol."""
    card = scm.compiled.card
    adj = scm.adjacency(observed_only=True)
    return {
        "family": card.family, "domain": card.domain, "title": card.title,
        "d": len(scm.plan.columns), "d_total": len(card.variables),
        "edges": int(adj.to_numpy().sum()),
        "edges_total": scm.compiled.resolved.graph.number_of_edges(),
        "targets": list(scm.plan.targets), "tags": list(card.tags),
        "n": {"obs": proto.n_obs, "obsint_obs": proto.n_int_obs, "obsint_int": proto.n_int},
        "replicates": proto.replicates, "seed": proto.seed, **synthetic_hooks.summary(card),
    }


