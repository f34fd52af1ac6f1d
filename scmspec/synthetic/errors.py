"""Located diagnostics of the synthetic generator (codes SCM70x, docs/errors.md).

- SCM701: no valid graph within the attempt budget;
- SCM702: a node (or the root block) failed the pilot data checks in every attempt;
- SCM703: a factor names an unknown tag (graph family, mechanism, noise, root,
  dependency, stressor, protocol, preset);
- SCM704: a grid card is invalid (unknown design field, bad base, empty expansion);
- SCM705: a ``--select`` expression is malformed or names an unknown factor.

A configuration that cannot be made valid is reported with one of these, never
dropped or silently replaced.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from scmspec.compiler.load import SourceMap
from scmspec.compiler.synthetic_spec import SyntheticSpec
from scmspec.errors import CardError, Diagnostic, DiagnosticBag
from scmspec.limits import current_limits


class SynthesisError(CardError):
    """A synthetic factor card or grid that cannot be turned into valid SCMs."""


def fail(code: str, message: str, smap: SourceMap, loc: tuple[str | int, ...],
         hint: str | None = None) -> SynthesisError:
    """A one-diagnostic error located at ``loc`` of the card (or its nearest ancestor).

    Example:
        >>> err = fail("SCM701", "no graph", SourceMap("c.yaml"), ("synthetic",), "raise d")
        >>> err.diagnostics[0].code, str(err.diagnostics[0].span)
        ('SCM701', 'c.yaml:1:1')
    """
    path = ".".join(map(str, loc))
    return SynthesisError([Diagnostic(code, message, smap.nearest(loc), hint, path)])


def check_count(count: int, smap: SourceMap, loc: tuple[str | int, ...]) -> None:
    """Refuse a grid that would expand into more configurations than the limit, before it does.

    Example:
        >>> check_count(10**12, SourceMap("g.yaml"), ("per_cell",))
        Traceback (most recent call last):
        ...
        scmspec.synthetic.errors.SynthesisError: g.yaml:1:1: error[SCM704]: the grid expands ...
    """
    limit = current_limits().grid_cards
    if count > limit:
        raise fail("SCM704", f"the grid expands into {count:,} configurations, over the limit of "
                   f"{limit:,}", smap, loc, "expand fewer configurations, or raise "
                   "SCMSPEC_MAX_GRID_CARDS (docs/limits.md)")


def _unknown(bag: DiagnosticBag, what: str, tag: str, known: Iterable[str], smap: SourceMap,
             loc: tuple[str | int, ...]) -> None:
    names = sorted(known)
    guess = difflib.get_close_matches(tag, names, n=1)
    hint = f"did you mean {guess[0]!r}?" if guess else f"known: {', '.join(names)}"
    bag.add("SCM703", f"unknown {what} {tag!r}", smap.nearest(loc), hint, ".".join(map(str, loc)))


def check_tags(spec: SyntheticSpec, smap: SourceMap) -> None:
    """Every tag the factors name exists in its registry; raise all misses at once."""
    from scmspec.synthetic.graphs.draw import GRAPH_FAMILIES
    from scmspec.synthetic.nodes.dependency import ROOT_DEPENDENCIES
    from scmspec.synthetic.nodes.factors import MECHANISM_FACTORS, NOISE_FACTORS, ROOT_FACTORS
    from scmspec.synthetic.protocols import PROTOCOLS
    from scmspec.synthetic.stressors import STRESSORS

    bag = DiagnosticBag()
    singles: list[tuple[str, str, Iterable[str], tuple[str, ...]]] = [
        ("graph family", spec.graph.family, GRAPH_FAMILIES, ("graph", "family")),
        ("root dependency", spec.root_dependency, ROOT_DEPENDENCIES, ("root_dependency",)),
        ("intervention protocol", spec.protocol, PROTOCOLS, ("protocol",))]
    lists: list[tuple[str, list[str] | None, Iterable[str], str]] = [
        ("mechanism family", spec.mechanisms, MECHANISM_FACTORS, "mechanisms"),
        ("noise family", spec.noise, NOISE_FACTORS, "noise"),
        ("root family", spec.roots, ROOT_FACTORS, "roots"),
        ("difficulty stressor", spec.difficulty, STRESSORS, "difficulty")]
    for what, tag, registry, loc in singles:
        if tag not in registry:
            _unknown(bag, what, tag, registry, smap, ("synthetic", *loc))
    for what, tags, registry, name in lists:
        for i, tag in enumerate(tags or []):
            if tag not in registry:
                _unknown(bag, what, tag, registry, smap, ("synthetic", name, i))
    bag.raise_if_any(SynthesisError)
