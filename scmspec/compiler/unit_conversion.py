"""Automatic unit conversion: the exact scale factors ``check_units`` inserts into equations.

Takes an equation that ``check_units`` has already accepted (every dimension agrees, offset
units are used where their meaning is clear) and hands back the same equation with a
float factor multiplied in wherever two operands of one dimension sit on different scales,
plus the list of factors it inserted (:class:`Conversion`, recorded in ``spec.json``).
Invariant it establishes: evaluated on the raw numbers of each declared unit, the equation
gives its result in the target's declared unit.

Where factors go (docs/units.md, "Automatic conversion"):

* terms that are added, compared, branched or passed together to ``min``/``max``/``clip``/
  ``normal``/... go to the scale of one of them (the target's own scale when a term is on it,
  else the first term in sympy's order);
* arguments of functions that need a plain number (``exp``, ``sin``, ``sigmoid``, ``erf``,
  ``bernoulli``, a power's exponent) go to scale 1 (``sin(angle_deg)`` gets ``pi/180``);
* the whole expression goes to the declared unit of its target;
* an equation that is a lone temperature operand converts affinely (``T_K = T_C`` becomes
  ``T_C + 273.15``).

Products and quotients need no factor (scales multiply). An equation that needs no factor
is returned as the very same sympy object, so cards that already carry their conversion
constants lower to the same code and give bit-identical samples. Pint is not called here:
the factors come from the cached :class:`~scmspec.compiler.unit_registry.Dim` of each unit,
once per equation at compile time, never per row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy as sp

from scmspec.compiler import unit_hints as hints
from scmspec.compiler import unit_registry as registry
from scmspec.compiler.unit_registry import DIMENSIONLESS, UNKNOWN, ZERO, Dim


@dataclass(frozen=True)
class Conversion:
    """One inserted factor: ``term`` (in ``from_unit``) times ``factor`` plus ``offset``."""

    term: str
    from_unit: str
    to_unit: str
    factor: float
    offset: float = 0.0
    literal: float | None = None  # a number in the term equal to the factor (or 1/factor)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"term": self.term, "from": self.from_unit, "to": self.to_unit,
                               "factor": self.factor}
        if self.offset:
            out["offset"] = self.offset
        return out

    def __str__(self) -> str:
        how = f"x {self.factor:.17g}" if self.factor != 1 else ""
        if self.offset:
            how = f"{how} {'+' if self.offset > 0 else '-'} {abs(self.offset):.17g}".strip()
        return f"{self.term}: {self.from_unit} -> {self.to_unit} ({how})"


def convert_equation(expr: sp.Basic, env: Mapping[str, Dim], declared: Dim | None
                     ) -> tuple[sp.Basic, tuple[Conversion, ...]]:
    """``expr`` with the scale factors that make it land in ``declared`` (None: a condition).

    Example:
        >>> from scmspec.compiler.unit_registry import parse_unit
        >>> p = sp.Symbol("p", real=True)
        >>> out, done = convert_equation(2 * p, {"p": parse_unit("hPa")}, parse_unit("Pa"))
        >>> out, [str(c) for c in done]
        (100.0*(2*p), ['2*p: hPa -> Pa (x 100)'])
    """
    walker = _Converter(env)
    if declared is None:
        new, _ = walker.conv(expr, None)
        return new, tuple(walker.done)
    if expr.is_Symbol and _temperature(env.get(expr.name, UNKNOWN)) and _temperature(declared):
        return walker.affine(expr, env[expr.name], declared), tuple(walker.done)
    new, d = walker.conv(expr, declared)
    return walker.to(new, d, declared, expr), tuple(walker.done)


def _hand_conversion(term: sp.Basic, f: float) -> float | None:
    """A number multiplying ``term`` that equals the factor or its inverse (``p / 100`` for
    Pa -> hPa): the author converted by hand, and converting again would be wrong."""
    numbers = [a for a in (term.args if term.is_Mul else ()) if a.is_Number]
    for n in numbers:
        v = abs(float(n))
        if v not in (0.0, 1.0) and any(abs(v - t) <= 1e-9 * t for t in (f, 1 / f)):
            return float(n)
    return None


def _temperature(d: Dim) -> bool:
    """An absolute temperature on some scale (degC, degF, K, degR), not a difference."""
    return not d.unknown and bool(d.offset or d.absolute)


def _factor(value: float) -> sp.Float:
    # 17 significant digits: printed into the lowered code, they read back as the same double
    return sp.Float(repr(float(value)), 17)


class _Converter:
    """Rebuilds an expression bottom-up, returning each node's new form and :class:`Dim`."""

    def __init__(self, env: Mapping[str, Dim]) -> None:
        self.env = env
        self.done: list[Conversion] = []

    def to(self, expr: sp.Basic, d: Dim, want: Dim, written: sp.Basic | None = None
           ) -> sp.Basic:
        """``expr`` (in ``d``) rescaled to ``want``'s scale; unchanged when nothing is needed.

        ``written`` is the operand as the card wrote it (before inner conversions), for the
        record.
        """
        if (d.zero or d.unknown or want.unknown or want.zero or d.offset or want.offset
                or not d.same_dims(want) or d.same_scale(want)):
            return expr
        f = d.exact_factor_to(want)
        shown = expr if written is None else written
        self.done.append(Conversion(hints.show(shown), d.unit_text(), want.unit_text(), f,
                                    literal=_hand_conversion(shown, f)))
        return sp.Mul(_factor(f), expr, evaluate=False)

    def affine(self, expr: sp.Symbol, d: Dim, want: Dim) -> sp.Basic:
        """A lone temperature to another temperature scale: x * f + (zero_x - zero_want) / f_w."""
        if d.offset == want.offset and d.same_scale(want):
            return expr
        f = d.exact_factor_to(want)
        offset = (d.zero_k - want.zero_k) / want.factor
        if abs(f - 1) <= 1e-12 and offset == 0:
            return expr
        self.done.append(Conversion(hints.show(expr), d.unit_text(), want.unit_text(), f,
                                    offset))
        scaled = expr if abs(f - 1) <= 1e-12 else sp.Mul(_factor(f), expr, evaluate=False)
        return sp.Add(scaled, _factor(offset), evaluate=False) if offset else scaled

    def conv(self, node: sp.Basic, want: Dim | None) -> tuple[sp.Basic, Dim]:
        if node.is_Symbol:
            return node, self.env.get(node.name, UNKNOWN)
        if node.is_Atom:
            return node, ZERO if node == 0 else DIMENSIONLESS
        if node.is_Add:
            return self.add(node, want)
        if node.is_Mul:
            return self.mul(node)
        if node.is_Pow:
            return self.power(node)
        if isinstance(node, sp.Piecewise):
            conds = [self.condition(p.cond) for p in node.args]
            values, d = self.unify([p.expr for p in node.args], want)
            old = [x for p in node.args for x in (p.expr, p.cond)]
            new = [x for pair in zip(values, conds) for x in pair]
            if all(a is b for a, b in zip(new, old)):
                return node, d
            return sp.Piecewise(*zip(values, conds)), d
        if isinstance(node, (sp.Min, sp.Max, sp.Mod)):
            args, d = self.unify(list(node.args), want)
            return self.rebuild(node, args), d
        if isinstance(node, sp.Function):
            return self.call(node, want)
        return node, UNKNOWN

    def rebuild(self, node: sp.Basic, args: Sequence[sp.Basic]) -> sp.Basic:
        if all(a is b for a, b in zip(args, node.args)):
            return node
        return node.func(*args)

    def condition(self, node: sp.Basic) -> sp.Basic:
        if isinstance(node, sp.logic.boolalg.BooleanAtom):
            return node
        if isinstance(node, sp.core.relational.Relational):
            args, _ = self.unify(list(node.args), None)
            return self.rebuild(node, args)
        if isinstance(node, sp.logic.boolalg.BooleanFunction):
            return self.rebuild(node, [self.condition(a) for a in node.args])
        return self.conv(node, None)[0]

    def unify(self, nodes: list[sp.Basic], want: Dim | None,
              items: list[tuple[sp.Basic, Dim]] | None = None) -> tuple[list[sp.Basic], Dim]:
        """Operands that must share a scale: all go to one of theirs (``want``'s if present)."""
        items = items if items is not None else [self.conv(n, want) for n in nodes]
        live = [d for _, d in items if not d.zero]
        if not live:
            return [e for e, _ in items], ZERO
        if any(d.unknown for d in live):
            return [e for e, _ in items], UNKNOWN
        offset = next((d for d in live if d.offset), None)
        if offset is not None:  # check_units allows these only on one scale: nothing to do
            return [e for e, _ in items], offset.plain
        ref = live[0]
        if want is not None and any(d.same_dims(want) and d.same_scale(want) for d in live):
            ref = next(d for d in live if d.same_dims(want) and d.same_scale(want))
        return [self.to(e, d, ref, n) for n, (e, d) in zip(nodes, items)], ref.plain

    def add(self, node: sp.Add, want: Dim | None) -> tuple[sp.Basic, Dim]:
        items = [self.conv(t, want) for t in node.args]
        if any(d.offset for _, d in items if not d.unknown):
            return self.offset_sum(node, items)
        args, d = self.unify(list(node.args), want, items)
        return self.rebuild(node, args), d

    def offset_sum(self, node: sp.Add, items: list[tuple[sp.Basic, Dim]]
                   ) -> tuple[sp.Basic, Dim]:
        """T + dT: temperature differences go to the scale of the degC (or degF) terms."""
        ref = next(d for _, d in items if not d.unknown and d.offset)
        delta = Dim(ref.dims, ((f"delta_{ref.offset}", Fraction(1)),), ref.scale,
                    factor=ref.factor)
        args = []
        for term, (new, d) in zip(node.args, items):
            rest = term.as_coeff_Mul()[1]
            # the zero point (T0 in K) stays: it converts the sum, it is not a difference
            keep = d.offset or (rest.is_Symbol and self.env.get(rest.name, UNKNOWN).absolute)
            args.append(new if keep else self.to(new, d, delta, term))
        net = sum(float(t.as_coeff_Mul()[0]) for t, (_, d) in zip(node.args, items) if d.offset)
        return self.rebuild(node, args), ref.plain if abs(net - 1) < 1e-9 else delta

    def mul(self, node: sp.Mul) -> tuple[sp.Basic, Dim]:
        result, args = DIMENSIONLESS, []
        for arg in node.args:
            new, d = self.conv(arg, None)
            args.append(new)
            result = UNKNOWN if d.unknown or result.unknown else result * d
        return self.rebuild(node, args), result

    def power(self, node: sp.Pow) -> tuple[sp.Basic, Dim]:
        base, exponent = node.args
        b_new, b = self.conv(base, None)
        e_new, e = self.conv(exponent, DIMENSIONLESS)
        e_new = self.to(e_new, e, DIMENSIONLESS, exponent)
        if b.unknown:
            return self.rebuild(node, [b_new, e_new]), UNKNOWN
        if exponent.is_number:
            k = Fraction(float(exponent)).limit_denominator(1000) \
                if not exponent.is_Rational else Fraction(int(exponent.p),
                                                                   int(exponent.q))
            return self.rebuild(node, [b_new, e_new]), b ** k
        return self.rebuild(node, [self.to(b_new, b, DIMENSIONLESS, base), e_new]), DIMENSIONLESS

    def call(self, node: sp.Function, want: Dim | None) -> tuple[sp.Basic, Dim]:
        fallback = (node.func.__name__, "dimensionless", False)
        _, rule, random = registry.function_rules().get(node.func.__name__, fallback)
        args = list(node.args[:-1] if random else node.args)
        site = list(node.args[-1:]) if random else []
        if rule in ("same", "draw_same"):
            new, d = self.unify(args, want)
            return self.rebuild(node, new + site), d
        items = [self.conv(a, None) for a in args]
        dims = [d for _, d in items]
        if any(d.unknown or d.offset for d in dims):
            return node, UNKNOWN
        if rule in ("dimensionless", "draw_dimensionless"):
            new = [self.to(e, d, DIMENSIONLESS, a) for a, (e, d) in zip(args, items)]
            return self.rebuild(node, new + site), DIMENSIONLESS
        if rule == "draw_first":
            first, d0 = items[0]
            if node.func.__name__ in COUNT_DRAWS and want is not None:
                # A count is not scale-equivariant: poisson(rate in millions) must draw with
                # the rate in the wanted unit, not draw at 1e-6 of it and scale the count up.
                first, d0 = self.to(first, d0, want, args[0]), want
            new = [first] + [self.to(e, d, DIMENSIONLESS, a)
                             for a, (e, d) in zip(args[1:], items[1:])]
            return self.rebuild(node, new + site), d0.plain
        if rule == "draw_inverse":
            return self.rebuild(node, [e for e, _ in items] + site), \
                dims[0] ** Fraction(-1)
        if rule == "sign":
            if len(args) > 1:
                new, _ = self.unify(args, None)
                return self.rebuild(node, new + site), DIMENSIONLESS
            return self.rebuild(node, [e for e, _ in items] + site), DIMENSIONLESS
        return node, UNKNOWN


# Draws whose result does not scale with their first argument (a count of rate x 1e6 is not
# 1e6 counts of rate x 1): their first argument is converted to the wanted unit before drawing.
COUNT_DRAWS = frozenset({"poisson", "binomial", "negative_binomial"})


def explain(equations: Mapping[str, str], units: Mapping[str, str],
            conversions: Mapping[str, Sequence[Conversion]]) -> str:
    """Each equation that got factors, as written, then the factors (``validate
    --explain-units``); ``equations`` maps a variable (or ``selection``) to its text.

    Example:
        >>> print(explain({"slp": "p * 2"}, {"slp": "Pa"},
        ...               {"slp": [Conversion("p*2", "hPa", "Pa", 100.0)]}))
        slp [Pa] = p * 2
            p*2: hPa -> Pa (x 100)
    """
    lines = []
    for name, done in conversions.items():
        unit = f" [{units[name]}]" if units.get(name) else ""
        lines.append(f"{name}{unit} = {' '.join(equations.get(name, '').split())}")
        lines.extend(f"    {c}" for c in done)
    return "\n".join(lines)
