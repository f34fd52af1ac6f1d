"""``scmspec export`` on a compiled pool: every file reads back to the truth it came from."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import scmspec
from scmspec.build import ProtocolOverrides, build
from scmspec.cli import app
from scmspec.interop import load_truth, read_graph, to_networkx
from scmspec.interop.export import EXPORT_FORMATS, read_replicate
from scmspec.interop.predictions import read_marks
from scmspec.interop.toolkits import graph_of

ROOT = Path(__file__).resolve().parents[2]

LATENT_CARD = """
id: hidden_cause
title: A hidden common cause of x and y
family: semantic
domain: demo
variables:
  u: {meaning: hidden factor, observed: false, distribution: {kind: normal}}
  x: {meaning: cause, equation: 0.8 * u, noise: {kind: normal, sd: 1.0},
      intervention: {meaning: set x}}
  m: {meaning: mediator, equation: 1.5 * x, noise: {kind: normal, sd: 1.0},
      intervention: {meaning: set m}}
  y: {meaning: effect, equation: 0.7 * m + u, noise: {kind: normal, sd: 1.0}}
edges:
  - {from: u, to: x, reason: hidden driver}
  - {from: x, to: m, reason: x feeds m}
  - {from: m, to: y, reason: m feeds y}
  - {from: u, to: y, reason: hidden driver}
protocol: {n_obs: 120, n_int_obs: 80, n_int: 40, seed: 3}
"""
SELECTED_CARD = """
id: survivors
title: Only survivors are observed
family: semantic
domain: demo
variables:
  a: {meaning: cause, distribution: {kind: normal}, intervention: {meaning: set a}}
  b: {meaning: effect, equation: a, noise: {kind: normal, sd: 1.0}}
  c: {meaning: other effect, equation: a, noise: {kind: normal, sd: 1.0}}
edges:
  - {from: a, to: b, reason: r}
  - {from: a, to: c, reason: r}
selection: {condition: "b > -2"}
protocol: {n_obs: 120, n_int_obs: 80, n_int: 40, seed: 3}
"""


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pool")
    (root / "cards").mkdir()
    (root / "cards" / "hidden.yaml").write_text(LATENT_CARD)
    (root / "cards" / "survivors.yaml").write_text(SELECTED_CARD)
    build([root / "cards"], root / "data", ProtocolOverrides(replicates=2), run_gate_checks=False)
    return root / "data"


@pytest.fixture(scope="module")
def exported(pool: Path) -> Path:
    result = CliRunner().invoke(app, ["export", str(pool), "--to", "all", "--out",
                                      str(pool.parent / "out")])
    assert result.exit_code == 0, result.output
    return pool.parent / "out"


def test_truth_json_states_latent_and_selection(exported: Path) -> None:
    hidden = json.loads((exported / "hidden_cause" / "truth.json").read_text())
    assert hidden["latent"] == ["u"] and hidden["selection"] is None
    assert hidden["graphs"] == ["dag", "cpdag", "full", "admg", "mag", "pag"]
    survivors = json.loads((exported / "survivors" / "truth.json").read_text())
    assert survivors["selection"]["variables"] == ["b"]
    assert "ignores selection" in survivors["selection"]["statement"]


def test_every_graph_file_reads_back_as_the_truth(pool: Path, exported: Path) -> None:
    index = json.loads((exported / "export.json").read_text())
    assert index["formats"] == list(EXPORT_FORMATS)
    for scm_id in ("hidden_cause", "survivors"):
        truth = load_truth(pool / scm_id)
        graph_files = [f for f in index["scms"][scm_id]["files"]
                       if f.startswith(f"{scm_id}/graphs/") and not f.endswith("_bidirected.csv")
                       and not f.endswith("pag.txt")]
        assert len(graph_files) >= 20
        for rel in graph_files:
            kind = Path(rel).name.split(".")[0].removesuffix("_directed")
            assert read_graph(exported / rel) == graph_of(truth, kind), rel
        pag = exported / scm_id / "graphs" / "pag.txt"
        assert read_marks(pag, truth.observed) == truth.pag


def test_admg_has_the_latent_confounder(exported: Path) -> None:
    admg = read_graph(exported / "hidden_cause" / "graphs" / "admg.json")
    assert set(admg.edges()) == {("x", "m", "directed"), ("m", "y", "directed"),
                                 ("x", "y", "bidirected")}
    index = json.loads((exported / "export.json").read_text())
    assert any("bnlearn holds DAGs only" in s for s in index["scms"]["hidden_cause"]["skipped"])


def test_data_round_trips_in_csv_and_parquet(pool: Path, exported: Path) -> None:
    for rep in ("rep-0", "rep-1"):
        src = read_replicate(pool / "hidden_cause" / rep)
        folder = exported / "hidden_cause" / "data" / rep
        for ext, read in ((".csv", pd.read_csv), (".parquet", pd.read_parquet)):
            obsint = read(folder / f"obsint{ext}")
            pd.testing.assert_frame_equal(read(folder / f"obs{ext}"), src.obs)
            pd.testing.assert_frame_equal(obsint.drop(columns="regime"), src.obsint)
            assert np.array_equal(obsint["regime"].to_numpy(), src.regime)
        regimes = json.loads((folder / "regimes.json").read_text())
        assert regimes[0] == {"regime": 0, "targets": [], "rows": 80}
        assert sum(r["rows"] for r in regimes) == 120


def test_toolkit_layouts(pool: Path, exported: Path) -> None:
    truth = load_truth(pool / "hidden_cause")
    gc = exported / "hidden_cause" / "gcastle"
    assert json.loads((gc / "nodes.json").read_text()) == ["x", "m", "y"]
    assert np.array_equal(np.load(gc / "true_dag.npy"), truth.dag.directed)
    assert np.load(gc / "rep-0" / "X_obs.npy").shape == (120, 3)
    mask = np.load(gc / "rep-0" / "obsint_mask.npy")
    regime = np.load(gc / "rep-0" / "obsint_regime.npy")
    assert mask.shape == (120, 3) and mask[:80].sum() == 0 and (mask[80:].sum(axis=1) == 1).all()
    assert (regime[:80] == 0).all() and (regime[80:] > 0).all()
    cl = exported / "hidden_cause" / "causal-learn"
    assert np.load(cl / "rep-1" / "obsint_regime.npy").shape == (120, 1)  # CD-NOD's c_indx
    assert read_graph(cl / "true_cpdag.npy", nodes=["x", "m", "y"]) == truth.cpdag
    dw = exported / "hidden_cause" / "dowhy"
    assert set(nx.read_gml(dw / "graph.gml").edges()) == {("x", "m"), ("m", "y")}
    regime_rows = sum(len(pd.read_csv(p)) for p in (dw / "rep-0").glob("regime-*.csv"))
    assert regime_rows == 120


def test_to_networkx_from_folder_and_scm(pool: Path) -> None:
    g = to_networkx(pool / "hidden_cause")
    assert isinstance(g, nx.DiGraph) and set(g.edges()) == {("x", "m"), ("m", "y")}
    assert g.nodes["x"]["kind"] == "continuous"
    scm = scmspec.load_spec(pool / "hidden_cause" / "spec.json")
    assert set(to_networkx(scm, "full").edges()) == {("u", "x"), ("u", "y"), ("x", "m"),
                                                     ("m", "y")}
    assert isinstance(to_networkx(scm, "admg"), nx.MultiDiGraph)


def test_to_dowhy_gcm(pool: Path) -> None:
    pytest.importorskip("dowhy", reason="dowhy is not installed (pip install 'scmspec[dowhy]'; "
                        "CI leaves it out because it downgrades scipy)")
    from dowhy import gcm

    with pytest.warns(UserWarning, match="latent"):
        model = scmspec.interop.to_dowhy_gcm(pool / "hidden_cause")
    assert isinstance(model, gcm.StructuralCausalModel)
    assert set(model.graph.edges()) == {("x", "m"), ("m", "y")}


def test_missing_optional_dependencies_are_named(pool: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "dowhy", None)
    with pytest.raises(ImportError, match="pip install 'scmspec\\[dowhy\\]'"):
        scmspec.interop.to_dowhy_gcm(pool / "survivors")


def test_every_export_works_on_a_plain_install(exported: Path) -> None:
    """``export --to all`` writes Parquet, so pyarrow is a core dependency (a plain ``pip
    install scmspec`` has it), and the parquet files read back."""
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from 3.11")
    doc = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    core = {re.split(r"[<>=\[ ]", d, maxsplit=1)[0] for d in doc["project"]["dependencies"]}
    assert "pyarrow" in core
    parquet = exported / "survivors" / "data" / "rep-0" / "obs.parquet"
    assert pd.read_parquet(parquet).equals(
        pd.read_csv(exported / "survivors" / "data" / "rep-0" / "obs.csv"))


def test_export_errors_are_diagnostics(pool: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    bad = runner.invoke(app, ["export", str(pool), "--to", "xlsx", "--out", str(tmp_path)])
    assert bad.exit_code == 2 and "unknown export format 'xlsx'" in bad.output
    missing = runner.invoke(app, ["export", str(tmp_path / "nope"), "--to", "dot"])
    assert missing.exit_code == 2 and "nope" in missing.output  # a missing input is usage
    (tmp_path / "empty").mkdir()
    empty = runner.invoke(app, ["export", str(tmp_path / "empty"), "--to", "dot"])
    assert empty.exit_code == 1 and "neither manifest.json nor metadata.json" in empty.output
    one = runner.invoke(app, ["export", str(pool / "survivors"), "--to", "dot", "--out",
                              str(tmp_path / "one")])
    assert one.exit_code == 0 and (tmp_path / "one" / "survivors" / "graphs" / "admg.dot").is_file()
