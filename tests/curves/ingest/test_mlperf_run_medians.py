"""benchmarks/mlperf_run_medians.py: floor rows made measured from run summaries, lengths, labels."""

from __future__ import annotations

import pandas as pd
import pytest

from tests._benchmarks import load_benchmark

M = load_benchmark("mlperf_run_medians")


def _catalog() -> pd.DataFrame:
    base = {"hardware_id": "b200", "model_id": "llama-3.1-405b", "workload": "mlperf-server", "kind": "floor",
            "isl_tokens": "", "osl_tokens": "", "spec_decoding": "", "interactivity_tok_per_s_per_user": "5.71",
            "interactivity_p90_tok_per_s_per_user": "5.71", "ttft_median_s": "", "tpot_median_s": "",
            "e2el_median_s": "", "output_throughput_tok_per_s_per_gpu": "155.82",
            "source": "https://github.com/mlcommons/inference_results_v5.1 summary_results.json ID 5.1-0028",
            "note": "MLPerf v5.1 closed available; Dell; output tokens only"}
    other = {**base, "output_throughput_tok_per_s_per_gpu": "99.0",
             "source": "https://github.com/mlcommons/inference_results_v5.1 summary_results.json ID 5.1-0099"}
    return pd.DataFrame([base, other])


def _medians() -> pd.DataFrame:
    return pd.DataFrame([{
        "result_id": "5.1-0028", "workload": "mlperf-server", "model_id": "llama-3.1-405b",
        "output_throughput_tok_per_s_per_gpu": 155.82, "interactivity_tok_per_s_per_user": 1 / 0.1,
        "interactivity_p90_tok_per_s_per_user": 1 / 0.12, "ttft_median_s": 1.3, "tpot_median_s": 0.1,
        "e2el_median_s": 66.0, "where": "github.com/mlcommons/inference_results_v5.1 @965182b",
        "note": ("...; interactivity = 1 / median TPOT of the run's LoadGen summary "
                 "(closed/x/run_1/mlperf_log_summary.txt)"),
    }])


def test_a_floor_with_its_run_summary_becomes_measured_and_the_rest_is_untouched() -> None:
    cat = _catalog()
    out, changed = M.transcribe(cat, _medians())
    assert changed == 1
    row = out.iloc[0]
    assert row["kind"] == "measured"
    assert row["interactivity_tok_per_s_per_user"] == "10"
    assert row["interactivity_p90_tok_per_s_per_user"] == "8.33333"
    assert row["tpot_median_s"] == "0.1"
    assert "closed/x/run_1/mlperf_log_summary.txt (github.com/mlcommons/inference_results_v5.1 @965182b)" in row["note"]
    assert "100.0 ms" in row["note"]
    pd.testing.assert_series_equal(out.iloc[1], cat.iloc[1])  # no summary for this result: still a floor


def test_lengths_and_prescribed_speculation() -> None:
    cat = _catalog().assign(model_id=["llama-3.1-405b", "deepseek-r1"],
                            workload=["mlperf-server", "mlperf-interactive"])
    assert M.set_lengths(cat, {"llama-3.1-405b": 653.4, "deepseek-r1": 3749.8}) == 2
    assert (cat.loc[0, "isl_tokens"], cat.loc[0, "osl_tokens"]) == ("9428.64", "653.4")
    assert (cat.loc[1, "isl_tokens"], cat.loc[1, "osl_tokens"]) == ("803.79", "3750")
    assert "ISL/OSL = dataset mean input and median run output" in cat.loc[0, "note"]
    assert M.set_lengths(cat, {"llama-3.1-405b": 653.4, "deepseek-r1": 3749.8}) == 0  # idempotent
    assert M.mark_speculation(cat) == 1
    assert cat.loc[1, "spec_decoding"] == "mtp"
    assert cat.loc[0, "spec_decoding"] == ""


@pytest.mark.parametrize("model_id", sorted(M.DATASET_MEAN_ISL_TOKENS))
def test_bundled_mlperf_rows_carry_the_dataset_mean_isl(model_id: str) -> None:
    import tokenomics as tk

    pts = tk.curves()
    rows = pts[(pts["model_id"] == model_id) & pts["workload"].astype(str).str.startswith("mlperf-")]
    assert len(rows)
    assert rows["isl_tokens"].to_numpy(dtype=float) == pytest.approx(M.DATASET_MEAN_ISL_TOKENS[model_id])
    osl = rows["osl_tokens"].to_numpy(dtype=float)
    assert (osl == osl[0]).all()
