"""The layout's rules, enforced: imports point one way, and no private name crosses a package.

docs/architecture.md explains the layers. Each import of a scmspec module, at module
level or inside a function, must point to the same layer or a lower one; a name that
starts with ``_`` may be imported only from the importer's own package. A failure
names the file, the line and the rule it breaks.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "scmspec"

# Lowest first. A module may import its own layer and any layer below it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("scmspec.errors", "scmspec.kernels", "scmspec.limits", "scmspec.registry",
     "scmspec.textio", "scmspec.version"),
    ("scmspec.compiler",),
    ("scmspec.samplers",),
    ("scmspec.interop",),
    ("scmspec.validators",),
    ("scmspec.effects",),
    ("scmspec.synthetic",),
    ("scmspec.api",),
    ("scmspec.build",),
    ("scmspec.render", "scmspec.scoring", "scmspec.authoring", "scmspec.datasets",
     "scmspec.release", "scmspec.evaluation", "scmspec.leaderboard", "scmspec.environment"),
    ("scmspec.cli",),
    ("scmspec", "scmspec.__main__"),
)


def layer_of(module: str) -> int:
    """The layer of a module: its longest matching prefix in LAYERS."""
    best, rank = "", -1
    for i, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > len(best):
                best, rank = name, i
    if rank < 0:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS and docs/architecture.md")
    return rank


def package_of(module: str) -> str:
    """``scmspec.build.cards`` -> ``scmspec.build``; a top-level module is its own package."""
    parts = module.split(".")
    return ".".join(parts[:2])


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, module, imported names) for every scmspec import in the file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "scmspec" or node.module.startswith("scmspec."):
                names = [a.name for a in node.names]
                # "from scmspec.x import y" may import the submodule scmspec.x.y
                out.append((node.lineno, node.module, names))
        elif isinstance(node, ast.Import):
            out.extend((node.lineno, a.name, []) for a in node.names
                       if a.name.startswith("scmspec"))
    return out


FILES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=[module_name(p) for p in FILES])
def test_imports_point_down_and_keep_private_names_private(path: Path) -> None:
    me = module_name(path)
    problems = []
    for line, target, names in imports(path):
        targets = [target]
        if target == "scmspec":
            targets = [f"scmspec.{n}" for n in names]  # from scmspec import build
        for t in targets:
            if layer_of(t) > layer_of(me):
                problems.append(f"{path.name}:{line}: {me} (layer {layer_of(me)}) imports {t} "
                                f"(layer {layer_of(t)}): imports must point down")
        private = [n for n in names if n.startswith("_") and n != "__version__"]
        if private and package_of(target) != package_of(me):
            problems.append(f"{path.name}:{line}: {me} imports private {', '.join(private)} "
                            f"from {target}: give it a public name in its own package")
    assert not problems, "\n".join(problems)


def test_every_module_is_in_a_layer() -> None:
    for path in FILES:
        layer_of(module_name(path))


def test_the_layer_rules_catch_a_violation() -> None:
    assert layer_of("scmspec.compiler.lower") < layer_of("scmspec.samplers.numpy_sampler")
    assert layer_of("scmspec.build.driver") > layer_of("scmspec.synthetic.grid.expand")
    assert package_of("scmspec.build.cards") == package_of("scmspec.build.write")
    assert package_of("scmspec.samplers.scm") != package_of("scmspec.validators.base")
