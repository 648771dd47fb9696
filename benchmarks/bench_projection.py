"""Time the default projection of every catalog model on every catalog system.

For each model x hardware x workload (8k/1k, 1k/1k and, where the preset exists, agentic-coding)
``project_curve`` runs its default best-practice search (aggregated, MTP and disaggregated
plans). Every call projects: no projection result is cached. What is kept between calls is what
depends on the model and hardware alone (the resolved configurations and the parallelism
searches), which the three workloads of a pair share. Printed: the pairs that cannot be served
(weights do not fit any searched configuration) with the reason; the slowest calls by wall time
(goal <= 0.3 s each) and by CPU time; wall and CPU time of the whole sweep with the machine's load
average (on a shared machine the wall time counts other processes' work, the CPU time does not);
and three baselines measured in the same run:

* one decode-step evaluation (``decode_step_time_s``), as the unit of work;
* the aggregated search (:func:`~tokenomics.perf.aggregated_configs`) evaluated one
  configuration at a time, as public :func:`~tokenomics.perf.roofline_points` calls each
  turned into its own frame and joined with :func:`~tokenomics.curves.schema.conform` (how
  ``project_curve`` built it before its sweeps were stacked), on a sample of pairs: the ratio
  of times and the largest relative difference of every numeric column (the numbers must not
  change);
* the disaggregated search evaluated one decode configuration at a time, as public
  :func:`~tokenomics.perf.disagg.plan_points` calls (where the decode NICs cannot feed the
  whole sweep, it keeps the concurrencies before the first they cannot, each evaluated alone),
  against :func:`~tokenomics.perf.project_disagg_curve` on the same sample: the ratio of times
  and the largest relative difference of every metric they share.

Last line: ``total: X s -> meets/does NOT meet the goal of <= 30 s``.

Run: python benchmarks/bench_projection.py
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np
import pandas as pd

import tokenomics as tk
from tokenomics.catalog import hardware_table, model_table
from tokenomics.curves.schema import conform
from tokenomics.perf import (
    BAND_COLUMNS,
    ServingConfig,
    aggregated_configs,
    best_practice_precisions,
    bundled_calibration,
    project_curve,
    roofline_points,
)
from tokenomics.perf.configs import DEFAULT_CONCURRENCY
from tokenomics.perf.disagg import (
    Pool,
    ServingPlan,
    best_prefill_config,
    decode_configs,
    plan_points,
    project_disagg_curve,
)
from tokenomics.workload import workload

GOAL_TOTAL_S = 30.0
GOAL_CALL_S = 0.3
WORKLOADS = ("8k/1k", "1k/1k", "agentic-coding")
SAMPLE = (("deepseek-r1", "gb200-nvl72"), ("llama-3.3-70b", "h200-sxm"), ("qwen3-235b-a22b", "b200"),
          ("kimi-k2.5", "tpu-v7"), ("gpt-oss-120b", "mi355x"))


def _lengths(name: str) -> tuple[float, float] | None:
    try:
        w = workload(name)
    except KeyError:
        return None
    return float(w.isl_tokens), float(w.osl_tokens)


def _one_at_a_time(model: str, hardware: str, isl: float, osl: float) -> pd.DataFrame:
    """The aggregated search, one configuration and one frame at a time (the reference)."""
    m, hw = tk.model(model), tk.hardware(hardware)
    cal = bundled_calibration()
    f, (lo, hi) = cal.factors_for(hw), cal.band
    frames = []
    for cfg in aggregated_configs(m, hw):
        b_max = tk.max_concurrency(m, hw, isl_tokens=isl, osl_tokens=osl, config=cfg, factors=f)
        if b_max < 1:
            continue
        grid = [c for c in DEFAULT_CONCURRENCY if c < b_max] + [b_max]
        pts = roofline_points(m, hw, grid, isl_tokens=isl, osl_tokens=osl, config=cfg, factors=f)
        frames.append(pd.DataFrame({
            "hardware_id": hw.hardware_id, "model_id": m.model_id, "kind": "projected",
            "parallelism": cfg.label, "concurrency": pts["concurrency"],
            "throughput_tok_per_s_per_gpu": pts["throughput_tok_per_s_per_gpu"],
            "interactivity_tok_per_s_per_user": pts["interactivity_tok_per_s_per_user"],
            "ttft_median_s": pts["ttft_s"], "tpot_median_s": pts["tpot_s"],
            "e2el_median_s": pts["ttft_s"] + osl * pts["tpot_s"],
            BAND_COLUMNS[0]: pts["throughput_tok_per_s_per_gpu"] * lo,
            BAND_COLUMNS[1]: pts["throughput_tok_per_s_per_gpu"] * hi,
            "step_time_s": pts["step_time_s"],
        }))
    return conform(pd.concat(frames, ignore_index=True))


def _disagg_one_at_a_time(model: str, hardware: str, isl: float, osl: float) -> pd.DataFrame | None:
    """The disaggregated search, one decode configuration and one plan at a time (the reference)."""
    m, hw = tk.model(model), tk.hardware(hardware)
    f = bundled_calibration().factors_for(hw)
    try:
        cfg_p = best_prefill_config(m, hw, isl_tokens=isl, factors=f)
    except ValueError:
        return None
    frames = []
    precisions: dict[str, Any] = best_practice_precisions(m, hw)
    for cfg in decode_configs(m, hw, **precisions):
        plan = ServingPlan(prefill=Pool(hardware=hw, config=cfg_p), decode=Pool(hardware=hw, config=cfg))
        try:
            b_max = tk.max_concurrency(m, hw, isl_tokens=isl, osl_tokens=osl, config=plan.decode.config, factors=f)
        except ValueError:
            continue
        if b_max < 1:
            continue
        args: dict[str, Any] = {"isl_tokens": isl, "osl_tokens": osl, "prefill_factors": f, "decode_factors": f,
                "tco_usd_per_gpu_hour": 1.0}
        grid = [float(c) for c in DEFAULT_CONCURRENCY if c < b_max] + [float(b_max)]
        try:
            frames.append(plan_points(m, plan, grid, **args))
        except ValueError:
            kept = []
            for b in grid:
                try:
                    kept.append(plan_points(m, plan, [b], **args))
                except ValueError:
                    break
            if kept:
                frames.append(pd.concat(kept, ignore_index=True))
    if not frames:
        return None
    ref = pd.concat(frames, ignore_index=True)
    return ref.rename(columns={"ttft_s": "ttft_median_s", "tpot_s": "tpot_median_s"})


def _disagg_reference(workloads: dict[str, tuple[float, float]]) -> None:
    t_new = t_ref = 0.0
    worst = 0.0
    n = 0
    cols = ["throughput_tok_per_s_per_gpu", "interactivity_tok_per_s_per_user", "ttft_median_s",
            "tpot_median_s", "num_gpus", "num_prefill_gpus", "prefill_queue_s", "kv_transfer_load_frac",
            "cache_hit_frac"]
    for m, h in SAMPLE:
        for isl, osl in workloads.values():
            t0 = time.process_time()
            ref = _disagg_one_at_a_time(m, h, isl, osl)
            t1 = time.process_time()
            try:
                new = project_disagg_curve(m, h, h, isl_tokens=isl, osl_tokens=osl, with_cost=False)
            except ValueError:
                new = None
            t2 = time.process_time()
            if (ref is None) != (new is None):
                worst = float("inf")
                continue
            if ref is None or new is None:
                continue
            t_ref += t1 - t0
            t_new += t2 - t1
            worst = max(worst, _max_rel_diff(new[cols], ref[cols]))
            n += 1
    print(f"disaggregated search on {n} sample pairs: one plan at a time {t_ref:.2f} s CPU, stacked "
          f"{t_new:.2f} s CPU = {t_ref / t_new:.1f}x faster; largest relative difference of any shared metric "
          f"{worst:.1e}")


def _max_rel_diff(a: pd.DataFrame, b: pd.DataFrame) -> float:
    worst = 0.0
    for col in b.columns:
        if col not in a or not pd.api.types.is_float_dtype(b[col]):
            continue
        x = a[col].to_numpy(dtype=float, na_value=np.nan)
        y = b[col].to_numpy(dtype=float, na_value=np.nan)
        if x.shape != y.shape:
            return float("inf")
        ok = ~(np.isnan(x) & np.isnan(y))
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.abs(x[ok] - y[ok]) / np.maximum(np.abs(y[ok]), 1e-300)
        worst = max(worst, float(np.max(rel, initial=0.0)))
    return worst


def _reference_ratio(workloads: dict[str, tuple[float, float]]) -> None:
    t_new = t_ref = 0.0
    worst = 0.0
    n = 0
    for m, h in SAMPLE:
        for isl, osl in workloads.values():
            t0 = time.process_time()
            ref = _one_at_a_time(m, h, isl, osl)
            t1 = time.process_time()
            new = project_curve(m, h, isl_tokens=isl, osl_tokens=osl, search="aggregated")
            t2 = time.process_time()
            t_ref += t1 - t0
            t_new += t2 - t1
            worst = max(worst, _max_rel_diff(new, ref))
            n += 1
    print(f"aggregated search on {n} sample pairs: one configuration at a time {t_ref:.2f} s CPU, stacked "
          f"{t_new:.2f} s CPU = {t_ref / t_new:.1f}x faster; largest relative difference of any numeric "
          f"column {worst:.1e}")


def main() -> None:
    models = list(model_table().index)
    systems = list(hardware_table().index)
    workloads = {}
    for name in WORKLOADS:
        lengths = _lengths(name)
        if lengths is None:
            print(f"workload {name!r}: no such preset in this version, skipped")
        else:
            workloads[name] = lengths
    project_curve("deepseek-r1", "b200", isl_tokens=8192.0, osl_tokens=1024.0)  # warm caches
    t0 = time.perf_counter()
    n = 200
    for _ in range(n):
        tk.decode_step_time_s("deepseek-r1", "b200", 64.0, config=ServingConfig(tp=8, ep=8))
    t_step = (time.perf_counter() - t0) / n
    _reference_ratio(workloads)
    _disagg_reference(workloads)
    times: list[tuple[float, str]] = []
    cpu_times: list[tuple[float, str]] = []
    failed: dict[str, str] = {}
    load_before = os.getloadavg()[0]
    start, cpu_start = time.perf_counter(), time.process_time()
    for m in models:
        for h in systems:
            for wl, (isl, osl) in workloads.items():
                t1, c1 = time.perf_counter(), time.process_time()
                try:
                    project_curve(m, h, isl_tokens=isl, osl_tokens=osl)
                except ValueError as err:
                    failed[f"{m} on {h}"] = str(err).split(";")[0][:110]
                times.append((time.perf_counter() - t1, f"{m} on {h} {wl}"))
                cpu_times.append((time.process_time() - c1, f"{m} on {h} {wl}"))
    total, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    load_after = os.getloadavg()[0]
    times.sort(reverse=True)
    cpu_times.sort(reverse=True)
    mean = total / len(times)
    print(f"{len(times)} projections ({len(models)} models x {len(systems)} systems x {len(workloads)} workloads)")
    print(f"cannot be served ({len(failed)} model-system pairs):")
    for key, why in sorted(failed.items()):
        print(f"  {key}: {why}")
    print("slowest calls: " + "; ".join(f"{which} {t:.3f} s" for t, which in times[:5]))
    over = sum(t > GOAL_CALL_S for t, _ in times)
    print(f"one decode-step evaluation: {1e3 * t_step:.2f} ms; mean default project_curve {1e3 * mean:.0f} ms "
          f"= {mean / t_step:.0f}x")
    print(f"slowest call: {times[0][0]:.3f} s ({times[0][1]}); {over} of {len(times)} calls over "
          f"{GOAL_CALL_S} s")
    print(f"slowest call by CPU time: {cpu_times[0][0]:.3f} s ({cpu_times[0][1]}); "
          f"{sum(t > GOAL_CALL_S for t, _ in cpu_times)} calls over {GOAL_CALL_S} s of CPU")
    print(f"load average (1 min) {load_before:.1f} before, {load_after:.1f} after, on {os.cpu_count()} CPUs; "
          f"CPU time of the sweep {cpu:.1f} s ({cpu / total:.0%} of wall)")
    print(f"total: {total:.1f} s -> {'meets' if total <= GOAL_TOTAL_S else 'does NOT meet'} the goal of "
          f"<= {GOAL_TOTAL_S:.0f} s")


if __name__ == "__main__":
    main()
