"""Gates: release checks on cards, compiled SCMs and datasets (see docs/gates.md)."""

from scmspec.validators.base import (
                                     GATES,
                                     POOL_GATES,
                                     GateContext,
                                     GateResult,
                                     ReplicateData,
                                     make_result,
                                     run_gates,
                                     run_pool_gates,
)

__all__ = ["GATES", "POOL_GATES", "GateContext", "GateResult", "ReplicateData", "make_result",
           "run_gates", "run_pool_gates"]
