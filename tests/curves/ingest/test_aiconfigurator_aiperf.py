"""AIConfigurator projections and AIPerf / GenAI-Perf exports: hand-checked conversions.

``aiconfigurator_*_pareto.csv`` are the first rows of real ``pareto.csv`` files written by
``aiconfigurator cli default --model Qwen/Qwen3-32B --system h200_sxm --backend trtllm
--total-gpus 8 --isl 4000 --osl 500`` (AIConfigurator 0.12.0). The AIPerf / GenAI-Perf files follow
the documented export layout (ai-dynamo/aiperf docs/tutorials/working-with-profile-exports.md).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.curves.ingest import IngestError, detect_format

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "ingest"
AGG = FIX / "aiconfigurator_agg_pareto.csv"
DISAGG = FIX / "aiconfigurator_disagg_pareto.csv"
AIPERF = FIX / "aiperf_profile_export_aiperf.json"


def test_aiconfigurator_tokens_per_gpu_is_output_and_input_is_added() -> None:
    row = tk.read_aiconfigurator(AGG).iloc[0]
    # file: tokens/s 1585.709 on 2 GPUs, tokens/s/gpu 792.854, isl 4000, osl 500, tokens/s/user 10.14
    assert row["output_throughput_tok_per_s_per_gpu"] == pytest.approx(1585.709 / 2)
    assert row["input_throughput_tok_per_s_per_gpu"] == pytest.approx(1585.709 * 4000 / 500 / 2)
    assert row["throughput_tok_per_s_per_gpu"] == pytest.approx(1585.709 * (1 + 8) / 2)
    assert row["interactivity_tok_per_s_per_user"] == pytest.approx(10.14)
    assert row["tpot_median_s"] == pytest.approx(0.098622)
    assert row["kind"] == "projected"
    assert (row["hardware_id"], row["precision"], row["framework"]) == ("h200-sxm", "bf16", "trtllm")
    # the checkpoint name resolves to the catalog model
    assert (row["model_id"], bool(row["model_in_catalog"])) == ("qwen3-32b", True)


def test_aiconfigurator_uncatalogued_model_keeps_its_name(tmp_path: Path) -> None:
    f = tmp_path / "pareto.csv"
    f.write_text(AGG.read_text(encoding="utf-8").replace("Qwen/Qwen3-32B", "Acme/Zeta-9B"), encoding="utf-8")
    row = tk.read_aiconfigurator(f).iloc[0]
    assert (row["model_id"], bool(row["model_in_catalog"])) == ("zeta-9b", False)


def test_aiconfigurator_disaggregated_rows_use_role_denominators() -> None:
    row = tk.read_aiconfigurator(DISAGG).iloc[0]
    # 4 prefill workers x TP1 and 1 decode worker x TP4; tokens/s 4325.4 (output)
    assert (row["num_prefill_gpus"], row["num_decode_gpus"], row["num_gpus"]) == (4, 4, 8)
    assert row["output_throughput_tok_per_s_per_gpu"] == pytest.approx(4325.4 / 4)
    assert row["input_throughput_tok_per_s_per_gpu"] == pytest.approx(4325.4 * 8 / 4)
    assert bool(row["disaggregated"])


def test_aiconfigurator_unknown_system_keeps_its_name(tmp_path: Path) -> None:
    f = tmp_path / "pareto.csv"
    f.write_text(AGG.read_text(encoding="utf-8").replace("h200_sxm", "h999_sxm"), encoding="utf-8")
    pts = tk.read_aiconfigurator(f)
    assert set(pts["hardware_id"]) == {"h999sxm"}
    assert set(pts["hardware_name"]) == {"h999_sxm"}


def test_aiconfigurator_inconsistent_per_gpu_column_is_refused(tmp_path: Path) -> None:
    table = pd.read_csv(AGG)
    table.loc[0, "tokens/s/gpu"] = table.loc[0, "tokens/s"]  # total written as per GPU
    f = tmp_path / "pareto.csv"
    table.to_csv(f, index=False)
    with pytest.raises(IngestError, match=r"row 2 tokens/s/gpu"):
        tk.read_aiconfigurator(f)


def test_aiconfigurator_missing_column_named(tmp_path: Path) -> None:
    f = tmp_path / "pareto.csv"
    pd.read_csv(AGG).drop(columns=["num_total_gpus"]).to_csv(f, index=False)
    with pytest.raises(IngestError, match="num_total_gpus"):
        tk.read_aiconfigurator(f)


def test_aiperf_json_by_hand() -> None:
    row = tk.read_aiperf(AIPERF).iloc[0]
    # 2 GPUs in telemetry; output 1200 tok/s; input total_isl 200000 / 50 s = 4000 tok/s
    assert row["num_gpus"] == 2
    assert row["hardware_id"] == "h200-sxm"
    assert row["output_throughput_tok_per_s_per_gpu"] == pytest.approx(600.0)
    assert row["throughput_tok_per_s_per_gpu"] == pytest.approx(2600.0)
    assert row["interactivity_tok_per_s_per_user"] == pytest.approx(1 / 0.020)
    assert row["interactivity_p90_tok_per_s_per_user"] == pytest.approx(1 / 0.025)
    assert row["ttft_median_s"] == pytest.approx(0.4)
    assert (row["model_id"], row["concurrency"], row["kind"], row["as_of"]) == ("kimi-k2.7", 16, "measured",
                                                                                 "2026-11-20")


def test_aiperf_csv_matches_json() -> None:
    csv_row = tk.read_aiperf(FIX / "aiperf_profile_export_aiperf.csv", hardware="h200", num_gpus=2,
                             model="moonshotai/Kimi-K2.7-Code", concurrency=16).iloc[0]
    json_row = tk.read_aiperf(AIPERF).iloc[0]
    for col in ("throughput_tok_per_s_per_gpu", "output_throughput_tok_per_s_per_gpu",
                "interactivity_tok_per_s_per_user", "ttft_p90_s", "e2el_median_s"):
        assert csv_row[col] == pytest.approx(json_row[col])


def test_genai_perf_json_by_hand() -> None:
    row = tk.read_genai_perf(FIX / "genai_perf_profile_export_genai_perf.json", hardware="B200", num_gpus=1).iloc[0]
    # output 400 tok/s; input 2 req/s x 2000 tokens = 4000 tok/s; ITL 10 ms
    assert row["throughput_tok_per_s_per_gpu"] == pytest.approx(4400.0)
    assert row["interactivity_tok_per_s_per_user"] == pytest.approx(100.0)
    assert row["concurrency"] == 8
    assert (row["model_id"], bool(row["model_in_catalog"])) == ("somemodel-70b", False)


def test_aiperf_without_gpu_count_names_it() -> None:
    with pytest.raises(IngestError, match="num_gpus"):
        tk.read_genai_perf(FIX / "genai_perf_profile_export_genai_perf.json", hardware="B200")


def test_aiperf_seconds_unit_slip_is_refused(tmp_path: Path) -> None:
    doc = AIPERF.read_text(encoding="utf-8").replace('"inter_token_latency": {"unit": "ms"',
                                                     '"inter_token_latency": {"unit": "tokens"')
    f = tmp_path / "profile_export_aiperf.json"
    f.write_text(doc, encoding="utf-8")
    with pytest.raises(IngestError, match=r"inter_token_latency\.unit"):
        tk.read_aiperf(f)


@pytest.mark.parametrize(
    ("name", "fmt"),
    [("aiconfigurator_agg_pareto.csv", "aiconfigurator"), ("aiconfigurator_disagg_pareto.csv", "aiconfigurator"),
     ("aiperf_profile_export_aiperf.json", "aiperf"), ("aiperf_profile_export_aiperf.csv", "aiperf"),
     ("genai_perf_profile_export_genai_perf.json", "aiperf")],
)
def test_directory_reader_detects_the_formats(name: str, fmt: str) -> None:
    assert detect_format(FIX / name) == fmt


def test_directory_reader_reads_them(tmp_path: Path) -> None:
    for name in ("aiconfigurator_agg_pareto.csv", "aiperf_profile_export_aiperf.json"):
        (tmp_path / name).write_bytes((FIX / name).read_bytes())
    points, skipped = tk.read_results_dir(tmp_path)
    assert skipped.empty
    assert sorted(points["kind"].unique()) == ["measured", "projected"]
    assert len(points) == 5 + 1


# --- real AIPerf 0.13 exports ----------------------------------------------------------------------
# aiperf013_* were written by AIPerf 0.13.0 (`aiperf profile --endpoint-type chat --streaming
# --concurrency 2 --request-count 8 --synthetic-input-tokens-mean 64 --output-tokens-mean 6`)
# against the streaming stub server of tests/outputs/test_measure.py.


def test_aiperf_013_json_by_hand() -> None:
    row = tk.read_aiperf(FIX / "aiperf013_profile_export_aiperf.json", hardware="h100", num_gpus=1).iloc[0]
    # model and concurrency from input_config.models.items / phases; output 103.180333 tok/s;
    # input total_isl 512 / benchmark_duration 0.458577408 s; ITL p50 16.5411084 ms
    assert (row["model_name"], row["concurrency"]) == ("mock-model", 2)
    assert row["output_throughput_tok_per_s_per_gpu"] == pytest.approx(103.18033299277087)
    assert row["throughput_tok_per_s_per_gpu"] == pytest.approx(103.18033299277087 + 512 / 0.458577408)
    assert row["interactivity_tok_per_s_per_user"] == pytest.approx(1000 / 16.5411084)
    assert row["as_of"] == "2026-12-01"


def test_aiperf_013_csv_agrees_with_its_json() -> None:
    csv_row = tk.read_aiperf(FIX / "aiperf013_profile_export_aiperf.csv", hardware="h100", num_gpus=1,
                             model="mock-model", concurrency=2).iloc[0]
    json_row = tk.read_aiperf(FIX / "aiperf013_profile_export_aiperf.json", hardware="h100", num_gpus=1).iloc[0]
    # the CSV rounds to 2 decimals (benchmark duration 0.46 s), so agree to 1 %
    for col in ("throughput_tok_per_s_per_gpu", "output_throughput_tok_per_s_per_gpu",
                "interactivity_tok_per_s_per_user", "ttft_median_s", "e2el_median_s"):
        assert csv_row[col] == pytest.approx(json_row[col], rel=0.01)
