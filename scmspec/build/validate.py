"""``scmspec validate``: gate reports for cards without writing datasets.

Compile-stage diagnostics are reported under the gate they belong to
(``schema``, ``acyclic``, ``parents_match``, ``units``), so one table shows
every check a card went through: a card that compiled records explicit passes
for them; a card that did not records the failures, passes for the stages
before the failing one, and ``skip`` for every gate that could not run.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scmspec.build.cards import CardResult, ProtocolOverrides, parse_all, record_internal
from scmspec.build.discover import discover
from scmspec.build.evaluate import compile_pool, evaluate, pool_gates
from scmspec.compiler.noise_units import noise_key
from scmspec.compiler.pipeline import compile_card
from scmspec.compiler.unit_conversion import explain
from scmspec.errors import CardError, Diagnostic
from scmspec.validators import GateResult, make_result
from scmspec.validators.thresholds import SEVERITY

_CODE_GATES = {"SCM307": "acyclic", "SCM304": "parents_match", "SCM301": "parents_match",
               "SCM601": "selection_rate"}
# The compile stage each compile-time gate belongs to (SCMsxx: s = stage).
_STAGE = {"schema": 2, "acyclic": 3, "parents_match": 3, "units": 4}


def gate_of(diag: Diagnostic) -> str:
    """The gate id a compile-stage diagnostic belongs to.

    Example:
        >>> gate_of(Diagnostic("SCM401", "m")), gate_of(Diagnostic("SCM307", "m"))
        ('units', 'acyclic')
    """
    if diag.code in _CODE_GATES:
        return _CODE_GATES[diag.code]
    return "units" if diag.code.startswith("SCM4") else "schema"


def _stage(code: str) -> int:
    return int(code[3]) if len(code) > 3 and code[3].isdigit() else 0


def compile_failure_records(diagnostics: Iterable[Diagnostic]) -> list[GateResult]:
    """Gate records of a card that did not compile or sample: fail, pass or skip per gate."""
    diags = list(diagnostics)
    failed = [make_result(gate_of(d), "fail", d.message + (f"; {d.hint}" if d.hint else ""),
                          d.span) for d in diags]
    first = min(_stage(d.code) for d in diags)
    named = {r.gate for r in failed}
    rest = []
    for gate in SEVERITY:
        if gate in named or gate == "duplicate_topology":
            continue
        if _STAGE.get(gate, 99) < first:
            rest.append(make_result(gate, "pass", "checked before the failing stage"))
        else:
            rest.append(make_result(gate, "skip", "not run: the card did not compile and sample"))
    return failed + rest


@dataclass
class CardReport:
    """Gate results of one card, including compile-stage failures."""

    result: CardResult

    @property
    def name(self) -> str:
        return self.result.id or self.result.path

    @property
    def gates(self) -> list[GateResult]:
        if self.result.diagnostics:
            return compile_failure_records(self.result.diagnostics) + list(self.result.gates)
        return list(self.result.gates)

    @property
    def blocking(self) -> bool:
        return any(g.blocking_failure for g in self.gates)

    def records(self) -> list[dict[str, Any]]:
        return [g.to_json(self.name) for g in self.gates]

    def table(self) -> str:
        """A readable table: one row per result, problems with their card location.

        Gates skipped for the same reason (e.g. a card that did not compile) share a row.
        """
        gates = self.gates
        counts = {s: sum(g.status == s for g in gates) for s in ("pass", "warn", "fail", "skip")}
        verdict = "BLOCKED" if self.blocking else "ok"
        rows = [f"{self.name} ({self.result.path}): {verdict}  "
                + ", ".join(f"{k} {v}" for k, v in counts.items()),
                f"  {'status':6} {'severity':8}  {'gate':19} detail"]
        pad = f"\n  {'':6} {'':8}  {'':19} "
        skipped: dict[str, list[str]] = {}
        for g in gates:
            if g.status == "skip" and g.detail.startswith("not run"):
                skipped.setdefault(g.detail, []).append(g.gate)
                continue
            where = f"{pad}at {g.location}" if g.location and g.status in ("fail", "warn") else ""
            why = f"{pad}justified: {g.justification}" if g.justification else ""
            rows.append(f"  {g.status:6} {g.severity:8}  {g.gate:19} {g.detail}{where}{why}")
        for detail, names in skipped.items():
            rows.append(f"  {'skip':6} {'':8}  {f'{len(names)} gates':19} {detail}: "
                        + ", ".join(names))
        return "\n".join(rows)


def validate_paths(paths: Iterable[str | Path], overrides: ProtocolOverrides) -> list[CardReport]:
    """Compile, sample (small protocol) and gate every card under ``paths``, as one pool."""
    results, loaded = parse_all(discover(paths))
    compiled = compile_pool(loaded)
    pooled = pool_gates(compiled)
    for res in results:
        if res.path not in loaded:
            continue
        try:
            evaluate(loaded[res.path], res, overrides, True, compiled.get(res.path),
                     pooled.get(res.path, []))
        except Exception as exc:  # noqa: BLE001 - one card's bug must not stop the others
            record_internal(res, exc)
    return [CardReport(r) for r in results]


def explain_units(paths: Iterable[str | Path]) -> list[tuple[CardResult, str]]:
    """Per card, the unit conversions the compiler inserts (``validate --explain-units``).

    Each card is parsed and compiled (no sampling, no gates); a card that fails keeps its
    diagnostics on its result and gets no text.
    """
    results, loaded = parse_all(discover(paths))
    out = []
    for res in results:
        card = loaded.get(res.path)
        if card is None:
            out.append((res, ""))
            continue
        try:
            compiled = compile_card(card.card, card.source)
        except CardError as exc:
            res.diagnostics = list(exc.diagnostics)
            out.append((res, ""))
            continue
        variables = compiled.card.variables
        text = {k: v.equation or "" for k, v in variables.items()}
        text.update({noise_key(k, field): variables[k].noise.scale_expression() or ""
                     for k, (field, _) in compiled.resolved.noise_scales.items()})
        if compiled.card.selection is not None:
            text["selection"] = compiled.card.selection.condition
        units = {k: v.unit for k, v in variables.items()}
        done = compiled.resolved.unit_conversions
        mode = "units: strict, nothing is converted" if compiled.card.units == "strict" else \
            "no conversions needed"
        out.append((res, explain(text, units, done) if done else f"({mode})"))
    return out
