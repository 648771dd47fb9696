"""Compare the roofline with NVIDIA AIConfigurator on the same measured configuration points.

Run only where AIConfigurator is installed (not part of the test suite); its command-line tool is
found on ``PATH`` or given by ``AICONFIGURATOR``::

    python3 -m venv /tmp/aic && /tmp/aic/bin/pip install aiconfigurator
    AICONFIGURATOR=/tmp/aic/bin/aiconfigurator python benchmarks/compare_aiconfigurator.py

Points: the bundled measured points of known parallelism and concurrency (aggregated serving,
no speculative decoding) on systems and models AIConfigurator covers. For each, ``aiconfigurator
cli estimate`` is run at the same parallelism, batch (concurrency per attention-DP rank),
ISL/OSL, engine and weight format, and its ``tokens/s/gpu`` (output tokens) is compared with the
measured throughput (converted to the point's measure); the roofline's figure is its
leave-one-hardware-out projection at the same configuration and concurrency. Printed: the table
and both median absolute errors.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd

import tokenomics as tk
from tokenomics.perf import calibrate

SYSTEMS = {"h100-sxm": "h100_sxm", "h200-sxm": "h200_sxm", "b200": "b200_sxm", "b300": "b300_sxm",
           "gb200-nvl72": "gb200", "gb300-nvl72": "gb300"}
MODELS = {"deepseek-r1": "deepseek-ai/DeepSeek-R1", "gpt-oss-120b": "openai/gpt-oss-120b",
          "llama-3.3-70b": "meta-llama/Meta-Llama-3.1-70B", "minimax-m2.5": "MiniMaxAI/MiniMax-M2.5",
          "kimi-k2.5": "moonshotai/Kimi-K2.5", "glm-5": "zai-org/GLM-5-FP8",
          "qwen3.5-397b-a17b": "Qwen/Qwen3.5-397B-A17B"}
BF16_CHECKPOINTS = ("qwen3.5-397b-a17b",)
"""Models whose named checkpoint is BF16: an FP8 point is estimated with block-scaled FP8 GEMMs."""
MXFP4_CHECKPOINTS = ("gpt-oss-120b",)
"""Models whose named checkpoint is already FP4 (MXFP4): AIConfigurator infers its kernels."""
BACKENDS = {"trt": "trtllm", "sglang": "sglang", "vllm": "vllm"}


def _aic() -> str | None:
    return os.environ.get("AICONFIGURATOR") or shutil.which("aiconfigurator")


def _estimate(exe: str, point: pd.Series, measured: pd.Series) -> tuple[float, float] | None:
    """Return AIConfigurator's (output tok/s/GPU, tok/s/user) at the point's configuration."""
    tp = int(measured["tp"])
    ep = int(measured["ep"]) if pd.notna(measured["ep"]) and measured["ep"] >= 1 else 1  # 0: no expert parallelism
    replicas = max(int(measured["num_gpus"]) // tp, 1) if pd.notna(measured["num_gpus"]) else 1
    conc = float(point["concurrency"]) / replicas
    dpa = bool(measured["dp_attention"]) if pd.notna(measured["dp_attention"]) else False
    args: list[str] = [exe, "cli", "estimate", "--model-path", MODELS[point["model_id"]],
            "--system", SYSTEMS[point["hardware_id"]], "--backend", BACKENDS[str(point["framework"])],
            "--isl", str(int(measured["isl_tokens"])), "--osl", str(int(measured["osl_tokens"])),
            "--estimate-mode", "agg", "--no-color"]
    prec = str(measured["precision"]).lower()
    if prec == "fp4" and point["model_id"] not in MXFP4_CHECKPOINTS:
        args += ["--moe-quant-mode", "nvfp4", "--kvcache-quant-mode", "fp8"]
    elif prec == "fp8" and point["model_id"] in BF16_CHECKPOINTS:
        args += ["--gemm-quant-mode", "fp8_block", "--moe-quant-mode", "fp8_block", "--kvcache-quant-mode", "fp8"]
    if dpa:
        layouts = [["--tp-size", "1", "--attention-dp-size", str(tp), "--moe-tp-size", "1", "--moe-ep-size", str(tp),
                    "--batch-size", str(max(round(conc / tp), 1))]]
    else:
        layout = ["--tp-size", str(tp), "--attention-dp-size", "1", "--batch-size", str(max(round(conc), 1))]
        layouts = [[*layout, "--moe-tp-size", str(tp // ep), "--moe-ep-size", str(ep)]]
        if ep == 1 and tp > 1:  # block-quantised experts that TP cannot split evenly: expert-parallel instead
            layouts.append([*layout, "--moe-tp-size", "1", "--moe-ep-size", str(tp)])
    for extra in layouts:
        run = subprocess.run(args + extra, capture_output=True, text=True, timeout=300, check=False)
        if "Invalid quantized MoE configuration" not in run.stdout + run.stderr:
            break
    gpu = re.search(r"tokens/s/gpu:\s*([\d,.]+)", run.stdout)
    user = re.search(r"tokens/s/user:\s*([\d,.]+)", run.stdout)
    if run.returncode or gpu is None or user is None:
        tail = (run.stderr or run.stdout).strip().splitlines()[-1:] or [""]
        print(f"  aiconfigurator failed on row {point['row']}: {tail[0][:150]}")
        return None
    return float(gpu.group(1).replace(",", "")), float(user.group(1).replace(",", ""))


def main() -> None:
    exe = _aic()
    if exe is None:
        sys.exit("aiconfigurator not found: install it (a scratch venv is enough) and set AICONFIGURATOR")
    points = tk.perf.calibration_points()
    cal = calibrate(holdout=True)
    assert cal.holdout is not None
    held = cal.holdout
    cand = held[(held["kind"] == "config") & held["hardware_id"].isin(list(SYSTEMS))
                & held["model_id"].isin(list(MODELS)) & held["framework"].astype(str).isin(list(BACKENDS))
                & (held["spec_decoding"].isna() | held["spec_decoding"].astype(str).str.lower().isin(["none", ""]))]
    rows = []
    for _, p in cand.iterrows():
        m = points.loc[int(p["row"])]
        got = _estimate(exe, p, m)
        if got is None:
            continue
        out_gpu, user = got
        osl, isl = float(m["osl_tokens"]), float(m["isl_tokens"])
        aic = out_gpu if p["measure"] == "output_throughput_tok_per_s_per_gpu" else out_gpu * (isl + osl) / osl
        rows.append({
            "hardware": p["hardware_id"], "model": p["model_id"], "engine": p["framework"],
            "config": p["parallelism"], "concurrency": p["concurrency"],
            "measured": round(float(p["measured_tok_per_s_per_gpu"])),
            "aiconfigurator": round(aic),
            "roofline_held_out": round(float(p["projected_at_concurrency_tok_per_s_per_gpu"])),
            "aic_err_pct": round(100 * (aic / p["measured_tok_per_s_per_gpu"] - 1), 1),
            "roofline_err_pct": round(100 * float(p["error_at_concurrency_frac"]), 1),
            "aic_tok_per_s_per_user": round(user, 1),
            "measured_tok_per_s_per_user": round(float(p["interactivity_tok_per_s_per_user"]), 1),
        })
    table = pd.DataFrame(rows)
    pd.set_option("display.width", 220)
    print(table.to_string(index=False))
    if table.empty:
        print("no point could be compared")
        return
    aic = float(np.median(np.abs(table["aic_err_pct"])))
    ours = float(np.median(np.abs(table["roofline_err_pct"])))
    by_model = table.assign(aic=table["aic_err_pct"].abs(), ours=table["roofline_err_pct"].abs()).groupby("model")
    print(by_model[["aic", "ours"]].median().round(1).assign(points=by_model.size()).to_string())
    print(f"median abs throughput error at matched configuration: aiconfigurator {aic:.1f} %, "
          f"roofline (held out) {ours:.1f} % (n={len(table)})")


if __name__ == "__main__":
    main()
