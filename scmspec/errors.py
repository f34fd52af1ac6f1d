"""Diagnostics for people, exceptions for programs.

A user mistake in a card becomes a :class:`Diagnostic` carrying a :class:`Span`
(``file:line:col``), a field path, a message that states the fact and then the
expectation, and a hint on how to fix it. Passes collect every diagnostic they
find and raise one :class:`CardError`; the CLI renders them without a traceback.
A bug in scmspec itself is an :class:`InternalError` and keeps its traceback.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Span:
    """A position in a card file (1-based line and column)."""

    path: str
    line: int
    col: int
    end_col: int | None = None

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"

    @classmethod
    def made(cls, path: str, line: int, col: int, end_col: int | None) -> Span:
        """``Span(path, line, col, end_col)`` without the frozen dataclass's checked
        ``__init__`` (the loader makes one per YAML node; this is about half the cost).

        Example:
            >>> Span.made("c.yaml", 2, 5, None) == Span("c.yaml", 2, 5)
            True
        """
        span = object.__new__(cls)
        fields = span.__dict__
        fields["path"], fields["line"], fields["col"], fields["end_col"] = path, line, col, end_col
        return span


@dataclass(frozen=True)
class Diagnostic:
    """One problem found in a card.

    Example:
        >>> d = Diagnostic("SCM301", "unknown symbol 'q'", Span("a.yaml", 3, 5), "declare q")
        >>> str(d).splitlines()[0]
        "a.yaml:3:5: error[SCM301]: unknown symbol 'q'"
    """

    code: str
    message: str
    span: Span | None = None
    hint: str | None = None
    field_path: str | None = None
    severity: str = "error"

    def __str__(self) -> str:
        return render_diagnostic(self, source_lines=None)

    def to_json(self) -> dict[str, object]:
        """A JSON-ready record (used in manifests and ``--json`` output)."""
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "location": str(self.span) if self.span else None,
            "field": self.field_path,
            "hint": self.hint,
        }


class ScmspecError(Exception):
    """Base of every error scmspec raises on purpose."""


class CardError(ScmspecError):
    """The user's card is wrong; carries every diagnostic the failing pass found."""

    def __init__(self, diagnostics: Sequence[Diagnostic]) -> None:
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.diagnostics,))


class LoadError(CardError):
    """The card text is not valid YAML, or uses YAML features cards may not use."""


class SchemaError(CardError):
    """The card's structure does not match the card language (wrong field, type, value)."""


class ResolveError(CardError):
    """Names, equations or the graph do not resolve (unknown symbol, cycle, edge mismatch)."""


class UnknownKindError(ResolveError):
    """A kind (mechanism, root, noise, intervention, gate) is not registered."""


class UnitError(CardError):
    """Units are unknown or dimensionally inconsistent."""


class LowerError(CardError):
    """A card resolved but cannot be turned into an executable sampler."""


class SamplingError(CardError):
    """Sampling failed for a reason the card author can fix (a selection accepting too few rows)."""


class InternalError(ScmspecError):
    """A bug in scmspec; never caught by the CLI."""


def internal_error(exc: BaseException, span: Span | None, stage: str) -> Diagnostic:
    """The record of an unexpected exception while building one card (SCM901).

    The build goes on with the other cards; the traceback is kept out of released
    files (it names this machine's paths) and printed only with ``--debug``.

    Example:
        >>> internal_error(ZeroDivisionError("division by zero"), None, "sampling").message
        'internal error while sampling: ZeroDivisionError: division by zero'
    """
    text = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
    what = type(exc).__name__ + (f": {text}" if text else "")
    return Diagnostic("SCM901", f"internal error while {stage}: {what}", span,
                      "this is a bug in scmspec, not in the card; re-run with --debug for "
                      "the traceback and report it")


@dataclass
class DiagnosticBag:
    """Collects diagnostics during a pass, then raises them all at once."""

    items: list[Diagnostic] = field(default_factory=list)

    def add(self, code: str, message: str, span: Span | None = None, hint: str | None = None,
            field_path: str | None = None) -> None:
        self.items.append(Diagnostic(code, message, span, hint, field_path))

    def raise_if_any(self, error_type: type[CardError]) -> None:
        if self.items:
            raise error_type(self.items)


def render_diagnostic(diag: Diagnostic, source_lines: Sequence[str] | None) -> str:
    """Render a diagnostic with the offending line and a caret, as compilers do.

    Example:
        >>> d = Diagnostic("SCM401", "bad unit", Span("c.yaml", 1, 7, 10), "use m")
        >>> print(render_diagnostic(d, ["unit: mmm"]))
        c.yaml:1:7: error[SCM401]: bad unit
            1 | unit: mmm
              |       ^^^
          hint: use m
    """
    where = f"{diag.span}: " if diag.span else ""
    out = [f"{where}{diag.severity}[{diag.code}]: {diag.message}"]
    if diag.field_path:
        out[0] += f" (at {diag.field_path})" if diag.field_path not in diag.message else ""
    span = diag.span
    if span and source_lines and 1 <= span.line <= len(source_lines):
        text = source_lines[span.line - 1].rstrip("\n")
        gutter = f"{span.line:>5} | "
        width = max(1, (span.end_col or span.col + 1) - span.col)
        out.append(gutter + text)
        out.append(" " * (len(gutter) - 2) + "| " + " " * (span.col - 1) + "^" * width)
    if diag.hint:
        out.append(f"  hint: {diag.hint}")
    return "\n".join(out)
