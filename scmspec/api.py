"""Python entry points: load a card, compile it, rebuild one from spec.json."""

from __future__ import annotations

import builtins
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scmspec.compiler.load import SourceMap
from scmspec.compiler.pipeline import compile_card, parse_card, parse_card_text
from scmspec.compiler.spec import Card
from scmspec.compiler.validate import validate
from scmspec.errors import Diagnostic, SchemaError, Span
from scmspec.samplers.scm import SCM

SPEC_FORMAT = "scmspec.spec/1"


@dataclass(frozen=True)
class LoadedCard:
    """A validated card and where it came from."""

    card: Card
    source: SourceMap

    @property
    def id(self) -> str:
        return self.card.id

    def compile(self) -> SCM:
        compiled = compile_card(self.card, self.source)
        return SCM(compiled, compiled.plan)


def load(path: str | Path) -> LoadedCard:
    """Read and validate a card (raises :class:`~scmspec.errors.CardError` with locations).

    A synthetic factor card (``synthetic:``, no variables) comes back materialised.
    """
    from scmspec.synthetic.materialize import materialize

    card, smap = parse_card(path)
    return LoadedCard(materialize(card, smap), smap)


def compile(card: LoadedCard | Card | Mapping[str, Any],  # noqa: A001 - the natural name
            name: str = "<card>") -> SCM:
    """Compile a loaded card, a Card model or a plain dict into an executable SCM.

    A dict is checked by the same card language as a YAML file (a mistake raises
    :class:`~scmspec.errors.SchemaError` naming the field path, with ``name`` as the file),
    but nothing is written out and parsed back: a library building SCMs in a loop pays only
    for validation, resolution and lowering. The SCM samples exactly what the same card
    written as YAML does.

    Example:
        >>> scm = compile({"id": "two", "title": "t", "family": "semantic", "domain": "d",
        ...     "variables": {"a": {"meaning": "m", "distribution": {"kind": "normal"}},
        ...                   "b": {"meaning": "m", "equation": "2 * a",
        ...                         "noise": {"kind": "normal", "sd": 0.1}}},
        ...     "edges": [{"from": "a", "to": "b", "reason": "r"}]})
        >>> list(scm.sample(3, seed=0).columns)
        ['a', 'b']
    """
    from scmspec.synthetic.materialize import materialize

    if isinstance(card, Mapping):
        smap = SourceMap(name)
        card = LoadedCard(materialize(validate(dict(card), smap), smap), smap)
    elif isinstance(card, Card):
        card = LoadedCard(materialize(card), SourceMap(f"<{card.id}>"))
    return card.compile()


def compile_file(path: str | Path) -> SCM:
    """Load and compile a card file in one step."""
    return load(path).compile()


def compile_text(text: str, name: str = "<card>") -> SCM:
    """Compile card text; diagnostics name ``name`` as the file."""
    card, smap = parse_card_text(text, name)
    return LoadedCard(card, smap).compile()


def load_spec(path: str | Path) -> SCM:
    """Rebuild the executable SCM from a compiled ``spec.json`` alone (no YAML)."""
    doc: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    if doc.get("format") != SPEC_FORMAT:
        raise SchemaError([Diagnostic("SCM202", f"{path} is not a {SPEC_FORMAT} document",
                                      Span(str(path), 1, 1), "pass a spec.json from compile")])
    card_json = doc["card"]
    # spec.json is written with sorted keys; restore the card's variable order (data columns).
    order = doc.get("resolved", {}).get("variables")
    if order and set(order) == set(card_json.get("variables", {})):
        card_json = {**card_json, "variables": {v: card_json["variables"][v] for v in order}}
    if card_json.get("let"):  # a let may use the lets written before it: restore an order
        card_json = {**card_json, "let": _lets_in_use_order(card_json["let"])}
    card = Card.model_validate(card_json)
    return compile(card)


def _lets_in_use_order(lets: dict[str, Any]) -> dict[str, Any]:
    """The lets of a sorted-keys ``spec.json`` with each after the lets it names (the card
    was written that way; any such order substitutes to the same expressions). A cycle
    keeps the given order, so resolve reports it as for a card.

    Example:
        >>> list(_lets_in_use_order({"a": {"equation": "b * 2"}, "b": {"equation": "x"}}))
        ['b', 'a']
    """
    import graphlib
    import re

    uses = {name: sorted(set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", str(spec.get("equation", ""))))
                         & (set(lets) - {name})) for name, spec in lets.items()}
    try:
        order = list(graphlib.TopologicalSorter(uses).static_order())
    except graphlib.CycleError:
        return lets
    return {name: lets[name] for name in order}


def spec_document(scm: SCM, protocol: dict[str, Any] | None = None) -> dict[str, Any]:
    """The fully resolved specification written as ``spec.json``."""
    from scmspec.version import __version__

    compiled = scm.compiled
    card_json = compiled.card.model_dump(mode="json", by_alias=True, exclude_none=True)
    if protocol:
        card_json["protocol"] = {**card_json.get("protocol", {}), **protocol}
    return {
        "format": SPEC_FORMAT,
        "scmspec_version": __version__,
        "card": card_json,
        "resolved": {
            "order": builtins.list(compiled.resolved.order),
            "variables": builtins.list(compiled.card.variables),  # card order = column order
            "parents": {k: builtins.list(v) for k, v in compiled.resolved.parents.items()},
            "observed": builtins.list(scm.plan.columns),
            "targets": builtins.list(scm.plan.targets),
            "steps": {s.name: s.text for s in scm.plan.steps},
            "constants": {k: {"value": c.value, "unit": c.unit}
                          for k, c in compiled.card.constants.items()},
            # only when check_units inserted a factor, so other cards' specs keep their bytes
            **({"unit_conversions": {k: [c.as_json() for c in v] for k, v in
                                     compiled.resolved.unit_conversions.items()}}
               if compiled.resolved.unit_conversions else {}),
        },
    }
