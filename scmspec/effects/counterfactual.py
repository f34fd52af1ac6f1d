"""Counterfactual truth: released rows recomputed under an intervention from their own draws.

A row's *exogenous draws* are everything the sampler drew for it, from streams keyed by
(seed, card, split, replicate, chunk, variable), at the row's position in its pass: root
values (or a copula block's uniforms), noise terms, and one uniform per random-draw site
in an equation (``bernoulli(p)`` is ``u < p``, ``poisson(rate)`` the inverse CDF at u).
The counterfactual keeps all of them and changes only the intervention: the target is set
by the card's handler (a data-driven handler uses the fixed quantities of the effect
run, recorded in effects.json; a random handler such as resample draws its value from the
target's own stream at the row's position), and every descendant is recomputed. An
in-equation draw is therefore coupled through its uniform: the counterfactual of
``bernoulli(p)`` is ``u < p'`` with the same u. That is one choice among the couplings
consistent with the SCM's distributions, the one the card's executable form defines.

Selection: released rows are the rows that passed selection in the factual world. With
selection the sampler draws chunks of rows and keeps those that pass; each released row
is recomputed at its position in its own chunk's pass (``Sample.passes``), never shifted
by the rows dropped before it. The counterfactual of a released row is *not* filtered
again: a drone logged because it survived may not have survived under the intervention,
and the column ``selected`` says whether the counterfactual row meets the condition.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from scmspec.compiler.kinds.interventions import HandlerBase
from scmspec.errors import InternalError
from scmspec.samplers.arms import affected
from scmspec.samplers.numpy_sampler import Sample, run_pass, selected
from scmspec.samplers.scm import SCM, typed_column
from scmspec.samplers.streams import Streams

Array = np.ndarray
DEFAULT_CF_ROWS = 100  # the first rows of rep-0/obs.csv


def counterfactuals(scm: SCM, released: Sample, streams: Streams,
                    handlers: Mapping[str, HandlerBase], baseline: Mapping[str, Array],
                    rows: int = DEFAULT_CF_ROWS) -> pd.DataFrame:
    """Counterfactual values of the first ``rows`` released rows under each handler.

    ``released`` is the split's sample (an observational split: no intervened rows) and
    ``streams`` the streams it was drawn with. One table row per (released row, target):
    ``row``, ``target``, then every observed variable (the factual value where the
    target cannot reach it, bit for bit), then ``selected`` when the card has selection.
    """
    plan = scm.plan
    origin, sizes = released.passes()
    take = np.arange(min(rows, released.n))
    frames = []
    for target, handler in handlers.items():
        cols = {v: np.empty(take.size) for v in released.columns}
        for chunk in np.unique(origin[take, 0]):
            mine = take[origin[take, 0] == chunk]
            full = run_pass(plan, sizes[chunk], streams.child(chunk=int(chunk)),
                            forced={target: handler}, pilot=lambda: dict(baseline))
            for v in cols:
                cols[v][mine] = full[v][origin[mine, 1]]
        _check_factual(scm, target, cols, released, take)
        frame = {"row": take, "target": np.full(take.size, target, dtype=object)}
        kinds = {v: s.kind for v, s in scm.compiled.card.variables.items()}
        frame.update({v: typed_column(cols[v], kinds[v]) for v in plan.columns})
        if plan.selection is not None:
            frame["selected"] = selected(plan, cols, take.size).astype(np.int64)
        frames.append(pd.DataFrame(frame))
    if not frames:
        return pd.DataFrame(columns=["row", "target", *plan.columns])
    return pd.concat(frames, ignore_index=True)


def _check_factual(scm: SCM, target: str, cols: Mapping[str, Array], released: Sample,
                   take: Array) -> None:
    """Variables the target cannot reach must equal the released values bit for bit.

    This proves the rows were matched to their own draws: a wrong chunk or position would
    show here as a changed non-descendant.
    """
    moved = affected(scm.plan, [target])
    wrong = [v for v in cols if v not in moved
             and cols[v].tobytes() != released.columns[v][take].tobytes()]
    if wrong:
        raise InternalError(f"counterfactual rows under {target} do not match the released "
                            f"rows on {wrong} (a bug in scmspec)")
