"""The gate protocol: a gate is a registered function from a context to results.

A failing gate is a result, not an exception. Each result names the gate, its
status (pass, fail, warn, skip), whether it blocks release, a detail a card
author can act on (the variables, the value that broke the rule, the threshold
and the fix), and the card location it concerns. Thresholds and severities live
in :mod:`scmspec.validators.thresholds`.

Two registries: ``GATES`` hold per-card gates (one card, its sampled replicates);
``POOL_GATES`` hold gates over a pool of cards validated or compiled together,
returning results per card id. Both pass through :func:`justify`, which applies
the card's written justifications in one place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal

import networkx as nx
import numpy as np
import pandas as pd

from scmspec.compiler.pipeline import CompiledCard
from scmspec.compiler.spec import ProtocolSpec
from scmspec.errors import Span
from scmspec.registry import Registry
from scmspec.samplers.numpy_sampler import Sample
from scmspec.validators.thresholds import JUSTIFIABLE_BLOCKING, SEVERITY, Severity, severity_of

Status = Literal["pass", "fail", "warn", "skip"]
__all__ = ["GATES", "POOL_GATES", "GateContext", "GateResult", "ReplicateData", "Severity",
           "Status", "justify", "make_result", "reachability", "run_gates", "run_pool_gates"]


@dataclass(frozen=True)
class GateResult:
    """The outcome of one gate on one card."""

    gate: str
    status: Status
    severity: Severity
    detail: str
    location: Span | None = None
    variables: tuple[str, ...] = ()
    statistic: float | None = None
    threshold: float | None = None
    justification: str | None = None

    @property
    def blocking_failure(self) -> bool:
        return self.status == "fail" and self.severity == "blocking"

    def to_json(self, card: str) -> dict[str, Any]:
        return {
            "card": card, "gate": self.gate, "status": self.status, "severity": self.severity,
            "detail": self.detail, "location": str(self.location) if self.location else None,
            "variables": list(self.variables), "statistic": self.statistic,
            "threshold": self.threshold, "justification": self.justification,
        }


def make_result(gate: str, status: Status, detail: str, location: Span | None = None,
                variables: Iterable[str] = (), statistic: float | None = None,
                threshold: float | None = None) -> GateResult:
    """A result carrying the gate's registered severity (see ``thresholds.SEVERITY``).

    Example:
        >>> make_result("near_copy", "pass", "no near copies").severity
        'blocking'
    """
    stat = None if statistic is None else float(statistic)
    limit = None if threshold is None else float(threshold)
    return GateResult(gate, status, severity_of(gate), detail, location, tuple(variables),
                      stat, limit)


@dataclass(frozen=True)
class ReplicateData:
    """One replicate's two splits: raw columns (latent included) and written frames."""

    replicate: int
    obs: Sample
    obsint: Sample
    obsint_mask: pd.DataFrame | None = None


@dataclass(frozen=True)
class GateContext:
    """What a gate may look at: the compiled card, its protocol and sampled replicates."""

    compiled: CompiledCard
    replicates: tuple[ReplicateData, ...] = ()
    pool: tuple[CompiledCard, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    protocol: ProtocolSpec | None = None

    @property
    def card_id(self) -> str:
        return self.compiled.card.id

    def where(self, *loc: str | int) -> Span | None:
        """The card location of ``loc`` (or its closest ancestor)."""
        return self.compiled.source.nearest(tuple(loc))

    @cached_property
    def observed_obs(self) -> tuple[tuple[str, ...], np.ndarray]:
        """Observed variable names and their obs-split values, pooled over replicates.

        One (d, n_rows) float matrix, one row per variable, built once: data gates
        reduce along axis 1 over contiguous rows, and selecting variables copies rows.
        """
        names = tuple(self.compiled.plan.columns)
        total = sum(rep.obs.n for rep in self.replicates)
        out = np.empty((len(names), total))
        start = 0
        for rep in self.replicates:
            stop = start + rep.obs.n
            for i, v in enumerate(names):
                out[i, start:stop] = rep.obs.columns[v]
            start = stop
        return names, out

    @cached_property
    def reach(self) -> tuple[dict[str, int], np.ndarray]:
        """(variable -> index, closure): closure[i, j] when a directed path leads i -> j."""
        names = [s.name for s in self.compiled.plan.steps]
        closure = reachability(self.compiled.resolved.graph, names)
        return {v: i for i, v in enumerate(names)}, closure

    @cached_property
    def observed_moments(self) -> tuple[np.ndarray, np.ndarray]:
        """(mean, standard deviation) of each observed variable's obs values, built once."""
        _, x = self.observed_obs
        if x.shape[1] == 0:
            return np.full(x.shape[0], np.nan), np.full(x.shape[0], np.nan)
        with np.errstate(invalid="ignore", over="ignore"):
            return x.mean(axis=1), x.std(axis=1)

    @cached_property
    def observed_corr(self) -> tuple[np.ndarray, np.ndarray]:
        """(indices of varying finite observed variables, their correlation matrix), built once.

        Shared by ``near_copy`` and ``sortability``. Standardised in place on one
        copy of the rows, then one matrix product: no Python loop over pairs.
        """
        _, x = self.observed_obs
        n = x.shape[1]
        if n < 2:
            return np.zeros(0, dtype=int), np.zeros((0, 0))
        mean, sd = self.observed_moments
        varying = np.flatnonzero(np.isfinite(sd) & (sd > 0))
        if varying.size < 2:
            return varying, np.ones((varying.size, varying.size))
        z = x[varying]
        z -= mean[varying, None]
        z /= sd[varying, None]
        corr = np.clip(z @ z.T / n, -1.0, 1.0)
        np.fill_diagonal(corr, 1.0)
        return varying, corr


def reachability(graph: nx.DiGraph, names: list[str]) -> np.ndarray:
    """(d, d) bool: entry [i, j] is True when a directed path leads from i to j.

    Paths may pass through variables not in ``names`` (latent mediators). One
    pass in reverse topological order ORs each child's row into its parents'
    (a loop over variables, each step one vectorised row operation).

    Example:
        >>> g = nx.DiGraph([("a", "b"), ("b", "c")])
        >>> reachability(g, ["a", "c"]).tolist()
        [[False, True], [False, False]]
    """
    order = list(nx.topological_sort(graph))
    index = {v: i for i, v in enumerate(order)}
    reach = np.zeros((len(order), len(order)), dtype=bool)
    for v in reversed(order):
        row = reach[index[v]]
        for child in graph.successors(v):
            row[index[child]] = True
            row |= reach[index[child]]
    pick = [index[v] for v in names]
    return reach[np.ix_(pick, pick)]


Gate = Callable[[GateContext], Iterable[GateResult]]
PoolGate = Callable[[Sequence[CompiledCard]], Mapping[str, Sequence[GateResult]]]
GATES: Registry[Gate] = Registry("gate")
# Reports list gates in the documented order (thresholds.SEVERITY), whatever the import order.
_REPORT_ORDER = {gate: i for i, gate in enumerate(SEVERITY)}
POOL_GATES: Registry[PoolGate] = Registry("pool gate")


def run_gates(ctx: GateContext, only: Iterable[str] | None = None) -> list[GateResult]:
    """Run every registered per-card gate (or those in ``only``), in registration order."""
    from scmspec.validators import gates as _gates  # noqa: F401  (registers the gates)

    wanted = set(only) if only is not None else None
    results: list[GateResult] = []
    for name, gate in sorted(GATES.items(), key=lambda item: _REPORT_ORDER.get(item[0], 999)):
        if wanted is None or name in wanted:
            results.extend(gate(ctx))
    return justify(results, ctx.compiled)


def run_pool_gates(pool: Sequence[CompiledCard]) -> dict[str, list[GateResult]]:
    """Run every pool gate over cards checked together; results keyed by card id."""
    from scmspec.validators import gates as _gates  # noqa: F401  (registers the gates)

    out: dict[str, list[GateResult]] = {c.card.id: [] for c in pool}
    for _, gate in POOL_GATES.items():
        for card_id, results in gate(pool).items():
            out[card_id].extend(results)
    by_id = {c.card.id: c for c in pool}
    return {k: justify(v, by_id[k]) for k, v in out.items()}


def justify(results: Sequence[GateResult], compiled: CompiledCard) -> list[GateResult]:
    """Apply the card's justifications: one step down, never more, shown in the report.

    A justified ``warn`` becomes ``pass``; a ``fail`` of a gate in
    ``JUSTIFIABLE_BLOCKING`` becomes ``warn``. Other failures keep their status
    (the justification is ignored, and the ``justifications`` gate says so).
    """
    notes = compiled.card.justifications
    out = []
    for r in results:
        text = notes.get(r.gate, "").strip()
        downgrade = {"warn": "pass", "fail": "warn" if r.gate in JUSTIFIABLE_BLOCKING else None}
        new = downgrade.get(r.status)
        if not text or new is None:
            out.append(r)
            continue
        where = compiled.source.nearest(("justifications", r.gate)) or r.location
        out.append(replace(r, status=new, justification=text, location=where,  # type: ignore[arg-type]
                           detail=f"{r.detail} [justified]"))
    return out
