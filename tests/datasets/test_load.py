"""scmspec.datasets.load: one call from a compiled pool to aligned data, mask, graph, metadata."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scmspec import datasets
from scmspec.build import ProtocolOverrides, build

ROOT = Path(__file__).resolve().parents[2]
CARD = """
id: chain
title: a chain with one target
family: semantic
domain: demo
variables:
  x: {meaning: cause, distribution: {kind: normal}, intervention: {meaning: set x}}
  m: {meaning: mediator, equation: 2 * x, noise: {kind: normal, sd: 1.0},
      intervention: {meaning: set m}}
  y: {meaning: effect, equation: m + x, noise: {kind: normal, sd: 1.0}}
  h: {meaning: hidden, observed: false, distribution: {kind: normal}}
  z: {meaning: readout, equation: y + h, noise: {kind: normal, sd: 1.0}}
edges:
  - {from: x, to: m, reason: r}
  - {from: m, to: y, reason: r}
  - {from: x, to: y, reason: r}
  - {from: y, to: z, reason: r}
  - {from: h, to: z, reason: r}
"""
BROKEN = "id: broken\ntitle: b\nfamily: semantic\ndomain: d\nvariables:\n" \
         "  x: {meaning: m, equation: y + 1}\n"


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("datasets")
    (root / "cards").mkdir()
    (root / "cards" / "chain.yaml").write_text(CARD)
    (root / "cards" / "broken.yaml").write_text(BROKEN)
    build([root / "cards"], root / "data",
          ProtocolOverrides(n_obs=60, n_int_obs=40, n_int=30, replicates=2),
          run_gate_checks=False)
    return root / "data"


@pytest.mark.parametrize("split, replicate", [("obs", 0), ("obsint", 1), ("obs+int", 0)])
def test_tables_match_the_files(pool: Path, split: str, replicate: int) -> None:
    ds = datasets.load(pool, "chain", split=split, replicate=replicate)
    name = "obs" if split == "obs" else "obsint"
    rep = pool / "chain" / f"rep-{replicate}"
    assert (ds.id, ds.split, ds.replicate) == ("chain", name, replicate)
    pd.testing.assert_frame_equal(ds.data, pd.read_csv(rep / f"{name}.csv"))
    assert ds.variables == ("x", "m", "y", "z")  # observed, card order; h is latent
    assert ds.mask.shape == ds.data.shape
    adjacency = pd.read_csv(pool / "chain" / "graph" / "adjacency.csv", index_col=0)
    assert np.array_equal(ds.adjacency, adjacency.to_numpy())
    assert list(ds.graph.index) == list(ds.graph.columns) == list(ds.variables)
    assert ds.metadata["id"] == "chain" and ds.metadata["latent"] == ["h"]
    assert len(ds.targets) == len(ds.data)
    if name == "obs":
        assert ds.interventional_rows == 0 and not np.asarray(ds.mask).any()
        assert set(ds.targets) == {()}
    else:
        assert ds.shape == (70, 4) and ds.interventional_rows == 30
        for row, targets in enumerate(ds.targets):  # the mask marks exactly the targets
            assert tuple(ds.mask.columns[ds.mask.iloc[row] == 1]) == targets


def test_one_scm_folder_needs_no_id(pool: Path) -> None:
    ds = datasets.load(pool / "chain", split="obsint")
    assert ds.id == "chain" and ds.shape == (70, 4)


@pytest.mark.parametrize("args, message", [
    (("chian",), "no SCM 'chian' in .*did you mean 'chain'"),
    (("broken",), "broken has no dataset \\(status 'failed'"),
    (("chain", "obs", 2), "chain has replicates 0-1, not 2"),
    (("chain", "train"), "unknown split 'train'"),
])
def test_mistakes_say_what_exists(pool: Path, args: tuple[object, ...], message: str) -> None:
    with pytest.raises(datasets.DatasetError, match=message):
        datasets.load(pool, *args)  # type: ignore[arg-type]


def test_a_folder_that_is_no_pool(tmp_path: Path) -> None:
    with pytest.raises(datasets.DatasetError, match="not a compiled pool"):
        datasets.load(tmp_path, "x")
    with pytest.raises(datasets.DatasetError, match="does not exist"):
        datasets.load(tmp_path / "nope", "x")


def test_a_pool_of_several_scms_needs_an_id(pool: Path, tmp_path: Path) -> None:
    (tmp_path / "cards").mkdir()
    for name in ("one", "two"):
        (tmp_path / "cards" / f"{name}.yaml").write_text(CARD.replace("id: chain", f"id: {name}"))
    build([tmp_path / "cards"], tmp_path / "data", ProtocolOverrides(n_obs=30, n_int_obs=20,
                                                                     n_int=10, replicates=1),
          run_gate_checks=False)
    with pytest.raises(datasets.DatasetError, match="holds 2 SCMs; name one: one, two"):
        datasets.load(tmp_path / "data")


def test_another_source_plugs_in(pool: Path) -> None:
    """The shape a release package reader takes: any object with root, ids() and read()."""
    class InMemory:
        root = Path("memory")

        def ids(self) -> list[str]:
            return ["tiny"]

        def read(self, scm_id: str, split: str, replicate: int) -> datasets.Dataset:
            frame = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
            return datasets.Dataset(scm_id, split, replicate, frame, frame * 0,
                                    pd.DataFrame([[0, 1], [0, 0]], ["a", "b"], ["a", "b"]))

    ds = datasets.load(InMemory(), split="obs+int")
    assert (ds.id, ds.split, ds.adjacency.tolist()) == ("tiny", "obsint", [[0, 1], [0, 0]])
    assert datasets.CompiledPool in datasets.SOURCES


def test_the_data_layout_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The Python block of docs/data-layout.md, run against the card it names."""
    text = (ROOT / "docs" / "data-layout.md").read_text(encoding="utf-8")
    section = text[text.index("## Loading in Python"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]
    build([ROOT / "cards" / "formula" / "barometric_slp.yaml"], tmp_path / "data",
          ProtocolOverrides(replicates=1), run_gate_checks=False)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "data-layout.md", "exec"), {})  # noqa: S102 - our own documentation
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "(1000, 16)" and printed[1] == "200"
    assert printed[3] == "formula released"
