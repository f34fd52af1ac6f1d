"""Start-up benchmark: what a command costs before and including its work, in fresh processes.

Run from the repository root::

    python bench/bench_startup.py              # 5 runs of each command
    python bench/bench_startup.py --repeats 9

Each command runs in a new interpreter (``python -m scmspec ...``); the figure is the median
CPU time (user + system, from the child's own resource usage, so time spent waiting for a
busy core does not count) and its peak RSS. The reference, measured in the same run, is a plain
``python -c "import numpy"``: the floor any numpy program pays. Targets (issue 16):
``scmspec --help`` <= 0.5 s; compiling one 25-variable formula card <= 1 s of CPU including
start-up.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

CARD = "cards/formula/astronomy/frm_astronomy_transiting_planet_survey.yaml"  # 24 variables


def run(argv: list[str]) -> tuple[float, float]:
    """CPU seconds and peak RSS (MB) of one child process (its own rusage, from wait4)."""
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)
    child.returncode = 0  # reaped here; keep Popen from waiting again
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    out = tempfile.mkdtemp()
    py = sys.executable
    commands = {
        "python -c 'import numpy' (reference)": [py, "-c", "import numpy"],
        "scmspec --help": [py, "-m", "scmspec", "--help"],
        "scmspec compile --help": [py, "-m", "scmspec", "compile", "--help"],
        f"scmspec validate {CARD}": [py, "-m", "scmspec", "validate", CARD],
        f"scmspec compile {CARD} --replicates 1": [py, "-m", "scmspec", "compile", CARD,
                                                   "--out", os.path.join(out, "d"),
                                                   "--force", "--replicates", "1"],
        f"scmspec compile {CARD} (5 replicates)": [py, "-m", "scmspec", "compile", CARD,
                                                   "--out", os.path.join(out, "e"),
                                                   "--force"],
    }
    times: dict[str, list[float]] = {k: [] for k in commands}
    peak: dict[str, float] = {}
    for _ in range(args.repeats):  # interleaved, so load bursts hit every command alike
        for name, argv in commands.items():
            cpu, rss = run(argv)
            times[name].append(cpu)
            peak[name] = max(peak.get(name, 0.0), rss)
    ref = statistics.median(times[next(iter(commands))])
    print("| command | CPU s (median) | ratio to import numpy | peak RSS, MB |")
    print("|---|---|---|---|")
    for name in commands:
        m = statistics.median(times[name])
        print(f"| `{name}` | {m:.2f} | {m / ref:.1f} | {peak[name]:.0f} |")
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
