"""Ground truth of one compiled SCM: the observed DAG, its CPDAG, the full DAG, the ADMG, the
MAG and the PAG.

Reads a compiled SCM folder (``DATA_DIR/<id>/`` with ``metadata.json`` and ``graph/``) or takes an
in-memory :class:`scmspec.SCM`, and derives every graph the interop and scoring layers need.
The observed DAG is ``graph/adjacency.csv`` (the full DAG restricted to observed variables);
the ADMG is the latent projection of ``graph/adjacency_full.csv`` (it ignores selection); the
MAG folds in both latent variables and selection (the variables the condition reads), and the
PAG is the MAG's Markov equivalence class, the target of FCI (see :data:`SELECTION_STATEMENT`).
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from scmspec.interop.ancestral import mag_from_dag
from scmspec.interop.graphs import InteropError, MixedGraph, cpdag, latent_projection
from scmspec.interop.marks import MarkGraph
from scmspec.interop.pag import pag_from_mag

SELECTION_STATEMENT = (
    "The data are conditioned on the selection condition (only rows where it holds are kept). "
    "The DAG, CPDAG and ADMG are the causal graphs before selection (the ADMG ignores "
    "selection). The "
    "MAG and PAG encode selection: a selection node, child of the variables the condition "
    "reads, is conditioned on, so an ancestor of it has a tail mark (an undirected edge when "
    "both ends are)."
)
LATENT_STATEMENT = (
    "The observed DAG is the full DAG restricted to observed variables (paths through latent "
    "variables are dropped); the CPDAG is that DAG's Markov equivalence class. With latent "
    "variables the observed distribution need not be Markov to either: use the MAG (or its "
    "equivalence class, the PAG, which FCI estimates) for the independences of the observed "
    "data, and the ADMG (latent projection) for the causal structure among observed variables."
)


@dataclass(frozen=True)
class GroundTruth:
    """Every ground-truth graph of one SCM, derived from its full DAG.

    Example:
        >>> full = MixedGraph.from_dag("uxy", [[0, 1, 1], [0, 0, 1], [0, 0, 0]])
        >>> t = GroundTruth("demo", ("x", "y"), full, ("u",))
        >>> list(t.dag.edges()), sorted(t.admg.edges())
        ([('x', 'y', 'directed')], [('x', 'y', 'bidirected'), ('x', 'y', 'directed')])
        >>> t.mag.lines(), t.pag.lines()
        (['x --> y'], ['x o-o y'])
    """

    id: str
    observed: tuple[str, ...]
    full: MixedGraph
    latent: tuple[str, ...] = ()
    selection: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def dag(self) -> MixedGraph:
        """The DAG over observed variables (row i -> column j), as in ``adjacency.csv``."""
        idx = [self.full.nodes.index(n) for n in self.observed]
        sub = self.full.directed[idx][:, idx]
        return MixedGraph.from_dag(self.observed, sub)

    @cached_property
    def cpdag(self) -> MixedGraph:
        return cpdag(self.dag)

    @cached_property
    def admg(self) -> MixedGraph:
        """Latent projection onto the observed variables (equals the DAG without latents)."""
        return latent_projection(self.full, self.latent).reorder(self.observed)

    @cached_property
    def mag(self) -> MarkGraph:
        """The maximal ancestral graph over the observed variables, latent variables and
        selection folded in (equals the DAG without either)."""
        return mag_from_dag(self.full, self.latent, self.selection_variables).reorder(
            self.observed)

    @cached_property
    def pag(self) -> MarkGraph:
        """The PAG: the MAG's Markov equivalence class, what FCI estimates from data."""
        return pag_from_mag(self.mag)

    @property
    def has_projection(self) -> bool:
        """True when the card has latent variables or selection (the ADMG is exported)."""
        return bool(self.latent) or self.selection is not None

    @cached_property
    def selection_variables(self) -> tuple[str, ...]:
        return selection_variables(self.selection, self.full.nodes)

    def statement(self) -> dict[str, Any]:
        """What is exported for latent variables and selection, in words and names."""
        return {
            "id": self.id, "observed": list(self.observed), "latent": list(self.latent),
            "selection": None if self.selection is None else {
                "condition": self.selection, "variables": list(self.selection_variables),
                "observed_variables": [v for v in self.selection_variables
                                       if v in self.observed],
                "statement": SELECTION_STATEMENT},
            "latent_statement": LATENT_STATEMENT if self.latent else None,
        }


def selection_variables(condition: str | None, names: tuple[str, ...]) -> tuple[str, ...]:
    """Variables named in a selection condition, in graph order.

    Example:
        >>> selection_variables("survived == 1 and age > 3", ("age", "survived", "z"))
        ('age', 'survived')
    """
    if not condition:
        return ()
    try:
        tree = ast.parse(condition, mode="eval")
    except SyntaxError:
        return tuple(n for n in names if n in condition)
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return tuple(n for n in names if n in used)


def load_truth(source: object) -> GroundTruth:
    """Ground truth from a compiled SCM folder (``DATA_DIR/<id>``) or an :class:`scmspec.SCM`."""
    if isinstance(source, (str, Path)):
        return _from_folder(Path(source))
    if hasattr(source, "compiled") and hasattr(source, "adjacency"):
        return _from_scm(source)
    raise InteropError(f"cannot read ground truth from {type(source).__name__}",
                       "pass a compiled SCM folder (DATA_DIR/<id>) or an scmspec.SCM")


def _from_folder(folder: Path) -> GroundTruth:
    meta_path, full_path = folder / "metadata.json", folder / "graph" / "adjacency_full.csv"
    if not meta_path.is_file() or not full_path.is_file():
        raise InteropError(f"{folder} is not a compiled SCM folder (no metadata.json or "
                           "graph/adjacency_full.csv)", "pass DATA_DIR/<id> from scmspec compile")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    full = pd.read_csv(full_path, index_col=0)
    graph = MixedGraph.from_dag([str(c) for c in full.columns], full.to_numpy())
    latent = tuple(meta.get("latent") or ())
    observed_path = folder / "graph" / "adjacency.csv"
    if observed_path.is_file():
        observed = tuple(str(c) for c in pd.read_csv(observed_path, index_col=0, nrows=0).columns)
    else:
        observed = tuple(n for n in graph.nodes if n not in latent)
    return GroundTruth(str(meta.get("id", folder.name)), observed, graph, latent,
                       meta.get("selection"), meta)


def _from_scm(scm: Any) -> GroundTruth:
    card = scm.compiled.card
    full = scm.adjacency(observed_only=False)
    graph = MixedGraph.from_dag([str(c) for c in full.columns], full.to_numpy())
    latent = tuple(v for v, s in card.variables.items() if not s.observed)
    meta = {"id": card.id, "family": card.family, "domain": card.domain, "title": card.title,
            "variables": {v: {"kind": s.kind, "unit": s.unit, "role": s.role,
                              "observed": s.observed, "levels": s.levels}
                          for v, s in card.variables.items()}}
    selection = card.selection.condition if card.selection else None
    return GroundTruth(card.id, tuple(scm.observed), graph, latent, selection, meta)


def scm_folders(data_dir: Path) -> list[Path]:
    """The SCM folders under a pool (manifest order) or ``[data_dir]`` for one SCM folder."""
    data_dir = Path(data_dir)
    if (data_dir / "metadata.json").is_file():
        return [data_dir]
    manifest = data_dir / "manifest.json"
    if not manifest.is_file():
        raise InteropError(f"{data_dir} has neither manifest.json nor metadata.json",
                           "pass the --out folder of scmspec compile, or one DATA_DIR/<id>")
    entries = json.loads(manifest.read_text(encoding="utf-8")).get("scms", [])
    ids = [e["id"] for e in entries if e.get("id")]
    return [data_dir / i for i in ids if (data_dir / i / "metadata.json").is_file()]
