"""Write a grid's configurations as individual card files (``scmspec synth``)."""

from __future__ import annotations

from pathlib import Path

from scmspec.errors import CardError
from scmspec.synthetic.grid.expand import expand_file
from scmspec.synthetic.grid.yaml_out import card_yaml
from scmspec.synthetic.materialize import materialize


def write_cards(grid: Path, out: Path, select: str | None = None, materialized: bool = False
                ) -> tuple[list[Path], list[tuple[str, CardError]]]:
    """One ``<id>.yaml`` per selected configuration (factor form unless ``materialized``).

    A configuration that cannot be materialised is reported, not skipped silently; the
    others are still written. Returns (written paths, (id, error) of the failures).
    """
    cards, smap = expand_file(grid, select)
    out.mkdir(parents=True, exist_ok=True)
    written, failed = [], []
    for card in cards:
        if materialized:
            try:
                card = materialize(card, smap)
            except CardError as exc:
                failed.append((card.id, exc))
                continue
        path = out / f"{card.id}.yaml"
        path.write_text(card_yaml(card), encoding="utf-8")
        written.append(path)
    return written, failed
