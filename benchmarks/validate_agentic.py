"""Agentic (multi-turn session) projection against every bundled agentic run without KV offload.

Each run of ``data/workloads/agentic_runs.csv`` served without KV offload (B200 DeepSeek-R1 FP4
TP4/TP8, early agentic sweep; MI355X Kimi-K2.7 TP8 and TP4, AgentX) is projected with
:func:`tokenomics.perf.session_points` at matched hardware, model, parallelism (TP, EP) and
concurrency (sessions). The workload of each run is its own served traffic: mean input and output
tokens and its ideal hit rate (the replay's unbounded-cache rate where recorded, else the trace's
theoretical rate). Idle gaps are the preset's, not the run's: 17.9 s for the early sweep
(``workload("agentic-coding-early")``, from its runs with <= 4 sessions), 0 for AgentX. Precisions:
FP4 routed experts, FP8 dense weights; KV FP8 for the NVIDIA FP4 checkpoint (its FP8 KV scales),
BF16 for the AMD MXFP4 Kimi checkpoint (the run's recorded KV pool, 2.80 M tokens at TP8 and 1.85 M
at TP4, matches BF16: 2.56 M and 1.64 M projected, 4.51 M at FP8 for TP8). Efficiency factors: the
bundled calibration, fitted on fixed-sequence runs only (agentic runs have no fixed ISL/OSL and are
not used by it); nothing here is fitted to these runs. Prefill at long context is priced as the
engine runs it (:func:`tokenomics.perf.step.chunked_prefill_time_s`): chunks of 8,192 tokens (the
servers' logged ``max_num_batched_tokens``), the new tokens' linear layers inside the step's matrix
multiplies, MLA attention in BF16 after the decode kernels, each chunk re-reading and up-projecting
its prefix.

Where the source files are at hand (``../shared/data/inferencemax/``), the table also shows the
share of each early run's requests that did not complete (``failed_frac``): at saturation the
benchmark client gives up on requests after 600 s and the test ends with requests in flight, so
the measured throughput counts only finished requests while the server also worked on the others.

``in_flight_meas`` is the run's mean number of requests in flight by Little's law (measured
request rate x mean end-to-end latency); the projection holds ``in_flight`` = sessions. In the
AgentX runs it exceeds the session count (1.4 requests at one session): their sessions issue some
requests in parallel, which queue where the server admits one sequence per session
(``--max-num-seqs`` = sessions).

Errors: throughput per GPU (input + output, cached input included) ``|projected / measured -
1|``; realized hit rate ``|projected - measured|`` (absolute, server HBM hits); interactivity
(median 1/TPOT; 1/ITL in the early rows) ``|projected / measured - 1|``.

Run: python benchmarks/validate_agentic.py
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

import tokenomics as tk
from tokenomics.perf import ServingConfig, bundled_calibration, session_points
from tokenomics.workload import Workload, agentic_runs, workload

GOAL_THROUGHPUT_FRAC = 0.25
GOAL_HIT_ABS = 0.10
_SOURCE = Path(__file__).resolve().parents[1].parent / "shared/data/inferencemax/agentic_mvp_b200_dsr1_fp4_offload/agg"


def _failed_frac(run_id: str) -> float:
    """Share of the run's requests that did not complete (NaN where the source file is absent)."""
    path = _SOURCE / run_id
    if not path.is_file():
        return float("nan")
    d = json.loads(path.read_text())
    return 1.0 - d["num_requests_successful"] / d["num_requests_total"]


def _config(run: pd.Series) -> ServingConfig:
    kv = "bf16" if run["hardware_id"] == "mi355x" else "fp8"
    tp, ep = int(run["tp"]), int(run["ep"])
    return ServingConfig(tp=tp, ep=ep, weight_precision="fp4", dense_weight_precision="fp8", kv_precision=kv)


def _workload(run: pd.Series) -> Workload:
    early = "7181314" in str(run["source"])
    preset = workload("agentic-coding-early" if early else "agentic-coding")
    replay = run["replay_cache_hit_frac"]
    ideal = replay if pd.notna(replay) else run["theoretical_cache_hit_frac"]
    return Workload(
        name=str(run["run_id"]), isl_tokens=float(run["input_tokens_mean"]),
        osl_tokens=float(run["output_tokens_mean"]), kind="sessions", cached_prefix_frac=float(ideal),
        idle_s_between_turns=preset.idle_s_between_turns,
    )


def main() -> None:
    runs = agentic_runs()
    runs = runs[runs["kv_offload"] == "none"].reset_index(drop=True)
    rows = []
    t0 = time.perf_counter()
    for _, run in runs.iterrows():
        hw = tk.hardware(str(run["hardware_id"]))
        factors = bundled_calibration().factors_for(hw)
        pts = session_points(str(run["model_id"]), hw, float(run["sessions"]), _workload(run),
                             config=_config(run), factors=factors)
        p = pts.iloc[0]
        rows.append({
            "hardware": run["hardware_id"], "model": run["model_id"], "tp": int(run["tp"]),
            "sessions": int(run["sessions"]),
            "tput_meas": run["throughput_tok_per_s_per_gpu"], "tput_proj": p["throughput_tok_per_s_per_gpu"],
            "hit_ideal": _workload(run).cached_prefix_frac,
            "hit_meas": run["realized_cache_hit_frac"], "hit_proj": p["realized_cache_hit_frac"],
            "intv_meas": run["interactivity_tok_per_s_per_user"], "intv_proj": p["interactivity_tok_per_s_per_user"],
            "ttft_meas_s": run["ttft_median_s"], "ttft_proj_s": p["ttft_s"],
            "in_flight_meas": run["requests_per_s"] * run["e2el_mean_s"],
            "in_flight": p["concurrency"], "kv_cap_mtok": p["kv_capacity_tokens"] / 1e6,
            "failed_frac": _failed_frac(str(run["run_id"])),
        })
    elapsed = time.perf_counter() - t0
    res = pd.DataFrame(rows)
    res["tput_err_pct"] = 100 * (res["tput_proj"] / res["tput_meas"] - 1)
    res["hit_err"] = res["hit_proj"] - res["hit_meas"]
    res["intv_err_pct"] = 100 * (res["intv_proj"] / res["intv_meas"] - 1)
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(res.round(3).to_string(index=False))
    print()
    for key, g in res.groupby(["hardware", "tp"]):
        print(f"{key}: median |error| throughput {g['tput_err_pct'].abs().median():.1f} %, "
              f"hit {g['hit_err'].abs().median():.3f}, interactivity {g['intv_err_pct'].abs().median():.1f} %"
              f" (n={len(g)})")
    tput = float(np.median(res["tput_err_pct"].abs()))
    hit = float(np.median(res["hit_err"].abs()))
    intv = float(np.median(res["intv_err_pct"].abs()))
    print(f"points within goal: throughput {int((res['tput_err_pct'].abs() <= 100 * GOAL_THROUGHPUT_FRAC).sum())}"
          f"/{len(res)}, hit rate {int((res['hit_err'].abs() <= GOAL_HIT_ABS).sum())}/{len(res)}")
    print(f"goals: throughput <= {100 * GOAL_THROUGHPUT_FRAC:.0f} % "
          f"({'met' if tput <= 100 * GOAL_THROUGHPUT_FRAC else 'NOT met'}), "
          f"hit rate <= {GOAL_HIT_ABS:.2f} ({'met' if hit <= GOAL_HIT_ABS else 'NOT met'}); "
          f"{len(res)} projections in {elapsed:.2f} s")
    print(f"agentic median abs error: throughput {tput:.1f} % (n={len(res)}), realized hit rate {hit:.3f}, "
          f"interactivity {intv:.1f} %")


if __name__ == "__main__":
    main()
