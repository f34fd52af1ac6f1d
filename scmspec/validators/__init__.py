"""Gates: release checks on cards, compiled SCMs and datasets (see docs/gates.md)."""

from scmspec.validators.base import GATES, GateContext, GateResult, ReplicateData, run_gates

__all__ = ["GATES", "GateContext", "GateResult", "ReplicateData", "run_gates"]
