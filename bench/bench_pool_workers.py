"""Pool benchmark with workers: who does the work, the parent process or its workers.

Run from the repository root (the scmspec it runs is the one `python -m scmspec` finds)::

    python bench/bench_pool_workers.py                       # 100 configurations, 2 workers
    python bench/bench_pool_workers.py --workers 2 --select 'd=10,graph=chain|tree'

It runs ``scmspec compile cards/synthetic/causalarena.grid.yaml --select SLICE --workers N
--replicates 1`` in a fresh process and samples the CPU time of that process and of every
process below it (its workers) from ``/proc`` every ``--tick`` seconds. It prints the wall
time, the CPU time of the parent and of the workers, the parent's share of the CPU, and the
wall time during which the parent worked alone (ticks where the parent used CPU and no worker
did): that is the serial part which ``--workers`` cannot shorten; and the parent's peak
resident memory (``VmHWM``). Linux only (``/proc``).
CPU time is robust to other jobs on a shared machine; wall time is not.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SLICE = "d=10,graph=erdos_renyi|scale_free|chain|tree|layered"  # 5 x 20 = 100 configurations
TICKS = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def _peak_rss(pid: int) -> float:
    """The process's peak resident memory so far, MB (0 when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return out


def _tree(root: int) -> list[int]:
    seen, todo = [], [root]
    while todo:
        pid = todo.pop()
        seen.append(pid)
        todo += _children(pid)
    return seen


def measure(args: argparse.Namespace, out: Path) -> dict[str, float]:
    cmd = [sys.executable, "-m", "scmspec", "compile", str(args.grid), "--select", args.select,
           "--replicates", str(args.replicates), "--workers", str(args.workers), "--out",
           str(out), *(["--no-gates"] if args.no_gates else [])]
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    last: dict[int, float] = {}
    alone = peak = 0.0
    while proc.poll() is None:
        peak = max(peak, _peak_rss(proc.pid))
        before = dict(last)
        for pid in _tree(proc.pid):
            cpu = _cpu(pid)
            if cpu is not None:
                last[pid] = cpu
        parent = last.get(proc.pid, 0.0) - before.get(proc.pid, 0.0)
        others = sum(v - before.get(k, 0.0) for k, v in last.items() if k != proc.pid)
        if parent > 0 and others == 0:
            alone += args.tick
        time.sleep(args.tick)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(proc.stderr.read().decode() if proc.stderr else "compile failed")
    parent = last.get(proc.pid, 0.0)
    workers = sum(v for k, v in last.items() if k != proc.pid)
    return {"wall": wall, "parent": parent, "workers": workers, "alone": alone, "peak": peak}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grid", type=Path, default=Path("cards/synthetic/causalarena.grid.yaml"))
    ap.add_argument("--select", default=SLICE)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--replicates", type=int, default=1)
    ap.add_argument("--no-gates", action="store_true")
    ap.add_argument("--tick", type=float, default=0.1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        m = measure(args, Path(tmp) / "data")
    total = m["parent"] + m["workers"]
    print(f"workers={args.workers} select={args.select!r} replicates={args.replicates}")
    print(f"wall {m['wall']:.1f} s | CPU {total:.1f} s (parent {m['parent']:.1f} s = "
          f"{m['parent'] / max(total, 1e-9):.0%}, workers {m['workers']:.1f} s) | "
          f"parent alone {m['alone']:.1f} s wall = {m['alone'] / m['wall']:.0%} of the wall | "
          f"parent peak RSS {m['peak']:.0f} MB")


if __name__ == "__main__":
    main()
