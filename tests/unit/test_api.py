"""The Python API: load, compile, spec.json round trips and determinism."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import scmspec
from scmspec.api import SPEC_FORMAT, spec_document
from scmspec.errors import CardError, SchemaError

CARD = """\
id: api_demo
title: API demo
family: semantic
domain: demo
constants:
  gain: {value: 1.5}
variables:
  colour:
    meaning: paint colour
    kind: categorical
    levels: [red, green, blue]
    distribution: {kind: categorical, probs: [0.2, 0.3, 0.5]}
    intervention: {meaning: repaint, handler: {kind: do, value: green}}
  heat:
    meaning: heat
    range: [-50, 50]
    distribution: {kind: gumbel, loc: 1, scale: 2}
    intervention: {meaning: set heat, handler: {kind: shift, by: 1.0}}
  hidden: {meaning: unobserved, observed: false, distribution: {kind: gamma, shape: 2}}
  glow:
    meaning: glow
    equation: gain * heat + where(colour == 2, 1, 0) + hidden
    noise: {kind: student_t, df: 5, scale: 0.3}
    intervention: {meaning: damp glow, handler: {kind: scale, factor: 0.5}}
  flag:
    meaning: flag
    kind: binary
    equation: bernoulli(sigmoid(glow - 2))
edges:
  - {from: heat, to: glow, reason: r}
  - {from: colour, to: glow, reason: r}
  - {from: hidden, to: glow, reason: r}
  - {from: glow, to: flag, reason: r}
root_blocks:
  - variables: [heat, hidden]
    correlation: [[1.0, 0.4], [0.4, 1.0]]
interventions: {per_row: 2}
protocol: {seed: 7, n_int_obs: 80, n_int: 40}
"""


@pytest.fixture(scope="module")
def card_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cards") / "api_demo.yaml"
    path.write_text(CARD, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def scm(card_path: Path) -> scmspec.SCM:
    return scmspec.compile_file(card_path)


def write_spec(scm: scmspec.SCM, folder: Path) -> Path:
    path = folder / "spec.json"
    path.write_text(json.dumps(spec_document(scm), allow_nan=False), encoding="utf-8")
    return path


def test_load_then_compile(card_path: Path) -> None:
    loaded = scmspec.load(card_path)
    assert loaded.id == "api_demo" and loaded.source.path == str(card_path)
    scm = loaded.compile()
    assert scm.id == "api_demo"
    assert scm.observed == ("colour", "heat", "glow", "flag")
    assert set(scm.variables) == {"colour", "heat", "hidden", "glow", "flag"}


def test_compile_accepts_a_card_model(scm: scmspec.SCM) -> None:
    again = scmspec.compile(scm.compiled.card)
    assert again.sample(30, seed=1).equals(scm.sample(30, seed=1))


def test_spec_document_is_strict_json(scm: scmspec.SCM) -> None:
    doc = spec_document(scm)
    text = json.dumps(doc, allow_nan=False, sort_keys=True)
    assert json.loads(text) == json.loads(json.dumps(doc))
    assert doc["format"] == SPEC_FORMAT
    assert doc["resolved"]["observed"] == list(scm.observed)
    assert doc["resolved"]["parents"]["glow"] == list(scm.compiled.resolved.parents["glow"])
    assert set(doc["resolved"]["steps"]) == set(scm.variables)


def test_load_spec_rebuilds_an_identical_scm(scm: scmspec.SCM, tmp_path: Path) -> None:
    rebuilt = scmspec.load_spec(write_spec(scm, tmp_path))
    assert rebuilt.compiled.card == scm.compiled.card
    assert str(rebuilt.plan) == str(scm.plan)
    assert rebuilt.sample(500, seed=3).equals(scm.sample(500, seed=3))
    a = rebuilt.sample_interventional(seed=4)
    b = scm.sample_interventional(seed=4)
    assert a.data.equals(b.data) and a.mask.equals(b.mask) and a.records.equals(b.records)
    assert rebuilt.do({"colour": "blue"}).sample(50, seed=5).equals(
        scm.do({"colour": "blue"}).sample(50, seed=5))


def test_spec_protocol_overrides_are_kept(scm: scmspec.SCM, tmp_path: Path) -> None:
    doc = spec_document(scm, {"seed": 99, "n_obs": 12})
    assert doc["card"]["protocol"]["seed"] == 99 and doc["card"]["protocol"]["n_int"] == 40
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert scmspec.load_spec(path).compiled.card.protocol.seed == 99


def test_load_spec_refuses_other_documents(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"format": "something/1"}), encoding="utf-8")
    with pytest.raises(SchemaError) as err:
        scmspec.load_spec(path)
    assert err.value.diagnostics[0].code == "SCM202"


def test_same_seed_gives_identical_frames(scm: scmspec.SCM) -> None:
    assert scm.sample(200, seed=11).equals(scm.sample(200, seed=11))
    assert not scm.sample(200, seed=11).equals(scm.sample(200, seed=12))
    assert not scm.sample(200, seed=11, replicate=1).equals(scm.sample(200, seed=11))
    # Without a seed the card's protocol seed is used.
    assert scm.sample(50).equals(scm.sample(50, seed=7))


def test_sample_interventional_defaults_come_from_the_protocol(scm: scmspec.SCM) -> None:
    data = scm.sample_interventional()
    assert len(data.data) == 120
    assert (data.mask.iloc[80:].sum(axis=1) == 2).all()  # per_row: 2


def test_categorical_do_by_level_name(scm: scmspec.SCM) -> None:
    df = scm.do({"colour": "blue"}).sample(100, seed=1)
    assert (df["colour"] == 2).all()


def test_handlers_apply_as_declared(scm: scmspec.SCM) -> None:
    data = scm.sample_interventional(n_obs=200, n_int=600, seed=2)
    rows = data.mask["colour"] == 1
    assert (data.data.loc[rows, "colour"] == 1).all()  # do(green) -> code 1


def test_adjacency_and_descendants(scm: scmspec.SCM) -> None:
    adj = scm.adjacency()
    assert list(adj.index) == list(scm.observed)
    assert adj.loc["heat", "glow"] == 1 and adj.loc["glow", "heat"] == 0
    assert int(adj.to_numpy().sum()) == 3  # hidden -> glow is latent
    assert scm.descendants("heat") == {"glow", "flag"}


def test_compile_text_reports_located_errors() -> None:
    with pytest.raises(CardError) as err:
        scmspec.compile_text(CARD.replace("gain * heat", "gain * heet"), "bad.yaml")
    d = err.value.diagnostics[0]
    assert d.span is not None and d.span.path == "bad.yaml" and d.code == "SCM301"


def test_card_errors_pickle() -> None:
    import pickle

    with pytest.raises(CardError) as err:
        scmspec.compile_text("id: x\n", "bad.yaml")
    again = pickle.loads(pickle.dumps(err.value))
    assert type(again) is type(err.value) and again.diagnostics == err.value.diagnostics


def test_a_dict_card_compiles_without_yaml_and_samples_the_same() -> None:
    import yaml

    data = yaml.safe_load(CARD)
    from_dict = scmspec.compile(data)
    from_text = scmspec.compile_text(CARD)
    assert from_dict.sample(200, seed=3).equals(from_text.sample(200, seed=3))
    assert str(from_dict.plan) == str(from_text.plan)


def test_a_wrong_dict_card_names_the_field() -> None:
    import yaml

    data = yaml.safe_load(CARD)
    data["variables"]["heat"]["noise"] = {"kind": "normal", "sd": -1}
    with pytest.raises(SchemaError) as info:
        scmspec.compile(data, name="<built in code>")
    text = str(info.value)
    assert "heat" in text and "sd" in text
