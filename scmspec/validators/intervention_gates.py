"""The ``intervention_effect`` gate: interventions move their targets and nothing else.

``intervention_effect`` compares the sampled obs+int split with the natural
values of the same random streams. On the first replicate it replays the natural
pass on the intervened rows (:func:`~scmspec.samplers.replay.natural_rows`: every
variable's stream drawn in full, as :func:`~scmspec.samplers.numpy_sampler.run_pass`
draws it with no assignment, so a row's draws are the pass's own; the mechanisms
evaluated on the intervened rows only): on each intervened row, every variable that
is neither a target of that row nor a descendant of one must be bit-identical to
its natural value; the targets must actually move; their descendants must differ
somewhere. A leak is confirmed on a whole natural pass before it is reported, and a
card whose mechanisms multiply matrices (structured kinds, whose BLAS rounding may
depend on the batch) is replayed by a whole pass from the start. Bit-identity is a
property of the sampler and the card, not of a replicate, so later replicates
recompute only the targets' own natural values (each target's step on the sampled
parents, which on the target's rows are natural when no ancestor of it is
intervened on the same row); a full replay runs again only when a target's effect
has not yet been seen to propagate, or when a row intervenes on a target and on
one of its ancestors. A card with a selection draws its rows in chunks that cannot
be replayed, so for it the check runs on a fresh, unselected pass of the same size
(the mechanics are the same).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from scmspec.compiler.plan import Plan
from scmspec.samplers.numpy_sampler import PILOT_ROWS, assign_targets, run_pass
from scmspec.samplers.replay import natural_rows, natural_steps, rowwise
from scmspec.samplers.streams import Streams
from scmspec.validators.base import (
    GATES,
    GateContext,
    GateResult,
    count_assignment,
    make_result,
)
from scmspec.validators.pilot import wilson
from scmspec.validators.thresholds import (
    MIN_TARGET_CHANGED,
    PROPAGATION_PILOT_CELLS,
    STAT_PILOT_ROWS,
    TARGET_CHANGED_Z,
)

Array = np.ndarray
Rows = slice | Array


@dataclass
class _Run:
    """One replicate's intervened obs+int rows, the streams that drew them, their assignment.

    For a card with a selection the rows are a fresh unselected pass, drawn only
    when first asked for (``intervened``).
    """

    streams: Streams
    assigned: Array  # (n, k) bool over the pool
    per_row: Array  # (n,) targets of each row
    per_target: Array  # (k,) rows of each target
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
        return _Run(streams, s.assigned, *ctx.assignment_counts(r), s.columns)
    fresh = streams.child(split="obsint-gate")
    n_obs, n_int = proto.n_int_obs, proto.n_int
    matrix = np.zeros((n_obs + n_int, len(s.targets)), dtype=bool)
    matrix[n_obs:] = assign_targets(s.targets, n_int, plan.per_row,
                                    fresh.generator("__assignment__", purpose="protocol"))
    return _Run(fresh, matrix, *count_assignment(matrix), None, plan)


def _hit_rows(run: _Run) -> Rows:
    """The intervened rows: a slice when they are contiguous (the sampler puts them last)."""
    hit = np.flatnonzero(run.per_row)
    if hit.size and hit[-1] - hit[0] + 1 == hit.size:
        return slice(int(hit[0]), int(hit[-1]) + 1)
    return hit


def _rows(cols: dict[str, Array], names: list[str] | tuple[str, ...], rows: Rows) -> Array:
    """(V, r) table of the named columns on the given rows (one concatenation)."""
    if isinstance(rows, slice):
        parts = [cols[v][rows] for v in names]
        return np.concatenate(parts).reshape(len(parts), len(parts[0]))
    return np.stack([cols[v] for v in names])[:, rows]


def _differs(a: Array, b: Array) -> Array:
    """Elementwise a != b, where two NaNs count as equal."""
    moved: Array = a != b
    if np.isnan(a).any():
        moved &= ~(np.isnan(a) & np.isnan(b))
    return moved


def _natural_targets(ctx: GateContext, run: _Run, targets: list[str]) -> dict[str, Array]:
    """Each target's natural column: its own step on the intervened pass's parent columns.

    The sampler's own per-variable step with the target's own stream
    (:func:`~scmspec.samplers.replay.natural_steps`), so on rows where no ancestor of
    the target is intervened it is bit-identical to the target's value in a natural pass.
    """
    n, cols = run.assigned.shape[0], run.intervened  # (a fresh pass is drawn first)
    return natural_steps(ctx.compiled.plan, targets, cols, n, run.streams)


def _natural_on_hits(ctx: GateContext, run: _Run, rows: Rows) -> tuple[Array, bool]:
    """(variables, rows) natural values on the intervened rows, and whether they came
    from a full pass.

    A rowwise plan (:func:`~scmspec.samplers.replay.rowwise`) replays every stream in
    full but evaluates the mechanisms on the intervened rows only; any other plan runs
    a whole natural pass.
    """
    plan, st = ctx.compiled.plan, _structure(ctx)
    n = run.assigned.shape[0]
    if st.rowwise:
        return natural_rows(plan, n, run.streams, rows), False
    return _rows(run_pass(plan, n, run.streams), st.names, rows), True


def handler_moves(ctx: GateContext, target: str) -> tuple[int, int]:
    """(natural rows the target's handler changes, natural rows) on the obs split.

    The handler is applied to every natural value of the obs split of all replicates
    (replicates x n_obs rows; a data-driven handler takes the same values as its
    baseline), with a generator of gate-only streams, so the released data do not
    change. Only asked for targets whose intervened rows do not already prove an effect.
    """
    def compute() -> tuple[int, int]:
        step = ctx.compiled.plan.step(target)
        x = np.concatenate([rep.obs.columns[target] for rep in ctx.replicates])
        if step.handler is None or not x.size:
            return x.size, x.size
        seed = ctx.protocol.seed if ctx.protocol is not None else 0
        rng = Streams(seed, ctx.card_id, "gate-effect", 0).generator(target, purpose="gate")
        y = np.asarray(step.handler.apply(x.copy(), x, rng, step.discrete), dtype=float)
        return int(np.count_nonzero(_differs(y, x))), x.size

    return ctx.cached(f"handler_moves:{target}", compute)


def propagation_pilot_rows(ctx: GateContext) -> int:
    """Rows of the propagation pilot: STAT_PILOT_ROWS, fewer for a wide card (a memory cap)."""
    steps = max(len(ctx.compiled.plan.steps), 1)
    return int(min(STAT_PILOT_ROWS, max(2_000, PROPAGATION_PILOT_CELLS // steps)))


def pilot_propagates(ctx: GateContext, target: str) -> bool:
    """Whether intervening on ``target`` changes some descendant on a pilot of its own.

    Asked only for a target that moved on its released intervened rows while no
    descendant changed there: an effect that reaches the descendants on a rare subset
    of rows (past a threshold, through a rare event) can miss a few hundred rows and
    still be real. Two passes of ``propagation_pilot_rows`` rows from gate-only
    streams (split ``gate-propagation``), natural and with every row intervened on
    ``target`` (a data-driven handler takes the natural pass as its baseline), so
    the released data do not change and the decision does not depend on which rows
    the released split happened to draw. A card with a selection is judged on
    unselected rows, as the rest of this gate.
    """
    def compute() -> bool:
        plan = ctx.compiled.plan
        n = propagation_pilot_rows(ctx)
        seed = ctx.protocol.seed if ctx.protocol is not None else 0
        streams = Streams(seed, plan.card_id, "gate-propagation", 0)
        natural = run_pass(plan, n, streams)
        moved = run_pass(plan, n, streams, {target: np.ones(n, dtype=bool)},
                         pilot=lambda: natural)
        index, closure = ctx.reach
        below = closure[index[target]]
        return any(bool(_differs(moved[v], natural[v]).any())
                   for v, i in index.items() if below[i])

    return ctx.cached(f"pilot_propagates:{target}", compute)


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
    desc: Array  # (k, V) float: 1 where v is below target j
    covers: Array  # (V, k) float: 1 where v is target j or below it
    nested: Array  # (k, k) bool: target i is an ancestor of target j
    has_desc: list[bool]  # target j has a descendant
    rowwise: bool  # the natural pass may be evaluated on the intervened rows only


def _structure(ctx: GateContext) -> _Structure:
    def compute() -> _Structure:
        plan = ctx.compiled.plan
        index, closure = ctx.reach
        names = [s.name for s in plan.steps]
        tix = [index[t] for t in plan.targets]
        # ctx.reach indexes the plan's steps in plan order, so its rows are these columns.
        desc: Array = closure[tix]
        covers = desc.astype(float)
        covers[np.arange(len(tix)), tix] = 1.0
        structured = [v for v, spec in ctx.compiled.card.variables.items()
                      if getattr(spec, "mechanism", None) is not None]
        return _Structure(names, tix, desc.astype(float), np.ascontiguousarray(covers.T),
                          closure[np.ix_(tix, tix)], [bool(row.any()) for row in desc],
                          rowwise(plan, structured))

    return ctx.cached("intervention_structure", compute)


def _compare_full(ctx: GateContext, run: _Run, tally: _Tally, leaks: bool) -> None:
    """Compare every variable on the intervened rows with its natural values there.

    On a rowwise plan a leak is confirmed on a whole natural pass before it is counted,
    so a report never rests on the shortcut alone.
    """
    plan, st = ctx.compiled.plan, _structure(ctx)
    rows = _hit_rows(run)
    assigned = run.assigned[rows].astype(float)  # (r, k)
    intervened = _rows(run.intervened, st.names, rows)
    natural, full = _natural_on_hits(ctx, run, rows)
    diff = _differs(intervened, natural)
    if leaks:
        affected = st.covers @ assigned.T > 0  # (V, r): a target of the row, or below one
        leaked = np.count_nonzero(diff > affected, axis=1)  # differs, and not affected
        if leaked.any() and not full:
            natural = _rows(run_pass(plan, run.assigned.shape[0], run.streams), st.names, rows)
            diff = _differs(intervened, natural)
            leaked = np.count_nonzero(diff > affected, axis=1)
        for i in np.flatnonzero(leaked):
            tally.leaked[st.names[i]] = tally.leaked.get(st.names[i], 0) + int(leaked[i])
        tally.checked += assigned.shape[0]
    # rows[v, j]: the rows of target j on which v differs from its natural value
    rows_moved = diff.astype(float) @ assigned  # (V, k)
    moved = rows_moved[st.tix, np.arange(len(st.tix))].astype(int).tolist()
    spread = ((st.desc * rows_moved.T).sum(axis=1) > 0).tolist()  # some descendant moved
    for j, t in enumerate(plan.targets):
        tally.moved[t] += moved[j]
        tally.propagated[t] = tally.propagated[t] or spread[j]


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
    if not st.nested.any() or run.per_row.max(initial=0) < 2:
        return False  # no row holds two targets, so none holds a target and its ancestor
    together = run.assigned.T.astype(float) @ run.assigned.astype(float)  # (k, k) rows
    return bool((together[st.nested] > 0).any())


def _undecided(tally: _Tally) -> list[str]:
    """Targets whose moved share could still fall below the limit.

    ``rows`` already holds all replicates' rows, so once the rows counted as moved
    so far reach the limit of the final total the target passes whatever the
    remaining replicates show (and it has moved, which the propagation test asks).
    """
    return [t for t in tally.rows if not tally.moved[t] > 0]


def _tally(ctx: GateContext) -> _Tally:
    """Compare each replicate's intervened values with natural ones on its intervened rows.

    Replicate 0 is compared in full; a later replicate in full only when
    ``_needs_full`` says so, else only for the targets still ``_undecided``.
    """
    pool = ctx.compiled.plan.targets
    tally = _Tally({t: 0 for t in pool}, {t: 0 for t in pool}, {t: False for t in pool}, {}, {})
    runs = []
    for r in range(len(ctx.replicates)):
        counts = ctx.assignment_counts(r)[1]
        tally.empty.update({t: r for t, k in zip(pool, counts.tolist())
                            if k == 0 and t not in tally.empty})
        run = _run(ctx, r)
        if run is not None:
            runs.append((r, run))
            for t, k in zip(pool, run.per_target.tolist()):
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
        # the intervened rows already prove a real effect when even the lower bound of
        # their moved share reaches 1% (rows counted so far: a conservative count);
        # otherwise the handler is judged on every natural row of the obs split
        if float(wilson(tally.moved[t], n, TARGET_CHANGED_Z)[0]) >= MIN_TARGET_CHANGED:
            k, m, upper = tally.moved[t], n, 1.0
        else:
            k, m = handler_moves(ctx, t)
            upper = float(wilson(k, m, TARGET_CHANGED_Z)[1])
        if upper < MIN_TARGET_CHANGED:
            yield make_result("intervention_effect", "fail", f"intervening on {t!r} changes "
                              f"its natural value on {k} of {m} natural rows ({k / m:.2%}; "
                              f"upper {TARGET_CHANGED_Z:g}-SE bound {upper:.2%} < threshold "
                              f"{MIN_TARGET_CHANGED:.0%}) and on {tally.moved[t]} of its {n} "
                              "intervened rows: the intervention is null (the handler "
                              "reproduces the natural value); pick a handler or value that "
                              "moves it", loc, (t,), k / m, MIN_TARGET_CHANGED)
        below = closure[index[t]]
        if (below.any() and share > 0 and not tally.propagated[t]
                and not pilot_propagates(ctx, t)):
            desc = sorted(v for v, i in index.items() if below[i])
            yield make_result("intervention_effect", "fail", f"no descendant of {t!r} "
                              f"({', '.join(desc)}) changed on its {n} intervened rows nor on "
                              f"a pilot of {propagation_pilot_rows(ctx)} rows all intervened "
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
