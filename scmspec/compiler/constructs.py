"""Resolve checks of the v2 constructs: named handlers, knobs and ``observed_if``.

Called by ``resolve`` once names and level codes are known. Every check adds located
diagnostics to the pass's bag (nothing raises here), so a card with several mistakes
hears about all of them at once.
"""

from __future__ import annotations

from collections.abc import Callable

import sympy as sp

from scmspec.compiler.kinds.functions import RESERVED_NAMES
from scmspec.compiler.kinds.interventions import DoHandler
from scmspec.compiler.load import SourceMap
from scmspec.compiler.spec import Card
from scmspec.errors import DiagnosticBag

Parse = Callable[[str, tuple[str | int, ...], str], "sp.Basic | None"]


def check_interventions(card: Card, codes: dict[str, dict[str, float]], smap: SourceMap,
                        bag: DiagnosticBag) -> None:
    """do() levels of every named handler, knob values and handlers, and the protocol's
    handler choice (``interventions.handlers``)."""
    for name, spec in card.variables.items():
        if spec.intervention is None:
            continue
        named = spec.intervention.handlers is not None
        for hname, handler in spec.intervention.named_handlers().items():
            where = ("variables", name, "intervention") + (("handlers", hname) if named
                                                           else ("handler",))
            if isinstance(handler, DoHandler) and isinstance(handler.value, str) and \
                    handler.value not in codes.get(name, {}):
                bag.add("SCM311", f"do() sets {name!r} to the level {handler.value!r}, which "
                        "it does not have", smap.nearest(where + ("value",)),
                        f"levels: {', '.join(codes.get(name, {})) or 'none (numeric variable)'}")
            if spec.value is not None and handler.needs_baseline():
                bag.add("SCM320", f"the knob {name!r} is intervened on by the handler "
                        f"{hname!r} ({handler.kind}), which reads the observational baseline; "
                        "a knob's baseline is its one fixed value", smap.nearest(where),
                        "use do, shift with 'by', soft with 'value', or resample with a "
                        "'distribution:'")
        _check_knob_value(card, name, codes, smap, bag)
    _check_choice(card, smap, bag)


def _check_knob_value(card: Card, name: str, codes: dict[str, dict[str, float]],
                      smap: SourceMap, bag: DiagnosticBag) -> None:
    value = card.variables[name].value
    if isinstance(value, str) and value not in codes.get(name, {}):
        bag.add("SCM311", f"the knob {name!r} is set to the level {value!r}, which it does "
                "not have", smap.nearest(("variables", name, "value")),
                f"levels: {', '.join(codes.get(name, {})) or 'none (numeric variable)'}")


def _check_choice(card: Card, smap: SourceMap, bag: DiagnosticBag) -> None:
    for name, chosen in (card.interventions.handlers or {}).items():
        loc = ("interventions", "handlers", name)
        spec = card.variables.get(name)
        if spec is None or spec.intervention is None:
            bag.add("SCM309", f"interventions.handlers names {name!r}, which is not an "
                    "intervenable variable", smap.nearest(loc),
                    "list variables that have an `intervention:`")
            continue
        known = spec.intervention.named_handlers()
        for i, hname in enumerate(chosen):
            if hname not in known:
                bag.add("SCM309", f"{name!r} has no handler named {hname!r}",
                        smap.nearest(loc + (i,)), f"its handlers: {', '.join(known)}")
        if not chosen:
            bag.add("SCM309", f"interventions.handlers gives {name!r} no handler",
                    smap.nearest(loc), f"list at least one of: {', '.join(known)}")


def observed_if_conditions(card: Card, smap: SourceMap, bag: DiagnosticBag,
                           parse: Parse) -> dict[str, sp.Basic]:
    """Each variable's ``observed_if`` condition, parsed (a latent variable takes none)."""
    out: dict[str, sp.Basic] = {}
    for name, spec in card.variables.items():
        if spec.observed_if is None:
            continue
        loc = ("variables", name, "observed_if")
        if not spec.observed:
            bag.add("SCM320", f"{name!r} is latent (observed: false), so it has no recorded "
                    "values that could be missing", smap.nearest(loc),
                    "remove `observed_if:`, or make the variable observed")
            continue
        expr = parse(spec.observed_if, loc, f"the observed_if condition of {name!r}")
        if expr is not None:
            out[name] = expr
    return out


def noise_scales(card: Card, parents: dict[str, tuple[str, ...]], smap: SourceMap,
                 bag: DiagnosticBag, parse: Parse) -> dict[str, tuple[str, sp.Basic]]:
    """Each heteroscedastic noise scale (``sd: 0.02 * flow``): its field and expression.

    The expression may read only the variable's parents (its equation's variables), so
    the noise adds no edge the card does not list.
    """
    out: dict[str, tuple[str, sp.Basic]] = {}
    for name, spec in card.variables.items():
        text = spec.noise.scale_expression()
        field = spec.noise.scale_field
        if text is None or field is None:
            continue
        loc = ("variables", name, "noise", field)
        expr = parse(text, loc, f"the noise {field} of {name!r}")
        if expr is None:
            continue
        extra = sorted({s.name for s in expr.free_symbols if s.name in card.variables}
                       - set(parents.get(name, ())))
        if extra:
            bag.add("SCM304", f"the noise {field} of {name!r} reads {', '.join(map(repr, extra))}"
                    f", which {'is not a parent' if len(extra) == 1 else 'are not parents'} of "
                    f"{name!r}", smap.nearest(loc), "a noise scale may use only the variables "
                    "the equation reads (its parents); use them in the equation, with edges")
            continue
        out[name] = (field, expr)
    return out


def level_values(card: Card, smap: SourceMap, bag: DiagnosticBag) -> dict[str, list[float]]:
    """The values of levels given as a mapping, in the variable's unit.

    A value is a number (in the variable's unit) or text ``'<number> <unit>'`` of the same
    dimension, converted exactly by pint once here. An ordinal's values must increase
    in level order, so that order comparisons of level names mean what they say.
    """
    out: dict[str, list[float]] = {}
    for name, spec in card.variables.items():
        if spec.level_values is None or spec.levels is None:
            continue
        loc = ("variables", name, "levels")
        got = [_level_value(v, spec.unit, loc + (lv,), smap, bag)
               for lv, v in zip(spec.levels, spec.level_values)]
        if any(v is None for v in got):
            continue
        values = [float(v) for v in got if v is not None]
        if len(set(values)) != len(values):
            bag.add("SCM313", f"two levels of {name!r} have the same value", smap.nearest(loc),
                    "give every level its own value")
        elif spec.kind == "ordinal" and values != sorted(values):
            bag.add("SCM313", f"the values of the ordinal {name!r} do not increase in level "
                    "order", smap.nearest(loc), "list the levels from the lowest value up")
        out[name] = values
    return out


def _level_value(value: float | str, unit: str, loc: tuple[str | int, ...], smap: SourceMap,
                 bag: DiagnosticBag) -> float | None:
    if not isinstance(value, str):
        return float(value)
    from scmspec.compiler.unit_registry import UnitIssue, parse_unit, registry

    number, _, given = value.strip().partition(" ")
    try:
        magnitude = float(number)
    except ValueError:
        magnitude = float("nan")
    parsed = parse_unit(given.strip() or "dimensionless")
    target = parse_unit(unit)
    if not magnitude == magnitude or isinstance(parsed, UnitIssue) or \
            isinstance(target, UnitIssue) or not parsed.same_dims(target):
        bag.add("SCM313", f"the level value {value!r} is not a number with a unit of the "
                f"variable's dimension ({unit})", smap.nearest(loc),
                f"write a number in {unit}, or '<number> <unit>' such as '8 cm'")
        return None
    ureg = registry()
    return float(ureg.Quantity(magnitude, given.strip() or "dimensionless").to(unit).magnitude)


def check_names(card: Card, smap: SourceMap, bag: DiagnosticBag) -> None:
    """No name is both a variable and a constant, or a reserved function name."""
    for name in card.variables:
        loc = ("variables", name)
        if name in card.constants:
            bag.add("SCM303", f"{name!r} is both a variable and a constant",
                    smap.keys.get(loc) or smap.nearest(loc), "rename one of them")
        if name in RESERVED_NAMES:
            bag.add("SCM303", f"the variable name {name!r} is reserved (a function or constant)",
                    smap.keys.get(loc) or smap.nearest(loc), f"rename it, e.g. {name}_value")
    for name in card.let:
        loc = ("let", name)
        clash = ("a variable" if name in card.variables else
                 "a constant" if name in card.constants else
                 "reserved (a function or constant)" if name in RESERVED_NAMES else None)
        if clash:
            bag.add("SCM303", f"the let name {name!r} is {clash}",
                    smap.keys.get(loc) or smap.nearest(loc), f"rename it, e.g. {name}_expr")
    for name in card.constants:
        if name in RESERVED_NAMES:
            loc = ("constants", name)
            bag.add("SCM303", f"the constant name {name!r} is reserved",
                    smap.keys.get(loc) or smap.nearest(loc), f"rename it, e.g. {name}_c")
