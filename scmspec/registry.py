"""Registries of kinds: adding a kind is one self-describing entry, never an if-chain.

Each family (root distributions, noise, intervention handlers, equation functions,
gates) keeps one :class:`Registry`. An entry is registered under the same string as
the ``kind`` literal of its spec model, refuses duplicates (as pint does) and
suggests the closest name on a miss (as sqlglot does).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from scmspec.errors import Diagnostic, Span, UnknownKindError

T = TypeVar("T")


class Registry(Generic[T]):
    """A name -> entry mapping that refuses duplicates.

    Example:
        >>> r: Registry[int] = Registry("demo")
        >>> _ = r.add("one", 1)
        >>> r.lookup("one")
        1
        >>> sorted(r)
        ['one']
    """

    def __init__(self, family: str) -> None:
        self.family = family
        self._entries: dict[str, T] = {}

    def add(self, kind: str, entry: T) -> T:
        if kind in self._entries:
            raise ValueError(f"{self.family} kind {kind!r} registered twice")
        self._entries[kind] = entry
        return entry

    def register(self, kind: str) -> Callable[[T], T]:
        """Decorator form of :meth:`add`."""

        def add(entry: T) -> T:
            return self.add(kind, entry)

        return add

    def lookup(self, kind: str, span: Span | None = None) -> T:
        if kind not in self._entries:
            guess = difflib.get_close_matches(kind, list(self._entries), n=1)
            hint = f"did you mean {guess[0]!r}?" if guess else f"known: {', '.join(sorted(self))}"
            raise UnknownKindError(
                [Diagnostic("SCM310", f"unknown {self.family} kind {kind!r}", span, hint)]
            )
        return self._entries[kind]

    def __contains__(self, kind: object) -> bool:
        return kind in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def items(self) -> list[tuple[str, T]]:
        return list(self._entries.items())
