"""The base of noise kinds and their registry.

Kept apart from the kind modules (``noise.py``, ``noise_shaped.py``) so each imports
the base without importing the other; ``noise.py`` gathers every kind into the one
``NoiseSpec`` union that ``spec.py`` uses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, ClassVar, Literal, Union

import numpy as np
from pydantic import BeforeValidator, ConfigDict, Field

from scmspec.compiler.specmodel import SpecModel
from scmspec.registry import Registry

Array = np.ndarray
Positive = Annotated[float, Field(gt=0)]
# A scale parameter written as an expression over the variable's parents (heteroscedastic
# noise, e.g. ``sd: 0.02 * flow``); the compiler evaluates it per row (docs/card-language.md).
Expression = Annotated[str, Field(min_length=1, description="an expression over the "
                                  "variable's parents, in the variable's unit")]


def _number_if_numeric(value: Any) -> Any:
    # YAML 1.1 reads `1e308` (no dot) as text; such text was always a number here.
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


# A scale parameter: a positive number, or an expression (text that is not a number).
Scale = Annotated[Union[Positive, Expression], BeforeValidator(_number_if_numeric)]


class NoiseBase(SpecModel):
    """Common behaviour of noise kinds."""

    kind: str  # each noise kind narrows it to its own literal tag
    mode: Literal["additive", "multiplicative"] = "additive"
    # The parameter the draw scales linearly with (eps = value x the draw at value 1); only
    # it may be an expression over the parents. None: the kind has no such parameter.
    scale_field: ClassVar[str | None] = None

    def scale_expression(self) -> str | None:
        """The scale parameter's expression text, when it is written as one."""
        value = getattr(self, self.scale_field) if self.scale_field else None
        return value if isinstance(value, str) else None

    def scale_value(self) -> float:
        """The scale parameter as a number (an expression was lowered to 1 before drawing)."""
        value = getattr(self, self.scale_field or "")
        if isinstance(value, str):  # lower() replaces it; reaching here is our bug
            raise RuntimeError(f"noise {self.kind}: {self.scale_field} is still an expression")
        return float(value)

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


class ScaledNoise(NoiseBase):
    """A noise kind whose scale parameter is an expression over the parents (lowered form).

    Not a card kind: ``lower`` builds it from, say, ``{kind: normal, sd: 0.02 * flow}``.
    ``base`` is the card's kind with the scale set to 1, whose draw is linear in the scale,
    so eps = scale(parents) x base draw has, row by row, the law the card states. The scale
    must be positive on every row; a row where it is not stops sampling with SCM603,
    located at the expression (nothing is clamped).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)
    kind: str
    base: NoiseBase
    scale: Callable[..., Array]  # f(*inputs) -> the scale per row
    inputs: tuple[str, ...]
    variable: str
    text: str
    span: Any = None

    def draw(self, rng: np.random.Generator, n: int) -> Array | None:
        return self.base.draw(rng, n)

    def apply(self, f: Array, eps: Array | None,
              parents: Mapping[str, Array] | None = None) -> Array:
        if eps is None:  # pragma: no cover - every scaled kind draws
            return f
        scale = np.broadcast_to(self.scale(*[(parents or {})[p] for p in self.inputs]),
                                np.shape(eps))
        with np.errstate(invalid="ignore"):
            bad = int(np.count_nonzero(scale <= 0))
        if bad:
            from scmspec.errors import Diagnostic, SamplingError

            field = self.base.scale_field
            raise SamplingError([Diagnostic(
                "SCM603", f"the noise {field} of {self.variable!r} ({self.text}) is <= 0 on "
                f"{bad / max(scale.size, 1):.1%} of rows ({bad} of {scale.size})", self.span,
                f"{field} must be positive on every row; keep the expression positive for "
                "every value the parents take, e.g. add a floor: 0.1 + ...",
                f"variables.{self.variable}.noise.{field}")])
        return self.base.apply(f, eps * scale, parents)
