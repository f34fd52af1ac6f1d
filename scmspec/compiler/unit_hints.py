"""Message helpers for ``check_units``: locating a sub-expression and suggesting fixes.

Kept apart from the checker so that ``units.py`` reads as the rules alone. Every hint
suggests a concrete edit: a constant with units that converts a scale, a kelvin declaration
for an offset unit, or a named constant instead of a bare number.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping

import sympy as sp
from sympy.core.function import AppliedUndef

from scmspec.compiler.kinds.functions import FUNCTIONS
from scmspec.compiler.spec import ConstantSpec
from scmspec.compiler.unit_registry import AMBIGUOUS, Dim, parse_unit, registry

_RANDOM = frozenset(name for name, entry in FUNCTIONS.items() if entry.random)
VERBS = {"add": "adds {a} to {b}", "compare": "compares {a} with {b}", "mix": "mixes {a} and {b}"}


def show(node: sp.Basic) -> str:
    """``sympy.sstr`` without the call-site index random draws carry (``bernoulli(p, 0)``)."""
    if any(f.func.__name__ in _RANDOM for f in node.atoms(AppliedUndef)):
        node = node.replace(lambda n: isinstance(n, AppliedUndef) and n.func.__name__ in _RANDOM,
                            lambda n: n.func(*n.args[:-1]))
    return str(sp.sstr(node))


def shown(expr: sp.Basic, result: Dim) -> str:
    return f"'{show(expr)}' is in {result.unit_text()}"


# Scale factors are kept as natural logs; past this one, exp() overflows a float.
_LOG_FLOAT_MAX = 700.0


def huge(d: Dim, to: Dim) -> str | None:
    """'10^394' when the two scales differ by more than a float holds, else None."""
    gap = d.scale - to.scale
    return f"10^{abs(gap) / math.log(10):.0f}" if abs(gap) > _LOG_FLOAT_MAX else None


def factor(d: Dim, to: Dim) -> str:
    """'by a factor of 100 (1 Pa = 0.01 hPa)'; 'by a factor of about 10^394' past floats."""
    beyond = huge(d, to)
    if beyond is not None:
        return f"by a factor of about {beyond}, beyond the range of a float"
    f = d.factor_to(to)
    return (f"by a factor of {max(f, 1 / f):.6g} "
            f"(1 {d.unit_text()} = {f:.6g} {to.unit_text()})")


def _ident(unit_text: str) -> str:
    if unit_text == "dimensionless":
        return "one"
    return re.sub(r"\W+", "_", unit_text).strip("_") or "one"


def conversion_hint(d: Dim, to: Dim) -> str:
    """A constant that turns raw numbers in ``d``'s unit into ``to``'s (its value >= 1)."""
    if huge(d, to) is not None:
        return (f"{d.unit_text()} and {to.unit_text()} differ by more than a float can hold: "
                "declare the quantities in units of comparable scale")
    f, a, b = d.factor_to(to), d.unit_text(), to.unit_text()
    if f >= 1:
        name, value, unit, verb = f"{_ident(b)}_per_{_ident(a)}", f, _ratio(to, d), "multiply"
    else:
        name, value, unit, verb = f"{_ident(a)}_per_{_ident(b)}", 1 / f, _ratio(d, to), "divide"
    return (f"convert through a constant with units: {verb} by "
            f"`{name}: {{value: {value:.6g}, unit: {unit}}}`")


def _ratio(top: Dim, bottom: Dim) -> str:
    a, b = top.unit_text(), bottom.unit_text()
    if not bottom.names:
        return a
    b = f"({b})" if re.search(r"[*/]", b) else b
    return f"{a if top.names else 1}/{b}"


def offset_hint(node: sp.Basic, d: Dim) -> str:
    """How to get a degC quantity out of an ambiguous spot (see docs/units.md)."""
    text, unit = show(node), d.offset or "degC"
    zero = d.zero_k if d.offset else 273.15
    return (f"declare '{text}' in K (or delta_{unit} for a difference), or convert it: "
            f"T_K = {text} + T0 with a constant `T0: {{value: {zero:.6g}, unit: K}}`; see "
            "docs/units.md for what offset units support")


def absolute_hint(node: sp.Basic, ref: Dim) -> str:
    return (f"if '{node}' is a temperature difference, declare it in delta_{ref.offset}; to "
            f"convert {ref.offset} to kelvin, add a constant equal to 0 {ref.offset} in kelvin "
            f"(`T0: {{value: {ref.zero_k:.6g}, unit: K}}`)")


def suggest_unit(d: Dim) -> str:
    """``d``'s unit text with same-dimension names that divide out cancelled (kJ*K/J -> K).

    The cancelled pair is a pure scale, which the compiler converts (or, under ``units:
    strict``, a constant with units carries); the suggestion names the unit meant.
    """
    names = dict(d.names)
    dims = {n: parse_unit(n) for n in names}
    for a in list(names):
        for b in list(names):
            da, db = dims[a], dims[b]
            if a == b or names.get(a, 0) <= 0 or names.get(b, 0) >= 0 or isinstance(da, str) \
                    or isinstance(db, str) or not isinstance(da, Dim) or not isinstance(db, Dim):
                continue
            if da.dims and da.same_dims(db) and not da.offset and not db.offset:
                k = min(names[a], -names[b])
                names[a] -= k
                names[b] += k
    return Dim(d.dims, tuple((n, e) for n, e in names.items() if e != 0)).unit_text()


def unit_fix(constants: Mapping[str, ConstantSpec], term: sp.Basic, have: Dim, want: Dim) -> str:
    """'; give the constant 'k' the unit 1/kg' when that unit makes ``term`` (in ``have``)
    have ``want``'s dimension, for a constant given no unit; '' when no such constant.

    Only a constant that multiplies the whole term can fix it; a genuinely dimensionless
    constant elsewhere (a coefficient inside exp(), an exponent) is never named.
    """
    if have.unknown or want.unknown or have.offset or want.offset:
        return ""
    powers = term.as_powers_dict() if term.is_Mul or term.is_Pow or term.is_Symbol else {}
    for base, k in powers.items():
        if not (base.is_Symbol and base.name in constants and k.is_Rational and k != 0
                and "unit" not in constants[base.name].model_fields_set):
            continue
        from fractions import Fraction

        needed = (want * have ** Fraction(-1)) ** Fraction(int(k.q), int(k.p))
        if needed.dimensionless:
            return ""
        return (f"; the constant {base.name!r} has no unit: give it the unit "
                f"{suggest_unit(needed)} ({needed.dims_text()})")
    return ""


def reading_note(dims: Iterable[Dim]) -> str:
    """How pint reads the names it may read otherwise than meant ('cup' is a volume)."""
    ureg = registry()
    notes = []
    for name in sorted({n for d in dims for n, _ in d.names}):
        try:
            canonical = str(ureg.get_name(name))
        except Exception:  # noqa: BLE001 - a name pint cannot name back: nothing to explain
            continue
        if canonical in AMBIGUOUS and AMBIGUOUS[canonical] not in notes:
            notes.append(f"'{name}' is read by pint as {AMBIGUOUS[canonical]}")
    return "; " + "; ".join(notes) if notes else ""


def literal_note(*nodes: sp.Basic) -> str:
    if any(n.is_Number for n in nodes):
        return ("; a bare number is dimensionless: declare it as a constant with a unit, e.g. "
                "`dT: {value: 3, unit: K}`")
    return ""


def locate(text: str, node: sp.Basic) -> tuple[int, int] | None:
    """Best-effort (offset, width) of ``node`` inside the equation text."""
    target = show(node).replace(" ", "")
    index = [i for i, ch in enumerate(text) if not ch.isspace()]
    at = "".join(text[i] for i in index).find(target)
    if target and at >= 0:
        return index[at], index[at + len(target) - 1] + 1 - index[at]
    found = [_word(text, s.name) for s in node.free_symbols]
    spans = [m for m in found if m is not None]
    if not spans or len(spans) < len(found):
        return None
    start, end = min(m[0] for m in spans), max(m[1] for m in spans)
    return start, end - start


def _word(text: str, name: str) -> tuple[int, int] | None:
    m = re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text)
    return (m.start(), m.end()) if m else None
