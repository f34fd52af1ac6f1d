"""Writing benchmark: scmspec's CSV writer against pandas ``to_csv`` on the tables a build writes.

Run from the repository root::

    python bench/bench_write.py            # d = 20, 50, 100 at n = 1,000 and 2,000 rows
    python bench/bench_write.py --repeats 15

Both writers produce byte-identical files (checked before timing). The tables are what
``scmspec compile`` writes per replicate: a float data block with a few integer
columns (obs.csv, obsint.csv) and an int8 mask (obsint_mask.csv). Each figure is the
median process-CPU time of ``--repeats`` writes, interleaved; the ratio is pandas over
scmspec (how many times faster the build's writer is). The Parquet columns time
``write_parquet`` (``compile --format parquet``) on the same table and give its file size as a
share of the CSV file's.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from scmspec.textio import write_csv, write_parquet


def tables(d: int, n: int) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(d * 7919 + n)
    data = pd.DataFrame(rng.normal(size=(n, d)) * rng.uniform(0.1, 100, d),
                        columns=[f"v{i:03d}" for i in range(d)])
    for c in data.columns[: max(1, d // 10)]:
        data[c] = rng.integers(0, 5, n)
    mask = pd.DataFrame((rng.random((n, d)) < 0.02).astype(np.int8), columns=data.columns)
    return {"data": data, "mask": mask}


def _time(fn: Callable[[], None]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=9)
    args = ap.parse_args()
    out = Path(tempfile.mkdtemp())
    print("| table | d | n | pandas to_csv (ms) | scmspec write_csv (ms) | pandas / scmspec "
          "| write_parquet (ms) | pandas / parquet | parquet size / csv |")
    print("|---|---|---|---|---|---|---|---|---|")
    for d in (20, 50, 100):
        for n in (1000, 2000):
            for name, frame in tables(d, n).items():
                a, b = out / "pandas.csv", out / "scmspec.csv"
                frame.to_csv(a, index=False, lineterminator="\n")
                write_csv(b, frame)
                assert a.read_bytes() == b.read_bytes(), (name, d, n)
                c = out / "t.parquet"
                pd_t, us_t, pq_t = [], [], []
                for _ in range(args.repeats):
                    pd_t.append(_time(lambda f=frame, p=a: f.to_csv(p, index=False,
                                                                      lineterminator="\n")))
                    us_t.append(_time(lambda f=frame, p=b: write_csv(p, f)))
                    pq_t.append(_time(lambda f=frame, p=c: write_parquet(p, f)))
                p, s = statistics.median(pd_t) * 1e3, statistics.median(us_t) * 1e3
                q = statistics.median(pq_t) * 1e3
                size = c.stat().st_size / b.stat().st_size
                print(f"| {name} | {d} | {n} | {p:.1f} | {s:.1f} | {p / s:.2f} | {q:.1f} "
                      f"| {p / q:.1f} | {size:.2f} |")


if __name__ == "__main__":
    main()
