"""Effect truth on cards whose answers are known: strata, discrete outcomes, selection."""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from scmspec.effects import effect_truth
from scmspec.effects import truth as truth_module
from scmspec.errors import InternalError
from tests.effects.cards import SELECTED, STRATA, compiled

ROWS = 20_000


@cache
def strata_table() -> pd.DataFrame:
    return effect_truth(compiled(STRATA), rows=ROWS, seed=1).table


def rows(table: pd.DataFrame, **keys: object) -> pd.DataFrame:
    mask = np.ones(len(table), dtype=bool)
    for k, v in keys.items():
        mask &= (table[k].fillna("") == v).to_numpy()
    return table[mask]


def test_unit_contrasts_within_strata_are_the_stratum_slopes() -> None:
    """y = (1 + g) x + e: within g = k, do(x = a + delta) - do(x = a) moves y by delta (1 + k)."""
    t = strata_table()
    for k, level in enumerate(["low", "mid", "high"]):
        found = rows(t, target="x", contrast="unit", outcome="y", stratum=f"g={level}")
        assert len(found) == 3  # the three quartile points
        assert np.allclose(found["estimate"], found["delta"] * (1 + k), rtol=0, atol=1e-9)
        assert (found["n"] < ROWS).all() and (found["se"] < 1e-9).all()


def test_the_card_contrast_matches_its_expectation() -> None:
    """E[y | do(x=1)] - E[y] = E[(1 + g)(1 - x)] with x = g / 2 + e: E[1 + g] - E[(1 + g) g] / 2
    = 2.1 - (1.1 + 1.9) / 2 = 0.6 (E[g] = 1.1, E[g^2] = 1.9)."""
    row = rows(strata_table(), target="x", contrast="card", outcome="y", stratum="").iloc[0]
    assert abs(row["estimate"] - 0.6) < 4 * row["se"]


def test_discrete_outcomes_get_risk_differences() -> None:
    t = rows(strata_table(), target="x", contrast="card", stratum="")
    assert rows(t, outcome="b")[["measure", "event"]].values.tolist() == [
        ["risk_difference", "1"]]
    ordinal = rows(t, outcome="o")
    assert ordinal["event"].fillna("").tolist() == ["", ">=some", ">=lots"]
    # E[o] = P(o >= some) + P(o >= lots) for codes 0, 1, 2: the mean difference is their sum
    mean, cumulative = ordinal["estimate"].iloc[0], ordinal["estimate"].iloc[1:].sum()
    assert mean == pytest.approx(cumulative, abs=1e-12)
    levels = rows(t, outcome="c")
    assert levels["event"].tolist() == ["p", "q", "r"]
    assert abs(levels["estimate"].sum()) < 1e-12  # shares of the levels sum to one in each arm
    assert (levels["estimate"].abs() > 4 * levels["se"]).any()


def test_non_descendants_are_exactly_zero_in_every_contrast_and_stratum() -> None:
    t = strata_table()
    off = t[t["descendant"] == 0]
    assert set(off["outcome"]) == {"g"}
    assert (off["estimate"] == 0.0).all() and (off["se"] == 0.0).all() and (off["exact"] == 0).all()


def test_settings_document_the_strata_and_the_contrasts() -> None:
    truth = effect_truth(compiled(STRATA), rows=2_000, seed=1)
    doc = truth.settings["targets"]["x"]
    assert doc["strata"] == ["g"] and doc["unit"]["delta"] > 0 and len(doc["unit"]["points"]) == 3
    assert truth.settings["streams"] == {"split": "effects", "replicate": 0}


def test_the_same_inputs_give_the_same_table_and_another_seed_another() -> None:
    a = effect_truth(compiled(STRATA), rows=3_000, seed=5).table
    b = effect_truth(compiled(STRATA), rows=3_000, seed=5).table
    c = effect_truth(compiled(STRATA), rows=3_000, seed=6).table
    pd.testing.assert_frame_equal(a, b)
    assert not a["estimate"].equals(c["estimate"])


def _truncated_mean(mu: float, sd: float) -> float:
    """E[Y | Y > 0] for Y ~ N(mu, sd^2)."""
    return mu + sd * stats.norm.pdf(mu / sd) / stats.norm.cdf(mu / sd)


def selected_truth(seed: int, n: int = ROWS) -> dict[str, tuple[float, float]]:
    t = effect_truth(compiled(SELECTED), rows=n, seed=seed).table
    sel = rows(t, target="x", contrast="card", population="selected")
    return {r.outcome: (r.estimate, r.se) for r in sel.itertuples()}


def selected_oracle() -> dict[str, float]:
    """y ~ N(0, 3) without intervention, N(1, 2) under do(x = 1); selection y > 0.

    E[z | S] = 2 E[y | S]; w is y's other cause: E[w | S] = (E[y | S] - mu) / var(y).
    """
    obs, do = _truncated_mean(0, np.sqrt(3)), _truncated_mean(1, np.sqrt(2))
    return {"z": 2 * (do - obs), "w": (do - 1) / 2 - obs / 3}


def test_selected_population_effects_match_truncated_normal_means() -> None:
    got, want = selected_truth(3), selected_oracle()
    for v in ("z", "w"):
        est, se = got[v]
        assert abs(est - want[v]) < 4 * se, (v, est, want[v], se)
    assert abs(want["w"]) > 0.1  # selection makes a non-descendant move: collider bias


def test_selected_population_standard_errors_are_calibrated() -> None:
    """40 independent runs: the delta-method z-scores have RMS near 1 (sd of the RMS ~0.1)."""
    want = selected_oracle()
    z = [(got[v][0] - want[v]) / got[v][1] for s in range(40)
         for got in [selected_truth(100 + s, 5_000)] for v in ("z", "w")]
    assert 0.7 < float(np.sqrt(np.mean(np.square(z)))) < 1.35, z


def test_the_whole_population_ignores_selection_and_keeps_zeros() -> None:
    t = effect_truth(compiled(SELECTED), rows=ROWS, seed=2).table
    every = rows(t, target="x", contrast="card", population="all")
    w, z = (every[every["outcome"] == v].iloc[0] for v in ("w", "z"))
    assert w["estimate"] == 0.0 and w["se"] == 0.0
    assert abs(z["estimate"] - 2.0) < 4 * z["se"]  # E[z | do(x=1)] - E[z] = 2 (1 - 0)


def test_a_leak_between_streams_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The card contrast's isolation check fires when a non-descendant changes."""
    real = truth_module.run_pass

    def leaky(plan, n, streams, assigned=None, forced=None, pilot=None):  # type: ignore[no-untyped-def]
        cols = real(plan, n, streams, assigned, forced, pilot)
        if forced:
            cols["w"] = cols["w"] + 1e-12
        return cols

    monkeypatch.setattr(truth_module, "run_pass", leaky)
    with pytest.raises(InternalError, match="not isolated"):
        effect_truth(compiled(SELECTED), rows=500)
