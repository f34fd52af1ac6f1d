"""The shipped semantic and formula libraries at CausalArena's scale (issues 14 and 15).

Read on the compiled library (every card under ``cards/`` resolved; the numbers are those of
docs/cards.md's "The library beside CausalArena's released pools"): cards per domain, the
size of every card, the library means, the mechanism mix (edge shares) and the noise mix
(node shares), each against the paper's released pool (``scmspec.authoring.mix.PAPER``).

The mix bands are +-4 percentage points. Why 4: a card bootstrap of this library gives a
standard error of 0.5-2.0 points per share (event/count 1.5, cutoffs 1.4, explicit equations
2.0); two libraries of 100 cards written to the same recipe differ by about sqrt(2) of that,
so 4 points is two standard errors of that difference for the noisiest shares - a library
outside it is written to another recipe, not unlucky.

What is not met yet is marked ``xfail(strict=True)`` with the measured gap: the mark turns
into a failure the day the library meets the band, so it cannot linger after the work.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from scmspec.authoring.catalog import CardEntry, collect
from scmspec.authoring.mix import COUNT_FAMILIES, PAPER, Composition

ROOT = Path(__file__).resolve().parents[2]
MIX_BAND = 4.0  # percentage points (module docstring)
# The issues' bands around the paper's means: (variables, edges).
MEAN_BANDS = {"semantic": ((23.0, 1.0), (40.0, 4.0)), "formula": ((22.7, 1.0), (33.0, 3.0))}
PER_DOMAIN = 10

pytestmark = pytest.mark.slow  # resolves every card (about 10 s); the full suite and CI run it


@pytest.fixture(scope="module")
def library() -> list[CardEntry]:
    entries, failed = collect([ROOT / "cards"], ROOT)
    assert not failed, failed
    return entries


def _family(library: list[CardEntry], family: str) -> list[CardEntry]:
    return [e for e in library if e.family == family and e.domain in PAPER[family]["domains"]]


def _mix(entries: list[CardEntry]) -> Composition:
    mix = Composition()
    for e in entries:
        mix.add(e.composition)
    return mix


def _formula_todo(what: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, reason=f"issue 15 open: {what}")


FORMULA_MIX = _formula_todo("explicit equations 32.1% of edges (paper 18.1), physical laws 17.7 "
                            "(7.1), measurement error 4.5 (9.2)")


@pytest.mark.parametrize("family", ["semantic", "formula"])
def test_ten_cards_in_each_of_the_papers_domains(library: list[CardEntry], family: str) -> None:
    per_domain = Counter(e.domain for e in _family(library, family))
    short = {d: per_domain[d] for d in PAPER[family]["domains"] if per_domain[d] < PER_DOMAIN}
    assert not short, f"{family} domains with fewer than {PER_DOMAIN} cards: {short}"


@pytest.mark.parametrize("family", ["semantic", "formula"])
def test_every_card_and_the_means_in_the_papers_size_bands(library: list[CardEntry],
                                                            family: str) -> None:
    es, paper = _family(library, family), PAPER[family]
    outside = []
    for e in es:
        for key, value in (("variables", e.observed), ("edges", e.observed_edges),
                           ("targets", len(e.targets))):
            lo, hi, _ = paper[key]
            if not lo <= value <= hi:
                outside.append(f"{e.id}: {value} observed {key} (paper {lo}-{hi})")
    assert not outside, outside
    (var_mean, var_band), (edge_mean, edge_band) = MEAN_BANDS[family]
    variables = sum(e.observed for e in es) / len(es)
    edges = sum(e.observed_edges for e in es) / len(es)
    assert abs(variables - var_mean) <= var_band, f"mean observed variables {variables:.2f}"
    assert abs(edges - edge_mean) <= edge_band, f"mean observed edges {edges:.2f}"


@pytest.mark.parametrize("family", ["semantic", pytest.param("formula", marks=FORMULA_MIX)])
def test_mechanism_mix_within_the_band_of_the_papers_figure_18(library: list[CardEntry],
                                                               family: str) -> None:
    mix, paper = _mix(_family(library, family)), PAPER[family]
    off = {c: (round(mix.edge_share(c), 1), share) for c, share in paper["mechanisms"].items()
           if abs(mix.edge_share(c) - share) > MIX_BAND}
    assert not off, f"{family} edge shares (library, paper) outside +-{MIX_BAND}: {off}"


@pytest.mark.parametrize("family", ["semantic", "formula"])
def test_no_extra_noise_share_within_the_band_of_the_papers_figure_18(
        library: list[CardEntry], family: str) -> None:
    """Figure 18's "no extra noise" bar: 43.2% of semantic nodes, 72.8% of formula nodes
    ("Formula nodes are computed exactly from their parents, so they carry no extra noise")."""
    mix, paper = _mix(_family(library, family)), PAPER[family]
    none = mix.noise_share("none")
    assert abs(none - paper["noise_none"]) <= MIX_BAND, f"no extra noise on {none:.1f}% of nodes"


@pytest.mark.parametrize("family", ["semantic", "formula"])
def test_noise_kinds_in_the_papers_order(library: list[CardEntry], family: str) -> None:
    """The paper ranks the noisy nodes' kinds: semantic "led by normal (26.2%), then
    lognormal, Bernoulli, and count-style families" (Figure 18 has a bar per family:
    negative binomial 3.8%, binomial 1.5%, no Poisson bar), formula "Student-t, beta,
    normal, Laplace, mixture-normal". The library's kinds must lead in that order, and in
    the semantic library every count-style family must come after Bernoulli."""
    mix, paper = _mix(_family(library, family)), PAPER[family]
    order = paper["noise_order"]
    shares = [round(mix.noise_share(k), 1) for k in order]
    assert shares == sorted(shares, reverse=True), dict(zip(order, shares, strict=True))
    leading = [k for k, _ in mix.noise.most_common() if k != "none"][:len(order)]
    assert set(leading) == set(order), f"the most common noise kinds are {leading}"
    if family == "semantic":
        counts = {k: round(mix.noise_share(k), 1) for k in COUNT_FAMILIES}
        assert max(counts.values()) < shares[-1], f"Bernoulli {shares[-1]}%, counts {counts}"
        assert abs(mix.noise_share("normal") - paper["noise"]["normal"]) <= MIX_BAND

