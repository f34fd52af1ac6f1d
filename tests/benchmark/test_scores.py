"""Leaderboard arithmetic on hand-made rows: replicate means, failures, slices, win rates."""

from __future__ import annotations

import math

import pandas as pd

from scmspec.leaderboard.scores import (
    empty_graph,
    family_win_rates,
    row_table,
    slice_table,
    units,
    win_rates,
)


def record(scm: str, rep: int, status: str, f1: float | None = None, shd: int | None = None,
           family: str = "semantic", mechanism: list[str] | None = None) -> dict:
    metrics = None if f1 is None else {"f1": f1, "shd": shd, "precision": f1, "recall": f1}
    return {"id": scm, "split": "obs", "replicate": rep, "status": status, "scored": True,
            "true_edges": 4, "metrics": metrics, "elapsed": 1.0,
            "factors": {"family": family, "domain": "d1", "mechanism": mechanism}}


def test_failed_rows_count_as_the_empty_graph_in_all_rows_means() -> None:
    rows = row_table([record("s", 0, "ok", 0.5, 2), record("s", 1, "timed_out")], "m")
    u = units(rows).iloc[0]
    assert (u["f1"], u["shd"]) == (0.5, 2.0)  # finished rows only
    assert (u["f1_all"], u["shd_all"]) == (0.25, 3.0)  # the timeout scores F1 0, SHD 4
    assert (u["rows"], u["timed_out"], u["failed"]) == (2, 1, 0)
    assert empty_graph(0) == {"precision": 1.0, "recall": 1.0, "f1": 1.0, "shd": 0.0}


def test_unscored_rows_are_left_out_of_units() -> None:
    rec = record("s", 0, "ok", 0.5, 2)
    rows = row_table([{**rec, "scored": False, "metrics": None}], "m")
    assert units(rows).empty


def test_slices_explode_lists_and_carry_failure_shares() -> None:
    records = [record("a", 0, "ok", 1.0, 0, mechanism=["linear", "tree"]),
               record("b", 0, "failed", mechanism=["linear"])]
    table = slice_table(units(row_table(records, "m")), "mechanism")
    linear = table[table["value"] == "linear"].iloc[0]
    tree = table[table["value"] == "tree"].iloc[0]
    assert (linear["units"], linear["f1"], linear["f1_all"]) == (2, 1.0, 0.5)
    assert linear["failed_share"] == 0.5 and tree["failed_share"] == 0.0
    assert math.isclose(linear["shd_all"], 2.0)


def test_win_rates_pool_f1_and_shd_with_half_ties() -> None:
    u = pd.DataFrame({
        "method": ["a", "b", "c", "a", "b"], "id": ["s", "s", "s", "t", "t"],
        "split": ["obs"] * 5, "family": ["semantic"] * 5,
        "f1_all": [0.9, 0.5, 0.5, 0.2, 0.2], "shd_all": [1.0, 3.0, 3.0, 5.0, 4.0]})
    matrix, pooled = win_rates(u)
    # a vs b: s: F1 win, SHD win; t: F1 tie, SHD loss -> 2.5 / 4
    assert matrix.loc["a", "b"] == 0.625 and matrix.loc["b", "a"] == 0.375
    assert matrix.loc["b", "c"] == 0.5  # only s is shared, and it is tied on both
    assert math.isclose(matrix.loc["a", "b"] + matrix.loc["b", "a"], 1.0)
    assert math.isnan(matrix.loc["a", "a"])
    # a: 2.5 of 4 against b, 2 of 2 against c
    assert math.isclose(pooled["a"], 4.5 / 6)
    fam = family_win_rates(u)
    assert set(fam["method"]) == {"a", "b", "c"} and (fam["family"] == "semantic").all()
