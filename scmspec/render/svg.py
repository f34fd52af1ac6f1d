"""Centre Graphviz's SVG labels so they stay centred in any browser, whatever font it picks.

Graphviz writes each line of an HTML-like label as ``<text text-anchor="start" x=...>``, the
start computed from the widths of the font Graphviz measured with. A browser that draws the
text in another font (a narrower substitute for Helvetica, say) keeps the start and ends the
line early: labels drift left in their boxes. :func:`centre_labels` anchors every such line
at the middle of the smallest box around it (the node's shape, or a legend cell), so the
text is centred whatever its width. Lines with no box of their own are the legend's
captions, which the figure aligns left (their start is right in any font), so they keep it.
Graphviz writes one element per line, and only the ``text-anchor`` and ``x`` of those lines
change: the rest of the file is untouched.
"""

from __future__ import annotations

import re

_GROUP = re.compile(r'^<g id="[^"]*" class="(node|graph|cluster)"[ >]')
_TEXT = re.compile(r'^<text text-anchor="start" x="(-?[\d.]+)" y="(-?[\d.]+)"')
_POINTS = re.compile(r'(?:points|d)="([^"]*)"')
_PAIR = re.compile(r"(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)")
_ELLIPSE = re.compile(r'cx="(-?[\d.]+)" cy="(-?[\d.]+)" rx="([\d.]+)" ry="([\d.]+)"')

Box = tuple[float, float, float, float]  # x0, y0, x1, y1


def _box(line: str) -> Box | None:
    """The bounding box of a ``polygon``, ``path`` or ``ellipse`` line, else None."""
    if line.startswith("<ellipse"):
        m = _ELLIPSE.search(line)
        if m:
            cx, cy, rx, ry = (float(v) for v in m.groups())
            return cx - rx, cy - ry, cx + rx, cy + ry
        return None
    if not line.startswith(("<polygon", "<path")):
        return None
    m = _POINTS.search(line)
    pairs = [(float(x), float(y)) for x, y in _PAIR.findall(m.group(1))] if m else []
    if not pairs:
        return None
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    return min(xs), min(ys), max(xs), max(ys)


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def centre_labels(svg: str) -> str:
    """The SVG with every start-anchored label line centred in its box.

    Example:
        >>> svg = ('<g id="node1" class="node">\\n'
        ...        '<polygon points="0,0 0,-20 60,-20 60,0 0,0"/>\\n'
        ...        '<text text-anchor="start" x="12" y="-6">label</text>\\n</g>\\n')
        >>> print(centre_labels(svg).splitlines()[2])
        <text text-anchor="middle" x="30" y="-6">label</text>
    """
    lines = svg.split("\n")
    out = list(lines)
    start = 0
    while start < len(lines):
        if _GROUP.match(lines[start]):
            end = _group_end(lines, start)
            _centre_group(lines, out, start, end)
            start = start + 1  # nested node groups inside the graph group are visited too
        else:
            start += 1
    return "\n".join(out)


def _group_end(lines: list[str], start: int) -> int:
    depth = 0
    for i in range(start, len(lines)):
        depth += lines[i].count("<g ") + lines[i].count("<g>") - lines[i].count("</g>")
        if depth == 0:
            return i
    return len(lines) - 1


def _centre_group(lines: list[str], out: list[str], start: int, end: int) -> None:
    """Centre the texts of one group in the boxes drawn directly in it (not in subgroups
    that are themselves nodes, edges or clusters)."""
    boxes: list[Box] = []
    texts: list[int] = []
    i = start + 1
    while i < end:
        if _GROUP.match(lines[i]) or lines[i].startswith(('<g id="edge', '<g id="node')):
            i = _group_end(lines, i) + 1  # another element's lines
            continue
        box = _box(lines[i])
        if box is not None:
            boxes.append(box)
        elif _TEXT.match(lines[i]):
            texts.append(i)
        i += 1
    for k in texts:
        m = _TEXT.match(lines[k])
        assert m is not None
        x, y = float(m.group(1)), float(m.group(2))
        around = [b for b in boxes if b[0] <= x + 0.5 <= b[2] and b[1] <= y <= b[3]]
        if not around:
            continue
        x0, _, x1, _ = min(around, key=lambda b: (b[2] - b[0]) * (b[3] - b[1]))
        out[k] = lines[k].replace(m.group(0), f'<text text-anchor="middle" '
                                              f'x="{_number((x0 + x1) / 2)}" y="{m.group(2)}"',
                                  1)
