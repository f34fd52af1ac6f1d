"""bench/calibrate.py: paper lookup, slice aggregation and edge-level F1 (oracles by hand)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

_PATH = Path(__file__).resolve().parents[2] / "bench" / "calibrate.py"
_SPEC = importlib.util.spec_from_file_location("calibrate", _PATH)
assert _SPEC and _SPEC.loader
cal = importlib.util.module_from_spec(_SPEC)
sys.modules["calibrate"] = cal
_SPEC.loader.exec_module(cal)


def test_paper_values_follow_the_tables() -> None:
    assert [cal.paper("pc", "d", d) for d in ("10", "20", "30", "50", "100")] == [
        0.42, 0.34, 0.31, 0.26, 0.20]
    assert cal.paper("ges", "graph", "erdos_renyi") == 0.50
    assert cal.paper("lingam", "difficulty", "outliers") == 0.06
    assert cal.paper("random_regress", "noise", "none") is None
    for table in cal._TABLES.values():  # every row has the four methods
        assert all(len(row) == 4 for row in table.values())


def _records() -> tuple[pd.DataFrame, pd.DataFrame]:
    counts = {"mechanism": {"linear": [1, 1, 0]}, "noise": {"gaussian": [1, 0, 1]}}
    recs = pd.DataFrame([
        {"scm": "a", "replicate": "rep-0", "method": "pc", "status": "ok", "cpu": 1.0,
         "f1": 0.2, "counts": counts},
        {"scm": "a", "replicate": "rep-1", "method": "pc", "status": "ok", "cpu": 1.0,
         "f1": 0.4, "counts": counts},
        {"scm": "b", "replicate": "rep-0", "method": "pc", "status": "ok", "cpu": 1.0,
         "f1": 0.9, "counts": {"mechanism": {"linear": [2, 0, 2]}, "noise": {}}},
    ])
    scms = pd.DataFrame([
        {"scm": "a", "d": 10, "graph": "tree", "root_dependency": "independent",
         "difficulty": ("weak_signal", "outliers")},
        {"scm": "b", "d": 10, "graph": "chain", "root_dependency": "independent",
         "difficulty": ("clean",)},
    ])
    return recs, scms


def test_replicates_are_averaged_before_slices_and_components_count_in_each() -> None:
    recs, scms = _records()
    by_d = cal.scm_table(recs, scms, "pc", "d")
    assert by_d.loc[0, "n"] == 2 and math.isclose(by_d.loc[0, "ours"], (0.3 + 0.9) / 2)
    assert math.isclose(by_d.loc[0, "diff"], 0.6 - 0.42)
    diff = cal.scm_table(recs, scms, "pc", "difficulty").set_index("slice")
    assert set(diff.index) == {"clean", "weak_signal", "outliers"}
    assert math.isclose(diff.loc["outliers", "ours"], 0.3)


def test_edge_level_f1_pools_counts() -> None:
    recs, _ = _records()
    table = cal.edge_table(recs, "pc", "mechanism").set_index("slice")
    # a: (1, 1, 0) averaged over its two replicates; b: (2, 0, 2): tp 3, fp 1, fn 2
    assert math.isclose(table.loc["linear", "ours"], 2 * 3 / (2 * 3 + 1 + 2))
    assert table.loc["linear", "n"] == 2 and np.isfinite(table.loc["linear", "se"])
