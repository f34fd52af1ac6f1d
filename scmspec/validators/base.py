"""The gate protocol: a gate is a registered function from a context to results.

A failing gate is a result, not an exception. Each result names the gate, its
status (pass, fail, warn, skip), whether it blocks release, a detail a card
author can act on (the variables, the value that broke the rule, the threshold
and the fix), and the card location it concerns. Thresholds and severities live
in :mod:`scmspec.validators.thresholds`.

Only the protocol lives here; the gates themselves are in one module per topic,
listed explicitly by :mod:`scmspec.validators.gates`, which runs them.

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
__all__ = ["GATES", "POOL_GATES", "REPORT_ORDER", "GateContext", "GateResult", "ReplicateData",
           "Severity", "Status", "count_assignment", "justify", "make_result", "reachability"]


STATISTIC_DIGITS = 12


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
        """The gates.json entry. The statistic is written to ``STATISTIC_DIGITS`` significant
        digits: a correlation summed by the CPU's BLAS kernels (SkylakeX or Haswell) differs
        in its last bit between machines, and gates.json must not."""
        stat = None if self.statistic is None else float(f"{self.statistic:.{STATISTIC_DIGITS}g}")
        return {
            "card": card, "gate": self.gate, "status": self.status, "severity": self.severity,
            "detail": self.detail, "location": str(self.location) if self.location else None,
            "variables": list(self.variables), "statistic": stat,
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

    def assignment_counts(self, r: int) -> tuple[np.ndarray, np.ndarray]:
        """(targets per row, rows per target) of replicate r's obs+int assignment, once.

        Counted from the positions of its True entries (``bincount``), several times
        cheaper than ``sum`` along either axis of an (n, k) bool matrix with small k.
        """
        return self.cached(f"assignment_counts:{r}",
                           lambda: count_assignment(self.replicates[r].obsint.assigned))

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
        """(variable -> index, closure): closure[i, j] when a directed path leads i -> j.

        Indexed in plan order (a topological order of every variable), read from the
        resolved parents (each variable's predecessors in the resolved graph).
        """
        names = [s.name for s in self.compiled.plan.steps]
        parents = self.compiled.resolved.parents
        index = {v: i for i, v in enumerate(names)}
        if len(index) != len(parents) or not all(v in index for v in parents):
            return index, reachability(self.compiled.resolved.graph, names)
        return index, _closure(names, index, parents)

    @cached_property
    def observed_moments(self) -> tuple[np.ndarray, np.ndarray]:
        """(mean, standard deviation) of each observed variable's obs values, built once.

        The mean is numpy's own (``x.mean(axis=1)``, bit for bit); the variance is the
        diagonal of the centred rows' Gram matrix, which ``observed_corr`` needs anyway:
        one centring pass and one symmetric product serve both, instead of a separate
        square-and-sum pass over the (d, n) block (about a third of the two facts' cost
        at d = 50, n = 5000). The sd agrees with ``x.std(axis=1)`` to a few ulps.
        """
        _, x = self.observed_obs
        n = x.shape[1]
        if n == 0:
            return np.full(x.shape[0], np.nan), np.full(x.shape[0], np.nan)
        with np.errstate(invalid="ignore", over="ignore"):
            mean = np.add.reduce(x, axis=1) / n
            z = np.subtract(x, mean[:, None])
            gram = z @ z.T  # one symmetric product of the centred rows
            sd = np.sqrt(np.diagonal(gram) / n)
        self._memo["gram"] = gram
        return mean, sd

    @cached_property
    def observed_extremes(self) -> tuple[np.ndarray, np.ndarray]:
        """(min, max) of each observed variable's obs values (NaN propagates), built once."""
        _, x = self.observed_obs
        if x.shape[1] == 0:
            return np.full(x.shape[0], np.nan), np.full(x.shape[0], np.nan)
        return np.minimum.reduce(x, axis=1), np.maximum.reduce(x, axis=1)

    @cached_property
    def observed_corr(self) -> tuple[np.ndarray, np.ndarray]:
        """(indices of varying finite observed variables, their correlation matrix), built once.

        Shared by ``near_copy`` and ``sortability``. The centred rows' Gram matrix comes
        from ``observed_moments``; its (d, d) entries are divided by n sd_i sd_j: no
        Python loop over pairs, no pass of divisions over the (d, n) block.
        """
        _, x = self.observed_obs
        n = x.shape[1]
        if n < 2:
            return np.zeros(0, dtype=int), np.zeros((0, 0))
        _, sd = self.observed_moments
        lowest, highest = self.observed_extremes
        # a constant column's summed mean can be off by an ulp (0.45 x 1000 / 1000 is
        # 0.4500000000000001), leaving sd ~1e-16: varying means two distinct values
        varying = np.flatnonzero(np.isfinite(sd) & (sd > 0) & (highest > lowest))
        if varying.size < 2:
            return varying, np.ones((varying.size, varying.size))
        gram = self._memo.pop("gram")
        corr = gram if varying.size == x.shape[0] else gram[np.ix_(varying, varying)]
        s = sd[varying]
        with np.errstate(invalid="ignore", over="ignore"):
            corr /= n
            corr /= s[:, None]
            corr /= s[None, :]
        np.clip(corr, -1.0, 1.0, out=corr)
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
    full = _unpack([below[v] for v in names], len(order))
    return full[:, [index[v] for v in names]]


def count_assignment(assigned: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(targets per row, rows per target) of an (n, k) bool assignment matrix.

    Example:
        >>> a = np.array([[0, 0], [1, 0], [1, 1]], dtype=bool)
        >>> [c.tolist() for c in count_assignment(a)]
        [[0, 1, 2], [2, 1]]
    """
    n, k = assigned.shape
    if not k:
        return np.zeros(n, dtype=np.intp), np.zeros(0, dtype=np.intp)
    row, col = np.divmod(np.flatnonzero(assigned), k)
    return np.bincount(row, minlength=n), np.bincount(col, minlength=k)


def _closure(names: list[str], index: Mapping[str, int],
             parents: Mapping[str, Sequence[str]]) -> np.ndarray:
    """:func:`reachability` over ``names``, a topological order of every variable.

    In reverse order each variable's descendant set (a Python integer bitmask, final
    once all its children are done) is ORed into its parents': one OR per edge.
    """
    below = [0] * len(names)
    for i in range(len(names) - 1, -1, -1):
        bits = below[i] | (1 << i)
        for p in parents[names[i]]:
            below[index[p]] |= bits
    return _unpack(below, len(names))


def _unpack(rows: Sequence[int], d: int) -> np.ndarray:
    """(len(rows), d) bool matrix whose row i has bit j of ``rows[i]`` at column j."""
    width = (d + 7) // 8
    packed = b"".join(r.to_bytes(width, "little") for r in rows)
    bits = np.frombuffer(packed, dtype=np.uint8).reshape(len(rows), width)
    return np.unpackbits(bits, axis=1, bitorder="little")[:, :d].astype(bool)


Gate = Callable[[GateContext], Iterable[GateResult]]
PoolGate = Callable[[Sequence[CompiledCard]], Mapping[str, Sequence[GateResult]]]
GATES: Registry[Gate] = Registry("gate")
# Reports list gates in the documented order (thresholds.SEVERITY), whatever the import order.
REPORT_ORDER = {gate: i for i, gate in enumerate(SEVERITY)}
POOL_GATES: Registry[PoolGate] = Registry("pool gate")


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
