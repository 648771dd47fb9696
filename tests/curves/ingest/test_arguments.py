"""Caller arguments never override what a result file states; duplicates and skips are reported."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from tokenomics.curves.ingest import (
    ArgumentConflictError,
    IngestError,
    read_agentx,
    read_inferencex,
    read_results,
    read_results_dir,
)
from tokenomics.curves.schema import CURVE_COLUMNS

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "ingest"
RAW_NAME = "dsr1_8k1k_fp8_sglang_tp8-ep8-dpafalse_disagg-false_spec-none_conc32_b200-dgxc-slurm.json"


def _agg(tmp_path: Path, name: str = "agg_row.json", **changes: object) -> Path:
    row = json.loads((FIX / "agg_hand_b200.json").read_text())
    row.update(changes)
    path = tmp_path / name
    path.write_text(json.dumps(row))
    return path


def _raw(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    shutil.copy(FIX / "raw_plain_bench.json", path)
    return path


# --- hardware -------------------------------------------------------------------------------------


def test_hardware_argument_contradicting_the_file_is_an_error(tmp_path: Path) -> None:
    path = _agg(tmp_path)
    with pytest.raises(ArgumentConflictError, match=r"agg_row\.json.*'b200-dgxc-slurm' \(b200\).*hardware='mi355x'"):
        read_inferencex(path, hardware="mi355x")
    with pytest.raises(ArgumentConflictError, match="hardware='h200'"):
        read_results(path, hardware="h200")


def test_hardware_argument_naming_the_same_id_keeps_the_files_name(tmp_path: Path) -> None:
    pts = read_inferencex(_agg(tmp_path), hardware="B200")
    assert pts["hardware_id"].iloc[0] == "b200"
    assert pts["hardware_name"].iloc[0] == "b200-dgxc-slurm"


def test_hardware_argument_fills_in_a_file_without_one(tmp_path: Path) -> None:
    pts = read_inferencex(_raw(tmp_path, "run.json"), hardware="b200", num_gpus=8)
    assert pts["hardware_id"].iloc[0] == "b200"
    assert pts["hardware_name"].iloc[0] == "b200"


def test_agentx_and_mlperf_refuse_other_hardware() -> None:
    path = FIX / "agentx_disagg_e2e.json"
    other = "b200" if read_agentx(path)["hardware_id"].iloc[0] != "b200" else "mi355x"
    with pytest.raises(ArgumentConflictError, match=f"hardware='{other}'"):
        read_agentx(path, hardware=other)
    with pytest.raises(ArgumentConflictError, match=r"accelerator.*hardware='tpu-v7'"):
        read_results(FIX / "mlperf_summary_small.json", hardware="tpu-v7")


# --- GPU counts -----------------------------------------------------------------------------------


def test_gpu_count_contradicting_the_agg_row_is_an_error(tmp_path: Path) -> None:
    path = _agg(tmp_path)  # tp 8
    with pytest.raises(ArgumentConflictError, match=r"'tp'.*states 8 GPUs; num_gpus=4"):
        read_inferencex(path, num_gpus=4)
    with pytest.raises(ArgumentConflictError, match="num_prefill_gpus=4 does not apply"):
        read_inferencex(path, num_prefill_gpus=4, num_decode_gpus=4)
    assert read_inferencex(path, num_gpus=8)["num_gpus"].iloc[0] == 8


def test_gpu_count_contradicting_the_raw_file_name_is_an_error(tmp_path: Path) -> None:
    tp8 = _raw(tmp_path, RAW_NAME)
    with pytest.raises(ArgumentConflictError, match=r"<file name>.*states 8 GPUs; num_gpus=4"):
        read_inferencex(tp8, num_gpus=4)
    # 4800 tok/s over the name's tp8: 600 tok/s/GPU
    assert read_inferencex(tp8)["throughput_tok_per_s_per_gpu"].iloc[0] == pytest.approx(4800 / 8)
    disagg = _raw(tmp_path, "concurrency_32_req_rate_inf_gpus_16_ctx_4_gen_12.json")
    with pytest.raises(ArgumentConflictError, match="states 16 GPUs; num_gpus=4"):
        read_inferencex(disagg, hardware="b200", num_gpus=4)
    with pytest.raises(ArgumentConflictError, match="states 4 prefill GPUs; num_prefill_gpus=8"):
        read_inferencex(disagg, hardware="b200", num_prefill_gpus=8, num_decode_gpus=8)
    pts = read_inferencex(disagg, hardware="b200", num_gpus=16)
    # output 2400 tok/s over 12 decode GPUs = 200; input 2400 over 4 prefill = 600; total 4800 / 16 = 300
    assert pts["output_throughput_tok_per_s_per_gpu"].iloc[0] == pytest.approx(200.0)
    assert pts["input_throughput_tok_per_s_per_gpu"].iloc[0] == pytest.approx(600.0)
    assert pts["throughput_tok_per_s_per_gpu"].iloc[0] == pytest.approx(300.0)


def test_gpu_count_is_used_where_the_file_states_none(tmp_path: Path) -> None:
    pts = read_inferencex(_raw(tmp_path, "run.json"), hardware="b200", num_gpus=4)
    assert pts["throughput_tok_per_s_per_gpu"].iloc[0] == pytest.approx(4800 / 4)


def test_agentx_checks_gpu_counts_it_used_to_ignore() -> None:
    path = FIX / "agentx_disagg_e2e.json"
    stated = float(read_agentx(path)["num_gpus"].iloc[0])
    with pytest.raises(ArgumentConflictError, match="num_gpus="):
        read_results(path, num_gpus=stated + 1)
    assert float(read_results(path, num_gpus=stated)["num_gpus"].iloc[0]) == stated


def test_gpu_counts_do_not_apply_to_mlperf() -> None:
    with pytest.raises(ArgumentConflictError, match="num_gpus=8 does not apply"):
        read_results(FIX / "mlperf_summary_small.json", num_gpus=8)


def test_directory_raises_on_an_argument_conflict(tmp_path: Path) -> None:
    _agg(tmp_path)
    with pytest.raises(ArgumentConflictError, match="num_gpus=4"):
        read_results_dir(tmp_path, num_gpus=4)
    with pytest.raises(KeyError):
        read_results_dir(tmp_path, hardware="h2000")


# --- zero throughput ------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["tput_per_gpu", "output_tput_per_gpu"])
def test_zero_throughput_is_refused(tmp_path: Path, key: str) -> None:
    path = _agg(tmp_path, **{key: 0.0})
    with pytest.raises(IngestError, match=rf"agg_row\.json: key '{key}': throughput must be > 0"):
        read_inferencex(path)


# --- duplicates and skips -------------------------------------------------------------------------


def test_an_agg_row_and_its_raw_file_are_one_point(tmp_path: Path) -> None:
    # raw: 4800 tok/s over tp8 = 600 tok/s/GPU; the agg row states the same run
    _raw(tmp_path, RAW_NAME)
    raw = read_inferencex(tmp_path / RAW_NAME).iloc[0]
    row = {"hw": "b200-dgxc-slurm", "conc": 32, "model": "meta-llama/Llama-3.3-70B-Instruct", "framework": "sglang",
           "precision": "fp8", "spec_decoding": "none", "disagg": False, "isl": 8192, "osl": 1024, "tp": 8, "ep": 8,
           "dp_attention": False, "tput_per_gpu": 600.0, "output_tput_per_gpu": 300.0,
           "input_tput_per_gpu": 300.0, "median_tpot": 0.025, "p90_tpot": 0.03125, "p99_tpot": 0.04,
           "median_ttft": 0.2}
    (tmp_path / f"agg_{RAW_NAME}").write_text(json.dumps(row))
    assert raw["model_id"] == read_inferencex(tmp_path / f"agg_{RAW_NAME}")["model_id"].iloc[0]
    points, skipped = read_results_dir(tmp_path)
    assert len(points) == 1
    assert len(skipped) == 1
    assert skipped["rows"].iloc[0] == 1
    assert "duplicate of a point read from" in skipped["reason"].iloc[0]
    # another concurrency is another run: both kept
    row["conc"] = 64
    (tmp_path / "agg_other.json").write_text(json.dumps(row))
    points, skipped = read_results_dir(tmp_path)
    assert len(points) == 2
    assert len(skipped) == 1


def test_mlperf_json_and_derived_csv_are_read_once(shared_data: Path) -> None:
    d = shared_data / "mlperf"
    alone = sum(len(read_results(f)) for f in sorted(d.glob("*.json")))
    points, skipped = read_results_dir(d)
    assert len(points) == alone
    dup = skipped[skipped["reason"].str.startswith("duplicate")]
    assert dup["rows"].sum() == 1160 - alone  # every point of the 1,160 read, once or as a listed duplicate
    assert not points.duplicated(["source"]).any()


def test_single_mlperf_file_reports_its_skips(shared_data: Path) -> None:
    pts = read_results(shared_data / "mlperf" / "inference_results_v5.1_summary_results.json")
    skipped = pts.attrs["skipped"]
    assert skipped["suite edge (not datacenter)"] == 862
    assert sum(skipped.values()) > 1000


# --- schema ---------------------------------------------------------------------------------------


def test_every_reader_gives_the_schema_columns_in_order(tmp_path: Path) -> None:
    row = _agg(tmp_path, p99_itl=0.05, p99_e2el=30.0)
    frames = [read_inferencex(row), read_inferencex(_raw(tmp_path, RAW_NAME)),
              read_agentx(FIX / "agentx_disagg_e2e.json"), read_results(FIX / "mlperf_summary_small.json")]
    for frame in frames:
        assert list(frame.columns) == list(CURVE_COLUMNS)
    assert frames[0]["itl_p99_s"].iloc[0] == 0.05
    assert frames[0]["e2el_p99_s"].iloc[0] == 30.0
    assert pd.isna(frames[2]["itl_p99_s"].iloc[0])
