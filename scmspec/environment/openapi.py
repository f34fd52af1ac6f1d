"""The OpenAPI 3.1 description of ``scmspec serve`` (served at ``GET /openapi.json``)."""

from __future__ import annotations

from typing import Any

from scmspec.version import __version__

ERRORS = {
    "400": "malformed_json, malformed_request, missing_field",
    "403": "budget_exhausted: the query would exceed the row or query budget",
    "404": "not_found (route), unknown_episode (token)",
    "405": "method_not_allowed",
    "409": "episode_finished: the episode already ended",
    "411": "length_required: chunked bodies are refused",
    "413": "request_too_large: the body exceeds 64 KiB",
    "422": "unknown_target, out_of_range, invalid_request (a bad n, design, handler or graph)",
    "503": "too_many_episodes",
}
_ERROR = {"type": "object", "required": ["error", "message"],
          "properties": {"error": {"type": "string"}, "message": {"type": "string"},
                         "hint": {"type": "string"}}}
_TABLE = {"type": "object", "properties": {
    "columns": {"type": "array", "items": {"type": "string"}},
    "rows": {"type": "array", "items": {"type": "array"}},
    "query": {"type": "integer"}, "drawn": {"type": "integer", "description": "units drawn"},
    "returned": {"type": "integer", "description": "rows that passed selection"},
    "budget": {"type": "object"}}}
_N = {"type": "integer", "minimum": 1, "description": "units to draw"}
_DESIGN = {"type": "object", "description": "target -> number, level name, or handler object",
           "additionalProperties": {"oneOf": [{"type": "number"}, {"type": "string"},
                                              {"type": "object"}]}}
_TOKEN = [{"name": "token", "in": "path", "required": True, "schema": {"type": "string"}}]


def _op(summary: str, body: dict[str, Any] | None, ok: dict[str, Any], path_token: bool = True
        ) -> dict[str, Any]:
    op: dict[str, Any] = {"summary": summary, "responses": {
        "200": {"description": "ok", "content": {"application/json": {"schema": ok}}},
        **{code: {"description": text, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Error"}}}} for code, text in ERRORS.items()},
    }}
    if path_token:
        op["parameters"] = _TOKEN
    if body is not None:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
    return op


def _obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "required": list(props), "properties": props}


def openapi() -> dict[str, Any]:
    """The document (docs/environment.md explains each operation)."""
    token = "/episodes/{token}"
    return {
        "openapi": "3.1.0",
        "info": {"title": "scmspec experiment environment", "version": __version__,
                 "description": "A sealed SCM queried under a budget (docs/environment.md)."},
        "paths": {
            "/episodes": {"post": _op("start an episode", None, _obj(
                token={"type": "string"}, episode={"type": "object"}), False)},
            token: {"get": _op("describe the episode", None, {"type": "object"}),
                    "delete": _op("end it without a submission (truncated)", None,
                                  {"type": "object"})},
            f"{token}/observe": {"post": _op("draw units without intervention", _obj(n=_N),
                                             _TABLE)},
            f"{token}/intervene": {"post": _op("draw units under a design",
                                               _obj(design=_DESIGN, n=_N), _TABLE)},
            f"{token}/submit/graph": {"post": _op("end with a graph; its scores", _obj(
                adjacency={"type": "array", "items": {"type": "array"}}), {"type": "object"})},
            f"{token}/submit/design": {"post": _op("end with a design; its value and regret",
                                                   _obj(design=_DESIGN), {"type": "object"})},
            "/openapi.json": {"get": {"summary": "this document", "responses": {
                "200": {"description": "ok"}}}},
        },
        "components": {"schemas": {"Error": _ERROR}},
    }
