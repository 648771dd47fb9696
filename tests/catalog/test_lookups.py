"""Lookups by the names users type for the late-2026 models, and their first-party prices."""

from __future__ import annotations

import pytest

import tokenomics as tk

# (name typed, catalog id) - each id's rows are checked row by row in test_model_rows.py.
NAMES = [
    ("kimi-k2.7", "kimi-k2.7"),
    ("Kimi K2.7 Code", "kimi-k2.7"),
    ("Kimi-K2.7-Code", "kimi-k2.7"),
    ("kimik2.7", "kimi-k2.7"),
    ("kimi-k2.6", "kimi-k2.6"),
    ("deepseek-v3.2", "deepseek-v3.2"),
    ("deepseek-v4", "deepseek-v4-pro"),
    ("DeepSeek-V4-Pro", "deepseek-v4-pro"),
    ("deepseek-v4-flash", "deepseek-v4-flash"),
    ("DeepSeek V4.1 Flash", "deepseek-v4.1-flash"),
    ("deepseek-flash", "deepseek-v4.1-flash"),
    ("qwen3.5-397b", "qwen3.5-397b-a17b"),
    ("Qwen3.5-397B-A17B", "qwen3.5-397b-a17b"),
    ("minimax-m2.5", "minimax-m2.5"),
    ("glm-5", "glm-5"),
    ("GLM 5.1", "glm-5.1"),
]


@pytest.mark.parametrize(("name", "model_id"), NAMES)
def test_name_resolves(name: str, model_id: str) -> None:
    assert tk.catalog.resolve_model_id(name) == model_id


@pytest.mark.parametrize(
    ("repo", "model_id"),
    [
        ("deepseek-ai/DeepSeek-R1", "deepseek-r1"),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b"),
        ("openai/gpt-oss-120b", "gpt-oss-120b"),
        ("Qwen/Qwen3-235B-A22B", "qwen3-235b-a22b"),
        ("moonshotai/Kimi-K2-Instruct", "kimi-k2"),
    ],
)
def test_hugging_face_repository_names_resolve(repo: str, model_id: str) -> None:
    assert tk.catalog.resolve_model_id(repo) == model_id
    assert tk.catalog.model(repo).model_id == model_id


@pytest.mark.parametrize("repo", ["nvidia/DeepSeek-R1-FP4", "deepseek-ai/", "no-org/no-such-model"])
def test_repository_names_that_name_another_checkpoint_or_nothing_still_raise(repo: str) -> None:
    with pytest.raises(KeyError, match="unknown model"):
        tk.catalog.resolve_model_id(repo)


@pytest.mark.parametrize("model_id", sorted({m for _, m in NAMES}))
def test_every_new_model_has_a_default_price(model_id: str) -> None:
    p = tk.price(model_id)
    assert p.output_usd_per_mtok >= p.input_usd_per_mtok > 0


def test_kimi_k27_is_a_k2_family_mla_model_with_a_moonshot_price() -> None:
    m = tk.model("kimi-k2.7")
    assert (m.attention_type, m.total_params_b, m.active_params_b) == ("mla", 1000.0, 32.0)
    assert m.max_context_tokens == 262_144
    p = tk.price("kimi-k2.7")  # first-party default
    assert p.provider == "Moonshot"
    # Moonshot's launch list price, USD/Mtok (vercel.com providers page; apidog guide)
    assert (p.input_usd_per_mtok, p.cached_input_usd_per_mtok, p.output_usd_per_mtok) == (0.95, 0.19, 4.0)


def test_deepseek_v4_kv_cache_is_a_tenth_of_v32_at_1m() -> None:
    # DeepSeek-V4 model card: at 1M tokens V4-Pro needs "10% of KV cache compared with
    # DeepSeek-V3.2". By hand (BF16): V3.2 61 x (512 + 64) x 2 B = 70,272 B/token; V4-Pro
    # 512 x 2 B x (30/4 + 31/128) = 7,928 B/token -> 11.3 % (the CSA indexer keys are not counted).
    v4 = tk.kv_cache_bytes_per_sequence("deepseek-v4-pro", 1_000_000.0)
    v32 = tk.kv_cache_bytes_per_sequence("deepseek-v3.2", 1_000_000.0)
    assert tk.kv_cache_bytes_per_token("deepseek-v4-pro") == pytest.approx(512 * 2 * (30 / 4 + 31 / 128))
    assert 0.08 < v4 / v32 < 0.13


def test_qwen35_linear_attention_layers_hold_no_per_token_cache() -> None:
    # only the 15 gated-attention layers cache K and V: 15 x 2 KV heads x (256 + 256) x 2 B
    assert tk.kv_cache_bytes_per_token("qwen3.5-397b-a17b") == 15 * 2 * 512 * 2


def test_published_tiers() -> None:
    fast = tk.price("kimi-k2", "Moonshot", price_tier="fast")  # kimi-k2-turbo-preview
    std = tk.price("kimi-k2", "Moonshot")
    assert fast.output_usd_per_mtok == 4 * std.output_usd_per_mtok == 10.0
    off = tk.price("deepseek-v4.1-flash", price_tier="off-peak")
    peak = tk.price("deepseek-v4.1-flash")
    assert off.output_usd_per_mtok == peak.output_usd_per_mtok / 2 == 0.60
    assert tk.price("deepseek-v4.1-flash", price_tier="offpeak") == off  # spelling variants


@pytest.mark.parametrize(("name", "model_id"), NAMES[:3])
def test_matching_ids_agrees_with_resolve_and_never_raises_for_a_name(name: str, model_id: str) -> None:
    assert tk.catalog.matching_ids("model_index", name) == {model_id}
    assert tk.catalog.matching_ids("model_index", f"{name} no such variant") == set()
    with pytest.raises(KeyError, match="no such variant"):
        tk.catalog.resolve_model_id(f"{name} no such variant")
