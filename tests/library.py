"""The shipped library for tests: every card, and a stratified sample for the developer loop.

Tests that check something of every shipped card take ``card_params()``: the first card of
each family and domain folder (or, for checks the domain does not change, of each family)
runs in the developer loop (``-m "not slow"``), the rest are marked ``slow`` and run in the
full suite (the README's test command and CI). So the
developer loop stays flat as the library grows to hundreds of cards, and nothing is skipped
where it matters.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scmspec.build.discover import discover

ROOT = Path(__file__).resolve().parents[1]
CARDS = ROOT / "cards"
CARD_FILES: list[Path] = sorted(f.path for f in discover([CARDS])) if CARDS.is_dir() else []


def stratified(files: list[Path]) -> list[Path]:
    """The first card (sorted) of each folder holding cards, so every family and domain."""
    first: dict[Path, Path] = {}
    for path in sorted(files):
        first.setdefault(path.parent, path)
    return sorted(first.values())


SAMPLE: list[Path] = stratified(CARD_FILES)


def by_family(files: list[Path]) -> list[Path]:
    """The first card (sorted) under each family folder (``cards/<family>/``)."""
    first: dict[str, Path] = {}
    for path in sorted(files):
        first.setdefault(path.relative_to(CARDS).parts[0], path)
    return sorted(first.values())


FAMILY_SAMPLE: list[Path] = by_family(CARD_FILES)


def card_params(files: list[Path] | None = None, fast: list[Path] | None = None
                ) -> list[object]:
    """``pytest.param`` per card, id = its path under the repository, ``slow`` unless in
    ``fast`` (default ``SAMPLE``; ``FAMILY_SAMPLE`` for checks that do not depend on the
    domain, such as rendering or parsing, and cost a second a card)."""
    chosen = CARD_FILES if files is None else files
    quick = SAMPLE if fast is None else fast
    return [pytest.param(p, id=p.relative_to(ROOT).as_posix(),
                         marks=() if p in quick else (pytest.mark.slow,)) for p in chosen]
