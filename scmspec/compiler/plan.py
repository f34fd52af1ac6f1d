"""The executable form of an SCM: a topologically ordered tuple of steps.

A :class:`Step` separates the exogenous draw (root value, noise, one uniform
per random-draw site) from the deterministic ``evaluate`` of the mechanism, as
DoWhy's gcm separates ``draw_noise_samples`` from ``evaluate``. Interventions
are ``Plan -> Plan`` transforms (:func:`do`), so the sampler has no special
cases for them beyond per-row handlers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from scmspec.compiler.kinds.interventions import HandlerBase
from scmspec.compiler.kinds.noise import NoiseBase, NoNoise
from scmspec.compiler.kinds.roots import RootBase
from scmspec.errors import Span

Array = np.ndarray
Evaluate = Callable[..., Array]


@dataclass(frozen=True)
class Step:
    """How one variable is generated."""

    name: str
    parents: tuple[str, ...]
    kind: str  # continuous, binary, count, ordinal, categorical
    evaluate: Evaluate | None = None  # f(*parents, *site_uniforms) for mechanisms
    root: RootBase | None = None  # distribution for roots
    noise: NoiseBase = field(default_factory=NoNoise)
    sites: int = 0  # random-draw call sites in the equation
    block: int | None = None  # index of the root block of a root
    affine: tuple[float, float] | None = None  # root value x becomes (x - loc) / scale
    constant: float | None = None  # set by do(): the variable is pinned
    handler: HandlerBase | None = None  # the card's intervention handler (the first named)
    # Named handlers the protocol chooses among, row by row (empty: just `handler`).
    handlers: tuple[tuple[str, HandlerBase], ...] = ()
    observed: bool = True
    # The canonical equation or distribution text (for humans and goldens), or a function
    # that prints it: printing an equation is sympy work a sampler never needs, so lower
    # defers it to the first read of ``text``.
    text_source: str | Callable[[], str] = field(default="", compare=False)
    span: Span | None = None  # where the equation is written (sampling errors point there)
    allowed: tuple[float, ...] | None = None  # values a coded kind may take (binary 0/1, codes)
    # Levels with values (or a code base): level index i is written as level_values[i].
    level_values: tuple[float, ...] | None = None

    @property
    def text(self) -> str:
        """The canonical equation or distribution text (printed on first read)."""
        text = self.text_source
        if not isinstance(text, str):
            text = text()
            object.__setattr__(self, "text_source", text)  # printed once
        return text

    @property
    def discrete(self) -> bool:
        return self.kind != "continuous"


@dataclass(frozen=True)
class Block:
    """Roots drawn together: a copula's uniforms are fed to each root's inverse CDF.

    ``gaussian_copula`` correlates normals (``cholesky``); ``uniform_ball`` uses the
    coordinates of a uniform draw from the unit ball; ``independent`` draws nothing
    jointly (the block only standardises its roots, see ``Step.affine``).
    """

    variables: tuple[str, ...]
    cholesky: Array | None
    kind: str = "gaussian_copula"


@dataclass(frozen=True)
class Plan:
    """An executable SCM: steps in topological order plus what the data protocol needs."""

    card_id: str
    steps: tuple[Step, ...]
    blocks: tuple[Block, ...] = ()
    targets: tuple[str, ...] = ()
    per_row: int = 1
    selection: Evaluate | None = None
    selection_inputs: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()  # observed variables, in declaration order
    # observed_if: (variable, condition, its inputs); the cell is missing where it fails.
    missing: tuple[tuple[str, Evaluate, tuple[str, ...]], ...] = ()

    def step(self, name: str) -> Step:
        for s in self.steps:
            if s.name == name:
                return s
        raise KeyError(name)

    def __str__(self) -> str:
        lines = [f"plan {self.card_id}"]
        for s in self.steps:
            src = f"const {s.constant!r}" if s.constant is not None else s.text
            noise = "" if s.noise.kind == "none" else f" + noise[{s.noise.kind}]"
            flags = "" if s.observed else " (latent)"
            lines.append(f"  {s.name}: {s.kind}{flags} <- ({', '.join(s.parents)}) {src}{noise}")
        if self.targets:
            lines.append(f"  targets: {', '.join(self.targets)} (per row {self.per_row})")
        return "\n".join(lines)


def do(plan: Plan, values: Mapping[str, float]) -> Plan:
    """Graph surgery: pin each variable to a value and cut its incoming edges.

    Non-descendants are untouched: their steps and random streams do not change.
    """
    unknown = set(values) - {s.name for s in plan.steps}
    if unknown:
        raise KeyError(f"do() on unknown variables: {sorted(unknown)}")
    steps = tuple(
        replace(s, parents=(), constant=float(values[s.name]), evaluate=None, root=None,
                block=None, noise=NoNoise(), sites=0) if s.name in values else s
        for s in plan.steps
    )
    return replace(plan, steps=steps)


def with_handlers(plan: Plan, handlers: Mapping[str, HandlerBase]) -> Plan:
    """Replace the intervention handlers of some variables (used by ``SCM.intervene``)."""
    steps = tuple(replace(s, handler=handlers[s.name]) if s.name in handlers else s
                  for s in plan.steps)
    return replace(plan, steps=steps)
