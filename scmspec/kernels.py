"""Portable numpy kernels: the same bytes on every x86-64 machine with AVX2.

numpy picks, when it is imported, the widest SIMD kernels the CPU offers. For add, multiply
and divide every kernel gives the IEEE result, but ``exp``, ``log``, ``power``, ``sin`` and
their kin are approximations whose last bit differs between the AVX2 and the AVX-512 kernels
(measured: the shipped wildfire card's ``obs.csv`` differs between the two on one machine).
A dataset must not depend on the machine that made it, so scmspec asks numpy, through its
documented ``NPY_DISABLE_CPU_FEATURES`` variable, to leave the AVX-512 kernels out.

This works only if it runs before numpy is imported: ``scmspec/__init__.py`` imports this
module first, and the ``scmspec`` command and ``python -m scmspec`` start there. A program that
imports numpy before scmspec keeps numpy's own choice; the variable is then set to that
choice (empty) so that worker processes started by the build use the same kernels as their
parent. A user's own ``NPY_DISABLE_CPU_FEATURES`` is always respected.

Machines without AVX2 (x86-64 before 2013) or of another architecture (ARM) run other
kernels again; docs/data-layout.md says what is byte-identical across machines.
"""

from __future__ import annotations

import os
import sys

VARIABLE = "NPY_DISABLE_CPU_FEATURES"
# The AVX-512 dispatch targets under both of numpy's naming schemes (numpy >= 2.4 groups them
# as X86_V4, AVX512_ICL, AVX512_SPR; earlier versions name each extension). numpy skips a name
# it does not dispatch on, with an ImportWarning that Python hides by default.
AVX512_TARGETS = ("X86_V4 AVX512F AVX512CD AVX512_KNL AVX512_KNM AVX512_SKX AVX512_CLX "
                  "AVX512_CNL AVX512_ICL AVX512_SPR")


def choose_kernels() -> str:
    """Set ``NPY_DISABLE_CPU_FEATURES`` for this process and its children; return its value.

    Example:
        >>> choose_kernels() == os.environ[VARIABLE]
        True
    """
    if "numpy" in sys.modules:
        return os.environ.setdefault(VARIABLE, "")  # too late here: children follow numpy
    return os.environ.setdefault(VARIABLE, AVX512_TARGETS)
