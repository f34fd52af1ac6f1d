"""Compile many cards into datasets: discover -> parse -> compile -> sample -> gate -> write.

One bad card never stops or corrupts the others: each card's failure is
collected as diagnostics and recorded in the manifest. Results do not depend
on the order cards are given in: cards are processed in sorted path order and
the manifest is sorted by id.
"""

from __future__ import annotations

import hashlib
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import ValidationError

from scmspec import __version__
from scmspec.api import LoadedCard, spec_document
from scmspec.compiler.load import SourceMap, read_card
from scmspec.compiler.pipeline import CompiledCard, compile_card
from scmspec.compiler.spec import Card, ProtocolSpec
from scmspec.discover import CardFile
from scmspec.errors import (
    CardError,
    Diagnostic,
    LoadError,
    SamplingError,
    Span,
    internal_error,
)
from scmspec.limits import current_limits
from scmspec.outputs import AtomicFolder, file_hashes, remove_stale, write_csv, write_json
from scmspec.samplers import numpy_sampler
from scmspec.scm import SCM
from scmspec.synthetic import build_hooks as synthetic_hooks
from scmspec.validators import (
    GateContext,
    GateResult,
    ReplicateData,
    make_result,
    run_gates,
    run_pool_gates,
)


class OverrideError(ValueError):
    """A command-line override the card language would not accept in a card."""


@dataclass(frozen=True)
class ProtocolOverrides:
    """Command-line overrides of a card's protocol (None keeps the card's value).

    Checked by the same model as a card's ``protocol:`` on construction, so a flag can
    never ask for what a card may not (``--n-obs 0``, ``--seed -1``, ``--seed 2**64``).

    Example:
        >>> ProtocolOverrides(n_obs=0)
        Traceback (most recent call last):
        ...
        scmspec.build.OverrideError: --n-obs must be greater than or equal to 1 (got 0)
    """

    seed: int | None = None
    n_obs: int | None = None
    n_int_obs: int | None = None
    n_int: int | None = None
    replicates: int | None = None

    def __post_init__(self) -> None:
        try:
            ProtocolSpec.model_validate(self.given())
        except ValidationError as exc:
            err = exc.errors()[0]
            name = str(err["loc"][0])
            raise OverrideError(f"--{name.replace('_', '-')} must be "
                                f"{_lowercase_first(err['msg'].removeprefix('Input should be '))}"
                                f" (got {self.given().get(name)!r})") from None

    def given(self) -> dict[str, int]:
        """The overrides actually given."""
        return {k: v for k, v in self.__dict__.items() if v is not None}

    def apply(self, proto: ProtocolSpec) -> ProtocolSpec:
        return ProtocolSpec.model_validate({**proto.model_dump(), **self.given()})


def _lowercase_first(text: str) -> str:
    return text[:1].lower() + text[1:]


@dataclass
class CardResult:
    """What happened to one card."""

    path: str  # as diagnostics print it (relative to the working directory)
    card_sha256: str
    id: str | None = None
    status: str = "failed"  # released | rejected (blocking gate failed) | failed
    diagnostics: list[Diagnostic] = field(default_factory=list)
    gates: list[GateResult] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    source_lines: list[str] = field(default_factory=list)
    record: str = ""  # as released files record it (relative to the folder it was found in)
    relocation: tuple[str, str] = ("", "")  # (display, record) path of the card file
    stage: str = "loading"  # what was under way, for an internal-error record
    traceback: str | None = None  # of an internal error; printed only with --debug

    def to_json(self) -> dict[str, Any]:
        """The manifest entry: card locations as recorded, never as typed on this machine."""
        return {
            "id": self.id, "card": self.record or self.path, "card_sha256": self.card_sha256,
            "status": self.status, **self.summary,
            "diagnostics": [self.relocated(d.to_json()) for d in self.diagnostics],
            "gates_failed": sorted({g.gate for g in self.gates if g.status == "fail"}),
            "gates_warned": sorted({g.gate for g in self.gates if g.status == "warn"}),
            "files": self.files,
        }

    def relocated(self, doc: dict[str, Any]) -> dict[str, Any]:
        """``doc`` with a ``location`` in this card's file named by its record path."""
        shown, recorded = self.relocation
        where = doc.get("location")
        if shown and isinstance(where, str) and where.startswith(shown + ":"):
            return {**doc, "location": recorded + where[len(shown):]}
        return doc


def parse_all(files: Sequence[CardFile | Path], select: str | None = None
              ) -> tuple[list[CardResult], dict[str, LoadedCard]]:
    """Parse every card; a duplicate id fails the later card (in path order).

    A synthetic grid card holds many cards (``path#id``; ``select`` picks a slice, see
    docs/synthetic.md) and a synthetic factor card is materialised on the way. A file
    that may not be read (a link out of its folder, a FIFO, too big) fails on its own.
    """
    results: list[CardResult] = []
    loaded: dict[str, LoadedCard] = {}
    first: dict[str, str] = {}
    for file, suffix, parse, raw in _parse_steps(files, select):
        res = CardResult(file.display + suffix, hashlib.sha256(raw).hexdigest(),
                         record=file.record + suffix, relocation=(file.display, file.record))
        results.append(res)
        try:
            card, smap = parse()
        except CardError as exc:
            res.diagnostics = list(exc.diagnostics)
            res.source_lines = _lines(raw)
            continue
        except Exception as exc:  # noqa: BLE001 - one card's bug must not stop the others
            record_internal(res, exc)
            res.source_lines = _lines(raw)
            continue
        res.source_lines = smap.lines
        res.id = card.id
        if card.id in first:
            res.diagnostics = [Diagnostic("SCM112", f"duplicate card id {card.id!r} (also in "
                                          f"{first[card.id]})", smap.nearest(("id",)),
                                          "give each card a unique id")]
            res.id = None
            continue
        first[card.id] = res.path
        loaded[res.path] = LoadedCard(card, smap)
    return results, loaded


def _parse_steps(files: Sequence[CardFile | Path], select: str | None
                 ) -> Iterator[tuple[CardFile, str, Callable[[], tuple[Card, SourceMap]], bytes]]:
    for given in files:
        file = given if isinstance(given, CardFile) else CardFile(Path(given), Path(given).parent)
        try:
            raw = _read(file)
        except LoadError as exc:
            yield file, "", (lambda error=exc: _raise(error)), b""
            continue
        for suffix, parse in synthetic_hooks.parsers(file.path, raw, file.display, select):
            yield file, suffix, parse, raw


def _read(file: CardFile) -> bytes:
    if file.refusal:
        raise LoadError([Diagnostic("SCM114", file.refusal, Span(file.display, 1, 1),
                                    "copy the card into the folder instead of linking it")])
    return read_card(file.path, name=file.display)


def _raise(exc: Exception) -> tuple[Card, SourceMap]:
    raise exc


def record_internal(res: CardResult, exc: BaseException) -> None:
    """Mark ``res`` failed by a bug in scmspec (SCM901); keep the traceback for --debug."""
    res.status, res.gates, res.files = "failed", [], {}
    res.diagnostics = [internal_error(exc, Span(res.path, 1, 1), res.stage)]
    res.traceback = "".join(traceback.format_exception(exc))


def _lines(raw: bytes) -> list[str]:
    return raw.decode("utf-8", errors="replace").splitlines()


def build(paths: Iterable[str | Path], out: Path, overrides: ProtocolOverrides,
          run_gate_checks: bool = True, select: str | None = None) -> list[CardResult]:
    """Compile every card under ``paths`` into ``out`` in this process, rebuilding all.

    The same driver as ``scmspec compile`` (:func:`scmspec.parallel.compile_cards`);
    returns one result per card file.
    """
    from scmspec.parallel import compile_cards  # the driver builds on this module

    return compile_cards(paths, out, overrides, gates=run_gate_checks, select=select,
                         force=True).results


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
    except CardError as exc:
        res.diagnostics = [_locate(d, loaded.source) for d in exc.diagnostics]
        return None
    res.stage = "running the gates"
    res.gates = (run_gates(GateContext(compiled, reps, protocol=proto)) + list(pooled)
                 if run_gate_checks else [])
    res.status = "rejected" if any(g.blocking_failure for g in res.gates) else "released"
    res.summary = _summary(scm, proto)
    return Evaluated(scm, proto, reps)


def _locate(diag: Diagnostic, smap: SourceMap) -> Diagnostic:
    """Give a sampling diagnostic that only names a field (e.g. SCM601) its card location."""
    if diag.span is not None or not diag.field_path:
        return diag
    loc = tuple(int(p) if p.isdigit() else p for p in diag.field_path.split("."))
    return replace(diag, span=smap.nearest(loc))


def build_one(loaded: LoadedCard, res: CardResult, out: Path, overrides: ProtocolOverrides,
              run_gate_checks: bool, compiled: CompiledCard | None = None,
              pooled: Sequence[GateResult] = ()) -> None:
    """Evaluate one card and write its dataset atomically (or remove a stale one)."""
    done = evaluate(loaded, res, overrides, run_gate_checks, compiled, pooled)
    if done is None:
        remove_stale(out, loaded.id)
        return
    res.stage = "writing"
    with AtomicFolder(out / loaded.id) as tmp:
        _write_dataset(tmp, done, res, loaded)
    res.files = {f"{loaded.id}/{k}": v for k, v in file_hashes(out / loaded.id).items()}


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


def _summary(scm: SCM, proto: ProtocolSpec) -> dict[str, Any]:
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


def _write_dataset(tmp: Path, done: Evaluated, res: CardResult, loaded: LoadedCard) -> None:
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
        write_csv(folder / "obs.csv", frames["obs"])
        write_csv(folder / "obsint.csv", frames["obsint"])
        write_csv(folder / "obsint_mask.csv", data.mask)
        write_csv(folder / "obsint_records.csv", data.records)
        acceptance[str(rep.replicate)] = {"obs": rep.obs.acceptance,
                                          "obsint": rep.obsint.acceptance}
    write_json(tmp / "gates.json", [res.relocated(g.to_json(loaded.id)) for g in res.gates])
    meta = {**_summary(scm, proto), "id": loaded.id, "status": res.status,
            "scmspec_version": __version__, "version": scm.compiled.card.version,
            "latent": [v for v, s in scm.compiled.card.variables.items() if not s.observed],
            "selection": scm.compiled.card.selection.condition if scm.compiled.card.selection
            else None, "acceptance": acceptance,
            "handlers": {t: scm.plan.step(t).handler.kind for t in scm.plan.targets
                         if scm.plan.step(t).handler is not None},
            "variables": {v: {"kind": s.kind, "unit": s.unit, "role": s.role,
                              "observed": s.observed, "levels": s.levels}
                          for v, s in scm.compiled.card.variables.items()},
            **synthetic_hooks.metadata(scm.compiled.card, reps, scm, stressed)}
    write_json(tmp / "metadata.json", meta)


def manifest(results: Sequence[CardResult], overrides: ProtocolOverrides) -> dict[str, Any]:
    entries = sorted((r.to_json() for r in results), key=lambda e: (e["id"] or "", e["card"]))
    counts = {s: sum(1 for r in results if r.status == s)
              for s in ("released", "rejected", "failed")}
    return {"format": "scmspec.manifest/1", "scmspec_version": __version__,
            "overrides": {k: v for k, v in overrides.__dict__.items() if v is not None},
            "counts": counts, "scms": entries}


def failure_span(res: CardResult) -> Span | None:
    return res.diagnostics[0].span if res.diagnostics else None
