"""scmspec deletes only what it wrote: user folders in ``--out`` survive compile, failures, --prune.

Each case here lost or damaged a user's files before dataset folders carried a stamp:
``--prune`` deleted every visible folder in ``--out`` (with ``--out`` at the cards folder,
every card folder and a ``notes/`` folder went), a failing card whose id matched an
unrelated folder deleted it, and a dataset folder replaced by a link gave a traceback.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scmspec.build.outputs import STAMP, clean_temporaries, owned
from scmspec.cli import app
from tests.parallel.cards import card_text, tree, write_cards

BAD = """\
id: par_chain
title: A card that fails to compile
family: semantic
domain: tests
variables:
  a: {meaning: m, distribution: {kind: normal}}
  b: {meaning: m, equation: 2 * zz, noise: {kind: normal, sd: 1}}
edges: [{from: a, to: b, reason: r}]
"""


def _compile(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["compile", *args, "--no-gates"])
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output


def _user_folder(out: Path, name: str) -> Path:
    folder = out / name
    folder.mkdir(parents=True)
    (folder / "keep.txt").write_text("precious", encoding="utf-8")
    return folder


def test_prune_is_refused_while_out_holds_user_files(tmp_path: Path) -> None:
    cards = write_cards(tmp_path / "cards")
    out = tmp_path / "data"
    assert _compile(str(cards), "--out", str(out))[0] == 0
    notes = _user_folder(out, "notes")
    (out / "README.txt").write_text("mine", encoding="utf-8")
    (cards / "fork.yaml").unlink()  # par_fork is now stale
    code, output = _compile(str(cards), "--out", str(out), "--prune")
    assert code == 1 and "--prune refused" in output and "notes" in output
    assert (notes / "keep.txt").read_text() == "precious"
    assert (out / "par_fork").is_dir()  # nothing at all was deleted
    notes_moved = tmp_path / "notes"
    os.replace(notes, notes_moved)
    (out / "README.txt").unlink()
    code, output = _compile(str(cards), "--out", str(out), "--prune")
    assert code == 0, output
    assert not (out / "par_fork").exists() and (out / "par_chain").is_dir()


def test_out_at_the_cards_folder_is_refused(tmp_path: Path) -> None:
    cards = write_cards(tmp_path / "cards")
    _user_folder(cards, "notes")
    before = tree(cards)
    code, output = _compile(str(cards), "--out", str(cards), "--prune")
    assert code == 1 and "holds cards" in output
    code, output = _compile(str(cards), "--out", str(tmp_path))  # an ancestor of the cards
    assert code == 1 and "holds cards" in output
    assert tree(cards) == before


def test_a_failing_card_never_deletes_a_folder_it_did_not_write(tmp_path: Path) -> None:
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "bad.yaml").write_text(BAD, encoding="utf-8")
    out = tmp_path / "data"
    mine = _user_folder(out, "par_chain")  # same name as the failing card's id
    code, output = _compile(str(tmp_path / "cards"), "--out", str(out))
    assert code == 1 and "SCM301" in output
    assert (mine / "keep.txt").read_text() == "precious"


def test_a_good_card_refuses_to_replace_a_user_folder_of_its_name(tmp_path: Path) -> None:
    cards = write_cards(tmp_path / "cards")
    out = tmp_path / "data"
    mine = _user_folder(out, "par_chain")
    code, output = _compile(str(cards), "--out", str(out))
    assert code == 1 and "SCM802" in output and "was not written by scmspec" in output
    assert sorted(p.name for p in mine.iterdir()) == ["keep.txt"]
    doc = json.loads((out / "manifest.json").read_text())
    status = {e["id"]: e["status"] for e in doc["scms"]}
    assert status == {"par_chain": "failed", "par_collider": "released",
                      "par_diamond": "released", "par_fork": "released"}


def test_a_dataset_folder_replaced_by_a_link_is_refused_not_followed(tmp_path: Path) -> None:
    cards = write_cards(tmp_path / "cards")
    out = tmp_path / "data"
    assert _compile(str(cards), "--out", str(out))[0] == 0
    elsewhere = tmp_path / "elsewhere"
    os.replace(out / "par_chain", elsewhere)
    (out / "par_chain").symlink_to(elsewhere, target_is_directory=True)
    linked = tree(elsewhere)
    for cards_now in (cards, tmp_path / "bad"):  # the card builds, then the card fails
        if cards_now.name == "bad":
            cards_now.mkdir()
            (cards_now / "chain.yaml").write_text(BAD, encoding="utf-8")
        code, output = _compile(str(cards_now), "--out", str(out))
        assert code == 1
        assert (out / "par_chain").is_symlink() and tree(elsewhere) == linked
    assert "symbolic link" in _compile(str(cards), "--out", str(out), "--force")[1]


def test_datasets_are_stamped_and_stamps_are_not_dataset_files(tmp_path: Path) -> None:
    cards = write_cards(tmp_path / "cards")
    out = tmp_path / "data"
    _compile(str(cards), "--out", str(out))
    assert owned(out / "par_chain") and (out / "par_chain" / STAMP).is_file()
    doc = json.loads((out / "manifest.json").read_text())
    assert all(STAMP not in f for e in doc["scms"] for f in e["files"])


def test_earlier_outputs_without_stamps_are_recognised_by_their_manifest(tmp_path: Path) -> None:
    cards = write_cards(tmp_path / "cards")
    out = tmp_path / "data"
    _compile(str(cards), "--out", str(out))
    for stamp in out.glob(f"*/{STAMP}"):  # as written before stamps existed
        stamp.unlink()
    (cards / "fork.yaml").unlink()
    code, output = _compile(str(cards), "--out", str(out), "--prune")
    assert code == 0, output
    assert not (out / "par_fork").exists()


def test_a_killed_runs_temporaries_are_removed_but_a_live_runs_are_kept(tmp_path: Path) -> None:
    out = tmp_path / "data"
    out.mkdir()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    host = os.uname().nodename
    try:
        live_tmp = out / f".tmp-{host}-{sleeper.pid}-par_chain-abc"
        dead_tmp = out / f".tmp-{host}-{dead.pid}-par_chain-def"
        for p in (live_tmp, dead_tmp):
            p.mkdir()
        clean_temporaries(out)
        assert live_tmp.is_dir() and not dead_tmp.exists()
    finally:
        sleeper.kill()
        sleeper.wait()


@pytest.mark.slow
def test_sigkill_leaves_no_temporary_after_the_next_run(tmp_path: Path) -> None:
    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "big.yaml").write_text(card_text("big", [("a", "b"), ("b", "c")], 400_000))
    out = tmp_path / "data"
    cmd = [sys.executable, "-c", "from scmspec.cli import main; main()", "compile", str(cards),
           "--out", str(out), "--no-gates"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if out.is_dir() and any(p.name.startswith(".tmp-") for p in out.iterdir()):
            break
        time.sleep(0.02)
    killed = proc.poll() is None
    if killed:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert killed, "the compile finished before it could be killed; make the card bigger"
    assert [p.name for p in out.iterdir() if p.name.startswith(".tmp-")]
    subprocess.run([*cmd[:-1], "--no-gates", "--n-obs", "50"], check=False, timeout=300,
                   capture_output=True)
    assert not [p.name for p in out.iterdir() if p.name.startswith((".tmp-", ".old-"))]
