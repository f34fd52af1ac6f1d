"""Cards survive JSON and pickle round trips (dbt's ``builds(...)`` symmetry test).

``spec.json`` is written with ``model_dump(mode="json", by_alias=True)`` and read
back with ``model_validate``; both must give back an equal
Card, and the YAML text of a card must load to the same Card as its data.
"""

from __future__ import annotations

import json
import pickle
from typing import Any

import yaml
from hypothesis import given

from scmspec.compiler.pipeline import parse_card_text
from scmspec.compiler.spec import Card
from tests.properties.strategies import SETTINGS, dag_cards


@SETTINGS
@given(dag_cards())
def test_json_round_trip(data: dict[str, Any]) -> None:
    card = Card.model_validate(data)
    dumped = card.model_dump(mode="json", by_alias=True)
    again = Card.model_validate(json.loads(json.dumps(dumped, allow_nan=False)))
    assert again == card
    assert again.model_dump(mode="json", by_alias=True) == dumped
    # exclude_none (what spec.json writes) must not lose anything either
    slim = card.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert Card.model_validate(slim) == card


@SETTINGS
@given(dag_cards())
def test_pickle_round_trip(data: dict[str, Any]) -> None:
    card = Card.model_validate(data)
    again = pickle.loads(pickle.dumps(card))
    assert again == card and again.model_dump() == card.model_dump()


@SETTINGS
@given(dag_cards())
def test_yaml_text_round_trip(data: dict[str, Any]) -> None:
    text = yaml.safe_dump(data, sort_keys=False)
    card, smap = parse_card_text(text, "rt.yaml")
    assert card == Card.model_validate(data)
    for name in data["variables"]:
        span = smap.nearest(("variables", name))
        assert span is not None and smap.lines[span.line - 1].strip().startswith(f"{name}:")
