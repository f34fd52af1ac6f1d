"""Every gate, listed explicitly, and running them.

Registration must not depend on something else happening to import a module, so
every gate module is imported here, once: compile stages and structure, data,
formulas, interventions, sortability, selection, the card's justifications, and
the pool gates. :func:`run_gates` and :func:`run_pool_gates` live in this module,
so whoever can run the gates has registered all of them; reports list gates in
the documented order (``thresholds.SEVERITY``) whatever this import order is.
A new gate: one function in the module of its topic (or a new module listed here),
registered with ``@GATES.register("name")``, its severity and threshold in
``thresholds``, a row in docs/gates.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from scmspec.compiler.pipeline import CompiledCard
from scmspec.validators import (  # noqa: F401  (imported for their registrations)
    data_gates,
    formula_gates,
    intervention_gates,
    justification_gates,
    latent_gates,
    placeholder_gates,
    pool_gates,
    protocol_gates,
    sortability,
    structure_gates,
)
from scmspec.validators.base import (
    GATES,
    POOL_GATES,
    REPORT_ORDER,
    GateContext,
    GateResult,
    justify,
)


def run_gates(ctx: GateContext, only: Iterable[str] | None = None) -> list[GateResult]:
    """Run every registered per-card gate (or those in ``only``), in registration order."""
    wanted = set(only) if only is not None else None
    results: list[GateResult] = []
    for name, gate in sorted(GATES.items(), key=lambda item: REPORT_ORDER.get(item[0], 999)):
        if wanted is None or name in wanted:
            results.extend(gate(ctx))
    return justify(results, ctx.compiled)


def run_pool_gates(pool: Sequence[CompiledCard]) -> dict[str, list[GateResult]]:
    """Run every pool gate over cards checked together; results keyed by card id."""
    out: dict[str, list[GateResult]] = {c.card.id: [] for c in pool}
    for _, gate in POOL_GATES.items():
        for card_id, results in gate(pool).items():
            out[card_id].extend(results)
    by_id = {c.card.id: c for c in pool}
    return {k: justify(v, by_id[k]) for k, v in out.items()}
