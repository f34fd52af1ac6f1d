"""Stage 4, check_units: unit strings parse (full dimensional analysis: see units gate)."""

from __future__ import annotations

from scmspec.compiler.load import SourceMap
from scmspec.compiler.resolve import ResolvedCard


def check_units(resolved: ResolvedCard, smap: SourceMap) -> None:
    """Placeholder replaced below."""
