"""Graphs described by their endpoint marks: MAGs, PAGs, and any mixed graph for scoring.

A :class:`MarkGraph` is a set of edges over named nodes; each edge is ``(i, j, mark at i, mark
at j)`` with ``i < j`` and marks :data:`TAIL`, :data:`ARROW` or :data:`CIRCLE`. That one type
holds every graph scmspec scores: a DAG (``->`` edges), a CPDAG (``--`` too), an ADMG (``<->``,
and a pair may carry ``->`` and ``<->`` at once), a MAG (one edge per pair, no circles) and a
PAG (circles: ``o->``, ``o-o``, ``o--``). :class:`~scmspec.interop.graphs.MixedGraph` cannot hold
a circle, which is why PAG truth and PAG predictions go through this type.

Codes follow pcalg's ``amat.pag`` (and :meth:`MarkGraph.matrix`): ``m[i, j]`` is the mark at
``j`` on the edge between ``i`` and ``j``: 0 no edge, 1 circle, 2 arrowhead, 3 tail.
causal-learn's ``GeneralGraph.graph`` is the other way round (``g[i, j]`` is the mark at
``i``) with its own codes; :func:`from_causallearn_marks` and :meth:`MarkGraph.to_causallearn`
translate, keeping circles (unlike :func:`scmspec.interop.formats.from_causallearn`, which
reads a circle as a tail for DAG scoring).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from scmspec.interop.graphs import InteropError, MixedGraph

NONE, CIRCLE, ARROW, TAIL = 0, 1, 2, 3
MARK_NAMES = {CIRCLE: "circle", ARROW: "arrowhead", TAIL: "tail"}
# causal-learn Endpoint codes (causallearn.graph.Endpoint): TAIL -1, ARROW 1, CIRCLE 2.
_CL_TO_MARK = {-1: TAIL, 1: ARROW, 2: CIRCLE}
_MARK_TO_CL = {TAIL: -1, ARROW: 1, CIRCLE: 2}
_CL_BOW = (4, 5)  # TAIL_AND_ARROW at the parent, ARROW_AND_ARROW at the child: -> plus <->
_LEFT = {"<": ARROW, "o": CIRCLE, "": TAIL}
_RIGHT = {">": ARROW, "o": CIRCLE, "": TAIL}
_ARROW_TOKEN = re.compile(r"^(<|o)?-+(>|o)?$")

Edge = tuple[int, int, int, int]


def parse_arrow(token: str) -> tuple[int, int] | None:
    """The marks ``(at the left node, at the right node)`` of an arrow token, or None.

    Example:
        >>> parse_arrow("o->"), parse_arrow("<->"), parse_arrow("--"), parse_arrow("=>")
        ((1, 2), (2, 2), (3, 3), None)
    """
    m = _ARROW_TOKEN.match(token)
    if m is None or token in ("-",):
        return None
    return _LEFT[m.group(1) or ""], _RIGHT[m.group(2) or ""]


def arrow_text(left: int, right: int) -> str:
    """The token of an edge with these marks: ``arrow_text(CIRCLE, ARROW) == "o->"``."""
    return {ARROW: "<", CIRCLE: "o", TAIL: "-"}[left] + "-" + {ARROW: ">", CIRCLE: "o",
                                                                 TAIL: "-"}[right]


@dataclass(frozen=True, eq=False)
class MarkGraph:
    """Edges with a mark at each end over named nodes (see the module docstring).

    Example:
        >>> g = MarkGraph.parse("abc", ["a o-> b", "c --> b"])
        >>> g.lines()
        ['a o-> b', 'b <-- c']
        >>> int(g.matrix()[0, 1]), int(g.matrix()[1, 0])
        (2, 1)
    """

    nodes: tuple[str, ...]
    edges: frozenset[Edge]

    @classmethod
    def build(cls, nodes: Sequence[str], edges: Iterable[Edge]) -> MarkGraph:
        """Normalise edges to ``i < j`` and check marks, indices and self loops."""
        names = tuple(str(n) for n in nodes)
        if len(set(names)) != len(names):
            raise InteropError("duplicate node names", "give every variable a unique name")
        out = set()
        for i, j, mi, mj in edges:
            if i == j:
                raise InteropError(f"the graph has a self loop at {names[i]}")
            if not (0 <= i < len(names) and 0 <= j < len(names)):
                raise InteropError(f"edge ({i}, {j}) is outside the {len(names)} nodes")
            if mi not in MARK_NAMES or mj not in MARK_NAMES:
                raise InteropError(f"unknown endpoint mark on the edge {names[i]}-{names[j]}")
            out.add((i, j, mi, mj) if i < j else (j, i, mj, mi))
        return cls(names, frozenset(out))

    @classmethod
    def parse(cls, nodes: Sequence[str], lines: Iterable[str]) -> MarkGraph:
        """Edges written ``a o-> b`` (any token :func:`parse_arrow` reads)."""
        index = {n: k for k, n in enumerate(nodes)}
        edges = []
        for line in lines:
            a, token, b = line.split()
            marks = parse_arrow(token)
            if marks is None or a not in index or b not in index:
                raise InteropError(f"cannot read {line!r} as an edge between known nodes")
            edges.append((index[a], index[b], *marks))
        return cls.build(nodes, edges)

    @classmethod
    def from_mixed(cls, g: MixedGraph) -> MarkGraph:
        """A DAG, CPDAG or ADMG as marks: ``->`` tail/arrow, ``--`` tails, ``<->`` arrows."""
        index = {n: k for k, n in enumerate(g.nodes)}
        kinds = {"directed": (TAIL, ARROW), "undirected": (TAIL, TAIL),
                 "bidirected": (ARROW, ARROW)}
        return cls.build(g.nodes, [(index[a], index[b], *kinds[t]) for a, b, t in g.edges()])

    @classmethod
    def from_matrix(cls, nodes: Sequence[str], m: object) -> MarkGraph:
        """Read the pcalg-style matrix of :meth:`matrix` (``m[i, j]`` = mark at ``j``)."""
        a = np.asarray(m, dtype=np.int64)
        d = len(nodes)
        if a.shape != (d, d):
            raise InteropError(f"a {a.shape} mark matrix does not fit {d} nodes")
        edges = []
        for i in range(d):
            for j in range(i + 1, d):
                if (a[i, j] == NONE) != (a[j, i] == NONE):
                    raise InteropError(f"the pair {nodes[i]}, {nodes[j]} has a mark at one "
                                       "end only")
                if a[i, j] != NONE:
                    edges.append((i, j, int(a[j, i]), int(a[i, j])))
        return cls.build(nodes, edges)

    # -- views -------------------------------------------------------------------------------
    @property
    def d(self) -> int:
        return len(self.nodes)

    def sorted_edges(self) -> list[Edge]:
        return sorted(self.edges)

    def pairs(self) -> set[tuple[int, int]]:
        """Adjacent pairs ``(i, j)``, ``i < j``."""
        return {(i, j) for i, j, _, _ in self.edges}

    def has_circles(self) -> bool:
        return any(CIRCLE in (mi, mj) for _, _, mi, mj in self.edges)

    def is_simple(self) -> bool:
        """At most one edge per pair (true of DAGs, CPDAGs, MAGs and PAGs)."""
        return len(self.pairs()) == len(self.edges)

    def matrix(self) -> np.ndarray:
        """pcalg ``amat.pag`` codes: ``m[i, j]`` is the mark at ``j`` (one edge per pair)."""
        if not self.is_simple():
            raise InteropError("a pair has two edges (e.g. -> and <->); one mark matrix cannot "
                               "hold it")
        m = np.zeros((self.d, self.d), dtype=np.int8)
        for i, j, mi, mj in self.edges:
            m[i, j], m[j, i] = mj, mi
        return m

    def to_causallearn(self) -> np.ndarray:
        """causal-learn ``GeneralGraph.graph``: ``g[i, j]`` is the mark at ``i`` (-1 tail,
        1 arrow, 2 circle); a pair with ``i -> j`` and ``i <-> j`` is ``g[i,j]=4, g[j,i]=5``."""
        g = np.zeros((self.d, self.d), dtype=np.int64)
        by_pair: dict[tuple[int, int], list[Edge]] = {}
        for e in self.edges:
            by_pair.setdefault((e[0], e[1]), []).append(e)
        for (i, j), es in by_pair.items():
            if len(es) == 1:
                _, _, mi, mj = es[0]
                g[i, j], g[j, i] = _MARK_TO_CL[mi], _MARK_TO_CL[mj]
            else:
                g[i, j], g[j, i] = _bow_codes(es, self.nodes)
        return g

    def lines(self) -> list[str]:
        """One ``a o-> b`` line per edge, in node order (the stable text form)."""
        return [f"{self.nodes[i]} {arrow_text(mi, mj)} {self.nodes[j]}"
                for i, j, mi, mj in self.sorted_edges()]

    def reorder(self, nodes: Sequence[str]) -> MarkGraph:
        """The same graph over a permutation of its nodes."""
        if sorted(nodes) != sorted(self.nodes):
            raise InteropError("the two graphs have different variables")
        new = {n: k for k, n in enumerate(nodes)}
        return MarkGraph.build(nodes, [(new[self.nodes[i]], new[self.nodes[j]], mi, mj)
                                       for i, j, mi, mj in self.edges])

    def to_mixed(self) -> MixedGraph:
        """The graph as directed / undirected / bidirected edges; refuses circles."""
        if self.has_circles():
            raise InteropError("a graph with circle marks (a PAG) is not a mixed graph")
        d = self.d
        dr, un, bi = (np.zeros((d, d), dtype=np.int8) for _ in range(3))
        for i, j, mi, mj in self.edges:
            if (mi, mj) == (TAIL, ARROW):
                dr[i, j] = 1
            elif (mi, mj) == (ARROW, TAIL):
                dr[j, i] = 1
            else:
                (un if mi == TAIL else bi)[i, j] = 1
        return MixedGraph.build(self.nodes, dr, un, bi)

    def __iter__(self) -> Iterator[Edge]:
        return iter(self.sorted_edges())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MarkGraph) or sorted(self.nodes) != sorted(other.nodes):
            return False
        return self.edges == other.reorder(self.nodes).edges

    def __hash__(self) -> int:  # pragma: no cover - graphs are compared, not hashed
        return hash(self.nodes)

    def __repr__(self) -> str:
        return f"MarkGraph({self.d} nodes: {'; '.join(self.lines())})"


def _bow_codes(es: list[Edge], nodes: tuple[str, ...]) -> tuple[int, int]:
    marks = {(mi, mj) for _, _, mi, mj in es}
    i, j = es[0][0], es[0][1]
    if marks == {(TAIL, ARROW), (ARROW, ARROW)}:
        return _CL_BOW
    if marks == {(ARROW, TAIL), (ARROW, ARROW)}:
        return _CL_BOW[1], _CL_BOW[0]
    raise InteropError(f"causal-learn cannot hold the edges between {nodes[i]} and {nodes[j]}")


def from_causallearn_marks(matrix: object, nodes: Sequence[str]) -> MarkGraph:
    """Read causal-learn's ``GeneralGraph.graph`` keeping circles (FCI output as a PAG).

    Example:
        >>> g = from_causallearn_marks([[0, 2], [1, 0]], ["a", "b"])  # FCI's a o-> b
        >>> g.lines()
        ['a o-> b']
    """
    m = np.asarray(matrix)
    d = len(nodes)
    if m.shape != (d, d):
        raise InteropError(f"a {m.shape} endpoint matrix does not fit {d} variables")
    edges: list[Edge] = []
    for i in range(d):
        for j in range(i + 1, d):
            pair = (int(m[i, j]), int(m[j, i]))
            if pair == (0, 0):
                continue
            if pair in (_CL_BOW, _CL_BOW[::-1]):
                forward = pair == _CL_BOW
                edges += [(i, j, *((TAIL, ARROW) if forward else (ARROW, TAIL))),
                          (i, j, ARROW, ARROW)]
            elif pair[0] in _CL_TO_MARK and pair[1] in _CL_TO_MARK:
                edges.append((i, j, _CL_TO_MARK[pair[0]], _CL_TO_MARK[pair[1]]))
            else:
                raise InteropError(f"endpoint codes {pair} between {nodes[i]} and {nodes[j]} "
                                   "are not a causal-learn edge")
    return MarkGraph.build(nodes, edges)
