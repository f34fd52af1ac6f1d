"""numpy's AVX-512 kernels are left out when scmspec is imported first (scmspec.kernels).

Each case runs in a fresh interpreter, since numpy chooses its kernels once, at import.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from scmspec.kernels import AVX512_TARGETS, VARIABLE

PROBE = """
import json, os
{first}
from numpy.lib.introspect import opt_func_info
info = opt_func_info(func_name="^exp$", signature="float64")["exp"]["dd"]
print(json.dumps({{"variable": os.environ.get("{variable}"), "current": info["current"]}}))
"""


def _probe(first: str, env: dict[str, str] | None = None) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if k != VARIABLE}
    done = subprocess.run([sys.executable, "-c", PROBE.format(first=first, variable=VARIABLE)],
                          env={**clean, **(env or {})}, capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout)


def test_scmspec_first_leaves_the_avx512_kernels_out() -> None:
    got = _probe("import scmspec\nimport numpy")
    assert got["variable"] == AVX512_TARGETS
    assert "512" not in got["current"] and got["current"] != "X86_V4"


def test_numpy_first_keeps_numpys_choice_and_children_follow_it() -> None:
    got = _probe("import numpy\nimport scmspec")
    assert got["variable"] == ""  # a worker started now uses the parent's kernels


def test_a_users_own_setting_is_respected() -> None:
    got = _probe("import scmspec\nimport numpy", env={VARIABLE: "AVX512_SPR"})
    assert got["variable"] == "AVX512_SPR"


@pytest.mark.parametrize("module", ["scmspec", "scmspec.cli"])
def test_the_command_line_starts_with_the_choice(module: str) -> None:
    got = _probe(f"import {module}\nimport numpy")
    assert got["variable"] == AVX512_TARGETS
