"""Pool scoring: replicate averaging, slicing by metadata, missing and invalid predictions."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scmspec.interop import InteropError
from scmspec.scoring import ScoreOptions, score_pool
from scmspec.scoring.pool import factor_values


def fake_scm(root: Path, scm_id: str, family: str, d: int, tags: list[str]) -> None:
    """A compiled-SCM folder with just what scoring reads: a chain x0 -> x1 -> ... ."""
    names = [f"x{k}" for k in range(d)]
    a = np.eye(d, k=1, dtype=int)
    folder = root / scm_id / "graph"
    folder.mkdir(parents=True)
    for name in ("adjacency.csv", "adjacency_full.csv"):
        pd.DataFrame(a, index=names, columns=names).to_csv(folder / name)
    meta = {"id": scm_id, "family": family, "domain": "demo", "d": d, "replicates": 2,
            "latent": [], "selection": None, "tags": tags, "n": {"obs": 100}}
    (root / scm_id / "metadata.json").write_text(json.dumps(meta))


def edges(path: Path, *lines: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture
def pool(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    fake_scm(data, "s1", "synthetic", 3, ["graph:chain", "mech:linear"])
    fake_scm(data, "s2", "synthetic", 4, ["graph:chain"])
    fake_scm(data, "m1", "semantic", 3, [])
    manifest = {"scms": [{"id": i, "status": "released"} for i in ("m1", "s1", "s2")]}
    (data / "manifest.json").write_text(json.dumps(manifest))
    preds = tmp_path / "preds"
    edges(preds / "s1" / "rep-0.txt", "x0 -> x1", "x1 -> x2")           # perfect: F1 1
    edges(preds / "s1" / "rep-1.txt", "x0 -> x1")                        # F1 2*1/(1+2) = 2/3
    edges(preds / "s2" / "rep-0.txt", "x0 -> x1", "x1 -> x2", "x2 -> x3")  # perfect
    edges(preds / "s2" / "rep-1.txt", "x0 -> nope")                      # invalid
    return tmp_path                                                      # m1: missing


def test_replicates_are_averaged_before_slices(pool: Path) -> None:
    result = score_pool(pool / "data", pool / "preds", ScoreOptions(), ["family"])
    scms = result.scms.set_index("id")
    assert scms.loc["s1", "f1"] == pytest.approx((1 + 2 / 3) / 2)
    assert scms.loc["s2", "f1"] == 1.0 and scms.loc["s2", "invalid"] == 1
    assert not scms.loc["m1", "scored"] and scms.loc["m1", "missing"] == 2
    groups = result.groups.set_index("family")
    # synthetic: mean over SCMs (s1, s2), not over the three scored files
    assert groups.loc["synthetic", "f1"] == pytest.approx(((1 + 2 / 3) / 2 + 1) / 2)
    assert (groups.loc["semantic", "scms"], groups.loc["semantic", "scored"]) == (1, 0)
    assert groups.loc["semantic", "missing"] == 2 and np.isnan(groups.loc["semantic", "f1"])


def test_missing_and_invalid_are_counted_never_dropped(pool: Path) -> None:
    result = score_pool(pool / "data", pool / "preds")
    assert result.counts() == {"predictions": 6, "ok": 3, "missing": 2, "invalid": 1,
                               "scms": 3, "scms_scored": 2}
    bad = result.rows[result.rows["status"] == "invalid"].iloc[0]
    assert bad["file"] == "s2/rep-1.txt" and "nope" in bad["detail"]
    doc = result.to_json()
    assert doc["counts"]["missing"] == 2 and len(doc["rows"]) == 6


def test_missing_as_empty_scores_them(pool: Path) -> None:
    result = score_pool(pool / "data", pool / "preds", ScoreOptions(missing="empty"))
    scms = result.scms.set_index("id")
    assert scms.loc["m1", "scored"] and scms.loc["m1", "f1"] == 0.0
    assert scms.loc["s2", "f1"] == pytest.approx(0.5)  # perfect and empty, averaged
    assert result.counts()["missing"] == 2  # still counted


def test_slices_by_list_and_dotted_keys(pool: Path) -> None:
    tags = score_pool(pool / "data", pool / "preds", by=["tags"]).groups.set_index("tags")
    assert tags.loc["graph:chain", "scms"] == 2 and tags.loc["mech:linear", "scms"] == 1
    assert tags.loc["(none)", "scms"] == 1
    graph = score_pool(pool / "data", pool / "preds", by=["tags:graph"]).groups
    assert dict(zip(graph["tags:graph"], graph["scms"])) == {"chain": 2, "(missing)": 1}
    two = score_pool(pool / "data", pool / "preds", by=["family", "d"]).groups
    assert len(two) == 3
    assert factor_values({"n": {"obs": 5}}, "n.obs") == [5]
    with pytest.raises(InteropError, match="no SCM has metadata key 'colour'"):
        score_pool(pool / "data", pool / "preds", by=["colour"])


def test_per_scm_files_and_one_missing_row_per_scm(tmp_path: Path) -> None:
    data = tmp_path / "data"
    fake_scm(data, "a", "synthetic", 3, [])
    fake_scm(data, "b", "synthetic", 3, [])
    (data / "manifest.json").write_text(json.dumps({"scms": [{"id": "a"}, {"id": "b"}]}))
    edges(tmp_path / "preds" / "a.txt", "x1 -> x0", "x1 -> x2")
    result = score_pool(data, tmp_path / "preds")
    assert list(result.rows["status"]) == ["ok", "missing"]
    assert result.rows.iloc[0]["shd"] == 1
