"""Parse equation text into sympy through an explicit whitelist; never ``eval``.

The text is parsed with Python's ``ast`` (which only builds a tree, it runs
nothing), every node is checked against an allow-list, and the sympy
expression is built by hand from the checked tree. Names become symbols,
calls must name a whitelisted function, and sizes are bounded. Errors carry
the column offset of the offending token inside the equation text.
"""

from __future__ import annotations

import ast
import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sympy as sp
from mpmath.libmp import from_float

from scmspec.compiler.kinds.functions import ALIASES, FUNCTIONS, PIECEWISE_ALIAS, check_draw
from scmspec.compiler.numbers import constant_issue
from scmspec.limits import Limits, current_limits

_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.Mod, ast.FloorDiv)
# Arguments that are conditions: where's first, piecewise's odd ones, indicator's only one.
_CONDITION_ARGS = {"where": lambda i, n: i == 0, "indicator": lambda i, n: True,
                   "piecewise": lambda i, n: i % 2 == 0 and i < n - 1}
_FIRST_FUNCTIONS = sorted(FUNCTIONS, key=str.lower)[:8]  # named in the "not allowed" hint
_COMPARE = {ast.Lt: sp.Lt, ast.LtE: sp.Le, ast.Gt: sp.Gt, ast.GtE: sp.Ge, ast.Eq: sp.Eq,
            ast.NotEq: sp.Ne}


@dataclass(frozen=True)
class ExpressionIssue(Exception):
    """A problem at ``offset`` (0-based column within the equation text)."""

    offset: int
    width: int
    message: str
    hint: str


@dataclass(frozen=True)
class ParsedEquation:
    """The sympy form of an equation plus the names it mentions."""

    expr: sp.Expr
    names: frozenset[str]
    random_sites: int


def parse_equation(text: str, limits: Limits | None = None,
                   levels: Mapping[str, Mapping[str, float]] | None = None,
                   ordered: frozenset[str] = frozenset()) -> ParsedEquation:
    """Parse ``text`` into a sympy expression.

    ``levels`` maps each categorical/ordinal variable to its level codes, so a
    comparison may name a level (``zone == "north"``); ``ordered`` lists the
    ordinal ones, whose levels may also be ordered (``grade >= "B"``).

    Example:
        >>> p = parse_equation("2 * x + sigmoid(y)")
        >>> sorted(p.names), p.random_sites
        (['x', 'y'], 0)
        >>> parse_equation("where(zone == 'north', 1, 0)", levels={"zone": {"south": 0,
        ...     "north": 1}}).expr
        Piecewise((1, Eq(zone, 1)), (0, True))
        >>> parse_equation("__import__('os')")
        Traceback (most recent call last):
        ...
        scmspec.compiler.expressions.ExpressionIssue: ...
    """
    limits = limits or current_limits()
    if not isinstance(text, str) or not text.strip():
        raise ExpressionIssue(0, 1, "the equation is empty", "write an expression over parents")
    if len(text) > limits.expression_chars:
        raise ExpressionIssue(0, 1, f"the equation has {len(text)} characters, over the limit "
                              f"of {limits.expression_chars}", "split it over helper variables")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        digits = re.search(r"\d{4301,}", text)
        if digits is not None and "digits" in str(exc.msg):  # Python's int conversion limit
            raise ExpressionIssue(digits.start(), len(digits.group()), "an integer literal "
                                  f"with {len(digits.group())} digits, past the 4,300 Python "
                                  "converts", "numbers this long are beyond float range "
                                  "anyway: rescale the quantity") from None
        offset = max(0, (exc.offset or 1) - 1) + (len(text) - len(text.lstrip()))
        raise ExpressionIssue(offset, 1, f"not a valid expression: {exc.msg}",
                              "equations use Python-like syntax: 2 * x + exp(-y / 3)") from None
    except (RecursionError, MemoryError):
        raise ExpressionIssue(0, 1, "the equation is nested too deeply",
                              f"keep nesting under {limits.expression_depth} levels") from None
    builder = _Builder(limits, len(text) - len(text.lstrip()), levels or {}, ordered,
                       text.strip())
    try:
        expr = builder.build(tree.body, 0)
    except (TypeError, ValueError, AttributeError, ZeroDivisionError, ArithmeticError) as exc:
        # sympy refuses some well-formed trees (e.g. comparing an infinity); report, never crash
        raise ExpressionIssue(0, len(text), f"this expression cannot be evaluated: {exc}",
                              "simplify the expression; avoid operations on literal zeros or "
                              "infinities") from None
    if is_condition(expr):
        expr = sp.Piecewise((sp.Integer(1), expr), (sp.Integer(0), True))
    return ParsedEquation(expr, frozenset(builder.names), builder.sites)


class _Builder:
    """Turns a checked ``ast`` tree into sympy, node by node."""

    def __init__(self, limits: Limits, lead: int,
                 levels: Mapping[str, Mapping[str, float]] | None = None,
                 ordered: frozenset[str] = frozenset(), source: str = "") -> None:
        self.limits, self.lead = limits, lead
        self.levels, self.ordered = levels or {}, ordered
        self.source = source
        self.names: set[str] = set()
        self.sites = 0

    def fail(self, node: ast.AST, message: str, hint: str) -> ExpressionIssue:
        start = self._column(node, "col_offset", 0)
        end = self._column(node, "end_col_offset", start + 1)
        if getattr(node, "end_lineno", None) != getattr(node, "lineno", None):
            end = start + 1  # a multi-line node: mark its first character
        return ExpressionIssue(self.lead + start, max(1, end - start), message, hint)

    def _column(self, node: ast.AST, attr: str, default: int) -> int:
        """A node's column in characters (``ast`` counts UTF-8 bytes)."""
        col = getattr(node, attr, None)
        if col is None:
            return default
        lines = self.source.split("\n")
        line = lines[min(len(lines), getattr(node, "lineno", 1) or 1) - 1] if lines else ""
        if line.isascii():
            return int(col)
        return len(line.encode("utf-8")[:col].decode("utf-8", errors="ignore"))

    def text(self, node: ast.AST) -> str:
        """The source text of a node (for messages), shortened."""
        seg = ast.get_source_segment(self.source, node) or ""
        return seg if len(seg) <= 60 else seg[:57] + "..."

    def build(self, node: ast.AST, depth: int) -> Any:
        if depth > self.limits.expression_depth:
            raise self.fail(node, f"the equation is nested deeper than "
                            f"{self.limits.expression_depth} levels",
                            "split it over helper variables")
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:
            raise self.fail(node, f"{_describe(node)} is not allowed in equations",
                            "use arithmetic, comparisons, parent names, constants and "
                            f"whitelisted functions ({', '.join(_FIRST_FUNCTIONS)}, ...)")
        value = method(node, depth + 1)
        if isinstance(node, (ast.Name, ast.Constant)) or _finite_number(value) \
                or _symbolic_linear(value):
            return value  # a name, a finite number, or a sum of them: nothing to check
        problem = constant_issue(value)
        if problem is not None:
            # Checked node by node, so the caret marks the smallest part that is wrong and
            # no later step (evalf of a larger tree, numpy) ever sees a complex or infinite
            # constant.
            raise self.fail(node, f"{self.text(node)!r} {problem}",
                            "equations compute with real, finite float64 numbers: keep "
                            "logarithms, roots and powers of constants in their real domain "
                            "and within about 1e308")
        return value

    def spelled(self, node: ast.AST, name: str) -> None:
        """Refuse a name whose written form is not the name Python reads.

        Python applies NFKC to identifiers, so ``\ufb01`` (the ligature) is read as
        ``fi``: a reviewer would read one name while the compiler uses another.
        """
        if self.source.isascii():
            return  # NFKC leaves ASCII alone; skip the per-name source lookup
        written = ast.get_source_segment(self.source, node) or name
        if written != name and unicodedata.normalize("NFKC", written) == name:
            raise self.fail(node, f"the name {written!r} is read as {name!r} (Unicode "
                            "compatibility normalisation)", f"write it in ASCII: {name}")

    def _Constant(self, node: ast.Constant, depth: int) -> Any:
        v = node.value
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.fail(node, f"the literal {v!r} is not a number",
                            "a level name goes only in a comparison with its variable "
                            "(zone == 'north'); elsewhere equations take numbers")
        if isinstance(v, int) and abs(v) < 10**15:
            return sp.Integer(v)
        try:
            value = float(v)
        except OverflowError:  # an integer literal beyond float range (e.g. a long hex one)
            value = math.inf
        if not math.isfinite(value):
            raise self.fail(node, "the number is not finite (beyond about 1e308)",
                            "write a finite number")
        return float_number(value)

    def _Name(self, node: ast.Name, depth: int) -> Any:
        name = node.id
        self.spelled(node, name)
        if name.startswith("_"):
            raise self.fail(node, f"the name {name!r} starts with an underscore",
                            "names starting with '_' are reserved; rename the variable")
        if name == "pi":
            return sp.pi
        if name in FUNCTIONS or name in ALIASES or name == PIECEWISE_ALIAS:
            raise self.fail(node, f"{name!r} is a function", f"call it: {name}(...)")
        self.names.add(name)
        return symbol(name)

    def _UnaryOp(self, node: ast.UnaryOp, depth: int) -> Any:
        operand = self.build(node.operand, depth)
        if isinstance(node.op, (ast.USub, ast.UAdd)) and is_condition(operand):
            raise self.fail(node, "arithmetic on a condition",
                            "wrap the condition: indicator(x > 3) or where(x > 3, a, b)")
        if isinstance(node.op, ast.USub):
            return negated(operand)
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(node.op, ast.Not):
            return sp.Not(_condition(operand))
        if is_condition(operand):  # sympy prints Not(c) as ~c
            return sp.Not(operand)
        raise self.fail(node, "the operator '~' applies only to conditions",
                        "use 'not' (or ~ as sympy prints it) on a condition: ~(x > 1)")

    def _BinOp(self, node: ast.BinOp, depth: int) -> Any:
        if isinstance(node.op, (ast.BitAnd, ast.BitOr)):
            return self._logic(node, depth)
        if not isinstance(node.op, _BINOPS):
            raise self.fail(node, f"the operator {type(node.op).__name__} is not allowed",
                            "use + - * / ** %")
        if isinstance(node.op, (ast.Add, ast.Sub)) and isinstance(node.left, ast.BinOp) \
                and isinstance(node.left.op, (ast.Add, ast.Sub)):
            return self._sum_chain(node, depth)
        left, right = self.build(node.left, depth), self.build(node.right, depth)
        for side in (left, right):
            if is_condition(side):
                raise self.fail(node, "arithmetic on a condition",
                                "wrap the condition: indicator(x > 3) or where(x > 3, a, b)")
        op = node.op
        if isinstance(op, ast.Add):
            return summed([left, right])
        if isinstance(op, ast.Sub):
            return summed([left, negated(right)])
        if isinstance(op, ast.Mult):
            return scaled(left, right)
        if isinstance(op, (ast.Div, ast.Mod, ast.FloorDiv)) and right == 0:
            raise self.fail(node, "division by the literal zero", "divide by a nonzero value")
        if isinstance(op, ast.Div):
            return left / right
        if isinstance(op, ast.Mod):
            return sp.Mod(left, right)
        if isinstance(op, ast.FloorDiv):
            return sp.floor(left / right)
        return self._power(node, left, right)

    def _logic(self, node: ast.BinOp, depth: int) -> Any:
        """``a & b``, ``a | b`` as sympy prints them: ``and`` / ``or`` of two conditions."""
        sides = []
        for side in (node.left, node.right):
            value = self.build(side, depth)
            if not is_condition(value):
                sym = "&" if isinstance(node.op, ast.BitAnd) else "|"
                raise self.fail(side, f"{sym!r} combines conditions, and {self.text(side)!r} "
                                "is a number", f"put parentheses around each comparison, as "
                                f"sympy prints them: (x > 1) {sym} (y < 2); '{sym}' binds "
                                "tighter than a comparison")
            sides.append(value)
        return sp.And(*sides) if isinstance(node.op, ast.BitAnd) else sp.Or(*sides)

    def _piecewise_alias(self, node: ast.Call, depth: int) -> Any:
        """sympy's ``Piecewise((a, cond), ..., (b, True))``, read as ``piecewise(...)``."""
        if node.keywords or not node.args:
            raise self.fail(node, "Piecewise() takes (value, condition) pairs",
                            "write Piecewise((a, x > 1), (b, True))")
        pieces = []
        for i, arg in enumerate(node.args):
            if not isinstance(arg, ast.Tuple) or len(arg.elts) != 2:
                raise self.fail(arg, "each argument of Piecewise() is a pair (value, condition)",
                                "write Piecewise((a, x > 1), (b, True))")
            value_node, cond_node = arg.elts
            value = self.build(value_node, depth)
            if is_condition(value):
                raise self.fail(value_node, "Piecewise() takes a number here, not a condition",
                                "each pair is (value, condition)")
            last = i == len(node.args) - 1
            if isinstance(cond_node, ast.Constant) and cond_node.value is True:
                if not last:
                    raise self.fail(cond_node, "only the last pair of Piecewise() may have the "
                                    "condition True", "move the (default, True) pair to the end")
                cond: Any = sp.true
            else:
                cond = _condition(self.build(cond_node, depth))
            pieces.append((value, cond))
        if pieces[-1][1] is not sp.true:
            raise self.fail(node, "Piecewise() has no default: rows where no condition holds "
                            "would get no value", "end with a pair (default, True)")
        return sp.Piecewise(*pieces)

    def _sum_chain(self, node: ast.BinOp, depth: int) -> Any:
        """Build a long ``a + b - c + ...`` without recursing once per term.

        Python parses sums left-nested, so a 200-term sum would otherwise count as
        200 levels of nesting and trip the depth limit meant for real nesting.
        """
        terms: list[tuple[int, ast.AST]] = []
        current: ast.AST = node
        while isinstance(current, ast.BinOp) and isinstance(current.op, (ast.Add, ast.Sub)):
            terms.append((-1 if isinstance(current.op, ast.Sub) else 1, current.right))
            current = current.left
        terms.append((1, current))
        values = []
        for sign, term in reversed(terms):
            value = self.build(term, depth)
            if is_condition(value):
                raise self.fail(term, "arithmetic on a condition",
                                "wrap the condition: indicator(x > 3) or where(x > 3, a, b)")
            values.append(value if sign > 0 else negated(value))
        return summed(values)

    def _power(self, node: ast.AST, base: Any, exponent: Any) -> Any:
        if exponent.is_Number and abs(float(exponent)) > self.limits.exponent:
            raise self.fail(node, f"the exponent {float(exponent):g} exceeds "
                            f"{self.limits.exponent:g}",
                            "huge exponents overflow; rescale the quantity")
        if base.is_Number and exponent.is_Number:
            try:
                value = float(base) ** float(exponent)
            except (OverflowError, ZeroDivisionError):
                value = math.inf
            if isinstance(value, complex) or not math.isfinite(value):
                raise self.fail(node, "this power of numbers overflows or is not real",
                                "write the value out, within float range")
            return sp.Float(value)
        return sp.Pow(base, exponent)

    def _Compare(self, node: ast.Compare, depth: int) -> Any:
        nodes = [node.left, *node.comparators]
        named = [n for n in nodes if isinstance(n, ast.Name)]
        terms = [self._level(n, named, node) if isinstance(n, ast.Constant) and _is_text(n)
                 else self.build(n, depth) for n in nodes]
        for n, term in zip(nodes, terms):
            if is_condition(term):
                raise self.fail(n, "a condition compared as a number",
                                "combine conditions with and/or; compare indicator(...) to "
                                "use a condition as 0/1")
        parts = []
        for op, a, b in zip(node.ops, terms, terms[1:]):
            rel = _COMPARE.get(type(op))
            if rel is None:
                raise self.fail(node, f"the comparison {type(op).__name__} is not allowed",
                                "use < <= > >= == !=")
            parts.append(rel(a, b))
        return parts[0] if len(parts) == 1 else sp.And(*parts)

    def _level(self, text: ast.Constant, named: list[ast.Name], compare: ast.Compare) -> Any:
        """A level name in a comparison: the code of that level of the compared variable."""
        owners = [n.id for n in named if n.id in self.levels]
        if len(owners) != 1:
            what = (f"{named[0].id!r} has no level names" if named else
                    "no variable is compared with it")
            raise self.fail(text, f"the level name {text.value!r} cannot be resolved: {what}",
                            "compare a categorical or ordinal variable with one of its levels, "
                            "e.g. zone == 'north'")
        var = owners[0]
        codes = self.levels[var]
        if text.value not in codes:
            import difflib

            guess = difflib.get_close_matches(str(text.value), list(codes), n=1)
            raise self.fail(text, f"{var!r} has no level {text.value!r}",
                            (f"did you mean {guess[0]!r}? " if guess else "") +
                            f"its levels: {', '.join(codes)}")
        if var not in self.ordered and any(not isinstance(op, (ast.Eq, ast.NotEq))
                                           for op in compare.ops):
            raise self.fail(compare, f"{var!r} is categorical: its levels have no order",
                            "compare categories with == or !=; declare kind: ordinal if the "
                            "levels are ordered")
        code = codes[str(text.value)]
        return sp.Integer(code) if isinstance(code, int) else sp.Float(code)

    def _BoolOp(self, node: ast.BoolOp, depth: int) -> Any:
        values = [_condition(self.build(v, depth)) for v in node.values]
        return sp.And(*values) if isinstance(node.op, ast.And) else sp.Or(*values)

    def _IfExp(self, node: ast.IfExp, depth: int) -> Any:
        test = _condition(self.build(node.test, depth))
        return sp.Piecewise((self.build(node.body, depth), test),
                            (self.build(node.orelse, depth), True))

    def _Call(self, node: ast.Call, depth: int) -> Any:
        if not isinstance(node.func, ast.Name):
            raise self.fail(node.func, "only plain function names can be called",
                            "call a whitelisted function such as exp(x)")
        name = node.func.id
        self.spelled(node.func, name)
        if name == PIECEWISE_ALIAS:
            return self._piecewise_alias(node, depth)
        name = ALIASES.get(name, name)
        if name not in FUNCTIONS:
            import difflib

            guess = difflib.get_close_matches(name, list(FUNCTIONS), n=1)
            raise self.fail(node.func, f"unknown function {name!r}",
                            f"did you mean {guess[0]!r}?" if guess else
                            f"known functions: {', '.join(sorted(FUNCTIONS, key=str.lower))}")
        entry = FUNCTIONS.lookup(name)
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.fail(node, f"{name}() takes positional arguments only",
                            f"write {name}(a, b) without names or *")
        n = len(node.args)
        if n < entry.min_args or (entry.max_args is not None and n > entry.max_args):
            want = (str(entry.min_args) if entry.min_args == entry.max_args else
                    f"{entry.min_args}+" if entry.max_args is None else
                    f"{entry.min_args}-{entry.max_args}")
            raise self.fail(node, f"{name}() takes {want} arguments, got {n}", entry.doc)
        args = [self.build(a, depth) for a in node.args]
        takes_condition = _CONDITION_ARGS.get(name, lambda i, n: False)
        for i, (arg_node, arg) in enumerate(zip(node.args, args)):
            if is_condition(arg) and not takes_condition(i, n):
                raise self.fail(arg_node, f"{name}() takes a number here, not a condition",
                                "wrap the condition: indicator(x > 3) or where(x > 3, a, b)")
        if entry.random:
            self._check_draw(node, name, args)
            args.append(sp.Integer(self.sites))  # makes each call site a distinct draw
            self.sites += 1
        try:
            return entry.build(*args)
        except (TypeError, ValueError) as exc:
            raise self.fail(node, f"{name}(): {exc}", entry.doc) from None


    def _check_draw(self, node: ast.Call, name: str, args: list[Any]) -> None:
        """Refuse a draw whose constant parameters are invalid (``normal(0, -1)``)."""
        values = [float(a) if isinstance(a, sp.Expr) and a.is_number else math.nan
                  for a in args]
        problem = check_draw(name, *values)
        if problem is not None:
            raise self.fail(node, f"{self.text(node)!r} draws with {problem[0]}",
                            f"{name}() needs {problem[1]}")


_SYMBOLS: dict[str, sp.Symbol] = {}


def symbol(name: str) -> sp.Symbol:
    """``Symbol(name, real=True)``, kept per name (sympy's own cache is small and shared
    with every expression it builds, so a card's names were made again and again)."""
    found = _SYMBOLS.get(name)
    if found is None:
        if len(_SYMBOLS) > 100_000:  # bounded: a long run over many cards' names
            _SYMBOLS.clear()
        found = _SYMBOLS[name] = sp.Symbol(name, real=True)
    return found


def float_number(value: float) -> sp.Float:
    """``sp.Float(value)`` of a finite Python float: its 53-bit value, made directly from
    the float's bits (the same object: ``_mpf_``, precision, hash and printing), without
    ``Float``'s parsing of every kind of input. Zero goes through ``sp.Float``.

    Example:
        >>> float_number(-1.019) == sp.Float(-1.019), sp.srepr(float_number(0.5))
        (True, "Float('0.5', precision=53)")
    """
    if value == 0.0 or not math.isfinite(value):
        return sp.Float(value)
    return sp.Float._new(from_float(value, 53, "n"), 53)  # type: ignore[attr-defined]


def scaled(left: Any, right: Any) -> Any:
    """``left * right``; a weight times a name (``1.287 * x``) is made directly.

    sympy's product of a new float and a symbol asks the float's assumptions (a fact
    base per new number), which is most of parsing a linear equation; the product it
    returns is ``Mul(number, symbol)``, and that is what is built here, the same object
    (equal, same hash, same printing). Zero and one (which sympy folds) and every other
    product go through sympy.

    Example:
        >>> x = sp.Symbol("x", real=True)
        >>> scaled(sp.Float(1.5), x) == sp.Float(1.5) * x, scaled(x, sp.Integer(1))
        (True, x)
    """
    number, symbol = (left, right) if right.is_Symbol else (right, left)
    if symbol.is_Symbol and (number.is_Float and math.isfinite(float(number))
                             and float(number) != 0.0
                             or number.is_Integer and int(number) not in (0, 1)):
        return sp.Mul._from_args((number, symbol))
    return left * right


def _term(value: Any) -> tuple[Any, Any] | None:
    """(coefficient, symbol) of ``symbol`` or ``Mul(number, symbol)``; else None."""
    if value.is_Symbol:
        return sp.S.One, value
    if value.is_Mul and len(value.args) == 2 and value.args[1].is_Symbol and \
            (value.args[0].is_Float or value.args[0].is_Integer):
        return value.args[0], value.args[1]
    return None


def negated(value: Any) -> Any:
    """``-value``; a name or a weighted name is negated without sympy's arithmetic (the
    same object as sympy's, see :func:`scaled`)."""
    term = _term(value) if isinstance(value, sp.Expr) else None
    if term is None or not term[0].is_finite:
        return -value
    coeff, symbol = term
    return scaled(-coeff, symbol) if coeff != -1 or coeff.is_Float else symbol


def summed(values: list[Any]) -> Any:
    """``Add(*values)``; a sum of distinct weighted names and at most one nonzero number
    is put together as sympy's ``Add.flatten`` would (terms in its canonical order, the
    number first) without its term collection, which asks each new number's assumptions.

    Example:
        >>> x, y = sp.Symbol("x", real=True), sp.Symbol("y", real=True)
        >>> summed([sp.Float(2.0) * y, x, sp.Integer(3)]) == sp.Add(2.0 * y, x, 3)
        True
    """
    from sympy.core.add import _addsort

    if len(values) < 2:
        return sp.Add(*values)
    terms, numbers, symbols = [], [], set()
    for value in values:
        if not isinstance(value, sp.Expr):
            return sp.Add(*values)
        if value.is_Float or value.is_Integer:
            numbers.append(value)
            continue
        term = _term(value)
        if term is None or term[1] in symbols or value.is_Mul and scaled(*term) != value:
            return sp.Add(*values)
        symbols.add(term[1])
        terms.append(value)
    if len(numbers) > 1 or (numbers and (float(numbers[0]) == 0.0 or
                                         not math.isfinite(float(numbers[0])))) or not terms:
        return sp.Add(*values)
    _addsort(terms)
    return sp.Add._from_args(numbers + terms) if len(numbers) + len(terms) > 1 else terms[0]


def _finite_number(value: Any) -> bool:
    """A rational, or a float that is finite (``-1.5``): real and within float64, so
    :func:`constant_issue` would pass it; its check (assumption queries) is skipped."""
    if isinstance(value, sp.Rational):  # |p / q| < 2**1000: far within float64
        return int(value.p).bit_length() < 1000 and int(value.q).bit_length() < 1000
    return isinstance(value, sp.Float) and math.isfinite(float(value))


def _symbolic_linear(value: Any) -> bool:
    """A sum or product of symbols and real numbers (``2.5*x``, ``x - 3*y + 1``) that
    names at least one symbol: :func:`constant_issue` has nothing to find in it (it is
    not a number, and it holds no ``I``), so the check of each such node is skipped.
    """
    if not isinstance(value, (sp.Add, sp.Mul)):
        return False
    named = False
    for arg in value.args:
        if arg.is_Mul and len(arg.args) == 2:
            arg, symbol = arg.args
            if not symbol.is_Symbol:
                return False
            named = True
        if arg.is_Symbol:
            named = True
        elif not (arg.is_Float or arg.is_Rational):
            return False
    return named


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def is_condition(value: Any) -> bool:
    """True for relations and logic (``x > 1``, ``a & b``), False for numeric expressions.

    (A sympy Symbol is also a ``Boolean`` subclass, hence the ``Expr`` check.)
    """
    return isinstance(value, sp.logic.boolalg.Boolean) and not isinstance(value, sp.Expr)


def _condition(value: Any) -> Any:
    if is_condition(value):
        return value
    return sp.Ne(value, 0)


def _describe(node: ast.AST) -> str:
    names = {"Attribute": "attribute access (a.b)", "Subscript": "indexing (a[i])",
             "Lambda": "a lambda", "Call": "this call", "JoinedStr": "an f-string",
             "List": "a list", "Tuple": "a tuple", "Dict": "a dict", "Set": "a set",
             "ListComp": "a comprehension", "GeneratorExp": "a generator",
             "NamedExpr": "an assignment (:=)", "Await": "await", "Starred": "*args"}
    return names.get(type(node).__name__, f"the syntax {type(node).__name__!r}")
