"""Causal-effect, counterfactual and optimal-design truth compiled from the same card.

``effect_truth`` runs one large common-random-numbers sample and reports, for every
intervenable target, the effect of the card's intervention and of unit or level
contrasts on every observed outcome (exact closed forms where the SCM is
linear-Gaussian); ``counterfactuals`` recomputes released rows under each target's
intervention from their own exogenous draws; ``optimize`` searches designs (several
targets at once) for the best expected outcome. docs/effects.md explains each quantity.
"""

from scmspec.effects.truth import DEFAULT_ROWS, EFFECT_SPLIT, EffectTruth, effect_truth

__all__ = ["DEFAULT_ROWS", "EFFECT_SPLIT", "EffectTruth", "effect_truth"]
