"""How the calibration reads a measured point's configuration."""

from __future__ import annotations

import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.perf.calibrate import SPEC_ACCEPTANCE_FRAC, _read_config
from tokenomics.perf.speculative import speculative_settings


def _row(precision: str, spec: str | None = None, note: str = "") -> pd.Series:
    return pd.Series({"precision": precision, "spec_decoding": spec, "note": note, "disaggregated": False})


def test_mtp3_point_is_read_at_the_published_three_draft_acceptance() -> None:
    m, hw = tk.model("deepseek-r1"), tk.hardware("b200")
    fields = _read_config(_row("fp4", "mtp", "TRT-LLM, MTP3"), m, hw)
    published = {s.draft_tokens: s.acceptance_frac for s in speculative_settings(m)}
    assert fields["mtp_draft_tokens"] == 3
    assert fields["mtp_acceptance_frac"] == published[3] == pytest.approx(0.70)


def test_mtp_point_without_a_stated_count_is_one_draft_token() -> None:
    fields = _read_config(_row("fp4", "mtp"), tk.model("deepseek-r1"), tk.hardware("b200"))
    assert (fields["mtp_draft_tokens"], fields["mtp_acceptance_frac"]) == (1, pytest.approx(0.85))


def test_model_without_a_published_setting_falls_back_to_the_default_rate() -> None:
    fields = _read_config(_row("fp4", "eagle"), tk.model("gpt-oss-120b"), tk.hardware("b200"))
    assert fields["mtp_acceptance_frac"] == SPEC_ACCEPTANCE_FRAC


def test_no_speculative_decoding_means_no_draft() -> None:
    fields = _read_config(_row("fp8", "none"), tk.model("deepseek-r1"), tk.hardware("h200"))
    assert (fields["mtp_draft_tokens"], fields["mtp_acceptance_frac"]) == (0, 0.0)


@pytest.mark.parametrize(("hardware", "activation"), [("h200", "bf16"), ("mi300x", "bf16"), ("b200", None)])
def test_fp4_weights_compute_in_bf16_only_without_fp4_tensor_cores(hardware: str, activation: str | None) -> None:
    fields = _read_config(_row("mxfp4"), tk.model("gpt-oss-120b"), tk.hardware(hardware))
    assert fields["activation_precision"] == activation
    assert fields["weight_precision"] == "fp4"


def test_int4_checkpoint_is_weight_only_everywhere() -> None:
    fields = _read_config(_row("int4"), tk.model("kimi-k2.5"), tk.hardware("b200"))
    assert fields["activation_precision"] == "bf16"
    assert fields["kv_precision"] == "bf16"


@pytest.mark.parametrize("name", ["sequential_prefill", "operator_tables", "holdout", "frontier_only"])
@pytest.mark.parametrize("value", ["no", 1, None])
def test_calibrate_switches_must_be_bools(name: str, value: object) -> None:
    from tokenomics.perf import calibrate

    with pytest.raises(ValueError, match=rf"{name}={value!r} must be True or False"):
        calibrate(pd.DataFrame(), **{name: value})  # type: ignore[arg-type]
