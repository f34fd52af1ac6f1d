"""The card's release state: an optional field, unset = draft, passed down by grid cards,
kept out of spec.json when unset (old outputs stay byte-identical), shown in the catalogue."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from scmspec.api import compile_text, spec_document
from scmspec.compiler.pipeline import parse_card_text
from scmspec.errors import CardError
from scmspec.synthetic.grid.expand import expand
from scmspec.synthetic.grid.spec import GridSpec

CARD = """\
id: tiny
title: Tiny
family: semantic
domain: test
{release}variables:
  x: {{meaning: x, distribution: {{kind: normal}}}}
  y: {{meaning: y, equation: 2 * x, noise: {{kind: normal, sd: 1}}}}
edges:
  - {{from: x, to: y, reason: x drives y}}
"""


def test_unset_state_is_draft_and_stays_out_of_spec_json() -> None:
    scm = compile_text(CARD.format(release=""))
    assert scm.compiled.card.release is None
    assert scm.compiled.card.release_state == "draft"
    assert "release" not in spec_document(scm)["card"]


def test_a_stated_state_is_kept_in_spec_json() -> None:
    scm = compile_text(CARD.format(release="release: reviewed\n"))
    assert scm.compiled.card.release_state == "reviewed"
    assert spec_document(scm)["card"]["release"] == "reviewed"


def test_an_unknown_state_is_a_card_error_at_its_line() -> None:
    with pytest.raises(CardError) as info:
        parse_card_text(CARD.format(release="release: published\n"), "c.yaml")
    diag = info.value.diagnostics[0]
    assert diag.span is not None and diag.span.line == 5
    assert "draft" in diag.message or "draft" in (diag.hint or "")


def test_a_grid_card_gives_its_state_to_every_generated_card() -> None:
    grid = GridSpec.model_validate(yaml.safe_load(
        "grid: 1\nid: g\ntitle: g\nrelease: reviewed\ngraphs: [chain]\nd: [5]\nper_cell: 2\n"))
    cards = expand(grid, Path("."), resolve=False)
    assert [c.release for c in cards] == ["reviewed", "reviewed"]
    plain = grid.model_copy(update={"release": None})
    assert [c.release for c in expand(plain, Path("."), resolve=False)] == [None, None]


@pytest.mark.needs_dot
def test_the_catalogue_shows_the_state(tmp_path: Path) -> None:
    from scmspec.build import ProtocolOverrides, build
    from scmspec.render.report import build_report

    cards = tmp_path / "cards"
    cards.mkdir()
    (cards / "a.yaml").write_text(CARD.format(release="release: retired\n"))
    (cards / "b.yaml").write_text(CARD.format(release="").replace("id: tiny", "id: other"))
    build([cards], tmp_path / "data", ProtocolOverrides(n_obs=100, n_int_obs=80, n_int=20,
                                                         replicates=1))
    assert json.loads((tmp_path / "data/tiny/spec.json").read_text())["card"]["release"] \
        == "retired"
    result = build_report(tmp_path / "data", tmp_path / "site")
    index = result.index.read_text()
    assert '<td data-sort="retired"><span class="badge retired">' in index
    assert '<td data-sort="draft"><span class="badge draft">' in index
    assert "release state <span class=\"badge retired\">retired</span>" in \
        result.pages["tiny"].read_text()
