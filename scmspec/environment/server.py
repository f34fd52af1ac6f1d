"""``scmspec serve``: episodes over HTTP/JSON on localhost (the standard library's server).

One :class:`~scmspec.environment.episode.Episode` per token; the SCM, budgets and logs stay
in the server process. Routes (the OpenAPI document at ``GET /openapi.json`` is the
reference):

    POST   /episodes                      start an episode -> token, description
    GET    /episodes/{token}              description, budget, status
    POST   /episodes/{token}/observe      {"n": 500}
    POST   /episodes/{token}/intervene    {"design": {"antenna_def": 0}, "n": 500}
    POST   /episodes/{token}/submit/graph {"adjacency": [[0, 1], [0, 0]], "variables": [...]}
    POST   /episodes/{token}/submit/design {"design": {"antenna_def": 0}}
    DELETE /episodes/{token}              end without a submission (truncated)

Every refusal is JSON ``{"error": code, "message": ..., "hint": ...}`` with a 4xx status and
no traceback; a bug is a 500 with no detail (the traceback goes to the server's stderr).
Request bodies are bounded (``MAX_BODY`` bytes), and so are responses: a query returns at
most ``max_rows_per_query`` rows.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import secrets
import sys
import threading
import traceback
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from scmspec.environment.config import EnvironmentConfig, EnvironmentError
from scmspec.environment.episode import SEED_LIMIT, Episode
from scmspec.environment.openapi import openapi
from scmspec.samplers.scm import SCM

MAX_BODY = 64 * 1024
MAX_OPEN_EPISODES = 256
KEEP_ENDED = 4096  # ended episodes remembered (bounded memory)
SERVER_ROWS = 10_000  # rows per query over HTTP unless the config asks for fewer
Reply = tuple[int, dict[str, Any]]


class HttpError(EnvironmentError):
    """A refusal of the HTTP layer (route, method, body), with its own status."""

    def __init__(self, status: int, code: str, message: str, hint: str | None = None) -> None:
        super().__init__(message, hint)
        self.status, self.code = status, code

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.status, self.code, self.message, self.hint))


class EnvironmentService:
    """The episodes of one served SCM; thread-safe."""

    def __init__(self, scm: SCM, spec_sha256: str, config: EnvironmentConfig,
                 logs: Path | None = None, seed: int | None = None) -> None:
        if config.budget.max_rows_per_query > SERVER_ROWS:  # bounded responses over HTTP
            doc = config.to_json()
            config = EnvironmentConfig.from_json(
                {**doc, "budget": {**doc["budget"], "max_rows_per_query": SERVER_ROWS}})
        self.scm, self.spec_sha256, self.config = scm, spec_sha256, config
        self.logs, self.seed = logs, seed
        self.episodes: dict[str, Episode] = {}
        self.started = 0
        self.lock = threading.Lock()

    def start(self) -> Reply:
        with self.lock:
            if sum(e.status == "open" for e in self.episodes.values()) >= MAX_OPEN_EPISODES:
                raise HttpError(503, "too_many_episodes", f"{MAX_OPEN_EPISODES} episodes are "
                                "open", "finish or DELETE an episode first")
            self._forget_finished()
            number, self.started = self.started, self.started + 1
            token = secrets.token_urlsafe(24)
            log = None if self.logs is None else \
                self.logs / f"episode-{number:05d}-{secrets.token_hex(3)}.jsonl"
            episode = Episode(self.scm, self.spec_sha256, self.config, self._seed(number), log)
            self.episodes[token] = episode
        return 201, {"token": token, "episode": episode.describe()}

    def _forget_finished(self) -> None:
        """Keep at most KEEP_ENDED ended episodes (their tokens answer 409, later 404)."""
        ended = [t for t, e in self.episodes.items() if e.status != "open"]
        for token in ended[:max(0, len(ended) - KEEP_ENDED)]:  # oldest first (dict order)
            del self.episodes[token]

    def _seed(self, number: int) -> int | None:
        if self.seed is None:
            return None  # fresh from the operating system
        digest = hashlib.blake2b(f"scmspec-serve|{self.seed}|{number}".encode(), digest_size=8)
        return int.from_bytes(digest.digest(), "little") % SEED_LIMIT

    def episode(self, token: str) -> Episode:
        episode = self.episodes.get(token)
        if episode is None:
            raise HttpError(404, "unknown_episode", "no episode has this token",
                            "POST /episodes to start one")
        return episode

    def close(self) -> None:
        for episode in self.episodes.values():
            episode.close("the server stopped")


def _table(frame: pd.DataFrame, arrays: dict[str, np.ndarray], episode: Episode
           ) -> dict[str, Any]:
    columns = [_plain(a) for a in arrays.values()]
    return {"columns": list(arrays), "rows": [list(r) for r in zip(*columns)] if len(frame)
            else [], **frame.attrs, "budget": episode.budget_status()}


def _plain(values: np.ndarray) -> list[Any]:
    """Python numbers (exact: float repr round-trips), non-finite values as null."""
    out: list[Any] = values.tolist()
    if values.dtype.kind == "f" and not np.isfinite(values).all():
        out = [v if math.isfinite(v) else None for v in out]
    return out


def _field(body: dict[str, Any], name: str) -> Any:
    if name not in body:
        raise HttpError(400, "missing_field", f"the request body has no {name!r}")
    return body[name]


# method, path pattern, handler(service, token, body) -> reply
ROUTES: list[tuple[str, re.Pattern[str], Callable[[EnvironmentService, str, Any], Reply]]] = [
    ("POST", re.compile(r"/episodes"), lambda s, t, b: s.start()),
    ("GET", re.compile(r"/episodes/(?P<t>[\w-]+)"),
     lambda s, t, b: (200, s.episode(t).describe())),
    ("POST", re.compile(r"/episodes/(?P<t>[\w-]+)/observe"),
     lambda s, t, b: _query(s.episode(t), "observe", b, None)),
    ("POST", re.compile(r"/episodes/(?P<t>[\w-]+)/intervene"),
     lambda s, t, b: _query(s.episode(t), "intervene", b, _field(b, "design"))),
    ("POST", re.compile(r"/episodes/(?P<t>[\w-]+)/submit/graph"),
     lambda s, t, b: _locked(s.episode(t), lambda e: e.submit_graph(
         _field(b, "adjacency"), b.get("variables")))),
    ("POST", re.compile(r"/episodes/(?P<t>[\w-]+)/submit/design"),
     lambda s, t, b: _locked(s.episode(t), lambda e: e.submit_design(_field(b, "design")))),
    ("DELETE", re.compile(r"/episodes/(?P<t>[\w-]+)"),
     lambda s, t, b: _locked(s.episode(t), _end)),
]


def _end(episode: Episode) -> dict[str, Any]:
    episode.close("ended by the agent")
    return {"status": episode.status}


def _query(episode: Episode, kind: str, body: dict[str, Any], design: Any) -> Reply:
    n = _field(body, "n")
    with episode.lock:
        return 200, _table(*episode.query(kind, n, design), episode)


def _locked(episode: Episode, run: Callable[[Episode], dict[str, Any]]) -> Reply:
    with episode.lock:
        return 200, run(episode)


class Handler(BaseHTTPRequestHandler):
    """JSON in, JSON out; every failure a JSON error."""

    protocol_version = "HTTP/1.1"
    server_version = "scmspec-serve"
    sys_version = ""
    service: EnvironmentService  # set on the subclass make_server builds

    def do_GET(self) -> None:  # noqa: N802 - the standard library's names
        self._dispatch("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch("POST")

    def do_DELETE(self) -> None:  # noqa: N802
        self._dispatch("DELETE")

    def do_PUT(self) -> None:  # noqa: N802
        self._dispatch("PUT")

    def do_PATCH(self) -> None:  # noqa: N802
        self._dispatch("PATCH")

    def _dispatch(self, method: str) -> None:
        try:
            status, payload = self._route(method)
        except EnvironmentError as exc:
            status, payload = exc.status, exc.payload()
        except Exception:  # a bug: no detail to the client, the traceback to our stderr
            traceback.print_exc(file=sys.stderr)
            status, payload = 500, {"error": "internal_error", "message": "the server failed "
                                    "on this request (a bug in scmspec)"}
        self._send(status, payload)

    def _route(self, method: str) -> Reply:
        path = self.path.split("?", 1)[0].rstrip("/") or "/"
        if method == "GET" and path == "/openapi.json":
            return 200, openapi()
        matched = [(m, p.fullmatch(path), f) for m, p, f in ROUTES if p.fullmatch(path)]
        for route_method, match, run in matched:
            if route_method == method:
                body = self._body() if method == "POST" else {}
                return run(self.service, (match.groupdict() if match else {}).get("t", ""), body)
        if matched:
            raise HttpError(405, "method_not_allowed", f"{method} is not allowed on {path}",
                            f"use {', '.join(sorted({m for m, _, _ in matched}))}")
        raise HttpError(404, "not_found", f"no route {path}", "see GET /openapi.json")

    def _body(self) -> dict[str, Any]:
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            raise HttpError(411, "length_required", "send a Content-Length, not chunked bodies")
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            self.close_connection = True
            raise HttpError(400, "malformed_request", "Content-Length is not a number") from None
        if length > MAX_BODY or length < 0:
            self.close_connection = True  # the body is never read
            raise HttpError(413, "request_too_large", f"the body has {length} bytes; the limit "
                            f"is {MAX_BODY}", "send smaller requests")
        raw = self.rfile.read(length) if length else b"{}"
        try:
            body = json.loads(raw)
        except ValueError as exc:
            raise HttpError(400, "malformed_json", f"the body is not JSON ({exc})",
                            "send a JSON object") from None
        if not isinstance(body, dict):
            raise HttpError(400, "malformed_json", "the body is not a JSON object")
        return body

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload, allow_nan=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None
                   ) -> None:
        """The standard library's own refusals (bad request line, long headers) as JSON."""
        self.close_connection = True
        try:
            self._send(code, {"error": "malformed_request", "message": message or "bad request"})
        except OSError:
            pass

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # quiet: the episode logs are the record


def make_server(service: EnvironmentService, port: int, host: str = "127.0.0.1"
                ) -> ThreadingHTTPServer:
    """A threading HTTP server bound to host:port (port 0: any free port)."""
    handler = type("BoundHandler", (Handler,), {"service": service})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server
