"""Statistics the gates decide on: confidence bounds and the stat pilot.

Two ways keep a gate's decision from depending on the seed (docs/gates.md,
"Stable decisions"):

* *confidence bounds* on the released rows: a share (``wilson``) or a correlation
  (``fisher``) fails only when its whole one-sided bound, ``CONFIDENCE_Z`` standard
  errors from the estimate, lies past the threshold;
  a finding that straddles its threshold is decided again on ``STAT_PILOT_ROWS``
  rows (``pilot_columns``, ``share_of``);
* the *tail check* (``tail_sample.tail_pilot``), for the share of natural rows outside
  each declared range, which no confidence bound on 10^3 rows can settle.

Pilots are drawn from their own streams (split ``gate-pilot``), so the released data
never change. This module is not a gate; the gates in ``data_gates`` and
``intervention_gates`` use it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from scmspec.compiler.plan import Plan
from scmspec.samplers import numpy_sampler
from scmspec.samplers.streams import Streams
from scmspec.samplers.tabulated import tabulate_roots
from scmspec.validators.base import GateContext
from scmspec.validators.thresholds import (
    CONFIDENCE_Z,
    STAT_PILOT_ROWS,
)

Array = np.ndarray
PILOT_SPLIT = "gate-pilot"


def wilson(k: Array | float, n: Array | float, z: float = CONFIDENCE_Z) -> tuple[Array, Array]:
    """(lower, upper) Wilson score bounds of a share k / n, z standard errors wide.

    Example:
        >>> lo, hi = wilson(0, 1000)
        >>> float(lo), round(float(hi), 4)
        (0.0, 0.0089)
    """
    k, n = np.asarray(k, dtype=float), np.maximum(np.asarray(n, dtype=float), 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def fisher(r: Array | float, n: int, z: float = CONFIDENCE_Z) -> tuple[Array, Array]:
    """(lower, upper) bounds of |r| from Fisher's z transform, z standard errors wide.

    Example:
        >>> lo, hi = fisher(0.89, 1000)
        >>> round(float(lo), 3), round(float(hi), 3)
        (0.868, 0.908)
    """
    a = np.clip(np.abs(np.asarray(r, dtype=float)), 0.0, 1.0 - 1e-15)
    se = z / np.sqrt(max(n - 3, 1))
    f = np.arctanh(a)
    return np.tanh(np.maximum(f - se, 0.0)), np.tanh(f + se)


def ancestral_plan(plan: Plan, keep: set[str], parents: dict[str, tuple[str, ...]]) -> Plan:
    """The plan cut to ``keep`` and every ancestor (whole root blocks, no targets); the
    pilots sample only what the variables they judge need."""
    todo, need = list(keep), set(keep)
    while todo:
        for p in parents.get(todo.pop(), ()):
            if p not in need:
                need.add(p)
                todo.append(p)
    # a copula draws its roots jointly: keep whole blocks (roots have no parents)
    blocks = {s.block for s in plan.steps if s.name in need and s.block is not None}
    need |= {s.name for s in plan.steps if s.block is not None and s.block in blocks}
    steps = tuple(s for s in plan.steps if s.name in need)
    return replace(plan, steps=steps, targets=(),
                   columns=tuple(c for c in plan.columns if c in need))


def pilot_plan(ctx: GateContext) -> Plan:
    """The card's plan as every pilot samples it: slow quantile functions read from a table
    (``samplers.tabulated``), built once per card and cut per pilot."""
    return ctx.cached("pilot_plan", lambda: tabulate_roots(ctx.compiled.plan))


def pilot_columns(ctx: GateContext, names: list[str] | tuple[str, ...],
                  rows: int = STAT_PILOT_ROWS) -> dict[str, Array] | None:
    """``rows`` observational values of ``names`` from the pilot's own streams (cached).

    Used to decide findings whose bound on the released rows straddles a threshold.
    A card with a selection samples its whole plan (the released population is the
    selected one); any other card the variables' ancestral set. None without protocol.
    """
    if ctx.protocol is None or not names:
        return None
    key = tuple(sorted(set(names)))

    def compute() -> dict[str, Array]:
        plan, seed = pilot_plan(ctx), ctx.protocol.seed  # type: ignore[union-attr]
        if plan.selection is None:
            parents = {k: tuple(v) for k, v in ctx.compiled.resolved.parents.items()}
            plan = ancestral_plan(plan, set(key), parents)
        else:
            plan = replace(plan, targets=())
        streams = Streams(seed, ctx.card_id, f"{PILOT_SPLIT}-stat", 0)
        s = numpy_sampler.sample(plan, rows, 0, streams)
        return {v: s.columns[v] for v in key}

    return ctx.cached(f"pilot:{rows}:{','.join(key)}", compute)


@dataclass(frozen=True)
class Share:
    """A share of rows equal to one value, decided against a threshold (see ``share_of``)."""

    share: float
    lower: float  # its lower CONFIDENCE_Z-SE Wilson bound
    rows: int
    on_pilot: bool  # decided on the STAT_PILOT_ROWS pilot (it straddled on released rows)
    threshold: float

    @property
    def past(self) -> bool:
        """Whether the whole bound lies past the threshold it was decided against."""
        return self.lower > self.threshold


def share_of(ctx: GateContext, name: str, value: float, share: float, n: int,
             threshold: float) -> Share:
    """The share of ``name`` at ``value`` (``share`` of ``n`` released rows) against ``threshold``.

    Fails (``past``) only when the lower Wilson bound exceeds the threshold; a share
    whose bound straddles it on the released rows is decided again on the pilot of
    ``pilot_columns`` (the variable and its ancestors), when the card has a protocol.
    Shared by ``category_dominance`` and ``boundary_mass``.
    """
    lower = float(wilson(share * n, n)[0])
    if lower <= threshold:  # straddles the threshold: decide on the pilot
        pilot = pilot_columns(ctx, [name])
        if pilot is not None:
            m = pilot[name].size
            share = float(np.count_nonzero(pilot[name] == value)) / m
            return Share(share, float(wilson(share * m, m)[0]), m, True, threshold)
    return Share(share, lower, n, False, threshold)
