"""KV-cache bytes per token and per sequence, checked against hand calculations.

Every reference number below is computed by hand from the published architecture (the formula is
written next to it), never read back from the function under test.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.catalog import Model
from tokenomics.memory.kv_cache import kv_bytes_per_token_per_layer, kv_cache_bytes_per_sequence

# DeepSeek-V3 (MLA): 61 layers; the cache holds the 512-wide latent plus the 64-wide RoPE key.
DSV3_BF16 = 61 * (512 + 64) * 2  # = 70,272 B/token
# FlashMLA FP8 layout per token per layer: 512 e4m3 latent bytes + 512/128 = 4 FP32 scales (16 B)
# + 64 BF16 RoPE values (128 B) = 656 B (deepseek-ai/FlashMLA docs/20250929-hopper-fp8-sparse-deep-dive.md).
DSV3_FP8_PER_LAYER = 512 + (512 // 128) * 4 + 64 * 2  # = 656
DSV3_FP8 = 61 * DSV3_FP8_PER_LAYER  # = 40,016 B/token

# Llama 3.3 70B (GQA): 80 layers x 8 KV heads x 128 head dim x 2 (K and V) x 2 B (BF16).
LLAMA_BF16 = 80 * 8 * 128 * 2 * 2  # = 327,680 B/token

# gpt-oss-120b: 36 layers alternating 128-token sliding window / full attention -> 18 full layers.
# Per layer: 8 KV heads x 64 head dim x 2 (K and V) x 2 B = 2,048 B.
GPTOSS_PER_LAYER = 8 * 64 * 2 * 2  # = 2,048
GPTOSS_MARGINAL = 18 * GPTOSS_PER_LAYER  # = 36,864 B/token (window layers add nothing past 128 tokens)
# At a 1,000-token context: 18 full layers hold 1,000 tokens, 18 window layers hold 128 tokens.
GPTOSS_SEQ_1000 = GPTOSS_PER_LAYER * (18 * 1000 + 18 * 128)  # = 41,582,592 B
GPTOSS_AVG_1000 = GPTOSS_SEQ_1000 / 1000  # = 41,582.592 B/token
# At 100 tokens (inside the window) all 36 layers hold every token.
GPTOSS_AVG_100 = 36 * GPTOSS_PER_LAYER  # = 73,728 B/token


def test_hand_numbers_are_what_the_literature_states() -> None:
    """Guard the hand arithmetic itself against typos (values quoted in facts and vendor docs)."""
    assert DSV3_BF16 == 70_272
    assert DSV3_FP8_PER_LAYER == 656
    assert DSV3_FP8 == 40_016
    assert LLAMA_BF16 == 327_680
    assert GPTOSS_MARGINAL == 36_864
    assert GPTOSS_SEQ_1000 == 41_582_592


def test_deepseek_v3_mla_bf16() -> None:
    assert tk.kv_cache_bytes_per_token("deepseek-v3", "bf16") == pytest.approx(DSV3_BF16)


def test_deepseek_v3_mla_fp8_flashmla_layout() -> None:
    assert kv_bytes_per_token_per_layer("deepseek-v3", "fp8") == pytest.approx(DSV3_FP8_PER_LAYER)
    assert tk.kv_cache_bytes_per_token("deepseek-v3", "fp8") == pytest.approx(DSV3_FP8)


@pytest.mark.parametrize("model_id", ["deepseek-v3.1", "deepseek-v3.2", "deepseek-r1", "kimi-k2", "kimi-k2.5"])
def test_mla_siblings_share_deepseek_v3_latent_cache(model_id: str) -> None:
    """All DeepSeek-V3-shaped MLA models have 61 layers and a 512 + 64 latent."""
    assert tk.kv_cache_bytes_per_token(model_id) == pytest.approx(DSV3_BF16)


def test_llama_gqa_bf16_and_fp8() -> None:
    assert tk.kv_cache_bytes_per_token("llama-3.3-70b", "bf16") == pytest.approx(LLAMA_BF16)
    assert tk.kv_cache_bytes_per_token("Llama 3.3 70B", "fp8") == pytest.approx(LLAMA_BF16 / 2)


def test_llama_sequence_is_linear_in_context() -> None:
    # 128K-token sequence: 327,680 B x 131,072 = 42,949,672,960 B = 40 GiB.
    assert tk.kv_cache_bytes_per_sequence("llama-3.3-70b", 131_072) == pytest.approx(40 * 2**30)


def test_gpt_oss_120b_marginal_counts_full_layers_only() -> None:
    assert tk.kv_cache_bytes_per_token("gpt-oss-120b") == pytest.approx(GPTOSS_MARGINAL)


def test_gpt_oss_120b_per_sequence_average() -> None:
    assert tk.kv_cache_bytes_per_sequence("gpt-oss-120b", 1000) == pytest.approx(GPTOSS_SEQ_1000)
    assert tk.kv_cache_bytes_per_token("gpt-oss-120b", context_tokens=1000) == pytest.approx(GPTOSS_AVG_1000)
    assert tk.kv_cache_bytes_per_token("gpt-oss-120b", context_tokens=100) == pytest.approx(GPTOSS_AVG_100)


def test_gpt_oss_window_boundary() -> None:
    """At exactly the window length every layer still holds every token."""
    assert tk.kv_cache_bytes_per_sequence("gpt-oss-120b", 128) == pytest.approx(36 * GPTOSS_PER_LAYER * 128)


def test_scalar_ndarray_series_agree() -> None:
    ctx = [100.0, 1000.0]
    expected = np.array([GPTOSS_AVG_100, GPTOSS_AVG_1000])
    scalar = [tk.kv_cache_bytes_per_token("gpt-oss-120b", context_tokens=c) for c in ctx]
    arr = tk.kv_cache_bytes_per_token("gpt-oss-120b", context_tokens=np.array(ctx))
    ser = tk.kv_cache_bytes_per_token("gpt-oss-120b", context_tokens=pd.Series(ctx, index=["short", "long"]))
    assert all(isinstance(s, float) for s in scalar)
    assert isinstance(arr, np.ndarray)
    assert isinstance(ser, pd.Series)
    assert list(ser.index) == ["short", "long"]
    np.testing.assert_allclose(scalar, expected)
    np.testing.assert_allclose(arr, expected)
    np.testing.assert_allclose(ser.to_numpy(), expected)

    seq_arr = tk.kv_cache_bytes_per_sequence("gpt-oss-120b", np.array(ctx))
    seq_ser = tk.kv_cache_bytes_per_sequence("gpt-oss-120b", pd.Series(ctx, index=["short", "long"]))
    np.testing.assert_allclose(seq_arr, expected * np.array(ctx))
    np.testing.assert_allclose(seq_ser.to_numpy(), expected * np.array(ctx))
    assert list(seq_ser.index) == ["short", "long"]


def test_model_object_and_name_agree() -> None:
    m = tk.model("deepseek-v3")
    assert tk.kv_cache_bytes_per_token(m) == tk.kv_cache_bytes_per_token("DeepSeek V3")


@pytest.mark.parametrize("bad", [0, -5, float("nan"), float("inf")])
def test_bad_context_raises(bad: float) -> None:
    with pytest.raises(ValueError, match="context_tokens"):
        tk.kv_cache_bytes_per_sequence("llama-3.3-70b", bad)
    with pytest.raises(ValueError, match="context_tokens"):
        tk.kv_cache_bytes_per_token("llama-3.3-70b", context_tokens=bad)


def test_bad_context_in_series_names_the_index() -> None:
    with pytest.raises(ValueError, match="index 'b'"):
        tk.kv_cache_bytes_per_sequence("llama-3.3-70b", pd.Series([10.0, 0.0], index=["a", "b"]))


def test_unknown_precision_raises_with_close_names() -> None:
    with pytest.raises(KeyError, match=r"unknown precision 'fp7'.*fp8"):
        tk.kv_cache_bytes_per_token("llama-3.3-70b", "fp7")


def test_unknown_model_raises_with_close_names() -> None:
    with pytest.raises(KeyError, match=r"unknown model 'gpt-oss-121b'.*gpt-oss"):
        tk.kv_cache_bytes_per_token("gpt-oss-121b")


def _toy(**changes: object) -> Model:
    base: dict[str, object] = {
        "model_id": "toy", "name": "toy", "developer": "x", "attention_type": "gqa",
        "native_weight_precision": "bf16", "open_weights": True, "total_params_b": 1.0,
        "active_params_b": 1.0, "layers": 4, "hidden_size": 256, "attention_heads": 4, "kv_heads": 2,
        "head_dim": 64, "vocab_size": 1000, "max_context_tokens": 4096,
    }
    base.update(changes)
    return Model.model_validate(base)


def test_window_layers_without_window_length_raise() -> None:
    """A sliding-window model without its window length must not size those layers at zero."""
    m = _toy(sliding_window_layers=2)
    with pytest.raises(ValueError, match="sliding_window_tokens is missing"):
        tk.kv_cache_bytes_per_sequence(m, 100)


def test_more_window_layers_than_layers_raise() -> None:
    with pytest.raises(ValueError, match="sliding_window_layers=5 exceeds layers=4"):
        _toy(sliding_window_layers=5, sliding_window_tokens=16)
    # an entry built without validation is still refused where the cache is sized
    m = Model.model_construct(**{**_toy().model_dump(), "sliding_window_layers": 5, "sliding_window_tokens": 16})
    with pytest.raises(ValueError, match="exceeds layers"):
        tk.kv_cache_bytes_per_token(m)


def test_mla_model_without_latent_dims_raises() -> None:
    m = _toy(attention_type="mla", kv_heads=None)
    with pytest.raises(ValueError, match="mla_kv_lora_rank"):
        tk.kv_cache_bytes_per_token(m)


def test_toy_gqa_with_distinct_value_dim() -> None:
    # 4 layers x 2 KV heads x (64 K + 32 V) x 2 B = 1,536 B/token.
    m = _toy(v_head_dim=32)
    assert tk.kv_cache_bytes_per_token(m) == pytest.approx(4 * 2 * (64 + 32) * 2)


@pytest.mark.parametrize("name", ["llama-3.3-70b", "gpt-oss-120b", "deepseek-r1", "deepseek-v4-pro",
                                  "qwen3.5-397b-a17b"])
def test_unchecked_sequence_bytes_equal_the_public_function(name: str) -> None:
    from tokenomics.memory.kv_cache import kv_sequence_bytes

    m = tk.model(name)
    ctx = np.array([1.0, 100.0, 4096.0, 131072.0])
    for prec in ("bf16", "fp8"):
        np.testing.assert_array_equal(kv_sequence_bytes(m, ctx, prec), kv_cache_bytes_per_sequence(m, ctx, prec))


# Qwen3.5-397B-A17B (config.json): 45 Gated DeltaNet layers, 16 key heads and 64 value heads of
# width 128, convolution kernel 4. Per layer and sequence: an FP32 recurrent state of
# 64 x 128 x 128 x 4 B = 4,194,304 B, and a BF16 convolution state of the last 3 tokens of q, k, v:
# 3 x (2 x 16 x 128 + 64 x 128) x 2 B = 73,728 B.
QWEN35_STATE = 45 * (64 * 128 * 128 * 4 + 3 * (2 * 16 * 128 + 64 * 128) * 2)  # = 192,061,440 B


def test_qwen35_linear_attention_state_by_hand() -> None:
    from tokenomics.memory.kv_cache import linear_state_bytes_per_sequence

    assert linear_state_bytes_per_sequence("qwen3.5-397b-a17b") == QWEN35_STATE
    # models without linear attention keep none
    assert linear_state_bytes_per_sequence("deepseek-r1") == 0.0
    assert linear_state_bytes_per_sequence(tk.model("llama-3.3-70b")) == 0.0


def test_linear_attention_without_its_widths_is_refused() -> None:
    from tokenomics.memory.kv_cache import linear_state_bytes_per_sequence

    m = tk.model("qwen3.5-397b-a17b").model_copy(update={"linear_value_heads": None, "linear_conv_kernel": None})
    with pytest.raises(ValueError, match="linear_value_heads, linear_conv_kernel"):
        linear_state_bytes_per_sequence(m)
