"""Time the default projection of every catalog model on every catalog system.

For each model x hardware x workload (8k/1k, 1k/1k and, where the preset exists, agentic-coding)
``project_curve`` runs its default best-practice frontier search. Printed: the total (goal
<= 30 s on 2 cores), the slowest single call (goal <= 0.3 s), the pairs that cannot be served
(weights do not fit any searched configuration) with the reason, and the ratio of a default call
to one decode-step evaluation measured in the same run.

Run: python benchmarks/bench_projection.py
"""

from __future__ import annotations

import time

import tokenomics as tk
from tokenomics.catalog import hardware_table, model_table
from tokenomics.perf import ServingConfig, project_curve
from tokenomics.workload import workload

GOAL_TOTAL_S = 30.0
GOAL_CALL_S = 0.3
WORKLOADS = ("8k/1k", "1k/1k", "agentic-coding")


def _lengths(name: str) -> tuple[float, float] | None:
    try:
        w = workload(name)
    except KeyError:
        return None
    return float(w.isl_tokens), float(w.osl_tokens)


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
    times: list[tuple[float, str]] = []
    failed: dict[str, str] = {}
    start = time.perf_counter()
    for m in models:
        for h in systems:
            for wl, (isl, osl) in workloads.items():
                t1 = time.perf_counter()
                try:
                    project_curve(m, h, isl_tokens=isl, osl_tokens=osl)
                except ValueError as err:
                    failed[f"{m} on {h}"] = str(err).split(";")[0][:110]
                times.append((time.perf_counter() - t1, f"{m} on {h} {wl}"))
    total = time.perf_counter() - start
    slowest, which = max(times)
    mean = total / len(times)
    print(f"{len(times)} projections ({len(models)} models x {len(systems)} systems x {len(workloads)} workloads)")
    print(f"cannot be served ({len(failed)} model-system pairs):")
    for key, why in sorted(failed.items()):
        print(f"  {key}: {why}")
    print(f"one decode-step evaluation: {1e3 * t_step:.2f} ms; mean default project_curve {1e3 * mean:.0f} ms "
          f"= {mean / t_step:.0f}x")
    print(f"slowest call: {slowest:.3f} s ({which}) -> {'meets' if slowest <= GOAL_CALL_S else 'does NOT meet'} "
          f"the goal of <= {GOAL_CALL_S} s")
    print(f"total: {total:.1f} s -> {'meets' if total <= GOAL_TOTAL_S else 'does NOT meet'} the goal of "
          f"<= {GOAL_TOTAL_S:.0f} s")


if __name__ == "__main__":
    main()
