"""Noise factors: one draw per noise family of the synthetic grid (15 families).

Each draw takes a generator, the node's pilot signal (its mechanism output on a pilot
sample) and its parents. Only ``target_r2_gaussian`` and ``censored`` read the pilot,
to fix concrete numbers once (a noise sd, censoring bounds); the resulting kinds never
look at the batch being sampled. ``rff_heteroskedastic`` reads the parents' names.
"""

from __future__ import annotations

import numpy as np

from scmspec.compiler.kinds import noise as nz
from scmspec.compiler.kinds.noise_base import NoiseBase
from scmspec.synthetic.nodes.draw import Rng, r6, uniform
from scmspec.synthetic.nodes.mechanisms import rff_features

Parents = tuple[str, ...]
Ranges = dict[str, tuple[float, float]]
CENSOR_PERCENTILES = (3.0, 97.0)


def _gaussian(rng: Rng, pilot: np.ndarray, parents: Parents) -> NoiseBase:
    return nz.NormalNoise(sd=uniform(rng, 0.05, 0.45))


def _uniform(rng: Rng, pilot: np.ndarray, parents: Parents) -> NoiseBase:
    return nz.UniformNoise(scale=uniform(rng, 0.05, 0.45))


def _laplace(rng: Rng, pilot: np.ndarray, parents: Parents) -> NoiseBase:
    return nz.LaplaceNoise(scale=uniform(rng, 0.03, 0.35))


def _student_t(rng: Rng, pilot: np.ndarray, parents: Parents) -> NoiseBase:
    return nz.StudentTNoise(df=uniform(rng, 2.5, 8.0), scale=uniform(rng, 0.03, 0.30))


def _lognormal(rng: Rng, pilot: np.ndarray, parents: Parents) -> NoiseBase:
    return nz.LognormalNoise(sigma=uniform(rng, 0.03, 0.25), mode="multiplicative")


def _heteroskedastic(rng: Rng, pilot: np.ndarray, parents: Parents) -> NoiseBase:
    return nz.HeteroskedasticNoise(base=uniform(rng, 0.02, 0.15), slope=uniform(rng, 0.02, 0.20))


def _rff_heteroskedastic(rng: Rng, pilot: np.ndarray, parents: Parents) -> NoiseBase:
    if not parents:
        raise ValueError("rff_heteroskedastic noise needs at least one parent")
    features = rff_features(rng, len(parents))
    return nz.RFFHeteroskedasticNoise.model_validate(
        {"inputs": list(parents), **features, "output_scale": uniform(rng, 0.3, 1.8)})


def _pilot_variance(pilot: np.ndarray) -> float:
    """The pilot signal's variance, or 1 when it is (numerically) constant or empty."""
    v = float(np.var(pilot)) if np.size(pilot) > 1 else 0.0
    return v if np.isfinite(v) and v > 1e-12 else 1.0


def _target_r2(rng: Rng, pilot: np.ndarray, parents: Parents) -> NoiseBase:
    r2 = uniform(rng, 0.1, 0.9)
    sd = np.sqrt(_pilot_variance(pilot) * (1.0 - r2) / r2)
    return nz.TargetR2Noise(r2=r2, sd=r6(sd))


def _mixture_outlier(rng: Rng, pilot: np.ndarray, parents: Parents) -> NoiseBase:
    return nz.MixtureOutlierNoise(sd=uniform(rng, 0.02, 0.15),
                                  outlier_prob=uniform(rng, 0.01, 0.08),
                                  outlier_scale=uniform(rng, 0.8, 2.5))


def _quantised(rng: Rng, pilot: np.ndarray, parents: Parents) -> NoiseBase:
    return nz.QuantisedNoise(step=uniform(rng, 0.05, 0.35), sd=uniform(rng, 0.05, 0.45))


def _censored(rng: Rng, pilot: np.ndarray, parents: Parents) -> NoiseBase:
    pilot = np.asarray(pilot, dtype=float)
    if pilot.size < 2:
        raise ValueError("censored noise needs a pilot signal of at least 2 rows")
    sd = uniform(rng, 0.05, 0.45)
    noisy = pilot + rng.normal(0.0, sd, pilot.size)
    low, high = np.percentile(noisy, CENSOR_PERCENTILES)
    return nz.CensoredNoise(sd=sd, low=r6(low), high=r6(high))


def _beta(rng: Rng, pilot: np.ndarray, parents: Parents) -> NoiseBase:
    return nz.BetaNoise(a=uniform(rng, 1, 10), b=uniform(rng, 1, 10),
                        scale=uniform(rng, 0.05, 0.45))


def _exponential(rng: Rng, pilot: np.ndarray, parents: Parents) -> NoiseBase:
    return nz.ExponentialNoise(rate=uniform(rng, 0.8, 4.0), scale=uniform(rng, 0.03, 0.35))


def _gumbel(rng: Rng, pilot: np.ndarray, parents: Parents) -> NoiseBase:
    return nz.GumbelNoise(scale=uniform(rng, 0.03, 0.35))


def _none(rng: Rng, pilot: np.ndarray, parents: Parents) -> NoiseBase:
    return nz.NoNoise()


NOISE_TABLE: tuple[tuple[str, str, Ranges, object], ...] = (
    ("gaussian", "additive N(0, sd) (kind normal)", {"sd": (0.05, 0.45)}, _gaussian),
    ("uniform", "additive U[-scale, scale] (kind uniform)", {"scale": (0.05, 0.45)}, _uniform),
    ("laplace", "additive Laplace(scale) (kind laplace)", {"scale": (0.03, 0.35)}, _laplace),
    ("student_t", "additive scale * t(df) (kind student_t)",
     {"df": (2.5, 8.0), "scale": (0.03, 0.30)}, _student_t),
    ("multiplicative_lognormal", "f * exp(N(0, sigma)) (kind lognormal, mode multiplicative)",
     {"sigma": (0.03, 0.25)}, _lognormal),
    ("heteroskedastic", "(base + slope * sigmoid(|f|)) * N(0, 1) (kind heteroskedastic)",
     {"base": (0.02, 0.15), "slope": (0.02, 0.20)}, _heteroskedastic),
    ("rff_heteroskedastic", "softplus(RFF(parents)) * N(0, 1), features stored "
     "(kind rff_heteroskedastic)",
     {"features": (64, 256), "length_scale": (0.25, 3.0), "output_scale": (0.3, 1.8)},
     _rff_heteroskedastic),
    ("target_r2_gaussian", "N(0, sd), sd fixed from the pilot signal variance so that "
     "R2 = r2 (kind target_r2)", {"r2": (0.1, 0.9)}, _target_r2),
    ("mixture_outlier", "N(0, sd), with probability outlier_prob N(0, outlier_scale) "
     "(kind mixture_outlier)",
     {"sd": (0.02, 0.15), "outlier_prob": (0.01, 0.08), "outlier_scale": (0.8, 2.5)},
     _mixture_outlier),
    ("quantised", "step * round((f + N(0, sd)) / step) (kind quantised)",
     {"step": (0.05, 0.35), "sd": (0.05, 0.45)}, _quantised),
    ("censored", "clip(f + N(0, sd), low, high), bounds the pilot's 3rd/97th percentiles "
     "(kind censored)", {"sd": (0.05, 0.45), "percentiles": CENSOR_PERCENTILES}, _censored),
    ("beta", "scale * (Beta(a, b) - mean) (kind beta)",
     {"a": (1.0, 10.0), "b": (1.0, 10.0), "scale": (0.05, 0.45)}, _beta),
    ("exponential", "scale * (Exp(rate) - 1/rate) (kind exponential)",
     {"rate": (0.8, 4.0), "scale": (0.03, 0.35)}, _exponential),
    ("gumbel", "centred Gumbel(scale) (kind gumbel)", {"scale": (0.03, 0.35)}, _gumbel),
    ("none", "no noise, at most 10% of nodes (kind none)", {}, _none),
)
