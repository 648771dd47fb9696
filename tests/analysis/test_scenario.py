"""Tests of tokenomics.analysis.scenario: Scenario validation, evaluate() and sweep()."""

import numpy as np
import pandas as pd
import pydantic
import pytest

import tokenomics as tk
from tokenomics.analysis.scenario import SWEEP_COLUMNS

BASE = {
    "hardware": "gb200",
    "cost_usd_per_gpu_hour": 2.0,
    "facility_power_kw_per_accelerator": 2.0,
    "input_usd_per_mtok": 0.5,
    "output_usd_per_mtok": 2.0,
    "input_share_frac": 0.5,
    "utilization_frac": 0.6,
    "throughput_tok_per_s_per_gpu": 1000.0,
    "license_fee_frac": 0.3,
}


def test_evaluate_by_hand():
    row = tk.Scenario(**BASE).evaluate()
    assert list(row.columns) == list(SWEEP_COLUMNS)
    assert len(row) == 1
    r = row.iloc[0]
    # 1000 tok/s x 3600 x 0.6 = 2.16 Mtok/h; blended 0.5*(0.5*1.0 + 0) ... cache 0:
    # 0.5 * 0.5 + 0.5 * 2.0 = 1.25 $/Mtok -> revenue 2.7 $/h; license 0.81; profit -0.11
    assert r["served_mtok_per_gpu_hour"] == pytest.approx(2.16)
    assert r["blended_price_usd_per_mtok"] == pytest.approx(1.25)
    assert r["revenue_usd_per_gpu_hour"] == pytest.approx(2.7)
    assert r["license_fee_usd_per_gpu_hour"] == pytest.approx(0.81)
    assert r["profit_usd_per_gpu_hour"] == pytest.approx(-0.11)
    assert r["gross_margin_frac"] == pytest.approx(-0.11 / 2.7)
    assert r["profit_usd_per_mw_year"] == pytest.approx(-0.11 * 8760 * 500)
    assert r["cost_usd_per_mtok"] == pytest.approx(2.0 / 2.16)
    assert r["tco_basis"] == "explicit"
    # break-even utilization: 3.6 * u * 1.25 * 0.7 = 2 -> u = 2 / 3.15
    assert r["breakeven_utilization_frac"] == pytest.approx(2 / 3.15)


def test_evaluate_from_catalog_matches_library():
    s = tk.Scenario(
        hardware="mi355x",
        model="deepseek-r1",
        tco_basis="published",
        tco_vintage="2026-09",
        tco_tier="hyperscaler",
        isl_tokens=8192,
        osl_tokens=1024,
        cache_hit_frac=0.3,
        utilization_frac=0.7,
        throughput_tok_per_s_per_gpu=3000.0,
        license_fee_frac=0.1,
        license_usd_per_mtok=0.02,
    )
    r = s.evaluate().iloc[0]
    cost = tk.published_tco("mi355x", vintage="2026-09", tier="hyperscaler").usd_per_gpu_hour
    p = tk.price("deepseek-r1")
    p_c = p.cached_input_usd_per_mtok
    blended = tk.blended_price_usd_per_mtok(p.input_usd_per_mtok, p.output_usd_per_mtok, 8192 / 9216, 0.3, p_c)
    assert r["cost_usd_per_gpu_hour"] == cost
    assert r["tco_tier"] == "hyperscaler"
    assert r["input_share_frac"] == pytest.approx(8192 / 9216)
    assert r["blended_price_usd_per_mtok"] == pytest.approx(blended)
    assert r["cost_usd_per_mtok"] == pytest.approx(tk.cost_per_mtok(cost, 3000.0, 0.7))
    assert r["gross_margin_frac"] == pytest.approx(tk.gross_margin_frac(blended, 3000.0, 0.7, cost, 0.1, 0.02))
    fac = tk.hardware("mi355x").facility_power_kw_per_accelerator
    assert r["facility_power_kw_per_accelerator"] == pytest.approx(fac)


def test_itemised_basis_uses_tco():
    s = tk.Scenario(**{**BASE, "cost_usd_per_gpu_hour": None, "facility_power_kw_per_accelerator": None})
    r = s.evaluate().iloc[0]
    t = tk.tco("gb200", "hyperscaler")
    assert r["cost_usd_per_gpu_hour"] == pytest.approx(t.usd_per_gpu_hour)
    assert r["facility_power_kw_per_accelerator"] == pytest.approx(t.facility_power_kw_per_accelerator)
    assert r["tco_profile"] == "hyperscaler"


@pytest.mark.parametrize(
    ("update", "match"),
    [
        ({"utilization_frac": 60}, "percent"),
        ({"utilization_frac": 0.0}, "utilization_frac"),
        ({"license_fee_frac": 30}, "percent"),
        ({"license_fee_frac": 1.0}, "license_fee_frac"),
        ({"throughput_tok_per_s_per_gpu": 0.0}, "throughput_tok_per_s_per_gpu"),
        ({"input_usd_per_mtok": -1.0}, "input_usd_per_mtok"),
        ({"cache_hit_frac": float("nan")}, "cache_hit_frac is NaN"),
        ({"input_share_frac": None}, "token mix missing"),
        ({"isl_tokens": 1000.0, "osl_tokens": 100.0}, "not both"),
        ({"output_usd_per_mtok": None}, "prices missing"),
        ({"cost_split_rule": "gpu_time"}, "prefill_throughput"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_scenario_validation(update, match):
    with pytest.raises(pydantic.ValidationError, match=match):
        tk.Scenario(**{**BASE, **update})


def test_scenario_unknown_names_raise_keyerror():
    with pytest.raises(KeyError, match="gb200"):
        tk.Scenario(**{**BASE, "hardware": "gb2000"})
    with pytest.raises(KeyError, match="hyperscaler"):
        tk.Scenario(**{**BASE, "tco_profile": "hyperscalr"})


def test_license_and_token_mix_objects_unpacked():
    s = tk.Scenario(
        **{k: v for k, v in BASE.items() if k not in ("license_fee_frac", "input_share_frac")},
        license=tk.LicenseFee(revenue_frac=0.3),
        token_mix=tk.TokenMix(input_share_frac=0.5),
    )
    assert s.license_fee_frac == 0.3
    assert s.token_mix.input_share_frac == 0.5
    assert s.evaluate().equals(tk.Scenario(**BASE).evaluate())


def test_sweep_grid_shape_order_and_values():
    s = tk.Scenario(**BASE)
    utils, fees = [0.3, 0.6, 0.9], [0.0, 0.3]
    df = tk.sweep(s, utilization_frac=utils, license_fee_frac=fees)
    assert len(df) == 6
    assert list(df.columns) == list(SWEEP_COLUMNS)
    # last keyword varies fastest
    assert df["utilization_frac"].tolist() == [0.3, 0.3, 0.6, 0.6, 0.9, 0.9]
    assert df["license_fee_frac"].tolist() == fees * 3
    expected = tk.gross_margin_frac(1.25, 1000.0, df["utilization_frac"], 2.0, df["license_fee_frac"])
    np.testing.assert_allclose(df["gross_margin_frac"], expected)
    # one row of the sweep equals evaluate() of that scenario
    one = tk.Scenario(**{**BASE, "utilization_frac": 0.9, "license_fee_frac": 0.0}).evaluate()
    pd.testing.assert_series_equal(
        df.iloc[4][list(SWEEP_COLUMNS)[6:]].astype(float),
        one.iloc[0][list(SWEEP_COLUMNS)[6:]].astype(float),
        check_names=False,
    )


def test_sweep_over_hardware_and_tiers():
    s = tk.Scenario(
        **{**BASE, "cost_usd_per_gpu_hour": None, "tco_basis": "published", "facility_power_kw_per_accelerator": None}
    )
    df = tk.sweep(
        s, hardware=["gb200", "MI355X", "h100"], tco_tier=["hyperscaler", "rental"], utilization_frac=[0.5, 1.0]
    )
    assert len(df) == 12
    for row in df.itertuples():
        pub = tk.published_tco(row.hardware_id, vintage="2026-09", tier=row.tco_tier)
        assert row.cost_usd_per_gpu_hour == pub.usd_per_gpu_hour
    assert set(df["hardware_id"]) == {"gb200-nvl72", "mi355x", "h100-sxm"}


def test_sweep_split_adds_up_and_breakevens_plug_back():
    s = tk.Scenario(**{**BASE, "cache_hit_frac": 0.4})
    df = tk.sweep(
        s, utilization_frac=np.linspace(0.1, 1.0, 10), cache_hit_frac=[0.0, 0.4, 0.9], input_share_frac=[0.2, 0.9]
    )
    s_in, h = df["input_share_frac"], df["cache_hit_frac"]
    total = (
        s_in * (1 - h) * df["input_cost_usd_per_mtok"]
        + s_in * h * df["cached_input_cost_usd_per_mtok"]
        + (1 - s_in) * df["output_cost_usd_per_mtok"]
    )
    np.testing.assert_allclose(total, df["cost_usd_per_mtok"], rtol=1e-12)
    ok = df["breakeven_utilization_frac"].notna()
    assert ok.any()
    assert (~ok).any()
    back = tk.gross_margin_frac(
        df.loc[ok, "blended_price_usd_per_mtok"],
        1000.0,
        df.loc[ok, "breakeven_utilization_frac"],
        2.0,
        0.3,
    )
    np.testing.assert_allclose(back, 0.0, atol=1e-12)
    # infeasible rows really cannot break even at full utilization
    full = tk.gross_margin_frac(df.loc[~ok, "blended_price_usd_per_mtok"], 1000.0, 1.0, 2.0, 0.3)
    assert (full < 0).all()


def test_sweep_gpu_time_rule():
    s = tk.Scenario(
        **{
            **BASE,
            "cost_split_rule": "gpu_time",
            "prefill_throughput_tok_per_s_per_gpu": 8000.0,
            "decode_throughput_tok_per_s_per_gpu": 1000.0,
        }
    )
    r = s.evaluate().iloc[0]
    split = tk.cost_split_per_mtok(
        2.0,
        1000.0,
        0.6,
        0.5,
        rule="gpu_time",
        prefill_throughput_tok_per_s_per_gpu=8000.0,
        decode_throughput_tok_per_s_per_gpu=1000.0,
    )
    assert r["input_cost_usd_per_mtok"] == pytest.approx(split.input_usd_per_mtok)
    assert r["output_cost_usd_per_mtok"] == pytest.approx(split.output_usd_per_mtok)


def test_sweep_bad_axes():
    s = tk.Scenario(**BASE)
    with pytest.raises(KeyError, match="utilization_frac"):
        tk.sweep(s, utilisation_frac=[0.5])
    with pytest.raises(ValueError, match=r"utilization_frac=50\.0 at position 1.*percent"):
        tk.sweep(s, utilization_frac=[0.5, 50])
    with pytest.raises(ValueError, match="throughput_tok_per_s_per_gpu"):
        tk.sweep(s, throughput_tok_per_s_per_gpu=[100.0, -1.0])
    with pytest.raises(KeyError, match="gb200"):
        tk.sweep(s, hardware=["gb200", "gb2000"])
    with pytest.raises(ValueError, match="non-empty"):
        tk.sweep(s, utilization_frac=[])


def test_sweep_large_grid_is_vectorised():
    s = tk.Scenario(**BASE)
    df = tk.sweep(
        s,
        throughput_tok_per_s_per_gpu=np.linspace(100, 5000, 50),
        utilization_frac=np.linspace(0.05, 1, 40),
        license_fee_frac=np.linspace(0, 0.5, 10),
        output_usd_per_mtok=np.linspace(0.5, 10, 10),
    )
    assert len(df) == 200_000
    assert df["gross_margin_frac"].notna().all()


def test_throughput_from_curve():
    from tokenomics.curves.curve import ThroughputCurve

    curve = ThroughputCurve([10.0, 50.0, 100.0], [4000.0, 2000.0, 500.0])
    kw = {k: v for k, v in BASE.items() if k != "throughput_tok_per_s_per_gpu"}
    s = tk.Scenario(**kw, throughput_curve=curve, interactivity_tok_per_s_per_user=50.0)
    assert s.throughput_tok_per_s_per_gpu == pytest.approx(2000.0)
    with pytest.raises(ValueError, match="interactivity_tok_per_s_per_user"):
        tk.Scenario(**kw, throughput_curve=curve)
    with pytest.raises(ValueError):
        tk.Scenario(**kw, throughput_curve=curve, interactivity_tok_per_s_per_user=500.0)
    with pytest.raises(ValueError, match="not both"):
        tk.Scenario(**BASE, throughput_curve=curve, interactivity_tok_per_s_per_user=50.0)
