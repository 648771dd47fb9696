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
    assert set(engram["model_id"]) == {"deepseek-v3"}  # the engram backbone, named in every row
    skipped = tables["memory_skipped"]
    assert list(skipped.loc[skipped["table"] == "memory", "hardware_id"]) == ["mi355x"]  # and said so
    assert set(engram["tier"]) == {"hbm", "dram", "cxl", "ssd"}
    assert tables["memory_offload"].empty


def test_offload_curves_for_a_session_workload():
    opts = ReportOptions(models=("deepseek-r1",), workload="agentic-coding", kv_offload="dram")
    tables = memory_tables(opts, ["b200", "tpu-v7"])
    offload = tables["memory_offload"]
    assert set(offload["kv_offload"]) == {"none", "dram", "ssd"}
    assert set(offload["model_id"]) == {"deepseek-r1"}
    # TPU v7 has no NVMe tier in the catalog: its ssd curve is skipped with the reason
    skipped = tables["memory_skipped"]
    assert skipped["reason"].str.contains("no 'ssd' tier").any()
    by_mode = offload[offload["hardware_id"] == "b200"].groupby("kv_offload")["realized_cache_hit_frac"].min()
    assert by_mode["dram"] >= by_mode["none"] - 1e-9


def test_no_chosen_system_gives_empty_tables():
    tables = memory_tables(ReportOptions(models=("deepseek-r1",)), ["mi355x"])
    assert tables["memory_offload"].empty
    assert tables["memory_engram"].empty
    assert list(tables["memory_skipped"]["hardware_id"]) == ["mi355x"]


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


def test_engram_maps_share_one_colour_scale_and_equal_rows(agentic_report) -> None:
    from tests.outputs.report.conftest import figures
    from tokenomics.outputs.report.memory import memory_body

    body = memory_body(agentic_report)
    assert body is not None
    maps = {k: f["data"][0] for k, f in figures(body).items() if "engram" in k}
    assert set(maps) == {"chart-memory-engram-b200", "chart-memory-engram-tpu-v7"}
    top = agentic_report.tables["memory_engram"]["stall_frac"].max() * 100  # B200's NVMe stall [%]
    for trace in maps.values():
        assert (trace["zmin"], trace["zmax"]) == (0, pytest.approx(top))
        assert trace["y"] == ["0", "1", "2", "4"]  # one row per first engram layer, as categories
        assert trace["ygap"] > 0


def test_offload_charts_label_hits_in_percent_on_readable_log_axes(agentic_report) -> None:
    from tests.outputs.report.conftest import figures
    from tokenomics.outputs.report.memory import memory_body

    charts = figures(memory_body(agentic_report) or [])
    hits = charts["chart-memory-offload-0"]["layout"]
    assert hits["yaxis"]["tickformat"] == ".0%"
    assert "[%]" in hits["yaxis"]["title"]["text"]
    assert all(float(t.replace(",", "")) == v for v, t in zip(hits["xaxis"]["tickvals"], hits["xaxis"]["ticktext"],
                                                              strict=True))
