"""Incremental compiles: unchanged cards are reused, changed ones rebuilt, deleted ones reported."""

from __future__ import annotations

import json
from pathlib import Path

from scmspec.build import ProtocolOverrides
from scmspec.build.driver import compile_cards
from tests.parallel.cards import GRAPHS, card_text, tree, write_cards


def test_reuse_rebuild_stale_force(tmp_path: Path) -> None:
    cards, out = write_cards(tmp_path / "cards"), tmp_path / "out"
    first = compile_cards([cards], out, ProtocolOverrides(), gates=False)
    assert not first.reused
    before = tree(out)
    mtime = (out / "par_chain" / "spec.json").stat().st_mtime_ns

    again = compile_cards([cards], out, ProtocolOverrides(), gates=False)
    assert len(again.reused) == 4
    assert tree(out) == before  # the manifest does not depend on reuse
    assert (out / "par_chain" / "spec.json").stat().st_mtime_ns == mtime

    (cards / "chain.yaml").write_text(card_text("chain", GRAPHS["chain"], scale=0.4),
                                      encoding="utf-8")
    (cards / "fork.yaml").unlink()
    changed = compile_cards([cards], out, ProtocolOverrides(), gates=False)
    assert not any(p.endswith("chain.yaml") for p in changed.reused)
    assert len(changed.reused) == 2
    assert changed.stale == ["par_fork"]
    assert json.loads((out / "manifest.json").read_text())["stale"] == ["par_fork"]
    assert (out / "par_fork").is_dir()  # reported, not deleted

    forced = compile_cards([cards], out, ProtocolOverrides(), gates=False, force=True,
                           prune=True)
    assert not forced.reused and forced.pruned
    assert not (out / "par_fork").exists()
    assert "stale" not in json.loads((out / "manifest.json").read_text())


def test_changed_options_or_tampered_files_rebuild(tmp_path: Path) -> None:
    cards, out = write_cards(tmp_path / "cards"), tmp_path / "out"
    compile_cards([cards], out, ProtocolOverrides(), gates=False)
    other_seed = compile_cards([cards], out, ProtocolOverrides(seed=7), gates=False)
    assert not other_seed.reused
    (out / "par_diamond" / "rep-0" / "obs.csv").write_text("tampered\n")
    again = compile_cards([cards], out, ProtocolOverrides(seed=7), gates=False)
    assert len(again.reused) == 3
    assert (out / "par_diamond" / "rep-0" / "obs.csv").read_text() != "tampered\n"
