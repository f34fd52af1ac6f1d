"""Render cards to figure files: one card to one file, or a folder of cards to a folder.

Each card goes through the compiler (parse, resolve, unit check, lower) before it is
drawn, so a figure always shows the graph that ``scmspec compile`` would sample;
a card with errors gets its diagnostics instead of a figure, and the other cards
are still drawn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from scmspec.build.discover import discover
from scmspec.compiler.load import read_card
from scmspec.compiler.pipeline import compile_card, parse_card
from scmspec.errors import CardError, Diagnostic, ScmspecError, Span
from scmspec.render.graphviz import GraphvizNotFound, dot_available, to_dot, write_figure

SUFFIXES = {".svg": "svg", ".png": "png", ".pdf": "pdf", ".dot": "dot", ".gv": "dot"}


class FigureFormatError(ScmspecError):
    """``-o`` and ``--format`` do not name one figure format (a usage mistake)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def figure_format(out: Path | None, fmt: str | None, folder_input: bool = False) -> str:
    """The format to write: ``--format`` if given, else the suffix of ``-o``, else svg.

    A figure file's suffix must name its format, so ``-o x.png`` writes PNG without ``-f png``,
    ``-o x.png -f svg`` is refused (the file would lie about its content), and so is a suffix
    that is no figure format (``-o x.jpg``). ``-o`` without a suffix needs ``--format``. For a
    folder of cards ``-o`` is a folder and only ``--format`` counts.

    Example:
        >>> figure_format(Path("x.png"), None), figure_format(None, None)
        ('png', 'svg')
        >>> figure_format(Path("x.jpg"), None)
        Traceback (most recent call last):
        ...
        scmspec.render.figures.FigureFormatError: cannot tell the figure format of x.jpg: ...
    """
    if folder_input or out is None:
        return fmt or "svg"
    suffix = out.suffix.lower()
    if not suffix:
        if fmt is None:
            raise FigureFormatError(f"cannot tell the figure format of {out}: give it a suffix "
                                    "(.svg, .png, .pdf or .dot) or pass --format")
        return fmt
    if suffix not in SUFFIXES:
        raise FigureFormatError(f"cannot tell the figure format of {out}: {suffix} is not "
                                "one of .svg, .png, .pdf, .dot (.gv)")
    if fmt is not None and fmt != SUFFIXES[suffix]:
        raise FigureFormatError(f"{out} ends in {suffix} but --format is {fmt}: drop --format "
                                f"or name the file .{fmt}")
    return SUFFIXES[suffix]


@dataclass
class FigureResult:
    """What happened to one card: the figure written, or the diagnostics that stopped it."""

    card: Path
    figure: Path | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    source_lines: list[str] = field(default_factory=list)


def figure_path(card: Path, out: Path | None, fmt: str, folder: Path | None = None) -> Path:
    """Where a card's figure goes.

    For one card: ``out``, or the card's path with the format's suffix. For a card
    found under ``folder``: ``out`` (default ``figures``) plus the card's path
    relative to the folder, so cards with the same name in subfolders do not collide.

    Example:
        >>> figure_path(Path("cards/a.yaml"), None, "svg").as_posix()
        'cards/a.svg'
        >>> figure_path(Path("cards/x/a.yaml"), Path("figs"), "png", Path("cards")).as_posix()
        'figs/x/a.png'
    """
    if folder is not None:
        return (out or Path("figures")) / card.relative_to(folder).with_suffix(f".{fmt}")
    return out if out is not None else card.with_suffix(f".{fmt}")


def render_card(card_path: Path, target: Path, fmt: str = "svg",
                edge_labels: bool = False) -> FigureResult:
    """Compile one card and write its figure (``fmt`` may also be ``dot`` for the DOT text)."""
    result = FigureResult(card_path)
    try:
        card, smap = parse_card(card_path)
        result.source_lines = smap.lines
        compiled = compile_card(card, smap)
    except CardError as exc:
        result.diagnostics = list(exc.diagnostics)
        if not result.source_lines:
            try:
                raw = read_card(card_path)
            except CardError:
                return result
            result.source_lines = raw.decode("utf-8", errors="replace").splitlines()
        return result
    dot = to_dot(compiled, edge_labels)
    if fmt == "dot":
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(dot, encoding="utf-8")
    else:
        write_figure(dot, target, fmt)
    result.figure = target
    return result


def render_paths(path: Path, out: Path | None, fmt: str = "svg",
                 edge_labels: bool = False) -> list[FigureResult]:
    """Draw one card file, or every card under a folder (one figure per card into ``out``)."""
    if fmt != "dot" and not dot_available():
        raise GraphvizNotFound()
    folder = path if path.is_dir() else None
    results = []
    for c in discover([path]):
        if c.refusal:  # a link out of the folder: never read, so never echoed
            refused = FigureResult(c.path)
            refused.diagnostics = [Diagnostic("SCM114", c.refusal, Span(c.display, 1, 1))]
            results.append(refused)
            continue
        results.append(render_card(c.path, figure_path(c.path, out, fmt, folder), fmt,
                                   edge_labels))
    return results
