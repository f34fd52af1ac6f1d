"""The base of structured mechanisms, their registry and shared numeric helpers.

Kept apart from the kind modules (``mechanisms.py``, ``mechanisms_nonlinear.py``,
``mechanisms_activation.py``) so that each of them imports the base without importing
the others; ``mechanisms.py`` gathers every kind into the one ``MechanismSpec`` union.

Most kinds read a fixed list of ``inputs`` (the variable's parents) and hold per-input
parameter vectors in that order. The sampler hands parent columns over in the
resolver's (topological) order, which may differ, so :meth:`VectorMechanism.lower`
maps columns by name once, at lowering time, and the evaluate function only stacks
them into an ``n x p`` matrix before a handful of vectorised numpy calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, ClassVar

import numpy as np
from pydantic import Field, model_validator
from scipy import special

from scmspec.compiler.specmodel import SpecModel
from scmspec.registry import Registry

Array = np.ndarray
Core = Callable[[Array], Array]


class MechanismBase(SpecModel):
    """Common behaviour of structured mechanisms."""

    family: ClassVar[str] = "other"
    superlinear: ClassVar[bool] = False  # grows faster than its inputs (powers, products)

    def inputs(self) -> tuple[str, ...]:  # pragma: no cover - every kind overrides
        raise NotImplementedError

    def lower(self, parents: tuple[str, ...]) -> object:  # pragma: no cover
        """A callable f(*parent_arrays) -> array, parents in the given order."""
        raise NotImplementedError


MECHANISMS: Registry[type[MechanismBase]] = Registry("mechanism")


class VectorMechanism(MechanismBase):
    """A mechanism over a named input list with per-input parameter vectors.

    Subclasses list the names of their per-input fields in ``per_input`` (checked to
    have one entry per input) and implement :meth:`core`, a function of the ``n x p``
    input matrix whose columns follow ``inputs``.
    """

    inputs_: list[str] = Field(alias="inputs", min_length=1,
                               description="the parents read, in parameter order")
    input_range: list[tuple[float, float]] | None = Field(
        default=None,
        description="per input, [lo, hi]: the range the mechanism holds as written; beyond "
                    "it the input continues logarithmically (see soft_range)")
    per_input: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="after")
    def _per_input_lengths(self) -> VectorMechanism:
        p = len(self.inputs_)
        if len(set(self.inputs_)) != p:
            raise ValueError("inputs must be distinct")
        for name in self.per_input:
            values = getattr(self, name)
            if values is not None and len(values) != p:
                raise ValueError(f"{name} needs {p} entries (one per input), got {len(values)}")
        if self.input_range is not None:
            if len(self.input_range) != p:
                raise ValueError(f"input_range needs {p} entries (one [lo, hi] per input), "
                                 f"got {len(self.input_range)}")
            if any(not lo < hi for lo, hi in self.input_range):
                raise ValueError("each input_range entry needs lo < hi")
        return self

    def inputs(self) -> tuple[str, ...]:
        return tuple(self.inputs_)

    def core(self) -> Core:  # pragma: no cover - every kind overrides
        raise NotImplementedError

    def lower(self, parents: tuple[str, ...]) -> object:
        idx = positions(self.inputs_, parents)
        core = self.core()
        bounds = None if self.input_range is None else np.asarray(self.input_range, float).T

        def evaluate(*cols: Array) -> Array:
            x = np.stack([np.asarray(cols[i], dtype=float) for i in idx], axis=1)
            if bounds is not None:
                x = soft_range(x, bounds[0], bounds[1])
            return np.asarray(core(x), dtype=float)

        return evaluate


def positions(inputs: list[str], parents: tuple[str, ...]) -> list[int]:
    """Where each stored input sits in the parents tuple the sampler passes.

    Example:
        >>> positions(["a", "b"], ("b", "a"))
        [1, 0]
    """
    if set(inputs) != set(parents):
        raise ValueError(f"mechanism inputs {sorted(inputs)} differ from parents "
                         f"{sorted(parents)}")
    return [parents.index(name) for name in inputs]


def soft_range(x: Array, lo: Array, hi: Array) -> Array:
    """x inside [lo, hi] unchanged; beyond, continued as hi + s log(1 + (x - hi) / s)
    (and mirrored below lo), s = (hi - lo) / 8: smooth, increasing, slope 1 at the edge.

    Why: a power or product of its inputs turns one extreme row (a heavy noise tail)
    into a far larger one, and a chain of them compounds it past 1e100, so that every
    descendant's column is that one row. A synthetic generator that fitted a mechanism
    on a pilot sample records the pilot's range here; rows outside it then grow only
    logarithmically, and rows inside it are evaluated exactly as fitted.

    Example:
        >>> soft_range(np.array([[0.5], [10.0], [-9.0]]), np.array([-1.0]), np.array([1.0]))[:, 0]
        array([ 0.5       ,  1.90272948, -1.87412689])
    """
    inside = np.clip(x, lo, hi)
    excess = x - inside  # > 0 above hi, < 0 below lo, 0 inside
    if not excess.any():  # the usual case: every row inside, one clip and one pass
        return inside  # type: ignore[no-any-return]
    s = (hi - lo) / 8.0
    return inside + np.sign(excess) * s * np.log1p(np.abs(excess) / s)  # type: ignore[no-any-return]


def vec(values: list[float] | tuple[float, ...]) -> Array:
    """A float vector (stored parameters become numpy arrays once, at lowering)."""
    return np.asarray(values, dtype=float)


def sigmoid(x: Array) -> Array:
    """Logistic function without overflow warnings."""
    return special.expit(x)


def softplus(x: Array) -> Array:
    """log(1 + exp(x)), stable for large |x|."""
    return np.logaddexp(0.0, x)


def check_features(omega: list[list[float]], phases: list[float], weights: list[float],
                   p: int) -> None:
    """Raise ValueError unless omega is F x p and phases, weights have F entries."""
    f = len(omega)
    if any(len(row) != p for row in omega):
        raise ValueError(f"each omega row needs {p} entries (one per input)")
    if len(phases) != f or len(weights) != f:
        raise ValueError(f"phases and weights need {f} entries (one per feature)")


def random_features(x: Array, omega: Array, phases: Array, weights: Array, scale: float) -> Array:
    """scale * sqrt(2 / F) * sum_j weights[j] * cos(omega[j] . x + phases[j]).

    With omega ~ N(0, 1/l^2), phases ~ U[0, 2 pi] and weights ~ N(0, 1) this is a draw
    from (an F-feature approximation of) a GP with an RBF kernel of length scale l and
    standard deviation ``scale``; shared by the ``rff`` mechanism and the
    ``rff_heteroskedastic`` noise. The n x F feature block is updated in place (the same
    bits; cos over it is most of an rff node's cost, and two fewer temporaries of that
    size save about a quarter).
    """
    z = x @ omega.T
    z += phases
    np.cos(z, out=z)
    return scale * np.sqrt(2.0 / len(phases)) * (z @ weights)  # type: ignore[no-any-return]


class RandomFeatureFields(SpecModel):
    """The stored random-Fourier-feature function shared by the ``rff`` mechanism and the
    ``rff_heteroskedastic`` noise: g(x) = output_scale * sqrt(2/F) * sum_j weights[j] *
    cos(omega[j] . x + phases[j]). Subclasses declare ``inputs_`` (the columns of x)."""

    omega: list[list[float]] = Field(min_length=1, max_length=1024,
                                     description="frequencies, features x inputs")
    phases: list[float]
    weights: list[float]
    output_scale: float = 1.0
    length_scale: Annotated[float, Field(gt=0)] | None = Field(
        default=None, description="informational: the length scale omega was drawn with "
        "(omega ~ N(0, 1/l^2))")

    @model_validator(mode="after")
    def _feature_shapes(self) -> RandomFeatureFields:
        check_features(self.omega, self.phases, self.weights, len(self.inputs_))  # type: ignore[attr-defined]
        return self

    def features(self) -> tuple[Array, Array, Array]:
        return (np.asarray(self.omega, dtype=float), np.asarray(self.phases, dtype=float),
                np.asarray(self.weights, dtype=float))
