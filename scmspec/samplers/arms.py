"""Intervened arms that recompute only what an intervention can change.

Effect truth and design search compare the same rows (the same exogenous draws) with
and without an intervention, many times over. Only the intervened variables and their
descendants can differ: every other variable reads the same parents and draws from the
same keyed stream (:mod:`scmspec.samplers.streams`), so its values are, bit for bit,
those of the control pass. :func:`rerun` therefore starts from the control pass's
columns and evaluates only the affected steps, in plan order, with the sampler's own
per-step code. Its result equals ``run_pass(plan, n, streams, forced=handlers,
pilot=lambda: baseline)`` bit for bit (``tests/unit/test_arms.py`` checks this on every
shipped card), at the cost of the affected steps alone; a hard do() target costs nothing
(it ignores its natural value and its stream).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from scmspec.compiler.kinds.interventions import DoHandler, HandlerBase
from scmspec.compiler.plan import Plan
from scmspec.samplers.numpy_sampler import _block_uniforms, _natural
from scmspec.samplers.streams import Streams

Array = np.ndarray
_NO_RNG = np.random.default_rng(0)  # handed to do(), which never draws


def affected(plan: Plan, targets: Iterable[str]) -> frozenset[str]:
    """The targets and every variable downstream of them (plan order makes one pass enough).

    Example:
        >>> import scmspec
        >>> scm = scmspec.compile_text('''
        ... id: demo
        ... title: demo
        ... family: semantic
        ... domain: demo
        ... variables:
        ...   x: {meaning: a, distribution: {kind: normal}}
        ...   y: {meaning: b, equation: 2 * x}
        ...   z: {meaning: c, distribution: {kind: normal}}
        ... edges: [{from: x, to: y, reason: r}]
        ... ''')
        >>> sorted(affected(scm.plan, ["x"]))
        ['x', 'y']
    """
    hit = set(targets)
    for step in plan.steps:
        if any(p in hit for p in step.parents):
            hit.add(step.name)
    return frozenset(hit)


def ancestors(plan: Plan, names: Iterable[str]) -> frozenset[str]:
    """The named variables and everything upstream of them."""
    need = set(names)
    for step in reversed(plan.steps):
        if step.name in need:
            need.update(step.parents)
    return frozenset(need)


def rerun(plan: Plan, n: int, streams: Streams, control: Mapping[str, Array],
          handlers: Mapping[str, HandlerBase],
          baseline: Mapping[str, Array] | None = None,
          only: Iterable[str] | None = None) -> dict[str, Array]:
    """The columns of an n-row pass with ``handlers`` applied to every row of their targets.

    ``control`` holds the columns of ``run_pass(plan, n, streams)`` (no intervention); the
    returned dict shares its unaffected columns (do not write to them). Data-driven
    handlers (resample, setpoint, ...) read their target's values in ``baseline``, as
    ``run_pass`` reads its pilot when every row is intervened. With ``only``, just those
    variables (and what they need) are recomputed; other affected ones are left out of
    the result rather than returned stale.
    """
    hit = affected(plan, handlers)
    cols = dict(control)
    if only is not None:
        need = ancestors(plan, only)
        for v in hit - need:
            cols.pop(v, None)
        hit = hit & need
    uniforms: dict[str, Array] | None = None
    for step in plan.steps:
        if step.name not in hit:
            continue
        handler = handlers.get(step.name)
        if isinstance(handler, DoHandler):  # reads neither its natural value nor its stream
            cols[step.name] = handler.apply(np.empty(n), control[step.name][:0], _NO_RNG,
                                            step.discrete)
            continue
        if step.block is not None and uniforms is None:  # only a copula member reads them
            uniforms = _block_uniforms(plan, n, streams)
        rng = streams.generator(step.name)
        x = np.empty(n)
        _natural(step, cols, n, rng, uniforms or {}, x)
        if handler is not None:
            base = x[:0]
            if handler.needs_baseline():
                if baseline is None:
                    raise RuntimeError("a data-driven handler needs a baseline")  # misuse
                base = baseline[step.name]
            x[:] = handler.apply(x, base, rng, step.discrete)
        cols[step.name] = x
    return cols
