"""Agentic session workloads: bundled presets, result files and request traces."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tokenomics.workload import Workload, agentic_runs, read_agentic_runs, workload


def _write(path: Path, lines: list[object]) -> Path:
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return path


def test_agentic_preset_is_the_request_weighted_agentx_pool() -> None:
    runs = agentic_runs()
    ax = runs[runs["source"].str.contains("6c128cd")]
    assert len(ax) == 10  # AgentX MI355X Kimi-K2.7: TP8 sweep (5 runs) and TP4 sweep (5 runs)
    w = workload("agentic-coding")
    n = ax["requests"]
    assert w.kind == "sessions"
    assert w.isl_tokens == pytest.approx((ax["input_tokens_mean"] * n).sum() / n.sum())
    assert w.osl_tokens == pytest.approx((ax["output_tokens_mean"] * n).sum() / n.sum())
    assert w.cached_prefix_frac == pytest.approx((ax["theoretical_cache_hit_frac"] * n).sum() / n.sum())
    # AgentX traces: ~100k-token prompts, theoretical hits 0.95-0.97, ~100 input tokens per output token
    assert 90_000 < w.isl_tokens < 120_000
    assert 0.95 < w.cached_prefix_frac < 0.97
    assert w.input_per_output_token > 80
    assert workload("AgentX") is w
    assert "InferenceX" in w.source


def test_early_preset_idle_gap_from_littles_law() -> None:
    runs = agentic_runs()
    early = runs[runs["source"].str.contains("7181314") & (runs["sessions"] <= 4)]
    idle = early["sessions"] / early["requests_per_s"] - early["e2el_mean_s"]
    assert workload("agentic-coding-early").idle_s_between_turns == pytest.approx(float(np.median(idle)))


def test_bundled_runs_throughput_is_request_rate_times_tokens() -> None:
    # AgentX rows: per-GPU throughput = requests/s x (mean input + mean output tokens) / TP GPUs
    # (the early sweep's saturated runs count tokens of unfinished requests, so it does not hold there)
    runs = agentic_runs()
    runs = runs[runs["source"].str.contains("6c128cd")]
    assert len(runs) == 10
    expected = runs["requests_per_s"] * (runs["input_tokens_mean"] + runs["output_tokens_mean"]) / runs["tp"]
    rel = (runs["throughput_tok_per_s_per_gpu"] / expected - 1.0).abs()
    assert (rel < 1e-4).all(), runs.loc[rel >= 1e-4, ["run_id", "throughput_tok_per_s_per_gpu"]]


def test_bundled_runs_match_the_result_files(shared_data: Path) -> None:
    d = shared_data / "inferencemax"
    if not (d / "agentx_agg_mi355x_kimik2.7").is_dir():
        pytest.skip("AgentX aggregates not present")
    read = read_agentic_runs([d / "agentx_agg_mi355x_kimik2.7", d / "agentic_mvp_b200_dsr1_fp4_offload" / "agg"])
    bundled = agentic_runs().set_index("run_id")
    # the shared copy holds the TP8 AgentX sweep and the early sweep; the TP4 sweep's five runs
    # were transcribed from the same InferenceX commit
    assert len(read) == 49
    assert set(read["run_id"]) <= set(bundled.index)
    rest = bundled.drop(index=list(read["run_id"]))
    assert len(rest) == 5
    assert rest["source"].str.contains("6c128cd22b0c4d1066a9fc70a6ec54eb21bd9343/tp4_sweep_29003473063/").all()
    for _, row in read.iterrows():
        b = bundled.loc[row["run_id"]]
        for col in ("input_tokens_mean", "theoretical_cache_hit_frac", "realized_cache_hit_frac",
                    "throughput_tok_per_s_per_gpu", "sessions"):
            assert b[col] == pytest.approx(row[col], rel=1e-5), col


def test_from_results_on_records() -> None:
    frame = pd.DataFrame({
        "run_id": ["a", "b"], "requests": [100.0, 300.0], "input_tokens_mean": [80_000.0, 120_000.0],
        "output_tokens_mean": [1000.0, 500.0], "theoretical_cache_hit_frac": [0.9, 0.98],
    })
    w = Workload.from_results(frame, name="mine", idle_s_between_turns=5.0)
    # request-weighted: (100 x 80k + 300 x 120k) / 400 = 110k; (100 x 0.9 + 300 x 0.98) / 400 = 0.96
    assert w.isl_tokens == pytest.approx(110_000.0)
    assert w.osl_tokens == pytest.approx(625.0)
    assert w.cached_prefix_frac == pytest.approx(0.96)
    assert w.idle_s_between_turns == 5.0
    assert w.name == "mine"


def test_from_results_refuses_percent_hit_rate() -> None:
    frame = pd.DataFrame({"run_id": ["a"], "input_tokens_mean": [1000.0], "output_tokens_mean": [10.0],
                          "theoretical_cache_hit_frac": [96.0]})
    with pytest.raises(ValueError, match=r"theoretical_cache_hit_frac.*percent"):
        Workload.from_results(frame)


def test_from_results_file_missing_field(tmp_path: Path) -> None:
    f = tmp_path / "run.json"
    f.write_text(json.dumps({"users": 4, "tput_per_gpu": 100.0, "theoretical_cache_hit_rate": 0.9,
                             "mean_output_tokens_actual": 300.0}))
    with pytest.raises(ValueError, match=r"run\.json.*mean_input_tokens"):
        Workload.from_results(f)


def test_from_trace_hit_rate_by_hand(tmp_path: Path) -> None:
    # blocks of 4 tokens; request 2 repeats request 1's two blocks then adds one; request 3 is new
    trace = _write(tmp_path / "t.jsonl", [
        {"input_length": 8, "output_length": 2, "hash_ids": [1, 2], "session_id": "s1"},
        {"input_length": 12, "output_length": 4, "hash_ids": [1, 2, 3], "session_id": "s1", "idle_s": 3.0},
        {"input_length": 4, "output_length": 6, "hash_ids": [9], "session_id": "s2"},
    ])
    w = Workload.from_trace(trace)
    # hits = 0 + 8 + 0 = 8 of 8 + 12 + 4 = 24 input tokens
    assert w.cached_prefix_frac == pytest.approx(8 / 24)
    assert w.isl_tokens == pytest.approx(8.0)
    assert w.osl_tokens == pytest.approx(4.0)
    assert w.kind == "sessions"
    assert w.turns_per_session == pytest.approx(1.5)
    assert w.idle_s_between_turns == pytest.approx(3.0)


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ({"input_length": -5, "output_length": 2}, "line 2: field 'input_length'"),
        ({"output_length": 2}, "line 2: field 'input_length' is missing"),
        ({"input_length": 8, "output_length": "x"}, "line 2: field 'output_length'"),
        ({"input_length": 4, "output_length": 2, "hash_ids": [1, 2, 3]}, "line 2: field 'hash_ids'.*exceed the input"),
        ({"input_length": 4, "output_length": 2, "cache_hit_frac": 1.4}, "line 2: field 'cache_hit_frac'"),
        ("{not json", "line 2: not valid JSON"),
    ],
)
def test_from_trace_bad_line_names_file_line_field(tmp_path: Path, line: object, match: str) -> None:
    trace = _write(tmp_path / "bad.jsonl", [{"input_length": 8, "output_length": 2}, line])
    with pytest.raises(ValueError, match=match) as err:
        Workload.from_trace(trace, block_size_tokens=None if "hash" not in str(line) else 2.0)
    assert "bad.jsonl" in str(err.value)


def test_from_trace_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        Workload.from_trace(tmp_path / "none.jsonl")


def test_from_trace_idle_time_of_a_session_first_turn_is_not_a_gap(tmp_path: Path) -> None:
    # two sessions x 3 turns, 5 s between turns; the first turns state 0 s or nothing
    def lines(first: dict) -> list[dict]:
        return [{"input_length": 100, "output_length": 10, "session_id": s, **(first if t == 0 else {"idle_s": 5.0})}
                for s in ("a", "b") for t in range(3)]

    stated = Workload.from_trace(_write(tmp_path / "stated.jsonl", lines({"idle_s": 0.0})))
    omitted = Workload.from_trace(_write(tmp_path / "omitted.jsonl", lines({})))
    assert stated.idle_s_between_turns == pytest.approx(5.0)  # (4 x 5 s) / 4 gaps
    assert omitted.idle_s_between_turns == pytest.approx(5.0)
    assert stated.turns_per_session == pytest.approx(3.0)


def test_from_trace_refuses_a_misspelled_field_and_reads_past_others(tmp_path: Path) -> None:
    trace = _write(tmp_path / "typo.jsonl", [{"input_length": 8, "output_length": 2, "sesion_id": "a"}])
    with pytest.raises(ValueError, match=r"typo.jsonl: line 1: field 'sesion_id'.*did you mean 'session_id'"):
        Workload.from_trace(trace)
    trace = _write(tmp_path / "typo2.jsonl", [{"input_length": 8, "output_length": 2, "hash_id": [1]}])
    with pytest.raises(ValueError, match=r"field 'hash_id'.*did you mean 'hash_ids'"):
        Workload.from_trace(trace)
    # fields of public trace formats that are not read (arrival timestamps) are not errors; the
    # workload's source names them
    trace = _write(tmp_path / "ok.jsonl", [{"timestamp": 27482, "input_length": 8, "output_length": 2}])
    w = Workload.from_trace(trace)
    assert w.kind == "fixed"
    assert w.source.endswith("(1 requests; fields not read: timestamp)")
    assert "not read" not in Workload.from_trace(_write(tmp_path / "plain.jsonl", [{"isl": 8, "osl": 2}])).source
