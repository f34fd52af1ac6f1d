"""Sampler benchmark: scmspec against a plain-numpy loop doing the same arithmetic.

Run from the repository root (about two minutes; see bench/README.md)::

    python bench/bench_sampler.py               # full run, markdown tables
    python bench/bench_sampler.py --clock cpu   # steadier on a busy machine
    python bench/bench_sampler.py --quick       # 7 repeats, no memory run

Every ratio compares timings taken in the same process, interleaved repeat by repeat
(in rotating order), so load from elsewhere on the machine hits all contenders alike.
Each figure is the median over ``--repeats`` (>= 7) repeats after warm-up; one repeat
times a batch of calls sized to last about 5 ms and reports the mean per call. The
ratio of minima is printed too: on a shared machine it is the steadiest estimate of
the intrinsic cost. ``--clock cpu`` times with ``time.process_time`` instead of
``time.perf_counter``, so time spent descheduled by other jobs is not counted. The
memory run starts one fresh child process per contender and run and reads its peak
RSS with ``resource.getrusage``. BLAS is pinned to one thread.

Cards are generated, not read from disk: an Erdos-Renyi DAG over ``d`` variables
(expected degree 3), weights of magnitude 0.5-2 with random sign, normal roots and
additive normal noise with sd 0.5-1.5. The nonlinear card wraps each node's linear
combination in tanh, sigmoid or exp(-z**2 / 2), in turn. Before timing, each card is
checked to be the same model as its reference (column sds agree on 20,000 rows).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: one thread for every `@`
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from scipy import special  # noqa: E402

from scmspec.api import compile_text  # noqa: E402
from scmspec.compiler import lower as lower_module  # noqa: E402
from scmspec.compiler.pipeline import compile_card, parse_card_text  # noqa: E402
from scmspec.compiler.resolve import resolve  # noqa: E402
from scmspec.compiler.units import check_units  # noqa: E402
from scmspec.samplers import numpy_sampler  # noqa: E402
from scmspec.samplers.scm import SCM  # noqa: E402
from scmspec.samplers.streams import Streams  # noqa: E402

Array = np.ndarray
MECHANISMS = ("tanh", "sigmoid", "exp")
TARGET_SECONDS = 0.005  # one repeat of one contender lasts about this long
clock: Callable[[], float] = time.perf_counter  # --clock cpu: time.process_time


# -- cards ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Graph:
    """A generated SCM in plain arrays: what both the card and the reference are built from."""

    names: tuple[str, ...]
    parents: tuple[tuple[int, ...], ...]  # indices into names; index order is topological
    weights: tuple[Array, ...]
    sds: tuple[float, ...]
    mechanisms: tuple[str, ...]  # root, linear, tanh, sigmoid or exp

    @property
    def d(self) -> int:
        return len(self.names)


def make_graph(d: int, degree: float = 3.0, seed: int = 0, nonlinear: bool = False) -> Graph:
    """An ER DAG: each pair i < j is an edge i -> j with probability degree / (d - 1)."""
    rng = np.random.default_rng(seed)
    p = min(1.0, degree / max(d - 1, 1))
    names, parents, weights, sds, mechs = [], [], [], [], []
    for j in range(d):
        names.append(f"x{j:03d}")
        pa = tuple(i for i in range(j) if rng.random() < p)
        parents.append(pa)
        w = np.round(rng.uniform(0.5, 2.0, len(pa)) * rng.choice([-1.0, 1.0], len(pa)), 3)
        weights.append(w)
        sds.append(float(np.round(rng.uniform(0.5, 1.5), 3)))
        mechs.append("root" if not pa else (MECHANISMS[j % 3] if nonlinear else "linear"))
    return Graph(tuple(names), tuple(parents), tuple(weights), tuple(sds), tuple(mechs))


def equation(g: Graph, j: int) -> str:
    lin = " + ".join(f"{w!r} * {g.names[i]}" for w, i in zip(g.weights[j].tolist(), g.parents[j]))
    return {"linear": lin, "tanh": f"tanh({lin})", "sigmoid": f"sigmoid({lin})",
            "exp": f"exp(-0.5 * ({lin})**2)"}[g.mechanisms[j]]


def card_text(g: Graph, card_id: str) -> str:
    """The card as YAML text; every variable is an intervention target (handler: resample)."""
    lines = [f"id: {card_id}", f"title: benchmark {card_id}", "family: synthetic",
             "domain: benchmark", "variables:"]
    edges = []
    for j, v in enumerate(g.names):
        sd = g.sds[j]
        if not g.parents[j]:
            body = f"distribution: {{kind: normal, sd: {sd!r}}}"
        else:
            body = f"equation: '{equation(g, j)}', noise: {{kind: normal, sd: {sd!r}}}"
            edges += [f"  - {{from: {g.names[i]}, to: {v}, reason: generated}}"
                      for i in g.parents[j]]
        lines.append(f"  {v}: {{meaning: node {j}, {body}, intervention: {{meaning: set {v}}}}}")
    return "\n".join(lines + (["edges:"] + edges if edges else [])) + "\n"


# -- the plain-numpy reference ------------------------------------------------------------------
_NONLINEAR: dict[str, Callable[[Array], Array]] = {
    "linear": lambda z: z, "tanh": np.tanh, "sigmoid": special.expit,
    "exp": lambda z: np.exp(-0.5 * z**2)}


def reference_sample(g: Graph, n: int, rng: np.random.Generator,
                     rows_of: list[Array] | None = None, n_obs: int = 0) -> Array:
    """X[:, j] = f_j(X[:, parents] @ w) + noise, in topological order.

    With ``rows_of``, rows_of[j] are the rows where j is resampled uniformly between
    the 10th and 90th percentile of its first n_obs (observational) values: the
    arithmetic of scmspec's default ``resample`` handler, in the same single pass.
    Column-major, so that every column read and written is contiguous.
    """
    x = np.empty((n, g.d), order="F")
    for j in range(g.d):
        pa, mech = g.parents[j], g.mechanisms[j]
        if mech == "root":
            col = rng.normal(0.0, g.sds[j], n)
        else:
            col = _NONLINEAR[mech](x[:, pa] @ g.weights[j]) + rng.normal(0.0, g.sds[j], n)
        if rows_of is not None and rows_of[j].size:
            lo, hi = np.quantile(col[:n_obs], [0.1, 0.9])
            col[rows_of[j]] = rng.uniform(lo, hi, rows_of[j].size)
        x[:, j] = col
    return x


def reference_obsint(g: Graph, n_obs: int, n_int: int, rng: np.random.Generator
                     ) -> tuple[Array, Array]:
    """800 + 200 rows, one balanced random target per interventional row, and the cell mask."""
    target = rng.permutation(np.arange(n_int) % g.d)
    mask = np.zeros((n_obs + n_int, g.d), dtype=bool)
    mask[np.arange(n_obs, n_obs + n_int), target] = True
    rows_of = [np.flatnonzero(mask[:, j]) for j in range(g.d)]
    return reference_sample(g, n_obs + n_int, rng, rows_of, n_obs), mask


def reference_build(edges: list[tuple[int, int]], d: int, weights: dict[tuple[int, int], float]
                    ) -> list[tuple[Array, Array]]:
    """What the reference does to 'compile': topological order, parent and weight arrays."""
    from graphlib import TopologicalSorter

    preds: dict[int, list[int]] = {j: [] for j in range(d)}
    for i, j in edges:
        preds[j].append(i)
    order = list(TopologicalSorter(preds).static_order())
    return [(np.array(sorted(preds[j]), dtype=np.intp),
             np.array([weights[(i, j)] for i in sorted(preds[j])])) for j in order]


# -- timing -------------------------------------------------------------------------------------
def measure(contenders: dict[str, Callable[[], object]], repeats: int
            ) -> dict[str, tuple[float, float]]:
    """(median, min) seconds per call of each contender.

    Repeats are interleaved across contenders, and the order rotates each repeat,
    so a burst of load from elsewhere on the machine lands on all of them alike.
    """
    numbers = {}
    for label, fn in contenders.items():
        fn()
        fn()  # warm-up: caches, lazy imports, allocator
        t0 = clock()
        fn()
        once = max(clock() - t0, 1e-7)
        numbers[label] = max(1, int(TARGET_SECONDS / once))
    times: dict[str, list[float]] = {label: [] for label in contenders}
    labels = list(contenders)
    for r in range(repeats):
        for label in labels[r % len(labels):] + labels[:r % len(labels)]:
            fn, k = contenders[label], numbers[label]
            t0 = clock()
            for _ in range(k):
                fn()
            times[label].append((clock() - t0) / k)
    return {label: (float(np.median(ts)), float(np.min(ts))) for label, ts in times.items()}


def table(title: str, times: dict[str, tuple[float, float]], ref: str) -> str:
    """Markdown: median time, its ratio to the reference, and the ratio of the minima."""
    out = [f"\n### {title}\n", "| contender | median (ms) | ratio to ref | ratio of minima |",
           "|---|---|---|---|"]
    for label, (median, best) in times.items():
        out.append(f"| {label} | {median * 1e3:.3f} | {median / times[ref][0]:.2f} | "
                   f"{best / times[ref][1]:.2f} |")
    return "\n".join(out)


# -- benchmarks ---------------------------------------------------------------------------------
def compiled(g: Graph, card_id: str) -> SCM:
    """Compile the card of g, after checking that it samples the same model as the reference."""
    scm = compile_text(card_text(g, card_id), f"<{card_id}>")
    ours = scm.sample(20_000, seed=7)[list(g.names)].to_numpy().std(axis=0)
    theirs = reference_sample(g, 20_000, np.random.default_rng(7)).std(axis=0)
    worst = float(np.max(np.abs(ours / theirs - 1.0)))
    if worst > 0.1:
        raise AssertionError(f"{card_id}: card and reference disagree (sd off by {worst:.0%})")
    return scm


def bench_obs(d: int, n: int, repeats: int, nonlinear: bool = False
              ) -> tuple[str, dict[str, tuple[float, float]]]:
    g = make_graph(d, seed=d, nonlinear=nonlinear)
    scm = compiled(g, f"{'nl' if nonlinear else 'lg'}-d{d}")
    plan, rng = scm.plan, np.random.default_rng(0)
    times = measure({
        "noise floor": lambda: rng.standard_normal((n, d)),
        "ref": lambda: reference_sample(g, n, rng),
        "run_pass": lambda: numpy_sampler.run_pass(plan, n, Streams(1, scm.id, "obs", 0)),
        "numpy_sampler.sample": lambda: numpy_sampler.sample(plan, n, 0,
                                                             Streams(1, scm.id, "obs", 0)),
        "SCM.sample (DataFrame)": lambda: scm.sample(n, seed=1),
    }, repeats)
    kind = "nonlinear (tanh/sigmoid/exp)" if nonlinear else "linear-Gaussian"
    edges = sum(len(p) for p in g.parents)
    return table(f"{kind} ER, d={d} ({edges} edges), n={n}, observational", times, "ref"), times


def bench_obsint(d: int, n_obs: int, n_int: int, repeats: int) -> str:
    g = make_graph(d, seed=d)
    scm = compiled(g, f"lg-d{d}")
    plan, rng = scm.plan, np.random.default_rng(0)
    times = measure({
        "noise floor": lambda: rng.standard_normal((n_obs + n_int, d)),
        "ref (one pass, resample arithmetic)": lambda: reference_obsint(g, n_obs, n_int, rng),
        "numpy_sampler.sample": lambda: numpy_sampler.sample(
            plan, n_obs, n_int, Streams(1, scm.id, "obsint", 0)),
        "SCM.sample_interventional (DataFrames)": lambda: scm.sample_interventional(
            n_obs, n_int, seed=1),
    }, repeats)
    return table(f"linear-Gaussian ER, d={d}: {n_obs} obs + {n_int} rows under a single-target "
                 "resample", times, "ref (one pass, resample arithmetic)")


def compile_times(d: int, repeats: int) -> dict[str, tuple[float, float]]:
    """Seconds per stage for one card; lowering starts from a cleared lambdify cache."""
    g = make_graph(d, seed=d)
    text = card_text(g, f"lg-d{d}")
    card, smap = parse_card_text(text, "<bench>")
    resolved = resolve(card, smap)
    edges = [(i, j) for j, pa in enumerate(g.parents) for i in pa]
    weights = {(i, j): w for j, pa in enumerate(g.parents)
               for i, w in zip(pa, g.weights[j].tolist())}

    def lower_cold() -> object:
        lower_module.lambdify_expression.cache_clear()
        return lower_module.lower(resolved, smap)

    def total_cold() -> object:
        lower_module.lambdify_expression.cache_clear()
        return compile_card(*parse_card_text(text, "<bench>"))

    return measure({"parse": lambda: parse_card_text(text, "<bench>"),
                    "resolve": lambda: check_units(resolve(card, smap), smap),
                    "lower": lower_cold, "total": total_cold,
                    "ref": lambda: reference_build(edges, d, weights)}, repeats)


def bench_compile(ds: tuple[int, ...], repeats: int) -> str:
    rows = ["\n### compile (parse + resolve + units + lower), cold lambdify cache\n",
            "| d | parse (ms) | resolve+units (ms) | lower (ms) | total (ms) | per node (us) "
            "| ref build (us/node) |", "|---|---|---|---|---|---|---|"]
    for d in ds:
        t = {k: median for k, (median, _) in compile_times(d, max(7, repeats // 3)).items()}
        rows.append(f"| {d} | {t['parse'] * 1e3:.1f} | {t['resolve'] * 1e3:.1f} | "
                    f"{t['lower'] * 1e3:.1f} | {t['total'] * 1e3:.1f} | "
                    f"{t['total'] / d * 1e6:.0f} | {t['ref'] / d * 1e6:.1f} |")
    return "\n".join(rows)


# -- memory: one child process per contender ----------------------------------------------------
MEMORY_CONTENDERS = ("ref", "run_pass", "SCM.sample")


def memory_child(who: str, d: int, n: int) -> dict[str, float]:
    """Time and peak RSS of one big sample, measured inside a fresh process."""
    g = make_graph(d, seed=d)
    scm = compiled(g, f"lg-d{d}")
    small = {"ref": lambda m: reference_sample(g, m, np.random.default_rng(0)),
             "run_pass": lambda m: numpy_sampler.run_pass(scm.plan, m,
                                                          Streams(1, scm.id, "obs", 0)),
             "SCM.sample": lambda m: scm.sample(m, seed=1)}[who]
    small(1000)  # warm-up with few rows, so the baseline RSS holds code but no data
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = clock()
    result = small(n)
    seconds = clock() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    del result
    return {"seconds": seconds, "peak_mb": peak / 1024, "delta_mb": (peak - before) / 1024}


def bench_memory(d: int, n: int, runs: int = 3) -> str:
    rows = [f"\n### memory and time at d={d}, n={n:,} (fresh process per run; median of {runs} "
            f"runs; data = {n * d * 8 / 2**20:.0f} MB of float64)\n",
            "| contender | time (ms) | ratio to ref | peak RSS (MB) | RSS growth while "
            "sampling (MB) |", "|---|---|---|---|---|"]
    results: dict[str, list[dict[str, float]]] = {who: [] for who in MEMORY_CONTENDERS}
    for _ in range(runs):
        for who in MEMORY_CONTENDERS:
            cmd = [sys.executable, __file__, "--memory-child", who, str(d), str(n), "--clock",
                   "cpu" if clock is time.process_time else "wall"]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            results[who].append(json.loads(out.strip().splitlines()[-1]))
    median = {who: {k: float(np.median([r[k] for r in rs])) for k in rs[0]}
              for who, rs in results.items()}
    for who, r in median.items():
        rows.append(f"| {who} | {r['seconds'] * 1e3:.0f} | "
                    f"{r['seconds'] / median['ref']['seconds']:.2f} | {r['peak_mb']:.0f} | "
                    f"{r['delta_mb']:.0f} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=31, help="timed repeats per figure (>= 7)")
    ap.add_argument("--quick", action="store_true", help="7 repeats, skip the memory run")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall: time.perf_counter (default); cpu: time.process_time, steadier "
                         "when other jobs share the machine")
    ap.add_argument("--memory-child", nargs=3, metavar=("WHO", "D", "N"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    global clock
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    if args.memory_child:
        who, d, n = args.memory_child
        print(json.dumps(memory_child(who, int(d), int(n))))
        return
    repeats = 7 if args.quick else max(7, args.repeats)
    print(f"# scmspec sampler benchmark\n\npython {sys.version.split()[0]}, numpy "
          f"{np.__version__}; median of {repeats} interleaved repeats; {args.clock} clock; "
          "times per call")
    headline: dict[str, tuple[float, float]] = {}
    for d in (10, 50, 100):
        text, times = bench_obs(d, 1000, repeats)
        headline = times if d == 50 else headline
        print(text, flush=True)
    print(bench_obs(50, 1000, repeats, nonlinear=True)[0], flush=True)
    print(bench_obsint(50, 800, 200, repeats), flush=True)
    print(bench_compile((10, 50, 100), repeats), flush=True)
    if not args.quick:
        print(bench_memory(20, 1_000_000), flush=True)
    ratio = {k: v[0] / headline["ref"][0] for k, v in headline.items()}
    best = {k: v[1] / headline["ref"][1] for k, v in headline.items()}
    print("\nheadline (linear-Gaussian d=50, n=1000, observational; target <= 3, stretch <= 2), "
          "ratio to the plain-numpy reference, of medians (of minima):")
    for label in ("run_pass", "numpy_sampler.sample", "SCM.sample (DataFrame)"):
        print(f"  {label}: {ratio[label]:.2f}x ({best[label]:.2f}x)")


if __name__ == "__main__":
    main()
