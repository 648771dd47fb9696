"""`tokenomics ingest`: flags never override the file, --format is honoured, skips are listed."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tokenomics.outputs.cli import main

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"
AGG = str(FIX / "agg_hand_b200.json")


def test_hardware_flag_contradicting_the_file_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ingest", AGG, "--hardware", "mi355x"]) == 2
    err = capsys.readouterr().err
    assert "agg_hand_b200.json" in err
    assert "'b200-dgxc-slurm'" in err
    assert "--hardware='mi355x'" in err


def test_gpus_flag_contradicting_the_file_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ingest", AGG, "--gpus", "4"]) == 2
    err = capsys.readouterr().err
    assert "states 8 GPUs; --gpus=4 contradicts it" in err


def test_format_json_to_stdout_and_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["ingest", AGG, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["throughput_tok_per_s_per_gpu"] == 1000.0
    target = tmp_path / "pts.json"
    assert main(["ingest", AGG, "-o", str(target), "--format", "json"]) == 0
    assert json.loads(target.read_text())[0]["hardware_id"] == "b200"
    suffixed = tmp_path / "by_suffix.json"
    assert main(["ingest", AGG, "-o", str(suffixed)]) == 0
    assert json.loads(suffixed.read_text())[0]["hardware_id"] == "b200"
    as_csv = tmp_path / "pts.csv"
    assert main(["ingest", AGG, "-o", str(as_csv)]) == 0
    assert pd.read_csv(as_csv)["hardware_id"].tolist() == ["b200"]


def test_output_suffix_contradicting_format_is_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["ingest", AGG, "-o", str(tmp_path / "pts.json"), "--format", "csv"]) == 2
    assert ".json suffix but --format is csv" in capsys.readouterr().err
    assert not (tmp_path / "pts.json").exists()
    assert main(["ingest", AGG, "-o", str(tmp_path / "pts.csv"), "--format", "table"]) == 2


def test_table_format_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ingest", AGG]) == 0
    out = capsys.readouterr().out
    assert "hardware id" in out
    assert "b200" in out
    assert "hardware_id,model_id" not in out  # not CSV


def test_single_file_lists_its_skipped_rows(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ingest", str(FIX / "mlperf_summary_small.json"), "--format", "csv"]) == 0
    err = capsys.readouterr().err
    assert "skipped" in err
    assert "rows)" in err
