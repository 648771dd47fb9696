"""Benchmark: gross margin over a >= 10-million-point grid.

Grid: hardware ($/GPU-hour of 16 systems) x throughput x utilization x license fee x price.
Times, in the same run:

(a) the library call ``tokenomics.gross_margin_frac`` on broadcastable axes (validation included);
(b) a hand-written fused numpy expression of the same arithmetic (no validation);
(c) a per-point Python loop calling the library on scalars, over 1e4 points;

and prints points/s for each, the ratio library/numpy (goal >= 0.5), the speed-up over the loop
(goal >= 100x) and the library's peak memory as a multiple of its output array (goal <= 3x).
For information it also times ``tokenomics.sweep`` (a tidy DataFrame of 33 columns) on a
1-million-row grid.

Run: ``python benchmarks/bench_sweep.py``. Not a test: figures depend on the machine.
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np

import tokenomics as tk
from tokenomics.units import SECONDS_PER_HOUR, TOKENS_PER_MTOK


def best_of(fn, repeat=3):
    best = float("inf")
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    # $/GPU-hour of every system with a published Sep-2026 hyperscaler figure (catalog), padded
    pub = tk.published_tco_table()
    pub = pub[(pub["vintage"] == "2026-09") & (pub["tier"] == "hyperscaler")]
    costs = np.resize(pub["usd_per_gpu_hour"].to_numpy(dtype=float), 16)
    tput = np.linspace(100.0, 20_000.0, 50)
    util = np.linspace(0.05, 1.0, 50)
    fee = np.linspace(0.0, 0.5, 25)
    price = np.linspace(0.1, 20.0, 10)
    shape = (costs.size, tput.size, util.size, fee.size, price.size)
    n = int(np.prod(shape))
    assert n >= 10_000_000, n

    k5 = costs.reshape(-1, 1, 1, 1, 1)
    t5 = tput.reshape(1, -1, 1, 1, 1)
    u5 = util.reshape(1, 1, -1, 1, 1)
    f5 = fee.reshape(1, 1, 1, -1, 1)
    p5 = price.reshape(1, 1, 1, 1, -1)
    mtok = SECONDS_PER_HOUR / TOKENS_PER_MTOK

    def library():
        return tk.gross_margin_frac(p5, t5, u5, k5, f5)

    def fused():
        return (1.0 - f5) - (k5 / (t5 * (u5 * mtok))) / p5

    t_lib, m_lib = best_of(library)
    t_np, m_np = best_of(fused)
    np.testing.assert_allclose(m_lib, m_np, rtol=1e-12)

    # (c) per-point loop over 1e4 points
    rng = np.random.default_rng(0)
    idx = [rng.integers(0, s, 10_000) for s in shape]
    pts = list(zip(price[idx[4]], tput[idx[1]], util[idx[2]], costs[idx[0]], fee[idx[3]], strict=True))
    t0 = time.perf_counter()
    loop = [tk.gross_margin_frac(p, t, u, k, f) for p, t, u, k, f in pts]
    t_loop = time.perf_counter() - t0
    np.testing.assert_allclose(loop, m_np[idx[0], idx[1], idx[2], idx[3], idx[4]], rtol=1e-12)

    del m_lib
    tracemalloc.start()
    out = library()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    out_bytes = out.nbytes
    del out

    lib_rate, np_rate, loop_rate = n / t_lib, n / t_np, len(pts) / t_loop
    print(f"grid points               : {n:,} {shape}")
    print(f"(a) library               : {t_lib:8.3f} s  {lib_rate:14,.0f} points/s")
    print(f"(b) fused numpy           : {t_np:8.3f} s  {np_rate:14,.0f} points/s")
    print(f"(c) Python loop (1e4 pts) : {t_loop:8.3f} s  {loop_rate:14,.0f} points/s")
    print(f"library / numpy           : {lib_rate / np_rate:8.2f}   (goal >= 0.5)")
    print(f"library / loop speed-up   : {lib_rate / loop_rate:8.0f}x  (goal >= 100x)")
    print(f"peak memory / output      : {peak / out_bytes:8.2f}x  (goal <= 3x; output {out_bytes / 1e6:.0f} MB)")

    # information: the tidy sweep on a 1-million-row grid
    s = tk.Scenario(
        hardware="gb200",
        cost_usd_per_gpu_hour=2.0,
        facility_power_kw_per_accelerator=2.0,
        input_usd_per_mtok=0.5,
        output_usd_per_mtok=2.0,
        workload=tk.Workload(name="1:1", isl_tokens=1000, osl_tokens=1000),
        utilization_frac=0.5,
        throughput_tok_per_s_per_gpu=1000.0,
    )
    axes = {
        "cost_usd_per_gpu_hour": costs,
        "throughput_tok_per_s_per_gpu": tput,
        "utilization_frac": util,
        "license_fee_frac": fee,
    }
    t_sweep, df = best_of(lambda: tk.sweep(s, **axes), repeat=1)
    print(
        f"sweep (tidy, {df.shape[1]} columns)  : {len(df):,} rows in {t_sweep:.3f} s ({len(df) / t_sweep:,.0f} rows/s)"
    )


if __name__ == "__main__":
    main()
