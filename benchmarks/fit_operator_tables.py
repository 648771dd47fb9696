"""Fit the bundled operator-efficiency tables (data/perf/) to NVIDIA AIConfigurator's kernel data.

AIConfigurator (https://github.com/ai-dynamo/aiconfigurator, Apache-2.0) ships per-operator
latencies measured on each GPU (``aiconfigurator_core/systems/data/<system>/...``). This script
reads five of its tables and reduces each (system, operator, precision) to a few numbers of a
shape-dependent roofline or a small grid, written to ``data/perf/operator_efficiency.csv``,
``data/perf/collectives.csv`` and ``data/perf/decode_attention.csv`` with their source. The
library reads only those CSV files; it never imports aiconfigurator.

Operator model fitted (log-time least squares, :func:`scipy.optimize.least_squares`):

* dense GEMM ``[M x K] @ [K x N]``::

      t = t0 + max(2 M N K / (R_max x M / (M + M_half)),  bytes / BW)
      bytes = N K b_w + (M K + M N) x 2

  over every shape with ``1024 <= N, K <= 32768`` (the per-rank widths of LLM layers);
* grouped MoE GEMM (gated, 3 matrices; uniform routing, ``tp = 1``, every expert-parallel size
  ``ep`` the table measures, 1-256; the fastest kernel of each shape and ``ep``, as the engine
  picks), per rank, with ``m = tokens x top-k / experts`` tokens per expert, FLOP
  ``6 x hidden x inter x tokens x top-k / ep`` and bytes = the rank's experts touched
  ``(E / ep) (1 - (1 - k/E)^tokens)`` x ``3 x hidden x inter x b_w`` plus the routed activations
  in and out. ``tokens`` is the batch before dispatch. All EP sizes enter one fit: a fit to
  ``ep = 1`` alone overstates the rate of expert-parallel deployments (on B200 and GB200 the
  ``ep = 1`` rows' fastest kernel at 2,048 tokens, a min-latency variant, runs 3.3x the per-rank
  rate measured at ``ep = 8`` on the DeepSeek-R1 shape; 1.3x on B300 without that variant);
* NCCL all-reduce and all-to-all (FP16): ``t = t0 + bus bytes / BW`` per group size, bus bytes
  ``2 (n-1)/n x S`` (all-reduce) and ``(n-1)/n x S`` (all-to-all) of an ``S``-byte message;
* decode attention (generation-phase MLA and GQA kernels, FP8 KV cache, no sliding window): the
  KV-read bandwidth ``batch x context x KV bytes per token / (t - t_min)`` (``t_min`` the table's
  shortest call, its fixed cost) per (context, KV streams) cell, context and streams binned to
  powers of two (streams = sequences for MLA, sequences x KV heads for GQA; MLA rows with at most
  16 query heads per GPU, the TP >= 8 shapes of the MLA models), median over the cell's rows,
  divided by the table's large-work asymptote (95th percentile of the cells), made
  non-decreasing in both context and streams (more work never runs slower per byte) and capped
  to grow at most in proportion to the work (more work never takes less time).

Run only where aiconfigurator is installed (a scratch venv is enough)::

    python3 -m venv /tmp/aic && /tmp/aic/bin/pip install aiconfigurator
    /tmp/aic/bin/python benchmarks/fit_operator_tables.py [--write]
"""

from __future__ import annotations

import argparse
import importlib.metadata
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import least_squares

SYSTEMS = {  # aiconfigurator system -> tokenomics hardware id
    "h100_sxm": "h100-sxm",
    "h200_sxm": "h200-sxm",
    "b200_sxm": "b200",
    "b300_sxm": "b300",
    "gb200": "gb200-nvl72",
    "gb300": "gb300-nvl72",
}
GEMM_DTYPES = {"bfloat16": ("bf16", 2.0), "fp8": ("fp8", 1.0), "nvfp4": ("fp4", 0.5)}
MOE_DTYPES = {"bfloat16": ("bf16", 2.0), "fp8": ("fp8", 1.0), "nvfp4": ("fp4", 0.5),
              "w4a16_mxfp4": ("w4a16", 0.5)}
GEMM_VERSION = "1.3.0rc20"
OUT = Path(__file__).resolve().parents[1] / "data" / "perf"


def _root() -> Path:
    import aiconfigurator_core

    return Path(aiconfigurator_core.__file__).parent / "systems" / "data"


def _fit_roofline(
    m: np.ndarray, flop: np.ndarray, nbytes: np.ndarray, t: np.ndarray
) -> tuple[list[float], float]:
    """Fit log t = log(t0 + max(flop / (R m / (m + mh)), bytes / bw)); return params and rms."""

    def model(x: np.ndarray) -> np.ndarray:
        r, mh, bw, t0 = np.exp(x)
        return t0 + np.maximum(flop / (r * m / (m + mh)), nbytes / bw)

    x0 = np.log([np.quantile(flop / t, 0.95), 64.0, np.quantile(nbytes / t, 0.95), 5e-6])
    sol = least_squares(lambda x: np.log(model(x) / t), x0, loss="soft_l1", f_scale=0.1)
    rms = float(np.sqrt(np.mean(np.log(model(sol.x) / t) ** 2)))
    return np.exp(sol.x).tolist(), rms


def gemm_rows(root: Path) -> list[dict[str, object]]:
    rows = []
    for system, hw in SYSTEMS.items():
        path = root / system / "gemm" / "trtllm" / GEMM_VERSION / "gemm_perf.parquet"
        d = pd.read_parquet(path)
        d = d[d["n"].between(1024, 32768) & d["k"].between(1024, 32768)]
        d = d.groupby(["gemm_dtype", "m", "n", "k"], as_index=False)["latency"].min()
        for dtype, (prec, bw_elem) in GEMM_DTYPES.items():
            g = d[d["gemm_dtype"] == dtype]
            if g.empty:
                continue
            m, n, k = (g[c].to_numpy(dtype=float) for c in ("m", "n", "k"))
            t = g["latency"].to_numpy(dtype=float) * 1e-3  # ms -> s
            flop = 2.0 * m * n * k
            nbytes = n * k * bw_elem + (m * k + m * n) * 2.0
            (r, mh, bw, t0), rms = _fit_roofline(m, flop, nbytes, t)
            table = f"{system}/gemm/trtllm/{GEMM_VERSION}/gemm_perf.parquet ({dtype}, fastest kernel per shape)"
            rows.append(_row(hw, "gemm", prec, r, mh, bw, t0, rms, len(g), table))
    return rows


def moe_rows(root: Path) -> list[dict[str, object]]:
    rows = []
    for system, hw in SYSTEMS.items():
        path = root / system / "moe" / "trtllm" / GEMM_VERSION / "moe_perf.parquet"
        d = pd.read_parquet(path)
        d = d[(d["moe_tp_size"] == 1) & (d["distribution"] == "balanced")]
        # the engine runs the fastest kernel of each shape and EP size (min-latency or CUTLASS)
        keys = ["moe_dtype", "num_tokens", "hidden_size", "inter_size", "topk", "num_experts", "moe_ep_size"]
        d = d.groupby(keys, as_index=False)["latency"].min()
        for dtype, (prec, bw_elem) in MOE_DTYPES.items():
            g = d[d["moe_dtype"] == dtype]
            if g.empty:
                continue
            tok, h, i, k, e, ep = (g[c].to_numpy(dtype=float) for c in keys[1:])
            t = g["latency"].to_numpy(dtype=float) * 1e-3
            flop = 6.0 * h * i * tok * k / ep
            touched = e / ep * (1.0 - (1.0 - k / e) ** tok)
            nbytes = touched * 3.0 * h * i * bw_elem + tok * k / ep * h * 2.0 * 2.0
            m = tok * k / e
            (r, mh, bw, t0), rms = _fit_roofline(m, flop, nbytes, t)
            table = (f"{system}/moe/trtllm/{GEMM_VERSION}/moe_perf.parquet "
                     f"({dtype}, balanced, tp1, ep 1-256, fastest kernel per shape and ep)")
            rows.append(_row(hw, "moe", prec, r, mh, bw, t0, rms, len(g), table))
    return rows


def _row(hw: str, op: str, prec: str, r: float, mh: float, bw: float, t0: float, rms: float, n: int,
         table: str) -> dict[str, object]:
    return {
        "hardware_id": hw,
        "operator": op,
        "precision": prec,
        "max_tflops": round(r / 1e12, 1),
        "half_tokens": round(mh, 2),
        "weight_stream_gb_per_s": round(bw / 1e9, 0),
        "launch_latency_us": round(t0 * 1e6, 2),
        "fit_rms_log": round(rms, 3),
        "points": n,
        "source": f"aiconfigurator-core {VERSION} (Apache-2.0) systems/data/{table}",
    }


def collective_rows(root: Path) -> list[dict[str, object]]:
    rows = []
    for system, hw in SYSTEMS.items():
        versions = sorted((root / system / "comm" / "nccl").iterdir(), key=lambda p: p.name)
        path = versions[-1] / "nccl_perf.parquet"
        d = pd.read_parquet(path)
        d = d[d["nccl_dtype"] == "half"]
        for op, factor in (("all_reduce", 2.0), ("alltoall", 1.0)):
            for n, g in d[d["op_name"] == op].groupby("num_gpus"):
                s = g["message_size"].to_numpy(dtype=float) * 2.0  # FP16 elements -> bytes
                t = g["latency"].to_numpy(dtype=float) * 1e-3
                bus = factor * (n - 1) / n * s

                def model(x: np.ndarray, bus: np.ndarray = bus) -> np.ndarray:
                    return np.exp(x[0]) + bus / np.exp(x[1])

                sol = least_squares(lambda x, t=t, model=model: np.log(model(x) / t),
                                    np.log([1e-5, 3e11]), loss="soft_l1", f_scale=0.1)
                rms = float(np.sqrt(np.mean(np.log(model(sol.x) / t) ** 2)))
                rows.append({
                    "hardware_id": hw,
                    "collective": "all_to_all" if op == "alltoall" else op,
                    "group_size": int(n),
                    "latency_us": round(float(np.exp(sol.x[0])) * 1e6, 2),
                    "bus_bw_gb_per_s": round(float(np.exp(sol.x[1])) / 1e9, 0),
                    "fit_rms_log": round(rms, 3),
                    "points": len(g),
                    "source": f"aiconfigurator-core {VERSION} (Apache-2.0) systems/data/{system}/comm/nccl/"
                              f"{versions[-1].name}/nccl_perf.parquet ({op}, half)",
                })
    return rows


MLA_KV_BYTES_PER_TOKEN = 512 + 64  # DeepSeek-V3 latent (kv_lora_rank) + RoPE key, FP8: 1 B each


def decode_attention_rows(root: Path) -> list[dict[str, object]]:
    rows = []
    for system, hw in SYSTEMS.items():
        import yaml

        peak = float(yaml.safe_load((root.parent / f"{system}.yaml").read_text())["gpu"]["mem_bw"])
        for kind in ("mla", "gqa"):
            if kind == "mla":
                rel = f"{system}/mla/trtllm/{GEMM_VERSION}/generation_mla_perf.parquet"
                d = pd.read_parquet(root / rel)
                d = d[d["kv_cache_dtype"].astype(str).str.contains("fp8") & (d["num_heads"] <= 16)]
                streams = d["batch_size"].to_numpy(dtype=float)
                per_token = np.full(len(d), float(MLA_KV_BYTES_PER_TOKEN))
                what = "fp8 KV, <= 16 heads per GPU"
            else:
                rel = f"{system}/attention/trtllm/{GEMM_VERSION}/generation_attention_perf.parquet"
                d = pd.read_parquet(root / rel)
                d = d[d["kv_cache_dtype"].astype(str).str.contains("fp8") & (d["window_size"] == 0)]
                kvh = d["num_key_value_heads"].to_numpy(dtype=float)
                streams = d["batch_size"].to_numpy(dtype=float) * kvh
                per_token = 2.0 * kvh * d["head_dim"].to_numpy(dtype=float)
                what = "fp8 KV, no sliding window"
            ctx = d["step"].to_numpy(dtype=float) + 1.0
            t = d["latency"].to_numpy(dtype=float) * 1e-3
            t_min = float(t.min())
            keep = (ctx >= 1024) & (t > t_min)
            frac = (d["batch_size"].to_numpy(dtype=float) * ctx * per_token / (t - np.where(keep, t_min, 0.0))
                    / peak)
            cells = pd.DataFrame({
                "c": np.round(np.log2(ctx[keep])), "s": np.round(np.log2(streams[keep])), "f": frac[keep]})
            grid = cells.groupby(["c", "s"])["f"].agg(["median", "size"]).unstack("s")
            med, size = grid["median"], grid["size"]
            asym = float(np.nanpercentile(med.to_numpy(), 95))
            rel_eff = np.minimum(med.to_numpy() / asym, 1.0)
            # more context or more streams never reads slower per byte, and never takes less time:
            # f non-decreasing and growing at most in proportion to the work along each axis
            mono = np.fmax.accumulate(np.fmax.accumulate(np.nan_to_num(rel_eff, nan=0.0), axis=0), axis=1)
            mono = np.round(mono, 3)  # rounded before the caps so that the written values keep them
            c_step, s_step = np.diff(med.index.to_numpy()), np.diff(med.columns.to_numpy())
            for j in range(mono.shape[1] - 1):
                mono[:, j + 1] = np.minimum(mono[:, j + 1], mono[:, j] * 2.0 ** s_step[j])
            for i in range(mono.shape[0] - 1):
                mono[i + 1] = np.minimum(mono[i + 1], mono[i] * 2.0 ** c_step[i])
            for i, c in enumerate(med.index):
                for j, sb in enumerate(med.columns):
                    if np.isnan(rel_eff[i, j]):
                        continue
                    rows.append({
                        "hardware_id": hw,
                        "attention_type": kind,
                        "context_tokens": int(2 ** c),
                        "kv_streams": int(2 ** sb),
                        "kv_read_frac": float(mono[i, j]),
                        "asymptote_frac_of_peak": round(asym, 3),
                        "points": int(size.iloc[i, j]),
                        "source": f"aiconfigurator-core {VERSION} (Apache-2.0) systems/data/{rel} ({what})",
                    })
    return rows


VERSION = importlib.metadata.version("aiconfigurator-core")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="write data/perf/*.csv")
    args = parser.parse_args()
    root = _root()
    ops = pd.DataFrame(gemm_rows(root) + moe_rows(root))
    coll = pd.DataFrame(collective_rows(root))
    attn = pd.DataFrame(decode_attention_rows(root))
    pd.set_option("display.width", 200)
    print(ops.drop(columns="source").to_string(index=False))
    print(coll.drop(columns="source").to_string(index=False))
    print(attn.pivot_table(index=["attention_type", "context_tokens"], columns="kv_streams",
                           values="kv_read_frac", aggfunc="median").round(2).to_string())
    if args.write:
        OUT.mkdir(parents=True, exist_ok=True)
        for frame, name in ((ops, "operator_efficiency.csv"), (coll, "collectives.csv"),
                            (attn, "decode_attention.csv")):
            frame.assign(as_of="2026-12-01").to_csv(OUT / name, index=False)
            print(f"wrote {OUT / name}")


if __name__ == "__main__":
    main()
