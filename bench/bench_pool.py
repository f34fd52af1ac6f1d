"""Pool benchmark: the whole 1,000-configuration CausalArena synthetic pool, end to end.

Run from the repository root (one worker; about 10 minutes on a 2-core machine)::

    python bench/bench_pool.py                      # the full pool
    python bench/bench_pool.py --select d=10|20     # a slice
    python bench/bench_pool.py --out pool/         # keep the datasets

It runs exactly what ``scmspec compile cards/synthetic/causalarena.grid.yaml
--replicates 1`` runs, stage by stage, timing each: expand the grid (draw 1,000
graphs with distinct topologies), materialise every card (pilot sampling), compile,
pool gates (duplicate topologies), then per card: sample both splits (obs: 1000 rows,
obs+int: 800 + 200), run every gate, apply observation stressors and write the dataset.
It reports the wall time of each stage and in total, the process CPU time (on a
shared machine other jobs inflate wall time only), the per-SCM CPU cost by d, and the
release counts
(any card not released is listed with its failed gates). BLAS is pinned to one thread
(set before numpy loads): one worker, and idle OpenBLAS threads would only spin.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy is imported (see above)

import argparse  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402
from pathlib import Path  # noqa: E402

from scmspec.api import LoadedCard  # noqa: E402
from scmspec.build.cards import CardResult, ProtocolOverrides  # noqa: E402
from scmspec.build.evaluate import pool_gates  # noqa: E402
from scmspec.build.outputs import clean_temporaries, write_manifest  # noqa: E402
from scmspec.build.write import build_one, manifest  # noqa: E402
from scmspec.compiler.pipeline import compile_card  # noqa: E402
from scmspec.synthetic.grid.expand import expand_file  # noqa: E402
from scmspec.synthetic.materialize import materialize  # noqa: E402

GRID = Path(__file__).resolve().parents[1] / "cards" / "synthetic" / "causalarena.grid.yaml"


def run(grid: Path, out: Path, select: str | None, replicates: int) -> None:
    """Build the pool stage by stage and print the timings."""
    stages: dict[str, float] = {}
    per_card: dict[str, dict[str, float]] = defaultdict(dict)
    cpu = time.process_time()
    t = time.perf_counter()
    cards, smap = expand_file(grid, select)
    stages["expand (graphs, distinct topologies)"] = time.perf_counter() - t
    loaded, results = {}, []
    t = time.perf_counter()
    for card in cards:
        res = CardResult(f"{grid.name}#{card.id}", "-", card.id)
        results.append(res)
        s = time.process_time()
        try:
            loaded[res.path] = LoadedCard(materialize(card, smap), smap)
        except Exception as exc:  # noqa: BLE001 - a CardError: reported, never dropped
            res.diagnostics = list(getattr(exc, "diagnostics", []))
        per_card[card.id]["materialise"] = time.process_time() - s
    stages["materialise"] = time.perf_counter() - t
    t = time.perf_counter()
    compiled = {}
    for path, lc in loaded.items():
        s = time.process_time()
        compiled[path] = compile_card(lc.card, lc.source)
        per_card[lc.id]["compile"] = time.process_time() - s
    stages["compile"] = time.perf_counter() - t
    t = time.perf_counter()
    pooled = pool_gates(compiled)
    stages["pool gates"] = time.perf_counter() - t
    overrides = ProtocolOverrides(replicates=replicates)
    clean_temporaries(out)
    t = time.perf_counter()
    for res in results:
        if res.path in loaded:
            s = time.process_time()
            build_one(loaded[res.path], res, out, overrides, True, compiled[res.path],
                      pooled.get(res.path, []))
            per_card[res.id or ""]["sample+gates+write"] = time.process_time() - s
    stages["sample + gates + write"] = time.perf_counter() - t
    write_manifest(out, manifest(results, overrides))
    _report(stages, per_card, cards, results, time.process_time() - cpu)


def _report(stages: dict[str, float], per_card: dict[str, dict[str, float]], cards: list,
            results: list[CardResult], cpu: float) -> None:
    total = sum(stages.values())
    print(f"\n{len(cards)} SCMs, one worker, {total:.1f} s wall ({total / 60:.2f} min), "
          f"{cpu:.1f} s process CPU (other jobs on a shared machine inflate wall only)\n")
    print("| stage | wall s |\n|---|---|")
    for name, sec in stages.items():
        print(f"| {name} | {sec:.1f} |")
    by_d: dict[int, list[float]] = defaultdict(list)
    parts: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for c in cards:
        d = c.synthetic.graph.d
        for k, v in per_card[c.id].items():
            parts[d][k].append(v)
        by_d[d].append(sum(per_card[c.id].values()))
    print("\nPer SCM, process CPU seconds (robust to other jobs on the machine):\n")
    print("| d | SCMs | mean s/SCM | materialise | compile | sample+gates+write |\n"
          "|---|---|---|---|---|---|")
    for d in sorted(by_d):
        m = {k: statistics.mean(v) for k, v in parts[d].items()}
        print(f"| {d} | {len(by_d[d])} | {statistics.mean(by_d[d]):.3f} | "
              f"{m.get('materialise', 0):.3f} | {m.get('compile', 0):.3f} | "
              f"{m.get('sample+gates+write', 0):.3f} |")
    counts = {s: sum(r.status == s for r in results) for s in ("released", "rejected", "failed")}
    print(f"\nrelease counts: {counts}")
    for r in results:
        if r.status != "released":
            failed = sorted({g.gate for g in r.gates if g.blocking_failure})
            notes = "; ".join(d.message for d in r.diagnostics)[:300]
            print(f"  {r.status}: {r.id or r.path} gates={failed} {notes}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grid", type=Path, default=GRID)
    ap.add_argument("--select", default=None, help="a slice, e.g. 'd=10|20'")
    ap.add_argument("--replicates", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None, help="keep the datasets here")
    args = ap.parse_args()
    if args.out is not None:
        run(args.grid, args.out, args.select, args.replicates)
        return
    with tempfile.TemporaryDirectory() as tmp:
        run(args.grid, Path(tmp) / "data", args.select, args.replicates)


if __name__ == "__main__":
    main()
