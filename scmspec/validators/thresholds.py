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
    "placeholders": "warning",
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

# boundary_mass: share of a continuous variable's values exactly at a declared range bound
# or at a floor/cap its equation imposes (outermost min/max/clip) above which the card must
# declare the mechanism in `boundary:` (CausalArena: "continuous variables must avoid more
# than 10% exact mass at a valid-range boundary unless the graph declares a real boundary
# mechanism"). Observed minima and maxima are not boundaries: a plateau no bound or clip
# creates is not judged.
BOUNDARY_MASS = 0.10
# Columns declared continuous that take at most this many distinct values over at least
# DISCRETE_MIN_ROWS rows are discrete-valued by construction (a lookup, a schedule) and
# are exempt from boundary_mass (reported as such).
DISCRETE_VALUED_LEVELS = 20
DISCRETE_MIN_ROWS = 200

# --- stable decisions --------------------------------------------------------------------
# Gates that estimate a population share or correlation from the sampled rows decide on a
# one-sided confidence bound CONFIDENCE_Z standard errors from the estimate (Wilson bound
# for shares, Fisher z for correlations): they fail only when the whole bound is past the
# threshold, so a population value outside the margin gets the same decision on every seed
# (a false failure at a population value at or inside the threshold: < 0.14% per test).
CONFIDENCE_Z = 3.0
# A finding whose bound on the released rows straddles the threshold (the decision could go
# either way) is decided again on a pilot of this many rows of the variables concerned and
# their ancestors, drawn from the pilot's own streams: the margin shrinks to 3 SE at this n
# (a share at 99%: +-0.13 points; a correlation at 0.90: +-0.003).
STAT_PILOT_ROWS = 50_000
# A target that moved on its intervened rows while none of its descendants changed there
# is judged again on a pilot: STAT_PILOT_ROWS rows, natural and all intervened, capped at
# this many cells (rows x variables) per pass for wide cards (at least 2,000 rows). An
# effect that reaches a descendant on a share p of rows is then missed with probability
# (1 - p)^rows: below 0.14% (3 SE) for p >= 1.3e-4 at 50,000 rows.
PROPAGATION_PILOT_CELLS = 5_000_000

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
# intervention_effect: share of natural rows whose value the target's handler changes
# (the handler applied to every natural row of the obs split: a pilot of n = replicates x
# n_obs rows, drawn from gate-only streams). An intervention is null when it moves under
# 1% of rows; it fails when the Wilson upper bound (TARGET_CHANGED_Z standard errors) of
# the moved share is below 1%. A handler that moves nothing fails at every n >= 900; a
# real effect moving >= 1% of rows fails with probability < 0.14%; a rare-event
# counterfactual moving 9% of rows passes on every seed.
MIN_TARGET_CHANGED = 0.01
TARGET_CHANGED_Z = 3.0

# --- tail check --------------------------------------------------------------------------
# ranges must block a natural value outside its declared range at TAIL_RATE of rows, which
# the released rows (10^3-10^4) cannot see. Three ways to know a ranged variable's share
# outside, cheapest first (validators/tail_bound.py, validators/pilot.py):
# * proved: the interval bound (every exogenous source cut to its central quantiles,
#   intervals propagated through the equations) lies inside the range; share < TAIL_PROOF_RATE;
# * exact: a root's share from its quantile function;
# * sampled: the ancestral set of the rest, from the pilot's own streams (the released data
#   do not change). A variable with its own noise of known law: TAIL_NOISE_ROWS rows, its
#   share the average over rows of the probability that the noise puts it outside given the
#   sampled parents (a conditional expectation: low variance, no rows need to fall outside);
#   any other: TAIL_PILOT_ROWS rows, rows outside counted.
TAIL_RATE = 1e-5
TAIL_PROOF_RATE = 1e-6
TAIL_NOISE_ROWS = 50_000
TAIL_PILOT_ROWS = 300_000
TAIL_PILOT_CHUNK = 50_000
# A counted variable with a row outside on TAIL_PILOT_ROWS, or a near miss (no row outside,
# but its TAIL_NEAR_K most extreme rows, extrapolated as an exponential tail, put
# TAIL_PROOF_RATE or more of rows outside), is counted on until TAIL_CONFIRM_ROWS rows, so
# its share is decided on enough rows to be stable.
TAIL_CONFIRM_ROWS = 1_500_000
TAIL_NEAR_K = 20
# A share at or above this blocks; a share in [TAIL_PROOF_RATE, TAIL_BLOCK_SHARE) warns.
# Counted rows: a share of 1e-5 shows a row on TAIL_PILOT_ROWS with probability
# 1 - exp(-3) = 95%; the 5% that show none are near misses (the 20th most extreme row sits
# at about the 6.7e-5 quantile, a factor 6.7 from the bound, and the extrapolation flags
# up to a factor 67), so they are counted on too: 1.5M rows (15 expected, blocks from 5)
# block with probability 99.96%. 1e-6 blocks with probability < 2% (counted on when
# flagged, then P(>= 5 of 1.5 expected) = 1.9%). Exact and averaged shares decide within
# a few standard errors of this value (docs/gates.md, "Tail check").
TAIL_BLOCK_SHARE = 3e-6

# --- authoring -----------------------------------------------------------------------------
# placeholders: words that mark unfinished text in descriptions, meanings, reasons and
# references (whole words, any case); empty texts count too.
PLACEHOLDER_WORDS = ("TODO", "FIXME", "TBD", "XXX")

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
