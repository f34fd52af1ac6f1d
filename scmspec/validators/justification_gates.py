"""The ``justifications`` gate: every written justification can apply to a real finding.

A justification relaxes a finding one step (warn -> pass, a justifiable blocking
fail -> warn; :func:`scmspec.validators.base.justify`). This gate warns about the
ones that cannot: an unknown gate, a blocking gate that may not be justified, an
empty text, or a scoped reason naming unknown variables or the wrong number of them.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from scmspec.validators.base import GATES, GateContext, GateResult, make_result
from scmspec.validators.thresholds import JUSTIFIABLE_BLOCKING, SEVERITY

# How many variables a finding of these gates names (a scoped justification must match).
SCOPE_SIZE = {"near_copy": 2, "category_dominance": 1, "latent_paths": 2}


def _scoped_problem(ctx: GateContext, gate: str, names: list[str]) -> str:
    """Why a scoped justification can never match a finding ('' when it can)."""
    unknown = [v for v in names if v not in ctx.compiled.card.variables]
    if unknown:
        return (f"the justification for {gate!r} names unknown variable(s) "
                f"{', '.join(map(repr, unknown))}; use the card's variable names")
    size = SCOPE_SIZE.get(gate)
    if size is not None and len(set(names)) != size:
        what = "a pair of variables" if size == 2 else "one variable"
        return (f"a scoped justification for {gate!r} must name {what} (got "
                f"{', '.join(map(repr, names))}); its findings are per "
                f"{'pair' if size == 2 else 'variable'}")
    return ""


@GATES.register("justifications")
def justifications(ctx: GateContext) -> Iterator[GateResult]:
    """Every justification names a known gate that a justification can relax."""
    notes = ctx.compiled.card.justifications
    ok = True
    for gate, text in notes.items():
        where = ctx.where("justifications", gate)
        if gate not in SEVERITY:
            ok = False
            guess = difflib.get_close_matches(gate, list(SEVERITY), n=1)
            hint = f"did you mean {guess[0]!r}?" if guess else "see docs/gates.md for gate ids"
            yield make_result("justifications", "warn", f"justification for unknown gate "
                              f"{gate!r}: {hint}", where, (gate,))
        elif SEVERITY[gate] == "blocking" and gate not in JUSTIFIABLE_BLOCKING:
            ok = False
            yield make_result("justifications", "warn", f"{gate!r} is a blocking gate and "
                              "cannot be justified away (only warnings, category_dominance and "
                              "near_copy can); fix the card instead", where, (gate,))
        elif isinstance(text, str) and not text.strip():
            ok = False
            yield make_result("justifications", "warn", f"the justification for {gate!r} is "
                              "empty; write why the finding is acceptable", where, (gate,))
        elif not isinstance(text, str):
            for i, entry in enumerate(text):
                problem = _scoped_problem(ctx, gate, entry.variables)
                if problem:
                    ok = False
                    yield make_result("justifications", "warn", problem,
                                      ctx.where("justifications", gate, i), (gate,))
    if ok:
        yield make_result("justifications", "pass" if notes else "skip",
                          f"{len(notes)} justifications, each for a relaxable gate" if notes
                          else "the card justifies nothing")
