"""Agentic report section: the table comes from the chain, empty for fixed-sequence traffic."""

from __future__ import annotations

from tokenomics.curves.reference import reference_curve
from tokenomics.outputs.report import ReportOptions
from tokenomics.outputs.report.agentic import AGENTIC_COLUMNS, agentic_table


def test_agentic_table_rows_for_sessions_and_none_for_fixed() -> None:
    curve, _ = reference_curve("kimi-k2.7", "mi355x", workload="agentic-coding", interactivity_tok_per_s_per_user=30)
    curves = {("kimi-k2.7", "mi355x"): curve}
    lo, hi = curve.interactivity_range
    xs = (lo, (lo + hi) / 2, hi * 10)
    table = agentic_table(curves, ReportOptions(models=("kimi-k2.7",), workload="agentic-coding"), xs)
    assert list(table.columns) == list(AGENTIC_COLUMNS)
    assert len(table) == 2  # the point beyond the curve is left out, never extrapolated
    [left] = table.attrs["skipped"]  # and listed with the reason
    assert (left["model_id"], left["hardware_id"], left["interactivity_tok_per_s_per_user"]) == (
        "kimi-k2.7", "mi355x", hi * 10)
    assert left["reason"].startswith("outside its curve")
    assert (table["realized_cache_hit_frac"] <= table["theoretical_cache_hit_frac"] + 1e-12).all()
    assert table["cost_usd_per_output_mtok"].iloc[0] > 50 * table["cost_usd_per_mtok"].iloc[0]
    fixed = agentic_table(curves, ReportOptions(models=("kimi-k2.7",), workload="8k/1k"), xs)
    assert fixed.empty


def test_report_has_the_agentic_section(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import tokenomics as tk

    out = tk.write_report(tmp_path / "r", ReportOptions(models=("kimi-k2.7",), hardware=("mi355x",),
                                                        workload="agentic-coding"), progress=False, png=False)
    page = out.read_text(encoding="utf-8")
    assert "Agentic traffic" in page
    assert (out.parent / "agentic.csv").is_file()


def test_agentic_margin_and_hits_are_shown_in_percent(agentic_report) -> None:  # type: ignore[no-untyped-def]
    from tests.outputs.report.conftest import figures
    from tokenomics.outputs.report.agentic import agentic_body

    body = agentic_body(agentic_report)
    assert body is not None
    margin = figures(body)["chart-agentic-deepseek-r1-1"]["layout"]["yaxis"]
    assert margin["tickformat"] == ".0%"
    assert margin["title"]["text"] == "gross margin [%]"
    table = next(part for part in body if "<table" in part)
    assert "realized cache hits" in table
    assert "realized hits<" not in table
    hit = float(agentic_report.tables["agentic"].sort_values(
        ["model_id", "hardware_id", "interactivity_tok_per_s_per_user"])["realized_cache_hit_frac"].iloc[0])
    assert f"<td class=num>{hit * 100:.0f}%</td>" in table


def test_agentic_body_lists_what_the_table_leaves_out(agentic_report) -> None:  # type: ignore[no-untyped-def]
    from tokenomics.outputs.report.agentic import agentic_body

    assert agentic_report.tables["agentic"].attrs["skipped"] == []
    assert "Not in the table" not in "".join(agentic_body(agentic_report) or [])
    table = agentic_report.tables["agentic"].copy()
    table.attrs["skipped"] = [{"model_id": "deepseek-r1", "hardware_id": "tpu-v7",
                               "interactivity_tok_per_s_per_user": 200.0,
                               "reason": "outside its curve (7-150 tok/s/user)"}]
    rep = agentic_report.model_copy(update={"tables": {**agentic_report.tables, "agentic": table}})
    body = "".join(agentic_body(rep) or [])
    assert "Not in the table (1; also in <code>skipped.csv</code>):" in body
    assert "deepseek-r1 on tpu-v7 at 200 tok/s/user: outside its curve (7-150 tok/s/user)" in body


def test_points_left_out_of_the_agentic_table_are_in_skipped_csv() -> None:
    # Llama 3.3 70B's H100 agentic curve ends below 75 tok/s/user (a dense 70B model reads 70 GB of
    # weights per step over 8 GPUs' 3.35 TB/s each): the points above are listed, not dropped
    from tokenomics.outputs.report.build import build_report

    rep = build_report(ReportOptions(models=("llama-3.3-70b",), hardware=("h100",), workload="agentic-coding"))
    left = rep.tables["agentic"].attrs["skipped"]
    assert left, "expected a standard interactivity outside the curve"
    stages = set(rep.tables["skipped"]["stage"])
    for r in left:
        assert f"agentic table at {r['interactivity_tok_per_s_per_user']:g} tok/s/user" in stages


def test_session_traffic_sensitivity_holds_the_hit_rate_the_curve_depends_on(agentic_report) -> None:  # type: ignore[no-untyped-def]
    """A lower hit rate at the same throughput would raise the margin (cheaper cached input gone, no
    prefill added): the tornado leaves the hit rate out and says so, rather than point the wrong way."""
    sens = agentic_report.tables["sensitivity"]
    assert len(sens)
    assert "cache_hit_frac" not in set(sens["parameter"])
    assumptions = agentic_report.tables["assumptions"].set_index("assumption")
    assert "prefix-cache hit rate is not varied" in assumptions.loc["sensitivity", "value"]
    assert "realized prefix-cache hit rate" in assumptions.loc["cached input price", "note"]
    assert (agentic_report.tables["headline"]["cache_hit_frac"] > 0.5).all()  # most input is a cached prefix
