"""Automatic unit conversion (issue 12, item 1): compile-time factors, units: strict, records.

The oracle for every textbook equation is the same card written the strict way, with the
conversion carried by a constant with units (what every shipped card does today): the two
must give samples equal within 1e-12 relative, and the mixed card under ``units: strict``
must be refused at the operand whose unit differs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import numpy as np
import pytest

from scmspec.api import compile_text, spec_document
from scmspec.compiler.pipeline import compile_card, parse_card_text
from scmspec.errors import UnitError


@dataclass(frozen=True)
class Law:
    """A textbook law: roots (name -> (unit, low, high)), a target, and two spellings."""

    name: str
    roots: dict[str, tuple[str, float, float]]
    target: str
    unit: str
    mixed: str  # the equation over quantities in their declared (mixed) units
    explicit: str  # the same equation with the conversion written as constants
    constants: dict[str, str]  # physical constants, shared
    conversions: dict[str, str]  # constants with units that carry the conversion
    operand: str  # the operand a strict compiler must point at


LAWS = [
    Law("hypsometric", {"p": ("hPa", 980, 1030), "z": ("m", 0, 800), "T_v": ("K", 270, 300)},
        "slp", "Pa", "p * exp(g * z / (R_d * T_v))",
        "p * Pa_per_hPa * exp(g * z / (R_d * T_v))",
        {"g": "{value: 9.80665, unit: m/s**2}", "R_d": "{value: 287.05, unit: J/(kg*K)}"},
        {"Pa_per_hPa": "{value: 100, unit: Pa/hPa}"}, "p"),
    Law("rain_volume", {"rain": ("mm", 0, 80), "area": ("m**2", 10, 500)},
        "volume", "m**3", "rain * area", "rain * m_per_mm * area",
        {}, {"m_per_mm": "{value: 0.001, unit: m/mm}"}, "rain"),
    Law("power_budget", {"pump": ("kW", 1, 20), "aux": ("W", 50, 900)},
        "total_power", "W", "pump + aux", "pump * W_per_kW + aux",
        {}, {"W_per_kW": "{value: 1000, unit: W/kW}"}, "pump"),
    Law("projectile_range", {"v": ("m/s", 5, 40), "theta": ("degree", 5, 85)},
        "range_", "m", "v**2 * sin(2 * theta) / g", "v**2 * sin(2 * theta * rad_per_deg) / g",
        {"g": "{value: 9.80665, unit: m/s**2}"},
        {"rad_per_deg": "{value: 0.017453292519943295, unit: rad/degree}"}, "theta"),
    Law("radioactive_decay", {"t": ("day", 0, 30), "tau": ("s", 1e5, 1e6)},
        "remaining", "dimensionless", "exp(-t / tau)", "exp(-t * s_per_day / tau)",
        {}, {"s_per_day": "{value: 86400, unit: s/day}"}, "t"),
    Law("stellar_flux", {"L": ("W", 1e26, 5e26), "d": ("au", 0.5, 2)},
        "flux", "W/m**2", "L / (4 * pi * d**2)", "L / (4 * pi * (d * m_per_au)**2)",
        {}, {"m_per_au": "{value: 149597870700, unit: m/au}"}, "d"),
    Law("magnetic_energy", {"B": ("uT", 20, 70)},
        "energy_density", "J/m**3", "B**2 / (2 * mu0)", "(B * T_per_uT)**2 / (2 * mu0)",
        {"mu0": "{value: 1.25663706212e-6, unit: N/A**2}"},
        {"T_per_uT": "{value: 1e-6, unit: T/uT}"}, "B"),
    Law("tank_mass", {"rho": ("kg/m**3", 700, 1000), "V": ("L", 1, 200)},
        "mass", "kg", "rho * V", "rho * V * m3_per_L",
        {}, {"m3_per_L": "{value: 0.001, unit: m**3/L}"}, "V"),
    Law("travel_distance", {"speed": ("m/s", 0.5, 30), "duration": ("min", 1, 90)},
        "distance", "m", "speed * duration", "speed * duration * s_per_min",
        {}, {"s_per_min": "{value: 60, unit: s/min}"}, "duration"),
    Law("sensible_heat", {"m": ("kg", 0.1, 5), "dT": ("delta_degC", 1, 40)},
        "heat", "J", "m * c_p * dT", "m * c_p * J_per_kJ * dT",
        {"c_p": "{value: 4.186, unit: kJ/(kg*delta_degC)}"},
        {"J_per_kJ": "{value: 1000, unit: J/kJ}"}, "c_p"),
    Law("celsius_to_kelvin", {"T_C": ("degC", -20, 40)},
        "T_K", "K", "T_C", "T_C + T0", {}, {"T0": "{value: 273.15, unit: K}"}, "T_C"),
    Law("threshold_branch", {"depth": ("cm", 0, 300), "flow": ("L/s", 1, 50)},
        "overflow", "m**3/s", "where(depth > limit, flow, 0)",
        "where(depth * m_per_cm > limit, flow * m3_per_L, 0)",
        {"limit": "{value: 1.5, unit: m}"},
        {"m_per_cm": "{value: 0.01, unit: m/cm}", "m3_per_L": "{value: 0.001, unit: m**3/L}"},
        "depth"),
]


def law_card(law: Law, equation: str, constants: dict[str, str], extra: str = "") -> str:
    lines = [f"id: {law.name.replace('_', '-')}", "title: t", "family: formula",
             "domain: physics", extra]
    if constants:
        lines += ["constants:"] + [f"  {k}: {v}" for k, v in constants.items()]
    lines.append("variables:")
    for name, (unit, low, high) in law.roots.items():
        lines.append(f"  {name}: {{meaning: m, unit: {unit}, distribution: {{kind: uniform, "
                     f"low: {low}, high: {high}}}}}")
    lines.append(f"  {law.target}: {{meaning: m, unit: {law.unit}, role: formula, "
                 f"equation: \"{equation}\"}}")
    used = [r for r in law.roots if re.search(rf"\b{r}\b", equation)]
    lines.append("edges:")
    lines += [f"  - {{from: {r}, to: {law.target}, reason: r}}" for r in used]
    return "\n".join(line for line in lines if line) + "\n"


@pytest.mark.parametrize("law", LAWS, ids=lambda law: law.name)
def test_mixed_units_equal_the_explicit_constant_card(law: Law) -> None:
    mixed = compile_text(law_card(law, law.mixed, law.constants), f"{law.name}.yaml")
    explicit = compile_text(law_card(law, law.explicit, {**law.constants, **law.conversions},
                                     "units: strict"), f"{law.name}_si.yaml")
    a = mixed.sample(20_000, seed=11)
    b = explicit.sample(20_000, seed=11)
    for root in law.roots:
        assert np.array_equal(a[root].to_numpy(), b[root].to_numpy())
    x, y = a[law.target].to_numpy(), b[law.target].to_numpy()
    assert np.all(np.isfinite(x)) and np.any(x != 0)
    np.testing.assert_allclose(x, y, rtol=1e-12, atol=0)
    assert mixed.compiled.resolved.unit_conversions  # something was inserted, and recorded


@pytest.mark.parametrize("law", LAWS, ids=lambda law: law.name)
def test_under_strict_each_mixed_law_is_refused_at_the_operand(law: Law) -> None:
    text = law_card(law, law.mixed, law.constants, "units: strict")
    with pytest.raises(UnitError) as err:
        compile_card(*parse_card_text(text, "c.yaml"))
    d = err.value.diagnostics[0]
    assert d.code in ("SCM405", "SCM406"), str(d)
    line = text.splitlines()[d.span.line - 1]
    start = d.span.col - 1
    operand_at = line.index(law.mixed) + re.search(rf"\b{law.operand}\b", law.mixed).start()
    width = (d.span.end_col or d.span.col + 1) - d.span.col
    assert start <= operand_at < start + width, (str(d), operand_at)


def test_the_barometric_example_of_the_issue_converts_hpa_km_to_pa() -> None:
    law = Law("slp-issue", {"station_pressure": ("hPa", 980, 1030), "z": ("km", 0, 1),
                            "T_v": ("K", 270, 300)}, "sea_level_pressure", "Pa",
              "station_pressure * exp(g * z / (R_d * T_v))",
              "station_pressure * Pa_per_hPa * exp(g * z * m_per_km / (R_d * T_v))",
              {"g": "{value: 9.80665, unit: m/s**2}", "R_d": "{value: 287.05, unit: J/(kg*K)}"},
              {"Pa_per_hPa": "{value: 100, unit: Pa/hPa}", "m_per_km": "{value: 1000, unit: m/km}"},
              "z")
    mixed = compile_text(law_card(law, law.mixed, law.constants))
    explicit = compile_text(law_card(law, law.explicit, {**law.constants, **law.conversions}))
    x = mixed.sample(5000, seed=2)[law.target].to_numpy()
    y = explicit.sample(5000, seed=2)[law.target].to_numpy()
    np.testing.assert_allclose(x, y, rtol=1e-12, atol=0)
    done = mixed.compiled.resolved.unit_conversions["sea_level_pressure"]
    assert [(c.from_unit, c.to_unit, c.factor) for c in done] == [
        ("m*km*kg/s**2/J", "dimensionless", 1000.0), ("hPa", "Pa", 100.0)]
    assert not explicit.compiled.resolved.unit_conversions


def test_spec_json_records_the_factors_only_when_there_are_some() -> None:
    law = LAWS[0]
    mixed = compile_text(law_card(law, law.mixed, law.constants))
    doc = json.loads(json.dumps(spec_document(mixed)))
    assert doc["resolved"]["unit_conversions"] == {"slp": [
        {"term": "p*exp(g*z/(R_d*T_v))", "from": "hPa", "to": "Pa", "factor": 100.0}]}
    explicit = compile_text(law_card(law, law.explicit, {**law.constants, **law.conversions}))
    assert "unit_conversions" not in spec_document(explicit)["resolved"]
    assert "units" not in doc["card"]  # unset stays unset: other cards' specs keep their bytes


def test_cards_with_explicit_constants_lower_to_the_same_expression() -> None:
    """No factor needed: check_units hands on the very same equations (bit-identical data)."""
    from scmspec.compiler.resolve import resolve
    from scmspec.compiler.units import check_units

    for law in LAWS:
        card, smap = parse_card_text(law_card(law, law.explicit,
                                              {**law.constants, **law.conversions}))
        resolved = resolve(card, smap)
        assert check_units(resolved, smap) is resolved


def test_offset_units_in_products_and_mixed_sums_stay_refused_with_a_how_to() -> None:
    head = ("id: t\ntitle: t\nfamily: formula\ndomain: d\nconstants:\n"
            "  k: {value: 2, unit: 1/K}\nvariables:\n"
            "  T_C: {meaning: m, unit: degC, distribution: {kind: uniform, low: 0, high: 30}}\n"
            "  T_K: {meaning: m, unit: K, distribution: {kind: uniform, low: 270, high: 300}}\n")
    product = head + ("  y: {meaning: m, equation: k * T_C}\n"
                      "edges:\n  - {from: T_C, to: y, reason: r}\n")
    mixed_sum = head + ("  y: {meaning: m, unit: K, equation: T_C + T_K}\n"
                        "edges:\n  - {from: T_C, to: y, reason: r}\n"
                        "  - {from: T_K, to: y, reason: r}\n")
    for text, said in [(product, "multiplies"), (mixed_sum, "ambiguous")]:
        with pytest.raises(UnitError) as err:
            compile_text(text)
        d = err.value.diagnostics[0]
        assert d.code == "SCM406" and said in d.message, str(d)
        assert "T0" in (d.hint or "") and "K" in (d.hint or "")


def test_fahrenheit_lone_operand_converts_affinely() -> None:
    text = ("id: t\ntitle: t\nfamily: formula\ndomain: d\nvariables:\n"
            "  T_F: {meaning: m, unit: degF, distribution: {kind: uniform, low: -40, high: 212}}\n"
            "  T_C: {meaning: m, unit: degC, equation: T_F}\n"
            "edges:\n  - {from: T_F, to: T_C, reason: r}\n")
    d = compile_text(text).sample(1000, seed=1)
    np.testing.assert_allclose(d["T_C"], (d["T_F"] - 32) * 5 / 9, rtol=1e-12, atol=1e-12)


def test_a_hand_written_conversion_is_not_applied_twice() -> None:
    text = ("id: t\ntitle: t\nfamily: formula\ndomain: d\nvariables:\n"
            "  p: {meaning: m, unit: Pa, distribution: {kind: uniform, low: 1, high: 2}}\n"
            "  y: {meaning: m, unit: hPa, equation: p / 100}\n"
            "edges:\n  - {from: p, to: y, reason: r}\n")
    with pytest.raises(UnitError) as err:
        compile_card(*parse_card_text(text, "c.yaml"))
    d = err.value.diagnostics[0]
    assert d.code == "SCM405" and "divides by 100" in d.message and "twice" in d.message
    assert str(d.span) == "c.yaml:7:44"  # the 100


def test_percent_and_degree_arguments_of_functions_convert_to_plain_numbers() -> None:
    text = ("id: t\ntitle: t\nfamily: formula\ndomain: d\nvariables:\n"
            "  rh: {meaning: m, unit: percent, distribution: {kind: uniform, low: 0, high: 100}}\n"
            "  a: {meaning: m, unit: degree, distribution: {kind: uniform, low: 0, high: 90}}\n"
            "  y: {meaning: m, equation: sigmoid(rh) + cos(a) + bernoulli(rh)}\n"
            "edges:\n  - {from: rh, to: y, reason: r}\n  - {from: a, to: y, reason: r}\n")
    scm = compile_text(text)
    d = scm.sample(4000, seed=5)
    draw = d["y"] - 1 / (1 + np.exp(-d["rh"] / 100)) - np.cos(np.deg2rad(d["a"]))
    assert set(np.round(draw.to_numpy(), 9)) <= {0.0, 1.0}
    assert abs(draw.mean() - (d["rh"] / 100).mean()) < 0.05


def test_the_documented_cards_run_and_the_documented_explanation_is_current(tmp_path) -> None:
    """docs/units.md and docs/card-language.md: every full card compiles and samples, and the
    `--explain-units` output shown in units.md is what the command prints."""
    from pathlib import Path

    from typer.testing import CliRunner

    from scmspec.cli import app

    root = Path(__file__).resolve().parents[2]
    for doc in ("units.md", "card-language.md"):
        text = (root / "docs" / doc).read_text(encoding="utf-8")
        cards = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if b.startswith("id:")]
        assert cards, doc
        for block in cards:
            scm = compile_text(block, doc)
            assert len(scm.sample(100, seed=0)) == 100
    units = (root / "docs" / "units.md").read_text(encoding="utf-8")
    card = re.search(r"```yaml\n(id: slp_mixed_units.*?)```", units, re.S).group(1)
    shown = re.search(r"```\n(slp_mixed_units.yaml\n.*?)```", units, re.S).group(1)
    (tmp_path / "slp_mixed_units.yaml").write_text(card, encoding="utf-8")
    import os

    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = CliRunner().invoke(app, ["validate", "--explain-units", "slp_mixed_units.yaml"])
    finally:
        os.chdir(here)
    assert result.exit_code == 0, result.output
    assert result.output == shown


POISSON_IN_MILLIONS = """
id: recruits
title: Recruits
family: semantic
domain: demo
variables:
  recruits_m:
    meaning: expected recruits in millions
    unit: Mpersons
    distribution: {kind: uniform, low: 1, high: 3}
  recruits:
    meaning: recruits counted
    unit: persons
    equation: poisson(recruits_m)
edges:
  - {from: recruits_m, to: recruits, reason: the expected number sets the count}
"""


@pytest.mark.parametrize("draw", ["poisson(recruits_m)", "negative_binomial(recruits_m, 1e9)"])
def test_a_count_draw_converts_its_rate_before_drawing(draw: str) -> None:
    """poisson(rate in millions) draws about 1e6 x rate persons, not 1e6 x poisson(rate)
    (the same for the gamma-Poisson, here at a dispersion that keeps it near Poisson)."""
    text = POISSON_IN_MILLIONS.replace("poisson(recruits_m)", draw)
    rows = compile_text(text).sample(2000, seed=1)
    ratio = rows["recruits"] / (rows["recruits_m"] * 1e6)
    assert abs(ratio.mean() - 1) < 1e-3 and 0 < ratio.std() < 2e-3
    assert (rows["recruits"] % 1_000_000 != 0).all()  # not a scaled-up small count


def test_a_noise_scale_converts_like_an_equation() -> None:
    """``sd: 0.02 * flux`` (klm/m**2) on a reading in lx: the scale gets the same factor 1000
    as the equation, recorded apart; under strict it stays SCM405 at the noise field."""
    text = """id: lux
title: t
family: formula
domain: d
variables:
  flux: {meaning: m, unit: klm/m**2, distribution: {kind: uniform, low: 1, high: 2}}
  reading: {meaning: m, unit: lx, role: readout, equation: flux,
            noise: {kind: normal, sd: 0.02 * flux}}
edges: [{from: flux, to: reading, reason: r}]
"""
    resolved = compile_card(*parse_card_text(text)).resolved
    (conv,) = resolved.unit_conversions["reading.noise.sd"]
    assert conv.factor == 1000.0 and (conv.from_unit, conv.to_unit) == ("klm/m**2", "lx")
    df = compile_text(text).sample(20000, seed=1)
    rel = (df["reading"] - 1000 * df["flux"]) / (1000 * df["flux"])
    assert 0.019 < float(rel.std()) < 0.021  # 2%, not 0.002% (the unconverted scale)
    strict = text.replace("domain: d", "domain: d\nunits: strict").replace(
        "equation: flux,", "equation: flux * per_klm,") + (
        "constants: {per_klm: {value: 1000, unit: lx*m**2/klm, meaning: m}}\n")
    with pytest.raises(UnitError) as err:
        compile_card(*parse_card_text(strict))
    assert err.value.diagnostics[0].code == "SCM405"
    assert err.value.diagnostics[0].field_path == "variables.reading.noise.sd"
