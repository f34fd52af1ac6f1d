"""Calibrate the synthetic pool's difficulty against CausalArena's published baseline tables.

Runs reference baselines with the paper's wrapper settings (CausalArena appendix B) on a
compiled pool, or a stratified slice of one, and prints directed-edge F1 by dimension, graph
family, root dependency, difficulty component, edge mechanism and edge noise beside the
paper's value for the same method (Tables 8-13, observational split), with the difference
and its standard error.

    scmspec compile cards/synthetic/causalarena.grid.yaml --replicates 1 \\
        --select 'index=0|1|2|3' --out data/calib            # 4 per cell: 40 per d, 20 per family
    python bench/calibrate.py data/calib --methods pc           # PC first: it is the cheap one
    python bench/calibrate.py data/calib --methods pc,ges,lingam,random_regress \\
        --max-d ges=50 --cache calib.jsonl --markdown

Methods (``scmspec.evaluation.builtins``, the wrappers ``scmspec evaluate`` runs):

* ``pc``: causal-learn stable PC, Fisher-z, alpha 0.05; the paper's "PC".
* ``ges``: causal-learn GES, BIC score; compared with the paper's GIES observational
  column (GIES on observational data is GES; the paper has no GES row).
* ``lingam``: causal-learn DirectLiNGAM; the paper's "LiNGAM".
* ``random_regress``: the random-order regression control; the paper's "RandomRegress".

Every method receives standardised columns (appendix B). CPDAG outputs (PC, GES) have their
undirected edges oriented at random with a fixed per-file seed (``orientation_seed`` of
``<id>/<replicate>/<split>``) before the DAG metrics. Replicate scores are averaged per SCM,
then per slice (the paper's order); multi-stressor cases count in every active component
(Table 11). Mechanism and noise tables are edge-level: a true or predicted edge belongs to the
tag of its child node, and F1 comes from the TP/FP/FN counts pooled over the slice (Tables
12-13). Standard errors: over SCMs for SCM-level slices, a bootstrap over SCMs (400 draws,
fixed seed) for the edge-level ones. Runs are cached per (SCM, replicate, method) in
``--cache`` (JSON lines), so a rerun only computes what is missing. Failed and timed-out runs
(``--timeout``, wall seconds) are counted in each method's header and score an empty graph.

Paper values were transcribed from the CausalArena text (seeds/causalarena.txt). The column
order of Table 8 is read from the extracted header; collider-rich and bipartite layered may be
swapped there (the text does not settle it).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads: one worker each

import argparse  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import multiprocessing  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Iterable, Sequence  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

METHODS = ("pc", "ges", "lingam", "random_regress")
PAPER_NAME = {"pc": "PC", "ges": "GIES (obs)", "lingam": "LiNGAM",
              "random_regress": "RandomRegress"}
SPLIT = "obs"
BOOTSTRAP = 400

# Paper values (observational F1), columns: RandomRegress, GIES, PC, LiNGAM.
_COLS = ("random_regress", "ges", "pc", "lingam")
_TABLES: dict[str, dict[str, tuple[float, float, float, float]]] = {
    "d": {  # Table 9
        "10": (.34, .49, .42, .29), "20": (.31, .49, .34, .23), "30": (.28, .49, .31, .21),
        "50": (.25, .47, .26, .18), "100": (.23, .47, .20, .13)},
    "graph": {  # Table 8
        "erdos_renyi": (.27, .50, .28, .18), "scale_free": (.27, .42, .25, .21),
        "chain": (.30, .45, .34, .22), "tree": (.27, .44, .30, .22),
        "layered": (.27, .52, .32, .21), "collider_rich": (.27, .49, .28, .19),
        "bipartite_layered": (.27, .61, .29, .18), "dense_local_module": (.31, .45, .35, .23),
        "small_world": (.30, .44, .31, .19), "block_sparse_layered": (.30, .47, .34, .23)},
    "root_dependency": {  # Table 10
        "independent": (.29, .49, .31, .21), "common_factor": (.23, .37, .25, .21),
        "random_covariance": (.22, .39, .26, .19), "uniform_ball": (.30, .54, .32, .20)},
    "difficulty": {  # Table 11
        "clean": (.28, .51, .33, .26), "distribution_shift": (.28, .50, .32, .23),
        "feature_corruption": (.27, .45, .31, .18), "feature_warping": (.27, .46, .30, .21),
        "high_noise": (.30, .52, .31, .16), "missingness": (.27, .45, .31, .20),
        "outliers": (.26, .36, .23, .06), "soft_interventions": (.28, .49, .31, .22),
        "weak_signal": (.30, .50, .31, .22)},
    "mechanism": {  # Table 12 (edge level)
        "activation": (.06, .48, .23, .07), "aggregation": (.10, .43, .25, .12),
        "discretisation": (.04, .45, .20, .04), "exp_log": (.08, .52, .27, .09),
        "linear": (.08, .59, .30, .13), "interaction": (.08, .55, .29, .12),
        "regime": (.07, .56, .29, .11), "multiplicative": (.04, .47, .21, .05),
        "neural": (.05, .51, .23, .07), "piecewise": (.08, .54, .28, .11),
        "polynomial": (.07, .42, .23, .07), "rational": (.07, .47, .23, .10),
        "rff": (.05, .40, .19, .05), "saturation": (.07, .54, .27, .10),
        "tree": (.03, .27, .15, .02), "trigonometric": (.05, .45, .22, .06)},
    "noise": {  # Table 13 (edge level)
        "beta": (.09, .51, .28, .11), "censored": (.06, .49, .23, .06),
        "exponential": (.08, .49, .27, .11), "gaussian": (.06, .48, .24, .07),
        "gumbel": (.06, .48, .24, .08), "heteroskedastic": (.08, .51, .26, .09),
        "laplace": (.06, .48, .23, .08), "mixture_outlier": (.05, .46, .22, .09),
        "multiplicative_lognormal": (.09, .51, .27, .11), "quantised": (.06, .48, .23, .07),
        "rff_heteroskedastic": (.02, .37, .14, .03), "student_t": (.06, .48, .24, .08),
        "target_r2_gaussian": (.06, .48, .24, .07), "uniform": (.08, .50, .26, .10)},
}
BREAKDOWNS = ("d", "graph", "root_dependency", "difficulty", "mechanism", "noise")
EDGE_LEVEL = ("mechanism", "noise")
TITLES = {"d": "dimension (Table 9)", "graph": "graph family (Table 8)",
          "root_dependency": "root dependency (Table 10)",
          "difficulty": "difficulty component (Table 11)",
          "mechanism": "edge mechanism (Table 12, edge level)",
          "noise": "edge noise (Table 13, edge level)"}


def paper(method: str, breakdown: str, level: str) -> float | None:
    """The paper's observational F1 for ``method`` on one slice (None if it has none).

    Example:
        >>> paper("pc", "d", "100")
        0.2
    """
    row = _TABLES[breakdown].get(level)
    return None if row is None else row[_COLS.index(method)]


@dataclass(frozen=True)
class Job:
    folder: str
    scm: str
    replicate: str
    method: str


def standardised(x: np.ndarray) -> np.ndarray:
    """Columns centred and scaled to sd 1 (constant columns become 0)."""
    c = x - x.mean(axis=0)
    sd = c.std(axis=0)
    return np.divide(c, sd, out=np.zeros_like(c), where=sd > 0)


def _predict(job: Job) -> dict[str, Any]:
    """Run one method on one replicate's obs split; the directed prediction and its status."""
    from scmspec.evaluation.builtins import BUILTINS, call_params
    from scmspec.interop.formats import from_causallearn
    from scmspec.interop.graphs import MixedGraph
    from scmspec.scoring.metrics import orient_randomly, orientation_seed

    folder = Path(job.folder)
    csv = folder / job.replicate / f"{SPLIT}.csv"  # a pool written with --format parquet has
    data = pd.read_csv(csv) if csv.is_file() else pd.read_parquet(csv.with_suffix(".parquet"))
    names = [str(c) for c in data.columns]
    x = pd.DataFrame(standardised(data.to_numpy(float)), columns=names)
    builtin = BUILTINS[job.method]
    seed = orientation_seed(f"{job.scm}/{job.replicate}/{SPLIT}")
    start = time.process_time()
    try:
        out = np.asarray(builtin.fn(x, x * 0, {"seed": seed % 2**32},
                                    **call_params(builtin, {})))
    except Exception as exc:  # noqa: BLE001 - a library failure is a recorded result
        return {"status": "failed", "detail": f"{type(exc).__name__}: {exc}",
                "cpu": time.process_time() - start, "edges": []}
    cpu = time.process_time() - start
    g = (from_causallearn(out, names) if builtin.encoding == "causallearn"
         else MixedGraph.from_dag(names, (out != 0).astype(np.int8)))
    # a bidirected mark (conflicting v-structures in PC) is read as undirected
    g = orient_randomly(MixedGraph.build(names, g.directed, g.undirected | g.bidirected, None),
                        seed)
    pred = np.argwhere(g.directed)
    return {"status": "ok", "cpu": cpu,
            "edges": [[names[i], names[j]] for i, j in pred.tolist()]}


def _score(job: Job, result: dict[str, Any]) -> dict[str, Any]:
    """Per-SCM F1 and the per-child-tag TP/FP/FN counts of one prediction."""
    folder = Path(job.folder)
    truth = pd.read_csv(folder / "graph" / "adjacency.csv", index_col=0)
    names = [str(c) for c in truth.columns]
    true = {(a, b) for a, b in zip(*np.nonzero(truth.to_numpy()))}
    true_e = {(names[a], names[b]) for a, b in true}
    pred_e = {(a, b) for a, b in result["edges"]}
    tp = len(true_e & pred_e)
    f1 = 2 * tp / (len(true_e) + len(pred_e)) if true_e or pred_e else 1.0
    nodes = json.loads((folder / "metadata.json").read_text())["synthetic"]["nodes"]
    counts: dict[str, dict[str, list[int]]] = {"mechanism": {}, "noise": {}}
    for kind in counts:
        for edges, slot in ((true_e & pred_e, 0), (pred_e - true_e, 1), (true_e - pred_e, 2)):
            for _, child in edges:
                tag = nodes.get(child, {}).get(kind)
                if tag is not None:
                    counts[kind].setdefault(tag, [0, 0, 0])[slot] += 1
    return {"scm": job.scm, "replicate": job.replicate, "method": job.method,
            "status": result["status"], "cpu": round(result["cpu"], 3), "f1": f1,
            "tp": tp, "n_pred": len(pred_e), "n_true": len(true_e), "counts": counts}


def run_job(job: Job) -> dict[str, Any]:
    return _score(job, _predict(job))


def run_limited(job: Job, timeout: float | None) -> dict[str, Any]:
    """:func:`run_job` in a forked child killed after ``timeout`` wall seconds (the paper's
    runtime budget): a timed-out run is recorded with an empty prediction."""
    if not timeout:
        return run_job(job)
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        pending = pool.apply_async(run_job, (job,))
        try:
            return pending.get(timeout)  # type: ignore[no-any-return]
        except multiprocessing.TimeoutError:
            pool.terminate()
    return _score(job, {"status": "timeout", "cpu": float(timeout), "edges": []})


def pool_rows(pool: Path) -> pd.DataFrame:
    """One row per released SCM of a compiled pool: its folder and slicing factors."""
    manifest = json.loads((pool / "manifest.json").read_text())
    rows = []
    for scm in manifest["scms"]:
        f = scm.get("factors") or {}
        if scm.get("status", "released") != "released" or not f:
            continue
        sid = scm.get("id") or Path(scm["card"].split("#")[-1]).name
        rows.append({"scm": sid, "d": f["d"], "graph": f["graph"],
                     "root_dependency": f["root_dependency"],
                     "difficulty": tuple(f["difficulty"]) or ("clean",)})
    return pd.DataFrame(rows)


def jobs_for(pool: Path, scms: pd.DataFrame, methods: Sequence[str], max_d: dict[str, int],
             replicates: int | None) -> list[Job]:
    jobs = []
    for row in scms.itertuples():
        folder = pool / row.scm
        reps = sorted(p.name for p in folder.glob("rep-*") if p.is_dir())[:replicates]
        for method in methods:
            if row.d > max_d.get(method, 10**9):
                continue
            jobs.extend(Job(str(folder), row.scm, r, method) for r in reps)
    return jobs


def read_cache(path: Path | None) -> dict[tuple[str, str, str], dict[str, Any]]:
    if path is None or not path.is_file():
        return {}
    out = {}
    for line in path.read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            out[(r["scm"], r["replicate"], r["method"])] = r
    return out


_LIBRARIES = {"pc": "causallearn.search.ConstraintBased.PC",
              "ges": "causallearn.search.ScoreBased.GES",
              "lingam": "causallearn.search.FCMBased.lingam"}


def run_all(jobs: list[Job], cache: Path | None, workers: int,
            timeout: float | None = None) -> list[dict[str, Any]]:
    """Every job's record, computing only what the cache lacks (appended as it comes)."""
    done = read_cache(cache)
    todo = [j for j in jobs if (j.scm, j.replicate, j.method) not in done]
    for method in {j.method for j in todo}:  # import once here, not in every forked child
        if method in _LIBRARIES:
            importlib.import_module(_LIBRARIES[method])
    sink = cache.open("a") if cache else None
    try:
        results: Iterable[dict[str, Any]]
        if workers > 1:
            executor = ProcessPoolExecutor(workers)
            results = executor.map(run_limited, todo, [timeout] * len(todo))
        else:
            results = (run_limited(j, timeout) for j in todo)
        for k, rec in enumerate(results, 1):
            done[(rec["scm"], rec["replicate"], rec["method"])] = rec
            if sink:
                sink.write(json.dumps(rec) + "\n")
                sink.flush()
            print(f"[{k}/{len(todo)}] {rec['method']} {rec['scm']} {rec['replicate']} "
                  f"F1 {rec['f1']:.3f} ({rec['cpu']:.1f}s, {rec['status']})", file=sys.stderr)
    finally:
        if sink:
            sink.close()
    return [done[(j.scm, j.replicate, j.method)] for j in jobs]


def _mean_se(values: np.ndarray) -> tuple[float, float]:
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    return float(values.mean()), float(values.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan


def scm_table(records: pd.DataFrame, scms: pd.DataFrame, method: str,
              breakdown: str) -> pd.DataFrame:
    """SCM-level F1 (replicates averaged first) by slice, beside the paper's value."""
    per = (records[records.method == method].groupby("scm")["f1"].mean()
           .rename("f1").reset_index().merge(scms, on="scm"))
    if breakdown == "difficulty":
        per = per.explode("difficulty")
    rows = []
    for level, grp in per.groupby(per[breakdown].astype(str), sort=False):
        mean, se = _mean_se(grp["f1"].to_numpy())
        rows.append(_row(method, breakdown, str(level), len(grp), mean, se))
    return _order(pd.DataFrame(rows), breakdown)


def edge_table(records: pd.DataFrame, method: str, breakdown: str,
               seed: int = 0) -> pd.DataFrame:
    """Edge-level F1 from TP/FP/FN pooled by child tag, bootstrap SE over SCMs."""
    recs = records[records.method == method]
    per_scm: dict[str, dict[str, np.ndarray]] = {}
    for rec in recs.itertuples():
        reps = len(recs[recs.scm == rec.scm])
        slot = per_scm.setdefault(rec.scm, {})
        for tag, c in rec.counts[breakdown].items():
            slot[tag] = slot.get(tag, np.zeros(3)) + np.asarray(c, float) / reps
    scm_ids = sorted(per_scm)
    tags = sorted({t for v in per_scm.values() for t in v})
    mat = np.zeros((len(scm_ids), len(tags), 3))
    for i, s in enumerate(scm_ids):
        for t, c in per_scm[s].items():
            mat[i, tags.index(t)] = c
    rng = np.random.default_rng(seed)
    boot = mat[rng.integers(0, len(scm_ids), (BOOTSTRAP, len(scm_ids)))].sum(axis=1)
    rows = []
    for k, tag in enumerate(tags):
        tp, fp, fn = mat[:, k].sum(axis=0)
        f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else math.nan
        b = boot[:, k]
        with np.errstate(invalid="ignore", divide="ignore"):
            bf = 2 * b[:, 0] / (2 * b[:, 0] + b[:, 1] + b[:, 2])
        n = int((mat[:, k].sum(axis=1) > 0).sum())
        rows.append(_row(method, breakdown, tag, n, f1, float(np.nanstd(bf, ddof=1))))
    return _order(pd.DataFrame(rows), breakdown)


def _row(method: str, breakdown: str, level: str, n: int, mean: float,
         se: float) -> dict[str, Any]:
    p = paper(method, breakdown, level)
    return {"slice": level, "n": n, "ours": mean, "se": se, "paper": p,
            "diff": None if p is None else mean - p}


def _order(table: pd.DataFrame, breakdown: str) -> pd.DataFrame:
    known = list(_TABLES[breakdown])
    key = {s: (known.index(s) if s in known else len(known)) for s in table["slice"]}
    return table.sort_values("slice", key=lambda s: s.map(key)).reset_index(drop=True)


def render(table: pd.DataFrame, title: str, markdown: bool) -> str:
    def fmt(v: Any) -> str:
        return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.3f}"

    head = ["slice", "n", "ours", "se", "paper", "diff"]
    body = [[str(r.slice), str(r.n), fmt(r.ours), fmt(r.se), fmt(r.paper),
             ("-" if r.diff is None or math.isnan(r.diff) else f"{r.diff:+.3f}")]
            for r in table.itertuples()]
    if markdown:
        lines = [f"**{title}**", "", "| " + " | ".join(head) + " |",
                 "|" + "|".join(["---"] * len(head)) + "|"]
        lines += ["| " + " | ".join(b) + " |" for b in body]
        return "\n".join(lines) + "\n"
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h)
              for i, h in enumerate(head)]
    out = [title, "  ".join(h.ljust(w) for h, w in zip(head, widths))]
    out += ["  ".join(c.ljust(w) for c, w in zip(b, widths)) for b in body]
    return "\n".join(out) + "\n"


def report(records: list[dict[str, Any]], scms: pd.DataFrame, methods: Sequence[str],
           breakdowns: Sequence[str], markdown: bool) -> str:
    frame = pd.DataFrame(records)
    parts = []
    for method in methods:
        sub = frame[frame.method == method]
        if sub.empty:
            continue
        failed = int((sub.status != "ok").sum())
        mean, se = _mean_se(sub.groupby("scm")["f1"].mean().to_numpy())
        parts.append(f"## {method} (paper: {PAPER_NAME[method]}): {sub.scm.nunique()} SCMs, "
                     f"{len(sub)} runs, {failed} failed, CPU {sub.cpu.sum():.0f}s; "
                     f"mean F1 {mean:.3f} (se {se:.3f})\n")
        for b in breakdowns:
            table = (edge_table(sub, method, b) if b in EDGE_LEVEL
                     else scm_table(sub, scms, method, b))
            parts.append(render(table, f"{method}: F1 by {TITLES[b]}", markdown))
    return "\n".join(parts)


def _max_d(text: str | None) -> dict[str, int]:
    out = {}
    for part in filter(None, (text or "").split(",")):
        method, _, d = part.partition("=")
        out[method.strip()] = int(d)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pool", type=Path, help="a compiled pool folder (with manifest.json)")
    ap.add_argument("--methods", default="pc", help=f"comma-separated, of {', '.join(METHODS)}")
    ap.add_argument("--per-cell", type=int, default=None,
                    help="at most this many SCMs per graph x d cell (first by id)")
    ap.add_argument("--d", default=None, help="only these dimensions, e.g. 10,20")
    ap.add_argument("--graph", default=None, help="only these graph families, e.g. chain,tree")
    ap.add_argument("--max-d", default=None, help="skip larger d for a method, e.g. ges=50")
    ap.add_argument("--replicates", type=int, default=None, help="first N replicates (all)")
    ap.add_argument("--workers", "-j", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=None,
                    help="wall seconds per run; a run past it is recorded as a timeout")
    ap.add_argument("--cache", type=Path, default=None, help="JSON-lines cache of runs")
    ap.add_argument("--breakdowns", default=",".join(BREAKDOWNS))
    ap.add_argument("--markdown", action="store_true", help="markdown tables")
    args = ap.parse_args(argv)
    # SIGTERM unwinds like Ctrl-C, so a run's forked child is terminated with its pool
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    bad = [m for m in methods if m not in METHODS]
    if bad:
        ap.error(f"unknown method {', '.join(bad)}; choose from {', '.join(METHODS)}")
    unknown = [b for b in args.breakdowns.split(",") if b not in BREAKDOWNS]
    if unknown:
        ap.error(f"unknown breakdown {', '.join(unknown)}; choose from {', '.join(BREAKDOWNS)}")
    if not (args.pool / "manifest.json").is_file():
        ap.error(f"{args.pool} has no manifest.json; compile a pool first (see --help)")
    scms = pool_rows(args.pool).sort_values("scm")
    if args.d:
        scms = scms[scms.d.isin([int(v) for v in args.d.split(",")])]
    if args.graph:
        scms = scms[scms.graph.isin(args.graph.split(","))]
    if args.per_cell:
        scms = scms.groupby(["graph", "d"]).head(args.per_cell)
    jobs = jobs_for(args.pool, scms, methods, _max_d(args.max_d), args.replicates)
    records = run_all(jobs, args.cache, args.workers, args.timeout)
    print(report(records, scms, methods, args.breakdowns.split(","), args.markdown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
