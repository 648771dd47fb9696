"""Inputs that belong to another system, model or workload than the one evaluated (a ValueError
naming both, never a number read off the wrong curve), and hints that name what the caller can pass.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.curves.curve import check_curve_matches


@pytest.fixture(scope="module")
def gb200_r1_8k1k() -> tk.ThroughputCurve:
    curve, _ = tk.reference_curve("deepseek-r1", "gb200", workload="8k/1k")
    return curve


@pytest.mark.parametrize(("model", "hardware", "workload", "fragments"), [
    ("deepseek-r1", "h100", "8k/1k", ("gb200-nvl72", "h100-sxm")),
    ("llama-3.3-70b", "gb200", "8k/1k", ("deepseek-r1", "llama-3.3-70b")),
    ("deepseek-r1", "gb200", "1k/1k", ("8192/1024", "1k/1k")),
])
def test_a_curve_of_another_system_is_refused(gb200_r1_8k1k: tk.ThroughputCurve, model: str, hardware: str,
                                              workload: str, fragments: tuple[str, ...]) -> None:
    with pytest.raises(ValueError) as err:
        tk.evaluate(model, hardware, workload=workload, throughput_curve=gb200_r1_8k1k)
    for fragment in fragments:
        assert fragment in str(err.value)


def test_the_matching_curve_is_read(gb200_r1_8k1k: tk.ThroughputCurve) -> None:
    row = tk.evaluate("deepseek-r1", "gb200", workload="8k/1k", throughput_curve=gb200_r1_8k1k)
    assert row["throughput_tok_per_s_per_gpu"].iloc[0] == pytest.approx(gb200_r1_8k1k.throughput_at(50.0))


def test_points_that_state_nothing_pass() -> None:
    check_curve_matches(pd.DataFrame({"throughput_tok_per_s_per_gpu": [1.0]}), model_id="deepseek-r1",
                        hardware_id="h100-sxm", workload=tk.workload("8k/1k"))


def test_a_plan_made_for_another_isl_osl_is_refused() -> None:
    # the columns of project_disagg_curve rows, made at 8k/1k
    pts = pd.DataFrame({"prefill_hardware_id": ["b200"], "decode_hardware_id": ["h200-sxm"],
                        "num_prefill_gpus": [8.0], "num_decode_gpus": [16.0],
                        "throughput_tok_per_s_per_gpu": [500.0], "interactivity_tok_per_s_per_user": [30.0],
                        "model_id": ["deepseek-r1"], "workload": ["8k/1k"], "isl_tokens": [8192.0],
                        "osl_tokens": [1024.0]})
    with pytest.raises(ValueError, match=r"points is for workload ISL/OSL 8192/1024, not 1k/1k"):
        tk.evaluate_plan("deepseek-r1", pts, workload="1k/1k")
    with pytest.raises(ValueError, match=r"model deepseek-r1, not llama-3.3-70b"):
        tk.evaluate_plan("llama-3.3-70b", pts, workload="8k/1k")


def test_an_input_beyond_the_context_window_is_refused() -> None:
    long = tk.Workload(name="long", isl_tokens=2e6, osl_tokens=1000)
    with pytest.raises(ValueError, match=r"isl_tokens=2e\+06 \+ osl_tokens=1000 = 2\.001e\+06 exceeds deepseek-r1's "
                                         r"context window \(max_context_tokens=131,072\)"):
        tk.evaluate("deepseek-r1", "gb200", workload=long, cost_usd_per_gpu_hour=2.0)
    # the output is generated into the same context: a prompt that fits with a long answer does not
    answer = tk.Workload(name="long answer", isl_tokens=100_000, osl_tokens=100_000)
    with pytest.raises(ValueError, match=r"= 200000 exceeds deepseek-r1's context window"):
        tk.evaluate("deepseek-r1", "gb200", workload=answer, cost_usd_per_gpu_hour=2.0)


def test_a_given_offload_curve_labels_its_mode() -> None:
    # the report passes the DRAM-offload reference curve; its rows must say dram, not none
    curve, _ = tk.reference_curve("deepseek-r1", "b200", workload="agentic-coding", kv_offload="dram")
    row = tk.evaluate("deepseek-r1", "b200", workload="agentic-coding", throughput_curve=curve)
    assert row["kv_offload"].iloc[0] == "dram"


def test_a_system_without_power_takes_the_keyword_its_error_names() -> None:
    with pytest.raises(ValueError, match=r"pass facility_power_kw_per_accelerator=") as err:
        tk.evaluate("llama-3.3-70b", "tpu-v6e")
    assert "cost_usd_per_gpu_hour=" in str(err.value)
    row = tk.evaluate("llama-3.3-70b", "tpu-v6e", facility_power_kw_per_accelerator=0.4)
    # itemised TCO on the given facility power: the same figure tk.tco gives with that override
    expected = tk.tco("tpu-v6e", facility_power_kw_per_accelerator=0.4).usd_per_gpu_hour
    assert row["cost_usd_per_gpu_hour"].iloc[0] == pytest.approx(expected)
    assert row["facility_power_kw_per_accelerator"].iloc[0] == pytest.approx(0.4)


def test_the_command_line_hint_names_a_flag(capsys: pytest.CaptureFixture[str]) -> None:
    from tokenomics.outputs.cli import main

    assert main(["cost", "--hardware", "tpu-v6e", "--model", "llama-3.3-70b"]) == 2
    err = capsys.readouterr().err
    assert "--cost-per-gpu-hour" in err
    assert "facility_power_kw_per_accelerator=" not in err
    assert main(["cost", "--hardware", "gb200", "--model", "deepseek-r1", "--isl", "200000", "--osl", "1000"]) == 2
    assert "--isl=200000 + --osl=1000 = 201000 exceeds deepseek-r1's context window" in capsys.readouterr().err


def test_an_array_of_interactivities_gives_one_row_each() -> None:
    rows = tk.evaluate("deepseek-r1", "gb200", interactivity_tok_per_s_per_user=np.array([20.0, 50.0]))
    one = [tk.evaluate("deepseek-r1", "gb200", interactivity_tok_per_s_per_user=x) for x in (20.0, 50.0)]
    assert list(rows["interactivity_tok_per_s_per_user"]) == [20.0, 50.0]
    for i, row in enumerate(one):
        assert rows["gross_margin_frac"].iloc[i] == pytest.approx(row["gross_margin_frac"].iloc[0])
    # Series in, Series index out; another 1-d input goes along element by element
    x = pd.Series([20.0, 50.0], index=["slow", "fast"])
    rows = tk.evaluate("deepseek-r1", "gb200", interactivity_tok_per_s_per_user=x, utilization_frac=[0.5, 0.6])
    assert list(rows.index) == ["slow", "fast"]
    assert list(rows["utilization_frac"]) == [0.5, 0.6]
    with pytest.raises(ValueError, match=r"utilization_frac must be a scalar or a 1-d array .* \(2\)"):
        tk.evaluate("deepseek-r1", "gb200", interactivity_tok_per_s_per_user=x, utilization_frac=[0.5, 0.6, 0.7])


def test_compare_takes_one_interactivity_and_says_where_several_go() -> None:
    with pytest.raises(ValueError, match=r"interactivity_tok_per_s_per_user takes one value in compare\(\), got 2: "
                                         r"for several use tk.sweep"):
        tk.compare("deepseek-r1", ["gb200"], interactivity_tok_per_s_per_user=[20, 50])
    # one value in a one-element array is one value; catalog entries are taken as well as names
    one = tk.compare("deepseek-r1", ["gb200"], interactivity_tok_per_s_per_user=np.array([50.0]))
    same = tk.compare(tk.model("deepseek-r1"), tk.hardware("gb200"), interactivity_tok_per_s_per_user=50.0)
    assert one["cost_usd_per_mtok"].iloc[0] == same["cost_usd_per_mtok"].iloc[0]
    with pytest.raises(ValueError, match="name the same system"):
        tk.compare("deepseek-r1", [tk.hardware("gb200"), "gb200-nvl72"])


def test_compare_uses_an_edited_hardware_entry_as_given() -> None:
    # an entry edited with with_values is not swapped back for the catalog's: twice the TCO
    # basis cost per GPU-hour doubles the cost per Mtok at the same throughput
    base = tk.compare("deepseek-r1", "gb200", cost_usd_per_gpu_hour=2.0)
    dear = tk.compare("deepseek-r1", "gb200", cost_usd_per_gpu_hour=4.0)
    assert dear["cost_usd_per_mtok"].iloc[0] == pytest.approx(2 * base["cost_usd_per_mtok"].iloc[0])


@pytest.mark.parametrize(("tokens", "nodes", "fragment"), [
    # DeepSeek's published day with tokens given in thousands of the real count: 0.00495 tok/s/GPU
    # = (608e3 + 168e3) / (226.75 x 8 x 24 x 3600)
    ((608e3, 342e3, 168e3), 226.75, "throughput_tok_per_s_per_gpu=0.00495 tok/s/GPU, below the plausible minimum"),
    # a millionth of the fleet: 1.12e11 = (608e12 + 168e12) / (0.01 x 8 x 86400)
    ((608e12, 342e12, 168e12), 0.01, "throughput_tok_per_s_per_gpu=1.12e+11 tok/s/GPU, above the physical maximum"),
])
def test_a_serving_day_with_implausible_throughput_is_refused(tokens: tuple[float, float, float], nodes: float,
                                                             fragment: str) -> None:
    with pytest.raises(ValueError) as err:
        tk.serving_day(nodes, 8, 2.0, *tokens, 0.55, 2.19, 0.14)
    assert fragment in str(err.value)
    assert "input_tokens + output_tokens" in str(err.value)


def test_an_interactivity_that_is_a_tpot_is_refused() -> None:
    # 0.02 s per token is 1 / 0.02 = 50 tok/s/user
    with pytest.raises(ValueError, match=r"interactivity_tok_per_s_per_user=0.02 tok/s/user is outside the plausible "
                                         r"range \[1, 10000\].*a TPOT of 0.02 s per token is 50 tok/s/user"):
        tk.evaluate("deepseek-r1", "gb200", interactivity_tok_per_s_per_user=0.02)
    # 20,000 read as a TPOT in ms is 1,000 / 20,000 = 0.05 tok/s/user, in us 1e6 / 20,000 = 50
    with pytest.raises(ValueError, match=r"range \[1, 10000\].*a TPOT of 20000 ms per token is 0.05 tok/s/user, "
                                         r"of 20000 us 50"):
        tk.evaluate("deepseek-r1", "gb200", interactivity_tok_per_s_per_user=20000)


def test_a_cached_input_price_above_the_input_price_is_refused() -> None:
    with pytest.raises(ValueError, match=r"cached_input_usd_per_mtok=0.6 is above input_usd_per_mtok=0.5"):
        tk.evaluate("deepseek-r1", "gb200", input_usd_per_mtok=[0.5, 0.5], cached_input_usd_per_mtok=[0.1, 0.6],
                    output_usd_per_mtok=2.0, cost_usd_per_gpu_hour=2.0)


def test_a_target_margin_in_percent_gets_the_hint() -> None:
    with pytest.raises(ValueError, match=r"target_margin_frac=50.*it looks like a percent.*write 0.5, not 50"):
        tk.evaluate("deepseek-r1", "gb200", target_margin_frac=50, cost_usd_per_gpu_hour=2.0)


def test_a_prefix_of_several_workloads_is_ambiguous() -> None:
    with pytest.raises(KeyError, match=r"'agentic' is ambiguous.*agentic-coding, agentic-coding-early"):
        tk.workload("agentic")
    assert tk.workload("agentic-coding").name == "agentic-coding"


def test_a_prefill_only_part_serves_only_in_a_disaggregated_plan() -> None:
    assert tk.hardware("rubin-cpx").prefill_only
    assert not tk.hardware("vr200").prefill_only
    with pytest.raises(ValueError, match=r"rubin-cpx is a prefill-only part.*evaluate_plan"):
        tk.evaluate("deepseek-r1", "rubin-cpx")
    table = tk.hardware_table()
    assert list(table.index[table["serving_role"] == "prefill"]) == ["rubin-cpx"]


def test_default_system_lists_leave_prefill_only_parts_out() -> None:
    from tokenomics.outputs.report.build import ReportOptions, _candidate_hardware

    assert "rubin-cpx" not in _candidate_hardware(ReportOptions(models=["deepseek-r1"]))
    assert "vr200-nvl144" in _candidate_hardware(ReportOptions(models=["deepseek-r1"]))


def test_a_filled_cached_input_price_says_so() -> None:
    # Fireworks lists no cached-input price for DeepSeek-R1: it is filled at 10 % of input, and the row says so
    row = tk.evaluate("deepseek-r1", "gb200", price_provider="Fireworks")
    assert row["cached_input_price_basis"].iloc[0] == "filled"
    assert row["cached_input_usd_per_mtok"].iloc[0] == pytest.approx(0.1 * row["input_usd_per_mtok"].iloc[0])
    assert tk.evaluate("deepseek-r1", "gb200")["cached_input_price_basis"].iloc[0] == "listed"
