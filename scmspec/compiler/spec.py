"""The card language, v1: frozen pydantic models, the typed AST of a card.

Equations stay strings here; sympy objects first appear in ``resolve``. The
JSON Schema that editors use (``docs/card.schema.json``) is exported from
:class:`Card` by ``scmspec schema``. Field docs below are the language reference.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from scmspec.compiler.kinds.interventions import HandlerSpec, ResampleHandler
from scmspec.compiler.kinds.mechanisms import MechanismSpec
from scmspec.compiler.kinds.noise import NoiseSpec, NoNoise
from scmspec.compiler.kinds.roots import RootSpec
from scmspec.compiler.specmodel import SpecModel
from scmspec.compiler.synthetic_spec import SyntheticSpec

NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_]{0,63}$"
ID_PATTERN = r"^[a-z0-9][a-z0-9_.\-]{0,127}$"
Name = Annotated[str, Field(pattern=NAME_PATTERN)]
Family = Literal["synthetic", "semantic", "formula"]
VariableKind = Literal["continuous", "binary", "count", "ordinal", "categorical"]
# Device names Windows reserves in every folder, with or without an extension
# (``con``, ``CON.txt``, ``lpt1.v2``): a card's id names its dataset folder.
WINDOWS_RESERVED = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                              *(f"lpt{i}" for i in range(1, 10))})
Role = Literal["root", "input", "setting", "process", "formula", "measurement", "readout",
               "flag", "outcome"]
ReleaseState = Literal["draft", "reviewed", "released", "retired"]
RELEASE_STATES: tuple[str, ...] = ("draft", "reviewed", "released", "retired")


class ConstantSpec(SpecModel):
    """A named constant with a unit (a pint string) and a value in that unit."""

    value: float = Field(description="the constant's value, in `unit`")
    unit: str = Field("dimensionless", description="pint unit string, e.g. 'm/s**2'")
    meaning: str = ""
    source: str | None = Field(None, description="where the value comes from")


class LetSpec(SpecModel):
    """A named sub-expression: written once, substituted wherever an equation names it.

    It may read variables, constants and earlier ``let`` names; the variables it
    reads become parents of every equation that uses it (edges still list them).
    """

    equation: str = Field(description="the expression, over variables, constants and earlier lets")
    meaning: str = Field("", description="what the quantity is (shown to readers)")


class InterventionSpec(SpecModel):
    """What intervening on a variable means in the world, and how it is executed."""

    meaning: str = Field(description="the real-world action, e.g. 'set the thermostat'")
    handler: HandlerSpec = Field(default_factory=ResampleHandler,
                                 description="how values are set; default: resample")


class VariableSpec(SpecModel):
    """One variable: meaning, unit, scale, range, role, and how it is generated.

    Exactly one of ``distribution`` (a root), ``equation`` (a mechanism over the
    variable's parents, as text) or ``mechanism`` (a structured, parametric kind used by
    generated cards) must be given.
    """

    meaning: str = Field(description="operational meaning: what is measured, of whom, when")
    unit: str = Field("dimensionless", description="pint unit string; '1' or 'dimensionless'")
    kind: VariableKind = "continuous"
    levels: list[str] | None = Field(None, min_length=2,
                                     description="level names (categorical/ordinal), code order")
    range: tuple[float, float] | None = Field(None, description="valid [low, high] in `unit`")
    role: Role = "process"
    observed: bool = True
    distribution: RootSpec | None = Field(None, description="root distribution (roots only)")
    equation: str | None = Field(None, description="mechanism over exactly the parents")
    mechanism: MechanismSpec | None = Field(None, description="structured mechanism kind")
    noise: NoiseSpec = Field(default_factory=NoNoise, description="exogenous noise term")
    intervention: InterventionSpec | None = Field(None, description="set when intervenable")
    story: str | None = Field(None, description="sampling story or data source")
    observation: str | None = Field(None, description="how the value is observed")
    equation_id: str | None = Field(None, description="named equation (formula cards)")
    reference: str | None = Field(None, description="textbook or standard for the equation")
    invalid_reverse: str | None = Field(None, description="why the reverse orientation is wrong")
    boundary: str | None = Field(None, description="justifies mass at a range boundary")

    @field_validator("range")
    @classmethod
    def _ordered_range(cls, value: tuple[float, float] | None) -> tuple[float, float] | None:
        # A field validator (not the model validator) so the diagnostic points at `range:`.
        if value is not None and not value[0] < value[1]:
            raise ValueError(f"range low ({value[0]}) must be below high ({value[1]})")
        return value

    @field_validator("levels")
    @classmethod
    def _distinct_levels(cls, value: list[str] | None) -> list[str] | None:
        # A repeated level would silently get two codes (the later one wins in do()).
        if value is not None and len(set(value)) != len(value):
            repeated = sorted({v for v in value if value.count(v) > 1})
            raise ValueError(f"levels must be distinct; repeated: {', '.join(repeated)}")
        return value

    @model_validator(mode="after")
    def _one_generator(self) -> VariableSpec:
        given = [self.distribution, self.equation, self.mechanism]
        if sum(g is not None for g in given) != 1:
            raise ValueError("give exactly one of 'distribution' (a root), 'equation' or "
                             "'mechanism'")
        if self.kind == "categorical" and self.levels is None:
            raise ValueError("a categorical variable needs 'levels' (names in code order)")
        if self.levels is not None and self.kind not in ("categorical", "ordinal"):
            raise ValueError("'levels' only applies to categorical or ordinal variables")
        return self


class EdgeSpec(SpecModel):
    """A directed edge with the reason it exists."""

    source: Name = Field(alias="from")
    target: Name = Field(alias="to")
    reason: str = Field(min_length=1, description="why the cause affects the effect")


class RootBlockSpec(SpecModel):
    """Roots drawn together: a dependence structure, optionally a fixed standardisation.

    ``gaussian_copula``: correlated roots that keep their own marginals (needs
    ``correlation``). ``uniform_ball``: the copula of a uniform draw from the unit ball
    (the marginals stay the roots' own). ``independent``: no dependence. ``loc`` and
    ``scale`` (one per variable) turn each root's value x into (x - loc) / scale.
    """

    kind: Literal["gaussian_copula", "uniform_ball", "independent"] = "gaussian_copula"
    variables: list[Name] = Field(min_length=1)
    correlation: list[list[float]] | None = Field(None, description="gaussian_copula: "
                                                  "correlation matrix, variable order")
    loc: list[float] | None = Field(None, description="per variable: subtracted from the value")
    scale: list[Annotated[float, Field(gt=0)]] | None = Field(
        None, description="per variable: the centred value is divided by it")
    reason: str = ""

    @model_validator(mode="after")
    def _shape(self) -> RootBlockSpec:
        k = len(self.variables)
        if self.kind != "independent" and k < 2:
            raise ValueError(f"a {self.kind} block needs at least 2 variables")
        if (self.correlation is None) != (self.kind != "gaussian_copula"):
            raise ValueError("give 'correlation' for a gaussian_copula block, and only there")
        if (self.loc is None) != (self.scale is None):
            raise ValueError("give both 'loc' and 'scale', or neither")
        if self.loc is not None and not len(self.loc) == len(self.scale or ()) == k:
            raise ValueError(f"'loc' and 'scale' need {k} entries (one per variable)")
        return self


class InterventionsSpec(SpecModel):
    """The target pool and how interventional rows are assigned."""

    targets: list[Name] | None = Field(None, description="pool; default: every intervenable "
                                       "observed variable")
    per_row: Annotated[int, Field(ge=1, le=20)] = Field(1, description="targets per row")


class SelectionSpec(SpecModel):
    """Which rows are observed: only those where `condition` holds (survivorship)."""

    condition: str
    meaning: str = ""


class ProtocolSpec(SpecModel):
    """How much data to generate; the command line overrides these defaults."""

    n_obs: Annotated[int, Field(ge=1)] = 1000
    n_int_obs: Annotated[int, Field(ge=0)] = 800
    n_int: Annotated[int, Field(ge=0)] = 200
    replicates: Annotated[int, Field(ge=1)] = 5
    seed: Annotated[int, Field(ge=0, lt=2**63)] = 0


class ScopedJustification(SpecModel):
    """A justification that covers one finding: the variable, or the pair, it names.

    Preferred over a gate-wide text, because a new finding of the same gate (a
    near copy nobody has looked at) is still reported.
    """

    variables: list[Name] = Field(min_length=1, max_length=2, description="the variable "
                                  "(category_dominance) or the pair (near_copy) it covers")
    reason: str = Field(min_length=1, description="why this finding is acceptable")


Justification = Annotated[str | list[ScopedJustification], Field(
    description="a gate-wide reason, or a list of reasons each scoped to a variable or pair")]


class Card(SpecModel):
    """A structural causal model, as a person writes it."""

    scmspec: Literal[1] = Field(1, description="card language version")
    id: str = Field(pattern=ID_PATTERN, description="stable id: lowercase, digits, _ - .")
    title: str
    family: Family
    domain: str
    version: str = "1.0"
    release: ReleaseState | None = Field(
        None, description="editorial state for benchmark releases (docs/benchmarking.md): "
        "draft (being written; the default when unset), reviewed (checked, may be released), "
        "released (in a published release), retired (withdrawn; never released again)")
    description: str = ""
    references: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    units: Literal["convert", "strict"] | None = Field(
        None, description="how equations treat units of one dimension on different scales "
        "(hPa and Pa, mm and m): convert (the default when unset) inserts the exact factors at "
        "compile time; strict refuses them (SCM405), so conversions go through constants with "
        "units (docs/units.md)")
    constants: dict[Name, ConstantSpec] = Field(default_factory=dict)
    let: dict[Name, LetSpec] = Field(default_factory=dict, description="named sub-expressions "
                                     "that equations may use (docs/card-language.md)")
    variables: dict[Name, VariableSpec] = Field(
        default_factory=dict, description="at least one; empty only in a synthetic factor card")
    edges: list[EdgeSpec] = Field(default_factory=list)
    root_blocks: list[RootBlockSpec] = Field(default_factory=list)
    interventions: InterventionsSpec = Field(default_factory=InterventionsSpec)
    selection: SelectionSpec | None = None
    protocol: ProtocolSpec = Field(default_factory=ProtocolSpec)
    justifications: dict[str, Justification] = Field(
        default_factory=dict, description="gate id -> why a warning is acceptable (one text, "
        "or a list scoped to variables or pairs)")
    synthetic: SyntheticSpec | None = Field(None, description="generated cards: the factors "
                                            "and seed they are drawn from (docs/synthetic.md)")

    @field_validator("id")
    @classmethod
    def _portable_id(cls, value: str) -> str:
        # The id becomes a folder name; Windows cannot create a folder named `con` or
        # `con.v1`, so a dataset built here could not be unpacked there.
        stem = value.split(".", 1)[0].lower()
        if stem in WINDOWS_RESERVED:
            raise ValueError(f"{value!r} is a reserved device name on Windows ({stem}), so "
                             "it cannot name a dataset folder there; choose another id, e.g. "
                             f"{stem}_card")
        return value
    @property
    def release_state(self) -> str:
        """The release state, ``draft`` when the card does not state one.

        Unset stays ``None`` in the model (and out of spec.json) so that cards written before
        the field existed compile to byte-identical outputs.
        """
        return self.release or "draft"

    def justification_for(self, gate: str, variables: Sequence[str]) -> tuple[str, int | None]:
        """The reason that covers a finding of ``gate`` on ``variables`` ('' when none).

        Also returns the index of the scoped entry that matched (None for a
        gate-wide text), so a report can point at that entry.
        """
        note = self.justifications.get(gate)
        if isinstance(note, str):
            return note.strip(), None
        for i, entry in enumerate(note or ()):
            if set(entry.variables) == set(variables):
                return entry.reason.strip(), i
        return "", None

    @model_validator(mode="after")
    def _has_variables(self) -> Card:
        if not self.variables and self.synthetic is None:
            raise ValueError("'variables' is empty: declare at least one variable (only a "
                             "synthetic factor card, with a 'synthetic:' section, omits them)")
        return self
