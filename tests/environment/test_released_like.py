"""A query's table has the released data's selection and missingness.

On a generated card with observation stressors (missingness, outliers, corruption), the
environment applies the build's own hook (``synthetic.build_hooks.observe``, which writes
released splits) to the clean rows of the query, keyed the same way: equal tables, and
cells that differ from the clean draw.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

import scmspec
from scmspec import Environment
from scmspec.api import spec_document
from scmspec.compiler.spec import Card
from scmspec.compiler.synthetic_spec import GraphFactor, SyntheticSpec
from scmspec.environment.queries import reference_scale
from scmspec.samplers.numpy_sampler import run_pass
from scmspec.samplers.streams import Streams
from scmspec.synthetic.build_hooks import observe
from scmspec.synthetic.materialize import materialize
from scmspec.textio import write_json


def test_observation_stressors_match_the_build(tmp_path: Path) -> None:
    card = materialize(Card(
        id="stress", title="t", family="synthetic", domain="synthetic",
        protocol={"replicates": 1, "n_obs": 400, "n_int_obs": 300, "n_int": 100},
        synthetic=SyntheticSpec(seed=4, graph=GraphFactor(family="erdos_renyi", d=6),
                                difficulty=["missingness", "outliers"])))
    scm = scmspec.compile(card)
    (tmp_path / "scm").mkdir()
    write_json(tmp_path / "scm" / "spec.json", spec_document(scm))
    env = Environment.open(tmp_path / "scm", seed=9)
    got = env.observe(500)
    assert env.describe()["selection"] is None  # no selection on this card

    streams = Streams(9, scm.id, "episode-q0", 0)
    clean = scm.frame(run_pass(scm.plan, 500, streams))
    plain = card.model_copy(update={"synthetic": card.synthetic.model_copy(  # type: ignore[union-attr]
        update={"output": card.synthetic.output.model_copy(  # type: ignore[union-attr]
            update={"standardize": False})})})
    (tmp_path / "rep").mkdir()
    frames, record = observe(plain, 9, 0, tmp_path / "rep", {"episode-q0": clean})
    expected = frames["episode-q0"]
    scale = reference_scale(scm)
    if scale is not None:  # the card's output is standardised: by the fixed reference sample
        expected = (expected - scale[0]) / scale[1]
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert record["episode-q0_stressed_cells"] > 0
    raw = expected if scale is None else expected * scale[1] + scale[0]
    assert not np.allclose(raw.to_numpy(), clean.to_numpy())
