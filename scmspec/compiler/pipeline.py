"""The compiler pipeline, written out: load -> validate -> resolve -> check_units -> lower."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scmspec.compiler.load import SourceMap, load, load_text
from scmspec.compiler.lower import lower
from scmspec.compiler.noise_units import check_noise_units
from scmspec.compiler.plan import Plan
from scmspec.compiler.resolve import ResolvedCard, resolve
from scmspec.compiler.spec import Card
from scmspec.compiler.units import check_units
from scmspec.compiler.validate import validate
from scmspec.limits import pinned_limits


@dataclass(frozen=True)
class CompiledCard:
    """Everything the compiler knows about one card."""

    card: Card
    source: SourceMap
    resolved: ResolvedCard
    plan: Plan


def parse_card(path: Path | str) -> tuple[Card, SourceMap]:
    """Stages 1-2: read and validate a card file."""
    with pinned_limits():
        raw, smap = load(path)
        return validate(raw, smap), smap


def parse_card_text(text: str | bytes, name: str = "<card>") -> tuple[Card, SourceMap]:
    with pinned_limits():
        raw, smap = load_text(text, name)
        return validate(raw, smap), smap


def compile_card(card: Card, smap: SourceMap | None = None) -> CompiledCard:
    """Stages 3-5 on a validated card."""
    smap = smap or SourceMap(f"<{card.id}>")
    with pinned_limits():  # the environment's overrides, read once per card
        resolved = resolve(card, smap)
        resolved = check_units(resolved, smap)
        resolved = check_noise_units(resolved, smap)
        return CompiledCard(card, smap, resolved, lower(resolved, smap))
