"""Small cards whose effects, conditional effects and counterfactuals are known exactly."""

from __future__ import annotations

from functools import cache

import scmspec
from scmspec.samplers.scm import SCM

STRATA = """
id: strata
title: strata
family: semantic
domain: oracle
variables:
  g: {meaning: group, kind: categorical, levels: [low, mid, high],
      distribution: {kind: categorical, probs: [0.3, 0.3, 0.4]}}
  x: {meaning: dose, equation: 0.5 * g, noise: {kind: normal, sd: 1.0},
      intervention: {meaning: set the dose, handler: {kind: do, value: 1.0}}}
  y: {meaning: response, equation: (1 + g) * x, noise: {kind: normal, sd: 0.5}}
  b: {meaning: event, kind: binary, equation: "bernoulli(sigmoid(y))"}
  o: {meaning: grade, kind: ordinal, levels: [none, some, lots],
      equation: "piecewise(y > 2, 2, y > 0, 1, 0)"}
  c: {meaning: kind, kind: categorical, levels: [p, q, r], equation: "categorical(1, exp(y), 1)"}
edges:
  - {from: g, to: x, reason: r}
  - {from: g, to: y, reason: r}
  - {from: x, to: y, reason: r}
  - {from: y, to: b, reason: r}
  - {from: y, to: o, reason: r}
  - {from: y, to: c, reason: r}
"""

SELECTED = """
id: selected
title: selected
family: semantic
domain: oracle
variables:
  x: {meaning: cause, distribution: {kind: normal},
      intervention: {meaning: set x, handler: {kind: do, value: 1.0}}}
  w: {meaning: other cause, distribution: {kind: normal}}
  y: {meaning: collider, equation: x + w, noise: {kind: normal, sd: 1.0}}
  z: {meaning: readout, equation: 2 * y, noise: {kind: normal, sd: 0.5}}
edges:
  - {from: x, to: y, reason: r}
  - {from: w, to: y, reason: r}
  - {from: y, to: z, reason: r}
selection: {condition: y > 0, meaning: only positive y is logged}
"""

COUNTERFACTUAL = """
id: cf
title: cf
family: semantic
domain: oracle
variables:
  x: {meaning: cause, distribution: {kind: normal},
      intervention: {meaning: raise x, handler: {kind: do, value: 2.0}}}
  w: {meaning: bystander, distribution: {kind: normal}}
  y: {meaning: linear effect, equation: 3 * x + w, noise: {kind: normal, sd: 1.0}}
  b: {meaning: drawn event, kind: binary, equation: "bernoulli(sigmoid(x))"}
  r: {meaning: resampled, distribution: {kind: gamma, shape: 2, rate: 1},
      intervention: {meaning: redraw r, handler: {kind: resample}}}
  s: {meaning: effect of r, equation: r + x, noise: {kind: normal, sd: 0.1}}
edges:
  - {from: x, to: y, reason: r}
  - {from: w, to: y, reason: r}
  - {from: x, to: b, reason: r}
  - {from: r, to: s, reason: r}
  - {from: x, to: s, reason: r}
protocol: {n_obs: 300}
"""


@cache
def compiled(text: str) -> SCM:
    return scmspec.compile_text(text)
