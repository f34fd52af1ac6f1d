"""Gates on the released protocol: masks and splits agree, a selection keeps sane rows.

``mask_consistency`` checks the sampled arrays with the writer's own typing rule
(:func:`scmspec.samplers.scm.typed_column`), without building DataFrames; the dtype question of
every discrete column of every replicate and split is answered on one stacked
matrix. ``selection_rate`` reads the acceptance the sampler recorded.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from scmspec.samplers.scm import typed_column
from scmspec.validators.base import GATES, GateContext, GateResult, make_result
from scmspec.validators.thresholds import SELECTION_FAIL, SELECTION_NOOP, SELECTION_WARN

Array = np.ndarray


def _discrete_columns(ctx: GateContext) -> list[str]:
    spec = ctx.compiled.card.variables
    return ctx.cached("discrete_columns", lambda: [
        v for v in ctx.compiled.plan.columns if spec[v].kind != "continuous"])


def _written_dtypes(columns: dict[str, Array], names: list[str]) -> list[np.dtype]:
    """The dtype the writer gives each discrete column (``typed_column``'s rule, samplers.scm).

    int64 when every value is a finite integer, else the column's own dtype.
    """
    return _written_dtypes_all([columns], names)[0]


def _written_dtypes_all(splits: list[dict[str, Array]], names: list[str]
                        ) -> list[list[np.dtype]]:
    """``_written_dtypes`` of several splits, decided on one stacked matrix when all fit."""
    cols = [c[v] for c in splits for v in names]
    if not cols:
        return [[] for _ in splits]
    if all(c.dtype == np.float64 and c.shape == cols[0].shape for c in cols):
        m = np.stack(cols)
        integral = (np.isfinite(m).all(axis=1) & (m == np.round(m)).all(axis=1)).tolist()
        flat = [np.dtype(np.int64) if i else np.dtype(np.float64) for i in integral]
    else:
        flat = [typed_column(c, "discrete").dtype for c in cols]
    k = len(names)
    return [flat[i * k:(i + 1) * k] for i in range(len(splits))]


def _dtype_pairs(ctx: GateContext) -> list[dict[str, tuple[np.dtype, np.dtype]]]:
    """Per replicate, discrete column -> (written dtype in obs, in obs+int), both present."""
    reps, discrete = ctx.replicates, _discrete_columns(ctx)
    obs = [rep.obs.columns for rep in reps]
    both = [rep.obsint.columns for rep in reps]
    if all(v in o and v in i for o, i in zip(obs, both) for v in discrete):
        typed = _written_dtypes_all(obs + both, discrete)  # one stacked matrix for all
        a, b = typed[:len(obs)], typed[len(obs):]
        return [dict(zip(discrete, zip(x, y))) for x, y in zip(a, b)]
    out = []
    for o, i in zip(obs, both):
        names = [v for v in discrete if v in o and v in i]
        out.append(dict(zip(names, zip(_written_dtypes(o, names), _written_dtypes(i, names)))))
    return out


def _mask_problems(ctx: GateContext, r: int,
                   dtypes: dict[str, tuple[np.dtype, np.dtype]] | None = None
                   ) -> Iterator[tuple[str, tuple[str, ...]]]:
    """(message, variables) for every way replicate r's splits and mask could disagree.

    Works on the sampled arrays with the writer's own typing rule
    (:func:`scmspec.samplers.scm.typed_column`), without building the DataFrames: the mask the
    writer emits is the assignment matrix restricted to observed targets.
    """
    plan, rep, proto = ctx.compiled.plan, ctx.replicates[r], ctx.protocol
    obs, both = rep.obs.columns, rep.obsint.columns
    wanted = set(plan.columns)
    absent = (wanted - obs.keys()) | (wanted - both.keys())
    problems = {v: f"{v!r} is missing from the obs or obs+int split" for v in absent}
    if dtypes is None:
        dtypes = _dtype_pairs(ctx)[r]
    for v, (a, b) in dtypes.items():  # discrete columns (continuous: always float64)
        if a != b:
            problems[v] = (f"{v!r} is {a} in obs but {b} in obs+int (a discrete value that is "
                           "not an integer code?)")
    if problems:
        for v in plan.columns:  # in column order
            if v in problems:
                yield problems[v], (v,)
    s = rep.obsint
    if s.assigned.shape != (s.n, len(s.targets)) or tuple(s.targets) != tuple(plan.targets):
        yield "the intervention assignment does not match the target pool", ()
        return
    per_row = ctx.assignment_counts(r)[0]
    if not ((per_row == 0) | (per_row == plan.per_row)).all():
        yield f"some rows have a number of targets other than 0 or per_row = {plan.per_row}", ()
    # Every intervened row has a target; when all targets are observed (latent ones are
    # reported by the caller), each such row therefore has an observed target to mask.
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
    dtypes = _dtype_pairs(ctx)
    for r in range(len(ctx.replicates)):
        for message, variables in _mask_problems(ctx, r, dtypes[r]):
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
