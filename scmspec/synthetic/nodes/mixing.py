"""Family mixing: how many mechanism, noise and root families an SCM uses, and which node
gets which (CausalArena appendix A.1, "Family mixing").

Active mechanism and noise families per SCM grow with d (2-4 at d = 10, 3-5 at 20, 4-6 at
30, 5-8 at 50, 6-10 at 100); active root families depend on the number of roots (1 for
one root, 1-2 for at most 3, 2-4 for at most 8, else 3-6). Nodes are then assigned so
every active family appears at least once when there are enough nodes, and the rest
uniformly: one SCM mixes heterogeneous local equations and noise channels.

Two rules keep every node able to pass the data gates: ``none`` noise goes to at most
10% of the non-root nodes, and only to nodes with at least two parents and a smooth,
non-saturating mechanism (a noiseless tree, bin or clip would pile mass on a few values,
and a noiseless one-parent map is a deterministic copy of its parent). A linear mechanism is
not eligible: without noise its column is an exact linear combination of its parents', the
correlation matrix of the dataset is singular, and a Fisher-z test refuses it (causal-learn's
PC failed on `chain.d100.02` for this reason).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from scmspec.synthetic.rng import Rng, sample

T = TypeVar("T")

FAMILY_COUNTS = {10: (2, 4), 20: (3, 5), 30: (4, 6), 50: (5, 8), 100: (6, 10)}
NONE_SHARE = 0.10
SMOOTH_MECHANISMS = frozenset({"polynomial", "multiplicative", "interaction",
                               "rational", "exp_log", "trigonometric", "piecewise", "regime",
                               "neural", "rff"})


def family_count_range(d: int) -> tuple[int, int]:
    """Active mechanism (or noise) families for d (other d: the next reference size up).

    Example:
        >>> family_count_range(10), family_count_range(100), family_count_range(200)
        ((2, 4), (6, 10), (6, 10))
    """
    return by_reference_size(FAMILY_COUNTS, d)


def by_reference_size(table: Mapping[int, T], d: int) -> T:
    """The entry of a table keyed by the reference sizes (10, 20, 30, 50, 100) for d:
    the smallest size >= d, or the largest size beyond it.

    Example:
        >>> by_reference_size({10: "a", 50: "b"}, 20), by_reference_size({10: "a"}, 99)
        ('b', 'a')
    """
    for size in sorted(table):
        if d <= size:
            return table[size]
    return table[max(table)]


def root_family_count_range(n_roots: int) -> tuple[int, int]:
    """Active root families for a number of roots.

    Example:
        >>> [root_family_count_range(k) for k in (1, 3, 8, 9)]
        [(1, 1), (1, 2), (2, 4), (3, 6)]
    """
    if n_roots <= 1:
        return (1, 1)
    if n_roots <= 3:
        return (1, 2)
    return (2, 4) if n_roots <= 8 else (3, 6)


def draw_families(pool: Sequence[str], count: tuple[int, int], rng: Rng) -> list[str]:
    """A uniform count in ``count``, then that many distinct families, in pool order.

    Example:
        >>> from scmspec.synthetic.rng import stream
        >>> len(draw_families(["a", "b", "c", "d"], (2, 2), stream(0, "k")))
        2
    """
    k = int(rng.integers(count[0], min(count[1], len(pool)) + 1))
    chosen = set(sample(rng, list(pool), k))
    return [f for f in pool if f in chosen]


def spread(nodes: Sequence[str], families: Sequence[str], rng: Rng) -> dict[str, str]:
    """Each node a family: every family at least once when possible, the rest uniform.

    Example:
        >>> from scmspec.synthetic.rng import stream
        >>> sorted(set(spread(["a", "b", "c"], ["f", "g"], stream(0, "k")).values()))
        ['f', 'g']
    """
    if not nodes:
        return {}
    if not families:
        raise ValueError("no family to assign")
    order = [families[int(i)] for i in rng.permutation(len(families))][: len(nodes)]
    order += [families[int(rng.integers(len(families)))] for _ in range(len(nodes) - len(order))]
    perm = rng.permutation(len(nodes))
    return {nodes[int(p)]: fam for p, fam in zip(perm, order)}


def assign_noise(nodes: Sequence[str], families: Sequence[str], mechanism: dict[str, str],
                 parents: dict[str, tuple[str, ...]], rng: Rng) -> dict[str, str]:
    """Noise families per non-root node, with ``none`` restricted (see module docstring).

    Example:
        >>> from scmspec.synthetic.rng import stream
        >>> assign_noise(["a"], ["none", "gaussian"], {"a": "polynomial"}, {"a": ("r",)},
        ...              stream(0, "k"))
        {'a': 'gaussian'}
    """
    others = [f for f in families if f != "none"] or ["gaussian"]
    quiet: list[str] = []
    if "none" in families:
        eligible = [v for v in nodes if len(parents[v]) >= 2 and mechanism[v] in
                    SMOOTH_MECHANISMS]
        budget = min(int(NONE_SHARE * len(nodes)), len(eligible))
        quiet = sample(rng, eligible, budget) if budget else []
    out = spread([v for v in nodes if v not in quiet], others, rng)
    out.update({v: "none" for v in quiet})
    return {v: out[v] for v in nodes}
