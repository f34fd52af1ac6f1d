"""The library's composition, read the way CausalArena reports its pools (its Figure 18).

CausalArena labels each edge with the mechanism family of the dependency it writes down
and reports *edge shares*; its noise bars are *node shares* of the extra noise a node
carries. A card here has no per-edge label, so each edge takes its child's mechanism
category, read from the child's equation (:mod:`scmspec.validators.mechanisms`), its
declared kind and its role, by the first rule that applies:

=====================  =============================================================
category               rule (the paper's label)
=====================  =============================================================
event_count            a random draw in the equation: a Poisson, binomial or Bernoulli
                       event at a parent-dependent rate ("Event/count"); a count or flag
                       computed by a rule (indicator, floor) is a cutoff, not an event
ordinal_categorical    an ordinal or categorical variable computed by a rule
measurement_error      a measurement/readout role copying one parent plus noise
calibration_offset     a measurement/readout role affine in its parents (gain, offset,
                       an estimated offset or drift as a parent; checked before stock_flow,
                       whose sum form a reading plus an offset shares)
stock_flow             stock + inflow - outflow (the ``accumulation`` family); in a
                       formula card, whose taxonomy has no stock-flow label, such a
                       sum (a lapse rate from a reference level, a balance of
                       terms) is linear_affine
explicit_equation      a formula-role node composing several operations (a ratio of
                       exponentials, a power of a ratio, a cut of a law)
physical_law           a formula-role node with one nonlinear operation over two or more
                       quantities (a product, ratio, power or exponential law); or a
                       noise-free power, exponential or periodic law outside formula role
regime_switch          a piecewise rule with two or more parent-dependent branches
threshold              any other cutoff: piecewise, where, step, floor, sign ("Cutoff")
clamp_minmax           min/max of a parent
sigmoid_index          a generic bounded sigmoid (a + b * sigmoid(affine))
saturating_response    any other saturating response (tanh, softplus, a sigmoid core)
ratio_normalization    a ratio of parent-dependent terms
product                a product of parent-dependent terms
exp_log                exp or log of a parent
power_law              a parent-dependent power
trig_periodic          sin, cos and relatives
linear_affine          any other affine combination of parents
other                  anything else (a copy without noise, a constant)
=====================  =============================================================

Noise categories are read per non-root node from its noise kind, or from the random draw
in its equation, by the draw's family as Figure 18 labels them (a Bernoulli draw is
Bernoulli noise; Poisson, binomial and negative-binomial draws are three "count-style
families" with bars of their own: the paper shows negative binomial 3.8% and binomial 1.5%,
and no Poisson bar); ``none`` when it has neither. Roots carry distributions, not extra
noise, and are left out of the noise shares (their count is reported).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from scmspec.compiler.resolve import ResolvedCard
from scmspec.compiler.spec import VariableSpec
from scmspec.validators.mechanisms import operations, read_equation

# What CausalArena's released pools show (REFERENCE.md, "Library statistics"), per family.
SEMANTIC_DOMAINS = ("cybersecurity and IT operations", "education", "finance and credit",
                    "government services", "healthcare delivery", "housing and real estate",
                    "manufacturing", "public health", "urban transportation",
                    "water and sanitation")
FORMULA_DOMAINS = ("biology and ecology", "astronomy", "chemistry", "mechanics and fluids",
                   "earth systems", "electromagnetism", "energy systems",
                   "materials and structures", "optics and waves", "thermodynamics")
PAPER: dict[str, dict[str, Any]] = {
    "semantic": {"domains": SEMANTIC_DOMAINS, "variables": (17, 25, 22.89),
                 "edges": (25, 67, 40.28), "targets": (1, 12, 3.82),
                 "mechanisms": {"event_count": 15.3, "threshold": 8.5, "stock_flow": 8.3,
                                "ordinal_categorical": 8.1},
                 "noise_none": 43.2, "noise_order": ("normal", "lognormal", "bernoulli"),
                 # Figure 18's semantic noise bars (% of nodes); 4.4% are "Other"
                 "noise": {"normal": 26.2, "lognormal": 7.5, "bernoulli": 6.2,
                           "negative_binomial": 3.8, "beta": 2.8, "gamma": 2.6,
                           "mixture": 1.8, "binomial": 1.5}},
    "formula": {"domains": FORMULA_DOMAINS, "variables": (16, 25, 22.68), "edges": (18, 50, 32.97),
                "targets": (1, 17, 5.78),
                "mechanisms": {"explicit_equation": 18.1, "measurement_error": 9.2,
                               "linear_affine": 8.6, "physical_law": 7.1,
                               "calibration_offset": 6.2},
                "noise_none": 72.8, "noise_order": ("student_t", "beta", "normal", "laplace",
                                                    "mixture"),
                # Figure 18's formula noise bars (% of nodes); 2.3% are "Other"
                "noise": {"student_t": 6.3, "beta": 5.0, "normal": 5.0, "laplace": 4.4,
                          "mixture": 4.2}},
}
_NOISE = {"normal": "normal", "lognormal": "lognormal", "student_t": "student_t",
          "beta": "beta", "laplace": "laplace", "uniform": "uniform",
          "mixture_outlier": "mixture", "gumbel": "gumbel", "exponential": "exponential",
          "target_r2": "normal", "none": "none"}
# The count-style families CausalArena's semantic text ranks after Bernoulli.
COUNT_FAMILIES = ("poisson", "binomial", "negative_binomial")
_DRAW_NOISE = {"bernoulli": "bernoulli", "poisson": "poisson", "binomial": "binomial",
               "negative_binomial": "negative_binomial", "categorical": "categorical",
               "normal": "normal", "truncated_normal": "normal", "lognormal": "lognormal",
               "gamma_draw": "gamma", "beta_draw": "beta", "uniform": "uniform",
               "log_uniform": "log_uniform", "triangular": "triangular",
               "weibull": "weibull", "exponential": "exponential"}
_READOUTS = frozenset({"measurement", "readout"})


@dataclass
class Composition:
    """Counts over a set of cards: edges by mechanism category, non-root nodes by noise."""

    cards: int = 0
    mechanisms: Counter[str] = field(default_factory=Counter)
    noise: Counter[str] = field(default_factory=Counter)
    roots: int = 0

    def add(self, other: Composition) -> None:
        self.cards += other.cards
        self.mechanisms.update(other.mechanisms)
        self.noise.update(other.noise)
        self.roots += other.roots

    def edge_share(self, category: str) -> float:
        """Percent of edges whose child is of ``category``."""
        total = sum(self.mechanisms.values())
        return 100.0 * self.mechanisms[category] / total if total else 0.0

    def noise_share(self, category: str) -> float:
        """Percent of non-root nodes whose extra noise is of ``category``."""
        total = sum(self.noise.values())
        return 100.0 * self.noise[category] / total if total else 0.0


def mechanism_category(name: str, resolved: ResolvedCard) -> str:
    """The category of one non-root variable's mechanism (see the module table).

    Example:
        >>> from scmspec.compiler.pipeline import compile_card, parse_card_text
        >>> text = ("id: m\\ntitle: t\\nfamily: semantic\\ndomain: d\\nvariables:\\n"
        ...   "  a: {meaning: m, distribution: {kind: normal}}\\n"
        ...   "  b: {meaning: m, distribution: {kind: normal}}\\n"
        ...   "  s: {meaning: m, equation: a + b - 1}\\n"
        ...   "  r: {meaning: m, role: readout, equation: s, noise: {kind: normal, sd: 1}}\\n"
        ...   "edges: [{from: a, to: s, reason: r}, {from: b, to: s, reason: r},"
        ...   " {from: s, to: r, reason: r}]\\n")
        >>> resolved = compile_card(*parse_card_text(text)).resolved
        >>> mechanism_category("s", resolved), mechanism_category("r", resolved)
        ('stock_flow', 'measurement_error')
    """
    spec = resolved.card.variables[name]
    expr, parents = resolved.equations.get(name), resolved.parents[name]
    if expr is None:  # a structured mechanism kind (synthetic cards)
        return _structured(spec)
    family, bounded = read_equation(expr, parents)
    ops = operations(expr, parents)
    if family == "event_draw":
        return "event_count"
    if spec.kind in ("ordinal", "categorical"):
        return "ordinal_categorical"
    if spec.role in _READOUTS and family in ("identity", "linear", "accumulation"):
        # a reading plus an offset or drift reads like stock + inflow; it is calibration
        return "measurement_error" if family == "identity" else "calibration_offset"
    if family == "accumulation":
        # CausalArena's formula mix has no stock-flow label: there the sum is affine
        return "linear_affine" if resolved.card.family == "formula" else "stock_flow"
    if spec.role == "formula":
        return _formula_form(family, ops, parents) or _by_form(family, bounded, ops, expr,
                                                               parents, spec)
    return _by_form(family, bounded, ops, expr, parents, spec)


_FORMS = {"ratio": "ratio", "power": "power", "exp": "exp", "exp_fn": "exp", "log": "log",
          "sin": "trig", "cos": "trig", "tan": "trig", "atan": "trig", "atan2": "trig",
          "Piecewise": "cut", "Min": "cut", "Max": "cut", "sqrt": "power"}


def _formula_form(family: str, ops: set[str], parents: tuple[str, ...]) -> str | None:
    """A formula node's label: an explicit equation when it composes several operations
    (a ratio of exponentials, a power of a ratio...), a physical law when one nonlinear
    operation relates two or more quantities; else None (labelled by its form)."""
    if family in ("linear", "identity", "accumulation"):
        return None
    forms = {_FORMS[o] for o in ops if o in _FORMS}
    if len(forms) >= 2:
        return "explicit_equation"
    return "physical_law" if len(parents) >= 2 else None


def _by_form(family: str, bounded: bool, ops: set[str], expr: sp.Basic,
             parents: tuple[str, ...], spec: VariableSpec) -> str:
    if family == "threshold":
        return "regime_switch" if _branches_on_parents(expr, parents) >= 2 else "threshold"
    if family == "saturating":
        if bounded:
            return "sigmoid_index"
        return "clamp_minmax" if ops & {"Min", "Max"} else "saturating_response"
    noiseless = spec.noise.kind == "none"
    if family in ("exp_log", "polynomial", "trig") and noiseless and len(parents) >= 2:
        return "physical_law"
    simple = {"multiplicative": "ratio_normalization" if "ratio" in ops else "product",
              "exp_log": "exp_log", "polynomial": "power_law", "trig": "trig_periodic",
              "linear": "linear_affine"}
    return simple.get(family, "other")


def _branches_on_parents(expr: sp.Basic, parents: tuple[str, ...]) -> int:
    """The largest number of parent-dependent branch values in one Piecewise of ``expr``."""
    ps = {sp.Symbol(p, real=True) for p in parents}
    best = 0
    for pw in expr.atoms(sp.Piecewise):
        best = max(best, sum(1 for value, _ in pw.args if value.free_symbols & ps))
    return best


def _structured(spec: VariableSpec) -> str:
    kind = spec.mechanism.kind if spec.mechanism is not None else "other"
    return {"linear": "linear_affine", "logistic": "sigmoid_index",
            "threshold": "threshold", "piecewise": "threshold"}.get(kind, "other")


def noise_category(name: str, resolved: ResolvedCard) -> str:
    """The category of a non-root variable's extra noise (``none`` without any)."""
    spec = resolved.card.variables[name]
    if spec.noise.kind != "none":
        return _NOISE.get(spec.noise.kind, "other")
    expr = resolved.equations.get(name)
    if expr is not None and resolved.random_sites.get(name):
        drawn = {type(f).__name__ for f in expr.atoms(sp.Function)}  # the tree read once
        return next((category for draw, category in _DRAW_NOISE.items() if draw in drawn),
                    "other")
    return "none"


def composition(resolved: ResolvedCard) -> Composition:
    """One card's composition: each edge by its child's category, each non-root's noise."""
    out = Composition(cards=1)
    for v in resolved.order:
        parents = resolved.parents[v]
        if not parents:
            out.roots += 1
            continue
        out.mechanisms[mechanism_category(v, resolved)] += len(parents)
        out.noise[noise_category(v, resolved)] += 1
    return out


def library(cards: Iterable[ResolvedCard]) -> dict[str, Composition]:
    """Compositions per family (semantic, formula, ...) of many resolved cards."""
    out: dict[str, Composition] = {}
    for r in cards:
        out.setdefault(r.card.family, Composition()).add(composition(r))
    return out
