"""Benchmark: ``tokenomics report`` from a cold start, with every section, and the size of its page.

Runs, each in a fresh Python process pinned to at most 2 CPU cores (so nothing is cached):

(a) the whole report: ``write_report`` with the default options (every section, PNGs included);
(b) the computation alone: ``build_report`` with the same options (the baseline of this run);

and prints both times, their ratio (the cost of rendering and writing), and the size of
``index.html``. Goals: (a) <= 20 s on 2 cores, ``index.html`` <= 10 MB.

Run: ``python benchmarks/bench_report.py``. Not a test: figures depend on the machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL_S = 20.0
GOAL_MB = 10.0

WHOLE = """
from tokenomics.outputs.report import write_report
write_report({out!r}, progress=False, force=True)
"""
COMPUTE = """
from tokenomics.outputs.report import build_report
build_report()
"""


def _cold(code: str) -> float:
    def pin() -> None:
        if hasattr(os, "sched_setaffinity"):
            cores = sorted(os.sched_getaffinity(0))[:2]
            os.sched_setaffinity(0, cores)

    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, preexec_fn=pin)
    return time.perf_counter() - t0


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report"
        whole_s = _cold(WHOLE.format(out=str(out)))
        compute_s = _cold(COMPUTE)
        size_mb = (out / "index.html").stat().st_size / 1e6
        n_files = len(list(out.iterdir()))
    print(f"whole report, cold, <= 2 cores: {whole_s:6.1f} s ({n_files} files)")
    print(f"computation alone (baseline):   {compute_s:6.1f} s")
    print(f"ratio whole / computation:      {whole_s / compute_s:6.2f}x")
    print(f"index.html:                     {size_mb:6.2f} MB")
    met = whole_s <= GOAL_S and size_mb <= GOAL_MB
    print(f"report cold {whole_s:.1f} s (goal <= {GOAL_S:g} s), index.html {size_mb:.1f} MB "
          f"(goal <= {GOAL_MB:g} MB): {'met' if met else 'not met'}")


if __name__ == "__main__":
    main()
