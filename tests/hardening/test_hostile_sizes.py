"""Hostile cards not covered by tests/golden/errors/: huge requests, huge cards, absurd units.

The hostile-expression and hostile-YAML corpus (``__import__``, dunder access, lambda,
``9**9**9**9``, deep nesting, billion laughs, Python tags, non-UTF-8) lives in
tests/golden/errors/ with golden messages; this file adds the size attacks. Each must be
refused with a located diagnostic, quickly, without sampling or executing anything.
"Quickly" is process CPU time (``time.process_time``), not wall time: a bound that
catches a blow-up must not fail because the machine is busy (wall-clock bounds failed
twice on a 2-core machine under a load of 30).
"""

from __future__ import annotations

import json
import resource
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scmspec.build import ProtocolOverrides
from scmspec.build.driver import compile_cards
from scmspec.cli import app
from scmspec.compiler.pipeline import compile_card, parse_card_text
from scmspec.errors import CardError
from scmspec.limits import current_limits

SMALL = """\
id: hostile
title: Hostile
family: semantic
domain: hardening
variables:
  x: {meaning: cause, distribution: {kind: normal}, unit: UNIT, intervention: {meaning: set x}}
  y: {meaning: effect, equation: 2 * x, noise: {kind: normal, sd: 0.5}}
edges:
  - {from: x, to: y, reason: demo}
PROTOCOL
"""


def card(unit: str = "dimensionless", protocol: str = "") -> str:
    return SMALL.replace("UNIT", unit).replace("PROTOCOL", protocol)


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _codes(result_doc: dict) -> list[str]:
    return [d["code"] for e in result_doc["scms"] for d in e["diagnostics"]]


def test_billion_rows_in_the_card_fail_fast(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(card(protocol="protocol: {n_obs: 1000000000}"))
    rss, start = _rss_mb(), time.process_time()
    report = compile_cards([tmp_path / "c.yaml"], tmp_path / "out", ProtocolOverrides())
    assert time.process_time() - start < 30
    assert _rss_mb() - rss < 200  # nothing of 10^9 rows was allocated
    (res,) = report.results
    assert res.status == "failed" and res.diagnostics[0].code == "SCM602"
    assert "1000000000 rows per split exceed the limit" in res.diagnostics[0].message
    assert res.diagnostics[0].span is not None


def test_billion_rows_on_the_command_line_fail_fast(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(card())
    start = time.process_time()
    result = CliRunner().invoke(app, ["compile", str(tmp_path / "c.yaml"), "--out",
                                      str(tmp_path / "out"), "--n-obs", "1000000000"])
    assert time.process_time() - start < 30
    assert result.exit_code == 1 and "error[SCM602]" in result.output
    assert "Traceback" not in result.output
    assert _codes(json.loads((tmp_path / "out" / "manifest.json").read_text())) == ["SCM602"]


def _wide_card(d: int) -> str:
    lines = ["id: wide", "title: Wide", "family: semantic", "domain: hardening", "variables:"]
    lines += [f"  v{i}: {{meaning: m}}" for i in range(d)]
    return "\n".join(lines) + "\n"


def test_million_variable_card_is_refused_by_the_byte_limit_quickly() -> None:
    text = _wide_card(1_000_000)
    assert len(text) > current_limits().card_bytes
    start = time.process_time()
    with pytest.raises(CardError) as exc:
        parse_card_text(text, "wide.yaml")
    assert time.process_time() - start < 5
    assert exc.value.diagnostics[0].code == "SCM102"


@pytest.mark.slow
def test_too_many_variables_refused_before_validation(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the byte and node limits raised, the variable count still stops it early."""
    monkeypatch.setenv("SCMSPEC_MAX_CARD_BYTES", "100000000")
    monkeypatch.setenv("SCMSPEC_MAX_YAML_NODES", "10000000")
    monkeypatch.setenv("SCMSPEC_MAX_VARIABLES", "1000")
    start = time.process_time()
    with pytest.raises(CardError) as exc:
        parse_card_text(_wide_card(20_000), "wide.yaml")
    assert time.process_time() - start < 20
    (diag,) = exc.value.diagnostics
    assert diag.code == "SCM203" and "20000 variables exceed the limit of 1000" in diag.message
    assert diag.span is not None and diag.span.line == 5


def test_card_over_the_byte_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCMSPEC_MAX_CARD_BYTES", "2000")
    text = card() + "# " + "x" * 3000 + "\n"
    with pytest.raises(CardError) as exc:
        parse_card_text(text, "big.yaml")
    assert exc.value.diagnostics[0].code == "SCM102"
    assert "over the limit of 2000" in exc.value.diagnostics[0].message


ABSURD_UNITS = [
    "meter ** 99999999", "meter ** 1e308", "__import__('os').system('true')",
    "m" * 5000, "kg * " * 500 + "kg", "((((((((((((((((((((m))))))))))))))))))))" * 3,
    "1e999 m", "m / 0", "lambda: m", "meter.__class__", "\u202em", "10 ** 10 ** 10 m",
    "not_a_unit_at_all", "%s%s%s", "m\x00",
]


@pytest.mark.parametrize("unit", ABSURD_UNITS)
def test_absurd_unit_strings_are_located_errors(unit: str) -> None:
    text = card(unit=json.dumps(unit))
    start = time.process_time()
    try:
        c, smap = parse_card_text(text, "unit.yaml")
        compile_card(c, smap)
    except CardError as exc:
        assert exc.diagnostics and all(d.span is not None for d in exc.diagnostics)
        assert {d.code[:4] for d in exc.diagnostics} <= {"SCM1", "SCM2", "SCM4"}
    else:
        pytest.fail(f"unit {unit!r} was accepted")
    assert time.process_time() - start < 10
