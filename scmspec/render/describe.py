"""Describe a compiled variable for people: its effective role, mechanism family and math.

The figure and the catalogue both read a :class:`~scmspec.compiler.pipeline.CompiledCard`
(the resolved spec), never the raw YAML, so what they show is the graph and the
equations the sampler runs. Mechanisms are shown three ways: a family tag (the
same classifier the ``mechanism_mix`` gate uses), a plain text form (the plan's
canonical step text) and presentation MathML for the HTML catalogue, printed by
sympy and readable offline in any current browser (no MathJax, no network).
"""

from __future__ import annotations

import html
import re
from typing import Any

import sympy as sp
from sympy.printing.mathml import MathMLPresentationPrinter

from scmspec.compiler.kinds.functions import FUNCTIONS
from scmspec.compiler.pipeline import CompiledCard
from scmspec.compiler.spec import VariableSpec
from scmspec.validators.mechanisms import classify

_RANDOM = frozenset(name for name, e in FUNCTIONS.items() if e.random)
_DIMENSIONLESS = frozenset({"", "1", "dimensionless"})


def effective_role(spec: VariableSpec) -> str:
    """The role to draw: a variable with a distribution left at the default role is a root.

    Example:
        >>> from scmspec.compiler.spec import VariableSpec
        >>> effective_role(VariableSpec(meaning="m", distribution={"kind": "normal"}))
        'root'
        >>> effective_role(VariableSpec(meaning="m", equation="1", role="flag"))
        'flag'
    """
    if spec.distribution is not None and spec.role == "process":
        return "root"
    return spec.role


def unit_text(spec: VariableSpec) -> str:
    """The unit as shown under a name: powers as superscripts, empty when dimensionless.

    Example:
        >>> from scmspec.compiler.spec import VariableSpec
        >>> unit_text(VariableSpec(meaning="m", unit="ug/m**3", distribution={"kind": "normal"}))
        'ug/m³'
        >>> unit_text(VariableSpec(meaning="m", unit="m * s**-2", distribution={"kind": "normal"}))
        'm·s⁻²'
    """
    unit = spec.unit.strip()
    if unit in _DIMENSIONLESS:
        return ""
    unit = re.sub(r"\s*\*\*\s*\(?(-?\d+)\)?", lambda m: m.group(1).translate(_SUPERSCRIPT), unit)
    return re.sub(r"\s*\*\s*", "·", unit)


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def mechanism_family(compiled: CompiledCard, name: str) -> str:
    """The mechanism family tag of a variable (``root`` for variables with a distribution).

    Example:
        >>> import scmspec
        >>> scm = scmspec.compile_text('''
        ... id: d
        ... title: d
        ... family: semantic
        ... domain: d
        ... variables:
        ...   x: {meaning: m, distribution: {kind: normal}}
        ...   y: {meaning: m, equation: exp(x)}
        ... edges: [{from: x, to: y, reason: r}]
        ... ''')
        >>> mechanism_family(scm.compiled, "x"), mechanism_family(scm.compiled, "y")
        ('root', 'exp_log')
    """
    spec = compiled.card.variables[name]
    if spec.distribution is not None:
        return "root"
    if spec.mechanism is not None:
        return str(spec.mechanism.family)
    return classify(compiled.resolved.equations[name], compiled.resolved.parents[name])


def mechanism_text(compiled: CompiledCard, name: str) -> str:
    """A plain text form: ``~ normal(...)`` for roots, ``expr + noise`` for the rest."""
    step = compiled.plan.step(name)
    noise = compiled.card.variables[name].noise
    if noise.kind == "none":
        return step.text
    args = ", ".join(f"{k}={v}" for k, v in noise.model_dump(exclude={"kind", "mode"}).items())
    term = f"{noise.kind}({args})"
    if noise.mode == "multiplicative":
        return f"({step.text}) * (1 + {term})"
    return f"{step.text} + {term}"


WRAP_AT = 48  # equations whose text is longer are split into terms a browser can wrap


def mechanism_mathml(compiled: CompiledCard, name: str) -> str:
    """``name = expression`` as MathML (``<code>`` text for non-equations).

    A short equation is one ``<math>`` element. A long one is a run of ``<math>`` elements in
    ``<span class="term">`` boxes, one per top-level term (``lhs = t1``, ``+ t2``, ...),
    separated by spaces: MathML has no line breaking, so this is what lets a browser wrap a
    long sum instead of running it past the page (the catalogue's CSS scrolls a single
    term that is still too wide, a long fraction say, inside its own box). The first element
    carries the whole equation as ``alttext``.
    """
    spec = compiled.card.variables[name]
    text = mechanism_text(compiled, name)
    expr = _expression(compiled, name)
    if expr is None:
        return f"<code>{html.escape(text)}</code>"
    lhs = f"<mi>{html.escape(name)}</mi><mo>=</mo>"
    alt = html.escape(f"{name} = {text}", quote=True)
    noise = _noise_mathml(spec)
    if spec.noise.kind != "none" and spec.noise.mode == "multiplicative":
        terms = [f"<mrow><mo>(</mo>{to_mathml(expr)}<mo>)</mo></mrow><mo>&#x22C5;</mo>"
                 f"<mrow><mo>(</mo><mn>1</mn><mo>+</mo>{noise}<mo>)</mo></mrow>"]
    else:
        terms = _terms(expr) if len(text) > WRAP_AT else [to_mathml(expr)]
        if spec.noise.kind != "none":
            terms.append(f"<mo>+</mo>{noise}")
    if len(text) <= WRAP_AT:
        return f'<math display="inline" alttext="{alt}"><mrow>{lhs}{"".join(terms)}</mrow></math>'
    pieces = [f'<math display="inline" alttext="{alt}"><mrow>{lhs}{terms[0]}</mrow></math>']
    pieces += [f'<math display="inline"><mrow>{t}</mrow></math>' for t in terms[1:]]
    return '<span class="eq">' + " ".join(f'<span class="term">{p}</span>'
                                          for p in pieces) + "</span>"


LONG_TERM = 80  # a term whose text is longer is itself split (fractions, products)


def _terms(expr: sp.Basic) -> list[str]:
    """The pieces of a long right-hand side as MathML: one per top-level term of a sum, each
    after the first with its sign, and a long term split further (:func:`_long_term`)."""
    if not isinstance(expr, sp.Add):
        return _long_term(expr)
    out = []
    for k, term in enumerate(expr.as_ordered_terms(order="lex")):
        negative = term.could_extract_minus_sign()
        parts = _long_term(-term if negative else term)
        sign = "<mo>&#x2212;</mo>" if negative else ("" if k == 0 else "<mo>+</mo>")
        out += [sign + parts[0], *parts[1:]]
    return out


def _long_term(term: sp.Basic) -> list[str]:
    """A short term whole; a long quotient as ``( numerator ) / ( denominator )`` written
    linearly, each split into its terms or factors; a long product into its factors; a power
    of a long base (a square root too) as its base's pieces in parentheses."""
    if len(str(term)) <= LONG_TERM:
        return [to_mathml(term)]
    if isinstance(term, sp.Pow) and term.exp.is_positive and len(str(term.base)) > LONG_TERM:
        inner = _group(term.base)
        if term.exp == sp.Rational(1, 2):
            inner[0], inner[-1] = "<mo>&#x221A;</mo><mo>(</mo>" + inner[0], inner[-1] + "<mo>)</mo>"
        else:
            inner[0] = "<mo>(</mo>" + inner[0]
            inner[-1] += f"<msup><mo>)</mo>{to_mathml(term.exp)}</msup>"
        return inner
    num, den = sp.fraction(term)
    if den == 1:
        return _factors(term) if isinstance(term, sp.Mul) else [to_mathml(term)]
    top, bottom = _group(num), _group(den)
    top[0], top[-1] = "<mo>(</mo>" + top[0], top[-1] + "<mo>)</mo>"
    bottom[0], bottom[-1] = "<mo>/</mo><mo>(</mo>" + bottom[0], bottom[-1] + "<mo>)</mo>"
    return top + bottom


def _group(expr: sp.Basic) -> list[str]:
    if isinstance(expr, sp.Add):
        return _terms(expr)
    return _factors(expr) if isinstance(expr, sp.Mul) else [to_mathml(expr)]


def _factors(expr: sp.Basic) -> list[str]:
    """The factors of a product, each after the first with a product sign; a sum among them
    in parentheses (printed alone it would lose them); a long factor split further."""
    out = []
    for k, factor in enumerate(expr.as_ordered_factors()):
        parts = _terms(factor) if isinstance(factor, sp.Add) else _long_term(factor)
        if isinstance(factor, sp.Add):
            parts[0], parts[-1] = "<mo>(</mo>" + parts[0], parts[-1] + "<mo>)</mo>"
        out += [parts[0] if k == 0 else f"<mo>&#x22C5;</mo>{parts[0]}", *parts[1:]]
    return out


def _noise_mathml(spec: VariableSpec) -> str:
    return f"<msub><mi>&#x3B5;</mi><mi>{html.escape(spec.noise.kind)}</mi></msub>"


def _expression(compiled: CompiledCard, name: str) -> sp.Basic | None:
    spec = compiled.card.variables[name]
    if spec.equation is not None:
        return _hide_sites(compiled.resolved.equations[name])
    if spec.mechanism is not None and spec.mechanism.kind == "linear":
        terms = [sp.Float(w) * sp.Symbol(p, real=True) for p, w in spec.mechanism.weights.items()]
        return sp.Add(sp.Float(spec.mechanism.bias), *terms, evaluate=False) \
            if spec.mechanism.bias else sp.Add(*terms)
    return None


def _hide_sites(expr: sp.Basic) -> sp.Basic:
    """Drop the trailing site index of random draws: ``bernoulli(p, 0)`` reads ``bernoulli(p)``."""
    return expr.replace(
        lambda n: getattr(n.func, "__name__", "") in _RANDOM and bool(n.args)
        and n.args[-1].is_Integer,
        lambda n: sp.Function(n.func.__name__)(*n.args[:-1]))


class _Printer(MathMLPresentationPrinter):  # type: ignore[misc]
    """Sympy's presentation printer, with cases for ``Piecewise`` and whole-word names.

    Sympy would print ``smoking_rate`` as *smoking* with subscript *rate*, and
    ``Piecewise`` as a function call; a card's names are identifiers, and a
    piecewise mechanism reads best as cases.
    """

    def _print_Symbol(self, sym: sp.Symbol, style: str = "plain") -> Any:  # noqa: N802
        mi = self.dom.createElement("mi")
        mi.appendChild(self.dom.createTextNode(sym.name))
        return mi

    def _print_Piecewise(self, expr: sp.Piecewise) -> Any:  # noqa: N802
        table = self.dom.createElement("mtable")
        table.setAttribute("columnalign", "left")
        for value, cond in expr.args:
            row = self.dom.createElement("mtr")
            left, right = self.dom.createElement("mtd"), self.dom.createElement("mtd")
            left.appendChild(self._print(value))
            right.appendChild(self._word("otherwise" if cond is sp.true else "if "))
            if cond is not sp.true:
                right.appendChild(self._print(cond))
            row.appendChild(left)
            row.appendChild(right)
            table.appendChild(row)
        brace = self.dom.createElement("mo")
        brace.appendChild(self.dom.createTextNode("{"))
        mrow = self.dom.createElement("mrow")
        mrow.appendChild(brace)
        mrow.appendChild(table)
        return mrow

    def _word(self, text: str) -> Any:
        node = self.dom.createElement("mtext")
        node.appendChild(self.dom.createTextNode(text.replace(" ", "\u00a0")))
        return node


def to_mathml(expr: sp.Basic) -> str:
    """Presentation MathML (without the ``<math>`` wrapper) of a sympy expression.

    Example:
        >>> x = sp.Symbol("smoking_rate", real=True)
        >>> to_mathml(2 * x)
        '<mrow><mn>2</mn><mo>&#x22C5;</mo><mi>smoking_rate</mi></mrow>'
    """
    text = _Printer({"order": "lex"}).doprint(expr)
    # Card names are words, so `0.5 dose_mg` needs a visible product sign; and named entities
    # are not all defined in HTML, so write code points.
    return re.sub(r"&(InvisibleTimes|ExponentialE|ImaginaryI|PartialDifferential);",
                  lambda m: _ENTITIES[m.group(1)], text)


_ENTITIES = {"InvisibleTimes": "&#x22C5;", "ExponentialE": "e", "ImaginaryI": "i",
             "PartialDifferential": "&#x2202;"}
