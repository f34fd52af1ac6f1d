"""``compile --format csv|parquet|both``: Parquet tables hold the same values as the CSV ones.

``both`` writes the CSV files byte for byte as ``csv`` does, plus a ``.parquet`` beside each
replicate table; ``parquet`` writes only the Parquet tables, and the readers
(``datasets.load``, ``export``) find them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scmspec.build import ProtocolOverrides
from scmspec.build.driver import compile_cards
from scmspec.datasets import load as load_dataset
from tests.parallel.cards import tree, write_cards

TABLES = ("obs", "obsint", "obsint_mask", "obsint_records")


@pytest.fixture(scope="module")
def cards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_cards(tmp_path_factory.mktemp("formats") / "cards")


def test_both_writes_the_csv_bytes_and_equal_parquet_tables(cards: Path, tmp_path: Path) -> None:
    compile_cards([cards], tmp_path / "csv", ProtocolOverrides())
    compile_cards([cards], tmp_path / "both", ProtocolOverrides(), table_format="both")
    csv_files, both_files = tree(tmp_path / "csv"), tree(tmp_path / "both")
    assert {k: v for k, v in both_files.items() if k.endswith(".csv")} == \
        {k: v for k, v in csv_files.items() if k.endswith(".csv")}
    parquet = sorted(k for k in both_files if k.endswith(".parquet"))
    assert len(parquet) == 4 * 2 * len(TABLES)  # cards x replicates x tables
    for name in parquet:
        stem = (tmp_path / "both" / name).with_suffix("")
        from_csv = pd.read_csv(stem.with_suffix(".csv"), keep_default_na=False)
        from_parquet = pd.read_parquet(stem.with_suffix(".parquet"))
        assert list(from_parquet.columns) == list(from_csv.columns)
        for c in from_csv.columns:
            if from_csv[c].dtype.kind == "f":  # every bit: the CSV text round-trips floats
                assert np.array_equal(from_csv[c].to_numpy(), from_parquet[c].to_numpy())
            else:
                assert from_csv[c].astype(str).tolist() == from_parquet[c].astype(str).tolist()
    manifest = json.loads((tmp_path / "both" / "manifest.json").read_text())
    assert manifest["table_format"] == "both"
    assert "table_format" not in json.loads((tmp_path / "csv" / "manifest.json").read_text())


def test_parquet_only_is_read_back_by_datasets_load(cards: Path, tmp_path: Path) -> None:
    compile_cards([cards], tmp_path / "csv", ProtocolOverrides())
    compile_cards([cards], tmp_path / "pq", ProtocolOverrides(), table_format="parquet")
    assert not [k for k in tree(tmp_path / "pq") if k.startswith("par_") and "/rep-" in k
                and k.endswith(".csv")]
    for split in ("obs", "obsint"):
        a = load_dataset(tmp_path / "csv", "par_diamond", split=split, replicate=1)
        b = load_dataset(tmp_path / "pq", "par_diamond", split=split, replicate=1)
        pd.testing.assert_frame_equal(a.data, b.data)
        pd.testing.assert_frame_equal(a.mask, b.mask)
        assert a.targets == b.targets


def test_a_changed_format_rebuilds(cards: Path, tmp_path: Path) -> None:
    compile_cards([cards], tmp_path / "out", ProtocolOverrides())
    again = compile_cards([cards], tmp_path / "out", ProtocolOverrides(), table_format="both")
    assert not again.reused
