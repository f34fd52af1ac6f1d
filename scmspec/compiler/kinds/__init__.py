"""Kinds: one registry per family, every kind a small self-describing entry.

Each kind is a frozen spec model whose ``kind`` literal is its registry name,
whose docstring documents it, whose fields are its parameter schema and whose
methods are its vectorised implementation. The modules are imported here
explicitly so registration never depends on import side effects elsewhere.
"""

from scmspec.compiler.kinds import (
    functions,
    interventions,
    mechanism_base,
    mechanisms,
    mechanisms_activation,
    mechanisms_nonlinear,
    noise,
    noise_base,
    noise_shaped,
    roots,
    roots_shaped,
)

__all__ = ["functions", "interventions", "mechanism_base", "mechanisms", "mechanisms_activation",
           "mechanisms_nonlinear", "noise", "noise_base",
           "noise_shaped", "roots", "roots_shaped"]
