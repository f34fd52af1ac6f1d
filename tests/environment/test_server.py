"""``scmspec serve`` on a loopback port, driven by a plain HTTP client (the standard library).

A short episode (describe, observe, intervene, submit), then every refusal: each status code
the server documents, each a JSON error without a traceback, and nothing of the truth in any
response.
"""

from __future__ import annotations

import http.client
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scmspec.environment import server as server_module
from scmspec.environment.config import EnvironmentConfig
from scmspec.environment.log import read_log
from scmspec.environment.server import MAX_BODY, EnvironmentService, make_server
from scmspec.environment.source import open_scm

SECRETS = ("weather_u", "is_storm", "survived", "drag_load", "storm_cutoff", "equation",
           "indicator(", "reason", "\"from\"", "Traceback", "File \"")
RESPONSES: list[str] = []


@pytest.fixture()
def base(games: dict[str, Path], tmp_path: Path) -> Iterator[str]:
    scm, spec_hash = open_scm(games["drone_antenna_trap"])
    config = EnvironmentConfig.from_json({"budget": {"rows": 1000, "queries": 5}})
    service = EnvironmentService(scm, spec_hash, config, tmp_path / "logs", seed=0)
    httpd = make_server(service, 0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
    service.close()


def call(base: str, method: str, path: str, body: Any = None, raw: bytes | None = None
         ) -> tuple[int, dict[str, Any]]:
    data = raw if raw is not None else None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, text = response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        status, text = exc.code, exc.read().decode()
    RESPONSES.append(text)
    return status, json.loads(text)


def test_a_short_episode_over_http(base: str, tmp_path: Path) -> None:
    status, started = call(base, "POST", "/episodes")
    assert status == 201
    token, described = started["token"], started["episode"]
    assert [t["name"] for t in described["targets"]] == ["antenna_def", "camera_def", "body_def"]
    status, table = call(base, "POST", f"/episodes/{token}/observe", {"n": 100})
    assert status == 200 and table["drawn"] == 100 and len(table["rows"]) == table["returned"]
    assert table["columns"][0] == "wind_speed" and table["budget"]["rows_spent"] == 100
    status, table = call(base, "POST", f"/episodes/{token}/intervene",
                         {"design": {"antenna_def": 0}, "n": 200})
    column = table["columns"].index("antenna_def")
    assert status == 200 and {r[column] for r in table["rows"]} == {0.0}
    assert call(base, "GET", f"/episodes/{token}")[1]["budget"]["queries_used"] == 2
    status, scores = call(base, "POST", f"/episodes/{token}/submit/graph",
                          {"adjacency": [[0] * 12 for _ in range(12)]})
    assert status == 200 and scores["pred_edges"] == 0 and scores["recall"] == 0.0
    assert call(base, "GET", "/openapi.json")[1]["openapi"].startswith("3.")
    (log,) = (tmp_path / "logs").iterdir()
    events = read_log(log)
    assert [e["event"] for e in events] == ["start", "query", "query", "submit", "end"]


def test_every_refusal_has_its_code_and_no_traceback(base: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    token = call(base, "POST", "/episodes")[1]["token"]
    ep = f"/episodes/{token}"
    cases = [
        (400, "malformed_json", call(base, "POST", f"{ep}/observe", raw=b"{n: 1")),
        (400, "malformed_json", call(base, "POST", f"{ep}/observe", raw=b"[1]")),
        (400, "missing_field", call(base, "POST", f"{ep}/intervene", {"n": 5})),
        (404, "not_found", call(base, "GET", "/nowhere")),
        (404, "unknown_episode", call(base, "POST", "/episodes/nope/observe", {"n": 1})),
        (405, "method_not_allowed", call(base, "PUT", ep, {})),
        (413, "request_too_large", call(base, "POST", f"{ep}/observe",
                                        raw=b" " * (MAX_BODY + 1))),
        (422, "unknown_target", call(base, "POST", f"{ep}/intervene",
                                     {"design": {"antena_def": 1}, "n": 5})),
        (422, "out_of_range", call(base, "POST", f"{ep}/intervene",
                                   {"design": {"antenna_def": 99}, "n": 5})),
        (422, "invalid_request", call(base, "POST", f"{ep}/observe", {"n": -3})),
        (422, "invalid_request", call(base, "POST", f"{ep}/submit/graph", {"adjacency": [[1]]})),
    ]
    assert call(base, "POST", f"{ep}/observe", {"n": 900})[0] == 200
    cases.append((403, "budget_exhausted", call(base, "POST", f"{ep}/observe", {"n": 101})))
    assert call(base, "DELETE", ep)[1] == {"status": "truncated"}
    cases.append((409, "episode_finished", call(base, "POST", f"{ep}/observe", {"n": 1})))
    monkeypatch.setattr(server_module, "MAX_OPEN_EPISODES", 0)
    cases.append((503, "too_many_episodes", call(base, "POST", "/episodes")))
    for expected_status, expected_code, (status, body) in cases:
        assert (status, body["error"]) == (expected_status, expected_code), body
        assert body["message"] and "Traceback" not in json.dumps(body)


def test_chunked_and_malformed_requests_are_refused(base: str) -> None:
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.putrequest("POST", "/episodes")
    conn.putheader("Transfer-Encoding", "chunked")
    conn.endheaders()
    conn.send(b"2\r\n{}\r\n0\r\n\r\n")
    response = conn.getresponse()
    assert response.status == 411 and json.loads(response.read())["error"] == "length_required"
    conn.close()
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.putrequest("POST", "/episodes", skip_accept_encoding=True)
    conn.putheader("Content-Length", "ten")
    conn.endheaders()
    response = conn.getresponse()
    assert response.status == 400 and json.loads(response.read())["error"] == "malformed_request"
    conn.close()


def test_no_response_holds_the_truth() -> None:
    assert RESPONSES, "run with the tests above"
    for text in RESPONSES:
        for secret in SECRETS:
            assert secret not in text, (secret, text[:200])


def test_ended_episodes_are_forgotten_beyond_a_bound(games: dict[str, Path],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    scm, spec_hash = open_scm(games["drone_antenna_trap"])
    service = EnvironmentService(scm, spec_hash, EnvironmentConfig(), None, seed=0)
    monkeypatch.setattr(server_module, "KEEP_ENDED", 2)
    tokens = [service.start()[1]["token"] for _ in range(4)]
    for token in tokens:
        service.episode(token).close()
    service.start()
    assert [t in service.episodes for t in tokens] == [False, False, True, True]


def test_http_errors_survive_pickling() -> None:
    import pickle

    error = server_module.HttpError(413, "request_too_large", "too big", "smaller")
    again = pickle.loads(pickle.dumps(error))
    assert (again.status, again.code, str(again)) == (413, "request_too_large",
                                                      "too big (smaller)")


def test_a_bug_is_a_500_without_detail(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from scmspec.environment.episode import Episode

    token = call(base, "POST", "/episodes")[1]["token"]

    def broken(self: Episode) -> dict[str, Any]:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(Episode, "describe", broken)
    status, body = call(base, "GET", f"/episodes/{token}")
    assert status == 500 and body["error"] == "internal_error"
    assert "secret internals" not in json.dumps(body) and "Traceback" not in json.dumps(body)
