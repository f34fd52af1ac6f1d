"""Small random draws shared by the node-factor modules.

Every drawn number is rounded to 6 significant digits, so generated cards stay
readable and the number in the card is exactly the number used.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

Rng = np.random.Generator

MAGNITUDE = (0.5, 1.5)
"""|weight| range where the reference grid fixes only a scaling (e.g. 0.8/sqrt(k)).

Drawing magnitudes away from zero keeps every parent's effect visible (no
near-unfaithful edges); a random sign gives the direction.
"""


def r6(x: float) -> float:
    """x rounded to 6 significant digits.

    Example:
        >>> r6(0.123456789)
        0.123457
    """
    return float(f"{float(x):.6g}")


def r6s(values: Iterable[float]) -> list[float]:
    """Each value rounded to 6 significant digits."""
    return [r6(v) for v in values]


def uniform(rng: Rng, lo: float, hi: float) -> float:
    """One U[lo, hi] draw, rounded."""
    return r6(rng.uniform(lo, hi))


def signed(rng: Rng, k: int, scale: float = 1.0) -> np.ndarray:
    """k weights: random sign x U[MAGNITUDE] x scale (unrounded; round after scaling)."""
    signs = rng.choice([-1.0, 1.0], size=k)
    return signs * rng.uniform(*MAGNITUDE, size=k) * scale


def direction(rng: Rng, k: int) -> list[float]:
    """A unit-norm projection whose components are signed U[MAGNITUDE] before normalising.

    Every component is then at least 1 / (3 sqrt(k)) in magnitude, so each parent
    moves the projection.
    """
    w = signed(rng, k)
    return r6s(w / np.linalg.norm(w))


def integer(rng: Rng, lo: int, hi: int) -> int:
    """A uniform integer in [lo, hi] (both ends included)."""
    return int(rng.integers(lo, hi + 1))
