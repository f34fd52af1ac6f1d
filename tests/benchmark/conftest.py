"""A small benchmark for the release, evaluation and leaderboard tests, compiled once.

Pool: a synthetic slice (chain and tree, d = 10, three configurations each: odd strata) and
library cards copied with a release state: education x2, finance x2 and thermodynamics x2
reviewed, one manufacturing card retired and one left a draft. Two replicates, small splits.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from scmspec.build import ProtocolOverrides
from scmspec.build.driver import compile_cards

ROOT = Path(__file__).resolve().parents[2]
REVIEWED = ("semantic/education", "semantic/finance_credit", "formula/thermodynamics")
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
    for folder in REVIEWED:
        for card in sorted((ROOT / "cards" / folder).glob("*.yaml")):
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
