"""Benchmark: Monte Carlo in memory and chunked on dask, and a run larger than memory.

Problem: 10 catalog systems with itemised TCO (capex, cost of capital and opex spreads from
``data/uncertainty/spreads.csv``), projected throughput bands on half of them, utilization,
license fee and output price as distributions (23 uncertain inputs); 7 metrics per draw and
system (cost, margin, two break-evens, J/token, tok/s/MW, profit/MW-year). In the same run:

(a) ``tokenomics.monte_carlo`` with 1e6 joint draws x 10 systems in memory (draws kept as an
    xarray Dataset): wall time (goal <= 2 s on 2 cores);
(b) the same problem with ``backend="dask"`` (chunks of 2**18 draws, threaded scheduler with two
    workers) and in memory without keeping the draws (the same statistics), on 2**21 draws: the
    ratio of their draws per second (goal >= 0.5);
(c) 1e9 joint draws of ``--large-systems`` systems (default 2; utilization and fee as
    distributions; 7 x 8 bytes per draw and system, 112 GB for 2 systems if they were kept)
    streamed through dask in a child process: its peak resident memory (``VmHWM`` of the child,
    imports and catalogs included; goal <= 2 GB), with its time.

Run: ``python benchmarks/bench_montecarlo.py [--large-draws N] [--large-systems K]``. Not a test:
figures depend on the machine and its load (the load average is printed before and after).
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import subprocess
import sys
import time

import numpy as np
import pandas as pd
from scipy import stats

import tokenomics as tk

SYSTEMS = ["b200", "b300", "gb200-nvl72", "gb300-nvl72", "h100-sxm", "h200-sxm", "mi300x", "mi355x", "tpu-v7",
           "vr200-nvl144"]


def base_table(systems: list[str]) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    t = rng.uniform(1000.0, 6000.0, len(systems))
    frame = pd.DataFrame({
        "hardware_id": systems, "throughput_tok_per_s_per_gpu": t,
        "cost_usd_per_gpu_hour": [tk.tco(h).usd_per_gpu_hour for h in systems], "utilization_frac": 0.6,
        "license_fee_frac": 0.1, "input_share_frac": 0.9, "cache_hit_frac": 0.3, "input_usd_per_mtok": 0.55,
        "output_usd_per_mtok": 2.19, "cached_input_usd_per_mtok": 0.14, "tco_basis": "itemised",
        "tco_profile": "hyperscaler", "throughput_low_tok_per_s_per_gpu": t * 0.62,
        "throughput_high_tok_per_s_per_gpu": t * 1.37,
    })
    frame.loc[1::2, ["throughput_low_tok_per_s_per_gpu", "throughput_high_tok_per_s_per_gpu"]] = np.nan
    return frame


DISTS = {
    "utilization_frac": stats.uniform(0.4, 0.4),
    "license_fee_frac": stats.uniform(0.0, 0.3),
    "output_usd_per_mtok": stats.lognorm(0.2, scale=2.19),
}


def child(n: int, k: int) -> None:
    import dask

    dask.config.set(scheduler="threads", num_workers=2)
    systems = ["gb300-nvl72", "tpu-v7"] if k == 2 else SYSTEMS[:k]
    t0 = time.perf_counter()
    r = tk.monte_carlo(base_table(systems), n_draws=n, method="random", backend="dask", chunk_draws=2**18,
                       catalog_spreads=False, **{key: DISTS[key] for key in ("utilization_frac", "license_fee_frac")})
    dt = time.perf_counter() - t0
    print(f"CHILD {dt:.1f} {peak_rss_gb():.3f} {r.cheaper_statement(systems[0], systems[1])}")


def peak_rss_gb() -> float:
    """Peak resident memory of this process [GB]: ``VmHWM`` of /proc/self/status.

    ``ru_maxrss`` is not used on Linux: it keeps the high-water mark of the address space replaced
    by ``exec``, i.e. the forking parent's resident memory.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1e6  # kB -> GB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--large-draws", type=float, default=1e9)
    ap.add_argument("--large-systems", type=int, default=2)
    ap.add_argument("--child", type=float, default=0.0)
    args = ap.parse_args()
    if args.child:
        child(int(args.child), args.large_systems)
        return
    import dask

    dask.config.set(scheduler="threads", num_workers=2)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    base = base_table(SYSTEMS)
    tk.monte_carlo(base, n_draws=2**10, **DISTS)  # warm caches (catalog, imports)
    n = 1_000_000
    t0, c0 = time.perf_counter(), time.process_time()
    r = tk.monte_carlo(base, n_draws=n, **DISTS)
    x, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"(a) in memory: {n:.0e} draws x {len(SYSTEMS)} systems, {r.problem.dims} uncertain inputs, draws kept: "
          f"{x:.2f} s ({cpu:.2f} s of CPU over its threads)")
    print("    " + r.cheaper_statement("gb300-nvl72", "tpu-v7"))
    del r

    m = 2**21
    t0 = time.perf_counter()
    tk.monte_carlo(base, n_draws=m, method="random", keep_draws=False, **DISTS)
    t_np = time.perf_counter() - t0
    t0 = time.perf_counter()
    tk.monte_carlo(base, n_draws=m, method="random", backend="dask", chunk_draws=2**18, **DISTS)
    t_dask = time.perf_counter() - t0
    y = (m / t_dask) / (m / t_np)
    print(f"(b) {m} draws: numpy {m / t_np:,.0f} draws/s, dask {m / t_dask:,.0f} draws/s, ratio {y:.2f}")

    big = int(args.large_draws)
    out = subprocess.run([sys.executable, __file__, "--child", str(big), "--large-systems", str(args.large_systems)],
                         capture_output=True, text=True, check=True)
    line = next(s for s in out.stdout.splitlines() if s.startswith("CHILD"))
    _, secs, peak, *statement = line.split()
    z = float(peak)
    print(f"(c) {big:.0e} draws x {args.large_systems} systems on dask: {float(secs):.0f} s "
          f"({big / float(secs):,.0f} draws/s), peak RSS {z:.2f} GB; {' '.join(statement)}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    draws = f"1e{round(math.log10(big))}" if 10 ** round(math.log10(big)) == big else f"{big:.3g}"
    print(f"montecarlo: 1e6 draws x 10 systems {x:.2f} s; dask/numpy rate {y:.2f}; {draws} draws peak {z:.2f} GB")


if __name__ == "__main__":
    main()
