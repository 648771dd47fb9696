"""Benchmark: Monte Carlo in memory and chunked on dask, and a run larger than memory.

Problem: 10 catalog systems with itemised TCO (capex, cost of capital and opex spreads from
``data/uncertainty/spreads.csv``), projected throughput bands on half of them, utilization,
license fee and output price as distributions (26 uncertain inputs). In the same run:

(a) ``tokenomics.monte_carlo`` with 1e6 joint draws x 10 systems in memory (draws kept as an
    xarray Dataset, exact quantiles): wall time (goal <= 2 s on 2 cores);
(b) the same problem with ``backend="dask"`` (chunks of 2**18 draws, two threads) and in memory,
    on 2**21 draws: the ratio of their draws per second (goal >= 0.5);
(c) 1e9 joint draws of a two-system problem (utilization and fee as distributions; 32 GB of
    per-draw results if they were kept) streamed through dask in a child process: its peak
    resident memory (goal <= 2 GB), with its time.

Run: ``python benchmarks/bench_montecarlo.py [--large-draws N]``. Not a test: figures depend on
the machine and its load (the load average is printed).
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


def child(n: int) -> None:
    import dask

    dask.config.set(scheduler="threads", num_workers=2)
    t0 = time.perf_counter()
    r = tk.monte_carlo(base_table(["gb300-nvl72", "tpu-v7"]), n_draws=n, method="random", backend="dask",
                       chunk_draws=2**18, catalog_spreads=False, **{k: DISTS[k] for k in ("utilization_frac",
                                                                                          "license_fee_frac")})
    dt = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # kB -> GB
    print(f"CHILD {dt:.1f} {peak:.3f} {r.cheaper_statement('gb300-nvl72', 'tpu-v7')}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--large-draws", type=float, default=1e9)
    ap.add_argument("--child", type=float, default=0.0)
    args = ap.parse_args()
    if args.child:
        child(int(args.child))
        return
    import dask

    dask.config.set(scheduler="threads", num_workers=2)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    base = base_table(SYSTEMS)
    tk.monte_carlo(base, n_draws=2**10, **DISTS)  # warm caches (catalog, imports)
    n = 1_000_000
    t0 = time.perf_counter()
    r = tk.monte_carlo(base, n_draws=n, **DISTS)
    x = time.perf_counter() - t0
    print(f"(a) in memory: {n:.0e} draws x {len(SYSTEMS)} systems, {r.problem.dims} uncertain inputs: {x:.2f} s")
    print("    " + r.cheaper_statement("gb300-nvl72", "tpu-v7"))

    m = 2**21
    t0 = time.perf_counter()
    tk.monte_carlo(base, n_draws=m, method="random", **DISTS)
    t_np = time.perf_counter() - t0
    t0 = time.perf_counter()
    tk.monte_carlo(base, n_draws=m, method="random", backend="dask", chunk_draws=2**18, **DISTS)
    t_dask = time.perf_counter() - t0
    y = (m / t_dask) / (m / t_np)
    print(f"(b) {m} draws: numpy {m / t_np:,.0f} draws/s, dask {m / t_dask:,.0f} draws/s, ratio {y:.2f}")

    big = int(args.large_draws)
    out = subprocess.run([sys.executable, __file__, "--child", str(big)], capture_output=True, text=True, check=True)
    line = next(s for s in out.stdout.splitlines() if s.startswith("CHILD"))
    _, secs, peak, *statement = line.split()
    z = float(peak)
    print(f"(c) {big:.0e} draws x 2 systems on dask: {float(secs):.0f} s, peak RSS {z:.2f} GB; {' '.join(statement)}")
    draws = f"1e{round(math.log10(big))}" if 10 ** round(math.log10(big)) == big else f"{big:.3g}"
    print(f"montecarlo: 1e6 draws x 10 systems {x:.2f} s; dask/numpy rate {y:.2f}; {draws} draws peak {z:.2f} GB")


if __name__ == "__main__":
    main()
