"""The card library's index: ``docs/cards.md`` is generated from the cards themselves.

``card_index(paths)`` parses and resolves every card under ``paths`` (no sampling, no
lowering) and writes one markdown table row per card: family, domain, id, title, size
(variables and observed variables, edges and observed edges), latent variables, selection,
the equations it uses (``equation_id`` names for formula cards, mechanism families
otherwise) and its intervention targets. Synthetic grid files are listed, not expanded.
Cards that do not parse or resolve are listed with their diagnostic codes, so the index
can always be generated.

Regenerate the committed copy after adding or changing a card (a test compares them)::

    python -m scmspec.authoring.catalog cards/ > docs/cards.md
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from scmspec.authoring.mix import COUNT_FAMILIES, PAPER, Composition, composition
from scmspec.build.cards import parse_all
from scmspec.build.discover import GRID_SUFFIXES, discover
from scmspec.compiler.resolve import ResolvedCard, resolve
from scmspec.errors import CardError
from scmspec.validators.mechanisms import FAMILIES, classify

COMMAND = "python -m scmspec.authoring.catalog cards/ > docs/cards.md"
FAMILY_ORDER = ("formula", "semantic", "synthetic")
HEADER = f"""\
# Card library

<!-- Generated from the cards by `{COMMAND}`; do not edit by hand.
     tests/unit/test_card_index.py fails when this file is stale. -->

Every card under `cards/`, grouped by family and domain (`scmspec compile cards/ --out data/`
releases them all; `scmspec validate cards/` runs the release gates). Columns:

- **variables (observed)**: all variables, and how many are written to the data;
- **edges (observed)**: all edges, and those between two observed variables (what
  `graph/adjacency.csv` holds; `graph/adjacency_full.csv` has every edge);
- **latent**: variables with `observed: false`; **selection**: the survivorship condition;
- **equations**: the named equations (`equation_id`) of a formula card; for other cards the
  mechanism families of its equations (`scmspec.validators.mechanisms`), with counts;
- **targets**: the intervention target pool.

How to write a card, validate it and regenerate this page: [authoring.md](authoring.md).
"""


@dataclass(frozen=True)
class CardEntry:
    """One row of the index."""

    link: str  # path relative to docs/
    id: str
    title: str
    family: str
    domain: str
    variables: int
    observed: int
    edges: int
    observed_edges: int
    latent: tuple[str, ...]
    selection: str | None
    equations: str
    targets: tuple[str, ...]
    composition: Composition = field(default_factory=Composition, compare=False)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _names(names: Sequence[str]) -> str:
    return ", ".join(f"`{n}`" for n in names) if names else "none"


def equations_used(resolved: ResolvedCard) -> str:
    """``equation_id`` names (formula cards), else mechanism families with counts.

    Example:
        >>> import scmspec
        >>> from scmspec.compiler.resolve import resolve
        >>> repo = Path(scmspec.__file__).resolve().parents[1]
        >>> lc = scmspec.load(repo / "cards" / "formula" / "barometric_slp.yaml")
        >>> equations_used(resolve(lc.card, lc.source)).split(", ")[0]
        '`weighted_height_fusion`'
    """
    card = resolved.card
    if card.family == "formula":
        ids = [s.equation_id for s in card.variables.values() if s.equation_id]
        return ", ".join(f"`{i}`" for i in dict.fromkeys(ids)) or "none named"
    counts: Counter[str] = Counter()
    for v, spec in card.variables.items():
        if spec.mechanism is not None:
            counts[str(spec.mechanism.family)] += 1
        elif v in resolved.equations:
            counts[classify(resolved.equations[v], resolved.parents[v])] += 1
    counts.pop("constant", None)
    order = [f for f in FAMILIES if counts[f]] + sorted(set(counts) - set(FAMILIES))
    return ", ".join(f"{f} {counts[f]}" for f in order) or "none"


def _entry(resolved: ResolvedCard, link: str) -> CardEntry:
    card, graph = resolved.card, resolved.graph
    observed = set(resolved.observed)
    return CardEntry(
        link=link, id=card.id, title=card.title, family=card.family, domain=card.domain,
        variables=len(card.variables), observed=len(observed), edges=graph.number_of_edges(),
        observed_edges=sum(a in observed and b in observed for a, b in graph.edges),
        latent=tuple(v for v in card.variables if v not in observed),
        selection=card.selection.condition if card.selection else None,
        equations=equations_used(resolved), targets=tuple(resolved.targets),
        composition=composition(resolved))


def _link(path: Path, root: Path) -> str:
    return Path(os.path.relpath(path.resolve(), (root / "docs").resolve())).as_posix()


def _is_grid(path: Path) -> bool:
    return path.name.endswith(GRID_SUFFIXES)


def collect(paths: Iterable[str | Path], root: Path) -> tuple[list[CardEntry], list[str]]:
    """Index entries of the cards under ``paths``, and rows for cards that failed."""
    files = [f for f in discover(paths) if not _is_grid(f.path)]
    results, loaded = parse_all(files)
    by_shown = {f.display: f.path for f in files}
    entries, failed = [], []
    for res in results:
        link = _link(by_shown.get(res.path, Path(res.path)), root)
        codes = [d.code for d in res.diagnostics]
        if res.path in loaded:
            lc = loaded[res.path]
            try:
                entries.append(_entry(resolve(lc.card, lc.source), link))
                continue
            except CardError as exc:
                codes = [d.code for d in exc.diagnostics]
        failed.append(f"| [`{Path(link).name}`]({link}) | {', '.join(sorted(set(codes)))} |")
    return entries, failed


def _row(e: CardEntry) -> str:
    cells = [f"[`{e.id}`]({e.link})", _cell(e.title), f"{e.variables} ({e.observed})",
             f"{e.edges} ({e.observed_edges})", _names(e.latent),
             f"`{_cell(e.selection)}`" if e.selection else "none", e.equations,
             _names(e.targets)]
    return "| " + " | ".join(cells) + " |"


def _family_section(family: str, entries: list[CardEntry]) -> list[str]:
    lines = [f"## {family.capitalize()} cards ({len(entries)})", ""]
    for domain in sorted({e.domain for e in entries}):
        rows = sorted((e for e in entries if e.domain == domain), key=lambda e: e.id)
        lines += [f"### {domain}", "",
                  "| card | title | variables (observed) | edges (observed) | latent | "
                  "selection | equations | targets |",
                  "|---|---|---|---|---|---|---|---|", *map(_row, rows), ""]
    return lines


def _summary(entries: list[CardEntry]) -> list[str]:
    lines = ["| family | cards | domains | variables | edges | with latent | with selection |",
             "|---|---|---|---|---|---|---|"]
    for family in _families(entries):
        es = [e for e in entries if e.family == family]
        lines.append(f"| {family} | {len(es)} | {len({e.domain for e in es})} | "
                     f"{min(e.variables for e in es)}-{max(e.variables for e in es)} | "
                     f"{min(e.edges for e in es)}-{max(e.edges for e in es)} | "
                     f"{sum(bool(e.latent) for e in es)} | {sum(bool(e.selection) for e in es)} |")
    return [*lines, ""]


def library_section(entries: list[CardEntry]) -> list[str]:
    """The semantic and formula libraries beside CausalArena's released pools (Figure 18).

    Sizes count observed variables, observed edges and intervention targets; mechanism
    shares are edge shares and noise shares node shares (scmspec.authoring.mix says how).
    """
    lines = ["## The library beside CausalArena's released pools", "",
             "Sizes count what a method sees: observed variables, edges between them, "
             "intervention targets. Mechanism shares are shares of edges (each edge takes "
             "its child's mechanism category), noise shares are shares of non-root nodes, "
             "as in CausalArena's Figure 18; `scmspec/authoring/mix.py` gives the rules. "
             "Only cards of the reference domains count (not the game scenarios).", ""]
    for family, paper in PAPER.items():
        es = [e for e in entries if e.family == family and e.domain in paper["domains"]]
        if not es:
            continue
        mix = Composition()
        for e in es:
            mix.add(e.composition)
        lines += _size_table(family, es, paper) + _mix_table(mix, paper)
    return lines


def _spread(values: list[int]) -> str:
    return f"{min(values)}-{max(values)} ({sum(values) / len(values):.2f})"


def _size_table(family: str, es: list[CardEntry], paper: dict[str, Any]) -> list[str]:
    def ref(key: str) -> str:
        lo, hi, mean = paper[key]
        return f"{lo}-{hi} ({mean:.2f})"
    return [f"### {family.capitalize()}", "",
            "| | cards | domains | variables | edges | targets |", "|---|---|---|---|---|---|",
            f"| this library | {len(es)} | {len({e.domain for e in es})} | "
            f"{_spread([e.observed for e in es])} | {_spread([e.observed_edges for e in es])} | "
            f"{_spread([len(e.targets) for e in es])} |",
            f"| CausalArena | 100 | 10 | {ref('variables')} | {ref('edges')} | "
            f"{ref('targets')} |", ""]


def _mix_table(mix: Composition, paper: dict[str, Any]) -> list[str]:
    shown = list(paper["mechanisms"]) + [c for c, _ in mix.mechanisms.most_common(6)
                                         if c not in paper["mechanisms"]]
    rows = [f"| {c} | {mix.edge_share(c):.1f} | {paper['mechanisms'].get(c, '-')} |"
            for c in shown]
    noise = ["none", *paper["noise_order"]]
    noise += [c for c in paper["noise"] if c not in noise]
    noise += [c for c in COUNT_FAMILIES if c in mix.noise and c not in noise]
    noise += [c for c, _ in mix.noise.most_common(4) if c not in noise]
    nrows = [f"| {c} | {mix.noise_share(c):.1f} | {_paper_noise(c, paper)} |" for c in noise]
    return ["| mechanism (% of edges) | this library | CausalArena |", "|---|---|---|", *rows, "",
            "| extra noise (% of non-root nodes) | this library | CausalArena |", "|---|---|---|",
            *nrows, ""]


def _paper_noise(category: str, paper: dict[str, Any]) -> str:
    """Figure 18's bar for the category ("-" where it has none: in the paper's Other)."""
    if category == "none":
        return str(paper["noise_none"])
    return str(paper["noise"].get(category, "-"))


def _families(entries: list[CardEntry]) -> list[str]:
    present = {e.family for e in entries}
    return [f for f in FAMILY_ORDER if f in present] + sorted(present - set(FAMILY_ORDER))


def _grids(paths: Iterable[str | Path], root: Path) -> list[str]:
    """Rows for synthetic grid files: id and title from the file's header, not expanded."""
    found = sorted({q for p in map(Path, paths) for q in (p.rglob("*") if p.is_dir() else [p])
                    if _is_grid(q) and q.is_file()}, key=lambda q: q.as_posix())
    rows = []
    for q in found:
        try:
            head = yaml.safe_load(q.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError:
            head = {}
        link = _link(q, root)
        title = _cell(str(head.get("title", "")))
        rows.append(f"| [`{head.get('id', q.name)}`]({link}) | {title} |")
    if not rows:
        return []
    return ["## Synthetic grids", "",
            "Each grid file expands into many synthetic cards (`scmspec synth`, or compile the "
            "file by name; folder walks skip grids).", "",
            "| grid | title |", "|---|---|", *rows, ""]


def card_index(paths: Iterable[str | Path], root: str | Path | None = None) -> str:
    """The markdown index of every card under ``paths``; links are relative to ``root``/docs.

    ``root`` is the repository root (default: the working directory).
    """
    paths = list(paths)
    base = Path(root) if root is not None else Path.cwd()
    entries, failed = collect(paths, base)
    lines = [HEADER, *_summary(entries), *library_section(entries)] if entries else [HEADER]
    for family in _families(entries):
        lines += _family_section(family, [e for e in entries if e.family == family])
    lines += _grids(paths, base)
    if failed:
        lines += ["## Cards that do not compile", "", "| file | diagnostics |", "|---|---|",
                  *failed, ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m scmspec.authoring.catalog PATH... > docs/cards.md`` (from the repo root)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print(f"usage: {COMMAND}", file=sys.stderr)
        return 2
    sys.stdout.write(card_index(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
