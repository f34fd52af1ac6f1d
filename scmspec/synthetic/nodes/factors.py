"""Node-level factors of the synthetic grid: mechanism, noise and root families.

The contract the grid generator builds on. Each factor is a frozen record holding
its tag (the family name used in slice reports), a one-line doc, the parameter ranges
it draws from (those of CausalArena appendix A.1, see docs/synthetic-kinds.md) and a
``draw`` function that returns a concrete, fully numeric spec:

- ``MECHANISM_FACTORS`` (16): ``draw(parents, rng, strength)`` -> a structured
  mechanism over exactly ``parents``; ``strength`` (1.0, or 0.45 for the weak-signal
  stressor) multiplies the mechanism's output.
- ``NOISE_FACTORS`` (15): ``draw(rng, pilot_signal, parents)`` -> a noise spec; the
  pilot signal (the node's mechanism output on a pilot sample) fixes the concrete sd
  of ``target_r2_gaussian`` and the bounds of ``censored``.
- ``ROOT_FACTORS`` (14): ``draw(rng)`` -> (root distribution, variable kind).

Draws read only the generator they are given, so a seeded generator gives the same
spec every time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from scmspec.compiler.kinds.mechanism_base import MechanismBase
from scmspec.compiler.kinds.mechanisms_activation import ActivationMechanism, rank_levels
from scmspec.compiler.kinds.noise_base import NoiseBase
from scmspec.compiler.kinds.roots import RootBase
from scmspec.registry import Registry
from scmspec.synthetic.nodes.draw import r6, r6s
from scmspec.synthetic.nodes.mechanisms import MECHANISM_TABLE
from scmspec.synthetic.nodes.noise import NOISE_TABLE
from scmspec.synthetic.nodes.roots import ROOT_TABLE

MechanismSpecModel = MechanismBase
NoiseSpecModel = NoiseBase
RootSpecModel = RootBase
Ranges = dict[str, tuple[float, float]]

__all__ = ["MECHANISM_FACTORS", "NOISE_FACTORS", "ROOT_FACTORS", "MechanismFactor",
           "NoiseFactor", "RootFactor", "fit_input_range", "fit_rank_grid"]


@dataclass(frozen=True)
class MechanismFactor:
    """A mechanism family: draw(parents, rng, strength) -> structured mechanism."""

    tag: str
    doc: str
    ranges: Ranges
    draw: Callable[[tuple[str, ...], np.random.Generator, float], MechanismSpecModel]


@dataclass(frozen=True)
class NoiseFactor:
    """A noise family: draw(rng, pilot_signal, parents) -> noise spec."""

    tag: str
    doc: str
    ranges: Ranges
    draw: Callable[[np.random.Generator, np.ndarray, tuple[str, ...]], NoiseSpecModel]


@dataclass(frozen=True)
class RootFactor:
    """A root family: draw(rng) -> (root distribution, variable kind)."""

    tag: str
    doc: str
    ranges: Ranges
    draw: Callable[[np.random.Generator], tuple[RootSpecModel, str]]


F = TypeVar("F", MechanismFactor, NoiseFactor, RootFactor)


def _registry(family: str, factor: type[F], table: tuple[tuple[Any, ...], ...]) -> Registry[F]:
    registry: Registry[F] = Registry(family)
    for tag, doc, ranges, draw in table:
        registry.add(tag, factor(tag, doc, ranges, draw))
    return registry


MECHANISM_FACTORS = _registry("mechanism factor", MechanismFactor, MECHANISM_TABLE)
NOISE_FACTORS = _registry("noise factor", NoiseFactor, NOISE_TABLE)
ROOT_FACTORS = _registry("root factor", RootFactor, ROOT_TABLE)


def fit_rank_grid(mechanism: MechanismSpecModel,
                  pilot: Mapping[str, np.ndarray]) -> MechanismSpecModel:
    """Refit a ``rank`` activation's quantile grid to pilot columns of its parents.

    The ``activation`` factor stores standard-normal quantiles, right for
    standardised parents; a generator that has a pilot sample of the parents calls
    this so the fixed map matches the parents' actual distribution. Any other
    mechanism comes back unchanged.

    Example:
        >>> rng = np.random.default_rng(0)
        >>> mech = MECHANISM_FACTORS.lookup("linear").draw(("a",), rng, 1.0)
        >>> fit_rank_grid(mech, {"a": rng.normal(size=50)}) is mech
        True
    """
    if not isinstance(mechanism, ActivationMechanism) or mechanism.activation != "rank":
        return mechanism
    shifts = mechanism.shifts or [0.0] * len(mechanism.inputs_)
    levels = rank_levels(len(mechanism.rank_grid[0]))  # type: ignore[index]
    grid = [r6s(np.quantile(np.asarray(pilot[name], float) - c, levels))
            for name, c in zip(mechanism.inputs_, shifts)]
    data = mechanism.model_dump(by_alias=True)
    return ActivationMechanism.model_validate({**data, "rank_grid": grid})


def fit_input_range(mechanism: MechanismSpecModel,
                    pilot: Mapping[str, np.ndarray]) -> MechanismSpecModel:
    """Record the pilot's range of each parent on a superlinear mechanism (powers, products).

    The mechanism was scaled and checked on this pilot; ``input_range`` keeps it exact on
    those values and continues it logarithmically beyond them (``soft_range``), so a rare
    row far outside (a heavy noise tail) is not raised to the fourth power and passed on
    down a chain of such nodes. The bounds are rounded outwards, so every pilot value
    stays inside. Other mechanisms come back unchanged.

    Example:
        >>> rng = np.random.default_rng(0)
        >>> mech = MECHANISM_FACTORS.lookup("polynomial").draw(("a",), rng, 1.0)
        >>> fit_input_range(mech, {"a": np.array([-1.5, 0.2, 2.0])}).input_range
        [(-1.50005, 2.00006)]
    """
    if not mechanism.superlinear:
        return mechanism
    bounds = []
    for name in mechanism.inputs_:  # type: ignore[attr-defined]
        col = np.asarray(pilot[name], float)
        lo, hi = float(col.min()), float(col.max())
        span = hi - lo if hi > lo else 1.0
        bounds.append((r6(lo - 1e-5 * (span + abs(lo))), r6(hi + 1e-5 * (span + abs(hi)))))
    data = mechanism.model_dump(by_alias=True)
    return type(mechanism).model_validate({**data, "input_range": bounds})
