"""Small, structurally distinct cards shared by the parallel, incremental and crash tests."""

from __future__ import annotations

import hashlib
from pathlib import Path

# Four different graphs (chain, fork, collider, diamond) so pool gates see no duplicates.
GRAPHS = {
    "chain": [("a", "b"), ("b", "c")],
    "fork": [("a", "b"), ("a", "c"), ("a", "d")],
    "collider": [("a", "c"), ("b", "c")],
    "diamond": [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")],
}


def card_text(name: str, edges: list[tuple[str, str]], n_obs: int = 300, scale: float = 0.7
              ) -> str:
    nodes = sorted({v for e in edges for v in e})
    parents = {v: [s for s, t in edges if t == v] for v in nodes}
    lines = [f"id: par_{name}", f"title: Parallel test {name}", "family: semantic",
             "domain: parallel tests", "variables:"]
    for v in nodes:
        if parents[v]:
            eq = " + ".join(f"{scale} * {p}" for p in parents[v])
            lines.append(f"  {v}: {{meaning: node {v}, equation: '{eq}', noise: {{kind: normal, "
                         f"sd: 1.0}}, intervention: {{meaning: set {v}}}}}")
        else:
            lines.append(f"  {v}: {{meaning: node {v}, distribution: {{kind: normal}}, "
                         f"intervention: {{meaning: set {v}}}}}")
    lines.append("edges:")
    lines += [f"  - {{from: {s}, to: {t}, reason: {s} drives {t}}}" for s, t in edges]
    lines.append(f"protocol: {{n_obs: {n_obs}, n_int_obs: 80, n_int: 40, replicates: 2}}")
    return "\n".join(lines) + "\n"


def write_cards(folder: Path, n_obs: int = 300) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, edges in GRAPHS.items():
        (folder / f"{name}.yaml").write_text(card_text(name, edges, n_obs), encoding="utf-8")
    return folder


def tree(folder: Path, hidden: bool = True) -> dict[str, str]:
    """sha256 of every file under ``folder`` (skipping crash leftovers ``.tmp-*``/``.old-*``)."""
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder)
        if not p.is_file() or rel.parts[0].startswith((".tmp-", ".old-")):
            continue
        if not hidden and any(part.startswith(".") for part in rel.parts):
            continue
        out[rel.as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out
