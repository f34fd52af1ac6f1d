"""Shared fixtures, the ``--update-golden`` option (never set in CI), and system binaries.

Tests that run Graphviz's ``dot`` or Chromium carry ``needs_dot`` / ``needs_chromium``. On a
machine without the binary they are skipped with the reason in the summary (``-rs``), so the
README's test command passes on a fresh machine; ``.ci/run`` installs both and sets
``SCMSPEC_CI=1``, which turns a missing binary into a failure instead of a skip.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from scmspec.kernels import choose_kernels

choose_kernels()  # before a test module imports numpy: the kernels the command line uses

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CARDS = ROOT / "cards"
BINARIES = {
    "needs_dot": (("dot",), "Graphviz's dot is not installed (apt-get install graphviz)"),
    "needs_chromium": (("chromium", "chromium-browser"),
                       "chromium is not installed (apt-get install chromium)"),
}


# Folders whose tests share session-scoped fixtures (a release, a rendered catalogue, a
# game server): pytest-xdist keeps each on one worker so the fixture is built once.
SHARED_SESSION_FIXTURES = ("benchmark", "render", "environment")


def pytest_itemcollected(item: pytest.Item) -> None:
    """One xdist group per module (its module-scoped fixtures are built once), or per folder
    for the folders in ``SHARED_SESSION_FIXTURES``. Without xdist the mark does nothing.

    Marked as each item is collected, before xdist's ``pytest_collection_modifyitems`` reads
    the groups (``--dist loadgroup``)."""
    if any(m.name == "xdist_group" for m in item.own_markers):
        return  # the test names its own group (a long test that needs no module fixture)
    rel = item.path.resolve().relative_to(ROOT)  # tests/... or a doctest in scmspec/...
    shared = len(rel.parts) > 2 and rel.parts[1] in SHARED_SESSION_FIXTURES
    group = rel.parts[1] if shared else rel.with_suffix("").as_posix().removeprefix("tests/")
    item.add_marker(pytest.mark.xdist_group(group))


# The longest groups of the full suite, longest first: pytest-xdist hands groups to
# workers in collection order, so these start first and the short tests fill the gaps
# (longest processing time first); a long group collected last would run alone at the end.
LONG_FIRST = ("tests/cli/test_shipped_cards.py", "tests/properties/test_card_fuzz.py",
              "tests/interop/test_ancestral.py", "tests/benchmark/", "tests/render/",
              "tests/test_outputs_golden.py")


def _long_first(item: pytest.Item) -> int:
    rel = item.path.resolve().relative_to(ROOT).as_posix()
    return next((i for i, p in enumerate(LONG_FIRST) if rel.startswith(p)), len(LONG_FIRST))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=_long_first)  # stable: the order inside each group is kept
    if not config.getoption("--whole-library"):
        rest = [item for item in items if item.get_closest_marker("whole_library")]
        if rest:  # per-card checks beyond tests/library.py's samples: counted as deselected
            config.hook.pytest_deselected(items=rest)
            items[:] = [item for item in items if not item.get_closest_marker("whole_library")]
    if os.environ.get("SCMSPEC_CI"):
        return  # CI installs every binary: a missing one must fail, not skip
    for marker, (names, why) in BINARIES.items():
        if any(shutil.which(n) for n in names):
            continue
        for item in items:
            if item.get_closest_marker(marker):
                item.add_marker(pytest.mark.skip(reason=why))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int,
                            config: pytest.Config) -> None:
    """Say what the run left out on purpose. Under pytest-xdist the summary line does not
    count items deselected in the workers, so the opt-in runs are named here."""
    from tests.library import CARD_FILES, SAMPLE, WIDE_SAMPLE

    if not config.getoption("--whole-library"):
        terminalreporter.write_line(
            f"per-card checks ran on samples of the {len(CARD_FILES)} shipped cards "
            f"(tests/library.py: one per family or per domain folder, at most {len(SAMPLE)}, "
            f"with -m 'not slow'; {len(WIDE_SAMPLE)} in the full suite); --whole-library runs "
            "them on every card")
    if "fuzz" not in (config.getoption("markexpr") or ""):
        terminalreporter.write_line("the long fuzzing run is opt-in: -m fuzz "
                                    "(tests/properties/conftest.py)")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite golden files from current output (review the diff!)")
    parser.addoption("--whole-library", action="store_true", default=False,
                     help="run the per-card checks on every shipped card, not the samples of "
                          "tests/library.py (before a release; several CPU-minutes)")


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 200-column terminal for the command line's rich error boxes: under pytest-xdist the
    temporary paths are longer, and an 80-column box would wrap a path inside a message."""
    monkeypatch.setenv("COLUMNS", "200")


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


