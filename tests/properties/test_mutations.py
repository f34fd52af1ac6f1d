"""Mutated card text either compiles or fails with located diagnostics, never a traceback.

Valid drawn cards are written as YAML, then damaged the way people (and
attackers) damage files: a line deleted or duplicated, characters swapped,
a number turned into a word, YAML syntax or an injection token inserted, the
file cut short (the operators live in ``mutators.py``, shared with the fuzzer
of the shipped cards, ``test_card_fuzz.py``). Whatever the damage, parse +
compile must either succeed (and the result sample) or raise a CardError whose
every diagnostic has a span and renders with its source line. Any other
exception is a bug in scmspec.
"""

from __future__ import annotations

import numpy as np
import yaml
from hypothesis import given
from hypothesis import strategies as st

from scmspec.compiler.pipeline import compile_card, parse_card_text
from scmspec.errors import CardError, render_diagnostic
from scmspec.samplers import numpy_sampler
from scmspec.samplers.streams import Streams
from tests.properties.mutators import GENERIC, DrawChooser, mutate
from tests.properties.strategies import SETTINGS, dag_cards


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = yaml.safe_dump(draw(dag_cards(max_nodes=5)), sort_keys=False)
    return mutate(text, DrawChooser(draw), GENERIC)


@SETTINGS.__class__(SETTINGS, max_examples=120)
@given(mutated())
def test_mutated_cards_compile_or_fail_with_located_diagnostics(text: str) -> None:
    lines = text.splitlines()
    try:
        card, smap = parse_card_text(text, "mutant.yaml")
        compiled = compile_card(card, smap)
    except CardError as exc:
        assert exc.diagnostics
        for d in exc.diagnostics:
            assert d.span is not None, f"{d.code} without a location: {d.message}"
            assert d.span.path == "mutant.yaml" and d.span.line >= 1 and d.span.col >= 1
            assert render_diagnostic(d, lines).startswith(f"mutant.yaml:{d.span.line}:")
            assert d.code.startswith("SCM")
        return
    with np.errstate(all="ignore"):
        try:
            s = numpy_sampler.sample(compiled.plan, 20, 10,
                                     Streams(0, compiled.card.id, "obsint", 0))
        except CardError as exc:  # e.g. a selection that accepts nothing
            assert all(d.code.startswith("SCM6") for d in exc.diagnostics)
            return
    assert all(len(c) == 30 for c in s.columns.values())


def test_the_mutator_reaches_both_outcomes() -> None:
    """Guards the property above: mutants must both compile and fail, in quantity."""
    outcomes: dict[str, int] = {"ok": 0, "error": 0}

    @SETTINGS.__class__(SETTINGS, max_examples=40)
    @given(mutated())
    def run(text: str) -> None:
        try:
            compile_card(*parse_card_text(text, "m.yaml"))
            outcomes["ok"] += 1
        except CardError:
            outcomes["error"] += 1

    run()
    assert outcomes["ok"] >= 1 and outcomes["error"] >= 10, outcomes


# -- structural damage: the card is well-formed YAML but its model is wrong ----------------
STRUCTURAL = ("reverse_edge", "drop_edge", "extra_edge", "unknown_symbol", "bad_target",
              "ghost_edge", "self_loop", "bad_block", "selection", "do_level", "per_row",
              "noise_on_root", "kind_mismatch", "duplicate_edge", "latent_everything")


@st.composite
def broken(draw: st.DrawFn) -> str:
    data = draw(dag_cards(max_nodes=5))
    names = list(data["variables"])
    edges = data["edges"]
    for _ in range(draw(st.integers(1, 2))):
        op = draw(st.sampled_from(STRUCTURAL))
        pick = draw(st.sampled_from(names))
        other = draw(st.sampled_from(names))
        spec = data["variables"][pick]
        if op == "reverse_edge" and edges:
            e = draw(st.sampled_from(edges))
            edges.append({"from": e["to"], "to": e["from"], "reason": "r"})
        elif op == "drop_edge" and edges:
            edges.pop(draw(st.integers(0, len(edges) - 1)))
        elif op in ("extra_edge", "self_loop", "duplicate_edge"):
            target = pick if op == "self_loop" else other
            if op == "duplicate_edge" and edges:
                edges.append(dict(draw(st.sampled_from(edges))))
            else:
                edges.append({"from": pick, "to": target, "reason": "r"})
        elif op == "unknown_symbol" and "equation" in spec:
            spec["equation"] += draw(st.sampled_from([" + zz", " * ghost", " - 0 * " + other]))
        elif op == "bad_target":
            data["interventions"] = {"targets": [pick, draw(st.sampled_from([other, "nobody"]))]}
        elif op == "ghost_edge":
            edges.append({"from": "ghost", "to": pick, "reason": "r"})
        elif op == "bad_block":
            rho = draw(st.sampled_from([0.5, 1.5, -1.0]))
            data["root_blocks"] = [{"variables": [pick, other],
                                    "correlation": [[1.0, rho], [rho, 1.0]]}]
        elif op == "selection":
            data["selection"] = {"condition": draw(st.sampled_from(
                [f"{pick} > 0", f"{pick} > 1e9", f"{pick} > nobody", f"{pick} +", "1 > 0"]))}
        elif op == "do_level":
            spec["intervention"] = {"meaning": "m", "handler": {"kind": "do", "value": "nope"}}
        elif op == "per_row":
            data["interventions"] = {"per_row": draw(st.integers(1, 20))}
        elif op == "noise_on_root" and "distribution" in spec:
            spec["noise"] = {"kind": "normal", "sd": 1.0}
        elif op == "kind_mismatch":
            spec["kind"] = draw(st.sampled_from(["count", "continuous", "binary", "ordinal"]))
        elif op == "latent_everything":
            for s in data["variables"].values():
                s["observed"] = False
    return yaml.safe_dump(data, sort_keys=False)


@SETTINGS.__class__(SETTINGS, max_examples=80)
@given(broken())
def test_structurally_broken_cards_fail_with_located_diagnostics(text: str) -> None:
    test_mutated_cards_compile_or_fail_with_located_diagnostics.hypothesis.inner_test(text)
