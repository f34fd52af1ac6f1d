"""The PAG of a MAG: its Markov equivalence class, which is what FCI estimates.

Takes a MAG (:func:`scmspec.interop.ancestral.mag_from_dag`) and hands on the partial
ancestral graph (PAG): the MAG's skeleton with a mark kept only where every Markov-equivalent
MAG has it, a circle elsewhere. Construction (Zhang 2008, "On the completeness of orientation
rules for causal discovery in the presence of latent confounders and selection bias"):

* R0: every edge ``o-o``; unshielded colliders of the MAG become ``a *-> b <-* c``;
* R1-R4 to a fixed point (R4, the discriminating-path rule, reads the MAG to tell whether the
  middle node is a collider: the oracle form of "b in Sepset(d, c)");
* R5-R7 (tails forced by selection), then R8-R10 (tails of ``o->`` edges); all three groups
  repeat until nothing changes.

Zhang proves R0-R10 sound and complete, so the result has an arrowhead (tail) exactly where
every MAG of the class has one. Marks use :mod:`scmspec.interop.marks` codes in a matrix
``m[i, j]`` = the mark at ``j``. Path searches are over simple paths (exact; exponential only
on adversarial graphs, and scmspec graphs have at most a few hundred variables).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from scmspec.interop.marks import ARROW, CIRCLE, NONE, TAIL, MarkGraph


@dataclass
class _Marks:
    """The PAG being oriented (``m``), the MAG it comes from (``truth``) and the neighbour
    lists, computed once: orientation changes marks, never adjacencies."""

    m: np.ndarray
    truth: np.ndarray
    nb: list[list[int]]


Rule = Callable[[_Marks], bool]


def pag_from_mag(mag: MarkGraph) -> MarkGraph:
    """The PAG representing the Markov equivalence class of ``mag``.

    Example:
        >>> mag = MarkGraph.parse("abc", ["a --> c", "b --> c"])
        >>> pag_from_mag(mag).lines()  # an unshielded collider is kept, tails become circles
        ['a o-> c', 'b o-> c']
    """
    truth = mag.matrix()
    if (truth == CIRCLE).any():
        raise ValueError("pag_from_mag takes a MAG (no circle marks)")
    m = np.where(truth != NONE, CIRCLE, NONE).astype(np.int8)
    g = _Marks(m, truth, [[int(x) for x in np.flatnonzero(row)] for row in m != NONE])
    _rule0(g)
    changed = True
    while changed:
        changed = False
        for group in ((_r1, _r2, _r3, _r4), (_r5, _r6, _r7), (_r8, _r9, _r10)):
            changed |= _fixed_point(g, group)
    return MarkGraph.from_matrix(mag.nodes, m)


def _fixed_point(g: _Marks, rules: tuple[Rule, ...]) -> bool:
    any_change = False
    while any(rule(g) for rule in rules):
        any_change = True
    return any_change


def _adj(m: np.ndarray, a: int, b: int) -> bool:
    return bool(m[a, b] != NONE)


def _rule0(g: _Marks) -> None:
    """Unshielded colliders of the MAG: ``a *-> b <-* c`` with a, c non-adjacent."""
    m, truth = g.m, g.truth
    for b in range(len(m)):
        nb = g.nb[b]
        for k, a in enumerate(nb):
            for c in nb[k + 1:]:
                if not _adj(m, a, c) and truth[a, b] == ARROW and truth[c, b] == ARROW:
                    m[a, b] = m[c, b] = ARROW


def _r1(g: _Marks) -> bool:
    """a *-> b o-* c, a and c non-adjacent  =>  b -> c."""
    m = g.m
    for b in range(len(m)):
        for c in g.nb[b]:
            if m[c, b] != CIRCLE:
                continue
            if any(m[a, b] == ARROW and a != c and not _adj(m, a, c) for a in g.nb[b]):
                m[c, b], m[b, c] = TAIL, ARROW
                return True
    return False


def _r2(g: _Marks) -> bool:
    """a -> b *-> c or a *-> b -> c, and a *-o c  =>  a *-> c."""
    m = g.m
    for a in range(len(m)):
        for c in g.nb[a]:
            if m[a, c] != CIRCLE:
                continue
            for b in g.nb[a]:
                if b == c or not _adj(m, b, c):
                    continue
                first = m[b, a] == TAIL and m[a, b] == ARROW and m[b, c] == ARROW
                second = m[a, b] == ARROW and m[c, b] == TAIL and m[b, c] == ARROW
                if first or second:
                    m[a, c] = ARROW
                    return True
    return False


def _r3(g: _Marks) -> bool:
    """a *-> b <-* c, a *-o d o-* c, a and c non-adjacent, d *-o b  =>  d *-> b."""
    m = g.m
    for d in range(len(m)):
        for b in g.nb[d]:
            if m[d, b] != CIRCLE:
                continue
            cands = [x for x in g.nb[d] if x != b and m[x, d] == CIRCLE
                     and m[x, b] == ARROW]
            for k, a in enumerate(cands):
                if any(not _adj(m, a, c) for c in cands[k + 1:]):
                    m[d, b] = ARROW
                    return True
    return False


def _r4(g: _Marks) -> bool:
    """A discriminating path <t, ..., a, b, c> for b with b o-* c: b -> c if b is a
    non-collider on it in the MAG, else a <-> b <-> c."""
    m, truth = g.m, g.truth
    for b in range(len(m)):
        for c in g.nb[b]:
            if m[c, b] != CIRCLE:
                continue
            for a in g.nb[b]:
                if a == c or m[b, a] != ARROW or not _parent(m, a, c) \
                        or not _discriminating(g, a, b, c):
                    continue
                if truth[a, b] == ARROW and truth[c, b] == ARROW:
                    m[a, b] = m[b, a] = m[c, b] = m[b, c] = ARROW
                else:
                    m[c, b], m[b, c] = TAIL, ARROW
                return True
    return False


def _parent(m: np.ndarray, x: int, c: int) -> bool:
    """x -> c."""
    return bool(m[c, x] == TAIL and m[x, c] == ARROW)


def _discriminating(g: _Marks, a: int, b: int, c: int) -> bool:
    """Whether a path <t, ..., w, a> exists that makes <t, ..., a, b, c> discriminating for b,
    given a <-* b and a -> c: every node from a back to (not including) t is a collider on the
    path and a parent of c, and t is not adjacent to c.

    Breadth-first over nodes: whether a node can be extended depends only on the node and the
    edge it was entered by (checked on entry), so reachability is path-independent and the
    shortest witness is a simple path.
    """
    m, seen, frontier = g.m, {a, b, c}, [a]
    while frontier:
        nxt = []
        for w in frontier:
            for x in g.nb[w]:
                if x in seen or m[x, w] != ARROW:  # x *-> w: w is a collider on the path
                    continue
                if not _adj(m, x, c):
                    return True
                if m[w, x] == ARROW and _parent(m, x, c):
                    seen.add(x)
                    nxt.append(x)
        frontier = nxt
    return False


def _r5(g: _Marks) -> bool:
    """a o-o b with an uncovered circle path <a, g, ..., t, b> (a, t and b, g non-adjacent)
    => a -- b and every edge on the path undirected."""
    m = g.m
    for a in range(len(m)):
        for b in g.nb[a]:
            if a > b or not _circle_edge(m, a, b):
                continue
            for path in _paths(g, a, b, _circle_edge, first_not_adjacent_to=b):
                if not _adj(m, a, path[-2]):
                    nodes = [a, *path]
                    for x, y in [(a, b), *zip(nodes, nodes[1:])]:
                        m[x, y] = m[y, x] = TAIL
                    return True
    return False


def _r6(g: _Marks) -> bool:
    """a -- b and b o-* c  =>  b --* c."""
    m = g.m
    for b in range(len(m)):
        if not any(m[a, b] == TAIL and m[b, a] == TAIL for a in g.nb[b]):
            continue
        for c in g.nb[b]:
            if m[c, b] == CIRCLE:
                m[c, b] = TAIL
                return True
    return False


def _r7(g: _Marks) -> bool:
    """a --o b, b o-* c, a and c non-adjacent  =>  b --* c."""
    m = g.m
    for b in range(len(m)):
        tails = [a for a in g.nb[b] if m[b, a] == TAIL and m[a, b] == CIRCLE]
        for c in g.nb[b]:
            if m[c, b] == CIRCLE and any(a != c and not _adj(m, a, c) for a in tails):
                m[c, b] = TAIL
                return True
    return False


def _r8(g: _Marks) -> bool:
    """a -> b -> c or a --o b -> c, and a o-> c  =>  a -> c."""
    m = g.m
    for a in range(len(m)):
        for c in g.nb[a]:
            if not (m[c, a] == CIRCLE and m[a, c] == ARROW):
                continue
            for b in g.nb[a]:
                if b != c and _adj(m, b, c) and m[b, a] == TAIL \
                        and m[a, b] in (ARROW, CIRCLE) and m[c, b] == TAIL and m[b, c] == ARROW:
                    m[c, a] = TAIL
                    return True
    return False


def _r9(g: _Marks) -> bool:
    """a o-> c with an uncovered potentially directed path <a, b, ..., c>, b and c
    non-adjacent  =>  a -> c."""
    m = g.m
    for a in range(len(m)):
        for c in g.nb[a]:
            if not (m[c, a] == CIRCLE and m[a, c] == ARROW):
                continue
            if any(True for _ in _paths(g, a, c, _pd_edge, first_not_adjacent_to=c)):
                m[c, a] = TAIL
                return True
    return False


def _r10(g: _Marks) -> bool:
    """a o-> c, b -> c <- t, uncovered p.d. paths from a to b and to t whose first nodes
    (after a) differ and are non-adjacent  =>  a -> c."""
    m = g.m
    for a in range(len(m)):
        for c in g.nb[a]:
            if not (m[c, a] == CIRCLE and m[a, c] == ARROW):
                continue
            parents = [x for x in g.nb[c] if x != a and _parent(m, x, c)]
            if len(parents) < 2:
                continue
            starts = [u for u in g.nb[a] if _pd_edge(m, a, u)]
            firsts = {x: {u for u in starts  # one path per first node suffices: stop there
                          if any(True for _ in _paths(g, a, x, _pd_edge, direct=True,
                                                      first_is=u))}
                      for x in parents}
            for k, b in enumerate(parents):
                for t in parents[k + 1:]:
                    if any(u != w and not _adj(m, u, w) for u in firsts[b] for w in firsts[t]):
                        m[c, a] = TAIL
                        return True
    return False


def _circle_edge(m: np.ndarray, x: int, y: int) -> bool:
    return bool(m[x, y] == CIRCLE and m[y, x] == CIRCLE)


def _pd_edge(m: np.ndarray, x: int, y: int) -> bool:
    """The edge x *-* y is not into x and not out of y (potentially directed x to y)."""
    return bool(m[y, x] != ARROW and m[x, y] != TAIL)


def _paths(g: _Marks, start: int, end: int, ok: Callable[[np.ndarray, int, int], bool],
           first_not_adjacent_to: int | None = None, direct: bool = False,
           first_is: int | None = None) -> Iterator[list[int]]:
    """Uncovered simple paths ``start, p[0], ..., p[-1] == end`` whose edges all pass ``ok``;
    yields the nodes after ``start``. The direct edge counts only with ``direct``. With
    ``first_not_adjacent_to``, the first node must not be adjacent to that node; with
    ``first_is``, it must be that node."""
    m = g.m
    stack: list[tuple[list[int], set[int]]] = []
    for first in g.nb[start] if first_is is None else [first_is]:
        if not ok(m, start, first):
            continue
        if first == end:
            if direct:
                yield [first]
            continue
        if first_not_adjacent_to is not None and _adj(m, first, first_not_adjacent_to):
            continue
        stack.append(([first], {start, first}))
    while stack:
        path, on = stack.pop()
        last, prev = path[-1], (path[-2] if len(path) > 1 else start)
        for nxt in g.nb[last]:
            if nxt in on or not ok(m, last, nxt) or _adj(m, prev, nxt):
                continue  # simple, edge type, and uncovered: <prev, last, nxt> unshielded
            if nxt == end:
                yield [*path, nxt]
            else:
                stack.append(([*path, nxt], on | {nxt}))
