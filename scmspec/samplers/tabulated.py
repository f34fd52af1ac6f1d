"""Tabulated quantile functions for the gates' pilot samples (never for released data).

A root in a copula block, and a truncated normal anywhere, is drawn through its inverse
CDF. For beta, gamma, truncated-normal and Gaussian-mixture roots that is an iterative
solve (scipy's ``betaincinv``, ``gammaincinv``, ``truncnorm.ppf``, a bisection): about
1-3 microseconds a value. The released rows (10^3-10^4 per split) do not notice; the
gates' pilots do: the tail check counts up to 1.5 million rows of a variable and its
ancestors (``validators.tail_sample``), and there these solves were about half of a
formula card's compile.

A pilot estimates shares and correlations, so it needs the root's law, not the release's
bits: :func:`tabulate_roots` gives those roots a table of their quantile function at
``POINTS`` values of ``logit(u)`` evenly spaced from ``u = 1e-13`` to ``1 - 1e-13`` (dense
in both tails) and reads it by linear interpolation, 15-50x faster than the solve. Each
value it gives is the exact quantile at a probability within 0.1% (relative to the
smaller tail) of its uniform; on smooth quantile functions the largest error over 10^6
uniforms is 3e-7 to 1e-5 of the support's width (largest for a U-shaped beta), and a
Gaussian mixture's, whose quantiles jump across the gap between its modes, is larger in
value but as small in probability (tests/unit/test_tabulated_roots.py). The table is monotone, so
an interpolated value never leaves ``[ppf(1e-13), ppf(1 - 1e-13)]``: a bounded root never
shows a value outside its support; an unbounded one loses only its tail beyond the
1e-13 quantile, ten million times rarer than the tail check's blocking share.

Draws keep their stream use: a kind whose ``draw`` is a direct generator call (beta,
gamma) keeps it, one that draws through ``ppf(rng.random(n))`` reads the table with the
same uniforms.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

import numpy as np
from pydantic import PrivateAttr
from scipy import special

from scmspec.compiler.kinds.roots import RootBase
from scmspec.compiler.plan import Plan

Array = np.ndarray
POINTS = 8193
TAIL = 1e-13  # the table spans the quantiles TAIL .. 1 - TAIL


class TabulatedRoot(RootBase):
    """A root whose inverse CDF is read from a table of ``inner``'s (module docstring)."""

    kind: Literal["tabulated"] = "tabulated"
    inner: RootBase
    _logit: Array = PrivateAttr()
    _values: Array = PrivateAttr()

    def model_post_init(self, context: object, /) -> None:
        self._logit = np.linspace(special.logit(TAIL), special.logit(1.0 - TAIL), POINTS)
        with np.errstate(all="ignore"):
            self._values = np.asarray(self.inner.ppf(special.expit(self._logit)), dtype=float)

    def ppf(self, u: Array) -> Array:
        with np.errstate(divide="ignore"):  # u = 0 reads the first entry, as logit -> -inf
            return np.interp(special.logit(u), self._logit, self._values)

    def draw(self, rng: np.random.Generator, n: int) -> Array:
        if type(self.inner).draw is not RootBase.draw:  # a direct generator draw: keep it
            return self.inner.draw(rng, n)
        return self.ppf(rng.random(n))

    def support(self) -> tuple[float, float]:
        return self.inner.support()


def tabulate_roots(plan: Plan) -> Plan:
    """The plan with every root whose kind solves for its quantiles (``slow_ppf``) read
    from a table instead; other steps, and the plan's order, unchanged."""
    steps = tuple(replace(s, root=TabulatedRoot(inner=s.root))
                  if s.root is not None and s.root.slow_ppf else s for s in plan.steps)
    return replace(plan, steps=steps)
