"""Bad result files: every reader ends in a clear error naming the file and the field, or reads
the file correctly; a bad file never aborts a directory read.

Each case writes one file into a temporary directory: a valid InferenceX aggregate row, power
baseline, raw benchmark file or MLPerf table with one field changed, or a file broken as a whole
(not UTF-8, a byte-order mark, nested too deeply, empty, the wrong JSON type).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import tokenomics as tk
from tests.reliability._clear import assert_clear
from tokenomics.curves.ingest import IngestError
from tokenomics.curves.ingest.aiperf import read_aiperf

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"

AGG: dict[str, Any] = json.loads((FIXTURES / "agg_hand_b200.json").read_text())
# the stated interactivity and the input/output split are checked against other fields; drop
# them so each case exercises exactly the field it changes
for _k in ("median_intvty", "p90_intvty", "output_tput_per_gpu", "input_tput_per_gpu"):
    AGG.pop(_k)
POWER: dict[str, Any] = json.loads((FIXTURES / "power_hand.json").read_text())
RAW: dict[str, Any] = json.loads((FIXTURES / "raw_plain_bench.json").read_text())
MLPERF_CSV = (FIXTURES / "bad_mlperf_per_accelerator.csv").read_text().splitlines()


def _write(tmp_path: Path, doc: Any, name: str = "row.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


# --- InferenceX aggregate rows: one field changed -------------------------------------------------
# (key, bad value, fragments the message must name besides the file)
AGG_CASES: list[tuple[str, Any, tuple[str, ...]]] = [
    # impossible values
    ("conc", -16, ("concurrency", "-16")),
    ("conc", 0, ("concurrency", "0")),
    ("conc", math.inf, ("concurrency", "inf")),
    ("conc", 1e9, ("concurrency", "1e+09")),
    ("tp", 1.5, ("tp", "1.5", "integer")),
    ("tp", 0, ("tp", "0")),
    ("tp", -8, ("tp", "-8")),
    ("tp", math.inf, ("inf",)),
    ("ep", 2.5, ("ep", "2.5")),
    ("ep", -1, ("ep", "-1")),
    ("pp", 0.5, ("pp", "0.5")),
    ("isl", 0, ("isl", "0")),
    ("isl", -1024, ("isl", "-1024")),
    ("isl", 1e12, ("isl", "1e+12")),
    ("osl", 0, ("osl", "0")),
    ("osl", -1, ("osl", "-1")),
    ("osl", math.inf, ("osl", "inf")),
    ("tput_per_gpu", -5.0, ("tput_per_gpu", "-5")),
    ("tput_per_gpu", math.inf, ("throughput_tok_per_s_per_gpu", "inf")),
    ("tput_per_gpu", 1e9, ("throughput_tok_per_s_per_gpu", "1e+09")),
    ("tput_per_gpu", 1e-6, ("throughput_tok_per_s_per_gpu", "1e-06")),
    ("joules_per_total_token", -0.6, ("joules_per_token", "-0.6")),
    ("joules_per_total_token", math.inf, ("joules_per_token", "inf")),
    ("joules_per_output_token", -6.0, ("output_joules_per_token", "-6")),
    ("joules_per_output_token", 1e9, ("output_joules_per_token", "1e+09")),
    # units slips: milliseconds in seconds fields, seconds where ms would be
    ("median_tpot", 2.0, ("median_tpot", "2.0")),
    ("median_tpot", 20.0, ("median_tpot", "20.0")),
    ("median_tpot", 0.000025, ("median_tpot", "2.5e-05", "milliseconds")),
    ("p90_tpot", 25.0, ("p90_tpot", "25.0")),
    ("median_tpot", 1.5, ("median_tpot", "1.5", "[0.0001, 1.0] s")),
    ("p99_tpot", 40.0, ("p99_tpot", "40.0")),
    ("median_itl", 19.0, ("median_itl", "19.0")),
    ("p90_itl", 24.0, ("p90_itl", "24.0")),
    ("median_tpot", -0.02, ("median_tpot", "-0.02")),
    ("median_tpot", 0.0, ("median_tpot", "0.0")),
    ("median_ttft", 500000.0, ("ttft_median_s", "500000")),
    ("median_ttft", -0.5, ("ttft_median_s", "-0.5")),
    ("p90_ttft", math.inf, ("ttft_p90_s", "inf")),
    ("p99_ttft", -1.0, ("ttft_p99_s", "-1")),
    ("median_e2el", -21.0, ("e2el_median_s", "-21")),
    ("median_e2el", 1e7, ("e2el_median_s", "1e+07")),
    ("p90_e2el", 0.0, ("e2el_p90_s", "0")),
    # not numbers
    ("conc", "sixteen", ("conc", "sixteen")),
    ("tp", "eight", ("tp", "eight")),
    ("isl", "8k", ("isl", "8k")),
    ("tput_per_gpu", "fast", ("tput_per_gpu", "fast")),
    ("tput_per_gpu", True, ("tput_per_gpu", "boolean")),
    ("tput_per_gpu", None, ("tput_per_gpu", "missing")),
    ("median_tpot", "0.02s", ("median_tpot", "0.02s")),
    ("median_ttft", [0.5], ("median_ttft", "[0.5]")),
    ("median_e2el", {"v": 1}, ("median_e2el", "{'v': 1}")),
    ("joules_per_total_token", "n/a", ("joules_per_total_token", "n/a")),
    ("disagg", "maybe", ("disagg", "maybe")),
    ("dp_attention", "perhaps", ("dp_attention", "perhaps")),
    # unknown hardware
    ("hw", "quantum-9000", ("quantum-9000",)),
    ("hw", "", ("hardware name is missing",)),
    ("hw", None, ("hardware name is missing",)),
]


@pytest.mark.parametrize(("key", "value", "fragments"), AGG_CASES,
                         ids=[f"{k}={v!r}" for k, v, _ in AGG_CASES])
def test_aggregate_row_field(tmp_path: Path, key: str, value: Any, fragments: tuple[str, ...]) -> None:
    path = _write(tmp_path, {**AGG, key: value})
    error = KeyError if key == "hw" else IngestError
    assert_clear(lambda: tk.read_inferencex(path), error, (str(path), *fragments))


AS_OF_CASES = [("yesterday", "not an ISO date"), ("2026-13-45", "not an ISO date"),
               ("2999-01-01", "in the future"), ("01/06/2026", "not an ISO date")]


@pytest.mark.parametrize(("as_of", "problem"), AS_OF_CASES)
def test_reader_as_of(tmp_path: Path, as_of: str, problem: str) -> None:
    path = _write(tmp_path, AGG)
    assert_clear(lambda: tk.read_inferencex(path, as_of=as_of), IngestError, (str(path), "as_of", problem))


# --- arguments passed to readers ---------------------------------------------------------------------
GPU_ARGS = [0.5, 0.0, -8.0, math.inf, math.nan, 1e9, 2.5]


@pytest.mark.parametrize("gpus", GPU_ARGS)
def test_raw_file_gpu_count_argument(tmp_path: Path, gpus: float) -> None:
    path = _write(tmp_path, RAW, "raw.json")
    assert_clear(lambda: tk.read_inferencex(path, hardware="b200", num_gpus=gpus), (IngestError, ValueError),
                 (str(path), "gpu"))


def test_raw_file_reads_with_valid_arguments(tmp_path: Path) -> None:
    # the documented correct result the bad cases are measured against
    path = _write(tmp_path, RAW, "raw.json")
    pts = tk.read_inferencex(path, hardware="b200", num_gpus=8)
    assert pts["throughput_tok_per_s_per_gpu"].iloc[0] == pytest.approx(4800.0 / 8)
    assert pts["interactivity_tok_per_s_per_user"].iloc[0] == pytest.approx(1 / 0.025)


RAW_CASES: list[tuple[str, Any, tuple[str, ...]]] = [
    ("median_tpot_ms", 0.025, ("median_tpot_ms", "2.5e-05", "[0.0001, 1.0] s")),
    ("p99_tpot_ms", 0.04, ("p99_tpot_ms", "4e-05", "[0.0001, 5.0] s")),
    ("median_tpot_ms", -25.0, ("median_tpot_ms",)),
    ("median_tpot_ms", 25000.0, ("median_tpot_ms",)),
    ("total_token_throughput", -4800.0, ("total_token_throughput", "-4800")),
    ("total_token_throughput", "lots", ("total_token_throughput", "lots")),
    ("output_throughput", math.inf, ("inf",)),
    ("median_ttft_ms", -200.0, ("ttft", "-0.2")),
    ("max_concurrency", -32, ("concurrency", "-32")),
    ("date", "soon", ("as_of", "soon")),
    ("date", "29990101-000000", ("as_of", "future")),
]


@pytest.mark.parametrize(("key", "value", "fragments"), RAW_CASES, ids=[f"{k}={v!r}" for k, v, _ in RAW_CASES])
def test_raw_file_field(tmp_path: Path, key: str, value: Any, fragments: tuple[str, ...]) -> None:
    path = _write(tmp_path, {**RAW, key: value}, "raw.json")
    assert_clear(lambda: tk.read_inferencex(path, hardware="b200", num_gpus=8), IngestError,
                 (str(path), *fragments))


# --- power baselines -----------------------------------------------------------------------------
POWER_CASES: list[tuple[tuple[str, ...], Any, tuple[str, ...]]] = [
    (("gpu", "mean_power_per_gpu_w"), -500.0, ("power",)),
    (("gpu", "mean_power_per_gpu_w"), 0.5, ("power",)),
    (("gpu", "mean_power_per_gpu_w"), math.inf, ("power",)),
    (("gpu", "mean_power_per_gpu_w"), "hot", ("hot",)),
    (("gpu", "n_gpus"), 0.5, ("0.5",)),
    (("gpu", "n_gpus"), -8, ("-8",)),
    (("gpu", "n_gpus"), 0, ("0",)),
    (("metrics", "total_token_throughput"), -8000.0, ("-8000",)),
    (("metrics", "total_token_throughput"), math.inf, ("inf",)),
    (("metrics", "median_tpot_ms"), 0.02, ("median_tpot_ms", "2e-05")),
    (("metrics", "median_tpot_ms"), -20.0, ("median_tpot_ms", "-0.02 s")),
    (("tp",), 1.5, ("tp", "1.5")),
    (("conc",), -32, ("concurrency", "-32")),
    (("isl",), 0, ("isl",)),
    (("ts",), "not-a-date", ("not-a-date",)),
]


@pytest.mark.parametrize(("where", "value", "fragments"), POWER_CASES,
                         ids=[f"{'.'.join(w)}={v!r}" for w, v, _ in POWER_CASES])
def test_power_baseline_field(tmp_path: Path, where: tuple[str, ...], value: Any,
                              fragments: tuple[str, ...]) -> None:
    doc = json.loads(json.dumps(POWER))
    node = doc
    for part in where[:-1]:
        node = node[part]
    node[where[-1]] = value
    path = _write(tmp_path, doc, "power.json")
    assert_clear(lambda: tk.read_power_baseline(path), IngestError, (str(path), *fragments))


# --- MLPerf tables -------------------------------------------------------------------------------------
MLPERF_HEADER = MLPERF_CSV[0].split(",")
MLPERF_ROW = MLPERF_CSV[1].split(",")
MLPERF_CASES: list[tuple[str, str, tuple[str, ...]]] = [
    ("tpot_p99_limit_ms", "0.08", ("interactivity", "12500")),
    ("tpot_p99_limit_ms", "0", ("tpot_p99_limit_ms",)),
    ("tpot_p99_limit_ms", "-80", ("-80",)),
    ("tpot_p99_limit_ms", "fast", ("fast",)),
    ("total_accelerators", "0", ("total accelerators", "0")),
    ("total_accelerators", "-8", ("total accelerators", "-8")),
    ("total_accelerators", "0.5", ("0.5",)),
    ("total_accelerators", "eight", ("eight",)),
    ("result", "-40000", ("-40000",)),
    ("result", "inf", ("inf",)),
    ("result", "many", ("many",)),
    ("result_per_accelerator", "40000", ("result_per_accelerator",)),
]


@pytest.mark.parametrize(("column", "value", "fragments"), MLPERF_CASES,
                         ids=[f"{c}={v}" for c, v, _ in MLPERF_CASES])
def test_mlperf_csv_field(tmp_path: Path, column: str, value: str, fragments: tuple[str, ...]) -> None:
    row = list(MLPERF_ROW)
    row[MLPERF_HEADER.index(column)] = value
    if column != "result_per_accelerator":
        # keep the stated per-accelerator figure consistent so the case tests only its field
        row[MLPERF_HEADER.index("result_per_accelerator")] = ""
    path = tmp_path / "mlperf.csv"
    path.write_text("\n".join([",".join(MLPERF_HEADER), ",".join(row)]) + "\n")
    assert_clear(lambda: tk.read_mlperf(path), IngestError, (str(path), *fragments))


def test_mlperf_csv_with_bom_reads(tmp_path: Path) -> None:
    row = list(MLPERF_ROW)
    row[MLPERF_HEADER.index("result_per_accelerator")] = "5000"
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf" + ("\n".join([",".join(MLPERF_HEADER), ",".join(row)]) + "\n").encode())
    pts = tk.read_results(path)
    assert pts["output_throughput_tok_per_s_per_gpu"].tolist() == [5000.0]


# --- whole-file breakage -----------------------------------------------------------------------------
def _deep(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


WHOLE_FILE: list[tuple[str, bytes, tuple[str, ...]]] = [
    ("deep.json", _deep(100_000), ("nested too deeply",)),
    ("deep_obj.json", b'{"a":' * 50_000 + b"1" + b"}" * 50_000, ("nested too deeply",)),
    ("latin1.json", '{"hw": "b200", "model": "café"}'.encode("latin-1"), ("not utf-8",)),
    ("utf16.json", json.dumps(AGG).encode("utf-16"), ("not utf-8",)),
    ("binary.json", bytes(range(256)), ("not utf-8",)),
    ("empty.json", b"", ("not valid json",)),
    ("truncated.json", json.dumps(AGG).encode()[:-10], ("not valid json",)),
    ("nul.json", b"\x00\x00", ("json",)),
    ("latin1.csv", "a,b\ncaf\xe9,1\n".encode("latin-1"), ("not utf-8",)),
    ("empty.csv", b"", ("empty file",)),
    ("ragged.csv", b'a,b\n"unclosed,1\n', ("csv",)),
]


@pytest.mark.parametrize(("name", "content", "fragments"), WHOLE_FILE, ids=[c[0] for c in WHOLE_FILE])
def test_broken_file(tmp_path: Path, name: str, content: bytes, fragments: tuple[str, ...]) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    assert_clear(lambda: tk.read_results(path), IngestError, (str(path), *fragments))
    # a directory read lists it and goes on with the good files
    good = _write(tmp_path, AGG, "good.json")
    points, skipped = tk.read_results_dir(tmp_path)
    assert len(points) == 1
    assert points["source"].iloc[0] == str(good)
    assert str(path) in skipped["path"].tolist()


WRONG_SHAPE: list[tuple[Any, str]] = [
    (42, "expected"), ("text", "expected"), ([1, 2, 3], "expected"), ([AGG, "x"], "expected"),
    (None, "expected"), ({"hw": "b200"}, "tput_per_gpu"),
]


@pytest.mark.parametrize(("doc", "fragment"), WRONG_SHAPE, ids=[repr(d)[:20] for d, _ in WRONG_SHAPE])
def test_wrong_json_shape(tmp_path: Path, doc: Any, fragment: str) -> None:
    path = _write(tmp_path, doc)
    assert_clear(lambda: tk.read_inferencex(path), (IngestError, KeyError), (str(path),))


def test_bom_json_reads(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(AGG).encode())
    pts = tk.read_results(path)
    assert pts["throughput_tok_per_s_per_gpu"].tolist() == [1000.0]


def test_directory_of_only_bad_files_reports_each(tmp_path: Path) -> None:
    for name, content, _ in WHOLE_FILE:
        (tmp_path / name).write_bytes(content)
    for i, (key, value, _) in enumerate(AGG_CASES):
        _write(tmp_path, {**AGG, key: value}, f"agg_{i}.json")
    points, skipped = tk.read_results_dir(tmp_path)
    assert points.empty
    expected = [c[0] for c in WHOLE_FILE] + [f"agg_{i}.json" for i in range(len(AGG_CASES))]
    assert sorted(Path(p).name for p in skipped["path"]) == sorted(expected)


# --- AIConfigurator and AIPerf exports -------------------------------------------------------------
AIC_LINES = (FIXTURES / "aiconfigurator_agg_pareto.csv").read_text().splitlines()
AIC_HEADER = AIC_LINES[0].split(",")
AIC_CASES: list[tuple[str, str, tuple[str, ...]]] = [
    ("tpot", "0.098", ("tpot", "9.8")),          # seconds where the file holds ms
    ("tpot", "-98.6", ("tpot", "-0.0986")),
    ("tokens/s/gpu", "-792.8", ("-792.8",)),
    ("tokens/s/gpu", "inf", ("inf",)),
    ("tokens/s/user", "40000", ("40000",)),
    ("num_total_gpus", "0.5", ("0.5",)),
    ("tp", "1.5", ("1.5",)),
    ("concurrency", "-160", ("-160",)),
    ("isl", "0", ("isl",)),
    ("ttft", "fast", ("fast",)),
]


@pytest.mark.parametrize(("column", "value", "fragments"), AIC_CASES, ids=[f"{c}={v}" for c, v, _ in AIC_CASES])
def test_aiconfigurator_field(tmp_path: Path, column: str, value: str, fragments: tuple[str, ...]) -> None:
    row = AIC_LINES[1].split(",")
    row[AIC_HEADER.index(column)] = value
    path = tmp_path / "pareto.csv"
    path.write_text("\n".join([AIC_LINES[0], ",".join(row)]) + "\n")
    assert_clear(lambda: tk.read_results(path), (IngestError, ValueError), (str(path), *fragments))


AIPERF_TEXT = (FIXTURES / "aiperf_profile_export_aiperf.csv").read_text()
AIPERF_CASES: list[tuple[str, str, tuple[str, ...]]] = [
    ("Inter Token Latency (ms),21.0,18.0,45.0,18.0,18.5,19.0,19.5,20.0,",
     "Inter Token Latency (ms),0.021,0.018,0.045,0.018,0.0185,0.019,0.0195,0.020,", ("2e-05",)),
    ("Inter Token Latency (ms),21.0,18.0,45.0,18.0,18.5,19.0,19.5,20.0,",
     "Inter Token Latency (ms),-21.0,-18.0,-45.0,-18.0,-18.5,-19.0,-19.5,-20.0,", ("-0.02",)),
    ("Output Token Throughput (tokens/sec),1200.0", "Output Token Throughput (tokens/sec),-1200.0", ("-1200",)),
    ("Output Token Throughput (tokens/sec),1200.0", "Output Token Throughput (tokens/sec),lots", ("lots",)),
    ("Time to First Token (ms),450.0", "Time to First Token (ms),abc", ("abc",)),
]


AIPERF_IDS = ["itl-seconds", "itl-negative", "tput-negative", "tput-text", "ttft-text"]


@pytest.mark.parametrize(("old", "new", "fragments"), AIPERF_CASES, ids=AIPERF_IDS)
def test_aiperf_field(tmp_path: Path, old: str, new: str, fragments: tuple[str, ...]) -> None:
    assert old in AIPERF_TEXT
    path = tmp_path / "profile_export_aiperf.csv"
    path.write_text(AIPERF_TEXT.replace(old, new, 1))
    assert_clear(lambda: read_aiperf(path, hardware="h200", num_gpus=1, model="qwen3-235b-a22b", concurrency=16),
                 (IngestError, ValueError), (str(path), *fragments))


@pytest.mark.parametrize("name", ["pareto.csv", "profile_export_aiperf.csv"])
def test_new_formats_not_utf8(tmp_path: Path, name: str) -> None:
    text = AIC_LINES[0] + "\n" if name == "pareto.csv" else AIPERF_TEXT
    path = tmp_path / name
    path.write_bytes(text.replace("Metric", "M\xe9tric").encode("latin-1") + "caf\xe9\n".encode("latin-1"))
    assert_clear(lambda: tk.read_results(path), IngestError, (str(path), "not utf-8"))
