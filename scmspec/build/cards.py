"""Stage 0-2 of a build: the cards of a run, each with its result record.

:class:`CardResult` is what happens to one card file (or one configuration of a grid
card) from parsing to writing; :func:`parse_all` reads every card file once, safely
(:func:`scmspec.compiler.load.read_card`), and parses it; one file's failure, even a
bug, never stops the others. :class:`ProtocolOverrides` are the command line's
protocol flags, checked by the card's own protocol model.
"""

from __future__ import annotations

import hashlib
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from scmspec.api import LoadedCard
from scmspec.build.discover import CardFile
from scmspec.compiler.load import SourceMap, read_card
from scmspec.compiler.spec import Card, ProtocolSpec
from scmspec.errors import (
    CardError,
    Diagnostic,
    LoadError,
    Span,
    internal_error,
)
from scmspec.synthetic import build_hooks as synthetic_hooks
from scmspec.validators import (
    GateResult,
)


class OverrideError(ValueError):
    """A command-line override the card language would not accept in a card."""


@dataclass(frozen=True)
class ProtocolOverrides:
    """Command-line overrides of a card's protocol (None keeps the card's value).

    Checked by the same model as a card's ``protocol:`` on construction, so a flag can
    never ask for what a card may not (``--n-obs 0``, ``--seed -1``, ``--seed 2**64``).

    Example:
        >>> ProtocolOverrides(n_obs=0)
        Traceback (most recent call last):
        ...
        scmspec.build.cards.OverrideError: --n-obs must be greater than or equal to 1 (got 0)
    """

    seed: int | None = None
    n_obs: int | None = None
    n_int_obs: int | None = None
    n_int: int | None = None
    replicates: int | None = None

    def __post_init__(self) -> None:
        try:
            ProtocolSpec.model_validate(self.given())
        except ValidationError as exc:
            err = exc.errors()[0]
            name = str(err["loc"][0])
            raise OverrideError(f"--{name.replace('_', '-')} must be "
                                f"{_lowercase_first(err['msg'].removeprefix('Input should be '))}"
                                f" (got {self.given().get(name)!r})") from None

    def given(self) -> dict[str, int]:
        """The overrides actually given."""
        return {k: v for k, v in self.__dict__.items() if v is not None}

    def apply(self, proto: ProtocolSpec) -> ProtocolSpec:
        return ProtocolSpec.model_validate({**proto.model_dump(), **self.given()})


def _lowercase_first(text: str) -> str:
    return text[:1].lower() + text[1:]


@dataclass
class CardResult:
    """What happened to one card."""

    path: str  # as diagnostics print it (relative to the working directory)
    card_sha256: str
    id: str | None = None
    status: str = "failed"  # released | rejected (blocking gate failed) | failed
    diagnostics: list[Diagnostic] = field(default_factory=list)
    gates: list[GateResult] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    source_lines: list[str] = field(default_factory=list)
    record: str = ""  # as released files record it (relative to the folder it was found in)
    relocation: tuple[str, str] = ("", "")  # (display, record) path of the card file
    stage: str = "loading"  # what was under way, for an internal-error record
    traceback: str | None = None  # of an internal error; printed only with --debug

    def to_json(self) -> dict[str, Any]:
        """The manifest entry: card locations as recorded, never as typed on this machine."""
        return {
            "id": self.id, "card": self.record or self.path, "card_sha256": self.card_sha256,
            "status": self.status, **self.summary,
            "diagnostics": [self.relocated(d.to_json()) for d in self.diagnostics],
            "gates_failed": sorted({g.gate for g in self.gates if g.status == "fail"}),
            "gates_warned": sorted({g.gate for g in self.gates if g.status == "warn"}),
            "files": self.files,
        }

    def relocated(self, doc: dict[str, Any]) -> dict[str, Any]:
        """``doc`` with a ``location`` in this card's file named by its record path."""
        shown, recorded = self.relocation
        where = doc.get("location")
        if shown and isinstance(where, str) and where.startswith(shown + ":"):
            return {**doc, "location": recorded + where[len(shown):]}
        return doc


def parse_all(files: Sequence[CardFile | Path], select: str | None = None,
              defer: bool = False) -> tuple[list[CardResult], dict[str, LoadedCard]]:
    """Parse every card; a duplicate id fails the later card (in path order).

    A synthetic grid card holds many cards (``path#id``; ``select`` picks a slice, see
    docs/synthetic.md) and a synthetic factor card is materialised on the way. A file
    that may not be read (a link out of its folder, a FIFO, too big) fails on its own.
    With ``defer`` a grid configuration is *not* materialised: its card is the factor
    card, which a worker materialises (:func:`materialised`); a parallel build does
    this so the parent does not draw every card alone.
    """
    results: list[CardResult] = []
    loaded: dict[str, LoadedCard] = {}
    first: dict[str, str] = {}
    for file, suffix, parse, raw in _parse_steps(files, select):
        res = CardResult(file.display + suffix, hashlib.sha256(raw).hexdigest(),
                         record=file.record + suffix, relocation=(file.display, file.record))
        results.append(res)
        try:
            factor = synthetic_hooks.factor_card(parse) if defer else None
            card, smap = factor or parse()
        except CardError as exc:
            res.diagnostics = list(exc.diagnostics)
            res.source_lines = _lines(raw)
            continue
        except Exception as exc:  # noqa: BLE001 - one card's bug must not stop the others
            record_internal(res, exc)
            res.source_lines = _lines(raw)
            continue
        res.source_lines = smap.lines
        res.id = card.id
        if card.id in first:
            res.diagnostics = [Diagnostic("SCM112", f"duplicate card id {card.id!r} (also in "
                                          f"{first[card.id]})", smap.nearest(("id",)),
                                          "give each card a unique id")]
            res.id = None
            continue
        first[card.id] = res.path
        loaded[res.path] = LoadedCard(card, smap)
    return results, loaded


def materialised(loaded: LoadedCard, res: CardResult) -> LoadedCard | None:
    """``loaded`` with its factor card materialised (see ``parse_all(defer=True)``).

    A card that cannot be materialised ends as it would have in :func:`parse_all`: failed
    with its diagnostics and no id (returns None).
    """
    try:
        card = synthetic_hooks.materialise(loaded.card, loaded.source)
    except CardError as exc:
        res.diagnostics, res.id = list(exc.diagnostics), None
        return None
    except Exception as exc:  # noqa: BLE001 - one card's bug must not stop the others
        record_internal(res, exc)
        res.id = None
        return None
    return loaded if card is loaded.card else LoadedCard(card, loaded.source)


def _parse_steps(files: Sequence[CardFile | Path], select: str | None
                 ) -> Iterator[tuple[CardFile, str, Callable[[], tuple[Card, SourceMap]], bytes]]:
    for given in files:
        file = given if isinstance(given, CardFile) else CardFile(Path(given), Path(given).parent)
        try:
            raw = _read(file)
        except LoadError as exc:
            yield file, "", _raiser(exc), b""
            continue
        for suffix, parse in synthetic_hooks.parsers(file.path, raw, file.display, select):
            yield file, suffix, parse, raw


def _read(file: CardFile) -> bytes:
    if file.refusal:
        raise LoadError([Diagnostic("SCM114", file.refusal, Span(file.display, 1, 1),
                                    "copy the card into the folder instead of linking it")])
    return read_card(file.path, name=file.display)


def _raiser(exc: Exception) -> Callable[[], tuple[Card, SourceMap]]:
    """A parse step that fails with ``exc`` (a file that could not be read)."""
    def parse() -> tuple[Card, SourceMap]:
        raise exc
    return parse


def record_internal(res: CardResult, exc: BaseException) -> None:
    """Mark ``res`` failed by a bug in scmspec (SCM901); keep the traceback for --debug."""
    res.status, res.gates, res.files = "failed", [], {}
    res.diagnostics = [internal_error(exc, Span(res.path, 1, 1), res.stage)]
    res.traceback = "".join(traceback.format_exception(exc))


def _lines(raw: bytes) -> list[str]:
    return raw.decode("utf-8", errors="replace").splitlines()


