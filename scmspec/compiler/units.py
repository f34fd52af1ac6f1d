"""Stage 4, check_units: ResolvedCard -> ResolvedCard, or one UnitError (SCM401-SCM406).

Takes a resolved card; hands on the same card with the unit conversions its equations need
inserted (``unit_conversion``) and recorded in ``unit_conversions``. Invariants it
establishes: every unit string parses; in every equation, added, compared and branched terms
share a dimension; function arguments are dimensionless where the function requires it; each
equation evaluates to its variable's declared dimension; offset units (degC, degF) are only
used where their meaning is unambiguous; and, once the inserted factors are applied, every
equation gives its result in its variable's declared unit. Under ``units: strict`` nothing
is inserted and a scale difference is an error (SCM405): conversions then go through
constants that carry units. Rules and examples: docs/units.md.

Codes: SCM401 unit string, SCM402 mismatched dimensions, SCM403 dimensionless argument or
exponent required, SCM404 result dimension, SCM405 scale factor, SCM406 offset units.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

import sympy as sp

from scmspec.compiler import unit_hints as hints
from scmspec.compiler import unit_registry as registry
from scmspec.compiler.load import SourceMap
from scmspec.compiler.resolve import ResolvedCard, find_name
from scmspec.compiler.spec import Card
from scmspec.compiler.unit_conversion import Conversion, convert_equation
from scmspec.compiler.unit_registry import DIMENSIONLESS, UNKNOWN, ZERO, Dim, UnitIssue
from scmspec.errors import DiagnosticBag, InternalError, UnitError


def check_units(resolved: ResolvedCard, smap: SourceMap) -> ResolvedCard:
    """Check the units of every unit string, equation and the selection condition.

    Returns the card with the scale factors its equations need inserted (none under
    ``units: strict``, and none where every operand is already on one scale: then the very
    same card comes back).

    Example:
        >>> from scmspec.compiler.pipeline import parse_card_text
        >>> from scmspec.compiler.resolve import resolve
        >>> card, smap = parse_card_text('''id: a
        ... title: t
        ... family: formula
        ... domain: d
        ... variables:
        ...   z: {meaning: height, unit: m, distribution: {kind: normal}}
        ...   t: {meaning: time, unit: s, equation: 2 * z}
        ... edges: [{from: z, to: t, reason: r}]''', "a.yaml")
        >>> try:
        ...     check_units(resolve(card, smap), smap)
        ... except UnitError as err:
        ...     print(err.diagnostics[0].code, err.diagnostics[0].span)
        SCM404 a.yaml:7:41
    """
    card = resolved.card
    convert = card.units != "strict"
    needs: set[str] = set()  # equations (and "selection") a factor goes into
    bag = DiagnosticBag()
    env = _declared_units(card, smap, bag)
    broken = _check_lets(resolved, env, smap, bag, convert)
    for name in resolved.order:
        spec = card.variables[name]
        if spec.equation is not None and any(find_name(spec.equation, b) >= 0 for b in broken):
            continue  # the let it names is already reported, at the let
        if name in resolved.equations and spec.equation is not None:
            walker = _Walker(env, card, spec.equation, ("variables", name, "equation"), smap, bag,
                             convert)
            expr = resolved.equations[name]
            walker.check_result(name, spec.unit, env[name], expr, walker.value(expr))
            if walker.needs:
                needs.add(name)
        if spec.noise.mode == "multiplicative" and spec.noise.kind != "none" and env[name].offset:
            bag.add("SCM406", f"{name!r} is in {spec.unit}, an offset unit, so multiplicative "
                    "noise f * (1 + eps) depends on where the scale's zero is",
                    smap.nearest(("variables", name, "noise")),
                    f"use additive noise, or declare {name!r} in K")
    if resolved.selection is not None and card.selection is not None:
        walker = _Walker(env, card, card.selection.condition, ("selection", "condition"), smap,
                         bag, convert)
        walker.value(resolved.selection)
        if walker.needs:
            needs.add("selection")
    bag.raise_if_any(UnitError)
    return _converted(resolved, env, smap, needs) if needs else resolved


def _converted(resolved: ResolvedCard, env: dict[str, Dim], smap: SourceMap, needs: set[str]
               ) -> ResolvedCard:
    """The card with the conversion factors inserted into the equations in ``needs`` (and the
    selection, if named there)."""
    equations = dict(resolved.equations)
    done: dict[str, tuple[Conversion, ...]] = {}
    for name, expr in resolved.equations.items():
        if name in needs:
            equations[name], done[name] = convert_equation(expr, env, env.get(name, UNKNOWN))
    selection = resolved.selection
    if selection is not None and "selection" in needs:
        selection, done["selection"] = convert_equation(selection, env, None)
    done = {k: v for k, v in done.items() if v}
    _refuse_hand_conversions(resolved, done, smap)
    if not done:
        return resolved
    return replace(resolved, equations=equations, selection=selection, unit_conversions=done)


def _refuse_hand_conversions(resolved: ResolvedCard, done: dict[str, tuple[Conversion, ...]],
                             smap: SourceMap) -> None:
    """SCM405 where a literal already is the factor the compiler would insert (``p / 100``
    with p in Pa, declared hPa): converting again would be off by that factor squared."""
    bag = DiagnosticBag()
    for name, conversions in done.items():
        loc = ("selection", "condition") if name == "selection" else \
            ("variables", name, "equation")
        text = resolved.card.selection.condition if name == "selection" and \
            resolved.card.selection is not None else resolved.card.variables[name].equation
        for c in conversions:
            if c.literal is None:
                continue
            divides = abs(c.literal) < 1
            number = f"{1 / c.literal if divides else c.literal:g}"
            at = (text or "").find(number)
            span = smap.at(loc, at, len(number)) if at >= 0 else smap.nearest(loc)
            verb = "divides" if divides else "multiplies"
            bag.add("SCM405", f"'{c.term}' {verb} by {number}, the factor between "
                    f"{c.from_unit} and {c.to_unit}: the compiler converts units itself, so "
                    "this conversion would be applied twice", span,
                    f"drop the {number} and write the quantities in their declared units (the "
                    "factor is inserted exactly; docs/units.md); if it is a coefficient of the "
                    "model, not a conversion, name it under constants:; or set `units: strict` "
                    "and convert through a constant with units", ".".join(loc))
    bag.raise_if_any(UnitError)


def _check_lets(resolved: ResolvedCard, env: dict[str, Dim], smap: SourceMap,
                bag: DiagnosticBag, convert: bool) -> set[str]:
    """Check each let on its own, reported at the let; the names of those that fail."""
    broken: set[str] = set()
    for name, expr in resolved.lets.items():
        before = len(bag.items)
        text = resolved.card.let[name].equation
        if any(find_name(text, b) >= 0 for b in broken):
            broken.add(name)  # built on a broken let: reported there once
            continue
        _Walker(env, resolved.card, text, ("let", name, "equation"), smap, bag,
                convert).value(expr)
        if len(bag.items) > before:
            broken.add(name)
    return broken


def _declared_units(card: Card, smap: SourceMap, bag: DiagnosticBag) -> dict[str, Dim]:
    env: dict[str, Dim] = {}
    for section, items in (("constants", card.constants), ("variables", card.variables)):
        for name, spec in items.items():
            parsed = registry.parse_unit(spec.unit)
            if isinstance(parsed, UnitIssue):
                loc = (section, name, "unit")
                what = "variable" if section == "variables" else "constant"
                bag.add(parsed.code, f"{parsed.message} (the unit of {what} {name!r})",
                        smap.at(loc, 0, len(spec.unit)), parsed.hint, ".".join(loc))
                parsed = UNKNOWN
            env[name] = parsed
    return env


class _Walker:
    """Computes the :class:`Dim` of each node of one expression, reporting what breaks.

    A node whose problem is reported evaluates to ``UNKNOWN``, which is compatible with
    everything, so one mistake gives one diagnostic rather than a cascade up the tree.
    """

    def __init__(self, env: dict[str, Dim], card: Card, text: str, loc: tuple[str, ...],
                 smap: SourceMap, bag: DiagnosticBag, convert: bool = False) -> None:
        self.env, self.constants, self.text = env, card.constants, text
        self.loc, self.smap, self.bag = loc, smap, bag
        self.convert = convert  # a scale difference is converted (not SCM405) when it fits
        self.needs = False  # a factor will be inserted (set by converts())
        self.seen: set[tuple[str, str]] = set()

    def involved(self) -> list[Dim]:
        """The units of every name the text mentions, and its target's (for reading notes)."""
        out = [d for n, d in self.env.items() if find_name(self.text, n) >= 0]
        if self.loc[0] == "variables" and self.loc[1] in self.env:
            out.append(self.env[self.loc[1]])
        return out

    def culprit(self, expr: sp.Basic) -> sp.Basic | None:
        """The first operand (in the text) whose unit is not coherent SI (hPa, km, kJ): where
        a result's scale difference comes from, for the caret; None when there is none."""
        named = [(find_name(self.text, s.name), s) for s in expr.free_symbols
                 if s.name in self.env and abs(self.env[s.name].scale) > 1e-9]
        named = [(at, s) for at, s in named if at >= 0]
        return min(named, key=lambda p: p[0])[1] if named else None

    def fix(self, term: sp.Basic, have: Dim, want: Dim) -> str:
        return hints.unit_fix(self.constants, term, have, want)

    def converts(self, d: Dim, to: Dim) -> bool:
        """True when the compiler inserts the factor from ``d`` to ``to`` (not strict, finite).

        Called only where the two scales differ, so it also marks the expression as one that
        needs the conversion pass (the others are handed on untouched, at no cost).
        """
        ok = self.convert and hints.huge(d, to) is None
        self.needs = self.needs or ok
        return ok

    def report(self, code: str, node: sp.Basic | None, message: str, hint: str) -> Dim:
        if (code, message) not in self.seen:
            self.seen.add((code, message))
            if code in ("SCM402", "SCM403", "SCM404", "SCM405"):
                hint += hints.reading_note(self.involved())
            where = hints.locate(self.text, node) if node is not None else None
            span = (self.smap.at(self.loc, *where) if where else self.smap.nearest(self.loc))
            self.bag.add(code, message, span, hint, ".".join(self.loc))
        return UNKNOWN


    def value(self, node: sp.Basic) -> Dim:
        if node.is_Symbol:
            return self.env.get(node.name, UNKNOWN)
        if node.is_Atom:  # numbers, pi, and what sympy makes of them (zoo for x // 0)
            return ZERO if node == 0 else DIMENSIONLESS
        if node.is_Add:
            return self.add(node)
        if node.is_Mul:
            return self.mul(node)
        if node.is_Pow:
            return self.power(node)
        if isinstance(node, sp.Piecewise):
            for pair in node.args:
                self.condition(pair.cond)
            return self.unify(node, [(p.expr, self.value(p.expr)) for p in node.args], "mix",
                              offsets=True)
        if isinstance(node, (sp.Min, sp.Max, sp.Mod)):  # min/max of degC values are defined
            args = [(a, self.value(a)) for a in node.args]
            return self.unify(node, args, "mix", offsets=not isinstance(node, sp.Mod))
        if isinstance(node, sp.Function):
            return self.call(node)
        raise InternalError(f"check_units does not know the sympy node {type(node).__name__}")

    def condition(self, node: sp.Basic) -> None:
        if isinstance(node, sp.logic.boolalg.BooleanAtom):
            return
        if isinstance(node, sp.core.relational.Relational):
            self.unify(node, [(a, self.value(a)) for a in node.args], "compare", offsets=True)
        elif isinstance(node, sp.logic.boolalg.BooleanFunction):
            for arg in node.args:
                self.condition(arg)
        else:
            self.value(node)

    def unify(self, node: sp.Basic, items: list[tuple[sp.Basic, Dim]], verb: str,
              offsets: bool = False) -> Dim:
        """Terms that are added, compared or branched must share dimension and scale."""
        live = [(e, d) for e, d in items if not d.zero]
        if any(d.unknown for _, d in live):
            return UNKNOWN
        if not live:
            return ZERO
        ref_e, ref = live[0]
        for e, d in live[1:]:
            if d.offset != ref.offset:
                off_e, off, other = (e, d, ref) if d.offset else (ref_e, ref, d)
                what = hints.VERBS[verb].format(a=f"a temperature in {off.offset}",
                                                b=other.unit_text())
                return self.report("SCM406", node, f"'{hints.show(node)}' {what}",
                                   hints.offset_hint(off_e, off))
            if d.same_dims(ref) and (d.same_scale(ref) or self.converts(d, ref)):
                continue  # the usual case: no message, so no sum of the pair to build
            # The pair named in a message (built only here: a new sympy sum per term of
            # every equation was most of checking a card without units).
            pair = sp.Add(ref_e, e) if verb == "add" and len(live) > 2 else node
            if not d.same_dims(ref):
                what = hints.VERBS[verb].format(a=d.dims_text(), b=ref.dims_text())
                return self.report("SCM402", pair, f"'{hints.show(pair)}' {what}: "
                                   f"'{hints.show(e)}' is in {d.unit_text()}, "
                                   f"'{hints.show(ref_e)}' in {ref.unit_text()}",
                                   "terms that are added, compared or branched must share a "
                                   "dimension" + (self.fix(e, d, ref) or self.fix(ref_e, ref, d))
                                   + hints.literal_note(e, ref_e))
            if not d.same_scale(ref) and not self.converts(d, ref):
                what = hints.VERBS[verb].format(a=d.unit_text(), b=ref.unit_text())
                return self.report("SCM405", pair, f"'{hints.show(pair)}' {what}: same dimension, "
                                   f"but raw numbers differ {hints.factor(d, ref)}",
                                   hints.conversion_hint(d, ref) + hints.literal_note(e, ref_e))
        if ref.offset and not offsets:
            return self.report("SCM406", node, f"'{hints.show(node)}' uses a temperature in "
                               f"{ref.offset} where only sums, comparisons, min/max and "
                               "branches are defined", hints.offset_hint(ref_e, ref))
        return ref.plain

    def add(self, node: sp.Add) -> Dim:
        offset_terms: list[tuple[float, sp.Basic, Dim]] = []
        others: list[tuple[sp.Basic, Dim]] = []
        for term in node.args:
            coeff, rest = term.as_coeff_Mul()  # sympy writes 2*(T1 - T2) as 2*T1 - 2*T2
            d = self.value(rest)
            if d.offset:
                offset_terms.append((float(coeff), rest, d))
            else:
                others.append((term, d if coeff == 1 else d * DIMENSIONLESS))
        if offset_terms:
            return self.offset_sum(node, offset_terms, others)
        result = self.unify(node, others, "add")
        for term, _ in others:
            coeff, rest = term.as_coeff_Mul()
            if coeff == -1 and self.zero_point(rest) is not None and not result.unknown:
                return replace(result, converts_zero=self.zero_point(rest))
        return result

    def offset_sum(self, node: sp.Add, terms: list[tuple[float, sp.Basic, Dim]],
                   others: list[tuple[sp.Basic, Dim]]) -> Dim:
        """A sum with degC terms is defined only as an affine combination (see docs/units.md).

        Weights summing to 1 give a temperature on the same scale (T + dT, (T1 + T2)/2),
        weights summing to 0 give a difference (T1 - T2, in delta_degC); a constant equal
        to the scale's zero in kelvin (273.15 K) converts the sum to kelvin.
        """
        first, ref = terms[0][1], terms[0][2]
        for _, sym, d in terms[1:]:
            if d.offset != ref.offset:
                return self.report("SCM406", node, f"'{hints.show(node)}' mixes temperatures in "
                                   f"{ref.offset} and {d.offset}", hints.offset_hint(sym, d))
        net = sum(c for c, _, _ in terms)
        delta = Dim(ref.dims, ((f"delta_{ref.offset}", Fraction(1)),), ref.scale, factor=ref.factor)
        verdicts = [self.difference(node, term, d, ref, first) for term, d in others]
        if any(v is not None and v.unknown for v in verdicts):
            return UNKNOWN
        zero_points = [v for v in verdicts if v is not None]
        if math.isclose(net, 1.0, abs_tol=1e-9) and len(zero_points) <= 1:
            return zero_points[0].plain if zero_points else ref
        if math.isclose(net, 0.0, abs_tol=1e-9) and not zero_points:
            return delta
        return self.report("SCM406", node, f"'{hints.show(node)}' combines temperatures in "
                           f"{ref.offset} with weights summing to {net:g}: on an offset scale "
                           "only differences (weights summing to 0, like T1 - T2) and weighted "
                           "averages (summing to 1, like T + dT or (T1 + T2)/2) are defined",
                           hints.offset_hint(first, ref))

    def difference(self, node: sp.Add, term: sp.Basic, d: Dim, ref: Dim, first: sp.Basic
                   ) -> Dim | None:
        """A non-offset term of a sum with degC terms must be a temperature difference.

        Returns None when it is one, ``d`` when it is the zero-point constant (273.15 K),
        or UNKNOWN once a problem is reported.
        """
        if d.unknown or d.zero:
            return UNKNOWN if d.unknown else None
        delta = Dim(ref.dims, ((f"delta_{ref.offset}", Fraction(1)),), ref.scale, factor=ref.factor)
        if not d.same_dims(delta):
            return self.report("SCM402", node, f"'{hints.show(node)}' adds {d.dims_text()} "
                               f"('{hints.show(term)}') to a temperature in {ref.offset} "
                               f"('{first}')", "only temperature differences can be added to a "
                               "temperature" + self.fix(term, d, delta)
                               + hints.literal_note(term, first))
        if not d.same_scale(delta) and not self.converts(d, delta):
            return self.report("SCM405", node, f"'{hints.show(node)}' adds {d.unit_text()} to a "
                               f"temperature in {ref.offset}: raw numbers differ "
                               f"{hints.factor(d, delta)}", hints.conversion_hint(d, delta))
        coeff, rest = term.as_coeff_Mul()
        if not (coeff in (1, -1) and rest.is_Symbol and self.env[rest.name].absolute):
            return None  # a product such as lapse_rate * height: read as a difference
        zero = self.zero_point(rest)
        if coeff == 1 and zero is not None and math.isclose(zero, ref.zero_k, rel_tol=1e-6):
            return d
        return self.report("SCM406", node, f"'{hints.show(node)}' adds '{rest}', an absolute "
                           f"temperature in {d.unit_text()}, to a temperature in {ref.offset}, "
                           "which is ambiguous", hints.absolute_hint(rest, ref))

    def zero_point(self, node: sp.Basic) -> float | None:
        """The value in kelvin of a constant declared in an absolute temperature unit."""
        if not node.is_Symbol or node.name not in self.constants:
            return None
        d = self.env[node.name]
        return self.constants[node.name].value * math.exp(d.scale) if d.absolute else None

    def mul(self, node: sp.Mul) -> Dim:
        result = DIMENSIONLESS
        for arg in node.args:
            d = self.value(arg)
            if d.unknown:
                return UNKNOWN
            if d.offset:
                return self.report("SCM406", node, f"'{hints.show(node)}' multiplies "
                                   f"'{hints.show(arg)}', a temperature in {d.offset}: offset "
                                   "units are ambiguous under multiplication",
                                   hints.offset_hint(arg, d))
            result = result * d
        return result

    def power(self, node: sp.Pow) -> Dim:
        base, exponent = node.args
        b, e = self.value(base), self.value(exponent)
        if b.unknown or e.unknown:
            return UNKNOWN
        for part, d in ((base, b), (exponent, e)):
            if d.offset:
                return self.report("SCM406", node, f"'{hints.show(node)}' raises to a power; "
                                   f"'{part}' is a temperature in {d.offset}",
                                   hints.offset_hint(part, d))
        if not self.dimensionless_arg(None, exponent, e, power=node):
            return UNKNOWN
        if exponent.is_number:
            k = Fraction(float(exponent)).limit_denominator(1000) if not exponent.is_Rational \
                else Fraction(int(exponent.p), int(exponent.q))
            return b ** k
        if b.dimensionless and (b.same_scale(DIMENSIONLESS) or self.converts(b, DIMENSIONLESS)):
            return DIMENSIONLESS
        return self.report("SCM403", node, f"'{hints.show(node)}' raises '{hints.show(base)}' "
                           f"({b.unit_text()}) to a power that is not a number",
                           "only dimensionless quantities may be raised to a variable power; "
                           f"divide '{hints.show(base)}' by a reference constant in "
                           f"{b.unit_text()} first")

    def dimensionless_arg(self, fname: str | None, arg: sp.Basic, d: Dim,
                          power: sp.Basic | None = None) -> bool:
        """``fname()``'s argument (or the exponent of ``power``) must be a plain number."""
        if d.zero or d.unknown:
            return not d.unknown
        if not d.dimensionless:
            a = hints.show(arg)
            lead = (f"{fname}() of a dimensional quantity" if fname else
                    f"'{hints.show(power)}' has a dimensional exponent")
            self.report("SCM403", arg, f"{lead}: '{a}' is {d.dims_text()}", "make it "
                        f"dimensionless: divide by a reference constant in "
                        f"{hints.suggest_unit(d)}" + self.fix(arg, d, DIMENSIONLESS))
            return False
        if not d.same_scale(DIMENSIONLESS) and not self.converts(d, DIMENSIONLESS):
            a = hints.show(arg)
            lead = (f"{fname}() of '{a}'" if fname else
                    f"'{hints.show(power)}' has the exponent '{a}'")
            self.report("SCM405", arg, f"{lead}, which is in {d.unit_text()}: raw numbers "
                        f"differ from the plain number {hints.factor(d, DIMENSIONLESS)}",
                        hints.conversion_hint(d, DIMENSIONLESS))
            return False
        return True

    def call(self, node: sp.Function) -> Dim:
        fallback = (node.func.__name__, "dimensionless", False)  # sympy-made functions
        name, rule, random = registry.function_rules().get(node.func.__name__, fallback)
        args = node.args[:-1] if random else node.args  # drop the draw's call-site index
        dims = [self.value(a) for a in args]
        if any(d.unknown for d in dims):
            return UNKNOWN
        for arg, d in zip(args, dims):
            if d.offset:
                return self.report("SCM406", arg, f"{name}() of '{hints.show(arg)}', a "
                                   f"temperature in {d.offset}: the result depends on where the "
                                   "scale's zero is", hints.offset_hint(arg, d))
        if rule in ("dimensionless", "draw_dimensionless"):
            ok = all([self.dimensionless_arg(name, a, d) for a, d in zip(args, dims)])
            return DIMENSIONLESS if ok else UNKNOWN
        if rule == "draw_first":
            rest = zip(args[1:], dims[1:])
            ok = all([self.dimensionless_arg(name, a, d) for a, d in rest])
            return dims[0].plain if ok else UNKNOWN
        if rule == "draw_inverse":
            return dims[0] ** Fraction(-1)
        if rule == "sign":
            if len(args) > 1 and self.unify(node, list(zip(args, dims)), "mix").unknown:
                return UNKNOWN
            return DIMENSIONLESS
        if rule in ("same", "draw_same"):
            return self.unify(node, list(zip(args, dims)), "mix")
        raise InternalError(f"check_units has no rule {rule!r} (function {name!r})")

    def check_result(self, name: str, unit: str, declared: Dim, expr: sp.Basic,
                     result: Dim) -> None:
        if result.unknown or declared.unknown or result.zero:
            return
        if declared.offset or result.offset:
            self.check_offset_result(name, unit, declared, expr, result)
        elif not result.same_dims(declared):
            missing = declared * result ** Fraction(-1)
            self.report("SCM404", None, f"{name!r} evaluates to {result.dims_text()} but is "
                        f"declared in {unit} ({declared.dims_text()}); {hints.shown(expr, result)}",
                        f"the equation lacks a factor of {hints.suggest_unit(missing)} "
                        f"({missing.dims_text()}): multiply by a constant with that unit, or "
                        f"declare {name!r} in {hints.suggest_unit(result)}"
                        + self.fix(expr, result, declared))
        elif not result.same_scale(declared) and not self.converts(result, declared):
            self.report("SCM405", self.culprit(expr), f"{name!r} evaluates to "
                        f"{result.unit_text()} but is declared in {unit}: equations run on raw "
                        f"numbers, so its values would be off {hints.factor(result, declared)}; "
                        f"{hints.shown(expr, result)}",
                        hints.conversion_hint(result, declared) + " (unit conversions go through "
                        "constants with units)")

    def check_offset_result(self, name: str, unit: str, declared: Dim, expr: sp.Basic,
                            result: Dim) -> None:
        """Results on offset scales: same scale passes, ``T_K - T0`` converts, the rest is 406."""
        plain_declared, plain_result = replace(declared, offset=None), replace(result, offset=None)
        if not result.same_dims(declared):
            self.check_result(name, unit, plain_declared, expr, plain_result)
            return
        if result.offset == declared.offset:
            return
        lone = expr.is_Symbol and (result.offset or result.absolute) and \
            (declared.offset or declared.absolute)
        if lone and self.convert:
            self.needs = True
            return  # a lone temperature converts affinely (unit_conversion.affine)
        zero = result.converts_zero
        if declared.offset and not result.offset and zero is not None and \
                math.isclose(zero, declared.zero_k, rel_tol=1e-6):
            self.check_result(name, unit, plain_declared, expr, result)
            return
        if result.offset:
            got, hint = f"a temperature in {result.offset}", hints.offset_hint(expr, result)
        else:
            got = f"{result.unit_text()} (a kelvin value or a temperature difference)"
            hint = (f"declare {name!r} in K or delta_{declared.offset}; to convert kelvin to "
                    f"{declared.offset} write T_K - T0 with a constant "
                    f"`T0: {{value: {declared.zero_k:.6g}, unit: K}}`")
        self.report("SCM406", None, f"{name!r} is declared in {unit} but its equation "
                    f"'{hints.show(expr)}' gives {got}", hint)

