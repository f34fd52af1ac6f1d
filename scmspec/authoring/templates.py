"""Skeleton cards for ``scmspec new``: one commented, valid starting point per family.

Each template is a complete card (4-5 variables with units and ranges, edges with reasons,
one intervention) whose YAML comments explain every field, so a newcomer edits a card
that already compiles and passes ``scmspec validate`` instead of starting from a blank
file. ``tests/cli/test_new.py`` keeps that promise: every family's skeleton validates.
The scenarios are deliberately generic (a courier, a launcher, a synthetic graph); they
are there to be replaced, and two untouched skeletons of one family in one library fail
the ``duplicate_topology`` gate, which is the reminder.
"""

from __future__ import annotations

import json

# The reference arena's domains (REFERENCE.md); ``scmspec new`` notes a domain outside them.
DOMAINS: dict[str, tuple[str, ...]] = {
    "semantic": ("cybersecurity and IT operations", "education", "finance and credit",
                 "government services", "healthcare delivery", "housing and real estate",
                 "manufacturing", "public health", "urban transportation",
                 "water and sanitation"),
    "formula": ("biology and ecology", "astronomy", "chemistry", "mechanics and fluids",
                "earth systems", "electromagnetism", "energy systems",
                "materials and structures", "optics and waves", "thermodynamics"),
    "synthetic": (),
}
PREFIX = {"semantic": "sem_", "formula": "frm_", "synthetic": "syn_"}

_HEADER = """\
{{schema}}# A scmspec card: one structural causal model. docs/card-language.md is the reference,
# docs/authoring.md the walk-through. Check it with:  scmspec validate {{file}}
#
# scmspec: the card language version. id: stable, lowercase, digits and _ - . (convention:
# {{prefix}}<domain>_<topic>), unique in the library. family: synthetic | semantic | formula.
# version: this card's own version; bump it when the model changes.
scmspec: 1
id: {{id}}
title: {{title}}
family: {{family}}
domain: {{domain}}
version: "1.0"
"""

SEMANTIC = """\
description: >-
  TODO: what the scenario is, what one row is (here: one delivery), what is observed, and
  what the interventions mean. The example below is a courier delivery; replace it.
references:                     # real sources for the mechanisms and numbers
  - "TODO: a textbook, standard or agency guidance"
tags: [template]

# Named numbers. A constant with a unit is how units are converted: equations run on the
# raw numbers of each variable's declared unit, so `hours * 60` would be refused (the 60
# is dimensionless); `hours * min_per_hour` is checked by the units gate.
constants:
  courier_speed: {value: 18, unit: km/hour, meaning: mean riding speed in town}
  min_per_hour: {value: 60, unit: min/hour, meaning: unit conversion}
  promised_minutes: {value: 25, unit: min, meaning: delivery time promised at checkout}
  lateness_spread: {value: 4, unit: min, meaning: how sharply lateness sets in around the promise}
  full_tip: {value: 4.0, unit: USD, meaning: tip for an instant delivery}
  tip_patience: {value: 30, unit: min, meaning: travel time that cuts the tip by a factor e}

# Named sub-expressions: a law several equations use, written once and substituted where
# named (its variables become parents of those equations). Example:
# let:
#   riding_minutes: {equation: order_distance / courier_speed * min_per_hour,
#                    meaning: riding time without waits}

variables:
  # A root: no parents, so a `distribution` (parameters in the variable's unit). A root
  # takes no `noise`: its distribution is its exogenous variation.
  order_distance:
    # meaning: operational -- what is measured, of whom, when.
    meaning: road distance from the kitchen to the customer
    unit: km                    # a pint unit string; default dimensionless
    range: [0, 60]              # valid values; the `ranges` gate checks every sampled row
    # role: root, input, setting, process, formula, measurement, readout, flag or outcome.
    role: input
    distribution: {kind: lognormal, meanlog: 1.4, sdlog: 0.5}   # median exp(1.4) = 4 km
    observation: routing service, logged with the order
    # `intervention` makes the variable a target: what the action means in the world and how
    # it is executed (handlers: do, resample, setpoint, shift, scale, soft).
    intervention:
      meaning: "shrink the delivery zone: accept only orders near the 20th percentile of distance"
      handler: {kind: setpoint, percentile: 0.2}
  # An equation over exactly the variable's parents (each one needs an edge below).
  travel_minutes:
    meaning: time from pick-up to hand-over
    unit: min
    range: [0, 600]
    role: process
    equation: order_distance / courier_speed * min_per_hour
    # Traffic and lights: multiplicative noise gives f * (1 + eps).
    noise: {kind: lognormal, sigma: 0.4, mode: multiplicative}
  # Random draws inside an equation (bernoulli, poisson, binomial, normal, ...) make event
  # and count processes. A binary variable is 0/1.
  late_delivery:
    meaning: whether the order arrived after the promised time, as the customer reports it
    kind: binary
    range: [0, 1]
    role: outcome
    equation: bernoulli(sigmoid((travel_minutes - promised_minutes) / lateness_spread))
  tip_usd:
    meaning: tip the customer adds after delivery
    unit: USD
    range: [0, 50]
    role: outcome
    equation: full_tip * exp(-travel_minutes / tip_patience)
    noise: {kind: lognormal, sigma: 0.4, mode: multiplicative}
    # observed: false would make a variable latent (sampled, never written to the data).

# Every parent an equation uses is an edge, and every edge is used: the compiler checks
# both ways. The reason says why the cause acts on the effect.
edges:
  - {from: order_distance, to: travel_minutes, reason: a longer route takes longer to ride}
  - {from: travel_minutes, to: late_delivery, reason: a long ride overshoots the promised time}
  - {from: travel_minutes, to: tip_usd, reason: customers tip less the longer they wait}

# The intervention pool (default: every observed variable with an `intervention`).
interventions:
  targets: [order_distance]

# Optional. Only rows where the condition holds are observed (survivorship):
# selection: {condition: "late_delivery == 0", meaning: only on-time orders are logged}
# Optional. Defaults: 1000 observational rows, 800 + 200 obs+int rows, 5 replicates, seed 0.
# protocol: {n_obs: 1000, n_int_obs: 800, n_int: 200, replicates: 5, seed: 0}
# Optional. gate id -> why a warning is acceptable (docs/gates.md lists which gates relax).
# justifications: {}
"""

FORMULA = """\
description: >-
  TODO: the physical setting, the named laws, what is measured with which instrument. The
  example below is a spring launcher on a flat range: launch speed and angle set the flight
  time and the range (drag neglected); replace it.
references:
  - "Halliday, Resnick & Walker, Fundamentals of Physics, ch. 4 (projectile motion)"
tags: [template]

# Constants carry units and, in formula cards, a source.
constants:
  gravity: {value: 9.80665, unit: m/s**2, meaning: standard gravity,
            source: "CGPM 1901 (standard acceleration of gravity)"}
  target_distance: {value: 30, unit: m, meaning: distance from the launcher to the target's centre}
  target_half_width: {value: 5, unit: m, meaning: half the target's length along the range}

# A law used by several equations can be named once under `let:` (docs/card-language.md):
# let:
#   flight_time: {equation: 2 * launch_speed * sin(launch_angle) / gravity, meaning: time aloft}

# Inputs are roots with a distribution; every variable has a unit and a valid range.
variables:
  launch_speed:
    meaning: muzzle speed of the projectile
    unit: m/s
    range: [0, 100]
    role: setting
    distribution: {kind: uniform, low: 12, high: 28}
    observation: chronograph at the muzzle
    intervention:
      meaning: "fix the spring setting so every shot leaves at 20 m/s"
      handler: {kind: do, value: 20}
  launch_angle:
    meaning: elevation of the launch tube above the horizontal
    unit: rad                   # trigonometric functions take radians (dimensionless, scale 1)
    range: [0, 1.5708]
    role: setting
    distribution: {kind: uniform, low: 0.15, high: 1.4}
    observation: inclinometer on the tube
  # Formula nodes: exact (no noise), role formula, a named equation with its reference, and
  # why the reverse orientation would be wrong. Noise belongs on instruments and readouts.
  flight_time:
    meaning: time from launch to landing on level ground
    unit: s
    range: [0, 10]
    role: formula
    equation: 2 * launch_speed * sin(launch_angle) / gravity
    equation_id: projectile_time_of_flight
    reference: "Halliday, Resnick & Walker, Fundamentals of Physics, ch. 4: t = 2 v0 sin(theta) / g"
    invalid_reverse: >-
      the flight time cannot set the launch speed; the launcher fixes speed and angle
      before the flight
  horizontal_range:
    meaning: distance from the launcher to the landing point
    unit: m
    range: [0, 120]
    role: formula
    equation: flight_time * sqrt(launch_speed**2 - (gravity * flight_time / 2)**2)
    equation_id: projectile_range
    reference: >-
      Halliday, Resnick & Walker, Fundamentals of Physics, ch. 4:
      R = v_x t, v_x**2 = v0**2 - v_y**2, v_y = g t / 2
    invalid_reverse: where the projectile lands does not change how long it flew
  # A readout: what an instrument or observer reports. Instrument noise goes here, e.g.
  # noise: {kind: student_t, df: 4, scale: 0.5} on a continuous reading.
  target_hit:
    meaning: whether the projectile lands on the target
    kind: binary
    range: [0, 1]
    role: readout
    equation: indicator(abs(horizontal_range - target_distance) < target_half_width)
    observation: spotter at the target

# One edge per parent each equation uses, each with the reason it exists.
edges:
  - {from: launch_speed, to: flight_time, reason: a faster launch climbs higher and stays up longer}
  - {from: launch_angle, to: flight_time, reason: the vertical speed is v0 sin(theta)}
  - {from: launch_speed, to: horizontal_range,
     reason: "the horizontal speed is what v0 keeps besides the vertical part"}
  - {from: flight_time, to: horizontal_range, reason: range is horizontal speed times time aloft}
  - {from: horizontal_range, to: target_hit, reason: the shot hits when it lands within the target}

# The intervention pool: the targets the obs+int split intervenes on.
interventions:
  targets: [launch_speed]
"""

SYNTHETIC = """\
description: >-
  TODO: a hand-written synthetic SCM: anonymous variables, structured mechanisms with
  explicit parameters (docs/card-language.md, "Structured mechanisms"). Generated synthetic
  cards use the same kinds; edit the weights, noise and graph.
tags: [template]

# Synthetic variables carry no units (dimensionless) and need no range; names are free.
variables:
  # Roots: a `distribution` (normal, uniform, lognormal, gamma, beta, ... see the docs).
  x1:
    meaning: synthetic root 1
    distribution: {kind: normal, mean: 0, sd: 1}
    # Without a `handler`, an intervention resamples the target uniformly between its
    # observational 10th and 90th percentiles (the reference protocol's default).
    intervention: {meaning: resample x1 between its 10th and 90th percentiles}
  x2:
    meaning: synthetic root 2
    distribution: {kind: uniform, low: -1.5, high: 1.5}
  # `mechanism:` is a structured kind: its parameters are numbers, its inputs the parents
  # (linear, mlp, polynomial, product, rational, saturation, regime, rff, tree, ...).
  # `noise` is added to the mechanism's output (normal, laplace, student_t, ...).
  # An `equation:` works here too, as in semantic cards.
  x3:
    meaning: synthetic node 3
    mechanism: {kind: linear, weights: {x1: 0.8, x2: -0.6}, bias: 0.1}
    noise: {kind: normal, sd: 0.4}
  x4:
    meaning: synthetic node 4
    mechanism: {kind: saturation, inputs: [x3, x1], weights: [1.2, 0.5], function: tanh, scale: 0.8}
    noise: {kind: laplace, scale: 0.1}

# Synthetic cards need at least ceil(0.8 d) edges and a depth of 2 (3 for chain, tree,
# small-world and scale-free graphs). Reasons can be short, but every edge has one.
edges:
  - {from: x1, to: x3, reason: linear weight 0.8}
  - {from: x2, to: x3, reason: linear weight -0.6}
  - {from: x3, to: x4, reason: saturating input}
  - {from: x1, to: x4, reason: saturating input}

# The intervention pool; `per_row: 2` would intervene on two targets per row.
interventions:
  targets: [x1]
"""

TEMPLATES = {"semantic": SEMANTIC, "formula": FORMULA, "synthetic": SYNTHETIC}


def skeleton(family: str, domain: str, name: str, schema: str | None = None,
             file: str = "CARD.yaml") -> str:
    """The commented skeleton card text for ``family``.

    ``schema`` is where the editor hint line points (see
    :func:`scmspec.authoring.schema_ref.schema_reference`), ``file`` the path shown in the
    header's validate command.

    Example:
        >>> text = skeleton("semantic", "public health", "sem_demo")
        >>> "id: sem_demo" in text and 'domain: "public health"' in text
        True
    """
    stem = name.removeprefix(PREFIX[family])  # sem_public_health_demo -> "Public health demo"
    title = stem.replace("_", " ").strip().capitalize() or name
    hint = f"# yaml-language-server: $schema={schema}\n" if schema else ""
    values = {"{{schema}}": hint, "{{file}}": file, "{{id}}": name,
              "{{prefix}}": PREFIX[family], "{{title}}": json.dumps(title),
              "{{family}}": family, "{{domain}}": json.dumps(domain)}
    text = _HEADER + TEMPLATES[family]
    for key, value in values.items():
        text = text.replace(key, value)
    return text


def domain_note(family: str, domain: str) -> str | None:
    """A note when ``domain`` is not one of the reference domains of ``family``."""
    known = DOMAINS.get(family, ())
    if not known or domain in known:
        return None
    return (f"note: {domain!r} is not one of the reference {family} domains "
            f"({', '.join(known)}); fine for a new domain, but check the spelling")
