"""Pool gates, the ``scmspec validate`` command, ``scmspec compile`` integration, docs."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from scmspec.build import ProtocolOverrides, build
from scmspec.cli import app
from scmspec.validators import GATES, POOL_GATES
from scmspec.validators.thresholds import JUSTIFIABLE_BLOCKING, SEVERITY
from tests.gates.cards import GOOD, card, validate

ROOT = Path(__file__).resolve().parents[2]
RENAMED = (GOOD.replace("id: t", "id: renamed").replace("a:", "p:").replace("a *", "p *")
           .replace("c + a", "c + p").replace("from: a,", "from: p,"))
NEAR_COPY = card("""\
  x: {meaning: x, distribution: {kind: normal}, intervention: {meaning: set x}}
  y: {meaning: y, equation: "2 * x + 1", noise: {kind: none}}
  z: {meaning: z, equation: "sin(y) + x", noise: {kind: normal, sd: 2}}
""", [("x", "y"), ("y", "z"), ("x", "z")], card_id="copy")


def _by_card(reports: list, gate_id: str) -> dict[str, str]:
    return {r.name: next(g for g in r.gates if g.gate == gate_id).status for r in reports}


def test_duplicate_topology_rejects_the_later_isomorphic_card(tmp_path: Path) -> None:
    reports = validate(tmp_path, GOOD, RENAMED)
    assert _by_card(reports, "duplicate_topology") == {"t": "pass", "renamed": "fail"}
    res = next(g for g in reports[1].gates if g.gate == "duplicate_topology")
    assert "the graph of 'renamed' (5 nodes, 5 edges) is isomorphic to that of 't'" in res.detail
    assert "identical role topology (a slot-filled template)" in res.detail
    assert res.variables == ("t",) and res.location is not None and reports[1].blocking


def test_duplicate_topology_passes_distinct_graphs(tmp_path: Path) -> None:
    reports = validate(tmp_path, GOOD, NEAR_COPY)
    assert _by_card(reports, "duplicate_topology") == {"t": "pass", "copy": "pass"}


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["validate", *args], catch_exceptions=False)
    return result.exit_code, result.stdout


def test_cli_prints_a_table_and_exits_0_when_nothing_blocks(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(GOOD, encoding="utf-8")
    code, out = _cli(str(tmp_path))
    assert code == 0, out
    assert out.splitlines()[0].startswith("t (") and ": ok" in out.splitlines()[0]
    assert "status" in out and "near_copy" in out and "duplicate_topology" in out


def test_cli_exits_1_and_shows_the_location_of_a_blocking_failure(tmp_path: Path) -> None:
    (tmp_path / "copy.yaml").write_text(NEAR_COPY, encoding="utf-8")
    code, out = _cli(str(tmp_path))
    assert code == 1 and "BLOCKED" in out
    assert "'y' is a unit conversion of 'x'" in out and "copy.yaml:7:3" in out


def test_cli_json_records_have_the_required_keys(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "copy.yaml").write_text(NEAR_COPY, encoding="utf-8")
    code, out = _cli(str(tmp_path), "--json")
    records = json.loads(out)
    assert code == 1
    for rec in records:
        assert {"card", "gate", "status", "severity", "detail", "location"} <= set(rec)
        assert rec["status"] in {"pass", "fail", "warn", "skip"}
        assert rec["severity"] in {"blocking", "warning"}
    assert {r["card"] for r in records} == {"t", "copy"}
    bad = [r for r in records if r["status"] == "fail"]
    assert [(r["card"], r["gate"]) for r in bad] == [("copy", "near_copy")]
    assert bad[0]["location"].endswith("copy.yaml:7:3")


def test_compile_runs_pool_gates_and_rejects_duplicates(tmp_path: Path) -> None:
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "a.yaml").write_text(GOOD, encoding="utf-8")
    (cards / "b.yaml").write_text(RENAMED, encoding="utf-8")
    results = build([cards], tmp_path / "out", ProtocolOverrides(replicates=1))
    assert {r.id: r.status for r in results} == {"t": "released", "renamed": "rejected"}
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    entry = next(e for e in manifest["scms"] if e["id"] == "renamed")
    assert entry["gates_failed"] == ["duplicate_topology"]
    written = json.loads((tmp_path / "out" / "renamed" / "gates.json").read_text("utf-8"))
    assert any(g["gate"] == "duplicate_topology" and g["status"] == "fail" for g in written)


def test_every_gate_is_registered_has_a_severity_and_is_documented() -> None:
    from scmspec.validators import gates  # noqa: F401  (registers the gates)

    registered = set(GATES) | set(POOL_GATES)
    assert registered == set(SEVERITY)
    assert JUSTIFIABLE_BLOCKING <= {g for g, s in SEVERITY.items() if s == "blocking"}
    docs = (ROOT / "docs" / "gates.md").read_text(encoding="utf-8")
    for gate_id, severity in SEVERITY.items():
        assert f"| `{gate_id}` | {severity}" in docs, gate_id
