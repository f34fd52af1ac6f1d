"""A small benchmark for the release, evaluation and leaderboard tests, compiled once.

Pool: a synthetic slice (chain and tree, d = 10, three configurations each: odd strata) and
library cards copied with a release state: education x2, finance x2 and thermodynamics x2
reviewed, one manufacturing card retired and one left a draft. Two replicates, small splits.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from scmspec.build import ProtocolOverrides
from scmspec.build.driver import compile_cards

ROOT = Path(__file__).resolve().parents[2]
# Named, not globbed: the pool stays the same size as the library grows.
REVIEWED = ("semantic/education/sem_edu_teacher_vacancy_staffing.yaml",
            "semantic/education/sem_edu_ninth_grade_early_warning.yaml",
            "semantic/finance_credit/sem_fin_personal_loan_underwriting.yaml",
            "semantic/finance_credit/sem_fin_card_collections_roll_rates.yaml",
            "formula/thermodynamics/frm_thermodynamics_cold_store_refrigeration.yaml",
            "formula/thermodynamics/frm_thermodynamics_wall_heat_loss_survey.yaml")
RETIRED = "semantic/manufacturing/sem_manufacturing_tool_wear_inspection.yaml"
DRAFT = "semantic/manufacturing/sem_manufacturing_supply_delay_line_stoppage.yaml"
SLICE = "graph=chain|tree,d=10,index=0|1|2"
OVERRIDES = ProtocolOverrides(n_obs=200, n_int_obs=150, n_int=50, replicates=2)


@dataclass(frozen=True)
class Pool:
    root: Path
    cards: Path
    library: Path  # the library cards' pool
    synthetic: Path  # the synthetic slice's pool

    @property
    def pools(self) -> list[Path]:
        return [self.library, self.synthetic]


def with_state(text: str, state: str | None) -> str:
    return text if state is None else f"release: {state}\n{text}"


def write_cards(cards: Path) -> None:
    for rel in REVIEWED:
        card = ROOT / "cards" / rel
        (cards / card.name).write_text(with_state(card.read_text(), "reviewed"))
    for rel, state in ((RETIRED, "retired"), (DRAFT, None)):
        (cards / Path(rel).name).write_text(with_state((ROOT / "cards" / rel).read_text(), state))
    grid = (ROOT / "cards/synthetic/causalarena.grid.yaml").read_text()
    (cards / "arena.grid.yaml").write_text(with_state(grid, "reviewed"))


@pytest.fixture(scope="session")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Pool:
    root = tmp_path_factory.mktemp("bench")
    cards = root / "cards"
    cards.mkdir()
    write_cards(cards)
    for target, select in ((root / "library", None), (root / "synthetic", SLICE)):
        paths = [cards] if select is None else [cards / "arena.grid.yaml"]
        report = compile_cards(paths, target, OVERRIDES, select=select, workers=2)
        assert all(r.status == "released" for r in report.results), \
            [(r.id, r.status) for r in report.results if r.status != "released"]
    return Pool(root, cards, root / "library", root / "synthetic")


def copy_pool(pool: Pool, dest: Path) -> Pool:
    """A private copy of the cards and pools (tests that edit a card recompile into it)."""
    shutil.copytree(pool.root, dest, symlinks=True)
    return Pool(dest, dest / "cards", dest / "library", dest / "synthetic")


@pytest.fixture(scope="session")
def package(pool: Pool, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pool released once (seed 11); its truth archive is ``<package>.truth.tar``."""
    from scmspec.release import ReleaseOptions, make_release

    out = tmp_path_factory.mktemp("package") / "pkg"
    make_release(pool.pools, out, ReleaseOptions("1.0", seed=11))
    return out


def release_ids(package: Path, part: str) -> dict[str, list[str]]:
    """The package's ids of one part, by family."""
    import json

    doc = json.loads((package / "release.json").read_text())
    out: dict[str, list[str]] = {}
    for e in doc["scms"]:
        if e["part"] == part:
            out.setdefault(e["family"], []).append(e["id"])
    return out


METHODS = Path(__file__).resolve().parent / "methods"
BUDGET = 4.0  # seconds: the misbehaving command sleeps 60


@dataclass(frozen=True)
class Evaluated:
    """Three runs of the package: two built-ins and the misbehaving command."""

    package: Path
    runs: dict[str, Path]
    ids: dict[str, str]  # role -> SCM id: sleep, break, fine
    pid_dir: Path
    outputs: dict[str, str]  # the command line's output of each run


def needs_causallearn() -> None:
    """The built-in ``pc`` needs causal-learn (the ``baselines`` extra): skip with the reason
    where it is missing (the README's ``.[test]`` install), fail in CI, which installs it."""
    import importlib.util
    import os

    if importlib.util.find_spec("causallearn") is None:
        why = "the built-in pc needs causal-learn (pip install 'scmspec[baselines]')"
        if os.environ.get("SCMSPEC_CI"):
            pytest.fail(why + "; .ci/run installs it")
        pytest.skip(why)


@pytest.fixture(scope="session")
def evaluated(package: Path, tmp_path_factory: pytest.TempPathFactory) -> Evaluated:
    needs_causallearn()
    from typer.testing import CliRunner

    from scmspec.cli import app

    public = release_ids(package, "public")
    ids = {"sleep": public["synthetic"][0], "break": public["semantic"][0],
           "fine": public["formula"][0]}
    root = tmp_path_factory.mktemp("runs")
    pid_dir = root / "pids"
    pid_dir.mkdir()
    select = [a for i in ids.values() for a in ("--ids", i)]
    command = f"{sys.executable} {METHODS / 'sleepy_or_broken.py'} {{data}} {{meta}} {{out}}"
    jobs = {"random_regress": ["--method", "random_regress", "--split", "obs"],
            "pc": ["--method", "pc", "--split", "obs"],
            "sleepy": ["--command", command, "--name", "sleepy", "--budget", str(BUDGET)]}
    runs, outputs = {}, {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SLEEP_ON", ids["sleep"])
        mp.setenv("BREAK_ON", ids["break"])
        mp.setenv("PID_DIR", str(pid_dir))
        for name, args in jobs.items():
            runs[name] = root / name
            result = CliRunner().invoke(app, ["evaluate", str(package), "--out", str(runs[name]),
                                              "-j", "2", *select, *args])
            assert result.exit_code == 0, result.output
            outputs[name] = result.output
    return Evaluated(package, runs, ids, pid_dir, outputs)
