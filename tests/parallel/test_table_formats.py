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


def test_only_text_columns_are_dictionary_encoded(tmp_path: Path) -> None:
    """Sampled floats are nearly all distinct: a dictionary page per float column is built and
    abandoned (about 1.8x the write time, and larger files); text columns keep theirs."""
    import pyarrow.parquet as pq

    from scmspec.textio import write_table

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=500), "mask": rng.integers(0, 2, 500),
                          "target": rng.choice(["a", "b"], 500)})
    write_table(tmp_path / "t", frame, "parquet")
    meta = pq.ParquetFile(tmp_path / "t.parquet").metadata.row_group(0)
    encodings = {meta.column(i).path_in_schema: meta.column(i).encodings
                 for i in range(meta.num_columns)}
    assert not any("DICTIONARY" in e for e in encodings["x"] + encodings["mask"])
    assert any("DICTIONARY" in e for e in encodings["target"])
    assert pd.read_parquet(tmp_path / "t.parquet").equals(frame)
