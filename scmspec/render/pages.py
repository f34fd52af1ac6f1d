"""The catalogue's HTML: an index of every SCM and one page per SCM (pure text builders).

Pages are plain HTML5 with inline MathML for mechanisms, one stylesheet and one
small script (:mod:`scmspec.render.assets`), and images by relative path, so the
site opens from ``file://`` with no server, no CDN and no network. Every value
taken from a card or a data file is HTML-escaped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from scmspec.compiler.pipeline import CompiledCard
from scmspec.render.describe import effective_role, mechanism_family, mechanism_mathml, unit_text


@dataclass(frozen=True)
class IndexRow:
    """One manifest entry, and the page it links to (None when no dataset was written)."""

    entry: dict[str, Any]
    page: str | None
    note: str = ""
    release: str = ""  # the card's release state (draft, reviewed, released, retired)


@dataclass(frozen=True)
class ScmPage:
    """Everything one SCM page shows; image paths are relative to the page."""

    compiled: CompiledCard
    entry: dict[str, Any]
    metadata: dict[str, Any]
    gates: list[dict[str, Any]]
    figure: str
    histograms: list[str]
    regimes: list[str]
    dropped: list[str]
    correlation: str
    rows: dict[str, int] = field(default_factory=dict)


def _e(value: object) -> str:
    return escape("" if value is None else str(value), quote=True)


def _name(value: object) -> str:
    """An identifier, escaped, with a line-break opportunity after each ``_`` (``<wbr>``), so a
    long name wraps at a word boundary instead of widening its table past the page."""
    return _e(value).replace("_", "_<wbr>")


def document(title: str, body: str, root: str) -> str:
    """A whole page: the shared stylesheet and script under ``<root>assets/`` (no network).

    Example:
        >>> "<title>a &amp; b</title>" in document("a & b", "<p>x</p>", "")
        True
    """
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{_e(title)}</title>\n"
            f'<link rel="stylesheet" href="{root}assets/catalogue.css">\n'
            f'<script src="{root}assets/catalogue.js" defer></script>\n</head>\n'
            f"<body>\n{body}\n</body>\n</html>\n")


def table(headers: Sequence[str], rows: Iterable[str], table_id: str = "",
          sortable: bool = False) -> str:
    """A scrolling table of prepared ``<tr>`` rows; ``sortable`` lets a click on a header sort it.

    Example:
        >>> "<th>a</th>" in table(["a"], ["<tr><td>1</td></tr>"])
        True
    """
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    ident = (f' id="{table_id}"' if table_id else "") + (" data-sortable" if sortable else "")
    return (f'<div class="scroll"><table{ident}>\n<thead><tr>{head}</tr></thead>\n<tbody>\n'
            + "\n".join(rows) + "\n</tbody></table></div>")


def _badge(status: str) -> str:
    return f'<span class="badge {_e(status)}">{_e(status)}</span>'


def _tags(tags: Iterable[str]) -> str:
    """Tag badges separated by spaces, so a row of tags wraps like words."""
    return " ".join(f'<span class="tag">{_e(t)}</span>' for t in tags)


# -- index ---------------------------------------------------------------------------------------
def _gate_summary(entry: dict[str, Any]) -> str:
    failed, warned = entry.get("gates_failed") or [], entry.get("gates_warned") or []
    if entry.get("status") == "failed":
        return '<span class="muted">not run</span>'
    parts = [f"{_badge('fail')} {_e(', '.join(failed))}" if failed else "",
             f"{_badge('warn')} {_e(', '.join(warned))}" if warned else ""]
    return " ".join(p for p in parts if p) or _badge("pass")


def _index_row(row: IndexRow) -> str:
    e = row.entry
    name = _e(e.get("id") or e.get("card"))
    shown = _name(e.get("id") or e.get("card"))
    link = f'<a href="{_e(row.page)}">{shown}</a>' if row.page else shown
    note = f'<br><span class="muted">{_e(row.note)}</span>' if row.note else ""
    status = str(e.get("status", ""))
    cells = [f"<td>{link}{note}</td>", f"<td>{_e(e.get('title', ''))}</td>",
             f"<td>{_e(e.get('family', ''))}</td>", f"<td>{_e(e.get('domain', ''))}</td>",
             f'<td class="num">{_e(e.get("d", ""))}</td>',
             f'<td class="num">{_e(e.get("edges", ""))}</td>',
             f'<td data-sort="{_e(status)}">{_badge(status)}</td>',
             f'<td data-sort="{_e(row.release)}">{_badge(row.release) if row.release else ""}</td>',
             f"<td>{_gate_summary(e)}</td>",
             f"<td>{_tags(e.get('tags') or [])}</td>"]
    return (f'<tr data-id="{name}" data-family="{_e(e.get("family", ""))}" '
            f'data-status="{_e(status)}">' + "".join(cells) + "</tr>")


def _select(ident: str, label: str, values: Iterable[str]) -> str:
    options = "".join(f'<option value="{_e(v)}">{_e(v)}</option>' for v in sorted(set(values)))
    return (f'<label>{label} <select id="{ident}"><option value="">all</option>{options}'
            "</select></label>")


def index_page(rows: Sequence[IndexRow], manifest: dict[str, Any]) -> str:
    """The catalogue's front page: a sortable, filterable table of every SCM in the manifest."""
    counts = manifest.get("counts", {})
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    controls = ('<div class="controls"><label>filter <input id="filter-text" type="search" '
                'placeholder="id, domain, tag..."></label>'
                + _select("filter-family", "family", (r.entry.get("family") or "" for r in rows))
                + _select("filter-status", "status", (str(r.entry.get("status")) for r in rows))
                + f'<span class="muted">showing <span id="shown-count">{len(rows)}</span> of '
                f"{len(rows)}</span></div>")
    headers = ("SCM", "title", "family", "domain", "d", "edges", "status", "release", "gates",
               "tags")
    body = (f"<h1>SCM catalogue</h1>\n<p class=\"muted\">{len(rows)} cards ({_e(summary)}); "
            f"scmspec {_e(manifest.get('scmspec_version', ''))}. Click a header to sort.</p>\n"
            + controls + "\n" + table(headers, (_index_row(r) for r in rows), "scm-table"))
    return document("SCM catalogue", body, "")


# -- one SCM -------------------------------------------------------------------------------------
def _range(spec: Any) -> str:
    return f"[{spec.range[0]:g}, {spec.range[1]:g}]" if spec.range else ""


VARIABLE_COLUMNS = (("variable", 17), ("meaning", 25), ("unit", 8), ("range", 9), ("kind", 10),
                    ("role", 11), ("intervention", 20))  # header, width in % (fixed layout)


def _variable_row(compiled: CompiledCard, name: str) -> str:
    """Two rows: the variable's facts, then its mechanism across the whole table width (an
    equation needs more room than any one column has)."""
    spec = compiled.card.variables[name]
    kind = spec.kind + (f": {', '.join(spec.levels)}" if spec.levels else "")
    role = effective_role(spec) + ("" if spec.observed else " (latent)")
    action = ""
    if spec.intervention is not None:
        pool = " (target)" if name in compiled.resolved.targets else ""
        action = f"{_e(spec.intervention.meaning)} <code>{_e(spec.intervention.handler.kind)}" \
                 f"</code>{pool}"
    family = f' <span class="muted">{_e(mechanism_family(compiled, name))}</span>'
    cells = [f"<td><b>{_name(name)}</b></td>", f"<td>{_e(spec.meaning)}</td>",
             f"<td>{_e(unit_text(spec))}</td>", f"<td>{_range(spec)}</td>", f"<td>{_e(kind)}</td>",
             f"<td>{_e(role)}</td>", f"<td>{action}</td>"]
    mechanism = f'<td colspan="{len(VARIABLE_COLUMNS)}">{mechanism_mathml(compiled, name)}' \
                f"{family}</td>"
    return f'<tr class="facts">{"".join(cells)}</tr>\n<tr class="mech">{mechanism}</tr>'


def _edge_row(compiled: CompiledCard, source: str, target: str, reason: str) -> str:
    observed = all(compiled.card.variables[v].observed for v in (source, target))
    return (f"<tr><td>{_name(source)}</td><td>{_name(target)}</td><td>{_e(reason)}</td>"
            f"<td>{'yes' if observed else 'no (latent end)'}</td>"
            f"<td>{_e(mechanism_family(compiled, target))}</td></tr>")


def _gate_row(g: dict[str, Any]) -> str:
    stat = "" if g.get("statistic") is None else f"{g['statistic']:.4g}"
    thr = "" if g.get("threshold") is None else f"{g['threshold']:.4g}"
    cells = [g.get("gate"), None, g.get("severity"), g.get("detail"), g.get("location"), stat,
             thr, g.get("justification")]
    tds = [f"<td>{_e(c)}</td>" for c in cells]
    tds[1] = f"<td>{_badge(str(g.get('status')))}</td>"
    return "<tr>" + "".join(tds) + "</tr>"


def _header(page: ScmPage) -> str:
    card = page.compiled.card
    status = str(page.entry.get("status", page.metadata.get("status", "")))
    refs = "".join(f"<li>{_e(r)}</li>" for r in card.references)
    return (f'<p><a href="../index.html">&larr; catalogue</a></p>\n<h1>{_e(card.title)}</h1>\n'
            f'<p><code>{_e(card.id)}</code> &middot; {_e(card.family)} &middot; '
            f"{_e(card.domain)} &middot; version {_e(card.version)} &middot; {_badge(status)} "
            f"&middot; release state {_badge(card.release_state)} "
            f"{_tags(card.tags)}</p>\n"
            + (f"<p>{_e(card.description)}</p>\n" if card.description else "")
            + (f"<details><summary>references</summary><ul>{refs}</ul></details>\n"
               if refs else ""))


def _figure(page: ScmPage) -> str:
    return (f'<h2 id="graph">Causal graph</h2>\n<figure><a href="{_e(page.figure)}">'
            f'<img src="{_e(page.figure)}" alt="causal graph of {_e(page.compiled.card.id)}">'
            "</a><figcaption>Drawn from the compiled spec.json. Fill = role, dashed = latent, "
            "double border = intervenable. Open the SVG for meanings and edge reasons on hover."
            "</figcaption></figure>")


def _variables(page: ScmPage) -> str:
    compiled = page.compiled
    rows = [_variable_row(compiled, v) for v in compiled.resolved.order]
    cols = "".join(f'<col style="width: {w}%">' for _, w in VARIABLE_COLUMNS)
    head = "".join(f"<th>{h}</th>" for h, _ in VARIABLE_COLUMNS)
    variables = (f'<div class="scroll"><table id="variables-table" class="fixed"><colgroup>'
                 f"{cols}</colgroup>\n<thead><tr>{head}</tr>\n<tr><th colspan="
                 f'"{len(VARIABLE_COLUMNS)}" class="sub">mechanism (and its family)</th></tr>'
                 "</thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody></table></div>")
    consts = compiled.card.constants
    const_rows = [f"<tr><td><b>{_name(k)}</b></td><td>{c.value:g}</td><td>{_e(c.unit)}</td>"
                  f"<td>{_e(c.meaning)}</td><td>{_e(c.source)}</td></tr>"
                  for k, c in consts.items()]
    const_table = ("<h3>Constants</h3>\n" + table(("constant", "value", "unit", "meaning",
                                                    "source"), const_rows)) if consts else ""
    selection = compiled.card.selection
    sel = (f"<p><b>Selection:</b> rows are kept only where <code>{_e(selection.condition)}</code>"
           f"{' &mdash; ' + _e(selection.meaning) if selection.meaning else ''}.</p>"
           if selection else "")
    return f'<h2 id="variables">Variables</h2>\n{variables}\n{const_table}\n{sel}'


def _edges(page: ScmPage) -> str:
    rows = [_edge_row(page.compiled, e.source, e.target, e.reason)
            for e in page.compiled.card.edges]
    return ('<h2 id="edges">Edges</h2>\n'
            + table(("from", "to", "reason", "observed", "child mechanism"), rows))


def _gates(page: ScmPage) -> str:
    if not page.gates:
        return '<h2 id="gates">Gate results</h2>\n<p class="muted">no gate results recorded</p>'
    return ('<h2 id="gates">Gate results</h2>\n'
            + table(("gate", "status", "severity", "detail", "location", "statistic",
                      "threshold", "justification"), (_gate_row(g) for g in page.gates)))


def _diagnostics(page: ScmPage) -> str:
    sizes = ", ".join(f"{k}: {v}" for k, v in page.rows.items())
    images = "\n".join(f'<figure><img src="{_e(p)}" alt="histograms {i + 1}"></figure>'
                       for i, p in enumerate(page.histograms))
    dropped = (f"<p class=\"muted\">Regimes not drawn (fewer rows): {_e(', '.join(page.dropped))}"
               "</p>" if page.dropped else "")
    return (f'<h2 id="data">Data diagnostics</h2>\n<p class="muted">Replicate 0; rows: '
            f"{_e(sizes)}.</p>\n<h3>Histograms: obs vs each intervention target</h3>\n"
            f"<p class=\"muted\">Filled: observational rows. Lines: obs+int rows where the "
            f"target was intervened ({_e(', '.join(page.regimes[1:]) or 'none')}). "
            f"Densities.</p>\n{images}\n{dropped}\n<h3>Correlation (obs)</h3>\n"
            f'<figure><img src="{_e(page.correlation)}" alt="correlation heat map"></figure>')


def scm_page(page: ScmPage) -> str:
    """One SCM's page: graph, variables with rendered mechanisms, edges, gates and data plots."""
    nav = ('<p class="muted"><a href="#graph">graph</a> &middot; <a href="#variables">variables'
           '</a> &middot; <a href="#edges">edges</a> &middot; <a href="#gates">gates</a> '
           '&middot; <a href="#data">data</a></p>')
    body = "\n".join([_header(page), nav, _figure(page), _variables(page), _edges(page),
                      _gates(page), _diagnostics(page)])
    return document(f"{page.compiled.card.id} - SCM catalogue", body, "../")
