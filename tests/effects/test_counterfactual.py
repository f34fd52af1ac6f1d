"""Counterfactual truth: released rows recomputed from their own exogenous draws."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

import scmspec
from scmspec.effects.write import EffectFiles, EffectOptions, compute_effects, released_obs
from scmspec.samplers.scm import SCM
from tests.effects.cards import COUNTERFACTUAL, compiled

CARDS = Path(__file__).resolve().parents[2] / "cards"


@cache
def _antenna() -> SCM:
    return scmspec.load(CARDS / "causalgame" / "drone_antenna_trap.yaml").compile()


@cache
def _files(card: str, rows: int) -> tuple[EffectFiles, pd.DataFrame]:
    scm = compiled(COUNTERFACTUAL) if card == "cf" else _antenna()
    seed = scm.compiled.card.protocol.seed
    released = released_obs(scm, seed)
    out = compute_effects(scm, seed, released, EffectOptions(rows=2_000, counterfactual_rows=rows))
    return out, scm.frame(released.columns)


def files(card: str = "cf", rows: int = 300) -> tuple[EffectFiles, pd.DataFrame]:
    return _files(card, rows)


def under(cf: pd.DataFrame, target: str) -> pd.DataFrame:
    return cf[cf["target"] == target].set_index("row")


def test_non_descendants_keep_their_factual_values_bit_for_bit() -> None:
    scm = compiled(COUNTERFACTUAL)
    out, factual = files()
    for target in ("x", "r"):
        cf = under(out.counterfactual, target)
        for v in set(scm.plan.columns) - scm.descendants(target) - {target}:
            assert cf[v].to_numpy().tobytes() == factual[v].to_numpy().tobytes(), (target, v)


def test_a_linear_descendant_moves_by_its_coefficient_times_the_change() -> None:
    """y = 3x + w + e keeps w and e: y' - y = 3 (x' - x) on every row."""
    out, factual = files()
    cf = under(out.counterfactual, "x")
    assert (cf["x"] == 2.0).all()
    assert np.allclose(cf["y"] - factual["y"], 3 * (2.0 - factual["x"]), rtol=0, atol=1e-9)


def test_an_in_equation_draw_keeps_its_uniform() -> None:
    """b = bernoulli(sigmoid(x)) is u < p: raising x (p rises) never turns a 1 into a 0."""
    out, factual = files()
    cf = under(out.counterfactual, "x")
    raised = factual["x"] < 2.0
    assert (cf["b"][raised] >= factual["b"][raised]).all()
    assert (cf["b"][~raised] <= factual["b"][~raised]).all()
    assert (cf["b"] != factual["b"]).any()


def test_a_random_handler_draws_within_its_recorded_range() -> None:
    out, factual = files()
    cf = under(out.counterfactual, "r")
    fixed = out.doc["targets"]["r"]["realised"]
    assert ((cf["r"] >= fixed["low"]) & (cf["r"] <= fixed["high"])).all()
    assert np.allclose(cf["s"] - factual["s"], cf["r"] - factual["r"], rtol=0, atol=1e-9)


def test_selection_rows_are_matched_to_their_own_chunk_and_position() -> None:
    """The antenna card keeps ~68% of drawn drones: released rows come from several chunks.

    Non-descendants equal the released values bit for bit (so each row met its own draws);
    the counterfactual row is not filtered again, its survival is in ``selected``.
    """
    scm = _antenna()
    out, factual = files("antenna", 1000)
    released = released_obs(scm, 0)
    assert len(set(released.passes()[0][:1000, 0])) > 1  # more than one chunk
    cf = under(out.counterfactual, "antenna_def")
    for v in ("wind_speed", "camera_def", "body_def", "air_temperature"):
        assert cf[v].to_numpy().tobytes() == factual[v].to_numpy().tobytes()
    assert (cf["antenna_def"] == 0).all() and (cf["hull_damage"] != factual["hull_damage"]).any()
    assert (cf["selected"] == 1).all()  # an unarmoured antenna only ever helps (monotone here)
    weaker = under(out.counterfactual, "body_def")  # the heavy kit is lighter for some drones
    assert set(weaker["selected"]) == {0, 1}
