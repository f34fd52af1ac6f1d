"""Node types of the Heuresis mechanism families, each as card text plus a pilot evaluation.

Every builder takes the node's parents, their pilot columns, a generator and the
node's noise scale, and returns the variable's card fields (a structured mechanism
where a kind exists, an equation otherwise) and its pilot values. Parameters the
paper fixes are used as given (weights +-U[0.5, 2]; MLPs with 10 tanh units; the
input-dependent scale softplus(.) + 0.2; unit-norm projections z = w . x_pa; t_3
noise); the rest are ours and documented in docs/synthetic.md: MLP weights and
biases N(0, 1); piecewise knot at a pilot quantile U[0.2, 0.8] of z, slopes +-U[0.5, 2];
sigmoid tanh(a z), a ~ U[1, 3]; 50 random Fourier features, length scale U[0.5, 2];
input-dependent noise slope b ~ +-U[0.5, 2]. ``standardize`` (the wild family) rescales
and centres a scalar map's output with its pilot moments, stored as numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from scmspec.compiler.kinds.mechanism_base import random_features, softplus
from scmspec.synthetic.nodes.draw import r6, r6s
from scmspec.synthetic.rng import Rng

Array = np.ndarray
Cols = dict[str, Array]
HIDDEN = 10
FEATURES = 50


@dataclass(frozen=True)
class Built:
    """A node's card fields and pilot values."""

    fields: dict[str, Any]
    values: Array
    noise: str  # noise tag for the node record


def _x(parents: tuple[str, ...], cols: Cols) -> Array:
    return np.column_stack([cols[p] for p in parents])


def _unit(rng: Rng, k: int) -> Array:
    w = rng.standard_normal(k)
    return np.asarray(r6s(w / np.linalg.norm(w)))


def _signed(rng: Rng, k: int, lo: float, hi: float) -> Array:
    return np.asarray(r6s(rng.choice([-1.0, 1.0], k) * rng.uniform(lo, hi, k)))


def _term(coef: float, text: str) -> str:
    return f"{coef!r}*{text}"


def _affine_text(weights: Array, parents: tuple[str, ...], bias: float | None = None) -> str:
    terms = [_term(float(w), p) for w, p in zip(weights, parents)]
    if bias is not None:
        terms.insert(0, repr(float(bias)))
    return "(" + " + ".join(terms) + ")"


def _normal(sd: float) -> dict[str, Any]:
    return {"kind": "normal", "sd": sd}


def linear(parents: tuple[str, ...], cols: Cols, rng: Rng, sd: float, t3: bool = False) -> Built:
    """sum w_i x_i + e, w ~ +-U[0.5, 2]; e Gaussian, or sd x t_3 (``linear_t3``)."""
    w = _signed(rng, len(parents), 0.5, 2.0)
    noise = {"kind": "student_t", "df": 3.0, "scale": sd} if t3 else _normal(sd)
    eps = sd * (rng.standard_t(3, len(cols[parents[0]])) if t3 else
                rng.standard_normal(len(cols[parents[0]])))
    return Built({"mechanism": {"kind": "linear", "weights": dict(zip(parents, w.tolist()))},
                  "noise": noise}, _x(parents, cols) @ w + eps, "student_t" if t3 else "normal")


def _mlp(rng: Rng, k: int) -> tuple[Array, Array, Array]:
    return (np.asarray([r6s(row) for row in rng.standard_normal((HIDDEN, k))]),
            np.asarray(r6s(rng.standard_normal(HIDDEN))), np.asarray(r6s(rng.standard_normal(
                HIDDEN))))


def mlp(parents: tuple[str, ...], cols: Cols, rng: Rng, sd: float) -> Built:
    """A random one-hidden-layer MLP, 10 tanh units, plus N(0, sd)."""
    w, b, v = _mlp(rng, len(parents))
    f = np.tanh(_x(parents, cols) @ w.T + b) @ v
    mech = {"kind": "mlp", "inputs": list(parents), "hidden_weights": w.tolist(),
            "hidden_bias": b.tolist(), "output_weights": v.tolist(), "activation": "tanh"}
    return Built({"mechanism": mech, "noise": _normal(sd)},
                 f + rng.normal(0.0, sd, f.size), "normal")


def _mlp_text(w: Array, b: Array, v: Array, parents: tuple[str, ...], act: str) -> str:
    units = [f"{float(vk)!r}*{act}({_affine_text(wk, parents, float(bk))})"
             for wk, bk, vk in zip(w, b, v)]
    return "(" + " + ".join(units) + ")"


def hetero_mlp(parents: tuple[str, ...], cols: Cols, rng: Rng, sd: float) -> Built:
    """f(pa) + (softplus(g(pa)) + 0.2) e, f and g 10-unit tanh MLPs, e ~ N(0, sd)."""
    (wf, bf, vf), (wg, bg, vg) = _mlp(rng, len(parents)), _mlp(rng, len(parents))
    x = _x(parents, cols)
    f = np.tanh(x @ wf.T + bf) @ vf
    scale = softplus(np.tanh(x @ wg.T + bg) @ vg) + 0.2
    text = (f"{_mlp_text(wf, bf, vf, parents, 'tanh')} + (softplus("
            f"{_mlp_text(wg, bg, vg, parents, 'tanh')}) + 0.2)*normal(0, {sd!r})")
    return Built({"equation": text}, f + scale * rng.normal(0.0, sd, f.size), "input_dependent")


def _standardized(f: Array, standardize: bool) -> tuple[float, float]:
    """(a, c) with a f + c of pilot mean 0 and sd 1 (or (1, 0) when not standardising)."""
    if not standardize:
        return 1.0, 0.0
    sd = float(f.std()) or 1.0
    return r6(1.0 / sd), r6(-float(f.mean()) / sd)


def _with_noise(fields: dict[str, Any], f: Array, rng: Rng, sd: float) -> Built:
    return Built({**fields, "noise": _normal(sd)}, f + rng.normal(0.0, sd, f.size), "normal")


def piecewise(parents: tuple[str, ...], cols: Cols, rng: Rng, sd: float,
              standardize: bool = False, absolute: bool = False) -> Built:
    """Two linear pieces of z = w . x meeting at a knot (``abs``: |z|, knot 0, slopes -1, 1)."""
    w = _unit(rng, len(parents))
    z = _x(parents, cols) @ w
    if absolute:
        knot, lo, hi = 0.0, -1.0, 1.0
    else:
        knot = r6(np.quantile(z, rng.uniform(0.2, 0.8)))
        lo, hi = _signed(rng, 2, 0.5, 2.0).tolist()
    f = np.where(z < knot, lo * (z - knot), hi * (z - knot))
    a, c = _standardized(f, standardize)
    mech = {"kind": "piecewise", "weights": w.tolist(), "cutoff": knot, "slope_low": r6(a * lo),
            "slope_high": r6(a * hi), "offset_low": c, "offset_high": c,
            "inputs": list(parents)}
    return _with_noise({"mechanism": mech}, a * f + c, rng, sd)


def absolute(parents: tuple[str, ...], cols: Cols, rng: Rng, sd: float,
             standardize: bool = False) -> Built:
    """|z|, as a piecewise map."""
    return piecewise(parents, cols, rng, sd, standardize, absolute=True)


def sigmoid(parents: tuple[str, ...], cols: Cols, rng: Rng, sd: float,
            standardize: bool = False) -> Built:
    """tanh(a z), a ~ U[1, 3] (a saturating sigmoid of the projection)."""
    w = _unit(rng, len(parents)) * rng.uniform(1.0, 3.0)
    f = np.tanh(_x(parents, cols) @ w)
    a, c = _standardized(f, standardize)
    mech = {"kind": "saturation", "inputs": list(parents), "weights": r6s(w), "function": "tanh",
            "scale": a, "bias": c}
    return _with_noise({"mechanism": mech}, a * f + c, rng, sd)


def fourier(parents: tuple[str, ...], cols: Cols, rng: Rng, sd: float,
            standardize: bool = False) -> Built:
    """A random-Fourier-feature function of z: every feature's frequency is along w."""
    w = _unit(rng, len(parents))
    omega = np.outer(rng.standard_normal(FEATURES) / rng.uniform(0.5, 2.0), w)
    omega = np.asarray([r6s(row) for row in omega])
    phases, weights = np.asarray(r6s(rng.uniform(0, 2 * np.pi, FEATURES))), \
        np.asarray(r6s(rng.standard_normal(FEATURES)))
    f = random_features(_x(parents, cols), omega, phases, weights, 1.0)
    scale = r6(1.0 / (float(f.std()) or 1.0)) if standardize else 1.0  # no output bias slot
    mech = {"kind": "rff", "inputs": list(parents), "omega": omega.tolist(),
            "phases": phases.tolist(), "weights": weights.tolist(), "output_scale": scale}
    return _with_noise({"mechanism": mech}, scale * f, rng, sd)


def quadratic(parents: tuple[str, ...], cols: Cols, rng: Rng, sd: float,
              standardize: bool = False) -> Built:
    """z^2 (an equation: the structured kinds have no square of a projection)."""
    w = _unit(rng, len(parents))
    f = (_x(parents, cols) @ w) ** 2
    a, c = _standardized(f, standardize)
    text = f"{a!r}*{_affine_text(w, parents)}**2 + {c!r}"
    return _with_noise({"equation": text}, a * f + c, rng, sd)


def sigmoid_hetero(parents: tuple[str, ...], cols: Cols, rng: Rng, sd: float) -> Built:
    """tanh(a z) + (softplus(b z) + 0.2) e, e ~ N(0, sd): a sigmoid with input-dependent noise."""
    w = _unit(rng, len(parents))
    a, b = r6(rng.uniform(1.0, 3.0)), float(_signed(rng, 1, 0.5, 2.0)[0])
    z = _x(parents, cols) @ w
    zt = _affine_text(w, parents)
    text = f"tanh({a!r}*{zt}) + (softplus({b!r}*{zt}) + 0.2)*normal(0, {sd!r})"
    values = np.tanh(a * z) + (softplus(b * z) + 0.2) * rng.normal(0.0, sd, z.size)
    return Built({"equation": text}, values, "input_dependent")


Builder = Callable[..., Built]
NODE_TYPES: dict[str, tuple[Builder, bool]] = {  # builder, whether it takes ``standardize``
    "linear": (linear, False),
    "linear_t3": (lambda p, c, r, s: linear(p, c, r, s, t3=True), False),
    "mlp": (mlp, False),
    "hetero_mlp": (hetero_mlp, False),
    "piecewise": (piecewise, True),
    "abs": (absolute, True),
    "sigmoid": (sigmoid, True),
    "rff": (fourier, True),
    "quadratic": (quadratic, True),
    "sigmoid_hetero": (sigmoid_hetero, False),
}
