"""Exported DOT is accepted by networkx (pydot), pgmpy and DoWhy, as a string and as a file.

Each library test skips, with the reason, where the library is not installed. DoWhy pins
scipy below what scmspec needs, so CI leaves it out; run this file in a separate environment
with ``pip install dowhy`` to exercise it (docs/interop.md).
"""

from __future__ import annotations

import re
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from scmspec.interop.formats import read_graph, write_graph
from scmspec.interop.graphs import MixedGraph

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pydot's pyparsing calls

NODES = ["smoking_rate", "tar", "cancer", "age"]
EDGES = {("smoking_rate", "tar"), ("tar", "cancer"), ("age", "cancer"), ("age", "smoking_rate")}


@pytest.fixture()
def dot_file(tmp_path: Path) -> Path:
    a = np.zeros((4, 4), dtype=int)
    for u, v in EDGES:
        a[NODES.index(u), NODES.index(v)] = 1
    (path,) = write_graph(MixedGraph.from_dag(NODES, a), tmp_path / "dag", "dot",
                          graph_attrs={"id": "smoking", "graph": "dag"})
    return path


def test_dot_matches_dowhys_rule_for_a_dot_string(dot_file: Path) -> None:
    """DoWhy (dowhy/causal_graph.py, dowhy/graph.py) joins a graph string's lines, then takes
    it as DOT iff it matches ``.*graph\\s*\\{.*\\}\\s*``: a quoted graph name between
    ``digraph`` and ``{`` makes it "Incorrect format"."""
    text = dot_file.read_text(encoding="utf-8").replace("\n", " ")
    assert re.match(r".*graph\s*\{.*\}\s*", text)
    assert not re.match(r".*\.dot", text) and not re.match(r".*\.txt", text)
    assert set(read_graph(dot_file).edges()) == {(u, v, "directed") for u, v in EDGES}


def _edges(g: nx.Graph) -> set[tuple[str, str]]:
    return {(str(u), str(v)) for u, v in g.edges()}


def test_networkx_reads_the_dot_string_and_file(dot_file: Path) -> None:
    pydot = pytest.importorskip("pydot", reason="networkx reads DOT through pydot "
                                                "(pip install pydot)")
    from_file = nx.nx_pydot.read_dot(dot_file)
    (parsed,) = pydot.graph_from_dot_data(dot_file.read_text(encoding="utf-8"))
    from_string = nx.nx_pydot.from_pydot(parsed)
    for g in (from_file, from_string):
        assert set(map(str, g.nodes)) == set(NODES) and _edges(g) == EDGES


def test_pgmpy_builds_a_dag_from_the_dot_string_and_file(dot_file: Path) -> None:
    """pgmpy has no DOT reader of its own (its text reader is DAGitty): a DOT graph reaches it
    through networkx."""
    pydot = pytest.importorskip("pydot", reason="networkx reads DOT through pydot")
    pgmpy_base = pytest.importorskip("pgmpy.base", reason="pgmpy is not installed")
    (parsed,) = pydot.graph_from_dot_data(dot_file.read_text(encoding="utf-8"))
    for g in (nx.nx_pydot.read_dot(dot_file), nx.nx_pydot.from_pydot(parsed)):
        dag = pgmpy_base.DAG(nx.DiGraph(g))
        assert set(dag.nodes()) == set(NODES) and _edges(dag) == EDGES


def test_dowhy_reads_the_dot_string_and_file(dot_file: Path) -> None:
    pytest.importorskip("pydot", reason="DoWhy reads DOT through pydot or pygraphviz")
    dowhy = pytest.importorskip("dowhy", reason="dowhy is not installed (it pins scipy<1.16; "
                                                "run this file in a separate environment)")
    from dowhy.graph import build_graph_from_str

    text = dot_file.read_text(encoding="utf-8")
    for source in (text, str(dot_file)):
        assert _edges(build_graph_from_str(source)) == EDGES
        data = pd.DataFrame(np.random.default_rng(0).normal(size=(50, 4)), columns=NODES)
        model = dowhy.CausalModel(data=data, treatment="tar", outcome="cancer", graph=source)
        assert _edges(model._graph._graph) == EDGES
