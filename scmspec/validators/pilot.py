"""Statistics the gates decide on: confidence bounds and the tail pilot.

Two ways keep a gate's decision from depending on the seed (docs/gates.md,
"Stable decisions"):

* *confidence bounds* on the released rows: a share (``wilson``) or a correlation
  (``fisher``) fails only when its whole one-sided bound, ``CONFIDENCE_Z`` standard
  errors from the estimate, lies past the threshold;
* the *tail pilot*: declared ranges are also checked on ``TAIL_PILOT_ROWS``
  observational rows of the ranged variables and their ancestors, drawn in chunks
  from the pilot's own streams (split ``gate-pilot``), so the released data never
  change. Only each chunk's count outside, minimum and maximum are kept.

This module is not a gate; the gates in ``data_gates`` and ``intervention_gates``
use it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from scmspec.compiler.plan import Plan
from scmspec.samplers import numpy_sampler
from scmspec.samplers.streams import Streams
from scmspec.validators.base import GateContext
from scmspec.validators.thresholds import (
    CONFIDENCE_Z,
    RANGE_SLACK,
    STAT_PILOT_ROWS,
    TAIL_PILOT_CHUNK,
    TAIL_PILOT_ROWS,
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


@dataclass(frozen=True)
class TailPilot:
    """Per ranged variable: rows outside its range, and the extremes seen, on the pilot."""

    names: tuple[str, ...]
    rows: int
    outside: Array  # (len(names),) int
    low: Array  # minimum seen
    high: Array  # maximum seen
    skipped: str = ""  # why no pilot was drawn (no protocol, no range)


def _ancestral_plan(plan: Plan, keep: set[str], parents: dict[str, tuple[str, ...]]) -> Plan:
    """The plan cut to ``keep`` and every ancestor (whole root blocks, no targets)."""
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


def tail_pilot(ctx: GateContext, ranged: list[tuple[str, tuple[float, float]]],
               rows: int = TAIL_PILOT_ROWS, chunk: int = TAIL_PILOT_CHUNK) -> TailPilot:
    """Sample the pilot for ``ranged`` variables and count values outside their ranges.

    Cached on the context. A card with a selection samples its whole plan (the
    selection decides which rows exist); any other card only the ranged variables'
    ancestral set.
    """
    names = tuple(v for v, _ in ranged)
    empty = np.zeros(len(names))

    def compute() -> TailPilot:
        if ctx.protocol is None or not ranged or rows <= 0:
            why = "no protocol" if ctx.protocol is None else "no range declared"
            return TailPilot(names, 0, empty.astype(np.intp), empty, empty, why)
        plan, seed = ctx.compiled.plan, ctx.protocol.seed
        if plan.selection is None:
            parents = {k: tuple(v) for k, v in ctx.compiled.resolved.parents.items()}
            plan = _ancestral_plan(plan, set(names), parents)
        else:
            plan = replace(plan, targets=())
        lo = np.array([float(r[0]) for _, r in ranged])
        hi = np.array([float(r[1]) for _, r in ranged])
        slack = RANGE_SLACK * np.maximum(1.0, np.maximum(np.abs(lo), np.abs(hi)))
        outside = np.zeros(len(names), dtype=np.intp)
        low, high = np.full(len(names), np.inf), np.full(len(names), -np.inf)
        done, c = 0, 0
        while done < rows:
            m = min(chunk, rows - done)
            streams = Streams(seed, ctx.card_id, f"{PILOT_SPLIT}-{c}", 0)
            s = numpy_sampler.sample(plan, m, 0, streams)
            x = np.stack([s.columns[v] for v in names])
            with np.errstate(invalid="ignore"):
                outside += np.count_nonzero((x < (lo - slack)[:, None])
                                            | (x > (hi + slack)[:, None]), axis=1)
            low, high = np.fmin(low, np.nanmin(x, axis=1)), np.fmax(high, np.nanmax(x, axis=1))
            done, c = done + m, c + 1
        return TailPilot(names, done, outside, low, high)

    return ctx.cached(f"tail_pilot:{rows}:{chunk}", compute)


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
        plan, seed = ctx.compiled.plan, ctx.protocol.seed  # type: ignore[union-attr]
        if plan.selection is None:
            parents = {k: tuple(v) for k, v in ctx.compiled.resolved.parents.items()}
            plan = _ancestral_plan(plan, set(key), parents)
        else:
            plan = replace(plan, targets=())
        streams = Streams(seed, ctx.card_id, f"{PILOT_SPLIT}-stat", 0)
        s = numpy_sampler.sample(plan, rows, 0, streams)
        return {v: s.columns[v] for v in key}

    return ctx.cached(f"pilot:{rows}:{','.join(key)}", compute)
