"""Gates on the sampled data of one card: values, spread, dominance, boundaries, copies.

Every gate here is vectorised over variables: the observational split of all
replicates is stacked once into a (d, n) matrix, one row per variable
(``GateContext.observed_obs``), and statistics are taken along axis 1, so a
50-variable card costs a handful of numpy calls, not a Python loop over rows or
pairs. What several gates need (moments, adjacent-repeat counts, the correlation
matrix, the natural-row masks) is computed once and cached on the context; Python
loops over variables run only for the few that a vectorised test flags. Each
detail states the sample size it was computed on.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import sympy as sp

from scmspec.samplers.numpy_sampler import run_pass
from scmspec.samplers.streams import Streams
from scmspec.validators.base import GATES, GateContext, GateResult, Status, make_result
from scmspec.validators.mechanisms import copied_parent, top_level_clip
from scmspec.validators.pilot import fisher, pilot_columns, share_of
from scmspec.validators.tail_sample import tail_pilot
from scmspec.validators.thresholds import (
    BOUNDARY_MASS,
    CATEGORY_DOMINANCE,
    CONFIDENCE_Z,
    DISCRETE_MIN_ROWS,
    DISCRETE_VALUED_LEVELS,
    NEAR_CONSTANT_MODE_SHARE,
    NEAR_CONSTANT_REL_SD,
    NEAR_COPY_SEMANTIC,
    NEAR_COPY_SYNTHETIC,
    RANGE_SLACK,
    TAIL_BLOCK_SHARE,
    TAIL_NOISE_ROWS,
    TAIL_PILOT_ROWS,
    TAIL_PROOF_RATE,
    TAIL_RATE,
)

Array = np.ndarray


def _nonfinite_counts(columns: dict[str, Array]) -> dict[str, int]:
    """Count NaN/inf per column; zero counts omitted.

    A sum is finite only when every summand is: columns that are rows of one
    sampled block (how the sampler returns them) are cleared by one sum over the
    block, any other column by its own sum; only a non-finite sum leads to counting.
    """
    bases = {id(b): b for b in [c.base for c in columns.values()]}
    with np.errstate(over="ignore", invalid="ignore"):
        clear = {key for key, b in bases.items() if isinstance(b, np.ndarray) and b.ndim == 2
                 and b.dtype.kind == "f" and np.isfinite(b.sum())}
        if len(clear) == len(bases):
            return {}
        bad = {}
        for name, col in columns.items():
            if id(col.base) in clear or (col.dtype.kind == "f" and np.isfinite(col.sum())):
                continue
            k = int(col.size - np.count_nonzero(np.isfinite(col)))
            if k:
                bad[name] = k
    return bad


@GATES.register("finite")
def finite(ctx: GateContext) -> Iterator[GateResult]:
    """No NaN or infinity in any generated column (latent included, both splits)."""
    bad: dict[str, int] = {}
    total = 0
    for rep in ctx.replicates:
        for sample in (rep.obs, rep.obsint):
            total += sample.n
            for name, k in _nonfinite_counts(sample.columns).items():
                bad[name] = bad.get(name, 0) + k
    if not bad:
        yield make_result("finite", "pass", f"every generated value is finite ({total} rows)")
        return
    for name, k in sorted(bad.items()):
        yield make_result("finite", "fail", f"{name!r} has {k} NaN/inf values in {total} rows "
                          "(threshold: 0); guard its equation (e.g. log of a non-positive "
                          "value, division by zero) or narrow its parents' ranges",
                          ctx.where("variables", name, "equation"), (name,), k, 0)


def _clean_rows(ctx: GateContext) -> list[Array | None]:
    """Per replicate, the obs+int rows no intervention touched (None: all of them)."""
    def compute() -> list[Array | None]:
        out: list[Array | None] = []
        for rep in ctx.replicates:
            s = rep.obsint
            out.append(np.logical_not(s.assigned.any(axis=1)) if s.assigned.size else None)
        return out

    return ctx.cached("clean_rows", compute)


def natural_rows(ctx: GateContext, name: str) -> Array:
    """A variable's values on rows no intervention touched: obs, and obs+int's obs rows."""
    return natural_matrix(ctx, [name])[0]


def natural_matrix(ctx: GateContext, names: list[str]) -> Array:
    """(len(names), rows) values on natural rows: obs, and obs+int's obs rows, per replicate."""
    parts = []
    for rep, clean in zip(ctx.replicates, _clean_rows(ctx)):
        parts.append(np.stack([rep.obs.columns[v] for v in names]))
        both = np.stack([rep.obsint.columns[v] for v in names])
        parts.append(both if clean is None else both[:, clean])
    return np.concatenate(parts, axis=1) if parts else np.zeros((len(names), 0))


def numeric_equation(ctx: GateContext, name: str) -> sp.Basic:
    """A variable's equation with the card's constants replaced by their values."""
    values = ctx.cached("constant_values", lambda: {
        sp.Symbol(k, real=True): sp.Float(c.value)
        for k, c in ctx.compiled.card.constants.items()})
    expr = ctx.compiled.resolved.equations[name]
    return expr.xreplace(values) if values else expr  # xreplace walks even an empty rule


Ranged = list[tuple[str, tuple[float, float]]]


def _limits(ranged: Ranged) -> tuple[Array, Array]:
    """(low, high) per ranged variable, widened by the relative slack RANGE_SLACK."""
    lo = np.array([float(r[0]) for _, r in ranged])
    hi = np.array([float(r[1]) for _, r in ranged])
    slack = RANGE_SLACK * np.maximum(1.0, np.maximum(np.abs(lo), np.abs(hi)))
    return lo - slack, hi + slack


def _outside(x: Array, ranged: Ranged, limits: tuple[Array, Array] | None = None) -> Array:
    """(variables, rows) bool: beyond the declared bounds by more than RANGE_SLACK."""
    lo, hi = limits if limits is not None else _limits(ranged)
    out: Array = (x < lo[:, None]) | (x > hi[:, None])
    return out


def _table_rows(columns: dict[str, Array], names: list[str]) -> tuple[Array, Array] | None:
    """(table, row of each name) when the columns are rows of one sampled table, else None.

    The sampler writes variable i of its columns (plan order) to row i of one
    (variables, rows) table; reading the table directly saves a stack per call.
    """
    cols = [columns[v] for v in names]
    base = cols[0].base if cols else None
    if not (isinstance(base, np.ndarray) and base.ndim == 2 and base.dtype == np.float64
            and base.shape[0] == len(columns) and all(c.base is base for c in cols)):
        return None
    position = {k: i for i, k in enumerate(columns)}
    idx = np.array([position[v] for v in names], dtype=np.intp)
    for j in {0, len(cols) - 1}:
        if (base[idx[j]].__array_interface__["data"][0]
                != cols[j].__array_interface__["data"][0]):
            return None
    return base, idx


def _extremes(columns: dict[str, Array], names: list[str]) -> tuple[Array, Array]:
    """Per name, (min, max) of its column (NaN propagates): one reduction over the table."""
    found = _table_rows(columns, names)
    if found is not None:
        base, idx = found
        return base.min(axis=1)[idx], base.max(axis=1)[idx]
    cols = [columns[v] for v in names]
    return (np.array([c.min() if c.size else np.inf for c in cols]),
            np.array([c.max() if c.size else -np.inf for c in cols]))


def _leaving(ctx: GateContext, ranged: Ranged) -> tuple[Array, Array]:
    """(obs, obs+int) bool per ranged variable: some row of the split (any replicate),
    intervened rows included, is outside the range or NaN. Cached.

    The obs split's extremes are the context's shared ``observed_extremes`` (when every
    ranged variable is observed); each other split's one min and one max over its
    sampled table (the ranged rows located once: every split has the plan's order).
    """
    def compute() -> tuple[Array, Array]:
        names = [v for v, _ in ranged]
        lo, hi = _limits(ranged)
        flags = [np.zeros(len(ranged), dtype=bool), np.zeros(len(ranged), dtype=bool)]
        rows: Array | None = None
        observed = {v: i for i, v in enumerate(ctx.observed_obs[0])}
        shared = all(v in observed for v in names)  # the obs split: the shared extremes
        with np.errstate(invalid="ignore"):
            if shared:
                at = np.array([observed[v] for v in names], dtype=np.intp)
                low, high = ctx.observed_extremes
                flags[0] |= ~((low[at] >= lo) & (high[at] <= hi))
            for rep in ctx.replicates:
                for sample in (rep.obsint,) if shared else (rep.obs, rep.obsint):
                    k = 1 if sample is rep.obsint else 0
                    base = next(iter(sample.columns.values())).base
                    if rows is None or not _same_table(sample.columns, names, base, rows):
                        found = _table_rows(sample.columns, names)
                        rows = None if found is None else found[1]
                    if rows is not None and isinstance(base, np.ndarray):
                        low, high = base.min(axis=1)[rows], base.max(axis=1)[rows]
                    else:
                        low, high = _extremes(sample.columns, names)
                    flags[k] |= ~((low >= lo) & (high <= hi))
        return flags[0], flags[1]

    return ctx.cached("ranges_leaving", compute)


def _same_table(columns: dict[str, Array], names: list[str], base: object, rows: Array) -> bool:
    """Whether the first and last ranged columns are still rows ``rows`` of ``base``."""
    if not isinstance(base, np.ndarray) or base.ndim != 2 or any(
            columns[v].base is not base for v in names):
        return False
    for j in {0, len(names) - 1}:
        col = columns[names[j]]
        if col.base is not base or (base[rows[j]].__array_interface__["data"][0]
                                    != col.__array_interface__["data"][0]):
            return False
    return True


def _natural_outside(ctx: GateContext, ranged: Ranged) -> Array:
    """Per ranged variable, natural values outside its range (slack RANGE_SLACK).

    Each split's extremes come from one reduction over its sampled table; only a
    variable whose extremes leave the range (on any row, intervened rows included, or
    NaN) is counted exactly on its natural rows.
    """
    outside = np.zeros(len(ranged), dtype=np.intp)
    if not ranged or not ctx.replicates:
        return outside
    names = [v for v, _ in ranged]
    obs, obsint = _leaving(ctx, ranged)
    for j in np.flatnonzero(obs | obsint):
        x = natural_rows(ctx, names[j])[None, :]
        outside[j] = int(np.count_nonzero(_outside(x, [ranged[j]])))
    return outside


def _intervened_out_of_range(ctx: GateContext, ranged: Ranged) -> Iterator[GateResult]:
    """Ranged variables that leave their range on intervened rows (all replicates).

    A handler that sets a value outside the range, or descendants recomputed
    into impossible values (a negative mass, a humidity over 100%), make the
    interventional data unphysical even when every natural row is fine.
    """
    if not ranged or not ctx.replicates:
        return
    ranged = [r for r, flag in zip(ranged, _leaving(ctx, ranged)[1]) if flag]
    if not ranged:  # no row of obs+int outside: no intervened row either
        return
    count, rows = np.zeros(len(ranged), dtype=np.intp), 0
    low, high = np.full(len(ranged), np.inf), np.full(len(ranged), -np.inf)
    blamed: list[set[str]] = [set() for _ in ranged]
    limits, names = _limits(ranged), [v for v, _ in ranged]
    for rep in ctx.replicates:
        s = rep.obsint
        hit = np.flatnonzero(s.assigned.any(axis=1))
        if not hit.size:
            continue
        found = _table_rows(s.columns, names)
        x = (found[0][np.ix_(found[1], hit)] if found is not None
             else np.stack([s.columns[v][hit] for v in names]))
        out = _outside(x, ranged, limits)
        rows += hit.size
        if not out.any():
            continue
        count += np.count_nonzero(out, axis=1)
        low, high = np.fmin(low, np.nanmin(x, axis=1)), np.fmax(high, np.nanmax(x, axis=1))
        for j in np.flatnonzero(out.any(axis=1)):
            on = s.assigned[hit[out[j]]].any(axis=0)
            blamed[j].update(t for t, b in zip(s.targets, on.tolist()) if b)
    for j in np.flatnonzero(count):
        name, (lo_j, hi_j) = ranged[j]
        targets = ", ".join(sorted(blamed[j]))
        yield make_result("ranges", "fail", f"{name!r} leaves its declared range [{lo_j:g}, "
                          f"{hi_j:g}] on {int(count[j])} of {rows} intervened rows (min "
                          f"{low[j]:.4g}, max {high[j]:.4g} there; targets of those rows: "
                          f"{targets}; threshold: 0 outside): the intervention drives it out "
                          "of its physical range; narrow that handler's value, or widen the "
                          "range if such values are real", ctx.where("variables", name, "range"),
                          (name, *sorted(blamed[j])), int(count[j]), 0)


def equation_clip(ctx: GateContext, name: str) -> tuple[float | None, float | None]:
    """The (floor, cap) a variable's equation imposes with an outermost min/max/clip, once."""
    spec = ctx.compiled.card.variables[name]
    if spec.equation is None or name not in ctx.compiled.resolved.equations:
        return None, None
    return ctx.cached(f"clip:{name}", lambda: top_level_clip(numeric_equation(ctx, name)))


def _clip_binding(ctx: GateContext) -> list[tuple[str, float, str, float]]:
    """(variable, bound, 'floor'|'cap', share of natural rows where it binds), noise-free only.

    With no noise after it the outermost clip binds exactly where the value equals
    its bound, so the share is one comparison per clipped variable.
    """
    card = ctx.compiled.card
    out: list[tuple[str, float, str, float]] = []
    clipped = [(v, equation_clip(ctx, v)) for v, spec in card.variables.items()
               if spec.equation is not None and spec.noise.kind == "none"]
    clipped = [(v, c) for v, c in clipped if c != (None, None)]
    if not clipped or not ctx.replicates:
        return out
    x = natural_matrix(ctx, [v for v, _ in clipped])
    for row, (v, (lo, hi)) in zip(x, clipped):
        for bound, what in ((lo, "floor"), (hi, "cap")):
            if bound is not None:
                out.append((v, bound, what, float(np.count_nonzero(row == bound)
                                                  / max(row.size, 1))))
    return out


def _tail(ctx: GateContext, ranged: Ranged, released_bad: set[str]) -> Iterator[GateResult]:
    """Ranged variables whose share of natural rows outside the range is not ~0 (tail check).

    The share is proved below TAIL_PROOF_RATE, exact (a root), averaged from the noise
    law on sampled parents, or counted on sampled rows (``tail_sample.tail_pilot``). It blocks
    from TAIL_BLOCK_SHARE; an exact or averaged share from TAIL_PROOF_RATE warns (a
    counted one does not: 1-4 rows of 1.5M do not tell a share from a smaller one); a
    variable already failing on the released rows is not reported again.
    """
    pilot = tail_pilot(ctx, ranged)
    for j, (name, (lo_j, hi_j)) in enumerate(ranged):
        share, how = float(pilot.share[j]), pilot.method[j]
        if how in ("proved", "skipped") or share < TAIL_PROOF_RATE or name in released_bad:
            continue  # below the proof rate: as good as proved
        lo_x, hi_x = float(pilot.low[j]), float(pilot.high[j])
        extreme = lo_x if lo_x < lo_j else hi_x
        n = int(pilot.rows[j])
        source = {
            "exact": "exact, from its distribution's quantiles; value at quantile "
                     f"{TAIL_PROOF_RATE:g}: {extreme:.6g}",
            "noise": f"the mean over {n} pilot rows of the probability that its noise puts "
                     f"it outside given its sampled parents, se {float(pilot.se[j]):.2g}; "
                     f"extreme value seen {extreme:.6g}",
            "rows": f"{round(share * n)} of {n} pilot rows outside; extreme value "
                    f"{extreme:.6g}",
        }[how]
        status: Status = "fail" if share >= TAIL_BLOCK_SHARE else "warn"
        if status == "warn" and how == "rows":
            continue  # 1-4 rows of 1.5M: Poisson noise around a smaller share, not a finding
        yield make_result("ranges", status, f"{name!r} leaves its declared range [{lo_j:g}, "
                          f"{hi_j:g}] on a share {share:.2g} of natural rows ({source}; "
                          f"blocks from {TAIL_BLOCK_SHARE:g}); the released rows miss it, a "
                          "pool of datasets will not: fix the equation or distribution so "
                          "the tails stay physical, or declare the range the model implies",
                          ctx.where("variables", name, "range"), (name,), share, 0)


def _tail_summary(ctx: GateContext, ranged: Ranged) -> str:
    """How the tail check settled the ranges, for the pass detail."""
    tail = tail_pilot(ctx, ranged)
    if tail.skipped or not ranged:
        return ""
    counts = {m: tail.method.count(m) for m in ("proved", "exact", "noise", "rows")}
    parts = [f"{counts['proved']} proved by interval bounds (share < {TAIL_PROOF_RATE:g})",
             f"{counts['exact']} roots exact"]
    if counts["noise"]:
        parts.append(f"{counts['noise']} from their noise law on {TAIL_NOISE_ROWS} pilot rows")
    if counts["rows"]:
        deeper = [(v, int(n)) for v, m, n in zip(tail.names, tail.method, tail.rows)
                  if m == "rows" and n > TAIL_PILOT_ROWS]
        shown = ", ".join(f"{v!r} on {n}" for v, n in deeper)
        parts.append(f"{counts['rows']} counted on {TAIL_PILOT_ROWS} pilot rows"
                     + (f" ({len(deeper)} counted further, a row outside or a near miss "
                        f"on the first rows: {shown})" if deeper else ""))
    return f"; tail check ({TAIL_RATE:g} of rows must block): " + ", ".join(parts)


@GATES.register("ranges")
def ranges(ctx: GateContext) -> Iterator[GateResult]:
    """Values stay in declared ranges (released rows and the tail pilot); clips reported.

    All ranged variables are compared at once, one (variables, rows) matrix of
    natural rows against their bounds; then the tail pilot (``tail_sample.tail_pilot``).
    Floors and caps an equation imposes are mechanisms, reported with the share of
    rows on which they bind; in a formula card a formula-role output clipped to a
    range bound that binds fails (formula outputs are never clipped to pass a range).
    """
    card = ctx.compiled.card
    ranged = [(v, spec.range) for v, spec in card.variables.items() if spec.range is not None]
    outside = _natural_outside(ctx, ranged)
    ok = True
    bad: set[str] = set()
    for res in _intervened_out_of_range(ctx, ranged):
        ok = False
        yield res
    for j, (name, (lo_j, hi_j)) in enumerate(ranged):
        k = int(outside[j])
        if k:
            ok = False
            bad.add(name)
            xj = natural_rows(ctx, name)
            yield make_result("ranges", "fail", f"{name!r} has {k} of {xj.size} values outside "
                              f"its declared range [{lo_j:g}, {hi_j:g}] (observed min "
                              f"{np.nanmin(xj):.4g}, max {np.nanmax(xj):.4g}; threshold: 0 "
                              "outside); fix the "
                              "equation or distribution, or declare the range the model implies",
                              ctx.where("variables", name, "range"), (name,), k, 0)
    if ctx.replicates:
        for res in _tail(ctx, ranged, bad):
            ok = False
            yield res
    binding = _clip_binding(ctx)
    reported: set[str] = set()
    for v, bound, what, share in sorted(binding, key=lambda b: -b[3]):
        spec = card.variables[v]
        pinned = spec.range is not None and bound in (float(spec.range[0]), float(spec.range[1]))
        formula = card.family == "formula" and spec.role == "formula"
        if formula and pinned and share > 0 and spec.boundary is None and v not in reported:
            ok = False
            reported.add(v)
            yield make_result("ranges", "fail", f"{v!r} is a formula output clipped to stay in "
                              f"its declared range: its {what} at {bound:g} binds on "
                              f"{share:.1%} of natural rows (threshold: a formula output is "
                              "never clipped merely to pass a range check); fix the formula "
                              "or its inputs' ranges so it meets the range unclipped, or "
                              "declare `boundary:` if saturation is the real mechanism",
                              ctx.where("variables", v, "equation"), (v,), share, 0)
    if ok:
        where = _tail_summary(ctx, ranged) if ctx.replicates else ""
        clips = "; ".join(f"{v} {what} {b:g} " + (f"binds on {sh:.1%}" if sh else "never binds")
                          for v, b, what, sh in binding)
        yield make_result("ranges", "pass" if ranged or binding else "skip",
                          (f"{len(ranged)} declared ranges hold on every natural and every "
                           f"intervened row{where}" if ranged else "no variable declares a range")
                          + (f"; equation clips (mechanisms): {clips}" if clips else ""))


def _dominant(x: Array, share: float, rows: list[int] | None = None,
              repeats: Array | None = None) -> Array:
    """Variables (rows of x) where one exact value covers more than ``share`` of the rows.

    Prefilter in one O(n d) pass: if a value covers more than ``share`` of the rows,
    each other row breaks at most two neighbouring pairs, so at least
    1 - 2 (1 - share) of adjacent pairs are equal. Only columns passing it are
    sorted for the exact test. ``repeats`` (equal adjacent pairs per row of x, see
    ``GateContext.observed_repeats``) skips the pass when already counted.
    """
    rows = list(range(x.shape[0])) if rows is None else rows
    n = x.shape[1]
    k = int(np.floor(share * n)) + 1  # rows the dominant value must cover
    if n == 0 or k > n or not rows:
        return np.zeros(len(rows), dtype=bool)
    if n > 1:
        if repeats is None:
            repeats = np.count_nonzero(x[:, 1:] == x[:, :-1], axis=1)
        flags = repeats[rows] >= (n - 1) - 2 * (n - k)
    else:
        flags = np.ones(len(rows), dtype=bool)
    flags = np.asarray(flags, dtype=bool)
    for j in np.flatnonzero(flags):
        s = np.sort(x[rows[j]])
        flags[j] = bool(np.any(s[: n - k + 1] == s[k - 1:]))
    return flags


def _mode(col: Array) -> tuple[float, float]:
    values, counts = np.unique(col, return_counts=True)
    i = int(np.argmax(counts))
    return float(values[i]), counts[i] / col.size


def _rows_of_kind(ctx: GateContext, continuous: bool) -> list[int]:
    """Indices (rows of ``observed_obs``) of the continuous or of the discrete variables.

    Policy knobs (``value:``) are left out: their observational column is constant by
    design (one fixed setting), which is no failure of nonconstant, dominance or boundary.
    """
    rows = ctx.observed_kinds[0 if continuous else 1]
    spec = ctx.compiled.card.variables
    names = ctx.observed_obs[0]
    if not any(spec[names[i]].value is not None for i in rows):
        return rows
    return [i for i in rows if spec[names[i]].value is None]


def _dominant_rows(ctx: GateContext, share: float, rows: list[int]) -> Array:
    """``_dominant`` on the selected rows, without copying the data matrix."""
    _, x = ctx.observed_obs
    return _dominant(x, share, rows, ctx.observed_repeats)


@GATES.register("nonconstant")
def nonconstant(ctx: GateContext) -> Iterator[GateResult]:
    """No constant or near-constant continuous observed column."""
    all_names, x = ctx.observed_obs
    rows = _rows_of_kind(ctx, continuous=True)
    names, n = [all_names[i] for i in rows], x.shape[1]
    mean, sd = ctx.observed_moments
    with np.errstate(invalid="ignore"):
        rel_sd = sd[rows] / np.maximum(np.abs(mean[rows]), 1.0)
    flat = (rel_sd < NEAR_CONSTANT_REL_SD) | _dominant_rows(ctx, NEAR_CONSTANT_MODE_SHARE, rows)
    for j in np.flatnonzero(flat):
        v = names[j]
        value, share = _mode(x[rows[j]])
        yield make_result("nonconstant", "fail", f"{v!r} is (near) constant: relative sd "
                          f"{rel_sd[j]:.2g} (threshold {NEAR_CONSTANT_REL_SD:g}), {share:.1%} of "
                          f"{n} rows equal {value:.6g} (threshold {NEAR_CONSTANT_MODE_SHARE:.0%});"
                          " give it a mechanism that varies, or make it a constant",
                          ctx.where("variables", v), (v,), share, NEAR_CONSTANT_MODE_SHARE)
    if not flat.any():
        yield make_result("nonconstant", "pass" if names and n else "skip",
                          f"{len(names)} continuous columns vary (n = {n})" if names and n
                          else "no observed continuous variable, or no sampled data")


@GATES.register("category_dominance")
def category_dominance(ctx: GateContext) -> Iterator[GateResult]:
    """No discrete variable with one level over 99% of rows (unless a justified rare event)."""
    all_names, x = ctx.observed_obs
    rows = _rows_of_kind(ctx, continuous=False)
    names, n = [all_names[i] for i in rows], x.shape[1]
    flags = _dominant_rows(ctx, CATEGORY_DOMINANCE, rows)
    margin = []
    for j in np.flatnonzero(flags):
        v = names[j]
        value, share = _mode(x[rows[j]])
        found = share_of(ctx, v, value, share, n, CATEGORY_DOMINANCE)
        share, lower = found.share, found.lower
        where = f"a pilot of {found.rows} rows" if found.on_pilot else f"{n} released rows"
        if not found.past:
            margin.append(f"{v} {share:.2%} on {where} (lower bound {lower:.2%})")
            flags[j] = False
            continue
        by_code = {c: lv for lv, c in ctx.compiled.resolved.level_codes.get(v, {}).items()}
        label = repr(by_code[value]) if value in by_code else f"{value:g}"
        yield make_result("category_dominance", "fail", f"{v!r} takes level {label} on "
                          f"{share:.2%} of {where} (lower {CONFIDENCE_Z:g}-SE bound "
                          f"{lower:.2%} > threshold {CATEGORY_DOMINANCE:.0%}); "
                          "rebalance its mechanism, or justify a rare event in "
                          "justifications.category_dominance", ctx.where("variables", v),
                          (v,), share, CATEGORY_DOMINANCE)
    if not flags.any():
        note = ("; within the margin (not judged past the threshold): " + ", ".join(margin)
                if margin else "")
        yield make_result("category_dominance", "pass" if names and n else "skip",
                          f"{len(names)} discrete columns: no level over "
                          f"{CATEGORY_DOMINANCE:.0%} beyond its {CONFIDENCE_Z:g}-SE bound "
                          f"(n = {n}){note}" if names and n
                          else "no observed discrete variable, or no sampled data")


def _discrete_valued(col: Array) -> bool:
    """At most DISCRETE_VALUED_LEVELS distinct values over enough rows: discrete by construction."""
    return col.size >= DISCRETE_MIN_ROWS and np.unique(col).size <= DISCRETE_VALUED_LEVELS


@GATES.register("boundary_mass")
def boundary_mass(ctx: GateContext) -> Iterator[GateResult]:
    """At most 10% of a continuous variable exactly at a declared bound or an equation clip.

    The boundaries are the declared range bounds and the floors and caps an equation
    imposes (outermost min/max/clip); observed minima and maxima are not. A share
    fails when its Wilson lower bound (``CONFIDENCE_Z`` SE) is over 10%. Columns
    with few distinct values (a lookup, a schedule) are discrete-valued: exempt and
    named; a declared ``boundary:`` justifies a real plateau.
    """
    all_names, x = ctx.observed_obs
    rows = _rows_of_kind(ctx, continuous=True)
    spec = ctx.compiled.card.variables
    n, ok = x.shape[1], True
    if n == 0 or not rows:
        yield make_result("boundary_mass", "skip", "no observed continuous variable")
        return
    exempt, declared, margin, judged = [], [], [], 0
    lowest, highest = ctx.observed_extremes
    for i, lo_i, hi_i in zip(rows, lowest[rows].tolist(), highest[rows].tolist()):
        v = all_names[i]
        bounds = {float(b) for b in spec[v].range or ()}
        bounds |= {b for b in equation_clip(ctx, v) if b is not None}
        if not bounds:
            continue
        judged += 1
        if lo_i == lo_i and not any(lo_i <= b <= hi_i for b in bounds):
            continue  # no value sits at a bound (NaN extremes: count anyway)
        col = x[i]
        b, mass = max(((b, float(np.count_nonzero(col == b)) / n) for b in sorted(bounds)),
                      key=lambda kv: kv[1])
        if mass <= BOUNDARY_MASS or mass == 1.0:  # constant: reported by `nonconstant`
            continue
        if spec[v].boundary:
            declared.append(f"{v} {mass:.1%} at {b:g}")
            continue
        if _discrete_valued(col):
            exempt.append(f"{v} ({np.unique(col).size} values)")
            continue
        found = share_of(ctx, v, b, mass, n, BOUNDARY_MASS)
        mass, lower = found.share, found.lower
        where = f"{found.rows} pilot" if found.on_pilot else f"{n}"
        if not found.past:
            margin.append(f"{v} {mass:.1%} of {where} rows (lower bound {lower:.1%})")
            continue
        ok = False
        yield make_result("boundary_mass", "fail", f"{mass:.1%} of {where} values of {v!r} sit "
                          f"exactly at the boundary {b:.6g} (lower {CONFIDENCE_Z:g}-SE bound "
                          f"{lower:.1%} > threshold {BOUNDARY_MASS:.0%}); remove the clip or "
                          "floor that piles values there, or declare the real mechanism in "
                          f"`boundary:` of {v!r}", ctx.where("variables", v), (v,), mass,
                          BOUNDARY_MASS)
    if ok:
        notes = [f"declared boundaries: {', '.join(declared)}" if declared else "",
                 f"discrete-valued (exempt): {', '.join(exempt)}" if exempt else "",
                 f"within the margin: {', '.join(margin)}" if margin else ""]
        note = "".join(f"; {t}" for t in notes if t)
        yield make_result("boundary_mass", "pass", f"{judged} continuous columns with a "
                          f"declared bound or equation clip: at most {BOUNDARY_MASS:.0%} at "
                          f"any of them (n = {n}){note}")


def _copied(ctx: GateContext, y: str) -> tuple[str, str] | None:
    """``copied_parent`` of y's numeric equation, read once per context and variable."""
    resolved = ctx.compiled.resolved
    if y not in resolved.equations:
        return None
    return ctx.cached(f"copied:{y}", lambda: copied_parent(numeric_equation(ctx, y),
                                                           resolved.parents[y]))


def _copy_label(ctx: GateContext, a: str, b: str) -> str:
    """'b is an alias / unit conversion / tiny-noise copy of a' or 'a and b are near copies'."""
    for x, y in ((a, b), (b, a)):
        found = _copied(ctx, y)
        if found and found[0] == x:
            noisy = ctx.compiled.card.variables[y].noise.kind != "none"
            if noisy:
                return f"{y!r} is a tiny-noise copy of {x!r} (affine in it, plus noise)"
            return f"{y!r} is a{'n' if found[1] == 'alias' else ''} {found[1]} of {x!r}"
    return f"{a!r} and {b!r} are near copies"


def _strong_pairs(corr: np.ndarray, limit: float, block: int = 512
                  ) -> tuple[list[tuple[int, int]], float, tuple[int, int]]:
    """Pairs (i < j) with |corr| >= limit, the largest |corr| off the diagonal and its pair.

    Rows are scanned a block at a time so no (d, d) temporary is made (at d = 10,000 a
    full |corr| and its mask would cost another 900 MB).

    Example:
        >>> c = np.array([[1.0, 0.95, 0.1], [0.95, 1.0, 0.2], [0.1, 0.2, 1.0]])
        >>> _strong_pairs(c, 0.9, block=1)
        ([(0, 1)], 0.95, (0, 1))
    """
    hits: list[tuple[int, int]] = []
    top, where = 0.0, (0, 1)
    d = corr.shape[0]
    cols = np.arange(d)
    for a in range(0, d - 1, block):
        rows = np.nan_to_num(np.abs(corr[a:a + block]), nan=0.0)
        rows[cols[None, :] <= a + np.arange(len(rows))[:, None]] = 0.0  # keep j > i only
        i, j = np.unravel_index(int(np.argmax(rows)), rows.shape)
        if rows[i, j] > top:
            top, where = float(rows[i, j]), (a + int(i), int(j))
        hits.extend((a + int(i), int(j)) for i, j in np.argwhere(rows >= limit))
    return hits, top, where


def _unselected_corr(ctx: GateContext, pairs: list[tuple[str, str]]) -> dict[tuple[str, str],
                                                                              float]:
    """Correlation of each pair before the card's selection (a fresh pass of n_obs rows)."""
    plan = ctx.compiled.plan
    if plan.selection is None or ctx.protocol is None or not pairs:
        return {}
    n = max(ctx.protocol.n_obs * max(len(ctx.replicates), 1), 3)
    cols = run_pass(replace(plan, selection=None, targets=()), n,
                    Streams(ctx.protocol.seed, ctx.card_id, "gate-preselection", 0))
    with np.errstate(invalid="ignore", divide="ignore"):
        return {(a, b): float(np.corrcoef(cols[a], cols[b])[0, 1]) for a, b in pairs}


@GATES.register("near_copy")
def near_copy(ctx: GateContext) -> Iterator[GateResult]:
    """No pair of observed variables with |corr| at or above the family's threshold.

    Decided on the released (post-selection) rows: a pair fails when the lower Fisher-z
    bound (``CONFIDENCE_Z`` SE) of |corr| reaches the threshold. Cards with a selection
    also report the correlation before selection.
    """
    names, x = ctx.observed_obs
    n = x.shape[1]
    limit = NEAR_COPY_SYNTHETIC if ctx.compiled.card.family == "synthetic" else NEAR_COPY_SEMANTIC
    varying, corr = ctx.observed_corr
    if varying.size < 2:
        yield make_result("near_copy", "skip", "fewer than two varying observed columns")
        return
    hits, top, (ti, tj) = _strong_pairs(corr, limit)
    # a pair just under the limit may still be within the margin: look at those too
    margin_at = float(np.tanh(max(np.arctanh(min(limit, 1 - 1e-15))
                                  - 2 * CONFIDENCE_Z / np.sqrt(max(n - 3, 1)), 0.0)))
    near, _, _ = _strong_pairs(corr, margin_at)
    pre = _unselected_corr(ctx, [(names[varying[i]], names[varying[j]]) for i, j in near])
    margin, failed = [], 0
    lows, highs = fisher(np.array([corr[i, j] for i, j in near]), n)
    straddle = {names[varying[k]] for (i, j), lo, hi in zip(near, lows, highs)
                if lo < limit <= hi for k in (i, j)}
    pilot = pilot_columns(ctx, sorted(straddle)) if straddle else None  # one pilot for all
    for i, j in near:
        a, b = names[varying[i]], names[varying[j]]
        r = float(corr[i, j])
        lower, upper = (float(q) for q in fisher(r, n))
        before = f", before selection {pre[(a, b)]:+.3f}" if (a, b) in pre else ""
        where = f"the released rows (n = {n})"
        if lower < limit <= upper:  # straddles the threshold: decide on the pilot
            if pilot is not None:
                with np.errstate(invalid="ignore", divide="ignore"):
                    r = float(np.corrcoef(pilot[a], pilot[b])[0, 1])
                m = pilot[a].size
                lower, upper = (float(q) for q in fisher(r, m))
                where = f"a pilot of {m} rows"
        if lower < limit:
            if upper >= limit:  # the decision could still go either way: say so
                margin.append(f"{a}~{b} {r:+.3f} on {where} (lower bound {lower:.3f}{before})")
            continue
        failed += 1
        yield make_result("near_copy", "fail", f"{_copy_label(ctx, a, b)}: corr {r:+.3f} on "
                          f"{where}{before}, |corr| >= {limit:.2f} (its lower "
                          f"{CONFIDENCE_Z:g}-SE bound is {lower:.3f}); drop one, give it its own "
                          "causes or real noise, or justify the pair in "
                          "justifications.near_copy", ctx.where("variables", b), (a, b), abs(r),
                          limit)
    if not failed:
        note = f"; within the margin: {', '.join(margin)}" if margin else ""
        below = f" < {limit:.2f}" if top < limit else ""
        pair = f" ({names[varying[ti]]} and {names[varying[tj]]})"
        yield make_result("near_copy", "pass", f"max |corr| {top:.3f}{pair}{below}; no pair's "
                          f"lower {CONFIDENCE_Z:g}-SE bound reaches {limit:.2f} over "
                          f"{varying.size} columns (n = {n}){note}",
                          statistic=top, threshold=limit)
