"""Structured mechanisms: parametric kinds lowered straight to numpy.

Equations (``equation:``) are the way people write mechanisms. Generated
SCMs (the synthetic family) use structured kinds instead: their parameters
(weights, biases, hidden layers, random features, trees) are explicit numbers in the
card and in ``spec.json``, and they lower to a few numpy calls without sympy. Each kind
names its inputs (the variable's parents) and a mechanism family tag (the 16 tags of
the CausalArena synthetic grid) used by the ``mechanism_mix`` gate and by slice reports.

This module holds the additive and algebraic kinds and gathers every kind, including
those of ``mechanisms_nonlinear`` and ``mechanisms_activation``, into the one
``MechanismSpec`` union that ``spec.py`` uses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, ClassVar, Literal, Union

import numpy as np
from pydantic import Field, model_validator

from scmspec.compiler.kinds.mechanism_base import (
    MECHANISMS,
    Core,
    MechanismBase,
    VectorMechanism,
    positions,
    sigmoid,
    softplus,
    vec,
)
from scmspec.compiler.kinds.mechanisms_activation import ActivationMechanism
from scmspec.compiler.kinds.mechanisms_nonlinear import (
    AggregationMechanism,
    BinnedMechanism,
    PiecewiseMechanism,
    RegimeMechanism,
    RFFMechanism,
    SaturationMechanism,
    TreeMechanism,
)

Array = np.ndarray
Positive = Annotated[float, Field(gt=0)]

__all__ = [
    "MECHANISMS", "ActivationMechanism", "AggregationMechanism", "BinnedMechanism",
    "ExpLogMechanism", "FunctionProductMechanism", "InteractionMechanism", "LinearMechanism",
    "MLPMechanism", "MechanismBase", "MechanismSpec", "PeriodicMechanism", "PiecewiseMechanism",
    "PolynomialMechanism", "ProductMechanism", "RFFMechanism", "RationalMechanism",
    "RegimeMechanism", "SaturationMechanism", "TreeMechanism", "VectorMechanism",
]


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
        # Sum in the stored weights order, whatever order the parents come in, so the
        # floating-point result does not depend on the graph's topological order.
        idx = positions(list(self.weights), parents)
        w = np.array(list(self.weights.values()), dtype=float)
        bias = self.bias

        def evaluate(*cols: Array) -> Array:
            out = np.full(np.shape(cols[0]), bias, dtype=float)
            for wi, i in zip(w, idx):
                out += wi * cols[i]
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
        idx = positions(self.inputs_, parents)
        w = np.asarray(self.hidden_weights, dtype=float)
        b = np.asarray(self.hidden_bias, dtype=float)
        v = np.asarray(self.output_weights, dtype=float)
        act = _ACTIVATIONS[self.activation]
        ob = self.output_bias

        def evaluate(*cols: Array) -> Array:
            x = np.stack([np.asarray(cols[i], dtype=float) for i in idx], axis=1)
            return act(x @ w.T + b) @ v + ob

        return evaluate


_ACTIVATIONS: dict[str, Callable[[Array], Array]] = {
    "tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0), "sigmoid": sigmoid,
    "softplus": softplus}


@MECHANISMS.register("polynomial")
class PolynomialMechanism(VectorMechanism):
    """bias + sum_i sum_d coefficients[i][d] * parent_i ** (d + 1): an additive polynomial.

    Row i lists the coefficients of powers 1, 2, ... of input i; rows are equally long
    (pad with zeros), at most 6 powers.
    """

    kind: Literal["polynomial"] = "polynomial"
    coefficients: list[list[float]]
    bias: float = 0.0
    family: ClassVar[str] = "polynomial"
    per_input: ClassVar[tuple[str, ...]] = ("coefficients",)
    superlinear: ClassVar[bool] = True

    @model_validator(mode="after")
    def _rectangular(self) -> PolynomialMechanism:
        degrees = {len(row) for row in self.coefficients}
        if len(degrees) != 1 or not 1 <= degrees.pop() <= 6:
            raise ValueError("coefficients rows must be equally long, with 1 to 6 powers")
        return self

    def core(self) -> Core:
        c = np.asarray(self.coefficients, dtype=float)
        degree, flat, bias = c.shape[1], c.ravel(), self.bias

        def core(x: Array) -> Array:
            # cumprod gives x, x^2, ... by repeated multiplication, far faster than pow.
            xp = np.cumprod(np.repeat(x[:, :, None], degree, axis=2), axis=2)
            return bias + xp.reshape(len(x), -1) @ flat

        return core


@MECHANISMS.register("product")
class ProductMechanism(VectorMechanism):
    """bias + gain * prod_i (weights[i] * parent_i + offsets[i]): a parent product."""

    kind: Literal["product"] = "product"
    weights: list[float]
    offsets: list[float] | None = Field(default=None, description="per input; default zeros")
    gain: float = 1.0
    bias: float = 0.0
    family: ClassVar[str] = "multiplicative"
    per_input: ClassVar[tuple[str, ...]] = ("weights", "offsets")
    superlinear: ClassVar[bool] = True

    def core(self) -> Core:
        w = vec(self.weights)
        o = vec(self.offsets) if self.offsets is not None else np.zeros(len(w))
        gain, bias = self.gain, self.bias
        return lambda x: bias + gain * np.prod(x * w + o, axis=1)


_FUNCTIONS: dict[str, Callable[[Array], Array]] = {
    "tanh": np.tanh, "sin": np.sin, "cos": np.cos, "sigmoid": sigmoid}


@MECHANISMS.register("function_product")
class FunctionProductMechanism(VectorMechanism):
    """bias + scale * prod_i g_i(slopes[i] * parent_i + shifts[i]), g_i in tanh/sin/cos/sigmoid.

    A product of bounded random responses, so the output stays within +-scale of bias.
    """

    kind: Literal["function_product"] = "function_product"
    functions: list[Literal["tanh", "sin", "cos", "sigmoid"]]
    slopes: list[float]
    shifts: list[float]
    scale: float = 1.0
    bias: float = 0.0
    family: ClassVar[str] = "multiplicative"
    per_input: ClassVar[tuple[str, ...]] = ("functions", "slopes", "shifts")

    def core(self) -> Core:
        a, s = vec(self.slopes), vec(self.shifts)
        groups = [(_FUNCTIONS[name], [i for i, f in enumerate(self.functions) if f == name])
                  for name in sorted(set(self.functions))]
        scale, bias = self.scale, self.bias

        def core(x: Array) -> Array:
            u = x * a + s
            out = np.ones(len(x))
            for fn, cols in groups:
                out *= np.prod(fn(u[:, cols]), axis=1)
            return bias + scale * out

        return core


@MECHANISMS.register("interaction")
class InteractionMechanism(VectorMechanism):
    """bias + sum_i weights[i] * parent_i + sum_j pair_weights[j] * a_j * b_j over pairs (a_j, b_j).

    A pair may repeat one input (a squared term), which is how a single-parent node
    still gets a product term.
    """

    kind: Literal["interaction"] = "interaction"
    weights: list[float]
    pairs: list[tuple[str, str]] = Field(min_length=1, max_length=28)
    pair_weights: list[float]
    bias: float = 0.0
    family: ClassVar[str] = "interaction"
    per_input: ClassVar[tuple[str, ...]] = ("weights",)
    superlinear: ClassVar[bool] = True

    @model_validator(mode="after")
    def _pairs(self) -> InteractionMechanism:
        unknown = {n for pair in self.pairs for n in pair} - set(self.inputs_)
        if unknown:
            raise ValueError(f"pairs name {sorted(unknown)}, which are not inputs")
        if len(self.pair_weights) != len(self.pairs):
            raise ValueError(f"pair_weights needs {len(self.pairs)} entries (one per pair)")
        return self

    def core(self) -> Core:
        w, pw = vec(self.weights), vec(self.pair_weights)
        a = [self.inputs_.index(p[0]) for p in self.pairs]
        b = [self.inputs_.index(p[1]) for p in self.pairs]
        bias = self.bias
        return lambda x: bias + x @ w + (x[:, a] * x[:, b]) @ pw


@MECHANISMS.register("rational")
class RationalMechanism(VectorMechanism):
    """(numerator . parents + numerator_bias) / (denominator_offset + |denominator . parents|).

    Denominator-safe: the offset is positive, so the denominator never nears zero.
    """

    kind: Literal["rational"] = "rational"
    numerator: list[float]
    numerator_bias: float = 0.0
    denominator: list[float]
    denominator_offset: Positive = 1.0
    family: ClassVar[str] = "rational"
    per_input: ClassVar[tuple[str, ...]] = ("numerator", "denominator")

    def core(self) -> Core:
        a, c = vec(self.numerator), vec(self.denominator)
        b, d0 = self.numerator_bias, self.denominator_offset
        return lambda x: (x @ a + b) / (d0 + np.abs(x @ c))


@MECHANISMS.register("exp_log")
class ExpLogMechanism(VectorMechanism):
    """bias + scale * g(weights . parents): g = exp(clip(z, -clip, clip)) or sign(z) log(1 + |z|).

    Clipping the exponent keeps the output finite whatever the parents' tails.
    """

    kind: Literal["exp_log"] = "exp_log"
    weights: list[float]
    form: Literal["exp", "signed_log"]
    clip: Positive = 3.0
    scale: float = 1.0
    bias: float = 0.0
    family: ClassVar[str] = "exp_log"
    per_input: ClassVar[tuple[str, ...]] = ("weights",)

    def core(self) -> Core:
        w, c, scale, bias = vec(self.weights), self.clip, self.scale, self.bias
        if self.form == "exp":
            return lambda x: bias + scale * np.exp(np.clip(x @ w, -c, c))
        return lambda x: bias + scale * np.sign(x @ w) * np.log1p(np.abs(x @ w))


@MECHANISMS.register("periodic")
class PeriodicMechanism(VectorMechanism):
    """bias + sum_i amplitudes[i] * sin(frequencies[i] * parent_i + phases[i]) (radians)."""

    kind: Literal["periodic"] = "periodic"
    amplitudes: list[float]
    frequencies: list[float]
    phases: list[float]
    bias: float = 0.0
    family: ClassVar[str] = "trigonometric"
    per_input: ClassVar[tuple[str, ...]] = ("amplitudes", "frequencies", "phases")

    def core(self) -> Core:
        amp, freq, ph = vec(self.amplitudes), vec(self.frequencies), vec(self.phases)
        bias = self.bias
        return lambda x: bias + np.sin(x * freq + ph) @ amp


MechanismSpec = Annotated[
    Union[
        LinearMechanism, MLPMechanism, PolynomialMechanism, ProductMechanism,
        FunctionProductMechanism, InteractionMechanism, RationalMechanism, ExpLogMechanism,
        PeriodicMechanism, PiecewiseMechanism, SaturationMechanism, RegimeMechanism,
        RFFMechanism, ActivationMechanism, TreeMechanism, BinnedMechanism, AggregationMechanism,
    ],
    Field(discriminator="kind"),
]
