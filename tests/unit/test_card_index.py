"""docs/cards.md is generated from the cards (``scmspec.authoring.catalog``); it must be current."""

from __future__ import annotations

from pathlib import Path

import pytest

from scmspec.authoring.catalog import COMMAND, card_index, main
from scmspec.authoring.templates import PREFIX, skeleton

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # reads every card; the full suite and CI run it
def test_committed_card_index_is_current() -> None:
    committed = (ROOT / "docs" / "cards.md").read_text(encoding="utf-8")
    generated = card_index([ROOT / "cards"], root=ROOT)
    assert committed == generated, (
        f"docs/cards.md is stale (a card was added or changed); regenerate it from the "
        f"repository root with:  {COMMAND}")


def _library(tmp_path: Path) -> Path:
    cards = tmp_path / "cards"
    for family, domain in (("semantic", "urban transportation"), ("formula", "optics")):
        folder = cards / family
        folder.mkdir(parents=True)
        name = f"{PREFIX[family]}card"
        (folder / f"{name}.yaml").write_text(skeleton(family, domain, name), encoding="utf-8")
    (cards / "broken.yaml").write_text("id: broken\ntitle: b\n", encoding="utf-8")
    (cards / "pool.grid.yaml").write_text("grid: 1\nid: pool\ntitle: A pool\n", encoding="utf-8")
    return cards


def test_index_lists_every_card_with_its_size_equations_and_targets(tmp_path: Path) -> None:
    text = card_index([_library(tmp_path)], root=tmp_path)
    assert text.startswith("# Card library") and COMMAND in text
    assert "| semantic | 1 | 1 | 4-4 | 3-3 | 0 | 0 |" in text
    sem = next(line for line in text.splitlines() if "`sem_card`" in line)
    assert "](../cards/semantic/sem_card.yaml)" in sem
    assert "| 4 (4) | 3 (3) | none | none |" in sem
    assert "event_draw 1, exp_log 1, linear 1" in sem and "`order_distance`" in sem
    frm = next(line for line in text.splitlines() if "`frm_card`" in line)
    assert "`projectile_time_of_flight`, `projectile_range`" in frm
    assert "### optics" in text and "### urban transportation" in text
    assert "| [`pool`](../cards/pool.grid.yaml) | A pool |" in text
    assert "| [`broken.yaml`](../cards/broken.yaml) | SCM201 |" in text


def test_index_is_deterministic_and_cli_writes_it(tmp_path: Path, capsys, monkeypatch) -> None:
    cards = _library(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["cards"]) == 0
    assert capsys.readouterr().out == card_index([cards], root=tmp_path)
    assert main([]) == 2
