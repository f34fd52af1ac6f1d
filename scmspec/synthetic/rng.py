"""Named random streams for generating SCMs: one generator per (seed, key, purpose...).

Everything a generator draws (graphs, families, parameters, stressor cells) comes
from a stream keyed by text, hashed with BLAKE2b, never by Python's ``hash()``
(salted per process) nor by position. Re-drawing a node after a failed check only
changes that node's ``attempt`` part of the key, so no other node's numbers move.
"""

from __future__ import annotations

import hashlib

import numpy as np

Rng = np.random.Generator


def stream(seed: int, key: str, *parts: object) -> Rng:
    """A fresh generator for (seed, key, parts), the same in every process and run.

    Example:
        >>> a = stream(1, "card", "graph", 0).random()
        >>> a == stream(1, "card", "graph", 0).random(), a == stream(1, "card", "graph", 1).random()
        (True, False)
    """
    text = "|".join(["scmspec-synth/1", str(seed), key, *map(str, parts)])
    digest = hashlib.blake2b(text.encode(), digest_size=32).digest()
    words = [int.from_bytes(digest[i:i + 8], "little") for i in range(0, 32, 8)]
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(words)))


def pick(rng: Rng, options: tuple[str, ...] | list[str]) -> str:
    """One option, uniformly (typed, unlike ``rng.choice`` on strings).

    Example:
        >>> pick(stream(0, "k"), ["a"])
        'a'
    """
    return options[int(rng.integers(len(options)))]


def sample(rng: Rng, options: tuple[str, ...] | list[str], k: int) -> list[str]:
    """k distinct options in a random order.

    Example:
        >>> sorted(sample(stream(0, "k"), ["a", "b", "c"], 3))
        ['a', 'b', 'c']
    """
    idx = rng.permutation(len(options))[:k]
    return [options[int(i)] for i in idx]
