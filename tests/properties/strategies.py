"""Hypothesis strategies: random DAG cards with kinds drawn from the registries.

A card is drawn as an upper-triangular edge mask over nodes in topological
order, then the nodes are named through a random permutation, so that names
(and therefore the compiler's lexicographic tie-breaking) are unrelated to the
causal order. Equations mix linear terms, whitelisted nonlinear functions,
products and random-draw call sites; noise kinds come from the NOISE registry
(every kind whose parameters are plain numbers); roots from a safe subset of
ROOTS. Every variable is dimensionless. Strategies return plain card data
(what YAML would load), so tests can reorder, dump and mutate it.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from scmspec.compiler.kinds.noise import NOISE

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
                    print_blob=True)

# Some names shadow what sympy or lambdify-generated numpy code uses (E, I, nan, select, ...).
NAMES = ("alpha", "beta", "gamma_", "E", "I", "nan", "inf", "select", "greater", "mod",
         "logical_and", "numpy")

# Unary building blocks of equations: all in the whitelist, all finite on finite input.
UNARY = ("{p}", "tanh({p})", "sin({p})", "sigmoid({p})", "softplus({p})", "abs({p})",
         "exp(-abs({p}))", "atan({p})", "clip({p}, -2, 2)", "log1p(abs({p}))", "floor({p})")

# Roots: (distribution, variable kind, levels)
ROOT_KINDS: tuple[tuple[dict[str, Any], str, list[str] | None], ...] = (
    ({"kind": "normal", "mean": 0.5, "sd": 1.5}, "continuous", None),
    ({"kind": "uniform", "low": -2.0, "high": 1.0}, "continuous", None),
    ({"kind": "gamma", "shape": 2.0, "rate": 1.0}, "continuous", None),
    ({"kind": "beta", "a": 2.0, "b": 3.0}, "continuous", None),
    ({"kind": "lognormal", "meanlog": 0.0, "sdlog": 0.5}, "continuous", None),
    ({"kind": "exponential", "rate": 1.0}, "continuous", None),
    ({"kind": "gumbel", "loc": 0.0, "scale": 1.0}, "continuous", None),
    ({"kind": "truncated_normal", "low": -1.0, "high": 2.0}, "continuous", None),
    ({"kind": "gaussian_mixture", "weights": [0.4, 0.6], "means": [-1.0, 2.0],
      "sds": [0.5, 1.0]}, "continuous", None),
    ({"kind": "bernoulli", "p": 0.4}, "binary", None),
    ({"kind": "poisson", "rate": 2.0}, "count", None),
    ({"kind": "categorical", "probs": [0.2, 0.5, 0.3]}, "categorical", ["lo", "mid", "hi"]),
)

HANDLERS: tuple[dict[str, Any], ...] = (
    {"kind": "do", "value": 0.75}, {"kind": "resample"}, {"kind": "setpoint"},
    {"kind": "shift", "by": 1.0}, {"kind": "shift", "iqr": 0.5}, {"kind": "scale", "factor": 0.5},
    {"kind": "soft"}, {"kind": "soft", "value": 1.0, "softness": 0.3},
)

_GUESSES = {"low": -1.0, "high": 1.0, "df": 4.0, "r2": 0.5, "outlier_prob": 0.05, "step": 0.25,
            "a": 2.0, "b": 2.0}


def _noise_example(kind: str) -> dict[str, Any] | None:
    """Parameters for a noise kind whose required fields are plain numbers (else None)."""
    cls = NOISE.lookup(kind)
    params: dict[str, Any] = {"kind": kind}
    for name, info in cls.model_fields.items():
        if name == "kind" or not info.is_required():
            continue
        if info.annotation not in (float, int):
            return None  # structured parameters (lists, inputs): not drawn generically
        params[info.alias or name] = _GUESSES.get(name, 0.5)
    try:
        cls.model_validate(params)
    except ValidationError:
        return None
    return params


NOISE_EXAMPLES = {k: ex for k in NOISE if (ex := _noise_example(k)) is not None}


def _mode_allowed(kind: str) -> bool:
    field = NOISE.lookup(kind).model_fields.get("mode")
    return field is not None and "multiplicative" in str(field.annotation)


@st.composite
def noise_specs(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(sorted(NOISE_EXAMPLES)))
    spec = dict(NOISE_EXAMPLES[kind])
    if kind != "none" and _mode_allowed(kind) and draw(st.booleans()):
        spec["mode"] = draw(st.sampled_from(["additive", "multiplicative"]))
    return spec


@st.composite
def equations(draw: st.DrawFn, parents: list[str]) -> tuple[str, str, list[str] | None]:
    """(equation text, variable kind, levels) using every parent at least once."""
    if draw(st.integers(0, 5)) == 0:  # a binary outcome through a random-draw site
        terms = " + ".join(f"{draw(st.sampled_from([-1.0, 0.5, 1.5]))} * {p}" for p in parents)
        return f"bernoulli(sigmoid({terms}))", "binary", None
    terms = []
    for p in parents:
        w = draw(st.floats(-2.0, 2.0, allow_nan=False).filter(lambda v: abs(v) > 0.1))
        f = draw(st.sampled_from(UNARY)).format(p=p)
        terms.append(f"{round(w, 3)} * {f}")
    if len(parents) >= 2 and draw(st.booleans()):
        terms.append(f"0.3 * tanh({parents[0]} * {parents[1]})")
    if draw(st.integers(0, 4)) == 0:
        terms.append(f"bernoulli(sigmoid({parents[-1]}))")
    if draw(st.integers(0, 4)) == 0:
        terms.append(f"where({parents[0]} > 0.5, 1, -1)")
    bias = draw(st.sampled_from(["", "0.5 + ", "-1 + "]))
    return bias + " + ".join(terms), "continuous", None


@st.composite
def dag_cards(draw: st.DrawFn, min_nodes: int = 2, max_nodes: int = 7) -> dict[str, Any]:
    """Plain card data for a random DAG (topological index i < j for every edge i -> j)."""
    d = draw(st.integers(min_nodes, max_nodes))
    mask = [[j > i and draw(st.booleans()) for j in range(d)] for i in range(d)]
    names = draw(st.permutations(NAMES))[:d]  # node i is called names[i]
    variables: dict[str, Any] = {}
    edges: list[dict[str, str]] = []
    for j in range(d):
        parents = [names[i] for i in range(j) if mask[i][j]]
        spec: dict[str, Any] = {"meaning": f"node {j}"}
        if not parents:
            dist, kind, levels = draw(st.sampled_from(ROOT_KINDS))
            spec["distribution"] = copy.deepcopy(dist)
        else:
            text, kind, levels = draw(equations(parents))
            spec["equation"] = text
            noise = draw(noise_specs())
            if noise["kind"] != "none" and kind == "continuous":
                spec["noise"] = noise
            edges += [{"from": p, "to": names[j], "reason": "drawn"} for p in parents]
        if kind != "continuous":
            spec["kind"] = kind
        if levels:
            spec["levels"] = levels
        if draw(st.integers(0, 5)) == 0 and j < d - 1:
            spec["observed"] = False
        if draw(st.integers(0, 3)) > 0:
            handler = draw(st.sampled_from(HANDLERS))
            if spec.get("kind") == "categorical" and handler["kind"] == "do":
                handler = {"kind": "do", "value": "mid"}
            elif spec.get("kind") in ("binary", "ordinal") and handler["kind"] == "do":
                handler = {"kind": "do", "value": 1}  # a value the kind allows (SCM311)
            if spec.get("kind") in ("binary", "ordinal", "categorical") and \
                    handler["kind"] == "shift":
                handler = {"kind": "resample"}  # a shift leaves the codes (SCM604)
            spec["intervention"] = {"meaning": f"set node {j}", "handler": dict(handler)}
        variables[names[j]] = spec
    order = draw(st.permutations(list(variables)))
    card: dict[str, Any] = {
        "id": "prop", "title": "property card", "family": "synthetic", "domain": "testing",
        "variables": {v: variables[v] for v in order},
        "edges": draw(st.permutations(edges)),
        "protocol": {"seed": draw(st.integers(0, 2**31))},
    }
    intervenable = [v for v, s in variables.items() if "intervention" in s
                    and s.get("observed", True)]
    if len(intervenable) >= 2 and draw(st.booleans()):
        card["interventions"] = {"per_row": draw(st.integers(1, min(3, len(intervenable))))}
    if draw(st.integers(0, 4)) == 0:
        card["constants"] = {"unused_gain": {"value": 2.0}}
    return card


def topological_names(card: dict[str, Any]) -> list[str]:
    """Names in the order the strategy created them ('node j')."""
    return sorted(card["variables"], key=lambda v: int(card["variables"][v]["meaning"][5:]))


def shuffled(data: Any, rng: Any) -> Any:
    """The same card with every mapping's keys (and the edge list) in a random order."""
    if isinstance(data, dict):
        keys = list(data)
        rng.shuffle(keys)
        return {k: shuffled(data[k], rng) for k in keys}
    if isinstance(data, list) and data and isinstance(data[0], dict) and "from" in data[0]:
        items = [shuffled(e, rng) for e in data]
        rng.shuffle(items)
        return items
    return data


__all__ = ["NOISE_EXAMPLES", "SETTINGS", "dag_cards", "noise_specs", "shuffled",
           "topological_names"]
