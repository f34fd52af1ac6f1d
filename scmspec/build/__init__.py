"""The build: many cards to datasets, one stage per module.

``discover`` (which files, and how each is named) -> ``cards`` (read each once,
safely, and parse; a result record per card) -> ``evaluate`` (compile, sample every
replicate, run the gates) -> ``write`` (the dataset folder, atomically; the manifest)
-> ``driver`` (the run: pool gates, incremental reuse, local or Dask workers,
``--prune``). ``outputs`` owns what may be written or deleted in ``--out``;
``incremental`` the reuse records; ``validate`` is ``scmspec validate``'s report;
``progress`` the terminal progress bar.

Public API: :func:`compile_cards` (what ``scmspec compile`` runs), :func:`build`
(the same, in this process, rebuilding everything), :class:`ProtocolOverrides`.
"""

from scmspec.build.cards import CardResult, OverrideError, ProtocolOverrides, parse_all
from scmspec.build.driver import BuildReport, OutputError, build, compile_cards

__all__ = ["BuildReport", "CardResult", "OutputError", "OverrideError", "ProtocolOverrides",
           "build", "compile_cards", "parse_all"]
