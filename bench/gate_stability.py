"""Gate decisions across seeds: does any card's decision flip with the seed?

Run from the repository root::

    python bench/gate_stability.py cards/ --seeds 1-20 --out stability.jsonl

Every card under the paths is compiled once; for each seed its protocol's replicates
are sampled (as ``scmspec compile --seed S`` does) and every per-card gate runs. One
JSON line per (card, seed, gate result) is appended to ``--out`` as it goes, so a long
run can be read while it runs; at the end, the gates whose status differs between
seeds are printed per card with each seed's statistic, so a flip can be checked
against the margin of its threshold (docs/gates.md, "Stable decisions").
``--select`` keeps a slice of a synthetic grid (``scmspec compile --select`` syntax).
``--tail-only`` runs the tail check of ``ranges`` alone (no data sampled, each finding a
line). ``--tail-rows 0`` skips the tail pilot of ``ranges`` (most of the time on cards with
many ranged variables) to check the statistical decisions quickly.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from scmspec.build import ProtocolOverrides, parse_all
from scmspec.build.discover import discover
from scmspec.build.evaluate import _sample_replicate
from scmspec.compiler.pipeline import CompiledCard, compile_card
from scmspec.compiler.spec import ProtocolSpec
from scmspec.samplers.scm import SCM
from scmspec.validators import GateContext, data_gates, run_gates, tail_sample
from scmspec.validators.base import GateResult, make_result


def _seeds(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def _tail_check(comp: CompiledCard, proto: ProtocolSpec) -> Iterator[GateResult]:
    """The tail check of ``ranges`` alone (its findings, or one pass), on no sampled data."""
    ranged = [(v, s.range) for v, s in comp.card.variables.items() if s.range is not None]
    found = list(data_gates._tail(GateContext(comp, (), protocol=proto), ranged, set()))
    yield from found or [make_result("ranges", "pass", "tail check: nothing outside")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--seeds", default="1-20")
    parser.add_argument("--out", default="stability.jsonl")
    parser.add_argument("--tail-rows", type=int, default=None,
                        help="rows of the counted tail pilot (0: skip the tail check; "
                        "default: the gate's)")
    parser.add_argument("--select", default=None,
                        help="grid configurations to keep, as `scmspec compile --select` "
                        "(e.g. 'index=0|1' for a slice of a synthetic grid)")
    parser.add_argument("--tail-only", action="store_true",
                        help="run only the tail check of `ranges` (no data sampled)")
    args = parser.parse_args()
    if args.tail_rows is not None:  # a quicker run of the statistical decisions only
        tail_sample.tail_pilot.__defaults__ = (args.tail_rows, tail_sample.TAIL_PILOT_CHUNK,
                                               tail_sample.TAIL_NOISE_ROWS)
    _, loaded = parse_all(discover(args.paths), select=args.select)
    compiled = {p: compile_card(c.card, c.source) for p, c in sorted(loaded.items())}
    rank = {"skip": 0, "pass": 1, "warn": 2, "fail": 3}
    status: dict[tuple[str, str], dict[int, tuple[str, float | None, str]]] = defaultdict(dict)
    with Path(args.out).open("a", encoding="utf-8") as out:
        for seed in _seeds(args.seeds):
            for path, comp in compiled.items():
                scm = SCM(comp, comp.plan)
                proto = ProtocolOverrides(seed=seed).apply(loaded[path].card.protocol)
                if args.tail_only:
                    results = list(_tail_check(comp, proto))
                else:
                    reps = tuple(_sample_replicate(scm, proto, r)
                                 for r in range(proto.replicates))
                    results = list(run_gates(GateContext(comp, reps, protocol=proto)))
                for g in results:
                    out.write(json.dumps({"seed": seed, **g.to_json(comp.card.id)}) + "\n")
                    key = (comp.card.id, g.gate)
                    prev = status[key].get(seed)
                    if prev is None or rank[g.status] > rank[prev[0]]:
                        status[key][seed] = (g.status, g.statistic, g.detail[:200])
                out.flush()
    flips = {k: v for k, v in status.items() if len({s for s, _, _ in v.values()}) > 1}
    print(f"{len(loaded)} cards x {len(_seeds(args.seeds))} seeds; "
          f"{len(flips)} (card, gate) decisions differ between seeds")
    for (card_id, gate), by_seed in sorted(flips.items()):
        print(f"{card_id} {gate}:")
        for seed, (s, stat, detail) in sorted(by_seed.items()):
            print(f"  seed {seed}: {s} statistic={stat} {detail}")


if __name__ == "__main__":
    main()
