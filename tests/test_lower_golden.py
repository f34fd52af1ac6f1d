"""Lowering goldens: ``str(plan)`` of each card in tests/golden/lower equals ``<case>.plan.txt``.

The plan text shows the deterministic topological order, each step's parents,
canonical equation (random-draw site indices hidden) or root distribution,
noise kind, latent flags and the target pool. Rewrite with ``--update-golden``
and review the diff: a changed line is a change in what the sampler executes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scmspec.compiler.pipeline import compile_card, parse_card
from tests.conftest import check_golden

HERE = Path(__file__).resolve().parent / "golden" / "lower"
CASES = sorted(p.stem for p in HERE.glob("*.yaml"))


def test_there_are_lowering_goldens() -> None:
    assert len(CASES) >= 3


@pytest.mark.parametrize("case", CASES)
def test_plan_golden(case: str, update_golden: bool) -> None:
    card, smap = parse_card(HERE / f"{case}.yaml")
    plan = compile_card(card, smap).plan
    check_golden(HERE / f"{case}.plan.txt", str(plan) + "\n", update_golden)


@pytest.mark.parametrize("case", CASES)
def test_plan_text_does_not_depend_on_declaration_order(case: str) -> None:
    import yaml

    from scmspec.compiler.pipeline import parse_card_text

    data = yaml.safe_load((HERE / f"{case}.yaml").read_text(encoding="utf-8"))
    data["variables"] = dict(reversed(list(data["variables"].items())))
    data["edges"] = list(reversed(data["edges"]))
    card, smap = parse_card_text(yaml.safe_dump(data, sort_keys=False), f"{case}.yaml")
    original, osmap = parse_card(HERE / f"{case}.yaml")
    assert str(compile_card(card, smap).plan) == str(compile_card(original, osmap).plan)
