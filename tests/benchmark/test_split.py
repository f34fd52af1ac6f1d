"""The public/reserved split on its own: balance, stability, pinning, order independence."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from scmspec.release.split import Unit, family_target, split


@st.composite
def pools(draw: st.DrawFn) -> list[Unit]:
    units = []
    for family in ("synthetic", "semantic", "formula")[: draw(st.integers(1, 3))]:
        for s in range(draw(st.integers(1, 5))):
            for i in range(draw(st.integers(1, 7))):
                units.append(Unit(f"{family}-{s}-{i}", family, f"stratum-{s}"))
    return units


@settings(max_examples=60, deadline=None)
@given(pools(), st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), st.integers(0, 10**6))
def test_every_family_and_stratum_is_balanced(units: list[Unit], fraction: float,
                                              seed: int) -> None:
    parts = split(units, fraction, seed)
    assert set(parts) == {u.id for u in units}
    for family in {u.family for u in units}:
        members = [u for u in units if u.family == family]
        public = sum(parts[u.id] == "public" for u in members)
        assert public == family_target(len(members), fraction)
        for stratum in {u.stratum for u in members}:
            in_s = [u for u in members if u.stratum == stratum]
            share = sum(parts[u.id] == "public" for u in in_s)
            assert abs(share - fraction * len(in_s)) < 1, (family, stratum)


@settings(max_examples=30, deadline=None)
@given(pools(), st.integers(0, 10**6))
def test_the_split_ignores_input_order(units: list[Unit], seed: int) -> None:
    shuffled = list(units)
    random.Random(seed).shuffle(shuffled)
    assert split(shuffled, 0.5, seed) == split(units, 0.5, seed)


def test_previously_public_scms_stay_public_even_over_quota() -> None:
    units = [Unit(f"s{i}", "semantic", "domain=a") for i in range(4)]
    keep = [u.id for u in units if split(units, 0.5, 3)[u.id] == "reserved"]
    parts = split(units, 0.5, 3, keep_public=keep)
    assert all(parts[i] == "public" for i in keep)
    grown = split([*units, Unit("s9", "semantic", "domain=a")], 0.5, 3, keep_public=["s0", "s1",
                                                                                     "s2"])
    assert [grown[f"s{i}"] for i in range(3)] == ["public"] * 3


def test_adding_a_card_to_one_stratum_leaves_the_others_alone() -> None:
    units = [Unit(f"{s}{i}", "synthetic", s) for s in "abc" for i in range(4)]
    before = split(units, 0.5, 1)
    after = split([*units, Unit("a9", "synthetic", "a")], 0.5, 1)
    assert {k: v for k, v in after.items() if not k.startswith("a")} == \
        {k: v for k, v in before.items() if not k.startswith("a")}
