"""The registered gates (imported explicitly by ``run_gates``)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from scmspec.validators.base import GATES, GateContext, GateResult


@GATES.register("finite")
def finite(ctx: GateContext) -> Iterator[GateResult]:
    """No NaN or infinity in any generated column."""
    bad: dict[str, int] = {}
    for rep in ctx.replicates:
        for sample in (rep.obs, rep.obsint):
            for name, col in sample.columns.items():
                k = int(np.count_nonzero(~np.isfinite(col)))
                if k:
                    bad[name] = bad.get(name, 0) + k
    if not bad:
        yield GateResult("finite", "pass", "blocking", "every generated value is finite")
        return
    for name, k in sorted(bad.items()):
        yield GateResult("finite", "fail", "blocking",
                         f"{name!r} has {k} NaN/inf values; guard its equation "
                         "(e.g. log of a non-positive value, division by zero)",
                         ctx.compiled.source.nearest(("variables", name)), (name,), float(k), 0.0)
