"""tokenomics.chain: the one evaluation path, by hand, and the entry points that call it agree."""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.chain import CHAIN_COLUMNS, SUPPLY_COLUMNS, evaluate, supply
from tokenomics.outputs import cli

HALF = tk.Workload(name="1:1", isl_tokens=1000, osl_tokens=1000)
GIVEN = {"cost_usd_per_gpu_hour": 2.0, "throughput_tok_per_s_per_gpu": 1000.0, "utilization_frac": 0.6,
         "input_usd_per_mtok": 0.5, "output_usd_per_mtok": 2.0, "license_fee_frac": 0.3}


def test_evaluate_by_hand():
    row = evaluate(None, "gb200", workload=HALF, **GIVEN).iloc[0]
    # 1000 tok/s x 3600 s/h x 0.6 = 2.16 Mtok per GPU-hour
    assert row["served_mtok_per_gpu_hour"] == pytest.approx(2.16)
    assert row["cost_usd_per_mtok"] == pytest.approx(2.0 / 2.16)
    # blended price: half input at 0.5, half output at 2.0 -> 1.25 USD/Mtok; revenue 2.7 USD/GPU-hour
    assert row["blended_price_usd_per_mtok"] == pytest.approx(1.25)
    assert row["revenue_usd_per_gpu_hour"] == pytest.approx(2.7)
    # license 0.3 x 2.7 = 0.81; profit 2.7 - 0.81 - 2.0 = -0.11
    assert row["profit_usd_per_gpu_hour"] == pytest.approx(-0.11)
    assert row["gross_margin_frac"] == pytest.approx(-0.11 / 2.7)
    assert row["tco_basis"] == "explicit"
    assert row["curve_kind"] == "given"
    assert np.isnan(row["interactivity_tok_per_s_per_user"])
    assert list(evaluate(None, "gb200", workload=HALF, **GIVEN).columns) == list(CHAIN_COLUMNS)


def test_energy_columns_by_hand():
    row = evaluate(None, "gb200", workload=HALF, **GIVEN).iloc[0]
    kw = row["facility_power_kw_per_accelerator"]
    assert kw > 0  # the catalog's IT power x PUE
    # J/token = kW x 1000 / (1000 tok/s x 0.6); tok/s/MW = 1000 x 0.6 x 1000 / kW
    assert row["energy_j_per_token"] == pytest.approx(kw * 1000 / 600)
    assert row["tok_per_s_per_mw"] == pytest.approx(600 * 1000 / kw)
    assert row["profit_usd_per_mw_year"] == pytest.approx(-0.11 * 8760 * 1000 / kw)


def test_arrays_broadcast_one_row_per_element():
    rows = evaluate(None, "gb200", workload=HALF, **{**GIVEN, "utilization_frac": np.array([0.3, 0.6, 0.9])})
    assert len(rows) == 3
    np.testing.assert_allclose(rows["cost_usd_per_mtok"], 2.0 / (1000 * 3600 * np.array([0.3, 0.6, 0.9]) / 1e6))
    with pytest.raises(ValueError, match="one length"):
        evaluate(None, "gb200", workload=HALF, **{**GIVEN, "utilization_frac": np.array([0.3, 0.6]),
                                                   "license_fee_frac": np.array([0.1, 0.2, 0.3])})


def test_series_inputs_give_rows_indexed_like_them():
    util = pd.Series([0.3, 0.6, 0.9], index=pd.Index(["night", "day", "peak"], name="period"))
    rows = evaluate(None, "gb200", workload=HALF, **{**GIVEN, "utilization_frac": util})
    pd.testing.assert_index_equal(rows.index, util.index)
    # cost = 2 USD/GPU-hour / (1000 tok/s x 3600 s/h x utilization) x 1e6, row by row under its label
    assert rows.loc["day", "cost_usd_per_mtok"] == pytest.approx(2.0 / 2.16)
    assert rows.loc["peak", "utilization_frac"] == 0.9
    fee = pd.Series([0.1, 0.2, 0.3], index=util.index)
    both = evaluate(None, "gb200", workload=HALF, **{**GIVEN, "utilization_frac": util, "license_fee_frac": fee})
    pd.testing.assert_index_equal(both.index, util.index)
    with pytest.raises(ValueError, match="utilization_frac and license_fee_frac have different indexes"):
        evaluate(None, "gb200", workload=HALF, **{**GIVEN, "utilization_frac": util,
                                                   "license_fee_frac": fee.reset_index(drop=True)})
    # arrays and scalars keep the default index
    assert isinstance(evaluate(None, "gb200", workload=HALF, **GIVEN).index, pd.RangeIndex)


def test_supply_is_the_cost_half_of_evaluate():
    full = evaluate("deepseek-r1", "gb200")
    cost = supply(tk.model("deepseek-r1"), tk.hardware("gb200"), workload=tk.workload())
    assert list(cost.columns) == list(SUPPLY_COLUMNS)
    pd.testing.assert_frame_equal(cost, full[list(SUPPLY_COLUMNS)])


def test_supply_carries_the_cost_per_output_mtok_of_the_token_mix():
    # agentic traffic, ~109 input tokens per output token: all cost on the output tokens is
    # cost x (ISL + OSL) / OSL, a property of the token mix, not of prices
    w = tk.workload("agentic-coding")
    cost = supply(tk.model("kimi-k2.7"), tk.hardware("gb300-nvl72"), workload=w).iloc[0]
    assert cost["cost_usd_per_output_mtok"] == pytest.approx(
        cost["cost_usd_per_mtok"] * (w.isl_tokens + w.osl_tokens) / w.osl_tokens, rel=1e-12)


def test_projected_rows_carry_the_band_measured_rows_do_not():
    proj = evaluate("deepseek-r1", "vr200-nvl144").iloc[0]  # nothing measured on Vera Rubin
    meas = evaluate("deepseek-r1", "gb200").iloc[0]
    assert proj["curve_kind"] == "projected"
    assert np.isnan(proj["anchor_ratio"])
    assert proj["throughput_low_tok_per_s_per_gpu"] < proj["throughput_tok_per_s_per_gpu"]
    assert proj["cost_high_usd_per_mtok"] > proj["cost_usd_per_mtok"] > proj["cost_low_usd_per_mtok"]
    assert meas["curve_kind"] == "measured"
    assert np.isnan(meas["throughput_low_tok_per_s_per_gpu"])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"interactivity_tok_per_s_per_user": 50.0}, "would not be used"),
        ({"throughput_curve": tk.ThroughputCurve([10.0, 100.0], [2000.0, 500.0])}, "not both"),
        ({"price_provider": "deepseek"}, "not used"),
        ({"prefill_throughput_tok_per_s_per_gpu": 1.0}, "only used by cost_split_rule='gpu_time'"),
        ({"cached_cost_ratio": 0.5}, "cached_cost_ratio is only used by cost_split_rule='gpu_time'"),
        ({"tco": tk.TcoBasis.published()}, "contradicts"),
        ({"cost_split_rule": "time"}, "cost_split_rule"),
    ],
)
def test_inputs_a_path_would_ignore_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        evaluate(None, "gb200", workload=HALF, **{**GIVEN, **kwargs})


def test_missing_inputs_raise():
    with pytest.raises(ValueError, match="prices missing"):
        evaluate(None, "gb200", workload=HALF, cost_usd_per_gpu_hour=2.0, throughput_tok_per_s_per_gpu=1.0)
    with pytest.raises(ValueError, match="give model="):
        evaluate(None, "gb200", workload=HALF, input_usd_per_mtok=1.0, output_usd_per_mtok=1.0)
    with pytest.raises(ValueError, match="never extrapolated"):
        evaluate("deepseek-r1", "gb200", interactivity_tok_per_s_per_user=5000.0)
    with pytest.raises(KeyError, match="workload"):
        evaluate("deepseek-r1", "gb200", workload="8k/2k")


def _cli_csv(*argv: str) -> pd.DataFrame:
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert cli.main(list(argv)) == 0
    return pd.read_csv(io.StringIO(buf.getvalue()))


def test_compare_sweep_report_and_cli_give_the_same_numbers():
    """Same inputs through every entry point: the same chain, the same numbers."""
    systems = ["gb200-nvl72", "gb300-nvl72"]  # one measured, one anchored row at 8k/1k, 50 tok/s/user
    kw = {"workload": "8k/1k", "utilization_frac": 0.6}
    by_compare = tk.compare("deepseek-r1", systems, interactivity_tok_per_s_per_user=50.0, **kw)
    by_compare = by_compare.set_index("hardware_id").loc[systems]
    by_sweep = tk.sweep(tk.Scenario(hardware=systems[0], model="deepseek-r1", **kw), hardware=systems)
    by_sweep = by_sweep.assign(hardware_id=by_sweep["hardware_id"].astype(str)).set_index("hardware_id")
    report = tk.build_report(tk.ReportOptions(models=("deepseek-r1",), hardware=tuple(systems),
                                              reference_interactivity_tok_per_s_per_user=50.0, **kw))
    head = report.tables["headline"].set_index("hardware_id").loc[systems]
    margin = _cli_csv("margin", "--model", "deepseek-r1", "--hardware", systems[0], "--hardware", systems[1],
                      "--workload", "8k/1k", "--utilization", "0.6", "--format", "csv").set_index("hardware_id")
    cost = _cli_csv("cost", "--model", "deepseek-r1", "--hardware", systems[0], "--hardware", systems[1],
                    "--workload", "8k/1k", "--utilization", "0.6", "--format", "csv").set_index("hardware_id")
    assert set(by_compare["curve_kind"]) == {"measured", "anchored"}
    numeric = [c for c in CHAIN_COLUMNS if c in by_compare.columns and by_compare[c].dtype.kind == "f"]
    for name, other in (("sweep", by_sweep), ("report", head), ("margin CLI", margin)):
        for col in numeric:
            np.testing.assert_allclose(other.loc[systems, col].astype(float), by_compare[col].astype(float),
                                       rtol=1e-12, equal_nan=True, err_msg=f"{name}: {col}")
    for col in SUPPLY_COLUMNS:
        if col in numeric:
            np.testing.assert_allclose(cost.loc[systems, col].astype(float), by_compare[col].astype(float),
                                       rtol=1e-12, equal_nan=True, err_msg=f"cost CLI: {col}")


def test_measured_hits_above_the_presets_theoretical_rate_are_capped_not_an_error():
    # the AgentX MI355X run at 8 sessions realized 0.961, the pooled preset's theoretical rate is 0.960
    row = tk.evaluate("kimi-k2.7", "mi355x", workload="agentic-coding", interactivity_tok_per_s_per_user=47)
    assert row["cache_hit_frac"].item() <= tk.workload("agentic-coding").cached_prefix_frac
    assert row["realized_cache_hit_frac"].item() <= tk.workload("agentic-coding").cached_prefix_frac


@pytest.mark.parametrize("hardware", [["gb200", "b200"], ("gb200",), {"gb200"}])
def test_evaluate_takes_one_system_and_points_to_compare(hardware):
    with pytest.raises(TypeError, match=r"evaluate takes one hardware .*use tk\.compare\(model, \[systems\.\.\.\]\)"):
        evaluate("deepseek-r1", hardware)
    with pytest.raises(TypeError, match="evaluate takes one model"):
        evaluate(["deepseek-r1", "kimi-k2"], "gb200")


def test_explicit_throughput_below_the_plausible_minimum_is_refused():
    # 0.0025 tok/s/GPU priced a Mtok at $607,821: tok/ms or ktok/s given as tok/s
    with pytest.raises(ValueError, match=r"throughput_tok_per_s_per_gpu=0\.0025 tok/s/GPU is below the plausible "
                                         r"minimum 0\.01 tok/s/GPU \(a unit slip\? e\.g\. tokens per millisecond"):
        evaluate(None, "gb200", workload=HALF, **{**GIVEN, "throughput_tok_per_s_per_gpu": 0.0025})
    with pytest.raises(ValueError, match=r"throughput_tok_per_s_per_gpu=2000000\.0 tok/s/GPU is outside the allowed "
                                         r"range \[0\.01, 1e\+06\] tok/s/GPU \(above the plausible maximum\)"):
        supply(None, tk.hardware("gb200"), workload=HALF, cost_usd_per_gpu_hour=2.0,
               throughput_tok_per_s_per_gpu=2e6)
    row = evaluate(None, "gb200", workload=HALF, **{**GIVEN, "throughput_tok_per_s_per_gpu": 0.01}).iloc[0]
    assert row["cost_usd_per_mtok"] == pytest.approx(2.0 / (0.01 * 3600 * 0.6) * 1e6)


@pytest.mark.parametrize(("field", "value"), [("throughput_tok_per_s_per_gpu", True),
                                              ("utilization_frac", "0.6"), ("input_usd_per_mtok", True)])
def test_evaluate_refuses_flags_and_text_for_numbers(field, value):
    with pytest.raises(TypeError, match=rf"{field}={value!r} is not a number"):
        evaluate(None, "gb200", workload=HALF, **{**GIVEN, field: value})


def test_prices_that_earn_nothing_name_the_prices():
    with pytest.raises(ValueError, match=r"earn nothing.*input_usd_per_mtok=0.*output_usd_per_mtok=0"):
        tk.evaluate("deepseek-r1", "gb300", throughput_tok_per_s_per_gpu=10_000.0,
                    input_usd_per_mtok=0.0, output_usd_per_mtok=0.0)
    # a free input class is fine when output tokens are paid: revenue is the output share x price
    row = tk.evaluate("deepseek-r1", "gb300", throughput_tok_per_s_per_gpu=10_000.0,
                      input_usd_per_mtok=0.0, output_usd_per_mtok=2.0).iloc[0]
    assert row["blended_price_usd_per_mtok"] == pytest.approx(2.0 * (1 - row["input_share_frac"]))


def test_license_terms_get_the_plausible_ranges_of_prices_and_gpu_hour_costs():
    # a royalty of 1e-7 USD/Mtok is a per-token figure; 500 USD/GPU-hour is a per-rack (or per-system) hour
    with pytest.raises(ValueError, match=r"license_usd_per_mtok=1e-07 USD/Mtok is below the plausible minimum "
                                         r"0\.001 USD/Mtok \(a unit slip\? e\.g\. a per-token figure"):
        evaluate(None, "gb200", workload=HALF, **{**GIVEN, "license_usd_per_mtok": 1e-7})
    with pytest.raises(ValueError, match=r"license_usd_per_gpu_hour=500 is outside the plausible range \[0, 100\] "
                                         r"USD per accelerator-hour; a per-system or per-rack hour"):
        evaluate(None, "gb200", workload=HALF, **{**GIVEN, "license_usd_per_gpu_hour": 500.0})
    # no fee (0) and plausible fees pass: license = 0.3 x 2.7 + 0.5 x 2.16 + 0.1 = 1.99 USD/GPU-hour
    row = evaluate(None, "gb200", workload=HALF,
                   **{**GIVEN, "license_usd_per_mtok": 0.5, "license_usd_per_gpu_hour": 0.1}).iloc[0]
    assert row["license_fee_usd_per_gpu_hour"] == pytest.approx(0.81 + 1.08 + 0.1)


def test_facility_power_in_watts_is_refused():
    with pytest.raises(ValueError, match=r"facility_power_kw_per_accelerator=1800\.0 kW is above the plausible "
                                         r"maximum 30 kW \(a unit slip\? e\.g\. W where kW is meant"):
        evaluate(None, "gb200", workload=HALF, **{**GIVEN, "facility_power_kw_per_accelerator": 1800.0})
    row = evaluate(None, "gb200", workload=HALF, **{**GIVEN, "facility_power_kw_per_accelerator": 1.8}).iloc[0]
    # 1.8 kW x 1000 / (1000 tok/s x 0.6) = 3 J/token
    assert row["energy_j_per_token"] == pytest.approx(3.0)


@pytest.mark.parametrize("field", ["utilization_frac", "throughput_tok_per_s_per_gpu", "cost_usd_per_gpu_hour"])
@pytest.mark.parametrize("empty", [[], np.array([]), pd.Series([], dtype=float)])
def test_evaluate_refuses_an_empty_input(field, empty):
    with pytest.raises(ValueError, match=f"{field} is empty"):
        tk.evaluate("deepseek-r1", "gb200", **{field: empty})


def test_evaluate_refuses_none_for_a_required_number():
    with pytest.raises(ValueError, match="utilization_frac is missing"):
        tk.evaluate("deepseek-r1", "gb200", utilization_frac=None)


def test_array_inputs_of_different_lengths_are_named() -> None:
    with pytest.raises(ValueError, match=r"throughput_tok_per_s_per_gpu \(3\), utilization_frac \(2\)"):
        tk.evaluate("deepseek-r1", "gb200", utilization_frac=[0.5, 0.6], throughput_tok_per_s_per_gpu=[1e3, 2e3, 3e3],
                    input_usd_per_mtok=1.0, output_usd_per_mtok=2.0)
