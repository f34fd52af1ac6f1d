"""Gates on the interventional protocol: effects, masks and selection.

``intervention_effect`` re-runs one natural pass per replicate
(:func:`~scmspec.samplers.numpy_sampler.run_pass` with the split's own streams
and no assignment) and compares it with the sampled obs+int split: on each
intervened row, every variable that is neither a target of that row nor a
descendant of one must be bit-identical to its natural value; the targets must
actually move; their descendants must differ somewhere. A card with a selection
draws its rows in chunks that cannot be replayed, so for it the check runs on a
fresh, unselected pass of the same size (the mechanics are the same).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from scmspec.samplers.numpy_sampler import PILOT_ROWS, assign_targets, run_pass
from scmspec.samplers.streams import Streams
from scmspec.scm import _typed
from scmspec.validators.base import GATES, GateContext, GateResult, make_result
from scmspec.validators.thresholds import (
    MIN_TARGET_CHANGED,
    SELECTION_FAIL,
    SELECTION_NOOP,
    SELECTION_WARN,
    TARGET_CHANGED_Z,
)

Array = np.ndarray


@dataclass(frozen=True)
class _Pair:
    """An intervened pass and the natural pass of the same streams."""

    intervened: dict[str, Array]
    natural: dict[str, Array]
    assigned: Array  # (n, k) bool over the pool
    replayed: bool  # True: the released rows themselves; False: a fresh unselected pass


def _pair(ctx: GateContext, r: int) -> _Pair | None:
    plan, proto = ctx.compiled.plan, ctx.protocol
    if proto is None:
        return None
    s = ctx.replicates[r].obsint
    streams = Streams(proto.seed, plan.card_id, "obsint", ctx.replicates[r].replicate)
    if plan.selection is None:
        return _Pair(s.columns, run_pass(plan, s.n, streams), s.assigned, True)
    fresh = streams.child(split="obsint-gate")
    n_obs, n_int = proto.n_int_obs, proto.n_int
    matrix = np.zeros((n_obs + n_int, len(s.targets)), dtype=bool)
    matrix[n_obs:] = assign_targets(s.targets, n_int, plan.per_row,
                                    fresh.generator("__assignment__", purpose="protocol"))
    assigned = {t: matrix[:, j] for j, t in enumerate(s.targets)}
    pilot_streams = fresh.child(split="obsint-gate-baseline")
    cols = run_pass(plan, n_obs + n_int, fresh, assigned,
                    pilot=lambda: run_pass(plan, PILOT_ROWS, pilot_streams))
    return _Pair(cols, run_pass(plan, n_obs + n_int, fresh), matrix, False)


def _moved(pair: _Pair, names: list[str], rows: Array) -> Array:
    """(V, r) bool: each variable's value differs from its natural one on the given rows.

    Only intervened rows are compared, as (V, r) tables built by row copies.
    """
    a = np.stack([pair.intervened[v][rows] for v in names])
    b = np.stack([pair.natural[v][rows] for v in names])
    moved: Array = a != b
    both_nan = np.isnan(a) & np.isnan(b) if np.isnan(a).any() else None
    return moved if both_nan is None else moved & ~both_nan


@dataclass
class _Tally:
    """Per-target and per-variable counts accumulated over replicates."""

    rows: dict[str, int]
    moved: dict[str, int]
    propagated: dict[str, bool]
    leaked: dict[str, int]
    empty: dict[str, int]  # target -> a replicate where it got no row


def _tally(ctx: GateContext) -> _Tally:
    """Compare each replicate's intervened and natural passes on intervened rows, vectorised."""
    plan = ctx.compiled.plan
    pool, names = plan.targets, [s.name for s in plan.steps]
    tally = _Tally({t: 0 for t in pool}, {t: 0 for t in pool}, {t: False for t in pool}, {}, {})
    index, closure = ctx.reach
    tix = [index[t] for t in pool]
    desc = closure[tix][:, [index[v] for v in names]]  # (k, V): v below target
    covers = desc | np.eye(len(names), dtype=bool)[tix]  # (k, V): the target or below it
    for r, rep in enumerate(ctx.replicates):
        counts = rep.obsint.assigned.sum(axis=0)
        tally.empty.update({t: r for t, k in zip(pool, counts) if k == 0 and t not in tally.empty})
        pair = _pair(ctx, r)
        if pair is None:
            continue
        hit = np.flatnonzero(pair.assigned.any(axis=1))  # the intervened rows
        assigned = pair.assigned[hit]  # (r, k)
        diff = _moved(pair, names, hit)  # (V, r): value moved on this intervened row
        affected = np.zeros_like(diff)  # (V, r): a target of the row, or below one
        for j in range(len(pool)):  # k boolean outer products; no BLAS call for a tiny product
            affected |= covers[j][:, None] & assigned[:, j][None, :]
        leaked = np.count_nonzero(diff & ~affected, axis=1)
        for i in np.flatnonzero(leaked):
            tally.leaked[names[i]] = tally.leaked.get(names[i], 0) + int(leaked[i])
        for j, t in enumerate(pool):
            rows = assigned[:, j]
            tally.rows[t] += int(rows.sum())
            tally.moved[t] += int(diff[tix[j], rows].sum())
            tally.propagated[t] = tally.propagated[t] or bool(diff[desc[j]][:, rows].any())
    return tally


def _judge(ctx: GateContext, tally: _Tally) -> Iterator[GateResult]:
    pool = ctx.compiled.plan.targets
    index, closure = ctx.reach
    reps = len(ctx.replicates)
    for t, r in tally.empty.items():
        yield make_result("intervention_effect", "fail", f"target {t!r} got 0 interventional "
                          f"rows in replicate {r} (threshold: >= 1); raise n_int to at least the "
                          f"pool size ({len(pool)}) or shrink the pool",
                          ctx.where("interventions"), (t,), 0, 1)
    for v, k in sorted(tally.leaked.items()):
        yield make_result("intervention_effect", "fail", f"{v!r} is not a descendant of the "
                          f"targets of {k} intervened rows but differs from its natural value "
                          f"there ({reps} replicates; threshold: bit-identical): non-descendants "
                          "must be untouched; this is a sampler bug, please report it",
                          ctx.where("variables", v), (v,), k, 0)
    for t in pool:
        n = tally.rows[t]
        if not n or ctx.protocol is None:
            continue
        share, loc = tally.moved[t] / n, ctx.where("variables", t, "intervention")
        # One-sided binomial test: fail only when the share is clearly below the threshold.
        limit = MIN_TARGET_CHANGED - TARGET_CHANGED_Z * np.sqrt(
            MIN_TARGET_CHANGED * (1 - MIN_TARGET_CHANGED) / n)
        if share < limit:
            yield make_result("intervention_effect", "fail", f"intervening on {t!r} changed its "
                              f"value on only {share:.0%} of its {n} rows (threshold "
                              f"{MIN_TARGET_CHANGED:.0%}, failing below {max(limit, 0):.0%} = "
                              f"{TARGET_CHANGED_Z:g} standard errors under it at n = {n}): the "
                              "handler mostly reproduces the natural value; pick a handler or "
                              "value that moves it", loc, (t,), share, MIN_TARGET_CHANGED)
        desc = sorted(v for v, i in index.items() if closure[index[t], i])
        if desc and share > 0 and not tally.propagated[t]:
            yield make_result("intervention_effect", "fail", f"no descendant of {t!r} "
                              f"({', '.join(desc)}) changed on its {n} intervened rows "
                              "(threshold: some row differs): the effect does not propagate; "
                              "check that the children's equations depend on it in the "
                              "intervened range", loc, (t, *desc), 0, 1)


@GATES.register("intervention_effect")
def intervention_effect(ctx: GateContext) -> Iterator[GateResult]:
    """Targets get rows and move; descendants recomputed; non-descendants untouched."""
    pool = ctx.compiled.plan.targets
    if not pool or not ctx.replicates or not ctx.replicates[0].obsint.assigned.any():
        yield make_result("intervention_effect", "skip", "no interventional rows (empty target "
                          "pool or n_int = 0)")
        return
    tally = _tally(ctx)
    bad = list(_judge(ctx, tally))
    yield from bad
    if not bad:
        how = "replayed" if ctx.compiled.plan.selection is None else "fresh unselected"
        note = "" if ctx.protocol else " (no protocol given: effects not replayed)"
        rows = sum(tally.rows.values())
        yield make_result("intervention_effect", "pass", f"{len(pool)} targets get rows and "
                          f"move; on {rows} intervened rows non-descendants are bit-identical to "
                          f"a {how} natural pass ({len(ctx.replicates)} replicates){note}")


def _mask_problems(ctx: GateContext, r: int) -> Iterator[tuple[str, tuple[str, ...]]]:
    """(message, variables) for every way replicate r's splits and mask could disagree.

    Works on the sampled arrays with the writer's own typing rule
    (:func:`scmspec.scm._typed`), without building the DataFrames: the mask the
    writer emits is the assignment matrix restricted to observed targets.
    """
    plan, rep, proto = ctx.compiled.plan, ctx.replicates[r], ctx.protocol
    spec = ctx.compiled.card.variables
    for v in plan.columns:
        if v not in rep.obs.columns or v not in rep.obsint.columns:
            yield f"{v!r} is missing from the obs or obs+int split", (v,)
            continue
        if spec[v].kind == "continuous":
            continue  # always written as float64
        a = _typed(rep.obs.columns[v], spec[v].kind).dtype
        b = _typed(rep.obsint.columns[v], spec[v].kind).dtype
        if a != b:
            yield (f"{v!r} is {a} in obs but {b} in obs+int (a discrete value that is not an "
                   "integer code?)", (v,))
    s = rep.obsint
    if s.assigned.shape != (s.n, len(s.targets)) or tuple(s.targets) != tuple(plan.targets):
        yield "the intervention assignment does not match the target pool", ()
        return
    per_row = s.assigned.sum(axis=1)
    if not np.isin(per_row, (0, plan.per_row)).all():
        yield f"some rows have a number of targets other than 0 or per_row = {plan.per_row}", ()
    observed = np.array([t in plan.columns for t in s.targets], dtype=bool)
    unmasked = per_row.astype(bool) & ~s.assigned[:, observed].any(axis=1)
    if unmasked.any() and observed.all():  # latent targets are reported by the caller
        yield f"{int(unmasked.sum())} intervened rows have no observed target to mask", ()
    if proto is not None and s.targets and proto.n_int:
        want = (proto.n_int_obs, proto.n_int)
        got = (int((per_row == 0).sum()), int((per_row > 0).sum()))
        if got != want or per_row[: proto.n_int_obs].any():
            yield (f"obs+int has {got[0]} observational and {got[1]} interventional rows "
                   f"(observational first); the protocol asks for {want[0]} and {want[1]}", ())


@GATES.register("mask_consistency")
def mask_consistency(ctx: GateContext) -> Iterator[GateResult]:
    """Masks agree with the target pool; obs and obs+int agree in columns and dtypes."""
    plan = ctx.compiled.plan
    bad = False
    for t in (t for t in plan.targets if t not in plan.columns):
        bad = True
        yield make_result("mask_consistency", "fail", f"target {t!r} is latent, so the mask "
                          "cannot record its interventions (threshold: every target observed);"
                          f" observe {t!r} or remove it from interventions.targets",
                          ctx.where("interventions", "targets"), (t,), 0, 1)
    seen: set[str] = set()
    for r in range(len(ctx.replicates)):
        for message, variables in _mask_problems(ctx, r):
            if message in seen:
                continue
            seen.add(message)
            bad = True
            loc = ctx.where("variables", variables[0]) if variables else ctx.where("interventions")
            yield make_result("mask_consistency", "fail", f"{message} (replicate {r}; threshold:"
                              " none); this is a bug in scmspec's sampler, please report it",
                              loc, variables)
    if not bad:
        yield make_result("mask_consistency", "pass" if ctx.replicates else "skip",
                          f"masks match the pool of {len(plan.targets)} targets; obs and obs+int "
                          f"share {len(plan.columns)} columns and dtypes "
                          f"({len(ctx.replicates)} replicates)" if ctx.replicates
                          else "no sampled data")


@GATES.register("selection_rate")
def selection_rate(ctx: GateContext) -> Iterator[GateResult]:
    """A selection keeps a sane share of rows: warn < 5%, fail < 1%, warn > 99%."""
    plan = ctx.compiled.plan
    if plan.selection is None or not ctx.replicates:
        yield make_result("selection_rate", "skip", "the card has no selection")
        return
    rates = [x for rep in ctx.replicates for x in (rep.obs.acceptance, rep.obsint.acceptance)]
    drawn = sum(rep.obs.drawn + rep.obsint.drawn for rep in ctx.replicates)
    low, high = min(rates), max(rates)
    where = ctx.where("selection", "condition")
    base = f"({len(rates)} splits, {drawn} rows drawn)"
    if low < SELECTION_FAIL:
        yield make_result("selection_rate", "fail", f"the selection keeps {low:.2%} of drawn rows"
                          f" {base}, below {SELECTION_FAIL:.0%}; loosen the condition", where,
                          statistic=low, threshold=SELECTION_FAIL)
    elif low < SELECTION_WARN:
        yield make_result("selection_rate", "warn", f"the selection keeps {low:.2%} of drawn rows"
                          f" {base}, below {SELECTION_WARN:.0%}: the data describe a sliver of "
                          "the population; loosen the condition or justify it", where,
                          statistic=low, threshold=SELECTION_WARN)
    elif high > SELECTION_NOOP:
        yield make_result("selection_rate", "warn", f"the selection keeps {high:.2%} of drawn "
                          f"rows {base}, above {SELECTION_NOOP:.0%}: it does almost nothing; "
                          "tighten it or remove it", where, statistic=high,
                          threshold=SELECTION_NOOP)
    else:
        yield make_result("selection_rate", "pass", f"the selection keeps {low:.1%}-{high:.1%} "
                          f"of drawn rows {base}", where, statistic=low, threshold=SELECTION_WARN)
