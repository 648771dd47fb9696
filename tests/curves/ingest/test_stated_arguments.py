"""Precision, framework and as_of arguments agree with what a result file states, or are refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tokenomics.curves.ingest import (
    ArgumentConflictError,
    read_aiperf,
    read_inferencex,
    read_mlperf,
    read_power_baseline,
    read_results,
    read_results_dir,
)

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "ingest"
RAW_NAME = "dsr1_8k1k_fp8_sglang_tp8-ep8-dpafalse_disagg-false_spec-none_conc32_b200-dgxc-slurm.json"


def _raw(tmp_path: Path, name: str = RAW_NAME) -> Path:
    path = tmp_path / name
    shutil.copy(FIX / "raw_plain_bench.json", path)
    return path


def _agg(tmp_path: Path, **changes: object) -> Path:
    row = json.loads((FIX / "agg_hand_b200.json").read_text())  # precision fp8, framework sglang
    row.update(changes)
    for key in [k for k, v in changes.items() if v is None]:
        del row[key]
    path = tmp_path / "agg_row.json"
    path.write_text(json.dumps(row))
    return path


# --- precision and framework -----------------------------------------------------------------


def test_raw_file_name_precision_and_framework_win(tmp_path: Path) -> None:
    path = _raw(tmp_path)  # the name states fp8 and sglang
    with pytest.raises(ArgumentConflictError, match=r"<file name>.*precision 'fp8'; precision='fp4'"):
        read_inferencex(path, precision="fp4")
    with pytest.raises(ArgumentConflictError, match=r"framework 'sglang'; framework='vllm'"):
        read_results(path, framework="vllm")
    pts = read_inferencex(path, precision="FP8", framework="SGLang")
    assert pts[["precision", "framework"]].iloc[0].tolist() == ["fp8", "sglang"]


def test_raw_file_without_metadata_takes_the_arguments(tmp_path: Path) -> None:
    pts = read_inferencex(_raw(tmp_path, "run.json"), hardware="b200", num_gpus=8, precision="fp4",
                          framework="vllm")
    assert pts[["precision", "framework"]].iloc[0].tolist() == ["fp4", "vllm"]


def test_aggregate_row_precision_and_framework_are_checked(tmp_path: Path) -> None:
    path = _agg(tmp_path)
    with pytest.raises(ArgumentConflictError, match=r"agg_row\.json: key 'precision'.*'fp8'.*precision='bf16'"):
        read_inferencex(path, precision="bf16")
    with pytest.raises(ArgumentConflictError, match=r"key 'framework'.*'sglang'.*framework='trt'"):
        read_results(path, framework="trt")
    assert read_inferencex(path, precision="fp8")["precision"].iloc[0] == "fp8"
    bare = _agg(tmp_path, precision=None, framework=None)
    pts = read_inferencex(bare, precision="fp4", framework="vllm")
    assert pts[["precision", "framework"]].iloc[0].tolist() == ["fp4", "vllm"]


def test_precision_is_refused_where_the_reader_does_not_use_it() -> None:
    with pytest.raises(ArgumentConflictError, match="precision='fp8' does not apply: mlperf files"):
        read_results(FIX / "mlperf_summary_small.json", precision="fp8")
    with pytest.raises(ArgumentConflictError, match="framework='sglang' does not apply: power files"):
        read_results(FIX / "power_hand.json", framework="sglang")


def test_unknown_keyword_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="'hardwre'"):
        read_results(FIX / "power_hand.json", hardwre="b200")


def test_directory_refuses_a_contradicting_precision(tmp_path: Path) -> None:
    _raw(tmp_path)
    with pytest.raises(ArgumentConflictError, match="precision='fp4'"):
        read_results_dir(tmp_path, precision="fp4")


# --- as_of -----------------------------------------------------------------------------------


def test_mlperf_as_of_must_be_the_round_date() -> None:
    path = FIX / "mlperf_summary_small.json"  # round v6.0, published 2026-04-01
    with pytest.raises(ArgumentConflictError, match=r"version v6\.0.*'2026-04-01'; as_of='2025-01-01'"):
        read_mlperf(path, as_of="2025-01-01")
    with pytest.raises(ArgumentConflictError, match="as_of='2025-01-01'"):
        read_results(path, as_of="2025-01-01")
    assert set(read_results(path, as_of="2026-04-01")["as_of"]) == {"2026-04-01"}


def test_power_as_of_must_match_the_timestamp() -> None:
    path = FIX / "power_hand.json"  # ts 2026-06-12T00:00:00+00:00
    with pytest.raises(ArgumentConflictError, match=r"key 'ts'.*'2026-06-12'; as_of='2026-01-01'"):
        read_power_baseline(path, as_of="2026-01-01")
    with pytest.raises(ArgumentConflictError, match="as_of='2026-01-01'"):
        read_results(path, as_of="2026-01-01")
    assert read_power_baseline(path, as_of="2026-06-12")["as_of"].iloc[0] == "2026-06-12"


def test_power_file_without_timestamp_takes_as_of(tmp_path: Path) -> None:
    doc = json.loads((FIX / "power_hand.json").read_text())
    del doc["ts"]
    path = tmp_path / "power.json"
    path.write_text(json.dumps(doc))
    assert read_power_baseline(path, as_of="2026-05-02")["as_of"].iloc[0] == "2026-05-02"


def test_raw_and_aiperf_dates_are_not_overridden(tmp_path: Path) -> None:
    raw = _raw(tmp_path)  # date 20260601-080000
    with pytest.raises(ArgumentConflictError, match=r"key 'date'.*'2026-06-01'; as_of='2026-01-01'"):
        read_inferencex(raw, as_of="2026-01-01")
    assert read_inferencex(raw, as_of="2026-06-01")["as_of"].iloc[0] == "2026-06-01"
    aiperf = FIX / "aiperf_profile_export_aiperf.json"  # start_time 2026-11-20T10:00
    with pytest.raises(ArgumentConflictError, match=r"key 'start_time'.*as_of='2026-01-01'"):
        read_aiperf(aiperf, as_of="2026-01-01")
