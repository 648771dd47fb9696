"""Tests of the parameter counts derived from a model architecture."""

from __future__ import annotations

import pytest

import tokenomics as tk
from tokenomics.perf import ServingConfig
from tokenomics.perf._arch import arch
from tokenomics.perf.step import weight_bytes_per_gpu

V4_CHECKPOINT = {"weight_precision": "fp4", "dense_weight_precision": "fp8", "kv_precision": "fp8"}


def test_deepseek_v4_pro_attention_is_low_rank() -> None:
    # per layer, from the config: wq_a 7168 x 1536, wq_b 1536 x (128 x 512), one shared K=V
    # entry 7168 x 512, wo_a 16 groups of 4096 x 1024, wo_b (16 x 1024) x 7168
    per_layer = 7168 * 1536 + 1536 * 128 * 512 + 7168 * 512 + 128 * 512 * 1024 + 16 * 1024 * 7168
    assert per_layer == 299_892_736
    assert arch(tk.model("deepseek-v4-pro")).attention_params == pytest.approx(61 * per_layer)


def test_deepseek_v4_pro_active_parameters_match_the_model_card() -> None:
    # 49B activated per token (model card); the compressor, indexer and hyper-connection weights
    # (about 1.5B) are not counted, so the count lands a few percent under. At full-rank
    # attention it was 87B.
    a = arch(tk.model("deepseek-v4-pro"))
    assert a.linear_flop_per_token / 2 == pytest.approx(49e9, rel=0.05)


def test_deepseek_v4_pro_weights_match_the_published_checkpoint() -> None:
    # The Hugging Face checkpoint holds 861-862 billion stored elements ("Model size 862B
    # params"; theapplied.co/es/models/deepseek-ai-deepseek-v4-pro mirrors the model card:
    # 861,000 million): FP4 experts two to an I8 element plus one E8M0 scale per 32, FP8 (and
    # BF16 embedding) elements one each, and the multi-token-prediction layer (one more layer of
    # the same shape, outside the catalog's 61). Rebuild that count from the weight bytes the
    # library stores: FP4 bytes are half an element each, FP8 bytes one.
    m = tk.model("deepseek-v4-pro")
    a = arch(m)
    stored_bytes = weight_bytes_per_gpu(m, "b200", config=ServingConfig(tp=1, **V4_CHECKPOINT))
    expert_bytes = a.routed_params * 0.5
    other = stored_bytes - expert_bytes  # attention, shared experts, embedding, LM head at FP8
    mtp = 62 / 61
    experts = a.routed_params * mtp * (0.5 + 1 / 32)
    elements = experts + (other - 2 * a.embedding_params) * mtp + 2 * a.embedding_params
    assert elements == pytest.approx(861.5e9, rel=0.02)
    # full-rank attention (the former count) stored 39.5 GB more and missed by +4.5 %
    full_rank = 61 * (7168 * 128 * 512 * 2 + 7168 * 512)
    assert (elements + (full_rank - a.attention_params) * mtp) / 861.5e9 - 1 > 0.04


def test_deepseek_v4_pro_fits_the_recorded_tp4_pools() -> None:
    # InferenceX runs DeepSeek-V4-Pro disaggregated on GB300 with TP4 / EP4 prefill workers
    # (DP attention): the FP4 experts over 4 GPUs plus the replicated FP8 attention must fit the
    # usable 85 % of 279 GB
    cfg = ServingConfig(tp=4, ep=4, dp_attention=True, **V4_CHECKPOINT)
    assert weight_bytes_per_gpu("deepseek-v4-pro", "gb300", config=cfg) < 0.85 * 279e9


@pytest.mark.parametrize("field", ["o_lora_rank", "o_groups", "mla_q_lora_rank"])
@pytest.mark.parametrize("value", [0, -3, 1.5, 10**7])
def test_implausible_attention_ranks_name_the_field(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=field):
        tk.model("deepseek-v4-pro").with_values(**{field: value})


def test_linear_attention_layers_do_not_attend_over_the_context() -> None:
    # Qwen3.5-397B: of 60 layers only the 15 gated-attention ones attend over the context,
    # 2 x 32 heads x (256 + 256) FLOP per (query, key) pair each; the 45 Gated DeltaNet layers
    # cost 6 x 64 value heads x 128 x 128 FLOP per token through their recurrent state.
    a = arch(tk.model("qwen3.5-397b-a17b"))
    assert a.decode_attn_flop_per_ctx_token == 15 * 2 * 32 * (256 + 256)
    assert a.prefill_attn_flop_per_pair == 15 * 2 * 32 * (256 + 256)
    assert a.linear_attn_flop_per_token == 45 * 6 * 64 * 128 * 128
    assert arch(tk.model("llama-3.3-70b")).linear_attn_flop_per_token == 0.0
