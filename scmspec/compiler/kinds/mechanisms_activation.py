"""The activation-additive mechanism: bias + sum_i weights[i] * act(parent_i - shifts[i]).

Fifteen activations, as in the CausalArena grid. ``rank`` needs care: there it is
the within-batch rank of each value, a batch statistic, so a row's value would depend
on the other rows drawn with it (and on n), and an intervention on one row would move
the others. Here it is a *fixed* monotone map instead: the empirical CDF of a stored
quantile grid (one per input, normally the quantiles of a pilot sample of that parent),
scaled to (-1, 1). On data distributed like the pilot it equals the centred rank up to
grid resolution, and it stays a deterministic per-row function of the parents.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, ClassVar, Literal

import numpy as np
from pydantic import Field, model_validator

from scmspec.compiler.kinds.mechanism_base import (
    MECHANISMS,
    Core,
    VectorMechanism,
    sigmoid,
    softplus,
    vec,
)

Array = np.ndarray
Positive = Annotated[float, Field(gt=0)]
Activation = Literal["relu", "leaky_relu", "softplus", "sigmoid", "abs", "sign", "step",
                     "hard_tanh", "relu6", "elu", "selu", "silu", "modulo", "round", "rank"]

_SELU_ALPHA, _SELU_LAMBDA = 1.6732632423543772, 1.0507009873554805

_PLAIN: dict[str, Callable[[Array], Array]] = {
    "relu": lambda u: np.maximum(u, 0.0),
    "softplus": softplus,
    "sigmoid": sigmoid,
    "abs": np.abs,
    "sign": np.sign,
    "step": lambda u: (u >= 0).astype(float),
    "hard_tanh": lambda u: np.clip(u, -1.0, 1.0),
    "relu6": lambda u: np.clip(u, 0.0, 6.0),
    # expm1 of min(u, 0) avoids overflow warnings from the branch np.where discards.
    "elu": lambda u: np.where(u > 0, u, np.expm1(np.minimum(u, 0.0))),
    "selu": lambda u: _SELU_LAMBDA * np.where(u > 0, u, _SELU_ALPHA * np.expm1(np.minimum(u, 0.0))),
    "silu": lambda u: u * sigmoid(u),
}

# The parameter each activation needs (and no other activation may carry).
_NEEDS = {"leaky_relu": "negative_slope", "modulo": "period", "round": "step",
          "rank": "rank_grid"}


def rank_levels(m: int) -> Array:
    """The probabilities of an m-point rank grid: (j + 0.5) / m.

    Example:
        >>> rank_levels(4).tolist()
        [0.125, 0.375, 0.625, 0.875]
    """
    return (np.arange(m) + 0.5) / m


@MECHANISMS.register("activation")
class ActivationMechanism(VectorMechanism):
    """bias + sum_i weights[i] * act(parent_i - shifts[i]) with one activation for all inputs.

    Parameters by activation: ``leaky_relu`` negative_slope; ``modulo`` period (output
    (u mod period) - period / 2); ``round`` step (output step * round(u / step));
    ``rank`` rank_grid (per input, m increasing quantiles at probabilities (j + 0.5) / m;
    output 2 F(u) - 1 with F the grid's piecewise-linear CDF, see the module docstring).
    """

    kind: Literal["activation"] = "activation"
    activation: Activation
    weights: list[float]
    shifts: list[float] | None = Field(default=None, description="per input; default zeros")
    bias: float = 0.0
    negative_slope: float | None = Field(default=None, description="leaky_relu only")
    period: Positive | None = Field(default=None, description="modulo only")
    step: Positive | None = Field(default=None, description="round only")
    rank_grid: list[list[float]] | None = Field(default=None, description="rank only: per input, "
                                                "increasing pilot quantiles")
    family: ClassVar[str] = "activation"
    per_input: ClassVar[tuple[str, ...]] = ("weights", "shifts", "rank_grid")

    @model_validator(mode="after")
    def _parameters(self) -> ActivationMechanism:
        for act, field in _NEEDS.items():
            given = getattr(self, field) is not None
            if given != (self.activation == act):
                raise ValueError(f"{field} is required for activation {act!r} and only there")
        for row in self.rank_grid or []:
            if len(row) < 2 or any(b < a for a, b in zip(row, row[1:])):
                raise ValueError("each rank_grid row needs >= 2 nondecreasing quantiles")
        return self

    def core(self) -> Core:
        w = vec(self.weights)
        s = vec(self.shifts) if self.shifts is not None else np.zeros(len(w))
        act, bias = self._act(), self.bias
        return lambda x: bias + act(x - s) @ w

    def _act(self) -> Callable[[Array], Array]:
        name = self.activation
        if name in _PLAIN:
            return _PLAIN[name]
        if name == "leaky_relu":
            a = float(self.negative_slope)  # type: ignore[arg-type]
            return lambda u: np.where(u > 0, u, a * u)
        if name == "modulo":
            period = float(self.period)  # type: ignore[arg-type]
            return lambda u: np.mod(u, period) - period / 2
        if name == "round":
            step = float(self.step)  # type: ignore[arg-type]
            return lambda u: step * np.round(u / step)
        grids = [vec(row) for row in self.rank_grid]  # type: ignore[union-attr]
        probs = [rank_levels(len(g)) for g in grids]
        return lambda u: np.stack([2.0 * np.interp(u[:, i], g, p) - 1.0
                                   for i, (g, p) in enumerate(zip(grids, probs))], axis=1)
