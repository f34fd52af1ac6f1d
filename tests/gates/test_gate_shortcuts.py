"""The gates' shortcuts decide exactly what the long way decides.

Gates share work (one stacked matrix, one correlation matrix, one transitive
closure, one walk per equation) and skip work that cannot change a decision:
``intervention_effect`` replays the natural values of the intervened rows on replicate 0
only (every stream drawn in full, the mechanisms evaluated on those rows; a leak is
confirmed on a whole natural pass), and on later replicates recomputes just the targets
still undecided. Each test here runs
the shortcut and the long way (or numpy's reference) and asserts the same answer;
the first one pins the documented rule that bit-identity is checked on replicate 0.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import sympy as sp

from scmspec.build import ProtocolOverrides, parse_all
from scmspec.build.evaluate import Evaluated, evaluate
from scmspec.samplers.numpy_sampler import run_pass
from scmspec.samplers.streams import Streams
from scmspec.validators import GateContext, GateResult, ReplicateData, run_gates
from scmspec.validators import intervention_gates as ig
from scmspec.validators.base import count_assignment, reachability
from scmspec.validators.mechanisms import (
    _coefficients,
    _is_accumulation,
    _parent_symbols,
    classify,
    is_bounded_sigmoid,
    read_equation,
)
from tests.gates.cards import FORMULA, FORMULA_EDGES, GOOD, card, failure, statuses

LEAKY, LEAKY_EDGES = FORMULA, FORMULA_EDGES
STUCK = """\
  x: {meaning: x, kind: binary, distribution: {kind: bernoulli, p: 0.95},
      intervention: {meaning: leave x as it is, handler: {kind: shift, by: 0}}}
  a: {meaning: a, distribution: {kind: normal}, intervention: {meaning: set a}}
  y: {meaning: y, equation: "x + 0.5 * x ** 2 + a", noise: {kind: normal, sd: 1}}
  z: {meaning: z, equation: "exp(0.3 * y)", noise: {kind: normal, sd: 1}}
"""
STUCK_EDGES = [("x", "y"), ("a", "y"), ("y", "z")]


def _evaluated(folder: Path, text: str, replicates: int) -> Evaluated:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "c.yaml").write_text(text, encoding="utf-8")
    results, loaded = parse_all([folder / "c.yaml"])
    done = evaluate(loaded[results[0].path], results[0],
                    ProtocolOverrides(replicates=replicates))
    assert done is not None, results[0].diagnostics
    return done


def _effect(done: Evaluated, reps: tuple[ReplicateData, ...] | None = None) -> list[GateResult]:
    ctx = GateContext(done.scm.compiled, reps or done.replicates, protocol=done.protocol)
    return run_gates(ctx, only=["intervention_effect"])


def _tampered(rep: ReplicateData, name: str) -> ReplicateData:
    """``rep`` with ``name`` moved on the first four intervened rows of obs+int."""
    s = rep.obsint
    col = s.columns[name].copy()
    col[np.flatnonzero(s.assigned.any(axis=1))[:4]] += 1.0
    return replace(rep, obsint=replace(s, columns={**s.columns, name: col}))


def test_bit_identity_is_checked_on_replicate_0(tmp_path: Path) -> None:
    done = _evaluated(tmp_path, card(LEAKY, LEAKY_EDGES), replicates=2)
    (ok,) = _effect(done)
    assert ok.status == "pass" and "(2 replicates)" in ok.detail
    assert "on the 200 intervened rows of replicate 0 non-descendants are bit-identical" in (
        ok.detail)
    first, second = done.replicates
    res = failure(_effect(done, (_tampered(first, "w"), second)))
    assert res.variables == ("w",) and res.statistic == 4
    assert "(replicate 0; threshold: bit-identical)" in res.detail
    # A sampler property, not a per-replicate one: later replicates are not replayed.
    assert statuses(_effect(done, (first, _tampered(second, "w")))) == {"pass"}


def _long_way(monkeypatch: pytest.MonkeyPatch, done: Evaluated) -> list[GateResult]:
    """The gate with a full natural pass on every replicate."""
    with monkeypatch.context() as m:
        m.setattr(ig, "_needs_full", lambda ctx, run, tally: True)
        return _effect(done)


@pytest.mark.parametrize("text", [
    card(STUCK, STUCK_EDGES),  # x never moves: undecided, counted on every replicate
    GOOD,  # every target decided on replicate 0
    card(extra="interventions: {per_row: 2}"),  # rows holding a target and its ancestor
    card(extra='selection: {condition: "a > -1"}'),  # fresh unselected passes
], ids=["undecided", "decided", "nested", "selection"])
def test_later_replicates_decide_as_a_full_replay_would(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    done = _evaluated(tmp_path, text, replicates=5)
    fast, slow = _effect(done), _long_way(monkeypatch, done)
    assert [(r.status, r.variables) for r in fast] == [(r.status, r.variables) for r in slow]
    for a, b in zip(fast, slow):
        if a.status == "fail":  # failing targets are counted over every replicate
            assert (a.detail, a.statistic) == (b.detail, b.statistic)
    if "bernoulli" in text:
        res = failure(fast)
        assert res.variables == ("x",) and "of its 500 intervened rows" in res.detail


@pytest.mark.parametrize("text", [
    card(LEAKY, LEAKY_EDGES),
    card(STUCK, STUCK_EDGES),
    GOOD,
    card(extra="interventions: {per_row: 2}"),
    card(extra='selection: {condition: "a > -1"}'),
], ids=["leaky", "undecided", "decided", "nested", "selection"])
def test_replaying_only_the_intervened_rows_decides_as_a_whole_pass_would(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    done = _evaluated(tmp_path, text, replicates=3)
    leaky = "w" in done.scm.plan.columns  # LEAKY: leak w into four rows, as a bug would
    reps = (_tampered(done.replicates[0], "w"),) + done.replicates[1:] if leaky else None
    fast = _effect(done, reps)
    with monkeypatch.context() as m:  # every replay a whole natural pass
        m.setattr(ig, "rowwise", lambda plan, structured=(): False)
        slow = _effect(done, reps)
    assert [(r.status, r.detail, r.statistic) for r in fast] == [
        (r.status, r.detail, r.statistic) for r in slow]


def test_a_leak_through_stream_consumption_is_caught(tmp_path: Path) -> None:
    """A sampler bug that makes w's stream skip one draw on x's rows shifts w there."""
    done = _evaluated(tmp_path, card(LEAKY, LEAKY_EDGES), replicates=1)
    rep, proto = done.replicates[0], done.protocol
    s = rep.obsint
    rng = Streams(proto.seed, done.scm.plan.card_id, "obsint", 0).generator("w")
    rng.standard_normal(1)  # the one extra draw the bug consumes
    shifted = rng.standard_normal(s.n)  # w is normal(0, 1): its value is the draw
    rows = np.flatnonzero(s.assigned.any(axis=1))
    w = s.columns["w"].copy()
    w[rows] = shifted[rows]
    buggy = replace(rep, obsint=replace(s, columns={**s.columns, "w": w}))
    res = failure(_effect(done, (buggy,)))
    assert res.variables == ("w",) and res.statistic == rows.size == 200
    assert "'w' is not a descendant of the targets of 200 intervened rows" in res.detail


def test_a_leak_is_confirmed_on_a_whole_pass_before_it_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rows-only replay that disagrees with the data is checked against run_pass."""
    done = _evaluated(tmp_path, card(LEAKY, LEAKY_EDGES), replicates=1)
    replay, passes = ig.natural_rows, []

    w = [s.name for s in done.scm.plan.steps].index("w")

    def wrong(*args: object) -> np.ndarray:
        table = replay(*args)  # type: ignore[arg-type]
        table[w, :3] += 1.0  # w off on three rows: what a faulty replay would show
        return table

    def counted(*args: object, **kwargs: object) -> dict[str, np.ndarray]:
        passes.append(args[1])
        return run_pass(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ig, "natural_rows", wrong)
    monkeypatch.setattr(ig, "run_pass", counted)
    (ok,) = _effect(done)
    assert ok.status == "pass" and passes == [1000]


def test_context_reach_and_assignment_counts_match_the_long_way(tmp_path: Path) -> None:
    done = _evaluated(tmp_path, card(extra="interventions: {per_row: 2}"), replicates=2)
    ctx = GateContext(done.scm.compiled, done.replicates, protocol=done.protocol)
    index, closure = ctx.reach
    names = [s.name for s in done.scm.plan.steps]
    assert list(index) == names
    assert (closure == reachability(done.scm.compiled.resolved.graph, names)).all()
    for r, rep in enumerate(done.replicates):
        per_row, per_target = ctx.assignment_counts(r)
        assert per_row.tolist() == rep.obsint.assigned.sum(axis=1).tolist()
        assert per_target.tolist() == rep.obsint.assigned.sum(axis=0).tolist()
    rng = np.random.default_rng(0)
    for shape in [(0, 3), (5, 0), (7, 1), (40, 9)]:
        a = rng.random(shape) < 0.3
        rows, cols = count_assignment(a)
        assert rows.tolist() == a.sum(axis=1).tolist() and cols.tolist() == a.sum(axis=0).tolist()


def test_reachability_given_a_topological_order_matches_the_sort() -> None:
    rng = np.random.default_rng(3)
    for n in (1, 2, 7, 30):
        g = nx.DiGraph()
        g.add_nodes_from(f"v{i}" for i in range(n))
        g.add_edges_from((f"v{i}", f"v{j}") for i in range(n) for j in range(i + 1, n)
                         if rng.random() < 0.2)
        order = list(nx.topological_sort(g))
        want = nx.to_numpy_array(nx.transitive_closure_dag(g), nodelist=order) > 0
        assert (reachability(g, order, topological=True) == want).all()
        assert (reachability(g, order[::-1]) == want[::-1, ::-1]).all()


X, Y, Z, DT, K = sp.symbols("x y z dt k", real=True)
SIG = sp.Function("sigmoid")
EQUATIONS = [
    X + Y, X - Y + Z, X + Y + 3, 0.5 * X + 0.5 * Y, X + 2 * Y, 1.0 * X + 1.0 * Y,
    X + DT * (Y - Z), X - DT * Y + DT * Z, X + DT * Y - K * Z, K * (X + Y), 0.5 * (2 * X + Y),
    sp.Rational(1, 2) * (2 * X + 2 * Y), X, X + 0 * Y, 3 * SIG(X - 2 * Y) + 1,
    2 * sp.tanh(X + Y) - 1, sp.tanh(X * Y), X * Y, X / Y, X ** 2 + Y, sp.exp(X) + Y,
    sp.Piecewise((X, Y > 0), (Z, True)), sp.Max(X, 0) + Y, sp.sin(X) + sp.cos(Y), K + DT,
]


@pytest.mark.parametrize("expr", EQUATIONS, ids=[str(e) for e in EQUATIONS])
def test_one_walk_reads_what_the_separate_readers_read(expr: sp.Basic) -> None:
    parents = ("x", "y", "z")
    assert read_equation(expr, parents) == (classify(expr, parents),
                                            is_bounded_sigmoid(expr, parents))
    ps = _parent_symbols(parents)
    coeffs = _coefficients(expr, ps)  # the exact test, without the numeric shortcut
    rates = {sp.Abs(c) for c in coeffs if c not in (1, -1)}
    exact = (any(c == 1 for c in coeffs) and len(rates) <= 1
             and all(not r.is_number for r in rates))
    if expr.free_symbols & ps:
        assert _is_accumulation(expr, ps) == exact


def test_shared_moments_match_numpys_and_finite_reads_columns_not_blocks(tmp_path: Path) -> None:
    done = _evaluated(tmp_path, GOOD, replicates=2)
    ctx = GateContext(done.scm.compiled, done.replicates, protocol=done.protocol)
    _, x = ctx.observed_obs
    mean, sd = ctx.observed_moments
    assert np.array_equal(mean, x.mean(axis=1))  # numpy's own steps, bit for bit
    assert np.allclose(sd, x.std(axis=1), rtol=1e-12, atol=0)  # the Gram diagonal
    varying, corr = ctx.observed_corr
    assert np.allclose(corr, np.corrcoef(x[varying]), atol=1e-12)
    rep = done.replicates[0]
    block_row = rep.obs.columns["a"]
    clean = block_row.copy()
    block_row[:3] = np.nan  # the sampled block now holds NaN that no column shows
    tampered = replace(rep, obs=replace(rep.obs, columns={**rep.obs.columns, "a": clean}))
    ctx = GateContext(done.scm.compiled, (tampered,), protocol=done.protocol)
    assert statuses(run_gates(ctx, only=["finite"])) == {"pass"}
    bad = clean.copy()
    bad[5] = np.inf
    tampered = replace(rep, obs=replace(rep.obs, columns={**rep.obs.columns, "a": bad}))
    ctx = GateContext(done.scm.compiled, (tampered,), protocol=done.protocol)
    res = failure(run_gates(ctx, only=["finite"]))
    assert res.variables == ("a",) and res.statistic == 1
