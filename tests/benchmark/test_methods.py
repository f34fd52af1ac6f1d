"""Method wrappers and conversion rules, in this process on small data (no package needed)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scmspec.evaluation.builtins import BUILTINS, call_params
from scmspec.evaluation.methods import MethodError, command_argv, resolve_method
from scmspec.evaluation.random_regress import lasso, random_regress, standardise
from scmspec.evaluation.runner import RowKey, matrix_output
from scmspec.evaluation.truths import row_orientation_seed, score
from scmspec.interop.formats import to_causallearn
from scmspec.interop.graphs import MixedGraph
from scmspec.interop.truth import GroundTruth
from tests.benchmark.conftest import needs_causallearn


def chain_data(n: int = 2000, seed: int = 0) -> pd.DataFrame:
    """x -> y -> z, linear with uniform (non-Gaussian) noise: LiNGAM and NOTEARS can orient it."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, n)
    y = 1.5 * x + rng.uniform(-1, 1, n)
    z = -1.2 * y + rng.uniform(-1, 1, n)
    return pd.DataFrame({"x": x, "y": y, "z": z})


def run_builtin(name: str, data: pd.DataFrame) -> np.ndarray:
    builtin = BUILTINS[name]
    mask = pd.DataFrame(0, index=data.index, columns=data.columns)
    meta = {"seed": 1, "columns": list(data.columns)}
    return np.asarray(builtin.fn(data, mask, meta, **call_params(builtin, {})))


def test_lasso_matches_scikit_learn() -> None:
    linear_model = pytest.importorskip("sklearn.linear_model")
    rng = np.random.default_rng(3)
    x = standardise(rng.normal(size=(300, 6)))
    y = x @ np.array([1.0, -0.5, 0, 0, 0.2, 0]) + 0.3 * rng.normal(size=300)
    y = y - y.mean()
    ours = lasso(x.T @ x / 300, x.T @ y / 300, alpha=0.1)
    theirs = linear_model.Lasso(alpha=0.1, fit_intercept=False, tol=1e-10,
                                max_iter=100000).fit(x, y).coef_
    assert np.allclose(ours, theirs, atol=1e-6)


def test_random_regress_only_points_forward_in_its_order_and_is_seeded() -> None:
    data = chain_data().to_numpy()
    a = random_regress(data, seed=5)
    assert np.array_equal(a, random_regress(data, seed=5))
    order = np.random.default_rng(5).permutation(3)
    position = {v: i for i, v in enumerate(order)}
    assert all(position[i] < position[j] for i, j in zip(*np.nonzero(a)))
    assert a.sum() >= 2  # the chain's two dependencies are found, in some direction


@pytest.mark.slow
@pytest.mark.parametrize("name", ["lingam", "notears"])
def test_functional_builtins_orient_a_non_gaussian_chain(name: str) -> None:
    if any(importlib.util.find_spec(m) is None for m in BUILTINS[name].needs):
        pytest.skip(f"{name} needs {', '.join(BUILTINS[name].needs)}")
    # raw scales: the variance grows along the chain, which NOTEARS needs (standardised
    # tables, the evaluation default, take that shortcut away); LiNGAM needs only the noise
    data = chain_data()
    g = MixedGraph.from_dag(list(data.columns), run_builtin(name, data))
    assert sorted(g.edges()) == [("x", "y", "directed"), ("y", "z", "directed")]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["pc", "ges", "fci"])
def test_equivalence_class_builtins_return_endpoint_matrices(name: str) -> None:
    pytest.importorskip("causallearn")
    m = run_builtin(name, chain_data())
    assert m.shape == (3, 3) and set(np.unique(m)) <= {-1, 0, 1, 2}
    graph = matrix_output_of(m, ["x", "y", "z"], BUILTINS[name].encoding)
    assert graph.skeleton[0, 1] and graph.skeleton[1, 2] and not graph.skeleton[0, 2]


def matrix_output_of(m: np.ndarray, columns: list[str], encoding: str,
                     tmp: Path | None = None) -> MixedGraph:
    import tempfile

    folder = Path(tmp or tempfile.mkdtemp())
    np.save(folder / "output.npy", m.astype(float))
    (folder / "labels.json").write_text(json.dumps({"columns": None, "index": None}))
    return matrix_output(folder, columns, encoding)


def test_pag_circles_are_read_as_tails() -> None:
    nodes = ["a", "b", "c"]
    pag = MixedGraph.build(nodes, directed=[[0, 1, 0], [0, 0, 0], [0, 0, 0]],
                           undirected=[[0, 0, 0], [0, 0, 1], [0, 1, 0]])
    matrix = to_causallearn(pag)
    matrix[0, 1] = 2  # a o-> b
    matrix[1, 2] = matrix[2, 1] = 2  # b o-o c
    g = matrix_output_of(matrix, nodes, "causallearn")
    assert sorted(g.edges()) == [("a", "b", "directed"), ("b", "c", "undirected")]


def test_cpdag_orientation_seed_comes_from_the_row_not_the_file(tmp_path: Path) -> None:
    nodes = ("a", "b", "c", "d")
    truth = GroundTruth("s", nodes, MixedGraph.from_dag(nodes, np.triu(np.ones((4, 4)), 1)))
    edges = "source,target,type\na,b,undirected\nb,c,undirected\nc,d,undirected\na,d,undirected\n"
    for name in ("one.csv", "sub/other-name.csv"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(edges)
    key = RowKey("s", "obs", 0)
    first = score(key, tmp_path / "one.csv", truth, release_seed=7)
    assert first == score(key, tmp_path / "sub/other-name.csv", truth, release_seed=7)
    seeds = {row_orientation_seed(RowKey("s", "obs", r), 7) for r in range(5)} | \
        {row_orientation_seed(RowKey("s", "obsint", 0), 7),
         row_orientation_seed(RowKey("s", "obs", 0), 8)}
    assert len(seeds) == 7
    outcomes = {score(RowKey("s", "obs", r), tmp_path / "one.csv", truth, 7)["shd"]
                for r in range(12)}
    assert len(outcomes) > 1  # the seed really decides the orientation


def test_labelled_outputs_are_matched_by_name(tmp_path: Path) -> None:
    np.save(tmp_path / "output.npy", np.array([[0.0, 0.0], [1.0, 0.0]]))
    (tmp_path / "labels.json").write_text(json.dumps({"columns": ["b", "a"],
                                                      "index": ["b", "a"]}))
    g = matrix_output(tmp_path, ["a", "b"], "auto")
    assert list(g.edges()) == [("a", "b", "directed")]


def test_method_resolution_and_command_lines() -> None:
    needs_causallearn()
    assert resolve_method("pc", None).params["alpha"] == 0.05
    assert resolve_method("pc", None, params={"alpha": 0.01}).params["alpha"] == 0.01
    with pytest.raises(MethodError, match="unknown method 'lingamm'") as info:
        resolve_method("lingamm", None)
    assert "did you mean 'lingam'" in (info.value.hint or "")
    with pytest.raises(MethodError, match="module:function"):
        resolve_method("mod:not-an-identifier", None)
    assert command_argv("fit {data} {out} --seed={seed} '{x}'",
                        {"data": "a b.csv", "out": "o.csv", "seed": "3"}) == \
        ["fit", "a b.csv", "o.csv", "--seed=3", "{x}"]
