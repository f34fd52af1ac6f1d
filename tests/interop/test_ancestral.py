"""MAG and PAG truth for latent variables and selection: hand-computed graphs, brute force,
and causal-learn's FCI run with a d-separation oracle.

Each hand case states why its answer is what it is. Notation: ``a --> b``, ``a <-> b``,
``a --- b`` (both ancestors of the selection), ``a o-> b`` (circle: the mark differs between
Markov-equivalent MAGs).
"""

from __future__ import annotations

import random
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import scmspec
from scmspec.interop.ancestral import SELECTION_NODE, mag_from_dag, selection_dag
from scmspec.interop.graphs import InteropError, MixedGraph
from scmspec.interop.marks import MarkGraph, from_causallearn_marks
from scmspec.interop.pag import pag_from_mag
from scmspec.interop.truth import load_truth
from tests.interop.pag_oracle import brute_force_pag, separable

ROOT = Path(__file__).resolve().parents[2]


def dag(nodes: str, *edges: str) -> MixedGraph:
    """``dag("a b c", "a>b", "b>c")`` is a -> b -> c."""
    names = nodes.split()
    a = np.zeros((len(names), len(names)), dtype=int)
    for e in edges:
        x, y = e.split(">")
        a[names.index(x), names.index(y)] = 1
    return MixedGraph.from_dag(names, a)


# (DAG, latent, variables the selection reads, MAG, PAG)
HAND = {
    # u confounds b and c: b <-> c; a -> b <-> c <- d has two unshielded colliders (R0), and no
    # rule can tell whether a, d are ancestors of b, c (circles at a and d).
    "latent_confounder": (dag("a b u c d", "a>b", "u>b", "u>c", "d>c"), ["u"], [],
                          ["a --> b", "b <-> c", "c <-- d"],
                          ["a o-> b", "b <-> c", "c <-o d"]),
    # b -> m -> d with m latent is an inducing path: b --> d in the MAG. The collider
    # a -> b <- c is kept; R1 orients b --> d (a, d non-adjacent).
    "latent_mediator": (dag("a b c m d", "a>b", "c>b", "b>m", "m>d"), ["m"], [],
                        ["a --> b", "b <-- c", "b --> d"],
                        ["a o-> b", "b <-o c", "b --> d"]),
    # Selecting on the collider c joins a and b; a, b, c are all ancestors of the selection,
    # so the triangle is undirected; c --> d. No unshielded collider: every mark is a circle.
    "selection_on_a_collider": (dag("a b c d", "a>c", "b>c", "c>d"), [], ["c"],
                                ["a --- b", "a --- c", "b --- c", "c --> d"],
                                ["a o-o b", "a o-o c", "b o-o c", "c o-o d"]),
    # <d, a, b, c> discriminates b: a is a collider (d -> a <-> b) and a parent of c, d and c
    # are not adjacent. R1 gives a --> c, R2 b o-> c, and R4 sees that b is not a collider on
    # the path in the MAG (b --> c): b --> c.
    "discriminating_path_non_collider": (
        dag("d a b c l", "d>a", "l>a", "l>b", "a>c", "b>c"), ["l"], [],
        ["d --> a", "a <-> b", "a --> c", "b --> c"],
        ["d o-> a", "a <-o b", "a --> c", "b --> c"]),
    # The same path with b <-> c (latent k): b is a collider, so R4 orients a <-> b <-> c.
    "discriminating_path_collider": (
        dag("d a b c l k", "d>a", "l>a", "l>b", "a>c", "k>b", "k>c"), ["l", "k"], [],
        ["d --> a", "a <-> b", "a --> c", "b <-> c"],
        ["d o-> a", "a <-> b", "a --> c", "b <-> c"]),
    # Selection on c and d closes the chordless cycle a - b - c - d - a (c and d meet at the
    # selection node). R5: an uncovered circle cycle is undirected in every MAG of the class.
    "selection_on_two_effects": (dag("a b c d", "a>b", "b>c", "a>d"), [], ["c", "d"],
                                 ["a --- b", "a --- d", "b --- c", "c --- d"],
                                 ["a --- b", "a --- d", "b --- c", "c --- d"]),
    # Selection on a and e: R5 undirects the cycle a - b - c - e - a; then R6 (a --- b and
    # a o-o d) gives a tail at a: a --o d.
    "selection_on_both_ends_of_a_chain": (
        dag("a b c d e", "a>b", "b>c", "c>e", "a>d"), [], ["a", "e"],
        ["a --- b", "a --> d", "a --- e", "b --- c", "c --- e"],
        ["a --- b", "a --o d", "a --- e", "b --- c", "c --- e"]),
}


@pytest.mark.parametrize("name", HAND)
def test_mag_and_pag_of_hand_computed_graphs(name: str) -> None:
    full, latent, selection, mag_lines, pag_lines = HAND[name]
    mag = mag_from_dag(full, latent, selection)
    assert mag.lines() == mag_lines
    assert pag_from_mag(mag).lines() == pag_lines


@pytest.mark.parametrize("name", HAND)
def test_hand_cases_against_the_definitions(name: str) -> None:
    """MAG adjacency = no observed subset separates (given S); PAG = brute-force class."""
    full, latent, selection, _, _ = HAND[name]
    mag = mag_from_dag(full, latent, selection)
    _check_adjacency(full, latent, selection, mag)
    assert pag_from_mag(mag) == brute_force_pag(mag)


def _check_adjacency(full: MixedGraph, latent: list[str], selection: list[str],
                     mag: MarkGraph) -> None:
    g = selection_dag(full, selection)
    given = {SELECTION_NODE} if selection else set()
    observed = list(mag.nodes)
    pairs = {(mag.nodes[i], mag.nodes[j]) for i, j in mag.pairs()}
    for k, a in enumerate(observed):
        for b in observed[k + 1:]:
            assert ((a, b) in pairs) == (not separable(g, a, b, observed, given)), (a, b)


def _random_case(rng: random.Random, selection_share: float
                 ) -> tuple[MixedGraph, list[str], list[str]]:
    n = rng.randint(4, 6)
    order = list(range(n))
    rng.shuffle(order)
    a = np.zeros((n, n), dtype=int)
    for i in range(n):
        for j in range(i + 1, n):
            a[order[i], order[j]] = rng.random() < 0.45
    nodes = [f"v{i}" for i in range(n)]
    latent = rng.sample(nodes, rng.randint(0, 2))
    selection = rng.sample(nodes, 1) if rng.random() < selection_share else []
    return MixedGraph.from_dag(nodes, a), latent, selection


def _brute_force_cases(seed: int, count: int) -> None:
    rng, done = random.Random(seed), 0
    while done < count:
        full, latent, selection = _random_case(rng, 0.5)
        mag = mag_from_dag(full, latent, selection)
        if len(mag.edges) > 7 or mag.d > 5:
            continue  # the oracle enumerates 4^edges graphs
        done += 1
        _check_adjacency(full, latent, selection, mag)
        assert pag_from_mag(mag) == brute_force_pag(mag), (list(full.edges()), latent,
                                                           selection)


def test_random_graphs_against_brute_force() -> None:
    _brute_force_cases(seed=0, count=6)


@pytest.mark.slow
def test_many_random_graphs_against_brute_force() -> None:
    _brute_force_cases(seed=1, count=120)


def test_without_latents_or_selection_the_mag_is_the_dag() -> None:
    full = dag("a b c", "a>b", "c>b")
    assert mag_from_dag(full).lines() == ["a --> b", "b <-- c"]
    assert pag_from_mag(mag_from_dag(full)).lines() == ["a o-> b", "b <-o c"]


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(InteropError, match="latent variables not in the graph"):
        mag_from_dag(dag("a b", "a>b"), ["z"])
    with pytest.raises(InteropError, match="selection reads variables not in the graph"):
        mag_from_dag(dag("a b", "a>b"), [], ["z"])
    with pytest.raises(ValueError, match="takes a MAG"):
        pag_from_mag(MarkGraph.parse("ab", ["a o-> b"]))


def test_a_compiled_card_gets_its_mag_and_pag() -> None:
    """The clinic card: frailty (latent) drives bp and the latent visit; selection keeps
    visit > 0. age is an ancestor of the selection (age -> visit), so it has tails; the
    selection opens age - frailty, but age and bp are adjacent anyway. No unshielded collider
    (dose -> bp -> high_bp is a chain), so the PAG is all circles."""
    scm = scmspec.compile_file(ROOT / "tests" / "golden" / "render" / "clinic.yaml")
    truth = load_truth(scm)
    assert truth.selection_variables == ("visit",)
    assert truth.mag.lines() == ["age --> dose", "age --> bp", "dose --> bp", "bp --> high_bp"]
    assert truth.pag.lines() == ["age o-o dose", "age o-o bp", "dose o-o bp", "bp o-o high_bp"]


# -- causal-learn's FCI with a d-separation oracle ------------------------------------------------
def _fci_oracle(full: MixedGraph, latent: list[str], selection: list[str],
                monkeypatch: pytest.MonkeyPatch) -> np.ndarray:
    """FCI on the observed variables, every independence test answered by d-separation in the
    full DAG given the selection node (what FCI would find with infinite data)."""
    fci_module = pytest.importorskip("causallearn.search.ConstraintBased.FCI",
                                     reason="causal-learn is not installed "
                                            "(pip install 'scmspec[baselines]')")
    from causallearn.utils import cit

    observed = [n for n in full.nodes if n not in latent]
    g = selection_dag(full, selection)
    names = observed + [n for n in g if n not in observed]
    index = {n: k for k, n in enumerate(names)}
    given = {index[SELECTION_NODE]} if selection else set()

    def d_separated(self: object, x: object, y: object, condition_set: object = None) -> float:
        xs, ys, cs, _ = self.get_formatted_XYZ_and_cachekey(x, y, condition_set)  # type: ignore[attr-defined]
        return float(nx.is_d_separator(self.true_dag, {xs[0]}, {ys[0]},  # type: ignore[attr-defined]
                                       set(cs) | given))

    monkeypatch.setattr(cit.D_Separation, "__call__", d_separated)
    graph, _ = fci_module.fci(np.zeros((10, len(observed))), "d_separation",
                              true_dag=nx.relabel_nodes(g, index), show_progress=False,
                              node_names=observed)
    return np.asarray(graph.graph)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", HAND)
def test_fci_with_an_oracle_finds_the_same_pag(name: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """causal-learn's endpoint matrix of FCI's output is exactly our PAG's to_causallearn()."""
    full, latent, selection, _, pag_lines = HAND[name]
    fci_graph = _fci_oracle(full, latent, selection, monkeypatch)
    observed = [n for n in full.nodes if n not in latent]
    pag = pag_from_mag(mag_from_dag(full, latent, selection))
    assert np.array_equal(fci_graph, pag.to_causallearn())
    assert from_causallearn_marks(fci_graph, observed).lines() == pag_lines


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_every_mark_fci_determines_agrees_on_random_latent_graphs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Without selection, on seeded random DAGs with latent variables: the same skeleton, and
    every non-circle mark of FCI's output is ours too. (Ours may be more complete: causal-learn
    misses some R9 orientations. Its R5 also fires on covered paths, making tails no selection
    can explain, so R5-R7, which never apply without selection, are switched off here.)"""
    fci_module = pytest.importorskip("causallearn.search.ConstraintBased.FCI",
                                     reason="causal-learn is not installed")
    for rule in ("ruleR5", "ruleR6", "ruleR7"):
        monkeypatch.setattr(fci_module, rule, lambda graph, flag, verbose=False: flag)
    rng = random.Random(5)
    for _ in range(25):
        full, latent, _ = _random_case(rng, 0.0)
        ours = pag_from_mag(mag_from_dag(full, latent)).matrix()
        observed = [n for n in full.nodes if n not in latent]
        theirs = from_causallearn_marks(_fci_oracle(full, latent, [], monkeypatch),
                                        observed).matrix()
        assert np.array_equal(ours != 0, theirs != 0)
        known = theirs != 1  # circle code 1 in matrix()
        assert np.array_equal(ours[known], theirs[known]), (list(full.edges()), latent)
