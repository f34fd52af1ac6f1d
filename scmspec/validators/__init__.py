"""Gates: release checks on cards, compiled SCMs and datasets (see docs/gates.md).

``base`` is the protocol (results, the context a gate reads, the registries);
``gates`` lists every gate module explicitly and runs them.
"""

from scmspec.validators.base import (
    GATES,
    POOL_GATES,
    GateContext,
    GateResult,
    ReplicateData,
    make_result,
)
from scmspec.validators.gates import run_gates, run_pool_gates

__all__ = ["GATES", "POOL_GATES", "GateContext", "GateResult", "ReplicateData", "make_result",
           "run_gates", "run_pool_gates"]
