"""The long fuzzing run (marker ``fuzz``) is opt-in: it runs only when ``-m`` names it.

Deselecting it through ``addopts = -m "not fuzz"`` would not hold: pytest keeps only the
last ``-m``, so the developer loop's ``-m 'not slow'`` would bring the ten-thousand-mutant
run back. Here it is deselected unless the marker expression mentions ``fuzz``
(``-m fuzz`` runs it, ``-m "not fuzz"`` deselects it as usual).
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "fuzz" in (config.getoption("markexpr") or ""):
        return
    fuzz = [item for item in items if item.get_closest_marker("fuzz")]
    if fuzz:
        config.hook.pytest_deselected(items=fuzz)
        items[:] = [item for item in items if not item.get_closest_marker("fuzz")]
