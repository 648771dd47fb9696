"""Tests of the report's Monte Carlo section."""

import pytest

from tokenomics.outputs.report import SECTIONS, ReportOptions, build_report, render_html
from tokenomics.outputs.report.sections import margin_sections
from tokenomics.outputs.report.uncertainty import MC_DRAWS, uncertainty_section, uncertainty_table


@pytest.fixture(scope="module")
def rep():
    return build_report(ReportOptions(models=("deepseek-r1",), hardware=("b200", "gb200")))


def test_section_follows_the_margin_charts():
    assert SECTIONS.index(uncertainty_section) == SECTIONS.index(margin_sections) + 1


def test_uncertainty_table_and_section(rep):
    table = uncertainty_table(rep, "deepseek-r1")
    assert table is not None
    assert set(table["hardware_id"]) == set(rep.tables["headline"]["hardware_id"])
    assert (table["cost_p5_usd_per_mtok"] <= table["cost_p50_usd_per_mtok"]).all()
    assert (table["cost_p50_usd_per_mtok"] <= table["cost_p95_usd_per_mtok"]).all()
    assert table["cheapest_frac"].sum() == pytest.approx(1.0)
    assert table["prob_margin_above_frac"].between(0, 1).all()
    # computed in the evaluation step: the section only renders rep.tables["uncertainty"]
    assert set(rep.tables["uncertainty"]["model_id"]) == {"deepseek-r1"}
    sections = uncertainty_section(rep)
    assert sections is not None
    page = render_html(rep)
    assert "uncertainty (Monte Carlo)" in page
    assert f"{MC_DRAWS} joint draws" in page


def test_cost_axis_is_labelled_with_plain_numbers(rep):
    from tests.outputs.report.conftest import figures

    sections = uncertainty_section(rep)
    assert sections is not None
    yaxis = figures(sections[0].body)["chart-deepseek-r1-uncertainty"]["layout"]["yaxis"]
    assert yaxis["type"] == "log"
    assert all(float(t) == pytest.approx(v) for v, t in zip(yaxis["tickvals"], yaxis["ticktext"], strict=True))
