"""Every gate threshold and severity, in one place (documented in docs/gates.md).

Change a number here and the gates, their messages and the docs table follow.
Each constant says what it bounds and why that value was chosen. A *blocking*
gate that fails stops a card from being released; a *warning* gate reports but
does not block. Justifications (``Card.justifications[gate_id]``) turn a
warning into a justified pass, and turn a failure of one of the
``JUSTIFIABLE_BLOCKING`` gates into a warning; other blocking gates cannot be
justified away.
"""

from __future__ import annotations

from typing import Literal

Severity = Literal["blocking", "warning"]

# --- severities ------------------------------------------------------------------------
SEVERITY: dict[str, Severity] = {
    "schema": "blocking",
    "acyclic": "blocking",
    "parents_match": "blocking",
    "units": "blocking",
    "graph_shape": "blocking",
    "latent_paths": "warning",
    "mechanism_mix": "warning",
    "finite": "blocking",
    "ranges": "blocking",
    "nonconstant": "blocking",
    "category_dominance": "blocking",
    "boundary_mass": "blocking",
    "near_copy": "blocking",
    "residuals": "blocking",
    "intervention_effect": "blocking",
    "mask_consistency": "blocking",
    "sortability": "warning",
    "selection_rate": "blocking",
    "justifications": "warning",
    "duplicate_topology": "blocking",
}

# Blocking gates a card may downgrade to a warning with a written justification.
JUSTIFIABLE_BLOCKING = frozenset({"category_dominance", "near_copy"})

# --- data gates --------------------------------------------------------------------------
# ranges: a value counts as outside [low, high] only beyond this relative slack, so
# that a formula landing on its bound up to floating-point rounding is not flagged.
RANGE_SLACK = 1e-9

# nonconstant: a continuous column fails when its standard deviation is below
# NEAR_CONSTANT_REL_SD x max(|mean|, 1) (numerically constant: float32 users lose it)
# or when one exact value covers more than NEAR_CONSTANT_MODE_SHARE of the rows.
NEAR_CONSTANT_REL_SD = 1e-6
NEAR_CONSTANT_MODE_SHARE = 0.99

# category_dominance: one level of a discrete variable over this share of rows.
CATEGORY_DOMINANCE = 0.99

# boundary_mass: share of a continuous variable's values exactly at a range bound or at
# its observed minimum/maximum (the signature of clipping) above which the card must
# declare the mechanism in `boundary:`.
BOUNDARY_MASS = 0.10

# near_copy: |Pearson correlation| at or above which two observed variables are near
# copies. Synthetic graphs use a loose bound (strong linear chains are legitimate);
# semantic and formula cards are revised from 0.90 (CausalArena release rules).
NEAR_COPY_SYNTHETIC = 0.99
NEAR_COPY_SEMANTIC = 0.90

# residuals: a deterministic node must equal its equation within
# |x - f(parents)| <= RESIDUAL_ATOL + RESIDUAL_RTOL x |f(parents)| (float rounding only).
RESIDUAL_RTOL = 1e-9
RESIDUAL_ATOL = 1e-12
# Noisy formula nodes: the residual (additive) or relative residual (multiplicative)
# must have median zero; sign test with this many standard errors of a fair coin.
RESIDUAL_SIGN_Z = 5.0

# --- interventions -----------------------------------------------------------------------
# intervention_effect: share of a target's intervened rows whose value differs from the
# value its own mechanism would have given. A uniform resample of a binary target
# changes about half the rows; below a quarter the intervention is nearly vacuous.
MIN_TARGET_CHANGED = 0.25
# ... judged by a one-sided binomial test: fail when the observed share lies more than
# this many standard errors (sqrt(0.25 * 0.75 / n) over the target's n rows) below 25%.
TARGET_CHANGED_Z = 3.0

# --- structure ---------------------------------------------------------------------------
# graph_shape: minimum depth (longest directed path, counted in edges) and edge count.
MIN_DEPTH_DEEP_FAMILIES = 3  # synthetic chain, tree, small-world, scale-free graphs
MIN_DEPTH = 2  # every other card
DEEP_GRAPH_FAMILIES = frozenset({"chain", "tree", "small_world", "scale_free"})
MIN_EDGES_PER_VARIABLE = 0.8  # synthetic cards: at least ceil(0.8 d) edges

# mechanism_mix (semantic/formula cards): distinct mechanism families, and the share of
# equations that are a generic bounded sigmoid (sigmoid/tanh of an affine score).
MIN_MECHANISM_FAMILIES = 3
MAX_SIGMOID_SHARE = 0.25

# --- sortability -------------------------------------------------------------------------
# Reisach et al. (2021): a score of 0.5 is what a random order gives; near 1 (or 0) the
# causal order can be read off marginal variances (or R^2), and sorting by them scores
# well without any causal reasoning. In their benchmarks, linear-Gaussian ER graphs
# score 0.94-0.99 and "sort by variance" beats most learners; we warn outside
# [1 - SORTABILITY, SORTABILITY], a band random orders of 10+ pairs rarely leave.
SORTABILITY = 0.9
SORTABILITY_MIN_PAIRS = 5  # fewer ordered pairs: the score is too coarse to judge
SORTABILITY_TIE = 1e-9  # relative tolerance under which two variances tie (count 1/2)

# --- selection ---------------------------------------------------------------------------
# selection_rate: share of drawn rows a selection keeps. Below 1% sampling fails (SCM601);
# below 5% the data describe a sliver of the population; above 99% it does nothing.
SELECTION_FAIL = 0.01
SELECTION_WARN = 0.05
SELECTION_NOOP = 0.99


def severity_of(gate: str) -> Severity:
    """The severity of a gate id (unknown ids are warnings).

    Example:
        >>> severity_of("near_copy"), severity_of("sortability")
        ('blocking', 'warning')
    """
    return SEVERITY.get(gate, "warning")
