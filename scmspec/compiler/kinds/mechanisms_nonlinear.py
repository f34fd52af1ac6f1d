"""Structured mechanisms with thresholds, gates, random features and trees.

Kinds for the piecewise, saturation, regime, RFF/GP, tree, discretisation and
aggregation families. Each reads its inputs as an ``n x p`` matrix (columns in the
stored ``inputs`` order) and evaluates with a few vectorised numpy calls; trees walk
their (at most six) levels for all rows at once, never row by row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, ClassVar, Literal

import numpy as np
from pydantic import Field, model_validator

from scmspec.compiler.kinds.mechanism_base import (
    MECHANISMS,
    Core,
    RandomFeatureFields,
    VectorMechanism,
    random_features,
    sigmoid,
    vec,
)

Array = np.ndarray
Positive = Annotated[float, Field(gt=0)]


@MECHANISMS.register("piecewise")
class PiecewiseMechanism(VectorMechanism):
    """Two linear pieces of z = weights . parents meeting at z = cutoff.

    Below the cutoff: offset_low + slope_low * (z - cutoff); at or above it:
    offset_high + slope_high * (z - cutoff). Unequal offsets give a jump (a threshold).
    """

    kind: Literal["piecewise"] = "piecewise"
    weights: list[float]
    cutoff: float = 0.0
    slope_low: float
    slope_high: float
    offset_low: float = 0.0
    offset_high: float = 0.0
    family: ClassVar[str] = "piecewise"
    per_input: ClassVar[tuple[str, ...]] = ("weights",)

    def core(self) -> Core:
        w, c = vec(self.weights), self.cutoff
        lo, hi = (self.slope_low, self.offset_low), (self.slope_high, self.offset_high)

        def core(x: Array) -> Array:
            z = x @ w - c
            return np.where(z < 0, lo[0] * z + lo[1], hi[0] * z + hi[1])

        return core


_SATURATIONS: dict[str, Callable[[Array], Array]] = {
    "tanh": np.tanh, "hard_clip": lambda z: np.clip(z, -1.0, 1.0),
    "softsign": lambda z: z / (1.0 + np.abs(z))}


@MECHANISMS.register("saturation")
class SaturationMechanism(VectorMechanism):
    """bias + scale * g(weights . parents), g = tanh, hard_clip (to [-1, 1]) or softsign."""

    kind: Literal["saturation"] = "saturation"
    weights: list[float]
    function: Literal["tanh", "hard_clip", "softsign"] = "tanh"
    scale: float = 1.0
    bias: float = 0.0
    family: ClassVar[str] = "saturation"
    per_input: ClassVar[tuple[str, ...]] = ("weights",)

    def core(self) -> Core:
        w, g, scale, bias = vec(self.weights), _SATURATIONS[self.function], self.scale, self.bias
        return lambda x: bias + scale * g(x @ w)


@MECHANISMS.register("regime")
class RegimeMechanism(VectorMechanism):
    """Two linear regimes blended by a logistic gate.

    g = sigmoid(gate_scale * (gate_weights . parents - cutoff));
    output = bias + scale * ((1 - g) * weights . parents
    + g * alternate_scale * alternate_weights . parents).
    """

    kind: Literal["regime"] = "regime"
    gate_weights: list[float]
    gate_scale: Positive
    cutoff: float = 0.0
    weights: list[float]
    alternate_weights: list[float]
    alternate_scale: float = 1.0
    scale: float = 1.0
    bias: float = 0.0
    family: ClassVar[str] = "regime"
    per_input: ClassVar[tuple[str, ...]] = ("gate_weights", "weights", "alternate_weights")

    def core(self) -> Core:
        m = np.stack([vec(self.gate_weights), vec(self.weights),
                      self.alternate_scale * vec(self.alternate_weights)], axis=1)
        gs, cut, scale, bias = self.gate_scale, self.cutoff, self.scale, self.bias

        def core(x: Array) -> Array:
            z = x @ m
            g = sigmoid(gs * (z[:, 0] - cut))
            return bias + scale * ((1.0 - g) * z[:, 1] + g * z[:, 2])

        return core


class _RandomFeatures(VectorMechanism, RandomFeatureFields):
    """Random-feature mechanism kinds: a named input list plus the stored feature matrix."""


@MECHANISMS.register("rff")
class RFFMechanism(_RandomFeatures):
    """output_scale * sqrt(2/F) * sum_j weights[j] * cos(omega[j] . parents + phases[j]).

    A random-Fourier-feature draw from a Gaussian process (RBF kernel); the F features
    are stored explicitly, so the function is fixed and reproducible.
    """

    kind: Literal["rff"] = "rff"
    family: ClassVar[str] = "rff"

    def core(self) -> Core:
        om, ph, w = self.features()
        scale = self.output_scale
        return lambda x: random_features(x, om, ph, w, scale)


@MECHANISMS.register("tree")
class TreeMechanism(VectorMechanism):
    """A complete binary regression tree stored as arrays, in heap order.

    Internal node j (0-based; children 2j+1, 2j+2) sends a row right when
    ``split_inputs[j] > thresholds[j]``; the row's value is ``leaf_values`` of the leaf
    it reaches. ``depth`` levels give 2^depth - 1 splits and 2^depth leaves.
    """

    kind: Literal["tree"] = "tree"
    depth: Annotated[int, Field(ge=1, le=6)]
    split_inputs: list[str]
    thresholds: list[float]
    leaf_values: list[float]
    family: ClassVar[str] = "tree"

    @model_validator(mode="after")
    def _tree_shape(self) -> TreeMechanism:
        splits = 2**self.depth - 1
        if len(self.split_inputs) != splits or len(self.thresholds) != splits:
            raise ValueError(f"depth {self.depth} needs {splits} split_inputs and thresholds")
        if len(self.leaf_values) != splits + 1:
            raise ValueError(f"depth {self.depth} needs {splits + 1} leaf_values")
        if set(self.split_inputs) != set(self.inputs_):
            raise ValueError("every input must be split on, and only inputs may be")
        return self

    def core(self) -> Core:
        feat = np.array([self.inputs_.index(s) for s in self.split_inputs])
        thr, leaves = vec(self.thresholds), vec(self.leaf_values)
        depth, first_leaf = self.depth, 2**self.depth - 1

        def core(x: Array) -> Array:
            rows, node = np.arange(len(x)), np.zeros(len(x), dtype=np.intp)
            for _ in range(depth):
                node = 2 * node + 1 + (x[rows, feat[node]] > thr[node])
            return leaves[node - first_leaf]

        return core


@MECHANISMS.register("binned")
class BinnedMechanism(VectorMechanism):
    """Discretisation: z = weights . parents falls in a bin cut at ``cuts``; output values[bin].

    ``cuts`` are increasing; bin b holds cuts[b-1] <= z < cuts[b] (bin 0 below the first
    cut), so B - 1 cuts give B bins and need B values.
    """

    kind: Literal["binned"] = "binned"
    weights: list[float]
    cuts: list[float] = Field(min_length=1)
    values: list[float]
    family: ClassVar[str] = "discretisation"
    per_input: ClassVar[tuple[str, ...]] = ("weights",)

    @model_validator(mode="after")
    def _bins(self) -> BinnedMechanism:
        if any(b <= a for a, b in zip(self.cuts, self.cuts[1:])):
            raise ValueError("cuts must be strictly increasing")
        if len(self.values) != len(self.cuts) + 1:
            raise ValueError(f"{len(self.cuts)} cuts make {len(self.cuts) + 1} bins: give "
                             "one value per bin")
        return self

    def core(self) -> Core:
        w, cuts, values = vec(self.weights), vec(self.cuts), vec(self.values)
        return lambda x: values[np.searchsorted(cuts, x @ w, side="right")]


@MECHANISMS.register("aggregation")
class AggregationMechanism(VectorMechanism):
    """bias + scale * agg(weights[i] * parent_i, ..., anchor).

    agg is ``max`` or the smooth maximum temperature * log(sum exp(term / temperature));
    the optional constant ``anchor`` joins the terms, so even one parent gets a kink.
    """

    kind: Literal["aggregation"] = "aggregation"
    weights: list[float]
    form: Literal["max", "logsumexp"]
    temperature: Positive | None = Field(default=None, description="logsumexp only")
    anchor: float | None = None
    scale: float = 1.0
    bias: float = 0.0
    family: ClassVar[str] = "aggregation"
    per_input: ClassVar[tuple[str, ...]] = ("weights",)

    @model_validator(mode="after")
    def _temperature(self) -> AggregationMechanism:
        if (self.form == "logsumexp") != (self.temperature is not None):
            raise ValueError("give temperature exactly when form is logsumexp")
        return self

    def core(self) -> Core:
        w, anchor, scale, bias = vec(self.weights), self.anchor, self.scale, self.bias
        t = self.temperature

        def core(x: Array) -> Array:
            terms = x * w
            if anchor is not None:
                terms = np.column_stack([terms, np.full(len(x), anchor)])
            if t is None:
                return bias + scale * terms.max(axis=1)
            return bias + scale * t * np.logaddexp.reduce(terms / t, axis=1)

        return core
