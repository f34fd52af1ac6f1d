"""Export compiled SCMs: ground-truth graphs in graph formats, data in table and toolkit layouts.

Takes a compiled pool (``DATA_DIR`` with ``manifest.json``) or one SCM folder and writes, per SCM,
``OUT/<id>/truth.json`` (latent variables, selection statement, conventions) plus the requested
formats. Nothing under ``DATA_DIR`` is modified. The layouts are documented in docs/interop.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd

from scmspec.interop.formats import SUFFIX, supports, to_causallearn, write_graph
from scmspec.interop.graphs import InteropError
from scmspec.interop.toolkits import graph_of, node_attributes, to_networkx
from scmspec.interop.truth import GroundTruth, load_truth, scm_folders
from scmspec.textio import read_table

GRAPH_EXPORTS = ("adjacency", "networkx", "gml", "graphml", "dot", "bnlearn")
DATA_EXPORTS = ("csv", "parquet")
TOOLKIT_EXPORTS = ("causal-learn", "gcastle", "dowhy")
EXPORT_FORMATS = (*GRAPH_EXPORTS, *DATA_EXPORTS, *TOOLKIT_EXPORTS)
CONVENTIONS = {
    "adjacency": "row i, column j is 1 iff i -> j",
    "cpdag": "A[i,j]=1, A[j,i]=0 is i -> j; A[i,j]=A[j,i]=1 is i -- j",
    "admg": "two matrices: <name>_directed.csv (i -> j) and <name>_bidirected.csv (symmetric)",
    "causal-learn": "M[i,j] is the endpoint mark at i: -1 tail, 1 arrow, 2 circle; i -> j is "
                    "M[i,j]=-1, M[j,i]=1; i -- j both -1; i <-> j both 1; i o-> j is M[i,j]=2, "
                    "M[j,i]=1; i -> j plus i <-> j is 4/5",
    "mag": "maximal ancestral graph: latent variables and selection folded in; i -- j means "
           "both are ancestors of the selection",
    "pag": "pag.txt: one edge per line, a mark at each end: '-' tail, '<'/'>' arrowhead, 'o' "
           "circle (a o-> b); the MAG's Markov equivalence class, what FCI estimates",
    "regime": "0 = observational row; k >= 1 = k-th distinct target set (see regimes.json)",
}


@dataclass
class ExportResult:
    """Files written for one SCM (relative to the output folder)."""

    id: str
    files: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def expand_formats(formats: Sequence[str]) -> list[str]:
    """Validate ``--to`` values; ``all`` means every format."""
    chosen: list[str] = []
    for f in formats:
        names = EXPORT_FORMATS if f == "all" else (f,)
        for n in names:
            if n not in EXPORT_FORMATS:
                raise InteropError(f"unknown export format {n!r}",
                                   f"use one of {', '.join(EXPORT_FORMATS)} or all")
            if n not in chosen:
                chosen.append(n)
    return chosen


def export(data_dir: Path, formats: Sequence[str], out: Path) -> list[ExportResult]:
    """Export every SCM under ``data_dir`` into ``out``; also writes ``out/export.json``."""
    chosen = expand_formats(formats)
    results = [export_one(folder, chosen, out) for folder in scm_folders(Path(data_dir))]
    index = {"format": "scmspec.export/1", "formats": chosen, "conventions": CONVENTIONS,
             "scms": {r.id: {"files": r.files, "skipped": r.skipped} for r in results}}
    out.mkdir(parents=True, exist_ok=True)
    (out / "export.json").write_text(json.dumps(index, indent=2, sort_keys=True) + "\n",
                                     encoding="utf-8")
    return results


def export_one(folder: Path, formats: Sequence[str], out: Path) -> ExportResult:
    truth = load_truth(folder)
    target = out / truth.id
    res = ExportResult(truth.id)
    target.mkdir(parents=True, exist_ok=True)
    doc = {**truth.statement(), "status": truth.metadata.get("status"),
           "graphs": [*graph_kinds(truth), *(("pag",) if truth.has_projection else ())],
           "conventions": CONVENTIONS}
    _add(res, out, _json(target / "truth.json", doc))
    for fmt in formats:
        if fmt in GRAPH_EXPORTS:
            _export_graphs(truth, fmt, target / "graphs", res, out)
        elif fmt in DATA_EXPORTS:
            for rep in replicate_folders(folder):
                _add(res, out, *_export_tables(rep, target / "data" / rep.name, fmt))
        else:
            _add(res, out, *TOOLKITS[fmt](truth, folder, target / fmt))
    return res


def graph_kinds(truth: GroundTruth) -> tuple[str, ...]:
    """dag, cpdag and full always; admg and mag (and pag, written as text) when the card has
    latent variables or selection."""
    if truth.has_projection:
        return ("dag", "cpdag", "full", "admg", "mag")
    return ("dag", "cpdag", "full")


def _export_graphs(truth: GroundTruth, fmt: str, folder: Path, res: ExportResult,
                   out: Path) -> None:
    attrs = node_attributes(truth)
    for kind in graph_kinds(truth):
        g = graph_of(truth, kind)
        if not supports(fmt, g):
            res.skipped.append(f"graphs/{kind}{SUFFIX[fmt]}: {fmt} holds DAGs only")
            continue
        _add(res, out, *write_graph(g, folder / kind, fmt, attrs, {"id": truth.id, "graph": kind}))
    pag = folder / "pag.txt"
    if truth.has_projection and pag.relative_to(out).as_posix() not in res.files:
        folder.mkdir(parents=True, exist_ok=True)  # one text file, whatever the graph formats
        pag.write_text("\n".join(truth.pag.lines()) + "\n", encoding="utf-8")
        _add(res, out, pag)


def _add(res: ExportResult, out: Path, *paths: Path) -> None:
    res.files.extend(p.relative_to(out).as_posix() for p in paths)


def _json(path: Path, doc: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


# -- data ----------------------------------------------------------------------------------------
def replicate_folders(folder: Path) -> list[Path]:
    reps = [p for p in folder.glob("rep-*") if p.is_dir() and re.fullmatch(r"rep-\d+", p.name)]
    return sorted(reps, key=lambda p: int(p.name.split("-")[1]))


@dataclass(frozen=True)
class Replicate:
    """One replicate's tables, with a regime label per obs+int row."""

    obs: pd.DataFrame
    obsint: pd.DataFrame
    mask: pd.DataFrame
    regime: np.ndarray
    regimes: list[dict[str, object]]


def read_replicate(rep: Path) -> Replicate:
    """Load ``rep-<r>/``; regime 0 is observational, 1.. are the sorted distinct target sets."""
    obsint = read_table(rep / "obsint")
    records = read_table(rep / "obsint_records", keep_default_na=False, dtype={"targets": str})
    targets = records["targets"].astype(str).tolist()
    labels = [""] + sorted({t for t in targets if t})
    code = {t: k for k, t in enumerate(labels)}
    regime = np.array([code[t] for t in targets], dtype=np.int64)
    regimes = [{"regime": k, "targets": t.split(";") if t else [],
                "rows": int((regime == k).sum())} for k, t in enumerate(labels)]
    return Replicate(read_table(rep / "obs"), obsint, read_table(rep / "obsint_mask"),
                     regime, regimes)


def _export_tables(rep: Path, folder: Path, fmt: str) -> list[Path]:
    data = read_replicate(rep)
    folder.mkdir(parents=True, exist_ok=True)
    tables = {"obs": data.obs, "obsint": data.obsint.assign(regime=data.regime),
              "obsint_mask": data.mask}
    written = [_table(frame, folder / name, fmt) for name, frame in tables.items()]
    return [*written, _json(folder / "regimes.json", data.regimes)]


def _table(frame: pd.DataFrame, stem: Path, fmt: str) -> Path:
    path = stem.with_name(stem.name + (".parquet" if fmt == "parquet" else ".csv"))
    if fmt == "parquet":
        frame.to_parquet(path, engine="pyarrow", index=False)
    else:
        frame.to_csv(path, index=False, lineterminator="\n")
    return path


# -- toolkit layouts -------------------------------------------------------------------------
def _nodes(truth: GroundTruth, folder: Path) -> Path:
    return _json(folder / "nodes.json", list(truth.observed))


def _export_causallearn(truth: GroundTruth, src: Path, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    files = [_nodes(truth, folder)]
    for kind in ("dag", "cpdag", *(("admg", "mag") if truth.has_projection else ())):
        path = folder / f"true_{kind}.npy"
        np.save(path, to_causallearn(graph_of(truth, kind)))
        files.append(path)
    if truth.has_projection:  # circles kept: FCI's G.graph encoding
        files.append(_npy(folder / "true_pag.npy", truth.pag.to_causallearn()))
    for rep in replicate_folders(src):
        data, sub = read_replicate(rep), folder / rep.name
        sub.mkdir(exist_ok=True)
        files += [_npy(sub / "obs.npy", data.obs.to_numpy(float)),
                  _npy(sub / "obsint.npy", data.obsint.to_numpy(float)),
                  _npy(sub / "obsint_regime.npy", data.regime.reshape(-1, 1)),
                  _json(sub / "regimes.json", data.regimes)]
    return files


def _export_gcastle(truth: GroundTruth, src: Path, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    files = [_nodes(truth, folder), _npy(folder / "true_dag.npy", truth.dag.directed.astype(int))]
    for rep in replicate_folders(src):
        data, sub = read_replicate(rep), folder / rep.name
        sub.mkdir(exist_ok=True)
        files += [_npy(sub / "X_obs.npy", data.obs.to_numpy(float)),
                  _npy(sub / "X_obsint.npy", data.obsint.to_numpy(float)),
                  _npy(sub / "obsint_mask.npy", data.mask.to_numpy(np.int8)),
                  _npy(sub / "obsint_regime.npy", data.regime),
                  _json(sub / "regimes.json", data.regimes)]
    return files


def _export_dowhy(truth: GroundTruth, src: Path, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    graph_path = folder / "graph.gml"
    plain = nx.DiGraph()
    plain.add_nodes_from(truth.observed)
    plain.add_edges_from(to_networkx(truth, "dag").edges())
    graph_path.write_text("\n".join(nx.generate_gml(plain)) + "\n", encoding="utf-8")
    files = [graph_path]
    for rep in replicate_folders(src):
        data, sub = read_replicate(rep), folder / rep.name
        sub.mkdir(exist_ok=True)
        files += [_table(data.obs, sub / "obs", "csv"),
                  _table(data.obsint.assign(regime=data.regime), sub / "obsint", "csv")]
        for reg in data.regimes:
            k = int(reg["regime"])  # type: ignore[call-overload]
            files.append(_table(data.obsint[data.regime == k], sub / f"regime-{k}", "csv"))
        files.append(_json(sub / "regimes.json", data.regimes))
    return files


def _npy(path: Path, array: np.ndarray) -> Path:
    np.save(path, array)
    return path


TOOLKITS = {"causal-learn": _export_causallearn, "gcastle": _export_gcastle,
            "dowhy": _export_dowhy}
