"""Designs: settings of several intervenable variables at once, and the space they range over.

A *design* maps variables to do() values (level codes for discrete variables). Each knob
of a search ranges over its card's declared ``range`` (continuous and count variables),
or, without one, over the 1st-99th percentile of its natural values; binary, ordinal and
categorical knobs range over their levels. Designs are written ``name=value,...`` on the
command line, values as numbers or level names.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from scmspec.compiler.kinds.interventions import DoHandler, HandlerBase
from scmspec.effects.contrasts import levels
from scmspec.errors import ScmspecError
from scmspec.samplers.scm import SCM

Array = np.ndarray
Design = dict[str, float]


class DesignError(ScmspecError):
    """A design, knob or outcome the card cannot take (a usage error: exit code 2)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Knob:
    """One searched variable: a continuous or integer interval, or a set of level codes."""

    name: str
    kind: str  # continuous | integer | levels
    low: float = 0.0
    high: float = 0.0
    codes: tuple[float, ...] = ()
    names: tuple[str, ...] = ()

    def grid(self, points: int) -> list[float]:
        """Evenly spaced values (every level for a level knob), ends included.

        Example:
            >>> Knob("x", "continuous", 0.0, 50.0).grid(3)
            [0.0, 25.0, 50.0]
        """
        if self.kind == "levels":
            return list(self.codes)
        values = np.linspace(self.low, self.high, max(points, 2))
        if self.kind == "integer":
            values = np.unique(np.round(values))
        return [float(v) for v in values]

    def clip(self, value: float) -> float:
        value = min(max(value, self.low), self.high)
        return float(round(value)) if self.kind == "integer" else value

    def label(self, value: float) -> str:
        if self.kind == "levels":
            return self.names[self.codes.index(value)]
        return f"{value:.6g}"


def check_variable(scm: SCM, name: str, what: str, intervenable: bool = True) -> None:
    """Refuse an unknown variable, or one the card declares no intervention for."""
    variables = scm.compiled.card.variables
    if name not in variables:
        guess = difflib.get_close_matches(name, list(variables), n=1)
        hint = f" (did you mean {guess[0]!r}?)" if guess else ""
        raise DesignError(f"{what} {name!r} is not a variable of {scm.id}{hint}")
    if intervenable and variables[name].intervention is None:
        raise DesignError(f"{what} {name!r} cannot be intervened on: the card declares no "
                          "'intervention:' for it")


def knob(scm: SCM, name: str, natural: Array) -> Knob:
    """The search space of one knob (``natural``: its values without intervention)."""
    check_variable(scm, name, "knob")
    spec = scm.compiled.card.variables[name]
    if spec.kind in ("binary", "ordinal", "categorical"):
        codes, names = levels(scm, name, natural)
        return Knob(name, "levels", codes=codes, names=names)
    low, high = spec.range if spec.range is not None else np.quantile(natural, [0.01, 0.99])
    if spec.kind == "count":
        return Knob(name, "integer", float(np.ceil(low)), float(np.floor(high)))
    return Knob(name, "continuous", float(low), float(high))


def parse_design(scm: SCM, text: str) -> Design:
    """``'a=1.5,b=signal_filter'`` -> {'a': 1.5, 'b': 4.0} (level names become codes).

    Example:
        >>> import scmspec
        >>> scm = scmspec.compile_text('''
        ... id: demo
        ... title: demo
        ... family: semantic
        ... domain: demo
        ... variables:
        ...   dose: {meaning: a, distribution: {kind: normal},
        ...          intervention: {meaning: set the dose}}
        ...   arm: {meaning: b, kind: categorical, levels: [placebo, drug],
        ...         distribution: {kind: categorical, probs: [0.5, 0.5]},
        ...         intervention: {meaning: assign the arm}}
        ... ''')
        >>> parse_design(scm, "dose=2.5, arm=drug")
        {'dose': 2.5, 'arm': 1.0}
    """
    design: Design = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = (s.strip() for s in part.partition("="))
        if not sep or not name or not value:
            raise DesignError(f"{part!r} is not name=value (in design {text!r})")
        check_variable(scm, name, "variable")
        design[name] = _value(scm, name, value)
    if not design:
        raise DesignError(f"design {text!r} sets no variable")
    return design


def _value(scm: SCM, name: str, value: str) -> float:
    codes = scm.compiled.resolved.level_codes.get(name, {})
    if value in codes:
        return float(codes[value])
    try:
        return float(value)
    except ValueError:
        known = ", ".join(codes) if codes else "it is numeric"
        raise DesignError(f"{name} has no value {value!r} ({known})") from None


def handlers(design: Mapping[str, float]) -> dict[str, HandlerBase]:
    """do() handlers setting every variable of a design."""
    return {k: DoHandler(value=v) for k, v in design.items()}


def describe(design: Mapping[str, float], knobs: Sequence[Knob], scm: SCM) -> str:
    """``antenna_def=8.5, engine_def=50`` with level names for level knobs."""
    by_name = {k.name: k for k in knobs}
    out = []
    for name, value in design.items():
        k = by_name.get(name)
        if k is None:
            names = scm.compiled.card.variables[name].levels
            text = names[int(value)] if names else f"{value:.6g}"
        else:
            text = k.label(value)
        out.append(f"{name}={text}")
    return ", ".join(out)
