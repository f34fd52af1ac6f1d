"""Design search: the setting of several targets with the best expected outcome.

The objective of a design d is the mean of the outcome Y when every row is built to d:
E[Y | do(d)] over the whole population (``all``), or E[Y | S = 1, do(d)] among the rows
that pass the card's selection (``selected``, what the logs would show). By default
(``auto``) the outcome is read before selection when it is one of the variables the
selection condition reads (the card says the outcome is survival: ``survived == 1``),
since among logged rows it would be constant; otherwise among selected rows.

Search (one common-random-numbers run of n rows, split ``optimize``, so every design is
compared on the same draws): a grid over every knob (each level of a discrete knob,
evenly spaced points of a continuous or count knob's range, as many as half the budget
allows), then a pattern search from the best grid design: try each continuous or count
knob one step up and down and each other level of each level knob, move to a strictly
better design, halve the steps when none is better; until the budget of design
evaluations is spent or the steps are below 1/1000 of the ranges. Ties keep the design
found first. The best design, the runner-ups (the next best designs, each at least one
grid step from those before it) and any compared designs are then re-estimated on an
independent run (split ``optimize-check``), so their estimates are not biased by having
been selected as the maximum (runner-ups differ from every design ranked above them by a
level, or by at least a tenth of a knob's range); standard errors are sd / sqrt(n) (ratio
estimators with the delta method for ``selected``) and differences to the best are paired.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from scmspec.effects.designs import Design, DesignError, Knob, check_variable, handlers, knob
from scmspec.effects.estimate import paired, paired_selected
from scmspec.samplers.arms import rerun
from scmspec.samplers.numpy_sampler import run_pass, selected
from scmspec.samplers.scm import SCM
from scmspec.samplers.streams import Streams

Array = np.ndarray
SEARCH_SPLIT, CHECK_SPLIT = "optimize", "optimize-check"
POPULATIONS = ("auto", "all", "selected")


@dataclass(frozen=True)
class Goal:
    """What to optimise: the outcome, the direction, the population and fixed context."""

    outcome: str
    maximize: bool = True
    population: str = "auto"
    fixed: Design = field(default_factory=dict)  # held for every design (e.g. the stage)


@dataclass(frozen=True)
class Scored:
    """A design's check-run estimate, with its difference to the best design (paired)."""

    design: Design
    estimate: float
    se: float
    diff: float = 0.0
    diff_se: float = 0.0


@dataclass(frozen=True)
class Optimum:
    """The result of a search."""

    goal: Goal
    population: str  # all | selected, as resolved
    knobs: tuple[Knob, ...]
    best: Scored
    runners: tuple[Scored, ...]
    compared: tuple[Scored, ...]
    evaluations: int
    rows: int
    seed: int


class _Objective:
    """Evaluates designs on one run's rows: control pass once, then affected steps only."""

    def __init__(self, scm: SCM, streams: Streams, rows: int, goal: Goal, population: str):
        self.scm, self.streams, self.rows, self.goal = scm, streams, rows, goal
        self.population = population
        self.control = run_pass(scm.plan, rows, streams)
        self.cache: dict[tuple[tuple[str, float], ...], float] = {}

    def columns(self, design: Mapping[str, float]) -> tuple[Array, Array]:
        """The outcome on every row under the design, and which rows pass selection."""
        read = (self.goal.outcome, *self.scm.plan.selection_inputs)
        cols = rerun(self.scm.plan, self.rows, self.streams, self.control,
                     handlers({**self.goal.fixed, **design}), self.control, only=read)
        y = np.asarray(cols[self.goal.outcome], dtype=float)
        if self.population == "selected":
            return y, selected(self.scm.plan, cols, self.rows).astype(float)
        return y, np.ones(self.rows)

    def score(self, design: Design) -> float:
        """The design's estimate, signed so that larger is better (cached)."""
        key = tuple(sorted(design.items()))
        if key not in self.cache:
            y, s = self.columns(design)
            mean = float((y * s).sum() / s.sum()) if s.sum() else float("nan")
            self.cache[key] = mean if self.goal.maximize else -mean
        return self.cache[key]


def optimize(scm: SCM, goal: Goal, knobs: Sequence[str], budget: int = 100, rows: int = 20_000,
             seed: int | None = None, top: int = 3,
             compare: Sequence[Design] = ()) -> Optimum:
    """Search the knobs' joint space for the design with the best expected outcome."""
    seed = scm.compiled.card.protocol.seed if seed is None else seed
    _check_knobs(scm, goal, knobs)
    population = _population(scm, goal)
    search = _Objective(scm, scm.streams(seed, SEARCH_SPLIT, 0), rows, goal, population)
    space = tuple(knob(scm, k, search.control[k]) for k in knobs)
    spacing = _grid(search, space, budget)
    _refine(search, space, spacing, budget)
    ranked = sorted(search.cache.items(),  # stable: ties keep the order found
                    key=lambda kv: -kv[1] if np.isfinite(kv[1]) else np.inf)
    designs = [dict(k) for k, _ in ranked]
    chosen = _distinct(designs, space, top + 1)
    check = _Objective(scm, scm.streams(seed, CHECK_SPLIT, 0), rows, goal, population)
    scored = _check(check, [*chosen, *compare])
    return Optimum(goal, population, space, scored[0], tuple(scored[1:len(chosen)]),
                   tuple(scored[len(chosen):]), len(search.cache), rows, seed)


def _check_knobs(scm: SCM, goal: Goal, knobs: Sequence[str]) -> None:
    if not knobs:
        raise DesignError("give at least one knob")
    for k in knobs:
        check_variable(scm, k, "knob")
    if len(set(knobs)) != len(knobs):
        raise DesignError(f"a knob is named twice in {', '.join(knobs)}")
    if goal.outcome in knobs:
        raise DesignError(f"the outcome {goal.outcome!r} cannot also be a knob")
    if set(knobs) & set(goal.fixed):
        raise DesignError(f"{', '.join(sorted(set(knobs) & set(goal.fixed)))} is both a knob "
                          "and held fixed")


def _population(scm: SCM, goal: Goal) -> str:
    check_variable(scm, goal.outcome, "outcome", intervenable=False)
    if scm.plan.step(goal.outcome).kind == "categorical":
        raise DesignError(f"outcome {goal.outcome!r} is categorical: its codes have no mean")
    if goal.population not in POPULATIONS:
        raise DesignError(f"population must be one of {', '.join(POPULATIONS)}")
    if scm.plan.selection is None:
        return "all"
    if goal.population != "auto":
        return goal.population
    return "all" if goal.outcome in scm.plan.selection_inputs else "selected"


def _grid(objective: _Objective, space: Sequence[Knob], budget: int) -> dict[str, float]:
    """Evaluate the grid; return each numeric knob's grid spacing (the first search step)."""
    combos = int(np.prod([len(k.codes) for k in space if k.kind == "levels"]))
    numeric = [k for k in space if k.kind != "levels"]
    smallest = combos * 2 ** len(numeric)  # every level, both ends of every range
    if smallest > budget:
        raise DesignError(f"the smallest grid of these knobs has {smallest} designs (every "
                          "level, both ends of every range), over the budget of "
                          f"{budget}: raise --budget or use fewer knobs")
    points = int((max(budget // 2, combos) / combos) ** (1 / max(len(numeric), 1)))
    grids = [k.grid(points) for k in space]
    for values in itertools.product(*grids):
        objective.score(dict(zip((k.name for k in space), values)))
    return {k.name: (k.high - k.low) / max(len(g) - 1, 1)
            for k, g in zip(space, grids) if k.kind != "levels"}


def _refine(objective: _Objective, space: Sequence[Knob], spacing: Mapping[str, float],
            budget: int) -> None:
    """Pattern search from the best design so far, until the budget or the steps run out."""
    best = dict(max(objective.cache.items(), key=lambda kv: kv[1])[0])
    steps = {k: (max(1.0, np.floor(s / 2)) if _integer(space, k) else s / 2)
             for k, s in spacing.items()}
    while len(objective.cache) < budget:
        moved = False
        for candidate in _neighbours(best, space, steps):
            if len(objective.cache) >= budget:
                break
            if objective.score(candidate) > objective.score(best):
                best, moved = candidate, True
        if moved:
            continue
        if all(s < 1e-3 * (k.high - k.low) or (k.kind == "integer" and s <= 1)
               for k in space if k.kind != "levels" for s in [steps[k.name]]):
            return
        steps = {k: (max(1.0, np.floor(s / 2)) if _integer(space, k) else s / 2)
                 for k, s in steps.items()}


def _integer(space: Sequence[Knob], name: str) -> bool:
    return any(k.name == name and k.kind == "integer" for k in space)


def _neighbours(best: Design, space: Sequence[Knob], steps: Mapping[str, float]) -> list[Design]:
    out = []
    for k in space:
        if k.kind == "levels":
            out += [{**best, k.name: c} for c in k.codes if c != best[k.name]]
            continue
        for sign in (1.0, -1.0):
            value = k.clip(best[k.name] + sign * steps[k.name])
            if value != best[k.name]:
                out.append({**best, k.name: value})
    return out


def _distinct(designs: Sequence[Design], space: Sequence[Knob], count: int) -> list[Design]:
    """The best designs in order, skipping any near one already taken (same levels, every
    numeric knob within a tenth of its range)."""
    chosen: list[Design] = []
    for d in designs:
        near = any(all(d[k.name] == c[k.name] if k.kind == "levels"
                       else abs(d[k.name] - c[k.name]) < 0.1 * (k.high - k.low) for k in space)
                   for c in chosen)
        if not near:
            chosen.append(d)
        if len(chosen) == count:
            break
    return chosen


def _check(objective: _Objective, designs: Sequence[Design]) -> list[Scored]:
    """Estimates on the independent check run; differences paired with the first design."""
    arms = [objective.columns(d) for d in designs]
    (y0, s0), out = arms[0], []
    zeros, ones = np.zeros((1, objective.rows)), np.ones(objective.rows)
    for d, (y, s) in zip(designs, arms):
        if objective.population == "selected":
            est, se, _ = paired_selected(y[None], zeros, s, ones)
            diff, diff_se, _ = paired_selected(y[None], y0[None], s, s0)
        else:
            est, se = paired(y[None], zeros)
            diff, diff_se = paired(y[None], y0[None])
        out.append(Scored(d, float(est[0]), float(se[0]), float(diff[0]), float(diff_se[0])))
    return out
