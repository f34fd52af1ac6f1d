"""The build's CSV writer writes exactly what pandas ``to_csv`` writes (it is only faster).

Released files must not change when the writer does: every table a build writes (float
data with integer columns, int8 masks, text records, indexed adjacency matrices) is
compared byte for byte with pandas, over generated frames and awkward values.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from scmspec.textio import neutralise, write_csv

AWKWARD = [0.0, -0.0, 0.1, 1 / 3, 1e15, 1e16, 1e22, 1e-5, 1e-4, 5e-324, 1.7976931348623157e308,
           123456789012345678.0, float("nan"), float("inf"), float("-inf"), -2.5e-300]


def _same_as_pandas(tmp: Path, frame: pd.DataFrame, index: bool = False) -> None:
    ours, theirs = tmp / "ours.csv", tmp / "pandas.csv"
    write_csv(ours, frame, index=index)
    frame.to_csv(theirs, index=index, lineterminator="\n")
    assert ours.read_bytes() == theirs.read_bytes()


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, st.tuples(st.integers(0, 30), st.integers(1, 6)),
                  elements=st.floats(allow_nan=True, allow_infinity=True, width=64)),
       st.integers(0, 3))
def test_float_and_integer_tables_match_pandas(tmp_path_factory: pytest.TempPathFactory,
                                               block: np.ndarray, n_int: int) -> None:
    frame = pd.DataFrame(block, columns=[f"c{i}" for i in range(block.shape[1])])
    for i in range(min(n_int, block.shape[1])):
        frame[f"c{i}"] = np.arange(len(frame), dtype=np.int64) * (i - 1)
    _same_as_pandas(tmp_path_factory.mktemp("t"), frame)


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint8])
def test_masks_and_small_integers_match_pandas(tmp_path: Path, dtype: type) -> None:
    rng = np.random.default_rng(0)
    for values in (rng.integers(0, 2, (50, 7)), rng.integers(0, 10, (3, 2)),
                   rng.integers(0, 12, (20, 3))):  # 10 and 11 leave the one-digit path
        _same_as_pandas(tmp_path, pd.DataFrame(values.astype(dtype), columns=list("abcdefg")[
            :values.shape[1]]))


def test_awkward_floats_text_and_indexes_match_pandas(tmp_path: Path) -> None:
    frame = pd.DataFrame({"x": AWKWARD, "k": range(len(AWKWARD)),
                          "text": ["a,b", 'say "hi"', "line\nbreak", "plain"] * 4})
    _same_as_pandas(tmp_path, frame)
    adjacency = pd.DataFrame(np.eye(3, dtype=np.int64), index=["u", "v,w", "z"],
                             columns=["u", "v,w", "z"])
    _same_as_pandas(tmp_path, adjacency, index=True)
    _same_as_pandas(tmp_path, pd.DataFrame(columns=["source", "target", "reason"]))


def test_only_formula_like_text_differs_from_pandas(tmp_path: Path) -> None:
    frame = pd.DataFrame({"reason": ["=HYPERLINK(\"x\")", "+1", "-1", "@SUM(A1)", "fine"]})
    write_csv(tmp_path / "t.csv", frame)
    lines = (tmp_path / "t.csv").read_text().splitlines()
    assert lines == ["reason", '"\'=HYPERLINK(""x"")"', "'+1", "'-1", "'@SUM(A1)", "fine"]
    assert neutralise("fine") == "fine"
