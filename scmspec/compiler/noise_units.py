"""Units of heteroscedastic noise scales (``noise: {kind: normal, sd: 0.02 * flow}``).

Additive noise is added to the variable, so its scale carries the variable's unit;
multiplicative noise multiplies f by (1 + eps), so its scale is dimensionless. The check
runs the same walker as equations (``units``), located at the noise field. Runs after
``check_units`` (a card whose equations are wrong in units is reported first).
"""

from __future__ import annotations

from scmspec.compiler.load import SourceMap
from scmspec.compiler.resolve import ResolvedCard
from scmspec.compiler.unit_registry import DIMENSIONLESS
from scmspec.compiler.units import _declared_units, _Walker
from scmspec.errors import DiagnosticBag, UnitError


def check_noise_units(resolved: ResolvedCard, smap: SourceMap) -> None:
    """Check that each noise scale expression has the unit its noise mode needs.

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
        return
    card = resolved.card
    bag = DiagnosticBag()
    env = _declared_units(card, smap, bag)
    for name, (field, expr) in resolved.noise_scales.items():
        spec = card.variables[name]
        text = spec.noise.scale_expression() or ""
        walker = _Walker(env, card, text, ("variables", name, "noise", field), smap, bag)
        additive = spec.noise.mode == "additive"
        walker.check_result(f"{name}.noise.{field}", spec.unit if additive else "dimensionless",
                            env[name] if additive else DIMENSIONLESS, expr, walker.value(expr))
    bag.raise_if_any(UnitError)
