"""Bad input on the command line: exit status 2 and one line naming the flag, the value and the
range; never a traceback, never status 0 with an empty or non-finite table.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.reliability._clear import INTERNAL_MESSAGES
from tokenomics.outputs.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"

CASES: list[tuple[str, list[str], tuple[str, ...]]] = [
    # cost
    ("cost-util-percent", ["cost", "--hardware", "gb200", "--throughput", "1000", "--utilization", "60"],
     ("--utilization", "60", "percent")),
    ("cost-util-zero", ["cost", "--hardware", "gb200", "--throughput", "1000", "--utilization", "0"],
     ("--utilization", "0")),
    ("cost-util-negative", ["cost", "--hardware", "gb200", "--throughput", "1000", "--utilization", "-0.5"],
     ("--utilization", "-0.5")),
    ("cost-util-nan", ["cost", "--hardware", "gb200", "--throughput", "1000", "--utilization", "nan"],
     ("--utilization", "nan")),
    # the smallest plausible throughput at a subnormal utilization overflows the cost: the finite-result guard
    ("cost-util-tiny", ["cost", "--hardware", "gb200", "--throughput", "0.01", "--utilization", "1e-307"],
     ("finite",)),
    # below the vocabulary's plausible 0.01 tok/s/GPU: tok/ms or ktok/s given as tok/s, not $607,821/Mtok
    ("cost-tput-unit-slip", ["cost", "--hardware", "gb200", "--throughput", "0.0025"],
     ("--throughput", "0.0025", "plausible minimum 0.01")),
    ("cost-tput-zero", ["cost", "--hardware", "gb200", "--throughput", "0"], ("--throughput", "0")),
    ("cost-tput-negative", ["cost", "--hardware", "gb200", "--throughput", "-100"], ("--throughput", "-100")),
    ("cost-tput-inf", ["cost", "--hardware", "gb200", "--throughput", "inf"], ("--throughput", "inf")),
    ("cost-tput-nan", ["cost", "--hardware", "gb200", "--throughput", "nan"], ("--throughput", "nan")),
    ("cost-hardware", ["cost", "--hardware", "z100", "--throughput", "1000"], ("z100",)),
    ("cost-fullwidth-typo", ["cost", "--hardware", "gb\uff19\uff10\uff10", "--throughput", "1000"], ("gb",)),
    ("cost-no-source", ["cost", "--hardware", "gb200"], ("--model", "--throughput")),
    ("cost-model", ["cost", "--hardware", "gb200", "--model", "gpt-9"], ("gpt-9",)),
    ("cost-isl-zero", ["cost", "--hardware", "gb200", "--model", "deepseek-r1", "--isl", "0"], ("--isl", "0")),
    ("cost-osl-negative", ["cost", "--hardware", "gb200", "--model", "deepseek-r1", "--osl", "-1"],
     ("--osl", "-1")),
    ("cost-interactivity-zero", ["cost", "--hardware", "gb200", "--model", "deepseek-r1", "--interactivity", "0"],
     ("interactivity", "0")),
    ("cost-interactivity-beyond-curve", ["cost", "--hardware", "gb200", "--hardware", "vr200", "--model",
                                         "deepseek-r1", "--interactivity", "400"],
     ("--interactivity", "400", "gb200-nvl72", "fastest")),
    ("cost-gpu-hour-zero", ["cost", "--hardware", "gb200", "--throughput", "1000", "--cost-per-gpu-hour", "0"],
     ("--cost-per-gpu-hour", "0")),
    ("cost-no-power-hint", ["cost", "--hardware", "tpu-v5e", "--model", "deepseek-r1"],
     ("--cost-per-gpu-hour VALUE",)),
    ("cost-profile", ["cost", "--hardware", "gb200", "--throughput", "1000", "--tco-profile", "bargain"],
     ("bargain",)),
    ("cost-tier", ["cost", "--hardware", "gb200", "--throughput", "1000", "--tco-tier", "cheap"], ("cheap",)),
    ("cost-vintage", ["cost", "--hardware", "gb200", "--throughput", "1000", "--tco-vintage", "1999-01"],
     ("1999-01",)),
    # margin
    ("margin-fee-percent", ["margin", "--hardware", "gb200", "--model", "deepseek-r1", "--throughput", "1000",
                            "--license-fee", "30"], ("--license-fee", "30", "percent")),
    ("margin-fee-one", ["margin", "--hardware", "gb200", "--model", "deepseek-r1", "--throughput", "1000",
                        "--license-fee", "1"], ("--license-fee", "1")),
    ("margin-cache-hit", ["margin", "--hardware", "gb200", "--model", "deepseek-r1", "--throughput", "1000",
                          "--cache-hit", "1.5"], ("--cache-hit", "1.5")),
    ("margin-price-negative", ["margin", "--hardware", "gb200", "--model", "deepseek-r1", "--throughput", "1000",
                               "--price-input", "-1"], ("--price-input", "-1")),
    ("margin-price-per-token", ["margin", "--hardware", "gb200", "--model", "deepseek-r1", "--throughput", "1000",
                                "--price-input", "0.0000006"], ("--price-input", "6e-07", "[0.001, 1000]")),
    ("margin-price-output-per-token", ["margin", "--hardware", "gb200", "--model", "deepseek-r1",
                                       "--throughput", "1000", "--price-output", "0.000002"],
     ("--price-output", "2e-06")),
    ("margin-provider", ["margin", "--hardware", "gb200", "--model", "deepseek-r1", "--throughput", "1000",
                         "--provider", "nope"], ("nope",)),
    ("margin-model", ["margin", "--hardware", "gb200", "--model", "kimi-k2.\uff19", "--throughput", "1000"],
     ("kimi-k2.",)),
    # catalogs
    ("prices-provider", ["prices", "--provider", "nope"], ("nope", "valid")),
    ("prices-model", ["prices", "--model", "gpt-9"], ("gpt-9",)),
    ("prices-model-provider", ["prices", "--model", "kimi-k2", "--provider", "DeepSeek"], ("DeepSeek",)),
    ("hardware-show", ["hardware", "show", "z100"], ("z100",)),
    ("model-show", ["models", "gpt-9"], ("gpt-9",)),
    ("tco-system", ["tco", "z100"], ("z100",)),
    ("tco-profile", ["tco", "gb200", "--profile", "bargain"], ("bargain",)),
    ("tco-tier", ["tco", "gb200", "--tier", "cheap"], ("cheap",)),
    ("tco-vintage", ["tco", "gb200", "--vintage", "1999-01"], ("1999-01",)),
    # ingest
    ("ingest-missing", ["ingest", "/nonexistent/results"], ("/nonexistent/results",)),
    ("ingest-gpus", ["ingest", str(FIXTURES / "raw_plain_bench.json"), "--hardware", "b200", "--gpus", "0.5"],
     ("raw_plain_bench.json", "0.5")),
    ("ingest-gpus-inf", ["ingest", str(FIXTURES / "raw_plain_bench.json"), "--hardware", "b200", "--gpus", "inf"],
     ("raw_plain_bench.json", "inf")),
    ("ingest-hardware", ["ingest", str(FIXTURES / "agg_hand_b200.json"), "--hardware", "z100"], ("z100",)),
    ("ingest-not-json", ["ingest", str(FIXTURES / "bad_not_json.json")], ("bad_not_json.json", "json")),
    ("ingest-ms", ["ingest", str(FIXTURES / "bad_agg_ms_in_seconds_field.json")],
     ("bad_agg_ms_in_seconds_field.json",)),
    ("ingest-text", ["ingest", str(FIXTURES / "bad_agg_text_value.json")], ("bad_agg_text_value.json",)),
    # report: bad options fail before any computation
    ("report-util", ["report", "--utilization", "75", "-o", "never-written"], ("--utilization", "75")),
    ("report-interactivity", ["report", "--interactivity", "-5", "-o", "never-written"],
     ("--interactivity", "-5")),
    ("report-fee", ["report", "--license-fee", "30", "-o", "never-written"], ("--license-fee", "30")),
]


@pytest.mark.parametrize(("argv", "fragments"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_flag(argv: list[str], fragments: tuple[str, ...], capsys: pytest.CaptureFixture[str],
                  tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    _out, err = capsys.readouterr()
    assert err.startswith(f"tokenomics {argv[0]}: error: ")
    assert len(err.strip().splitlines()) == 1, err
    for frag in fragments:
        assert frag.lower() in err.lower(), f"{frag!r} missing from: {err}"
    for bad in INTERNAL_MESSAGES:
        assert bad.lower() not in err.lower()
    assert not (tmp_path / "never-written").exists()


def test_ingest_directory_with_deep_json_reports_it_and_goes_on(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "deep.json").write_bytes(b"[" * 100_000 + b"]" * 100_000)
    (tmp_path / "good.json").write_text((FIXTURES / "agg_hand_b200.json").read_text())
    out_csv = tmp_path / "out" / "points.csv"
    assert main(["ingest", str(tmp_path), "-o", str(out_csv)]) == 0
    _, err = capsys.readouterr()
    assert "deep.json" in err
    assert "nested too deeply" in err
    assert "Traceback" not in err
    assert len(out_csv.read_text().strip().splitlines()) == 2


def test_cost_output_is_finite_json(capsys: pytest.CaptureFixture[str]) -> None:
    # documented correct result of a valid call: every number finite
    assert main(["cost", "--hardware", "gb200", "--throughput", "1000", "--utilization", "0.6",
                 "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["cost_usd_per_mtok"] > 0
