"""Stage 2, validate: plain data -> :class:`~scmspec.compiler.spec.Card`.

Takes the loaded value and its SourceMap; hands on a frozen Card. Every
pydantic error becomes a located diagnostic with the field path, a message
that says what was expected, and a hint (closest known field or kind).
Invariant established: the card matches the card language schema.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from scmspec.compiler.load import Loc, SourceMap
from scmspec.compiler.spec import Card
from scmspec.errors import Diagnostic, DiagnosticBag, SchemaError
from scmspec.limits import current_limits


def validate(data: Any, smap: SourceMap) -> Card:
    """Check loaded card data against the card language.

    Example:
        >>> from scmspec.compiler.load import load_text
        >>> data, smap = load_text("id: x\\ntitle: t\\nfamily: semantic\\ndomain: d\\n"
        ...                        "variables: {a: {meaning: m, distribution: {kind: normal}}}",
        ...                        "c.yaml")
        >>> validate(data, smap).variables["a"].distribution.kind
        'normal'
    """
    _check_size(data, smap)
    try:
        return Card.model_validate(data)
    except ValidationError as exc:
        raise SchemaError(schema_diagnostics(exc, data, smap)) from None


def schema_diagnostics(exc: ValidationError, data: Any, smap: SourceMap,
                       top: str = "<card>") -> list[Diagnostic]:
    """One located SCM201 per pydantic error: the field path, what is wrong, how to fix it.

    Public for other documents written in the card language's style (grid cards).
    """
    bag = DiagnosticBag()
    for err in _without_union_echoes(exc.errors()):
        loc = _data_loc(data, err["loc"])
        path = _path_text(loc)
        message, hint = _explain(err, path, _kind_in(err["loc"]))
        span = smap.keys.get(loc) if err["type"] == "extra_forbidden" else None
        if err["type"] == "union_tag_invalid":
            span = smap.spans.get(loc + ("kind",))
        bag.add("SCM201", message, span or smap.nearest(loc), hint, path or top)
    return bag.items


def _without_union_echoes(errors: list[Any]) -> list[Any]:
    """Drop "must be a string" when the same value already failed as a number.

    A field typed ``float | str`` (a do() value: a number or a level) reports a bad
    number twice, once per branch; the string branch adds nothing (``.nan`` is not a
    level name either).
    """
    numeric = {tuple(e["loc"][:-1]) for e in errors if e["loc"] and e["loc"][-1] == "float"}
    return [e for e in errors if not (e["type"] == "string_type" and e["loc"]
                                      and e["loc"][-1] == "str"
                                      and tuple(e["loc"][:-1]) in numeric)]


def _check_size(data: Any, smap: SourceMap) -> None:
    """Refuse a card with too many variables before building one pydantic model per variable."""
    variables = data.get("variables") if isinstance(data, dict) else None
    limit = current_limits().variables
    if isinstance(variables, dict) and len(variables) > limit:
        raise SchemaError([Diagnostic(
            "SCM203", f"{len(variables)} variables exceed the limit of {limit}",
            smap.nearest(("variables",)), "split the card, or raise SCMSPEC_MAX_VARIABLES "
            "(docs/limits.md)", "variables")])


def export_schema() -> str:
    """The JSON Schema of the card language, as committed in ``docs/card.schema.json``."""
    schema = Card.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://scmspec.dev/card.schema.json"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def write_schema(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(export_schema(), encoding="utf-8")


def _data_loc(data: Any, loc: tuple[Any, ...]) -> Loc:
    """Drop loc segments that are not real keys (pydantic's union tags, '[key]' markers)."""
    out: list[str | int] = []
    node = data
    for seg in loc:
        if isinstance(node, dict) and seg in node:
            out.append(seg)
            node = node[seg]
        elif isinstance(node, list) and isinstance(seg, int) and 0 <= seg < len(node):
            out.append(seg)
            node = node[seg]
        elif isinstance(node, dict) and isinstance(seg, str) and not out[-1:] == [seg]:
            # a missing or unknown field: keep it for the message, the span falls back
            if seg not in _union_tags():
                out.append(seg)
                node = None
    return tuple(out)


def _path_text(loc: Loc) -> str:
    text = ""
    for seg in loc:
        text += f"[{seg}]" if isinstance(seg, int) else (f".{seg}" if text else str(seg))
    return text


def _kind_in(raw_loc: tuple[Any, ...]) -> tuple[str, str] | None:
    """The innermost union tag (a distribution/noise/handler kind) in pydantic's location."""
    _known_fields()
    pairs = [(raw_loc[i - 1], raw_loc[i]) for i in range(1, len(raw_loc) - 1)]
    tags = [p for p in pairs if p in _TAG_FIELDS]
    return tags[-1] if tags else None


def _explain(err: Any, path: str,
             kind_tag: tuple[str, str] | None = None) -> tuple[str, str | None]:
    kind, msg, ctx = err["type"], err["msg"], err.get("ctx", {})
    field = path.rsplit(".", 1)[-1] if path else "card"
    if kind == "missing":
        return f"missing required field {field!r}", f"add `{field}:` here"
    if kind == "extra_forbidden":
        if field[:1].isdigit() or any(c in field for c in "()*+/ "):
            # e.g. '0)' from `{equation: clip(x, 0)}`: a fragment of an expression
            return (f"unknown field {field!r}", "inside { } a comma separates fields, so this "
                    "looks like an equation cut at its comma: quote the equation or write it "
                    "on its own line")
        if kind_tag is not None:  # a field of another kind: say which fields this kind has
            own = [f for f in _TAG_FIELDS[kind_tag] if f != "kind"]
            # A field other kinds have (scale on a gamma) is not a typo: list, do not guess.
            typo = field not in _known_fields()
            guess = difflib.get_close_matches(field, own, n=1) if typo else []
            listed = ", ".join(own) or "none besides kind"
            tag = kind_tag[1]
            return (f"unknown field {field!r} for kind {tag!r}",
                    (f"did you mean {guess[0]!r}? " if guess else "") + f"{kind_tag[0]} kind "
                    f"{tag!r} takes: {listed} (docs/card-language.md)")
        if field in _known_fields():  # a real field in the wrong place: no self-suggestion
            return (f"unknown field {field!r} here", f"{field!r} is a field of another part of "
                    "a card; see docs/card-language.md for the fields this part takes")
        guess = difflib.get_close_matches(field, _known_fields(), n=1)
        return (f"unknown field {field!r}",
                f"did you mean {guess[0]!r}?" if guess else "remove it; see docs/card-language.md")
    if kind == "union_tag_invalid":
        tag, expected = ctx.get("tag"), ctx.get("expected_tags", "")
        tags = [t.strip(" '") for t in str(expected).split(",")]
        guess = difflib.get_close_matches(str(tag), tags, n=1)
        return (f"unknown kind {tag!r}",
                f"did you mean {guess[0]!r}?" if guess else f"known kinds: {expected}")
    if kind == "union_tag_not_found":
        return "missing 'kind'", "add `kind: ...` naming the distribution, noise or handler"
    if kind == "string_pattern_mismatch":
        return (f"{field} {err['input']!r} is not a valid name",
                "names start with a letter and use letters, digits and _ (ids: lowercase)")
    if kind == "literal_error":
        return f"{field}: {msg.lower()}", None
    if kind in ("value_error", "assertion_error"):
        return f"{path or 'card'}: {msg.removeprefix('Value error, ')}", None
    msg = msg.replace("Input should be", "must be").replace("List should", "the list should")
    return f"{path or 'card'}: {msg}, got {err.get('input')!r}"[:300], None


_FIELDS: list[str] = []
_TAGS: set[str] = set()
# (field holding the union, kind) -> that model's field names, e.g. ("noise", "normal")
_TAG_FIELDS: dict[tuple[str, str], list[str]] = {}


def _walk_models(model: type[BaseModel], seen: set[type]) -> None:
    import typing

    if model in seen:
        return
    seen.add(model)
    for name, info in model.model_fields.items():
        _FIELDS.append(info.alias or name)
        stack = [info.annotation]
        while stack:
            t = stack.pop()
            if isinstance(t, type) and issubclass(t, BaseModel):
                _walk_models(t, seen)
                kind = t.model_fields.get("kind")
                if kind is not None and kind.default:
                    _TAGS.add(kind.default)
                    _TAG_FIELDS.setdefault((info.alias or name, kind.default), [
                        f.alias or n for n, f in t.model_fields.items()])
            stack.extend(typing.get_args(t))


def _known_fields() -> list[str]:
    if not _FIELDS:
        _walk_models(Card, set())
    return _FIELDS


def _union_tags() -> set[str]:
    _known_fields()
    return _TAGS
