"""Build oracle cards programmatically (dimensionless variables, fixed seeds)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import scmspec
from scmspec.compiler.spec import Card
from scmspec.samplers.scm import SCM


def card(variables: dict[str, Any], edges: list[tuple[str, str]] | None = None,
         card_id: str = "oracle", **extra: Any) -> Card:
    """A valid Card from plain dicts; edges get a placeholder reason."""
    return Card.model_validate({
        "id": card_id, "title": card_id, "family": "synthetic", "domain": "oracle",
        "variables": variables,
        "edges": [{"from": a, "to": b, "reason": "oracle"} for a, b in edges or []], **extra})


def compile_card(variables: dict[str, Any], edges: list[tuple[str, str]] | None = None,
                 **extra: Any) -> SCM:
    return scmspec.compile(card(variables, edges, **extra))


@dataclass(frozen=True)
class LinearGaussian:
    """X = B^T X + E, E ~ N(m, D); B[i, j] weighs edge i -> j; nodes in topological order."""

    names: tuple[str, ...]
    weights: np.ndarray  # B, strictly upper triangular
    means: np.ndarray  # m: intercepts (root means)
    sds: np.ndarray  # sqrt(diag(D))

    def transfer(self, weights: np.ndarray) -> np.ndarray:
        """A = (I - B^T)^-1, so that X = A E."""
        return np.linalg.inv(np.eye(len(self.names)) - weights.T)

    def moments(self, do: dict[str, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Population mean and covariance, after column surgery for do(x = c)."""
        b, m, d = self.weights.copy(), self.means.copy(), self.sds.copy() ** 2
        for name, value in (do or {}).items():
            j = self.names.index(name)
            b[:, j] = 0.0  # cut x's incoming edges
            m[j], d[j] = value, 0.0  # x = c exactly
        a = self.transfer(b)
        return a @ m, a @ np.diag(d) @ a.T

    def card(self, handlers: dict[str, dict[str, Any]] | None = None, **extra: Any) -> Card:
        """The card; every variable is intervenable, by do(1.5) unless ``handlers`` says."""
        variables: dict[str, Any] = {}
        edges = []
        for j, name in enumerate(self.names):
            parents = [i for i in range(j) if self.weights[i, j] != 0.0]
            handler = (handlers or {}).get(name, {"kind": "do", "value": 1.5})
            iv = {"intervention": {"meaning": f"set {name}", "handler": handler}}
            if not parents:
                variables[name] = {"meaning": name, "distribution": {
                    "kind": "normal", "mean": float(self.means[j]), "sd": float(self.sds[j])},
                    **iv}
                continue
            terms = [repr(float(self.means[j]))] + [
                f"{float(self.weights[i, j])!r} * {self.names[i]}" for i in parents]
            variables[name] = {"meaning": name, "equation": " + ".join(terms),
                               "noise": {"kind": "normal", "sd": float(self.sds[j])}, **iv}
            edges += [(self.names[i], name) for i in parents]
        # Declare in reverse: the compiler must not care about declaration order.
        return card(dict(reversed(list(variables.items()))), edges, card_id="lingauss", **extra)


def random_linear_gaussian(d: int, seed: int, density: float = 0.6) -> LinearGaussian:
    rng = np.random.default_rng(seed)
    mask = np.triu(rng.random((d, d)) < density, k=1)
    weights = np.where(mask, rng.choice([-1.0, 1.0], (d, d)) * rng.uniform(0.3, 1.2, (d, d)), 0.0)
    means = rng.uniform(-2.0, 2.0, d)
    sds = rng.uniform(0.5, 1.5, d)
    # Node names deliberately not in topological order alphabetically.
    names = tuple(f"{'qwertyuiop'[k]}{k}" for k in rng.permutation(d))
    return LinearGaussian(names, weights, means, sds)
