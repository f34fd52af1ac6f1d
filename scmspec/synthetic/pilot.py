"""Drawing one node on a pilot sample: signal scale, noise, and the data checks.

Materialisation walks the graph in causal order with a pilot sample (``PILOT_ROWS``
rows) of every node drawn so far. A non-root node's mechanism is drawn for roughly
standardised parents (every root is standardised by its block, every earlier signal
is centred with a fixed sd), evaluated on the pilot, then redrawn from the same
stream at ``strength / sd`` (the factors scale only output-side parameters, so this
rescales the output exactly) and centred through its bias, leaves or offsets. Its
signal sd is thus the stressor strength (1, or 0.45 under weak signal), its mean 0,
and the variance no longer grows along the causal order (the varsortability artefact
of raw simulations). Noise is drawn next (it may read the pilot signal), then the
node's pilot values are checked as the data gates will check them, with margins:
finite, not (near) constant, at most 5% of rows at the minimum or maximum, and
|corr| < 0.985 with every earlier node. A failure redraws that node alone, with the
next attempt in its stream key; after ``MAX_NODE_ATTEMPTS`` the SCM fails.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from scmspec.compiler.kinds.interventions import HandlerBase
from scmspec.compiler.kinds.mechanism_base import MechanismBase
from scmspec.compiler.kinds.noise_base import NoiseBase
from scmspec.synthetic.nodes.draw import r6, r6s
from scmspec.synthetic.nodes.factors import (
    MECHANISM_FACTORS,
    NOISE_FACTORS,
    fit_input_range,
    fit_rank_grid,
)
from scmspec.synthetic.nodes.noise_boost import louder
from scmspec.synthetic.rng import stream

Array = np.ndarray
PILOT_ROWS = 2000
PROPAGATION_ROWS = 400
QUARTERS = 4
QUARTER_COPY = 0.99  # the gate's own threshold, on any quarter of the pilot
MAX_NODE_ATTEMPTS = 25
FALLBACK_AFTER = 8  # attempts with the assigned families before trying the SCM's others
NEAR_COPY = 0.985  # the synthetic near_copy gate rejects |corr| >= 0.99; keep a margin
BOUNDARY = 0.05  # the boundary_mass gate allows 10% at a boundary; keep a margin
EDGE_TAIL = 0.005  # values with less mass than this beyond them can become a sample's min/max
MODE_SHARE = 0.95  # the nonconstant gate rejects one value on 99% of rows
# A node whose variance comes mostly from its top 1% rows (a quartic of a skewed parent, say)
# is ruled by a handful of extreme rows: two such nodes below one extreme ancestor correlate
# near 1 in whichever sample holds that ancestor's extreme. For scale: N(0, 1) puts 9% of its
# variance in its top 1%, Student-t(3) 38%, lognormal(0, 0.9) 50%, x^4 of N(0, 1) 84%.
TAIL_SHARE = 0.6


def _shift_field(field: str) -> Callable[[dict[str, Any], float], dict[str, Any]]:
    return lambda d, c: {field: r6(d.get(field, 0.0) - c)}


def _shift_list(field: str) -> Callable[[dict[str, Any], float], dict[str, Any]]:
    return lambda d, c: {field: r6s(np.asarray(d[field]) - c)}


# How to subtract a constant from each kind's output (rational and rff have no slot).
_RECENTRE: dict[str, Callable[[dict[str, Any], float], dict[str, Any]]] = {
    **{k: _shift_field("bias") for k in ("linear", "polynomial", "product", "function_product",
                                         "interaction", "exp_log", "periodic", "saturation",
                                         "regime", "activation", "aggregation")},
    "mlp": _shift_field("output_bias"),
    "tree": _shift_list("leaf_values"),
    "binned": _shift_list("values"),
    "piecewise": lambda d, c: {"offset_low": r6(d["offset_low"] - c),
                               "offset_high": r6(d["offset_high"] - c)},
}


def recentre(mech: MechanismBase, c: float) -> tuple[MechanismBase, bool]:
    """``mech`` with ``c`` subtracted from its output, and whether its kind allows it.

    Example:
        >>> from scmspec.compiler.kinds.mechanisms import LinearMechanism
        >>> m, ok = recentre(LinearMechanism(weights={"a": 1.0}, bias=0.5), 0.25)
        >>> m.bias, ok
        (0.25, True)
    """
    rule = _RECENTRE.get(mech.kind)  # type: ignore[attr-defined]
    if rule is None:
        return mech, False
    data = mech.model_dump(by_alias=True)
    return type(mech).model_validate({**data, **rule(data, c)}), True


@dataclass(frozen=True)
class NodeDraw:
    """An accepted node: its mechanism and noise, pilot values and the attempt used."""

    mechanism: MechanismBase
    noise: NoiseBase
    values: Array
    attempt: int
    families: tuple[str, str]  # the (mechanism, noise) families actually used


class Pilot:
    """Pilot columns of the accepted nodes, plus their standardised rows for corr checks."""

    def __init__(self, n: int = PILOT_ROWS) -> None:
        self.n = n
        self.columns: dict[str, Array] = {}
        self.mechanisms: dict[str, tuple[Callable[..., Array], tuple[str, ...]]] = {}
        self._z: list[Array] = []
        self._names: list[str] = []

    def add(self, name: str, values: Array, mechanism: MechanismBase | None = None,
            parents: tuple[str, ...] = ()) -> None:
        self.columns[name] = values
        if mechanism is not None:
            self.mechanisms[name] = (mechanism.lower(parents), parents)  # type: ignore[assignment]
        sd = float(values.std())
        self._z.append((values - values.mean()) / (sd if sd > 0 else 1.0))
        self._names.append(name)

    def copy_of(self, values: Array) -> tuple[str, float] | None:
        """The earlier node ``values`` nearly copies, if any: |corr| >= NEAR_COPY on the whole
        pilot, or >= 0.99 on any quarter of it (heavy tails make a correlation swing from
        sample to sample; the quarter holding an extreme row shows where it can go)."""
        if not self._z:
            return None
        sd = float(values.std())
        z = (values - values.mean()) / (sd if sd > 0 else 1.0)
        zs = np.vstack(self._z)
        corr = np.abs(zs @ z) / len(z)
        worst = np.max([_corr(zs[:, part], z[part])
                        for part in np.array_split(np.arange(len(z)), QUARTERS)], axis=0)
        bad = (corr >= NEAR_COPY) | (worst >= QUARTER_COPY)
        if not bad.any():
            return None
        i = int(np.argmax(np.where(bad, np.maximum(corr, worst), -1.0)))
        return self._names[i], float(max(corr[i], worst[i]))


    def propagation(self, target: str, handler: HandlerBase, discrete: bool,
                    rng: np.random.Generator) -> float:
        """Share of pilot rows on which ``handler`` moves some child's mechanism output
        (1.0 for a node without children).

        The intervention_effect gate needs some descendant to move on a target's few
        intervened rows; a child that is flat in the target (a coarse bin, a step the
        handler rarely crosses, a max the target rarely wins) can fail that, so such
        targets are not chosen.
        """
        children = [(f, ps) for f, ps in self.mechanisms.values() if target in ps]
        if not children:
            return 1.0
        rows = slice(0, PROPAGATION_ROWS)  # a subsample is plenty for a share
        x = self.columns[target][rows]
        new = np.asarray(handler.apply(x, self.columns[target], rng, discrete), dtype=float)
        moved = np.zeros(x.size, dtype=bool)
        for f, ps in children:
            before = f(*[self.columns[p][rows] for p in ps])
            after = f(*[new if p == target else self.columns[p][rows] for p in ps])
            moved |= ~np.isclose(before, after, rtol=1e-9, atol=1e-12)
        return float(moved.mean())


def _corr(rows: Array, z: Array) -> Array:
    """|Pearson correlation| of z with each row of ``rows`` (all re-standardised)."""
    a = rows - rows.mean(axis=1, keepdims=True)
    b = z - z.mean()
    denom = np.sqrt((a**2).sum(axis=1) * float((b**2).sum()))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.abs(a @ b) / denom
    return np.nan_to_num(out)  # type: ignore[no-any-return]


def problem(values: Array, pilot: Pilot) -> str | None:
    """Why pilot values would fail a data gate (None when they pass)."""
    if not np.all(np.isfinite(values)):
        return "non-finite values"
    sd = float(values.std())
    if sd < 1e-6 * max(abs(float(values.mean())), 1.0):
        return "constant"
    _, counts = np.unique(values, return_counts=True)
    p = counts / values.size
    if p.max() > MODE_SHARE:
        return "one value dominates"
    # A value that can end up as a sample's minimum or maximum: less than 0.5% of the mass
    # lies beyond it (a 1000-row sample then often holds nothing beyond it).
    cum = np.cumsum(p)
    edge = (cum - p < EDGE_TAIL) | (1.0 - cum < EDGE_TAIL)
    if p[edge].max() > BOUNDARY:
        return f"{p[edge].max():.0%} of rows on one extreme value (boundary mass)"
    tail = tail_share(values)
    if tail > TAIL_SHARE:
        return f"{tail:.0%} of its variance sits in its top 1% rows (extreme-value dominated)"
    twin = pilot.copy_of(values)
    return f"near copy of {twin[0]} (|corr| {twin[1]:.3f})" if twin else None


def tail_share(values: Array) -> float:
    """Share of the squared deviations carried by the top 1% of rows.

    Example:
        >>> round(tail_share(np.r_[np.zeros(99), 10.0]), 2)  # one row holds 99% of it
        0.99
    """
    dev = np.sort((values - values.mean()) ** 2)
    total = float(dev.sum())
    k = max(1, values.size // 100)
    return float(dev[-k:].sum()) / total if total > 0 else 0.0


def draw_node(name: str, parents: tuple[str, ...], families: tuple[str, str], pilot: Pilot,
              strength: float, high_noise: bool, seed: int, key: str,
              fallback: list[tuple[str, str]] = ()  # type: ignore[assignment]
              ) -> tuple[NodeDraw | None, str]:
    """The first attempt whose node passes the checks, or (None, why).

    The first ``FALLBACK_AFTER`` attempts redraw the parameters of the assigned
    (mechanism, noise) families; later ones cycle through ``fallback`` pairs (other
    active families of the SCM): a one-parent linear map with a tiny noise family is a
    near copy of its parent whatever its numbers, and only another family fixes that.
    The accepted pair is recorded per node.
    """
    why = ""
    for attempt in range(MAX_NODE_ATTEMPTS):
        pair = families
        if attempt >= FALLBACK_AFTER and fallback:
            pair = fallback[(attempt - FALLBACK_AFTER) % len(fallback)]
        drawn, why = _attempt(name, parents, pair, pilot, strength, high_noise, seed, key,
                              attempt)
        if drawn is not None:
            return drawn, ""
    return None, why


def _attempt(name: str, parents: tuple[str, ...], pair: tuple[str, str], pilot: Pilot,
             strength: float, high_noise: bool, seed: int, key: str, attempt: int
             ) -> tuple[NodeDraw | None, str]:
    mech_tag, noise_tag = pair
    cols = {p: pilot.columns[p] for p in parents}
    factor = MECHANISM_FACTORS.lookup(mech_tag)
    # the unit draw only measures the pilot's output scale, and the pilot lies inside the
    # input range by construction: only the kept mechanism records that range
    unit = fit_rank_grid(factor.draw(parents, stream(seed, key, "node", name, attempt), 1.0),
                         cols)
    f1 = np.asarray(unit.lower(parents)(*[cols[p] for p in parents]),  # type: ignore[operator]
                    dtype=np.float64)
    mean, sd = float(f1.mean()), float(f1.std())
    if not np.isfinite(sd) or sd < 1e-9:
        return None, "the mechanism is (near) constant on the pilot"
    scale = strength / sd
    mech = fit_input_range(fit_rank_grid(  # type: ignore[arg-type]
        factor.draw(parents, stream(seed, key, "node", name, attempt), scale), cols), cols)
    mech, centred = recentre(mech, mean * scale)
    f = (f1 - mean) * scale if centred else f1 * scale
    rng = stream(seed, key, "noise", name, attempt)
    nz = NOISE_FACTORS.lookup(noise_tag).draw(rng, f, parents)
    if high_noise:
        nz = louder(nz, f, cols, rng)
    eps = nz.draw(stream(seed, key, "pilot", name, attempt), f.size)
    values = np.asarray(nz.apply(f, eps, cols), dtype=float)
    why = problem(values, pilot)
    return (None, why) if why else (NodeDraw(mech, nz, values, attempt, pair), "")
