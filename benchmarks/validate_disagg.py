"""Validate disaggregated-serving projections against measured disaggregated points.

Measured points (all throughputs are input + output tokens/s per GPU of both pools):

* the bundled InferenceX Dynamo disaggregated rows of ``data/curves/measured_points.csv``
  (B200, B300, GB200/GB300 NVL72, H100, H200; DeepSeek-R1 at 1k/1k and 8k/1k). Their
  parallelism and pool sizes are not published with the points, so they are matched on
  hardware (both pools), model, weight precision, ISL/OSL and speculative decoding (MTP rows
  against MTP plans, ``none`` against plans without it, unstated against both), and compared
  with the projected disaggregated frontier at the measured interactivity (-100 % where the
  projection cannot reach it);
* the raw MI355X gpt-oss-120b files of ``../shared/data/inferencemax`` (1k/1k, 8 prefill + 8
  decode GPUs, concurrency 4..512), matched at their configuration: fixed pools of 8 + 8
  GPUs, one TP8 replica per role (the ``ctx_8_gen_8`` layout), the measured concurrency.

Rows left out are listed with their reason. Error = projected / measured - 1.

Run: python benchmarks/validate_disagg.py
"""

from __future__ import annotations

import glob
from pathlib import Path

import numpy as np
import pandas as pd

import tokenomics as tk
from tokenomics.perf import ServingConfig, best_practice_precisions
from tokenomics.perf.disagg import (
    Pool,
    ServingPlan,
    best_prefill_config,
    decode_configs,
    plan_points,
    project_disagg_curve,
)

GOAL_MEDIAN_ABS_ERROR_FRAC = 0.25
REPO = Path(__file__).resolve().parents[1]
RAW = REPO.parent / "shared" / "data" / "inferencemax" / "multinode_disagg_raw_gptoss120b_1k1k"
WORKLOADS = {"1k/1k": (1024.0, 1024.0), "8k/1k": (8192.0, 1024.0)}


def _precisions(model: str, hardware: str, weight: str) -> dict[str, str | None]:
    prec = best_practice_precisions(model, hardware)
    if weight != prec["weight_precision"]:
        # the measured run's weight precision (e.g. FP8 DeepSeek-R1 on Blackwell)
        dense = "fp8" if weight in ("fp4", "fp8") else None
        prec = {**prec, "weight_precision": weight, "dense_weight_precision": dense}
    return prec


def _frontier(model: str, hardware: str, isl: float, osl: float, weight: str, spec: str) -> tk.ThroughputCurve:
    prec = _precisions(model, hardware, weight)
    cfgs = decode_configs(model, hardware, **prec)
    if spec == "mtp":
        cfgs = [c for c in cfgs if c.mtp_draft_tokens]
    elif spec == "none":
        cfgs = [c for c in cfgs if not c.mtp_draft_tokens]
    prefill = best_prefill_config(model, hardware, isl_tokens=isl,
                                  configs=tk.perf.prefill_configs(model, hardware, isl_tokens=isl, **prec))
    pts = project_disagg_curve(model, hardware, hardware, isl_tokens=isl, osl_tokens=osl, prefill_config=prefill,
                               decode_configs_=cfgs, with_cost=False)
    return tk.ThroughputCurve.from_points(pts, allow_mixed_groups=True)


def inferencex_rows() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return the matched InferenceX Dynamo rows with their errors, and the rows left out."""
    pts = pd.read_csv(REPO / "data" / "curves" / "measured_points.csv")
    dis = pts[pts["disaggregated"].astype("boolean").fillna(False)]
    used, left = [], []
    for i, row in dis.iterrows():
        fw = str(row["framework"])
        reason = None
        if not fw.startswith("dynamo"):
            reason = f"not a Dynamo run ({fw})"
        elif row["model_id"] not in tk.model_table().index:
            reason = f"model {row['model_id']} not in the catalog"
        elif pd.isna(row["throughput_tok_per_s_per_gpu"]):
            reason = "no throughput per GPU of both pools (output per decode GPU only, prefill GPUs not stated)"
        elif row["workload"] not in WORKLOADS:
            reason = f"workload {row['workload']!r}: ISL/OSL not stated"
        elif row["spec_decoding"] == "mtp" and not tk.perf.speculative_settings(row["model_id"]):
            reason = "MTP run of a model without a published acceptance rate"
        if reason:
            left.append({"row": i, "hardware_id": row["hardware_id"], "model_id": row["model_id"],
                         "workload": row["workload"], "reason": reason})
            continue
        used.append(row)
    cache: dict[tuple[str, ...], tk.ThroughputCurve] = {}
    out = []
    for row in used:
        isl, osl = WORKLOADS[row["workload"]]
        spec = "any" if pd.isna(row["spec_decoding"]) else str(row["spec_decoding"])
        key = (row["model_id"], row["hardware_id"], row["workload"], row["precision"], spec)
        if key not in cache:
            cache[key] = _frontier(row["model_id"], row["hardware_id"], isl, osl, row["precision"], spec)
        x = float(row["interactivity_tok_per_s_per_user"])
        proj = float(cache[key].throughput_at(x))
        meas = float(row["throughput_tok_per_s_per_gpu"])
        out.append({"hardware_id": row["hardware_id"], "model_id": row["model_id"], "workload": row["workload"],
                    "precision": row["precision"], "spec_decoding": spec, "framework": row["framework"],
                    "interactivity_tok_per_s_per_user": x, "measured_tok_per_s_per_gpu": meas,
                    "projected_tok_per_s_per_gpu": proj,
                    "error_frac": (proj / meas - 1.0) if np.isfinite(proj) else -1.0,
                    "match": "frontier at measured interactivity"})
    return pd.DataFrame(out), pd.DataFrame(left)


def raw_mi355x_rows() -> pd.DataFrame:
    """Return the MI355X gpt-oss 8 + 8 raw points projected at their configuration."""
    files = sorted(glob.glob(str(RAW / "*.json")))
    if not files:
        print(f"raw MI355X files not found under {RAW}: left out")
        return pd.DataFrame()
    meas = pd.concat([tk.read_inferencex(f, hardware="mi355x") for f in files]).sort_values("concurrency")
    prec = best_practice_precisions("gpt-oss-120b", "mi355x")
    plan = ServingPlan(
        prefill=Pool(hardware="mi355x", config=ServingConfig(tp=8, ep=8, **prec), num_gpus=8),
        decode=Pool(hardware="mi355x", config=ServingConfig(tp=8, ep=8, **prec), num_gpus=8),
    )
    conc = meas["concurrency"].to_numpy(dtype=float)
    proj = plan_points("gpt-oss-120b", plan, conc, isl_tokens=1024.0, osl_tokens=1024.0, tco_usd_per_gpu_hour=1.0)
    return pd.DataFrame({
        "hardware_id": "mi355x", "model_id": "gpt-oss-120b", "workload": "1k/1k", "precision": "mxfp4",
        "spec_decoding": "none", "framework": "vllm-disagg", "concurrency": conc,
        "interactivity_tok_per_s_per_user": meas["interactivity_tok_per_s_per_user"].to_numpy(dtype=float),
        "projected_interactivity_tok_per_s_per_user": proj["interactivity_tok_per_s_per_user"].to_numpy(),
        "measured_tok_per_s_per_gpu": meas["throughput_tok_per_s_per_gpu"].to_numpy(dtype=float),
        "projected_tok_per_s_per_gpu": proj["throughput_tok_per_s_per_gpu"].to_numpy(),
        "measured_ttft_s": meas["ttft_median_s"].to_numpy(dtype=float),
        "projected_ttft_s": proj["ttft_s"].to_numpy(),
        "error_frac": proj["throughput_tok_per_s_per_gpu"].to_numpy()
        / meas["throughput_tok_per_s_per_gpu"].to_numpy(dtype=float) - 1.0,
        "match": "8 + 8 GPUs, TP8 per role, measured concurrency",
    })


def raw_layout_sensitivity() -> pd.DataFrame:
    """Median error of the raw MI355X points under other decode/prefill layouts (not the headline)."""
    files = sorted(glob.glob(str(RAW / "*.json")))
    if not files:
        return pd.DataFrame()
    meas = pd.concat([tk.read_inferencex(f, hardware="mi355x") for f in files]).sort_values("concurrency")
    conc = meas["concurrency"].to_numpy(dtype=float)
    prec = best_practice_precisions("gpt-oss-120b", "mi355x")
    rows = []
    for name, cfg in (("TP8 + EP8 (headline)", ServingConfig(tp=8, ep=8, **prec)),
                      ("TP8, DP-attention, EP8", ServingConfig(tp=8, ep=8, dp_attention=True, **prec)),
                      ("4 x TP2", ServingConfig(tp=2, ep=2, **prec)),
                      ("8 x TP1", ServingConfig(tp=1, **prec))):
        plan = ServingPlan(prefill=Pool(hardware="mi355x", config=cfg, num_gpus=8),
                           decode=Pool(hardware="mi355x", config=cfg, num_gpus=8))
        replicas = 8 // cfg.num_gpus
        p = plan_points("gpt-oss-120b", plan, conc / replicas, isl_tokens=1024.0, osl_tokens=1024.0,
                        tco_usd_per_gpu_hour=1.0)
        e = p["throughput_tok_per_s_per_gpu"].to_numpy() / meas["throughput_tok_per_s_per_gpu"].to_numpy(float) - 1
        rows.append({"layout per role": name, "median_abs_error_pct": round(100 * float(np.median(np.abs(e))), 1),
                     "signed_median_pct": round(100 * float(np.median(e)), 1)})
    return pd.DataFrame(rows)


def main() -> None:
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 20)
    ix, left = inferencex_rows()
    raw = raw_mi355x_rows()
    if not left.empty:
        print("Left out (disaggregated rows of measured_points.csv):")
        print(left.to_string(index=False))
        print()
    cols = ["hardware_id", "model_id", "workload", "precision", "spec_decoding", "interactivity_tok_per_s_per_user",
            "measured_tok_per_s_per_gpu", "projected_tok_per_s_per_gpu", "error_frac"]
    print("InferenceX Dynamo disaggregated points (same hardware both pools, projected disaggregated frontier):")
    print(ix[cols].round(3).to_string(index=False))
    if not raw.empty:
        print()
        print("MI355X gpt-oss-120b 1k/1k, 8 prefill + 8 decode GPUs (matched configuration and concurrency):")
        rc = ["concurrency", "interactivity_tok_per_s_per_user", "projected_interactivity_tok_per_s_per_user",
              "measured_ttft_s", "projected_ttft_s", "measured_tok_per_s_per_gpu", "projected_tok_per_s_per_gpu",
              "error_frac"]
        print(raw[rc].round(3).to_string(index=False))
        print()
        print("Sensitivity to the unrecorded layout of the MI355X run (the headline keeps TP8 per role, chosen")
        print("before comparing: one worker per 8-GPU node):")
        print(raw_layout_sensitivity().to_string(index=False))
    allp = pd.concat([ix, raw], ignore_index=True)
    err = allp["error_frac"].abs().to_numpy(dtype=float)
    print()
    for name, part in (("InferenceX Dynamo", ix), ("MI355X raw 8+8", raw)):
        if not part.empty:
            e = part["error_frac"].abs().to_numpy(dtype=float)
            print(f"{name}: median abs error {100 * np.median(e):.1f} % (n={len(e)}), "
                  f"signed median {100 * np.median(part['error_frac']):+.1f} %")
    within = int((err <= GOAL_MEDIAN_ABS_ERROR_FRAC).sum())
    print(f"points within {100 * GOAL_MEDIAN_ABS_ERROR_FRAC:.0f} %: {within} of {len(err)}; "
          f"goal: median <= {100 * GOAL_MEDIAN_ABS_ERROR_FRAC:.0f} %")
    print(f"disagg median abs error {100 * np.median(err):.1f} % (n={len(err)})")


if __name__ == "__main__":
    main()
