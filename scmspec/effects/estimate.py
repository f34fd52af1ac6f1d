"""Paired (common-random-numbers) estimators of a difference in means, with standard errors.

Both arms of a contrast are computed on the same n rows: the same exogenous draws, only
the intervention differs. The per-row differences d_i are then independent across rows,
so the effect is their mean and its Monte Carlo standard error sd(d) / sqrt(n). A
variable the intervention cannot reach has d_i = 0 on every row, hence an estimate and a
standard error of exactly 0.

Within the *selected* population (rows passing the card's selection), each arm's mean
is a ratio R = sum(y s) / sum(s); its influence function is s (y - R) / mean(s), and the
difference's standard error is the sd of the paired influence differences over sqrt(n)
(the delta method).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from scmspec.effects.contrasts import levels
from scmspec.samplers.scm import SCM

Array = np.ndarray


@dataclass(frozen=True)
class Measure:
    """One number read from an outcome column: its mean, or the share of rows in an event."""

    outcome: str
    measure: str  # mean_difference | risk_difference
    event: str  # "" (mean); "1" (binary); a level name (categorical); ">=level" (ordinal)
    op: str = "mean"  # mean | eq | ge
    code: float = 0.0

    def values(self, column: Array) -> Array:
        out: Array
        if self.op == "eq":
            out = (column == self.code).astype(float)
        elif self.op == "ge":
            out = (column >= self.code).astype(float)
        else:
            out = np.asarray(column, dtype=float)
        return out


def outcome_measures(scm: SCM, outcome: str, control: Array) -> list[Measure]:
    """What is reported for an outcome: means for continuous, count and ordinal outcomes,
    risk differences for binary ones, per-level risks for categorical ones and, for
    ordinal ones, the cumulative risks P(Y >= level) of every level but the first.

    Example:
        >>> import scmspec
        >>> scm = scmspec.compile_text('''
        ... id: demo
        ... title: demo
        ... family: semantic
        ... domain: demo
        ... variables:
        ...   x: {meaning: a, kind: binary, distribution: {kind: bernoulli, p: 0.5}}
        ... ''')
        >>> [(m.measure, m.event) for m in outcome_measures(scm, "x", np.zeros(3))]
        [('risk_difference', '1')]
    """
    kind = scm.plan.step(outcome).kind
    if kind == "binary":
        return [Measure(outcome, "risk_difference", "1", "eq", 1.0)]
    if kind == "categorical":
        codes, names = levels(scm, outcome, control)
        return [Measure(outcome, "risk_difference", n, "eq", c) for c, n in zip(codes, names)]
    out = [Measure(outcome, "mean_difference", "")]
    if kind == "ordinal":
        codes, names = levels(scm, outcome, control)
        out += [Measure(outcome, "risk_difference", f">={n}", "ge", c)
                for c, n in zip(codes[1:], names[1:])]
    return out


def table(measures: list[Measure], cols: dict[str, Array]) -> Array:
    """(measures, n) matrix of each measure's per-row values in one arm."""
    return np.vstack([m.values(cols[m.outcome]) for m in measures])


def paired(treated: Array, control: Array) -> tuple[Array, Array]:
    """Mean paired difference per row of the (measures, n) matrices, and its standard error.

    Example:
        >>> est, se = paired(np.array([[1.0, 2.0, 3.0]]), np.array([[0.0, 1.0, 1.0]]))
        >>> est.round(4).tolist(), se.round(4).tolist()
        ([1.3333], [0.3333])
    """
    d = treated - control
    n = d.shape[1]
    return d.mean(axis=1), d.std(axis=1, ddof=1) / np.sqrt(n)


def paired_selected(treated: Array, control: Array, s1: Array, s0: Array
                    ) -> tuple[Array, Array, dict[str, Any]]:
    """Difference of the selected rows' means (a ratio per arm) and its delta-method SE."""
    n = treated.shape[1]
    k1, k0 = int(s1.sum()), int(s0.sum())
    info = {"selected_treated": k1, "selected_control": k0}
    if k1 == 0 or k0 == 0:
        nan = np.full(treated.shape[0], np.nan)
        return nan, nan, info
    r1 = (treated * s1).sum(axis=1) / k1
    r0 = (control * s0).sum(axis=1) / k0
    influence = (s1 * (treated - r1[:, None]) / (k1 / n)
                 - s0 * (control - r0[:, None]) / (k0 / n))
    return r1 - r0, influence.std(axis=1, ddof=1) / np.sqrt(n), info
