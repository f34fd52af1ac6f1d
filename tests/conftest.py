"""Shared fixtures and the ``--update-golden`` option (never set in CI)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CARDS = ROOT / "cards"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite golden files from current output (review the diff!)")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def check_golden(path: Path, actual: str, update: bool) -> None:
    """Compare ``actual`` with the golden file at ``path`` (or rewrite it when updating)."""
    if update or not path.exists():
        if not update:
            pytest.fail(f"golden file {path} is missing; run pytest --update-golden and review")
        path.write_text(actual, encoding="utf-8")
        return
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, f"output differs from golden {path.name}"
