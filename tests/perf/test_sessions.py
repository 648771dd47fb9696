"""Session (agentic) projection: cached prefill, KV-bounded concurrency, realized hits."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.perf import (
    RooflineFactors,
    ServingConfig,
    cached_token_cost_ratio,
    decode_step_time_s,
    kv_capacity_tokens,
    prefill_time_s,
    project_session_curve,
    roofline_points,
    session_points,
)
from tokenomics.perf.step import chunked_prefill_time_s
from tokenomics.workload import Workload, workload

CFG = ServingConfig(tp=8, ep=8, weight_precision="fp4", dense_weight_precision="fp8", kv_precision="fp8")
IDEAL = RooflineFactors.ideal()


def test_kv_capacity_by_hand() -> None:
    # DeepSeek-R1 on 8 x B200, FP8 MLA cache replicated on every rank (no DP attention):
    # 61 layers x 656 B = 40,016 B/token per GPU; capacity = (usable HBM - weights) / 40,016
    import tokenomics as tk
    from tokenomics.perf import weight_bytes_per_gpu

    hw = tk.hardware("b200")
    usable = hw.hbm_capacity_bytes * IDEAL.usable_hbm_frac
    expected = (usable - weight_bytes_per_gpu("deepseek-r1", "b200", config=CFG)) / 40_016
    assert kv_capacity_tokens("deepseek-r1", "b200", config=CFG, factors=IDEAL) == pytest.approx(expected, rel=1e-3)


def test_cached_prefill_computes_only_new_tokens() -> None:
    # ideal factors, compute-bound: FLOP(ISL=8k, 7k cached) = linear x 1k + attention x (1k x 7k + 1k x 1001 / 2)
    full = prefill_time_s("deepseek-r1", "b200", isl_tokens=8192.0, config=CFG, factors=IDEAL)
    part = prefill_time_s("deepseek-r1", "b200", isl_tokens=8192.0, config=CFG, factors=IDEAL, cached_tokens=7168.0)
    alone = prefill_time_s("deepseek-r1", "b200", isl_tokens=1024.0, config=CFG, factors=IDEAL)
    assert alone < part < full
    zero = prefill_time_s("deepseek-r1", "b200", isl_tokens=8192.0, config=CFG, factors=IDEAL, cached_tokens=0.0)
    assert zero == pytest.approx(full)


def test_decode_reads_full_context_whatever_is_cached() -> None:
    a = roofline_points("deepseek-r1", "b200", [4.0], isl_tokens=8192.0, osl_tokens=512.0, config=CFG,
                        factors=IDEAL, cached_tokens=0.0, check_capacity=False)
    b = roofline_points("deepseek-r1", "b200", [4.0], isl_tokens=8192.0, osl_tokens=512.0, config=CFG,
                        factors=IDEAL, cached_tokens=8000.0, check_capacity=False)
    # cached prompts add only their KV read to the step's memory traffic, never remove decode reads
    assert b["kv_bytes_per_gpu"].iloc[0] >= a["kv_bytes_per_gpu"].iloc[0]
    assert b["ttft_s"].iloc[0] < a["ttft_s"].iloc[0]
    assert b["throughput_tok_per_s_per_gpu"].iloc[0] > a["throughput_tok_per_s_per_gpu"].iloc[0]


def test_cached_tokens_out_of_range_raises() -> None:
    with pytest.raises(ValueError, match="cached_tokens"):
        prefill_time_s("deepseek-r1", "b200", isl_tokens=1000.0, config=CFG, cached_tokens=2000.0)
    with pytest.raises(ValueError, match="cached_tokens"):
        roofline_points("deepseek-r1", "b200", [1.0, 2.0], config=CFG, cached_tokens=[1.0, 2.0, 3.0])


def test_session_points_hits_fall_and_concurrency_is_kv_bounded() -> None:
    w = workload("agentic-coding")
    pts = session_points("deepseek-r1", "b200", [1.0, 4.0, 16.0, 64.0, 256.0], w, config=CFG)
    hits = pts["realized_cache_hit_frac"].to_numpy()
    assert hits[0] == pytest.approx(w.cached_prefix_frac, abs=1e-6)
    assert np.all(np.diff(hits) <= 1e-12)
    assert hits[-1] < 0.01
    cap = pts["kv_capacity_tokens"].iloc[0]
    assert np.all(pts["concurrency"] <= cap / (w.isl_tokens + w.osl_tokens) + 1e-9)
    assert bool(pts["kv_limited"].iloc[-1])
    assert np.all(pts["ttft_s"] >= pts["prefill_s"])
    assert pts["queue_wait_s"].iloc[-1] > 0


def test_idle_gaps_lower_the_in_flight_batch() -> None:
    base = Workload(name="s", isl_tokens=50_000, osl_tokens=500, kind="sessions", cached_prefix_frac=0.9)
    idle = base.model_copy(update={"idle_s_between_turns": 60.0})
    a = session_points("deepseek-r1", "b200", 8.0, base, config=CFG)
    b = session_points("deepseek-r1", "b200", 8.0, idle, config=CFG)
    assert a["concurrency"].iloc[0] == pytest.approx(8.0)
    assert b["concurrency"].iloc[0] < 8.0
    assert b["interactivity_tok_per_s_per_user"].iloc[0] > a["interactivity_tok_per_s_per_user"].iloc[0]


def test_aggregated_step_overlaps_linear_prefill_and_serialises_long_context() -> None:
    # one session, no idle gap, TPOT-bound closed loop: every step decodes the batch with its
    # share B / OSL of one request's chunked prefill. The prompts' linear layers run inside the
    # step's matrix multiplies (the aggregated step of roofline_points, prefill attention removed);
    # their long-context attention, prefix re-reads and MLA up-projection run after the decode
    # kernels. TTFT = the prefill plus the decode of the batch in each of its ceil(u / C) chunk steps
    from tokenomics.perf.step import _mixed_step_linear_prefill_s, _prefill_context_s, _resolve

    w = Workload(name="s", isl_tokens=80_000, osl_tokens=2_000, kind="sessions", cached_prefix_frac=0.9)
    pts = session_points("deepseek-r1", "b200", 1.0, w, config=CFG, factors=IDEAL)
    b = float(pts["concurrency"].iloc[0])
    cached = 80_000 * float(pts["realized_cache_hit_frac"].iloc[0])
    t_decode = decode_step_time_s("deepseek-r1", "b200", b, isl_tokens=80_000, osl_tokens=2_000,
                                  config=CFG.model_copy(update={"disaggregated": True}), factors=IDEAL)
    t_prefill = chunked_prefill_time_s("deepseek-r1", "b200", isl_tokens=80_000, cached_tokens=cached, config=CFG,
                                       factors=IDEAL)
    s = _resolve("deepseek-r1", "b200", CFG, IDEAL)
    t_mixed = float(_mixed_step_linear_prefill_s(s, np.array([b]), 80_000.0, 2_000.0, np.array([cached]))[0])
    t_context = float(_prefill_context_s(s, 80_000.0, np.array([cached]), 8192.0)[0])
    t_step = t_mixed + b / 2_000 * t_context
    assert pts["tpot_s"].iloc[0] == pytest.approx(t_step, rel=1e-9)
    # bounds: no faster than the decode step with the long-context share, no slower than decode
    # and the whole prefill share run one after the other
    assert t_decode + b / 2_000 * t_context <= t_step <= t_decode + b / 2_000 * t_prefill
    assert t_context < t_prefill
    assert pts["requests_per_s"].iloc[0] == pytest.approx(b / (2_000 * t_step), rel=1e-9)
    assert pts["ttft_s"].iloc[0] == pytest.approx(t_prefill + np.ceil((80_000 - cached) / 8192) * t_decode, rel=1e-6)
    assert pts["throughput_tok_per_s_per_gpu"].iloc[0] == pytest.approx(82_000 * b / (2_000 * t_step) / 8, rel=1e-9)


@pytest.mark.parametrize(("isl", "osl", "rtol"), [(1024, 1024, 0.05), (1843, 140, 0.17), (8192, 1024, 0.40)])
def test_uncached_sessions_cost_what_the_same_fixed_traffic_costs(isl: int, osl: int, rtol: float) -> None:
    # sessions without a cached prefix are the fixed-sequence traffic of the same ISL/OSL: at the
    # same batch the step differs only in how the prompt's attention is priced. The session model
    # runs MLA prefill attention in its per-head BF16 form after the decode kernels (the engine's
    # path at long context), the fixed-sequence step keeps it inside its compute at the KV
    # precision: under 1 % at 1k-token prompts, ~14 % at 1843/140 and ~33 % at 8k with 256
    # sequences under the bundled GB200 factors (the lower the HBM efficiency, the more prompt
    # FLOPs the fixed-sequence step hides under its weight reads)
    import tokenomics as tk
    from tokenomics.perf import bundled_calibration

    hw = tk.hardware("gb200-nvl72")
    f = bundled_calibration().factors_for(hw)
    cfg = ServingConfig(tp=8, ep=8, weight_precision="fp4", dense_weight_precision="fp8", kv_precision="fp8",
                        dp_attention=True)
    w = Workload(name="s", isl_tokens=isl, osl_tokens=osl, kind="sessions", cached_prefix_frac=0.0)
    batch = np.array([16.0, 64.0, 256.0])
    fixed = roofline_points("deepseek-r1", hw, batch, isl_tokens=isl, osl_tokens=osl, config=cfg, factors=f)
    sess = session_points("deepseek-r1", hw, batch, w, config=cfg, factors=f)
    np.testing.assert_allclose(sess["concurrency"], batch)
    np.testing.assert_allclose(sess["tpot_s"], fixed["tpot_s"], rtol=rtol)
    assert np.all(sess["tpot_s"].to_numpy() >= fixed["tpot_s"].to_numpy() * (1 - 1e-9))


def test_dp_attention_ttft_is_the_requests_own_latency() -> None:
    dpa = ServingConfig(tp=8, ep=8, dp_attention=True, weight_precision="fp4", kv_precision="fp8")
    w = Workload(name="s", isl_tokens=80_000, osl_tokens=2_000, kind="sessions", cached_prefix_frac=0.9)
    pts = session_points("deepseek-r1", "b200", 1.0, w, config=dpa, factors=IDEAL)
    cached = 80_000 * float(pts["realized_cache_hit_frac"].iloc[0])
    t_decode = decode_step_time_s("deepseek-r1", "b200", float(pts["concurrency"].iloc[0]), isl_tokens=80_000,
                                  osl_tokens=2_000, config=dpa.model_copy(update={"disaggregated": True}),
                                  factors=IDEAL)
    own = chunked_prefill_time_s("deepseek-r1", "b200", isl_tokens=80_000, cached_tokens=cached, config=dpa,
                                 factors=IDEAL, latency=True)
    cost = chunked_prefill_time_s("deepseek-r1", "b200", isl_tokens=80_000, cached_tokens=cached, config=dpa,
                                  factors=IDEAL)
    assert own > 2 * cost
    assert pts["ttft_s"].iloc[0] == pytest.approx(own + np.ceil((80_000 - cached) / 8192) * t_decode, rel=1e-6)


def test_smaller_prefill_chunks_cost_throughput_at_saturation() -> None:
    w = workload("agentic-coding")
    big = session_points("deepseek-r1", "b200", 256.0, w, config=CFG, prefill_chunk_tokens=65_536.0)
    small = session_points("deepseek-r1", "b200", 256.0, w, config=CFG, prefill_chunk_tokens=2_048.0)
    assert small["throughput_tok_per_s_per_gpu"].iloc[0] < big["throughput_tok_per_s_per_gpu"].iloc[0]
    with pytest.raises(ValueError, match="prefill_chunk_tokens"):
        session_points("deepseek-r1", "b200", 4.0, w, config=CFG, prefill_chunk_tokens=0.0)


def test_fixed_workload_is_refused() -> None:
    with pytest.raises(ValueError, match="kind='sessions'"):
        session_points("deepseek-r1", "b200", 4.0, workload("8k/1k"), config=CFG)


def test_cached_token_cost_ratio_is_small_and_model_specific() -> None:
    r = cached_token_cost_ratio("deepseek-r1", "b200", isl_tokens=100_000.0, cached_frac=0.95, config=CFG)
    assert 0.0 < r < 0.1
    with pytest.raises(ValueError, match="cached_frac"):
        cached_token_cost_ratio("deepseek-r1", "b200", isl_tokens=1e5, cached_frac=1.0, config=CFG)


def test_project_session_curve_schema() -> None:
    c = project_session_curve("kimi-k2.7", "b200", workload("agentic-coding"), sessions=[1.0, 8.0, 64.0],
                              configs=ServingConfig(tp=8, ep=8, weight_precision="fp4", kv_precision="fp8"))
    assert set(c["workload"]) == {"agentic-coding"}
    assert {"theoretical_cache_hit_frac", "realized_cache_hit_frac", "cached_cost_ratio",
            "ttft_median_s", "interactivity_tok_per_s_per_user"} <= set(c.columns)
    assert (c["realized_cache_hit_frac"] <= c["theoretical_cache_hit_frac"] + 1e-12).all()


def test_default_session_search_adds_the_published_mtp_settings() -> None:
    # DeepSeek-R1 has published MTP acceptance (tokenomics.perf.speculative_settings): the default
    # search carries each setting beside no speculation, as project_curve's does; explicit
    # configurations are taken as given
    from tokenomics.perf import speculative_settings

    assert speculative_settings("deepseek-r1")
    c = project_session_curve("deepseek-r1", "b200", "agentic-coding")
    assert set(c["spec_decoding"]) == {"none", "mtp"}
    one = project_session_curve("deepseek-r1", "b200", "agentic-coding", configs=CFG)
    assert set(one["spec_decoding"]) == {"none"}
    assert not speculative_settings("kimi-k2.7")
    assert set(project_session_curve("kimi-k2.7", "b200", "agentic-coding")["spec_decoding"]) == {"none"}


def test_default_sessions_follow_the_kv_capacity() -> None:
    from tokenomics.perf import DEFAULT_SESSIONS, default_sessions

    # up to the first count at least twice the contexts held, at least to 512
    assert default_sessions(17.0).tolist() == [c for c in DEFAULT_SESSIONS if c <= 512]
    assert default_sessions(700.0).tolist() == [c for c in DEFAULT_SESSIONS if c <= 1536]
    assert default_sessions(1e9).tolist() == list(DEFAULT_SESSIONS)
    with pytest.raises(ValueError, match="capacity_sessions"):
        default_sessions(0.0)
    # a rack-scale replica holds thousands of ~100k-token sessions: the sweep goes past 512
    c = project_session_curve("deepseek-r1", "gb200-nvl72", "agentic-coding",
                              configs=ServingConfig(tp=64, ep=64, dp_attention=True, weight_precision="fp4",
                                                    dense_weight_precision="fp8", kv_precision="fp8"))
    held = float(c["kv_capacity_tokens"].iloc[0]) / (c["isl_tokens"].iloc[0] + c["osl_tokens"].iloc[0])
    assert held > 512
    assert c["concurrency"].max() > 512
    assert c["concurrency"].tolist() == default_sessions(held).tolist()


def test_a_session_context_no_single_domain_replica_holds_is_served_across_pipeline_stages():
    # as project_curve: the 64-chip TPU v5e replicas hold DeepSeek-R1 but not one 97.7k-token context
    curve = project_session_curve("deepseek-r1", "tpu-v5e", "agentic-coding")
    assert curve["parallelism"].str.contains("-pp").all()
    assert (curve["throughput_tok_per_s_per_gpu"] > 0).all()


def test_moe_sessions_search_wide_ep_across_nodes_on_every_8_gpu_system():
    # H200 holds DeepSeek-R1 in one node and H100 does not: both search wide EP across nodes, so
    # H200 (H100's compute with more HBM bandwidth and capacity) is not projected below H100
    import tokenomics as tk

    rates = {}
    for hw in ("h100-sxm", "h200-sxm"):
        curve = project_session_curve("deepseek-r1", hw, "agentic-coding")
        assert set(curve.loc[curve["tp"] > 8, "tp"].astype(int)) >= {16, 32, 64}
        rates[hw] = float(tk.ThroughputCurve.from_points(curve, allow_mixed_groups=True).throughput_at(50.0))
    assert rates["h200-sxm"] > rates["h100-sxm"]
    # dense models are not spread across nodes when one node holds them
    dense = project_session_curve("llama-3.3-70b", "h200-sxm", "agentic-coding")
    assert dense["tp"].max() <= 8


def test_a_session_context_beyond_the_model_window_is_refused():
    huge = Workload(name="huge", kind="sessions", isl_tokens=1_000_000, osl_tokens=1000, cached_prefix_frac=0.9)
    with pytest.raises(ValueError, match="exceeds deepseek-r1's context window"):
        project_session_curve("deepseek-r1", "b200", huge)


@pytest.mark.parametrize(("sessions", "match"), [([], "empty"), ([1e7], "at most"), ([0.0], "positive"),
                                                 ([float("nan")], "positive")])
def test_session_counts_outside_their_range_are_refused(sessions, match) -> None:
    with pytest.raises(ValueError, match=match):
        session_points("deepseek-r1", "b200", sessions, workload("agentic-coding"), config=CFG)


def test_session_points_take_an_offload_mode_as_project_session_curve_does() -> None:
    from tokenomics.perf.hierarchy import kv_offload_tiers

    cfg = tk.ServingConfig(tp=4, ep=4, weight_precision="fp4", kv_precision="fp8")
    wl = tk.workload("agentic-coding-early")
    tiers, recall = kv_offload_tiers(tk.model("deepseek-r1"), tk.hardware("b200"), config=cfg, kv_offload="dram",
                                     context_tokens=wl.isl_tokens + wl.osl_tokens)
    by_mode = tk.session_points("deepseek-r1", "b200", [16.0, 64.0], wl, config=cfg, kv_offload="dram")
    by_tiers = tk.session_points("deepseek-r1", "b200", [16.0, 64.0], wl, config=cfg, tier_capacity_tokens=tiers,
                                 recall_s_per_token=recall)
    pd.testing.assert_frame_equal(by_mode, by_tiers)
    plain = tk.session_points("deepseek-r1", "b200", [64.0], wl, config=cfg)
    assert by_mode["realized_cache_hit_frac"].iloc[1] > plain["realized_cache_hit_frac"].iloc[0]
    with pytest.raises(ValueError, match="not both"):
        tk.session_points("deepseek-r1", "b200", [16.0], wl, config=cfg, kv_offload="dram", tier_capacity_tokens=tiers)
