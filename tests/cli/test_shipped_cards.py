"""End to end on the shipped cards: ``scmspec compile cards/`` and what it writes.

One full compile (card defaults: 5 replicates, 1000 + 800/200 rows) of the whole library is
shared by the module and checked card by card. The determinism checks compile smaller copies
(2 replicates) of a stratified sample (``ORDER_SAMPLE``: every third card of ``SAMPLE``, the
first card of each family and domain folder; eight cards over the three families) from
temporary folders whose file order and names differ, and compare every written byte: order
and name independence are properties of the compiler, not of each card, and the sample keeps
their cost flat as the library grows.
The other-seed check releases the cards of the wide sample (every card with
``--whole-library``) at one seed other than the default (half at seed 1, half at 17; one
replicate); every card at seeds 1-20 is ``bench/gate_stability.py``'s run.
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import scmspec
from scmspec.build.discover import discover
from scmspec.build.outputs import STAMP
from scmspec.cli import app
from scmspec.samplers import numpy_sampler
from tests.library import SAMPLE, WIDE_SAMPLE

ROOT = Path(__file__).resolve().parents[2]
CARDS = ROOT / "cards"
CARD_FILES = [f.path for f in discover([CARDS])]


DRONE = "drone_antenna_trap"
ORDER_SAMPLE = SAMPLE[::3]

pytestmark = pytest.mark.slow  # compiles the whole library, several times


def _compile(cwd: Path, *args: str) -> None:
    """Run ``scmspec compile`` in-process from ``cwd`` and require exit 0."""
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(cwd)
        result = CliRunner().invoke(app, ["compile", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output


def _hashes(folder: Path) -> dict[str, str]:
    """Every dataset file's sha256 (the ownership stamp is bookkeeping, not a dataset file)."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != STAMP}


@functools.cache
def _card_ids() -> dict[str, Path]:
    return {scmspec.load(p).id: p for p in CARD_FILES}


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped cards compiled once with their own protocols."""
    folder = tmp_path_factory.mktemp("compiled") / "data"
    _compile(ROOT, "cards", "--out", str(folder), "--workers", "2")
    return folder


@pytest.fixture(scope="module")
def manifest(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text(encoding="utf-8"))


def _datasets(out: Path) -> Iterator[tuple[str, Path]]:
    for cid in sorted(_card_ids()):
        yield cid, out / cid


def test_there_are_shipped_cards() -> None:
    assert {"barometric_slp", "wildfire_smoke_shelter", DRONE} <= set(_card_ids())


def test_manifest_releases_every_card_with_matching_hashes(out: Path, manifest: dict) -> None:
    entries = {e["id"]: e for e in manifest["scms"]}
    assert set(entries) == set(_card_ids())
    assert manifest["counts"] == {"released": len(entries), "rejected": 0, "failed": 0}
    for cid, path in _card_ids().items():
        entry = entries[cid]
        assert entry["status"] == "released", (cid, entry["diagnostics"], entry["gates_failed"])
        assert entry["card_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
        assert entry["files"], cid
        written = {f"{cid}/{k}": v for k, v in _hashes(out / cid).items()}
        assert entry["files"] == written, f"{cid}: manifest hashes differ from the files"


def test_every_table_loads_with_one_read_csv(out: Path) -> None:
    tables = sorted(out.rglob("*.csv"))
    assert len(tables) >= 3 * (3 + 5 * 4)
    for table in tables:
        index_col = 0 if table.name.startswith("adjacency") else None
        frame = pd.read_csv(table, index_col=index_col)
        assert len(frame.columns) > 0, table


def test_masks_mark_only_the_recorded_targets_on_interventional_rows(out: Path) -> None:
    for cid, folder in _datasets(out):
        meta = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
        n_obs, n_int = meta["n"]["obsint_obs"], meta["n"]["obsint_int"]
        for rep in range(meta["replicates"]):
            data = pd.read_csv(folder / f"rep-{rep}" / "obsint.csv")
            mask = pd.read_csv(folder / f"rep-{rep}" / "obsint_mask.csv")
            records = pd.read_csv(folder / f"rep-{rep}" / "obsint_records.csv",
                                  keep_default_na=False)
            assert mask.shape == data.shape == (n_obs + n_int, meta["d"]), cid
            assert list(mask.columns) == list(data.columns)
            assert set(np.unique(mask.to_numpy())) <= {0, 1}
            assert not mask.iloc[:n_obs].to_numpy().any(), f"{cid}: observational row masked"
            assert set(mask.columns[mask.to_numpy().any(axis=0)]) <= set(meta["targets"])
            # each interventional row masks exactly its recorded targets (';'-joined)
            named = records["targets"].iloc[n_obs:].str.get_dummies(sep=";")
            assert set(named.columns) <= set(mask.columns), (cid, set(named.columns))
            assert (named.sum(axis=1) > 0).all(), f"{cid}: an interventional row without target"
            recorded = named.reindex(columns=mask.columns, fill_value=0).to_numpy()
            assert (recorded == mask.iloc[n_obs:].to_numpy()).all(), cid


def test_latent_variables_are_in_the_full_graph_only(out: Path) -> None:
    seen_latent = 0
    for cid, folder in _datasets(out):
        meta = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
        full = pd.read_csv(folder / "graph" / "adjacency_full.csv", index_col=0)
        observed = pd.read_csv(folder / "graph" / "adjacency.csv", index_col=0)
        obs = pd.read_csv(folder / "rep-0" / "obs.csv")
        assert list(obs.columns) == list(observed.columns) == list(observed.index)
        for v in meta["latent"]:
            seen_latent += 1
            assert v in full.columns and v in full.index, (cid, v)
            assert full.loc[v].sum() + full[v].sum() > 0, f"{cid}: latent {v} is isolated"
            assert v not in obs.columns and v not in observed.columns, (cid, v)
        assert observed.equals(full.loc[observed.index, observed.columns])
    assert seen_latent >= 2


def test_spec_json_rebuilds_the_same_scm(out: Path) -> None:
    """Every card's spec.json redraws its written rows; for the wide sample also its latent
    variables, against a fresh compile of the card."""
    for cid, folder in _datasets(out):
        rebuilt = scmspec.load_spec(folder / "spec.json")
        if _card_ids()[cid] in WIDE_SAMPLE:
            fresh = scmspec.compile_file(_card_ids()[cid])
            a = rebuilt.sample(300, seed=5, include_latent=True)
            b = fresh.sample(300, seed=5, include_latent=True)
            pd.testing.assert_frame_equal(a, b, check_exact=True)
        meta = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
        written = pd.read_csv(folder / "rep-1" / "obs.csv")
        again = rebuilt.sample(meta["n"]["obs"], seed=meta["seed"], replicate=1)
        pd.testing.assert_frame_equal(written, again, check_exact=True, check_dtype=False)


def _copy_cards(dest: Path, rename: bool) -> None:
    """Copy the shipped cards into ``dest`` in reverse order (optionally renamed, flat)."""
    dest.mkdir(parents=True)
    for i, src in enumerate(reversed(ORDER_SAMPLE)):
        if rename:
            target = dest / f"{chr(ord('z') - i)}_{i}.yaml"
        else:
            target = dest / src.relative_to(CARDS)
            target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)


def _without_card_paths(folder: Path) -> dict[str, object]:
    """Every file's hash, except that card file paths are cut from the manifest and gates.

    Those two files name the card file (``card`` and ``file:line:col`` locations), which is
    the only thing that may change when the same cards are saved under other names. The
    incremental-build records under ``.build/`` key on the card path by design (a moved card
    is rebuilt), so they are not part of the dataset compared here.
    """
    out: dict[str, object] = {}
    for rel, digest in _hashes(folder).items():
        if rel.startswith(".build/"):
            continue
        if rel == "manifest.json":
            doc = json.loads((folder / rel).read_text(encoding="utf-8"))
            for entry in doc["scms"]:
                entry.pop("card")
                entry["files"] = {k: v for k, v in entry["files"].items()
                                  if not k.endswith("gates.json")}
            out[rel] = doc
        elif rel.endswith("gates.json"):
            gates = json.loads((folder / rel).read_text(encoding="utf-8"))
            out[rel] = [{**g, "location": (g["location"] or "").partition(":")[2]} for g in gates]
        else:
            out[rel] = digest
    return out


@pytest.mark.xdist_group("cli/test_shipped_cards:order")  # own compiles: another worker
def test_compiles_are_byte_identical_whatever_the_file_order_and_names(tmp_path: Path) -> None:
    small = ("--replicates", "2")
    for name in ("ordered", "shuffled"):
        (tmp_path / name).mkdir()
    assert len(ORDER_SAMPLE) >= 6 and len({p.parent for p in ORDER_SAMPLE}) == len(ORDER_SAMPLE)
    assert {p.relative_to(CARDS).parts[0] for p in ORDER_SAMPLE} >= {"causalgame", "formula",
                                                                   "semantic"}
    for src in ORDER_SAMPLE:  # sorted order, original layout
        target = tmp_path / "ordered" / "cards" / src.relative_to(CARDS)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
    _copy_cards(tmp_path / "shuffled" / "cards", rename=False)
    _copy_cards(tmp_path / "renamed" / "cards", rename=True)
    for name in ("ordered", "shuffled", "renamed"):
        _compile(tmp_path / name, "cards", "--out", "out", *small)
    ordered, shuffled = (_hashes(tmp_path / n / "out") for n in ("ordered", "shuffled"))
    assert ordered == shuffled  # every file, manifest included
    renamed = _without_card_paths(tmp_path / "renamed" / "out")
    assert _without_card_paths(tmp_path / "ordered" / "out") == renamed

    _compile(tmp_path / "ordered", "cards", "--out", "seed7", "--seed", "7", *small)
    seeded = _hashes(tmp_path / "ordered" / "seed7")
    sample_ids = {cid for cid, path in _card_ids().items() if path in ORDER_SAMPLE}
    assert {p.split("/")[0] for p in seeded if "/" in p} - {".build"} == sample_ids
    for cid in sample_ids:
        for rel in ("rep-0/obs.csv", "rep-1/obsint.csv"):
            assert seeded[f"{cid}/{rel}"] != ordered[f"{cid}/{rel}"], (cid, rel)
        assert seeded[f"{cid}/graph/adjacency.csv"] == ordered[f"{cid}/graph/adjacency.csv"]


def test_drone_selection_keeps_only_survivors_and_records_acceptance(out: Path) -> None:
    folder = out / DRONE
    meta = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
    assert meta["selection"] == "survived == 1"
    assert "survived" in meta["latent"] and "is_storm" in meta["latent"]
    assert set(meta["acceptance"]) == {str(r) for r in range(meta["replicates"])}
    for rates in meta["acceptance"].values():
        for split in ("obs", "obsint"):
            # the historical fleet survives about 68% of missions
            assert 0.55 < rates[split] < 0.80, rates
    for rep in range(meta["replicates"]):
        for split in ("obs", "obsint"):
            data = pd.read_csv(folder / f"rep-{rep}" / f"{split}.csv")
            assert (data["hull_damage"] < 80).all()  # the hull held: every row survived
    scm = scmspec.load_spec(folder / "spec.json")
    rows = scm.sample(2000, seed=11, include_latent=True)
    assert (rows["survived"] == 1).all()
    assert (rows["antenna_hp"] == 0).mean() > 0.4  # survivors mostly lost their antenna


@pytest.mark.parametrize(("antenna_def", "low", "high"), [(0.0, 0.78, 0.86), (10.0, 0.62, 0.74),
                                                          (50.0, 0.46, 0.58)])
def test_drone_survival_matches_the_paper(antenna_def: float, low: float, high: float) -> None:
    """x_ant = 0 gives about 82% survival (CausalGame table 8); protecting the antenna is worse."""
    scm = scmspec.compile_file(_card_ids()[DRONE]).do({"antenna_def": antenna_def})
    drawn = numpy_sampler.sample(scm.plan, 4000, 0, scm.streams(3, "obs", 0))
    assert low < drawn.acceptance < high  # acceptance = share of drones that survived


def test_library_quality_bar_no_unjustified_warning_and_no_copies(out: Path) -> None:
    """The issue's quality bar, read from each released card's gates.json.

    Every warning is justified, every justification is scoped to the pair it
    covers (a gate-wide text would hide the next near copy), and no pair is an
    alias or a tiny-noise copy, justified or not.
    """
    for cid, folder in _datasets(out):
        gates = json.loads((folder / "gates.json").read_text(encoding="utf-8"))
        for g in gates:
            if g["status"] in ("warn", "fail"):
                assert g["justification"], (cid, g["gate"], g["detail"])
            if g["gate"] == "near_copy" and g["status"] != "pass":
                assert "tiny-noise copy" not in g["detail"], (cid, g["detail"])
                assert " alias of " not in g["detail"], (cid, g["detail"])
        notes = scmspec.load(_card_ids()[cid]).card.justifications
        assert not isinstance(notes.get("near_copy"), str), f"{cid}: scope near_copy to pairs"


@pytest.mark.parametrize(("seed", "half"), [  # own compiles: each may go to another worker
    pytest.param(1, 0, marks=pytest.mark.xdist_group("cli/test_shipped_cards:seed1")),
    pytest.param(17, 1, marks=pytest.mark.xdist_group("cli/test_shipped_cards:seed17")),
])
def test_cards_are_released_under_another_seed(tmp_path: Path, seed: int, half: int,
                                               pytestconfig: pytest.Config) -> None:
    """Cards are written for their model, not for seed 0: a user's seed must not turn a
    tail value or a weak effect into a rejection (ranges, near copies, interventions).

    The cards of tests/library.py's wide sample (every card with ``--whole-library``) are
    released at one other seed (alternate cards at seed 1 and 17), on one replicate: the
    seed-sensitive decisions are the gates' estimates, and those are made on pilots of
    their own (docs/gates.md, "Stable decisions"). Every card at its own seed is the
    module fixture; every card at seeds 1-20 is ``bench/gate_stability.py``."""
    chosen = CARD_FILES if pytestconfig.getoption("--whole-library") else [
        p for p in CARD_FILES if p in WIDE_SAMPLE]
    cards = tmp_path / "cards"
    for src in chosen[half::2]:
        target = cards / src.relative_to(CARDS)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
    _compile(tmp_path, "cards", "--out", "data", "--seed", str(seed), "--replicates", "1",
             "--workers", "2")
    manifest = json.loads((tmp_path / "data" / "manifest.json").read_text(encoding="utf-8"))
    assert len(manifest["scms"]) == len(chosen[half::2])
    bad = {e["id"]: e["gates_failed"] or e["diagnostics"] for e in manifest["scms"]
           if e["status"] != "released"}
    assert not bad, bad
