"""The residuals gate: deterministic nodes equal their equation of their sampled parents.

A differential check of lowering and sampling. For every *formula node* (role
``formula``, or any equation node with noise ``none``) the gate recomputes the
lowered step's ``evaluate`` on the sampled parent columns and compares, on the
rows where the node itself was not intervened on (rows where an ancestor was
are included: that is where a stale value would show). Nodes with random-draw
sites are exempt (their draws are not stored). A noise-free node must match
within float rounding; a noisy formula node (measurement/readout noise) must
leave residuals with median zero, judged by a sign test.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from scmspec.compiler.plan import Step
from scmspec.samplers.numpy_sampler import Sample
from scmspec.validators.base import GATES, GateContext, GateResult, make_result
from scmspec.validators.thresholds import RESIDUAL_ATOL, RESIDUAL_RTOL, RESIDUAL_SIGN_Z

Array = np.ndarray


def _noise_kind(step: Step) -> str:
    return str(getattr(step.noise, "kind", "none"))


def formula_steps(ctx: GateContext) -> list[Step]:
    """The steps the residuals gate checks (deterministic given parents, no random draws)."""
    spec = ctx.compiled.card.variables
    return [s for s in ctx.compiled.plan.steps
            if s.evaluate is not None and s.constant is None and s.sites == 0
            and (spec[s.name].role == "formula" or _noise_kind(s) == "none")]


def _free_rows(sample: Sample, name: str) -> Array | None:
    """Rows where ``name`` itself was not intervened on (None: every row)."""
    if name not in sample.targets or not sample.assigned.size:
        return None
    return ~sample.assigned[:, sample.targets.index(name)]


def _residual(step: Step, samples: list[Sample]) -> tuple[Array, Array]:
    """(value, equation of parents) on the node's non-intervened rows of every split.

    The splits' rows are concatenated first, so the equation is evaluated once per
    node (one vectorised call over all replicates), not once per split.
    """
    xs: list[Array] = []
    parents: list[list[Array]] = [[] for _ in step.parents]
    for sample in samples:
        rows = _free_rows(sample, step.name)
        for acc, name in zip([xs, *parents], (step.name, *step.parents)):
            col = sample.columns[name]
            acc.append(col if rows is None else col[rows])
    x = np.concatenate(xs) if len(xs) > 1 else xs[0]
    inputs = [np.concatenate(p) if len(p) > 1 else p[0] for p in parents]
    assert step.evaluate is not None
    f = np.asarray(step.evaluate(*inputs), dtype=float)
    return x, f if f.shape == x.shape else np.broadcast_to(f, x.shape)


def _close(x: Array, f: Array) -> Array:
    """``np.isclose(x, f, RESIDUAL_RTOL, RESIDUAL_ATOL, equal_nan=True)`` for float arrays.

    The same expression numpy evaluates, without its argument checks (a few
    microseconds per call).
    """
    with np.errstate(invalid="ignore"):
        close: Array = ((np.abs(x - f) <= RESIDUAL_ATOL + RESIDUAL_RTOL * np.abs(f))
                        & np.isfinite(f) | (x == f))
        close |= np.isnan(x) & np.isnan(f)
    return close


def _exact_mismatch(step: Step, samples: list[Sample]) -> tuple[int, int, float]:
    """(rows off the equation, rows compared, largest |residual| among them)."""
    x, f = _residual(step, samples)
    x = np.asarray(x, dtype=float)
    if (x == f).all():  # the usual case: the sampler computed exactly this (same shapes)
        return 0, x.size, 0.0
    off = ~_close(x, f)
    if not off.any():
        return 0, x.size, 0.0
    return int(off.sum()), x.size, float(np.nanmax(np.abs(x[off] - f[off]), initial=0.0))


def _sign_z(step: Step, samples: list[Sample]) -> tuple[float, int]:
    """|z| of the sign test that the noise residual has median zero."""
    x, f = _residual(step, samples)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = x - f if step.noise.mode == "additive" else x / f - 1.0
    r = r[np.isfinite(r) & (r != 0)]
    if r.size == 0:
        return 0.0, 0
    return abs(float((r > 0).sum()) - r.size / 2) / (0.5 * np.sqrt(r.size)), int(r.size)


@GATES.register("residuals")
def residuals(ctx: GateContext) -> Iterator[GateResult]:
    """Formula nodes equal their equation on non-intervened rows (noise-free: exactly)."""
    steps = formula_steps(ctx)
    samples = [s for rep in ctx.replicates for s in (rep.obs, rep.obsint)]
    if not steps or not samples:
        yield make_result("residuals", "skip", "no deterministic formula node" if not steps
                          else "no sampled data")
        return
    ok, rows = True, 0
    for step in steps:
        if _noise_kind(step) == "none":
            bad, rows, worst = _exact_mismatch(step, samples)
            if bad:
                ok = False
                yield make_result("residuals", "fail", f"{step.name!r} differs from its "
                                  f"equation on {bad} of {rows} non-intervened rows (max "
                                  f"|residual| {worst:.3g}; tolerance {RESIDUAL_ATOL:g} + "
                                  f"{RESIDUAL_RTOL:g} x |value|): a stale or overwritten "
                                  "value; this is a sampler bug, please report it",
                                  ctx.where("variables", step.name, "equation"),
                                  (step.name,), bad, 0)
            continue
        z, m = _sign_z(step, samples)
        if z > RESIDUAL_SIGN_Z:
            ok = False
            yield make_result("residuals", "fail", f"{step.name!r}: residuals around its "
                              f"equation are not centred (sign test |z| = {z:.1f} > "
                              f"{RESIDUAL_SIGN_Z:g} over {m} rows): its {_noise_kind(step)} noise "
                              "should have median zero; check the noise and its mode",
                              ctx.where("variables", step.name, "equation"),
                              (step.name,), z, RESIDUAL_SIGN_Z)
    if ok:
        yield make_result("residuals", "pass", f"{len(steps)} formula nodes match their "
                          f"equations on non-intervened rows ({len(samples)} splits; tolerance "
                          f"{RESIDUAL_ATOL:g} + {RESIDUAL_RTOL:g} x |value|)")
