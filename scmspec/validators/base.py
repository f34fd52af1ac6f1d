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
from typing import Any, Literal, TypeVar

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
T = TypeVar("T")
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
    _memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def card_id(self) -> str:
        return self.compiled.card.id

    def where(self, *loc: str | int) -> Span | None:
        """The card location of ``loc`` (or its closest ancestor)."""
        return self.compiled.source.nearest(tuple(loc))

    def cached(self, key: str, compute: Callable[[], T]) -> T:
        """``compute()`` once per context: facts several gates (or calls) share."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]  # type: ignore[no-any-return]

    @cached_property
    def observed_obs(self) -> tuple[tuple[str, ...], np.ndarray]:
        """Observed variable names and their obs-split values, pooled over replicates.

        One (d, n_rows) float matrix, one row per variable, built once (one stacking
        call per replicate): data gates reduce along axis 1 over contiguous rows, and
        selecting variables copies rows.
        """
        names = tuple(self.compiled.plan.columns)
        total = sum(rep.obs.n for rep in self.replicates)
        out = np.empty((len(names), total))
        start = 0
        for rep in self.replicates:
            stop = start + rep.obs.n
            if names and stop > start:
                cols = rep.obs.columns
                np.stack([cols[v] for v in names], out=out[:, start:stop])
            start = stop
        return names, out

    @cached_property
    def observed_kinds(self) -> tuple[list[int], list[int]]:
        """(rows of ``observed_obs`` of continuous variables, rows of discrete ones)."""
        names, _ = self.observed_obs
        spec = self.compiled.card.variables
        continuous = [spec[v].kind == "continuous" for v in names]
        return ([i for i, c in enumerate(continuous) if c],
                [i for i, c in enumerate(continuous) if not c])

    @cached_property
    def observed_repeats(self) -> np.ndarray:
        """Per observed variable, how many adjacent rows hold equal values (one pass).

        The shared prefilter of the dominant-value tests (``nonconstant``,
        ``category_dominance``): see ``data_gates._dominant``.
        """
        _, x = self.observed_obs
        if x.shape[1] < 2:
            return np.zeros(x.shape[0], dtype=np.intp)
        return np.count_nonzero(x[:, 1:] == x[:, :-1], axis=1)

    @cached_property
    def reach(self) -> tuple[dict[str, int], np.ndarray]:
        """(variable -> index, closure): closure[i, j] when a directed path leads i -> j."""
        names = [s.name for s in self.compiled.plan.steps]  # a topological order of all
        closure = reachability(self.compiled.resolved.graph, names, topological=True)
        return {v: i for i, v in enumerate(names)}, closure

    @cached_property
    def observed_moments(self) -> tuple[np.ndarray, np.ndarray]:
        """(mean, standard deviation) of each observed variable's obs values, built once.

        numpy's own steps for ``x.mean(axis=1)`` and ``x.std(axis=1)`` (so bit for bit
        the same), with the row sums taken once and the (d, n) scratch block kept for
        ``observed_corr``: one large temporary in all, since on a small VM the page
        faults of a fresh one cost more than its arithmetic.
        """
        _, x = self.observed_obs
        n = x.shape[1]
        if n == 0:
            return np.full(x.shape[0], np.nan), np.full(x.shape[0], np.nan)
        with np.errstate(invalid="ignore", over="ignore"):
            mean = np.add.reduce(x, axis=1) / n
            scratch = np.subtract(x, mean[:, None])
            np.multiply(scratch, scratch, out=scratch)
            sd = np.sqrt(np.add.reduce(scratch, axis=1) / n)
        self._memo["scratch"] = scratch
        return mean, sd

    @cached_property
    def observed_corr(self) -> tuple[np.ndarray, np.ndarray]:
        """(indices of varying finite observed variables, their correlation matrix), built once.

        Shared by ``near_copy`` and ``sortability``. The rows are centred and scaled
        in place (in the moments' scratch block), then one matrix product: no Python
        loop over pairs.
        """
        _, x = self.observed_obs
        n = x.shape[1]
        if n < 2:
            return np.zeros(0, dtype=int), np.zeros((0, 0))
        mean, sd = self.observed_moments
        varying = np.flatnonzero(np.isfinite(sd) & (sd > 0))
        if varying.size < 2:
            return varying, np.ones((varying.size, varying.size))
        z = self._memo.pop("scratch")
        np.subtract(x, mean[:, None], out=z)
        if varying.size < x.shape[0]:
            z = z[varying]
        z /= sd[varying, None]
        corr = np.clip(z @ z.T / n, -1.0, 1.0)
        np.fill_diagonal(corr, 1.0)
        return varying, corr


def reachability(graph: nx.DiGraph, names: list[str], topological: bool = False) -> np.ndarray:
    """(d, d) bool: entry [i, j] is True when a directed path leads from i to j.

    Paths may pass through variables not in ``names`` (latent mediators). One
    pass in reverse topological order ORs each child's descendant set into its
    parents' (sets as Python integer bitmasks: one OR per edge), then all rows
    are unpacked into a matrix at once. ``topological=True`` says ``names`` already
    lists every node in a topological order (a plan's steps), which saves the sort.

    Example:
        >>> g = nx.DiGraph([("a", "b"), ("b", "c")])
        >>> reachability(g, ["a", "c"]).tolist()
        [[False, True], [False, False]]
    """
    if topological and len(names) == graph.number_of_nodes():
        order = list(names)
    else:
        order = list(nx.topological_sort(graph))
    index = {v: i for i, v in enumerate(order)}
    below: dict[str, int] = {}
    succ = graph.succ
    for v in reversed(order):
        bits = 0
        for child in succ[v]:
            bits |= below[child] | (1 << index[child])
        below[v] = bits
    width = (len(order) + 7) // 8
    packed = b"".join(below[v].to_bytes(width, "little") for v in names)
    rows = np.frombuffer(packed, dtype=np.uint8).reshape(len(names), width)
    full = np.unpackbits(rows, axis=1, bitorder="little")[:, : len(order)].astype(bool)
    return full[:, [index[v] for v in names]]


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

    A justification is either gate-wide (one text) or scoped: a list of reasons,
    each covering the finding on exactly the variable or pair it names
    (:meth:`~scmspec.compiler.spec.Card.justification_for`).
    A justified ``warn`` becomes ``pass``; a ``fail`` of a gate in
    ``JUSTIFIABLE_BLOCKING`` becomes ``warn``. Other failures keep their status
    (the justification is ignored, and the ``justifications`` gate says so).
    """
    card, out = compiled.card, []
    for r in results:
        text, entry = card.justification_for(r.gate, r.variables)
        downgrade = {"warn": "pass", "fail": "warn" if r.gate in JUSTIFIABLE_BLOCKING else None}
        new = downgrade.get(r.status)
        if not text or new is None:
            out.append(r)
            continue
        path = ("justifications", r.gate) if entry is None else ("justifications", r.gate, entry)
        where = compiled.source.nearest(path) or r.location
        out.append(replace(r, status=new, justification=text, location=where,  # type: ignore[arg-type]
                           detail=f"{r.detail} [justified]"))
    return out
