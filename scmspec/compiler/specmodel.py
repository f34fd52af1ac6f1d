"""The base of every card model: frozen, strict about unknown fields.

Kept apart so that kind modules and ``spec.py`` share it without importing
each other.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class SpecModel(BaseModel):
    """Frozen pydantic model that rejects unknown fields (typos in cards are errors)."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)
