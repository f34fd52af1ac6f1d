"""Byte-stable text files: JSON and CSV written the same on every machine.

Ground level (imports nothing of scmspec): the build writes datasets with these, and
families write their extras (a CPDAG) with them too. JSON keys are sorted and
non-finite floats refused; CSV uses ``\n`` line ends and pandas' shortest round-trip
float text, and free-text cells are neutralised for spreadsheets.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pandas as pd


def write_json(path: Path, doc: Any) -> None:
    path.write_text(json.dumps(doc, indent=2, sort_keys=True, allow_nan=False) + "\n",
                    encoding="utf-8")


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def neutralise(text: str) -> str:
    """Quote a text cell a spreadsheet would run as a formula (OWASP CSV injection).

    Example:
        >>> neutralise("=1+2"), neutralise("-x"), neutralise("plain reason")
        ("'=1+2", "'-x", 'plain reason')
    """
    return "'" + text if text.startswith(_FORMULA_START) else text


def write_csv(path: Path, frame: pd.DataFrame, index: bool = False) -> None:
    """Write a table; free-text cells are neutralised for spreadsheets (docs/data-layout.md)."""
    text_columns = [c for c in frame.columns
                    if frame[c].dtype == object or pd.api.types.is_string_dtype(frame[c].dtype)]
    if text_columns:
        frame = frame.copy()
        for c in text_columns:
            frame[c] = [neutralise(v) if isinstance(v, str) else v for v in frame[c]]
    frame.to_csv(path, index=index, lineterminator="\n")


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


