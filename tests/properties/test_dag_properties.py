"""Properties of compiled random DAG cards (see strategies.py for how cards are drawn).

- compiling a valid card never raises (and anything raised is a CardError);
- the plan order respects every edge, and parents equal the drawn edges;
- do(x) leaves every non-descendant of x bit-identical row by row, and changes
  nothing but x and its descendants;
- in an obs+int split, each row's variables that none of its targets reaches
  equal that row of the same pass without interventions;
- reordering variables, keys and edges leaves the samples bit-identical.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import scmspec
from scmspec.compiler.pipeline import compile_card
from scmspec.compiler.spec import Card
from scmspec.errors import CardError
from scmspec.samplers import numpy_sampler
from scmspec.samplers.scm import SCM
from tests.properties.strategies import SETTINGS, dag_cards, shuffled, topological_names

N = 64


def build(data: dict[str, Any]) -> SCM:
    try:
        compiled = compile_card(Card.model_validate(data))
    except CardError as exc:  # a valid drawn card must compile: show why it did not
        raise AssertionError(f"valid card refused: {exc}") from exc
    return SCM(compiled, compiled.plan)


def columns(scm: SCM, seed: int, n: int = N, **kw: Any) -> dict[str, np.ndarray]:
    s = numpy_sampler.sample(scm.plan, n, 0, scm.streams(seed, "obs", 0), **kw)
    return s.columns


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(a, b, equal_nan=True))


@SETTINGS
@given(dag_cards())
def test_valid_cards_compile_and_order_respects_edges(data: dict[str, Any]) -> None:
    scm = build(data)
    position = {s.name: i for i, s in enumerate(scm.plan.steps)}
    assert set(position) == set(data["variables"])
    for e in data["edges"]:
        assert position[e["from"]] < position[e["to"]]
    for step in scm.plan.steps:
        drawn = {e["from"] for e in data["edges"] if e["to"] == step.name}
        assert set(step.parents) == drawn
        assert all(position[p] < position[step.name] for p in step.parents)
    # The creation order is one valid topological order; the compiler's is deterministic.
    assert build(data).plan.steps[0].name == scm.plan.steps[0].name
    assert len(topological_names(data)) == len(position)


@SETTINGS
@given(dag_cards(), st.data())
def test_do_changes_only_descendants(data: dict[str, Any], choice: st.DataObject) -> None:
    scm = build(data)
    target = choice.draw(st.sampled_from(sorted(data["variables"])), label="target")
    seed = data["protocol"]["seed"]
    allowed = scm.plan.step(target).allowed  # a binary or coded target takes one of its values
    value = allowed[-1] if allowed else 0.25
    with np.errstate(all="ignore"):
        base = columns(scm, seed)
        after = columns(scm.do({target: value}), seed)
    below = scm.descendants(target)
    assert (after[target] == value).all()
    for v in base:
        if v != target and v not in below:
            assert same(after[v], base[v]), f"do({target}) changed non-descendant {v}"


@SETTINGS
@given(dag_cards())
def test_interventional_rows_keep_unreached_values(data: dict[str, Any]) -> None:
    scm = build(data)
    if not scm.plan.targets:
        return
    seed = data["protocol"]["seed"]
    with np.errstate(all="ignore"):
        mixed = numpy_sampler.sample(scm.plan, 30, 120, scm.streams(seed, "obsint", 0))
        plain = numpy_sampler.sample(scm.plan, 30, 120, scm.streams(seed, "obsint", 0),
                                     targets=())
    assert mixed.n == plain.n == 150
    reach = {t: scm.descendants(t) | {t} for t in mixed.targets}
    for v in mixed.columns:
        # Rows where none of the row's targets is v or an ancestor of v.
        touched = np.zeros(mixed.n, dtype=bool)
        for j, t in enumerate(mixed.targets):
            if v in reach[t]:
                touched |= mixed.assigned[:, j]
        assert same(mixed.columns[v][~touched], plain.columns[v][~touched]), v
    assert not mixed.assigned[:30].any()
    assert (mixed.assigned[30:].sum(axis=1) == scm.plan.per_row).all()


@SETTINGS
@given(dag_cards(), st.integers(0, 2**32 - 1))
def test_reordering_leaves_samples_bit_identical(data: dict[str, Any], shuffle_seed: int) -> None:
    scm = build(data)
    other = build(shuffled(data, random.Random(shuffle_seed)))
    seed = data["protocol"]["seed"]
    with np.errstate(all="ignore"):
        a, b = columns(scm, seed), columns(other, seed)
        for v in a:
            assert same(a[v], b[v]), v
        x = scm.sample_interventional(20, 40, seed=seed)
        y = other.sample_interventional(20, 40, seed=seed)
    cols = list(x.data.columns)
    assert set(cols) == set(y.data.columns)
    assert x.data.equals(y.data[cols]) and x.mask.equals(y.mask[cols])
    assert x.records.equals(y.records)


@SETTINGS
@given(dag_cards())
def test_api_compile_agrees_with_the_pipeline(data: dict[str, Any]) -> None:
    card = Card.model_validate(data)
    seed = data["protocol"]["seed"]
    with np.errstate(all="ignore"):
        a = scmspec.compile(card).sample(16, seed=seed, include_latent=True)
        b = build(data).sample(16, seed=seed, include_latent=True)
    assert a.equals(b)
