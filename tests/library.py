"""The shipped library for tests: every card, and stratified samples of it.

Tests that check something of every shipped card take ``card_params()``. Three tiers keep
each run's cost flat as the library grows to hundreds of cards while every card stays
covered somewhere:

* the developer loop (``-m "not slow"``) runs ``SAMPLE``, the first card of each family
  and domain folder (or ``FAMILY_SAMPLE``, one card per family, for checks the domain does
  not change, such as rendering or parsing);
* the full suite (the README's test command and CI) adds ``WIDE_SAMPLE``: about a quarter of
  the cards, chosen by a hash of each card's path, so a card's membership never changes when
  others are added;
* ``--whole-library`` (tests/conftest.py) runs the rest: every card, by hand before a
  release. Without it those tests are deselected, and pytest's summary counts them.

The release itself is not sampled: tests/cli/test_shipped_cards.py compiles every card.
"""

from __future__ import annotations

import hashlib
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


WIDE_SHARE = 4  # one card in WIDE_SHARE by path hash, besides SAMPLE


def _in_wide_share(path: Path) -> bool:
    rel = path.relative_to(ROOT).as_posix().encode()
    return hashlib.blake2b(rel, digest_size=8).digest()[0] % WIDE_SHARE == 0


WIDE_SAMPLE: list[Path] = sorted(set(SAMPLE) | {p for p in CARD_FILES if _in_wide_share(p)})


def card_params(files: list[Path] | None = None, fast: list[Path] | None = None
                ) -> list[object]:
    """``pytest.param`` per card, id = its path under the repository: no mark in ``fast``
    (default ``SAMPLE``; ``FAMILY_SAMPLE`` for checks that do not depend on the domain,
    such as rendering or parsing), ``slow`` in ``WIDE_SAMPLE``, ``slow`` and
    ``whole_library`` for the rest."""
    chosen = CARD_FILES if files is None else files
    quick = SAMPLE if fast is None else fast
    wide = set(WIDE_SAMPLE) | set(quick)

    def marks(p: Path) -> tuple[pytest.MarkDecorator, ...]:
        if p in quick:
            return ()
        return (pytest.mark.slow,) if p in wide else (pytest.mark.slow,
                                                      pytest.mark.whole_library)

    return [pytest.param(p, id=p.relative_to(ROOT).as_posix(), marks=marks(p))
            for p in chosen]
