"""Python hand-offs to other libraries: networkx graphs and DoWhy gcm model skeletons.

DoWhy is optional and imported only inside :func:`to_dowhy_gcm`, so ``import scmspec.interop``
never needs it.
"""

from __future__ import annotations

import warnings
from typing import Any

import networkx as nx
import pandas as pd

from scmspec.interop.formats import to_nx
from scmspec.interop.graphs import InteropError, MixedGraph
from scmspec.interop.truth import GroundTruth, load_truth

GRAPH_KINDS = ("dag", "cpdag", "full", "admg", "mag")


def truth_of(source: object) -> GroundTruth:
    """A :class:`GroundTruth` from itself, a compiled SCM folder, or an :class:`scmspec.SCM`."""
    return source if isinstance(source, GroundTruth) else load_truth(source)


def graph_of(truth: GroundTruth, kind: str) -> MixedGraph:
    """One of the ground-truth graphs by name (see :data:`GRAPH_KINDS`)."""
    if kind not in GRAPH_KINDS:
        raise InteropError(f"unknown graph {kind!r}", f"use one of {', '.join(GRAPH_KINDS)}")
    if kind == "mag":  # a MAG has no circles, so it is a mixed graph (-- for selection)
        return truth.mag.to_mixed()
    return getattr(truth, kind)  # type: ignore[no-any-return]


def node_attributes(truth: GroundTruth) -> dict[str, dict[str, Any]]:
    """Per-variable kind, unit, role and observed flag from ``metadata.json``."""
    variables = truth.metadata.get("variables", {})
    keep = ("kind", "unit", "role", "observed")
    return {v: {k: spec.get(k) for k in keep if spec.get(k) is not None}
            for v, spec in variables.items()}


def to_networkx(source: object, graph: str = "dag") -> nx.DiGraph:
    """The true graph as networkx: a ``DiGraph`` for ``dag`` / ``full`` / ``cpdag`` (undirected
    CPDAG edges appear in both directions with ``type="undirected"``) and a ``MultiDiGraph``
    for an ``admg`` with bidirected edges. Node attributes: kind, unit, role, observed.

    Example:
        >>> import scmspec
        >>> scm = scmspec.compile_text('''
        ... id: demo
        ... title: demo
        ... family: semantic
        ... domain: demo
        ... variables:
        ...   x: {meaning: cause, distribution: {kind: normal}}
        ...   y: {meaning: effect, equation: 2 * x, noise: {kind: normal, sd: 0.1}}
        ... edges: [{from: x, to: y, reason: demo}]
        ... ''')
        >>> sorted(to_networkx(scm).edges())
        [('x', 'y')]
    """
    truth = truth_of(source)
    return to_nx(graph_of(truth, graph), node_attributes(truth), {"id": truth.id, "graph": graph})


def to_dowhy_gcm(source: object, data: pd.DataFrame | None = None,
                 invertible: bool = False) -> Any:
    """A DoWhy ``gcm.StructuralCausalModel`` (or ``InvertibleStructuralCausalModel``) on the true
    observed DAG. With ``data``, mechanisms are assigned by ``gcm.auto.assign_causal_mechanisms``
    (fit them with ``gcm.fit``); without, it is a skeleton with the graph only.

    Needs the optional dependency DoWhy (``pip install 'scmspec[dowhy]'``). With latent
    variables the observed DAG is not causally sufficient and a warning says so.
    """
    try:
        from dowhy import gcm
    except ImportError:
        raise ImportError("to_dowhy_gcm needs DoWhy, which is not installed: "
                          "pip install 'scmspec[dowhy]' (or pip install dowhy)") from None
    truth = truth_of(source)
    if truth.latent:
        warnings.warn(f"{truth.id} has latent variables ({', '.join(truth.latent)}); the DoWhy "
                      "model uses the observed DAG, which omits latent confounding",
                      stacklevel=2)
    graph = nx.DiGraph(to_networkx(truth, "dag"))
    model_cls = gcm.InvertibleStructuralCausalModel if invertible else gcm.StructuralCausalModel
    model = model_cls(graph)
    if data is not None:
        gcm.auto.assign_causal_mechanisms(model, data)
    return model
