"""Round trips through every graph format, and every accepted prediction layout."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from scmspec.interop import InteropError, MixedGraph, read_graph, read_prediction, write_graph
from scmspec.interop.formats import GRAPH_FORMATS, from_causallearn, supports, to_causallearn

NODES = ["x", "m", "y", "z"]
GRAPHS = {
    "dag": MixedGraph.from_dag(NODES, [[0, 1, 1, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0]]),
    "cpdag": MixedGraph.build(NODES, directed=[[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1],
                                               [0, 0, 0, 0]],
                              undirected=[[0, 1, 1, 0], [1, 0, 1, 0], [1, 1, 0, 0], [0, 0, 0, 0]]),
    # x -> m and x <-> m on one pair, m -> y, x <-> z
    "admg": MixedGraph.build(NODES, directed=[[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0],
                                              [0, 0, 0, 0]],
                             bidirected=[[0, 1, 0, 1], [1, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]]),
    "empty": MixedGraph.build(NODES),
}
ATTRS = {"x": {"kind": "continuous", "unit": "m", "observed": True, "levels": None},
         "m": {"kind": "ordinal", "levels": ["lo", "hi"]}}


@pytest.mark.parametrize("fmt", GRAPH_FORMATS)
@pytest.mark.parametrize("kind", sorted(GRAPHS))
def test_every_format_round_trips(tmp_path: Path, fmt: str, kind: str) -> None:
    g = GRAPHS[kind]
    if not supports(fmt, g):
        with pytest.raises(InteropError, match="cannot hold"):
            write_graph(g, tmp_path / kind, fmt)
        return
    files = write_graph(g, tmp_path / kind, fmt, ATTRS, {"id": "demo", "graph": kind})
    back = read_graph(files[0], nodes=NODES)
    assert back == g
    assert back.nodes == g.nodes  # node order survives too


def test_networkx_layout_gives_the_cpdag_matrix(tmp_path: Path) -> None:
    (path,) = write_graph(GRAPHS["cpdag"], tmp_path / "cpdag", "networkx")
    graph = read_graph(path)
    assert np.array_equal(graph.cpdag_matrix(), GRAPHS["cpdag"].cpdag_matrix())
    gml = nx.read_gml(write_graph(GRAPHS["cpdag"], tmp_path / "c", "gml")[0])
    assert np.array_equal(nx.to_numpy_array(gml, nodelist=NODES), GRAPHS["cpdag"].cpdag_matrix())


def test_admg_adjacency_is_two_matrices(tmp_path: Path) -> None:
    files = write_graph(GRAPHS["admg"], tmp_path / "admg", "adjacency")
    assert [f.name for f in files] == ["admg_directed.csv", "admg_bidirected.csv"]


def test_dot_and_bnlearn_text(tmp_path: Path) -> None:
    dot = write_graph(GRAPHS["admg"], tmp_path / "g", "dot")[0].read_text()
    assert '"x" -> "z" [dir=both, style=dashed];' in dot
    bn = write_graph(GRAPHS["dag"], tmp_path / "g", "bnlearn")[0].read_text().strip()
    assert bn == "[x][m|x][y|x:m][z|y]"


def test_dot_quotes_unusual_names(tmp_path: Path) -> None:
    g = MixedGraph.from_dag(['a "q"', "b c"], [[0, 1], [0, 0]])
    assert read_graph(write_graph(g, tmp_path / "q", "dot")[0]) == g


def test_causallearn_codes() -> None:
    m = to_causallearn(GRAPHS["admg"])
    assert (m[0, 1], m[1, 0]) == (4, 5)  # x -> m plus x <-> m
    assert (m[1, 2], m[2, 1]) == (-1, 1)  # m -> y: tail at m, arrow at y
    assert (m[0, 3], m[3, 0]) == (1, 1)  # x <-> z
    pag = np.array([[0, 2, 2], [1, 0, 0], [2, 0, 0]])  # a o-> b, a o-o c
    g = from_causallearn(pag, ["a", "b", "c"])
    assert set(g.edges()) == {("a", "b", "directed"), ("a", "c", "undirected")}
    with pytest.raises(InteropError, match="not a causal-learn edge"):
        from_causallearn(np.array([[0, 3], [3, 0]]), ["a", "b"])


# -- predictions ---------------------------------------------------------------------------------
def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


EXPECTED = {("x", "m", "directed"), ("m", "y", "undirected")}


@pytest.mark.parametrize("name,text", [
    ("header_index.csv", ",x,m,y,z\nx,0,1,0,0\nm,0,0,1,0\ny,0,1,0,0\nz,0,0,0,0\n"),
    ("header_only.csv", "x,m,y,z\n0,1,0,0\n0,0,1,0\n0,1,0,0\n0,0,0,0\n"),
    ("index_only.csv", "x,0,1,0,0\nm,0,0,1,0\ny,0,1,0,0\nz,0,0,0,0\n"),
    ("bare.csv", "0,1,0,0\n0,0,1,0\n0,1,0,0\n0,0,0,0\n"),
    ("reordered.csv", ",z,y,m,x\nz,0,0,0,0\ny,0,0,1,0\nm,0,1,0,0\nx,0,0,1,0\n"),
    ("edges.txt", "# comment\nx -> m\nm -- y\n"),
    ("arrows.txt", "m <- x\ny --- m\nz\n"),
    ("edges.csv", "source,target,type\nx,m,directed\nm,y,undirected\n"),
    ("plain_edges.csv", "source,target\nx,m\nm,y\ny,m\n"),
    ("model.txt", "[x][m|x][y|m][z]\n"),
])
def test_prediction_layouts(tmp_path: Path, name: str, text: str) -> None:
    got = read_prediction(write(tmp_path, name, text), NODES)
    if name == "model.txt":  # bnlearn model strings hold DAGs only
        assert set(got.edges()) == {("x", "m", "directed"), ("m", "y", "directed")}
        return
    assert set(got.edges()) == EXPECTED and got.nodes == tuple(NODES)


def test_prediction_npy_adjacency_causallearn_and_weighted(tmp_path: Path) -> None:
    adj = np.array([[0, 1, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0]])
    np.save(tmp_path / "a.npy", adj)
    assert set(read_prediction(tmp_path / "a.npy", NODES).edges()) == EXPECTED
    g = MixedGraph.build(NODES, directed=[[0, 1, 0, 0]] + [[0] * 4] * 3,
                         undirected=np.array([[0, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0],
                                              [0, 0, 0, 0]]))
    np.save(tmp_path / "cl.npy", to_causallearn(g))
    assert read_prediction(tmp_path / "cl.npy", NODES) == g
    np.save(tmp_path / "w.npy", np.array([[0, 0.9, 0.1, 0], [0, 0, -0.7, 0], [0, 0.6, 0, 0],
                                          [0.2, 0, 0, 0]]))
    assert set(read_prediction(tmp_path / "w.npy", NODES).edges()) == EXPECTED
    assert set(read_prediction(tmp_path / "w.npy", NODES, threshold=0.65).edges()) == {
        ("x", "m", "directed"), ("m", "y", "directed")}
    np.save(tmp_path / "nan.npy", np.full((4, 4), np.nan))
    with pytest.raises(InteropError, match="NaN"):
        read_prediction(tmp_path / "nan.npy", NODES)


@pytest.mark.parametrize("name,text,message", [
    ("bad_names.csv", ",x,m,q,z\nx,0,1,0,0\nm,0,0,0,0\nq,0,0,0,0\nz,0,0,0,0\n", "unknown: q"),
    ("short.csv", "0,1\n0,0\n", "does not fit 4"),
    ("ragged.csv", "x,m,y,z\n0,1,0,0\n0,0,1,0\n", "not square"),
    ("blank.csv", "0,1,0,0\n0,0,,0\n0,0,0,0\n0,0,0,0\n", "not a number"),
    ("edges.txt", "x => m\n", "cannot read"),
    ("unknown.txt", "x -> q\n", "does not have: q"),
    ("loop.txt", "x -> x\n", "self loop"),
    ("header.csv", "garbage,,,\n", "no matrix rows"),
    ("ragged_rows.csv", "0,1\n0,1,1,0,0\n", "cannot read"),
    ("broken.json", "{not json", "cannot read"),
    ("broken.gml", "graph [ node [", "cannot read"),
    ("weights.csv", "0,2.5,0,0\n0,0,0,0\n0,0,0,0\n0,0,0,0\n", None),
])
def test_invalid_predictions_say_why(tmp_path: Path, name: str, text: str,
                                     message: str | None) -> None:
    path = write(tmp_path, name, text)
    if message is None:  # weighted read works; the strict adjacency encoding refuses it
        assert set(read_prediction(path, NODES).edges()) == {("x", "m", "directed")}
        with pytest.raises(InteropError, match="only 0 and 1"):
            read_prediction(path, NODES, encoding="adjacency")
        return
    with pytest.raises(InteropError, match=message):
        read_prediction(path, NODES)
