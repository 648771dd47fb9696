"""Charts: units in labels, one curve per hardware, projected dashed with a band, 0 contour."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PolyCollection, QuadMesh

from tokenomics.curves.schema import conform
from tokenomics.outputs import plot
from tokenomics.outputs.colors import system_color


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _points() -> pd.DataFrame:
    """Two measured hardware (with one dominated point each) and one projected with a band."""
    rows = []
    for hid, scale in (("b200", 1.0), ("gb200-nvl72", 2.0)):
        for x, y in ((10, 3000), (20, 2000), (40, 900), (80, 200), (20, 1000)):  # (20, 1000) dominated
            rows.append({"hardware_id": hid, "model_id": "deepseek-r1", "kind": "measured",
                         "interactivity_tok_per_s_per_user": x, "throughput_tok_per_s_per_gpu": y * scale})
    for x, y in ((10, 5000), (30, 3000), (60, 1200), (120, 300)):
        rows.append({"hardware_id": "mi355x", "model_id": "deepseek-r1", "kind": "projected",
                     "interactivity_tok_per_s_per_user": x, "throughput_tok_per_s_per_gpu": y,
                     "throughput_low_tok_per_s_per_gpu": 0.7 * y,
                     "throughput_high_tok_per_s_per_gpu": 1.2 * y})
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("column", "label"),
    [
        ("cost_usd_per_mtok", "cost [USD/Mtok]"),
        ("throughput_tok_per_s_per_gpu", "throughput [tok/s/GPU]"),
        ("interactivity_tok_per_s_per_user", "interactivity [tok/s/user]"),
        ("usd_per_gpu_hour", "USD per GPU hour"),  # no stem before the unit: words only
        ("tco_usd_per_gpu_hour", "TCO [USD/GPU-hour]"),
        ("gross_margin_frac", "gross margin [fraction]"),
        ("ttft_median_s", "TTFT median [s]"),
        ("profit_usd_per_mw_year", "profit [USD/MW-year]"),
        ("workload", "workload"),
    ],
)
def test_label_for(column, label):
    assert plot.label_for(column) == label


def test_label_for_percent():
    assert plot.label_for("utilization_frac", percent=True) == "utilization [%]"


def test_pareto_lines_per_hardware_and_projected_dashed():
    ax = plot.pareto(_points())
    assert ax.get_xlabel() == "interactivity [tok/s/user]"
    assert ax.get_ylabel() == "throughput [tok/s/GPU]"
    lines = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    labels = [ln.get_label() for ln in lines]
    assert len(lines) == 3, labels
    solid = [ln for ln in lines if ln.get_linestyle() == "-"]
    dashed = [ln for ln in lines if ln.get_linestyle() == "--"]
    assert len(solid) == 2
    assert len(dashed) == 1
    assert all(ln.get_marker() not in (None, "None", "") for ln in solid)
    # the measured line is the frontier: the dominated point (20, 1000) is not on it
    for ln in solid:
        xs, ys = ln.get_data()
        assert list(xs) == [10, 20, 40, 80]
        assert np.all(np.diff(ys) < 0)
    # one band for the projection, filled between its low and high columns
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 1
    verts = bands[0].get_paths()[0].vertices
    assert verts[:, 1].min() == pytest.approx(0.7 * 300)
    assert verts[:, 1].max() == pytest.approx(1.2 * 5000)


def test_pareto_distinct_colours():
    ax = plot.pareto(_points())
    colours = {ln.get_color() for ln in ax.get_lines() if not ln.get_label().startswith("_")}
    assert len(colours) == 3
    assert colours == {system_color(h) for h in _points()["hardware_id"].unique()}


def test_pareto_accepts_schema_frame_and_single_hardware():
    pts = conform(_points().query("hardware_id == 'b200'"))
    _fig, ax = plt.subplots()
    out = plot.pareto(pts, ax=ax)
    assert out is ax
    assert len([ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]) == 1


def test_pareto_missing_column():
    with pytest.raises(KeyError, match="throughput_tok_per_s_per_gpu"):
        plot.pareto(pd.DataFrame({"interactivity_tok_per_s_per_user": [1.0]}))


def _costs() -> pd.DataFrame:
    pts = _points()
    cost = 2.0 / (pts["throughput_tok_per_s_per_gpu"] * 3600 * 0.6 / 1e6)
    return pts.assign(cost_usd_per_mtok=cost,
                      cost_low_usd_per_mtok=cost / 1.2, cost_high_usd_per_mtok=cost / 0.7)


def test_cost_vs_interactivity_log_y_with_units():
    ax = plot.cost_vs_interactivity(_costs())
    assert ax.get_yscale() == "log"
    assert "[USD/Mtok]" in ax.get_ylabel()
    assert ax.get_xlabel() == "interactivity [tok/s/user]"
    lines = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
    assert sorted(ln.get_linestyle() for ln in lines) == ["-", "-", "--"]
    # measured: the lowest-cost envelope, so cost rises with interactivity
    for ln in lines:
        if ln.get_linestyle() == "-":
            assert np.all(np.diff(ln.get_ydata()) > 0)


def test_cost_vs_interactivity_drops_nonpositive_with_note():
    frame = _costs()
    frame.loc[0, "cost_usd_per_mtok"] = 0.0
    frame.loc[1, "cost_usd_per_mtok"] = -1.0
    ax = plot.cost_vs_interactivity(frame)
    for ln in ax.get_lines():
        y = np.asarray(ln.get_ydata(), dtype=float)
        assert np.all(y > 0)
    notes = [t.get_text() for t in ax.texts]
    assert any("2 point(s)" in t and "log" in t for t in notes), notes


def test_cost_vs_interactivity_reads_cost_curve_column():
    frame = _costs().rename(columns={"cost_usd_per_mtok": "total_usd_per_mtok"})
    ax = plot.cost_vs_interactivity(frame)
    assert ax.get_ylabel().startswith("total [USD/Mtok]")


def _margins() -> pd.DataFrame:
    u = np.linspace(0.1, 1.0, 10)
    rows = []
    for hid, k in (("b200", 1.0), ("gb200-nvl72", 2.5)):
        # margin = 1 - k * 0.2 / u  -> zero at u* = 0.2 k
        for ui in u:
            rows.append({"hardware_id": hid, "utilization_frac": ui, "gross_margin_frac": 1 - 0.2 * k / ui,
                         "breakeven_utilization_frac": 0.2 * k})
    return pd.DataFrame(rows)


def test_margin_vs_utilization_breakeven_markers():
    ax = plot.margin_vs_utilization(_margins())
    assert ax.get_xlabel() == "utilization [%]"
    assert ax.get_ylabel() == "gross margin [%]"
    markers = [ln for ln in ax.get_lines() if ln.get_marker() not in (None, "None", "")
               and ln.get_linestyle() in ("None", "none", "")]
    xs = sorted(float(ln.get_xdata()[0]) for ln in markers)
    assert xs == pytest.approx([0.2, 0.5])
    assert all(float(ln.get_ydata()[0]) == 0.0 for ln in markers)


def test_margin_vs_utilization_crossing_without_column():
    frame = _margins().drop(columns="breakeven_utilization_frac").query("hardware_id == 'b200'")
    ax = plot.margin_vs_utilization(frame)
    markers = [ln for ln in ax.get_lines() if ln.get_linestyle() in ("None", "none", "")]
    # linear interpolation between u = 0.1 (m = -1) and 0.2 (m = 0): 0.2
    assert len(markers) == 1
    assert float(markers[0].get_xdata()[0]) == pytest.approx(0.2)


def _grid() -> pd.DataFrame:
    u, f = np.meshgrid(np.linspace(0.1, 1.0, 10), np.linspace(0.0, 0.6, 7))
    m = (1 - f) - 0.3 / u
    return pd.DataFrame({"utilization_frac": u.ravel(), "license_fee_frac": f.ravel(), "gross_margin_frac": m.ravel()})


def test_margin_heatmap_has_zero_contour():
    ax = plot.margin_heatmap(_grid())
    assert any(isinstance(c, QuadMesh) for c in ax.collections)
    assert ax.zero_contour is not None
    assert list(ax.zero_contour.levels) == [0.0]
    assert ax.get_xlabel() == "utilization [%]"
    assert ax.get_ylabel() == "license fee [%]"
    # the contour lies where (1 - f) u = 0.3: at f = 0, u = 0.3
    seg = np.concatenate([p.vertices for p in ax.zero_contour.get_paths() if len(p.vertices)])
    at_f0 = seg[np.isclose(seg[:, 1], 0.0)]
    assert len(at_f0) >= 1
    assert np.all(np.abs(at_f0[:, 0] - 0.3) < 0.02)


def test_margin_heatmap_no_sign_change_no_contour():
    grid = _grid().assign(gross_margin_frac=lambda d: d["gross_margin_frac"].abs() + 0.1)
    ax = plot.margin_heatmap(grid)
    assert ax.zero_contour is None


def test_margin_heatmap_rejects_several_hardware():
    grid = pd.concat([_grid().assign(hardware_id="b200"), _grid().assign(hardware_id="b300")])
    with pytest.raises(ValueError, match="filter to one"):
        plot.margin_heatmap(grid)


def test_tco_breakdown_stacks_components():
    frame = pd.DataFrame({
        "hardware_id": ["b200"] * 4 + ["gb200-nvl72"] * 4,
        "component": ["capex_amortisation", "power", "colocation", "total"] * 2,
        "usd_per_gpu_hour": [1.0, 0.2, 0.1, 1.3, 2.0, 0.3, 0.2, 2.5],
    })
    ax = plot.tco_breakdown(frame)
    assert "[USD/GPU-hour]" in ax.get_xlabel()
    assert len(ax.containers) == 3  # one per component, "total" skipped
    ends = sorted(float(t.get_text()) for t in ax.texts)
    assert ends == pytest.approx([1.3, 2.5])


def test_tco_breakdown_negative_raises():
    frame = pd.DataFrame({"hardware_id": ["b200"], "component": ["power"], "usd_per_gpu_hour": [-1.0]})
    with pytest.raises(ValueError, match="negative"):
        plot.tco_breakdown(frame)


def test_tornado_sorted_by_swing():
    from tokenomics.analysis.sensitivity import margin_sensitivity

    base = {"input_usd_per_mtok": 1.0, "output_usd_per_mtok": 4.0, "input_share_frac": 0.5, "cache_hit_frac": 0.2,
                "throughput_tok_per_s_per_gpu": 1000.0, "utilization_frac": 0.5, "cost_usd_per_gpu_hour": 2.0,
                "license_fee_frac": 0.1}
    table = margin_sensitivity(base)
    ax = plot.tornado(table)
    assert len(ax.containers) == 2
    names = [t.get_text() for t in ax.get_yticklabels()]
    # barh puts the first category at the bottom: the largest swing is on top
    assert names[-1] == plot.label_for(table["parameter"].iloc[0])
    assert "gross margin [%]" in ax.get_xlabel()


@pytest.mark.parametrize("width_in", [7.0, 4.5])
def test_tornado_title_fits_and_legend_clear_of_bars(width_in):
    from tokenomics.analysis.sensitivity import margin_sensitivity

    base = {"input_usd_per_mtok": 0.55, "output_usd_per_mtok": 2.19, "input_share_frac": 8 / 9,
            "cache_hit_frac": 0.0, "throughput_tok_per_s_per_gpu": 2244.0, "utilization_frac": 0.6,
            "cost_usd_per_gpu_hour": 2.898, "license_fee_frac": 0.0}
    table = margin_sensitivity(base, ranges={"license_fee_frac": (0.0, 0.3), "cache_hit_frac": (0.0, 0.5)})
    title = "deepseek-r1 on NVIDIA GB200 NVL72 (Grace Blackwell): margin sensitivity at 50 tok/s/user"
    ax = plot.tornado(table, title=title)
    fig = ax.figure
    fig.set_size_inches(width_in, fig.get_size_inches()[1])
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    fig_box = fig.bbox
    # the whole title is on the figure (wrapped, not cut at the edges)
    title_box = ax.title.get_window_extent(renderer)
    assert title_box.x0 >= fig_box.x0 - 1
    assert title_box.x1 <= fig_box.x1 + 1
    assert title_box.y1 <= fig_box.y1 + 1
    assert ax.title.get_text() == title
    # the legend sits below the axes (and its x label), so no bar or value label can overlap it
    legend_box = ax.get_legend().get_window_extent(renderer)
    axes_box = ax.get_window_extent(renderer)
    assert legend_box.y1 < axes_box.y0
    assert legend_box.y1 < ax.xaxis.label.get_window_extent(renderer).y0
    assert legend_box.y0 >= fig_box.y0 - 1
    for text in ax.texts:
        assert not text.get_window_extent(renderer).overlaps(legend_box)


def test_hardware_colors_fixed_per_system_whatever_the_order():
    ids = ["vr200-nvl144", "gb200-nvl72", "tpu-v7", "b200"]
    styles = plot.hardware_colors(ids)
    assert plot.hardware_colors(reversed(ids)) == styles
    assert plot.hardware_colors(["tpu-v7"])["tpu-v7"] == styles["tpu-v7"]
    assert styles["gb200-nvl72"][0] != styles["tpu-v7"][0]  # shared a colour once
    assert {k: v[0] for k, v in styles.items()} == {h: system_color(h) for h in ids}


def test_hardware_colors_distinct_for_systems_outside_the_catalog():
    ids = [f"own-{i}" for i in range(12)]
    styles = plot.hardware_colors(ids)
    assert len({v[0] for v in styles.values()}) == 12
    assert plot.hardware_colors(ids[:3]) == plot.hardware_colors(list(reversed(ids[:3])))


def test_fan_chart_from_monte_carlo():
    import pandas as pd
    from scipy import stats

    import tokenomics as tk

    base = pd.DataFrame({
        "hardware_id": ["gb300-nvl72", "tpu-v7"] * 2, "interactivity_tok_per_s_per_user": [50.0, 50.0, 100.0, 100.0],
        "throughput_tok_per_s_per_gpu": [3000.0, 2500.0, 1500.0, 1200.0], "cost_usd_per_gpu_hour": [3.5, 1.5] * 2,
        "utilization_frac": 0.6, "license_fee_frac": 0.0, "input_share_frac": 0.9, "cache_hit_frac": 0.0,
        "input_usd_per_mtok": 0.55, "output_usd_per_mtok": 2.19, "cached_input_usd_per_mtok": 0.14,
    })
    r = tk.monte_carlo(base, n_draws=256, utilization_frac=stats.uniform(0.4, 0.4), catalog_spreads=False)
    ax = tk.plot.fan(r.fan("cost_usd_per_mtok"))
    assert ax.get_yscale() == "log"
    ax.figure.canvas.draw()
    labels = [t.get_text() for t in ax.get_yticklabels() + ax.get_yticklabels(minor=True) if t.get_text()]
    assert labels
    assert all("10^" not in t and "\\times" not in t for t in labels), labels  # plain decimals
    assert "USD/Mtok" in ax.get_ylabel()
    # one median line per system in its fixed colour
    colors = {line.get_label(): line.get_color() for line in ax.lines}
    assert len(colors) == 2
    assert set(colors.values()) == {tk.plot.hardware_colors(["gb300-nvl72"])["gb300-nvl72"][0],
                                    tk.plot.hardware_colors(["tpu-v7"])["tpu-v7"][0]}
    ax2 = tk.plot.fan(r.fan("gross_margin_frac").query("interactivity_tok_per_s_per_user == 50"))
    assert ax2.get_yscale() == "linear"


def test_engram_placement_map_marks_unfit_cells():
    frame = pd.DataFrame({
        "engram_layer_index": [1, 1, 2, 2],
        "tier": ["hbm", "ssd", "hbm", "ssd"],
        "fits": [False, True, False, True],
        "stall_frac": [float("nan"), 0.02, float("nan"), 0.0],
        "throughput_tok_per_s_per_gpu": [float("nan"), 1500.0, float("nan"), 1530.0],
    })
    ax = plot.engram_placement_map(frame)
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("does not fit") == 2
    assert any("2.0%" in t and "1,500" in t for t in texts)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["HBM", "NVMe SSD"]
    with pytest.raises(ValueError, match="duplicate"):
        plot.engram_placement_map(pd.concat([frame, frame]))


def test_hit_rate_vs_concurrency_one_line_per_offload_mode():
    frame = pd.DataFrame({
        "concurrency": [4, 32, 64, 4, 32, 64],
        "realized_cache_hit_frac": [0.95, 0.05, 0.0, 0.95, 0.9, 0.1],
        "theoretical_cache_hit_frac": [0.96] * 6,
        "kv_offload": ["none"] * 3 + ["dram"] * 3,
    })
    ax = plot.hit_rate_vs_concurrency(frame)
    labels = [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert labels == ["HBM only", "HBM + host DRAM"]
    assert ax.get_xscale() == "log"
    with pytest.raises(KeyError, match="kv_offload"):
        plot.hit_rate_vs_concurrency(frame.drop(columns=["kv_offload"]))


def test_fan_without_interactivity_puts_each_system_in_a_named_slot():
    import math

    import pandas as pd

    import tokenomics as tk

    frame = pd.DataFrame({"hardware_id": ["gb300-nvl72", "tpu-v7"], "interactivity_tok_per_s_per_user": math.nan,
                          "metric": "cost_usd_per_mtok", "p5": [0.1, 0.2], "p25": [0.15, 0.3], "p50": [0.2, 0.4],
                          "p75": [0.25, 0.5], "p95": [0.3, 0.6]})
    ax = tk.plot.fan(frame)
    assert ax.get_xlabel() == "system"  # not "interactivity [tok/s/user]": the frame has none
    assert [t.get_text() for t in ax.get_xticklabels()] == [tk.plot.display_name("gb300-nvl72"),
                                                            tk.plot.display_name("tpu-v7")]
    assert [list(line.get_xdata()) for line in ax.lines] == [[0.0], [1.0]]
