"""The linear fast lane of ``lower`` computes the bits of the lambdified code it replaces.

``linear_evaluate`` builds a linear equation's evaluator without sympy's printer; the
sampler then uses it in place of ``lambdify_expression``. Each case below compares the two
byte for byte (``tobytes``) on the same inputs, including the edge values (signed zeros,
infinities, NaN, huge and tiny magnitudes), and checks which equations take the lane.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from scmspec.compiler.expressions import parse_equation
from scmspec.compiler.lower import _real, lambdify_expression, linear_evaluate
from scmspec.compiler.pipeline import compile_card, parse_card
from scmspec.errors import DiagnosticBag
from tests.library import FAMILY_SAMPLE, SAMPLE, card_params

ROOT = Path(__file__).resolve().parents[2]

LINEAR = [
    "-1.019 * x002 + 1.287 * x012",
    "1.5*b + -0.25 * a + 3",
    "x/3 + 2*y",
    "-x + y",
    "y - x",
    "-x - y - 0.5",
    "0.1234567890123456789*x + 1e-20*y",  # a float printed with 15 digits computes as such
    "2.0*x",
    "-1.0*x + z",
    "x + x",
    "2*(x + y)",
    "-0.5*x + 1",
    "2 - x",
    "-2*x",
    "-x",
    "x + 1",
    "1 - x",
    "-(2/3)*b + a/7 - 1/3",
    "1e300*a + 1e-300*b + 7.5e10*c",
    "0.1*a + 0.2*b + 0.3*c + 0.4*d + 0.5*e - 0.6*f",
    "B + a + Z + _q",  # names by the printer's order (uppercase first), not as written
]
NOT_LINEAR = ["x", "x*y", "exp(x)", "x**2 + y", "2", "k*x", "x + normal(0, 1)", "(x + y)*z",
              "x + pi", "where(x > 0, x, 0)"]


def _inputs(names: list[str], n: int = 257) -> list[np.ndarray]:
    rng = np.random.default_rng(len(names))
    edge = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e308, -1e-308, 5e-324])
    return [np.concatenate([edge, rng.standard_normal(n) * 10.0 ** rng.integers(-5, 5, n)])
            [rng.permutation(n + len(edge))] for _ in names]


def _same(expr: sp.Basic, parents: tuple[str, ...]) -> None:
    fast = linear_evaluate(expr, parents)
    assert fast is not None, expr
    slow = lambdify_expression(expr, parents, 0)
    arrays = _inputs(list(parents))
    with np.errstate(all="ignore"):
        got, want = fast(*arrays), slow(*arrays)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes(), expr
    for a, b in zip(arrays, _inputs(list(parents))):  # inputs are left alone
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("text", [t.replace("_q", "q") for t in LINEAR])
def test_linear_equations_compute_the_lambdified_bits(text: str) -> None:
    expr = parse_equation(text).expr
    parents = tuple(sorted((s.name for s in expr.free_symbols), key=lambda n: n[::-1]))
    _same(expr, parents)


@pytest.mark.parametrize("text", NOT_LINEAR)
def test_other_equations_keep_lambdify(text: str) -> None:
    expr = parse_equation(text).expr
    assert linear_evaluate(expr, tuple(sorted(s.name for s in expr.free_symbols
                                              if s.name != "k"))) is None


def test_random_linear_forms() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        k = int(rng.integers(1, 8))
        names = [f"v{i}" for i in rng.choice(40, k, replace=False)]
        parts = []
        for name in names:
            c = rng.choice([repr(float(rng.normal() * 10.0 ** rng.integers(-8, 8))),
                            str(int(rng.integers(-5, 6))), f"{int(rng.integers(1, 9))}/7", "1"])
            parts.append(f"{c} * {name}")
        if rng.random() < 0.5:
            parts.append(repr(float(rng.normal())))
        expr = parse_equation(" + ".join(parts)).expr
        parents = tuple(s.name for s in expr.free_symbols)
        if linear_evaluate(expr, parents) is not None:
            _same(expr, parents)


def _shipped_linear(path: Path) -> int:
    """Compare the linear evaluator with sympy's printed code on every linear equation of a
    card; return how many there were."""
    card, smap = parse_card(path)
    if not card.variables:
        return 0
    compiled = compile_card(card, smap)
    resolved = compiled.resolved
    constants = {sp.Symbol(k, real=True): sp.Float(c.value) for k, c in card.constants.items()}
    seen = 0
    for name, expr in resolved.equations.items():
        parents = resolved.parents[name]
        fast = linear_evaluate(expr, parents)
        if fast is None:
            continue
        seen += 1
        slow = lambdify_expression(_real(expr, constants, "", None, DiagnosticBag(), ""),
                                   parents, 0)
        arrays = _inputs(list(parents))
        with np.errstate(all="ignore"):
            assert fast(*arrays).tobytes() == slow(*arrays).tobytes(), (path.name, name)
        assert compiled.plan.step(name).evaluate is not slow
    return seen


@pytest.mark.parametrize("path", card_params(fast=FAMILY_SAMPLE))  # all in the full suite
def test_every_shipped_linear_equation_computes_the_same_bits(path: Path) -> None:
    _shipped_linear(path)


def test_the_sampled_cards_hold_linear_equations() -> None:
    """The comparison above is not vacuous on the developer loop's sample."""
    assert sum(_shipped_linear(p) for p in SAMPLE[:8]) >= 3


def test_linear_parsing_builds_the_objects_sympy_builds() -> None:
    """``scaled``/``negated``/``summed`` (the parser's shortcuts for weighted names) give
    the very expressions sympy's arithmetic gives: same structure, hash and printing."""
    from scmspec.compiler import expressions as ex

    def by_sympy(text: str) -> sp.Basic:
        saved = ex.scaled, ex.negated, ex.summed
        ex.scaled, ex.negated = (lambda a, b: a * b), (lambda v: -v)
        ex.summed = lambda values: sp.Add(*values)
        try:
            return parse_equation(text).expr
        finally:
            ex.scaled, ex.negated, ex.summed = saved

    rng = np.random.default_rng(1)
    forms = ["-x", "x - x", "-(-x)", "x + 1 - 1", "-1.0*x", "2*x - 2*x + y", "0.0*x + y",
             "x*y + 2*x", "exp(x) - 1.5*x"]
    for _ in range(1500):
        parts = []
        for name in (f"v{i}" for i in rng.integers(0, 12, int(rng.integers(1, 6)))):
            c = rng.choice([repr(float(rng.normal() * 10.0 ** rng.integers(-8, 8))),
                            str(int(rng.integers(-3, 4))), "1.0", "-1.0", "0.0", "2/7"])
            parts.append(str(rng.choice([f"{c} * {name}", f"{name} * {c}", name, f"-{name}",
                                         f"-({c} * {name})"])))
        if rng.random() < 0.5:
            parts.append(str(rng.choice([repr(float(rng.normal())), "0", "0.0", "3", "-2"])))
        forms.append(parts[0] + "".join(str(rng.choice([" + ", " - "])) + p
                                        for p in parts[1:]))
    for text in forms:
        fast, slow = parse_equation(text).expr, by_sympy(text)
        assert sp.srepr(fast) == sp.srepr(slow) and fast == slow, text
        assert hash(fast) == hash(slow) and str(fast) == str(slow), text


def test_parsed_floats_and_names_are_sympys() -> None:
    from scmspec.compiler.expressions import float_number, symbol

    rng = np.random.default_rng(3)
    values = [float(v) for v in rng.normal(size=2000) * 10.0 ** rng.integers(-300, 300, 2000)]
    for v in values + [1.0, -1.0, 0.0, -0.0, 5e-324, -5e-324, 1.7e308, 2.2250738585072014e-308]:
        made, want = float_number(v), sp.Float(v)
        assert type(made) is type(want) and sp.srepr(made) == sp.srepr(want), v
        assert made == want and hash(made) == hash(want) and str(made) == str(want), v
    assert symbol("x") == sp.Symbol("x", real=True) and symbol("x") is symbol("x")


def test_untaken_piecewise_branches_raise_no_numpy_warning() -> None:
    """numpy.where computes every branch: arcsin(2 - x) is NaN on the rows x > 3, where the
    other branch is taken, and must not warn; a NaN on a taken row still comes out (the
    finite gate reports it)."""
    x = sp.Symbol("x", real=True)
    expr = sp.Piecewise((sp.asin(2 - x), x <= 3), (sp.Float(0.0), True))
    f = lambdify_expression(expr, ("x",), 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = f(np.array([1.5, 2.0, 10.0]))
    assert out.tolist() == pytest.approx([np.arcsin(0.5), np.arcsin(0.0), 0.0])
    bare = lambdify_expression(sp.sqrt(x - 1) + sp.Piecewise((x, x > 0), (-x, True)), ("x",), 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(bare(np.array([0.0]))).all()
