"""KV offload projection against every bundled agentic run with and without CPU-DRAM offload.

Each run of ``data/workloads/agentic_runs.csv`` (B200 DeepSeek-R1 FP4 TP4/TP8, early agentic sweep,
offload on and off; MI355X Kimi-K2.7, AgentX: TP8 with LMCache DRAM offload at 16-48 sessions and
none at 4-8, TP4 with offload at 16-32 and none at 1-8) is projected with
:func:`tokenomics.perf.session_points` at matched hardware, model, parallelism and sessions, with
the tiers of its offload mode from :func:`tokenomics.perf.hierarchy.kv_offload_tiers`: HBM only, or
HBM + host DRAM. Host DRAM for the KV cache: the run's allocation where recorded (AgentX MI355X:
``allocated_cpu_dram_gb`` = 2,399 GB per 8-GPU TP8 server, 1,199 GB per 4-GPU TP4 server), else 80 %
of the installed host DRAM (the early sweep does not record it). Workload and precisions as in
``validate_agentic.py``.

Errors:
* hit rate: ``|projected - measured|`` of the overall realized prefix-cache hit rate (GPU + CPU
  hits), every run;
* on/off throughput ratio: for each (hardware, TP, sessions) measured both with and without
  offload, ``|projected ratio / measured ratio - 1|`` of throughput per GPU.

Listed exclusion: the early sweep's B200 TP8 offload-on runs record a CPU hit rate of exactly 0 at
every concurrency, including where GPU hits have collapsed (32-512 sessions): the CPU tier did not
serve hits in those runs, so they do not measure offload. They are excluded from both statistics
(and shown, with the figure they would give).

Run: python benchmarks/validate_offload.py
"""

from __future__ import annotations

import numpy as np
import pandas as pd

import tokenomics as tk
from tokenomics.perf import ServingConfig, bundled_calibration, session_points
from tokenomics.perf.hierarchy import kv_offload_tiers
from tokenomics.workload import Workload, agentic_runs, workload

GOAL_HIT_ABS = 0.10
GOAL_RATIO_FRAC = 0.10
#: AgentX MI355X runs: allocated_cpu_dram_gb = 2399 for a TP8 server, 1199 for a TP4 server, ~300 GB
#: per GPU (SemiAnalysisAI/InferenceX @6c128cd, tp8_sweep_29337493492 and tp4_sweep_29003473063,
#: 2026-08-03).
ALLOCATED_GB_PER_GPU = {"mi355x": 2399 / 8}


def _config(run: pd.Series) -> ServingConfig:
    kv = "bf16" if run["hardware_id"] == "mi355x" else "fp8"
    return ServingConfig(tp=int(run["tp"]), ep=int(run["ep"]), weight_precision="fp4", dense_weight_precision="fp8",
                         kv_precision=kv)


def _workload(run: pd.Series) -> Workload:
    early = "7181314" in str(run["source"])
    preset = workload("agentic-coding-early" if early else "agentic-coding")
    replay = run["replay_cache_hit_frac"]
    ideal = replay if pd.notna(replay) else run["theoretical_cache_hit_frac"]
    return Workload(name=str(run["run_id"]), isl_tokens=float(run["input_tokens_mean"]),
                    osl_tokens=float(run["output_tokens_mean"]), kind="sessions", cached_prefix_frac=float(ideal),
                    idle_s_between_turns=preset.idle_s_between_turns)


def _excluded(run: pd.Series) -> str:
    if (run["hardware_id"] == "b200" and int(run["tp"]) == 8 and run["kv_offload"] == "dram"
            and float(run["cpu_cache_hit_frac"] or 0.0) == 0.0):
        return "CPU tier served no hits in this run (cpu hit rate 0 at every concurrency of the TP8 offload-on sweep)"
    return ""


def main() -> None:
    runs = agentic_runs()
    rows = []
    for _, run in runs.iterrows():
        hw = tk.hardware(str(run["hardware_id"]))
        model = tk.model(str(run["model_id"]))
        cfg = _config(run)
        factors = bundled_calibration().factors_for(hw)
        wl = _workload(run)
        mode = str(run["kv_offload"])
        tiers, recall = kv_offload_tiers(model, hw, config=cfg, factors=factors, kv_offload=mode,
                                         context_tokens=wl.isl_tokens + wl.osl_tokens,
                                         host_kv_gb_per_gpu=(ALLOCATED_GB_PER_GPU.get(hw.hardware_id)
                                                             if mode != "none" else None))
        p = session_points(model, hw, float(run["sessions"]), wl, config=cfg, factors=factors,
                           tier_capacity_tokens=tiers, recall_s_per_token=recall).iloc[0]
        cpu = run["cpu_cache_hit_frac"] if pd.notna(run["cpu_cache_hit_frac"]) else 0.0
        rows.append({
            "hardware": hw.hardware_id, "tp": int(run["tp"]), "sessions": int(run["sessions"]),
            "offload": run["kv_offload"], "hit_meas": float(run["realized_cache_hit_frac"]) + float(cpu),
            "hit_proj": p["realized_cache_hit_frac"],
            "host_hit_proj": p["realized_cache_hit_frac"] - p["gpu_cache_hit_frac"],
            "tput_meas": run["throughput_tok_per_s_per_gpu"], "tput_proj": p["throughput_tok_per_s_per_gpu"],
            "recall_s": p["recall_s"], "excluded": _excluded(run),
        })
    res = pd.DataFrame(rows)
    # several runs of one configuration: their mean (the sweep repeats a few points)
    res = res.groupby(["hardware", "tp", "sessions", "offload", "excluded"], as_index=False).mean(numeric_only=True)
    res["hit_err"] = res["hit_proj"] - res["hit_meas"]
    kept = res[res["excluded"] == ""]
    on = kept[kept["offload"] == "dram"].set_index(["hardware", "tp", "sessions"])
    off = kept[kept["offload"] == "none"].set_index(["hardware", "tp", "sessions"])
    pairs = on.merge(off, left_index=True, right_index=True, how="inner", suffixes=("_on", "_off"))
    pairs["ratio_meas"] = pairs["tput_meas_on"] / pairs["tput_meas_off"]
    pairs["ratio_proj"] = pairs["tput_proj_on"] / pairs["tput_proj_off"]
    pairs["ratio_err_pct"] = 100 * (pairs["ratio_proj"] / pairs["ratio_meas"] - 1)
    with pd.option_context("display.width", 220, "display.max_columns", 30, "display.max_colwidth", 40):
        print(res.drop(columns=["excluded"]).round(3).to_string(index=False))
        print()
        print(pairs[["hit_meas_on", "hit_proj_on", "hit_meas_off", "hit_proj_off", "ratio_meas", "ratio_proj",
                     "ratio_err_pct"]].round(3).to_string())
    dropped = res[res["excluded"] != ""]
    if len(dropped):
        print(f"\nexcluded ({len(dropped)}): {dropped['excluded'].iloc[0]}; with them the hit-rate median abs "
              f"error would be {float(np.median(res['hit_err'].abs())):.3f}")
    hit = float(np.median(kept["hit_err"].abs()))
    ratio = float(np.median(pairs["ratio_err_pct"].abs()))
    for mode, g in kept.groupby("offload"):
        print(f"offload {mode}: hit-rate median abs error {g['hit_err'].abs().median():.3f} (n={len(g)})")
    print(f"goals: hit rate within {GOAL_HIT_ABS:.2f} ({'met' if hit <= GOAL_HIT_ABS else 'NOT met'}), "
          f"ratio within {100 * GOAL_RATIO_FRAC:.0f} % ({'met' if ratio <= 100 * GOAL_RATIO_FRAC else 'NOT met'}); "
          f"{len(pairs)} on/off pairs")
    print(f"offload: hit-rate median abs error {hit:.3f} (n={len(kept)}), on/off throughput-ratio median abs error "
          f"{ratio:.1f} %")


if __name__ == "__main__":
    main()
