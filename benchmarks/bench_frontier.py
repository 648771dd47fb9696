"""Benchmark: Pareto frontier of 1e6 random points, and the speed-up over a naive O(n^2) scan.

Goal: 1e6 points in < 1 s. The ratio against the naive scan is measured at 1e4 points in the
same run (the naive scan at 1e6 points would take hours).

Run: ``python benchmarks/bench_frontier.py``
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from tokenomics.curves.frontier import pareto_frontier, pareto_mask, pareto_mask_naive


def best_of(fn, repeat: int = 3) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    rng = np.random.default_rng(0)
    n_big = 1_000_000
    x = rng.lognormal(3.5, 1.0, n_big)
    y = rng.lognormal(7.0, 1.0, n_big)
    t_big = best_of(lambda: pareto_mask(x, y))
    frame = pd.DataFrame({"interactivity_tok_per_s_per_user": x, "throughput_tok_per_s_per_gpu": y})
    t_frame = best_of(lambda: pareto_frontier(frame, by=None))
    print(f"pareto_mask      n=1e6: {t_big:.3f} s (goal < 1 s: {'met' if t_big < 1 else 'MISSED'})")
    print(f"pareto_frontier  n=1e6 (DataFrame): {t_frame:.3f} s")

    n_small = 10_000
    xs, ys = x[:n_small], y[:n_small]
    t_fast = best_of(lambda: pareto_mask(xs, ys), repeat=5)
    t_naive = best_of(lambda: pareto_mask_naive(xs, ys), repeat=1)
    assert np.array_equal(pareto_mask(xs, ys), pareto_mask_naive(xs, ys))
    print(f"n=1e4: sort-and-scan {t_fast * 1e3:.2f} ms, naive O(n^2) {t_naive:.2f} s, "
          f"ratio {t_naive / t_fast:.0f}x")


if __name__ == "__main__":
    main()
