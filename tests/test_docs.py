"""Run the doctests of every module under scmspec/ (as sqlglot's test_docs does).

Docstring examples are documentation people copy; this keeps them true.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import scmspec


def modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(scmspec.__path__, "scmspec."))


def test_every_module_is_found() -> None:
    names = modules()
    for expected in ("scmspec.errors", "scmspec.compiler.load", "scmspec.samplers.streams"):
        assert expected in names


@pytest.mark.parametrize("name", modules())
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                             report=True, verbose=False)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"


def test_public_api_is_documented() -> None:
    for name in scmspec.__all__:
        obj = getattr(scmspec, name)
        if callable(obj) and not isinstance(obj, str):
            assert obj.__doc__, f"scmspec.{name} has no docstring"
