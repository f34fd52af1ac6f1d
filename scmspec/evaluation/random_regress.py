"""RandomRegress: the random-order regression control of CausalArena.

A fixed-seed random causal order; each variable is regressed on every variable before it
with an L1 penalty, and the nonzero coefficients are its parents. It knows nothing about
the data-generating process beyond "some order, sparse linear support", so any method worth
its name should beat it; if it does not, the benchmark slice is telling you something.

Defaults (recorded with every run): columns standardised (mean 0, sd 1; a constant column
becomes 0), Lasso penalty ``alpha = 0.1`` on the scikit-learn scale
(``1 / (2n) ||y - X b||^2 + alpha ||b||_1``), coordinate descent to a change below 1e-8
(at most 1,000 sweeps), an edge where ``|b| > 1e-10``.
"""

from __future__ import annotations

import numpy as np

ALPHA = 0.1
TOL = 1e-8
MAX_SWEEPS = 1000
SUPPORT = 1e-10


def standardise(x: np.ndarray) -> np.ndarray:
    """Columns centred and scaled to unit variance; a constant column becomes all zeros.

    Example:
        >>> standardise(np.array([[1.0, 5.0], [3.0, 5.0]])).tolist()
        [[-1.0, 0.0], [1.0, 0.0]]
    """
    x = np.asarray(x, dtype=float)
    centred = x - x.mean(axis=0)
    sd = centred.std(axis=0)
    return np.divide(centred, sd, out=np.zeros_like(centred), where=sd > 0)


def lasso(gram: np.ndarray, corr: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
    """Coordinate descent for ``1/(2n)||y - Xb||^2 + alpha ||b||_1`` from ``X'X/n`` and ``X'y/n``.

    Working from the Gram matrix makes each sweep O(k^2) whatever n is.

    Example:
        >>> lasso(np.eye(2), np.array([0.5, -0.05]), alpha=0.1).round(6).tolist()
        [0.4, 0.0]
    """
    k = len(corr)
    b = np.zeros(k)
    diag = np.diag(gram)
    for _ in range(MAX_SWEEPS):
        largest = 0.0
        for j in range(k):
            if diag[j] <= 0:
                continue
            rho = corr[j] - gram[j] @ b + diag[j] * b[j]
            shrunk = abs(rho) - alpha  # soft threshold; exactly 0.0 (not -0.0) inside
            new = float(np.sign(rho)) * shrunk / diag[j] if shrunk > 0 else 0.0
            largest = max(largest, abs(new - b[j]))
            b[j] = new
        if largest < TOL:
            break
    return b


def random_regress(x: np.ndarray, seed: int, alpha: float = ALPHA) -> np.ndarray:
    """The 0/1 adjacency (row -> column) RandomRegress returns for data ``x`` (rows x columns).

    Example:
        >>> rng = np.random.default_rng(0)
        >>> a = rng.normal(size=500)
        >>> x = np.c_[a, 2 * a + 0.1 * rng.normal(size=500)]
        >>> int(random_regress(x, seed=3).sum())  # one edge, in the drawn order's direction
        1
    """
    z = standardise(x)
    n, d = z.shape
    order = np.random.default_rng(seed).permutation(d)
    gram = z.T @ z / max(n, 1)
    adjacency = np.zeros((d, d), dtype=np.int8)
    for k in range(1, d):
        target, before = order[k], order[:k]
        coef = lasso(gram[np.ix_(before, before)], gram[before, target], alpha)
        adjacency[before[np.abs(coef) > SUPPORT], target] = 1
    return adjacency
