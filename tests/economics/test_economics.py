"""Tests of tokenomics.economics: cost per Mtok, split, revenue, license, margin, break-evens."""

import numpy as np
import pandas as pd
import pydantic
import pytest

import tokenomics as tk
from tokenomics.analysis.fleet import fleet_per_day
from tokenomics.chain import check_throughput_plausible
from tokenomics.cost.energy import energy_j_per_token, tok_per_s_per_mw
from tokenomics.economics import (
    MAX_THROUGHPUT_TOK_PER_S_PER_GPU,
    MAX_USD_PER_MTOK,
    MIN_THROUGHPUT_TOK_PER_S_PER_GPU,
    MIN_USD_PER_MTOK,
    LicenseFee,
    TokenMix,
    attribute_cost_per_mtok,
    blended_price_usd_per_mtok,
    breakeven_cost_usd_per_gpu_hour,
    breakeven_license_fee_frac,
    breakeven_price_usd_per_mtok,
    breakeven_utilization_frac,
    check_usd_per_mtok,
    cost_per_mtok,
    cost_split_per_mtok,
    gross_margin_frac,
    inferencex_cost_per_mtok,
    license_fee_usd_per_gpu_hour,
    profit_usd_per_gpu_hour,
    profit_usd_per_gpu_year,
    profit_usd_per_mw_year,
    revenue_usd_per_gpu_hour,
    served_mtok_per_gpu_hour,
)

# --- cost per Mtok ----------------------------------------------------------------------------


def test_inferencex_worked_example():
    # SemiAnalysis InferenceX-app (chart-utils.ts, read 2026-09), worked example from its
    # copied data: MI355X Kimi-K2.5 1k/1k conc 4 = 55.6 tok/s/GPU at $1.48/GPU-hour -> $7.39/M.
    # By hand: 55.6 tok/s * 3600 s = 200_160 tok/h = 0.20016 Mtok/h; 1.48 / 0.20016 = 7.394.
    assert cost_per_mtok(1.48, 55.6, 1.0) == pytest.approx(1.48 / 0.20016, rel=1e-12)
    assert round(cost_per_mtok(1.48, 55.6, 1.0), 2) == 7.39
    assert round(inferencex_cost_per_mtok(1.48, 55.6, utilization_frac=1.0).total_usd_per_mtok, 2) == 7.39


def test_cost_per_mtok_scalar_array_nan_series():
    # by hand: $2/h at 1000 tok/s and 50 % utilization = 1.8 Mtok/h -> $1.1111/Mtok
    assert isinstance(cost_per_mtok(2.0, 1000.0, 0.5), float)
    assert cost_per_mtok(2.0, 1000.0, 0.5) == pytest.approx(2.0 / 1.8)
    arr = cost_per_mtok(2.0, np.array([1000.0, 2000.0]), 0.5)
    np.testing.assert_allclose(arr, [2.0 / 1.8, 1.0 / 1.8])
    with pytest.raises(ValueError, match=r"throughput_tok_per_s_per_gpu is NaN at position 1"):
        cost_per_mtok(2.0, np.array([1000.0, np.nan]), 0.5)
    ser = cost_per_mtok(pd.Series([2.0, 4.0], index=["h100", "b200"]), 1000.0, 0.5)
    assert list(ser.index) == ["h100", "b200"]
    np.testing.assert_allclose(ser.to_numpy(), [2.0 / 1.8, 4.0 / 1.8])


def test_utilization_is_not_ignored():
    # pitfall 8: an idle hour is still paid; half the utilization doubles the cost per token
    assert cost_per_mtok(2.0, 1000.0, 0.5) == pytest.approx(2 * cost_per_mtok(2.0, 1000.0, 1.0))


def test_mtok_not_tok():
    # pitfall 4: 1 tok/s for one hour = 3600 tokens = 0.0036 Mtok
    assert served_mtok_per_gpu_hour(1.0, 1.0) == pytest.approx(0.0036)
    assert revenue_usd_per_gpu_hour(1.0, 1.0, 1.0) == pytest.approx(0.0036)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((2.0, 1000.0, 30.0), r"utilization_frac=30\.0.*percent"),
        ((2.0, 1000.0, 0.0), r"utilization_frac=0\.0.*\(0\.0, 1\.0\]"),
        ((2.0, 0.0, 0.5), r"throughput_tok_per_s_per_gpu=0\.0"),
        ((2.0, -5.0, 0.5), r"throughput_tok_per_s_per_gpu=-5\.0"),
        ((-1.0, 1000.0, 0.5), r"cost_usd_per_gpu_hour=-1\.0"),
        ((np.nan, 1000.0, 0.5), r"cost_usd_per_gpu_hour is NaN"),
    ],
)
def test_cost_per_mtok_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        cost_per_mtok(*args)


def test_utilization_percent_array_elementwise():
    with pytest.raises(ValueError, match=r"position 2 \(1 of 3 bad\).*percent"):
        cost_per_mtok(2.0, 1000.0, np.array([0.2, 0.5, 40.0]))


# --- token classes ----------------------------------------------------------------------------


def test_inferencex_convention_is_not_additive():
    # pitfall 2: charging the whole GPU-hour to each class double counts the spend
    c = inferencex_cost_per_mtok(2.0, 1000.0, input_throughput_tok_per_s_per_gpu=500.0,
                                 output_throughput_tok_per_s_per_gpu=500.0, utilization_frac=1.0)
    s_in = s_out = 0.5
    assert s_in * c.input_usd_per_mtok + s_out * c.output_usd_per_mtok == pytest.approx(2 * c.total_usd_per_mtok)


@pytest.mark.parametrize("rule", ["gpu_time", "price"])
def test_split_adds_up_to_total(rule):
    s_in, h = 0.8, 0.25
    inputs = {
        "gpu_time": {"prefill_throughput_tok_per_s_per_gpu": 12_000.0, "decode_throughput_tok_per_s_per_gpu": 900.0},
        "price": {"input_usd_per_mtok": 0.6, "cached_input_usd_per_mtok": 0.15, "output_usd_per_mtok": 2.2},
    }[rule]
    split = cost_split_per_mtok(2.0, 1000.0, 0.6, s_in, h, rule=rule, **inputs)
    total = cost_per_mtok(2.0, 1000.0, 0.6)
    assert split.total_usd_per_mtok == pytest.approx(total)
    parts = (
        s_in * (1 - h) * split.input_usd_per_mtok
        + s_in * h * split.cached_input_usd_per_mtok
        + (1 - s_in) * split.output_usd_per_mtok
    )
    assert parts == pytest.approx(total, rel=1e-12)


def test_gpu_time_split_by_hand():
    # total = 2 / (1000 * 3600 * 0.5 / 1e6) = 1.1111 $/Mtok; half input, no cache.
    # GPU-seconds per token: input 1/8000, output 1/1000 -> weights 1 : 8.
    # norm = 0.5 * 1 + 0.5 * 8 = 4.5 -> input = 1.1111 / 4.5, output = 8 * 1.1111 / 4.5
    split = cost_split_per_mtok(
        2.0,
        1000.0,
        0.5,
        0.5,
        prefill_throughput_tok_per_s_per_gpu=8000.0,
        decode_throughput_tok_per_s_per_gpu=1000.0,
    )
    total = 2.0 / 1.8
    assert split.input_usd_per_mtok == pytest.approx(total / 4.5)
    assert split.output_usd_per_mtok == pytest.approx(8 * total / 4.5)
    assert split.cached_input_usd_per_mtok == pytest.approx(0.1 * total / 4.5)


def test_price_split_default_cached_ratio():
    split = cost_split_per_mtok(
        1.0, 500.0, 1.0, 0.5, 0.5, rule="price", input_usd_per_mtok=1.0, output_usd_per_mtok=4.0
    )
    assert split.cached_input_usd_per_mtok == pytest.approx(0.1 * split.input_usd_per_mtok)
    assert split.output_usd_per_mtok == pytest.approx(4 * split.input_usd_per_mtok)


def test_split_requires_rule_inputs_and_known_rule():
    with pytest.raises(ValueError, match="prefill_throughput"):
        cost_split_per_mtok(1.0, 500.0, 1.0, 0.5)
    with pytest.raises(ValueError, match="input_usd_per_mtok"):
        cost_split_per_mtok(1.0, 500.0, 1.0, 0.5, rule="price")
    with pytest.raises(ValueError, match="rule='magic'"):
        cost_split_per_mtok(1.0, 500.0, 1.0, 0.5, rule="magic")  # type: ignore[arg-type]


def test_split_series_keeps_index():
    idx = pd.Index(["a", "b"])
    split = cost_split_per_mtok(
        pd.Series([1.0, 2.0], index=idx),
        500.0,
        1.0,
        0.5,
        rule="price",
        input_usd_per_mtok=1.0,
        output_usd_per_mtok=4.0,
    )
    assert all(isinstance(v, pd.Series) and v.index.equals(idx) for v in split)


def test_attribute_all_zero_weights_raise():
    with pytest.raises(ValueError, match="weight"):
        attribute_cost_per_mtok(1.0, 1.0, 1.0, 1.0, 0.0, 1.0)


def test_token_mix_cached_is_part_of_input():
    # pitfall 3: cached tokens are a part of the input, never on top of it
    mix = TokenMix.from_isl_osl(8192, 1024, cache_hit_frac=0.9)
    total = mix.uncached_input_share_frac + mix.cached_input_share_frac + mix.output_share_frac
    assert total == pytest.approx(1.0)
    assert mix.uncached_input_share_frac + mix.cached_input_share_frac == pytest.approx(8192 / 9216)
    rates = TokenMix.from_rates(800.0, 200.0, 0.5)
    assert rates.input_share_frac == pytest.approx(0.8)


def test_token_mix_rejects_percent():
    with pytest.raises(pydantic.ValidationError, match="percent"):
        TokenMix(input_share_frac=0.5, cache_hit_frac=50)


def test_blended_price_by_hand_and_cache_consistency():
    # 3/4 input, half of it cached at 0.2, rest at 1.0; output 4.0:
    # 0.75 * (0.5 * 1.0 + 0.5 * 0.2) + 0.25 * 4.0 = 0.45 + 1.0 = 1.45
    assert blended_price_usd_per_mtok(1.0, 4.0, 0.75, 0.5, 0.2) == pytest.approx(1.45)
    # a cached price equal to the input price makes the cache-hit fraction irrelevant
    assert blended_price_usd_per_mtok(1.0, 4.0, 0.75, 0.9, 1.0) == pytest.approx(
        blended_price_usd_per_mtok(1.0, 4.0, 0.75, 0.0)
    )
    # default cached price is 10 % of input
    assert blended_price_usd_per_mtok(1.0, 4.0, 1.0, 1.0) == pytest.approx(0.1)
    with pytest.raises(ValueError, match=r"output_usd_per_mtok=-4\.0"):
        blended_price_usd_per_mtok(1.0, -4.0, 0.5)


# --- license, profit, margin -------------------------------------------------------------------


def test_license_fee_combination_by_hand():
    # revenue $10/h; 1000 tok/s full time = 3.6 Mtok/h
    # 0.3 * 10 + 0.5 * 3.6 + 0.1 = 3 + 1.8 + 0.1 = 4.9
    assert license_fee_usd_per_gpu_hour(10.0, 1000.0, 1.0, 0.3, 0.5, 0.1) == pytest.approx(4.9)
    lic = LicenseFee(revenue_frac=0.3, usd_per_mtok=0.5, usd_per_gpu_hour=0.1)
    assert lic.fee_usd_per_gpu_hour(10.0, 1000.0, 1.0) == pytest.approx(4.9)


def test_license_fee_percent_rejected():
    with pytest.raises(pydantic.ValidationError, match="percent"):
        LicenseFee(revenue_frac=30)
    with pytest.raises(ValueError, match=r"license_fee_frac=30\.0.*percent"):
        gross_margin_frac(2.0, 1000.0, 0.5, 2.0, license_fee_frac=30)


def test_margin_and_profit_by_hand():
    # 1000 tok/s at 50 % = 1.8 Mtok/h; price $2/Mtok -> revenue $3.6/h
    # license 30 % = 1.08; TCO 2.0 -> profit 0.52; margin 0.52 / 3.6
    assert profit_usd_per_gpu_hour(2.0, 1000.0, 0.5, 2.0, 0.3) == pytest.approx(0.52)
    assert gross_margin_frac(2.0, 1000.0, 0.5, 2.0, 0.3) == pytest.approx(0.52 / 3.6)
    assert profit_usd_per_gpu_year(2.0, 1000.0, 0.5, 2.0, 0.3) == pytest.approx(0.52 * 8760)
    # 2 kW facility power per GPU -> 500 GPUs per MW
    assert profit_usd_per_mw_year(2.0, 1000.0, 0.5, 2.0, 2.0, 0.3) == pytest.approx(0.52 * 8760 * 500)


def test_margin_matches_revenue_license_cost_identity():
    p, t, u, k = 1.7, 2500.0, 0.7, 3.1
    rev = revenue_usd_per_gpu_hour(t, u, p)
    lic = license_fee_usd_per_gpu_hour(rev, t, u, 0.2, 0.05, 0.3)
    assert gross_margin_frac(p, t, u, k, 0.2, 0.05, 0.3) == pytest.approx((rev - lic - k) / rev)


def test_margin_zero_price_raises():
    with pytest.raises(ValueError, match=r"price_usd_per_mtok=0\.0"):
        gross_margin_frac(0.0, 1000.0, 0.5, 2.0)


# --- break-evens ---------------------------------------------------------------------------------

LIC = {"license_fee_frac": 0.2, "license_usd_per_mtok": 0.05, "license_usd_per_gpu_hour": 0.1}


def test_breakeven_utilization_plugs_back():
    u = breakeven_utilization_frac(2.0, 1000.0, 2.0, **LIC, target_margin_frac=0.1)
    assert 0 < u <= 1
    assert gross_margin_frac(2.0, 1000.0, u, 2.0, **LIC) == pytest.approx(0.1)


def test_breakeven_utilization_by_hand():
    # break-even: 3.6 * u * 2 * 0.7 = 2 -> u = 2 / 5.04
    u = breakeven_utilization_frac(2.0, 1000.0, 2.0, 0.3)
    assert u == pytest.approx(2 / 5.04)


def test_breakeven_price_plugs_back():
    p = breakeven_price_usd_per_mtok(1000.0, 0.5, 2.0, **LIC, target_margin_frac=0.25)
    assert gross_margin_frac(p, 1000.0, 0.5, 2.0, **LIC) == pytest.approx(0.25)


def test_breakeven_license_plugs_back():
    f = breakeven_license_fee_frac(2.0, 1000.0, 0.9, 2.0, 0.05, 0.1)
    assert 0 <= f < 1
    assert gross_margin_frac(2.0, 1000.0, 0.9, 2.0, f, 0.05, 0.1) == pytest.approx(0.0, abs=1e-12)


def test_breakeven_cost_plugs_back():
    k = breakeven_cost_usd_per_gpu_hour(2.0, 1000.0, 0.5, **LIC, target_margin_frac=0.05)
    assert gross_margin_frac(2.0, 1000.0, 0.5, k, **LIC) == pytest.approx(0.05)


def test_breakeven_infeasible_raise_or_nan():
    # at $0.1/Mtok, 1000 tok/s cannot pay $5/h even at full utilization
    with pytest.raises(ValueError, match="no utilization"):
        breakeven_utilization_frac(0.1, 1000.0, 5.0)
    out = breakeven_utilization_frac(np.array([0.1, 2.0]), 1000.0, 5.0, on_infeasible="nan")
    assert np.isnan(out[0])
    assert gross_margin_frac(2.0, 1000.0, out[1], 5.0) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="license_fee_frac \\+ target_margin_frac >= 1"):
        breakeven_price_usd_per_mtok(1000.0, 0.5, 2.0, 0.5, target_margin_frac=0.6)
    with pytest.raises(ValueError, match="on_infeasible"):
        breakeven_cost_usd_per_gpu_hour(0.1, 10.0, 0.5, on_infeasible="ignore")  # type: ignore[arg-type]


def test_breakeven_series_keeps_index():
    prices = pd.Series([1.0, 2.0, 3.0], index=["lo", "mid", "hi"])
    u = breakeven_utilization_frac(prices, 1000.0, 2.0, on_infeasible="nan")
    assert list(u.index) == ["lo", "mid", "hi"]
    np.testing.assert_allclose(u.to_numpy(), 2.0 / (3.6 * prices.to_numpy()))


def test_public_names_exported():
    for name in ("cost_per_mtok", "gross_margin_frac", "Scenario", "sweep", "tco", "TokenMix"):
        assert hasattr(tk, name)
        assert name in tk.__all__


# --- containers: dask and xarray stay lazy and labelled; no inf or NaN out ------------------------


def test_finite_result_guard_names_the_fields():
    # plausible costs, prices and throughputs, but throughput x utilization underflows
    with pytest.raises(ValueError, match=r"cost_usd_per_mtok is not finite.*cost_usd_per_gpu_hour=100"):
        tk.cost_per_mtok(100.0, 0.01, 1e-308)
    with pytest.raises(ValueError, match="gross_margin_frac is not finite"):
        gross_margin_frac(1.0, 0.01, 1e-308, 100.0)
    with pytest.raises(ValueError, match="position 1"):
        gross_margin_frac(2.0, np.array([1000.0, 0.01]), np.array([1.0, 1e-308]), 2.0)


def test_dask_input_stays_lazy_and_matches_numpy():
    da = pytest.importorskip("dask.array")
    t = np.array([1000.0, 2000.0, 500.0, 4000.0])
    lazy = da.from_array(t, chunks=2)
    out = gross_margin_frac(2.0, lazy, 0.5, 2.0, 0.3)
    assert isinstance(out, da.Array)
    np.testing.assert_allclose(out.compute(), gross_margin_frac(2.0, t, 0.5, 2.0, 0.3), rtol=1e-15)
    split = cost_split_per_mtok(2.0, lazy, 0.5, 0.5, prefill_throughput_tok_per_s_per_gpu=8000.0,
                                decode_throughput_tok_per_s_per_gpu=lazy)
    assert all(isinstance(x, da.Array) for x in split)
    be = breakeven_utilization_frac(2.0, lazy, 2.0, on_infeasible="nan")
    assert isinstance(be, da.Array)
    # by hand: u* = K / (p * t * 0.0036) = 2 / (2 * 1000 * 0.0036) = 0.2778
    assert be.compute()[0] == pytest.approx(2.0 / (2.0 * 1000.0 * 0.0036), rel=1e-12)


def test_dask_bad_value_raises_on_compute_not_before():
    da = pytest.importorskip("dask.array")
    lazy = da.from_array(np.array([1000.0, 0.0]), chunks=1)
    out = cost_per_mtok(2.0, lazy, 0.5)  # building the graph does not compute
    with pytest.raises(ValueError, match=r"throughput_tok_per_s_per_gpu=0\.0"):
        out.compute()
    with pytest.raises(ValueError, match="no utilization"):
        breakeven_utilization_frac(0.01, da.from_array(np.array([1000.0]), chunks=1), 2.0).compute()


def test_xarray_in_xarray_out_with_broadcast_dims():
    xr = pytest.importorskip("xarray")
    t = xr.DataArray([1000.0, 2000.0], dims="system", coords={"system": ["a", "b"]})
    u = xr.DataArray([0.5, 1.0], dims="utilization")
    out = cost_per_mtok(2.0, t, u)
    assert isinstance(out, xr.DataArray)
    assert out.dims == ("system", "utilization")
    # by hand: 2 / (2000 * 3600 * 1.0 / 1e6) = 0.2778
    assert float(out.sel(system="b")[1]) == pytest.approx(2.0 / 7.2, rel=1e-12)
    lazy = cost_per_mtok(2.0, t.chunk({"system": 1}), u)
    assert lazy.chunks is not None
    xr.testing.assert_allclose(lazy.compute(), out)
    with pytest.raises(ValueError, match="unlabeled array"):
        cost_per_mtok(np.array([1.0, 2.0]), t, 0.5)


def test_series_with_dask_is_refused():
    da = pytest.importorskip("dask.array")
    with pytest.raises(ValueError, match="Series cannot be combined"):
        cost_per_mtok(pd.Series([1.0, 2.0]), da.ones(2, chunks=1), 0.5)


# --- flags and text are not numbers ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "field", "what"),
    [
        ((2.0, True, 0.6), "throughput_tok_per_s_per_gpu", "a boolean"),
        ((2.0, "2500", 0.6), "throughput_tok_per_s_per_gpu", "a string"),
        (("2.0", 2500.0, 0.6), "cost_usd_per_gpu_hour", "a string"),
        ((2.0, 2500.0, np.True_), "utilization_frac", "a boolean"),
    ],
)
def test_cost_per_mtok_refuses_booleans_and_strings(args, field, what):
    # True read as 1.0 tok/s gave $925.9/Mtok; "2500" was parsed silently
    with pytest.raises(TypeError, match=rf"^{field}=.* is not a number \({what}\)") as info:
        cost_per_mtok(*args)
    assert isinstance(info.value, ValueError)  # also a ValueError, like every other input check


@pytest.mark.parametrize("bad", [np.array([1000.0, True], dtype=object), [1000.0, "2000"], np.array([True, False]),
                                 pd.Series(["1000", "2000"]), pd.Series([1000.0, True], dtype=object)])
def test_arrays_and_series_of_flags_or_text_are_refused(bad):
    with pytest.raises(TypeError, match="throughput_tok_per_s_per_gpu"):
        cost_per_mtok(2.0, bad, 0.6)
    with pytest.raises(TypeError, match="price_usd_per_mtok"):
        revenue_usd_per_gpu_hour(1000.0, 0.6, bad)


def test_numbers_of_every_container_still_pass_the_type_check():
    expected = [2.0 / 1.8, 1.0 / 1.8]
    assert cost_per_mtok(2, 1000, 0.5) == pytest.approx(expected[0])  # ints are numbers
    assert cost_per_mtok(np.float32(2.0), np.int64(1000), 0.5) == pytest.approx(expected[0])
    np.testing.assert_allclose(cost_per_mtok(2.0, np.array([1000, 2000]), 0.5), expected)
    np.testing.assert_allclose(cost_per_mtok(2.0, [1000.0, 2000.0], 0.5), expected)
    np.testing.assert_allclose(cost_per_mtok(2.0, np.array([1000.0, 2000.0], dtype=object), 0.5), expected)
    ser = cost_per_mtok(2.0, pd.Series([1000.0, 2000.0], index=["a", "b"]), 0.5)
    assert list(ser.index) == ["a", "b"]
    np.testing.assert_allclose(ser.to_numpy(), expected)
    np.testing.assert_allclose(cost_per_mtok(2.0, pd.Series([1000, 2000], dtype="Int64"), 0.5).to_numpy(), expected)
    da = pytest.importorskip("dask.array")
    lazy = cost_per_mtok(2.0, da.from_array(np.array([1000.0, 2000.0]), chunks=1), 0.5)
    assert isinstance(lazy, da.Array)
    np.testing.assert_allclose(lazy.compute(), expected)


def test_dask_array_of_booleans_is_refused_by_its_dtype_before_compute():
    da = pytest.importorskip("dask.array")
    with pytest.raises(TypeError, match=r"throughput_tok_per_s_per_gpu has dtype bool \(booleans, not numbers\)"):
        cost_per_mtok(2.0, da.from_array(np.array([True, False]), chunks=1), 0.5)


# --- plausible ranges: the unit slips the entry points refuse ---------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        # a price per token (2.19e-6) where per Mtok (2.19) is meant
        (lambda: gross_margin_frac(2.19e-6, 1000.0, 0.5, 2.0, 0.3),
         r"price_usd_per_mtok=2\.19e-06 USD/Mtok .*per-token"),
        (lambda: blended_price_usd_per_mtok(5.5e-7, 2.19e-6, 0.9), r"input_usd_per_mtok=5\.5e-07 USD/Mtok .*per-token"),
        (lambda: revenue_usd_per_gpu_hour(1000.0, 0.5, 2e-6), r"price_usd_per_mtok=2e-06 USD/Mtok .*per-token"),
        (lambda: breakeven_utilization_frac(2e-6, 1000.0, 2.0), r"price_usd_per_mtok=2e-06"),
        (lambda: cost_split_per_mtok(2.0, 1000.0, 0.5, 0.5, rule="price", input_usd_per_mtok=0.5,
                                     output_usd_per_mtok=2e-6), r"output_usd_per_mtok=2e-06"),
        (lambda: profit_usd_per_gpu_hour(2.0, 1000.0, 0.5, 2.0, 0.0, 1e-7), r"license_usd_per_mtok=1e-07 USD/Mtok"),
        # a cost per GPU-year (30,000) or per rack-hour (250) where per GPU-hour is meant
        (lambda: cost_per_mtok(30000.0, 1000.0, 0.6), r"cost_usd_per_gpu_hour=30000 .*\[0, 100\].*8760 hours"),
        (lambda: breakeven_price_usd_per_mtok(1000.0, 0.5, 250.0, 0.3), r"cost_usd_per_gpu_hour=250 .*per-rack"),
        (lambda: gross_margin_frac(2.0, 1000.0, 0.5, 2.0, 0.0, 0.0, 500.0), r"license_usd_per_gpu_hour=500 .*per-rack"),
        (lambda: LicenseFee(usd_per_gpu_hour=500.0), r"usd_per_gpu_hour=500"),
        (lambda: LicenseFee(usd_per_mtok=1e-7), r"usd_per_mtok=1e-07"),
        # a facility power in W (1800) where kW is meant
        (lambda: profit_usd_per_mw_year(2.0, 1000.0, 0.5, 2.0, 1800.0), r"facility_power_kw_per_accelerator=1800\.0 "
                                                                         r"kW .*W where kW is meant"),
    ],
)
def test_kernels_refuse_the_unit_slips_the_entry_points_refuse(call, match):
    with pytest.raises((ValueError, pydantic.ValidationError), match=match):
        call()


def test_plausible_range_edges_still_pass_with_the_same_numbers():
    # cost at the maximum: 100 / (1000 x 3600 x 1 / 1e6) = 27.78 USD/Mtok; a zero cost is still allowed
    assert cost_per_mtok(100.0, 1000.0, 1.0) == pytest.approx(100.0 / 3.6)
    assert cost_per_mtok(0.0, 1000.0, 1.0) == 0.0
    # free list prices are allowed: half input at 0, half output at 2 -> 1.0 USD/Mtok
    assert blended_price_usd_per_mtok(0.0, 2.0, 0.5) == pytest.approx(1.0)
    assert revenue_usd_per_gpu_hour(1000.0, 0.5, 0.0) == 0.0
    # the cheapest price (0.001 USD/Mtok) and the fixed fee at 100 USD/GPU-hour
    # margin = 1 - (100 + 2) / (1.8 Mtok x 1 USD/Mtok) = -55.67
    assert gross_margin_frac(1.0, 1000.0, 0.5, 2.0, 0.0, 0.0, 100.0) == pytest.approx(1.0 - 102.0 / 1.8)
    assert revenue_usd_per_gpu_hour(1000.0, 0.5, 1e-3) == pytest.approx(1.8e-3)


def test_kernels_refuse_slips_element_wise_in_arrays():
    with pytest.raises(ValueError, match=r"cost_usd_per_gpu_hour=30000 at position 1 \(1 of 2 bad\)"):
        cost_per_mtok(np.array([2.0, 30000.0]), 1000.0, 0.6)
    with pytest.raises(ValueError, match=r"input_usd_per_mtok=5\.5e-07"):
        blended_price_usd_per_mtok(pd.Series([0.55, 5.5e-7], index=["a", "b"]), 2.19, 0.9)


def test_cached_price_above_the_input_price_is_refused():
    match = r"cached_input_usd_per_mtok=1 is above input_usd_per_mtok=0\.55: a cached \(prefix-hit\) input token"
    with pytest.raises(ValueError, match=match):
        blended_price_usd_per_mtok(0.55, 2.19, 0.9, 0.5, 1.0)
    with pytest.raises(ValueError, match=r"above input_usd_per_mtok=0\.55 at position 1 \(1 of 2 bad\)"):
        blended_price_usd_per_mtok(np.array([0.55, 0.55]), 2.19, 0.9, 0.5, np.array([0.1, 1.0]))
    with pytest.raises(ValueError, match=r"cached_input_usd_per_mtok=0\.1 is above input_usd_per_mtok=0\.05 at "
                                         r"position 1"):
        blended_price_usd_per_mtok(np.array([0.55, 0.05]), 2.19, 0.9, 0.5, 0.1)  # one cached price, two input
    with pytest.raises(ValueError, match="priced at most as an uncached one"):
        cost_split_per_mtok(2.0, 1000.0, 0.5, 0.9, 0.5, rule="price", input_usd_per_mtok=0.55,
                            cached_input_usd_per_mtok=1.0, output_usd_per_mtok=2.19)
    # equal prices are allowed: 0.9 x 0.55 + 0.1 x 2.19 = 0.714
    assert blended_price_usd_per_mtok(0.55, 2.19, 0.9, 0.5, 0.55) == pytest.approx(0.714)


def test_inferencex_parts_above_the_total_are_refused():
    with pytest.raises(ValueError, match=r"input_throughput_tok_per_s_per_gpu \+ output_throughput_tok_per_s_per_gpu="
                                         r"100 tok/s/GPU is above throughput_tok_per_s_per_gpu=55\.6"):
        inferencex_cost_per_mtok(1.48, 55.6, input_throughput_tok_per_s_per_gpu=50.0,
                                 output_throughput_tok_per_s_per_gpu=50.0, utilization_frac=1.0)
    with pytest.raises(ValueError, match=r"input_throughput_tok_per_s_per_gpu=60 .* above .*=55\.6"):
        inferencex_cost_per_mtok(1.48, 55.6, input_throughput_tok_per_s_per_gpu=60.0, utilization_frac=1.0)
    with pytest.raises(ValueError, match=r"at position 1 \(1 of 2 bad\)"):
        inferencex_cost_per_mtok(1.48, np.array([55.6, 55.6]),
                                 input_throughput_tok_per_s_per_gpu=np.array([27.8, 40.0]),
                                 output_throughput_tok_per_s_per_gpu=27.8, utilization_frac=1.0)
    # parts adding up to the total pass; the Series index is kept. 1.48 / (27.8 x 0.0036) = 14.79
    c = inferencex_cost_per_mtok(1.48, pd.Series([55.6], index=["mi355x"]), input_throughput_tok_per_s_per_gpu=27.8,
                                 output_throughput_tok_per_s_per_gpu=27.8, utilization_frac=1.0)
    assert list(c.output_usd_per_mtok.index) == ["mi355x"]
    assert c.output_usd_per_mtok.iloc[0] == pytest.approx(1.48 / (27.8 * 0.0036))
    # cost_per_mtok takes utilization third: here a third number would be an input throughput
    with pytest.raises(TypeError):
        inferencex_cost_per_mtok(1.86, 2500.0, 0.6)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rule": "price", "input_usd_per_mtok": 0.55, "output_usd_per_mtok": 2.19,
          "prefill_throughput_tok_per_s_per_gpu": 8000.0},
         r"prefill_throughput_tok_per_s_per_gpu is only used by rule='gpu_time'; rule='price' ignores it"),
        ({"rule": "gpu_time", "prefill_throughput_tok_per_s_per_gpu": 8000.0,
          "decode_throughput_tok_per_s_per_gpu": 1000.0, "input_usd_per_mtok": 0.55},
         r"input_usd_per_mtok is only used by rule='price'; rule='gpu_time' ignores it"),
        ({"rule": "price", "input_usd_per_mtok": 0.55, "output_usd_per_mtok": 2.19,
          "cached_input_usd_per_mtok": 0.1, "cached_cost_ratio": 0.5},
         r"cached_cost_ratio is not used by rule='price' when cached_input_usd_per_mtok is given"),
    ],
)
def test_split_refuses_the_inputs_of_the_other_rule(kwargs, match):
    with pytest.raises(ValueError, match=match):
        cost_split_per_mtok(2.0, 1000.0, 0.6, 0.9, **kwargs)


def test_price_split_uses_the_cached_cost_ratio_without_a_cached_price():
    # weights 1 (input), 0.5 (cached = ratio x input), 4 (output); s_in = 0.5, h = 0.5:
    # W = 0.25 x 1 + 0.25 x 0.5 + 0.5 x 4 = 2.375; total 2 / 1.8 = 1.1111 -> input 1.1111 / 2.375
    s = cost_split_per_mtok(2.0, 1000.0, 0.5, 0.5, 0.5, rule="price", input_usd_per_mtok=1.0,
                            output_usd_per_mtok=4.0, cached_cost_ratio=0.5)
    total = 2.0 / 1.8
    assert s.input_usd_per_mtok == pytest.approx(total / 2.375)
    assert s.cached_input_usd_per_mtok == pytest.approx(0.5 * total / 2.375)


def test_dask_errors_report_the_position_in_the_whole_array():
    da = pytest.importorskip("dask.array")
    util = da.from_array(np.array([0.6, 60.0]), chunks=1)
    out = cost_per_mtok(2.0, 1000.0, util)  # still lazy
    assert isinstance(out, da.Array)
    with pytest.raises(ValueError, match=r"utilization_frac=60\.0 at position 1 of 2 \(1 of 1 bad in its chunk\)"):
        out.compute()
    grid = da.from_array(np.array([[0.6, 0.5], [0.7, 60.0]]), chunks=1)
    with pytest.raises(ValueError, match=r"at position 3 of 4 "):
        cost_per_mtok(2.0, 1000.0, grid).compute()
    t = da.from_array(np.array([1000.0, 1.0, 1000.0]), chunks=1)
    with pytest.raises(ValueError, match=r"no utilization in \(0, 1\] reaches the target margin at position 1 of 3"):
        breakeven_utilization_frac(2.0, t, 2.0).compute()
    cached = da.from_array(np.array([0.1, 0.6]), chunks=1)
    with pytest.raises(ValueError, match=r"cached_input_usd_per_mtok=0\.6 is above input_usd_per_mtok=0\.5 at "
                                         r"position 1 of 2"):
        blended_price_usd_per_mtok(0.5, 2.0, 0.5, 0.5, cached).compute()


@pytest.mark.parametrize("throughput", [0.001, 1e9])
def test_cost_per_mtok_refuses_an_implausible_throughput(throughput):
    # 0.001 tok/s/GPU would price a Mtok at ~$926k, 1e9 (a whole system's rate) at ~$1e-6
    with pytest.raises(ValueError, match=r"throughput_tok_per_s_per_gpu=.*plausible"):
        cost_per_mtok(2.0, throughput, 0.6)


def test_cost_per_mtok_names_a_missing_cost():
    with pytest.raises(ValueError, match="cost_usd_per_gpu_hour is missing"):
        cost_per_mtok(None, 1000.0, 0.6)


# --- one plausible range per quantity -----------------------------------------------------------

# 2e6 tok/s/GPU lies between the former limits 1e6 and 1e7; 5e-4 USD/Mtok between 0.0001 and 0.001
THROUGHPUT_TAKERS = {
    "cost_per_mtok": lambda t: cost_per_mtok(2.0, t, 0.6),
    "served_mtok_per_gpu_hour": lambda t: served_mtok_per_gpu_hour(t, 0.6),
    "revenue_usd_per_gpu_hour": lambda t: revenue_usd_per_gpu_hour(t, 0.6, 2.0),
    "gross_margin_frac": lambda t: gross_margin_frac(2.0, t, 0.6, 2.0),
    "profit_usd_per_gpu_hour": lambda t: profit_usd_per_gpu_hour(2.0, t, 0.6, 2.0),
    "breakeven_price_usd_per_mtok": lambda t: breakeven_price_usd_per_mtok(t, 0.6, 2.0),
    "inferencex_cost_per_mtok": lambda t: inferencex_cost_per_mtok(2.0, t, utilization_frac=0.6),
    "energy_j_per_token": lambda t: energy_j_per_token(1.5, t, 0.6),
    "tok_per_s_per_mw": lambda t: tok_per_s_per_mw(t, 1.5, 0.6),
    "fleet_per_day": lambda t: fleet_per_day(8e9, 2e9, 1e9, t, 0.6, 3.28, 0.55, 2.19),
    "chain.check_throughput_plausible": lambda t: check_throughput_plausible("throughput_tok_per_s_per_gpu", t),
}


@pytest.mark.parametrize("name", list(THROUGHPUT_TAKERS))
def test_every_function_refuses_the_same_implausible_throughput(name):
    func = THROUGHPUT_TAKERS[name]
    with pytest.raises(ValueError, match=r"throughput_tok_per_s_per_gpu=2000000\.0 tok/s/GPU is .*"
                                         r"\[0\.01, 1e\+06\] tok/s/GPU"):
        func(2e6)
    with pytest.raises(ValueError, match=r"throughput_tok_per_s_per_gpu=0\.005 tok/s/GPU is below the plausible "
                                         r"minimum 0\.01"):
        func(0.005)
    func(MAX_THROUGHPUT_TOK_PER_S_PER_GPU)  # the edges pass
    func(MIN_THROUGHPUT_TOK_PER_S_PER_GPU if name != "fleet_per_day" else 0.02)


PRICE_TAKERS = {
    "check_usd_per_mtok(input)": lambda p: check_usd_per_mtok("input_usd_per_mtok", p),
    "check_usd_per_mtok(cached)": lambda p: check_usd_per_mtok("cached_input_usd_per_mtok", p),
    "check_usd_per_mtok(blended)": lambda p: check_usd_per_mtok("price_usd_per_mtok", p),
    "gross_margin_frac": lambda p: gross_margin_frac(p, 1000.0, 0.6, 2.0),
    "revenue_usd_per_gpu_hour": lambda p: revenue_usd_per_gpu_hour(1000.0, 0.6, p),
    "blended_price_usd_per_mtok": lambda p: blended_price_usd_per_mtok(p, 2.19, 0.9),
    "license royalty": lambda p: profit_usd_per_gpu_hour(2.0, 1000.0, 0.6, 2.0, 0.0, p),
    "fleet_per_day": lambda p: fleet_per_day(8e9, 2e9, 1e9, 2000.0, 0.6, 3.28, p, 2.19),
    "fleet_per_day(cached)": lambda p: fleet_per_day(8e9, 2e9, 1e9, 2000.0, 0.6, 3.28, 0.55, 2.19, p),
}


@pytest.mark.parametrize("name", list(PRICE_TAKERS))
def test_every_function_refuses_the_same_implausible_price(name):
    func = PRICE_TAKERS[name]
    with pytest.raises(ValueError, match=r"_usd_per_mtok=0\.0005 USD/Mtok is below the plausible minimum 0\.001 "
                                         r"USD/Mtok \(a unit slip\? e\.g\. a per-token figure"):
        func(5e-4)
    with pytest.raises(ValueError, match=r"_usd_per_mtok=2000\.0 USD/Mtok is outside the allowed range (0 or )?"
                                         r"\[0\.001, 1000\] USD/Mtok"):
        func(2000.0)
    func(MIN_USD_PER_MTOK)  # the edges pass (a cached price at most the input price)
    func(MAX_USD_PER_MTOK if name != "fleet_per_day(cached)" else 0.55)


def test_the_vocabulary_states_the_same_ranges_as_the_checks():
    for name in ("input_usd_per_mtok", "cached_input_usd_per_mtok", "output_usd_per_mtok",
                 "cache_write_usd_per_mtok"):
        spec = tk.catalog.parameter_spec("price", name)
        assert (spec.min_value, spec.max_value) == (MIN_USD_PER_MTOK, MAX_USD_PER_MTOK)
    for name in ("throughput_tok_per_s_per_gpu", "output_throughput_tok_per_s_per_gpu"):
        spec = tk.catalog.parameter_spec("curve", name)
        assert (spec.min_value, spec.max_value) == (MIN_THROUGHPUT_TOK_PER_S_PER_GPU, MAX_THROUGHPUT_TOK_PER_S_PER_GPU)


# --- containers: named Series out, no DataFrame in -------------------------------------------------


def test_series_results_are_named_after_the_result():
    tput = pd.Series([1000.0, 2000.0], index=["a", "b"], name="tput")
    cost = cost_per_mtok(2.0, tput, 0.6)
    # by hand: 2 / (1000 x 3600 x 0.6 / 1e6) = 2 / 2.16 = 0.9259; half of it at 2000 tok/s
    pd.testing.assert_series_equal(
        cost, pd.Series([2.0 / 2.16, 1.0 / 2.16], index=["a", "b"], name="cost_usd_per_mtok"), rtol=1e-12)
    assert gross_margin_frac(2.0, tput, 0.6, 2.0).name == "gross_margin_frac"
    assert revenue_usd_per_gpu_hour(tput, 0.6, 2.0).name == "revenue_usd_per_gpu_hour"
    assert served_mtok_per_gpu_hour(tput, 0.6).name == "served_mtok_per_gpu_hour"
    assert breakeven_utilization_frac(2.0, tput, 2.0).name == "breakeven_utilization_frac"
    assert profit_usd_per_gpu_year(2.0, tput, 0.6, 2.0).name == "profit_usd_per_gpu_year"
    assert profit_usd_per_mw_year(2.0, tput, 0.6, 2.0, 1.5).name == "profit_usd_per_mw_year"
    split = cost_split_per_mtok(2.0, tput, 0.6, 0.5, 0.0, rule="price", input_usd_per_mtok=0.5,
                                output_usd_per_mtok=2.0)
    assert split.output_usd_per_mtok.name == "output_cost_usd_per_mtok"
    ix = inferencex_cost_per_mtok(2.0, tput, output_throughput_tok_per_s_per_gpu=tput / 2, utilization_frac=0.6)
    assert (ix.total_usd_per_mtok.name, ix.output_usd_per_mtok.name) == ("total_usd_per_mtok",
                                                                         "output_cost_usd_per_mtok")
    assert ix.output_usd_per_mtok["a"] == pytest.approx(2.0 / 1.08)  # 500 tok/s x 3600 x 0.6 = 1.08 Mtok/h


def test_a_dataframe_is_refused_not_returned_as_a_2d_array():
    frame = pd.DataFrame({"a": [1000.0, 2000.0], "b": [1500.0, 2500.0]})
    with pytest.raises(TypeError, match=r"throughput_tok_per_s_per_gpu is a pandas DataFrame of 2 columns.*"
                                        r"pass one column"):
        cost_per_mtok(2.0, frame, 0.6)
    with pytest.raises(TypeError, match="utilization_frac is a pandas DataFrame of 1 column,"):
        gross_margin_frac(2.0, 1000.0, frame[["a"]] / 4000.0, 2.0)


def test_inferencex_utilization_is_required_and_explicit():
    with pytest.raises(TypeError, match="utilization_frac"):
        inferencex_cost_per_mtok(1.48, 55.6)  # type: ignore[call-arg]
    # the dashboard's full-load figure, and half of the paid hours busy: twice the cost
    # by hand: 1.48 / (55.6 x 3600 / 1e6) = 7.394; / 0.5 = 14.79
    assert inferencex_cost_per_mtok(1.48, 55.6, utilization_frac=1.0).total_usd_per_mtok == pytest.approx(
        1.48 / 0.20016, rel=1e-12)
    assert inferencex_cost_per_mtok(1.48, 55.6, utilization_frac=0.5).total_usd_per_mtok == pytest.approx(
        1.48 / 0.10008, rel=1e-12)
