"""``scmspec compile --effects``, ``scmspec effects`` and ``scmspec score-effects`` end to end.

Without ``--effects`` nothing a build writes changes; with it every dataset gains
``effects/`` and nothing else changes (the data files stay byte-identical).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from scmspec.build.outputs import STAMP
from scmspec.cli import app
from tests.effects.cards import STRATA

ROOT = Path(__file__).resolve().parents[2]
DRONE = ROOT / "cards" / "causalgame" / "drone_antenna_trap.yaml"
SMALL = ["--replicates", "1", "--effect-rows", "2000"]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def hashes(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != STAMP
            and ".build" not in p.parts}


@pytest.fixture(scope="module")
def cards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("cards")
    shutil.copy(DRONE, folder / DRONE.name)
    (folder / "strata.yaml").write_text(STRATA + "protocol: {n_obs: 400}\n"
                                        "justifications: {near_copy: an oracle card}\n")
    return folder


@pytest.fixture(scope="module")
def builds(cards: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("builds")
    plain, effects = root / "plain", root / "effects"
    assert run("compile", str(cards), "--out", str(plain), "--replicates", "1")[0] == 0
    assert run("compile", str(cards), "--out", str(effects), "--effects", *SMALL)[0] == 0
    return plain, effects


def test_effects_only_add_files(builds: tuple[Path, Path]) -> None:
    plain, effects = (hashes(b) for b in builds)
    added = set(effects) - set(plain)
    assert added == {f"{c}/effects/{f}" for c in ("drone_antenna_trap", "strata")
                     for f in ("effects.csv", "counterfactual.csv", "effects.json")}
    changed = [k for k in plain if plain[k] != effects[k]]
    assert changed == ["manifest.json"]  # it lists the new files and the effect options


def test_the_manifest_says_so_only_with_the_flag(builds: tuple[Path, Path]) -> None:
    plain, effects = (json.loads((b / "manifest.json").read_text()) for b in builds)
    assert "effects" not in plain and effects["effects"] == {"rows": 2000,
                                                             "counterfactual_rows": 100}
    files = {f for e in effects["scms"] for f in e["files"]}
    assert "drone_antenna_trap/effects/effects.csv" in files


def test_rebuilding_is_byte_identical_and_dropping_the_flag_rebuilds(
        builds: tuple[Path, Path], cards: Path, tmp_path: Path) -> None:
    effects = tmp_path / "copy"
    shutil.copytree(builds[1], effects)
    before = hashes(effects)
    code, out, _ = run("compile", str(cards), "--out", str(effects), "--effects", *SMALL,
                       "--force")
    assert code == 0 and hashes(effects) == before
    code, out, _ = run("compile", str(cards), "--out", str(effects), "--effects", *SMALL)
    assert code == 0 and "reused" in out
    code, out, _ = run("compile", str(cards), "--out", str(effects), "--replicates", "1")
    assert code == 0 and "reused" not in out
    assert not (effects / "strata" / "effects").exists()


def test_the_effects_command_writes_what_compile_writes(builds: tuple[Path, Path],
                                                        tmp_path: Path) -> None:
    _, effects = builds
    code, out, _ = run("effects", str(DRONE), "--rows", "2000", "--out", str(tmp_path / "e"))
    assert code == 0 and "antenna_def -> hull_damage" in out
    for name in ("effects.csv", "counterfactual.csv", "effects.json"):
        a = (tmp_path / "e" / name).read_bytes()
        assert a == (effects / "drone_antenna_trap" / "effects" / name).read_bytes(), name


def test_counterfactual_rows_are_released_rows(builds: tuple[Path, Path]) -> None:
    folder = builds[1] / "drone_antenna_trap"
    obs = pd.read_csv(folder / "rep-0" / "obs.csv")
    cf = pd.read_csv(folder / "effects" / "counterfactual.csv")
    doc = json.loads((folder / "effects" / "effects.json").read_text())
    assert doc["counterfactual"]["released"] == "rep-0/obs.csv"
    assert doc["counterfactual"]["rows"] == 100 == cf["row"].nunique()
    assert sorted(doc["counterfactual"]["targets"]) == ["antenna_def", "body_def", "camera_def"]
    mine = cf[cf["target"] == "camera_def"].set_index("row")
    for v in ("wind_speed", "antenna_hp", "body_def"):  # not downstream of camera_def
        assert mine[v].tolist() == obs[v].iloc[:100].tolist()


def test_card_errors_and_foreign_folders_exit_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(DRONE.read_text().replace("equation: drag_load * wind_speed**2",
                                             "equation: drag_load * wind_sped**2"))
    code, _, err = run("effects", str(bad))
    assert code == 1 and "bad.yaml:" in err and "wind_sped" in err
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    code, _, err = run("effects", str(DRONE), "--rows", "500", "--out", str(mine))
    assert code == 1 and (mine / "notes.txt").read_text() == "keep me"


def test_score_effects_on_the_truth_itself_is_perfect(builds: tuple[Path, Path],
                                                      tmp_path: Path) -> None:
    folder = builds[1] / "drone_antenna_trap"
    truth = pd.read_csv(folder / "effects" / "effects.csv")
    head = truth[(truth["contrast"] == "card") & (truth["population"] == "all")
                 & truth["stratum"].isna() & (truth["descendant"] == 1)]
    pred = head.drop_duplicates(["target", "outcome"])[["target", "outcome", "estimate"]]
    pred = pred.assign(lower=pred["estimate"] - 1e-9, upper=pred["estimate"] + 1e-9)
    pred.to_csv(tmp_path / "pred.csv", index=False)
    code, out, _ = run("score-effects", str(tmp_path / "pred.csv"), "--truth", str(folder),
                       "--json")
    doc = json.loads(out)
    assert code == 0 and doc["ok"] == len(pred) and doc["mean_abs_error"] == 0.0
    assert doc["coverage"] == 1.0 and doc["sign_accuracy"] == 1.0
    preds = tmp_path / "preds"
    preds.mkdir()
    pred.to_csv(preds / "drone_antenna_trap.csv", index=False)
    code, out, _ = run("score-effects", "--pool", str(builds[1]), "--preds", str(preds),
                       "--by", "family", "--json")
    group = json.loads(out)["groups"][0]
    assert code == 0 and group["scms"] == 2 and group["scored"] == 1 and group["missing"] == 1
    assert group["mean_abs_error"] == 0.0


def test_score_effects_usage_and_missing_truth(builds: tuple[Path, Path], tmp_path: Path) -> None:
    assert run("score-effects")[0] == 2
    (tmp_path / "p.csv").write_text("target,outcome,estimate\nx,y,1\n")
    code, _, err = run("score-effects", str(tmp_path / "p.csv"), "--truth",
                       str(builds[0] / "strata"))
    assert code == 1 and "compile with scmspec compile --effects" in err
