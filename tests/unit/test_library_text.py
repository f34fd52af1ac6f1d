"""Anti-template checks over the shipped semantic and formula cards.

Two ways a library grows by copying instead of by writing scenarios:

* slot-filled text: a meaning, reason or description of one card reappears in another with
  only a noun or two swapped ("more breaks keep the crews busy" -> "more claims keep the
  examiners busy"). Each text is normalised (lower case, words only, the words of the
  card's own variable and constant names replaced by a slot mark ``_``, since those are
  the slots a template fills) and two texts of different cards are flagged when their word
  sequences have the same length and differ in at most two positions. A text needs
  ``MIN_CONTENT`` words that are neither slots nor function words to count: a large card's
  names cover most of its nouns, and two texts reduced to "of the ... at the end of the"
  are not a template;
* a reused graph: two cards whose observed DAGs (what ``graph/adjacency.csv`` holds) are
  isomorphic up to renaming.

The cards are read as YAML (no compilation), so the checks stay fast and hold for any number
of cards added to ``cards/semantic`` and ``cards/formula``.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = ("semantic", "formula")
# Shorter texts ("a longer queue", "GIS asset register") repeat legitimately across domains.
MIN_WORDS = 7
MIN_CONTENT = 4
MAX_SWAPPED = 2
SLOT = "_"
FUNCTION_WORDS = frozenset(
    "a an the of in on at to for from by with and or but not no per as is are be was were "
    "its it this that these those than then each every one two more less most least when "
    "while which who whose what where how into onto over under up down out off s".split())
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Text:
    card: str
    where: str
    words: tuple[str, ...]
    raw: str


def _card_files() -> list[Path]:
    files: list[Path] = []
    for family in FAMILIES:
        files += sorted((ROOT / "cards" / family).rglob("*.yaml"))
    return files


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: 20x the pure parser


def _load(path: Path) -> dict[str, Any] | None:
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)  # noqa: S506 - safe
    if not isinstance(data, dict) or not isinstance(data.get("variables"), dict):
        return None  # a grid or factor file: no hand-written text to compare
    return data


@cache
def _cards() -> dict[Path, dict[str, Any]]:
    """Every hand-written card's data, read when a test first asks (not at collection)."""
    return {p: d for p in _card_files() if (d := _load(p)) is not None}


def _slots(card: dict[str, Any]) -> set[str]:
    """The words of the card's variable and constant names: what a template would swap."""
    names = list(card.get("variables", {})) + list(card.get("constants") or {})
    return {w for n in names for w in n.lower().split("_") if len(w) > 2}


def normalise(text: str, slots: set[str]) -> tuple[str, ...]:
    """Lower-case words of ``text``, each slot word replaced by ``SLOT``.

    Example:
        >>> normalise("More breaks keep the crews busy!", {"breaks"})
        ('more', '_', 'keep', 'the', 'crews', 'busy')
    """
    return tuple(SLOT if w in slots else w for w in _WORD.findall(text.lower()))


def content(words: tuple[str, ...]) -> int:
    """How many words are neither slots nor function words.

    Example:
        >>> content(('more', '_', 'keep', 'the', 'crews', 'busy'))
        3
    """
    return sum(w != SLOT and w not in FUNCTION_WORDS for w in words)


def _texts(path: Path, card: dict[str, Any]) -> Iterator[Text]:
    cid = str(card.get("id", path.stem))
    slots = _slots(card)

    def make(where: str, raw: Any) -> Text | None:
        if not isinstance(raw, str):
            return None
        return Text(cid, where, normalise(raw, slots), raw)

    found = [make("description", card.get("description"))]
    for name, var in card["variables"].items():
        if not isinstance(var, dict):
            continue
        for key in ("meaning", "story", "boundary"):
            found.append(make(f"variables.{name}.{key}", var.get(key)))
        inter = var.get("intervention")
        if isinstance(inter, dict):
            found.append(make(f"variables.{name}.intervention.meaning", inter.get("meaning")))
    for edge in card.get("edges") or []:
        if isinstance(edge, dict):
            found.append(make(f"edge {edge.get('from')} -> {edge.get('to')}", edge.get("reason")))
    yield from (t for t in found
                if t is not None and len(t.words) >= MIN_WORDS and content(t.words) >= MIN_CONTENT)


def swapped(a: tuple[str, ...], b: tuple[str, ...]) -> int | None:
    """How many positions two equally long word sequences differ in (None if lengths differ).

    Example:
        >>> swapped(("a", "long", "queue", "waits"), ("a", "long", "backlog", "waits"))
        1
    """
    if len(a) != len(b):
        return None
    return sum(x != y for x, y in zip(a, b, strict=True))


def near_repeats(texts: list[Text]) -> list[tuple[Text, Text, int]]:
    """Pairs of texts of different cards that differ in at most MAX_SWAPPED word positions.

    Texts are bucketed by length and by each third of their words: two sequences that
    differ in at most two positions leave at least one third untouched, so they share a
    bucket; only texts sharing a bucket are compared.
    """
    buckets: dict[tuple[int, int, tuple[str, ...]], list[Text]] = defaultdict(list)
    for t in texts:
        n = len(t.words)
        third = n // 3
        for k, part in enumerate((t.words[:third], t.words[third:2 * third], t.words[2 * third:])):
            buckets[(n, k, part)].append(t)
    seen: set[tuple[str, str, str, str]] = set()
    out: list[tuple[Text, Text, int]] = []
    for group in buckets.values():
        for a, b in itertools.combinations(group, 2):
            if a.card == b.card:
                continue
            key = (a.card, a.where, b.card, b.where)
            if key in seen:
                continue
            seen.add(key)
            d = swapped(a.words, b.words)
            if d is not None and d <= MAX_SWAPPED:
                out.append((a, b, d))
    return out


def observed_dag(card: dict[str, Any]) -> nx.DiGraph:
    """The DAG over observed variables (the subgraph ``graph/adjacency.csv`` holds)."""
    observed = {n for n, v in card["variables"].items()
                if not (isinstance(v, dict) and v.get("observed") is False)}
    g = nx.DiGraph()
    g.add_nodes_from(observed)
    g.add_edges_from((e["from"], e["to"]) for e in card.get("edges") or []
                     if e.get("from") in observed and e.get("to") in observed)
    return g


def _signature(g: nx.DiGraph) -> tuple[int, int, tuple[tuple[int, int], ...]]:
    return (g.number_of_nodes(), g.number_of_edges(),
            tuple(sorted((g.in_degree(n), g.out_degree(n)) for n in g)))


def test_library_is_present() -> None:
    assert len(_cards()) >= 20


def test_no_text_repeats_across_cards_with_a_noun_swapped() -> None:
    texts = [t for path, card in _cards().items() for t in _texts(path, card)]
    repeats = near_repeats(texts)
    lines = [f"{a.card}:{a.where} ~ {b.card}:{b.where} ({d} word(s) differ):\n"
             f"    {a.raw!r}\n    {b.raw!r}" for a, b, d in repeats]
    assert not repeats, "slot-filled text across cards:\n" + "\n".join(lines)


def test_no_two_cards_share_a_support_topology() -> None:
    by_signature: dict[tuple[Any, ...], list[tuple[str, nx.DiGraph]]] = defaultdict(list)
    for path, card in _cards().items():
        g = observed_dag(card)
        by_signature[_signature(g)].append((str(card.get("id", path.stem)), g))
    clashes = [(a, b) for group in by_signature.values()
               for (a, ga), (b, gb) in itertools.combinations(group, 2)
               if nx.is_isomorphic(ga, gb)]
    assert not clashes, f"cards with isomorphic observed DAGs: {clashes}"


@pytest.mark.parametrize(("a", "b", "expected"), [
    ("More breaks keep the repair crews busy and the queue long",
     "More claims keep the repair crews busy and the queue long", True),
    ("More breaks keep the repair crews busy and the queue long",
     "More claims keep the review examiners busy and the backlog long", False),
    ("a pressure loss triggers a precautionary advisory for the zone",
     "a frost night triggers a precautionary advisory for the zone", True),
])
def test_the_detector_flags_noun_swaps_only(a: str, b: str, expected: bool) -> None:
    ta = Text("one", "x", normalise(a, set()), a)
    tb = Text("two", "y", normalise(b, set()), b)
    assert bool(near_repeats([ta, tb])) is expected


def test_the_detector_ignores_slot_words_and_isomorphism_catches_renamed_graphs() -> None:
    slots_a, slots_b = {"breaks"}, {"claims"}
    ta = Text("one", "x", normalise("the breaks grow when crews are short of hands", slots_a), "")
    tb = Text("two", "y", normalise("the claims grow when crews are short of hands", slots_b), "")
    assert near_repeats([ta, tb])  # identical once each card's own nouns are removed
    g1 = nx.DiGraph([("a", "b"), ("b", "c"), ("a", "c")])
    g2 = nx.DiGraph([("x", "z"), ("z", "y"), ("x", "y")])
    assert _signature(g1) == _signature(g2) and nx.is_isomorphic(g1, g2)
