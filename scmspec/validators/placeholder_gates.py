"""The ``placeholders`` gate: unfinished text a card author left behind.

A card's prose is part of the benchmark: descriptions, meanings, edge reasons and
references are what users read. ``TODO``, ``FIXME``, ``TBD`` or ``XXX`` (whole
words, any case), or a text written as empty, is a placeholder: the gate warns once
per place, with its card location. ``scmspec validate --strict`` makes any warning
a failure. Generated (synthetic) cards are skipped: their text is generated.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from scmspec.compiler.spec import Card
from scmspec.validators.base import GATES, GateContext, GateResult, make_result
from scmspec.validators.thresholds import PLACEHOLDER_WORDS

_WORDS = re.compile(r"\b(" + "|".join(PLACEHOLDER_WORDS) + r")\b", re.IGNORECASE)
Loc = tuple[str | int, ...]


def card_texts(card: Card) -> Iterator[tuple[Loc, str, bool]]:
    """(field path, text, empty counts) for every prose field a reader sees."""
    yield ("title",), card.title, True
    yield ("description",), card.description, "description" in card.model_fields_set
    for i, ref in enumerate(card.references):
        yield ("references", i), ref, True
    for name, c in card.constants.items():
        yield ("constants", name, "meaning"), c.meaning, False
    for name, let in card.let.items():
        yield ("let", name, "meaning"), let.meaning, False
    for name, v in card.variables.items():
        yield ("variables", name, "meaning"), v.meaning, True
        if v.intervention is not None:
            yield ("variables", name, "intervention", "meaning"), v.intervention.meaning, True
        for key in ("boundary", "story", "reference", "invalid_reverse"):
            text = getattr(v, key)
            if text is not None:
                yield ("variables", name, key), text, True
    for i, e in enumerate(card.edges):
        yield ("edges", i, "reason"), e.reason, True
    if card.selection is not None:
        yield ("selection", "meaning"), card.selection.meaning, False
    for gate, just in card.justifications.items():
        if isinstance(just, str):
            yield ("justifications", gate), just, True
        else:
            for i, entry in enumerate(just):
                yield ("justifications", gate, i, "reason"), entry.reason, True


@GATES.register("placeholders")
def placeholders(ctx: GateContext) -> Iterator[GateResult]:
    """Warn at every TODO/FIXME/TBD/XXX or empty text in the card's prose."""
    card = ctx.compiled.card
    if card.family == "synthetic":
        yield make_result("placeholders", "skip", "generated card: its text is generated")
        return
    found = 0
    for loc, text, empty_counts in card_texts(card):
        hit = _WORDS.search(text)
        if hit is None and not (empty_counts and not text.strip()):
            continue
        found += 1
        field = ".".join(str(p) for p in loc)
        what = f"the placeholder {hit.group(0)!r}" if hit else "an empty text"
        yield make_result("placeholders", "warn", f"{field} holds {what}: write the real "
                          "text before release (`scmspec validate --strict` fails on this)",
                          ctx.where(*loc), tuple(p for p in loc[1:2] if isinstance(p, str)
                                                 and p in card.variables))
    if not found:
        yield make_result("placeholders", "pass", "no TODO, FIXME, TBD, XXX or empty text in "
                          "descriptions, meanings, reasons and references")
