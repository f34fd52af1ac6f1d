"""Checking an agent's design against what the episode allows, and drawing a query's rows.

A design maps targets to a value (a number, or a level name of a discrete target) or to a
handler mapping (``{"kind": "do", "value": 3}``; other kinds only when the config allows
them). Only the card's intervention pool is allowed, and a ``do`` value must lie in the
target's declared range (a discrete target: one of its levels).

A query of n rows runs one pass of n units from the episode's streams for that query
(seed, card, ``episode-q<i>``): every unit is drawn, the card's selection keeps the
survivors, and the synthetic family's observation stressors (missingness, outliers, ...)
are applied to the returned rows exactly as the build applies them to released data.
"""

from __future__ import annotations

import difflib
import hashlib
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from pydantic import TypeAdapter, ValidationError

from scmspec.compiler.kinds.interventions import DoHandler, HandlerBase, HandlerSpec
from scmspec.environment.config import EnvironmentError, OutOfRangeError, UnknownTargetError
from scmspec.samplers.numpy_sampler import PILOT_ROWS, run_pass, selected
from scmspec.samplers.scm import SCM, typed_column
from scmspec.samplers.streams import Streams
from scmspec.synthetic.rng import stream
from scmspec.synthetic.stressors import apply_observation_stressors

_HANDLER: TypeAdapter[Any] = TypeAdapter(HandlerSpec)
SCALE_ROWS = 10_000  # the fixed reference sample that standardised cards are scaled by
Handlers = dict[str, HandlerBase]
Columns = dict[str, np.ndarray]


def check_design(scm: SCM, design: Mapping[str, Any], allowed: tuple[str, ...],
                 kinds: tuple[str, ...], fixed: Mapping[str, Any] = {}) -> Handlers:  # noqa: B006
    """Handlers for a design, or an :class:`EnvironmentError` naming the first problem."""
    if not isinstance(design, Mapping) or not design:
        raise EnvironmentError("a design is a non-empty object {target: value or handler}",
                               f"targets: {', '.join(allowed)}")
    out: Handlers = {}
    for name, value in design.items():
        if name not in allowed or name in fixed:
            raise _unknown(scm, str(name), allowed, fixed)
        out[name] = _handler(scm, name, value, kinds)
    return out


def context_handlers(scm: SCM, context: Mapping[str, float | str]) -> Handlers:
    """do() handlers for the environment's fixed context (level names become codes)."""
    return {k: DoHandler(value=_number(scm, k, v)) for k, v in context.items()}


def _unknown(scm: SCM, name: str, allowed: tuple[str, ...], fixed: Mapping[str, Any]
             ) -> UnknownTargetError:
    if name in fixed:
        return UnknownTargetError(f"{name!r} is set by the environment for the whole episode",
                                  f"targets you may set: {', '.join(allowed)}")
    guess = difflib.get_close_matches(name, allowed, n=1)
    hint = f"did you mean {guess[0]!r}? " if guess else ""
    what = "a variable that cannot be intervened on" if name in scm.observed else "no target"
    return UnknownTargetError(f"{name!r} is {what} in this environment",
                              f"{hint}targets: {', '.join(allowed)}")


def _handler(scm: SCM, name: str, value: Any, kinds: tuple[str, ...]) -> HandlerBase:
    if not isinstance(value, Mapping):
        return DoHandler(value=_number(scm, name, value))
    if value.get("kind", "resample") not in kinds:
        raise EnvironmentError(f"{name}: handler kind {value.get('kind')!r} is not allowed",
                               f"allowed kinds: {', '.join(kinds)}")
    try:
        handler = _HANDLER.validate_python(dict(value))
    except ValidationError as exc:
        problem = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise EnvironmentError(f"{name}: invalid handler ({problem})") from None
    if isinstance(handler, DoHandler):
        return DoHandler(value=_number(scm, name, handler.value))
    return handler  # type: ignore[no-any-return]


def _number(scm: SCM, name: str, value: Any) -> float:
    """A do() value as the sampler's number, checked against the target's range or levels."""
    spec = scm.compiled.card.variables[name]
    codes = scm.compiled.resolved.level_codes.get(name, {})
    if isinstance(value, str):
        if value in codes:
            return float(codes[value])
        known = ", ".join(codes) if codes else "it is numeric: send a number"
        raise OutOfRangeError(f"{name} has no level {value!r}", f"levels: {known}")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise OutOfRangeError(f"{name}: {value!r} is not a finite number or level name")
    x = float(value)
    if codes and x not in codes.values():
        raise OutOfRangeError(f"{name}: {value!r} is not a level code",
                              f"levels: {', '.join(f'{k}={v}' for k, v in codes.items())}")
    if spec.range is not None and not spec.range[0] <= x <= spec.range[1]:
        raise OutOfRangeError(f"{name}={value!r} is outside its range "
                              f"[{spec.range[0]:g}, {spec.range[1]:g}]",
                              f"send a value between {spec.range[0]:g} and {spec.range[1]:g}")
    if spec.kind == "count" and x != round(x):
        raise OutOfRangeError(f"{name}={value!r}: a count takes whole numbers")
    if spec.kind == "binary" and x not in (0.0, 1.0):
        raise OutOfRangeError(f"{name}={value!r}: a binary target takes 0 or 1")
    return x


def draw(scm: SCM, handlers: Handlers, n: int, streams: Streams,
         scale: tuple[pd.Series, pd.Series] | None) -> tuple[pd.DataFrame, Columns]:
    """The rows one query returns (survivors of n drawn units), as a frame and as arrays."""
    plan = scm.plan

    def pilot() -> dict[str, np.ndarray]:  # baselines of data-driven handlers
        return run_pass(plan, PILOT_ROWS, streams.child(split=f"{streams.split}-baseline"))

    cols = run_pass(plan, n, streams, forced=handlers or None, pilot=pilot)
    keep = selected(plan, cols, n)
    spec = scm.compiled.card.variables
    # SCM.frame's typing rule (discrete kinds as int64 when integral), built in one step:
    # for the small tables agents ask for, pandas' per-column astype dominated the query.
    arrays = {v: typed_column(cols[v][keep], spec[v].kind) for v in scm.observed}
    frame = observe_as_released(scm, pd.DataFrame(arrays, copy=False), streams, scale)
    if scm.compiled.card.synthetic is not None:
        arrays = {str(c): frame[c].to_numpy() for c in frame.columns}
    return frame, arrays


def observe_as_released(scm: SCM, frame: pd.DataFrame, streams: Streams,
                        scale: tuple[pd.Series, pd.Series] | None) -> pd.DataFrame:
    """Observation stressors and standardisation, as the build applies them to written data."""
    synthetic = scm.compiled.card.synthetic
    if synthetic is None:
        return frame
    if synthetic.observation and len(frame):
        continuous = {v for v, s in scm.compiled.card.variables.items() if s.kind == "continuous"}
        rng = stream(streams.seed, scm.id, streams.split, streams.replicate, "stressor")
        frame, _ = apply_observation_stressors(frame, synthetic.observation, continuous, rng)
    if scale is not None:
        frame = (frame - scale[0]) / scale[1]
    return frame


def reference_scale(scm: SCM) -> tuple[pd.Series, pd.Series] | None:
    """Mean and sd of a fixed observational sample, for cards whose output is standardised
    (every episode shares it, so values are comparable across queries and episodes)."""
    synthetic = scm.compiled.card.synthetic
    if synthetic is None or not synthetic.output.standardize:
        return None
    streams = scm.streams(None, "episode-scale", 0)
    cols = run_pass(scm.plan, SCALE_ROWS, streams)
    frame = scm.frame({k: v[selected(scm.plan, cols, SCALE_ROWS)] for k, v in cols.items()})
    return frame.mean(), frame.std(ddof=0).replace(0.0, 1.0)


def frame_digest(columns: Columns) -> str:
    """sha256 of a table's column names, dtypes and values: equal iff the data are bit-equal.

    Example:
        >>> a = frame_digest({"x": np.array([1.0, 2.0])})
        >>> a == frame_digest({"x": np.array([1.0, 2.0])})
        True
        >>> a == frame_digest({"x": np.array([1, 2])})  # same numbers, another dtype
        False
    """
    h = hashlib.sha256()
    for name, col in columns.items():
        h.update(f"{name}|{col.dtype.str}|{len(col)};".encode())
        h.update(np.ascontiguousarray(col).tobytes())
    return h.hexdigest()
