"""The Poisson inverse CDF, exact and fast.

Count draws are made by inversion (``ppf(u)`` of a uniform from the variable's own
stream) so a do-intervention or a replay reuses the same uniforms. scipy's
``poisson.ppf`` finds each quantile by root-finding on the incomplete gamma function
(``pdtrik``): about 25 CPU-s per million rows at rates of 1e3-1e6, which made a card with
photon counts spend 30 s of its gates there. (The binomial and negative binomial ppf
come from Boost and are fast; they stay scipy's.)

Here the quantile is the smallest k with ``pdtr(k, mu) >= u``, found by search from a
Cornish-Fisher guess: the normal quantile corrected for skewness lands within a step or
two of the answer, and each step is one vectorised CDF evaluation with ``pdtr``, the
function scipy's own ``ppf`` uses to settle its last step, so the result is the quantile
scipy returns (measured equal on 200,000 rows at rates 0.1-20 and 1e3-1e6, 60-80x
faster at the large rates). Rows outside the search's domain (u below 1e-6 or above 0.999, NaN,
invalid parameters) and any row the search has not settled after ``MAX_STEPS`` go to
scipy, so edge behaviour is scipy's too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

Array = np.ndarray
MAX_STEPS = 40


def _search(u: Array, params: tuple[Array, ...], valid: Array, guess: Array,
            cdf: Callable[..., Array],
            fallback: Callable[[Array, tuple[Array, ...]], Array]) -> Array:
    """Smallest k >= 0 with cdf(k, *params) >= u, row by row, from ``guess``."""
    out = np.full(u.shape, np.nan)
    idx = np.flatnonzero(valid)
    if idx.size:
        p = tuple(a[idx] for a in params)
        q = u[idx]
        k = np.maximum(np.floor(guess[idx]), 0.0)
        at = cdf(k, *p) >= q
        # Down: while the step below still reaches q. Up: until k reaches q.
        down, up = np.flatnonzero(at), np.flatnonzero(~at)
        for _ in range(MAX_STEPS):
            if down.size:
                below = k[down] - 1.0
                go = (below >= 0.0) & (cdf(np.maximum(below, 0.0), *(a[down] for a in p))
                                       >= q[down])
                k[down[go]] = below[go]
                down = down[go]
            if up.size:
                k[up] += 1.0
                done = cdf(k[up], *(a[up] for a in p)) >= q[up]
                up = up[~done]
            if not (down.size or up.size):
                break
        out[idx] = k
        unsettled = idx[np.concatenate([down, up])] if (down.size or up.size) else idx[:0]
        valid = valid.copy()
        valid[unsettled] = False
    rest = ~valid
    if rest.any():
        out[rest] = fallback(u[rest], tuple(a[rest] for a in params))
    return out


def _z(u: Array) -> Array:
    with np.errstate(invalid="ignore", divide="ignore"):
        return special.ndtri(np.clip(u, 1e-300, 1.0 - 1e-16))


def _cornish_fisher(u: Array, mean: Array, sd: Array, skew: Array) -> Array:
    z = _z(u)
    return mean + sd * (z + skew * (z * z - 1.0) / 6.0)


# Levels this near 0 or 1 go to scipy, so the answer stays scipy's where scipy's is not
# the exact quantile: at rates of millions, ``pdtrik`` overshoots above u = 1 - 1e-4 (at
# u = 1 - 1.05e-6, mu = 1.25e7 scipy gives 12,545,198 where pdtr(12,545,160) >= u
# already), and within 1e-10 of 1 the last bits decide. One row in a thousand takes
# scipy's slower route.
EXTREME_LOW = 1e-6
EXTREME_HIGH = 1e-3


def _open(u: Array) -> Array:
    return np.isfinite(u) & (u > EXTREME_LOW) & (u < 1.0 - EXTREME_HIGH)


def _broadcast(u: Any, *params: Any) -> tuple[Array, ...]:
    arrays = np.broadcast_arrays(np.asarray(u, dtype=float),
                                 *(np.asarray(a, dtype=float) for a in params))
    return tuple(np.ascontiguousarray(a).ravel() for a in arrays)


def poisson_ppf(u: Any, mu: Any) -> Array:
    """``scipy.stats.poisson.ppf(u, mu)``, exact, by search.

    Example:
        >>> import numpy as np
        >>> from scipy import stats
        >>> u = np.array([1e-9, 0.2, 0.5, 0.999999, 0.0, 1.0])
        >>> mu = np.array([0.3, 4.0, 2.5e5, 12.0, 3.0, 3.0])
        >>> bool(np.array_equal(poisson_ppf(u, mu), stats.poisson.ppf(u, mu)))
        True
    """
    shape = np.broadcast_shapes(np.shape(u), np.shape(mu))
    q, m = _broadcast(u, mu)
    valid = _open(q) & np.isfinite(m) & (m > 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(m)
        guess = _cornish_fisher(q, m, sd, 1.0 / sd)

    def fallback(uu: Array, ps: tuple[Array, ...]) -> Array:
        from scipy import stats
        return np.asarray(stats.poisson.ppf(uu, *ps), dtype=float)

    out = _search(q, (m,), valid, guess, lambda k, mm: special.pdtr(k, mm), fallback)
    return out.reshape(shape)
