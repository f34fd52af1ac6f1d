"""``scmspec validate``: gate reports for cards without writing datasets.

Compile-stage diagnostics are reported under the gate they belong to
(``schema``, ``acyclic``, ``parents_match``, ``units``), so one table shows
every check a card went through.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scmspec.build import CardResult, ProtocolOverrides, discover, evaluate, parse_all
from scmspec.errors import Diagnostic
from scmspec.validators import GateResult

_CODE_GATES = {"SCM307": "acyclic", "SCM304": "parents_match", "SCM301": "parents_match",
               "SCM601": "selection_rate"}


def gate_of(diag: Diagnostic) -> str:
    """The gate id a compile-stage diagnostic belongs to."""
    if diag.code in _CODE_GATES:
        return _CODE_GATES[diag.code]
    return "units" if diag.code.startswith("SCM4") else "schema"


@dataclass
class CardReport:
    """Gate results of one card, including compile-stage failures."""

    result: CardResult

    @property
    def name(self) -> str:
        return self.result.id or self.result.path

    @property
    def gates(self) -> list[GateResult]:
        failed = [GateResult(gate_of(d), "fail", "blocking", d.message, d.span)
                  for d in self.result.diagnostics]
        return failed + list(self.result.gates)

    @property
    def blocking(self) -> bool:
        return any(g.blocking_failure for g in self.gates)

    def records(self) -> list[dict[str, Any]]:
        return [g.to_json(self.name) for g in self.gates]

    def table(self) -> str:
        rows = [f"{self.name} ({self.result.path}): "
                + ("BLOCKED" if self.blocking else "ok")]
        for g in self.gates:
            where = f"  [{g.location}]" if g.location and g.status != "pass" else ""
            why = f"  justified: {g.justification}" if g.justification else ""
            rows.append(f"  {g.status:5} {g.severity:8} {g.gate:20} {g.detail}{where}{why}")
        return "\n".join(rows)


def validate_paths(paths: Iterable[str | Path], overrides: ProtocolOverrides) -> list[CardReport]:
    """Compile, sample (small protocol) and gate every card under ``paths``."""
    results, loaded = parse_all(discover(paths))
    for res in results:
        if res.path in loaded:
            evaluate(loaded[res.path], res, overrides)
    return [CardReport(r) for r in results]
