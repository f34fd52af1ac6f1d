"""A progress bar for long compiles: cards done, failures and time left.

Shown only when stdout and stderr are terminals, so logs, pipes and CI output stay
clean; it draws on stderr so stdout keeps the one-line-per-card report.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from scmspec.build.cards import CardResult


def wanted(flag: bool | None) -> bool:
    """``--progress/--no-progress`` if given, else on exactly when attached to a terminal."""
    if flag is not None:
        return flag
    return sys.stdout.isatty() and sys.stderr.isatty()


class CardProgress:
    """Callbacks for :func:`scmspec.build.driver.compile_cards` that drive a rich bar."""

    def __init__(self, bar: Progress | None) -> None:
        self.bar = bar
        self.task: Any = None
        self.failed = 0

    def total(self, n: int) -> None:
        if self.bar is not None:
            self.task = self.bar.add_task("compiling", total=n, failed=0)

    def done(self, res: CardResult) -> None:
        self.failed += res.status != "released"
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, advance=1, failed=self.failed)


@contextmanager
def card_progress(enabled: bool) -> Iterator[CardProgress]:
    """A :class:`CardProgress`; drawing only if ``enabled``."""
    if not enabled:
        yield CardProgress(None)
        return
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("cards, {task.fields[failed]} not released"),
                   TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                   console=Console(stderr=True), transient=True)
    with bar:
        yield CardProgress(bar)
