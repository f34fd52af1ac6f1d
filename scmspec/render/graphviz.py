"""Draw a compiled card's causal graph: DOT text (pure) and figures (through graphviz ``dot``).

:func:`to_dot` takes the resolved spec (a :class:`CompiledCard` or an :class:`SCM`),
so the figure is always the graph the sampler runs, and returns DOT text that is
tested as text. :func:`write_figure` hands that text to the ``dot`` binary.

What the figure encodes: fill colour = role (a variable with a distribution and
the default role is a root); dashed border = latent (sampled, never written);
double border = intervenable; a hexagon with dotted edges = the selection
condition; the unit under each name; an edge's reason as its SVG tooltip, and
optionally the child's mechanism family as the edge label. A legend lists the
styles that occur. Layout is ``dot`` ranking with every root on the top rank
(``dot`` places node and edge labels without overlaps); above :data:`LARGE`
variables spacing and type shrink, so 100 variables stay legible when zoomed.
"""

from __future__ import annotations

import html
import shutil
import textwrap
from pathlib import Path

import graphviz

from scmspec.compiler.pipeline import CompiledCard
from scmspec.errors import ScmspecError
from scmspec.render.describe import effective_role, mechanism_family, unit_text
from scmspec.render.svg import centre_labels
from scmspec.samplers.scm import SCM

FORMATS = ("svg", "png", "pdf")
LARGE = 40  # above this many variables, use tighter spacing and smaller type
# A font stack whose members share Helvetica's widths (Arial and Liberation Sans are metric
# clones). Graphviz measures labels with the first it finds (Liberation Sans where Helvetica is
# absent), and the SVG declares the same stack, so a browser draws text of the measured width;
# a plain "Helvetica" was measured as DejaVu Sans here and drawn narrower (labels drifted).
FONT = "Helvetica,Arial,Liberation Sans,sans-serif"
INSTALL_HINT = ("the graphviz 'dot' program is not installed (or not on PATH); install it with "
                "`apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` (macOS) or "
                "`conda install graphviz`, then run the command again")

# Role -> fill colour (a qualitative palette that keeps black text readable), legend order.
ROLE_FILLS: dict[str, str] = {
    "root": "#cfe2f3", "input": "#c3e8e3", "setting": "#fff2cc", "process": "#eeeeee",
    "formula": "#e1d5f5", "measurement": "#d9ead3", "readout": "#b6d7a8", "flag": "#f4cccc",
    "outcome": "#fce5cd",
}
SELECTION_ID = "__selection"
LEGEND_ID = "__legend"


class GraphvizNotFound(ScmspecError):
    """The ``dot`` program is missing: an installation problem, reported without a traceback."""

    def __init__(self, message: str = INSTALL_HINT) -> None:
        super().__init__(message)
        self.message = message


def dot_available() -> bool:
    """True when the graphviz ``dot`` program is on PATH."""
    return shutil.which("dot") is not None


def to_dot(model: CompiledCard | SCM, edge_labels: bool = False) -> str:
    """The DOT text of a compiled card's graph (deterministic: same card, same text).

    Example:
        >>> import scmspec
        >>> scm = scmspec.compile_text('''
        ... id: demo
        ... title: Demo
        ... family: semantic
        ... domain: demo
        ... variables:
        ...   x: {meaning: cause, distribution: {kind: normal}, intervention: {meaning: set}}
        ...   y: {meaning: effect, equation: 2 * x}
        ... edges: [{from: x, to: y, reason: demo}]
        ... ''')
        >>> text = to_dot(scm)
        >>> '"x" -> "y"' in text and "peripheries=2" in text
        True
    """
    compiled = model.compiled if isinstance(model, SCM) else model
    large = len(compiled.card.variables) > LARGE
    lines = _header(compiled, large)
    lines += _nodes(compiled)
    lines += _edges(compiled, edge_labels)
    lines += _selection(compiled)
    lines += _legend(compiled, edge_labels)
    return "\n".join(lines + ["}"]) + "\n"


def write_figure(dot: str, path: Path, fmt: str = "svg") -> Path:
    """Lay out DOT text with ``dot`` and write the figure; raises :class:`GraphvizNotFound`."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown figure format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if not dot_available():
        raise GraphvizNotFound()
    try:
        data = graphviz.Source(dot).pipe(format=fmt, engine="dot")
    except graphviz.ExecutableNotFound as exc:
        raise GraphvizNotFound() from exc
    if fmt == "svg":  # anchored at the middle of their boxes, whatever font the browser has
        data = centre_labels(data.decode("utf-8")).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    return path


# -- DOT pieces ---------------------------------------------------------------------------------
def _q(text: str) -> str:
    """A double-quoted DOT string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _h(text: str) -> str:
    """Text escaped for a DOT HTML-like label."""
    return html.escape(text, quote=True)


def _header(compiled: CompiledCard, large: bool) -> list[str]:
    card = compiled.card
    size = "nodesep=0.15, ranksep=0.35" if large else "nodesep=0.3, ranksep=0.45"
    title = f"<<B>{_h(card.title)}</B><BR/><FONT POINT-SIZE=\"10\">{_h(card.id)} " \
            f"({_h(card.family)}, {_h(card.domain)})</FONT>>"
    return [
        f"digraph {_q(card.id)} {{",
        f"  graph [rankdir=TB, newrank=true, {size}, fontname={_q(FONT)}, fontsize=12, "
        f"labelloc=t, label={title}, tooltip={_q(card.title)}];",
        f"  node [shape=box, style=\"rounded,filled\", fontname={_q(FONT)}, "
        f"fontsize={9 if large else 11}, color=\"#444444\", penwidth=1.1, margin=\"0.08,0.04\"];",
        f"  edge [color=\"#555555\", arrowsize=0.7, fontname={_q(FONT)}, fontsize=9, "
        "fontcolor=\"#444444\"];",
    ]


def _node(compiled: CompiledCard, name: str) -> str:
    spec = compiled.card.variables[name]
    role = effective_role(spec)
    unit = unit_text(spec)
    label = f"<B>{_h(name)}</B>" + (f"<BR/><FONT POINT-SIZE=\"8\" COLOR=\"#555555\">{_h(unit)}"
                                    "</FONT>" if unit else "")
    style = "rounded,filled,dashed" if not spec.observed else "rounded,filled"
    tip = f"{name}: {spec.meaning} [{role}{', latent' if not spec.observed else ''}]"
    attrs = [f"label=<{label}>", f"fillcolor={_q(ROLE_FILLS[role])}", f"tooltip={_q(tip)}"]
    if style != "rounded,filled":
        attrs.append(f"style={_q(style)}")
    if spec.intervention is not None:
        attrs.append("peripheries=2")
    return f"{_q(name)} [{', '.join(attrs)}];"


def _nodes(compiled: CompiledCard) -> list[str]:
    order = compiled.resolved.order
    lines = ["  " + _node(compiled, v) for v in order]
    # Roots share the top rank: the usual reading of a causal diagram, and at 100 variables
    # the only ranking that keeps exogenous inputs findable.
    roots = [v for v in order if not compiled.resolved.parents[v]]
    return lines + [f"  {{ rank=min; {' '.join(_q(v) + ';' for v in roots)} }}"]


def _edges(compiled: CompiledCard, edge_labels: bool) -> list[str]:
    resolved = compiled.resolved
    position = {v: i for i, v in enumerate(resolved.order)}
    reasons = {(e.source, e.target): e.reason for e in compiled.card.edges}
    lines = []
    for u, v in sorted(resolved.graph.edges, key=lambda e: (position[e[0]], position[e[1]])):
        tip = f"{u} -> {v}: {reasons.get((u, v), '')}"
        attrs = [f"tooltip={_q(tip)}"]
        if edge_labels:
            attrs.insert(0, f"label={_q(mechanism_family(compiled, v))}")
        latent = not (compiled.card.variables[u].observed and compiled.card.variables[v].observed)
        if latent:
            attrs.append("style=dashed")
        lines.append(f"  {_q(u)} -> {_q(v)} [{', '.join(attrs)}];")
    return lines


def _selection(compiled: CompiledCard) -> list[str]:
    selection = compiled.card.selection
    if selection is None or compiled.resolved.selection is None:
        return []
    inputs = sorted((s.name for s in compiled.resolved.selection.free_symbols
                     if s.name in compiled.card.variables),
                    key=compiled.resolved.order.index)
    cond = "<BR/>".join(_h(part) for part in textwrap.wrap(selection.condition, 36))
    tip = f"rows are kept only where {selection.condition}" + \
        (f" ({selection.meaning})" if selection.meaning else "")
    lines = [f"  {_q(SELECTION_ID)} [shape=hexagon, style=filled, fillcolor=\"#ffffff\", "
             f"color=\"#990000\", label=<<B>selection</B><BR/><FONT POINT-SIZE=\"9\">{cond}"
             f"</FONT>>, tooltip={_q(tip)}];"]
    lines += [f"  {_q(v)} -> {_q(SELECTION_ID)} [style=dotted, color=\"#990000\", "
              "arrowhead=odot, tooltip=\"selection input\"];" for v in inputs]
    return lines


def _legend(compiled: CompiledCard, edge_labels: bool) -> list[str]:
    variables = compiled.card.variables.values()
    roles = {effective_role(s) for s in variables}
    cells = [f"<TD BGCOLOR=\"{ROLE_FILLS[r]}\" BORDER=\"1\" STYLE=\"rounded\">{r}</TD>"
             for r in ROLE_FILLS if r in roles]
    marks = []
    if any(not s.observed for s in variables):
        marks.append("<TD BORDER=\"1\" STYLE=\"rounded,dashed\">latent (not in data)</TD>")
    if any(s.intervention is not None for s in variables):
        marks.append("<TD BORDER=\"1\" STYLE=\"rounded\" CELLPADDING=\"1\"><TABLE BORDER=\"1\" "
                     "STYLE=\"rounded\" CELLBORDER=\"0\" CELLPADDING=\"2\"><TR><TD>intervenable"
                     "</TD></TR></TABLE></TD>")
    if compiled.card.selection is not None:
        marks.append("<TD BORDER=\"1\" COLOR=\"#990000\">selection: rows kept if true</TD>")
    notes = "edge label: mechanism family; " if edge_labels else ""
    # Captions without a border are left-aligned: centred text needs a box to centre in
    # (render/svg.py), and a left-aligned line starts in the right place in any font.
    rows = [f"<TR><TD BORDER=\"0\" ALIGN=\"LEFT\"><B>legend</B></TD>{''.join(cells)}</TR>"]
    if marks:
        rows.append(f"<TR><TD BORDER=\"0\"></TD><TD COLSPAN=\"{max(len(cells), 1)}\" BORDER=\"0\">"
                    f"<TABLE BORDER=\"0\" CELLSPACING=\"3\"><TR>{''.join(marks)}</TR></TABLE>"
                    "</TD></TR>")
    rows.append(f"<TR><TD BORDER=\"0\"></TD><TD COLSPAN=\"{max(len(cells), 1)}\" BORDER=\"0\" "
                f"ALIGN=\"LEFT\"><FONT POINT-SIZE=\"8\">{notes}units under names; hover for "
                "meanings and edge reasons (SVG)</FONT></TD></TR>")
    table = "<TABLE BORDER=\"0\" CELLSPACING=\"3\" CELLPADDING=\"3\">" + "".join(rows) + \
        "</TABLE>"
    # Invisible edges from every sink keep the legend below the graph at any size.
    graph = compiled.resolved.graph
    sinks = [v for v in compiled.resolved.order if graph.out_degree(v) == 0]
    return [f"  {_q(LEGEND_ID)} [shape=plaintext, style=\"\", fontsize=9, label=<{table}>, "
            "tooltip=\"legend\"];"] + \
        [f"  {_q(v)} -> {_q(LEGEND_ID)} [style=invis];" for v in sinks]
