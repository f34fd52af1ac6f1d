"""The sampler's fast paths give exactly the numbers of the plain draws they replace."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from scmspec.api import compile_text
from scmspec.compiler.expressions import parse_equation
from scmspec.compiler.lower import _float_in_float_out
from scmspec.samplers.numpy_sampler import _normal_into, run_pass
from scmspec.samplers.streams import Streams

CARD = """
id: fast
title: fast paths
family: synthetic
domain: test
variables:
  x: {meaning: m, distribution: {kind: normal, mean: 1.5, sd: 2.0}, intervention: {meaning: s}}
  y: {meaning: m, equation: '0.5 * x - 3', noise: {kind: normal, sd: 0.3},
      intervention: {meaning: s}}
  z: {meaning: m, equation: 'y'}
  c: {meaning: m, equation: '3'}
edges:
  - {from: x, to: y, reason: r}
  - {from: y, to: z, reason: r}
"""


@pytest.mark.parametrize(("loc", "scale"), [(0.0, 1.0), (1.7, 1.3), (-12.5, 0.01)])
def test_normal_into_is_rng_normal_bit_for_bit(loc: float, scale: float) -> None:
    out = np.empty(10_000)
    _normal_into(np.random.default_rng(3), out, loc, scale)
    assert out.tobytes() == np.random.default_rng(3).normal(loc, scale, out.size).tobytes()


def test_run_pass_matches_the_plain_per_variable_draws() -> None:
    scm = compile_text(CARD)
    cols = run_pass(scm.plan, 500, Streams(4, "fast", "obs", 0))
    s = Streams(4, "fast", "obs", 0)
    x = s.generator("x").normal(1.5, 2.0, 500)
    y = (0.5 * x - 3) + s.generator("y").normal(0.0, 0.3, 500)
    assert cols["x"].tobytes() == x.tobytes()
    assert cols["y"].tobytes() == y.tobytes()
    assert cols["z"].tobytes() == y.tobytes()


def test_columns_never_alias_each_other() -> None:
    scm = compile_text(CARD)
    cols = run_pass(scm.plan, 50, Streams(0, "fast", "obs", 0))
    assert not np.shares_memory(cols["y"], cols["z"])  # z = y is a copy, not the same array
    data = scm.intervene({"y": {"kind": "shift", "by": 1.0}}).sample(50, seed=0)
    assert np.array_equal(data["z"], data["y"])


def test_constant_equation_without_parents_fills_every_row() -> None:
    assert compile_text(CARD).sample(7, seed=0)["c"].tolist() == [3.0] * 7


@pytest.mark.parametrize(("text", "plain"), [
    ("2*x + 3*y", True), ("tanh(x - y)", True), ("sigmoid(x) * exp(-0.5 * (x + y)**2)", True),
    ("x**0.5 + sqrt(y) + abs(x) + log10(y) + pi", True), ("x", True),
    ("where(x > 1, x, y)", False), ("sign(x)", False), ("floor(x)", False), ("max(x, 0)", False),
    ("step(x)", False), ("bernoulli(sigmoid(x))", False),
])
def test_float_guard_is_skipped_only_for_float_in_float_out_expressions(text: str,
                                                                         plain: bool) -> None:
    expr = parse_equation(text).expr
    assert _float_in_float_out(expr) is plain
    assert not _float_in_float_out(sp.I * sp.Symbol("x", real=True))


ORDERED = CARD.replace("  c: {meaning: m, equation: '3'}\n", "")  # card order = plan order


@pytest.mark.parametrize(("text", "shared"), [(ORDERED, True), (CARD, False), (
    ORDERED.replace("z: {meaning: m,", "z: {meaning: m, observed: false,"), False)])
def test_scm_sample_wraps_the_table_only_when_it_is_the_frame(text: str, shared: bool) -> None:
    """``SCM.sample`` shares the sampler's table when the observed columns are its rows in
    order (not with a latent variable, nor when the card's order is not the plan's); the
    frame is the copied one's, value for value and type for type, either way."""
    from scmspec.samplers import numpy_sampler
    from scmspec.samplers.scm import _table_of

    scm = compile_text(text)
    s = numpy_sampler.sample(scm.plan, 500, 0, scm.streams(4, "obs", 0))
    assert (_table_of(s.columns, scm.plan.columns) is not None) is shared
    shared, copied = scm.sample(500, seed=4), scm.frame(s.columns)
    assert list(shared.columns) == list(copied.columns) and shared.dtypes.equals(copied.dtypes)
    assert shared.to_numpy().tobytes() == copied.to_numpy().tobytes()
    shared.columns.name = "renamed"  # the cached column Index is not shared between frames
    assert scm.sample(5, seed=4).columns.name is None
