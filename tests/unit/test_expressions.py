"""Equation parsing: an explicit whitelist over Python's ``ast``; never ``eval``.

Checks what is accepted (and what sympy it becomes), what is refused, and
that every refusal carries the column of the offending token in the text.
"""

from __future__ import annotations

import math

import pytest
import sympy as sp

from scmspec.compiler.expressions import ExpressionIssue, is_condition, parse_equation
from scmspec.compiler.kinds.functions import FUNCTIONS
from scmspec.limits import Limits

x, y, z = (sp.Symbol(n, real=True) for n in "xyz")


def issue(text: str, limits: Limits | None = None) -> ExpressionIssue:
    with pytest.raises(ExpressionIssue) as err:
        parse_equation(text, limits)
    return err.value


def at(text: str, token: str) -> int:
    return text.index(token)


@pytest.mark.parametrize(("text", "expected"), [
    ("2 * x + 1", 2 * x + 1),
    ("x - y / 4", x - y / 4),
    ("-x", -x),
    ("+x", x),
    ("x ** 2", x**2),
    ("exp(-x) * sin(y)", sp.exp(-x) * sp.sin(y)),
    ("log10(x)", sp.log(x, 10)),
    ("sqrt(x)", sp.sqrt(x)),
    ("abs(x)", sp.Abs(x)),
    ("max(x, y, 0)", sp.Max(x, y, 0)),
    ("clip(x, 0, 1)", sp.Min(sp.Max(x, 0), 1)),
    ("x % 3", sp.Mod(x, 3)),
    ("x // 2", sp.floor(x / 2)),
    ("pi * x", sp.pi * x),
    ("2 ** 10", sp.Float(1024.0)),
    ("1e3 * x", sp.Float(1000.0) * x),
])
def test_arithmetic_becomes_sympy(text: str, expected: sp.Expr) -> None:
    assert sp.simplify(parse_equation(text).expr - expected) == 0


def test_symbols_are_real_and_names_are_collected() -> None:
    p = parse_equation("a * exp(b) + a")
    assert p.names == frozenset({"a", "b"})
    assert all(s.is_real for s in p.expr.free_symbols)


def test_conditions_become_zero_one_indicators() -> None:
    p = parse_equation("x > 1")
    assert p.expr.subs(x, 2) == 1 and p.expr.subs(x, 0) == 0
    chained = parse_equation("0 < x <= 1")
    assert [chained.expr.subs(x, v) for v in (0, 0.5, 1, 2)] == [0, 1, 1, 0]


def test_if_expression_and_where_agree() -> None:
    a = parse_equation("x if y > 0 else -x").expr
    b = parse_equation("where(y > 0, x, -x)").expr
    for yv in (-1, 1):
        assert a.subs({x: 3, y: yv}) == b.subs({x: 3, y: yv})


def test_boolean_operators_make_conditions() -> None:
    p = parse_equation("indicator(x > 0 and not y > 0)")
    assert p.expr.subs({x: 1, y: -1}) == 1
    assert p.expr.subs({x: 1, y: 1}) == 0


def test_random_draws_get_distinct_site_indices() -> None:
    p = parse_equation("bernoulli(sigmoid(x)) + bernoulli(0.5) * normal(0, 1)")
    assert p.random_sites == 3
    sites = sorted(int(f.args[-1]) for f in p.expr.atoms(sp.Function)
                   if f.func.__name__ in ("bernoulli", "normal"))
    assert sites == [0, 1, 2]


def test_identical_draws_at_two_sites_stay_distinct() -> None:
    # bernoulli(p) twice must be two independent draws, not one draw doubled.
    p = parse_equation("bernoulli(0.5) + bernoulli(0.5)")
    assert p.expr != 2 * sp.Function("bernoulli")(sp.Float(0.5), 0)
    assert p.random_sites == 2


@pytest.mark.parametrize(("text", "token", "words"), [
    ("__import__('os')", "__import__", "unknown function"),
    ("x.__class__", "x.__class__", "attribute access"),
    ("x[0]", "x[0]", "indexing"),
    ("lambda: x", "lambda: x", "a lambda"),
    ("(lambda q: q)(x)", "lambda q: q", "only plain function names"),
    ("[x, y]", "[x, y]", "a list"),
    ("(x, y)", "(x, y)", "a tuple"),
    ("{x: 1}", "{x: 1}", "a dict"),
    ("f'{x}'", "f'{x}'", "an f-string"),
    ("[q for q in x]", "[q for q in x]", "a comprehension"),
    ("(q := 3)", "q := 3", "an assignment"),
    ("'text'", "'text'", "not a number"),
    ("True + x", "True", "not a number"),
    ("x + _secret", "_secret", "underscore"),
    ("exp", "exp", "is a function"),
    ("sigmod(x)", "sigmod", "unknown function"),
    ("exp(x, y)", "exp(x, y)", "takes 1 arguments"),
    ("clip(x, 0)", "clip(x, 0)", "takes 3 arguments"),
    ("exp(x=1)", "exp(x=1)", "positional"),
    ("max(*x)", "max(*x)", "positional"),
    ("~x", "~x", "'~'"),
    ("x @ y", "x @ y", "MatMult"),
    ("x << 2", "x << 2", "LShift"),
    ("x is y", "x is y", "Is"),
    ("x in y", "x in y", "In"),
    ("(x > 1) * 2", "(x > 1) * 2", "arithmetic on a condition"),
    ("x / 0", "x / 0", "division by the literal zero"),
    ("x ** 5000", "x ** 5000", "exponent"),
    ("9**9**9**9", 3, "exponent"),  # 9**(9**9): the middle power
    ("10.0 ** 400", "10.0 ** 400", "overflows"),
    ("(-8) ** 0.5", "(-8) ** 0.5", "not real"),
    ("1e999 * x", "1e999", "not finite"),
    ("piecewise(x > 0, 1, x > 1, 2)", "piecewise(x > 0, 1, x > 1, 2)", "pairs"),
])
def test_refusals_point_at_the_offending_token(text: str, token: str | int, words: str) -> None:
    err = issue(text)
    assert words in err.message, err.message
    assert err.offset == (token if isinstance(token, int) else at(text, token)), err.offset
    assert err.width >= 1 and err.hint


def test_offsets_count_leading_whitespace() -> None:
    err = issue("   x + sigmod(x)")
    assert err.offset == 7 and err.width == len("sigmod")


def test_syntax_errors_have_offsets() -> None:
    err = issue("2 * x +")
    assert "not a valid expression" in err.message
    assert 0 <= err.offset <= len("2 * x +")


@pytest.mark.parametrize("text", ["", "   ", None])
def test_empty_equation(text: str | None) -> None:
    assert "empty" in issue(text).message  # type: ignore[arg-type]


def test_length_is_bounded() -> None:
    assert "characters" in issue("x + " * 30 + "x", Limits(expression_chars=50)).message


def test_depth_is_bounded_without_recursion_errors() -> None:
    assert "nested" in issue("-(" * 150 + "x" + ")" * 150).message
    assert "nested" in issue("(" * 1000 + "x" + ")" * 1000).message
    assert "nested" in issue("exp(" * 120 + "x" + ")" * 120).message


def test_depth_limit_is_configurable() -> None:
    parse_equation("-(-(-(x)))", Limits(expression_depth=10))
    assert "nested" in issue("-(-(-(-(-(x)))))", Limits(expression_depth=4)).message


def test_exponent_limit_is_configurable() -> None:
    parse_equation("x ** 20")
    assert "exponent" in issue("x ** 20", Limits(exponent=10)).message


def test_huge_integer_literals_become_floats() -> None:
    p = parse_equation("x * 10000000000000000000")
    (coeff,) = [a for a in p.expr.args if a.is_Number]
    assert isinstance(coeff, sp.Float) and math.isclose(float(coeff), 1e19)


def test_every_whitelisted_function_parses() -> None:
    for name, entry in FUNCTIONS.items():
        args = ", ".join(["x > 0"] + ["x"] * (entry.min_args - 1)) \
            if name in ("where", "piecewise", "indicator") else ", ".join(["x"] * entry.min_args)
        p = parse_equation(f"{name}({args})")
        assert p.random_sites == (1 if entry.random else 0), name


def test_is_condition() -> None:
    assert is_condition(x > 1)
    assert not is_condition(x)
    assert not is_condition(x + 1)


LEVELS = {"zone": {"centre": 0, "suburb": 1, "rural": 2}, "grade": {"c": 0, "b": 1, "a": 2}}


def test_level_names_in_comparisons_become_codes() -> None:
    p = parse_equation("where(zone == 'rural', 40, 15) * where('b' <= grade, 1, 2)", None,
                       LEVELS, frozenset({"grade"}))
    x = sp.Symbol("zone", real=True)
    g = sp.Symbol("grade", real=True)
    assert p.expr == sp.Piecewise((40, sp.Eq(x, 2)), (15, True)) * sp.Piecewise(
        (1, sp.Le(1, g)), (2, True))
    assert p.names == frozenset({"zone", "grade"})


@pytest.mark.parametrize(("text", "token", "words"), [
    ("zone == 'rurl'", "'rurl'", "'zone' has no level 'rurl'"),
    ("zone > 'centre'", "zone > 'centre'", "'zone' is categorical: its levels have no order"),
    ("x == 'rural'", "'rural'", "'x' has no level names"),
    ("'rural' + 1", "'rural'", "is not a number"),
])
def test_level_name_mistakes_point_at_the_string(text: str, token: str, words: str) -> None:
    with pytest.raises(ExpressionIssue) as err:
        parse_equation(text, None, LEVELS, frozenset({"grade"}))
    issue = err.value
    assert words in issue.message
    assert text[issue.offset:issue.offset + issue.width] == token
    if "rurl" in text:
        assert "did you mean 'rural'?" in (issue.hint or "")
