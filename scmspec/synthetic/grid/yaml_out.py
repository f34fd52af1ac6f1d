"""Cards as YAML text: the frozen files ``scmspec synth`` writes.

The text is a pure function of the card (keys in model order, fixed float formatting),
so re-expanding a grid with the same seed writes byte-identical files.
"""

from __future__ import annotations

from typing import Any

import yaml

from scmspec.compiler.spec import Card


class _Dumper(yaml.SafeDumper):
    """Block style for mappings, flow style for short lists of scalars."""


def _list(dumper: yaml.SafeDumper, data: list[Any]) -> yaml.Node:
    flow = all(not isinstance(x, (dict, list)) for x in data) and len(data) <= 64
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


_Dumper.add_representer(list, _list)


def card_yaml(card: Card) -> str:
    """The card as YAML, without empty or null fields.

    Example:
        >>> from scmspec.compiler.spec import Card
        >>> text = card_yaml(Card.model_validate({"id": "a", "title": "t", "family": "semantic",
        ...     "domain": "d", "variables": {"x": {"meaning": "m", "distribution":
        ...     {"kind": "normal"}}}}))
        >>> text.splitlines()[:2]
        ['scmspec: 1', 'id: a']
    """
    data = card.model_dump(mode="json", by_alias=True, exclude_none=True)
    data = {k: v for k, v in data.items() if v not in ({}, [], "")}
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
