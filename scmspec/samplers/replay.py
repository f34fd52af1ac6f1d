"""Natural values recomputed from a pass's own streams: what a split holds without interventions.

The ``intervention_effect`` gate proves that an intervention moves its targets and
nothing else by comparing the released rows with the values the same random streams
give when nobody intervenes. It needs those values only on the intervened rows, and
only a few of them (a target's own step) on later replicates; this module recomputes
exactly those, with the sampler's own arithmetic and streams, and no handler.

Every stream is still drawn in full, n values per draw site, in the order a pass
draws them, so whatever decides a row's value (its position in each stream) is what
:func:`~scmspec.samplers.numpy_sampler.run_pass` would use; only the mechanisms are
evaluated on the chosen rows. This is exact when every step computes each row from
that row's inputs alone: equations (lowered by sympy to numpy ufuncs), roots and the
noise kinds whose ``apply`` is elementwise. Structured mechanisms multiply matrices,
and a BLAS kernel may round a row differently in a batch of another size, so callers
replay plans holding them with ``run_pass`` (see :func:`rowwise`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from scmspec.compiler.kinds.noise import NoNoise, NormalNoise
from scmspec.compiler.kinds.roots import NormalRoot
from scmspec.compiler.plan import Plan, Step
from scmspec.samplers.choices import to_level_values
from scmspec.samplers.numpy_sampler import _block_uniforms, _natural, evaluate_step
from scmspec.samplers.streams import Streams

Array = np.ndarray
Rows = slice | Array
# Noise kinds whose ``apply`` reads the parents through a matrix product.
_MATRIX_NOISE = frozenset({"rff_heteroskedastic"})


def rowwise(plan: Plan, structured: Iterable[str] = ()) -> bool:
    """Whether :func:`natural_rows` on a subset of rows is bit-identical to ``run_pass``.

    ``structured`` names the variables lowered from a structured ``mechanism:`` kind
    (the plan does not record how a step was lowered); those, and noise whose scale is
    a matrix product of the parents, make the answer False.
    """
    return not set(structured) and not any(
        getattr(s.noise, "kind", None) in _MATRIX_NOISE for s in plan.steps)


def natural_rows(plan: Plan, n: int, streams: Streams, rows: Rows) -> Array:
    """(variables, rows) table of every variable's natural value on ``rows`` of an n-row pass.

    Row i of the table is ``plan.steps[i]``. Equal, bit for bit, to
    ``run_pass(plan, n, streams)[v][rows]`` for each variable v when the plan is
    :func:`rowwise`: each stream is drawn exactly as the pass draws it (all n rows),
    then only ``rows`` are kept and evaluated. Rows must be a slice or an index array
    (a contiguous slice avoids copies).
    """
    uniforms = _block_uniforms(plan, n, streams)
    m = len(range(n)[rows]) if isinstance(rows, slice) else len(rows)
    table = np.empty((len(plan.steps), m))
    scratch = np.empty(n)
    cols: dict[str, Array] = {}
    for step, x in zip(plan.steps, table):
        # A step that draws nothing needs no stream (re-keying one has no side effect).
        draws = step.root is not None or step.sites or type(step.noise) is not NoNoise
        rng = streams.generator(step.name) if draws and step.constant is None else None
        _natural_on(step, cols, n, rng, uniforms, rows, scratch, x)
        if step.level_values is not None and step.root is not None:  # roots draw indices
            to_level_values(step.level_values, x)
        cols[step.name] = x
    return table


def _natural_on(step: Step, cols: Mapping[str, Array], n: int, rng: Any,
                uniforms: Mapping[str, Array], rows: Rows, scratch: Array, out: Array) -> None:
    """``numpy_sampler._natural`` restricted to ``rows``: same draws, same operations.

    ``cols`` hold the parents' values on ``rows`` only; every draw covers all n rows.
    A normal draw is scaled after the rows are taken: the same two operations on each
    kept value as :func:`~scmspec.samplers.numpy_sampler._normal_into`, so the same bits.
    """
    if step.constant is not None:
        out[:] = step.constant
        return
    root = step.root
    if root is not None:
        if step.name in uniforms:
            out[:] = root.ppf(uniforms[step.name][rows])
        elif type(root) is NormalRoot:
            _normal_rows(rng, scratch, rows, root.mean, root.sd, out)
        else:
            out[:] = root.draw(rng, n)[rows]
        if step.affine is not None:
            out -= step.affine[0]
            out /= step.affine[1]
        return
    noise = step.noise
    normal_sd = (noise.scale_value() if type(noise) is NormalNoise and noise.mode == "additive"
                 else None)
    eps = None
    if normal_sd is not None:
        _normal_rows(rng, scratch, rows, 0.0, normal_sd, out)
    else:
        eps = noise.draw(rng, n)
        eps = None if eps is None else eps[rows]
    draws = [rng.random(n)[rows] for _ in range(step.sites)]
    f = evaluate_step(step, [cols[p] for p in step.parents], draws)
    if normal_sd is not None:
        out += f
    elif np.ndim(f) == 0:
        out[:] = noise.apply(np.full(len(out), float(f)), eps, {p: cols[p] for p in step.parents})
    else:
        out[:] = noise.apply(f, eps, {p: cols[p] for p in step.parents})


def _normal_rows(rng: np.random.Generator, scratch: Array, rows: Rows, loc: float,
                 scale: float, out: Array) -> None:
    """``out[:] = rng.normal(loc, scale, n)[rows]``, bit for bit (see ``_normal_into``)."""
    rng.standard_normal(out=scratch)
    np.multiply(scratch[rows], scale, out=out)
    out += loc


def natural_steps(plan: Plan, names: Iterable[str], columns: Mapping[str, Array], n: int,
                  streams: Streams) -> dict[str, Array]:
    """Each named variable's own step on the given columns, with its own stream, no handler.

    ``columns`` hold n rows of (at least) the variables' parents. Where those parents
    are natural, so is the result, bit for bit: it is the pass's own per-variable step.
    """
    by_name = {s.name: s for s in plan.steps}
    uniforms = _block_uniforms(plan, n, streams) if plan.blocks else {}
    out = {}
    for v in names:
        col = np.empty(n)
        _natural(by_name[v], columns, n, streams.generator(v), uniforms, col)
        out[v] = col
    return out
