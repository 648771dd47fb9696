"""Report sections: each chart line and table cell says what the curve is there (measured or anchored)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tokenomics.curves.reference import curve_kind_at, reference_curve
from tokenomics.outputs.report import ReportOptions, write_report

# DeepSeek-R1 8k/1k on B200: a measured envelope from about 30 to 50 tok/s/user, anchored projection beyond
OPTIONS = ReportOptions(models=("deepseek-r1",), hardware=("b200",))


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    return write_report(tmp_path_factory.mktemp("sections") / "report", OPTIONS, progress=False, png=False).parent


def _figure(out: Path, chart_id: str) -> dict:
    page = (out / "index.html").read_text(encoding="utf-8")
    blob = re.search(rf'class="fig-data" data-target="{chart_id}">(.*?)</script>', page, flags=re.S)
    assert blob, chart_id
    return dict(json.loads(blob.group(1).replace("<\\/", "</")))


def _lines(fig: dict, role: str, **meta: str) -> dict[str, dict]:
    """The solid and the dashed line trace of the one system in the chart."""
    traces = [t for t in fig["data"] if t["meta"].get("role") == role
              and all(t["meta"].get(k) == v for k, v in meta.items())]
    return {t["line"]["dash"]: t for t in traces}


def _xs(trace: dict) -> list[float]:
    return [x for x in trace["x"] if x is not None]


def test_cost_chart_draws_measured_part_solid_and_anchored_part_dashed(out):
    cost = pd.read_csv(out / "cost_curves.csv")
    label = sorted(set(cost["tco_label"]))[0]
    rows = cost[cost["tco_label"] == label].sort_values("interactivity_tok_per_s_per_user")
    measured = [float(f"{x:.5g}") for x in rows.loc[rows["kind"] == "measured", "interactivity_tok_per_s_per_user"]]
    anchored = [float(f"{x:.5g}") for x in rows.loc[rows["kind"] == "anchored", "interactivity_tok_per_s_per_user"]]
    assert measured  # the curve has both parts
    assert anchored
    lines = _lines(_figure(out, "chart-deepseek-r1-cost-8k-1k"), "line", tco=label)
    assert set(lines) == {"solid", "dash"}
    # the solid line is the measured points, exactly
    assert _xs(lines["solid"]) == measured
    assert lines["solid"]["mode"] == "lines+markers"
    # the dashed line is every anchored point, joined to the measured ends next to it and to nothing else
    dashed = _xs(lines["dash"])
    assert set(anchored) <= set(dashed)
    assert set(dashed) - set(anchored) <= {measured[0], measured[-1]}
    assert not any(measured[0] < x < measured[-1] for x in dashed)
    # hover text names the kind of each point
    kinds = dict(zip(lines["dash"]["x"], (c[0] for c in lines["dash"]["customdata"]), strict=True))
    assert {kinds[x] for x in anchored} == {"anchored"}
    # one legend entry for the system, naming both parts
    shown = [t["name"] for t in lines.values() if t["showlegend"]]
    assert shown == ["B200 (measured + anchored)"]


def test_throughput_chart_splits_its_envelope_the_same_way(out):
    pts = pd.read_csv(out / "curve_points.csv")
    lines = _lines(_figure(out, "chart-deepseek-r1-pareto-8k-1k"), "envelope")
    assert set(lines) == {"solid", "dash"}
    kind_at = dict(zip(pts["interactivity_tok_per_s_per_user"].map(lambda v: float(f"{v:.5g}")), pts["kind"],
                       strict=False))
    assert {kind_at[x] for x in _xs(lines["solid"])} == {"measured"}
    solid = _xs(lines["solid"])
    assert not any(solid[0] < x < solid[-1] for x in _xs(lines["dash"]))
    assert "anchored" in {kind_at[x] for x in _xs(lines["dash"])}


def test_standard_table_labels_every_value_with_the_curve_kind_there(out):
    page = (out / "index.html").read_text(encoding="utf-8")
    table = re.search(r"<table class=\"compact\">(?:(?!</table>).)*at interactivity.*?</table>", page, flags=re.S)
    assert table
    row = re.search(r"<tr data-tco=\"[^\"]+\">(.*?)</tr>", table.group(0), flags=re.S)
    assert row
    cells = re.findall(r"<td class=(\w+)((?: [\w-]+=\"[^\"]*\")*)>([^<]*)</td>", row.group(1))
    assert cells[0][2] == "B200"
    values = cells[3:]
    xs = [20.0, 35.0, 50.0, 75.0, 100.0]
    assert len(values) == 2 * len(xs)  # throughput, then cost, at each standard interactivity
    # the kind of each value is what the curve is at that interactivity
    expected = {}
    for x in xs:
        curve, _ = reference_curve("deepseek-r1", "b200", workload="8k/1k", interactivity_tok_per_s_per_user=x)
        expected[x] = curve_kind_at(curve, x)
    assert {"measured", "anchored"} <= set(expected.values())
    for i, (_, attrs, text) in enumerate(values):
        x = xs[i % len(xs)]
        if text == "-":
            continue
        assert f'data-kind="{expected[x]}"' in attrs, (x, attrs)
    # the curve column states where the curve is measured and where anchored
    summary = cells[1][2]
    measured = [f"{x:g}" for x in xs if expected[x] == "measured"]
    assert summary.startswith(f"measured {measured[0]}")
    assert "anchored" in summary


def test_every_numeric_cell_of_a_single_kind_curve_has_that_kind():
    from tokenomics.outputs.report.build import build_report
    from tokenomics.outputs.report.sections import model_sections

    rep = build_report(ReportOptions(models=("deepseek-r1",), hardware=("h800",)))
    std = rep.tables["standard_points"]
    assert set(std["curve_kind"]) == {"projected"}
    html = "".join(model_sections(rep)[0].body)
    kinds = re.findall(r'<td class=num data-kind="(\w+)"', html)
    finite = np.isfinite(std["throughput_tok_per_s_per_gpu"]).sum()
    assert len(kinds) == 2 * finite
    assert set(kinds) == {"projected"}


def test_headline_states_the_kv_offload_mode(agentic_report):
    from tokenomics.outputs.report.sections import headline_section

    text = "".join(headline_section(agentic_report).body)
    assert "agentic-coding, KV offload to host DRAM, TCO" in text
    assert ReportOptions(models=("deepseek-r1",)).offload_label() == ""
    assert "KV offload" not in ReportOptions(models=("deepseek-r1",)).conditions_label()


def test_headline_states_a_license_fee_given_for_every_model():
    # a fee given for every model moves every margin: the headline's conditions say it; without
    # one each model has its own default fee (listed in the assumptions), so the line is silent
    given = ReportOptions(models=("deepseek-r1",), license_fee_frac=0.3).conditions_label()
    assert "60% utilization, 30% license fee, 8k/1k" in given
    assert "license fee" not in ReportOptions(models=("deepseek-r1",)).conditions_label()


def test_static_charts_draw_one_workload_the_one_in_their_title(monkeypatch: pytest.MonkeyPatch) -> None:
    """With an extra workload, the PNG charts keep to the main one (the HTML selector holds the others)."""
    from tokenomics.outputs import plot
    from tokenomics.outputs.report import build_report
    from tokenomics.outputs.report.sections import png_charts

    rep = build_report(ReportOptions(models="deepseek-r1", hardware="b200", extra_workloads="1k/1k"))
    assert set(rep.tables["curve_points"]["workload"].astype(str)) == {"8k/1k", "1k/1k"}
    drawn: dict[str, tuple[set[str], str]] = {}
    for name in ("pareto", "cost_vs_interactivity"):
        original = getattr(plot, name)

        def record(frame, *args, _name=name, _original=original, **kwargs):  # type: ignore[no-untyped-def]
            drawn[_name] = (set(frame["workload"].astype(str)), kwargs.get("title", ""))
            return _original(frame, *args, **kwargs)

        monkeypatch.setattr(plot, name, record)
    png_charts(rep)
    for name, (workloads, title) in drawn.items():
        assert workloads == {"8k/1k"}, name
        assert "(8k/1k)" in title, name
