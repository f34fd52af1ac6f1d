"""Card builders and runners shared by the gate tests.

Cards are YAML strings (dimensionless units). ``GOOD`` passes every blocking gate;
each test changes one thing and asserts on one gate's results.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from scmspec.build import ProtocolOverrides
from scmspec.build.validate import CardReport, validate_paths
from scmspec.validators import GateResult

GOOD_VARIABLES = """\
  a: {meaning: a, distribution: {kind: normal}, intervention: {meaning: set a}}
  b: {meaning: b, distribution: {kind: uniform, low: 0, high: 2}, intervention: {meaning: set b}}
  c: {meaning: c, equation: "a * b", noise: {kind: normal, sd: 1.0}, intervention: {meaning: set c}}
  d: {meaning: d, equation: "exp(0.3 * c)", noise: {kind: normal, sd: 0.5}}
  e: {meaning: e, kind: binary, equation: "where(c + a > 0, 1, 0)"}
"""
GOOD_EDGES = [("a", "c"), ("b", "c"), ("c", "d"), ("c", "e"), ("a", "e")]


def card(variables: str = GOOD_VARIABLES, edges: Iterable[tuple[str, str]] = GOOD_EDGES,
         family: str = "semantic", card_id: str = "t", extra: str = "") -> str:
    """A card as YAML text: the variables block (indented two spaces) and (from, to) edges."""
    lines = [f"id: {card_id}", "title: test card", f"family: {family}", "domain: test",
             "variables:", variables.rstrip("\n")]
    edge_lines = [f"  - {{from: {a}, to: {b}, reason: test}}" for a, b in edges]
    lines += ["edges:" + ("" if edge_lines else " []"), *edge_lines]
    if extra:
        lines.append(extra.rstrip("\n"))
    return "\n".join(lines) + "\n"


GOOD = card()

# x -> y (an exact formula node) -> z, with w a second parent of both: an intervention on
# x must move y and z and leave w alone.
FORMULA = """\
  x: {meaning: x, distribution: {kind: normal}, intervention: {meaning: set x}}
  w: {meaning: w, distribution: {kind: normal}}
  y: {meaning: y, role: formula, equation: "x ** 2 + w", noise: {kind: none}}
  z: {meaning: z, equation: "sin(y) + w", noise: {kind: normal, sd: 1}}
"""
FORMULA_EDGES = [("x", "y"), ("w", "y"), ("y", "z"), ("w", "z")]


def validate(folder: Path, *texts: str, **overrides: int) -> list[CardReport]:
    """Write each text as card<i>.yaml under folder and validate them as one pool."""
    folder.mkdir(parents=True, exist_ok=True)
    for i, text in enumerate(texts):
        (folder / f"card{i}.yaml").write_text(text, encoding="utf-8")
    opts = {"replicates": 1, **overrides}
    return validate_paths([folder], ProtocolOverrides(**opts))


def gate(folder: Path, text: str, gate_id: str, **overrides: int) -> list[GateResult]:
    """The results of one gate for one card validated on its own."""
    (report,) = validate(folder, text, **overrides)
    found = [g for g in report.gates if g.gate == gate_id]
    assert found, f"no {gate_id} result in {[g.gate for g in report.gates]}"
    return found


def statuses(results: Iterable[GateResult]) -> set[str]:
    return {r.status for r in results}


def failure(results: Iterable[GateResult]) -> GateResult:
    """The single failing result (asserts there is exactly one)."""
    bad = [r for r in results if r.status == "fail"]
    assert len(bad) == 1, [r.detail for r in results]
    return bad[0]
