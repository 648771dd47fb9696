"""Property tests of the roofline physics: monotonicity in bandwidth, batch and precision."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenomics as tk
from tests.properties import strategies as strat
from tokenomics.perf import RooflineFactors, ServingConfig, decode_step_time_s, roofline_points

MODELS = ["llama-3.3-70b", "deepseek-r1", "qwen3-235b-a22b", "gpt-oss-120b"]
HARDWARE = ["h100", "h200", "b200", "gb200-nvl72", "mi355x", "tpu-v7"]
FACTORS = RooflineFactors()
STEP_CASE = {"model": st.sampled_from(MODELS), "hw": st.sampled_from(HARDWARE), "tp": st.sampled_from([4, 8]),
             "dpa": st.booleans(), "batch": strat.batch_sizes}
"""Strategies of one decode step: model, hardware, TP, DP-attention, batch [sequences]."""


def _config(model: str, tp: int, dpa: bool) -> ServingConfig:
    m = tk.model(model)
    return ServingConfig(tp=tp, ep=tp if m.is_moe else 1, dp_attention=dpa and m.is_moe,
                         weight_precision="fp8", kv_precision="fp8")


def _step_8k_1k(model: str, hw: str, tp: int, dpa: bool, batch: float, factors: RooflineFactors) -> float:
    """Decode step time at 8k/1k, aggregated."""
    return decode_step_time_s(model, hw, batch, config=_config(model, tp, dpa), factors=factors,
                              isl_tokens=8192.0, osl_tokens=1024.0)


@settings(max_examples=strat.examples(40), deadline=None)
@given(
    **STEP_CASE,
    sequential=st.booleans(),
)
def test_attention_bounded_apart_is_never_faster(model: str, hw: str, tp: int, dpa: bool, batch: float,
                                                 sequential: bool) -> None:
    # max(a, b) + max(c, d) >= max(a + c, b + d): splitting one roofline into two never gains
    one = FACTORS.model_copy(update={"sequential_prefill": sequential, "split_attention": False})
    two = one.model_copy(update={"split_attention": True})
    assert _step_8k_1k(model, hw, tp, dpa, batch, two) >= _step_8k_1k(model, hw, tp, dpa, batch, one) * (1 - 1e-12)


@settings(max_examples=strat.examples(40), deadline=None)
@given(
    **STEP_CASE,
    kv_eff=st.floats(0.05, 1.0),
    split=st.booleans(),
)
def test_slower_kv_reads_are_never_faster(model: str, hw: str, tp: int, dpa: bool, batch: float, kv_eff: float,
                                          split: bool) -> None:
    full = FACTORS.model_copy(update={"kv_read_eff_frac": 1.0, "split_attention": split})
    slow = full.model_copy(update={"kv_read_eff_frac": kv_eff})
    assert _step_8k_1k(model, hw, tp, dpa, batch, slow) >= _step_8k_1k(model, hw, tp, dpa, batch, full) * (1 - 1e-12)


@settings(max_examples=strat.examples(40), deadline=None)
@given(
    **STEP_CASE,
    scale=strat.growth_factors,
)
def test_more_bandwidth_is_never_slower(model: str, hw: str, tp: int, dpa: bool, batch: float, scale: float) -> None:
    base = tk.hardware(hw)
    faster = base.with_values(hbm_bandwidth_tb_per_s=base.hbm_bandwidth_tb_per_s * scale)
    cfg = _config(model, tp, dpa)
    slow = decode_step_time_s(model, base, batch, config=cfg, factors=FACTORS)
    fast = decode_step_time_s(model, faster, batch, config=cfg, factors=FACTORS)
    assert fast <= slow * (1 + 1e-12)


@settings(max_examples=strat.examples(40), deadline=None)
@given(
    model=st.sampled_from(MODELS),
    hw=st.sampled_from(HARDWARE),
    tp=st.sampled_from([4, 8]),
    dpa=st.booleans(),
    isl=st.sampled_from([256.0, 1024.0, 8192.0]),
    disagg=st.booleans(),
)
def test_larger_batch_raises_throughput_and_lowers_interactivity(
    model: str, hw: str, tp: int, dpa: bool, isl: float, disagg: bool
) -> None:
    cfg = _config(model, tp, dpa).model_copy(update={"disaggregated": disagg})
    try:
        limit = tk.max_concurrency(model, hw, isl_tokens=isl, osl_tokens=1024.0, config=cfg, factors=FACTORS)
    except ValueError:
        return  # the weights do not fit this replica
    if limit < 2:
        return
    grid = np.unique(np.geomspace(1.0, limit, 12).round())
    pts = roofline_points(model, hw, grid, isl_tokens=isl, osl_tokens=1024.0, config=cfg, factors=FACTORS)
    assert np.all(np.diff(pts["throughput_tok_per_s_per_gpu"]) > 0)
    assert np.all(np.diff(pts["interactivity_tok_per_s_per_user"]) < 0)


@settings(max_examples=strat.examples(30), deadline=None)
@given(model=st.sampled_from(MODELS), batch=st.floats(1.0, 64.0))
def test_narrower_weights_never_slower(model: str, batch: float) -> None:
    m = tk.model(model)
    steps = [
        decode_step_time_s(m, "b200", batch, config=ServingConfig(tp=8, ep=8 if m.is_moe else 1, weight_precision=p),
                           factors=FACTORS)
        for p in ("bf16", "fp8", "fp4")
    ]
    assert steps[0] >= steps[1] >= steps[2]


ALL_MODELS = list(tk.catalog.model_table().index)
ALL_HARDWARE = list(tk.catalog.hardware_table().index)


@settings(max_examples=strat.examples(60), deadline=None)
@given(model=st.sampled_from(ALL_MODELS), hw=st.sampled_from(ALL_HARDWARE))
def test_best_practice_precisions_never_widen_weights_and_match_the_hardware(model: str, hw: str) -> None:
    from tokenomics.perf import best_practice_precisions
    from tokenomics.precision import bytes_per_element

    m, h = tk.model(model), tk.hardware(hw)
    p = best_practice_precisions(m, h)
    weights = p["weight_precision"] or m.native_weight_precision
    # stored expert weights are never wider than the checkpoint, nor wider than FP8 where FP8 exists
    assert bytes_per_element(weights) <= bytes_per_element(m.native_weight_precision)
    if h.fp8_dense_tflops is not None:
        assert bytes_per_element(weights) <= 1.0
    # FP4 chosen only on FP4 hardware
    if weights in ("fp4", "nvfp4") and p["weight_precision"] is not None:
        assert h.fp4_dense_tflops is not None
    # KV cache FP8 exactly where the hardware has an FP8 rate
    assert p["kv_precision"] == ("fp8" if h.fp8_dense_tflops is not None else "bf16")
    # weights kept narrower than the hardware computes are multiplied in BF16
    if p["weight_precision"] is None:
        assert p["activation_precision"] == "bf16"
