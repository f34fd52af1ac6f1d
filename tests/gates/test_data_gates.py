"""Data gates on sampled columns: each rejects a card (message asserted) and passes one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gates.cards import GOOD, card, failure, gate, statuses

ROOT_X = "  x: {meaning: x, distribution: {kind: normal}}\n"


def _pair(y: str, kind: str = "", x: str = ROOT_X) -> str:
    """x -> y -> z (depth 2), y given by ``y``; z a noisy child so the graph is deep enough."""
    return card(x + f"  y: {{meaning: y, {kind}equation: \"{y}\", noise: {{kind: none}}}}\n"
                "  z: {meaning: z, equation: \"sin(y) + x\", noise: {kind: normal, sd: 2}}\n",
                [("x", "y"), ("y", "z"), ("x", "z")])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_finite_rejects_nan_and_names_variable_count_threshold(tmp_path: Path) -> None:
    results = gate(tmp_path, _pair("log(x)"), "finite")
    assert {r.variables for r in results} == {("y",), ("z",)}  # z inherits y's NaN
    res = next(r for r in results if r.variables == ("y",))
    assert res.variables == ("y",) and res.threshold == 0.0
    assert "'y' has" in res.detail and "NaN/inf values in 2000 rows (threshold: 0)" in res.detail
    assert res.statistic is not None and 800 < res.statistic < 1200  # about half the rows
    assert res.location is not None and res.location.line == 7  # y's line
    assert statuses(gate(tmp_path / "ok", GOOD, "finite")) == {"pass"}


def test_ranges_rejects_values_outside_the_declared_range(tmp_path: Path) -> None:
    x = "  x: {meaning: x, range: [0, 1], distribution: {kind: normal}}\n"
    res = failure(gate(tmp_path, _pair("2 * x", x=x), "ranges"))
    assert res.variables == ("x",)
    assert "outside its declared range [0, 1]" in res.detail
    assert "threshold: 0 outside" in res.detail
    assert res.statistic is not None and res.statistic > 500
    ok = "  x: {meaning: x, range: [0, 1], distribution: {kind: uniform, low: 0, high: 1}}\n"
    (passed,) = gate(tmp_path / "ok", _pair("2 * x", x=ok), "ranges")
    assert passed.status == "pass" and "1 declared ranges" in passed.detail


def test_ranges_rejects_a_formula_clipped_to_its_range(tmp_path: Path) -> None:
    y = ("  y: {meaning: y, role: formula, range: [0, 1], equation: \"clip(x, 0, 1)\", "
         "noise: {kind: none}}\n")
    text = card(ROOT_X + y, [("x", "y")], family="formula")
    res = failure(gate(tmp_path, text, "ranges"))
    assert "'y' is a formula output clipped to stay in its declared range" in res.detail
    assert "binds on 50.0% of natural rows" in res.detail
    assert "boundary:" in res.detail
    declared = text.replace("role: formula,", "role: formula, boundary: sensor saturates,")
    assert statuses(gate(tmp_path / "ok", declared, "ranges")) == {"pass"}


def test_nonconstant_rejects_a_near_constant_column(tmp_path: Path) -> None:
    res = failure(gate(tmp_path, _pair("where(x > 3.5, x, 5)"), "nonconstant"))
    assert res.variables == ("y",) and res.threshold == 0.99
    assert "'y' is (near) constant" in res.detail and "equal 5" in res.detail
    assert "of 1000 rows" in res.detail and "threshold 99%" in res.detail
    (ok,) = gate(tmp_path / "ok", GOOD, "nonconstant")
    assert ok.status == "pass" and "n = 1000" in ok.detail


def test_category_dominance_rejects_a_rare_level_and_justification_downgrades(
        tmp_path: Path) -> None:
    text = _pair("where(x > 3, 1, 0)", kind="kind: binary, ")
    res = failure(gate(tmp_path, text, "category_dominance"))
    assert res.variables == ("y",) and res.threshold == 0.99
    assert "'y' takes level 0 on 99." in res.detail and "threshold 99%" in res.detail
    justified = text + "justifications:\n  category_dominance: y is a rare failure event\n"
    (warned,) = gate(tmp_path / "j", justified, "category_dominance")
    assert warned.status == "warn" and warned.justification == "y is a rare failure event"
    assert warned.location is not None and warned.location.line > 10  # the justification
    (ok,) = gate(tmp_path / "ok", GOOD, "category_dominance")
    assert ok.status == "pass"


def test_boundary_mass_rejects_clipping_and_passes_a_declared_boundary(tmp_path: Path) -> None:
    text = _pair("max(x, 0)")
    res = failure(gate(tmp_path, text, "boundary_mass"))
    assert res.variables == ("y",) and res.threshold == 0.1
    assert "of 1000 values of 'y' sit exactly at the boundary 0" in res.detail
    assert "threshold 10%" in res.detail and "`boundary:`" in res.detail
    assert res.statistic is not None and 0.4 < res.statistic < 0.6
    declared = text.replace("  y: {meaning: y, ", "  y: {meaning: y, boundary: no negative dose, ")
    (ok,) = gate(tmp_path / "ok", declared, "boundary_mass")
    assert ok.status == "pass" and "declared boundaries: y" in ok.detail


def test_near_copy_names_a_unit_conversion(tmp_path: Path) -> None:
    res = failure(gate(tmp_path, _pair("1.8 * x + 32"), "near_copy"))
    assert res.variables == ("x", "y") and res.threshold == 0.9
    assert "'y' is a unit conversion of 'x'" in res.detail
    assert "corr +1.000" in res.detail and "|corr| >= 0.90" in res.detail
    assert "n = 1000" in res.detail


def test_near_copy_names_a_rounded_unit_conversion(tmp_path: Path) -> None:
    res = failure(gate(tmp_path, _pair("round(100 * x)"), "near_copy"))
    assert "'y' is a rounded unit conversion of 'x'" in res.detail


def test_near_copy_leaves_constant_knob_columns_out(tmp_path: Path) -> None:
    """Two knobs at 0.45 and 0.8: their columns are constant, though a summed mean is an ulp
    off (sd ~1e-16), so they must not correlate at -1 as near copies."""
    knob = ("  {n}: {{meaning: {n}, role: setting, value: {v}, intervention: {{meaning: set it,"
            " handler: {{kind: do, value: 0.6}}}}}}\n")
    text = card(ROOT_X + knob.format(n="k1", v=0.45) + knob.format(n="k2", v=0.8)
                + "  y: {meaning: y, equation: \"x * k1 + k2\", noise: {kind: normal, sd: 1}}\n",
                [("x", "y"), ("k1", "y"), ("k2", "y")])
    (res,) = gate(tmp_path, text, "near_copy")
    assert res.status == "pass", res.detail


def test_near_copy_names_an_alias_and_justification_downgrades(tmp_path: Path) -> None:
    text = _pair("x")
    res = failure(gate(tmp_path, text, "near_copy"))
    assert "'y' is an alias of 'x'" in res.detail
    justified = text + "justifications:\n  near_copy: both columns are recorded by the trial\n"
    (warned,) = gate(tmp_path / "j", justified, "near_copy")
    assert warned.status == "warn" and "[justified]" in warned.detail
    assert warned.justification == "both columns are recorded by the trial"


def test_near_copy_threshold_depends_on_family(tmp_path: Path) -> None:
    noisy = ROOT_X + """\
  y: {meaning: y, equation: "x", noise: {kind: normal, sd: 0.25}}
  z: {meaning: z, equation: "exp(0.2 * y) * x", noise: {kind: normal, sd: 2}}
"""
    edges = [("x", "y"), ("y", "z"), ("x", "z")]
    res = failure(gate(tmp_path, card(noisy, edges), "near_copy"))
    assert "'y' is a tiny-noise copy of 'x'" in res.detail and "|corr| >= 0.90" in res.detail
    (ok,) = gate(tmp_path / "syn", card(noisy, edges, family="synthetic"), "near_copy")
    assert ok.status == "pass" and "< 0.99" in ok.detail


def test_near_copy_scoped_justification_covers_only_its_pair(tmp_path: Path) -> None:
    """A pair-scoped reason relaxes that pair; another near copy of the card still fails."""
    variables = (ROOT_X + "  y: {meaning: y, equation: \"x\", noise: {kind: none}}\n"
                 "  w: {meaning: w, equation: \"x + 0.01 * sin(y)\", noise: {kind: none}}\n"
                 "  z: {meaning: z, equation: \"sin(w) + x\", noise: {kind: normal, sd: 2}}\n")
    edges = [("x", "y"), ("x", "w"), ("y", "w"), ("w", "z"), ("x", "z")]
    scoped = ("justifications:\n  near_copy:\n    - variables: [y, x]\n"
              "      reason: the trial records both\n")
    results = gate(tmp_path, card(variables, edges, extra=scoped), "near_copy")
    by_pair = {frozenset(r.variables): r for r in results}
    assert set(by_pair) == {frozenset("xy"), frozenset("xw"), frozenset("yw")}
    assert by_pair[frozenset("xy")].status == "warn"
    assert by_pair[frozenset("xy")].justification == "the trial records both"
    loc = by_pair[frozenset("xy")].location
    assert loc is not None and loc.line == 18  # the scoped entry (line 18), not the variable
    for pair in ("xw", "yw"):
        assert by_pair[frozenset(pair)].status == "fail"
        assert by_pair[frozenset(pair)].justification is None


def test_scoped_justifications_must_name_known_variables_and_the_right_count(
        tmp_path: Path) -> None:
    bad = ("justifications:\n  near_copy:\n    - variables: [x, nope]\n      reason: r\n"
           "    - variables: [x]\n      reason: r\n")
    results = gate(tmp_path, card(ROOT_X + "  y: {meaning: y, equation: \"x\", noise: "
                                  "{kind: none}}\n", [("x", "y")], extra=bad), "justifications")
    details = " | ".join(r.detail for r in results if r.status == "warn")
    assert "names unknown variable(s) 'nope'" in details
    assert "must name a pair of variables (got 'x')" in details


def test_ranges_rejects_an_intervention_that_leaves_the_range(tmp_path: Path) -> None:
    """Natural rows are fine; the handler's shift (and the child it drives) leave the range."""
    variables = ("  x: {meaning: x, range: [0, 1], distribution: {kind: uniform, low: 0.1, "
                 "high: 0.9}, intervention: {meaning: push x, handler: {kind: shift, by: 5}}}\n"
                 "  y: {meaning: y, range: [0, 2], equation: \"2 * x\", noise: {kind: none}}\n"
                 "  z: {meaning: z, equation: \"sin(y) + x\", noise: {kind: normal, sd: 2}}\n")
    text = card(variables, [("x", "y"), ("y", "z"), ("x", "z")])
    results = gate(tmp_path, text, "ranges")
    failed = {r.variables[0]: r for r in results if r.status == "fail"}
    assert set(failed) == {"x", "y"}
    assert ("'x' leaves its declared range [0, 1] on 200 of 200 intervened rows"
            in failed["x"].detail)
    assert "targets of those rows: x" in failed["y"].detail
    ok = gate(tmp_path / "ok", text.replace("by: 5", "by: 0.05"), "ranges")
    assert statuses(ok) == {"pass"} and "every intervened row" in ok[0].detail
