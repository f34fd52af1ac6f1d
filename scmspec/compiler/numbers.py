"""Constant parts of equations are real, finite float64 numbers: the checks.

Sympy evaluates constants exactly and in the complex plane: ``sqrt(-4)`` is ``2*I``,
``log(0)`` is ``zoo``, ``exp(1000)`` a number no float holds. Numpy then drops an
imaginary part with a warning, fails on it, or computes infinities. These helpers find
such a constant, so that each stage that makes new constants (parsing, substituting
lets, substituting constants) refuses it with a located diagnostic before numpy sees it.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

_FLOAT_MAX = sys.float_info.max


def constant_issue(value: Any) -> str | None:
    """Why a constant (sub-)expression cannot be a float64 number, or None when it can.

    Variables, conditions and expressions with draws or custom functions are not
    constants and pass. A constant must be real (no ``I``: ``sqrt(-4)``, ``log(-1)``),
    defined (no NaN: ``atan2(0, 0)``) and finite in float64 (``exp(1000)``, ``log(0)``).

    Example:
        >>> constant_issue(sp.sqrt(-4))
        'is not a real number'
        >>> constant_issue(sp.exp(1000))
        'overflows float64 (beyond about 1.8e308)'
        >>> constant_issue(sp.Symbol("x") + sp.I)
        'is not a real number'
        >>> constant_issue(sp.Symbol("x") + 1) is None
        True
    """
    if not isinstance(value, sp.Expr):
        return None
    if not value.is_number:  # e.g. sqrt(-x**2), which sympy writes I*Abs(x)
        return "is not a real number" if value.has(sp.I) else None
    if value.has(sp.nan):
        return "is not a number (NaN)"
    if value.has(sp.zoo, sp.oo, -sp.oo):
        return "is not a finite number"
    number = value if isinstance(value, (sp.Integer, sp.Rational, sp.Float)) else value.evalf(15)
    if number.has(sp.I) or number.is_extended_real is False:
        return "is not a real number"
    if number.has(sp.nan) or number.is_extended_real is None:
        return "is not a number (NaN)"
    try:
        magnitude = abs(float(number))
    except (OverflowError, TypeError, ValueError):
        magnitude = math.inf
    if not magnitude <= _FLOAT_MAX:
        return "overflows float64 (beyond about 1.8e308)"
    return None


def substitute(expr: Any, mapping: Mapping[Any, Any]) -> tuple[Any, tuple[Any, str] | None]:
    """``expr.xreplace(mapping)`` and the first part of it that is not a float64 number.

    Substituting re-evaluates: a constant 0 can make ``1 / k`` infinite or ``min(k / j,
    x)`` undefined (sympy refuses NaN arguments with a ValueError). Either way the
    problem comes back as (part, why) for the caller to report; None when all is well.

    Example:
        >>> k, j, x = (sp.Symbol(n, real=True) for n in "kjx")
        >>> substitute(sp.Min(k / j, x), {k: sp.Integer(0), j: sp.Integer(0)})[1]
        (nan, 'is not a number (NaN)')
    """
    try:
        out = expr.xreplace(mapping)
    except (TypeError, ValueError, AttributeError, ZeroDivisionError, ArithmeticError):
        return expr, (sp.nan, "is not a number (NaN)")
    return out, nonreal_part(out)


def nonreal_part(expr: Any) -> tuple[sp.Expr, str] | None:
    """The first whole constant part of a built expression that is not a float64 number.

    Parsing checks each constant as it is built; substituting lets and constants can
    still make one (``1 / d`` with ``d`` zero, ``sqrt(k)`` with ``k`` negative), so
    later stages check again before anything reaches numpy.

    Example:
        >>> x = sp.Symbol("x", real=True)
        >>> nonreal_part(x + 3 * sp.sqrt(sp.Float(-4.0)))
        (6.0*I, 'is not a real number')
        >>> nonreal_part(x + 1) is None
        True
    """
    if not isinstance(expr, sp.Basic):
        return None
    constant: dict[sp.Basic, bool] = {}
    for node in sp.postorder_traversal(expr):  # children first, each subtree once
        if node not in constant:
            constant[node] = (bool(getattr(node, "is_number", False)) if node.is_Atom else
                              isinstance(node, sp.Expr) and not isinstance(node, AppliedUndef)
                              and all(constant[a] for a in node.args))
    walk = sp.preorder_traversal(expr)
    for node in walk:  # outermost constants first: report the whole constant part
        if constant[node]:
            problem = constant_issue(node)
            if problem is not None:
                return node, problem
            walk.skip()
    return None
