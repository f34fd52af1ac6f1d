"""The gate protocol: a gate is a registered function from a context to results.

A failing gate is a result, not an exception. Each result names the gate, its
status (pass, fail, warn, skip), whether it blocks release, a detail a card
author can act on, and the card location it concerns. Thresholds live in
``scmspec.validators.thresholds``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import pandas as pd

from scmspec.compiler.pipeline import CompiledCard
from scmspec.errors import Span
from scmspec.registry import Registry
from scmspec.samplers.numpy_sampler import Sample

Status = Literal["pass", "fail", "warn", "skip"]
Severity = Literal["blocking", "warning"]


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


@dataclass(frozen=True)
class ReplicateData:
    """One replicate's two splits: raw columns (latent included) and written frames."""

    replicate: int
    obs: Sample
    obsint: Sample
    obsint_mask: pd.DataFrame | None = None


@dataclass(frozen=True)
class GateContext:
    """What a gate may look at."""

    compiled: CompiledCard
    replicates: tuple[ReplicateData, ...] = ()
    pool: tuple[CompiledCard, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


Gate = Callable[[GateContext], Iterable[GateResult]]
GATES: Registry[Gate] = Registry("gate")


def run_gates(ctx: GateContext, only: Iterable[str] | None = None) -> list[GateResult]:
    """Run every registered gate (or those in ``only``), in registration order."""
    from scmspec.validators import gates as _gates  # noqa: F401  (registers the gates)

    wanted = set(only) if only is not None else None
    results: list[GateResult] = []
    for name, gate in GATES.items():
        if wanted is None or name in wanted:
            results.extend(gate(ctx))
    return results
