"""The user-facing executable SCM: sample, intervene, inspect.

An :class:`SCM` wraps a compiled plan. ``do`` and ``intervene`` return new
SCMs (plans are immutable), and ``sample_interventional`` produces the
obs+int protocol: rows, a cell mask and a per-row record of targets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd
from pydantic import TypeAdapter

from scmspec.compiler.kinds.interventions import HandlerBase, HandlerSpec
from scmspec.compiler.pipeline import CompiledCard
from scmspec.compiler.plan import Plan
from scmspec.compiler.plan import do as plan_do
from scmspec.compiler.resolve import value_problem
from scmspec.samplers import numpy_sampler
from scmspec.samplers.streams import Streams

_HANDLER = TypeAdapter(HandlerSpec)


@dataclass(frozen=True)
class InterventionalData:
    """An obs+int split: the data, the intervened-cell mask and one record per row."""

    data: pd.DataFrame
    mask: pd.DataFrame  # same shape as data; 1 where the cell was set by an intervention
    records: pd.DataFrame  # row, targets (';'-joined, '' if none), handlers
    acceptance: float


@dataclass(frozen=True)
class SCM:
    """An executable structural causal model.

    Example:
        >>> import scmspec
        >>> scm = scmspec.compile_text('''
        ... id: demo
        ... title: demo
        ... family: semantic
        ... domain: demo
        ... variables:
        ...   x: {meaning: cause, distribution: {kind: normal}}
        ...   y: {meaning: effect, equation: 2 * x, noise: {kind: normal, sd: 0.1}}
        ... edges: [{from: x, to: y, reason: demo}]
        ... ''')
        >>> df = scm.sample(5, seed=1)
        >>> list(df.columns)
        ['x', 'y']
        >>> bool((scm.do({"x": 1.0}).sample(5, seed=1)["x"] == 1.0).all())
        True
    """

    compiled: CompiledCard
    plan: Plan
    forced: tuple[tuple[str, HandlerBase], ...] = ()

    # -- inspection -------------------------------------------------------------------
    @property
    def id(self) -> str:
        return self.plan.card_id

    @property
    def variables(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.plan.steps)

    @property
    def observed(self) -> tuple[str, ...]:
        return self.plan.columns

    @property
    def graph(self) -> nx.DiGraph:
        """The full causal graph (latent variables included)."""
        return self.compiled.resolved.graph.copy()

    def adjacency(self, observed_only: bool = True) -> pd.DataFrame:
        """Ground-truth adjacency: entry [i, j] = 1 iff i -> j."""
        names = list(self.plan.columns) if observed_only else list(self.compiled.card.variables)
        matrix = nx.to_numpy_array(self.compiled.resolved.graph, nodelist=names, dtype=np.int64)
        return pd.DataFrame(matrix.astype(np.int64), index=names, columns=names)

    def descendants(self, name: str) -> set[str]:
        return set(nx.descendants(self.compiled.resolved.graph, name))

    # -- interventions as transforms ----------------------------------------------------
    def do(self, values: Mapping[str, float | str]) -> SCM:
        """Hard intervention on every row: pin variables, cut their incoming edges."""
        codes = self.compiled.resolved.level_codes
        for k, v in values.items():
            if isinstance(v, str) and v not in codes.get(k, {}):
                raise ValueError(f"do(): {k!r} has no level {v!r} (levels: "
                                 f"{', '.join(codes.get(k, {})) or 'none, it is numeric'})")
        numeric = {k: float(codes[k][v]) if isinstance(v, str) else float(v)
                   for k, v in values.items()}
        card = self.compiled.card
        for k, x in numeric.items():
            problem = value_problem(card, codes, k, x) if k in card.variables else None
            if problem is not None:
                raise ValueError(f"do(): {k!r} set to {x:g}, {problem[0]}: {problem[1]}")
        return replace(self, plan=plan_do(self.plan, numeric))

    def intervene(self, handlers: Mapping[str, HandlerBase | Mapping[str, Any]]) -> SCM:
        """Apply intervention handlers (do, resample, setpoint, shift, scale, soft) to every row."""
        parsed = {k: h if isinstance(h, HandlerBase) else _HANDLER.validate_python(h)
                  for k, h in handlers.items()}
        return replace(self, forced=tuple(sorted({**dict(self.forced), **parsed}.items())))

    # -- sampling -------------------------------------------------------------------------
    def streams(self, seed: int | None, split: str, replicate: int) -> Streams:
        seed = self.compiled.card.protocol.seed if seed is None else seed
        return Streams(seed, self.id, split, replicate)

    def sample(self, n: int, seed: int | None = None, replicate: int = 0,
               include_latent: bool = False) -> pd.DataFrame:
        """n observational rows (after selection, if the card has one)."""
        s = numpy_sampler.sample(self.plan, n, 0, self.streams(seed, "obs", replicate),
                                 forced=dict(self.forced) or None)
        return self.frame(s.columns, include_latent, share=True)  # s is not used again

    def sample_interventional(self, n_obs: int | None = None, n_int: int | None = None,
                              seed: int | None = None, replicate: int = 0,
                              targets: tuple[str, ...] | None = None,
                              per_row: int | None = None) -> InterventionalData:
        """The obs+int protocol: n_obs observational rows then n_int intervened rows."""
        proto = self.compiled.card.protocol
        n_obs = proto.n_int_obs if n_obs is None else n_obs
        n_int = proto.n_int if n_int is None else n_int
        s = numpy_sampler.sample(self.plan, n_obs, n_int, self.streams(seed, "obsint", replicate),
                                 targets=targets, per_row=per_row,
                                 forced=dict(self.forced) or None)
        return self.interventional_frames(s)

    def interventional_frames(self, s: numpy_sampler.Sample) -> InterventionalData:
        """Data, cell mask and per-row records of a sampled obs+int split."""
        data = self.frame(s.columns)
        position = {v: i for i, v in enumerate(data.columns)}
        cells = np.zeros(data.shape, dtype=np.int8)
        for j, t in enumerate(s.targets):
            if t in position:
                cells[:, position[t]] = s.assigned[:, j]
        mask = pd.DataFrame(cells, index=data.index, columns=data.columns, copy=False)
        return InterventionalData(data, mask, _records(s), s.acceptance)

    def frame(self, cols: Mapping[str, np.ndarray], include_latent: bool = False,
              share: bool = False) -> pd.DataFrame:
        """A table of sampled columns in card order (latent variables dropped by default).

        With ``share`` (the caller does not use ``cols`` again), columns that are the rows,
        in order, of one sampler table are wrapped as they are, without a copy.
        """
        spec = self.compiled.card.variables
        names = tuple(spec) if include_latent else self.plan.columns
        n = len(next(iter(cols.values()))) if cols else 0
        missing = self.missing_cells(cols)
        # One (n, d) float block, wrapped without a second copy; then integer columns.
        block = _table_of(cols, names) if share and not missing else None
        if block is None:
            block = np.vstack([cols[v] for v in names]) if names else np.empty((0, n))
        if missing:
            position = {v: i for i, v in enumerate(names)}
            for v, cells in missing.items():
                block[position[v], cells] = np.nan  # vstack copied: cols stay complete
        frame = pd.DataFrame(block.T, columns=_column_index(names).view(), copy=False)
        ints: dict[str, Any] = {
            v: np.int64 for v in names if spec[v].kind != "continuous" and _integral(cols[v])}
        for v in missing:  # a discrete column with missing cells: nullable integers
            if v in ints and missing[v].any():
                ints[v] = pd.Int64Dtype()
        return frame.astype(ints) if ints else frame

    def missing_cells(self, cols: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Per variable with ``observed_if``: True on rows whose value is not recorded.

        The condition reads the complete (true) values, so missingness may depend on any
        variable, the missing one included; the row itself is kept.
        """
        n = len(next(iter(cols.values()))) if cols else 0
        return {name: ~np.broadcast_to(fn(*[cols[v] for v in inputs]) != 0, (n,))
                for name, fn, inputs in self.plan.missing}

    def missing_mask(self, cols: Mapping[str, np.ndarray]) -> pd.DataFrame:
        """0/1 table over the observed columns: 1 where ``observed_if`` left the cell empty."""
        n = len(next(iter(cols.values()))) if cols else 0
        cells = np.zeros((n, len(self.plan.columns)), dtype=np.int8)
        position = {v: i for i, v in enumerate(self.plan.columns)}
        for v, rows in self.missing_cells(cols).items():
            cells[:, position[v]] = rows
        return pd.DataFrame(cells, columns=list(self.plan.columns), copy=False)


@lru_cache(maxsize=256)
def _column_index(names: tuple[str, ...]) -> pd.Index:
    """The columns' Index, built once per column list (a frame's constructor spends most of
    its time making it from a list); callers take a ``view()``, so a name set on one frame's
    columns stays there."""
    return pd.Index(list(names))


def _table_of(cols: Mapping[str, np.ndarray], names: tuple[str, ...]) -> np.ndarray | None:
    """The (variables, n) table whose rows, in order, are the columns ``names``, or None.

    The sampler writes every variable into a row of one table; when the observed columns
    are all its rows in card order (no latent variable, card order topological), the
    table itself is the frame's block.
    """
    if not names:
        return None
    table = cols[names[0]].base
    if not isinstance(table, np.ndarray) or table.ndim != 2 or table.dtype != np.float64 \
            or table.shape[0] != len(names) or not table.flags.c_contiguous:
        return None
    start, stride = table.__array_interface__["data"][0], table.strides[0]
    for i, name in enumerate(names):
        col = cols[name]
        if col.base is not table or col.shape != table.shape[1:] or \
                col.__array_interface__["data"][0] != start + i * stride:
            return None
    return table


def _integral(values: np.ndarray) -> bool:
    """Discrete kinds are written as int64 when every value is a finite integer."""
    return bool(np.all(np.isfinite(values)) and np.all(values == np.round(values)))


def typed_column(values: np.ndarray, kind: str) -> np.ndarray:
    """Discrete kinds become int64 when every value is a finite integer; else stay float."""
    return values.astype(np.int64) if kind != "continuous" and _integral(values) else values


def _records(s: numpy_sampler.Sample) -> pd.DataFrame:
    """Per-row targets and handlers, ';'-joined; built column by column (no per-row Python)."""
    targets = np.full(s.n, "", dtype=object)
    kinds = np.full(s.n, "", dtype=object)
    for j, name in enumerate(s.targets):
        rows = s.assigned[:, j]
        if not rows.any():
            continue
        sep = np.where(targets[rows] == "", "", ";")
        targets[rows] = targets[rows] + sep + name
        if name in s.choices:  # named handlers: the name of the one each row got
            names = np.asarray(s.handler_names[name], dtype=object)
            kinds[rows] = kinds[rows] + sep + names[s.choices[name][rows]]
        else:
            kinds[rows] = kinds[rows] + sep + s.handlers.get(name, "")
    return pd.DataFrame({"row": np.arange(s.n), "targets": targets, "handlers": kinds})
