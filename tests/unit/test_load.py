"""Stage 1 (load): YAML text -> (value, SourceMap) with exact positions and safe YAML only."""

from __future__ import annotations

from pathlib import Path

import pytest

from scmspec.compiler.load import SourceMap, load, load_text
from scmspec.errors import LoadError, Span
from scmspec.limits import Limits
from tests.library import FAMILY_SAMPLE, card_params
from tests.library import ROOT as ROOT_DIR

CARD = """\
id: demo
title: Demo
variables:
  x:
    meaning: cause
    distribution: {kind: normal, sd: 2}
  y:
    equation: 2 * x + 1
edges:
  - {from: x, to: y, reason: demo}
"""


def codes(err: pytest.ExceptionInfo[LoadError]) -> list[str]:
    return [d.code for d in err.value.diagnostics]


def test_values_come_back_as_plain_python() -> None:
    data, _ = load_text(CARD, "c.yaml")
    assert data["variables"]["x"]["distribution"] == {"kind": "normal", "sd": 2}
    assert data["edges"][0] == {"from": "x", "to": "y", "reason": "demo"}


@pytest.mark.parametrize(("loc", "line", "col"), [
    (("id",), 1, 5),  # scalar fields point at their value
    (("variables",), 3, 1),  # collections point at their key
    (("variables", "x"), 4, 3),
    (("variables", "x", "meaning"), 5, 14),
    (("variables", "x", "distribution"), 6, 5),
    (("variables", "x", "distribution", "kind"), 6, 26),
    (("variables", "x", "distribution", "sd"), 6, 38),
    (("variables", "y", "equation"), 8, 15),
    (("edges", 0), 10, 5),
    (("edges", 0, "to"), 10, 19),
    (("edges", 0, "reason"), 10, 30),
])
def test_spans_of_nested_fields(loc: tuple[str | int, ...], line: int, col: int) -> None:
    _, smap = load_text(CARD, "c.yaml")
    span = smap.spans[loc]
    assert (span.path, span.line, span.col) == ("c.yaml", line, col)


def test_key_spans_are_kept_apart_from_value_spans() -> None:
    _, smap = load_text(CARD, "c.yaml")
    assert (smap.keys[("variables", "x", "meaning")].line,
            smap.keys[("variables", "x", "meaning")].col) == (5, 5)
    assert smap.spans[("variables", "x", "meaning")].col == 14


def test_scalar_span_has_an_end_column() -> None:
    _, smap = load_text(CARD, "c.yaml")
    span = smap.spans[("variables", "x", "meaning")]
    assert span.end_col == span.col + len("cause")


def test_nearest_falls_back_to_the_closest_ancestor() -> None:
    _, smap = load_text(CARD, "c.yaml")
    assert smap.nearest(("variables", "x", "nonexistent", 3)) == smap.spans[("variables", "x")]
    assert smap.nearest(("nowhere",)) == smap.spans[()]


def test_at_offsets_columns_inside_plain_scalars() -> None:
    _, smap = load_text(CARD, "c.yaml")
    loc = ("variables", "y", "equation")
    span = smap.at(loc, 4, 1)  # the 'x' in "2 * x + 1"
    assert span is not None and (span.line, span.col, span.end_col) == (8, 19, 20)
    assert CARD.splitlines()[7][span.col - 1] == "x"


def test_at_offsets_inside_one_line_quoted_scalars_past_the_quote() -> None:
    _, smap = load_text('a: "2 * x"\nb: \'y + 1\'\n', "c.yaml")
    assert smap.at(("a",), 4, 1) == Span("c.yaml", 1, 9, 10)  # the x: col 4 + quote + 4
    assert smap.at(("b",), 0, 1) == Span("c.yaml", 2, 5, 6)


def test_at_does_not_offset_inside_escaped_quoted_scalars() -> None:
    # An escape makes the value shorter than its source text: offsets no longer map.
    _, smap = load_text('a: "2 \\t* x"\nb: \'it\'\'s x\'\n', "c.yaml")
    assert smap.at(("a",), 4, 1) == smap.spans[("a",)]
    assert smap.at(("b",), 4, 1) == smap.spans[("b",)]


def test_at_does_not_offset_inside_multiline_plain_scalars() -> None:
    # A folded plain scalar: the text offset of 'zz' is not a column on line 1.
    _, smap = load_text("a: 2 * x +\n  3 * zz\n", "c.yaml")
    assert smap.at(("a",), 12, 2) == Span("c.yaml", 1, 4)


def test_source_lines_are_kept_for_carets() -> None:
    _, smap = load_text(CARD, "c.yaml")
    assert smap.lines[7] == "    equation: 2 * x + 1"


def test_load_reads_files_and_names_spans_by_path(tmp_path: Path) -> None:
    path = tmp_path / "card.yaml"
    path.write_text(CARD, encoding="utf-8")
    data, smap = load(path)
    assert data["id"] == "demo"
    assert smap.spans[("id",)].path == str(path)


def test_missing_file_is_a_load_error(tmp_path: Path) -> None:
    with pytest.raises(LoadError) as err:
        load(tmp_path / "absent.yaml")
    assert codes(err) == ["SCM101"]


def test_utf8_bom_is_accepted() -> None:
    data, _ = load_text("\ufeffid: demo\n".encode(), "c.yaml")
    assert data == {"id": "demo"}


def test_non_utf8_points_at_the_byte() -> None:
    with pytest.raises(LoadError) as err:
        load_text(b"id: demo\ntitle: caf\xe9\n", "c.yaml")
    (d,) = err.value.diagnostics
    assert (d.code, d.span.line, d.span.col) == ("SCM107", 2, 11)


def test_duplicate_keys_name_both_lines() -> None:
    with pytest.raises(LoadError) as err:
        load_text("variables:\n  x: {meaning: a}\n  y: {meaning: b}\n  x: {meaning: c}\n", "c.yaml")
    (d,) = err.value.diagnostics
    assert d.code == "SCM111"
    assert (d.span.line, d.span.col) == (4, 3)
    assert "line 2" in d.message


def test_every_duplicate_is_reported_at_once() -> None:
    with pytest.raises(LoadError) as err:
        load_text("a: 1\nb: 2\na: 3\nb: 4\n", "c.yaml")
    assert [(d.code, d.span.line) for d in err.value.diagnostics] == [("SCM111", 3), ("SCM111", 4)]


@pytest.mark.parametrize("text", [
    "a: !!python/object/apply:os.system ['true']\n",
    "a: !!python/name:os.system\n",
    "a: !custom 3\n",
    "a: !!binary aGVsbG8=\n",
    "a: !!set {x, y}\n",
])
def test_tags_other_than_plain_types_are_refused(text: str) -> None:
    with pytest.raises(LoadError) as err:
        load_text(text, "c.yaml")
    assert codes(err) == ["SCM109"]
    assert err.value.diagnostics[0].span.line == 1


def test_plain_type_tags_are_allowed() -> None:
    data, _ = load_text("a: !!str 3\nb: !!float 2\n", "c.yaml")
    assert data == {"a": "3", "b": 2.0}


def test_merge_keys_are_refused() -> None:
    with pytest.raises(LoadError) as err:
        load_text("base: &b {x: 1}\nother:\n  <<: *b\n", "c.yaml")
    assert codes(err) == ["SCM110"]


def test_aliases_are_expanded_but_bounded() -> None:
    data, _ = load_text("a: &a [1, 2]\nb: *a\n", "c.yaml")
    assert data["b"] == [1, 2]
    lol = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for prev, name in zip("abcdef", "bcdefg"):
        lol.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    with pytest.raises(LoadError) as err:
        load_text("\n".join(lol) + "\n", "c.yaml", Limits(yaml_nodes=10_000))
    assert codes(err) == ["SCM108"]


def test_depth_is_bounded() -> None:
    with pytest.raises(LoadError) as err:
        load_text("a: " + "[" * 20 + "]" * 20 + "\n", "c.yaml", Limits(yaml_depth=10))
    assert codes(err) == ["SCM104"]


def test_size_is_bounded() -> None:
    with pytest.raises(LoadError) as err:
        load_text("a: " + "x" * 100 + "\n", "c.yaml", Limits(card_bytes=50))
    assert codes(err) == ["SCM102"]


@pytest.mark.parametrize(("text", "code", "line"), [
    ("", "SCM105", 1),
    ("# only a comment\n", "SCM105", 1),
    ("- a\n- b\n", "SCM106", 1),
    ("just a string\n", "SCM106", 1),
    ("a: [1, 2\nb: 3\n", "SCM103", 2),
    ("a:\n\tb: 1\n", "SCM103", 2),
    ("a: 'unterminated\n", "SCM103", 2),
])
def test_broken_documents(text: str, code: str, line: int) -> None:
    with pytest.raises(LoadError) as err:
        load_text(text, "c.yaml")
    (d,) = err.value.diagnostics
    assert (d.code, d.span.line) == (code, line)
    assert d.span.path == "c.yaml"


def test_syntax_error_names_the_line_of_the_unclosed_bracket() -> None:
    with pytest.raises(LoadError) as err:
        load_text("a: {b: 1\nc: 2\n", "c.yaml")
    assert "starts on line 1" in err.value.diagnostics[0].message


def test_load_does_not_retain_nodes_between_calls() -> None:
    from scmspec.compiler import load as load_module

    for _ in range(3):
        load_text(CARD, "c.yaml")
    assert not load_module._CONSTRUCTOR.constructed_objects


def test_sourcemap_nearest_on_empty_map_is_file_start() -> None:
    assert SourceMap("z.yaml").nearest(("a", "b")) == Span("z.yaml", 1, 1)


GOLDEN_TEXTS = sorted((ROOT_DIR / "tests" / "golden").glob("**/*.yaml"))


@pytest.mark.parametrize("path", [*card_params(fast=FAMILY_SAMPLE), *(
    pytest.param(p, id=p.relative_to(ROOT_DIR).as_posix()) for p in GOLDEN_TEXTS)])
def test_libyaml_and_pure_composers_give_the_same_values_and_spans(
        path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The C composer (when PyYAML has it) is a fast path: same values, same marks, on every
    shipped card (the sample in the developer loop) and every golden card text."""
    import yaml

    from scmspec.compiler import load as load_module

    if getattr(yaml, "CSafeLoader", None) is None:
        pytest.skip("PyYAML was built without libyaml: only the pure composer exists")
    raw = path.read_bytes()
    results = []
    for loader in (yaml.CSafeLoader, None):
        monkeypatch.setattr(load_module, "_C_LOADER", loader)
        try:
            value, smap = load_text(raw, path.name)
        except LoadError as exc:
            results.append(("error", [str(d) for d in exc.diagnostics]))
            continue
        results.append((value, smap.spans, smap.keys, smap.plain, smap.quoted))
    assert results[0] == results[1], path


def test_the_composers_see_many_texts() -> None:
    assert len(GOLDEN_TEXTS) > 50


def test_deep_flow_nesting_goes_to_the_guarded_composer() -> None:
    with pytest.raises(LoadError) as info:
        load_text("id: " + "[" * 5000 + "]" * 5000 + "\n", "deep.yaml")
    assert info.value.diagnostics[0].code in ("SCM104", "SCM106", "SCM103")
