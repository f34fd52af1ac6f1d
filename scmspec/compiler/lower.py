"""Stage 5, lower: ResolvedCard -> executable :class:`~scmspec.compiler.plan.Plan`.

Takes a resolved (and unit-checked) card; hands on a Plan whose steps are
vectorised numpy callables. Constants are substituted by their values; each
random-draw call site becomes an inverse-CDF transform of its own exogenous
uniform; each equation is lambdified once (and cached by expression, since
pools repeat expressions). ``sympy.lambdify`` is used only here.
Invariant established: every step evaluates on arrays of any length n.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import sympy as sp
from sympy.logic.boolalg import ITE, simplify_logic
from sympy.printing.numpy import NumPyPrinter

from scmspec.compiler.kinds.functions import FUNCTIONS
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
        handler = spec.intervention.handler if spec.intervention else None
        level = getattr(handler, "value", None)
        if handler is not None and isinstance(level, str):
            handler = handler.model_copy(update={"value": float(resolved.level_codes[name][level])})
        common = dict(name=name, parents=resolved.parents[name], kind=spec.kind,
                      handler=handler, observed=spec.observed,
                      allowed=allowed_values(card, resolved.level_codes, name))
        if spec.distribution is not None:
            steps.append(Step(root=spec.distribution, block=block_of.get(name),
                              affine=affine.get(name), text=_describe_root(spec.distribution),
                              **common))  # type: ignore[arg-type]
            continue
        if spec.mechanism is not None:
            steps.append(Step(evaluate=spec.mechanism.lower(resolved.parents[name]),  # type: ignore[arg-type]
                              noise=spec.noise, text=_describe_root(spec.mechanism).lstrip("~ "),
                              **common))  # type: ignore[arg-type]
            continue
        span = smap.nearest(("variables", name, "equation")) if smap else None
        expr = _real(resolved.equations[name], constants, f"the equation of {name!r}", span,
                     bag, f"variables.{name}.equation")
        fn = _compiled(expr, resolved.parents[name], resolved.random_sites.get(name, 0),
                       f"the equation of {name!r}", span, bag, f"variables.{name}.equation")
        steps.append(Step(evaluate=fn, noise=spec.noise, sites=resolved.random_sites.get(name, 0),
                          text=canonical(resolved.equations[name]), span=span,
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
    bag.raise_if_any(LowerError)
    columns = tuple(v for v, s in card.variables.items() if s.observed)
    return Plan(card.id, tuple(steps), blocks, resolved.targets, card.interventions.per_row,
                selection, sel_inputs, columns)


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
    if _float_in_float_out(expr):
        return raw  # the sampler calls this once per node

    def evaluate(*arrays: np.ndarray) -> np.ndarray:
        # Piecewise/sign/floor with integer branches may come back as int or bool arrays.
        return np.asarray(raw(*arrays), dtype=float)

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
                              "cosh", "tanh", "Abs", "sigmoid", "softplus"})


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
