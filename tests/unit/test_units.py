"""Stage 4 (check_units): unit strings, dimensions, scale factors and offset units.

Every rule has a card that breaks it (exact code, the offending sub-expression named in the
message, exact ``line:col``) and a card that keeps it. Cards are YAML text compiled through
the real pipeline, so the spans are the ones users see.
"""

from __future__ import annotations

import re

import pytest

from scmspec.compiler.kinds.functions import FUNCTIONS
from scmspec.compiler.pipeline import compile_card, parse_card_text
from scmspec.compiler.resolve import resolve
from scmspec.compiler.unit_registry import COUNT_NOUNS, Dim, UnitIssue, parse_unit, registry
from scmspec.compiler.units import check_units
from scmspec.errors import Diagnostic, UnitError

Var = str | tuple[str | None, str] | tuple[str | None, str, str]
HYPSOMETRIC = {"g": "{value: 9.81, unit: m/s**2}", "R_d": "{value: 287.05, unit: J/(kg*K)}"}


def card(variables: dict[str, Var], constants: dict[str, str] | None = None,
         extra: str = "") -> str:
    """Card text: a str value is a root's unit; a tuple is (unit, equation[, more lines]).

    Edges are derived from the equations, so every card resolves and reaches check_units.
    """
    lines = ["id: t", "title: units", "family: formula", "domain: test"]
    if constants:
        lines += ["constants:"] + [f"  {k}: {v}" for k, v in constants.items()]
    lines.append("variables:")
    edges = []
    for name, spec in variables.items():
        lines += [f"  {name}:", "    meaning: a test quantity"]
        if isinstance(spec, str):
            lines += [f"    unit: {spec}", "    distribution: {kind: normal}"]
            continue
        unit, equation, *more = spec
        lines += ([f"    unit: {unit}"] if unit is not None else []) + [f"    equation: {equation}"]
        lines += [f"    {m}" for m in more]
        edges += [(p, name) for p in variables if p != name and re.search(rf"\b{p}\b", equation)]
    edge_lines = [f"  - {{from: {a}, to: {b}, reason: r}}" for a, b in edges]
    lines += ["edges:", *edge_lines] if edges else ["edges: []"]
    return "\n".join(lines) + "\n" + extra


def compile_text(text: str) -> None:
    compile_card(*parse_card_text(text, "c.yaml"))


def problems(text: str) -> tuple[Diagnostic, ...]:
    with pytest.raises(UnitError) as err:
        compile_text(text)
    return err.value.diagnostics


def where(text: str, anchor: str, token: str | None = None) -> str:
    """``c.yaml:line:col`` of ``token`` (default: the anchor itself) after ``anchor``."""
    i = text.index(anchor)
    i = text.index(token, i) if token else i
    line = text.count("\n", 0, i) + 1
    return f"c.yaml:{line}:{i - text.rfind(chr(10), 0, i)}"


def fails(text: str, code: str, *named: str, at: tuple[str, ...]) -> Diagnostic:
    diags = problems(text)
    assert [d.code for d in diags] == [code], "\n".join(map(str, diags))
    d = diags[0]
    for part in named:
        assert part in d.message + (d.hint or ""), (part, d.message, d.hint)
    assert str(d.span) == where(text, *at)
    return d


# -- SCM401: unit strings -------------------------------------------------------------------


def test_unknown_unit_points_at_the_unit_with_a_did_you_mean() -> None:
    text = card({"x": "furlongz"})
    d = fails(text, "SCM401", "furlongz", "'x'", at=("unit: furlongz", "furlongz"))
    assert d.hint == "did you mean 'furlong'?"
    assert d.span is not None and d.span.end_col == d.span.col + len("furlongz")


@pytest.mark.parametrize("unit", ["1/0", "m**m", "__import__", "os.system", "m**40", "100*Pa",
                                  "dB", "kg" * 60, "\"m; rm -rf /\"", "\"m[0]\""])
def test_absurd_or_hostile_unit_strings_are_refused_before_pint_evaluates_them(unit: str) -> None:
    text = card({"x": unit})
    fails(text, "SCM401", at=(f"unit: {unit}", unit.strip('"')))  # quoted: inside the quotes


def test_an_unknown_constant_unit_is_reported_at_the_constant() -> None:
    text = card({"x": "m"}, {"k": "{value: 2, unit: meterz}"})
    d = fails(text, "SCM401", "'k'", at=("unit: meterz", "meterz"))
    assert "meter" in (d.hint or "")


@pytest.mark.parametrize("unit", ["hPa", "J/(kg*K)", "m/s**2", "1/day", "USD/person", "EUR",
                                  "persons/day", "patients", "percent", "dimensionless",
                                  "delta_degC", "degC", "m**0.5", "kg m^-3", "unit_count",
                                  "M_sun", "R_earth", "L_sun", "mJy", "au", "kpc"])
def test_operational_units_parse(unit: str) -> None:
    assert isinstance(parse_unit(unit), Dim)
    compile_text(card({"x": unit}))


def test_the_registry_is_built_once_and_parsing_is_cached() -> None:
    assert registry() is registry()
    parse_unit("kg/m**3")
    hits = parse_unit.cache_info().hits
    parse_unit("kg/m**3")
    assert parse_unit.cache_info().hits == hits + 1


def test_counting_nouns_are_dimensionless_and_currencies_are_their_own_dimension() -> None:
    for noun in COUNT_NOUNS:
        d = parse_unit(noun)
        assert isinstance(d, Dim) and d.dimensionless and d.same_scale(Dim())
    usd, eur = parse_unit("USD"), parse_unit("EUR")
    assert isinstance(usd, Dim) and isinstance(eur, Dim)
    assert usd.dims_text() == "[USD]" and not usd.same_dims(eur)
    assert isinstance(parse_unit("furlongz"), UnitIssue)
    assert parse_unit("1") == parse_unit("") == parse_unit("dimensionless")


def test_offset_units_in_compound_units_become_differences_as_in_pint() -> None:
    d = parse_unit("degC/day")
    assert isinstance(d, Dim) and d.offset is None and "delta_degC" in d.unit_text()


# -- SCM402: terms that are added, compared or branched share a dimension --------------------


def test_adding_a_pressure_to_a_temperature() -> None:
    text = card({"p_stn": "hPa", "T": "K", "y": ("hPa", "p_stn + T")})
    d = fails(text, "SCM402", "'T + p_stn'", "[mass]/[length]/[time]**2", "[temperature]",
              "'p_stn' is in hPa", at=("equation: p_stn + T", "p_stn + T"))
    assert d.span is not None and d.span.end_col == d.span.col + len("p_stn + T")


def test_a_constant_without_a_unit_is_named() -> None:
    text = card({"T": "K", "y": ("K", "T + dT")}, {"dT": "{value: 3}"})
    d = fails(text, "SCM402", "'dT'", "dimensionless", at=("equation: T + dT", "T + dT"))
    assert "the constant 'dT' has no unit" in (d.hint or "")


def test_a_bare_number_added_to_a_dimensional_quantity() -> None:
    text = card({"T": "K", "y": ("K", "T + 3")})
    d = fails(text, "SCM402", "'T + 3'", at=("equation: T + 3", "T + 3"))
    assert "bare number is dimensionless" in (d.hint or "")


def test_the_smallest_offending_pair_of_a_long_sum_is_named() -> None:
    text = card({"a": "m", "b": "m", "t": "s", "y": ("m", "a + b + t")})
    d = fails(text, "SCM402", "'t'", "[time]", "[length]", at=("equation: a + b", "a + b + t"))
    assert d.message.startswith("'a + t' adds [time] to [length]")


@pytest.mark.parametrize("equation, verb, caret", [
    ("where(z > t, z, 0)", "compares", "z > t"), ("max(z, t)", "mixes", "z"),
    ("min(z, t, z)", "mixes", "z"), ("clip(z, 0, t)", "mixes", "z"),
    ("where(z > w, z, t)", "mixes", "z"), ("z % t", "mixes", "z"),
    ("atan2(z, t)", "mixes", "atan2"), ("normal(z, t)", "mixes", "normal")])
def test_compared_and_branched_values_share_a_dimension(equation: str, verb: str,
                                                        caret: str) -> None:
    text = card({"z": "m", "t": "s", "w": "m", "y": ("m", equation)})
    d = fails(text, "SCM402", verb, "[time]", "[length]", at=(f"equation: {equation}", caret))
    assert "'t'" in d.message and "z" in d.message


def test_currencies_do_not_mix_without_an_exchange_rate() -> None:
    fails(card({"a": "USD", "b": "EUR", "y": ("USD", "a + b")}), "SCM402", "[EUR]", "[USD]",
          at=("equation: a + b", "a + b"))
    compile_text(card({"a": "USD", "b": "EUR", "y": ("USD", "a + b / eur_per_usd")},
                      {"eur_per_usd": "{value: 0.92, unit: EUR/USD}"}))


@pytest.mark.parametrize("equation", ["max(z, 0)", "where(z > z0, z, 0)", "clip(z, 0, z0)",
                                      "abs(z - z0)", "floor(z / z0) * z0", "z % z0",
                                      "normal(z, z0)", "uniform(z0, z)", "piecewise(z > z0, z, z0)",
                                      "indicator(z > 0) * z0"])
def test_consistent_comparisons_and_branches_pass(equation: str) -> None:
    compile_text(card({"z": "m", "y": ("m", equation)}, {"z0": "{value: 1, unit: m}"}))


def test_hypsometric_equation_passes() -> None:
    compile_text(card({"p_stn": "hPa", "z": "m", "T_v": "K",
                       "slp": ("hPa", "p_stn * exp(g * z / (R_d * T_v))")}, HYPSOMETRIC))


# -- SCM403: dimensionless arguments and exponents ------------------------------------------


def test_exp_of_a_dimensional_quantity() -> None:
    text = card({"z": "m", "y": (None, "exp(g * z)")}, HYPSOMETRIC)
    fails(text, "SCM403", "exp() of a dimensional quantity: 'g*z' is [length]**2/[time]**2",
          at=("equation: exp(g * z)", "g * z"))


@pytest.mark.parametrize("fn", ["log", "log10", "sin", "tanh", "sigmoid", "softplus",
                                "bernoulli"])
def test_functions_that_need_a_dimensionless_argument(fn: str) -> None:
    text = card({"z": "m", "y": (None, f"{fn}(z)")})
    fails(text, "SCM403", "of a dimensional quantity", "'z' is [length]",
          at=(f"equation: {fn}(z)", "z)"))


def test_an_unitless_constant_inside_exp_is_named_in_the_hint() -> None:
    text = card({"z": "m", "y": (None, "exp(-z / H)")}, {"H": "{value: 8000}"})
    d = fails(text, "SCM403", "'-z/H' is [length]", at=("equation: exp(-z / H)", "-z / H"))
    assert "the constant 'H' has no unit" in (d.hint or "")
    compile_text(card({"z": "m", "y": (None, "exp(-z / H)")}, {"H": "{value: 8000, unit: m}"}))


def test_exponents_must_be_dimensionless_and_numbers_for_dimensional_bases() -> None:
    fails(card({"z": "m", "y": (None, "2 ** z")}), "SCM403", "dimensional exponent",
          "'z' is [length]", at=("equation: 2 ** z", "z"))
    text = card({"z": "m", "a": "dimensionless", "y": ("m", "z ** a")})
    fails(text, "SCM403", "'z**a'", "not a number", at=("equation: z ** a", "z ** a"))
    compile_text(card({"p": "hPa", "a": "dimensionless", "y": (None, "(p / p0) ** a")},
                      {"p0": "{value: 1000, unit: hPa}"}))


def test_the_probability_of_a_binomial_draw_must_be_dimensionless() -> None:
    text = card({"n": "persons", "z": "m", "y": ("persons", "binomial(n, z)")})
    fails(text, "SCM403", "binomial() of a dimensional quantity", at=("binomial(n, z)", "z)"))
    text = card({"z": "m", "t": "s", "y": ("m", "normal(z, t)")})
    d = fails(text, "SCM402", "'normal(z, t)' mixes", at=("equation: normal", "normal"))
    assert ", 0)" not in d.message  # the draw's internal call-site index stays hidden


def test_roots_and_powers_follow_exact_exponents() -> None:
    compile_text(card({"A": "m**2", "y": ("m", "sqrt(A)")}))
    compile_text(card({"V": "m**3", "y": ("m", "cbrt(V)")}))
    compile_text(card({"v": "m/s", "y": ("m**2/s**2", "v**2")}))
    fails(card({"A": "m**2", "y": ("m**2", "sqrt(A)")}), "SCM404", "[length]",
          at=("equation: sqrt(A)", "sqrt(A)"))


# -- SCM404: the result has the declared dimension ------------------------------------------


def test_result_in_m_declared_in_s() -> None:
    text = card({"z": "m", "t": ("s", "2 * z")})
    d = fails(text, "SCM404", "'t' evaluates to [length] but is declared in s ([time])",
              "'2*z' is in m", at=("equation: 2 * z", "2 * z"))
    assert "s/m" in (d.hint or "")


def test_a_constant_without_a_unit_where_one_is_needed() -> None:
    text = card({"z": "m", "t": ("s", "k * z")}, {"k": "{value: 2}"})
    d = fails(text, "SCM404", "'k*z'", at=("equation: k * z", "k * z"))
    assert "the constant 'k' has no unit" in (d.hint or "")
    compile_text(card({"z": "m", "t": ("s", "k * z")}, {"k": "{value: 2, unit: s/m}"}))


def test_a_forgotten_variable_unit_suggests_declaring_it() -> None:
    d = fails(card({"z": "m", "y": (None, "z")}), "SCM404", "declared in dimensionless",
              at=("equation: z", "z"))
    assert "declare 'y' in m" in (d.hint or "")


@pytest.mark.parametrize("equation, result", [
    ("poisson(rate)", "1/day"), ("binomial(n, p)", "persons"), ("exponential(wait)", "day"),
    ("negative_binomial(rate, p)", "1/day"),
    ("normal(rate, rate)", "1/day"), ("uniform(rate, rate)", "1/day")])
def test_random_draws_carry_units(equation: str, result: str) -> None:
    roots = {"rate": "1/day", "n": "persons", "p": "dimensionless", "wait": "1/day"}
    used = {k: v for k, v in roots.items() if re.search(rf"\b{k}\b", equation)}
    compile_text(card({**used, "y": (result, equation)}))
    fails(card({**used, "y": ("m", equation)}), "SCM404", "'y' evaluates to",
          at=(f"equation: {equation}", equation))


def test_every_function_rule_is_one_the_checker_knows() -> None:
    known = {"dimensionless", "same", "sqrt", "cbrt", "sign", "where", "piecewise", "draw_same",
             "draw_dimensionless", "draw_first", "draw_inverse"}
    assert {entry.units for _, entry in FUNCTIONS.items()} <= known


# -- SCM405 (under units: strict): the scale factor must be 1 -------------------------------
# Without `units: strict` the compiler converts these itself (tests/unit/test_unit_conversion.py).
STRICT = "units: strict\n"


def test_pa_to_hpa_through_a_literal_is_a_scale_error() -> None:
    text = card({"p": "Pa", "y": ("hPa", "p / 100")}, extra=STRICT)
    d = fails(text, "SCM405", "'p/100' is in Pa", "factor of 100",
              at=("equation: p / 100", "p / 100"))
    assert "Pa_per_hPa: {value: 100, unit: Pa/hPa}" in (d.hint or "")


def test_pa_to_hpa_through_a_constant_with_units_passes() -> None:
    compile_text(card({"p": "Pa", "y": ("hPa", "p / Pa_per_hPa")},
                      {"Pa_per_hPa": "{value: 100, unit: Pa/hPa}"}))
    compile_text(card({"p": "Pa", "y": ("hPa", "p * hPa_per_Pa")},
                      {"hPa_per_Pa": "{value: 0.01, unit: hPa/Pa}"}))


def test_adding_km_to_m_is_a_scale_error() -> None:
    text = card({"a": "km", "b": "m", "y": ("m", "a + b")}, extra=STRICT)
    d = fails(text, "SCM405", "'a + b'", "factor of 1000", at=("equation: a + b", "a + b"))
    assert "m_per_km" in (d.hint or "")


def test_percent_inside_a_function_is_a_scale_error() -> None:
    fails(card({"rh": "percent", "y": (None, "sigmoid(rh)")}, extra=STRICT), "SCM405", "'rh'",
          "percent",
          at=("equation: sigmoid(rh)", "rh)"))
    compile_text(card({"rh": "percent", "y": (None, "sigmoid(rh / full_scale)")},
                      {"full_scale": "{value: 100, unit: percent}"}))


def test_same_dimension_different_names_with_factor_one_pass() -> None:
    compile_text(card({"E": "J/kg", "v": "m/s", "y": ("m**2/s**2", "E + v**2")}))


# -- SCM406: offset units --------------------------------------------------------------------


@pytest.mark.parametrize("equation, named, caret", [
    ("2 * T_C", "'2*T_C' multiplies 'T_C'", "2"), ("-T_C", "'-T_C' multiplies", "-"),
    ("T_C ** 2", "raises to a power", "T_C"), ("sqrt(T_C)", "raises to a power", "sqrt"),
    ("abs(T_C)", "abs() of 'T_C'", "T_C"), ("exp(T_C)", "exp() of 'T_C'", "T_C"),
    ("T_C % k", "'Mod(T_C, k)' mixes a temperature in degC", "T_C")])
def test_offset_quantities_cannot_be_multiplied_powered_or_passed_to_functions(
        equation: str, named: str, caret: str) -> None:
    text = card({"T_C": "degC", "y": ("delta_degC", equation)},
                {"k": "{value: 2, unit: delta_degC}"})
    d = fails(text, "SCM406", named, at=(f"equation: {equation}", caret))
    assert "T0: {value: 273.15, unit: K}" in (d.hint or "")


def test_adding_two_absolute_celsius_temperatures_is_ambiguous() -> None:
    text = card({"T1": "degC", "T2": "degC", "y": ("degC", "T1 + T2")})
    fails(text, "SCM406", "'T1 + T2'", "weights summing to 2", at=("equation: T1 + T2", "T1"))


def test_adding_a_kelvin_quantity_to_celsius_is_explained() -> None:
    text = card({"T_C": "degC", "y": ("degC", "T_C + dT")}, {"dT": "{value: 5, unit: K}"})
    d = fails(text, "SCM406", "'dT', an absolute temperature in K", "degC",
              at=("equation: T_C + dT", "T_C + dT"))
    assert "delta_degC" in (d.hint or "") and "273.15" in (d.hint or "")


@pytest.mark.parametrize("unit, equation, constants", [
    ("degC", "T_C + dT", {"dT": "{value: 5, unit: delta_degC}"}),
    ("degC", "T_C - lapse * z", {"lapse": "{value: 6.5, unit: K/km}", "z": "{value: 1, unit: km}"}),
    ("delta_degC", "T_C - T_ref", {"T_ref": "{value: 20, unit: degC}"}),
    ("K", "T_C - T_ref", {"T_ref": "{value: 20, unit: degC}"}),
    ("delta_degC", "2 * (T_C - T_ref)", {"T_ref": "{value: 20, unit: degC}"}),
    ("degC", "(T_C + T_ref) / 2", {"T_ref": "{value: 20, unit: degC}"}),
    ("degC", "T_C", {}),
    ("degC", "max(T_C, T_ref)", {"T_ref": "{value: 20, unit: degC}"}),
    ("degC", "where(T_C > T_ref, T_C, T_ref)", {"T_ref": "{value: 20, unit: degC}"}),
    ("dimensionless", "indicator(T_C > 0)", {}),
    ("K", "T_C + T0", {"T0": "{value: 273.15, unit: K}"}),
])
def test_supported_offset_unit_uses(unit: str, equation: str, constants: dict[str, str]) -> None:
    compile_text(card({"T_C": "degC", "y": (unit, equation)}, constants))


def test_kelvin_to_celsius_through_the_zero_point_constant() -> None:
    t0 = {"T0": "{value: 273.15, unit: K}"}
    compile_text(card({"T_K": "K", "y": ("degC", "T_K - T0")}, t0))
    fails(card({"T_K": "K", "y": ("degC", "T_K - T1")}, {"T1": "{value: 300, unit: K}"}),
          "SCM406", "'y' is declared in degC", at=("equation: T_K - T1", "T_K - T1"))


def test_a_celsius_result_declared_in_kelvin_or_the_reverse() -> None:
    fails(card({"T_C": "degC", "y": ("K", "T_C")}, extra=STRICT), "SCM406",
          "gives a temperature in degC", at=("equation: T_C", "T_C"))
    compile_text(card({"T_C": "degC", "y": ("K", "T_C")}))  # a lone operand converts (affine)
    t0 = {"T0": "{value: 273.15, unit: K}"}
    fails(card({"T_C": "degC", "y": ("degC", "T_C + T0")}, t0), "SCM406", "'y' is declared in "
          "degC", at=("equation: T_C + T0", "T_C + T0"))
    fails(card({"T_C": "degC", "T_R": "degC", "y": ("degC", "T_C - T_R")}), "SCM406",
          "temperature difference", at=("equation: T_C - T_R", "T_C - T_R"))


def test_celsius_and_fahrenheit_do_not_mix() -> None:
    text = card({"T_C": "degC", "T_F": "degF", "y": ("degC", "max(T_C, T_F)")})
    fails(text, "SCM406", "degF", at=("equation: max(T_C, T_F)", "T_C, T_F"))
    compile_text(card({"T_F": "degF", "y": ("degR", "T_F + T0")},
                      {"T0": "{value: 459.67, unit: degR}"}))


def test_comparing_celsius_with_kelvin_is_ambiguous() -> None:
    text = card({"T_C": "degC", "T_K": "K", "y": ("dimensionless", "indicator(T_C > T_K)")})
    fails(text, "SCM406", "compares a temperature in degC with K", at=("T_C > T_K", "T_C > T_K"))


def test_multiplicative_noise_on_an_offset_unit() -> None:
    more = "noise: {kind: normal, sd: 0.1, mode: multiplicative}"
    text = card({"T_C": "degC", "y": ("degC", "T_C", more)})
    fails(text, "SCM406", "multiplicative noise", at=("    noise:", "noise"))
    compile_text(card({"T_C": "degC", "y": ("degC", "T_C", "noise: {kind: normal, sd: 0.1}")}))
    compile_text(card({"T": "K", "y": ("K", "T", more)}))


# -- selection, collection, performance ------------------------------------------------------


def test_the_selection_condition_is_checked() -> None:
    variables: dict[str, Var] = {"z": "m", "t": "s"}
    text = card(variables, extra="selection: {condition: z > t}\n")
    fails(text, "SCM402", "'t'", "compares", at=("condition: z > t", "z > t"))
    compile_text(card(variables, {"z_min": "{value: 1, unit: m}"},
                      extra="selection: {condition: z > z_min}\n"))


def test_every_problem_is_collected_into_one_error() -> None:
    text = card({"z": "m", "T": "K", "a": ("m", "z + T"), "b": (None, "exp(z)"), "c": "furlongz"})
    assert sorted(d.code for d in problems(text)) == ["SCM401", "SCM402", "SCM403"]


def test_fifty_variables_parse_each_unit_once() -> None:
    """The check's cost stays per distinct unit, not per equation (speed is measured in
    bench/, never timed here): a second check of the same card parses no unit again."""
    from scmspec.compiler.unit_registry import parse_unit

    variables: dict[str, Var] = {"z": "m", "T_v": "K", "p0": "hPa"}
    for i in range(1, 48):
        variables[f"p{i}"] = ("hPa", f"p{i - 1} * exp(g * z / (R_d * T_v)) + max(p{i - 1}, 0)")
    card_, smap = parse_card_text(card(variables, HYPSOMETRIC), "c.yaml")
    resolved = resolve(card_, smap)
    check_units(resolved, smap)
    misses = parse_unit.cache_info().misses
    check_units(resolved, smap)
    assert parse_unit.cache_info().misses == misses


def test_keplers_third_law_in_astronomical_units_checks_and_converts() -> None:
    """a^3 = G M P^2 / (4 pi^2) in au, M_sun and day: consistent only through constants
    that carry the conversions; the same law without them is a scale mismatch."""
    from scmspec.compiler.unit_registry import registry

    ureg = registry()
    assert (1 * ureg.M_sun).to("kg").magnitude == pytest.approx(1.98841e30)
    assert (1 * ureg.Jy).to("W/m**2/Hz").magnitude == pytest.approx(1e-26)
    law = ("  star_mass: {meaning: m, unit: M_sun, distribution: {kind: uniform, low: 0.5, "
           "high: 1.5}}\n"
           "  period: {meaning: p, unit: day, distribution: {kind: uniform, low: 1, high: 30}}\n"
           "  a: {meaning: a, unit: au, equation: \"(k * star_mass * period**2)**(1/3)\"}\n")
    edges = ("edges:\n  - {from: star_mass, to: a, reason: r}\n"
             "  - {from: period, to: a, reason: r}\n")
    head = "id: kepler\ntitle: t\nfamily: formula\ndomain: astronomy\n"
    good = head + ("constants:\n  k: {value: 7.496e-6, unit: au**3/(M_sun*day**2), "
                   "meaning: G / (4 pi^2) in these units}\nvariables:\n") + law + edges
    compile_text(good)
    bad = good.replace("unit: au**3/(M_sun*day**2)", "unit: m**3/(kg*s**2)")
    with pytest.raises(UnitError) as err:
        compile_text(bad + STRICT)
    assert err.value.diagnostics[0].code.startswith("SCM40")
    compile_text(bad)  # without units: strict the compiler inserts the au, M_sun, day factors
