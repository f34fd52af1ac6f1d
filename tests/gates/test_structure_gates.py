"""Compile-stage gates, graph_shape, mechanism_mix and justifications: reject and pass cases."""

from __future__ import annotations

from pathlib import Path

from tests.gates.cards import (
    GOOD,
    GOOD_EDGES,
    GOOD_VARIABLES,
    card,
    failure,
    gate,
    statuses,
    validate,
)

CHAIN = """\
  x: {meaning: x, distribution: {kind: normal}}
  y: {meaning: y, equation: "2 * x", noise: {kind: normal, sd: 1}}
  z: {meaning: z, equation: "y", noise: {kind: normal, sd: 3}}
"""


def test_compiled_card_records_explicit_passes_for_compile_stages(tmp_path: Path) -> None:
    (report,) = validate(tmp_path, GOOD)
    by_gate = {g.gate: g.status for g in report.gates}
    for gid in ("schema", "acyclic", "parents_match", "units"):
        assert by_gate[gid] == "pass"
    assert not report.blocking


def test_schema_failure_is_located_and_later_gates_skip(tmp_path: Path) -> None:
    bad = GOOD.replace("meaning: d, ", "meening: d, ")
    (report,) = validate(tmp_path, bad)
    fails = [g for g in report.gates if g.status == "fail"]
    assert {g.gate for g in fails} == {"schema"}
    assert any("meening" in g.detail for g in fails)
    assert all(str(g.location).startswith(str(tmp_path)) for g in fails)
    assert {g.status for g in report.gates if g.gate == "near_copy"} == {"skip"}
    assert report.blocking


def test_acyclic_rejects_a_cycle(tmp_path: Path) -> None:
    text = card("""\
  x: {meaning: x, equation: "y + 1", noise: {kind: normal, sd: 1}}
  y: {meaning: y, equation: "x + 1", noise: {kind: normal, sd: 1}}
""", [("x", "y"), ("y", "x")])
    res = failure(gate(tmp_path, text, "acyclic"))
    assert "the graph has a cycle" in res.detail
    assert "x -> y -> x" in res.detail or "y -> x -> y" in res.detail
    assert res.location is not None and res.location.line > 1
    assert statuses(gate(tmp_path / "ok", GOOD, "acyclic")) == {"pass"}


def test_parents_match_rejects_a_hidden_parent(tmp_path: Path) -> None:
    text = card(GOOD_VARIABLES, [e for e in GOOD_EDGES if e != ("b", "c")])
    res = failure(gate(tmp_path, text, "parents_match"))
    assert "'b'" in res.detail and "hidden parent" in res.detail
    assert statuses(gate(tmp_path / "ok", GOOD, "parents_match")) == {"pass"}


def test_units_rejects_inconsistent_dimensions(tmp_path: Path) -> None:
    text = card("""\
  x: {meaning: x, unit: m, distribution: {kind: normal}}
  y: {meaning: y, unit: s, equation: "x", noise: {kind: none}}
""", [("x", "y")])
    res = failure(gate(tmp_path, text, "units"))
    assert "'y'" in res.detail or "y" in res.detail
    assert res.location is not None
    assert statuses(gate(tmp_path / "ok", GOOD, "units")) == {"pass"}


def test_graph_shape_rejects_shallow_graph_and_isolated_variable(tmp_path: Path) -> None:
    text = card("""\
  x: {meaning: x, distribution: {kind: normal}}
  y: {meaning: y, equation: "2 * x", noise: {kind: normal, sd: 1}}
  lone: {meaning: lone, distribution: {kind: normal}}
""", [("x", "y")])
    results = gate(tmp_path, text, "graph_shape")
    details = " | ".join(r.detail for r in results if r.status == "fail")
    assert "'lone' is isolated" in details and "degree >= 1" in details
    assert "depth 1" in details and "minimum of 2" in details
    iso = next(r for r in results if r.variables == ("lone",))
    assert iso.location is not None and iso.location.line == 8  # the `lone:` line


def test_graph_shape_synthetic_needs_edges_and_depth_three_for_chains(tmp_path: Path) -> None:
    text = card(CHAIN, [("x", "y"), ("y", "z")], family="synthetic",
                extra="tags: [graph:chain]")
    fails = [r for r in gate(tmp_path, text, "graph_shape") if r.status == "fail"]
    details = " | ".join(r.detail for r in fails)
    assert "depth 2" in details and "minimum of 3" in details and "chain" in details
    assert "2 edges for d = 3" in details and "ceil(0.8 d) = 3" in details


def test_graph_shape_passes_a_chain_of_two_edges(tmp_path: Path) -> None:
    text = card(CHAIN, [("x", "y"), ("y", "z")])
    (res,) = gate(tmp_path, text, "graph_shape")
    assert res.status == "pass" and "depth 2" in res.detail


def test_mechanism_mix_warns_on_one_family_and_passes_three(tmp_path: Path) -> None:
    text = card(CHAIN.replace('"y"', '"3 * y - 1"'), [("x", "y"), ("y", "z")])
    (res,) = gate(tmp_path, text, "mechanism_mix")
    assert res.status == "warn" and res.severity == "warning"
    assert "1 mechanism families (linear: 2)" in res.detail and "at least 3" in res.detail
    (ok,) = gate(tmp_path / "ok", GOOD, "mechanism_mix")
    assert ok.status == "pass" and "multiplicative" in ok.detail and "exp_log" in ok.detail


def test_mechanism_mix_warns_on_too_many_bounded_sigmoids(tmp_path: Path) -> None:
    text = card("""\
  x: {meaning: x, distribution: {kind: normal}}
  y: {meaning: y, equation: "sigmoid(2 * x - 1)", noise: {kind: normal, sd: 0.1}}
  z: {meaning: z, equation: "3 * tanh(y + x) + 1", noise: {kind: normal, sd: 0.1}}
  w: {meaning: w, equation: "x * z", noise: {kind: normal, sd: 0.1}}
""", [("x", "y"), ("y", "z"), ("x", "z"), ("x", "w"), ("z", "w")])
    warns = [r for r in gate(tmp_path, text, "mechanism_mix") if r.status == "warn"]
    sig = next(r for r in warns if "sigmoid" in r.detail)
    assert sig.variables == ("y", "z") and "67%" in sig.detail and "25%" in sig.detail


def test_mechanism_mix_skips_synthetic_cards(tmp_path: Path) -> None:
    (res,) = gate(tmp_path, card(family="synthetic"), "mechanism_mix")
    assert res.status == "skip"


def test_justifications_flags_unknown_and_unrelaxable_gates(tmp_path: Path) -> None:
    extra = "justifications:\n  near_copi: typo\n  finite: we like NaN\n  sortability: fine\n"
    results = gate(tmp_path, card(extra=extra), "justifications")
    details = " | ".join(r.detail for r in results if r.status == "warn")
    assert "unknown gate 'near_copi'" in details and "did you mean 'near_copy'" in details
    assert "'finite' is a blocking gate and cannot be justified away" in details
    assert all(r.location is not None and r.location.line > 10 for r in results)
    (ok,) = gate(tmp_path / "ok", GOOD, "justifications")
    assert ok.status == "skip"


def test_a_justified_warning_becomes_a_pass_and_the_table_shows_why(tmp_path: Path) -> None:
    text = card(CHAIN.replace('"y"', '"3 * y - 1"'), [("x", "y"), ("y", "z")],
                extra="justifications:\n  mechanism_mix: a textbook linear chain, on purpose\n")
    (report,) = validate(tmp_path, text)
    (res,) = [g for g in report.gates if g.gate == "mechanism_mix"]
    assert res.status == "pass" and res.justification == "a textbook linear chain, on purpose"
    assert res.location is not None and res.location.line == 13  # the justification line
    assert "justified: a textbook linear chain, on purpose" in report.table()
    (just,) = [g for g in report.gates if g.gate == "justifications"]
    assert just.status == "pass" and "1 justifications" in just.detail


def test_latent_paths_warns_when_a_latent_mediator_hides_a_cause(tmp_path: Path) -> None:
    variables = ("  x: {meaning: x, distribution: {kind: normal}}\n"
                 "  u: {meaning: u, observed: false, equation: \"2 * x\", "
                 "noise: {kind: normal, sd: 1}}\n"
                 "  y: {meaning: y, equation: \"tanh(u)\", noise: {kind: normal, sd: 0.3}}\n"
                 "  z: {meaning: z, equation: \"y * x\", noise: {kind: normal, sd: 1}}\n")
    edges = [("x", "u"), ("u", "y"), ("y", "z"), ("x", "z")]
    (res,) = gate(tmp_path, card(variables, edges), "latent_paths")
    assert res.status == "warn" and res.variables == ("x", "y")
    assert "'x' causes 'y' only through latent variables (x -> u -> y)" in res.detail
    assert "graph/adjacency.csv has no x -> y" in res.detail
    scoped = ("justifications:\n  latent_paths:\n    - variables: [x, y]\n"
              "      reason: u is the unobserved dose\n")
    (ok,) = gate(tmp_path / "j", card(variables, edges, extra=scoped), "latent_paths")
    assert ok.status == "pass" and ok.justification == "u is the unobserved dose"
    direct = card(variables.replace('"tanh(u)"', '"tanh(u) + x"'), [*edges, ("x", "y")])
    (passed,) = gate(tmp_path / "direct", direct, "latent_paths")
    assert passed.status == "pass"
    (skipped,) = gate(tmp_path / "none", GOOD, "latent_paths")
    assert skipped.status == "skip"
