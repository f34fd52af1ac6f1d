"""Stage 5, lower: ResolvedCard -> executable :class:`~scmspec.compiler.plan.Plan`.

Takes a resolved (and unit-checked) card; hands on a Plan whose steps are
vectorised numpy callables. Constants are substituted by their values; each
random-draw call site becomes an inverse-CDF transform of its own exogenous
uniform; each equation is lambdified once (and cached by expression, since
pools repeat expressions). ``sympy.lambdify`` is used only here.
Invariant established: every step evaluates on arrays of any length n.
"""

from __future__ import annotations

from functools import lru_cache, partial

import numpy as np
import sympy as sp
from sympy.logic.boolalg import ITE, simplify_logic
from sympy.printing.numpy import NumPyPrinter

from scmspec.compiler.kinds.functions import FUNCTIONS
from scmspec.compiler.kinds.interventions import HandlerBase
from scmspec.compiler.kinds.noise_base import NoiseBase, ScaledNoise
from scmspec.compiler.load import SourceMap
from scmspec.compiler.numbers import substitute
from scmspec.compiler.plan import Block, Evaluate, Plan, Step
from scmspec.compiler.resolve import ResolvedCard, allowed_values
from scmspec.errors import DiagnosticBag, LowerError, Span

_NUMPY_FUNCS = {name: e.numpy for name, e in FUNCTIONS.items() if e.numpy is not None}
_RANDOM = {name for name, e in FUNCTIONS.items() if e.random}
# What lambdify gives its default printer: our functions by their own names.
_PRINTER_SETTINGS = {"fully_qualified_modules": False, "inline": True,
                     "allow_unknown_functions": True,
                     "user_functions": {k: k for k in _NUMPY_FUNCS}}


def lower(resolved: ResolvedCard, smap: SourceMap | None = None) -> Plan:
    """Build the executable plan of a resolved card.

    Example:
        >>> from scmspec.compiler.spec import Card
        >>> from scmspec.compiler.resolve import resolve
        >>> card = Card.model_validate({"id": "a", "title": "t", "family": "semantic",
        ...     "domain": "d", "variables": {
        ...     "x": {"meaning": "m", "distribution": {"kind": "normal"}},
        ...     "y": {"meaning": "m", "equation": "2 * x + 1"}},
        ...     "edges": [{"from": "x", "to": "y", "reason": "r"}]})
        >>> plan = lower(resolve(card, SourceMap("a.yaml")))
        >>> plan.step("y").evaluate(np.array([1.0, 2.0]))
        array([3., 5.])
    """
    card = resolved.card
    constants = {sp.Symbol(k, real=True): sp.Float(c.value) for k, c in card.constants.items()}
    block_of = {v: i for i, b in enumerate(card.root_blocks) for v in b.variables}
    affine = {v: (b.loc[j], b.scale[j]) for b in card.root_blocks if b.loc and b.scale
              for j, v in enumerate(b.variables)}
    steps = []
    bag = DiagnosticBag()
    for name in resolved.order:
        spec = card.variables[name]
        handler, named = _handlers(resolved, name)
        valued = spec.level_values is not None or bool(spec.base)
        common = dict(name=name, parents=resolved.parents[name], kind=spec.kind,
                      handler=handler, handlers=named, observed=spec.observed,
                      allowed=allowed_values(card, resolved.level_codes, name),
                      level_values=tuple(float(v) for v in resolved.level_codes[name].values())
                      if valued else None)
        if spec.value is not None:  # a policy knob: pinned unless intervened on
            value = resolved.level_codes[name][spec.value] if isinstance(spec.value, str) \
                else spec.value
            steps.append(Step(constant=float(value), text_source=f"knob {spec.value!r}",
                              **common))  # type: ignore[arg-type]
            continue
        if spec.distribution is not None:
            steps.append(Step(root=spec.distribution, block=block_of.get(name),
                              affine=affine.get(name),
                              text_source=_describe_root(spec.distribution),
                              **common))  # type: ignore[arg-type]
            continue
        noise = _noise(resolved, name, constants, smap, bag)
        if spec.mechanism is not None:
            steps.append(Step(evaluate=spec.mechanism.lower(resolved.parents[name]),  # type: ignore[arg-type]
                              noise=noise,
                              text_source=_describe_root(spec.mechanism).lstrip("~ "),
                              **common))  # type: ignore[arg-type]
            continue
        span = smap.nearest(("variables", name, "equation")) if smap else None
        equation = resolved.equations[name]
        fn = linear_evaluate(equation, resolved.parents[name])
        if fn is None:
            expr = _real(equation, constants, f"the equation of {name!r}", span,
                         bag, f"variables.{name}.equation")
            fn = _compiled(expr, resolved.parents[name], resolved.random_sites.get(name, 0),
                           f"the equation of {name!r}", span, bag, f"variables.{name}.equation")
        steps.append(Step(evaluate=fn, noise=noise, sites=resolved.random_sites.get(name, 0),
                          text_source=partial(canonical, equation), span=span,
                          **common))  # type: ignore[arg-type]
    blocks = tuple(Block(tuple(b.variables), None if b.correlation is None else
                         np.linalg.cholesky(np.asarray(b.correlation)), b.kind)
                   for b in card.root_blocks)
    selection, sel_inputs = None, ()
    if resolved.selection is not None:
        sel = _real(resolved.selection, constants, "the selection condition",
                    smap.nearest(("selection", "condition")) if smap else None, bag,
                    "selection.condition")
        sel_inputs = tuple(sorted(s.name for s in sel.free_symbols))
        selection = _compiled(sel, sel_inputs, 0, "the selection condition",
                              smap.nearest(("selection", "condition")) if smap else None, bag,
                              "selection.condition")
    missing = []
    for name, cond in resolved.observed_if.items():
        span = smap.nearest(("variables", name, "observed_if")) if smap else None
        what, where = f"the observed_if condition of {name!r}", f"variables.{name}.observed_if"
        expr = _real(cond, constants, what, span, bag, where)
        inputs = tuple(sorted(s.name for s in expr.free_symbols))
        missing.append((name, _compiled(expr, inputs, 0, what, span, bag, where), inputs))
    bag.raise_if_any(LowerError)
    columns = tuple(v for v, s in card.variables.items() if s.observed)
    return Plan(card.id, tuple(steps), blocks, resolved.targets, card.interventions.per_row,
                selection, sel_inputs, columns, tuple(missing))


def _noise(resolved: ResolvedCard, name: str, constants: dict[sp.Symbol, sp.Float],
           smap: SourceMap | None, bag: DiagnosticBag) -> NoiseBase:
    """The variable's noise; a scale written as an expression becomes a ScaledNoise (the
    card's kind at scale 1, times the expression evaluated on the parents)."""
    noise = resolved.card.variables[name].noise
    if name not in resolved.noise_scales:
        return noise
    field, expr = resolved.noise_scales[name]
    loc = ("variables", name, "noise", field)
    span = smap.nearest(loc) if smap else None
    what, where = f"the noise {field} of {name!r}", ".".join(loc)
    expr = _real(expr, constants, what, span, bag, where)
    inputs = resolved.parents[name]
    return ScaledNoise(kind=noise.kind, mode=noise.mode, base=noise.model_copy(
        update={field: 1.0}), scale=_compiled(expr, inputs, 0, what, span, bag, where),
        inputs=inputs, variable=name, text=noise.scale_expression() or "", span=span)


def _handlers(resolved: ResolvedCard, name: str
              ) -> tuple[HandlerBase | None, tuple[tuple[str, HandlerBase], ...]]:
    """The variable's default handler and, when it has named ones, those the protocol uses.

    Level names in do() become codes. A single ``handler:`` gives no named tuple, so a
    card written before named handlers existed lowers (and samples) exactly as before.
    """
    spec = resolved.card.variables[name]
    if spec.intervention is None:
        return None, ()
    named = {}
    for hname, handler in spec.intervention.named_handlers().items():
        level = getattr(handler, "value", None)
        if isinstance(level, str):
            handler = handler.model_copy(update={"value": float(
                resolved.level_codes[name][level])})
        named[hname] = handler
    chosen = (resolved.card.interventions.handlers or {}).get(name) or list(named)
    first = named[chosen[0]]
    if spec.intervention.handlers is None:
        return first, ()
    return first, tuple((h, named[h]) for h in chosen)


def _real(expr: sp.Basic, constants: dict[sp.Symbol, sp.Float], what: str, span: Span | None,
          bag: DiagnosticBag, field: str) -> sp.Basic:
    """``expr`` with constants substituted, when every constant part of it is a real float64
    number; else reported.

    Constants are substituted only now, so ``sqrt(k)`` with ``k: {value: -4}`` first
    becomes ``2.0*I`` here; numpy would drop the imaginary part with a warning, or fail.
    Reported as SCM302 (the expression is not valid), located at the equation; a
    harmless zero stands in so the other equations are still checked.
    """
    expr, problem = substitute(expr, constants)
    if problem is None:
        return expr
    part, why = problem
    bag.add("SCM302", f"once constants are substituted, '{sp.sstr(part)[:80]}' in {what} "
            f"{why}", span, "check the constants it names: their values make a constant part "
            "that is not a real, finite number", field)
    return sp.Integer(0)


def _compiled(expr: sp.Basic, parents: tuple[str, ...], sites: int, what: str,
              span: Span | None, bag: DiagnosticBag, field: str) -> Evaluate:
    """``lambdify_expression``, with generated code Python cannot compile reported (SCM302).

    The card language bounds nesting, but the printed numpy code nests deeper than the
    expression (each call and power adds parentheses); Python's parser and compiler
    refuse code nested a few hundred deep.
    """
    try:
        return lambdify_expression(expr, parents, sites)
    except (SyntaxError, RecursionError, MemoryError) as exc:
        bag.add("SCM302", f"{what} is nested too deeply to compile to numpy "
                f"({type(exc).__name__}: {getattr(exc, 'msg', exc)})", span,
                "split it over helper variables or lets with fewer nested calls", field)
        return lambda *arrays: np.zeros(len(arrays[0]) if arrays else 1)


def linear_evaluate(expr: sp.Basic, parents: tuple[str, ...]) -> Evaluate | None:
    """The evaluator of a linear equation over parents, built without sympy's printer, or
    None when ``expr`` is not one.

    Linear means a sum of terms ``c * parent`` (``c`` an integer, a rational or a float,
    each parent once) plus an optional number; constants, lets already substituted, draws
    and functions are not linear here and go through :func:`lambdify_expression`. The
    evaluator does the arithmetic of the code ``lambdify`` would print, in its order:
    terms as the printer orders them (by argument name ``_p<i>``, the number last, except that a
    positive number and one negative term print as ``number - |c|*x``), each coefficient
    the value of its printed digits (15 significant for a float), a negative term
    subtracted. So it returns the same bits, without printing, parsing and compiling
    Python source for every equation (most of a linear card's build).

    Example:
        >>> x, y = sp.Symbol("x", real=True), sp.Symbol("y", real=True)
        >>> f = linear_evaluate(sp.Float(1.5) * y - 2 * x + 1, ("x", "y"))
        >>> f(np.array([1.0]), np.array([2.0]))
        array([2.])
        >>> linear_evaluate(sp.exp(x), ("x",)) is None
        True
    """
    args = expr.args if expr.is_Add else (expr,)
    index = {p: i for i, p in enumerate(parents)}
    terms: list[tuple[str, int, float | int | None]] = []
    offset: float | int | None = None
    for term in args:
        if term.is_Number:
            if offset is not None or term.is_zero:
                return None
            offset = _printed_number(term)
            if offset is None:
                return None
            continue
        if term.is_Symbol:
            coeff, symbol = None, term
        elif term.is_Mul and len(term.args) == 2 and term.args[0].is_Number \
                and term.args[1].is_Symbol:
            coeff, symbol = _printed_number(term.args[0]), term.args[1]
            if coeff is None or coeff == 0:
                return None
        else:
            return None
        if symbol.name not in index:
            return None
        terms.append((symbol.name, index[symbol.name], coeff))
    if not terms or (len(terms) == 1 and terms[0][2] is None and offset is None) \
            or len({t[0] for t in terms}) != len(terms):
        return None  # a bare parent (lambdify returns the parent's own array); repeats
    # The printer's (lex) order, by symbol name, of the code lambdify_expression prints:
    # parents renamed _p0, _p1, ... (so _p10 sorts before _p2).
    terms.sort(key=lambda t: f"_p{t[1]}")
    return _LinearEvaluate(tuple((i, c) for _, i, c in terms), offset)


def _printed_number(number: sp.Basic) -> float | int | None:
    """The Python value of a number as lambdify prints it into code, or None (not handled).

    A float prints with the 15 significant digits of its 53-bit precision (so
    ``0.1234567890123456789`` computes as ``0.123456789012346``); an integer as itself; a
    rational ``p/q`` as ``(p/q)``, which Python divides exactly rounded.
    """
    if number.is_Integer:
        value = int(number)
        return value if abs(value) < 2**53 else None
    if number.is_Float:
        if number._prec != 53:  # type: ignore[attr-defined]
            return None
        from mpmath.libmp import to_str

        return float(to_str(number._mpf_, 15))  # type: ignore[attr-defined]
    if number.is_Rational:
        p, q = int(number.p), int(number.q)  # type: ignore[attr-defined]
        return p / q if abs(p) < 2**53 and abs(q) < 2**53 else None
    return None


class _LinearEvaluate:
    """``c0 * p0 + c1 * p1 + ... + offset`` in the order and rounding of lambdify's code.

    ``None`` as a coefficient is a bare ``+parent``; a negative coefficient is printed (and
    so computed) as the subtraction of ``|c| * parent``, a first one as ``(-|c|) * parent``.
    """

    __slots__ = ("terms", "offset")

    def __init__(self, terms: tuple[tuple[int, float | int | None], ...],
                 offset: float | int | None) -> None:
        self.terms, self.offset = terms, offset

    def __call__(self, *arrays: np.ndarray) -> np.ndarray:
        (i, c), rest = self.terms[0], self.terms[1:]
        x = arrays[i]
        if not rest and self.offset is not None and self.offset > 0 and c is not None \
                and c < 0:  # sympy prints number + (negative) * x as "number - |c|*x"
            return self.offset - (x if c == -1 and isinstance(c, int) else abs(c) * x)
        out = (+x if c is None else -x if c == -1 and isinstance(c, int) else c * x)
        # In place once ``out`` is a float64 array of its own: the same operations, in the
        # same order, as ``a + b + c``; anything else (a scalar, integer codes) as Python
        # would evaluate the printed code, one new value per operation.
        inplace = isinstance(out, np.ndarray) and out.dtype == np.float64 and out is not x
        for i, c in rest:
            x = arrays[i]
            term = x if c is None or (c == -1 and isinstance(c, int)) else abs(c) * x
            if c is not None and c < 0:
                if inplace:
                    out -= term
                else:
                    out = out - term
            elif inplace:
                out += term
            else:
                out = out + term
            inplace = isinstance(out, np.ndarray) and out.dtype == np.float64
        if self.offset is not None:
            if self.offset < 0:
                out = out - abs(self.offset) if not inplace else np.subtract(
                    out, abs(self.offset), out=out)
            else:
                out = out + self.offset if not inplace else np.add(out, self.offset, out=out)
        return out


@lru_cache(maxsize=8192)  # printing is a third of lowering; pools repeat their mechanisms
def canonical(expr: sp.Basic) -> str:
    """A stable, readable text of an equation (random-draw site indices hidden)."""
    return sp.sstr(_hide_sites(expr), order="lex")


def _describe_root(dist: object) -> str:
    fields = dist.model_dump(exclude={"kind"})  # type: ignore[attr-defined]
    args = ", ".join(f"{k}={v}" for k, v in fields.items())
    return f"~ {dist.kind}({args})"  # type: ignore[attr-defined]


@lru_cache(maxsize=4096)
def lambdify_expression(expr: sp.Basic, parents: tuple[str, ...], sites: int) -> Evaluate:
    """Compile an expression into f(*parents, *site_uniforms) -> float array (given float arrays).

    Cached on the (hashable, structurally compared) sympy expression, so
    identical mechanisms across a pool share one compiled function.
    """
    if expr.is_number:
        value = float(expr)
        return lambda *arrays: np.full(len(arrays[0]) if arrays else 1, value)
    uniforms = [sp.Symbol(f"_u{k}", real=True) for k in range(sites)]
    expr = _bind_random_sites(expr, uniforms)
    # Internal argument names: a variable named like a numpy helper the generated code
    # calls (select, greater, mod, ...) would otherwise shadow it. Card names cannot
    # start with '_', so these cannot clash.
    safe = [sp.Symbol(f"_p{i}", real=True) for i in range(len(parents))]
    expr = expr.xreplace({sp.Symbol(p, real=True): a for p, a in zip(parents, safe)})
    args = safe + uniforms
    raw = sp.lambdify(args, expr, modules=[_NUMPY_FUNCS, "numpy"], cse=False, docstring_limit=0,
                      printer=_WherePrinter(_PRINTER_SETTINGS))
    if expr.has(sp.Piecewise):
        return _quiet_branches(raw, as_float=not _float_in_float_out(expr))
    if _float_in_float_out(expr):
        return raw  # the sampler calls this once per node

    def evaluate(*arrays: np.ndarray) -> np.ndarray:
        # Piecewise/sign/floor with integer branches may come back as int or bool arrays.
        return np.asarray(raw(*arrays), dtype=float)

    return evaluate


def _quiet_branches(raw: Evaluate, as_float: bool) -> Evaluate:
    """``raw`` evaluated with numpy's invalid/divide warnings off.

    ``numpy.where`` computes every branch on every row and then picks: a degree-day
    formula's arcsin(...) branch is NaN on the rows where another branch is taken, and
    numpy would print "invalid value encountered in arcsin" to a user whose card is
    right. A NaN or infinity on a row where its branch *is* taken reaches the output,
    where the ``finite`` gate names the variable and the rows.
    """
    def evaluate(*arrays: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            out = raw(*arrays)
        return np.asarray(out, dtype=float) if as_float else out  # type: ignore[no-any-return]

    return evaluate


MAX_WHERE_PIECES = 32  # longer Piecewise chains are printed as one numpy.select


class _WherePrinter(NumPyPrinter):
    """NumPy code with ``Piecewise`` as nested ``numpy.where`` rather than ``numpy.select``.

    Both pick, row by row, the first piece whose condition holds, from the same
    computed branches, so the values are the same bits; ``where`` skips ``select``'s
    list handling and broadcasting (about 4 against 31 us per call on 1000 rows), and
    thresholds, regimes and indicators are everywhere in cards.
    """

    def _print_Piecewise(self, expr: sp.Piecewise) -> str:
        if len(expr.args) > MAX_WHERE_PIECES:
            # k pieces nest k numpy.where calls, and Python's parser refuses code nested
            # about 200 deep ("too many nested parentheses"); select is flat.
            return str(super()._print_Piecewise(expr))
        where = self._module_format(self._module + ".where")
        out = self._print(sp.nan)  # no piece holds: NaN, as select's default
        for piece in reversed(expr.args):
            value = self._print(piece.expr)
            cond = piece.cond
            if cond == sp.true:
                out = value
                continue
            if cond.has(ITE):  # as NumPyPrinter does: an if-then-else inside a condition
                cond = simplify_logic(cond)
            out = f"{where}({self._print(cond)}, {value}, {out})"
        return out


# Expression nodes whose numpy lowering maps float64 arrays to float64 arrays. An
# expression built only from these, with at least one symbol (numbers are handled
# above), needs no np.asarray(..., dtype=float) guard: the guard would return the
# very same array, so skipping it changes no value and saves a call per node.
_FLOAT_ATOMS = (sp.Symbol, sp.Rational, sp.Float, sp.NumberSymbol, sp.Add, sp.Mul, sp.Pow)
_FLOAT_FUNCTIONS = frozenset({"exp", "log", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
                              "asinh", "cosh", "tanh", "Abs", "sigmoid", "softplus"})


def _float_in_float_out(expr: sp.Basic) -> bool:
    return all(isinstance(node, _FLOAT_ATOMS)
               or (isinstance(node, sp.Function) and node.func.__name__ in _FLOAT_FUNCTIONS)
               for node in sp.preorder_traversal(expr))


def _bind_random_sites(expr: sp.Basic, uniforms: list[sp.Symbol]) -> sp.Basic:
    """Replace each draw ``f(args..., site)`` by ``f(args..., uniform_of_site)``."""
    return expr.replace(_is_site, lambda n: sp.Function(n.func.__name__)(
        *n.args[:-1], uniforms[int(n.args[-1])]))


def _hide_sites(expr: sp.Basic) -> sp.Basic:
    return expr.replace(_is_site, lambda n: sp.Function(n.func.__name__)(*n.args[:-1]))


def _is_site(node: sp.Basic) -> bool:
    return (getattr(node.func, "__name__", "") in _RANDOM and bool(node.args)
            and node.args[-1].is_Integer)
