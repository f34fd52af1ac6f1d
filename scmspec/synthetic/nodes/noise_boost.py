"""The high-noise stressor: extra Gaussian noise of sd 0.35 after a node's own noise.

A card gives each node one noise kind, so the extra term is folded into the node's
noise where that is exact, and matched in variance where it is not:

- exact: ``none`` becomes N(0, 0.35); the Gaussian part of ``normal``, ``target_r2``,
  ``mixture_outlier`` (both components), ``quantised`` and ``censored`` gets
  sd' = sqrt(sd^2 + 0.35^2) (for the last two the extra term then passes through
  the rounding or clipping; censoring bounds are refitted to the noisier pilot);
- variance-matched, same family: ``uniform``, ``laplace``, ``student_t``, ``beta``,
  ``exponential``, ``gumbel`` (their scale grows so the variance grows by 0.35^2), and,
  from the node's pilot, ``lognormal`` (multiplicative), ``heteroskedastic`` (base) and
  ``rff_heteroskedastic`` (a constant feature shifts its latent function).

The node keeps its noise family tag, so slice reports still group it correctly.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from scmspec.compiler.kinds import noise as nz
from scmspec.compiler.kinds.mechanism_base import sigmoid, softplus
from scmspec.compiler.kinds.noise_base import NoiseBase
from scmspec.synthetic.nodes.draw import r6, r6s
from scmspec.synthetic.nodes.noise import CENSOR_PERCENTILES
from scmspec.synthetic.rng import Rng

Array = np.ndarray
EXTRA_SD = 0.35
V = EXTRA_SD**2


def _plus(sd: float) -> float:
    return r6(np.sqrt(sd**2 + V))


def louder(noise: NoiseBase, pilot: Array, parents: Mapping[str, Array], rng: Rng) -> NoiseBase:
    """``noise`` with 0.35^2 more variance (see the module docstring for how, per kind).

    Example:
        >>> louder(nz.NoNoise(), np.zeros(3), {}, None).sd, louder(nz.NormalNoise(sd=0.12),
        ...     np.zeros(3), {}, None).sd
        (0.35, 0.37)
    """
    kind = noise.kind  # type: ignore[attr-defined]
    f = np.asarray(pilot, dtype=float)
    d = noise.model_dump(by_alias=True)
    if kind == "none":
        return nz.NormalNoise(sd=EXTRA_SD)
    if kind in ("normal", "target_r2", "quantised"):
        return type(noise).model_validate({**d, "sd": _plus(d["sd"])})
    if kind == "mixture_outlier":
        return type(noise).model_validate({**d, "sd": _plus(d["sd"]),
                                           "outlier_scale": _plus(d["outlier_scale"])})
    if kind == "censored":
        sd = _plus(d["sd"])
        low, high = np.percentile(f + rng.normal(0.0, sd, f.size), CENSOR_PERCENTILES)
        return type(noise).model_validate({**d, "sd": sd, "low": r6(low), "high": r6(high)})
    if kind in _SCALE_VARIANCE:
        factor = _SCALE_VARIANCE[kind](d)  # variance of the kind per unit scale^2
        return type(noise).model_validate({**d, "scale": r6(np.sqrt(d["scale"]**2 + V / factor))})
    if kind == "lognormal":
        return type(noise).model_validate({**d, "sigma": _lognormal_sigma(d["sigma"], f)})
    if kind == "heteroskedastic":
        return type(noise).model_validate({**d, "base": _hetero_base(d, f)})
    if kind == "rff_heteroskedastic":
        return _rff_shifted(noise, parents)
    raise ValueError(f"high_noise: no rule for noise kind {kind!r}")  # a new kind: add a rule


_SCALE_VARIANCE = {
    "uniform": lambda d: 1.0 / 3.0,
    "laplace": lambda d: 2.0,
    "student_t": lambda d: d["df"] / (d["df"] - 2.0) if d["df"] > 2 else 1.0,
    "beta": lambda d: d["a"] * d["b"] / ((d["a"] + d["b"]) ** 2 * (d["a"] + d["b"] + 1.0)),
    "exponential": lambda d: 1.0 / d["rate"] ** 2,
    "gumbel": lambda d: np.pi**2 / 6.0,
}


def _lognormal_sigma(sigma: float, f: Array) -> float:
    """sigma' with var(exp(N(0, sigma')) - 1) = var(...sigma) + 0.35^2 / E[f^2]."""
    m2 = float(np.mean(f**2)) or 1.0
    w = np.exp(sigma**2)
    target = (w - 1.0) * w + V / m2
    w_new = (1.0 + np.sqrt(1.0 + 4.0 * target)) / 2.0
    return r6(np.sqrt(np.log(w_new)))


def _hetero_base(d: dict[str, float], f: Array) -> float:
    """base' with E[(base' + slope g)^2] = E[(base + slope g)^2] + 0.35^2, g = sigmoid(|f|)."""
    g = sigmoid(np.abs(f))
    slope, base = d["slope"], d["base"]
    eg, eg2 = float(g.mean()), float((g**2).mean())
    target = float(np.mean((base + slope * g) ** 2)) + V
    return r6(-slope * eg + np.sqrt(max(slope**2 * eg**2 - slope**2 * eg2 + target, 0.0)))


def _rff_shifted(noise: NoiseBase, parents: Mapping[str, Array]) -> NoiseBase:
    """Add a constant feature (omega 0, phase 0) so softplus(g + c) gains 0.35^2 variance."""
    d = noise.model_dump(by_alias=True)
    f = len(d["phases"])
    scale = noise.scale(parents)  # type: ignore[attr-defined]
    latent = np.log(np.expm1(np.maximum(scale, 1e-12)))  # g itself: softplus^-1 of the scale
    target = float(np.mean(scale**2)) + V
    from scipy import optimize  # on first use: a second of start-up every command paid

    c = optimize.brentq(lambda c: float(np.mean(softplus(latent + c) ** 2)) - target, 0.0, 50.0)
    unit = d["output_scale"] * np.sqrt(2.0 / (f + 1))
    grow = np.sqrt((f + 1) / f)  # keeps the existing features' sum unchanged
    return type(noise).model_validate({
        **d, "omega": d["omega"] + [[0.0] * len(d["inputs"])], "phases": d["phases"] + [0.0],
        "weights": r6s(np.asarray(d["weights"]) * grow) + [r6(c / unit)]})
