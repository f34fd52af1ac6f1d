"""Card language v2 constructs: intervention handlers, policy knobs and ``observed_if``.

The mixture soft intervention is checked against the closed-form mean and variance of
a linear-Gaussian child; the other constructs against what the card says they do.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import scmspec
from scmspec.errors import CardError
from tests.oracles.cards import card, compile_card

N = 200_000
Z = 4.0


def within(x: np.ndarray, mean: float, var: float, what: str) -> None:
    """Sample mean and variance within Z standard errors (the variance's from the sample's
    own fourth central moment)."""
    n = x.size
    mu4 = float(np.mean((x - x.mean()) ** 4))
    z_mean = abs(x.mean() - mean) / np.sqrt(var / n)
    z_var = abs(x.var(ddof=1) - var) / np.sqrt(max(mu4 - var**2, 1e-300) / n)
    assert z_mean < Z and z_var < Z, f"{what}: mean z={z_mean:.2f}, variance z={z_var:.2f}"


LINEAR = {
    "x": {"meaning": "cause", "distribution": {"kind": "normal", "mean": 1.0, "sd": 2.0},
          "intervention": {"meaning": "set x"}},
    "y": {"meaning": "child", "equation": "0.5 + 1.5 * x", "noise": {"kind": "normal", "sd": 1.0}},
}


def test_mixture_soft_intervention_matches_the_closed_form() -> None:
    # With probability w, x is set to v, else keeps its natural N(m, s^2) value:
    # E x = (1 - w) m + w v, Var x = (1 - w) s^2 + w (1 - w) (m - v)^2, and the child
    # y = a + b x + e has E y = a + b E x, Var y = b^2 Var x + sd_e^2.
    w, v, m, s, a, b = 0.3, 4.0, 1.0, 2.0, 0.5, 1.5
    scm = compile_card(LINEAR, [("x", "y")]).intervene(
        {"x": {"kind": "soft", "mode": "mixture", "softness": w, "value": v}})
    df = scm.sample(N, seed=5)
    mean_x = (1 - w) * m + w * v
    var_x = (1 - w) * s**2 + w * (1 - w) * (m - v) ** 2
    within(df["x"].to_numpy(), mean_x, var_x, "x under the mixture")
    within(df["y"].to_numpy(), a + b * mean_x, b**2 * var_x + 1.0, "y under the mixture")
    assert 0.29 < float(np.mean(df["x"] == v)) < 0.31  # a share w of rows is set exactly


def test_blend_stays_the_default_soft_reading() -> None:
    base = compile_card(LINEAR, [("x", "y")])
    blend = base.intervene({"x": {"kind": "soft", "softness": 0.5, "value": 3.0}})
    natural = base.sample(1000, seed=2)["x"].to_numpy()
    got = blend.sample(1000, seed=2)["x"].to_numpy()
    np.testing.assert_allclose(got, 0.5 * natural + 0.5 * 3.0, rtol=0, atol=1e-12)


def test_resample_with_an_explicit_distribution() -> None:
    scm = compile_card(LINEAR, [("x", "y")]).intervene(
        {"x": {"kind": "resample", "distribution": {"kind": "uniform", "low": 0, "high": 24}}})
    x = scm.sample(N, seed=3)["x"].to_numpy()
    assert x.min() >= 0 and x.max() <= 24
    within(x, 12.0, 24.0**2 / 12, "x resampled from uniform(0, 24)")


def named_card(**interventions: Any) -> Any:
    variables = {
        "x": {"meaning": "setpoint", "distribution": {"kind": "normal", "mean": 5.0},
              "intervention": {"meaning": "operators act on x", "handlers": {
                  "pin": {"kind": "do", "value": 0.0},
                  "raise": {"kind": "shift", "by": 100.0},
                  "draw": {"kind": "resample", "distribution": {
                      "kind": "uniform", "low": -30, "high": -20}}}}},
        "y": {"meaning": "child", "equation": "2 * x", "noise": {"kind": "normal", "sd": 0.1}},
    }
    return scmspec.compile(card(variables, [("x", "y")], interventions=interventions))


def test_named_handlers_are_chosen_balanced_and_recorded() -> None:
    scm = named_card()
    out = scm.sample_interventional(n_obs=100, n_int=300, seed=4)
    records, x = out.records.iloc[100:], out.data["x"].iloc[100:].to_numpy()
    names = records["handlers"].to_numpy()
    assert sorted(pd.Series(names).value_counts().to_dict().items()) == [
        ("draw", 100), ("pin", 100), ("raise", 100)]
    assert (x[names == "pin"] == 0).all()
    assert (x[names == "raise"] > 90).all()
    assert ((x[names == "draw"] >= -30) & (x[names == "draw"] <= -20)).all()
    assert (records["targets"] == "x").all() and (out.mask["x"].iloc[100:] == 1).all()


def test_the_protocol_may_restrict_the_named_handlers() -> None:
    scm = named_card(handlers={"x": ["raise"]})
    out = scm.sample_interventional(n_obs=50, n_int=60, seed=4)
    assert set(out.records["handlers"].iloc[50:]) == {"raise"}


def errors_of(variables: dict[str, Any], edges: list[tuple[str, str]] | None = None,
              **extra: Any) -> str:
    with pytest.raises(CardError) as info:
        scmspec.compile(card(variables, edges, **extra))
    return "\n".join(f"{d.code} {d.message}" for d in info.value.diagnostics)


def test_unknown_named_handler_in_the_protocol_is_located() -> None:
    with pytest.raises(CardError, match="SCM309|no handler named"):
        named_card(handlers={"x": ["lower"]})


def test_handler_and_handlers_together_are_refused() -> None:
    with pytest.raises(ValueError, match="either 'handler' or 'handlers'"):
        card({"x": {"meaning": "x", "distribution": {"kind": "normal"}, "intervention": {
            "meaning": "m", "handler": {"kind": "do", "value": 1},
            "handlers": {"a": {"kind": "do", "value": 2}}}}})


def test_latent_targets_are_refused_with_the_reason() -> None:
    text = errors_of({
        "z": {"meaning": "hidden", "observed": False, "distribution": {"kind": "normal"},
              "intervention": {"meaning": "set z", "handler": {"kind": "do", "value": 1}}},
        "y": {"meaning": "y", "equation": "z", "noise": {"kind": "normal", "sd": 1.0}}},
        [("z", "y")], interventions={"targets": ["z"]})
    assert "SCM309" in text and "is latent" in text


KNOB = {
    "cutoff": {"meaning": "credit-score cutoff", "value": 620.0, "role": "setting",
               "intervention": {"meaning": "the bank moves its cutoff", "handlers": {
                   "lower": {"kind": "do", "value": 580.0},
                   "raise": {"kind": "do", "value": 660.0}}}},
    "score": {"meaning": "credit score", "distribution": {"kind": "normal", "mean": 640,
                                                          "sd": 50}},
    "approved": {"meaning": "loan approved", "kind": "binary",
                 "equation": "indicator(score >= cutoff)"},
    "default": {"meaning": "loan defaulted", "kind": "binary",
                "equation": "bernoulli(sigmoid((600 - score) / 40))",
                "observed_if": "approved == 1"},
}
KNOB_EDGES = [("score", "approved"), ("cutoff", "approved"), ("score", "default")]


def test_a_knob_is_fixed_observationally_and_set_by_its_handlers() -> None:
    scm = compile_card(KNOB, KNOB_EDGES)
    assert (scm.sample(500, seed=1)["cutoff"] == 620.0).all()
    out = scm.sample_interventional(n_obs=200, n_int=200, seed=1)
    rows = out.records["targets"] == "cutoff"
    assert set(out.data.loc[rows, "cutoff"]) == {580.0, 660.0}
    assert (out.data.loc[~rows, "cutoff"] == 620.0).all()


def test_a_knob_needs_an_intervention_and_a_baseline_free_handler() -> None:
    with pytest.raises(ValueError, match="give it an 'intervention:'"):
        card({"k": {"meaning": "k", "value": 1.0}})
    text = errors_of({"k": {"meaning": "k", "value": 1.0, "intervention": {"meaning": "m"}}})
    assert "SCM320" in text and "reads the observational baseline" in text


def test_observed_if_keeps_the_row_and_empties_the_cell() -> None:
    scm = compile_card(KNOB, KNOB_EDGES)
    cols = scm.sample(2000, seed=7, include_latent=True)
    assert len(cols) == 2000  # no row is dropped
    missing = cols["default"].isna().to_numpy()
    np.testing.assert_array_equal(missing, cols["approved"].to_numpy() == 0)
    assert 0 < missing.mean() < 1
    assert str(cols["default"].dtype) == "Int64"  # integers, with missing cells


def test_selection_still_drops_rows_next_to_observed_if() -> None:
    scm = compile_card(KNOB, KNOB_EDGES, selection={"condition": "score > 600"})
    df = scm.sample(1000, seed=8)
    assert len(df) == 1000 and (df["score"] > 600).all()
    assert df["default"].isna().any()


def test_a_build_writes_the_missingness_masks(tmp_path: Path) -> None:
    from scmspec.build.cards import ProtocolOverrides
    from scmspec.build.driver import build

    path = tmp_path / "loans.yaml"
    doc = card(KNOB, KNOB_EDGES, card_id="loans").model_dump(mode="json", by_alias=True,
                                                              exclude_none=True)
    doc["protocol"] = {"n_obs": 300, "n_int_obs": 200, "n_int": 100, "replicates": 1}
    path.write_text(json.dumps(doc))
    (result,) = build([path], tmp_path / "out", ProtocolOverrides())
    folder = tmp_path / "out" / "loans"
    gates = json.loads((folder / "gates.json").read_text())
    # The knob's constant observational column is no nonconstant (or other data) failure.
    assert not [g for g in gates if g["status"] == "fail" and "cutoff" in g.get("variables", [])]
    assert not [g for g in gates if g["gate"] == "nonconstant" and g["status"] == "fail"]
    data = pd.read_csv(folder / "rep-0" / "obs.csv")
    mask = pd.read_csv(folder / "rep-0" / "obs_missing.csv")
    assert list(mask.columns) == list(data.columns)
    np.testing.assert_array_equal(mask["default"].to_numpy() == 1, data["default"].isna())
    assert (pd.read_csv(folder / "rep-0" / "obsint_missing.csv").shape ==
            pd.read_csv(folder / "rep-0" / "obsint.csv").shape)
    meta = json.loads((folder / "metadata.json").read_text())
    assert meta["knobs"] == {"cutoff": 620.0}
    assert meta["observed_if"] == {"default": "approved == 1"}
    assert meta["named_handlers"] == {"cutoff": {"lower": "do", "raise": "do"}}
    from scmspec import datasets

    ds = datasets.load(tmp_path / "out", "loans", split="obsint")
    assert ds.missing is not None and str(ds.data["default"].dtype) == "Int64"
    np.testing.assert_array_equal(ds.missing["default"].to_numpy() == 1,
                                  ds.data["default"].isna().to_numpy())
    records = pd.read_csv(folder / "rep-0" / "obsint_records.csv", keep_default_na=False)
    assert set(records["handlers"]) == {"", "lower", "raise"}


def doc_cards() -> list[str]:
    text = (Path(__file__).resolve().parents[2] / "docs" / "card-language.md").read_text(
        encoding="utf-8")
    blocks = text.split("```yaml\n")[1:]
    return [b.split("```", 1)[0] for b in blocks if b.startswith("id: ")]


@pytest.mark.parametrize("text", doc_cards(), ids=lambda t: t.split("\n", 1)[0][4:])
def test_the_documented_v2_examples_run(text: str) -> None:
    scm = scmspec.compile_text(text)
    scm.sample(200, seed=0)
    if scm.plan.targets:
        out = scm.sample_interventional(n_obs=100, n_int=100, seed=0)
        assert out.records["targets"].iloc[100:].ne("").all()


HETERO = """
id: hetero
title: heteroscedastic noise
family: formula
domain: demo
variables:
  flow: {meaning: true flow, unit: m**3/s, distribution: {kind: uniform, low: 1, high: 5}}
  reading:
    meaning: flow meter reading, 2% error
    unit: m**3/s
    equation: flow
    noise: {kind: normal, sd: SD}
constants: {unit_flow: {value: 1, unit: m**3/s}}
edges: [{from: flow, to: reading, reason: the meter reads the flow}]
"""


def test_heteroscedastic_noise_scales_with_the_parent() -> None:
    df = scmspec.compile_text(HETERO.replace("SD", "0.02 * flow")).sample(N, seed=9)
    z = ((df["reading"] - df["flow"]) / (0.02 * df["flow"])).to_numpy()
    within(z, 0.0, 1.0, "standardised meter error")
    low, high = df["flow"] < 2, df["flow"] > 4
    ratio = (df["reading"] - df["flow"])[high].std() / (df["reading"] - df["flow"])[low].std()
    assert 2.5 < ratio < 4.0  # sd grows with flow (about 4.5 / 1.5 = 3)


def test_a_constant_noise_expression_equals_the_number_bit_for_bit() -> None:
    plain = scmspec.compile_text(HETERO.replace("SD", "0.05")).sample(1000, seed=3)
    expr = scmspec.compile_text(HETERO.replace("SD", "0.05 * unit_flow")).sample(1000, seed=3)
    assert plain["reading"].to_numpy().tobytes() == expr["reading"].to_numpy().tobytes()


@pytest.mark.parametrize(("sd", "code", "text"), [
    ("0.02 * flow / unit_flow", "SCM404", "'reading.noise.sd' evaluates to dimensionless"),
    ("0.02 * flow * bernoulli(0.5)", "SCM302", "draws random numbers"),
])
def test_noise_expressions_are_unit_checked(sd: str, code: str, text: str) -> None:
    with pytest.raises(CardError) as info:
        scmspec.compile_text(HETERO.replace("SD", sd))
    assert any(d.code == code and text in d.message for d in info.value.diagnostics), \
        info.value.diagnostics


def test_multiplicative_noise_takes_a_dimensionless_scale() -> None:
    card = HETERO.replace("{kind: normal, sd: SD}",
                          "{kind: normal, mode: multiplicative, sd: 0.02 * flow / unit_flow}")
    df = scmspec.compile_text(card).sample(1000, seed=1)
    assert (df["reading"] != df["flow"]).all()


def test_a_noise_expression_reads_only_parents() -> None:
    text = HETERO.replace("SD", "0.02 * other").replace(
        "constants:", "  other: {meaning: o, unit: m**3/s, distribution: {kind: normal}}\n"
        "constants:")
    with pytest.raises(CardError, match="not a parent"):
        scmspec.compile_text(text)


def test_a_negative_noise_scale_is_a_located_sampling_error() -> None:
    scm = scmspec.compile_text(HETERO.replace("SD", "0.02 * (flow - 3 * unit_flow)"))
    with pytest.raises(scmspec.CardError, match=r"SCM603|<= 0 on"):
        scm.sample(1000, seed=0)


VALUED = """
id: eggs
title: valued levels
family: semantic
domain: demo
variables:
  size:
    meaning: egg size class
    unit: cm
    kind: ordinal
    levels: {small: 8 cm, medium: 90 mm, large: 0.1 m}
    distribution: {kind: ordinal, probs: [0.2, 0.5, 0.3]}
    intervention: {meaning: sort eggs, handler: {kind: do, value: large}}
  grade:
    meaning: school grade of the farmer's child who packs them
    kind: ordinal
    levels: [first, second, third]
    base: 1
    distribution: {kind: ordinal, probs: [0.3, 0.3, 0.4]}
  weight:
    meaning: egg weight
    unit: g
    equation: g_per_cm * size + where(grade >= 'second', 1, 0) * gram
    noise: {kind: normal, sd: 0.5}
constants: {g_per_cm: {value: 7, unit: g/cm}, gram: {value: 1, unit: g}}
edges: [{from: size, to: weight, reason: size sets weight}, {from: grade, to: weight, reason: r}]
"""


def test_levels_with_values_put_the_values_in_the_column() -> None:
    scm = scmspec.compile_text(VALUED)
    df = scm.sample(20_000, seed=1)
    shares = df["size"].value_counts(normalize=True).sort_index()
    assert list(shares.index) == [8, 9, 10]  # cm: 90 mm and 0.1 m converted exactly
    np.testing.assert_allclose(shares.to_numpy(), [0.2, 0.5, 0.3], atol=0.015)
    assert sorted(df["grade"].unique().tolist()) == [1, 2, 3]  # base: 1
    # Children read the values; a level name in a comparison is the level's code.
    resid = df["weight"] - 7 * df["size"] - (df["grade"] >= 2)
    assert abs(resid.mean()) < 0.02
    out = scm.sample_interventional(n_obs=50, n_int=50, seed=1)
    assert (out.data["size"].iloc[50:] == 10).all()  # do: large = 10 cm
    assert (scm.do({"size": "small"}).sample(10, seed=0)["size"] == 8).all()


@pytest.mark.parametrize(("old", "new", "message"), [
    ("levels: {small: 8 cm, medium: 90 mm, large: 0.1 m}",
     "levels: {small: 8 cm, medium: 7 cm, large: 10 cm}", "do not increase"),
    ("levels: {small: 8 cm, medium: 90 mm, large: 0.1 m}",
     "levels: {small: 8 cm, medium: 9 kg, large: 10 cm}", "not a number with a unit"),
])
def test_level_values_are_checked(old: str, new: str, message: str) -> None:
    with pytest.raises(CardError, match=message):
        scmspec.compile_text(VALUED.replace(old, new))


def test_a_rule_over_base_one_codes_writes_its_codes() -> None:
    """An ordinal with ``base: 1`` computed by a rule: the equation yields the codes 1..3
    themselves (only a root's draw is an index to map). Before the fix the codes were read
    as indices, so 3 became NaN and 1, 2 were shifted."""
    scm = compile_card({
        "x": {"meaning": "score", "distribution": {"kind": "normal"}},
        "grade": {"meaning": "grade", "kind": "ordinal", "levels": ["low", "mid", "high"],
                  "base": 1, "equation": "where(x < -0.5, 1, where(x < 0.5, 2, 3))"},
        "tier": {"meaning": "tier", "kind": "ordinal", "levels": ["a", "b"], "base": 1,
                 "distribution": {"kind": "categorical", "probs": [0.5, 0.5]}}},
        [("x", "grade")])
    df = scm.sample(3000, seed=3)
    x = df["x"].to_numpy()
    expected = np.where(x < -0.5, 1.0, np.where(x < 0.5, 2.0, 3.0))
    np.testing.assert_array_equal(df["grade"].to_numpy(dtype=float), expected)
    assert set(df["tier"].astype(float)) == {1.0, 2.0}
