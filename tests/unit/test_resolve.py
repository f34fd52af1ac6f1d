"""Stage 3 (resolve): parents from equations, edges checked, deterministic order, cycles."""

from __future__ import annotations

from typing import Any

import pytest

from scmspec.compiler.load import SourceMap
from scmspec.compiler.pipeline import parse_card_text
from scmspec.compiler.resolve import ResolvedCard, resolve
from scmspec.compiler.spec import Card
from scmspec.errors import ResolveError


def card(variables: dict[str, Any], edges: list[tuple[str, str]], **extra: Any) -> Card:
    return Card.model_validate({
        "id": "t", "title": "t", "family": "semantic", "domain": "d",
        "variables": variables,
        "edges": [{"from": a, "to": b, "reason": "r"} for a, b in edges], **extra})


def root(**kw: Any) -> dict[str, Any]:
    return {"meaning": "m", "distribution": {"kind": "normal"}, **kw}


def eq(text: str, **kw: Any) -> dict[str, Any]:
    return {"meaning": "m", "equation": text, **kw}


def resolved(variables: dict[str, Any], edges: list[tuple[str, str]], **extra: Any
             ) -> ResolvedCard:
    return resolve(card(variables, edges, **extra), SourceMap("t.yaml"))


def failure(variables: dict[str, Any], edges: list[tuple[str, str]], **extra: Any
            ) -> ResolveError:
    with pytest.raises(ResolveError) as err:
        resolved(variables, edges, **extra)
    return err.value


def test_parents_are_the_free_symbols_that_are_variables() -> None:
    r = resolved({"a": root(), "b": root(), "c": eq("a * k + sin(b)")}, [("a", "c"), ("b", "c")],
                 constants={"k": {"value": 2.0}})
    assert set(r.parents["c"]) == {"a", "b"}
    assert r.parents["a"] == () and r.random_sites["c"] == 0
    assert set(r.graph.edges) == {("a", "c"), ("b", "c")}


def test_constants_stay_symbolic_until_lowering() -> None:
    r = resolved({"a": root(), "c": eq("a * k")}, [("a", "c")], constants={"k": {"value": 2.0}})
    assert {s.name for s in r.equations["c"].free_symbols} == {"a", "k"}


def test_topological_order_is_lexicographic_and_independent_of_declaration_order() -> None:
    variables = {"z": root(), "m": eq("z + b"), "b": root(), "a": eq("m")}
    edges = [("z", "m"), ("b", "m"), ("m", "a")]
    r1 = resolved(variables, edges)
    r2 = resolved(dict(reversed(list(variables.items()))), list(reversed(edges)))
    assert r1.order == r2.order == ("b", "z", "m", "a")
    assert r1.parents == r2.parents
    assert r1.parents["m"] == ("b", "z")  # parents listed in topological order


def test_order_respects_every_edge() -> None:
    names = [f"v{i}" for i in range(8)]
    variables: dict[str, Any] = {names[0]: root()}
    edges = []
    for i in range(1, 8):
        ps = names[max(0, i - 3):i]
        variables[names[i]] = eq(" + ".join(ps))
        edges += [(p, names[i]) for p in ps]
    r = resolved(dict(reversed(list(variables.items()))), edges)
    pos = {v: i for i, v in enumerate(r.order)}
    assert all(pos[a] < pos[b] for a, b in edges)


def test_hidden_parent() -> None:
    err = failure({"a": root(), "b": root(), "c": eq("a + b")}, [("a", "c")])
    (d,) = err.diagnostics
    assert d.code == "SCM304" and "hidden parent" in d.message and "'b'" in d.message


def test_omitted_parent_reads_well() -> None:
    err = failure({"a": root(), "b": root(), "c": eq("2 * a")}, [("a", "c"), ("b", "c")])
    (d,) = err.diagnostics
    assert d.code == "SCM304"
    assert d.message == ("edge b -> c is listed, but 'c' does not use 'b' in its equation "
                         "(omitted parent)")


def test_edge_into_a_root_is_an_omitted_parent() -> None:
    err = failure({"a": root(), "b": root()}, [("a", "b")])
    assert "is a root" in err.diagnostics[0].message


def test_edge_from_undeclared_variable_is_reported_once() -> None:
    err = failure({"a": root(), "c": eq("a")}, [("a", "c"), ("aa", "c")])
    assert [d.code for d in err.diagnostics] == ["SCM305"]
    assert "did you mean 'a'" in (err.diagnostics[0].hint or "")


def test_duplicate_edge() -> None:
    err = failure({"a": root(), "c": eq("a")}, [("a", "c"), ("a", "c")])
    assert [d.code for d in err.diagnostics] == ["SCM306"]


def test_unknown_symbol_suggests_the_closest_name() -> None:
    err = failure({"alpha": root(), "c": eq("alpah * 2")}, [("alpha", "c")])
    codes = [d.code for d in err.diagnostics]
    assert codes == ["SCM301"]
    assert err.diagnostics[0].hint == "did you mean 'alpha'?"


def test_cycle_message_shows_the_cycle_and_every_edge_location() -> None:
    text = """\
id: t
title: t
family: semantic
domain: d
variables:
  a: {meaning: m, equation: c + 1}
  b: {meaning: m, equation: 2 * a}
  c: {meaning: m, equation: b - 1}
edges:
  - {from: a, to: b, reason: r}
  - {from: b, to: c, reason: r}
  - {from: c, to: a, reason: r}
"""
    c, smap = parse_card_text(text, "t.yaml")
    with pytest.raises(ResolveError) as err:
        resolve(c, smap)
    (d,) = err.value.diagnostics
    assert d.code == "SCM307"
    assert d.message == "the graph has a cycle: a -> b -> c -> a"
    for line in (10, 11, 12):
        assert f"t.yaml:{line}:5" in (d.hint or "")
    assert d.span is not None and d.span.line == 10


def test_self_loop_is_a_cycle() -> None:
    err = failure({"a": eq("a + 1")}, [("a", "a")])
    assert err.diagnostics[0].code == "SCM307"


def test_all_problems_of_a_pass_are_reported_together() -> None:
    err = failure({"a": root(), "b": eq("a + q"), "c": eq("sigmod(a)")}, [("a", "b"), ("a", "c")])
    assert sorted(d.code for d in err.diagnostics) == ["SCM301", "SCM302"]


def test_reserved_and_clashing_names() -> None:
    err = failure({"exp": root(), "k": root()}, [], constants={"k": {"value": 1.0}})
    assert [d.code for d in err.diagnostics] == ["SCM303", "SCM303"]


def test_default_target_pool_is_the_intervenable_observed_variables() -> None:
    iv = {"intervention": {"meaning": "set"}}
    r = resolved({"a": root(**iv), "h": root(observed=False, **iv), "b": eq("a + h", **iv),
                  "c": eq("b")}, [("a", "b"), ("h", "b"), ("b", "c")])
    assert set(r.targets) == {"a", "b"}


def test_target_pool_checks() -> None:
    err = failure({"a": root(), "b": eq("a")}, [("a", "b")],
                  interventions={"targets": ["a", "zz"]})
    assert [d.code for d in err.diagnostics] == ["SCM309", "SCM309"]


def test_categorical_levels_get_codes_in_order() -> None:
    r = resolved({"c": {"meaning": "m", "kind": "categorical", "levels": ["lo", "mid", "hi"],
                        "distribution": {"kind": "categorical", "probs": [0.2, 0.3, 0.5]},
                        "intervention": {"meaning": "set",
                                         "handler": {"kind": "do", "value": "hi"}}}}, [])
    assert r.level_codes == {"c": {"lo": 0, "mid": 1, "hi": 2}}


def test_selection_is_parsed_against_variables_and_constants() -> None:
    r = resolved({"a": root()}, [], selection={"condition": "a > k"},
                 constants={"k": {"value": 0.5}})
    assert r.selection is not None
    err = failure({"a": root()}, [], selection={"condition": "a > kk"})
    assert err.diagnostics[0].code == "SCM301"


@pytest.mark.parametrize(("corr", "ok"), [
    ([[1.0, 0.5], [0.5, 1.0]], True),
    ([[1.0, 0.5], [0.4, 1.0]], False),  # not symmetric
    ([[2.0, 0.5], [0.5, 1.0]], False),  # diagonal
    ([[1.0, 1.0], [1.0, 1.0]], False),  # singular
    ([[1.0, 0.5, 0.0], [0.5, 1.0, 0.0]], False),  # shape
])
def test_root_block_correlation_checks(corr: list[list[float]], ok: bool) -> None:
    args = ({"a": root(), "b": root()}, [])
    blocks = [{"variables": ["a", "b"], "correlation": corr}]
    if ok:
        assert resolved(*args, root_blocks=blocks).card.root_blocks
    else:
        assert failure(*args, root_blocks=blocks).diagnostics[0].code == "SCM312"


def test_descendants() -> None:
    r = resolved({"a": root(), "b": eq("a"), "c": eq("b"), "d": root()},
                 [("a", "b"), ("b", "c")])
    assert r.descendants("a") == {"b", "c"} and r.descendants("d") == set()


def test_equations_and_selection_may_name_levels_end_to_end() -> None:
    """'rural' in an equation is the code of that level: rural rows get the rural time."""
    import numpy as np

    import scmspec

    text = """id: lv
title: t
family: semantic
domain: d
variables:
  zone: {meaning: z, kind: categorical, levels: [centre, suburb, rural],
         distribution: {kind: categorical, probs: [0.4, 0.3, 0.3]}}
  minutes: {meaning: m, equation: "where(zone == 'rural', 40, where(zone != 'centre', 25, 15))"}
edges:
  - {from: zone, to: minutes, reason: distance}
selection: {condition: "zone != 'suburb'", meaning: suburbs are served by another depot}
"""
    df = scmspec.compile_text(text).sample(2000, seed=1)
    assert set(df["zone"]) == {0, 2}  # suburb (code 1) selected away
    assert np.all(df.loc[df["zone"] == 2, "minutes"] == 40)
    assert np.all(df.loc[df["zone"] == 0, "minutes"] == 15)


LET_CARD = """id: lets
title: t
family: formula
domain: d
constants:
  k: {value: 2, unit: 1/s}
let:
  rate: {equation: k * x, meaning: decay rate}
  half: {equation: "rate / 2"}
variables:
  x: {meaning: x, distribution: {kind: uniform, low: 1, high: 2}}
  y: {meaning: y, unit: 1/s, equation: "half + rate"}
  w: {meaning: w, unit: 1/s, equation: "y - half"}
edges:
  - {from: x, to: y, reason: r}
  - {from: x, to: w, reason: r}
  - {from: y, to: w, reason: r}
selection: {condition: "rate > 1.25 * k", meaning: fast ones}
"""


def test_lets_are_substituted_and_their_variables_are_parents() -> None:
    import numpy as np

    import scmspec

    scm = scmspec.compile_text(LET_CARD)
    resolved = scm.compiled.resolved
    assert resolved.parents["y"] == ("x",) and set(resolved.parents["w"]) == {"x", "y"}
    assert str(resolved.lets["half"]) == "k*x/2"
    df = scm.sample(500, seed=2)
    assert np.allclose(df["y"], 3.0 * df["x"]) and np.allclose(df["w"], 2.0 * df["x"])
    assert (df["x"] > 1.25).all()  # the selection read the let too


@pytest.mark.parametrize(("change", "code", "words"), [
    (("k * x, meaning", '"k * x * uniform(0, 1)", meaning'), "SCM302",
     "the let 'rate' draws random numbers"),
    (("  half: {equation:", "  k2: {equation: k}\n  x: {equation: k}\n  half: {equation:"),
     "SCM303", "the let name 'x' is a variable"),
    (('equation: "half + rate"', 'equation: "half + rate + haf"'), "SCM301",
     "did you mean 'half'"),
])
def test_let_mistakes_are_reported(change: tuple[str, str], code: str, words: str) -> None:
    import scmspec
    from scmspec.errors import ScmspecError

    with pytest.raises(ScmspecError) as err:
        scmspec.compile_text(LET_CARD.replace(*change))
    found = [d for d in err.value.diagnostics if d.code == code]
    assert found and any(words in d.message + (d.hint or "") for d in found), \
        [str(d) for d in err.value.diagnostics]
