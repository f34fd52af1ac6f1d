"""Python entry points for the tests.

Used as ``--method tests/benchmark/methods/python_methods.py:NAME``.
"""

import numpy as np
import pandas as pd


def chain(data, mask, meta):
    """A labelled DataFrame (rows in reverse order on purpose): column i -> column i+1."""
    cols = list(data.columns)
    frame = pd.DataFrame(0, index=cols, columns=cols)
    for a, b in zip(cols, cols[1:]):
        frame.loc[a, b] = 1
    return frame.iloc[::-1]


def boom(data, mask, meta):
    raise RuntimeError(f"no luck on {meta['id']}")


def wrong_shape(data, mask, meta):
    return np.zeros((2, 2))


def words(data, mask, meta):
    return [["a", "b"], ["c", "d"]]


def crash(data, mask, meta):
    import os

    os._exit(3)  # dies without a word: the parent must still record the row
