"""Difficulty stressors: the nine settings, observation stressors applied after sampling and
recorded per cell (never touching the ground truth or the gated values), high noise and
weak signal inside the SCM."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scmspec.build import ProtocolOverrides, build
from scmspec.compiler.kinds.mechanisms import LinearMechanism
from scmspec.compiler.pipeline import compile_card
from scmspec.compiler.spec import Card
from scmspec.compiler.synthetic_spec import GraphFactor, ObservationStressorSpec, SyntheticSpec
from scmspec.samplers.scm import SCM
from scmspec.synthetic.grid.yaml_out import card_yaml
from scmspec.synthetic.materialize import materialize
from scmspec.synthetic.nodes.factors import NOISE_FACTORS
from scmspec.synthetic.nodes.noise_boost import louder
from scmspec.synthetic.rng import stream
from scmspec.synthetic.stressors import (
    DIFFICULTY_STRESSORS,
    MASK_CODES,
    STRESSORS,
    apply_observation_stressors,
    observation_specs,
    strength,
)

OBSERVATION = ["feature_corruption", "feature_warping", "missingness", "outliers"]


def _factor(difficulty: list[str], d: int = 8, seed: int = 4) -> Card:
    return Card(id="stress", title="t", family="synthetic", domain="synthetic",
                protocol={"replicates": 1, "n_obs": 400, "n_int_obs": 300, "n_int": 100},
                synthetic=SyntheticSpec(seed=seed, graph=GraphFactor(family="erdos_renyi", d=d),
                                        difficulty=difficulty))


def test_nine_difficulty_settings_with_documented_constants() -> None:
    assert len(STRESSORS) == 9 and len(DIFFICULTY_STRESSORS) == 8
    p = {t: s.params for t, s in STRESSORS.items()}
    assert p["weak_signal"] == {"strength": 0.45} and p["high_noise"] == {"sd": 0.35}
    assert p["feature_warping"]["fraction"] == 0.55 and p["outliers"]["fraction"] == 0.025
    assert p["missingness"]["fraction"] == 0.05 and p["feature_corruption"]["fraction"] == 0.03
    assert p["soft_interventions"] == {"softness": 0.45}
    stages = {t: s.stage for t, s in STRESSORS.items()}
    assert sorted(t for t, s in stages.items() if s == "observation") == OBSERVATION
    assert strength(["weak_signal"]) == 0.45 and strength([]) == 1.0


def test_warping_picks_55_percent_of_continuous_columns() -> None:
    cols = [f"c{i}" for i in range(20)]
    (spec,) = observation_specs(["feature_warping"], cols, stream(0, "w"))
    assert len(spec.columns or {}) == 11
    assert set((spec.columns or {}).values()) <= {"signed_log", "tanh", "signed_sqrt"}


@settings(max_examples=15, derandomize=True, deadline=None)
@given(kind=st.sampled_from(["outliers", "missingness", "feature_corruption"]),
       seed=st.integers(0, 10**6))
def test_cell_stressors_touch_about_their_fraction_and_mark_every_cell(kind: str,
                                                                       seed: int) -> None:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.normal(size=4000), "b": rng.normal(size=4000),
                          "k": rng.integers(0, 3, 4000)})
    frac = STRESSORS.lookup(kind).params["fraction"]
    spec = [ObservationStressorSpec(kind=kind, fraction=frac)]  # type: ignore[arg-type]
    out, mask = apply_observation_stressors(frame, spec, {"a", "b"}, stream(seed, "c"))
    assert out.shape == frame.shape and frame.equals(frame.copy())
    hit = mask.to_numpy() == MASK_CODES[kind]
    assert set(np.unique(mask.to_numpy())) <= {0, MASK_CODES[kind]}
    share = hit[:, :2].mean()
    assert abs(share - frac) < 4 * np.sqrt(frac * (1 - frac) / 8000)
    same = out.to_numpy() == frame.to_numpy()
    assert same[~hit].all(), "an unmarked cell changed"
    if kind != "feature_corruption":
        assert not hit[:, 2].any() and out["k"].equals(frame["k"])  # discrete column untouched
        assert not same[hit].any()
    else:
        assert sorted(out["a"]) == sorted(frame["a"])  # a permutation within the column


def test_materialised_card_records_observation_stressors() -> None:
    full = materialize(_factor(OBSERVATION))
    kinds = [s.kind for s in full.synthetic.observation]
    assert kinds == ["feature_warping", "outliers", "missingness", "feature_corruption"]
    assert "difficulty=" + "+".join(OBSERVATION) in full.tags


def test_observation_stressors_never_change_the_truth_and_are_recorded(tmp_path: Path) -> None:
    stressed = materialize(_factor(OBSERVATION))
    clean = stressed.model_copy(update={"id": "clean", "synthetic": stressed.synthetic.model_copy(
        update={"observation": None})})
    for card in (stressed, clean.model_copy(update={"id": "stress"})):
        folder = tmp_path / ("a" if card.synthetic.observation else "b")
        folder.mkdir()
        (folder / "card.yaml").write_text(card_yaml(card), encoding="utf-8")
        (res,) = build([folder], tmp_path / f"out-{folder.name}", ProtocolOverrides())
        assert res.status == "released", res.gates
    a, b = tmp_path / "out-a" / "stress", tmp_path / "out-b" / "stress"
    for rel in ("graph/adjacency.csv", "graph/cpdag.csv", "gates.json",
                "rep-0/obsint_mask.csv"):
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    warped = set(stressed.synthetic.observation[0].columns or {})
    assert warped
    for split in ("obs", "obsint"):
        x = pd.read_csv(a / "rep-0" / f"{split}.csv")
        y = pd.read_csv(b / "rep-0" / f"{split}.csv")
        cells = pd.read_csv(a / "rep-0" / f"{split}_stressed_cells.csv")
        assert not (b / "rep-0" / f"{split}_stressed_cells.csv").exists()
        mask = np.zeros(x.shape, dtype=bool)
        mask[cells["row"], [list(x.columns).index(c) for c in cells["column"]]] = True
        mask[:, [list(x.columns).index(c) for c in warped]] = True
        assert set(np.unique(cells["flags"])) <= {2, 4, 8, 2 | 8, 4 | 8, 2 | 4, 2 | 4 | 8}
        assert np.allclose(x.to_numpy()[~mask], y.to_numpy()[~mask])
        assert not np.allclose(x.to_numpy()[mask], y.to_numpy()[mask])
    meta = json.loads((a / "metadata.json").read_text())
    assert meta["synthetic"]["output"]["0"]["obs_stressed_cells"] > 0


@pytest.mark.parametrize("tag", sorted(NOISE_FACTORS))
def test_high_noise_adds_the_variance_of_gaussian_noise_sd_035(tag: str) -> None:
    rng = np.random.default_rng(1)
    f, parents = rng.normal(size=20000), {"p": rng.normal(size=20000)}
    base = NOISE_FACTORS.lookup(tag).draw(stream(0, tag), f, ("p",))
    loud = louder(base, f, parents, stream(1, tag))
    assert loud.kind == base.kind or (tag == "none" and loud.kind == "normal")

    def var(noise: object) -> float:
        eps = noise.draw(np.random.default_rng(5), f.size)  # type: ignore[attr-defined]
        return float(np.var(np.asarray(noise.apply(f, eps, parents)) - f))  # type: ignore[attr-defined]

    gained = var(loud) - var(base)
    tol = 0.25 if tag in ("student_t", "censored", "quantised", "heteroskedastic") else 0.12
    assert abs(gained - 0.35**2) < tol * 0.35**2 + 0.01, (tag, gained)


def test_signals_are_standardised_and_weak_signal_scales_them_to_045() -> None:
    """Each mechanism's output on fresh data has sd ~ strength and (where it has a bias slot)
    mean ~ 0: the pilot standardisation holds beyond the pilot."""
    for difficulty, target in (([], 1.0), (["weak_signal"], 0.45)):
        full = materialize(_factor(difficulty, d=12, seed=2))
        compiled = compile_card(full)
        data = SCM(compiled, compiled.plan).sample(6000, seed=1, include_latent=True)
        sds = []
        for v, spec in full.variables.items():
            if spec.mechanism is None:
                continue
            parents = compiled.resolved.parents[v]
            f = np.asarray(spec.mechanism.lower(parents)(*[data[p].to_numpy() for p in parents]))
            sds.append(f.std() / target)
            if spec.mechanism.kind not in ("rational", "rff"):
                assert abs(f.mean()) < 0.3 * target, (v, spec.mechanism.kind, f.mean())
        assert 0.8 < float(np.median(sds)) < 1.25, (difficulty, sds)
        lin = [s.mechanism for s in full.variables.values()
               if isinstance(s.mechanism, LinearMechanism)]
        assert all(abs(m.bias) < 5 for m in lin)
