"""The grid card language: one short card that expands into many synthetic cards.

Three shapes share one model (see docs/synthetic.md and cards/synthetic/):

- a *cross*: graph families x dimensions x ``per_cell`` configurations, with the
  CausalArena schedule rules (difficulty cycle, root-dependency share, family counts by
  d, in-degree caps, target-pool sizes), optionally crossed with protocols and sizes;
- a *suite*: a ``base`` grid's configurations (a ``subset``), crossed with
  ``protocols`` and/or sample sizes ``n``; the SCMs are the base's (same seed and key);
- *presets*: named generators (the Heuresis families) x instance splits, with disjoint
  seed ranges per split.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from scmspec.compiler.spec import ID_PATTERN, ProtocolSpec, ReleaseState
from scmspec.compiler.specmodel import SpecModel
from scmspec.compiler.synthetic_spec import OutputSpec, Tag

Slot = Literal["clean", "single", "paired"]
CausalArenaCycle: list[Slot] = ["clean", "single", "single", "paired"]


class DifficultySchedule(SpecModel):
    """Within each graph-family x d cell, cycle through these slots (clean/single/paired)."""

    cycle: list[Slot] = Field(
        default_factory=lambda: list(CausalArenaCycle))
    stressors: list[Tag] | None = Field(None, description="default: the 8 stressors")


class DependencySchedule(SpecModel):
    """How many configurations per cell get a dependent root block, and which kinds."""

    per_cell: Annotated[int, Field(ge=0)] = 4
    kinds: list[Tag] = Field(default_factory=lambda: ["common_factor", "random_covariance",
                                                      "uniform_ball"])


class SubsetSpec(SpecModel):
    """A suite's slice of its base grid: these dimensions, the first k per cell."""

    d: list[int] | None = None
    graphs: list[Tag] | None = None
    per_cell: Annotated[int, Field(ge=1)] | None = None


class GridSpec(SpecModel):
    """A grid card (top-level ``grid: 1``)."""

    grid: Literal[1] = Field(description="grid card format version")
    id: str = Field(pattern=ID_PATTERN)
    title: str
    description: str = ""
    domain: str = "synthetic"
    references: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    release: ReleaseState | None = Field(None, description="release state of every generated "
                                         "card (see the card field); unset = draft")
    seed: Annotated[int, Field(ge=0, lt=2**63)] = 0
    # cross
    graphs: list[Tag] | None = None
    d: list[Annotated[int, Field(ge=3, le=10_000)]] | None = None
    per_cell: Annotated[int, Field(ge=1)] = 20
    difficulty: DifficultySchedule = Field(default_factory=DifficultySchedule)
    root_dependency: DependencySchedule = Field(default_factory=DependencySchedule)
    mechanisms: list[Tag] | None = Field(None, description="fixed active families (default: "
                                         "drawn per configuration, count by d)")
    noise: list[Tag] | None = None
    roots: list[Tag] | None = None
    # suite
    base: str | None = Field(None, description="path of the base grid, relative to this card")
    subset: SubsetSpec | None = None
    # presets
    presets: list[Tag] | None = None
    instances: dict[Literal["dev", "test"], Annotated[int, Field(ge=0)]] | None = None
    seeds: dict[Literal["dev", "test"], Annotated[int, Field(ge=0)]] | None = None
    # every shape
    protocols: list[Tag] = Field(default_factory=lambda: ["default"])
    n: list[Annotated[int, Field(ge=1)]] | None = Field(None, description="sample sizes "
                                                        "(n_obs) to cross with")
    protocol: ProtocolSpec = Field(default_factory=ProtocolSpec)
    output: OutputSpec = Field(default_factory=OutputSpec)

    @model_validator(mode="after")
    def _one_shape(self) -> GridSpec:
        shapes = [self.graphs is not None, self.base is not None, self.presets is not None]
        if sum(shapes) != 1:
            raise ValueError("give exactly one of 'graphs' (with 'd'), 'base' (a suite) or "
                             "'presets'")
        if self.graphs is not None and not self.d:
            raise ValueError("a cross needs 'd', the dimensions")
        if self.presets is not None and not (self.instances and self.seeds):
            raise ValueError("presets need 'instances' and 'seeds' per split (dev, test)")
        return self
