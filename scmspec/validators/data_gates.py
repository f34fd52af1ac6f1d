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

import numpy as np
import sympy as sp

from scmspec.validators.base import GATES, GateContext, GateResult, make_result
from scmspec.validators.mechanisms import copied_parent, top_level_clip
from scmspec.validators.thresholds import (
    BOUNDARY_MASS,
    CATEGORY_DOMINANCE,
    NEAR_CONSTANT_MODE_SHARE,
    NEAR_CONSTANT_REL_SD,
    NEAR_COPY_SEMANTIC,
    NEAR_COPY_SYNTHETIC,
    RANGE_SLACK,
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


def _outside(x: Array, ranged: Ranged) -> Array:
    """(variables, rows) bool: beyond the declared bounds by more than RANGE_SLACK."""
    lo = np.array([float(r[0]) for _, r in ranged])
    hi = np.array([float(r[1]) for _, r in ranged])
    slack = RANGE_SLACK * np.maximum(1.0, np.maximum(np.abs(lo), np.abs(hi)))
    out: Array = (x < (lo - slack)[:, None]) | (x > (hi + slack)[:, None])
    return out


def _intervened_out_of_range(ctx: GateContext, ranged: Ranged) -> Iterator[GateResult]:
    """Ranged variables that leave their range on intervened rows (all replicates).

    A handler that sets a value outside the range, or descendants recomputed
    into impossible values (a negative mass, a humidity over 100%), make the
    interventional data unphysical even when every natural row is fine.
    """
    if not ranged or not ctx.replicates:
        return
    count, rows = np.zeros(len(ranged), dtype=np.intp), 0
    low, high = np.full(len(ranged), np.inf), np.full(len(ranged), -np.inf)
    blamed: list[set[str]] = [set() for _ in ranged]
    for rep in ctx.replicates:
        s = rep.obsint
        hit = np.flatnonzero(s.assigned.any(axis=1))
        if not hit.size:
            continue
        x = np.stack([s.columns[v][hit] for v, _ in ranged])
        out = _outside(x, ranged)
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


@GATES.register("ranges")
def ranges(ctx: GateContext) -> Iterator[GateResult]:
    """Natural values stay in declared ranges; formula outputs are not clipped to get there.

    All ranged variables are compared at once, one (variables, rows) matrix of
    natural rows against their bounds.
    """
    card = ctx.compiled.card
    ranged = [(v, spec.range) for v, spec in card.variables.items() if spec.range is not None]
    outside = np.zeros(len(ranged), dtype=np.intp)
    if ranged and ctx.replicates:
        x = natural_matrix(ctx, [v for v, _ in ranged])
        outside = np.count_nonzero(_outside(x, ranged), axis=1)
    ok = True
    for bad in _intervened_out_of_range(ctx, ranged):
        ok = False
        yield bad
    for j, (name, (lo_j, hi_j)) in enumerate(ranged):
        spec = card.variables[name]
        k = int(outside[j])
        if k:
            ok = False
            xj = natural_rows(ctx, name)
            yield make_result("ranges", "fail", f"{name!r} has {k} of {xj.size} values outside "
                              f"its declared range [{lo_j:g}, {hi_j:g}] (observed min "
                              f"{np.nanmin(xj):.4g}, max {np.nanmax(xj):.4g}; threshold: 0 "
                              "outside); fix the "
                              "equation or distribution, or declare the range the model implies",
                              ctx.where("variables", name, "range"), (name,), k, 0)
        formula = spec.role == "formula" or card.family == "formula"
        if formula and spec.equation is not None and spec.boundary is None:
            clip_lo, clip_hi = top_level_clip(numeric_equation(ctx, name))
            pinned = [b for b in (clip_lo, clip_hi) if b is not None and b in (lo_j, hi_j)]
            if pinned:
                ok = False
                yield make_result("ranges", "fail", f"{name!r} clips its formula output to its "
                                  f"declared range bound {pinned[0]:g}; a formula must meet its "
                                  "range without clipping: fix the formula or its inputs, or "
                                  "declare `boundary:` if saturation is the real mechanism",
                                  ctx.where("variables", name, "equation"), (name,), pinned[0],
                                  pinned[0])
    if ok:
        yield make_result("ranges", "pass" if ranged else "skip",
                          f"{len(ranged)} declared ranges hold on every natural and every "
                          "intervened row" if ranged
                          else "no variable declares a range")


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
    for j in np.flatnonzero(flags):
        v = names[j]
        value, share = _mode(x[rows[j]])
        by_code = {c: lv for lv, c in ctx.compiled.resolved.level_codes.get(v, {}).items()}
        label = repr(by_code[value]) if value in by_code else f"{value:g}"
        yield make_result("category_dominance", "fail", f"{v!r} takes level {label} on "
                          f"{share:.1%} of {n} rows (threshold {CATEGORY_DOMINANCE:.0%}); "
                          "rebalance its mechanism, or justify a rare event in "
                          "justifications.category_dominance", ctx.where("variables", v),
                          (v,), share, CATEGORY_DOMINANCE)
    if not flags.any():
        yield make_result("category_dominance", "pass" if names and n else "skip",
                          f"{len(names)} discrete columns: no level over "
                          f"{CATEGORY_DOMINANCE:.0%} (n = {n})" if names and n
                          else "no observed discrete variable, or no sampled data")


def _boundary_share(x: Array, b: float) -> float:
    return float(np.count_nonzero(x == b) / x.size)


@GATES.register("boundary_mass")
def boundary_mass(ctx: GateContext) -> Iterator[GateResult]:
    """At most 10% of a continuous variable at a range bound or at its min/max (clipping).

    Shares at each column's minimum and maximum are two vectorised counts; a
    variable is looked at on its own only when it declares a range or one of
    those shares is over the threshold.
    """
    all_names, x = ctx.observed_obs
    rows = _rows_of_kind(ctx, continuous=True)
    names = [all_names[i] for i in rows]
    spec = ctx.compiled.card.variables
    n, ok = x.shape[1], True
    if n == 0 or not names:
        yield make_result("boundary_mass", "skip", "no observed continuous variable")
        return
    low, high = x.min(axis=1), x.max(axis=1)  # all rows: cheaper than copying the continuous
    at_min = (np.count_nonzero(x == low[:, None], axis=1) / n)[rows]
    at_max = (np.count_nonzero(x == high[:, None], axis=1) / n)[rows]
    low, high = low[rows], high[rows]
    look = (np.maximum(at_min, at_max) > BOUNDARY_MASS) & (at_min != 1.0)
    ranged = [j for j, v in enumerate(names) if spec[v].range and at_min[j] != 1.0]
    for j in sorted(set(np.flatnonzero(look).tolist()) | set(ranged)):
        v = names[j]  # at_min == 1: a constant column, reported by `nonconstant`
        bounds = {float(low[j]): at_min[j], float(high[j]): at_max[j]}
        for b in spec[v].range or ():
            bounds.setdefault(float(b), _boundary_share(x[rows[j]], b))
        b, mass = max(bounds.items(), key=lambda kv: kv[1])
        if mass <= BOUNDARY_MASS or spec[v].boundary:
            continue
        ok = False
        yield make_result("boundary_mass", "fail", f"{mass:.1%} of {n} values of {v!r} sit "
                          f"exactly at the boundary {b:.6g} (threshold {BOUNDARY_MASS:.0%}); "
                          "remove the clip/floor that piles values there, or declare the real "
                          f"mechanism in `boundary:` of {v!r}", ctx.where("variables", v),
                          (v,), mass, BOUNDARY_MASS)
    if ok:
        declared = [v for v in names if spec[v].boundary]
        note = f"; declared boundaries: {', '.join(declared)}" if declared else ""
        yield make_result("boundary_mass", "pass", f"{len(names)} continuous columns: at most "
                          f"{BOUNDARY_MASS:.0%} at any boundary (n = {n}){note}")


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
                  ) -> tuple[list[tuple[int, int]], float]:
    """Pairs (i < j) with |corr| >= limit, and the largest |corr| off the diagonal.

    Rows are scanned a block at a time so no (d, d) temporary is made (at d = 10,000 a
    full |corr| and its mask would cost another 900 MB).

    Example:
        >>> c = np.array([[1.0, 0.95, 0.1], [0.95, 1.0, 0.2], [0.1, 0.2, 1.0]])
        >>> _strong_pairs(c, 0.9, block=1)
        ([(0, 1)], 0.95)
    """
    hits: list[tuple[int, int]] = []
    top = 0.0
    d = corr.shape[0]
    cols = np.arange(d)
    for a in range(0, d - 1, block):
        rows = np.abs(corr[a:a + block])
        rows[cols[None, :] <= a + np.arange(len(rows))[:, None]] = 0.0  # keep j > i only
        top = max(top, float(np.nanmax(rows)))
        hits.extend((a + int(i), int(j)) for i, j in np.argwhere(rows >= limit))
    return hits, top


@GATES.register("near_copy")
def near_copy(ctx: GateContext) -> Iterator[GateResult]:
    """No pair of observed variables with |corr| at or above the family's threshold."""
    names, x = ctx.observed_obs
    n = x.shape[1]
    limit = NEAR_COPY_SYNTHETIC if ctx.compiled.card.family == "synthetic" else NEAR_COPY_SEMANTIC
    varying, corr = ctx.observed_corr
    if varying.size < 2:
        yield make_result("near_copy", "skip", "fewer than two varying observed columns")
        return
    hits, top = _strong_pairs(corr, limit)
    for i, j in hits:
        a, b = names[varying[i]], names[varying[j]]
        r = float(corr[i, j])
        yield make_result("near_copy", "fail", f"{_copy_label(ctx, a, b)}: corr {r:+.3f}, "
                          f"|corr| >= {limit:.2f} (n = {n}); drop one, give it its own causes "
                          "or real noise, or justify the pair in justifications.near_copy",
                          ctx.where("variables", b), (a, b), abs(r), limit)
    if not len(hits):
        yield make_result("near_copy", "pass", f"max |corr| {top:.3f} < {limit:.2f} over "
                          f"{varying.size} columns (n = {n})", statistic=top, threshold=limit)
