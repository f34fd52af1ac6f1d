"""The base of every card model: frozen, strict about unknown fields.

Kept apart so that kind modules and ``spec.py`` share it without importing
each other.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class SpecModel(BaseModel):
    """Frozen pydantic model that rejects unknown fields (typos in cards are errors).

    Floats must be finite: YAML spells NaN and infinity ``.nan`` and ``.inf``, and no
    card parameter means anything as either; letting one through would fail much later
    (a NaN column, or spec.json refusing to serialise it) far from the line that did it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True,
                              allow_inf_nan=False)
