"""Per-request prefill of a serial agentic run against the projected chunked prefill.

Reads an aiperf per-request record file (``profile_export.jsonl``) of a run whose server held one
sequence at a time (``--max-num-seqs 1``, an AgentX run at concurrency 1), so that a request's
prefill is the time from the later of its arrival and the previous request's end to its first
token. For each profiled request whose conversation turn follows one seen in the file, its new
(uncached) tokens are its prompt minus the previous turn's prompt and output; the projection is
:func:`tokenomics.perf.step.chunked_prefill_time_s` at that prompt and cached prefix (chunks of
8,192 tokens, the server's logged ``max_num_batched_tokens``), with the bundled calibration.

Printed: measured and projected prefill by new-token bin, the fit of the excess (measured -
projected) against prompt length, and its rank correlations with prompt length and new tokens.

The file is not bundled (3 MB). The MI355X Kimi-K2.7 TP4 run at one session:
https://github.com/SemiAnalysisAI/InferenceX/blob/6c128cd22b0c4d1066a9fc70a6ec54eb21bd9343/tp4_sweep_29003473063/agentic_kimik2.7_tp4_conc1_kvnone_fp4_vllm_tp4-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc1_mi355x-amds_01/aiperf_artifacts/profile_export.jsonl

Run: python benchmarks/prefill_per_request.py PROFILE_EXPORT_JSONL [--hardware mi355x --model kimi-k2.7 --tp 4]
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

import numpy as np
from scipy import stats

import tokenomics as tk
from tokenomics.perf import ServingConfig, bundled_calibration
from tokenomics.perf.step import chunked_prefill_time_s

BINS_TOKENS = (0, 100, 1_000, 4_000, 20_000, 1_000_000)


def _records(path: Path) -> list[dict]:
    out = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
            m, x = r["metadata"], r["metrics"]
            out.append({
                "start_s": m["request_start_ns"] / 1e9, "end_s": m["request_end_ns"] / 1e9,
                "phase": m["benchmark_phase"], "key": (m["conversation_id"], m["agent_depth"]),
                "isl": float(x["input_sequence_length"]["value"]),
                "osl": float(x["output_sequence_length"]["value"]),
                "ttft_s": x["time_to_first_token"]["value"] / 1e3,
            })
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"{path}, line {i}: not an aiperf per-request record ({err!r})") from err
    if not out:
        raise ValueError(f"{path}: no records")
    return sorted(out, key=lambda r: r["start_s"])


def serial_prefill(records: list[dict]) -> tuple[list[tuple[float, float, float]], list[tuple[float, float, float]],
                                                float]:
    """Split the requests of a one-sequence-at-a-time server into prefill and decode.

    A request starts service at the later of its arrival and the previous request's end; its
    prefill [s] runs from there to its first token, its decode from the first token to its end.

    Returns
    -------
    (rows, service, idle_frac)
        ``rows``: ``(prompt tokens, new tokens, prefill s)`` of each profiled request whose
        conversation turn follows one seen before (new = prompt minus the previous turn's prompt
        and output; rewritten contexts, new < 0, are left out); ``service``: ``(prefill s,
        decode s, output tokens)`` of every profiled request; ``idle_frac``: share of the
        profiled span with no request in service.
    """
    prev_end: float | None = None
    last: dict[tuple, tuple[float, float]] = {}
    rows: list[tuple[float, float, float]] = []
    service: list[tuple[float, float, float]] = []
    busy_s = 0.0
    span = [np.inf, -np.inf]
    for r in records:
        begin = r["start_s"] if prev_end is None else max(r["start_s"], prev_end)
        measured = r["start_s"] + r["ttft_s"] - begin
        if r["phase"] == "profiling":
            service.append((measured, r["end_s"] - r["start_s"] - r["ttft_s"], r["osl"]))
            busy_s += max(r["end_s"] - begin, 0.0)
            span = [min(span[0], r["start_s"]), max(span[1], r["end_s"])]
        prev_end = r["end_s"] if prev_end is None else max(prev_end, r["end_s"])
        before = last.get(r["key"])
        last[r["key"]] = (r["isl"], r["osl"])
        if r["phase"] != "profiling" or before is None:
            continue
        new = r["isl"] - (before[0] + before[1])
        if new >= 0:
            rows.append((r["isl"], new, measured))
    idle = 1.0 - busy_s / (span[1] - span[0]) if service else float("nan")
    return rows, service, idle


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=Path, help="aiperf profile_export.jsonl of a --max-num-seqs 1 run")
    ap.add_argument("--hardware", default="mi355x")
    ap.add_argument("--model", default="kimi-k2.7")
    ap.add_argument("--tp", type=int, default=4)
    ap.add_argument("--kv-precision", default="bf16")
    args = ap.parse_args()

    hw = tk.hardware(args.hardware)
    factors = bundled_calibration().factors_for(hw)
    cfg = ServingConfig(tp=args.tp, ep=1, weight_precision="fp4", dense_weight_precision="fp8",
                        kv_precision=args.kv_precision)
    rows, service, idle = serial_prefill(_records(args.path))
    if not rows:
        raise SystemExit(f"{args.path}: no profiled request follows a turn of its conversation")
    isl, new, measured = np.asarray(rows, dtype=float).T
    projected = np.array([
        float(chunked_prefill_time_s(args.model, hw, isl_tokens=i, cached_tokens=i - u, config=cfg, factors=factors))
        for i, u in zip(isl, new, strict=True)
    ])
    print(f"{len(isl)} requests; {args.model} on {hw.hardware_id} {cfg.label}, factors: {factors.source}")
    for lo, hi in itertools.pairwise(BINS_TOKENS):
        sel = (new >= lo) & (new < hi)
        if sel.any():
            print(f"new tokens {lo:>6,}-{hi:>9,}: n={int(sel.sum()):3d}  prefill median measured "
                  f"{np.median(measured[sel]):5.2f} s, projected {np.median(projected[sel]):5.2f} s "
                  f"(prompt median {np.median(isl[sel]):,.0f} tokens)")
    excess = measured - projected
    slope, intercept = np.polyfit(isl, excess, 1)
    print(f"excess = {intercept:.3f} s + {slope * 1e6:.2f} us per prompt token x prompt "
          f"(median {np.median(excess / isl) * 1e6:.2f} us per prompt token)")
    print(f"rank correlation of the excess: with prompt tokens {stats.spearmanr(isl, excess).statistic:.2f}, "
          f"with new tokens {stats.spearmanr(new, excess).statistic:.2f}")
    at_mean = float(chunked_prefill_time_s(args.model, hw, isl_tokens=float(isl.mean()),
                                           cached_tokens=float(isl.mean() - new.mean()), config=cfg, factors=factors))
    print(f"mean prefill: measured {measured.mean():.2f} s, projected request by request {projected.mean():.2f} s, "
          f"projected for the mean request {at_mean:.2f} s")
    pre, dec, out = np.asarray(service, dtype=float).T
    print(f"all {len(pre)} profiled requests: prefill mean {pre.mean():.2f} s, median {np.median(pre):.2f} s; "
          f"decode {dec.sum() / np.maximum(out - 1, 0).sum() * 1e3:.1f} ms per output token; "
          f"server idle {idle:.0%} of the profiled span")


if __name__ == "__main__":
    main()
