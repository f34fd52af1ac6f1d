"""Root-dependency factors: how a synthetic SCM's roots depend on one another.

Four kinds (CausalArena appendix A.1). Each draw returns the root block that carries
the dependence; every root keeps its own marginal family, and the block's copula
supplies the joint structure (with normal marginals this is exactly the reference's
Gaussian block):

- ``independent``: no dependence (the block only standardises the roots);
- ``common_factor``: a Gaussian copula with correlation s_i s_j rho, one rho in
  [0.25, 0.75] and a random sign s_i per root;
- ``random_covariance``: a Gaussian copula with the correlation of L L^T + 0.15 I,
  L an r x q standard-normal matrix, latent dimension q uniform in 1..r;
- ``uniform_ball``: the copula of a uniform draw from the unit r-ball (radius U^(1/r)).
  The reference also draws a scale in [0.75, 2] and a centre in [-0.5, 0.5]^r and then
  standardises the columns; standardising cancels both exactly, so they are not stored.

Blocks hold at least two roots; with fewer roots a dependent kind falls back to
``independent`` and says so in the block's reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from scmspec.registry import Registry
from scmspec.synthetic.nodes.draw import r6, r6s, uniform
from scmspec.synthetic.rng import Rng

Block = dict[str, Any]
COVARIANCE_JITTER = 0.15


@dataclass(frozen=True)
class Dependency:
    """A root-dependency kind: draw(roots, rng) -> root block (without loc/scale)."""

    tag: str
    doc: str
    ranges: dict[str, tuple[float, float]]
    draw: Callable[[tuple[str, ...], Rng], Block]


def _independent(roots: tuple[str, ...], rng: Rng) -> Block:
    return {"kind": "independent", "variables": list(roots),
            "reason": "synthetic: independent roots, standardised"}


def _common_factor(roots: tuple[str, ...], rng: Rng) -> Block:
    rho = uniform(rng, 0.25, 0.75)
    signs = rng.choice([-1.0, 1.0], size=len(roots))
    corr = rho * np.outer(signs, signs)
    np.fill_diagonal(corr, 1.0)
    return {"kind": "gaussian_copula", "variables": list(roots),
            "correlation": [r6s(row) for row in corr],
            "reason": f"synthetic: common-factor Gaussian copula, rho = {rho}, random signs"}


def _random_covariance(roots: tuple[str, ...], rng: Rng) -> Block:
    r = len(roots)
    q = int(rng.integers(1, r + 1))
    low = rng.standard_normal((r, q))
    cov = low @ low.T + COVARIANCE_JITTER * np.eye(r)
    sd = np.sqrt(np.diag(cov))
    corr = cov / np.outer(sd, sd)
    rounded = [r6s(row) for row in corr]
    for i in range(r):  # exact ones and exact symmetry after rounding
        rounded[i][i] = 1.0
        for j in range(i):
            rounded[i][j] = rounded[j][i]
    return {"kind": "gaussian_copula", "variables": list(roots), "correlation": rounded,
            "reason": f"synthetic: random-covariance Gaussian copula, LL^T + "
                      f"{COVARIANCE_JITTER} I, latent dimension {q}"}


def _uniform_ball(roots: tuple[str, ...], rng: Rng) -> Block:
    return {"kind": "uniform_ball", "variables": list(roots),
            "reason": f"synthetic: uniform-ball copula in {len(roots)} dimensions"}


ROOT_DEPENDENCIES: Registry[Dependency] = Registry("root dependency")
for _tag, _doc, _ranges, _draw in (
    ("independent", "independent roots", {}, _independent),
    ("common_factor", "Gaussian copula, correlation s_i s_j rho", {"rho": (0.25, 0.75)},
     _common_factor),
    ("random_covariance", "Gaussian copula of LL^T + 0.15 I, latent dimension 1..r",
     {"latent_dim": (1, np.inf)}, _random_covariance),
    ("uniform_ball", "copula of a uniform draw from the unit ball", {}, _uniform_ball),
):
    ROOT_DEPENDENCIES.add(_tag, Dependency(_tag, _doc, {k: (float(lo), float(hi)) for k, (lo, hi)
                                                        in _ranges.items()}, _draw))


def draw_block(kind: str, roots: tuple[str, ...], rng: Rng) -> Block:
    """The root block of ``kind`` over ``roots`` (independent when fewer than two roots).

    Example:
        >>> from scmspec.synthetic.rng import stream
        >>> b = draw_block("common_factor", ("a", "b"), stream(0, "k"))
        >>> b["kind"], b["correlation"][0][0], 0.25 <= abs(b["correlation"][0][1]) <= 0.75
        ('gaussian_copula', 1.0, True)
    """
    if kind != "independent" and len(roots) < 2:
        block = _independent(roots, rng)
        block["reason"] = f"synthetic: {kind} needs two roots; one root is independent"
        return block
    return ROOT_DEPENDENCIES.lookup(kind).draw(roots, rng)


def standardised(block: Block, loc: list[float], scale: list[float]) -> Block:
    """The block with its roots' fixed standardisation (pilot moments, 6 digits)."""
    return {**block, "loc": [r6(v) for v in loc], "scale": [r6(max(s, 1e-12)) for s in scale]}
