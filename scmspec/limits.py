"""Size limits for untrusted cards, in one documented, configurable place.

Cards come from people we do not know. Every size that could exhaust memory or
time is bounded here; ``docs/limits.md`` lists them. Override at run time with
environment variables ``SCMSPEC_MAX_<NAME>`` (e.g. ``SCMSPEC_MAX_ROWS=50000000``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Limits:
    """Upper bounds applied while loading, resolving and sampling a card."""

    card_bytes: int = 5_000_000  # size of one card file
    yaml_nodes: int = 200_000  # YAML nodes after alias expansion (billion-laughs guard)
    yaml_depth: int = 64  # nesting of YAML collections
    yaml_bytes: int = 20_000_000  # characters of scalars after alias expansion
    number_chars: int = 100  # characters of one number written in YAML
    variables: int = 10_000  # variables in one card (d)
    expression_chars: int = 10_000  # characters in one equation
    expression_depth: int = 100  # nesting of an equation's syntax tree
    exponent: float = 1_000.0  # |literal exponent| in an equation
    expression_nodes: int = 20_000  # nodes of one equation once its lets are substituted
    draw_count: int = 1_000_000_000  # binomial n and poisson rate of an in-equation draw
    rows: int = 10_000_000  # rows in one split (n)
    replicates: int = 1_000  # replicates per card
    cells: int = 2_000_000_000  # rows x variables in one sampling pass
    memory: int = 8_000_000_000  # estimated bytes to sample and gate one card (all replicates)
    grid_cards: int = 100_000  # configurations one grid card may expand into


_PINNED: ContextVar[Limits | None] = ContextVar("scmspec_limits", default=None)


@contextmanager
def pinned_limits() -> Iterator[Limits]:
    """Read the limits once for a block of work (one card's compile): inside it,
    :func:`current_limits` returns them without reading the environment again (reading
    sixteen variables is about 25 us, and a compile asks once per equation).

    Example:
        >>> with pinned_limits() as limits:
        ...     current_limits() is limits
        True
    """
    pinned = _PINNED.get()
    if pinned is not None:  # nested: the outer block's reading stands
        yield pinned
        return
    token = _PINNED.set(_read_limits())
    try:
        yield _PINNED.get()  # type: ignore[misc]
    finally:
        _PINNED.reset(token)


def current_limits() -> Limits:
    """Limits with any ``SCMSPEC_MAX_*`` environment overrides applied.

    Example:
        >>> current_limits().rows >= 1000
        True
    """
    pinned = _PINNED.get()
    return pinned if pinned is not None else _read_limits()


def _read_limits() -> Limits:
    overrides: dict[str, float | int] = {}
    for f in fields(Limits):
        raw = os.environ.get(f"SCMSPEC_MAX_{f.name.upper()}")
        if raw is not None:
            overrides[f.name] = float(raw) if f.type == "float" else int(raw)
    return Limits(**overrides)  # type: ignore[arg-type]
