"""Build + sample through the Python API, against a plain-numpy reference and sempler.

Run from the repository root::

    python bench/bench_build.py            # the issue-16 tasks, then d = 10,000
    python bench/bench_build.py --quick    # fewer repeats, no d = 10,000 run

What a library user pays to get data from a model described in code: scmspec builds the card
as a dict and calls ``scmspec.compile(card)`` (no YAML), then ``numpy_sampler.sample``
(obs) or ``sample`` with targets (800 + 200 rows with a single-target ``do``). The plain-numpy
reference builds its parent and weight arrays (``reference_build``) and runs one topological
pass (``reference_sample``); sempler, where installed, builds ``LGANM`` and samples (one call
per target group for the do task); gCastle, where installed, runs ``IIDSimulation`` (linear,
gauss; no do task). Process CPU time, BLAS on one thread, median of ``--repeats``
interleaved runs; ratios are contender / reference. Every scmspec build compiles a new card
(weights moved in the 9th digit, see ``variants``) with the lowering caches cleared, as in a
loop over new SCMs. "YAML d=50 build" is ``compile_text`` on a new card's YAML, parse to
plan. "SCM.sample" is sampling alone through the user API (a pandas DataFrame), against
the reference's sampling alone.

The d = 10,000 row (linear-Gaussian, expected degree 3, n = 10,000): one build and one
sample in a fresh process, with its peak RSS.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).parent))

import numpy as np  # noqa: E402
import yaml  # noqa: E402
from bench_sampler import (  # noqa: E402
    Graph,
    card_text,
    make_graph,
    reference_build,
    reference_sample,
)

import scmspec  # noqa: E402
from scmspec.compiler import lower as lower_module  # noqa: E402
from scmspec.samplers import numpy_sampler  # noqa: E402
from scmspec.samplers.streams import Streams  # noqa: E402


def card_dict(g: Graph, do: bool = False) -> dict[str, Any]:
    card: dict[str, Any] = yaml.safe_load(card_text(g, f"build_d{g.d}"))
    if do:
        for v in card["variables"].values():
            v["intervention"]["handler"] = {"kind": "do", "value": 1.0}
    return card


def _clear_caches() -> None:
    lower_module.lambdify_expression.cache_clear()
    lower_module.canonical.cache_clear()


def variants(g: Graph, k: int) -> list[Graph]:
    """``k`` copies of ``g`` whose weights differ in the 9th digit: a new model per build (no
    sympy number, expression or lambdify cache can serve a repeat), the same arithmetic
    for every contender."""
    return [replace(g, weights=tuple(np.round(w + i * 1e-9 * np.sign(w), 12)
                                     for w in g.weights)) for i in range(k)]


def scmspec_task(g: Graph, n: int, do: bool = False) -> Callable[[], object]:
    cards = itertools.cycle([card_dict(v, do) for v in variants(g, 64)])

    def run() -> object:
        _clear_caches()
        plan = scmspec.compile(next(cards)).plan
        if do:
            return numpy_sampler.sample(plan, n - n // 5, n // 5, Streams(0, "b", "obsint", 0))
        return numpy_sampler.sample(plan, n, 0, Streams(0, "b", "obs", 0))
    return run


def reference_task(g: Graph, n: int, do: bool = False) -> Callable[[], object]:
    edges = [(i, j) for j, pa in enumerate(g.parents) for i in pa]
    weights = {(i, j): float(w) for j, pa in enumerate(g.parents)
               for i, w in zip(pa, g.weights[j])}

    def run() -> object:
        reference_build(edges, g.d, weights)
        rng = np.random.default_rng(0)
        if not do:
            return reference_sample(g, n, rng)
        n_int = n // 5  # one target per intervened row, pinned to 1.0 as the pass goes
        target = rng.permutation(np.arange(n_int) % g.d)
        x = np.empty((n, g.d), order="F")
        for j in range(g.d):
            pa = list(g.parents[j])
            col = rng.normal(0.0, g.sds[j], n)
            if pa:
                col += x[:, pa] @ g.weights[j]
            col[n - n_int + np.flatnonzero(target == j)] = 1.0
            x[:, j] = col
        return x
    return run


def sempler_task(g: Graph, n: int, do: bool = False) -> Callable[[], object] | None:
    if importlib.util.find_spec("sempler") is None:
        return None
    import sempler

    def run() -> object:
        w = np.zeros((g.d, g.d))
        for j, pa in enumerate(g.parents):
            w[list(pa), j] = g.weights[j]
        model = sempler.LGANM(w, np.zeros(g.d), np.square(g.sds))
        if not do:
            return model.sample(n)
        n_int = n // 5
        out = [model.sample(n - n_int)]
        per = np.bincount(np.arange(n_int) % g.d, minlength=g.d)
        out += [model.sample(int(k), do_interventions={j: (1.0, 0.0)})
                for j, k in enumerate(per) if k]
        return np.vstack(out)
    return run


def cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def race(contenders: dict[str, Callable[[], object] | None], repeats: int,
         batch: int = 1) -> dict[str, float]:
    """Median CPU per call; contenders interleaved in rotating order, ``batch`` calls a
    timing (for calls too short for the process clock's resolution)."""
    live = {k: f for k, f in contenders.items() if f is not None}
    for f in live.values():
        f()  # warm-up (imports, first-call costs)
    times: dict[str, list[float]] = {k: [] for k in live}

    def many(f: Callable[[], object]) -> object:
        for _ in range(batch):
            f()
        return None
    for r in range(repeats):
        order = list(live)[r % len(live):] + list(live)[:r % len(live)]
        for k in order:
            times[k].append(cpu(lambda f=live[k]: many(f)) / batch)
    return {k: statistics.median(v) for k, v in times.items()}


def gcastle_task(g: Graph, n: int, do: bool = False) -> Callable[[], object] | None:
    """gCastle's ``IIDSimulation`` (build and sample in one call; linear-Gaussian with one
    noise scale for every node, so its arithmetic is close to, not the same as, the others')."""
    if do or importlib.util.find_spec("castle") is None:
        return None
    try:
        from castle.datasets import IIDSimulation
    except Exception:  # noqa: BLE001 - a peer that does not import is not installed here
        return None
    w = np.zeros((g.d, g.d))
    for j, pa in enumerate(g.parents):
        w[list(pa), j] = g.weights[j]

    def run() -> object:
        np.random.seed(0)
        return IIDSimulation(W=w, n=n, method="linear", sem_type="gauss").X
    return run


def yaml_build(g: Graph, repeats: int) -> float:
    """Median CPU of ``compile_text`` on YAML text, parse to plan, a new card each time."""
    texts = [card_text(v, f"yaml_d{g.d}") for v in variants(g, repeats + 1)]
    _clear_caches()
    scmspec.compile_text(texts[0])  # warm-up: imports, first-call costs

    def run(text: str) -> object:
        _clear_caches()
        return scmspec.compile_text(text)
    return statistics.median(cpu(lambda t=t: run(t)) for t in texts[1:])


def scm_sample_ratio(g: Graph, n: int, repeats: int) -> tuple[float, float]:
    """(reference ms, SCM.sample / reference) at n rows, sampling only."""
    scm = scmspec.compile(card_dict(g))
    rng = np.random.default_rng(0)
    got = race({"ref": lambda: reference_sample(g, n, rng),
                "SCM.sample": lambda: scm.sample(n, seed=1)}, repeats, batch=20)
    return got["ref"] * 1e3, got["SCM.sample"] / got["ref"]


def big(d: int, n: int) -> str:
    code = (
        "import resource, sys, time\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from bench_build import card_dict, make_graph\n"
        "import scmspec\n"
        "from scmspec.samplers import numpy_sampler\n"
        "from scmspec.samplers.streams import Streams\n"
        f"card = card_dict(make_graph({d}))\n"
        "t0 = time.process_time()\n"
        "plan = scmspec.compile(card).plan\n"
        "t1 = time.process_time()\n"
        f"numpy_sampler.sample(plan, {n}, 0, Streams(0, 'b', 'obs', 0))\n"
        "t2 = time.process_time()\n"
        "rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
        "print(f'build {t1 - t0:.1f} s + sample {t2 - t1:.1f} s = {t2 - t0:.1f} CPU-s, "
        "peak RSS {rss:.0f} MB')\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=9)
    args = ap.parse_args()
    repeats = 3 if args.quick else args.repeats
    tasks = [("linear-Gaussian d=50, n=1,000", make_graph(50), 1000, False),
             ("linear-Gaussian d=100, n=1,000", make_graph(100), 1000, False),
             ("d=50, 800 + 200 with do", make_graph(50), 1000, True),
             ("linear-Gaussian d=20, n=1e6", make_graph(20), 1_000_000, False)]
    print("| task | ref (ms) | scmspec | sempler | gCastle |")
    print("|---|---|---|---|---|")
    for title, g, n, do in tasks:
        got = race({"ref": reference_task(g, n, do), "scmspec": scmspec_task(g, n, do),
                    "sempler": sempler_task(g, n, do), "gCastle": gcastle_task(g, n, do)},
                   3 if n >= 1e6 else repeats)
        ref = got["ref"]
        peers = " | ".join(f"{got[p] / ref:.2f}x" if p in got else
                           ("not installed" if p == "sempler" or not do else "no do task")
                           for p in ("sempler", "gCastle"))
        print(f"| {title} | {ref * 1e3:.1f} | {got['scmspec'] / ref:.2f}x | {peers} |",
              flush=True)
    build_ms = yaml_build(make_graph(50), max(repeats, 9)) * 1e3
    print(f"\nYAML card, d=50: build (parse to plan) {build_ms:.1f} ms of CPU (median, a new "
          "card each build)")
    for d in (50, 100):
        ref_ms, ratio = scm_sample_ratio(make_graph(d), 1000, max(repeats, 9))
        print(f"SCM.sample d={d}, n=1,000: {ratio:.2f}x the numpy loop ({ref_ms:.2f} ms)")
    if not args.quick:
        print(f"d=10,000 linear, n=10,000: {big(10_000, 10_000)}")


if __name__ == "__main__":
    main()
