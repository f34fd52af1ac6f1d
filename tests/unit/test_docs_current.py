"""Documentation that is generated or enumerated must stay current with the code."""

from __future__ import annotations

import re
from pathlib import Path

from scmspec.compiler.kinds.functions import FUNCTIONS
from scmspec.compiler.kinds.interventions import INTERVENTIONS
from scmspec.compiler.kinds.mechanisms import MECHANISMS
from scmspec.compiler.kinds.noise import NOISE
from scmspec.compiler.kinds.roots import ROOTS
from scmspec.compiler.validate import export_schema

ROOT = Path(__file__).resolve().parents[2]


def test_committed_schema_is_current() -> None:
    committed = (ROOT / "docs" / "card.schema.json").read_text(encoding="utf-8")
    assert committed == export_schema(), "run: scmspec schema --out docs/card.schema.json"


def test_every_kind_and_function_is_documented() -> None:
    text = (ROOT / "docs" / "card-language.md").read_text(encoding="utf-8")
    for registry in (ROOTS, NOISE, INTERVENTIONS, MECHANISMS, FUNCTIONS):
        for kind in registry:
            assert f"`{kind}" in text, f"{registry.family} {kind!r} missing from card-language.md"


def test_every_diagnostic_code_is_documented() -> None:
    documented = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    units = (ROOT / "docs" / "units.md")
    documented += units.read_text(encoding="utf-8") if units.exists() else ""
    used = set()
    for path in (ROOT / "scmspec").rglob("*.py"):
        used |= set(re.findall(r'"(SCM\d{3})"', path.read_text(encoding="utf-8")))
    missing = sorted(c for c in used if c not in documented)
    assert not missing, f"undocumented diagnostic codes: {missing}"


def test_every_command_is_in_the_readme_table() -> None:
    from scmspec.cli import app

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    names = [c.name for c in app.registered_commands]
    assert names and all(f"| `scmspec {n}" in readme for n in names), names


def test_every_builtin_method_is_documented() -> None:
    from scmspec.evaluation.builtins import BUILTINS

    text = (ROOT / "docs" / "benchmarking.md").read_text(encoding="utf-8")
    for name in BUILTINS:
        assert f"| `{name}` |" in text, f"built-in {name!r} missing from docs/benchmarking.md"
