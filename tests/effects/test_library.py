"""Effect truth on the shipped cards: it runs, it is complete, and non-descendants are 0.

Small runs (2,000 rows): this checks structure and stream isolation on real cards; the
numbers are checked against oracles elsewhere (tests/oracles, tests/effects/test_truth.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import scmspec
from scmspec.effects.contrasts import intervenable
from scmspec.effects.write import EffectOptions, compute_effects, released_obs
from tests.library import card_params

pytestmark = pytest.mark.slow  # tests/library.py's wide sample (every card: --whole-library)


@pytest.mark.parametrize("path", card_params(fast=[]))
def test_effect_truth_of_a_shipped_card(path: Path) -> None:
    scm = scmspec.load(path).compile()
    seed = scm.compiled.card.protocol.seed
    files = compute_effects(scm, seed, released_obs(scm, seed),
                            EffectOptions(rows=2_000, counterfactual_rows=50))
    table = files.truth.table
    targets = intervenable(scm)
    assert set(table["target"]) == set(targets)
    for t in targets:
        mine = table[(table["target"] == t) & (table["population"] == "all")]
        assert set(mine["outcome"]) == set(scm.plan.columns) - {t}
        assert (mine[mine["descendant"] == 1]["outcome"].isin(scm.descendants(t))).all()
    off = table[(table["descendant"] == 0) & (table["population"] == "all")]
    assert (off["estimate"] == 0.0).all() and (off["se"] == 0.0).all()
    cf = files.counterfactual
    assert len(cf) == 50 * len(files.doc["counterfactual"]["targets"])
    assert table["estimate"].notna().all()
