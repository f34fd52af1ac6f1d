"""Scoring effect estimates: matching rules and the four metrics, on hand-made truth tables."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from scmspec.scoring.effects import read_truth, score_rows, summarise

COLUMNS = ["target", "contrast", "treated", "control", "delta", "population", "stratum",
           "outcome", "measure", "event", "descendant", "estimate", "se", "exact", "n"]
TRUTH = [
    # target, contrast, treated, control, delta, population, stratum, outcome, measure, event,
    # descendant, estimate, se, exact
    ("x", "card", "do(value=1.0)", "natural", None, "all", None, "y", "mean_difference", None,
     1, 2.02, 0.01, 2.0),
    ("x", "card", "do(value=1.0)", "natural", None, "all", None, "b", "risk_difference", "1",
     1, -0.30, 0.01, None),
    ("x", "card", "do(value=1.0)", "natural", None, "all", None, "w", "mean_difference", None,
     0, 0.0, 0.0, 0.0),
    ("x", "card", "do(value=1.0)", "natural", None, "all", None, "t", "mean_difference", None,
     1, 0.01, 0.02, None),  # a true effect too small to have a clear sign
    ("x", "card", "do(value=1.0)", "natural", None, "all", None, "c", "risk_difference", "p",
     1, 0.1, 0.01, None),
    ("x", "card", "do(value=1.0)", "natural", None, "all", None, "c", "risk_difference", "q",
     1, -0.1, 0.01, None),
    ("x", "card", "do(value=1.0)", "natural", None, "selected", None, "y", "mean_difference",
     None, 1, 1.5, 0.02, None),
    ("x", "unit", -0.5, -0.6, 0.1, "all", None, "y", "mean_difference", None, 1, 0.2, 0.0, 0.2),
    ("x", "unit", 0.1, 0.0, 0.1, "all", None, "y", "mean_difference", None, 1, 0.2, 0.0, 0.2),
    ("x", "card", "do(value=1.0)", "natural", None, "all", "g=a", "y", "mean_difference", None,
     1, 1.0, 0.05, None),
]


@pytest.fixture
def truth(tmp_path: Path) -> pd.DataFrame:
    (tmp_path / "effects").mkdir()
    frame = pd.DataFrame([(*r, 1000) for r in TRUTH], columns=COLUMNS)
    frame.to_csv(tmp_path / "effects" / "effects.csv", index=False)
    return read_truth(tmp_path)


def score(truth: pd.DataFrame, rows: list[dict[str, object]]) -> pd.DataFrame:
    pred = pd.DataFrame(rows).astype(str).replace("nan", "")
    return score_rows(pred, truth)


def test_defaults_pick_the_headline_effect_and_the_exact_value(truth: pd.DataFrame) -> None:
    s = score(truth, [{"target": "x", "outcome": "y", "estimate": 2.5, "lower": 1.9,
                       "upper": 2.1}])
    row = s.iloc[0]
    assert row["status"] == "ok" and row["truth"] == 2.0 and row["truth_se"] == 0.0
    assert row["abs_error"] == pytest.approx(0.5) and row["rel_error"] == pytest.approx(0.25)
    assert row["covered"] == 1.0 and row["sign_correct"] == 1.0


def test_keys_select_populations_strata_and_contrasts(truth: pd.DataFrame) -> None:
    s = score(truth, [
        {"target": "x", "outcome": "y", "estimate": 1.5, "population": "selected"},
        {"target": "x", "outcome": "y", "estimate": 1.0, "stratum": "g=a"},
        {"target": "x", "outcome": "y", "estimate": 0.2, "contrast": "unit", "control": "-0.6",
         "treated": "-0.5"},
        {"target": "x", "outcome": "y", "estimate": 0.2, "contrast": "unit", "control": "0",
         "treated": "0.1"},  # numbers in another spelling still match
    ])
    assert s["status"].tolist() == ["ok"] * 4 and s["abs_error"].max() < 1e-12


def test_unmatched_ambiguous_and_invalid_rows_are_counted_with_reasons(
        truth: pd.DataFrame) -> None:
    s = score(truth, [
        {"target": "x", "outcome": "nope", "estimate": 1},
        {"target": "x", "outcome": "y", "estimate": 1, "contrast": "unit"},
        {"target": "x", "outcome": "c", "estimate": 1},  # categorical: needs an event
        {"target": "x", "outcome": "c", "estimate": 0.1, "event": "p"},
        {"target": "x", "outcome": "y", "estimate": "n/a"},
    ])
    assert s["status"].tolist() == ["unmatched", "ambiguous", "ambiguous", "ok", "invalid"]
    assert "treated and control" in s["detail"][1] and "event" in s["detail"][2]
    summary = summarise(s)
    assert (summary["ok"], summary["unmatched"], summary["ambiguous"], summary["invalid"]) == (
        1, 1, 2, 1)


def test_signs_count_only_where_the_truth_has_a_clear_one(truth: pd.DataFrame) -> None:
    s = score(truth, [
        {"target": "x", "outcome": "b", "estimate": 0.2},  # wrong sign
        {"target": "x", "outcome": "w", "estimate": 0.1},  # truth exactly 0: no sign, no rel
        {"target": "x", "outcome": "t", "estimate": -0.5},  # truth within 3 se of 0
        {"target": "x", "outcome": "y", "estimate": 1.0},
    ])
    assert s["sign_correct"].tolist()[0] == 0.0 and s["sign_correct"].tolist()[3] == 1.0
    assert math.isnan(s["sign_correct"][1]) and math.isnan(s["sign_correct"][2])
    assert math.isnan(s["rel_error"][1])
    summary = summarise(s)
    assert summary["sign_accuracy"] == 0.5 and summary["signs"] == 2
    assert summary["coverage"] is None and summary["intervals"] == 0
    assert summary["mean_abs_error"] == pytest.approx((0.5 + 0.1 + 0.51 + 1.0) / 4)
