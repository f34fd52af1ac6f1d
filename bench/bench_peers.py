"""scmspec against the samplers a user would pick instead, in one process and one run.

Run from the repository root (a few minutes; figures in bench/README.md)::

    python bench/bench_peers.py            # all tasks, markdown tables
    python bench/bench_peers.py --quick    # fewer repeats, no memory run

Contenders: scmspec (``numpy_sampler.sample`` on a compiled plan), the plain-numpy
reference of bench_sampler.py, and, where installed, sempler (LGANM / ANM), gCastle's
``IIDSimulation`` and DoWhy's ``gcm.draw_samples``; a missing peer is reported as
"not installed". Models are built once; the tables time sampling only (build times are
printed separately), each figure the median over repeats of a batch of calls lasting
about 5 ms, contenders interleaved repeat by repeat. Ratios are contender / reference.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).parent))

import numpy as np  # noqa: E402
from bench_sampler import Graph, card_text, make_graph, reference_sample  # noqa: E402

from scmspec.compiler.pipeline import compile_card, parse_card_text  # noqa: E402
from scmspec.samplers import numpy_sampler  # noqa: E402
from scmspec.samplers.streams import Streams  # noqa: E402

PEERS = {"sempler": "sempler", "gCastle": "castle", "DoWhy gcm": "dowhy"}


def installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def compiled_plan(g: Graph, do: bool = False):  # noqa: ANN201 - a Plan
    text = card_text(g, f"peer_d{g.d}")
    if do:  # single-target hard do at 1.0 on every target
        text = text.replace("intervention: {meaning: set ", "intervention: {handler: "
                            "{kind: do, value: 1.0}, meaning: set ")
    return compile_card(*parse_card_text(text, "bench.yaml")).plan


def streams(seed: int = 0) -> Streams:
    return Streams(seed, "bench", "obs", 0)


def sempler_model(g: Graph, linear: bool):  # noqa: ANN201
    import sempler
    import sempler.noise
    w = np.zeros((g.d, g.d))
    for j, pa in enumerate(g.parents):
        w[list(pa), j] = g.weights[j]
    if linear:
        return sempler.LGANM(w, np.zeros(g.d), np.square(g.sds))
    from bench_sampler import _NONLINEAR
    fns = [(lambda x, j=j: _NONLINEAR[g.mechanisms[j]](x @ g.weights[j]))
           if g.parents[j] else None for j in range(g.d)]
    return sempler.ANM((w != 0).astype(int), fns,
                       [sempler.noise.normal(0, s ** 2) for s in g.sds])


def per_call(fn: Callable[[], object]) -> float:
    start, calls = time.perf_counter(), 0
    while True:
        fn()
        calls += 1
        if (elapsed := time.perf_counter() - start) > 0.005:
            return elapsed / calls


def race(contenders: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    for fn in contenders.values():
        fn()
    times: dict[str, list[float]] = {k: [] for k in contenders}
    names = list(contenders)
    for r in range(repeats):
        for k in names[r % len(names):] + names[:r % len(names)]:
            times[k].append(per_call(contenders[k]))
    return {k: float(np.median(v)) for k, v in times.items()}


def obs_task(d: int, n: int, nonlinear: bool = False) -> dict[str, Callable[[], object]]:
    g = make_graph(d, nonlinear=nonlinear)
    plan, rng = compiled_plan(g), np.random.default_rng(1)
    out: dict[str, Callable[[], object]] = {
        "ref": lambda: reference_sample(g, n, rng),
        "scmspec": lambda: numpy_sampler.sample(plan, n, 0, streams())}
    if installed("sempler"):
        model = sempler_model(g, linear=not nonlinear)
        out["sempler"] = lambda: model.sample(n)
    return out


def do_task(d: int = 50, n_obs: int = 800, n_int: int = 200) -> dict[str, Callable[[], object]]:
    """800 observational + 200 rows, each under a single-target hard do(x_j = 1)."""
    g = make_graph(d)
    plan, rng = compiled_plan(g, do=True), np.random.default_rng(2)
    targets = np.arange(n_int) % d

    def ref() -> np.ndarray:  # one pass; the intervened cell is overridden as we go
        x = np.empty((n_obs + n_int, d), order="F")
        mask = np.zeros((n_obs + n_int, d), bool)
        mask[n_obs + np.arange(n_int), targets] = True
        for j in range(d):
            col = rng.normal(0.0, g.sds[j], n_obs + n_int)
            if g.parents[j]:
                col += x[:, g.parents[j]] @ g.weights[j]
            x[:, j] = np.where(mask[:, j], 1.0, col)
        return x

    out: dict[str, Callable[[], object]] = {
        "ref": ref, "scmspec": lambda: numpy_sampler.sample(plan, n_obs, n_int, streams())}
    if installed("sempler"):
        model = sempler_model(g, linear=True)
        groups = {int(t): int((targets == t).sum()) for t in np.unique(targets)}
        out["sempler"] = lambda: [model.sample(n_obs)] + [
            model.sample(k, do_interventions={t: (1.0, 0.0)}) for t, k in groups.items()]
    return out


def rss_child(n: int, d: int = 20) -> str:
    """Peak RSS (MB) of a fresh process that compiles a d-variable card and samples n rows."""
    # VmHWM, not ru_maxrss: ru_maxrss survives exec and would report the parent's peak.
    hwm = "int(open('/proc/self/status').read().split('VmHWM:')[1].split()[0])"
    code = ("import sys; sys.path.insert(0,'bench'); from bench_peers import *; "
            f"g=make_graph({d}); p=compiled_plan(g); a={hwm}; "
            f"numpy_sampler.sample(p,{n},0,streams()); b={hwm}; print(a/1024, b/1024)")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.split()


def table(title: str, tasks: dict[str, dict[str, Callable[[], object]]], repeats: int) -> None:
    print(f"\n### {title}\n\n| task | ref | scmspec | " + " | ".join(PEERS) + " |")
    print("|---|---|---|" + "---|" * len(PEERS))
    for name, contenders in tasks.items():
        t = race(contenders, repeats)
        cells = [f"{t['ref'] * 1e3:.2f} ms", f"{t['scmspec'] / t['ref']:.2f}x"]
        for peer, module in PEERS.items():
            cells.append(f"{t[peer] / t['ref']:.2f}x" if peer in t else
                         ("not installed" if not installed(module) else "n/a"))
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    reps = 7 if args.quick else 21
    print("peers:", ", ".join(f"{p}: {'installed' if installed(m) else 'not installed'}"
                              for p, m in PEERS.items()))
    table("Sampling time, ratio to the numpy reference (lower is better)", {
        **{f"linear ER d={d}, n=1000": obs_task(d, 1000) for d in (10, 50, 100)},
        "nonlinear ANM d=50, n=1000": obs_task(50, 1000, nonlinear=True),
        "d=50, 800 obs + 200 single-target do": do_task(),
        **{f"linear ER d=20, n={n:.0e}": obs_task(20, n) for n in (1000, 10_000, 100_000)},
        "linear ER d=20, n=1e+06": obs_task(20, 1_000_000)}, reps)
    g = make_graph(1000)
    start = time.perf_counter()
    plan = compiled_plan(g)
    built = time.perf_counter() - start
    start = time.perf_counter()
    numpy_sampler.sample(plan, 10_000, 0, streams())
    print(f"\nd=1000, n=10000: compile {built:.2f} s, sample "
          f"{time.perf_counter() - start:.2f} s")
    if not args.quick:
        print("\n| n (d=20) | peak RSS before sampling | after | growth |\n|---|---|---|---|")
        for n in (10_000, 100_000, 1_000_000):
            a, b = map(float, rss_child(n))
            print(f"| {n:.0e} | {a:.0f} MB | {b:.0f} MB | {b - a:.0f} MB |", flush=True)


if __name__ == "__main__":
    main()
