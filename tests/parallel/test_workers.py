"""``--workers N`` and ``--executor dask`` give byte-identical outputs to a serial run.

dask[distributed] is in the test extra, so the Dask test runs (it is never skipped): a
``LocalCluster`` with two workers, as processes and as threads, stands in for a real
scheduler (docs/scaling.md shows how to connect to one).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scmspec.build import ProtocolOverrides
from scmspec.build.driver import compile_cards
from tests.parallel.cards import tree, write_cards


@pytest.fixture(scope="module")
def serial(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("serial")
    cards = write_cards(root / "cards")
    report = compile_cards([cards], root / "out", ProtocolOverrides())
    # Gates may reject a toy card; what matters here is that every card was written.
    assert all(r.status != "failed" for r in report.results), report.results
    return cards, tree(root / "out")


def test_two_local_workers_equal_one(serial: tuple[Path, dict[str, str]],
                                     tmp_path: Path) -> None:
    cards, expected = serial
    report = compile_cards([cards], tmp_path / "out", ProtocolOverrides(), workers=2)
    assert len(report.results) == 4
    assert tree(tmp_path / "out") == expected


@pytest.mark.parametrize("processes", [
    False,
    pytest.param(True, marks=pytest.mark.slow),  # worker processes: seconds of startup
])
def test_dask_local_cluster_equals_serial(serial: tuple[Path, dict[str, str]], tmp_path: Path,
                                          processes: bool) -> None:
    from dask import distributed

    cards, expected = serial
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=processes,
                                  dashboard_address=None) as cluster:
        compile_cards([cards], tmp_path / "out", ProtocolOverrides(), executor="dask",
                      scheduler=cluster.scheduler_address)
    assert tree(tmp_path / "out") == expected
