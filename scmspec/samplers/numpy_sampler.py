"""The vectorised numpy sampler: one topological pass over all rows.

Interventional rows are evaluated in the same pass as observational rows: each
variable is computed for every row from its own exogenous draws, then the
rows where it is a target are overridden by its handler. Descendants are
recomputed automatically because they are evaluated later from the same
noise; non-descendants keep exactly their observational values. There is no
per-row Python. Selection (survivorship) keeps drawing chunks until enough
rows pass and fails clearly below 1% acceptance.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from scmspec.compiler.kinds.functions import DrawParameterError
from scmspec.compiler.kinds.interventions import HandlerBase
from scmspec.compiler.kinds.noise import NormalNoise
from scmspec.compiler.kinds.roots import NormalRoot
from scmspec.compiler.plan import Plan, Step
from scmspec.errors import Diagnostic, SamplingError
from scmspec.samplers.choices import choose_handlers, to_level_values
from scmspec.samplers.streams import Streams

Array = np.ndarray
MIN_BASELINE_ROWS = 100
PILOT_ROWS = 1000
MIN_ACCEPTANCE = 0.01
MAX_CHUNKS = 200


@dataclass(frozen=True)
class Sample:
    """Columns of one split plus which targets were intervened on which rows."""

    columns: dict[str, Array]  # every variable, latent included, in plan order
    targets: tuple[str, ...]  # the pool, column order of `assigned`
    assigned: Array  # (n, len(targets)) bool: row r intervened on target t
    handlers: dict[str, str]  # target -> handler kind actually applied
    acceptance: float  # fraction of drawn rows passing selection (1.0 without)
    drawn: int  # rows drawn before selection
    # Where each row was drawn, for recomputing it from its own exogenous draws: row i is
    # position origin[i, 1] of chunk origin[i, 0], a pass of chunk_rows[c] rows. None
    # without selection: row i is position i of the one pass (chunk 0).
    origin: Array | None = None
    chunk_rows: tuple[int, ...] = ()
    # Targets with named handlers: per row, the index (into `handler_names[t]`) of the
    # handler applied, -1 where the target was not intervened on.
    choices: dict[str, Array] = field(default_factory=dict)
    handler_names: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.assigned.shape[0])

    def passes(self) -> tuple[Array, tuple[int, ...]]:
        """(chunk, position) of every row, and the number of rows of each chunk's pass.

        A row's exogenous draws are those at its position in its chunk's pass, whose
        streams are ``streams.child(chunk=c)`` (chunk 0 is the split's own streams).
        """
        if self.origin is not None:
            return self.origin, self.chunk_rows
        rows = np.arange(self.n)
        return np.column_stack([np.zeros_like(rows), rows]), (self.n,)


def run_pass(plan: Plan, n: int, streams: Streams, assigned: Mapping[str, Array] | None = None,
             forced: Mapping[str, HandlerBase] | None = None,
             pilot: Callable[[], dict[str, Array]] | None = None,
             choices: Mapping[str, Array] | None = None) -> dict[str, Array]:
    """Evaluate every variable for n rows; override targets on their assigned rows.

    ``assigned`` maps a target to a boolean row mask; ``forced`` applies a
    handler to every row of a variable; ``choices`` gives, for a target with named
    handlers, the index of the handler each of its rows gets. Data-driven handlers
    read the target's values on rows with no intervention, or the ``pilot`` sample
    when fewer than 100 such rows exist. The returned columns are rows of one
    (variables, n) table, each written in place by its step, so no column aliases another.
    """
    assigned = assigned or {}
    forced = forced or {}
    choices = choices or {}
    clean = _clean_rows(n, assigned, forced)
    enough_clean = clean is not None and clean.sum() >= MIN_BASELINE_ROWS
    uniforms = _block_uniforms(plan, n, streams)
    table = np.empty((len(plan.steps), n))
    cols: dict[str, Array] = {}
    pilot_cols: dict[str, Array] | None = None

    def baseline(name: str, x: Array) -> Array:
        nonlocal pilot_cols
        if enough_clean:
            return x[clean]
        pilot_cols = pilot_cols if pilot_cols is not None else _pilot(pilot)
        return pilot_cols[name]

    for step, x in zip(plan.steps, table):
        rng = streams.generator(step.name)
        _natural(step, cols, n, rng, uniforms, x)
        if step.allowed is not None and step.root is None and step.constant is None:
            check_values(step, x, "its equation")
        if step.name in forced:
            _override(step, x, forced[step.name], None, baseline, rng)
        elif step.name in choices:
            for i, (_, handler) in enumerate(step.handlers):
                _override(step, x, handler, choices[step.name] == i, baseline, rng)
        elif step.name in assigned and step.handler is not None:
            _override(step, x, step.handler, assigned[step.name], baseline, rng)
        cols[step.name] = x
    return cols


def _override(step: Step, x: Array, handler: HandlerBase, rows: Array | None,
              baseline: Callable[[str, Array], Array], rng: np.random.Generator) -> None:
    """Apply ``handler`` to ``x`` in place, on ``rows`` (every row when None)."""
    if rows is not None and not rows.any():
        return
    base = baseline(step.name, x) if handler.needs_baseline() else x[:0]
    if rows is None:
        x[:] = handler.apply(x, base, rng, step.discrete)
    else:
        x[rows] = handler.apply(x[rows], base, rng, step.discrete)
    if step.allowed is not None:  # a coded kind keeps its values under intervention too
        check_values(step, x if rows is None else x[rows], f"its {handler.kind} intervention")


def _pilot(pilot: Callable[[], dict[str, Array]] | None) -> dict[str, Array]:
    if pilot is None:
        raise RuntimeError("a data-driven handler needs a baseline sample")  # internal misuse
    return pilot()


def _clean_rows(n: int, assigned: Mapping[str, Array], forced: Mapping[str, HandlerBase]
                ) -> Array | None:
    if forced:
        return None
    touched = np.zeros(n, dtype=bool)
    for rows in assigned.values():
        touched |= rows
    return ~touched


def _natural(step: Step, cols: Mapping[str, Array], n: int, rng: np.random.Generator,
             uniforms: Mapping[str, Array], out: Array) -> None:
    """The variable's natural value (see :func:`_natural_codes`). A root's draw is a level
    index 0..k-1, turned here into the level's value for a variable whose levels carry
    values (or a code base); an equation already yields values, since a level name in it
    reads as the level's value (a stray index is then SCM604, see :func:`check_values`)."""
    _natural_codes(step, cols, n, rng, uniforms, out)
    if step.level_values is not None and step.root is not None:
        to_level_values(step.level_values, out)


def _natural_codes(step: Step, cols: Mapping[str, Array], n: int, rng: np.random.Generator,
                   uniforms: Mapping[str, Array], out: Array) -> None:
    """Write the value the variable's own mechanism gives (before any intervention) to out.

    Draws happen in a fixed order from the variable's stream: root, or noise then
    one uniform per random-draw site. Normal roots and additive normal noise, by far
    the commonest, are drawn straight into ``out`` (see :func:`_normal_into`).
    """
    if step.constant is not None:
        out[:] = step.constant
        return
    root = step.root
    if root is not None:
        if step.name in uniforms:  # a copula block's member
            out[:] = root.ppf(uniforms[step.name])
        elif type(root) is NormalRoot:
            _normal_into(rng, out, root.mean, root.sd)
        else:
            out[:] = root.draw(rng, n)
        if step.affine is not None:  # a standardising root block
            out -= step.affine[0]
            out /= step.affine[1]
        return
    noise = step.noise
    normal_sd = (noise.scale_value() if type(noise) is NormalNoise and noise.mode == "additive"
                 else None)
    if normal_sd is not None:
        _normal_into(rng, out, 0.0, normal_sd)  # eps, in place
    else:
        eps = noise.draw(rng, n)
    draws = [rng.random(n) for _ in range(step.sites)]
    f = evaluate_step(step, [cols[p] for p in step.parents], draws)
    if normal_sd is not None:
        out += f  # f + eps; a scalar f broadcasts like np.full(n, f)
    elif np.ndim(f) == 0:
        out[:] = noise.apply(np.full(n, float(f)), eps, {p: cols[p] for p in step.parents})
    else:
        out[:] = noise.apply(f, eps, {p: cols[p] for p in step.parents})  # by name


def evaluate_step(step: Step, parents: list[Array], draws: list[Array]) -> Array:
    """The step's mechanism on parent columns and site uniforms, with draw checks located.

    A random draw whose parameters depend on the parents can be invalid on some rows
    only (``normal(0, -x)``); the draw refuses them, and this names the variable, its
    equation's location and the share of rows (SCM603), as a card error.
    """
    assert step.evaluate is not None
    try:
        return step.evaluate(*parents, *draws)
    except DrawParameterError as exc:
        share = exc.rows / max(exc.n, 1)
        raise SamplingError([Diagnostic(
            "SCM603", f"the equation of {step.name!r} draws {exc.function}() with {exc.problem} "
            f"on {share:.1%} of rows ({exc.rows} of {exc.n})", step.span,
            f"{exc.function}() needs {exc.need} on every row; keep its parameters valid for "
            "every value the parents take", f"variables.{step.name}.equation")]) from None


def check_values(step: Step, x: Array, source: str) -> None:
    """Refuse values a coded kind cannot take (a binary 0.64, level code 7 of two) as SCM604.

    NaN passes (the finite gate reports it); one vectorised test per coded variable. A
    root its block standardises (``Step.affine``) holds its codes standardised, by the
    same two operations as its draw, so the same bits.
    """
    allowed = np.array(step.allowed, dtype=float)
    if step.affine is not None:
        allowed -= step.affine[0]
        allowed /= step.affine[1]
    bad = ~(np.isin(x, allowed) | np.isnan(x))
    if not bad.any():
        return
    rows = int(np.count_nonzero(bad))
    example = float(x[bad][0])
    what = (("binary (0 or 1" + (", standardised" if step.affine is not None else "") + ")")
            if step.kind == "binary" else
            f"{step.kind} with level codes {', '.join(f'{a:g}' for a in step.allowed or ())}")
    hint = ("wrap the equation so it yields 0/1 (indicator(...), bernoulli(p), where(c, 1, 0)) "
            "or declare the variable continuous" if step.kind == "binary" else
            "make the equation (or handler) yield one of the level codes, e.g. with "
            "categorical(w0, w1, ...) or where(...)")
    raise SamplingError([Diagnostic(
        "SCM604", f"{step.name!r} is {what}, but {source} gives {example:g} on "
        f"{rows / max(x.size, 1):.1%} of rows ({rows} of {x.size})", step.span, hint,
        f"variables.{step.name}.equation")])


def _normal_into(rng: np.random.Generator, out: Array, loc: float, scale: float) -> None:
    """``out[:] = rng.normal(loc, scale, out.size)``, bit for bit, without a temporary.

    numpy's ``normal`` computes ``loc + scale * z`` per element from the same
    ziggurat ``z`` as ``standard_normal``; the two in-place ufuncs below round
    the same two operations in the same order.
    """
    rng.standard_normal(out=out)
    out *= scale
    out += loc


def _block_uniforms(plan: Plan, n: int, streams: Streams) -> dict[str, Array]:
    out: dict[str, Array] = {}
    for i, block in enumerate(plan.blocks):
        if block.kind == "independent":
            continue
        rng = streams.generator(f"block{i}", purpose="block")
        z = rng.standard_normal((n, len(block.variables)))
        if block.kind == "uniform_ball":
            u = ball_uniforms(z, rng.random(n))
        else:
            u = special.ndtr(z @ block.cholesky.T)  # type: ignore[union-attr]
        for j, v in enumerate(block.variables):
            out[v] = u[:, j]
    return out


def ball_uniforms(z: Array, v: Array) -> Array:
    """Copula uniforms of a uniform draw from the unit r-ball.

    The point is a random direction (normalised normals ``z``) times radius V^(1/r);
    each coordinate t of it has (t + 1) / 2 ~ Beta((r + 1) / 2, (r + 1) / 2), whose CDF
    turns it into a uniform.
    """
    r = z.shape[1]
    point = z / np.linalg.norm(z, axis=1, keepdims=True) * (v ** (1.0 / r))[:, None]
    a = (r + 1) / 2.0
    return special.betainc(a, a, (point + 1.0) / 2.0)  # type: ignore[no-any-return]


def assign_targets(pool: tuple[str, ...], n_int: int, per_row: int,
                   rng: np.random.Generator) -> Array:
    """Balanced assignment: each row gets per_row distinct targets; counts differ by <= 1.

    Example:
        >>> a = assign_targets(("a", "b", "c"), 7, 1, np.random.default_rng(0))
        >>> sorted(a.sum(axis=0).tolist()), a.sum(axis=1).tolist() == [1] * 7
        ([2, 2, 3], True)
    """
    k = len(pool)
    matrix = np.zeros((n_int, k), dtype=bool)
    if n_int == 0 or k == 0:
        return matrix
    order = rng.permutation(k)
    slots = (np.arange(n_int)[:, None] * per_row + np.arange(per_row)[None, :]) % k
    matrix[np.arange(n_int)[:, None], order[slots]] = True
    return matrix[rng.permutation(n_int)]


def sample(plan: Plan, n_obs: int, n_int: int, streams: Streams,
           targets: tuple[str, ...] | None = None, per_row: int | None = None,
           forced: Mapping[str, HandlerBase] | None = None) -> Sample:
    """Draw one split: n_obs observational rows, then n_int interventional rows."""
    pool = plan.targets if targets is None else targets
    per_row = per_row or plan.per_row
    if n_int and not pool:
        n_obs, n_int = n_obs + n_int, 0
    pilot = _pilot_factory(plan, streams)
    by_name = {s.name: s for s in plan.steps}  # plan.step() is a linear scan
    handlers = {t: (forced or {}).get(t) or by_name[t].handler for t in pool}
    kinds = {t: h.kind for t, h in handlers.items() if h is not None}
    names = {t: tuple(h for h, _ in by_name[t].handlers) for t in pool
             if by_name[t].handlers and t not in (forced or {})}
    if plan.selection is None:
        cols, matrix, choices = _draw_chunk(plan, n_obs, n_int, streams, pool, per_row, forced,
                                            pilot, names)
        return Sample(cols, pool, matrix, kinds, 1.0, n_obs + n_int, choices=choices,
                      handler_names=names)
    return _sample_selected(plan, n_obs, n_int, streams, pool, per_row, forced, pilot, kinds,
                            names)


def _pilot_factory(plan: Plan, streams: Streams) -> Callable[[], dict[str, Array]]:
    def pilot() -> dict[str, Array]:
        return run_pass(plan, PILOT_ROWS, streams.child(split=f"{streams.split}-baseline"))

    return pilot


def _draw_chunk(plan: Plan, n_obs: int, n_int: int, streams: Streams, pool: tuple[str, ...],
                per_row: int, forced: Mapping[str, HandlerBase] | None,
                pilot: Callable[[], dict[str, Array]], names: Mapping[str, tuple[str, ...]]
                ) -> tuple[dict[str, Array], Array, dict[str, Array]]:
    n = n_obs + n_int
    matrix = np.zeros((n, len(pool)), dtype=bool)
    rng = streams.generator("__assignment__", purpose="protocol")
    matrix[n_obs:] = assign_targets(pool, n_int, per_row, rng)
    assigned = {t: matrix[:, j] for j, t in enumerate(pool)} if n_int else {}
    choices = {t: choose_handlers(matrix[:, pool.index(t)], len(names[t]),
                                  streams.generator(t, purpose="handler"))
               for t in names}
    return run_pass(plan, n, streams, assigned, forced, pilot, choices), matrix, choices


def _sample_selected(plan: Plan, n_obs: int, n_int: int, streams: Streams,
                     pool: tuple[str, ...], per_row: int,
                     forced: Mapping[str, HandlerBase] | None,
                     pilot: Callable[[], dict[str, Array]], kinds: dict[str, str],
                     names: Mapping[str, tuple[str, ...]]) -> Sample:
    assert plan.selection is not None
    parts: list[tuple[dict[str, Array], Array, Array, Array, dict[str, Array]]] = []
    sizes: list[int] = []
    need_obs, need_int, drawn, accepted, rate, chunk = n_obs, n_int, 0, 0, 1.0, 0
    while need_obs > 0 or need_int > 0:
        if chunk >= MAX_CHUNKS:
            raise _selection_error(plan, accepted, drawn)
        grow = 1.0 if chunk == 0 else 1.2 / max(rate, MIN_ACCEPTANCE)
        size_obs = int(np.ceil(need_obs * grow))
        size_int = int(np.ceil(need_int * grow))
        cols, matrix, picks = _draw_chunk(plan, size_obs, size_int, streams.child(chunk=chunk),
                                          pool, per_row, forced, pilot, names)
        keep = selected(plan, cols, size_obs + size_int)
        drawn += size_obs + size_int
        accepted += int(keep.sum())
        rate = accepted / drawn
        if chunk == 0 and rate < MIN_ACCEPTANCE:
            raise _selection_error(plan, accepted, drawn)
        is_int = np.arange(size_obs + size_int) >= size_obs
        take_obs = np.flatnonzero(keep & ~is_int)[:need_obs]
        take_int = np.flatnonzero(keep & is_int)[:need_int]
        rows = np.concatenate([take_obs, take_int])
        parts.append(({k: v[rows] for k, v in cols.items()}, matrix[rows],
                      np.r_[np.zeros(take_obs.size, bool), np.ones(take_int.size, bool)],
                      np.column_stack([np.full(rows.size, chunk), rows]),
                      {t: c[rows] for t, c in picks.items()}))
        sizes.append(size_obs + size_int)
        need_obs -= take_obs.size
        need_int -= take_int.size
        chunk += 1
    obs_first = [np.flatnonzero(~p[2]) for p in parts] + [np.flatnonzero(p[2]) for p in parts]
    sources = [p for p in parts] * 2
    columns = {k: np.concatenate([src[0][k][idx] for src, idx in zip(sources, obs_first)])
               for k in parts[0][0]}
    matrix = np.concatenate([src[1][idx] for src, idx in zip(sources, obs_first)])
    origin = np.concatenate([src[3][idx] for src, idx in zip(sources, obs_first)])
    choices = {t: np.concatenate([src[4][t][idx] for src, idx in zip(sources, obs_first)])
               for t in names} if n_int else {}
    return Sample(columns, pool, matrix, kinds, rate, drawn, origin, tuple(sizes), choices,
                  dict(names))


def selected(plan: Plan, cols: Mapping[str, Array], n: int) -> Array:
    """Which of the n rows of a pass meet the card's selection condition (all without one)."""
    if plan.selection is None:
        return np.ones(n, dtype=bool)
    keep = plan.selection(*[cols[v] for v in plan.selection_inputs]) != 0
    return np.broadcast_to(keep, (n,))


def _selection_error(plan: Plan, accepted: int, drawn: int) -> SamplingError:
    return SamplingError([Diagnostic(
        "SCM601", f"selection accepts {accepted} of {drawn} drawn rows "
        f"({accepted / max(drawn, 1):.2%}), below the minimum of {MIN_ACCEPTANCE:.0%}",
        None, "loosen the selection condition or change the distributions feeding it",
        "selection.condition")])
