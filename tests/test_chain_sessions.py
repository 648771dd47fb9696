"""The evaluation path on session traffic: realized hits priced, own cached-token cost, cost per output Mtok."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tokenomics as tk
from tokenomics.chain import evaluate, session_figures_at
from tokenomics.curves.curve import ThroughputCurve
from tokenomics.perf import ServingConfig, project_session_curve
from tokenomics.workload import workload

CFG = ServingConfig(tp=8, ep=8, weight_precision="fp4", dense_weight_precision="fp8", kv_precision="fp8")


@pytest.fixture(scope="module")
def curve() -> ThroughputCurve:
    pts = project_session_curve("deepseek-r1", "b200", workload("agentic-coding"), configs=CFG,
                                sessions=[1, 4, 8, 16, 24, 32, 48, 64])
    return ThroughputCurve.from_points(pts, allow_mixed_groups=True)


def test_realized_hits_are_priced(curve: ThroughputCurve) -> None:
    lo, hi = curve.interactivity_range
    x = float(lo + 0.02 * (hi - lo))  # near the slow end: many sessions, hits below theoretical
    row = evaluate("deepseek-r1", "b200", workload="agentic-coding", throughput_curve=curve,
                   interactivity_tok_per_s_per_user=x, cost_usd_per_gpu_hour=3.0,
                   input_usd_per_mtok=1.0, cached_input_usd_per_mtok=0.1, output_usd_per_mtok=4.0).iloc[0]
    h, _ = session_figures_at(curve, x)
    w = workload("agentic-coding")
    assert row["theoretical_cache_hit_frac"] == pytest.approx(w.cached_prefix_frac)
    assert row["realized_cache_hit_frac"] == pytest.approx(h)
    assert row["cache_hit_frac"] == pytest.approx(h)
    assert h <= w.cached_prefix_frac
    s = w.input_share_frac
    # blended = s_in ((1 - h) p_in + h p_cached) + (1 - s_in) p_out, by hand
    assert row["blended_price_usd_per_mtok"] == pytest.approx(s * ((1 - h) * 1.0 + h * 0.1) + (1 - s) * 4.0)
    assert row["cost_usd_per_output_mtok"] == pytest.approx(row["cost_usd_per_mtok"] / (1 - s))


def test_gpu_time_split_uses_the_models_own_cached_cost(curve: ThroughputCurve) -> None:
    x = float(np.mean(curve.interactivity_range))
    kw = {"workload": "agentic-coding", "throughput_curve": curve, "interactivity_tok_per_s_per_user": x,
          "cost_usd_per_gpu_hour": 3.0, "cost_split_rule": "gpu_time",
          "prefill_throughput_tok_per_s_per_gpu": 10_000.0, "decode_throughput_tok_per_s_per_gpu": 1_000.0}
    own = evaluate("deepseek-r1", "b200", **kw).iloc[0]
    fixed = evaluate("deepseek-r1", "b200", cached_cost_ratio=0.1, **kw).iloc[0]
    _, ratio = session_figures_at(curve, x)
    assert math.isfinite(ratio)
    assert ratio != pytest.approx(0.1)
    assert own["cached_input_cost_usd_per_mtok"] / own["input_cost_usd_per_mtok"] == pytest.approx(ratio)
    assert fixed["cached_input_cost_usd_per_mtok"] / fixed["input_cost_usd_per_mtok"] == pytest.approx(0.1)


def test_fixed_workload_keeps_the_workload_mix() -> None:
    row = evaluate(None, "b200", workload="8k/1k", throughput_tok_per_s_per_gpu=1000.0, cost_usd_per_gpu_hour=2.0,
                   input_usd_per_mtok=1.0, output_usd_per_mtok=2.0).iloc[0]
    assert row["realized_cache_hit_frac"] == 0.0
    assert row["cost_usd_per_output_mtok"] == pytest.approx(row["cost_usd_per_mtok"] * (8192 + 1024) / 1024)


def test_compare_takes_the_agentic_workload() -> None:
    out = tk.compare("kimi-k2.7", ["mi355x"], workload="agentic-coding", interactivity_tok_per_s_per_user=30.0)
    assert set(out["workload"]) == {"agentic-coding"}
    assert (out["realized_cache_hit_frac"] <= out["theoretical_cache_hit_frac"] + 1e-12).all()


@pytest.mark.parametrize(
    ("model", "hardware", "tp", "concurrency", "hit"),
    [
        # AgentX MI355X Kimi-K2.7 TP8, 16 sessions, CPU-DRAM offload: overall_cache_hit_rate 0.95283
        # (GPU 0.48253 + CPU 0.47029), the run's own file
        ("kimi-k2.7", "mi355x", 8, 16.0, 0.48253 + 0.47029),
        # the TP4 run at 16 sessions: overall 0.87625 (GPU 0.09426 + CPU 0.78199)
        ("kimi-k2.7", "mi355x", 4, 16.0, 0.09426 + 0.78199),
        # early B200 DeepSeek-R1 sweep, TP4, 32 users, offload on: GPU and CPU rates per tier only
        (None, "b200", 4, 32.0, None),
    ],
)
def test_measured_offload_hits_count_every_tier(model, hardware, tp, concurrency, hit) -> None:
    from tokenomics.curves.measured import curves

    model = model or "deepseek-r1"
    workload = "agentic-coding-early" if hardware == "b200" else "agentic-coding"
    pts = curves(model=model, hardware=hardware, kind="measured", workload=workload)
    pts = pts[(pts["kv_offload"] == "dram") & (pts["concurrency"] == concurrency) & (pts["tp"] == tp)]
    assert len(pts) >= 1
    curve = ThroughputCurve.from_points(pts.iloc[[int(np.argmax(pts["throughput_tok_per_s_per_gpu"]))]],
                                        allow_mixed_groups=True)
    row = curve.points.iloc[0]
    if hit is None:  # GPU + CPU tier rates, added by hand
        hit = float(row["gpu_cache_hit_frac"]) + float(row["cpu_cache_hit_frac"])
        assert float(row["cpu_cache_hit_frac"]) > 0.5  # most hits come from host DRAM here
    realized, _ = session_figures_at(curve, float(row["interactivity_tok_per_s_per_user"]))
    assert realized == pytest.approx(hit, abs=1e-5)
    assert realized > float(row["gpu_cache_hit_frac"])


def test_fully_cached_prompts_leave_no_numpy_warnings() -> None:
    # every prompt token a cache hit: the disaggregated decode step behind the mixed step has no
    # prefill pool, so its input throughput per prefill GPU is undefined (it divided by zero)
    import warnings

    wl = tk.Workload(name="all-cached", isl_tokens=50_000, osl_tokens=500, kind="sessions",
                     cached_prefix_frac=1.0, turns_per_session=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        row = tk.evaluate("deepseek-r1", "b200", workload=wl, interactivity_tok_per_s_per_user=50).iloc[0]
    assert row["realized_cache_hit_frac"] == pytest.approx(1.0)
    assert np.isfinite(row["cost_usd_per_mtok"])
    assert row["cost_usd_per_mtok"] > 0
