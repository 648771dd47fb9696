import pytest

import tokenomics as tk
from tokenomics.analysis.memory import memory_hierarchy_tables
from tokenomics.memory.engram import engram_config
from tokenomics.outputs.report import ReportOptions
from tokenomics.outputs.report.memory import memory_tables
from tokenomics.workload import workload


def test_engram_map_for_a_fixed_workload_and_no_offload_curves():
    tables = memory_tables(ReportOptions(models=("deepseek-r1",)), ["b200", "mi355x"])
    engram = tables["memory_engram"]
    assert set(engram["hardware_id"]) == {"b200"}  # mi355x is not one of the memory section's systems
    assert set(engram["tier"]) == {"hbm", "dram", "cxl", "ssd"}
    assert tables["memory_offload"].empty


def test_offload_curves_for_a_session_workload():
    opts = ReportOptions(models=("deepseek-r1",), workload="agentic-coding", kv_offload="dram")
    tables = memory_tables(opts, ["b200", "tpu-v7"])
    offload = tables["memory_offload"]
    assert set(offload["kv_offload"]) == {"none", "dram", "ssd"}
    # TPU v7 has no NVMe tier in the catalog: its ssd curve is skipped with the reason
    skipped = tables["memory_skipped"]
    assert skipped["reason"].str.contains("no 'ssd' tier").any()
    by_mode = offload[offload["hardware_id"] == "b200"].groupby("kv_offload")["realized_cache_hit_frac"].min()
    assert by_mode["dram"] >= by_mode["none"] - 1e-9


def test_no_chosen_system_gives_empty_tables():
    tables = memory_tables(ReportOptions(models=("deepseek-r1",)), ["mi355x"])
    assert all(t.empty for t in tables.values())


def test_offload_mode_needs_session_workload():
    with pytest.raises(ValueError, match="session workloads"):
        ReportOptions(kv_offload="dram")


def test_tables_refuse_what_they_cannot_use():
    tables = engram_config("engram-demo")
    with pytest.raises(ValueError, match="fixed-sequence"):
        memory_hierarchy_tables(tk.model("deepseek-r1"), [tk.hardware("b200")], workload("8k/1k"),
                                engram_model=tk.model("deepseek-v3"), engram=tables)
    with pytest.raises(ValueError, match="beyond the model's 61 layers"):
        memory_hierarchy_tables(tk.model("deepseek-r1"), [tk.hardware("b200")], workload("agentic-coding"),
                                engram_model=tk.model("deepseek-v3"), engram=tables.placed_at(1, 70))
