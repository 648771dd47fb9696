"""Tests of the published speculative-decoding settings."""

from __future__ import annotations

import pytest

from tokenomics.perf import RooflineFactors, ServingConfig
from tokenomics.perf.speculative import SPECULATIVE_SETTINGS, rate_for_length, speculative_settings
from tokenomics.perf.step import decode_step_time_s


def test_settings_are_sourced_and_in_range() -> None:
    for s in SPECULATIVE_SETTINGS:
        assert s.source
        assert s.note
        assert 0.0 < s.acceptance_frac < 1.0
        assert s.draft_tokens >= 1


def test_mtp3_tokens_per_step_matches_the_published_acceptance_length() -> None:
    # Nebius model card: DeepSeek's original MTP module accepts 3.09-3.20 tokens per step at
    # K = 7 drafts; the per-token rate 0.70 read from it gives (1 - 0.7^8) / 0.3 = 3.14
    s = next(x for x in speculative_settings("deepseek-r1") if x.draft_tokens == 3)
    k7 = ServingConfig(mtp_draft_tokens=7, mtp_acceptance_frac=s.acceptance_frac).tokens_per_step
    assert 3.09 <= k7 <= 3.20
    # three drafts: (1 - 0.7^4) / 0.3 = 2.533
    assert ServingConfig(**s.fields()).tokens_per_step == pytest.approx((1 - 0.7**4) / 0.3)


def test_models_without_a_published_rate_get_none() -> None:
    assert speculative_settings("kimi-k2") == []
    with pytest.raises(KeyError):
        speculative_settings("deepseek-r9")


def test_mtp_draft_pass_streams_one_more_layer_and_the_lm_head() -> None:
    # Llama 3.3 70B BF16 on one H100 at batch 1, ideal factors, one draft at acceptance 0 (one
    # token per step): the verification of 2 tokens stays weight-bound, so the step grows by the
    # draft pass alone. Hand count of its bytes (BF16, 2 bytes per parameter):
    #   attention of one layer: 8192 x 64 x 128 (q) + 8192 x 8 x 256 (k, v) + 64 x 128 x 8192 (o)
    #   FFN of one layer: 3 x 8192 x 28672; LM head 128256 x 8192; projection 2 x 8192 x 8192
    #   KV of one layer at context 1024 + 1024 / 2 = 1536 tokens: 1536 x 2 x 8 x 128 x 2 bytes
    params = (8192 * 64 * 128 + 8192 * 8 * 256 + 64 * 128 * 8192 + 3 * 8192 * 28672
              + 128256 * 8192 + 2 * 8192 * 8192)
    draft_bytes = 2.0 * params + 1536 * 2 * 8 * 128 * 2
    expected_s = draft_bytes / 3.35e12
    ideal = RooflineFactors.ideal()
    base = decode_step_time_s("llama-3.3-70b", "h100", 1.0, factors=ideal)
    mtp = decode_step_time_s("llama-3.3-70b", "h100", 1.0, factors=ideal,
                             config=ServingConfig(mtp_draft_tokens=1, mtp_acceptance_frac=0.0))
    assert mtp - base == pytest.approx(expected_s, rel=0.02)


def test_draft_cost_grows_with_draft_tokens_and_is_absent_without_mtp() -> None:
    cfg = ServingConfig(tp=8, ep=8, weight_precision="fp4", dense_weight_precision="fp8", kv_precision="fp8")
    steps = [float(decode_step_time_s("deepseek-r1", "b200", 64.0, config=cfg.model_copy(
        update={"mtp_draft_tokens": n, "mtp_acceptance_frac": 0.7 if n else 0.0}))) for n in (0, 1, 3)]
    assert steps[0] < steps[1] < steps[2]
    # each draft pass is about one layer of 61 plus the LM head: far below a whole step
    assert steps[2] - steps[0] < 0.5 * steps[0]


def test_v4_settings_reproduce_the_published_acceptance_lengths() -> None:
    # InferenceX golden acceptance lengths of DeepSeek-V4-Pro MTP (SPEED-Bench coding, thinking on)
    published = {1: 1.79, 2: 2.27, 3: 2.49}
    got = {s.draft_tokens: ServingConfig(**s.fields()).tokens_per_step for s in speculative_settings("deepseek-v4-pro")}
    assert got == pytest.approx(published, abs=1e-9)
    # one draft: the rate is the length less the verified token itself
    assert rate_for_length(1, 1.79) == pytest.approx(0.79)


def test_qwen35_settings_reproduce_the_published_acceptance_lengths() -> None:
    # InferenceX golden acceptance lengths of Qwen3.5-397B MTP (SPEED-Bench coding, thinking on)
    published = {1: 1.93, 2: 2.73, 3: 3.39}
    got = {s.draft_tokens: ServingConfig(**s.fields()).tokens_per_step
           for s in speculative_settings("qwen3.5-397b-a17b")}
    assert got == pytest.approx(published, abs=1e-9)


@pytest.mark.parametrize(("draft", "length"), [(1, 1.0), (1, 2.0), (2, 3.5), (0, 1.5)])
def test_rate_for_length_refuses_impossible_lengths(draft: int, length: float) -> None:
    with pytest.raises(ValueError, match="accepted_length"):
        rate_for_length(draft, length)
