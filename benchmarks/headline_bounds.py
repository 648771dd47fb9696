"""What bounds each point of the README's headline comparisons (default aggregated projection).

For DeepSeek-R1 and Kimi K2 at 8k/1k and 1k/1k on GB200 NVL72, GB300 NVL72, TPU v7 and
VR200 NVL144: the projected frontier (aggregated search, best-practice precisions) is read at
20, 35, 50, 75 and 100 tok/s/user and at maximum throughput; printed per point are the
throughput per GPU, the configuration, and the share of the decode step spent in each term of
the roofline (compute incl. chunked prefill, HBM reads of weights and KV cache, collectives,
fixed per-step and per-layer cost), the largest of which is what bounds the point; whether the
replica is at its memory capacity (KV cache full); and the cost per million total tokens at 100 %
utilization under the Sep-2026 hyperscaler $/GPU-hour (``published_tco(hw, "2026-09",
"hyperscaler")``).

Run: python benchmarks/headline_bounds.py
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

import tokenomics as tk
from tokenomics.perf import ServingConfig, project_curve, roofline_points, speculative_settings
from tokenomics.perf.calibrate import bundled_calibration

TARGETS = (20.0, 35.0, 50.0, 75.0, 100.0)
SYSTEMS = ("gb200-nvl72", "gb300-nvl72", "tpu-v7", "vr200-nvl144")
CASES = (
    ("deepseek-r1", 8192.0, 1024.0), ("deepseek-r1", 1024.0, 1024.0),
    ("kimi-k2", 8192.0, 1024.0), ("kimi-k2", 1024.0, 1024.0),
)


def _bound(row: pd.Series) -> str:
    """Name the largest term of the decode step; 'capacity' when the KV cache is full too."""
    terms = {
        "compute": row["compute_s"],
        "HBM": row["memory_s"],
        "network": row["comm_s"],
        "fixed": row["overhead_s"],
    }
    # the step takes max(compute, HBM) + network + fixed: the hidden one of compute/HBM is not a bound
    if terms["compute"] >= terms["HBM"]:
        terms.pop("HBM")
    else:
        terms.pop("compute")
    name = max(terms, key=lambda k: terms[k])
    total = row["step_time_s"]
    share = 100.0 * terms[name] / total
    cap = " (KV full)" if row["capacity_limited"] else ""
    return f"{name} {share:.0f}%{cap}"


def _frontier_at(curve: pd.DataFrame, target: float | None) -> pd.Series | None:
    ok = curve if target is None else curve[curve["interactivity_tok_per_s_per_user"] >= target]
    if ok.empty:
        return None
    return ok.loc[ok["throughput_tok_per_s_per_gpu"].idxmax()]


def main() -> None:
    pd.set_option("display.width", 250)
    pd.set_option("display.max_colwidth", 60)
    rows = []
    for model, isl, osl in CASES:
        for hw in SYSTEMS:
            c = project_curve(model, hw, isl_tokens=isl, osl_tokens=osl, search="aggregated")
            usd = tk.published_tco(hw, "2026-09", "hyperscaler").usd_per_gpu_hour
            for target in (*TARGETS, None):
                p = _frontier_at(c, target)
                label = "max" if target is None else f"{target:g}"
                if p is None:
                    rows.append({"case": f"{model} {isl:g}/{osl:g}", "hardware": hw, "tok/s/user": label,
                                 "tok/s/GPU": np.nan, "bound": "unreachable", "config": ""})
                    continue
                thr = float(p["throughput_tok_per_s_per_gpu"])
                rows.append({"case": f"{model} {isl:g}/{osl:g}", "hardware": hw, "tok/s/user": label,
                             "tok/s/GPU": round(thr), "usd_per_mtok": round(usd / (thr * 3600.0) * 1e6, 4),
                             "bound": _step_bound(model, hw, isl, osl, p), "config": p["parallelism"]})
    print(pd.DataFrame(rows).to_string(index=False))


def _step_bound(model: str, hw: str, isl: float, osl: float, p: pd.Series) -> str:
    label = str(p["parallelism"])
    extra: dict[str, object] = {}
    if (atp := re.search(r"-atp(\d+)", label)) is not None:
        extra["attention_tp"] = int(atp.group(1))
    if (mtp := re.search(r"-mtp(\d+)", label)) is not None:
        n = int(mtp.group(1))
        extra.update(mtp_draft_tokens=n, mtp_acceptance_frac=next(
            st.acceptance_frac for st in speculative_settings(model) if st.draft_tokens == n))
    cfg = ServingConfig(
        tp=int(p["tp"]), ep=int(p["ep"]), pp=int(p["pp"]), dp_attention=bool(p["dp_attention"]),
        **_precisions(str(p["config"])), **extra,
    )
    if cfg.label != label:  # the step below must be the projected point's own configuration
        raise ValueError(f"rebuilt configuration {cfg.label!r} differs from the projected {label!r}")
    r = roofline_points(model, hw, [float(p["concurrency"])], isl_tokens=isl, osl_tokens=osl, config=cfg,
                        factors=bundled_calibration().factors_for(hw), check_capacity=False).iloc[0]
    row = pd.Series({"compute_s": r["compute_time_s"], "memory_s": r["memory_time_s"], "comm_s": r["comm_time_s"],
                     "overhead_s": r["overhead_time_s"], "step_time_s": r["step_time_s"],
                     "capacity_limited": bool(p["capacity_limited"])})
    return _bound(row)


def _precisions(label: str) -> dict[str, str]:
    """Precisions from a configuration label such as 'tp8-ep8, experts fp4, dense fp8, KV fp8'."""
    out: dict[str, str] = {}
    for part in label.split(", ")[1:]:
        key, _, value = part.partition(" ")
        field = {"experts": "weight_precision", "weights": "weight_precision", "dense": "dense_weight_precision",
                 "KV": "kv_precision", "compute": "activation_precision"}.get(key)
        if field:
            out[field] = value
    return out


if __name__ == "__main__":
    main()
