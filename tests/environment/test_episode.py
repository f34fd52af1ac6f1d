"""Budget, replay, fresh randomness, refusals and the seal of an in-process environment."""

from __future__ import annotations

import copy
import gc
import json
import pickle
from pathlib import Path

import pandas as pd
import pytest

from scmspec import Environment
from scmspec.environment import (
    BudgetExhaustedError,
    EnvironmentError,
    EpisodeFinishedError,
    OutOfRangeError,
    UnknownTargetError,
    replay,
)
from scmspec.environment.episode import Episode
from scmspec.environment.log import LogError, read_log
from scmspec.samplers.scm import SCM

ANTENNA = "drone_antenna_trap"
ZONE = "drone_deployment_zone_trap"


def test_a_query_past_the_row_budget_is_refused_and_costs_nothing(games: dict[str, Path],
                                                                  tmp_path: Path) -> None:
    config = {"budget": {"rows": 1000, "queries": 10, "intervene_row": 2.0,
                         "target_row": {"body_def": 1.0}}}
    env = Environment.open(games[ANTENNA], config=config, seed=1, log=tmp_path / "e.jsonl")
    env.observe(400)
    env.intervene({"body_def": 10}, 100)  # 100 x (2 + 1) = 300
    assert env.budget["rows_spent"] == 700
    with pytest.raises(BudgetExhaustedError, match="costs 400 but only 300 of 1000"):
        env.intervene({"antenna_def": 0}, 200)
    assert env.budget["rows_spent"] == 700 and env.budget["queries_used"] == 2
    env.observe(300)  # exactly the rest is allowed
    with pytest.raises(BudgetExhaustedError):
        env.observe(1)
    events = read_log(tmp_path / "e.jsonl")
    refused = [e for e in events if e["event"] == "refused"]
    assert [e["error"] for e in refused] == ["budget_exhausted"] * 2
    assert refused[0]["design"] == {"antenna_def": 0} and refused[0]["n"] == 200


def test_a_query_past_the_query_budget_is_refused(games: dict[str, Path]) -> None:
    env = Environment.open(games[ANTENNA], config={"budget": {"queries": 2}}, seed=1)
    env.observe(10)
    env.observe(10)
    with pytest.raises(BudgetExhaustedError, match="query budget is spent"):
        env.observe(10)


def test_the_log_replays_to_identical_data(games: dict[str, Path], tmp_path: Path) -> None:
    log = tmp_path / "episode.jsonl"
    config = {"handlers": ["do", "shift", "setpoint"]}
    env = Environment.open(games[ZONE], config=config, log=log)  # a fresh seed
    frames = [env.observe(300),
              env.intervene({"enhancement_module": "signal_filter", "shield_def": 25}, 400),
              env.intervene({"body_def": {"kind": "setpoint", "percentile": 0.8}}, 200),
              env.intervene({"shield_def": {"kind": "shift", "by": 5}}, 100)]
    with pytest.raises(OutOfRangeError):  # refused queries are logged, and skipped by replay
        env.intervene({"shield_def": 51}, 10)
    frames.append(env.observe(50))
    env.close()
    assert read_log(log)[-1]["status"] == "truncated"
    again = replay(log, games[ZONE])
    assert len(again) == len(frames) == 5
    for a, b in zip(frames, again):
        pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_a_replay_on_another_spec_is_refused(games: dict[str, Path], tmp_path: Path) -> None:
    log = tmp_path / "episode.jsonl"
    with Environment.open(games[ANTENNA], log=log, seed=3) as env:
        env.observe(20)
    with pytest.raises(LogError, match="another spec"):
        replay(log, games[ZONE], scm_id=None)
    with pytest.raises(LogError, match="never overwritten"):
        Environment.open(games[ANTENNA], log=log)


def test_each_episode_draws_fresh_randomness_from_its_seed(games: dict[str, Path]) -> None:
    a, b = (Environment.open(games[ANTENNA]) for _ in range(2))
    assert a.seed != b.seed
    assert not a.observe(200).equals(b.observe(200))
    c, d = (Environment.open(games[ANTENNA], seed=5) for _ in range(2))
    pd.testing.assert_frame_equal(c.observe(200), d.observe(200), check_exact=True)
    # a later query does not repeat an earlier one's draws
    assert not c.observe(200).equals(d.intervene({"antenna_def": 0}, 200))


def test_selection_keeps_survivors_only(games: dict[str, Path]) -> None:
    env = Environment.open(games[ANTENNA], seed=2)
    logs = env.intervene({"antenna_def": 50}, 2000)
    assert logs.attrs["drawn"] == 2000 and 900 < len(logs) < 1300  # ~53% survive
    assert (logs["hull_damage"] < 80).all() and (logs["antenna_def"] == 50).all()
    assert "survived" not in logs and "is_storm" not in logs  # latent stays latent


@pytest.mark.parametrize(("design", "error", "text"), [
    ({"antena_def": 1}, UnknownTargetError, "did you mean 'antenna_def'"),
    ({"storm_load": 1}, UnknownTargetError, "cannot be intervened on"),
    ({"antenna_def": 51}, OutOfRangeError, r"outside its range \[0, 50\]"),
    ({"antenna_def": "high"}, OutOfRangeError, "no level 'high'"),
    ({"antenna_def": float("nan")}, OutOfRangeError, "not a finite number"),
    ({"antenna_def": {"kind": "shift", "by": 1}}, EnvironmentError, "not allowed"),
    ({}, EnvironmentError, "non-empty"),
])
def test_designs_outside_the_rules_are_refused(games: dict[str, Path], design: dict,
                                               error: type, text: str) -> None:
    env = Environment.open(games[ANTENNA], seed=1)
    with pytest.raises(error, match=text):
        env.intervene(design, 10)
    assert env.budget["queries_used"] == 0


def test_bad_row_counts_and_finished_episodes_are_refused(games: dict[str, Path]) -> None:
    env = Environment.open(games[ANTENNA], seed=1)
    for n in (0, -1, 2.5, True, "10", 10**9):
        with pytest.raises(EnvironmentError, match="whole number of rows"):
            env.observe(n)  # type: ignore[arg-type]
    scores = env.submit_graph({"edges": [["wind_speed", "storm_load"]]})
    assert scores["precision"] == 1.0 and scores["pred_edges"] == 1
    with pytest.raises(EpisodeFinishedError):
        env.observe(1)
    with pytest.raises(EpisodeFinishedError):
        env.submit_graph({"edges": []})


def test_graph_submissions_score_as_scmspec_score(games: dict[str, Path]) -> None:
    import scmspec
    from scmspec.interop.predictions import matrix_marks
    from scmspec.interop.truth import load_truth
    from scmspec.scoring.targets import score_prediction

    scm = scmspec.load_spec(games[ANTENNA] / "spec.json")
    truth = scm.adjacency()
    expected = score_prediction(matrix_marks(truth.to_numpy(float), list(truth.columns),
                                             list(truth.columns)), load_truth(scm))
    env = Environment.open(games[ANTENNA], seed=1)
    got = env.submit_graph(truth)  # a DataFrame with its labels
    assert got["f1"] == 1.0 and got["shd"] == 0
    assert {k: got[k] for k in ("f1", "shd", "sid", "precision")} == \
        {k: expected[k] for k in ("f1", "shd", "sid", "precision")}


def test_the_truth_is_not_reachable_from_the_object(games: dict[str, Path]) -> None:
    env = Environment.open(games[ANTENNA], seed=1)
    referents = [r for r in gc.get_referents(env) if not isinstance(r, type)]
    assert all(isinstance(r, str) for r in referents), referents  # one opaque key
    assert not hasattr(env, "__dict__")
    public = [n for n in dir(env) if not n.startswith("__")]
    for name in public:
        value = getattr(env, name)
        assert type(value).__module__ == "builtins" or callable(value), name
        assert not isinstance(value, (Episode, SCM)), name
    with pytest.raises(TypeError):
        pickle.dumps(env)
    with pytest.raises(TypeError):
        copy.deepcopy(env)
    with pytest.raises(AttributeError):
        env._key = "x"  # type: ignore[misc]
    text = json.dumps([env.describe(), env.budget, env.log, repr(env)])
    for secret in ("weather_u", "is_storm", "survived", "drag_load", "equation", "storm_cutoff",
                   "reason", "wind_storm", "indicator("):
        assert secret not in text, secret


def test_discrete_targets_take_their_levels_only(tmp_path: Path) -> None:
    import scmspec
    from scmspec.api import spec_document
    from scmspec.textio import write_json

    scm = scmspec.compile_text("""
id: levels
title: levels
family: semantic
domain: demo
variables:
  flag: {meaning: a switch, kind: binary, range: [0, 1],
         distribution: {kind: bernoulli, p: 0.5}, intervention: {meaning: set it}}
  arm: {meaning: an arm, kind: categorical, levels: [placebo, drug],
        distribution: {kind: categorical, probs: [0.5, 0.5]}, intervention: {meaning: assign}}
  visits: {meaning: visits, kind: count, range: [0, 10],
           distribution: {kind: poisson, rate: 2}, intervention: {meaning: schedule}}
""")
    (tmp_path / "s").mkdir()
    write_json(tmp_path / "s" / "spec.json", spec_document(scm))
    env = Environment.open(tmp_path / "s", seed=1)
    for design in ({"flag": 0.5}, {"arm": "surgery"}, {"arm": 2}, {"visits": 2.5},
                   {"visits": 11}):
        with pytest.raises(OutOfRangeError):
            env.intervene(design, 5)
    rows = env.intervene({"flag": 1, "arm": "drug", "visits": 3}, 20)
    assert (rows["flag"] == 1).all() and (rows["arm"] == 1).all() and (rows["visits"] == 3).all()
