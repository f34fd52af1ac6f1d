"""Root factors: one draw per root family of the synthetic grid (14 families).

Each draw returns a root distribution and the variable kind it needs (``continuous``,
``binary``, ``count`` or ``ordinal``): the resolver refuses a discrete distribution on a
continuous variable and vice versa.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from scmspec.compiler.kinds import roots as rt
from scmspec.compiler.kinds.roots import RootBase
from scmspec.synthetic.nodes.draw import Rng, integer, r6, r6s, uniform

Ranges = dict[str, tuple[float, float]]
Drawn = tuple[RootBase, str]


def _uniform(rng: Rng) -> Drawn:
    return rt.UniformRoot(low=uniform(rng, -2, 0), high=uniform(rng, 0.5, 3)), "continuous"


def _gaussian(rng: Rng) -> Drawn:
    return rt.NormalRoot(mean=r6(rng.normal()), sd=uniform(rng, 0.5, 2)), "continuous"


def _truncated(rng: Rng) -> Drawn:
    # Truncated, not clipped: clipping would pile ~1.2% of rows on each bound.
    mean, sd = r6(rng.normal(0, 0.8)), uniform(rng, 0.4, 1.4)
    return rt.TruncatedNormalRoot(mean=mean, sd=sd, low=r6(mean - 2.5 * sd),
                                  high=r6(mean + 2.5 * sd)), "continuous"


def _lognormal(rng: Rng) -> Drawn:
    return rt.LognormalRoot(meanlog=uniform(rng, -0.3, 0.7),
                            sdlog=uniform(rng, 0.25, 0.9)), "continuous"


def _gamma(rng: Rng) -> Drawn:
    return rt.GammaRoot(shape=uniform(rng, 1, 5), rate=uniform(rng, 0.5, 2)), "continuous"


def _beta(rng: Rng) -> Drawn:
    return rt.BetaRoot(a=uniform(rng, 0.8, 5), b=uniform(rng, 0.8, 5), low=uniform(rng, -1, 0),
                       high=uniform(rng, 0.8, 3)), "continuous"


def _exponential(rng: Rng) -> Drawn:
    return rt.ExponentialRoot(rate=uniform(rng, 0.4, 2.5)), "continuous"


def _gumbel(rng: Rng) -> Drawn:
    return rt.GumbelRoot(loc=uniform(rng, -1, 1), scale=uniform(rng, 0.3, 1.8)), "continuous"


def _bernoulli(rng: Rng) -> Drawn:
    return rt.BernoulliRoot(p=uniform(rng, 0.15, 0.85)), "binary"


def _poisson(rng: Rng) -> Drawn:
    return rt.PoissonRoot(rate=uniform(rng, 1, 12)), "count"


def _ordinal(rng: Rng) -> Drawn:
    probs = r6s(special.softmax(rng.standard_normal(integer(rng, 3, 6))))
    probs[-1] = r6(1.0 - sum(probs[:-1]))  # sums to one within rounding of the others
    return rt.OrdinalRoot(probs=probs), "ordinal"


def _mixture(rng: Rng) -> Drawn:
    p = uniform(rng, 0.2, 0.8)
    means = [uniform(rng, -2, -0.2), uniform(rng, 0.2, 2)]
    return rt.GaussianMixtureRoot(weights=[p, 1.0 - p], means=means,
                                  sds=r6s(rng.uniform(0.3, 1.0, 2))), "continuous"


def _multinomial(rng: Rng) -> Drawn:
    logits = r6s(rng.uniform(-1.5, 1.5, integer(rng, 2, 10)))
    mean, sd = rt.MultinomialRoot(logits=logits).moments()
    return rt.MultinomialRoot(logits=logits, mean=r6(mean), sd=r6(sd)), "continuous"


def _zipf(rng: Rng) -> Drawn:
    size, alpha = integer(rng, 8, 20), uniform(rng, 2, 4)
    centre = rt.ZipfRoot(support_size=size, alpha=alpha, cap=10).mean_shift()
    return rt.ZipfRoot(support_size=size, alpha=alpha, cap=10, centre=r6(centre)), "continuous"


ROOT_TABLE: tuple[tuple[str, str, Ranges, object], ...] = (
    ("uniform", "U[low, high] (kind uniform)", {"low": (-2, 0), "high": (0.5, 3)}, _uniform),
    ("gaussian", "N(mean, sd), mean ~ N(0, 1) (kind normal)",
     {"mean": (-np.inf, np.inf), "sd": (0.5, 2)}, _gaussian),
    ("truncated_gaussian", "N(mean, sd) truncated at mean +- 2.5 sd, mean ~ N(0, 0.8^2) "
     "(kind truncated_normal)", {"mean": (-np.inf, np.inf), "sd": (0.4, 1.4)}, _truncated),
    ("lognormal", "exp(N(meanlog, sdlog)) (kind lognormal)",
     {"meanlog": (-0.3, 0.7), "sdlog": (0.25, 0.9)}, _lognormal),
    ("gamma", "Gamma(shape, rate) (kind gamma)", {"shape": (1, 5), "rate": (0.5, 2)}, _gamma),
    ("scaled_beta", "Beta(a, b) mapped onto [low, high] (kind beta)",
     {"a": (0.8, 5), "b": (0.8, 5), "low": (-1, 0), "high": (0.8, 3)}, _beta),
    ("exponential", "Exp(rate) (kind exponential)", {"rate": (0.4, 2.5)}, _exponential),
    ("gumbel", "Gumbel(loc, scale) (kind gumbel)", {"loc": (-1, 1), "scale": (0.3, 1.8)},
     _gumbel),
    ("bernoulli", "0/1 with P(1) = p (kind bernoulli, variable binary)", {"p": (0.15, 0.85)},
     _bernoulli),
    ("poisson", "Poisson(rate) counts (kind poisson, variable count)", {"rate": (1, 12)},
     _poisson),
    ("ordinal", "3-6 ordered levels, probabilities softmax of N(0, 1) logits "
     "(kind ordinal, variable ordinal)", {"levels": (3, 6)}, _ordinal),
    ("gaussian_mixture", "two Gaussians, weight p (kind gaussian_mixture)",
     {"p": (0.2, 0.8), "mean_low": (-2, -0.2), "mean_high": (0.2, 2), "sd": (0.3, 1)}, _mixture),
    ("multinomial", "2-10 unordered categories by softmax(logits), index standardised "
     "(kind multinomial)", {"categories": (2, 10), "logits": (-1.5, 1.5)}, _multinomial),
    ("zipf", "P(v) ~ v^-alpha on 1..support, capped at 10, centred (kind zipf)",
     {"support": (8, 20), "alpha": (2, 4), "cap": (10, 10)}, _zipf),
)
