"""Gate benchmark: running every gate against sampling the data they judge.

Run from the repository root (about 15 seconds)::

    python bench/bench_gates.py             # 50 variables, 1 and 5 replicates
    python bench/bench_gates.py --d 100 --repeats 31
    python bench/bench_gates.py --ranges      # every continuous variable ranged: tail check

The card is generated, not read from disk: an Erdos-Renyi DAG over ``d`` variables
(expected degree 3, index order topological), normal roots, and non-root mechanisms
cycling through linear, tanh, exp, product, threshold, a noise-free formula and a
bernoulli event, so every gate has work to do (formula residuals, near-copy and
sortability matrices, interventions on every sixth variable: 9 targets at d = 50).
Sampling = both splits (obs: 1000 rows; obs+int: 800 + 200) of every replicate,
exactly as ``scmspec validate`` and ``scmspec compile`` draw them; gates =
``run_gates`` (all per-card gates, equation classification not cached) plus the
pool gates on a pool of one, on a fresh ``GateContext`` each time (nothing carried
over from the previous run but sympy's and lambdify's own caches).

Output: for 1 replicate (``scmspec validate``) and 5 (``scmspec compile``), the
median sampling and gate times and their ratio; then where the gate time goes,
per gate, with the context's shared facts (stacked observational matrix, moments,
correlation matrix, adjacent-repeat counts, transitive closure) as their own rows
rather than charged to whichever gate asks first. Each figure is the median of
``--repeats`` runs after one warm-up; sampling, the gates and the per-gate pass
alternate so drift hits all three. Times are process CPU time
(``time.process_time``), so other jobs on a busy machine do not inflate one side;
``--wall`` uses wall-clock time instead. BLAS is pinned to one thread (set before
numpy loads): the gates' 50 x 50 products gain nothing from threads, and idle
OpenBLAS workers spin, which CPU-time accounting would charge to whichever side
happens to run next.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy is imported (see above)

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import numpy as np  # noqa: E402

from scmspec.build import ProtocolOverrides  # noqa: E402
from scmspec.build.evaluate import _sample_replicate  # noqa: E402
from scmspec.compiler.pipeline import compile_card, parse_card_text  # noqa: E402
from scmspec.samplers.scm import SCM  # noqa: E402
from scmspec.validators import (  # noqa: E402
    GATES,
    GateContext,
    GateResult,
    gates,  # noqa: F401  (registers every gate before GATES is read)
    run_gates,
    run_pool_gates,
    structure_gates,
)
from scmspec.validators.base import justify  # noqa: E402
from scmspec.validators.tail_sample import tail_pilot  # noqa: E402
from scmspec.validators.thresholds import SEVERITY  # noqa: E402

MECHANISMS = ("linear", "tanh", "exp", "product", "threshold", "formula", "event")


def _term(rng: np.random.Generator, parents: list[str]) -> str:
    weights = np.round(rng.uniform(0.3, 1.2, len(parents)) * rng.choice([-1, 1], len(parents)), 2)
    return " + ".join(f"({w}) * {p}" for w, p in zip(weights, parents))


def _variable(rng: np.random.Generator, j: int, parents: list[str], ranged: bool = False) -> str:
    name = f"x{j:02d}"
    target = "intervention: {meaning: set it}, " if j % 6 == 0 else ""
    wide = "range: [-1e9, 1e9], " if ranged else ""
    if not parents:
        return (f"  {name}: {{meaning: root {j}, {wide}{target}"
                "distribution: {kind: normal}}")
    kind = MECHANISMS[j % len(MECHANISMS)]
    score = _term(rng, parents)
    eq, noise = {
        "linear": (score, "{kind: normal, sd: 0.8}"),
        "tanh": (f"2 * tanh({score})", "{kind: normal, sd: 0.3}"),
        "exp": (f"exp(-({score})**2 / 4)", "{kind: normal, sd: 0.2}"),
        "product": (f"{parents[0]} * (1 + 0.2 * tanh({_term(rng, parents[1:])}))"
                    if len(parents) > 1 else f"{parents[0]} ** 2", "{kind: laplace, scale: 0.5}"),
        "threshold": (f"where({score} > 0, {score}, 0.3 * ({score}))", "{kind: normal, sd: 0.5}"),
        "formula": (f"0.5 * ({score}) + 1", "{kind: none}"),
        "event": (f"bernoulli(sigmoid({score}))", "{kind: none}"),
    }[kind]
    role = "role: formula, " if kind == "formula" else ""
    dtype = "kind: binary, " if kind == "event" else wide
    return (f"  {name}: {{meaning: node {j}, {role}{dtype}{target}equation: '{eq}', "
            f"noise: {noise}}}")


def make_card(d: int, seed: int = 0, degree: float = 3.0, ranged: bool = False) -> str:
    """A semantic card over d variables (ER DAG), mixed mechanisms, every 6th one a target.

    ``ranged`` declares a (wide) range on every continuous variable, so the tail pilot
    of ``ranges`` samples the whole card.
    """
    rng = np.random.default_rng(seed)
    p = min(1.0, degree / max(d - 1, 1))
    lines = ["id: bench_gates", "title: gate benchmark", "family: semantic", "domain: bench",
             "variables:"]
    edges = []
    for j in range(d):
        parents = [f"x{i:02d}" for i in range(j) if rng.random() < p][-4:]
        lines.append(_variable(rng, j, parents, ranged))
        edges += [f"  - {{from: {q}, to: x{j:02d}, reason: generated}}" for q in parents]
    return "\n".join(lines + ["edges:"] + edges) + "\n"


CLOCK: Callable[[], float] = time.process_time
SHARED = ("observed_obs", "observed_moments", "observed_corr", "observed_repeats", "reach")


def _setup(d: int, replicates: int, ranged: bool = False
           ) -> tuple[Callable[[], tuple], Callable[[tuple], GateContext]]:
    """(sample(), context(replicates)) for the generated card under the given protocol."""
    card, smap = parse_card_text(make_card(d, ranged=ranged), "bench_gates.yaml")
    compiled = compile_card(card, smap)
    scm = SCM(compiled, compiled.plan)
    proto = ProtocolOverrides(replicates=replicates).apply(card.protocol)

    def sample() -> tuple:
        return tuple(_sample_replicate(scm, proto, r) for r in range(proto.replicates))

    def context(reps: tuple) -> GateContext:
        structure_gates._SEEN.clear()  # classify every equation again: a card's true cost
        return GateContext(compiled, reps, protocol=proto)

    return sample, context


def _all_gates(ctx: GateContext) -> object:
    return run_gates(ctx) + run_pool_gates([ctx.compiled])[ctx.card_id]


def _per_gate(ctx: GateContext) -> dict[str, float]:
    """Seconds of each shared context fact, then of each gate in report order (one run)."""
    out: dict[str, float] = {}
    for fact in SHARED:
        t0 = CLOCK()
        getattr(ctx, fact)
        out[f"({fact})"] = CLOCK() - t0
    results: list[GateResult] = []
    for name in sorted(GATES, key=lambda g: list(SEVERITY).index(g)):
        t0 = CLOCK()
        results.extend(GATES.lookup(name)(ctx))
        out[name] = CLOCK() - t0
    t0 = CLOCK()
    justify(results, ctx.compiled)
    run_pool_gates([ctx.compiled])
    out["justify + pool gates"] = CLOCK() - t0
    return out


@dataclass
class Figures:
    """Median milliseconds: sampling, all gates, and each gate (``_per_gate``)."""

    sampling: float
    gates: float
    per_gate: dict[str, float]

    @property
    def ratio(self) -> float:
        return self.gates / self.sampling


def bench(d: int, replicates: int, repeats: int, ranged: bool = False) -> Figures:
    """Sampling, all gates and the per-gate pass, interleaved, ``repeats`` times each."""
    sample, context = _setup(d, replicates, ranged)
    reps = sample()
    _all_gates(context(reps))  # warm-up (lazy imports, lambdify caches)
    s_times: list[float] = []
    g_times: list[float] = []
    per: dict[str, list[float]] = {}
    for _ in range(repeats):  # interleaved, so drift hits every side
        t0 = CLOCK()
        sample()
        s_times.append(CLOCK() - t0)
        ctx = context(reps)
        t0 = CLOCK()
        _all_gates(ctx)
        g_times.append(CLOCK() - t0)
        for name, sec in _per_gate(context(reps)).items():
            per.setdefault(name, []).append(sec)
    return Figures(statistics.median(s_times) * 1e3, statistics.median(g_times) * 1e3,
                   {k: statistics.median(v) * 1e3 for k, v in per.items()})


def _tail_routes(d: int) -> str:
    """How the tail check settles the bench card's ranges, and the pilot rows it samples."""
    sample, context = _setup(d, 1, ranged=True)
    ctx = context(sample())
    ranged = [(v, s.range) for v, s in ctx.compiled.card.variables.items()
              if s.range is not None]
    tail = tail_pilot(ctx, ranged)
    routes = ", ".join(f"{tail.method.count(m)} {m}" for m in dict.fromkeys(tail.method))
    return f"tail check: {routes}; {tail.sampled_rows:,} pilot rows sampled"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--d", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--wall", action="store_true", help="wall-clock instead of CPU time")
    parser.add_argument("--ranges", action="store_true",
                        help="declare a range on every continuous variable (tail check runs)")
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.perf_counter if args.wall else time.process_time
    runs = {r: bench(args.d, r, args.repeats, args.ranges) for r in (1, 5)}
    clock = "wall" if args.wall else "CPU"
    pilot = (f"ranges on every continuous variable: {_tail_routes(args.d)}"
             if args.ranges else "no declared range: no tail check")
    print(f"d = {args.d}, 1000 rows per split, median of {args.repeats} runs, {clock} time; "
          f"gates include every pilot ({pilot})\n")
    print("| replicates | sampling ms | all gates ms | gates / sampling |")
    print("|---|---|---|---|")
    for r, f in runs.items():
        print(f"| {r} | {f.sampling:.1f} | {f.gates:.1f} | {f.ratio:.2f} |")
    print("\n| gate or shared fact | ms, 1 replicate | ms, 5 replicates |\n|---|---|---|")
    for name in runs[1].per_gate:
        print(f"| {name} | {runs[1].per_gate[name]:.2f} | {runs[5].per_gate[name]:.2f} |")
    total = {r: sum(f.per_gate.values()) for r, f in runs.items()}
    print(f"| sum | {total[1]:.2f} | {total[5]:.2f} |")


if __name__ == "__main__":
    main()
