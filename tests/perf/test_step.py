"""Step physics: resolved-setup reuse (results follow the entries' values, not their names) and the
fixed per-layer time by kernel count."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import tokenomics as tk
from tokenomics.perf import RooflineFactors, ServingConfig, max_concurrency, roofline_points, step
from tokenomics.perf.step import decode_step_time_s, layer_kernel_units


def test_an_override_is_not_served_from_the_original_entry() -> None:
    h100 = tk.hardware("h100")
    cfg = ServingConfig(tp=4)
    base = roofline_points("llama-3.3-70b", h100, [1.0, 64.0], config=cfg)
    faster = h100.with_values(hbm_bandwidth_tb_per_s=2.0 * h100.hbm_bandwidth_tb_per_s)
    fast = roofline_points("llama-3.3-70b", faster, [1.0, 64.0], config=cfg)
    # batch 1 streams the weights: twice the bandwidth, less than the original step time
    assert fast["step_time_s"].iloc[0] < 0.75 * base["step_time_s"].iloc[0]
    again = roofline_points("llama-3.3-70b", h100, [1.0, 64.0], config=cfg)
    np.testing.assert_array_equal(again["step_time_s"], base["step_time_s"])


def test_factors_and_configs_are_part_of_the_key() -> None:
    kw = {"isl_tokens": 8192.0, "osl_tokens": 1024.0}
    small = max_concurrency("llama-3.3-70b", "h100", config=ServingConfig(tp=4),
                            factors=RooflineFactors(usable_hbm_frac=0.5), **kw)
    large = max_concurrency("llama-3.3-70b", "h100", config=ServingConfig(tp=4),
                            factors=RooflineFactors(usable_hbm_frac=0.9), **kw)
    wider = max_concurrency("llama-3.3-70b", "h100", config=ServingConfig(tp=8),
                            factors=RooflineFactors(usable_hbm_frac=0.9), **kw)
    assert small < large < wider


def test_the_cache_is_bounded_and_keeps_its_entries_alive() -> None:
    h100 = tk.hardware("h100")
    for i in range(5):
        hw = h100.with_values(hbm_capacity_gb=80.0 + i)
        max_concurrency("llama-3.3-70b", hw, config=ServingConfig(tp=4))
    gc.collect()
    assert len(step._SETUPS) <= step._SETUPS_MAX
    for m, hw, s in step._SETUPS.values():
        assert s.model is m
        assert s.hw is hw


def test_layer_kernel_units_by_hand() -> None:
    # dense GQA layer = 10 kernels = 1 unit; GQA attention 6, MLA attention 11, dense FFN 4,
    # MoE block 7, shared expert 3 more
    assert layer_kernel_units(tk.model("llama-3.3-70b")) == pytest.approx(80.0)  # 80 x (6 + 4) / 10
    # DeepSeek-R1: 61 MLA layers, 58 MoE layers with a shared expert, 3 dense-FFN layers
    assert layer_kernel_units(tk.model("deepseek-r1")) == pytest.approx((61 * 11 + 58 * 10 + 3 * 4) / 10)
    # gpt-oss-120b: 36 GQA layers, all MoE without shared experts
    assert layer_kernel_units(tk.model("gpt-oss-120b")) == pytest.approx((36 * 6 + 36 * 7) / 10)


def test_fixed_layer_time_scales_with_kernel_units() -> None:
    ideal = RooflineFactors.ideal()
    slow = ideal.model_copy(update={"layer_latency_s": 1e-3})
    cfg = ServingConfig(tp=8, ep=8, weight_precision="fp8", kv_precision="fp8")
    for name in ("deepseek-r1", "gpt-oss-120b"):
        m = tk.model(name)
        extra = (decode_step_time_s(m, "b200", 1.0, config=cfg, factors=slow)
                 - decode_step_time_s(m, "b200", 1.0, config=cfg, factors=ideal))
        assert extra == pytest.approx(layer_kernel_units(m) * 1e-3)


def test_expert_parallel_imbalance_by_hand() -> None:
    from statistics import NormalDist

    from tokenomics.perf.step import _resolve, _token_imbalance, _weight_imbalance

    z8 = NormalDist().inv_cdf((8 - 0.375) / (8 + 0.25))  # Blom: expected largest of 8 normals
    c = _resolve("deepseek-r1", "b200", ServingConfig(tp=8, ep=8, weight_precision="fp4"), None).c
    assert c.z == pytest.approx(z8)

    def tokens(t: float, c=c) -> float:  # type: ignore[no-untyped-def]
        return float(_token_imbalance(t, 8.0, c.ep, c.z))

    def weights(t: float, c=c) -> float:  # type: ignore[no-untyped-def]
        return float(_weight_imbalance(t, 256.0, 8.0, c.ep, c.z))

    # 64 tokens x 8 experts = 512 pairs on 8 ranks: mean 64, sd sqrt(512 / 8 x 7 / 8)
    assert tokens(64.0) == pytest.approx(1 + z8 * (512 / 8 * 7 / 8) ** 0.5 / 64)
    # 16 tokens touch each expert with p = 1 - (1 - 8/256)^16; 32 experts per rank
    p = 1 - (1 - 8 / 256) ** 16
    mu, sd = 32 * p, (32 * p * (1 - p)) ** 0.5
    assert weights(16.0) == pytest.approx(min(mu + z8 * sd, 32) / mu)
    # every expert touched: no weight imbalance; no expert parallelism: none at all
    assert weights(4096.0) == pytest.approx(1.0)
    tp = _resolve("deepseek-r1", "b200", ServingConfig(tp=8, weight_precision="fp4"), None).c
    assert (tp.ep, tp.z) == (1.0, 0.0)
    assert tokens(64.0, tp) == 1.0
    assert weights(16.0, tp) == 1.0


def test_dense_and_moe_decode_compute_efficiencies_apply_to_their_own_class() -> None:
    # compute time = decode FLOP time / eff + the step's prefill share at the prefill efficiency:
    # halving the own-class efficiency adds the decode part once, quartering it three times; the
    # other class's efficiency moves nothing
    ideal = RooflineFactors.ideal()
    cases = (("llama-3.3-70b", ServingConfig(tp=8, weight_precision="fp8", kv_precision="fp8")),
             ("deepseek-r1", ServingConfig(tp=8, ep=8, weight_precision="fp4", kv_precision="fp8")))
    for name, cfg in cases:
        own, other = (("dense_compute_eff_frac", "compute_eff_frac") if not tk.model(name).is_moe
                      else ("compute_eff_frac", "dense_compute_eff_frac"))

        def compute_s(update: dict[str, float], name: str = name, cfg: ServingConfig = cfg) -> float:
            f = ideal.model_copy(update=update)
            return float(roofline_points(name, "b200", [256.0], config=cfg, factors=f)["compute_time_s"].iloc[0])

        base = compute_s({})
        decode = compute_s({own: 0.5}) - base
        assert decode > 0.1 * base
        assert compute_s({own: 0.25}) == pytest.approx(base + 3.0 * decode, rel=1e-9)
        assert compute_s({other: 0.25}) == pytest.approx(base, rel=1e-12)


def test_stacked_sweeps_equal_each_sweep_alone() -> None:
    # the searches evaluate every configuration in one pass: each point must equal its own
    # configuration's evaluation (mixed parallelism, DP-attention groups, pipeline stages, MTP,
    # disaggregation and KV precisions)
    from tokenomics.perf.step import _resolve, _stack, _work, _work_many

    m, hw = tk.model("deepseek-r1"), tk.hardware("gb200")
    cfgs = [
        ServingConfig(tp=8, ep=8, weight_precision="fp4", dp_attention=True),
        ServingConfig(tp=16, ep=16, weight_precision="fp4", dp_attention=True, attention_tp=4,
                      mtp_draft_tokens=3, mtp_acceptance_frac=0.7, disaggregated=True),
        ServingConfig(tp=4, pp=2, weight_precision="fp4", kv_precision="bf16"),
        ServingConfig(tp=8, weight_precision="fp8", mtp_draft_tokens=1, mtp_acceptance_frac=0.8),
    ]
    setups = [_resolve(m, hw, c, None) for c in cfgs]
    grids = [np.asarray([1.0, 8.0, 64.0]), np.asarray([4.0]), np.asarray([2.0, 512.0]),
             np.asarray([1.0, 3.0, 9.0, 27.0])]
    for cached in (0.0, 4096.0):
        one_by_one = _stack([_work(s, g, 8192.0, 1024.0, cached) for s, g in zip(setups, grids, strict=True)])
        together = _work_many(setups, grids, 8192.0, 1024.0, cached)
        for name in one_by_one.__dataclass_fields__:
            np.testing.assert_allclose(getattr(together, name), getattr(one_by_one, name), rtol=1e-13, err_msg=name)
    with pytest.raises(ValueError, match="one model and hardware"):
        _work_many([setups[0], _resolve("deepseek-r1", "b200", cfgs[0], None)], grids[:2], 8192.0, 1024.0)


def test_linear_attention_state_is_read_rewritten_and_held_per_sequence() -> None:
    # Qwen3.5-397B, TP8, FP8 KV: the 15 gated-attention layers' cache (2 KV heads x 512 x 1 B per
    # token and layer) splits over min(8, 2) = 2 ranks; the 45 Gated DeltaNet layers' state
    # (192,061,440 B per sequence, tests/memory/test_kv_cache.py) over min(8, 16 key heads) = 8.
    # A decode step at context ISL + OSL / 2 = 1,536 reads the KV once and reads and rewrites
    # the state; capacity holds the KV of a full 2,048-token context plus the state.
    name, hw = "qwen3.5-397b-a17b", "b300"
    cfg = ServingConfig(tp=8, ep=8, weight_precision="fp8", kv_precision="fp8")
    f = RooflineFactors.ideal()
    state = 192_061_440 / 8
    kv_step = 15 * 2 * 512 * 1536 / 2
    got = roofline_points(name, hw, [32.0], isl_tokens=1024, osl_tokens=1024, config=cfg, factors=f)
    assert float(got["kv_bytes_per_gpu"].iloc[0]) == pytest.approx(32 * (kv_step + 2 * state), rel=1e-12)
    per_seq = 15 * 2 * 512 * 2048 / 2 + state
    free = tk.hardware(hw).hbm_capacity_bytes * f.usable_hbm_frac - step.weight_bytes_per_gpu(name, hw, config=cfg)
    assert max_concurrency(name, hw, isl_tokens=1024, osl_tokens=1024, config=cfg, factors=f) == int(free // per_seq)
