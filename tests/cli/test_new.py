"""``scmspec new``: every family's skeleton validates as written; files are never overwritten."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scmspec.authoring.schema_ref import installed_schema
from scmspec.cli import app
from scmspec.compiler.validate import export_schema

ROOT = Path(__file__).resolve().parents[2]

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
    rows = [line.split() for line in output.splitlines() if line.startswith("  ")]
    assert "fail" not in [r[0] for r in rows], output
    # the skeleton's TODO texts are placeholders: they warn (and --strict fails) until written
    warned = {r[2] for r in rows if r[0] == "warn"}
    assert warned <= {"placeholders"}, output
    if family != "synthetic":
        assert warned == {"placeholders"}, output
        assert _run(tmp_path, "validate", "--strict", str(card))[0] == 1


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


def test_schema_line_outside_a_checkout_points_at_the_installed_schema(tmp_path: Path) -> None:
    """No docs/ here (a plain install, any folder): the line still points at a schema file,
    the copy shipped inside the package."""
    assert _run(tmp_path, "new", "--family", "semantic", "--domain", "toy", "sem_x")[0] == 0
    first = (tmp_path / "cards" / "semantic" / "toy" / "sem_x.yaml").read_text().splitlines()[0]
    prefix = "# yaml-language-server: $schema="
    assert first.startswith(prefix)
    schema = Path(first.removeprefix(prefix))
    assert schema.is_absolute() and schema.is_file()
    assert json.loads(schema.read_text(encoding="utf-8"))["title"] == "Card"


def test_schema_option_overrides_the_line(tmp_path: Path) -> None:
    url = "https://example.org/card.schema.json"
    assert _run(tmp_path, "new", "--family", "formula", "--domain", "optics and waves",
                "--schema", url, "frm_x")[0] == 0
    card = next((tmp_path / "cards").rglob("frm_x.yaml"))
    assert card.read_text().splitlines()[0] == f"# yaml-language-server: $schema={url}"


def test_the_packaged_schema_is_the_committed_schema() -> None:
    """scmspec/schema/card.schema.json (package data) == docs/card.schema.json == the
    language's current schema."""
    current = export_schema()
    packaged = installed_schema().read_text(encoding="utf-8")
    assert packaged == current, ("run: scmspec schema --out scmspec/schema/card.schema.json "
                                 "(and docs/card.schema.json)")
    assert (ROOT / "docs" / "card.schema.json").read_text(encoding="utf-8") == packaged


def test_no_doc_points_outside_the_repository() -> None:
    """Docs link within the repository: no absolute machine paths, no ../ out of it."""
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = doc.read_text(encoding="utf-8")
        assert "/work/" not in text and "/home/" not in text, doc.name
        for target in re.findall(r"\]\(([^)#]+)", text):
            if "://" in target:
                continue
            resolved = (doc.parent / target).resolve()
            assert resolved.is_relative_to(ROOT), (doc.name, target)
