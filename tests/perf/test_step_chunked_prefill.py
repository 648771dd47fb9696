"""Long-context chunked prefill (tokenomics.perf.step.chunked_prefill_time_s): hand calculations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenomics as tk
from tests.properties.strategies import fractions
from tokenomics.perf import RooflineFactors, ServingConfig, prefill_time_s
from tokenomics.perf.operators import gemm_kernel
from tokenomics.perf.step import DEFAULT_PREFILL_CHUNK_TOKENS, chunked_prefill_time_s

IDEAL = RooflineFactors.ideal()
MLA_CFG = ServingConfig(tp=8, ep=8, weight_precision="fp4", dense_weight_precision="fp8", kv_precision="fp8")


def _bf16_rate(hw_id: str) -> float:
    hw = tk.hardware(hw_id)
    return min(gemm_kernel(hw, "gemm", "bf16").max_flop_per_s, hw.dense_tflops("bf16") * 1e12)


def test_default_chunk_is_the_engine_token_budget() -> None:
    assert DEFAULT_PREFILL_CHUNK_TOKENS == 8192.0


def test_cached_prefix_cost_of_one_mla_chunk_by_hand() -> None:
    # one chunk of u = 16,384 new tokens (C = u): growing the cached prefix by dc adds the new
    # tokens' attention to it (u x dc pairs, per-head form in BF16) and its up-projection
    # (2 x kv_lora x heads x (nope + v) FLOP per token and layer) with the expanded BF16 keys
    # and values written and read once; the linear layers see the same u tokens.
    u, c0, c1 = 16_384.0, 40_000.0, 60_000.0
    m = tk.model("deepseek-r1")
    t0 = chunked_prefill_time_s(m, "b200", isl_tokens=u + c0, cached_tokens=c0, chunk_tokens=u, config=MLA_CFG,
                                factors=IDEAL)
    t1 = chunked_prefill_time_s(m, "b200", isl_tokens=u + c1, cached_tokens=c1, chunk_tokens=u, config=MLA_CFG,
                                factors=IDEAL)
    dc, n, heads, layers = c1 - c0, 8.0, 128.0, 61.0
    flop_pair = 2.0 * heads * (192.0 + 128.0) * layers  # qk = 128 nope + 64 rope, v = 128
    up_flop = 2.0 * 512.0 * heads * (128.0 + 128.0) * layers
    expanded_bytes = 2.0 * 2.0 * heads * (128.0 + 64.0 + 128.0) * layers
    rate = _bf16_rate("b200")
    hbm = tk.hardware("b200").hbm_bandwidth_bytes_per_s
    expected = dc * (u * flop_pair / rate + up_flop / rate + expanded_bytes / hbm) / n
    assert t1 - t0 == pytest.approx(expected, rel=1e-6)


def test_every_chunk_after_the_first_rereads_its_prefix_by_hand() -> None:
    # Llama 3.3 70B (GQA, no up-projection), TP1: the same prompt in one chunk and in k chunks
    # differs only by the KV re-reads sum_{j=1}^{k-1} (c + j C) x bytes/token
    isl, c, chunk = 40_000.0, 10_000.0, 6_000.0
    one = chunked_prefill_time_s("llama-3.3-70b", "h100", isl_tokens=isl, cached_tokens=c, chunk_tokens=isl,
                                 factors=IDEAL)
    many = chunked_prefill_time_s("llama-3.3-70b", "h100", isl_tokens=isl, cached_tokens=c, chunk_tokens=chunk,
                                  factors=IDEAL)
    k = math.ceil((isl - c) / chunk)
    reread_tokens = sum(c + j * chunk for j in range(1, k))
    kv_bytes_per_token = 2 * 8 * 128 * 80 * 2  # K and V, 8 KV heads x 128, 80 layers, BF16
    expected = reread_tokens * kv_bytes_per_token / tk.hardware("h100").hbm_bandwidth_bytes_per_s
    assert many - one == pytest.approx(expected, rel=1e-9)


def test_long_context_prefill_costs_more_than_the_overlapped_roofline() -> None:
    # the roofline prices MLA prefill attention at FP8 and without chunk re-reads; an engine's
    # 64k-token prefill runs BF16 attention after the other kernels and re-reads per chunk
    cold = chunked_prefill_time_s("deepseek-r1", "b200", isl_tokens=64_000.0, config=MLA_CFG, factors=IDEAL)
    roof = prefill_time_s("deepseek-r1", "b200", isl_tokens=64_000.0, config=MLA_CFG, factors=IDEAL)
    assert cold > 1.5 * roof


def test_vectorised_over_cached_tokens_and_monotone() -> None:
    cached = np.array([0.0, 20_000.0, 60_000.0, 79_000.0])
    t = chunked_prefill_time_s("deepseek-r1", "b200", isl_tokens=80_000.0, cached_tokens=cached, config=MLA_CFG)
    assert isinstance(t, np.ndarray)
    assert t.shape == cached.shape
    assert np.all(np.diff(t) < 0)
    scalar = chunked_prefill_time_s("deepseek-r1", "b200", isl_tokens=80_000.0, cached_tokens=20_000.0,
                                    config=MLA_CFG)
    assert isinstance(scalar, float)
    assert scalar == pytest.approx(t[1])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"isl_tokens": 0.0}, "isl_tokens"),
        ({"isl_tokens": 1000.0, "chunk_tokens": 0.0}, "chunk_tokens"),
        ({"isl_tokens": 1000.0, "cached_tokens": 2000.0}, "cached_tokens"),
        ({"isl_tokens": 1000.0, "cached_tokens": -1.0}, "cached_tokens"),
    ],
)
def test_bad_input_is_refused(kwargs: dict[str, float], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        chunked_prefill_time_s("deepseek-r1", "b200", config=MLA_CFG, **kwargs)


@settings(max_examples=40, deadline=None)
@given(isl=st.floats(32_000.0, 200_000.0), a=fractions, b=fractions, chunk=st.sampled_from([2048.0, 8192.0, 16384.0]))
def test_more_cached_tokens_never_cost_more(isl: float, a: float, b: float, chunk: float) -> None:
    # long prompts, whole cached tokens, at least 20 % of the prompt new: the compute-bound range
    # (a short prompt's prefill is bound by its weight reads, which a cached prefix only adds to)
    lo, hi = (np.floor(0.8 * x * isl) for x in sorted((a, b)))
    t_lo, t_hi = chunked_prefill_time_s("deepseek-r1", "b200", isl_tokens=isl, cached_tokens=np.array([lo, hi]),
                                        chunk_tokens=chunk, config=MLA_CFG)
    assert t_hi <= t_lo * (1 + 1e-12)


def test_dp_attention_latency_runs_attention_on_the_group_by_hand() -> None:
    # TP8 with fully data-parallel attention: the replica's cost spreads the request's attention
    # over 8 ranks, its own latency runs it on 1; the linear layers are the same in both
    dpa = ServingConfig(tp=8, ep=8, dp_attention=True, weight_precision="fp4", kv_precision="fp8")
    kw = {"isl_tokens": 100_000.0, "cached_tokens": 96_000.0, "config": dpa, "factors": IDEAL}
    cost = chunked_prefill_time_s("deepseek-r1", "b200", **kw)
    own = chunked_prefill_time_s("deepseek-r1", "b200", latency=True, **kw)
    u, c, heads, layers = 4_000.0, 96_000.0, 128.0, 61.0
    attn = 2.0 * heads * (192.0 + 128.0) * layers * (u * c + u * (u + 1) / 2) / _bf16_rate("b200")
    expand = c * (2.0 * 512.0 * heads * 256.0 * layers / _bf16_rate("b200")
                  + 4.0 * heads * 320.0 * layers / tk.hardware("b200").hbm_bandwidth_bytes_per_s)
    assert own - cost == pytest.approx((attn + expand) * (1.0 - 1.0 / 8.0), rel=1e-6)
    tp8 = chunked_prefill_time_s("deepseek-r1", "b200", latency=True, isl_tokens=100_000.0, cached_tokens=96_000.0,
                                 config=MLA_CFG, factors=IDEAL)
    assert tp8 == pytest.approx(chunked_prefill_time_s("deepseek-r1", "b200", isl_tokens=100_000.0,
                                                       cached_tokens=96_000.0, config=MLA_CFG, factors=IDEAL))
