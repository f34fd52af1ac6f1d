"""Closed-form effects of a linear-Gaussian SCM, the oracle the Monte Carlo run must match.

An SCM is linear-Gaussian here when every variable is continuous, every root is a
normal distribution outside any root block, every mechanism is an equation that is
affine in its parents with no random draws, its noise is additive normal (or none), and
there is no selection. Then X = B^T X + E with B[i, j] the coefficient of i in j's
equation, and the mean is mu = (I - B^T)^-1 m (m: intercepts and root means).

The total effect of x_i on x_j is T[i, j] with T = (I - B)^-1 (the sum over directed
paths i -> ... -> j of the products of their coefficients; x_i's own incoming edges do
not enter). Because every equation is affine, a row's outcome moves by exactly
T[i, j] (x_i' - x_i) when x_i is moved from its natural value x_i to x_i' and its
descendants are recomputed from the same noise. So:

* the card's intervention changes E[x_j] by T[i, j] E[x_i' - x_i], where E[x_i' - x_i] is
  (see :func:`mean_change`) c - mu_i for do(c); by (or iqr x IQR) for a shift; (f - 1) mu_i
  for scale(f); (low + high) / 2 - mu_i for resample; the centre minus mu_i for setpoint;
  softness x (value - mu_i) for soft (value = (low + high) / 2 when the card gives none);
* do(x_i = a + delta) against do(x_i = a) changes E[x_j] by T[i, j] delta, at any a.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from scmspec.compiler.kinds.interventions import (
    DoHandler,
    HandlerBase,
    ScaleHandler,
    ShiftHandler,
    SoftHandler,
)
from scmspec.compiler.kinds.noise import NoNoise, NormalNoise
from scmspec.compiler.kinds.roots import NormalRoot
from scmspec.effects.contrasts import realised
from scmspec.samplers.scm import SCM

Array = np.ndarray


@dataclass(frozen=True)
class LinearModel:
    """Coefficients and means of a linear-Gaussian SCM, variables in plan order."""

    names: tuple[str, ...]
    weights: Array  # B[i, j]: coefficient of variable i in variable j's equation
    mean: Array  # mu: population means without intervention
    total: Array  # T = (I - B)^-1: T[i, j] sums coefficient products over paths i -> j

    def total_effect(self, cause: str, effect: str) -> float:
        return float(self.total[self.names.index(cause), self.names.index(effect)])

    def mean_of(self, name: str) -> float:
        return float(self.mean[self.names.index(name)])


def linear_gaussian(scm: SCM) -> LinearModel | None:
    """The SCM's linear-Gaussian form, or None when it is not linear-Gaussian (see above)."""
    plan, card = scm.plan, scm.compiled.card
    if plan.selection is not None or plan.blocks:
        return None
    constants = {sp.Symbol(k, real=True): sp.Float(c.value) for k, c in card.constants.items()}
    names = tuple(s.name for s in plan.steps)
    weights = np.zeros((len(names), len(names)))
    intercepts = np.zeros(len(names))
    for j, step in enumerate(plan.steps):
        if step.kind != "continuous" or step.constant is not None:
            return None
        if step.root is not None:
            if type(step.root) is not NormalRoot or step.affine is not None:
                return None
            intercepts[j] = step.root.mean
            continue
        noise_ok = type(step.noise) is NoNoise or (
            type(step.noise) is NormalNoise and step.noise.mode == "additive")
        if step.sites or not noise_ok or card.variables[step.name].mechanism is not None:
            return None
        affine = _affine(scm.compiled.resolved.equations[step.name].xreplace(constants),
                         step.parents)
        if affine is None:
            return None
        intercepts[j] = affine[0]
        for p, w in zip(step.parents, affine[1]):
            weights[names.index(p), j] = w
    eye = np.eye(len(names))
    return LinearModel(names, weights, np.linalg.solve(eye - weights.T, intercepts),
                       np.linalg.inv(eye - weights))


def _affine(expr: sp.Expr, parents: tuple[str, ...]) -> tuple[float, list[float]] | None:
    """(intercept, coefficients) when expr is affine in the parents with numeric coefficients."""
    symbols = [sp.Symbol(p, real=True) for p in parents]
    coefficients = [sp.diff(expr, s) for s in symbols]
    intercept = expr.xreplace({s: sp.Integer(0) for s in symbols})
    if not all(c.is_number for c in [*coefficients, intercept]):
        return None
    rest = sp.expand(expr - intercept - sum(c * s for c, s in zip(coefficients, symbols)))
    if rest != 0:
        return None
    return float(intercept), [float(c) for c in coefficients]


def mean_change(handler: HandlerBase, mean: float, baseline: Array) -> float | None:
    """E[x' - x] when ``handler`` moves a continuous variable of mean ``mean`` (None: unknown).

    Example:
        >>> mean_change(DoHandler(value=2.0), 0.5, np.zeros(3))
        1.5
    """
    fixed = realised(handler, baseline)
    if isinstance(handler, DoHandler):
        return float(handler.value) - mean
    if isinstance(handler, ShiftHandler):
        return fixed["by"] if handler.by is None else handler.by
    if isinstance(handler, ScaleHandler):
        return (handler.factor - 1.0) * mean
    if isinstance(handler, SoftHandler):
        value = handler.value if handler.value is not None else (
            (fixed["low"] + fixed["high"]) / 2.0)
        return handler.softness * (value - mean)
    if "centre" in fixed:  # setpoint: the jitter is symmetric around the centre
        return fixed["centre"] - mean
    if "low" in fixed:  # resample: uniform between the two quantiles
        return (fixed["low"] + fixed["high"]) / 2.0 - mean
    return None
