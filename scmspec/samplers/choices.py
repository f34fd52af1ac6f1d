"""Per-row choices the v2 card constructs add to a pass: which named handler a row gets,
and which value a level index stands for. Plain numpy, no per-row Python."""

from __future__ import annotations

import numpy as np

Array = np.ndarray


def choose_handlers(rows: Array, k: int, rng: np.random.Generator) -> Array:
    """Per row, the index of the named handler applied (-1 off the target's rows): the
    target's rows split among its k handlers as evenly as possible, in random order.

    Its own stream (purpose ``handler``) keeps cards without named handlers unchanged.

    Example:
        >>> rows = np.array([False, True, True, True, False, True])
        >>> pick = choose_handlers(rows, 2, np.random.default_rng(0))
        >>> pick[~rows].tolist(), sorted(pick[rows].tolist())
        ([-1, -1], [0, 0, 1, 1])
    """
    pick = np.full(rows.shape, -1, dtype=np.int64)
    m = int(rows.sum())
    pick[rows] = (np.arange(m) % k)[rng.permutation(m)]
    return pick


def to_level_values(values: tuple[float, ...], out: Array) -> None:
    """Level indices 0..k-1 in ``out`` become the levels' values, in place; anything else
    (not a whole index in range) becomes NaN, which the finite gate reports.

    Example:
        >>> x = np.array([0.0, 2.0, 1.0, 3.0])
        >>> to_level_values((8.0, 9.0, 10.0), x)
        >>> x.tolist()
        [8.0, 10.0, 9.0, nan]
    """
    k = len(values)
    with np.errstate(invalid="ignore"):
        valid = (out == np.round(out)) & (out >= 0) & (out < k)
    index = np.where(valid, out, 0).astype(np.intp)
    out[:] = np.where(valid, np.asarray(values, dtype=float)[index], np.nan)
