"""Mechanism factors: one draw per mechanism tag of the synthetic grid (16 tags).

Each draw takes the node's parents, a generator and ``strength`` and returns a
structured mechanism over exactly those parents. ``strength`` multiplies only the
output-side parameters (output weights, biases, offsets, leaf and bin values, output
scales), so the mechanism's output scales by exactly ``strength`` (up to rounding)
and the generator is consumed identically at every strength. Ranges below are those
of the reference grid at strength 1; names ending in ``_magnitude`` are |value|
before the documented scaling. Ranges the reference leaves open are ours and are
marked so in docs/synthetic-kinds.md.
"""

from __future__ import annotations

from itertools import combinations
from math import pi, sqrt
from typing import Any, Literal, TypeVar

import numpy as np
from scipy import special

from scmspec.compiler.kinds import mechanisms as m
from scmspec.compiler.kinds.mechanism_base import MechanismBase
from scmspec.compiler.kinds.mechanisms_activation import Activation, rank_levels
from scmspec.synthetic.nodes.draw import (
    MAGNITUDE,
    Rng,
    direction,
    integer,
    r6,
    r6s,
    signed,
    uniform,
)

Parents = tuple[str, ...]
Ranges = dict[str, tuple[float, float]]
T = TypeVar("T")
ACTIVATIONS: tuple[Activation, ...] = (
    "relu", "leaky_relu", "softplus", "sigmoid", "abs", "sign", "step", "hard_tanh", "relu6",
    "elu", "selu", "silu", "modulo", "round", "rank")
RESPONSES: tuple[Literal["tanh", "sin", "cos", "sigmoid"], ...] = ("tanh", "sin", "cos", "sigmoid")
EXP_LOG: tuple[Literal["exp", "signed_log"], ...] = ("exp", "signed_log")
SATURATIONS: tuple[Literal["tanh", "hard_clip", "softsign"], ...] = ("tanh", "hard_clip",
                                                                     "softsign")
AGGREGATES: tuple[Literal["max", "logsumexp"], ...] = ("max", "logsumexp")
RANK_POINTS = 21


def _pick(rng: Rng, options: tuple[T, ...]) -> T:
    """One of options, uniformly (typed, unlike rng.choice on strings)."""
    return options[int(rng.integers(len(options)))]


def _linear_weights(rng: Rng, k: int, s: float) -> list[float]:
    return r6s(signed(rng, k, 0.8 / sqrt(k)) * s)


def draw_linear(parents: Parents, rng: Rng, s: float) -> MechanismBase:
    w = _linear_weights(rng, len(parents), s)
    return m.LinearMechanism(weights=dict(zip(parents, w)), bias=r6(uniform(rng, -0.5, 0.5) * s))


def draw_polynomial(parents: Parents, rng: Rng, s: float) -> MechanismBase:
    k, degree = len(parents), integer(rng, 2, 4)
    c1 = signed(rng, k, 0.8 / sqrt(k))
    higher = [rng.uniform(-b, b, k) for b in (0.5, 0.15, 0.05)][: degree - 1]
    rows = np.column_stack([c1, *higher]) * s
    return m.PolynomialMechanism(inputs_=list(parents), coefficients=[r6s(r) for r in rows])


def draw_multiplicative(parents: Parents, rng: Rng, s: float) -> MechanismBase:
    k = len(parents)
    if k == 1 or rng.random() < 0.5:  # one parent: a plain product would be linear
        return m.FunctionProductMechanism(
            inputs_=list(parents), functions=[_pick(rng, RESPONSES) for _ in range(k)],
            slopes=r6s(signed(rng, k)), shifts=r6s(rng.uniform(-0.5, 0.5, k)),
            scale=r6(uniform(rng, 0.4, 1.6) * s))
    return m.ProductMechanism(inputs_=list(parents), weights=r6s(signed(rng, k)), offsets=None,
                              gain=r6(0.8 / sqrt(k) * s), bias=r6(uniform(rng, -0.4, 0.4) * s))


def draw_interaction(parents: Parents, rng: Rng, s: float) -> MechanismBase:
    k = len(parents)
    pool = list(combinations(parents, 2)) or [(parents[0], parents[0])]
    n_pairs = integer(rng, 1, min(3, len(pool)))
    pairs = [pool[i] for i in sorted(rng.choice(len(pool), n_pairs, replace=False))]
    return m.InteractionMechanism(
        inputs_=list(parents), weights=_linear_weights(rng, k, s), pairs=pairs,
        pair_weights=r6s(signed(rng, n_pairs, 0.5 / sqrt(n_pairs)) * s))


def draw_rational(parents: Parents, rng: Rng, s: float) -> MechanismBase:
    k = len(parents)
    return m.RationalMechanism(
        inputs_=list(parents), numerator=r6s(signed(rng, k, 1 / sqrt(k)) * s),
        numerator_bias=r6(uniform(rng, -0.5, 0.5) * s),
        denominator=r6s(signed(rng, k, 1 / sqrt(k))), denominator_offset=uniform(rng, 0.5, 1.5))


def draw_exp_log(parents: Parents, rng: Rng, s: float) -> MechanismBase:
    form = _pick(rng, EXP_LOG)
    return m.ExpLogMechanism(inputs_=list(parents), weights=direction(rng, len(parents)),
                             form=form, clip=3.0, scale=r6(signed(rng, 1)[0] * s))


def draw_periodic(parents: Parents, rng: Rng, s: float) -> MechanismBase:
    k = len(parents)
    return m.PeriodicMechanism(
        inputs_=list(parents), amplitudes=r6s(rng.uniform(*MAGNITUDE, k) * 0.8 / sqrt(k) * s),
        frequencies=r6s(rng.uniform(1.0, 3.0, k)), phases=r6s(rng.uniform(0, 2 * pi, k)))


def draw_piecewise(parents: Parents, rng: Rng, s: float) -> MechanismBase:
    w, cutoff = direction(rng, len(parents)), uniform(rng, -0.6, 0.6)
    lo, hi = rng.uniform(0.2, 1.0), rng.uniform(1.0, 2.5)
    o_lo, o_hi = rng.uniform(-1.5, 1.5, 2)
    return m.PiecewiseMechanism(inputs_=list(parents), weights=w, cutoff=cutoff,
                                slope_low=r6(lo * s), slope_high=r6(hi * s),
                                offset_low=r6(o_lo * s), offset_high=r6(o_hi * s))


def draw_saturation(parents: Parents, rng: Rng, s: float) -> MechanismBase:
    gain = rng.uniform(1.0, 2.0)
    w = r6s(np.asarray(direction(rng, len(parents))) * gain)
    return m.SaturationMechanism(inputs_=list(parents), weights=w,
                                 function=_pick(rng, SATURATIONS),
                                 scale=r6(uniform(rng, 0.8, 2.5) * s))


def draw_regime(parents: Parents, rng: Rng, s: float) -> MechanismBase:
    k = len(parents)
    return m.RegimeMechanism(
        inputs_=list(parents), gate_weights=direction(rng, k), gate_scale=uniform(rng, 1, 4),
        cutoff=uniform(rng, -0.5, 0.5), weights=direction(rng, k),
        alternate_weights=direction(rng, k), alternate_scale=uniform(rng, 0.5, 1.8), scale=r6(s))


def draw_neural(parents: Parents, rng: Rng, s: float) -> MechanismBase:
    k, units = len(parents), integer(rng, 3, 8)
    hidden = signed(rng, units * k, 1 / sqrt(k)).reshape(units, k)
    return m.MLPMechanism(
        inputs_=list(parents), hidden_weights=[r6s(row) for row in hidden],
        hidden_bias=r6s(rng.uniform(-1, 1, units)),
        output_weights=r6s(signed(rng, units, 1 / sqrt(units)) * s), activation="tanh")


def rff_features(rng: Rng, k: int) -> dict[str, object]:
    """64-256 random Fourier features over k inputs, length scale in [0.25, 3]."""
    n_features, length = integer(rng, 64, 256), uniform(rng, 0.25, 3.0)
    omega = rng.standard_normal((n_features, k)) / length
    return {"omega": [r6s(row) for row in omega], "length_scale": length,
            "phases": r6s(rng.uniform(0, 2 * pi, n_features)),
            "weights": r6s(rng.standard_normal(n_features))}


def draw_rff(parents: Parents, rng: Rng, s: float) -> MechanismBase:
    features = rff_features(rng, len(parents))
    output_scale = r6(uniform(rng, 0.4, 2.5) * s)
    return m.RFFMechanism.model_validate({"inputs": list(parents), **features,
                                          "output_scale": output_scale})


def draw_activation(parents: Parents, rng: Rng, s: float) -> MechanismBase:
    k, name = len(parents), _pick(rng, ACTIVATIONS)
    shifts = r6s(rng.uniform(-0.5, 0.5, k))
    # Every activation's parameter is drawn, so the stream never depends on the choice.
    drawn: dict[str, Any] = {
        "negative_slope": uniform(rng, 0.01, 0.3), "period": uniform(rng, 0.75, 3.0),
        "step": uniform(rng, 0.2, 1.0),
        # Standard-normal quantiles: the right grid for standardised parents; refit it
        # to a pilot of the actual parents with node_factors.fit_rank_grid.
        "rank_grid": [r6s(special.ndtri(rank_levels(RANK_POINTS)) - c) for c in shifts],
    }
    needs = {"leaky_relu": "negative_slope", "modulo": "period", "round": "step",
             "rank": "rank_grid"}
    extra = {needs[name]: drawn[needs[name]]} if name in needs else {}
    return m.ActivationMechanism.model_validate(
        {"inputs": list(parents), "activation": name, "shifts": shifts,
         "weights": _linear_weights(rng, k, s), **extra})


def draw_tree(parents: Parents, rng: Rng, s: float) -> MechanismBase:
    k, depth = len(parents), integer(rng, 2, 4)
    while 2**depth - 1 < k:  # every parent needs a split (depth 4 holds 15)
        depth += 1
    n_splits = 2**depth - 1
    splits = list(rng.choice(parents, n_splits))
    for parent, node in zip(parents, rng.permutation(n_splits)):
        splits[node] = parent
    return m.TreeMechanism(
        inputs_=list(parents), depth=depth, split_inputs=[str(p) for p in splits],
        thresholds=r6s(rng.uniform(-0.8, 0.8, n_splits)),
        leaf_values=r6s(rng.uniform(-1.5, 1.5, n_splits + 1) * s))


def draw_binned(parents: Parents, rng: Rng, s: float) -> MechanismBase:
    w, bins = direction(rng, len(parents)), integer(rng, 3, 7)
    cuts = sorted(set(r6s(rng.uniform(-1.5, 1.5, bins - 1))))
    while len(cuts) < bins - 1:  # a tie after rounding: practically never
        cuts = sorted(set(cuts) | {uniform(rng, -1.5, 1.5)})
    return m.BinnedMechanism(inputs_=list(parents), weights=w, cuts=cuts,
                             values=r6s(rng.uniform(-1.5, 1.5, bins) * s))


def draw_aggregation(parents: Parents, rng: Rng, s: float) -> MechanismBase:
    form = _pick(rng, AGGREGATES)
    temperature = uniform(rng, 0.3, 1.5)
    return m.AggregationMechanism(
        inputs_=list(parents), weights=r6s(signed(rng, len(parents))), form=form,
        temperature=temperature if form == "logsumexp" else None,
        anchor=uniform(rng, -0.5, 0.5), scale=r6(s))


W = {"weight_magnitude": MAGNITUDE}
MECHANISM_TABLE: tuple[tuple[str, str, Ranges, object], ...] = (
    ("linear", "bias + sum w_i x_i, |w_i| = 0.8/sqrt(k) * weight_magnitude (kind linear)",
     {**W, "bias": (-0.5, 0.5)}, draw_linear),
    ("polynomial", "additive polynomial of max power 2-4; linear terms as linear "
     "(kind polynomial)", {"degree": (2, 4), **W, "quadratic": (-0.5, 0.5),
                           "cubic": (-0.15, 0.15), "quartic": (-0.05, 0.05)}, draw_polynomial),
    ("multiplicative", "parent product, gain 0.8/sqrt(k) (kind product), or a product of "
     "tanh/sin/cos/sigmoid responses (kind function_product; always for one parent)",
     {**W, "bias": (-0.4, 0.4), "output_scale": (0.4, 1.6), "shift": (-0.5, 0.5)},
     draw_multiplicative),
    ("interaction", "linear main effects plus 1-3 pairwise products, |pair weight| = "
     "0.5/sqrt(#pairs) * weight_magnitude (kind interaction)", {"pairs": (1, 3), **W},
     draw_interaction),
    ("rational", "(a.x + b) / (d + |c.x|), |a_i|, |c_i| = weight_magnitude/sqrt(k) "
     "(kind rational)", {**W, "numerator_bias": (-0.5, 0.5), "denominator_offset": (0.5, 1.5)},
     draw_rational),
    ("exp_log", "scale * exp(clip(z, -3, 3)) or scale * signed-log(z), z a unit projection "
     "(kind exp_log)", {"clip": (3.0, 3.0), "scale_magnitude": MAGNITUDE}, draw_exp_log),
    ("trigonometric", "sum a_i sin(f_i x_i + phase_i), a_i = 0.8/sqrt(k) * weight_magnitude "
     "(kind periodic)", {**W, "frequency": (1.0, 3.0), "phase": (0.0, 2 * pi)}, draw_periodic),
    ("piecewise", "two linear pieces of a unit projection meeting at a cutoff, with offsets "
     "(kind piecewise)", {"cutoff": (-0.6, 0.6), "slope_low": (0.2, 1.0),
                          "slope_high": (1.0, 2.5), "offset": (-1.5, 1.5)}, draw_piecewise),
    ("saturation", "scale * tanh/hard_clip/softsign(gain * unit projection) (kind saturation)",
     {"scale": (0.8, 2.5), "input_gain": (1.0, 2.0)}, draw_saturation),
    ("regime", "two linear regimes blended by a logistic gate (kind regime)",
     {"gate_scale": (1.0, 4.0), "cutoff": (-0.5, 0.5), "alternate_scale": (0.5, 1.8)},
     draw_regime),
    ("neural", "one-hidden-layer tanh MLP (kind mlp)",
     {"hidden_units": (3, 8), "hidden_weight_magnitude": MAGNITUDE, "hidden_bias": (-1.0, 1.0),
      "output_weight_magnitude": MAGNITUDE}, draw_neural),
    ("rff", "random-Fourier-feature GP draw, features stored (kind rff)",
     {"features": (64, 256), "length_scale": (0.25, 3.0), "output_scale": (0.4, 2.5)},
     draw_rff),
    ("activation", "sum w_i act(x_i - shift_i), one of 15 activations (kind activation)",
     {**W, "shift": (-0.5, 0.5), "negative_slope": (0.01, 0.3), "period": (0.75, 3.0),
      "step": (0.2, 1.0)}, draw_activation),
    ("tree", "complete binary tree, every parent split on (kind tree)",
     {"depth": (2, 4), "threshold": (-0.8, 0.8), "leaf_value": (-1.5, 1.5)}, draw_tree),
    ("discretisation", "3-7 bins of a unit projection, a value per bin (kind binned)",
     {"bins": (3, 7), "cut": (-1.5, 1.5), "value": (-1.5, 1.5)}, draw_binned),
    ("aggregation", "scale * max or temperature-log-sum-exp of w_i x_i and an anchor "
     "(kind aggregation)", {"temperature": (0.3, 1.5), **W, "anchor": (-0.5, 0.5)},
     draw_aggregation),
)
