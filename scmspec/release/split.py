"""The public/reserved split: balanced within each family, stratified, reproducible, stable.

Rules (docs/benchmarking.md):

* Each family is split on its own, so every family gets ``round(fraction x size)`` public SCMs
  (halves round up), as CausalArena's 500 / 50 / 50 of 1,000 / 100 / 100.
* Within a family, SCMs are grouped into strata (domain, or graph family x d) and each stratum
  gets ``floor(fraction x size)`` public SCMs; the family's remaining public places go to the
  strata with the largest remainders, so no stratum is off by more than one.
* Which SCMs of a stratum are public is decided by a key per SCM,
  ``sha256("scmspec.release/<seed>/<id>")``: the smallest keys are public. A key depends on
  the seed and the id only, never on the other SCMs, their order or the machine.
* SCMs that were public in the previous release stay public (published truth cannot be
  reserved again); a stratum that holds more of them than its quota keeps them all.
"""

from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

PARTS = ("public", "reserved")


@dataclass(frozen=True)
class Unit:
    """What the split needs to know of an SCM."""

    id: str
    family: str
    stratum: str


def split_key(seed: int, name: str) -> str:
    """The order key of an SCM (or a stratum, for breaking ties between remainders).

    Example:
        >>> split_key(0, "a") == split_key(0, "a") != split_key(1, "a")
        True
    """
    return hashlib.sha256(f"scmspec.release/{seed}/{name}".encode()).hexdigest()


def family_target(size: int, fraction: float) -> int:
    """Public SCMs of a family: ``fraction x size`` rounded half up.

    Example:
        >>> family_target(5, 0.5), family_target(4, 0.5), family_target(3, 0.0)
        (3, 2, 0)
    """
    return min(size, math.floor(fraction * size + 0.5 + 1e-9))


def quotas(sizes: dict[str, int], fraction: float, seed: int,
           pinned: dict[str, int] | None = None) -> dict[str, int]:
    """Public places per stratum of one family (largest remainders; ties by seeded key).

    Example:
        >>> quotas({"a": 3, "b": 3, "c": 2}, 0.5, 0)
        {'a': 1, 'b': 2, 'c': 1}
    """
    pinned = pinned or {}
    base = {s: math.floor(fraction * n + 1e-9) for s, n in sizes.items()}
    left = family_target(sum(sizes.values()), fraction) - sum(base.values())
    order = sorted(sizes, key=lambda s: (-(fraction * sizes[s] - base[s]), split_key(seed, s)))
    for s in order[:max(left, 0)]:
        base[s] += 1
    return {s: max(base[s], min(pinned.get(s, 0), sizes[s])) for s in sorted(sizes)}


def split(units: Sequence[Unit], fraction: float = 0.5, seed: int = 0,
          keep_public: Iterable[str] = ()) -> dict[str, str]:
    """``id -> "public" | "reserved"`` for every unit (rules in the module docstring).

    Example:
        >>> units = [Unit(f"s{i}", "synthetic", "graph=chain,d=10") for i in range(4)]
        >>> parts = split(units, 0.5, seed=7)
        >>> sorted(parts.values())
        ['public', 'public', 'reserved', 'reserved']
        >>> split(units, 0.5, seed=7) == parts
        True
    """
    keep = set(keep_public)
    parts: dict[str, str] = {}
    families: dict[str, list[Unit]] = defaultdict(list)
    for u in units:
        families[u.family].append(u)
    for members in families.values():
        strata: dict[str, list[Unit]] = defaultdict(list)
        for u in members:
            strata[u.stratum].append(u)
        pinned = {s: sum(u.id in keep for u in us) for s, us in strata.items()}
        quota = quotas({s: len(us) for s, us in strata.items()}, fraction, seed, pinned)
        for s, us in strata.items():
            ranked = sorted(us, key=lambda u: (u.id not in keep, split_key(seed, u.id)))
            for i, u in enumerate(ranked):
                parts[u.id] = "public" if i < quota[s] else "reserved"
    return parts
