"""InferenceX fixed-sequence readers: aggregate rows, raw benchmark files, disaggregated runs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tokenomics.curves.ingest import (
    IngestError,
    per_gpu_throughput,
    read_inferencex,
    resolve_hardware_name,
    resolve_model_name,
)

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "ingest"


def test_aggregate_row_hand_values() -> None:
    row = read_inferencex(FIX / "agg_hand_b200.json").iloc[0]
    assert row["hardware_id"] == "b200"  # runner suffix "-dgxc-slurm" stripped
    assert row["hardware_name"] == "b200-dgxc-slurm"
    assert row["model_id"] == "deepseek-r1"
    assert bool(row["model_in_catalog"])
    assert row["workload"] == "8k/1k"
    assert row["num_gpus"] == 8  # tp 8 x pp 1 x pcp 1
    assert row["throughput_tok_per_s_per_gpu"] == 1000.0
    # seconds stay seconds
    assert row["ttft_median_s"] == 0.5
    assert row["tpot_p99_s"] == 0.04
    # interactivity per percentile: 1/0.02 = 50, 1/0.025 = 40; std_intvty (1000) ignored
    assert row["interactivity_tok_per_s_per_user"] == pytest.approx(50.0)
    assert row["interactivity_p90_tok_per_s_per_user"] == pytest.approx(40.0)
    assert bool(row["dp_attention"])
    # power: 0.6 J/token x 1000 tok/s/GPU = 600 W/GPU; 1000/0.6 = 1666.7 tok/s/kW
    assert row["power_w_per_gpu"] == pytest.approx(600.0)
    assert row["throughput_tok_per_s_per_kw"] == pytest.approx(1000.0 / 0.6)
    assert row["kind"] == "measured"


def test_aggregate_disagg_rows_keep_per_role_counts() -> None:
    pts = read_inferencex(FIX / "agg_disagg_gb200.json")
    row = pts.iloc[0]
    assert row["hardware_id"] == "gb200-nvl72"
    assert bool(row["disaggregated"])
    assert (row["num_prefill_gpus"], row["num_decode_gpus"], row["num_gpus"]) == (4, 8, 12)
    assert row["tp"] == 8  # decode role's TP
    assert row["spec_decoding"] == "mtp"
    assert row["interactivity_tok_per_s_per_user"] == pytest.approx(100.0)


@pytest.mark.parametrize(
    ("fixture", "key", "words"),
    [
        ("bad_agg_ms_in_seconds_field.json", "median_tpot", "milliseconds"),
        ("bad_agg_missing_tput.json", "tput_per_gpu", "missing"),
        ("bad_agg_text_value.json", "tput_per_gpu", "expected a number"),
        ("bad_agg_intvty_mismatch.json", "median_intvty", "disagrees"),
        ("bad_not_json.json", "<document>", "not valid JSON"),
    ],
)
def test_malformed_files_name_file_key_and_problem(fixture: str, key: str, words: str) -> None:
    with pytest.raises(IngestError) as info:
        read_inferencex(FIX / fixture)
    err = info.value
    assert fixture in str(err)
    assert err.key == key
    assert words in str(err)


def test_ms_key_in_aggregate_row_is_rejected(tmp_path: Path) -> None:
    doc = json.loads((FIX / "agg_hand_b200.json").read_text())
    doc["median_tpot_ms"] = 20.0
    f = tmp_path / "agg_x.json"
    f.write_text(json.dumps(doc))
    with pytest.raises(IngestError, match="_ms"):
        read_inferencex(f)


def _agg_variant(tmp_path: Path, **changes: object) -> Path:
    doc = json.loads((FIX / "agg_hand_b200.json").read_text())
    doc.update(changes)
    f = tmp_path / "agg_variant.json"
    f.write_text(json.dumps(doc))
    return f


@pytest.mark.parametrize(
    ("changes", "key", "words"),
    [
        ({"isl": -1}, "isl", "sequence length must be > 0"),
        ({"osl": 0}, "osl", "sequence length must be > 0"),
        ({"tp": 0}, "tp", "parallelism size must be >= 1"),
        ({"pp": 0}, "pp", "parallelism size must be >= 1"),
        ({"ep": -2}, "ep", "parallelism size must be >= 1"),
        ({"num_prefill_gpu": 0}, "num_prefill_gpu", "GPU count must be > 0"),
        # same denominator (aggregated, one node): 900 + 500 = 1400 vs total 1000
        ({"output_tput_per_gpu": 500.0}, "tput_per_gpu", "differs from total"),
    ],
)
def test_aggregate_row_inconsistent_values_rejected(
    tmp_path: Path, changes: dict[str, object], key: str, words: str
) -> None:
    with pytest.raises(IngestError) as info:
        read_inferencex(_agg_variant(tmp_path, **changes))
    assert info.value.key == key
    assert words in str(info.value)
    assert "agg_variant.json" in str(info.value)


def test_aggregate_throughput_sum_tolerance_is_one_percent(tmp_path: Path) -> None:
    # 900 + 109 = 1009 is 0.9 % above 1000: accepted; 900 + 111 = 1011 (1.1 %) is not
    assert read_inferencex(_agg_variant(tmp_path, output_tput_per_gpu=109.0)).shape[0] == 1
    with pytest.raises(IngestError, match="1%"):
        read_inferencex(_agg_variant(tmp_path, output_tput_per_gpu=111.0))


def test_disaggregated_rows_skip_the_sum_check() -> None:
    # 3000 (per prefill GPU) + 1500 (per decode GPU) != 2000 (per GPU of all 12): different
    # denominators, so this is consistent and must read
    row = read_inferencex(FIX / "agg_disagg_gb200.json").iloc[0]
    assert row["input_throughput_tok_per_s_per_gpu"] == 3000.0


def test_raw_file_rejects_non_positive_gpu_count() -> None:
    with pytest.raises(IngestError) as info:
        read_inferencex(FIX / "raw_plain_bench.json", hardware="h200", num_gpus=-4)
    assert info.value.key == "num_gpus"
    assert "GPU count must be > 0" in str(info.value)


def test_unknown_hardware_raises_with_closest_ids() -> None:
    with pytest.raises(KeyError) as info:
        read_inferencex(FIX / "bad_agg_unknown_hw.json")
    msg = str(info.value)
    assert "b2000-foo" in msg
    assert "closest" in msg
    assert "b200" in msg


def test_raw_file_needs_gpu_count() -> None:
    with pytest.raises(IngestError, match="num_gpus") as info:
        read_inferencex(FIX / "raw_plain_bench.json", hardware="h200")
    assert info.value.key == "num_gpus"


def test_raw_file_ms_to_seconds_and_per_percentile_interactivity() -> None:
    row = read_inferencex(FIX / "raw_plain_bench.json", hardware="H200", num_gpus=4).iloc[0]
    assert row["hardware_id"] == "h200-sxm"
    assert row["model_id"] == "llama-3.3-70b"
    # 4800 tok/s over 4 GPUs = 1200; output 2400/4 = 600; input (4800-2400)/4 = 600
    assert row["throughput_tok_per_s_per_gpu"] == pytest.approx(1200.0)
    assert row["output_throughput_tok_per_s_per_gpu"] == pytest.approx(600.0)
    assert row["input_throughput_tok_per_s_per_gpu"] == pytest.approx(600.0)
    assert row["ttft_median_s"] == pytest.approx(0.2)
    assert row["tpot_p99_s"] == pytest.approx(0.04)
    # 1 / 0.025 s = 40 tok/s/user; 1 / 0.03125 s = 32; never 1/std (= 500)
    assert row["interactivity_tok_per_s_per_user"] == pytest.approx(40.0)
    assert row["interactivity_p90_tok_per_s_per_user"] == pytest.approx(32.0)
    assert row["workload"] == "1k/1k"  # 327680 tokens / 320 requests = 1024 each way
    assert row["as_of"] == "2026-06-01"


def test_disaggregated_raw_per_role_denominators_by_hand() -> None:
    # gpus_16_ctx_4_gen_12: 4 prefill + 12 decode GPUs; total 16000, output 6000 tok/s.
    # total/(P+D) = 16000/16 = 1000; output/D = 6000/12 = 500; input/P = (16000-6000)/4 = 2500.
    # Dividing output by all 16 GPUs would give 375 and input 625: the pitfall this guards.
    row = read_inferencex(FIX / "concurrency_64_req_rate_inf_gpus_16_ctx_4_gen_12.json",
                          hardware="mi355x").iloc[0]
    assert bool(row["disaggregated"])
    assert (row["num_prefill_gpus"], row["num_decode_gpus"], row["num_gpus"]) == (4, 12, 16)
    assert row["throughput_tok_per_s_per_gpu"] == pytest.approx(1000.0)
    assert row["output_throughput_tok_per_s_per_gpu"] == pytest.approx(500.0)
    assert row["input_throughput_tok_per_s_per_gpu"] == pytest.approx(2500.0)
    assert row["model_id"] == "gpt-oss-120b"  # from the Hugging Face cache path
    assert row["interactivity_tok_per_s_per_user"] == pytest.approx(80.0)


def test_disagg_file_name_with_inconsistent_counts_raises() -> None:
    with pytest.raises(IngestError, match="ctx_4"):
        read_inferencex(FIX / "concurrency_8_req_rate_inf_gpus_16_ctx_4_gen_8.json",
                        hardware="mi355x")


def test_disagg_raw_without_hardware_raises() -> None:
    with pytest.raises(IngestError, match="hardware"):
        read_inferencex(FIX / "concurrency_64_req_rate_inf_gpus_16_ctx_4_gen_12.json")


def test_per_gpu_throughput_hand_and_errors() -> None:
    assert per_gpu_throughput(1600.0, 400.0, num_gpus=8) == (200.0, 150.0, 50.0)
    t, i, o = per_gpu_throughput(1600.0, 400.0, num_prefill_gpus=4, num_decode_gpus=12)
    assert (t, i, o) == pytest.approx((100.0, 300.0, 400.0 / 12))
    with pytest.raises(ValueError, match="exceeds"):
        per_gpu_throughput(100.0, 200.0, num_gpus=1)
    with pytest.raises(ValueError, match="both"):
        per_gpu_throughput(100.0, 50.0, num_prefill_gpus=2)
    with pytest.raises(ValueError, match="num_gpus"):
        per_gpu_throughput(100.0, 50.0, num_gpus=0)
    with pytest.raises(ValueError, match="!="):
        per_gpu_throughput(100.0, 50.0, num_gpus=10, num_prefill_gpus=2, num_decode_gpus=2)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("b200-dgxc-slurm", "b200"),
        ("b200-nb", "b200"),
        ("MI355-gbt350-odcdh5-wbb3", "mi355x"),
        ("cluster:mi355x-amds", "mi355x"),
        ("NVIDIA B200-SXM-180GB", "b200"),
        ("AMD Instinct MI355X 288GB HBM3e (x87)", "mi355x"),
        ("NVIDIA GB300", "gb300-nvl72"),
        ("GB200 NVL72", "gb200-nvl72"),
        ("Virtualized NVIDIA H200-SXM-141GB", "h200-sxm"),
    ],
)
def test_hardware_normaliser(name: str, expected: str) -> None:
    assert resolve_hardware_name(name) == expected


def test_hardware_variant_is_not_collapsed_to_the_base_chip() -> None:
    # an H200 NVL (PCIe card) must not be priced as an H200 SXM
    with pytest.raises(KeyError, match="H200-NVL"):
        resolve_hardware_name("NVIDIA H200-NVL-141GB")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("nvidia/DeepSeek-R1-0528-FP4", ("deepseek-r1", True)),
        ("/models/models--openai--gpt-oss-120b/snapshots/b5c9/", ("gpt-oss-120b", True)),
        ("moonshotai/Kimi-K2.5", ("kimi-k2.5", True)),
        ("amd/Kimi-K2.7-Code-MXFP4", ("kimi-k2.7", True)),
        ("amd/Kimi-K9-Code-MXFP4", ("kimi-k9-code", False)),
    ],
)
def test_model_policy(name: str, expected: tuple[str, bool]) -> None:
    assert resolve_model_name(name) == expected


# --- real files ---------------------------------------------------------------------------------


def _kimi_pairs(shared_data: Path) -> list[tuple[Path, Path]]:
    d = shared_data / "inferencemax" / "fixed_seq_agg_mi355x_kimik2.5"
    if not d.is_dir():
        pytest.skip(f"{d} not present")
    return [(d / f"agg_{raw.name}", raw) for raw in sorted(d.glob("kimik2.5_*.json"))]


def test_real_raw_files_reproduce_their_aggregate_rows(shared_data: Path) -> None:
    pairs = _kimi_pairs(shared_data)
    assert len(pairs) == 3
    cols = ["throughput_tok_per_s_per_gpu", "output_throughput_tok_per_s_per_gpu",
            "input_throughput_tok_per_s_per_gpu", "interactivity_tok_per_s_per_user",
            "interactivity_p90_tok_per_s_per_user", "ttft_median_s", "tpot_p99_s", "e2el_p90_s"]
    for agg_path, raw_path in pairs:
        agg = read_inferencex(agg_path).iloc[0]
        raw = read_inferencex(raw_path).iloc[0]  # GPU count = tp8 from the file name
        assert raw["hardware_id"] == agg["hardware_id"] == "mi355x"
        assert raw["num_gpus"] == agg["num_gpus"] == 8
        for c in cols:
            assert raw[c] == pytest.approx(agg[c], rel=1e-9), (agg_path.name, c)


def test_real_kimi_point_matches_inferencex_worked_example(shared_data: Path) -> None:
    # research/inferencex.md: MI355X Kimi-K2.5 1k/1k conc4 = 55.6 tok/s/GPU;
    # raw file: total_token_throughput 445.0136269213033 over 8 GPUs = 55.6267
    d = shared_data / "inferencemax" / "fixed_seq_agg_mi355x_kimik2.5"
    f = d / "agg_kimik2.5_1k1k_int4_vllm_tp8-ep1-dpafalse_disagg-false_spec-mtp_conc4_MI355-gbt350-odcdh5-wbb3.json"
    if not f.is_file():
        pytest.skip(f"{f} not present")
    row = read_inferencex(f).iloc[0]
    assert row["throughput_tok_per_s_per_gpu"] == pytest.approx(445.0136269213033 / 8)
    assert row["interactivity_tok_per_s_per_user"] == pytest.approx(1 / 0.017393898241078155)


def test_real_disagg_gptoss_conc128_by_hand(shared_data: Path) -> None:
    d = shared_data / "inferencemax" / "multinode_disagg_raw_gptoss120b_1k1k"
    f = d / "concurrency_128_req_rate_inf_gpus_16_ctx_8_gen_8.json"
    if not f.is_file():
        pytest.skip(f"{f} not present")
    row = read_inferencex(f, hardware="mi355x").iloc[0]
    total, output = 16736.560504280373, 8368.280252140186  # from the file
    assert row["throughput_tok_per_s_per_gpu"] == pytest.approx(total / 16)
    assert row["output_throughput_tok_per_s_per_gpu"] == pytest.approx(output / 8)
    assert row["input_throughput_tok_per_s_per_gpu"] == pytest.approx((total - output) / 8)
    assert row["interactivity_tok_per_s_per_user"] == pytest.approx(1000 / 14.892716348905914)
    assert row["workload"] == "1k/1k"
    assert math.isclose(row["tpot_median_s"], 14.892716348905914e-3)
