"""The ``synthetic:`` section of a card: which factors a generated SCM is drawn from.

A *factor card* names its factors (graph family and density, d, in-degree cap, active
mechanism/noise/root families, root dependency, difficulty stressors, intervention
protocol) and a seed, and leaves ``variables`` empty; ``materialize`` draws every
concrete parameter from them. The materialised card keeps this section with every
``null`` (drawn) factor filled in and one :class:`NodeRecord` per variable, so the
section of a materialised card is itself a complete factor card.

Only pydantic here: ``compiler/spec.py`` imports this module, and the factor
registries (graphs, stressors, protocols) check tags at materialisation time, where a
bad tag becomes a located diagnostic.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from scmspec.compiler.specmodel import SpecModel

Tag = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")]
Fraction = Annotated[float, Field(ge=0, le=1)]


class GraphFactor(SpecModel):
    """The graph: family, size, density and in-degree cap."""

    family: Tag = Field(description="graph family, e.g. erdos_renyi (docs/synthetic.md)")
    d: Annotated[int, Field(ge=3, le=10_000)] = Field(description="number of variables")
    density: Annotated[float, Field(gt=0, le=1)] | None = Field(
        None, description="the family's density parameter; default: drawn from its range")
    in_degree_cap: Annotated[int, Field(ge=1)] | None = Field(None, description="null: no cap")
    attempt: Annotated[int, Field(ge=0)] = Field(
        0, description="first graph attempt (grids advance it to avoid duplicate topologies)")


class OutputSpec(SpecModel):
    """Transforms of the written data (never of the ground truth or the gated values)."""

    standardize: bool = Field(False, description="standardise each written column "
                              "(mean 0, sd 1 over the file's rows); moments in metadata.json")


class NodeRecord(SpecModel):
    """How one variable was drawn (filled in by materialisation)."""

    position: int = Field(description="index in the generated causal order")
    mechanism: Tag | None = None
    noise: Tag | None = None
    root: Tag | None = None
    attempt: int = 0


class ObservationStressorSpec(SpecModel):
    """A post-sampling observation stressor with its concrete parameters."""

    kind: Literal["feature_warping", "outliers", "missingness", "feature_corruption"]
    fraction: Fraction = Field(description="share of entries (or, for warping, of columns)")
    columns: dict[str, Literal["signed_log", "tanh", "signed_sqrt"]] | None = Field(
        None, description="feature_warping: the warped columns and their transform")


class SyntheticSpec(SpecModel):
    """A generated SCM's factors and seed (see docs/synthetic.md)."""

    seed: Annotated[int, Field(ge=0, lt=2**63)] = 0
    key: str | None = Field(None, description="stream key; default: the card id. Cards "
                            "sharing seed and key draw the same SCM (suites reuse the pool's)")
    preset: Tag | None = Field(None, description="a named generator (heuresis lg, anm, ...) "
                               "instead of the factor grid")
    split: Literal["dev", "test"] | None = Field(None, description="presets: instance split")
    graph: GraphFactor
    mechanisms: list[Tag] | None = Field(None, description="active mechanism families; "
                                         "default: a count by d is drawn")
    noise: list[Tag] | None = Field(None, description="active noise families; default: drawn")
    roots: list[Tag] | None = Field(None, description="active root families; default: drawn "
                                    "by the number of roots")
    root_dependency: Tag = "independent"
    difficulty: list[Tag] = Field(default_factory=list, description="stressor tags; [] = clean")
    protocol: Tag = "default"
    targets: Annotated[int, Field(ge=0)] | None = Field(None, description="target-pool size; "
                                                        "default: drawn by d")
    per_row: Annotated[int, Field(ge=1, le=20)] | None = Field(
        None, description="targets per interventional row (multi-target protocols)")
    output: OutputSpec = Field(default_factory=OutputSpec)
    attempt: Annotated[int, Field(ge=0)] = Field(
        0, description="parameter attempt: compile advances it when the sampled data fail a "
        "data gate, so every parameter (not the graph) is redrawn from fresh streams")
    nodes: dict[str, NodeRecord] | None = Field(None, description="filled by materialisation")
    observation: list[ObservationStressorSpec] | None = Field(
        None, description="observation stressors with their parameters (materialised)")
