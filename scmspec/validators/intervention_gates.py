"""The ``intervention_effect`` gate: interventions move their targets and nothing else.

``intervention_effect`` compares the sampled obs+int split with the natural
values of the same random streams. On the first replicate it re-runs one
natural pass (:func:`~scmspec.samplers.numpy_sampler.run_pass` with the split's
own streams and no assignment): on each intervened row, every variable that is
neither a target of that row nor a descendant of one must be bit-identical to
its natural value; the targets must actually move; their descendants must
differ somewhere. Bit-identity is a property of the sampler and the card, not
of a replicate, so later replicates recompute only the targets' own natural
values (each target's step on the sampled parents, which on the target's rows
are natural when no ancestor of it is intervened on the same row); a full pass
runs again only when a target's effect has not yet been seen to propagate, or
when a row intervenes on a target and on one of its ancestors. A card with a
selection draws its rows in chunks that cannot be replayed, so for it the check
runs on a fresh, unselected pass of the same size (the mechanics are the same).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from scmspec.samplers.numpy_sampler import (
    PILOT_ROWS,
    _block_uniforms,
    _natural,
    assign_targets,
    run_pass,
)
from scmspec.samplers.plan import Plan
from scmspec.samplers.streams import Streams
from scmspec.validators.base import GATES, GateContext, GateResult, make_result
from scmspec.validators.thresholds import MIN_TARGET_CHANGED, TARGET_CHANGED_Z

Array = np.ndarray


@dataclass
class _Run:
    """One replicate's intervened obs+int rows, the streams that drew them, their assignment.

    For a card with a selection the rows are a fresh unselected pass, drawn only
    when first asked for (``intervened``).
    """

    streams: Streams
    assigned: Array  # (n, k) bool over the pool
    columns: dict[str, Array] | None = None  # None: a fresh pass not drawn yet
    plan: Plan | None = None

    @property
    def intervened(self) -> dict[str, Array]:
        if self.columns is None:
            assert self.plan is not None
            plan, fresh = self.plan, self.streams
            assigned = {t: self.assigned[:, j] for j, t in enumerate(plan.targets)}
            pilot_streams = fresh.child(split="obsint-gate-baseline")
            self.columns = run_pass(plan, self.assigned.shape[0], fresh, assigned,
                                    pilot=lambda: run_pass(plan, PILOT_ROWS, pilot_streams))
        return self.columns


def _run(ctx: GateContext, r: int) -> _Run | None:
    """Replicate r's released obs+int rows, or a fresh unselected pass for a selection."""
    plan, proto = ctx.compiled.plan, ctx.protocol
    if proto is None:
        return None
    s = ctx.replicates[r].obsint
    streams = Streams(proto.seed, plan.card_id, "obsint", ctx.replicates[r].replicate)
    if plan.selection is None:
        return _Run(streams, s.assigned, s.columns)
    fresh = streams.child(split="obsint-gate")
    n_obs, n_int = proto.n_int_obs, proto.n_int
    matrix = np.zeros((n_obs + n_int, len(s.targets)), dtype=bool)
    matrix[n_obs:] = assign_targets(s.targets, n_int, plan.per_row,
                                    fresh.generator("__assignment__", purpose="protocol"))
    return _Run(fresh, matrix, None, plan)


def _rows(cols: dict[str, Array], names: list[str] | tuple[str, ...], hit: Array) -> Array:
    """(V, r) table of the named columns on the given rows (a slice when they are contiguous)."""
    if hit.size and hit[-1] - hit[0] + 1 == hit.size:
        return np.stack([cols[v][hit[0]:hit[-1] + 1] for v in names])
    return np.stack([cols[v] for v in names])[:, hit]


def _differs(a: Array, b: Array) -> Array:
    """Elementwise a != b, where two NaNs count as equal."""
    moved: Array = a != b
    if np.isnan(a).any():
        moved &= ~(np.isnan(a) & np.isnan(b))
    return moved


def _natural_targets(ctx: GateContext, run: _Run, targets: list[str]) -> dict[str, Array]:
    """Each target's natural column: its own step on the intervened pass's parent columns.

    The sampler's own per-variable step (``_natural``) with the target's own stream,
    so on rows where no ancestor of the target is intervened it is bit-identical
    to the target's value in a natural pass.
    """
    plan = ctx.compiled.plan
    by_name = {s.name: s for s in plan.steps}
    n, cols = run.assigned.shape[0], run.intervened  # (a fresh pass is drawn first)
    uniforms = _block_uniforms(plan, n, run.streams) if plan.blocks else {}
    out = {}
    for t in targets:
        col = np.empty(n)
        _natural(by_name[t], cols, n, run.streams.generator(t), uniforms, col)
        out[t] = col
    return out


def _limit(n: int) -> float:
    """The share of moved rows below which a target fails at n rows (one-sided binomial)."""
    return float(MIN_TARGET_CHANGED - TARGET_CHANGED_Z * np.sqrt(
        MIN_TARGET_CHANGED * (1 - MIN_TARGET_CHANGED) / n))


@dataclass
class _Tally:
    """Per-target and per-variable counts accumulated over replicates."""

    rows: dict[str, int]
    moved: dict[str, int]
    propagated: dict[str, bool]
    leaked: dict[str, int]
    empty: dict[str, int]  # target -> a replicate where it got no row
    checked: int = 0  # intervened rows compared in full (replicate 0)


@dataclass(frozen=True)
class _Structure:
    """Per-card facts: step names, target indices, descendants and what each target covers."""

    names: list[str]
    tix: list[int]
    desc: Array  # (k, V) bool: v is below target j
    covers: Array  # (k, V) float: v is target j or below it
    nested: Array  # (k, k) bool: target i is an ancestor of target j
    has_desc: list[bool]  # target j has a descendant


def _structure(ctx: GateContext) -> _Structure:
    def compute() -> _Structure:
        plan = ctx.compiled.plan
        index, closure = ctx.reach
        names = [s.name for s in plan.steps]
        tix = [index[t] for t in plan.targets]
        desc: Array = closure[tix][:, [index[v] for v in names]]
        covers = (desc | np.eye(len(names), dtype=bool)[tix]).astype(float)
        has_desc = [bool(row.any()) for row in desc]
        return _Structure(names, tix, desc, covers, closure[np.ix_(tix, tix)], has_desc)

    return ctx.cached("intervention_structure", compute)


def _compare_full(ctx: GateContext, run: _Run, tally: _Tally, leaks: bool) -> None:
    """Compare every variable on the intervened rows with a natural pass of the same streams."""
    plan, st = ctx.compiled.plan, _structure(ctx)
    natural = run_pass(plan, run.assigned.shape[0], run.streams)
    hit = np.flatnonzero(run.assigned.any(axis=1))  # the intervened rows
    assigned = run.assigned[hit]  # (r, k)
    diff = _differs(_rows(run.intervened, st.names, hit), _rows(natural, st.names, hit))
    per_target = assigned.T.astype(float)  # (k, r)
    if leaks:
        affected = st.covers.T @ per_target > 0  # (V, r): a target of the row, or below one
        leaked = np.count_nonzero(diff & ~affected, axis=1)
        for i in np.flatnonzero(leaked):
            tally.leaked[st.names[i]] = tally.leaked.get(st.names[i], 0) + int(leaked[i])
        tally.checked += hit.size
    moved = np.count_nonzero(diff[st.tix] & assigned.T, axis=1)
    below = (st.desc.astype(float) @ diff.astype(float)) > 0  # (k, r): some descendant moved
    spread = np.any(below & assigned.T, axis=1)
    for j, t in enumerate(plan.targets):
        tally.moved[t] += int(moved[j])
        tally.propagated[t] = tally.propagated[t] or bool(spread[j])


def _compare_targets(ctx: GateContext, run: _Run, tally: _Tally, targets: list[str]) -> None:
    """Count, per target, the intervened rows where it differs from its own natural value."""
    natural = _natural_targets(ctx, run, targets)
    pool = ctx.compiled.plan.targets
    for t in targets:
        rows = run.assigned[:, pool.index(t)]
        tally.moved[t] += int(np.count_nonzero(_differs(run.intervened[t][rows],
                                                        natural[t][rows])))


def _needs_full(ctx: GateContext, run: _Run, tally: _Tally) -> bool:
    """A full natural pass is needed: a row nests targets, or an effect is yet to be seen."""
    st = _structure(ctx)
    pool = ctx.compiled.plan.targets
    if any(has and not tally.propagated[t] for has, t in zip(st.has_desc, pool)):
        return True
    if not st.nested.any() or run.assigned.sum() <= np.count_nonzero(run.assigned.any(axis=1)):
        return False  # no row holds two targets, so none holds a target and its ancestor
    together = run.assigned.T.astype(float) @ run.assigned.astype(float)  # (k, k) rows
    return bool((together[st.nested] > 0).any())


def _undecided(tally: _Tally) -> list[str]:
    """Targets whose moved share could still fall below the limit.

    ``rows`` already holds all replicates' rows, so once the rows counted as moved
    so far reach the limit of the final total the target passes whatever the
    remaining replicates show (and it has moved, which the propagation test asks).
    """
    return [t for t, n in tally.rows.items()
            if not (tally.moved[t] > 0 and tally.moved[t] / n >= _limit(n))]


def _tally(ctx: GateContext) -> _Tally:
    """Compare each replicate's intervened values with natural ones on its intervened rows.

    Replicate 0 is compared in full; a later replicate in full only when
    ``_needs_full`` says so, else only for the targets still ``_undecided``.
    """
    pool = ctx.compiled.plan.targets
    tally = _Tally({t: 0 for t in pool}, {t: 0 for t in pool}, {t: False for t in pool}, {}, {})
    runs = []
    for r, rep in enumerate(ctx.replicates):
        counts = rep.obsint.assigned.sum(axis=0)
        tally.empty.update({t: r for t, k in zip(pool, counts.tolist())
                            if k == 0 and t not in tally.empty})
        run = _run(ctx, r)
        if run is not None:
            runs.append((r, run))
            got = counts if run.assigned is rep.obsint.assigned else run.assigned.sum(axis=0)
            for t, k in zip(pool, got.tolist()):
                tally.rows[t] += k
    for r, run in runs:
        if r == 0 or _needs_full(ctx, run, tally):
            _compare_full(ctx, run, tally, leaks=r == 0)
        else:
            todo = _undecided(tally)
            if todo:
                _compare_targets(ctx, run, tally, todo)
    return tally


def _judge(ctx: GateContext, tally: _Tally) -> Iterator[GateResult]:
    pool = ctx.compiled.plan.targets
    index, closure = ctx.reach
    for t, r in tally.empty.items():
        yield make_result("intervention_effect", "fail", f"target {t!r} got 0 interventional "
                          f"rows in replicate {r} (threshold: >= 1); raise n_int to at least the "
                          f"pool size ({len(pool)}) or shrink the pool",
                          ctx.where("interventions"), (t,), 0, 1)
    for v, k in sorted(tally.leaked.items()):
        yield make_result("intervention_effect", "fail", f"{v!r} is not a descendant of the "
                          f"targets of {k} intervened rows but differs from its natural value "
                          "there (replicate 0; threshold: bit-identical): non-descendants "
                          "must be untouched; this is a sampler bug, please report it",
                          ctx.where("variables", v), (v,), k, 0)
    for t in pool:
        n = tally.rows[t]
        if not n or ctx.protocol is None:
            continue
        share, loc = tally.moved[t] / n, ctx.where("variables", t, "intervention")
        # One-sided binomial test: fail only when the share is clearly below the threshold.
        limit = _limit(n)
        if share < limit:
            yield make_result("intervention_effect", "fail", f"intervening on {t!r} changed its "
                              f"value on only {share:.0%} of its {n} rows (threshold "
                              f"{MIN_TARGET_CHANGED:.0%}, failing below {max(limit, 0):.0%} = "
                              f"{TARGET_CHANGED_Z:g} standard errors under it at n = {n}): the "
                              "handler mostly reproduces the natural value; pick a handler or "
                              "value that moves it", loc, (t,), share, MIN_TARGET_CHANGED)
        below = closure[index[t]]
        if below.any() and share > 0 and not tally.propagated[t]:
            desc = sorted(v for v, i in index.items() if below[i])
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
        yield make_result("intervention_effect", "pass", f"{len(pool)} targets get rows and "
                          f"move ({len(ctx.replicates)} replicates); on the {tally.checked} "
                          "intervened rows of replicate 0 non-descendants are bit-identical to "
                          f"a {how} natural pass{note}")
