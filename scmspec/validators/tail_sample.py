"""The tail check's pilot: the share of natural rows outside each declared range.

``ranges`` must block a value outside its range at 1 in 10^5 natural rows
(``TAIL_RATE``), which the released rows (10^3-10^4) almost never show. Each ranged
variable's share is known the cheapest way that settles it (docs/gates.md, "Tail
check"): proved small by interval bounds (``tail_bound``), read exactly from a root's
quantiles (``root_tail``), averaged from its own noise law on sampled parents
(``NOISE_CDF``), or counted on sampled rows, with variables that show a row outside or a
near miss (``Extremes``) counted on. Pilots sample only the variables left and their
ancestors, in chunks from the pilot's own streams (split ``gate-pilot``), so the released
data never change; only running sums, minima, maxima and the most extreme values are
kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from scipy import special

from scmspec.compiler.kinds.noise_base import ScaledNoise
from scmspec.compiler.plan import Plan, Step
from scmspec.samplers import numpy_sampler
from scmspec.samplers.streams import Streams
from scmspec.validators.base import GateContext
from scmspec.validators.pilot import PILOT_SPLIT, ancestral_plan, pilot_plan
from scmspec.validators.tail_bound import Bounds, interval_bounds
from scmspec.validators.thresholds import (
    RANGE_SLACK,
    TAIL_CONFIRM_ROWS,
    TAIL_NEAR_K,
    TAIL_NOISE_ROWS,
    TAIL_PILOT_CHUNK,
    TAIL_PILOT_ROWS,
    TAIL_PROOF_RATE,
)

Array = np.ndarray


@dataclass(frozen=True)
class TailPilot:
    """Per ranged variable: its share of natural rows outside the range, and how it is known.

    ``method`` per variable: ``proved`` (the interval bound lies inside the range:
    share < TAIL_PROOF_RATE, nothing sampled), ``exact`` (a root: the share from its
    quantile function), ``noise`` (sampled parents, the share the variable's own noise
    puts outside given them, averaged: a conditional expectation) or ``rows`` (sampled
    rows outside, counted). ``low``/``high`` are the extremes seen (for ``exact``, the
    quantiles at TAIL_PROOF_RATE), ``se`` the standard error of ``share``.
    """

    names: tuple[str, ...]
    rows: Array  # (len(names),) rows sampled per variable (0: not sampled)
    share: Array  # estimated (or exact, or bounded) share outside the range
    se: Array
    low: Array
    high: Array
    method: tuple[str, ...]
    skipped: str = ""  # why nothing could be checked (no protocol, no range)

    @property
    def sampled_rows(self) -> int:
        return int(self.rows.max()) if self.rows.size else 0


def tail_bounds(ctx: GateContext, ranged: list[tuple[str, tuple[float, float]]]) -> Bounds:
    """The interval bounds of every variable (``tail_bound.interval_bounds``), cached."""
    def compute() -> Bounds:
        resolved = ctx.compiled.resolved
        constants = {k: float(c.value) for k, c in ctx.compiled.card.constants.items()}
        scales = {k: e for k, (_, e) in resolved.noise_scales.items()}
        rngs = {v: (float(r[0]), float(r[1])) for v, r in ranged}
        plan = replace(ctx.compiled.plan, targets=())
        return interval_bounds(plan, dict(resolved.equations), rngs, scales, constants)

    return ctx.cached("tail_bounds", compute)


def root_tail(step: Step, lo: float, hi: float) -> tuple[float, float, float, float]:
    """(share below lo, share above hi) of a root's natural values, and its values at the
    quantiles TAIL_PROOF_RATE and 1 - TAIL_PROOF_RATE.

    Read from its quantile function on a log-spaced grid of tail probabilities (one
    vectorised call per side): the share is bracketed between two grid points 1.2x
    apart, and the upper one is returned (never an underestimate above 1e-15).
    """
    assert step.root is not None
    grid = np.geomspace(1e-15, 0.5, 200)

    def values(u: Array) -> Array:
        with np.errstate(all="ignore"):
            x = np.asarray(step.root.ppf(u), dtype=float)  # type: ignore[union-attr]
        if step.level_values is not None:
            x = np.asarray(step.level_values, dtype=float)[x.astype(np.intp)]
        elif step.affine is not None:
            x = (x - step.affine[0]) / step.affine[1]
        return x

    below, above = values(grid), values(1.0 - grid)
    if step.affine is not None and step.affine[1] < 0:
        below, above = above, below
    # the share is at most the first grid point whose quantile is inside the range
    p_lo = _first_inside(grid, below >= lo)
    p_hi = _first_inside(grid, above <= hi)
    at = int(np.searchsorted(grid, TAIL_PROOF_RATE))
    return p_lo, p_hi, float(below[at]), float(above[at])


def _first_inside(grid: Array, inside: Array) -> float:
    """The largest tail probability whose quantile is still outside, rounded up a grid step."""
    out = np.flatnonzero(~inside)
    if not out.size:
        return 0.0
    j = int(out.max())
    return float(grid[min(j + 1, grid.size - 1)])


def _noise_share(step: Step, f: Array, cols: dict[str, Array], lo: float,
                 hi: float) -> Array | None:
    """Per row, the probability the step's own noise puts f outside [lo, hi] (None: no law).

    ``f`` is the mechanism's value on sampled parents; for additive noise the share
    below is P(eps < lo - f), above P(eps > hi - f); multiplicative noise divides by f.
    """
    noise = step.noise
    base = noise.base if isinstance(noise, ScaledNoise) else noise
    cdf = NOISE_CDF.get(base.kind)
    if cdf is None:
        return None
    scale = (np.asarray(noise.scale(*[cols[p] for p in noise.inputs]), dtype=float)
             if isinstance(noise, ScaledNoise) else 1.0)
    with np.errstate(all="ignore"):
        if base.mode == "additive":
            return cdf(base, (lo - f) / scale) + (1.0 - cdf(base, (hi - f) / scale))
        # x = f (1 + eps): for f > 0 the bounds on eps keep their sides, for f < 0 swap
        a, b = (lo / f - 1.0) / scale, (hi / f - 1.0) / scale
        pos = cdf(base, a) + (1.0 - cdf(base, b))
        neg = (1.0 - cdf(base, a)) + cdf(base, b)
        zero = float(lo > 0.0 or hi < 0.0)
        return np.where(f > 0, pos, np.where(f < 0, neg, zero))


def _norm(x: Array, sd: float) -> Array:
    return special.ndtr(x / sd)  # type: ignore[no-any-return]


def _laplace(x: Array, b: float) -> Array:
    with np.errstate(over="ignore"):
        return np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0) / b),
                        1.0 - 0.5 * np.exp(-np.maximum(x, 0) / b))


# P(eps <= x) of the noise kinds with a closed-form law (scale 1 for expression scales).
NOISE_CDF: dict[str, Callable[[Any, Array], Array]] = {
    "normal": lambda n, x: _norm(x, n.scale_value()),
    "target_r2": lambda n, x: _norm(x, n.sd),
    "uniform": lambda n, x: np.clip((x + n.scale_value()) / (2 * n.scale_value()), 0.0, 1.0),
    "laplace": lambda n, x: _laplace(x, n.scale_value()),
    "student_t": lambda n, x: special.stdtr(n.df, x / n.scale_value()),
    "mixture_outlier": lambda n, x: ((1 - n.outlier_prob) * _norm(x, n.sd)
                                     + n.outlier_prob * _norm(x, n.outlier_scale)),
    "lognormal": lambda n, x: np.where(x > -1, special.ndtr(np.log1p(np.maximum(x, -1))
                                                            / n.sigma), 0.0),
}


def _scale_is_number(step: Step) -> bool:
    noise = step.noise
    try:
        (noise.base if isinstance(noise, ScaledNoise) else noise).scale_value()
    except (RuntimeError, AttributeError, TypeError):
        return noise.kind not in ("normal", "uniform", "laplace", "student_t")
    return True


def _conditional(step: Step) -> bool:
    """Whether a step's share outside can be averaged from its noise law given parents."""
    noise = step.noise
    base = noise.base if isinstance(noise, ScaledNoise) else noise
    return (step.root is None and step.evaluate is not None and base.kind in NOISE_CDF
            and _scale_is_number(step))


def tail_pilot(ctx: GateContext, ranged: list[tuple[str, tuple[float, float]]],
               rows: int = TAIL_PILOT_ROWS, chunk: int = TAIL_PILOT_CHUNK,
               noise_rows: int = TAIL_NOISE_ROWS) -> TailPilot:
    """The share of natural rows outside each declared range: proved, exact or sampled.

    Cached on the context. First the interval bounds (``tail_bound``): a variable
    whose interval lies inside its range is proved and not sampled; a root's share is
    read from its quantile function (cards without a selection). The rest are sampled
    from the pilot's own streams (the ancestral set of those variables only; the whole
    plan with a selection): a variable with its own noise of known law on
    ``noise_rows`` rows, its share the average over rows of the probability that the
    noise puts it outside given its sampled parents; any other on ``rows`` rows,
    counted.
    """
    names = tuple(v for v, _ in ranged)
    k = len(names)

    def compute() -> TailPilot:
        zeros = np.zeros(k)
        if ctx.protocol is None or not ranged or rows <= 0:
            why = "no protocol" if ctx.protocol is None else "no range declared"
            return TailPilot(names, zeros.astype(np.intp), zeros, zeros, zeros, zeros,
                             ("skipped",) * k, why)
        plan, seed = ctx.compiled.plan, ctx.protocol.seed
        lo = np.array([float(r[0]) for _, r in ranged])
        hi = np.array([float(r[1]) for _, r in ranged])
        slack = RANGE_SLACK * np.maximum(1.0, np.maximum(np.abs(lo), np.abs(hi)))
        lo_s, hi_s = lo - slack, hi + slack
        bounds = tail_bounds(ctx, ranged)
        share, se = np.zeros(k), np.zeros(k)
        low, high = np.full(k, np.inf), np.full(k, -np.inf)
        n_rows = np.zeros(k, dtype=np.intp)
        method = ["proved"] * k
        by_name = {s.name: s for s in plan.steps}
        todo: list[int] = []
        for j, v in enumerate(names):
            iv = bounds.intervals.get(v, (-np.inf, np.inf))
            low[j], high[j] = iv
            if lo_s[j] <= iv[0] and iv[1] <= hi_s[j]:
                share[j] = TAIL_PROOF_RATE  # an upper bound
                continue
            step = by_name[v]
            if step.root is not None and plan.selection is None:
                p_lo, p_hi, low[j], high[j] = root_tail(step, lo_s[j], hi_s[j])
                share[j], method[j] = p_lo + p_hi, "exact"
                continue
            method[j] = "noise" if _conditional(step) and plan.selection is None else "rows"
            todo.append(j)
        if todo:
            _sample_tail(ctx, pilot_plan(ctx), seed, todo, names, lo_s, hi_s, method, rows,
                         chunk, noise_rows, share, se, low, high, n_rows)
        return TailPilot(names, n_rows, share, se, low, high, tuple(method))

    return ctx.cached(f"tail_pilot:{rows}:{chunk}:{noise_rows}", compute)


def _sample_tail(ctx: GateContext, plan: Plan, seed: int, todo: list[int],
                 names: tuple[str, ...], lo: Array, hi: Array, method: list[str],
                 rows: int, chunk: int, noise_rows: int, share: Array, se: Array,
                 low: Array, high: Array, n_rows: Array,
                 confirm_rows: int = TAIL_CONFIRM_ROWS) -> None:
    """Sample the unsettled variables in chunks; fill their share, se, extremes, rows.

    Averaged variables get ``noise_rows`` rows, counted ones ``rows``; a counted one
    with a row outside, or a near miss (``near_miss_share``), then gets ``confirm_rows``
    in all (chunks continue the same streams), so a share near the block rate is decided
    on enough rows.
    """
    if plan.selection is None:
        parents = {k: tuple(v) for k, v in ctx.compiled.resolved.parents.items()}
        plan = ancestral_plan(plan, {names[j] for j in todo}, parents)
    else:
        plan = replace(plan, targets=())
    by_name = {s.name: s for s in plan.steps}
    total = {j: (noise_rows if method[j] == "noise" else rows) for j in todo}
    s1, s2 = {j: 0.0 for j in todo}, {j: 0.0 for j in todo}
    # a side its interval bound (in low/high on entry) already proves is not extrapolated
    extremes = {j: Extremes(lo_proved=bool(low[j] >= lo[j]), hi_proved=bool(high[j] <= hi[j]))
                for j in todo if method[j] == "rows"}
    low[todo], high[todo] = np.inf, -np.inf
    done, c = 0, 0
    while True:
        if done >= max(total.values()):
            # a counted variable with a row outside, or a near miss: count on until the
            # share is known well enough to be decided the same way on every seed
            more = [j for j in todo if method[j] == "rows" and total[j] < confirm_rows
                    and (s1[j] > 0 or extremes[j].near_miss_share(
                        float(lo[j]), float(hi[j]), int(n_rows[j])) >= TAIL_PROOF_RATE)]
            if not more:
                break
            for j in more:
                total[j] = confirm_rows
        live = [j for j in todo if done < total[j]]
        m = min(chunk, max(total[j] for j in live) - done)
        streams = Streams(seed, ctx.card_id, f"{PILOT_SPLIT}-{c}", 0)
        cols = (numpy_sampler.sample(plan, m, 0, streams).columns if plan.selection is not None
                else numpy_sampler.run_pass(ancestral_plan(plan, {names[j] for j in live}, parents),
                                            m, streams))
        sites = Streams(seed, ctx.card_id, f"{PILOT_SPLIT}-sites-{c}", 0)
        for j in live:
            v, x = names[j], cols[names[j]]
            with np.errstate(invalid="ignore"):
                low[j], high[j] = min(low[j], np.nanmin(x)), max(high[j], np.nanmax(x))
            q: Array | None = None
            if method[j] == "noise":
                step = by_name[v]
                rng = sites.generator(v)
                f = numpy_sampler.evaluate_step(step, [cols[p] for p in step.parents],
                                                [rng.random(m) for _ in range(step.sites)])
                q = _noise_share(step, np.broadcast_to(np.asarray(f, dtype=float), (m,)),
                                 cols, float(lo[j]), float(hi[j]))
            if q is None:
                with np.errstate(invalid="ignore"):
                    q = ((x < lo[j]) | (x > hi[j])).astype(float)
                extremes[j].add(x)
            q = np.nan_to_num(q, nan=0.0)
            s1[j] += float(q.sum())
            s2[j] += float(np.dot(q, q))
            n_rows[j] += m
        done, c = done + m, c + 1
    for j in todo:
        n = max(int(n_rows[j]), 1)
        share[j] = s1[j] / n
        se[j] = float(np.sqrt(max(s2[j] / n - share[j] ** 2, 0.0) / n))


@dataclass
class Extremes:
    """The TAIL_NEAR_K largest and smallest finite values seen so far of one variable.

    ``lo_proved``/``hi_proved``: the interval bound already keeps that side inside the
    range (a count or a share floored at 0), so it is not extrapolated.
    """

    top: Array = field(default_factory=lambda: np.empty(0))
    bottom: Array = field(default_factory=lambda: np.empty(0))
    lo_proved: bool = False
    hi_proved: bool = False

    def add(self, x: Array) -> None:
        x = x[np.isfinite(x)]
        k = TAIL_NEAR_K
        top, bottom = np.concatenate([self.top, x]), np.concatenate([self.bottom, x])
        self.top = np.partition(top, top.size - k)[top.size - k:] if top.size > k else top
        self.bottom = np.partition(bottom, k - 1)[:k] if bottom.size > k else bottom

    def near_miss_share(self, lo: float, hi: float, n: int) -> float:
        """The share outside [lo, hi] extrapolated from the extremes (peaks over threshold).

        Beyond its K-th most extreme value t a tail is taken as exponential, with the mean
        excess of the other K - 1 over t as its scale s: P(X > hi) ~ (K / n) exp(-(hi - t) / s).
        It only decides whether a variable with no row outside is counted on (a screen,
        never the decision): a share of 1e-5 sits about a factor 6.7 beyond the K-th value
        of 300,000 rows, well inside the flagged factor of 67 even for a Gaussian tail,
        whose exponential fit at that depth overstates the share.
        """
        if n <= 0 or self.top.size < TAIL_NEAR_K:
            return 0.0
        return ((0.0 if self.hi_proved else _exponential_tail(self.top, hi, n))
                + (0.0 if self.lo_proved else _exponential_tail(-self.bottom, -lo, n)))


def _exponential_tail(top: Array, bound: float, n: int) -> float:
    t, most = float(top.min()), float(top.max())
    if bound <= t:
        return top.size / n
    if np.count_nonzero(top == most) > 1:
        # an atom at the extreme (a floor or cap that binds, or a discrete tail): not a
        # continuous tail to extrapolate; the count decides, as for any other variable
        return 0.0
    scale = float(np.sum(top - t)) / (top.size - 1)
    return float(top.size / n * np.exp(-(bound - t) / scale))
