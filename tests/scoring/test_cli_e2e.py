"""End to end: compile a card with a latent confounder, export it, score predictions on the CLI."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scmspec.build import ProtocolOverrides, build
from scmspec.cli import app

CARD = """
id: confounded_chain
title: A chain with a hidden confounder of its ends
family: semantic
domain: demo
variables:
  u: {meaning: hidden factor, observed: false, distribution: {kind: normal}}
  x: {meaning: cause, equation: 0.8 * u, noise: {kind: normal, sd: 1.0},
      intervention: {meaning: set x}}
  m: {meaning: mediator, equation: 1.5 * x, noise: {kind: normal, sd: 1.0},
      intervention: {meaning: set m}}
  y: {meaning: effect, equation: 0.7 * m + u, noise: {kind: normal, sd: 1.0}}
  z: {meaning: readout, equation: 0.5 * y, noise: {kind: normal, sd: 1.0}}
edges:
  - {from: u, to: x, reason: hidden driver}
  - {from: x, to: m, reason: x feeds m}
  - {from: m, to: y, reason: m feeds y}
  - {from: u, to: y, reason: hidden driver}
  - {from: y, to: z, reason: y is read out as z}
protocol: {n_obs: 150, n_int_obs: 100, n_int: 50, seed: 11}
"""
# truth over observed variables: x -> m -> y -> z.
# Perturbed: m -> x reversed, m -> y dropped, x -> z added, y -> z kept.
# Directed TP 1 of 3 predicted and 3 true -> precision = recall = F1 = 1/3.
# SHD: {x,m} reversed, {m,y} missing, {x,z} extra -> 3; nSHD = 3 / (4 * 3) = 0.25.
# Skeleton: {x,m}, {y,z} shared of 3 and 3 -> skeleton F1 = 2/3.
PERTURBED = "m -> x\ny -> z\nx -> z\n"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("e2e")
    (root / "cards").mkdir()
    (root / "cards" / "confounded.yaml").write_text(CARD)
    results = build([root / "cards"], root / "data", ProtocolOverrides(replicates=2))
    assert [r.status for r in results] == ["released"]
    return root / "data"


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_export_then_score_the_truth_is_perfect(data: Path, tmp_path: Path) -> None:
    code, out = invoke("export", str(data), "--to", "adjacency", "--to", "networkx",
                       "--out", str(tmp_path / "exp"))
    assert code == 0, out
    graphs = tmp_path / "exp" / "confounded_chain" / "graphs"
    assert (graphs / "admg_bidirected.csv").is_file()  # the latent confounder of x and y
    truth = str(data / "confounded_chain")
    for pred in (data / "confounded_chain" / "graph" / "adjacency.csv", graphs / "dag.json"):
        code, out = invoke("score", str(pred), "--truth", truth, "--json")
        assert code == 0, out
        s = json.loads(out)
        assert (s["f1"], s["shd"], s["nshd"], s["skeleton_f1"], s["sid"]) == (1.0, 0, 0.0, 1.0, 0)
    code, out = invoke("score", str(graphs / "cpdag.csv"), "--truth", truth, "--target", "cpdag",
                       "--json")
    s = json.loads(out)
    assert (s["f1"], s["shd"], s["sid_lower"]) == (1.0, 0, 0)
    assert s["pred_undirected"] == 3 and s["sid_upper"] > 0


def test_score_a_perturbed_prediction(data: Path, tmp_path: Path) -> None:
    pred = tmp_path / "pred.txt"
    pred.write_text(PERTURBED)
    code, out = invoke("score", str(pred), "--truth", str(data / "confounded_chain"), "--json")
    assert code == 0, out
    s = json.loads(out)
    assert s["precision"] == s["recall"] == s["f1"] == pytest.approx(1 / 3)
    assert (s["shd"], s["nshd"]) == (3, 0.25)
    assert s["skeleton_f1"] == pytest.approx(2 / 3)
    code, table = invoke("score", str(pred), "--truth", str(data / "confounded_chain"))
    assert code == 0 and "shd" in table and "0.333" in table


def test_score_a_pool_with_missing_and_invalid(data: Path, tmp_path: Path) -> None:
    preds = tmp_path / "preds" / "confounded_chain"
    preds.mkdir(parents=True)
    shutil.copy(data / "confounded_chain" / "graph" / "adjacency.csv", preds / "rep-0.csv")
    (preds / "rep-1.txt").write_text("x -> q\n")
    code, out = invoke("score", "--pool", str(data), "--preds", str(tmp_path / "preds"),
                       "--by", "family", "--json", "--rows", str(tmp_path / "rows.csv"))
    assert code == 0, out
    doc = json.loads(out)
    assert doc["counts"] == {"predictions": 2, "ok": 1, "missing": 0, "invalid": 1, "scms": 1,
                             "scms_scored": 1}
    assert doc["groups"][0]["family"] == "semantic" and doc["groups"][0]["f1"] == 1.0
    assert "invalid" in (tmp_path / "rows.csv").read_text()
    code, out = invoke("score", "--pool", str(data), "--preds", str(tmp_path / "preds"))
    assert "1 invalid" in out and "confounded_chain/rep-1.txt" in out


def test_score_usage_and_bad_input(data: Path, tmp_path: Path) -> None:
    code, out = invoke("score", str(tmp_path / "x.csv"))
    assert code == 2
    (tmp_path / "x.csv").write_text("0,1\n0,0\n")
    code, out = invoke("score", str(tmp_path / "x.csv"), "--truth", str(data / "confounded_chain"))
    assert code == 1 and "does not fit 4 observed variables" in out


def test_baseline_then_score(data: Path, tmp_path: Path) -> None:
    pytest.importorskip("causallearn")
    for method in ("pc", "ges"):
        out_dir = tmp_path / method
        code, out = invoke("baseline", str(data), "--method", method, "--out", str(out_dir))
        assert code == 0, out
        log = json.loads((out_dir / "baseline.json").read_text())
        assert [r["status"] for r in log["runs"]] == ["ok", "ok"]
        code, out = invoke("score", "--pool", str(data), "--preds", str(out_dir), "--json")
        assert json.loads(out)["counts"]["ok"] == 2


def test_baseline_without_causal_learn(data: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "causallearn", None)
    code, out = invoke("baseline", str(data), "--out", str(tmp_path / "b"))
    assert code == 1 and "pip install 'scmspec[baselines]'" in out


def test_the_same_graph_scores_the_same_under_any_file_name(data: Path, tmp_path: Path) -> None:
    """The orientation seed comes from the graph and the SCM id, not the file name: the true
    CPDAG (three undirected edges, eight orientations) saved under six names, scored singly
    and as a pool, gives one set of DAG scores."""
    cpdag = "x -- m\nm -- y\ny -- z\n"
    truth = str(data / "confounded_chain")
    scores = []
    for name in ("pred.txt", "rep-0.txt", "rep-1.txt", "pc_output.txt", "another name.txt",
                 "zzz.txt"):
        (tmp_path / name).write_text(cpdag)
        code, out = invoke("score", str(tmp_path / name), "--truth", truth, "--json")
        assert code == 0, out
        s = json.loads(out)
        scores.append({k: s[k] for k in ("f1", "shd", "sid", "seed")})
    assert all(s == scores[0] for s in scores), scores
    preds = tmp_path / "pool" / "confounded_chain"
    preds.mkdir(parents=True)
    for r in range(2):
        (preds / f"rep-{r}.txt").write_text(cpdag)
    code, out = invoke("score", "--pool", str(data), "--preds", str(tmp_path / "pool"), "--json")
    rows = json.loads(out)["rows"]
    assert [(r["f1"], r["shd"]) for r in rows] == [(scores[0]["f1"], scores[0]["shd"])] * 2


def test_pag_target_on_a_card_with_a_latent_confounder(data: Path, tmp_path: Path) -> None:
    """u confounds x and y, and x -> m -> y: x and y are adjacent in the MAG (x --> y: x is an
    ancestor of y). No unshielded collider, so the PAG is x o-o m o-o y o-o z plus x o-o y.
    The observed DAG x -> m -> y -> z against it: no exact edge, the three shared pairs
    differ and x - y is missing (SHD 4), skeleton recall 3/4, and its three arrowheads and
    three tails are all claims the PAG does not make."""
    code, out = invoke("export", str(data), "--to", "adjacency", "--out", str(tmp_path / "e"))
    assert code == 0, out
    pag = tmp_path / "e" / "confounded_chain" / "graphs" / "pag.txt"
    assert pag.read_text() == "x o-o m\nx o-o y\nm o-o y\ny o-o z\n"
    truth = str(data / "confounded_chain")
    code, out = invoke("score", str(pag), "--truth", truth, "--target", "pag", "--json")
    s = json.loads(out)
    assert (s["f1"], s["shd"], s["skeleton_f1"]) == (1.0, 0, 1.0)
    dag = data / "confounded_chain" / "graph" / "adjacency.csv"
    code, out = invoke("score", str(dag), "--truth", truth, "--target", "pag", "--json")
    s = json.loads(out)
    assert (s["f1"], s["shd"], s["skeleton_recall"]) == (0.0, 4, 0.75)
    assert (s["arrowhead_precision"], s["tail_precision"]) == (0.0, 0.0)
    code, out = invoke("score", str(dag), "--truth", truth, "--target", "pag")
    assert code == 0 and "arrowhead_f1" in out and "target pag" in out
    code, out = invoke("score", str(dag), "--truth", truth, "--target", "pag",
                       "--convention", "gcastle")
    assert code == 2 and "true DAG only" in out
