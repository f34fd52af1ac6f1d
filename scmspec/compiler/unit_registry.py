"""The unit registry and the exact unit algebra that ``check_units`` runs on.

Pint parses each unit string once (cached) into a :class:`Dim`: its dimension vector with
exact rational exponents, the unit names the user wrote (for messages), the natural log of
its factor to SI base units, and, for offset units (degC, degF), the offset unit itself. The
walk over an equation then only does cheap arithmetic on ``Dim`` values: pint stays out of
the hot path, and ``cbrt(m**3)`` is exactly ``m`` (pint's float exponents are not).

Card vocabulary added to pint's defaults (see docs/units.md):

* each currency in :data:`CURRENCIES` is its own base dimension, so adding USD to EUR is an
  error and exchange rates go through a constant such as ``{value: 0.92, unit: EUR/USD}``;
* counting nouns in :data:`COUNT_NOUNS` are dimensionless aliases of pint's ``count``
  (``persons/day`` is ``1/day``); pint also accepts their plurals.

:func:`function_rules` maps each sympy function an equation can contain to the ``units``
rule of its whitelist entry in ``kinds/functions.py``.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any

import pint
import sympy as sp

from scmspec.compiler.kinds.functions import FUNCTIONS

CURRENCIES = ("USD", "EUR", "GBP", "JPY", "CHF", "CNY", "INR", "CAD", "AUD")
COUNT_NOUNS = (
    "person", "patient", "customer", "user", "employee", "student", "household", "vehicle",
    "device", "item", "event", "case", "incident", "request", "visit", "admission", "bed",
    "trip", "order", "transaction", "call", "ticket", "claim", "appointment", "session",
    "click", "job", "task", "shipment", "defect", "failure", "death", "birth", "infection",
    "dose", "tablet", "animal", "plant", "school", "unit_count",
)
# Astronomical units pint lacks: IAU 2015 Resolution B3 nominal values (solar and
# planetary radii, solar luminosity, mass parameters divided by CODATA 2018 G) and the
# jansky (IAU). Magnitudes are logarithms, hence dimensionless, not units.
ASTRONOMICAL = (
    "solar_mass = 1.98841e30 * kilogram = M_sun",
    "solar_radius = 6.957e8 * meter = R_sun",
    "solar_luminosity = 3.828e26 * watt = L_sun",
    "earth_mass = 5.97217e24 * kilogram = M_earth",
    "earth_radius = 6.3781e6 * meter = R_earth",
    "jupiter_mass = 1.89812e27 * kilogram = M_jup",
    "jupiter_radius = 7.1492e7 * meter = R_jup",
    "jansky = 1e-26 * watt / meter ** 2 / hertz = Jy",
)
# Names pint reads in a way an author may not mean, keyed by pint's canonical name; each
# diagnostic that involves one says how pint read it (docs/units.md). Written by their name,
# not pint's symbol, in messages ('cup', not 'cp').
AMBIGUOUS = {
    "cup": "cup, a volume (US cup, 236.6 mL), not a count of cups: count things with a "
           "counting noun (item, dose, ...)",
    "coulomb": "coulomb (electric charge), not degrees Celsius (degC)",
    "farad": "farad (capacitance), not degrees Fahrenheit (degF)",
    "year": "year (annum, 365.25 days), not the area unit are",
    "ton": "the US short ton (907.2 kg), not the metric tonne (t)",
    "ounce": "the avoirdupois ounce, a mass (28.35 g), not the fluid ounce (floz)",
    "pint": "the US liquid pint (473.2 mL), a volume",
    "gallon": "the US gallon (3.785 L), not the imperial gallon (imperial_gallon)",
    "calorie": "the thermochemical calorie (4.184 J), not the food Calorie (kcal)",
    "gauss": "gauss (magnetic flux density in CGS)",
    "poise": "poise (dynamic viscosity)",
    "molar": "molar, a concentration (mol/L)",
    "mil": "mil, an angle (2 pi / 64000 rad), not a thousandth of an inch (thou)",
    "gray": "gray, an absorbed dose (J/kg)",
    "light_year": "light_year, a length, not a time",
    "knot": "knot, a speed (1852 m/h)",
    "horsepower": "mechanical horsepower (745.7 W)",
}
MAX_UNIT_CHARS = 100
MAX_EXPONENT = 12
# Names, digits, * / ** ^ ( ) spaces, '.', '%' and '-' (for s**-1): nothing else reaches pint.
_SAFE = re.compile(r"[A-Za-z0-9_ .*/^()%\-]*")
# A number raised to a power ("10 ** 10 ** 10") would make pint compute a huge integer.
_NUMBER_POWER = re.compile(r"(?<![A-Za-z_])[0-9.]+\s*\)*\s*(\*\*|\^)")
_DIM_ORDER = ("[mass]", "[length]", "[time]", "[temperature]", "[current]", "[substance]",
              "[luminosity]")

Vec = tuple[tuple[str, Fraction], ...]
Ureg = Any  # pint.UnitRegistry; its generic parameters are not worth spelling out


@cache
def registry() -> Ureg:
    """The one module-level registry (built on first use, ~0.3 s, then reused).

    Example:
        >>> str(registry().parse_units("USD/person"))
        'USD / person'
    """
    ureg: Ureg = pint.UnitRegistry()
    for code in CURRENCIES:
        ureg.define(f"{code} = [{code}]")
    for noun in COUNT_NOUNS:
        if noun not in ureg:  # never shadow a pint unit
            ureg.define(f"{noun} = count")
    for definition in ASTRONOMICAL:
        if definition.split(" =", 1)[0] not in ureg:
            ureg.define(definition)
    return ureg


def _vec(pairs: dict[str, Fraction]) -> Vec:
    return tuple((k, v) for k, v in pairs.items() if v != 0)


@lru_cache(maxsize=8192)  # cards repeat the same few units; Fraction arithmetic is not free
def _combine(a: Vec, b: Vec, k: Fraction = Fraction(1)) -> Vec:
    if not b or not a:
        return a or _scaled(b, k)
    out = dict(a)
    for name, e in b:
        out[name] = out.get(name, Fraction(0)) + e * k
    return _vec(out)


@lru_cache(maxsize=8192)
def _scaled(a: Vec, k: Fraction) -> Vec:
    if k == 1:
        return a
    return _vec({n: e * k for n, e in a})


def _float_power(x: float, k: Fraction) -> float:
    """x ** k for a unit's factor; inf/0 past float range (the logarithms stay exact)."""
    try:
        return float(x ** float(k))
    except OverflowError:
        return math.inf


def _power(e: Fraction) -> str:
    if e == 1:
        return ""
    return f"**{e}" if e.denominator == 1 else f"**({e})"


def format_vec(vec: Vec, order: tuple[str, ...] = ()) -> str:
    """``[mass]/[length]/[time]**2``-style text; ``dimensionless`` for the empty vector."""
    rank = {n: i for i, n in enumerate(order)}
    items = sorted(vec, key=lambda p: rank.get(p[0], len(rank))) if order else list(vec)
    num = [f"{n}{_power(e)}" for n, e in items if e > 0]
    den = [f"{n}{_power(-e)}" for n, e in items if e < 0]
    if not num and not den:
        return "dimensionless"
    return "*".join(num or ["1"]) + "".join(f"/{d}" for d in den)


@dataclass(frozen=True)
class Dim:
    """What the checker knows about a value: its unit, up to the numbers in it.

    ``scale`` is ln(factor to SI base units), so products never overflow. ``offset`` names
    the offset unit (``degC``) of an absolute temperature on an offset scale, ``zero_k`` that
    scale's zero in kelvin. ``absolute`` marks a bare absolute temperature (K, degR) and
    ``converts_zero`` a sum ``T_K - T0`` that subtracts such a zero point. ``zero`` is the
    literal 0 (it matches any unit); ``unknown`` is a value whose error is already reported.
    ``factor`` is the factor itself, kept as a float product of pint's factors so that the
    conversions the compiler inserts are exact (``exp(log(100))`` is not 100).
    """

    dims: Vec = ()
    names: Vec = ()
    scale: float = 0.0
    offset: str | None = None
    zero_k: float = 0.0
    absolute: bool = False
    converts_zero: float | None = None
    zero: bool = False
    unknown: bool = False
    factor: float = 1.0

    def __mul__(self, other: Dim) -> Dim:
        if self.unknown or other.unknown:
            return UNKNOWN
        if not other.names and not other.scale:  # a plain number
            return Dim(self.dims, self.names, self.scale, factor=self.factor)
        return Dim(_combine(self.dims, other.dims), _combine(self.names, other.names),
                   self.scale + other.scale, factor=self.factor * other.factor)

    def __pow__(self, k: Fraction) -> Dim:
        if self.unknown:
            return UNKNOWN
        factor = self.factor if k == 1 else _float_power(self.factor, k)
        return Dim(_scaled(self.dims, k), _scaled(self.names, k), self.scale * float(k),
                   factor=factor)

    def same_dims(self, other: Dim) -> bool:
        return dict(self.dims) == dict(other.dims)

    def factor_to(self, other: Dim) -> float:
        """How many ``other`` units one of these units is (1 when raw numbers agree)."""
        return math.exp(self.scale - other.scale)

    def exact_factor_to(self, other: Dim) -> float:
        """:meth:`factor_to` from the float factors (exact for prefixes: hPa -> Pa is 100.0).

        Falls back to the logarithms when a factor over- or underflowed a float.
        """
        ratio = self.factor / other.factor if other.factor else math.inf
        return ratio if math.isfinite(ratio) and ratio > 0 else self.factor_to(other)

    def same_scale(self, other: Dim) -> bool:
        return abs(self.scale - other.scale) <= 1e-9

    @property
    def dimensionless(self) -> bool:
        return not self.dims

    @property
    def plain(self) -> Dim:
        """The same unit (and offset scale) without the bookkeeping flags."""
        if not (self.absolute or self.zero or self.converts_zero is not None):
            return self
        return replace(self, absolute=False, converts_zero=None, zero=False)

    def dims_text(self) -> str:
        if not self.dims and self.names:  # h/d, percent, rad: a unit, though no dimension
            return f"{self.unit_text()} (a ratio: no net dimension)"
        return format_vec(self.dims, _DIM_ORDER)

    def unit_text(self) -> str:
        return self.offset or format_vec(self.names)


DIMENSIONLESS = Dim()
ZERO = Dim(zero=True)
UNKNOWN = Dim(unknown=True)


@dataclass(frozen=True)
class UnitIssue:
    """Why a unit string was refused (becomes SCM401, or SCM406 for offset misuse)."""

    code: str
    message: str
    hint: str


def _symbol(ureg: Ureg, name: str) -> str:
    if name in AMBIGUOUS and name in ("cup", "mil", "pint", "ounce", "gauss", "poise"):
        return name  # messages say 'cup', not pint's 'cp'
    sym = ureg.get_symbol(name)
    if sym == "%":
        return "percent"
    if not sym.isascii():
        sym = sym.replace("Δ", "delta_").replace("°", "deg")
    return sym if sym.isascii() else name


@lru_cache(maxsize=4096)
def parse_unit(text: str) -> Dim | UnitIssue:
    """Parse one unit string into a :class:`Dim` (cached; never evaluates arbitrary text).

    Example:
        >>> parse_unit("hPa").dims_text(), round(parse_unit("hPa").factor_to(parse_unit("Pa")))
        ('[mass]/[length]/[time]**2', 100)
        >>> parse_unit("furlongz").hint
        "did you mean 'furlong'?"
    """
    text = text.strip()
    if text in ("", "1", "dimensionless"):
        return DIMENSIONLESS
    if len(text) > MAX_UNIT_CHARS:
        return UnitIssue("SCM401", f"the unit string has {len(text)} characters, over the "
                         f"limit of {MAX_UNIT_CHARS}", "write a short pint unit such as kg/m**3")
    if not _SAFE.fullmatch(text) or "__" in text:
        return UnitIssue("SCM401", f"{text!r} is not a unit expression", "units use names, "
                         "numbers, * / ** ^ and parentheses, e.g. J/(kg*K); write degC for °C")
    if _NUMBER_POWER.search(text):
        return UnitIssue("SCM401", f"{text!r} raises a number to a power", "a unit cannot "
                         "carry a number; put the factor into the value")
    ureg = registry()
    try:
        unit = ureg.parse_units(text)
    except pint.UndefinedUnitError as exc:
        return _unknown(text, exc.unit_names)
    except Exception as exc:  # noqa: BLE001 - pint raises many types on malformed text
        return UnitIssue("SCM401", f"{text!r} is not a valid unit ({_reason(exc)})",
                         "write a pint unit such as m/s**2, 1/day or USD/person")
    return _to_dim(ureg, text, unit)


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValueError) and "scaling factor" in str(exc):
        return "a unit cannot carry a number; put the factor into the value"
    return "division by zero" if isinstance(exc, ZeroDivisionError) else "malformed expression"


def _unknown(text: str, names: tuple[str, ...] | str) -> UnitIssue:
    name = names[0] if isinstance(names, tuple) and names else str(names)
    guess = difflib.get_close_matches(name, _candidates(), n=1, cutoff=0.75)
    hint = (f"did you mean {guess[0]!r}?" if guess else
            "use a pint unit (m, kg, s, hPa, degC, 1/day), a currency (USD, EUR) or a "
            "counting noun (persons, events); see docs/units.md")
    what = f"{text!r}" if name == text else f"{name!r} (in {text!r})"
    return UnitIssue("SCM401", f"unknown unit {what}", hint)


@cache
def _candidates() -> list[str]:
    return sorted(registry()._units)  # every name, alias and symbol pint knows


def _to_dim(ureg: Ureg, text: str, unit: pint.Unit) -> Dim | UnitIssue:
    parts = {n: _exact(e) for n, e in unit._units.items()}
    if any(abs(e) > MAX_EXPONENT for e in parts.values()):
        return UnitIssue("SCM401", f"{text!r} has an exponent above {MAX_EXPONENT}",
                         "check the unit; no physical unit needs such a power")
    kind = _affine(ureg, unit)
    if kind is None:
        return UnitIssue("SCM401", f"{text!r} is a logarithmic unit, which equations cannot "
                         "check", "use a dimensionless ratio (or the linear quantity) instead")
    dims = _vec({d: _exact(e) for d, e in ureg.get_dimensionality(unit).items()})
    names = _vec({_symbol(ureg, n): e for n, e in parts.items()})
    factor, _ = ureg.get_base_units(unit)
    dim = Dim(dims, names, math.log(float(factor)), factor=float(factor))
    if kind != 0.0:  # an offset unit such as degC: absolute temperatures on a shifted scale
        return replace(dim, offset=format_vec(names), zero_k=kind)
    if dict(dims) == {"[temperature]": 1} and not any(n.startswith("delta_") for n, _ in names):
        return replace(dim, absolute=True)
    return dim


def _exact(exponent: Any) -> Fraction:
    """pint keeps exponents as floats; the algebra wants them exact (0.5 -> 1/2)."""
    return Fraction(float(exponent)).limit_denominator(1000)


def _affine(ureg: Ureg, unit: pint.Unit) -> float | None:
    """The unit's zero in base units (0 for ordinary units); None for logarithmic units."""
    try:  # pint fails in many ways on a logarithmic unit inside a compound one (dB/km)
        base = ureg.get_base_units(unit)[1]
        z, one, two = (ureg.Quantity(v, unit).to(base).magnitude for v in (0.0, 1.0, 2.0))
    except Exception:  # noqa: BLE001 - conversions of exotic units can fail in many ways
        return None
    return float(z) if math.isclose(two - z, 2 * (one - z), rel_tol=1e-9) else None


@cache
def function_rules() -> dict[str, tuple[str, str, bool]]:
    """sympy function name -> (card name, units rule, random), derived from FUNCTIONS.

    Deriving it (instead of a second table) keeps one source of truth: ``abs`` builds
    ``Abs``, ``ceil`` builds ``ceiling``, ``log1p`` builds ``log``, custom ones keep their name.
    """
    xs = sp.symbols("x0:3", real=True)
    rules: dict[str, tuple[str, str, bool]] = {}
    for name, entry in FUNCTIONS.items():
        built = entry.build(*xs[: entry.min_args], *((sp.Integer(0),) if entry.random else ()))
        if isinstance(built, sp.Function) and not isinstance(built, sp.Piecewise):
            rules.setdefault(built.func.__name__, (name, entry.units, entry.random))
    return rules
