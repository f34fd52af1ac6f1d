"""``scmspec new``: every family's skeleton validates as written; files are never overwritten."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from scmspec.cli import app

FAMILIES = ("formula", "semantic", "synthetic")


def _run(cwd: Path, *args: str) -> tuple[int, str]:
    """Run the CLI in-process from ``cwd``; return (exit code, stdout + stderr)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(cwd)
        result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.output


@pytest.mark.parametrize("family", FAMILIES)
def test_skeleton_validates_out_of_the_box(tmp_path: Path, family: str) -> None:
    code, output = _run(tmp_path, "new", "--family", family, "--domain", "test domain",
                        f"{family[:3]}_test_card")
    assert code == 0, output
    card = tmp_path / "cards" / family / "test_domain" / f"{family[:3]}_test_card.yaml"
    assert card.is_file(), output
    assert f"wrote {card.relative_to(tmp_path).as_posix()}" in output
    text = card.read_text(encoding="utf-8")
    assert f"id: {family[:3]}_test_card" in text and f"family: {family}" in text
    comments = [line for line in text.splitlines() if line.lstrip().startswith("#")]
    assert len(comments) >= 12, "the skeleton explains its fields in comments"
    code, output = _run(tmp_path, "validate", str(card))
    assert code == 0, output
    rows = [line.split()[0] for line in output.splitlines() if line.startswith("  ")]
    assert "fail" not in rows and "warn" not in rows, output


def test_existing_file_is_not_overwritten(tmp_path: Path) -> None:
    args = ("new", "--family", "semantic", "--domain", "public health", "--out", "mine",
            "sem_demo")
    assert _run(tmp_path, *args)[0] == 0
    card = tmp_path / "mine" / "sem_demo.yaml"
    card.write_text("my edits\n", encoding="utf-8")
    code, output = _run(tmp_path, *args)
    assert code == 1
    assert "already exists" in output and "sem_demo.yaml" in output
    assert card.read_text(encoding="utf-8") == "my edits\n"


def test_bad_name_is_a_usage_error(tmp_path: Path) -> None:
    code, output = _run(tmp_path, "new", "--family", "formula", "--domain", "optics and waves",
                        "Bad Name")
    assert code == 2, output
    assert not any(tmp_path.iterdir())


def test_schema_hint_points_at_the_committed_schema(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "card.schema.json").write_text("{}", encoding="utf-8")
    assert _run(tmp_path, "new", "--family", "synthetic", "--domain", "toy", "syn_x")[0] == 0
    first = (tmp_path / "cards" / "synthetic" / "toy" / "syn_x.yaml").read_text().splitlines()[0]
    assert first == "# yaml-language-server: $schema=../../../docs/card.schema.json"
