"""Tests of disaggregated serving plans: rate matching, GPU counts, KV transfer, queueing, cost."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.perf import RooflineFactors, ServingConfig, roofline_points
from tokenomics.perf.disagg import (
    DISAGG_COLUMNS,
    Pool,
    ServingPlan,
    _erlang_c,
    best_prefill_config,
    closed_loop_points,
    decode_configs,
    plan_cost_per_mtok,
    plan_points,
    project_disagg_curve,
    vera_rubin_nvl144_cpx,
)

FP4 = {"weight_precision": "fp4", "dense_weight_precision": "fp8", "kv_precision": "fp8"}
FP8 = {"weight_precision": "fp8", "dense_weight_precision": "fp8", "kv_precision": "fp8"}
FACTORS = RooflineFactors()


def _b200_h200(handover_s: float | None = None, **decode: object) -> ServingPlan:
    extra = {} if handover_s is None else {"kv_handover_latency_s": handover_s}
    return ServingPlan(
        prefill=Pool(hardware="b200", config=ServingConfig(tp=8, ep=8, **FP4)),
        decode=Pool(hardware="h200", config=ServingConfig(tp=8, ep=8, **FP8), **decode),  # type: ignore[arg-type]
        **extra,  # type: ignore[arg-type]
    )


def _points(plan: ServingPlan, conc: list[float], **kw: object) -> pd.DataFrame:
    args: dict[str, object] = {"isl_tokens": 8192.0, "osl_tokens": 1024.0, "prefill_factors": FACTORS,
                               "decode_factors": FACTORS, "tco_usd_per_gpu_hour": {"b200": 3.0, "h200": 2.0}}
    args.update(kw)
    return plan_points("deepseek-r1", plan, conc, **args)  # type: ignore[arg-type]


def test_every_denominator_uses_its_own_pool() -> None:
    # total / all GPUs, input / prefill GPUs, output / decode GPUs (one dashboard divided by the
    # wrong count and doubled its cost per token)
    pts = _points(_b200_h200(num_gpus=16), [8.0, 64.0])
    r = pts["requests_per_s"]
    assert np.allclose(pts["num_gpus"], pts["num_prefill_gpus"] + 16)
    assert np.allclose(pts["throughput_tok_per_s_per_gpu"] * pts["num_gpus"], (8192 + 1024) * r)
    assert np.allclose(pts["input_throughput_tok_per_s_per_gpu"] * pts["num_prefill_gpus"], 8192 * r)
    assert np.allclose(pts["output_throughput_tok_per_s_per_gpu"] * 16, 1024 * r)


def test_decode_rate_is_the_replica_rate_times_replicas() -> None:
    plan = _b200_h200(num_gpus=24)
    pts = _points(plan, [32.0])
    one = roofline_points("deepseek-r1", "h200", [32.0], isl_tokens=8192.0, osl_tokens=1024.0,
                          config=plan.decode.config, factors=FACTORS)
    assert pts["requests_per_s"].iloc[0] == pytest.approx(3 * one["requests_per_s"].iloc[0])
    assert pts["tpot_s"].iloc[0] == pytest.approx(one["tpot_s"].iloc[0])


def test_prefill_pool_is_the_smallest_that_keeps_up() -> None:
    plan = _b200_h200(num_gpus=64)
    pts = _points(plan, [16.0, 64.0, 96.0])
    u_max = plan.prefill_max_utilization_frac
    g = pts["prefill_gpu_s_per_request"]
    assert (pts["prefill_utilization_frac"] <= u_max + 1e-12).all()
    # one replica (8 GPUs) fewer would exceed the cap
    fewer = pts["num_prefill_gpus"] - 8
    over = pts["requests_per_s"] * g / fewer.where(fewer > 0)
    assert ((over > u_max) | fewer.le(0)).all()
    assert np.allclose(pts["prefill_decode_ratio"], pts["num_prefill_gpus"] / 64)


def test_cached_prefix_charges_only_uncached_tokens() -> None:
    plan = _b200_h200(num_gpus=16)
    full = _points(plan, [8.0])["prefill_gpu_s_per_request"].iloc[0]
    half = _points(plan, [8.0], isl_tokens=4096.0)["prefill_gpu_s_per_request"].iloc[0]
    cached = _points(plan, [8.0], cached_tokens=4096.0)["prefill_gpu_s_per_request"].iloc[0]
    # G(8192) - G(4096): linear FLOPs of the new half plus its attention over the whole context
    assert cached == pytest.approx(full - half)
    assert half < cached < full


def test_kv_transfer_hand_calculation() -> None:
    # DeepSeek-R1 MLA cache in the FlashMLA FP8 layout: 61 layers x (512 FP8 latent + 4 FP32
    # scales + 64 BF16 RoPE values) = 61 x 656 bytes per token
    kv = 61 * (512 + 4 * 4 + 64 * 2) * 8192.0
    pts = _points(_b200_h200(num_gpus=16), [8.0])
    assert pts["kv_bytes_per_request"].iloc[0] == pytest.approx(kv)
    # 8 B200 NICs and 8 H200 NICs of 50 GB/s, at 80 % of line rate
    assert pts["kv_transfer_s"].iloc[0] == pytest.approx(kv / (8 * 50e9 * 0.8))
    # plus the fixed handover: 197 ms p50 handover of which 29 ms is the transfer (vLLM NIXL,
    # github.com/vllm-project/vllm issue 50913)
    assert np.allclose(pts["kv_handover_s"], 0.197 - 0.029)
    ttft = pts["prefill_queue_s"] + pts["prefill_time_s"] + pts["kv_transfer_s"] + 0.168
    assert np.allclose(pts["ttft_s"], ttft)


def test_handover_latency_adds_to_ttft_only() -> None:
    base = _points(_b200_h200(num_gpus=16), [8.0, 64.0])
    slow = _points(_b200_h200(0.5, num_gpus=16), [8.0, 64.0])
    none = _points(_b200_h200(0.0, num_gpus=16), [8.0, 64.0])
    assert np.allclose(slow["ttft_s"] - none["ttft_s"], 0.5)
    assert np.allclose(base["ttft_s"] - none["ttft_s"], 0.168)
    # an open-loop plan's rates and pools do not depend on it
    for col in ("requests_per_s", "num_prefill_gpus", "throughput_tok_per_s_per_gpu", "tpot_s"):
        assert np.allclose(slow[col], none[col])
    assert (slow["e2e_interactivity_tok_per_s_per_user"] < none["e2e_interactivity_tok_per_s_per_user"]).all()


def test_handover_latency_slows_a_closed_loop_below_saturation() -> None:
    # C = R x TTFT + decode sequences: 1 s more TTFT per request at the same C leaves fewer
    # requests decoding, so the rate falls by R x 1 s worth of requests in flight
    kw: dict[str, object] = {"isl_tokens": 8192.0, "osl_tokens": 1024.0, "prefill_factors": FACTORS,
                             "decode_factors": FACTORS}
    fast = closed_loop_points("deepseek-r1", _fixed(handover_s=0.0), [64.0], **kw)  # type: ignore[arg-type]
    slow = closed_loop_points("deepseek-r1", _fixed(handover_s=1.0), [64.0], **kw)  # type: ignore[arg-type]
    assert slow["ttft_s"].iloc[0] - fast["ttft_s"].iloc[0] == pytest.approx(1.0, abs=0.02)
    assert slow["requests_per_s"].iloc[0] < fast["requests_per_s"].iloc[0]
    inflight = slow["requests_per_s"] * (slow["ttft_s"] + 1024.0 * slow["tpot_s"])
    assert np.allclose(inflight, 64.0, rtol=0.01)


@pytest.mark.parametrize("value", [-0.01, 168.0, float("nan")])
def test_implausible_handover_latency_names_the_field(value: float) -> None:
    # 168 is the default given in milliseconds: a unit slip
    plan = _b200_h200(num_gpus=16)
    with pytest.raises(ValueError, match="kv_handover_latency_s"):
        ServingPlan(prefill=plan.prefill, decode=plan.decode, kv_handover_latency_s=value)


def test_erlang_c_hand_values() -> None:
    # M/M/1: P(wait) = rho; M/M/2 at a = 1 Erlang: (a^2 / (2 (1 - a/2))) / (1 + a + that) = 1/3
    got = _erlang_c(np.array([1.0, 2.0]), np.array([0.5, 1.0]))
    assert got == pytest.approx([0.5, 1.0 / 3.0])


def test_erlang_c_matches_the_textbook_sum_for_large_pools() -> None:
    from fractions import Fraction
    from math import factorial

    def exact(c: int, a: Fraction) -> float:
        # C = (A^c / c!) c / (c - A) / (sum_{k<c} A^k / k! + (A^c / c!) c / (c - A)), in exact rationals
        top = a**c / factorial(c) * Fraction(c) / (c - a)
        return float(top / (sum(a**k / factorial(k) for k in range(c)) + top))

    cases = [(1, Fraction(1, 2)), (5, Fraction(9, 2)), (50, Fraction(40)), (400, Fraction(380)), (400, Fraction(200))]
    got = _erlang_c(np.array([float(c) for c, _ in cases]), np.array([float(a) for _, a in cases]))
    assert got == pytest.approx([exact(c, a) for c, a in cases], rel=1e-9, abs=1e-300)


def test_queueing_grows_with_prefill_load() -> None:
    plan = ServingPlan(prefill=Pool(hardware="b200", config=ServingConfig(tp=8, ep=8, **FP4), num_gpus=64),
                       decode=Pool(hardware="h200", config=ServingConfig(tp=8, ep=8, **FP8), num_gpus=64))
    pts = _points(plan, [8.0, 64.0, 96.0])
    assert pts["prefill_queue_s"].is_monotonic_increasing
    assert pts["prefill_utilization_frac"].is_monotonic_increasing


def test_cost_uses_each_pool_tco() -> None:
    pts = _points(_b200_h200(num_gpus=16), [64.0])
    n_p, n_d = pts["num_prefill_gpus"].iloc[0], 16.0
    assert pts["cost_usd_per_gpu_hour"].iloc[0] == pytest.approx((3.0 * n_p + 2.0 * n_d) / (n_p + n_d))
    # cost per Mtok = pool dollars per hour / million tokens per hour
    tokens_per_h = pts["requests_per_s"].iloc[0] * (8192 + 1024) * 3600
    expected = (3.0 * n_p + 2.0 * n_d) / tokens_per_h * 1e6
    assert plan_cost_per_mtok(pts).iloc[0] == pytest.approx(expected)
    assert plan_cost_per_mtok(pts, 0.5).iloc[0] == pytest.approx(2 * expected)


def test_default_pool_tco_comes_from_the_catalog() -> None:
    pts = _points(_b200_h200(num_gpus=16), [8.0], tco_usd_per_gpu_hour=None)
    assert pts["prefill_cost_usd_per_gpu_hour"].iloc[0] == pytest.approx(tk.tco("b200").usd_per_gpu_hour)
    assert pts["decode_cost_usd_per_gpu_hour"].iloc[0] == pytest.approx(tk.tco("h200").usd_per_gpu_hour)


@pytest.mark.parametrize("count", [0, -8])
def test_pool_without_gpus_is_refused(count: int) -> None:
    with pytest.raises(ValueError, match="num_gpus"):
        Pool(hardware="h200", config=ServingConfig(tp=8), num_gpus=count)


def test_pool_size_must_be_whole_replicas() -> None:
    with pytest.raises(ValueError, match="multiple of its replica size"):
        Pool(hardware="h200", config=ServingConfig(tp=8), num_gpus=12)


def test_unknown_hardware_names_close_matches() -> None:
    with pytest.raises(KeyError, match="h200"):
        Pool(hardware="h2000")


def test_unmatched_rates_raise_instead_of_falling_back() -> None:
    plan = ServingPlan(prefill=Pool(hardware="b200", config=ServingConfig(tp=8, ep=8, **FP4), num_gpus=8),
                       decode=Pool(hardware="h200", config=ServingConfig(tp=8, ep=8, **FP8), num_gpus=64))
    with pytest.raises(ValueError, match=r"rates cannot be matched.*num_gpus=8"):
        _points(plan, [96.0])


def test_hardware_without_scaleout_bandwidth_is_named() -> None:
    plan = ServingPlan(prefill=Pool(hardware="h800", config=ServingConfig(tp=8, ep=8, **FP8)),
                       decode=Pool(hardware="h200", config=ServingConfig(tp=8, ep=8, **FP8)))
    with pytest.raises(ValueError, match="scaleout_bw_unidir_gb_per_s"):
        plan_points("deepseek-r1", plan, [8.0], isl_tokens=8192.0)


def test_prefill_hardware_too_small_is_named() -> None:
    plan = ServingPlan(prefill=Pool(hardware="rubin-cpx", config=ServingConfig(**FP4)),
                       decode=Pool(hardware="vr200", config=ServingConfig(tp=8, ep=8, **FP4)))
    with pytest.raises(ValueError, match="usable"):
        plan_points("deepseek-r1", plan, [8.0], isl_tokens=8192.0)


def test_out_of_range_inputs() -> None:
    with pytest.raises(ValueError, match="cached_tokens"):
        _points(_b200_h200(num_gpus=16), [8.0], cached_tokens=8192.0)
    with pytest.raises(ValueError, match="prefill_max_utilization_frac"):
        ServingPlan(prefill=Pool(hardware="b200"), decode=Pool(hardware="h200"), prefill_max_utilization_frac=80)
    with pytest.raises(ValueError, match="utilization_frac"):
        plan_cost_per_mtok(_points(_b200_h200(num_gpus=16), [8.0]), 0.0)


def test_cpx_prefill_needs_several_cards_for_deepseek() -> None:
    cfg = best_prefill_config("deepseek-r1", "rubin-cpx", isl_tokens=8192.0)
    assert cfg.num_gpus >= 4  # ~350 GB of FP4/FP8 weights over 128 GB GDDR7 cards
    assert cfg.disaggregated


def test_nvl144_cpx_rack_plan() -> None:
    plan = vera_rubin_nvl144_cpx("deepseek-r1")
    assert plan.prefill.hardware == "rubin-cpx"
    assert plan.decode.hardware == "vr200-nvl144"
    assert plan.prefill.num_gpus is not None
    assert 144 - plan.prefill.config.num_gpus < plan.prefill.num_gpus <= 144
    assert plan.decode.num_gpus == 72


@pytest.mark.parametrize(("prefill", "decode"), [("rubin-cpx", "vr200"), ("b200", "h200"), ("gb300", "gb200")])
def test_heterogeneous_pairs_project(prefill: str, decode: str) -> None:
    c = project_disagg_curve("deepseek-r1", prefill, decode, isl_tokens=8192.0, speculative=False, frontier=True)
    assert len(c) > 3
    assert c["disaggregated"].all()
    assert (c["kind"] == "projected").all()
    assert np.isfinite(c["throughput_tok_per_s_per_gpu"].astype(float)).all()
    assert c["config"].str.contains("prefill").all()
    assert c["config"].str.contains("decode").all()
    assert set(DISAGG_COLUMNS) <= set(c.columns)


def test_speculative_decoding_in_the_decode_search() -> None:
    cfgs = decode_configs("deepseek-r1", "gb300", **FP4)
    assert {(c.mtp_draft_tokens, c.mtp_acceptance_frac) for c in cfgs} >= {(0, 0.0), (1, 0.85), (3, 0.7)}
    assert {c.mtp_draft_tokens for c in decode_configs("llama-3.3-70b", "h200")} == {0}


def test_default_search_is_the_envelope_of_aggregated_disaggregated_and_mtp() -> None:
    from tokenomics.perf import SEARCH_RULE, project_curve

    kw = {"isl_tokens": 8192.0, "osl_tokens": 1024.0}
    pts = project_curve("deepseek-r1", "gb300", **kw)
    dis = pts["disaggregated"].astype(bool)
    assert dis.any()
    assert (~dis).any()
    assert set(pts["spec_decoding"]) == {"none", "mtp"}
    assert pts.attrs["search_rule"] == SEARCH_RULE
    # every row states its configuration: pools and GPU counts, speculative setting
    assert pts.loc[dis, "config"].str.contains("prefill gb300-nvl72 .* decode", regex=True).all()
    assert np.allclose(pts.loc[dis, "num_gpus"], pts.loc[dis, "num_prefill_gpus"] + pts.loc[dis, "num_decode_gpus"])
    mtp = pts["spec_decoding"] == "mtp"
    assert pts.loc[mtp, "note"].str.contains("MTP").all()
    # fast tokens: without MTP a GB300 rack barely serves 100 tok/s/user; with it, many times more
    full = tk.ThroughputCurve.from_points(pts, allow_mixed_groups=True)
    plain = tk.ThroughputCurve.from_points(project_curve("deepseek-r1", "gb300", search="aggregated", **kw),
                                           allow_mixed_groups=True)
    assert float(full.throughput_at(100.0)) > 5 * float(plain.throughput_at(100.0))
    assert float(full.throughput_at(20.0)) >= float(plain.throughput_at(20.0))


def test_cheapest_at_prices_aggregated_rows_at_their_tco() -> None:
    from tokenomics.perf import cheapest_at

    pts = pd.DataFrame({
        "hardware_id": ["h200-sxm", "h200-sxm", "b200+h200-sxm"],
        "interactivity_tok_per_s_per_user": [20.0, 60.0, 60.0],
        "throughput_tok_per_s_per_gpu": [3000.0, 1000.0, 1200.0],
        "cost_usd_per_gpu_hour": [np.nan, np.nan, 2.5],
    })
    got = cheapest_at(pts, [10.0, 50.0, 100.0], utilization_frac=0.5, tco_usd_per_gpu_hour={"h200": 2.0})
    # 2 $/h / (3000 tok/s x 3600 s x 0.5) x 1e6
    assert got["cost_usd_per_mtok"].iloc[0] == pytest.approx(2.0 / (3000 * 3600 * 0.5) * 1e6)
    # at 50: aggregated 2.0/1000 beats the plan's 2.5/1200
    assert got["cost_usd_per_mtok"].iloc[1] == pytest.approx(2.0 / (1000 * 3600 * 0.5) * 1e6)
    assert np.isnan(got["cost_usd_per_mtok"].iloc[2])


def test_cheapest_at_refuses_no_targets_and_no_points() -> None:
    from tokenomics.perf import cheapest_at

    pts = pd.DataFrame({"hardware_id": ["h200-sxm"], "interactivity_tok_per_s_per_user": [20.0],
                        "throughput_tok_per_s_per_gpu": [3000.0], "cost_usd_per_gpu_hour": [2.0]})
    with pytest.raises(ValueError, match="interactivity_tok_per_s_per_user is empty"):
        cheapest_at(pts, [])
    with pytest.raises(ValueError, match="points is empty"):
        cheapest_at(pts.iloc[:0], [10.0])


def test_prefill_work_is_exactly_quadratic_in_the_cached_tokens() -> None:
    from tokenomics.perf.disagg import _Prefill, _prefill_work

    cfg = ServingConfig(tp=8, ep=8, disaggregated=True, **FP4)
    hw = tk.hardware("b200")
    fit = _Prefill.build(tk.model("deepseek-r1"), hw, cfg, 32768.0, 0.0, 0.9, FACTORS)
    direct, _ = _prefill_work(tk.model("deepseek-r1"), hw, cfg, 32768.0, 10_000.0, FACTORS)
    assert fit.at(np.asarray([10_000.0]))[0][0] == pytest.approx(direct, rel=1e-6)


def test_realized_hits_fall_with_sessions_and_rise_with_the_prefill_pool() -> None:
    # 100k-token contexts: a TP8 B200 prefill replica's KV capacity holds ~27 of them
    kw = {"isl_tokens": 100_000.0, "osl_tokens": 1000.0, "theoretical_hit_frac": 0.95, "tco_usd_per_gpu_hour": 2.0}
    small = ServingPlan(prefill=Pool(hardware="b200", config=ServingConfig(tp=8, ep=8, **FP4), num_gpus=40),
                        decode=Pool(hardware="b200", config=ServingConfig(tp=8, ep=8, **FP4), num_gpus=64))
    big = small.model_copy(update={"prefill": small.prefill.model_copy(update={"num_gpus": 48})})
    a = _points(small, [8.0, 16.0], **kw)
    b = _points(big, [16.0], **kw)
    assert (a["cache_hit_frac"] <= 0.95 + 1e-12).all()
    assert a["cache_hit_frac"].iloc[1] < a["cache_hit_frac"].iloc[0]
    assert b["cache_hit_frac"].iloc[0] > a["cache_hit_frac"].iloc[1]
    assert (a["theoretical_cache_hit_frac"] == 0.95).all()
    # at 24 sessions per decode replica the small pool's cache collapses and it cannot keep up
    with pytest.raises(ValueError, match="rates cannot be matched"):
        _points(small, [24.0], **kw)
    with pytest.raises(ValueError, match="not both"):
        _points(small, [2.0], cached_tokens=1000.0, **kw)


def test_evaluation_path_prices_each_pool_at_its_own_tco() -> None:
    from tokenomics.analysis.plans import evaluate_plan
    from tokenomics.chain import resolve_tco

    pts = _points(_b200_h200(num_gpus=16), [16.0, 64.0], tco_usd_per_gpu_hour=None)
    rows = evaluate_plan("deepseek-r1", pts, workload="8k/1k", utilization_frac=0.6, license_fee_frac=0.3)
    basis = resolve_tco(None)
    c_p, c_d = basis.tco(tk.hardware("b200")).usd_per_gpu_hour, basis.tco(tk.hardware("h200")).usd_per_gpu_hour
    n_p = pts["num_prefill_gpus"].to_numpy()
    dollars_per_h = n_p * c_p + 16 * c_d
    tokens_per_h = pts["requests_per_s"].to_numpy() * (8192 + 1024) * 3600 * 0.6
    np.testing.assert_allclose(rows["cost_usd_per_mtok"], dollars_per_h / tokens_per_h * 1e6)
    np.testing.assert_allclose(rows["prefill_cost_usd_per_gpu_hour"], c_p)
    assert (rows["hardware_id"] == "b200+h200-sxm").all()
    assert (rows["tco_basis"] == basis.kind).all()
    # margin = 1 - fee - cost / price (no royalty or fixed fee)
    np.testing.assert_allclose(rows["gross_margin_frac"],
                               1 - 0.3 - rows["cost_usd_per_mtok"] / rows["blended_price_usd_per_mtok"])
    with pytest.raises(ValueError, match="plan supplies"):
        evaluate_plan("deepseek-r1", pts, cost_usd_per_gpu_hour=2.0)


def _fixed(prefill_gpus: int = 8, decode_gpus: int = 8, handover_s: float = 0.168) -> ServingPlan:
    return ServingPlan(prefill=Pool(hardware="b200", config=ServingConfig(tp=8, ep=8, **FP4), num_gpus=prefill_gpus),
                       decode=Pool(hardware="b200", config=ServingConfig(tp=8, ep=8, dp_attention=True, **FP4),
                                   num_gpus=decode_gpus), kv_handover_latency_s=handover_s)


def test_closed_loop_obeys_littles_law() -> None:
    conc = np.asarray([16.0, 256.0, 1024.0])
    pts = closed_loop_points("deepseek-r1", _fixed(), conc, isl_tokens=8192.0, osl_tokens=1024.0,
                             prefill_factors=FACTORS, decode_factors=FACTORS)
    # requests in flight = rate x (TTFT + OSL x TPOT)
    inflight = pts["requests_per_s"] * (pts["ttft_s"] + 1024.0 * pts["tpot_s"])
    assert np.allclose(inflight, conc, rtol=0.01)
    assert (pts["throughput_tok_per_s_per_gpu"] == 9216.0 * pts["requests_per_s"] / 16.0).all()
    assert pts["requests_per_s"].is_monotonic_increasing


def test_closed_loop_saturates_at_the_smaller_pool() -> None:
    # one 8-GPU prefill replica for four decode replicas: the prefill pool limits the rate, its
    # queue (TTFT) absorbs the requests in flight, and the rate stays below its capacity
    plan = _fixed(prefill_gpus=8, decode_gpus=32)
    pts = closed_loop_points("deepseek-r1", plan, [2048.0, 8192.0], isl_tokens=8192.0, osl_tokens=1024.0,
                             prefill_factors=FACTORS, decode_factors=FACTORS)
    g = float(plan_points("deepseek-r1", plan.model_copy(update={"prefill": Pool(
        hardware="b200", config=plan.prefill.config)}), [1.0], isl_tokens=8192.0, osl_tokens=1024.0,
        prefill_factors=FACTORS, decode_factors=FACTORS, tco_usd_per_gpu_hour=1.0)["prefill_gpu_s_per_request"].iloc[0])
    assert (pts["requests_per_s"] <= 8.0 / g * (1 + 1e-6)).all()
    assert pts["requests_per_s"].iloc[1] == pytest.approx(8.0 / g, rel=0.01)
    assert (pts["bound"] == "prefill").all()
    assert pts["ttft_s"].iloc[1] > pts["ttft_s"].iloc[0]


def test_closed_loop_decode_slots_cap_the_batch() -> None:
    pts = closed_loop_points("deepseek-r1", _fixed(prefill_gpus=64), [4096.0], isl_tokens=1024.0,
                             osl_tokens=1024.0, max_batch_per_replica=256, prefill_factors=FACTORS,
                             decode_factors=FACTORS)
    assert pts["decode_batch_per_replica"].iloc[0] == pytest.approx(256.0, rel=1e-3)
    assert pts["bound"].iloc[0] == "decode slots"
    # the 3840 requests without a slot wait: TTFT = their count / rate at least (equal when the
    # whole queue is the slot wait, so up to the bisection's rounding)
    assert pts["ttft_s"].iloc[0] >= (4096.0 - 256.0) / pts["requests_per_s"].iloc[0] * (1.0 - 1e-6)


def test_closed_loop_needs_fixed_pools_and_positive_inputs() -> None:
    free = ServingPlan(prefill=Pool(hardware="b200", config=ServingConfig(tp=8, ep=8, **FP4)),
                       decode=Pool(hardware="b200", config=ServingConfig(tp=8, ep=8, **FP4), num_gpus=8))
    with pytest.raises(ValueError, match="num_gpus"):
        closed_loop_points("deepseek-r1", free, [64.0])
    with pytest.raises(ValueError, match="concurrency"):
        closed_loop_points("deepseek-r1", _fixed(), [0.0])
    with pytest.raises(ValueError, match="max_batch_per_replica"):
        closed_loop_points("deepseek-r1", _fixed(), [64.0], max_batch_per_replica=0)


def test_decode_pool_factors_price_kernels_at_measured_rates() -> None:
    from tokenomics.perf.calibrate import bundled_calibration
    from tokenomics.perf.disagg import decode_pool_factors

    hw = tk.hardware("gb200")
    base = bundled_calibration().factors_for(hw)
    f = decode_pool_factors("gb200")
    assert f.operator_tables
    assert (f.compute_eff_frac, f.comm_eff_frac) == (1.0, 1.0)
    # memory efficiency and fixed costs stay the calibration's
    assert (f.hbm_bandwidth_eff_frac, f.step_overhead_s, f.layer_latency_s) == (
        base.hbm_bandwidth_eff_frac, base.step_overhead_s, base.layer_latency_s)
    # an option: the default plan prices both pools with the calibration
    plan = ServingPlan(prefill=Pool(hardware="gb200", config=ServingConfig(tp=4, ep=4, **FP4)),
                       decode=Pool(hardware="gb200", config=ServingConfig(tp=8, ep=8, dp_attention=True, **FP4)))
    default = plan_points("deepseek-r1", plan, [256.0], isl_tokens=8192.0, tco_usd_per_gpu_hour=1.0)
    explicit = plan_points("deepseek-r1", plan, [256.0], isl_tokens=8192.0, tco_usd_per_gpu_hour=1.0,
                           prefill_factors=base, decode_factors=base)
    pd.testing.assert_frame_equal(default, explicit)
    kernels = plan_points("deepseek-r1", plan, [256.0], isl_tokens=8192.0, tco_usd_per_gpu_hour=1.0,
                          decode_factors=f)
    assert not np.isclose(kernels["tpot_s"].iloc[0], default["tpot_s"].iloc[0])


@pytest.mark.parametrize(
    ("model", "hardware", "kw"),
    [("qwen3-235b-a22b", "b200", {"isl_tokens": 8192.0, "osl_tokens": 4.0}),  # NICs cap most sweeps
     ("deepseek-r1", "h200", {"workload": "agentic-coding"})],  # realized prefix-cache hits
)
def test_stacked_decode_search_equals_one_plan_at_a_time(model: str, hardware: str, kw: dict[str, object]) -> None:
    from tokenomics.perf import DEFAULT_CONCURRENCY, best_practice_precisions, bundled_calibration, max_concurrency
    from tokenomics.perf.disagg import _prefill_work, prefill_configs

    m, hw = tk.model(model), tk.hardware(hardware)
    f = bundled_calibration().factors_for(hw)
    precisions = best_practice_precisions(m, hw)
    got = project_disagg_curve(m, hw, hw, with_cost=False, **kw)  # type: ignore[arg-type]
    isl, osl = float(got["isl_tokens"].iloc[0]), float(got["osl_tokens"].iloc[0])
    hit = None if "workload" not in kw else float(got["theoretical_cache_hit_frac"].iloc[0])
    # the prefill replica: fewest accelerator-seconds per request (ties within 2 %: lowest
    # latency), each candidate timed alone
    cfg_p = best_prefill_config(m, hw, isl_tokens=isl, factors=f)
    scored = []
    for c in prefill_configs(m, hw, isl_tokens=isl, **precisions):
        try:
            scored.append((*_prefill_work(m, hw, c, isl, 0.0, f), c))
        except ValueError:
            continue
    g_min = min(s[0] for s in scored)
    assert cfg_p == min((s for s in scored if s[0] <= 1.02 * g_min), key=lambda s: s[1])[2]
    cfgs = decode_configs(m, hw, **precisions)
    assert len({c.model_copy(update={"disaggregated": True}).label for c in cfgs}) == len(cfgs)
    capped = 0
    for cfg in cfgs:
        plan = ServingPlan(prefill=Pool(hardware=hw, config=cfg_p), decode=Pool(hardware=hw, config=cfg))
        rows = got[got["decode_config"] == plan.decode.config.label]
        if rows.empty:
            continue
        b_max = max_concurrency(m, hw, isl_tokens=isl, osl_tokens=osl, config=plan.decode.config, factors=f)
        conc = rows["concurrency"].to_numpy(float) * cfg.num_gpus / rows["num_decode_gpus"].to_numpy(float)
        args: dict[str, object] = {"isl_tokens": isl, "osl_tokens": osl, "theoretical_hit_frac": hit,
                                   "prefill_factors": f, "decode_factors": f, "tco_usd_per_gpu_hour": 1.0}
        want = plan_points(m, plan, conc, **args)  # type: ignore[arg-type]
        for col in ["throughput_tok_per_s_per_gpu", "interactivity_tok_per_s_per_user", "ttft_s", "num_gpus",
                    "cache_hit_frac", "prefill_queue_s", "kv_transfer_load_frac"]:
            mine = rows[{"ttft_s": "ttft_median_s"}.get(col, col)].to_numpy(float)
            np.testing.assert_array_equal(mine, want[col].to_numpy(float))
        if conc[-1] < b_max:  # the decode NICs cap the sweep: the next grid point overloads them
            capped += 1
            nxt = min(c for c in [*DEFAULT_CONCURRENCY, b_max] if c > conc[-1])
            with pytest.raises(ValueError, match="decode pool of"):
                plan_points(m, plan, [nxt], **args)  # type: ignore[arg-type]
    assert capped > 0 if "osl_tokens" in kw else capped == 0


def test_default_search_takes_the_handover_latency() -> None:
    kw: dict[str, object] = {"isl_tokens": 8192.0, "osl_tokens": 1024.0, "speculative": False, "factors": FACTORS,
                             "tco_usd_per_gpu_hour": 2.0}
    base = project_disagg_curve("deepseek-r1", "b200", "b200", **kw)  # type: ignore[arg-type]
    fast = project_disagg_curve("deepseek-r1", "b200", "b200", kv_handover_latency_s=0.036, **kw)  # type: ignore[arg-type]
    assert np.allclose(base["ttft_median_s"] - fast["ttft_median_s"], 0.168 - 0.036)
    assert np.allclose(fast["kv_handover_s"], 0.036)
    assert np.allclose(base["throughput_tok_per_s_per_gpu"], fast["throughput_tok_per_s_per_gpu"])
    with pytest.raises(ValueError, match="kv_handover_latency_s"):
        project_disagg_curve("deepseek-r1", "b200", "b200", kv_handover_latency_s=36.0, **kw)  # type: ignore[arg-type]


def test_scalar_concurrency_is_one_point_per_configuration() -> None:
    one = project_disagg_curve("deepseek-r1", "b200", "b200", isl_tokens=8192.0, concurrency=16.0, with_cost=False)
    listed = project_disagg_curve("deepseek-r1", "b200", "b200", isl_tokens=8192.0, concurrency=[16.0],
                                  with_cost=False)
    pd.testing.assert_frame_equal(one, listed, check_exact=True)
    assert one["config"].is_unique
