"""Start-up: the command line imports its heavy layers only when a command runs.

``scmspec --help`` (and every command's ``--help``) must not pay for the compiler, pandas,
scipy or matplotlib: each command module imports what it needs inside its function. This is
checked on the modules a fresh interpreter has loaded, not on a clock (bench/bench_startup.py
measures the time).
"""

from __future__ import annotations

import json
import subprocess
import sys

# (pydantic is left out: typer itself loads it to build a command's parameters.)
HEAVY = ("numpy", "pandas", "scipy", "sympy", "pint", "matplotlib", "networkx",
         "yaml", "scmspec.compiler.pipeline", "scmspec.build.cards")


def _loaded(code: str) -> list[str]:
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout
    loaded = set(json.loads(out.splitlines()[-1]))
    return [m for m in HEAVY if m in loaded]


def test_importing_the_cli_loads_no_heavy_module() -> None:
    assert _loaded("import scmspec.cli") == []


def test_help_loads_no_heavy_module() -> None:
    code = ("import sys\nsys.argv = ['scmspec', '--help']\nimport scmspec.cli\n"
            "try:\n    scmspec.cli.app()\nexcept SystemExit:\n    pass")
    assert _loaded(code) == []


def test_command_help_loads_no_heavy_module() -> None:
    code = ("import sys\nsys.argv = ['scmspec', 'compile', '--help']\nimport scmspec.cli\n"
            "try:\n    scmspec.cli.app()\nexcept SystemExit:\n    pass")
    assert _loaded(code) == []


def test_export_help_names_every_export_format() -> None:
    from scmspec.cli.export_cmd import FORMAT_NAMES
    from scmspec.interop.export import EXPORT_FORMATS

    assert FORMAT_NAMES == EXPORT_FORMATS


def test_the_validate_path_loads_no_plotting_or_scipy_stats() -> None:
    """``scmspec validate`` needs the compiler, not plots, scipy.stats or scipy.optimize
    (the kinds and factors that need them import them on first use)."""
    out = subprocess.run([sys.executable, "-c", "import json, sys\nimport scmspec.build.validate\n"
                          "print(json.dumps(sorted(sys.modules)))"], capture_output=True,
                         text=True, check=True).stdout
    loaded = set(json.loads(out.splitlines()[-1]))
    assert not loaded & {"matplotlib", "scipy.stats", "scipy.optimize"}
