"""Load test of ``scmspec serve``: N requests from C concurrent clients on loopback.

The server runs in its own process (``python -m scmspec serve``, a compiled antenna-trap
card, a budget no client exhausts). Each client thread holds one keep-alive connection,
starts its own episode and sends its share of the requests, alternating
``observe {"n": ROWS}`` and ``intervene {"design": {"antenna_def": x}, "n": ROWS}``. Every
response must be 200 with ROWS units drawn; any other outcome is counted as an error and
makes the script exit 1. Reported: wall time, throughput (requests/s), latency p50 / p99 /
max, and, as the reference measured in the same run, the same queries sent to an
in-process :class:`scmspec.Environment` from one thread (no HTTP, no JSON): the ratio says
what the HTTP layer costs.

    python bench/bench_environment.py                       # 2,000 requests, 8 clients
    python bench/bench_environment.py --requests 400 --clients 4 --rows 50
"""

from __future__ import annotations

import argparse
import http.client
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

import scmspec
from scmspec.api import spec_document
from scmspec.textio import write_json

CARD = Path(__file__).resolve().parents[1] / "cards" / "causalgame" / "drone_antenna_trap.yaml"
CONFIG = {"budget": {"rows": 1e12, "queries": 1_000_000}}


def body(i: int, rows: int) -> tuple[str, dict]:
    if i % 2 == 0:
        return "observe", {"n": rows}
    return "intervene", {"design": {"antenna_def": float(i % 51)}, "n": rows}


def client(port: int, count: int, rows: int, latencies: list[float], errors: list[str]) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("POST", "/episodes", body=b"{}", headers={"Content-Type": "application/json"})
    token = json.loads(conn.getresponse().read())["token"]
    for i in range(count):
        kind, payload = body(i, rows)
        data = json.dumps(payload).encode()
        start = time.perf_counter()
        conn.request("POST", f"/episodes/{token}/{kind}", body=data,
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        text = response.read()
        latencies.append(time.perf_counter() - start)
        if response.status != 200 or json.loads(text).get("drawn") != rows:
            errors.append(f"{response.status}: {text[:200]!r}")
    conn.close()


def serve(folder: Path, config: Path) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen([sys.executable, "-m", "scmspec", "serve", str(folder), "--port",
                             "0", "--config", str(config), "--logs", str(folder / "logs")],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()  # "serving ID on http://127.0.0.1:PORT ..."
    return proc, int(line.split("127.0.0.1:")[1].split()[0])


def reference(folder: Path, requests: int, rows: int) -> float:
    env = scmspec.Environment.open(folder, config=CONFIG, seed=0)
    start = time.perf_counter()
    for i in range(requests):
        kind, payload = body(i, rows)
        if kind == "observe":
            env.observe(rows)
        else:
            env.intervene(payload["design"], rows)
    return requests / (time.perf_counter() - start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rows", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "antenna"
        folder.mkdir()
        write_json(folder / "spec.json", spec_document(scmspec.compile_file(CARD)))
        write_json(Path(tmp) / "config.json", CONFIG)
        proc, port = serve(folder, Path(tmp) / "config.json")
        try:
            latencies: list[float] = []
            errors: list[str] = []
            share = [args.requests // args.clients + (c < args.requests % args.clients)
                     for c in range(args.clients)]
            threads = [threading.Thread(target=client, args=(port, k, args.rows, latencies,
                                                             errors)) for k in share]
            start = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - start
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        ref = reference(folder, min(args.requests, 500), args.rows)
    lat = np.array(latencies) * 1000
    rate = len(latencies) / wall
    print("| requests | clients | rows/query | errors | wall s | req/s | p50 ms | p99 ms | "
          "max ms | in-process req/s (1 thread) | HTTP / in-process |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print(f"| {len(latencies)} | {args.clients} | {args.rows} | {len(errors)} | {wall:.2f} | "
          f"{rate:.0f} | {np.percentile(lat, 50):.1f} | {np.percentile(lat, 99):.1f} | "
          f"{lat.max():.1f} | {ref:.0f} | {rate / ref:.2f} |")
    for e in errors[:5]:
        print("error:", e)
    return 1 if errors or len(latencies) != args.requests else 0


if __name__ == "__main__":
    raise SystemExit(main())
