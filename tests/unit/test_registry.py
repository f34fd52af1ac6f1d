"""Registries: refuse duplicates, suggest near misses, and agree with the card language.

A kind that is registered but missing from its pydantic union can never be
written in a card; one that is in the union but not registered cannot be looked
up by name. Both are bugs this file catches.
"""

from __future__ import annotations

import typing

import pytest
from pydantic import BaseModel

from scmspec.compiler.kinds.functions import FUNCTIONS
from scmspec.compiler.kinds.interventions import INTERVENTIONS, HandlerSpec
from scmspec.compiler.kinds.noise import NOISE, NoiseSpec
from scmspec.compiler.kinds.roots import ROOTS, RootSpec
from scmspec.errors import UnknownKindError
from scmspec.registry import Registry


def union_members(spec: object) -> list[type[BaseModel]]:
    """The model classes of an ``Annotated[Union[...], Field(discriminator=...)]``."""
    union = typing.get_args(spec)[0]
    return list(typing.get_args(union))


def kind_literals(spec: object) -> list[str]:
    return [cls.model_fields["kind"].default for cls in union_members(spec)]


def mechanism_pair() -> tuple[Registry[typing.Any], object] | None:
    try:
        from scmspec.compiler.kinds.mechanisms import MECHANISMS, MechanismSpec
    except ImportError:  # pragma: no cover - structured mechanisms are optional
        return None
    return MECHANISMS, MechanismSpec


PAIRS = [("roots", ROOTS, RootSpec), ("noise", NOISE, NoiseSpec),
         ("interventions", INTERVENTIONS, HandlerSpec)]
if mechanism_pair() is not None:
    PAIRS.append(("mechanisms", *mechanism_pair()))  # type: ignore[arg-type]


@pytest.mark.parametrize(("family", "registry", "spec"), PAIRS, ids=[p[0] for p in PAIRS])
def test_registry_kinds_equal_the_union_literals(family: str, registry: Registry[typing.Any],
                                                 spec: object) -> None:
    literals = kind_literals(spec)
    assert len(literals) == len(set(literals)), f"{family}: a kind literal appears twice"
    assert sorted(registry) == sorted(literals)


@pytest.mark.parametrize(("family", "registry", "spec"), PAIRS, ids=[p[0] for p in PAIRS])
def test_each_kind_is_registered_under_its_own_literal(family: str, registry: Registry[typing.Any],
                                                       spec: object) -> None:
    for cls in union_members(spec):
        kind = cls.model_fields["kind"].default
        assert registry.lookup(kind) is cls, f"{family}: {kind!r} maps to another class"
        assert cls.__doc__ and cls.__doc__.strip(), f"{family}: {kind!r} has no docstring"


def test_duplicates_are_refused() -> None:
    r: Registry[int] = Registry("demo")
    r.add("one", 1)
    with pytest.raises(ValueError, match="registered twice"):
        r.add("one", 2)
    assert r.lookup("one") == 1

    @r.register("two")
    def two() -> int:  # type: ignore[misc]
        return 2

    with pytest.raises(ValueError):
        r.register("two")(two)


@pytest.mark.parametrize("registry", [ROOTS, NOISE, INTERVENTIONS, FUNCTIONS])
def test_real_registries_refuse_a_second_registration(registry: Registry[typing.Any]) -> None:
    kind = next(iter(registry))
    with pytest.raises(ValueError):
        registry.add(kind, registry.lookup(kind))


def test_miss_suggests_the_closest_name() -> None:
    with pytest.raises(UnknownKindError) as err:
        ROOTS.lookup("gama")
    (d,) = err.value.diagnostics
    assert d.code == "SCM310"
    assert d.hint == "did you mean 'gamma'?"
    assert "root distribution" in d.message


def test_miss_without_a_close_name_lists_every_kind() -> None:
    with pytest.raises(UnknownKindError) as err:
        INTERVENTIONS.lookup("zzzzzz")
    hint = err.value.diagnostics[0].hint or ""
    for kind in INTERVENTIONS:
        assert kind in hint


def test_registry_protocol() -> None:
    r: Registry[str] = Registry("demo")
    r.add("b", "B")
    r.add("a", "A")
    assert list(r) == ["b", "a"]  # registration order
    assert len(r) == 2 and "a" in r and "c" not in r
    assert r.items() == [("b", "B"), ("a", "A")]


def test_function_whitelist_entries_are_complete() -> None:
    for name, entry in FUNCTIONS.items():
        assert entry.name == name
        assert entry.doc
        assert entry.min_args >= 1
        assert entry.max_args is None or entry.max_args >= entry.min_args
        if entry.random:
            assert entry.numpy is not None, f"random draw {name} needs an inverse-CDF form"
