"""Stage 1, load: card text -> (plain Python value, SourceMap).

Takes the bytes of a card file; hands on a tree of dicts, lists and scalars plus
a :class:`SourceMap` from each value's path (keyed exactly like pydantic's
``loc``) to its ``file:line:col``. Invariants it establishes: the text is UTF-8,
safe YAML (no Python-object tags, no unknown tags), no duplicate keys, bounded
size, depth and alias expansion.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from scmspec.errors import Diagnostic, DiagnosticBag, LoadError, Span
from scmspec.limits import Limits, current_limits

Loc = tuple[str | int, ...]

_SCALAR_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
}
_MAP_TAG = "tag:yaml.org,2002:map"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_STR_TAG = "tag:yaml.org,2002:str"
_NUMBER_TAGS = {"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}


@dataclass
class SourceMap:
    """Where each value of a loaded card came from."""

    path: str
    spans: dict[Loc, Span] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    # One-line plain scalars: a column offset inside them is exact (block scalars and
    # multi-line or escaped quoted scalars are not).
    plain: set[Loc] = field(default_factory=set)
    # One-line quoted scalars written without escapes: exact after the opening quote.
    quoted: set[Loc] = field(default_factory=set)
    # Where each mapping key itself is written (for "unknown field" carets).
    keys: dict[Loc, Span] = field(default_factory=dict)

    def nearest(self, loc: Loc) -> Span | None:
        """The span of ``loc`` or of its closest known ancestor.

        Example:
            >>> sm = SourceMap("c.yaml", {("a",): Span("c.yaml", 2, 1)})
            >>> str(sm.nearest(("a", "b", 3)))
            'c.yaml:2:1'
        """
        loc = tuple(loc)
        while loc:
            if loc in self.spans:
                return self.spans[loc]
            loc = loc[:-1]
        return self.spans.get((), Span(self.path, 1, 1))

    def at(self, loc: Loc, offset: int = 0, width: int | None = None) -> Span | None:
        """The span of ``loc`` moved ``offset`` columns right (exact for one-line scalars)."""
        span = self.nearest(loc)
        if span is None:
            return None
        exact = tuple(loc) in self.plain or tuple(loc) in self.quoted
        if exact and offset >= 0:
            col = span.col + offset + (tuple(loc) in self.quoted)
            return Span(span.path, span.line, col, col + width if width else None)
        return span


def load(path: Path | str, limits: Limits | None = None,
         name: str | None = None) -> tuple[Any, SourceMap]:
    """Read and parse one card file.

    Example:
        >>> import tempfile, os
        >>> p = os.path.join(tempfile.mkdtemp(), "c.yaml")
        >>> _ = open(p, "w").write("id: demo\\nvariables:\\n  x: {unit: m}\\n")
        >>> data, smap = load(p)
        >>> unit_span = smap.spans[("variables", "x", "unit")]
        >>> data["variables"]["x"]["unit"], str(unit_span).split(":")[1:]
        ('m', ['3', '13'])
    """
    limits = limits or current_limits()
    name = name or str(path)
    return load_text(read_card(path, limits, name), name, limits)


def read_card(path: Path | str, limits: Limits | None = None, name: str | None = None) -> bytes:
    """The bytes of a card file, refusing what is not a plain file of bounded size.

    FIFOs, devices and sockets are refused before a byte is read (reading them can
    block or never end: ``/dev/zero``); the size limit is checked while reading, so a
    huge or growing file costs at most the limit.

    Example:
        >>> try:
        ...     read_card("/dev/null")
        ... except LoadError as exc:
        ...     print(exc.diagnostics[0].code, exc.diagnostics[0].message)
        SCM113 /dev/null is not a regular file (a device); cards are plain text files
    """
    limits = limits or current_limits()
    name = name or str(path)
    try:  # O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise LoadError([_diag("SCM101", f"cannot read card: {exc.strerror}",
                               Span(name, 1, 1))]) from None
    with os.fdopen(fd, "rb") as fh:
        kind = _special_kind(os.fstat(fd).st_mode)
        if kind:
            raise LoadError([_diag("SCM113", f"{name} is not a regular file ({kind}); cards are "
                                   "plain text files", Span(name, 1, 1))])
        raw = fh.read(limits.card_bytes + 1)
    if len(raw) > limits.card_bytes:
        raise _too_big(f"more than {limits.card_bytes}", name, limits)
    return raw


def _special_kind(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"


def _too_big(size: str, name: str, limits: Limits) -> LoadError:
    return LoadError([_diag("SCM102", f"card is {size} bytes, over the limit of "
                            f"{limits.card_bytes}", Span(name, 1, 1),
                            "split the card, or raise SCMSPEC_MAX_CARD_BYTES")])


# libyaml's composer, where PyYAML was built with it, gives the same node tree with the same
# marks (line, column, style) about ten times faster. Its recursion is in C, unguarded, so it
# only gets text whose flow nesting is bounded ('[' and '{' counted; block nesting is bounded
# by the card's size); anything else, and every syntax error (for the pure composer's
# messages), goes through the pure-Python composer. tests/unit/test_load.py compares the
# two on every shipped card.
_C_LOADER: Any = getattr(yaml, "CSafeLoader", None)
_C_MAX_BRACKETS = 2_000


def _compose(text: str) -> Node | None:
    if _C_LOADER is not None and text.count("[") + text.count("{") <= _C_MAX_BRACKETS:
        try:
            return yaml.compose(text, Loader=_C_LOADER)  # type: ignore[no-any-return]
        except yaml.YAMLError:
            pass  # the pure composer reports it, with its own wording
    return yaml.compose(text, Loader=yaml.SafeLoader)  # type: ignore[no-any-return]


def load_text(raw: bytes | str, name: str, limits: Limits | None = None) -> tuple[Any, SourceMap]:
    """Parse card text (bytes or str) that came from ``name``."""
    limits = limits or current_limits()
    if len(raw) > limits.card_bytes:
        raise _too_big(str(len(raw)), name, limits)
    text = _decode(raw, name)
    smap = SourceMap(name, lines=text.splitlines())
    try:
        root = _compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        span = Span(name, mark.line + 1, mark.column + 1) if mark else Span(name, 1, 1)
        problem = getattr(exc, "problem", None) or str(exc)
        context, where = getattr(exc, "context", None), getattr(exc, "context_mark", None)
        if context and where is not None and mark is not None and where.line != mark.line:
            problem += f" ({context} that starts on line {where.line + 1})"
        raise LoadError([_diag("SCM103", f"YAML syntax error: {problem}", span,
                               "check indentation, colons and quoting near this position")]
                        ) from None
    except RecursionError:
        raise LoadError([_diag("SCM104", "YAML nesting is too deep", Span(name, 1, 1))]) from None
    if root is None:
        raise LoadError([_diag("SCM105", "card is empty", Span(name, 1, 1),
                               "start from `scmspec new NAME`")])
    walker = _Walker(name, smap, limits)
    value = walker.build(root, (), 0)
    walker.bag.raise_if_any(LoadError)
    if not isinstance(value, dict):
        raise LoadError([_diag("SCM106", "a card must be a YAML mapping at the top level",
                               smap.nearest(()), "write `id: ...`, `variables: ...` as keys")])
    return value, smap


def _decode(raw: bytes | str, name: str) -> str:
    if isinstance(raw, str):
        return raw
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise LoadError([_diag("SCM107", f"card is not UTF-8 text (byte 0x{raw[exc.start]:02x})",
                               Span(name, line, col), "save the file as UTF-8")]) from None


def _diag(code: str, message: str, span: Span | None, hint: str | None = None) -> Diagnostic:
    return Diagnostic(code, message, span, hint)


class _Walker:
    """Builds the Python value from the YAML node tree, recording spans as it goes."""

    def __init__(self, name: str, smap: SourceMap, limits: Limits) -> None:
        self.name, self.smap, self.limits = name, smap, limits
        self.bag = DiagnosticBag()
        self.count = 0
        self.chars = 0  # scalar characters built so far, every alias counted again

    def span(self, node: Node) -> Span:
        m = node.start_mark
        end = node.end_mark.column + 1 if node.end_mark.line == m.line else None
        return Span.made(self.name, m.line + 1, m.column + 1, end)

    def build(self, node: Node, loc: Loc, depth: int) -> Any:
        self.count += 1
        if self.count > self.limits.yaml_nodes:
            if self.count == self.limits.yaml_nodes + 1:
                self.bag.add("SCM108", f"card expands to more than {self.limits.yaml_nodes} "
                             "YAML nodes (anchors/aliases multiply content)", self.span(node),
                             "remove repeated aliases; write the content out")
            return None
        if depth > self.limits.yaml_depth:
            self.bag.add("SCM104", f"YAML nesting deeper than {self.limits.yaml_depth}",
                         self.span(node))
            return None
        if loc not in self.smap.spans:  # a mapping has already set its values' spans
            self.smap.spans[loc] = self.span(node)
        if isinstance(node, ScalarNode):
            return self.scalar(node, loc) if self.within_bytes(node) else None
        if isinstance(node, SequenceNode) and node.tag == _SEQ_TAG:
            return [self.build(item, loc + (i,), depth + 1) for i, item in enumerate(node.value)]
        if isinstance(node, MappingNode) and node.tag == _MAP_TAG:
            return self.mapping(node, loc, depth)
        self.bag.add("SCM109", f"YAML tag {node.tag!r} is not allowed in cards", self.span(node),
                     "cards hold plain mappings, lists, strings and numbers only")
        return None

    def within_bytes(self, node: ScalarNode) -> bool:
        """Count the scalar's characters; False (reported once) past the expansion bound.

        The node limit counts aliases but not what they carry: 40,000 aliases of one
        100 kB string are few nodes and gigabytes of text once every copy is validated.
        """
        self.chars += len(node.value)
        if self.chars <= self.limits.yaml_bytes:
            return True
        if self.chars - len(node.value) <= self.limits.yaml_bytes:
            self.bag.add("SCM108", f"card expands to at least {self.chars:,} characters of "
                         f"text, over the limit of {self.limits.yaml_bytes:,} (anchors/aliases "
                         "repeat content)", self.span(node),
                         "remove repeated aliases of long text, or raise SCMSPEC_MAX_YAML_BYTES "
                         "(docs/limits.md)")
        return False

    def number(self, node: ScalarNode) -> bool:
        """True when a YAML number may be built: short, and not base 60.

        PyYAML turns digit strings into Python ints before anything can bound them: a
        5,000-digit int is refused by Python's conversion limit, a megabyte of base-60
        digits (``1:30:00`` style, YAML 1.1) takes quadratic time to convert.
        """
        text = str(node.value)
        if len(text) > self.limits.number_chars:
            self.bag.add("SCM116", f"a number written with {len(text)} characters, over the "
                         f"limit of {self.limits.number_chars}", self.span(node),
                         "write it in scientific notation (1.5e300), or quote it if it is text")
            return False
        if ":" in text:
            self.bag.add("SCM117", f"{text!r} is a base-60 (sexagesimal) number in YAML 1.1, "
                         "not a time or text; cards do not take base-60 numbers", self.span(node),
                         f"quote it ('{text}') if it is text, or write the decimal number")
            return False
        return True

    def scalar(self, node: ScalarNode, loc: Loc) -> Any:
        if node.tag in _NUMBER_TAGS and not self.number(node):
            return None
        if node.tag == _TIMESTAMP_TAG:
            return str(node.value)  # dates (e.g. version: 2024-01-01) stay text
        if node.tag not in _SCALAR_TAGS:
            self.bag.add("SCM109", f"YAML tag {node.tag!r} is not allowed in cards",
                         self.span(node), "remove the tag; cards hold plain values only")
            return None
        if not node.style and node.start_mark.line == node.end_mark.line:  # libyaml: ""
            # Only a one-line plain scalar maps text offsets to columns; a multi-line
            # plain scalar is folded, so offsets past its first line would be wrong.
            self.smap.plain.add(loc)
        elif node.style in ("'", '"') and node.start_mark.line == node.end_mark.line:
            line = self.smap.lines[node.start_mark.line] if self.smap.lines else ""
            raw = line[node.start_mark.column + 1:node.end_mark.column - 1]
            if raw == node.value:  # no escapes or doubled quotes: offsets map one to one
                self.smap.quoted.add(loc)
        if node.tag == _STR_TAG:
            return node.value  # what the constructor returns for text, without its bookkeeping
        value = _CONSTRUCTOR.construct_object(node, deep=True)
        _CONSTRUCTOR.constructed_objects.pop(node, None)  # the shared constructor must not grow
        return value

    def mapping(self, node: MappingNode, loc: Loc, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        first_line: dict[str, int] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                self.bag.add("SCM110", "mapping keys must be plain names (no merge keys '<<')",
                             self.span(key_node), "write the keys out explicitly")
                continue
            if not self.within_bytes(key_node):
                continue
            key = str(key_node.value)
            kspan = self.span(key_node)
            if key in out or key in first_line:
                self.bag.add("SCM111", f"duplicate key {key!r} (first defined on line "
                             f"{first_line[key]})", kspan,
                             "each name may appear once; rename or merge the two entries")
                continue
            first_line[key] = kspan.line
            here = loc + (key,)
            self.smap.keys[here] = kspan
            # Point the field itself at its value when the value is a scalar (closer caret),
            # keep the key's position for collections (the value starts on the next line).
            self.smap.spans[here] = self.span(value_node) if isinstance(value_node, ScalarNode) \
                else kspan
            value = self.build(value_node, here, depth + 1)
            out[key] = value
        return out


_CONSTRUCTOR = yaml.SafeLoader("")
