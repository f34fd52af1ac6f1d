"""Every flag is checked by the card's own models, and cost is bounded before it is paid.

Before: ``--n-obs 0`` and ``--replicates 0`` released empty datasets, ``--seed -1`` and
``--seed 2**64`` were accepted although the card schema forbids them, ``--n-obs -5`` was an
internal error; 200 variables x 10^7 rows (inside the documented cell limit) tried to
allocate 14.9 GiB; a grid with ``per_cell: 1e9`` started expanding a billion cards; and the
sortability gate needed 2.9 GB at 10,000 variables (the documented variable limit).
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from scmspec.build import ProtocolOverrides
from scmspec.build.driver import compile_cards
from scmspec.build.evaluate import memory_estimate
from scmspec.cli import app
from scmspec.compiler.spec import ProtocolSpec
from scmspec.validators.sortability import sortabilities
from tests.parallel.cards import card_text, write_cards


@contextmanager
def peak_mb() -> Iterator[list[float]]:
    """Peak MB allocated inside the block (numpy reports its buffers to tracemalloc)."""
    out = [0.0]
    tracemalloc.start()
    try:
        yield out
    finally:
        out[0] = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()


@pytest.mark.parametrize(("flag", "value", "expected"), [
    ("--n-obs", "0", "--n-obs must be greater than or equal to 1"),
    ("--n-obs", "-5", "--n-obs must be greater than or equal to 1"),
    ("--n-int", "-3", "--n-int must be greater than or equal to 0"),
    ("--n-int-obs", "-1", "--n-int-obs must be greater than or equal to 0"),
    ("--replicates", "0", "--replicates must be greater than or equal to 1"),
    ("--seed", "-1", "--seed must be greater than or equal to 0"),
    ("--seed", str(2**64), "--seed must be less than 9223372036854775808"),
])
@pytest.mark.parametrize("command", ["compile", "validate"])
def test_protocol_flags_are_checked_like_the_card(tmp_path: Path, command: str, flag: str,
                                                  value: str, expected: str) -> None:
    cards = write_cards(tmp_path / "cards")
    out = ["--out", str(tmp_path / "data")] if command == "compile" else []
    result = CliRunner().invoke(app, [command, str(cards), *out, flag, value])
    assert result.exit_code == 2, result.output
    assert expected in " ".join(result.output.split())
    assert not (tmp_path / "data").exists()  # refused before any work


def test_overrides_go_through_the_protocol_model() -> None:
    proto = ProtocolOverrides(n_obs=7, seed=3).apply(ProtocolSpec())
    assert (proto.n_obs, proto.seed, proto.replicates) == (7, 3, 5)


def test_memory_is_estimated_and_refused_before_sampling(tmp_path: Path) -> None:
    """200 variables x 10^7 rows is under the cell limit but needs tens of GB."""
    edges = [(f"v{i}", f"v{i + 1}") for i in range(199)]
    (tmp_path / "c.yaml").write_text(card_text("wide", edges,
                                               n_obs=10_000_000).replace("replicates: 2",
                                                                         "replicates: 1"))
    start = time.process_time()
    with peak_mb() as peak:
        report = compile_cards([tmp_path / "c.yaml"], tmp_path / "out", ProtocolOverrides())
    assert time.process_time() - start < 60 and peak[0] < 100
    (res,) = report.results
    (diag,) = res.diagnostics
    assert diag.code == "SCM602" and "GB, over the memory limit of 8.0 GB" in diag.message
    assert "200 variables x 10000120 rows" in diag.message


def test_replicates_count_towards_memory(tmp_path: Path) -> None:
    proto = ProtocolSpec(n_obs=1_000_000, n_int_obs=0, n_int=0, replicates=400)
    assert memory_estimate(20, proto) > 8e9 > memory_estimate(20, proto.model_copy(
        update={"replicates": 10}))


def test_a_grid_of_a_billion_configurations_is_refused_before_expanding(tmp_path: Path) -> None:
    grid = tmp_path / "huge.grid.yaml"
    grid.write_text("grid: 1\nid: huge\ntitle: Too many\ngraphs: [chain]\nd: [10]\n"
                    "per_cell: 1000000000\n")
    start = time.process_time()
    result = CliRunner().invoke(app, ["validate", str(grid)])
    assert time.process_time() - start < 30
    assert result.exit_code == 1 and "SCM704" in result.output
    assert "1,000,000,000 configurations, over the limit of 100,000" in result.output


@pytest.mark.slow
def test_sortability_at_ten_thousand_variables_stays_within_memory() -> None:
    """A 10,000-variable chain: 5 x 10^7 path-connected pairs, compared in bounded blocks."""
    d = 10_000
    reach = np.triu(np.ones((d, d), dtype=bool), 1)  # 100 MB: the closure itself
    scores = np.stack([np.arange(d, dtype=float), np.ones(d)])
    with peak_mb() as peak:
        v_sort, flat = sortabilities(scores, reach)
    assert (v_sort, flat) == (1.0, 0.5)
    assert peak[0] < 100  # pairs as index arrays alone would be 800 MB
