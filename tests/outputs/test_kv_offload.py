"""``kv_offload`` on every entry point: evaluate, compare, Scenario/sweep, the report options and the CLI."""

import pytest

import tokenomics as tk
from tokenomics.outputs.cli import main
from tokenomics.outputs.report import ReportOptions

WORKER_UNIT = "b200-agentic-early"  # tests/_scheduling.py: one worker computes these projections once
AGENTIC = {"workload": "agentic-coding-early", "interactivity_tok_per_s_per_user": 30.0}


@pytest.fixture(scope="module")
def b200_rows() -> dict[str, object]:
    """``evaluate`` of B200 DeepSeek-R1 at ``AGENTIC`` per offload mode (module-scoped: the module runs
    on one worker, so the session projections the other entry points read are computed once)."""
    return {mode: tk.evaluate("deepseek-r1", "b200", kv_offload=mode, **AGENTIC) for mode in ("none", "dram")}


def test_evaluate_reads_the_curve_of_its_offload_mode(b200_rows):
    on, off = b200_rows["dram"], b200_rows["none"]
    assert on["kv_offload"].item() == "dram"
    assert off["kv_offload"].item() == "none"
    # the bundled B200 runs with CPU offload cover 30 tok/s/user; the offload-off runs do not
    assert on["curve_kind"].item() == "measured"
    assert on["throughput_tok_per_s_per_gpu"].item() != off["throughput_tok_per_s_per_gpu"].item()


def test_compare_and_sweep_agree_on_offload(b200_rows):
    table = tk.compare("deepseek-r1", ["b200"], kv_offload="dram", **AGENTIC)
    assert table["throughput_tok_per_s_per_gpu"].item() == pytest.approx(
        b200_rows["dram"]["throughput_tok_per_s_per_gpu"].item(), rel=1e-12)
    scn = tk.Scenario(hardware="b200", model="deepseek-r1", **AGENTIC)
    swept = tk.sweep(scn, kv_offload=["none", "dram"]).set_index("kv_offload")
    assert table["cost_usd_per_mtok"].item() == pytest.approx(swept.loc["dram", "cost_usd_per_mtok"])
    assert set(swept.index) == {"none", "dram"}


@pytest.mark.parametrize("call", [
    lambda: tk.evaluate("deepseek-r1", "b200", workload="8k/1k", kv_offload="dram"),
    lambda: tk.compare("deepseek-r1", ["b200"], workload="8k/1k", kv_offload="dram"),
    lambda: ReportOptions(workload="8k/1k", kv_offload="ssd"),
])
def test_offload_with_a_fixed_workload_is_an_error(call):
    with pytest.raises(ValueError, match="session workloads"):
        call()


def test_offload_with_an_explicit_throughput_would_be_ignored():
    with pytest.raises(ValueError, match="would not be used"):
        tk.evaluate("deepseek-r1", "b200", workload="agentic-coding", kv_offload="dram",
                    throughput_tok_per_s_per_gpu=1000.0)


def test_unknown_mode_lists_the_valid_ones():
    with pytest.raises(KeyError, match="dram"):
        tk.Scenario(hardware="b200", model="deepseek-r1", workload="agentic-coding", kv_offload="cpu")


def test_cli_flag(capsys):
    code = main(["cost", "--hardware", "b200", "--model", "deepseek-r1", "--workload", "agentic-coding-early",
                 "--interactivity", "30", "--kv-offload", "dram", "--format", "csv"])
    assert code in (0, None)
    out = capsys.readouterr().out
    assert "dram" in out.splitlines()[1]
    code = main(["cost", "--hardware", "b200", "--model", "deepseek-r1", "--kv-offload", "dram"])
    assert code == 2
    assert "--kv-offload" in capsys.readouterr().err


def test_a_given_offload_curve_keeps_its_mode():
    # the DRAM curve holds no-offload rows where the tier is left unused: they are rows of a
    # DRAM deployment (anchored to the no-offload measurement), so the chain reads the curve as DRAM
    curve, points = tk.reference_curve("kimi-k2.7", "mi355x", workload="agentic-coding", kv_offload="dram")
    assert set(points["kv_offload"]) == {"dram"}
    assert "none" in set(points["anchor_kv_offload"].dropna())
    row = tk.evaluate("kimi-k2.7", "mi355x", workload="agentic-coding", throughput_curve=curve,
                      interactivity_tok_per_s_per_user=20.0)
    assert row["kv_offload"].item() == "dram"
