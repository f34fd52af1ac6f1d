"""``scmspec release``: balanced split per stratum, sealed reserved part, same seed same split,
changes against the previous release, and the command's errors."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from scmspec.build.driver import compile_cards
from scmspec.cli import app
from scmspec.release import ReleaseError, ReleaseOptions, extracted, make_release, read_release
from scmspec.release.split import family_target
from tests.benchmark.conftest import OVERRIDES, Pool, copy_pool

pytestmark = pytest.mark.slow  # compiles the small benchmark once (about 20 s here)
runner = CliRunner()
# what a reserved SCM may show: its tables, masks, records and (observed_if cards) which
# cells were not recorded; never a graph, spec or metadata
DATA_FILES = {"obs.csv", "obsint.csv", "obsint_mask.csv", "obsint_records.csv",
              "obs_missing.csv", "obsint_missing.csv"}


def release(pool: Pool, out: Path, **options: object) -> dict:
    opts = ReleaseOptions(**{"version": "1.0", **options})  # type: ignore[arg-type]
    return make_release(pool.pools, out, opts).manifest


@pytest.fixture(scope="module")
def pkg(pool: Pool, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("release") / "pkg"
    release(pool, out, seed=11)
    return out


def test_split_is_balanced_in_every_family_and_stratum(pkg: Path) -> None:
    doc = read_release(pkg)
    parts = {e["id"]: e["part"] for e in doc["scms"]}
    assert {e["family"] for e in doc["scms"]} == {"semantic", "formula", "synthetic"}
    for family, counts in doc["counts"]["by_family"].items():
        size = counts["public"] + counts["reserved"]
        assert counts["public"] == family_target(size, 0.5), family
    for stratum in doc["strata"]:
        assert abs(stratum["public"] - stratum["scms"] / 2) <= 0.5, stratum
    strata = {(s["family"], s["stratum"]) for s in doc["strata"]}
    assert ("synthetic", "graph=chain,d=10") in strata and ("semantic", "domain=education") \
        in strata
    # what the manifest says is what is on disk
    for part in ("public", "reserved"):
        on_disk = sorted(p.name for p in (pkg / part).iterdir())
        assert on_disk == sorted(i for i, p in parts.items() if p == part)


def test_retired_and_draft_cards_are_left_out_with_the_reason(pkg: Path) -> None:
    excluded = {e["id"]: e["reason"] for e in read_release(pkg)["excluded"]}
    assert excluded == {"sem_manufacturing_tool_wear_inspection": "release state retired",
                        "sem_manufacturing_supply_delay_line_stoppage": "release state draft"}


def _truth_needles(pool: Pool, scm_id: str, public_reasons: set[str]) -> dict[str, bytes]:
    """Byte strings that would give away a reserved SCM's truth if found in the package."""
    folder = next(p / scm_id for p in pool.pools if (p / scm_id).is_dir())
    needles: dict[str, bytes] = {}
    for f in sorted(folder.rglob("*")):
        rel = f.relative_to(folder).as_posix()
        if f.is_file() and (rel.startswith("graph/") or rel in ("spec.json", "metadata.json",
                                                                 "gates.json")):
            needles[f"{rel} bytes"] = f.read_bytes()
            needles[f"{rel} sha256"] = hashlib.sha256(f.read_bytes()).hexdigest().encode()
    edges = pd.read_csv(folder / "graph/edges.csv")
    for reason in set(edges["reason"]) - public_reasons:
        needles[f"reason {reason!r}"] = reason.encode()
    return needles


def test_no_reserved_truth_anywhere_in_the_package(pool: Pool, pkg: Path) -> None:
    doc = read_release(pkg)
    reserved = [e["id"] for e in doc["scms"] if e["part"] == "reserved"]
    public = [e["id"] for e in doc["scms"] if e["part"] == "public"]
    assert reserved and public
    public_reasons = {r for i in public
                      for r in pd.read_csv(pkg / "public" / i / "graph/edges.csv")["reason"]}
    files = {p: p.read_bytes() for p in sorted(pkg.rglob("*")) if p.is_file()}
    for scm_id in reserved:
        folder = pkg / "reserved" / scm_id
        names = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
        assert all(n == "data.json" or (n.startswith("rep-") and n.split("/")[1] in DATA_FILES)
                   for n in names), names
        for what, needle in _truth_needles(pool, scm_id, public_reasons).items():
            hits = [p for p, text in files.items() if needle in text]
            assert not hits, f"{scm_id}: {what} found in {hits}"
        facts = json.loads((folder / "data.json").read_text())
        assert set(facts) == {"format", "id", "family", "domain", "columns", "kinds", "levels",
                              "replicates", "splits"}
    entries = {e["id"]: e for e in doc["scms"]}
    assert set(entries[reserved[0]]) == {"id", "part", "family", "domain", "state",
                                         "spec_sha256"}


def test_the_truth_archive_holds_exactly_the_reserved_truth(pkg: Path) -> None:
    doc = read_release(pkg)
    archive = pkg.parent / "pkg.truth.tar"
    assert doc["truth_archive"] == {"file": "pkg.truth.tar",
                                    "sha256": hashlib.sha256(archive.read_bytes()).hexdigest()}
    with extracted(archive) as (index, root):
        reserved = sorted(e["id"] for e in doc["scms"] if e["part"] == "reserved")
        assert sorted(index["scms"]) == reserved == sorted(p.name for p in root.iterdir())
        assert all((root / i / "graph/adjacency.csv").is_file() for i in reserved)
        assert not any((root / i / "rep-0").exists() for i in reserved)


def test_the_same_seed_gives_the_same_package_byte_for_byte(pool: Pool, pkg: Path,
                                                            tmp_path: Path) -> None:
    again = release(pool, tmp_path / "elsewhere" / "pkg", seed=11)
    first = read_release(pkg)
    assert [(e["id"], e["part"]) for e in again["scms"]] == \
        [(e["id"], e["part"]) for e in first["scms"]]
    for name in ("pkg/release.json", "pkg/RELEASE_NOTES.md", "pkg.truth.tar"):
        assert (tmp_path / "elsewhere" / name).read_bytes() == (pkg.parent / name).read_bytes()
    splits = {tuple(e["part"] for e in release(pool, tmp_path / f"s{s}", seed=s)["scms"])
              for s in range(4)}
    assert len(splits) > 1  # the seed decides


def test_previous_reports_an_edited_card_as_changed(pool: Pool, pkg: Path,
                                                    tmp_path: Path) -> None:
    mine = copy_pool(pool, tmp_path / "copy")
    card = mine.cards / "sem_edu_teacher_vacancy_staffing.yaml"
    text = card.read_text()
    reason = pd.read_csv(mine.library / "sem_edu_teacher_vacancy_staffing/graph/edges.csv")[
        "reason"][0]
    assert text.count(reason) == 1
    card.write_text(text.replace(reason, reason + " (revised)"))
    compile_cards([mine.cards], mine.library, OVERRIDES)
    doc = release(mine, tmp_path / "v2", version="1.1", previous=pkg)
    assert doc["seed"] == 11  # taken from the previous release
    assert doc["changes"] == {"previous": "1.0", "added": [], "removed": [],
                              "changed": ["sem_edu_teacher_vacancy_staffing"], "moved": []}
    notes = (tmp_path / "v2/RELEASE_NOTES.md").read_text()
    assert "## Changes since 1.0" in notes and "`sem_edu_teacher_vacancy_staffing`" in notes


def test_a_later_release_keeps_public_scms_public_and_moves_reserved_ones(
        pool: Pool, pkg: Path, tmp_path: Path) -> None:
    before = {e["id"]: e["part"] for e in read_release(pkg)["scms"]}
    doc = release(pool, tmp_path / "v2", version="2.0", previous=pkg, fraction=0.75)
    after = {e["id"]: e["part"] for e in doc["scms"]}
    assert all(after[i] == "public" for i, p in before.items() if p == "public")
    moved = sorted(i for i, p in before.items() if p == "reserved" and after[i] == "public")
    assert moved and doc["changes"]["moved"] == moved
    assert doc["changes"]["changed"] == doc["changes"]["added"] == []


def test_include_drafts_releases_the_draft(pool: Pool, tmp_path: Path) -> None:
    doc = release(pool, tmp_path / "trial", include_drafts=True)
    ids = {e["id"]: e["state"] for e in doc["scms"]}
    assert ids["sem_manufacturing_supply_delay_line_stoppage"] == "draft"
    assert "sem_manufacturing_tool_wear_inspection" not in ids  # retired stays out


def test_cli_release_and_its_errors(pool: Pool, tmp_path: Path) -> None:
    args = ["release", str(pool.library), str(pool.synthetic), "--version", "1.0"]
    ok = runner.invoke(app, [*args, "--out", str(tmp_path / "pkg")])
    assert ok.exit_code == 0, ok.output
    assert "public" in ok.output and "keep it private" in ok.output
    assert runner.invoke(app, args[:-2] + ["--out", str(tmp_path / "x")]).exit_code == 2
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    bad = runner.invoke(app, [*args, "--out", str(foreign)])
    assert bad.exit_code == 1 and "not written by scmspec" in bad.output
    assert (foreign / "notes.txt").read_text() == "mine" and len(list(foreign.iterdir())) == 1
    inside = runner.invoke(app, [*args, "--out", str(pool.library / "pkg")])
    assert inside.exit_code == 1 and "overlaps the pool" in inside.output
    not_archive = tmp_path / "truth.tar"
    not_archive.write_text("precious")
    refused = runner.invoke(app, [*args, "--out", str(tmp_path / "p2"), "--truth-out",
                                  str(not_archive)])
    assert refused.exit_code == 1 and "not a truth archive" in refused.output
    assert not_archive.read_text() == "precious" and not (tmp_path / "p2").exists()
    (tmp_path / "empty").mkdir()
    nothing = runner.invoke(app, ["release", str(tmp_path / "empty"), "--version", "1",
                                  "--out", str(tmp_path / "p3")])
    assert nothing.exit_code == 1 and "no manifest.json" in nothing.output


def test_an_edited_pool_file_is_refused(pool: Pool, tmp_path: Path) -> None:
    mine = copy_pool(pool, tmp_path / "copy")
    obs = mine.library / "sem_edu_teacher_vacancy_staffing/rep-0/obs.csv"
    obs.write_text(obs.read_text() + "\n")
    with pytest.raises(ReleaseError, match="differs from the pool manifest"):
        release(mine, tmp_path / "pkg", fraction=1.0)
    assert not (tmp_path / "pkg").exists() and not (tmp_path / "pkg.truth.tar").exists()
