"""Units of heteroscedastic noise scales (``noise: {kind: normal, sd: 0.02 * flow}``).

Additive noise is added to the variable, so its scale carries the variable's unit;
multiplicative noise multiplies f by (1 + eps), so its scale is dimensionless. The check
runs the same walker as equations (``units``), located at the noise field. Runs after
``check_units`` (a card whose equations are wrong in units is reported first).

A scale difference is converted as in equations (``sd: 0.02 * flux`` with flux in klm/m**2
on a variable in lx gets the factor 1000; the conversion is recorded in
``unit_conversions`` under ``<variable>.noise.<field>``), except where an offset unit is
involved: a noise scale is a spread, and the affine conversion of degC or degF values
would add a zero point to it, so there the author writes the scale in the variable's unit.
"""

from __future__ import annotations

from dataclasses import replace

import sympy as sp

from scmspec.compiler.load import SourceMap
from scmspec.compiler.resolve import ResolvedCard
from scmspec.compiler.unit_conversion import Conversion, convert_equation
from scmspec.compiler.unit_registry import DIMENSIONLESS
from scmspec.compiler.units import _declared_units, _Walker
from scmspec.errors import DiagnosticBag, UnitError


def noise_key(name: str, field: str) -> str:
    """Where a noise scale's conversions are recorded in ``unit_conversions``."""
    return f"{name}.noise.{field}"


def check_noise_units(resolved: ResolvedCard, smap: SourceMap) -> ResolvedCard:
    """Check that each noise scale expression has the unit its noise mode needs; the card
    with the scale factors inserted where a unit differs only in scale (module docstring).

    Example:
        >>> from scmspec.compiler.pipeline import parse_card_text
        >>> from scmspec.compiler.resolve import resolve
        >>> card, smap = parse_card_text('''id: a
        ... title: t
        ... family: formula
        ... domain: d
        ... variables:
        ...   q: {meaning: flow, unit: m**3/s, distribution: {kind: uniform, low: 1, high: 2}}
        ...   h: {meaning: head, unit: m, equation: q * s_per_m2,
        ...       noise: {kind: normal, sd: 0.1 * q}}
        ... constants: {s_per_m2: {value: 1, unit: s/m**2}}
        ... edges: [{from: q, to: h, reason: r}]''', "a.yaml")
        >>> try:
        ...     check_noise_units(resolve(card, smap), smap)
        ... except UnitError as err:
        ...     print(err.diagnostics[0].code)
        SCM404
    """
    if not resolved.noise_scales:
        return resolved
    card = resolved.card
    bag = DiagnosticBag()
    env = _declared_units(card, smap, bag)
    scales = dict(resolved.noise_scales)
    done: dict[str, tuple[Conversion, ...]] = {}
    for name, (field, expr) in resolved.noise_scales.items():
        spec = card.variables[name]
        text = spec.noise.scale_expression() or ""
        additive = spec.noise.mode == "additive"
        want = env[name] if additive else DIMENSIONLESS
        offsets = bool(want.offset) or any(env[s.name].offset for s in expr.free_symbols
                                           if isinstance(s, sp.Symbol) and s.name in env)
        walker = _Walker(env, card, text, ("variables", name, "noise", field), smap, bag,
                         convert=card.units != "strict" and not offsets)
        walker.check_result(f"{name}.noise.{field}", spec.unit if additive else "dimensionless",
                            want, expr, walker.value(expr))
        if walker.needs:
            converted, conversions = convert_equation(expr, env, want)
            if conversions:
                scales[name] = (field, converted)
                done[noise_key(name, field)] = conversions
    bag.raise_if_any(UnitError)
    if not done:
        return resolved
    return replace(resolved, noise_scales=scales,
                   unit_conversions={**resolved.unit_conversions, **done})
