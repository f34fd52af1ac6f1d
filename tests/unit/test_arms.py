"""``rerun`` (affected steps only) equals a full forced pass bit for bit, on every shipped card
(the stratified sample in the developer loop, every card in the full suite).

This is what lets effect truth and design search skip non-descendants: the skipped
columns are the control pass's, and the recomputed ones are exactly what
``run_pass(..., forced=...)`` gives.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

import scmspec
from scmspec.compiler.kinds.interventions import DoHandler, HandlerBase
from scmspec.samplers.arms import affected, rerun
from scmspec.samplers.numpy_sampler import run_pass
from scmspec.samplers.scm import SCM
from scmspec.samplers.streams import Streams
from tests.library import card_params

CARDS = Path(__file__).resolve().parents[2] / "cards"
N = 400


@cache
def _scm(path: str) -> SCM:
    return scmspec.load(path).compile()


def _same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> list[str]:
    """Variables whose columns differ in any bit."""
    return sorted(k for k in a if a[k].tobytes() != b[k].tobytes())


@pytest.mark.parametrize("path", card_params())
def test_rerun_equals_a_full_forced_pass(path: Path) -> None:
    scm = _scm(str(path))
    plan, streams = scm.plan, Streams(3, scm.id, "arms-test", 0)
    control = run_pass(plan, N, streams)
    handlers: dict[str, HandlerBase] = {t: plan.step(t).handler or DoHandler(value=1.0)
                                        for t in plan.targets}
    cases = [{t: h} for t, h in handlers.items()] + [handlers]  # one target, then all
    for forced in cases:
        full = run_pass(plan, N, streams, forced=forced, pilot=lambda: control)
        fast = rerun(plan, N, streams, control, forced, baseline=control)
        assert set(full) == set(fast)
        assert _same(full, fast) == [], (sorted(forced), _same(full, fast))
        untouched = set(full) - affected(plan, forced)
        assert all(fast[v] is control[v] for v in untouched)


def test_rerun_reads_block_uniforms_for_a_copula_target() -> None:
    """A target inside a Gaussian-copula block takes its natural value from the copula."""
    scm = _scm(str(CARDS / "causalgame" / "drone_deployment_zone_trap.yaml"))
    plan, streams = scm.plan, Streams(0, scm.id, "arms-test", 0)
    assert plan.step("body_def").block is not None
    control = run_pass(plan, N, streams)
    forced: dict[str, HandlerBase] = {"body_def": plan.step("body_def").handler}  # type: ignore[dict-item]
    full = run_pass(plan, N, streams, forced=forced, pilot=lambda: control)
    fast = rerun(plan, N, streams, control, forced, baseline=control)
    assert _same(full, fast) == []
    assert not np.array_equal(fast["hull_damage"], control["hull_damage"])


def test_only_recomputes_what_the_named_variables_need() -> None:
    scm = _scm(str(CARDS / "causalgame" / "drone_deployment_zone_trap.yaml"))
    plan, streams = scm.plan, Streams(0, scm.id, "arms-test", 0)
    control = run_pass(plan, N, streams)
    forced: dict[str, HandlerBase] = {"shield_def": DoHandler(value=25.0)}
    full = rerun(plan, N, streams, control, forced)
    part = rerun(plan, N, streams, control, forced, only=["survived"])
    assert "lost_frames" not in part  # affected but not needed: left out, never stale
    assert part["survived"].tobytes() == full["survived"].tobytes()
    assert part["comm_failure"].tobytes() == full["comm_failure"].tobytes()
