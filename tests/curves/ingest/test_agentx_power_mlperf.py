"""AgentX, GPU-power baseline and MLPerf readers."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tokenomics.curves.ingest import (
    IngestError,
    joules_per_token,
    read_agentx,
    read_mlperf,
    read_mlperf_log,
    read_power_baseline,
    tok_per_s_per_kw,
)

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "ingest"


# --- AgentX ---------------------------------------------------------------------------------------


def test_agentx_disagg_fixture_by_hand() -> None:
    row = read_agentx(FIX / "agentx_disagg_e2e.json").iloc[0]
    assert row["hardware_id"] == "gb300-nvl72"  # "cluster:" prefix and "-dgxc" suffix stripped
    assert row["model_id"] == "minimax-m3"
    assert not bool(row["model_in_catalog"])
    assert row["workload"] == "agentic-coding"
    # per-role denominators: 82400/(8+24) = 2575; 2400/24 = 100; 80000/8 = 10000
    assert row["throughput_tok_per_s_per_gpu"] == pytest.approx(2575.0)
    assert row["output_throughput_tok_per_s_per_gpu"] == pytest.approx(100.0)
    assert row["input_throughput_tok_per_s_per_gpu"] == pytest.approx(10000.0)
    # 1/p50(TPOT) = 1/0.025 = 40, 1/p90(TPOT) = 20; never 1/std
    assert row["interactivity_tok_per_s_per_user"] == pytest.approx(40.0)
    assert row["interactivity_p90_tok_per_s_per_user"] == pytest.approx(20.0)
    assert row["e2e_interactivity_tok_per_s_per_user"] == 30.0
    assert row["e2e_interactivity_p90_tok_per_s_per_user"] == 12.0
    # cache tiers: CPU falls back to external when cpu_cache_hit_rate is null
    assert (row["gpu_cache_hit_frac"], row["cpu_cache_hit_frac"], row["cache_hit_frac"]) == (
        0.6, 0.2, 0.8)
    assert row["theoretical_cache_hit_frac"] == 0.95
    assert (row["prompt_gpu_cache_hit_tokens"], row["prompt_cpu_cache_hit_tokens"],
            row["prompt_computed_tokens"]) == (600, 200, 200)
    assert row["kv_offload"] == "none"


def test_agentx_percent_cache_rate_rejected() -> None:
    with pytest.raises(IngestError, match="percent") as info:
        read_agentx(FIX / "bad_agentx_percent_cache.json")
    assert info.value.key == "server_metrics.cache.overall_cache_hit_rate"


def test_agentx_without_throughput_rejected() -> None:
    with pytest.raises(IngestError, match="missing"):
        read_agentx(FIX / "bad_agentx_no_throughput.json")


def test_agentx_real_conc32_point(shared_data: Path) -> None:
    d = shared_data / "inferencemax" / "agentx_agg_mi355x_kimik2.7" / "tp8_sweep_29337493492"
    files = sorted(d.glob("*conc32*.json"))
    if not files:
        pytest.skip(f"{d} not present")
    row = read_agentx(files[0]).iloc[0]
    assert row["hardware_id"] == "mi355x"
    assert row["throughput_tok_per_s_per_gpu"] == pytest.approx(25558.13896 / 8)
    assert row["output_throughput_tok_per_s_per_gpu"] == pytest.approx(190.59479 / 8)
    assert row["interactivity_tok_per_s_per_user"] == pytest.approx(1 / 0.1167)
    # the file's own intvty.p90 = 6.24054 agrees with 1/p90(TPOT) = 1/0.16024
    assert row["interactivity_p90_tok_per_s_per_user"] == pytest.approx(6.24054, rel=1e-4)
    assert (row["cache_hit_frac"], row["gpu_cache_hit_frac"], row["cpu_cache_hit_frac"]) == (
        0.88756, 0.09058, 0.79699)
    assert row["kv_offload"] == "dram"
    assert row["kv_offload_dram_gb"] == 2399
    assert row["prompt_cpu_cache_hit_tokens"] == 75518159


def test_early_agentic_real_point(shared_data: Path) -> None:
    d = shared_data / "inferencemax" / "agentic_mvp_b200_dsr1_fp4_offload" / "agg"
    f = d / ("agg_dsr1_tp8_users64_offloadoff_fp4_vllm_tp8-ep8-dpafalse_disagg-false_spec-none"
             "_conc64_b200-dgxc-slurm_3.json")
    if not f.is_file():
        pytest.skip(f"{f} not present")
    row = read_agentx(f).iloc[0]
    assert row["hardware_id"] == "b200"
    assert row["model_id"] == "deepseek-r1"
    assert row["throughput_tok_per_s_per_gpu"] == pytest.approx(4778.699487646611 / 8)
    assert row["interactivity_tok_per_s_per_user"] == pytest.approx(1 / 0.05692379565868278)
    assert row["kv_offload"] == "none"
    assert row["concurrency"] == 64
    assert row["workload"] == "agentic-coding-early"  # the kv-cache-tester trace, not AgentX's


@pytest.mark.parametrize(
    ("changes", "key", "words"),
    [
        ({"tp": 0}, "tp", "parallelism size must be >= 1"),
        ({"pcp_size": 0}, "pcp_size", "parallelism size must be >= 1"),
        ({"num_decode_gpu": -8}, "num_decode_gpu", "GPU count must be > 0"),
    ],
)
def test_agentx_nested_bad_sizes_rejected(
    tmp_path: Path, changes: dict[str, object], key: str, words: str
) -> None:
    doc = json.loads((FIX / "agentx_disagg_e2e.json").read_text())
    doc.update(changes)
    f = tmp_path / "agentx_variant.json"
    f.write_text(json.dumps(doc))
    with pytest.raises(IngestError) as info:
        read_agentx(f)
    assert info.value.key == key
    assert words in str(info.value)


def _flat_agentic(tmp_path: Path, **changes: object) -> Path:
    doc: dict[str, object] = {
        "hw": "b200", "model": "deepseek-ai/DeepSeek-R1", "users": 8, "tp": 8, "ep": 8,
        "tput_per_gpu": 1000.0, "input_tput_per_gpu": 900.0, "output_tput_per_gpu": 100.0,
        "median_itl": 0.02, "p90_itl": 0.03,
    }
    doc.update(changes)
    f = tmp_path / "agg_flat_agentic.json"
    f.write_text(json.dumps(doc))
    return f


def test_agentic_flat_sizes_and_throughput_sum(tmp_path: Path) -> None:
    # consistent row: 900 + 100 = 1000 tok/s/GPU
    row = read_agentx(_flat_agentic(tmp_path)).iloc[0]
    assert row["throughput_tok_per_s_per_gpu"] == 1000.0
    # early flat rows replay the early trace, whatever scenario they name (the real files say "agentic-coding")
    assert row["workload"] == "agentic-coding-early"
    named = read_agentx(_flat_agentic(tmp_path, scenario_type="agentic-coding")).iloc[0]
    assert named["workload"] == "agentic-coding-early"
    with pytest.raises(IngestError, match="parallelism size") as info:
        read_agentx(_flat_agentic(tmp_path, tp=0))
    assert info.value.key == "tp"
    # 900 + 500 = 1400 vs total 1000 on the same denominator
    with pytest.raises(IngestError, match="differs from total") as info:
        read_agentx(_flat_agentic(tmp_path, output_tput_per_gpu=500.0))
    assert info.value.key == "tput_per_gpu"


# --- power ----------------------------------------------------------------------------------------


def test_power_fixture_by_hand() -> None:
    row = read_power_baseline(FIX / "power_hand.json").iloc[0]
    # 8000 tok/s / 8 GPUs = 1000 tok/s/GPU at 500 W -> 0.5 J/token, 2000 tok/s/kW;
    # output 500 tok/s/GPU -> 1.0 J/output token
    assert row["throughput_tok_per_s_per_gpu"] == 1000.0
    assert row["joules_per_token"] == pytest.approx(0.5)
    assert row["output_joules_per_token"] == pytest.approx(1.0)
    assert row["throughput_tok_per_s_per_kw"] == pytest.approx(2000.0)
    assert row["interactivity_tok_per_s_per_user"] == pytest.approx(50.0)
    assert row["as_of"] == "2026-06-12"


def test_power_inconsistent_tokens_per_kw_rejected() -> None:
    with pytest.raises(IngestError, match="tokens_per_kw"):
        read_power_baseline(FIX / "bad_power_tokens_per_kw.json")


@pytest.mark.parametrize(
    ("changes", "key", "words"),
    [
        ({"isl": -1}, "isl", "sequence length must be > 0"),
        ({"tp": 0}, "tp", "parallelism size must be >= 1"),
        ({"ep": -1}, "ep", "parallelism size must be >= 1"),
    ],
)
def test_power_bad_lengths_and_sizes_rejected(
    tmp_path: Path, changes: dict[str, object], key: str, words: str
) -> None:
    doc = json.loads((FIX / "power_hand.json").read_text())
    doc.update(changes)
    f = tmp_path / "power_variant.json"
    f.write_text(json.dumps(doc))
    with pytest.raises(IngestError) as info:
        read_power_baseline(f)
    assert info.value.key == key
    assert words in str(info.value)


def test_power_ep_zero_means_expert_parallelism_off(tmp_path: Path) -> None:
    # the baseline runner writes ep = 0 when expert parallelism is off: an EP degree of 1
    doc = json.loads((FIX / "power_hand.json").read_text())
    doc["ep"] = 0
    f = tmp_path / "power_ep0.json"
    f.write_text(json.dumps(doc))
    assert read_power_baseline(f)["ep"].iloc[0] == 1


def test_energy_helpers() -> None:
    assert joules_per_token(700.0, 1400.0) == 0.5
    assert tok_per_s_per_kw(700.0, 1400.0) == pytest.approx(2000.0)
    with pytest.raises(ValueError, match="throughput"):
        joules_per_token(700.0, 0.0)
    with pytest.raises(ValueError, match="power"):
        tok_per_s_per_kw(0.0, 10.0)


def test_power_real_dsr1_conc64(shared_data: Path) -> None:
    f = (shared_data / "inferencemax" / "together_runner" / "baselines" / "b200" / "sglang"
         / "dsr1-fp4" / "1k1k" / "tuned" / "conc64.json")
    if not f.is_file():
        pytest.skip(f"{f} not present")
    row = read_power_baseline(f).iloc[0]
    tput = 5683.757942060593 / 8
    assert row["joules_per_token"] == pytest.approx(497.0 / tput)
    assert row["throughput_tok_per_s_per_kw"] == pytest.approx(tput / 0.497)
    # the file's tokens_per_kw (680) is output tok/s per kW: 2703.85/8/0.497 = 680.0
    assert pytest.approx(680.0, abs=0.5) == 2703.847973388041 / 8 / 0.497


# --- MLPerf ---------------------------------------------------------------------------------------


def test_mlperf_fixture_rows_floors_and_skips() -> None:
    pts = read_mlperf(FIX / "mlperf_summary_small.json")
    skipped = pts.attrs["skipped"]
    assert skipped == {
        "units Samples/s (not tokens)": 1,
        "units Queries/s (not tokens)": 1,
        "hardware not in catalog: NVIDIA RTX PRO 6000 Blackwell Server Edition": 1,
        "mixed accelerator types": 1,
        "suite edge (not datacenter)": 1,
    }
    assert len(pts) == 5
    by = pts.set_index("source")
    server = by.loc[f"{FIX / 'mlperf_summary_small.json'}#9.9-0001/deepseek-r1/Server"]
    # 40000 output tok/s / 8 B200 = 5000; TPOT p99 limit 80 ms -> floor 12.5 tok/s/user
    assert server["output_throughput_tok_per_s_per_gpu"] == 5000.0
    assert server["kind"] == "floor"
    assert server["interactivity_tok_per_s_per_user"] == pytest.approx(12.5)
    assert pd.isna(server["throughput_tok_per_s_per_gpu"])  # MLPerf counts output tokens only
    inter = by.loc[f"{FIX / 'mlperf_summary_small.json'}#9.9-0002/deepseek-r1/Interactive"]
    assert inter["interactivity_tok_per_s_per_user"] == pytest.approx(1000 / 15)
    offline = by.loc[f"{FIX / 'mlperf_summary_small.json'}#9.9-0003/deepseek-r1/Offline"]
    assert offline["kind"] == "measured"
    assert pd.isna(offline["interactivity_tok_per_s_per_user"])
    amd = by.loc[f"{FIX / 'mlperf_summary_small.json'}#9.9-0004/llama2-70b-99.9/Server"]
    # "(x87)" in the accelerator name wins over "Total Accelerators": 88 (known upstream slip)
    assert amd["num_gpus"] == 87
    assert amd["output_throughput_tok_per_s_per_gpu"] == 1000.0
    assert amd["model_id"] == "llama-2-70b"  # MLPerf's benchmark name is a catalog alias
    assert bool(amd["model_in_catalog"])
    gb = by.loc[f"{FIX / 'mlperf_summary_small.json'}#9.9-0010/gpt-oss-120b/Server"]
    # 4 per node x 2 nodes = 8; 12000 W / 8 = 1500 W each; 12000 W / 16000 tok/s = 0.75 J/token
    assert gb["num_gpus"] == 8
    assert gb["power_w_per_gpu"] == 1500.0
    assert gb["output_joules_per_token"] == pytest.approx(0.75)


def test_mlperf_unknown_hardware_can_raise() -> None:
    with pytest.raises(KeyError, match="RTX PRO 6000"):
        read_mlperf(FIX / "mlperf_summary_small.json", on_unknown_hardware="raise")


def test_mlperf_csv_inconsistent_per_accelerator_rejected() -> None:
    with pytest.raises(IngestError, match="result_per_accelerator"):
        read_mlperf(FIX / "bad_mlperf_per_accelerator.csv")


def test_mlperf_real_csv_and_json_agree(shared_data: Path) -> None:
    d = shared_data / "mlperf"
    csv, js = d / "mlperf_llm_datacenter_v5.1_v6.0.csv", d / "inference_results_v6.0_summary_results.json"
    if not (csv.is_file() and js.is_file()):
        pytest.skip(f"MLPerf files not present in {d}")
    a = read_mlperf(csv)
    b = read_mlperf(js)
    key = a["source"].str.split("#").str[1]
    a = a.assign(key=key).set_index("key")
    b = b.assign(key=b["source"].str.split("#").str[1]).set_index("key")
    common = b.index.intersection(a.index)
    assert len(common) > 150
    pd.testing.assert_series_equal(
        a.loc[common, "output_throughput_tok_per_s_per_gpu"],
        b.loc[common, "output_throughput_tok_per_s_per_gpu"], check_names=False)
    pd.testing.assert_series_equal(
        a.loc[common, "interactivity_tok_per_s_per_user"],
        b.loc[common, "interactivity_tok_per_s_per_user"], check_names=False)
    # published cross-check: Nebius GB300 DeepSeek-R1 Server 64,510 tok/s over 8 = 8,064/GPU
    # (storagereview.com MLPerf v6.0 report, 2026-04-01)
    nebius = b.loc["6.0-0082/deepseek-r1/Server"]
    assert nebius["output_throughput_tok_per_s_per_gpu"] == pytest.approx(8064, abs=1)


# --- MLPerf LoadGen summaries ---------------------------------------------------------------------


def test_mlperf_log_server_by_hand() -> None:
    s = read_mlperf_log(FIX / "mlperf_log_summary_server.txt")
    assert s["scenario"] == "Server"
    assert bool(s["result_valid"])
    # nanoseconds to seconds; 40000 tok/s over 2 samples/s = 20000 output tokens per request
    assert s["tpot_median_s"] == pytest.approx(0.05)
    assert s["tpot_p90_s"] == pytest.approx(0.0625)
    assert s["ttft_median_s"] == pytest.approx(0.5)
    assert s["latency_median_s"] == pytest.approx(28.0)
    assert s["tpot_limit_s"] == pytest.approx(0.08)
    assert s["output_tokens_per_sample"] == pytest.approx(20000.0)


def test_mlperf_log_offline_has_no_token_latencies() -> None:
    s = read_mlperf_log(FIX / "mlperf_log_summary_offline.txt")
    assert s["scenario"] == "Offline"
    assert s["output_tok_per_s"] == 60000.0
    assert s["output_tokens_per_sample"] == pytest.approx(15000.0)
    assert pd.isna(s["tpot_median_s"])
    assert pd.isna(s["ttft_median_s"])


def test_mlperf_log_errors_name_file_line_and_key(tmp_path: Path) -> None:
    text = (FIX / "mlperf_log_summary_server.txt").read_text()
    bad = tmp_path / "bad.txt"
    bad.write_text(text.replace("50.00 percentile time to output token (ns)   : 50000000",
                                "50.00 percentile time to output token (ns)   : fast"))
    with pytest.raises(IngestError, match=r"bad\.txt:\d+.*time to output token.*fast"):
        read_mlperf_log(bad)
    bad.write_text(text.replace("Completed tokens per second: 40000.00", ""))
    with pytest.raises(IngestError, match=r"no token throughput \(not an LLM benchmark\)"):
        read_mlperf_log(bad)
    bad.write_text("a plain text file\n")
    with pytest.raises(IngestError, match="not an MLPerf LoadGen summary"):
        read_mlperf_log(bad)
    bad.write_text(text.replace("Mean latency (ns)               : 30000000000", "Mean latency (ns) : 0"))
    with pytest.raises(IngestError, match="must be finite and > 0"):
        read_mlperf_log(bad)
    bad.write_text(text.replace("time to output token (ns)   : 50000000", "time to output token (ns)   : inf"))
    with pytest.raises(IngestError, match="must be finite and > 0, got 'inf'"):
        read_mlperf_log(bad)
    bad.write_text(text.replace("Scenario : Server", "Scenario : Bogus"))
    with pytest.raises(IngestError, match=r"bad\.txt:\d+.*'Bogus' is not one of"):
        read_mlperf_log(bad)
    bad.write_text(text.replace("50.00 percentile time to output token (ns)   : 50000000\n", ""))
    with pytest.raises(IngestError, match="a Server LLM run measures it"):
        read_mlperf_log(bad)


def _summary_with_logs(tmp_path: Path, tokens_per_s: str = "40000.00") -> tuple[Path, Path]:
    rows = json.loads((FIX / "mlperf_summary_small.json").read_text())
    for r in rows:
        r["Location"] = f"closed/Example/results/sys{r['ID']}/{r['Model']}/{r['Scenario']}"
    js = tmp_path / "summary_results.json"
    js.write_text(json.dumps(rows))
    repo = tmp_path / "results"
    run = repo / "closed/Example/results/sys9.9-0001/deepseek-r1/Server/performance/run_1"
    run.mkdir(parents=True)
    text = (FIX / "mlperf_log_summary_server.txt").read_text()
    (run / "mlperf_log_summary.txt").write_text(text.replace("40000.00", tokens_per_s))
    return js, repo


def test_mlperf_runs_with_a_log_are_measured_at_their_median(tmp_path: Path) -> None:
    js, repo = _summary_with_logs(tmp_path)
    pts = read_mlperf(js, logs=repo)
    by = pts.set_index("source")
    server = by.loc[f"{js}#9.9-0001/deepseek-r1/Server"]
    assert server["kind"] == "measured"
    assert server["interactivity_tok_per_s_per_user"] == pytest.approx(1 / 0.05)  # not the 12.5 floor
    assert server["interactivity_p90_tok_per_s_per_user"] == pytest.approx(1 / 0.0625)
    assert server["ttft_median_s"] == pytest.approx(0.5)
    assert server["e2el_median_s"] == pytest.approx(28.0)
    assert "mlperf_log_summary.txt" in server["note"]
    # no log for the Interactive run: it stays a floor
    inter = by.loc[f"{js}#9.9-0002/deepseek-r1/Interactive"]
    assert inter["kind"] == "floor"
    assert inter["interactivity_tok_per_s_per_user"] == pytest.approx(1000 / 15)


def test_mlperf_log_that_disagrees_with_the_summary_is_refused(tmp_path: Path) -> None:
    js, repo = _summary_with_logs(tmp_path, tokens_per_s="30000.00")
    with pytest.raises(IngestError, match="disagrees with the summary's result 40000"):
        read_mlperf(js, logs=repo)


def test_mlperf_log_of_an_invalid_or_other_run_is_refused(tmp_path: Path) -> None:
    js, repo = _summary_with_logs(tmp_path)
    log = repo / "closed/Example/results/sys9.9-0001/deepseek-r1/Server/performance/run_1/mlperf_log_summary.txt"
    text = log.read_text()
    log.write_text(text.replace("Result is : VALID", "Result is : INVALID"))
    with pytest.raises(IngestError, match="INVALID, but the summary publishes"):
        read_mlperf(js, logs=repo)
    log.write_text((FIX / "mlperf_log_summary_offline.txt").read_text().replace("60000.0", "40000.0"))
    with pytest.raises(IngestError, match="'Offline': not the Server run of"):
        read_mlperf(js, logs=repo)


def test_mlperf_logs_root_that_matches_nothing_is_refused(tmp_path: Path) -> None:
    js, repo = _summary_with_logs(tmp_path)
    assert read_mlperf(js, logs=repo).attrs["logs_matched"] == 1
    with pytest.raises(FileNotFoundError, match="no run summary"):
        read_mlperf(js, logs=repo / "closed")  # one level too deep


def test_mlperf_logs_need_the_json_and_a_directory(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="not a directory"):
        read_mlperf(FIX / "mlperf_summary_small.json", logs=tmp_path / "missing")
    with pytest.raises(IngestError, match="names no run locations"):
        read_mlperf(FIX / "bad_mlperf_per_accelerator.csv", logs=tmp_path)
