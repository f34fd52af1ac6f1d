"""Interoperability: ground-truth graphs beyond the DAG, file formats and toolkit hand-offs.

Public API:
    MixedGraph                       directed / undirected / bidirected edges over named nodes
    cpdag(dag)                       Markov equivalence class (Meek rules)
    latent_projection(full, latent)  ADMG over the observed variables
    MarkGraph                        edges with a mark at each end (tail, arrowhead, circle)
    mag_from_dag(full, latent, sel)  the MAG: latent variables and selection folded in
    pag_from_mag(mag)                the PAG (FCI's target): the MAG's equivalence class
    load_truth(source)               every ground-truth graph of one compiled SCM
    to_networkx(source, graph)       networkx DiGraph of the true graph
    to_dowhy_gcm(source, data)       DoWhy gcm model on the true DAG (needs dowhy)
    write_graph / read_graph         graph files (adjacency CSV, node-link JSON, GML, GraphML,
                                     DOT, bnlearn, causal-learn endpoint matrix)
    read_prediction(path, nodes)     a predicted graph in any accepted layout (circles as tails)
    read_marks(path, nodes)          the same with every endpoint mark kept
    export(data_dir, formats, out)   what ``scmspec export`` runs
"""

from __future__ import annotations

from scmspec.interop.ancestral import mag_from_dag
from scmspec.interop.export import EXPORT_FORMATS, export
from scmspec.interop.formats import GRAPH_FORMATS, read_graph, write_graph
from scmspec.interop.graphs import InteropError, MixedGraph, cpdag, latent_projection
from scmspec.interop.marks import MarkGraph
from scmspec.interop.pag import pag_from_mag
from scmspec.interop.predictions import read_marks, read_prediction
from scmspec.interop.toolkits import to_dowhy_gcm, to_networkx
from scmspec.interop.truth import GroundTruth, load_truth

__all__ = [
    "EXPORT_FORMATS", "GRAPH_FORMATS", "GroundTruth", "InteropError", "MarkGraph", "MixedGraph",
    "cpdag", "export", "latent_projection", "load_truth", "mag_from_dag", "pag_from_mag",
    "read_graph", "read_marks", "read_prediction", "to_dowhy_gcm", "to_networkx", "write_graph",
]
