"""The base of noise kinds and their registry.

Kept apart from the kind modules (``noise.py``, ``noise_shaped.py``) so each imports
the base without importing the other; ``noise.py`` gathers every kind into the one
``NoiseSpec`` union that ``spec.py`` uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

import numpy as np
from pydantic import Field

from scmspec.compiler.specmodel import SpecModel
from scmspec.registry import Registry

Array = np.ndarray
Positive = Annotated[float, Field(gt=0)]


class NoiseBase(SpecModel):
    """Common behaviour of noise kinds."""

    kind: str  # each noise kind narrows it to its own literal tag
    mode: Literal["additive", "multiplicative"] = "additive"

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:  # pragma: no cover
        raise NotImplementedError

    def apply(self, f: Array, eps: Array | None,
              parents: Mapping[str, Array] | None = None) -> Array:
        """Combine the mechanism's output f with the drawn term.

        ``parents`` maps each parent's name to its column; kinds whose scale depends on
        the inputs (``rff_heteroskedastic``) read it, the others ignore it.
        """
        if eps is None:
            return f
        return f + eps if self.mode == "additive" else f * (1.0 + eps)


NOISE: Registry[type[NoiseBase]] = Registry("noise")
