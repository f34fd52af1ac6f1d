"""Structured mechanisms: parametric kinds lowered straight to numpy.

Equations (``equation:``) are the way people write mechanisms. Generated
SCMs (the synthetic family) use structured kinds instead: their parameters
(weights, biases, hidden layers) are explicit numbers in the card and in
``spec.json``, and they lower to a few numpy calls without sympy. Each kind
names its inputs (the variable's parents) and a mechanism family tag used by
the ``mechanism_mix`` gate.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal, Union

import numpy as np
from pydantic import Field, model_validator

from scmspec.compiler.specmodel import SpecModel
from scmspec.registry import Registry

Array = np.ndarray


class MechanismBase(SpecModel):
    """Common behaviour of structured mechanisms."""

    family: ClassVar[str] = "other"

    def inputs(self) -> tuple[str, ...]:  # pragma: no cover - every kind overrides
        raise NotImplementedError

    def lower(self, parents: tuple[str, ...]) -> object:  # pragma: no cover
        """A callable f(*parent_arrays) -> array, parents in the given order."""
        raise NotImplementedError


MECHANISMS: Registry[type[MechanismBase]] = Registry("mechanism")


@MECHANISMS.register("linear")
class LinearMechanism(MechanismBase):
    """bias + sum_i weights[i] * parent_i."""

    kind: Literal["linear"] = "linear"
    weights: dict[str, float] = Field(min_length=1)
    bias: float = 0.0
    family: ClassVar[str] = "linear"

    def inputs(self) -> tuple[str, ...]:
        return tuple(self.weights)

    def lower(self, parents: tuple[str, ...]) -> object:
        w = np.array([self.weights[p] for p in parents])
        bias = self.bias

        def evaluate(*cols: Array) -> Array:
            out = np.full(cols[0].shape, bias) if bias else np.zeros(cols[0].shape)
            for wi, c in zip(w, cols):
                out += wi * c
            return out

        return evaluate


@MECHANISMS.register("mlp")
class MLPMechanism(MechanismBase):
    """One hidden layer: out_bias + sum_k v_k * act(sum_i W[k][i] * parent_i + b_k)."""

    kind: Literal["mlp"] = "mlp"
    inputs_: list[str] = Field(alias="inputs", min_length=1)
    hidden_weights: list[list[float]] = Field(min_length=1)
    hidden_bias: list[float]
    output_weights: list[float]
    output_bias: float = 0.0
    activation: Literal["tanh", "relu", "sigmoid", "softplus"] = "tanh"
    family: ClassVar[str] = "neural"

    @model_validator(mode="after")
    def _shapes(self) -> MLPMechanism:
        k, p = len(self.hidden_weights), len(self.inputs_)
        if any(len(row) != p for row in self.hidden_weights):
            raise ValueError(f"each hidden_weights row needs {p} entries (one per input)")
        if len(self.hidden_bias) != k or len(self.output_weights) != k:
            raise ValueError(f"hidden_bias and output_weights need {k} entries (hidden units)")
        return self

    def inputs(self) -> tuple[str, ...]:
        return tuple(self.inputs_)

    def lower(self, parents: tuple[str, ...]) -> object:
        order = [self.inputs_.index(p) for p in parents]
        w = np.asarray(self.hidden_weights, dtype=float)[:, order]
        b = np.asarray(self.hidden_bias, dtype=float)
        v = np.asarray(self.output_weights, dtype=float)
        act = _ACTIVATIONS[self.activation]
        ob = self.output_bias

        def evaluate(*cols: Array) -> Array:
            h = act(np.column_stack(cols) @ w.T + b)
            return h @ v + ob

        return evaluate


def _sigmoid(x: Array) -> Array:
    return 1.0 / (1.0 + np.exp(-x))


_ACTIVATIONS = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0), "sigmoid": _sigmoid,
                "softplus": lambda x: np.logaddexp(0.0, x)}

MechanismSpec = Annotated[Union[LinearMechanism, MLPMechanism], Field(discriminator="kind")]
