"""Tests of the published speculative-decoding settings."""

from __future__ import annotations

import pytest

from tokenomics.perf import ServingConfig
from tokenomics.perf.speculative import SPECULATIVE_SETTINGS, speculative_settings


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
