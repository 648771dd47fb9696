"""Tests of tokenomics.analysis.scenario: Scenario validation, evaluate() and sweep()."""

import numpy as np
import pandas as pd
import pydantic
import pytest

import tokenomics as tk
from tokenomics.analysis.scenario import SWEEP_COLUMNS
from tokenomics.curves.reference import curve_kind_at

HALF = tk.Workload(name="1k/1k", isl_tokens=1000, osl_tokens=1000)

BASE = {
    "hardware": "gb200",
    "cost_usd_per_gpu_hour": 2.0,
    "facility_power_kw_per_accelerator": 2.0,
    "input_usd_per_mtok": 0.5,
    "output_usd_per_mtok": 2.0,
    "workload": HALF,
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
        tco_vintage="2026-09",
        tco_tier="hyperscaler",
        workload=tk.Workload(name="8k/1k, 0.3 cached", isl_tokens=8192, osl_tokens=1024, cached_prefix_frac=0.3),
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
        ({"cache_hit_frac": 0.5}, "token mix comes from the workload"),
        ({"isl_tokens": 1000.0, "osl_tokens": 100.0}, "token mix comes from the workload"),
        ({"output_usd_per_mtok": None}, "prices missing"),
        ({"cost_split_rule": "gpu_time"}, "prefill_throughput"),
        ({"prefill_throughput_tok_per_s_per_gpu": 1.0}, "only used by cost_split_rule='gpu_time'"),
        ({"interactivity_tok_per_s_per_user": 50.0}, "would not be used"),
        ({"tco_profile": "neocloud"}, "contradicts"),
        ({"tco_tier": "rental"}, "contradicts"),
        ({"price_provider": "deepseek"}, "not used"),
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
        tk.Scenario(**{**BASE, "cost_usd_per_gpu_hour": None, "tco_profile": "hyperscalr"})
    with pytest.raises(KeyError, match="8k/1k"):
        tk.Scenario(**{**BASE, "workload": "8k/2k"})


def test_license_object_unpacked_and_token_mix_from_workload():
    kw = {k: v for k, v in BASE.items() if k != "license_fee_frac"}
    s = tk.Scenario(**kw, license=tk.LicenseFee(revenue_frac=0.3))
    assert s.license_fee_frac == 0.3
    assert s.token_mix.input_share_frac == 0.5
    assert s.evaluate().equals(tk.Scenario(**BASE).evaluate())
    with pytest.raises(ValueError, match="not both"):
        tk.Scenario(**BASE, license=tk.LicenseFee(revenue_frac=0.3))
    with pytest.raises(ValueError, match="workload"):
        tk.Scenario(**BASE, token_mix=tk.TokenMix(input_share_frac=0.5))


def test_default_license_fee_follows_the_model():
    s = tk.Scenario(**{k: v for k, v in BASE.items() if k != "license_fee_frac"}, model="deepseek-r1")
    assert s.license_fee_frac is None
    assert s.evaluate()["license_fee_frac"].iloc[0] == tk.default_license_fee_frac(tk.model("deepseek-r1"))


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
    numeric = [c for c in SWEEP_COLUMNS if df[c].dtype.kind == "f"]
    pd.testing.assert_series_equal(df.iloc[4][numeric].astype(float), one.iloc[0][numeric].astype(float),
                                   check_names=False)


def test_sweep_over_hardware_and_tiers():
    s = tk.Scenario(**{**BASE, "cost_usd_per_gpu_hour": None, "tco_basis": "published",
                       "facility_power_kw_per_accelerator": None, "throughput_tok_per_s_per_gpu": None,
                       "model": "deepseek-r1"})
    tiers = [tk.TcoBasis.published(tier="hyperscaler"), tk.TcoBasis.published(tier="rental")]
    df = tk.sweep(s, hardware=["gb200", "MI355X", "b200"], tco=tiers, utilization_frac=[0.5, 1.0])
    assert len(df) == 12
    for row in df.itertuples():
        pub = tk.published_tco(row.hardware_id, vintage="2026-09", tier=row.tco_tier)
        assert row.cost_usd_per_gpu_hour == pub.usd_per_gpu_hour
    assert set(df["hardware_id"]) == {"gb200-nvl72", "mi355x", "b200"}


def test_sweep_split_adds_up_and_breakevens_plug_back():
    s = tk.Scenario(**BASE)
    mixes = [tk.Workload(name=f"{isl}/{osl}, {h} cached", isl_tokens=isl, osl_tokens=osl, cached_prefix_frac=h,
                         kind="sessions") for isl, osl in ((200, 800), (900, 100)) for h in (0.0, 0.4, 0.9)]
    df = pd.concat([tk.sweep(s.model_copy(update={"workload": w}), utilization_frac=np.linspace(0.1, 1.0, 10))
                    for w in mixes], ignore_index=True)
    assert sorted(set(df["input_share_frac"].round(6))) == [0.2, 0.9]
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
        0.0,
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
        tk.sweep(tk.Scenario(hardware="gb200", model="deepseek-r1"), hardware=["gb200", "gb2000"])
    with pytest.raises(ValueError, match="non-empty"):
        tk.sweep(s, utilization_frac=[])
    with pytest.raises(ValueError, match="reuse one throughput"):
        tk.sweep(s, hardware=["gb200", "mi355x"])
    with pytest.raises(ValueError, match="explicit throughput"):
        tk.sweep(s, interactivity_tok_per_s_per_user=[20.0, 80.0])
    itemised = tk.Scenario(**{**BASE, "cost_usd_per_gpu_hour": None})
    with pytest.raises(ValueError, match="replaces the scenario's TCO basis"):
        tk.sweep(itemised, cost_usd_per_gpu_hour=[1.0, 2.0])


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
    curve = tk.ThroughputCurve([10.0, 50.0, 100.0], [4000.0, 2000.0, 500.0])
    kw = {k: v for k, v in BASE.items() if k != "throughput_tok_per_s_per_gpu"}
    s = tk.Scenario(**kw, throughput_curve=curve, interactivity_tok_per_s_per_user=50.0)
    row = s.evaluate().iloc[0]
    assert row["throughput_tok_per_s_per_gpu"] == pytest.approx(2000.0)
    assert row["curve_kind"] == "measured"
    # the default interactivity (50) reads the same point
    assert tk.Scenario(**kw, throughput_curve=curve).evaluate()["throughput_tok_per_s_per_gpu"].iloc[0] == 2000.0
    with pytest.raises(ValueError, match="never extrapolated"):
        tk.Scenario(**kw, throughput_curve=curve, interactivity_tok_per_s_per_user=500.0).evaluate()
    with pytest.raises(ValueError, match="not both"):
        tk.Scenario(**BASE, throughput_curve=curve)
    # sweeping interactivity re-reads the curve
    df = tk.sweep(s, interactivity_tok_per_s_per_user=[10.0, 100.0])
    assert df["throughput_tok_per_s_per_gpu"].tolist() == pytest.approx([4000.0, 500.0])
    with pytest.raises(ValueError, match="reuse one throughput"):
        tk.sweep(s, hardware=["gb200", "mi355x"])


def test_sweep_rereads_each_systems_curve():
    """Each hardware and interactivity reads its own curve (MI355X does not reuse GB200's throughput)."""
    s = tk.Scenario(hardware="gb200", model="deepseek-r1")
    df = tk.sweep(s, hardware=["gb200", "mi355x"], interactivity_tok_per_s_per_user=[20.0, 80.0])
    assert len(df) == 4
    assert df["throughput_tok_per_s_per_gpu"].nunique() == 4
    for row in df.itertuples():
        curve, _ = tk.reference_curve("deepseek-r1", row.hardware_id,
                                      interactivity_tok_per_s_per_user=row.interactivity_tok_per_s_per_user)
        assert row.throughput_tok_per_s_per_gpu == pytest.approx(float(curve.throughput_at(
            row.interactivity_tok_per_s_per_user)))
        assert row.curve_kind == curve_kind_at(curve, row.interactivity_tok_per_s_per_user)


def test_tco_keywords_follow_the_one_rule():
    kw = {k: v for k, v in BASE.items() if k != "cost_usd_per_gpu_hour"}
    assert tk.Scenario(**kw, tco_vintage="2026-09").tco == tk.TcoBasis.published()
    assert tk.Scenario(**kw, tco_tier="rental").tco == tk.TcoBasis.published(tier="rental")
    assert tk.Scenario(**kw, tco_profile="neocloud").tco == tk.TcoBasis.itemised("neocloud")
    assert tk.Scenario(**kw, tco="published").tco == tk.TcoBasis.published()
    assert tk.Scenario(**kw).tco == tk.DEFAULT_TCO_BASIS
    with pytest.raises(ValueError, match=r"tco_profile='neocloud'.*contradicts tco_vintage"):
        tk.Scenario(**kw, tco_profile="neocloud", tco_vintage="2026-09")
    with pytest.raises(ValueError, match="tco_basis='itemised' contradicts tco_tier"):
        tk.Scenario(**kw, tco_basis="itemised", tco_tier="rental")


@pytest.mark.parametrize(("update", "match"), [
    ({"throughput_tok_per_s_per_gpu": True}, r"throughput_tok_per_s_per_gpu=True is not a number \(a boolean\)"),
    ({"throughput_tok_per_s_per_gpu": "2500"}, r"throughput_tok_per_s_per_gpu='2500' is not a number \(a string\)"),
    ({"utilization_frac": "0.6"}, r"utilization_frac='0.6' is not a number"),
    ({"license_fee_frac": False}, r"license_fee_frac=False is not a number"),
], ids=["throughput-bool", "throughput-str", "utilization-str", "fee-bool"])
def test_scenario_refuses_flags_and_text_before_coercion(update, match):
    # pydantic would read "2500" as 2500.0 and True as 1.0
    with pytest.raises(pydantic.ValidationError, match=match):
        tk.Scenario(**{**BASE, **update})


@pytest.mark.parametrize(("update", "match"), [
    ({"throughput_tok_per_s_per_gpu": 0.0025}, r"0\.0025 tok/s/GPU is below the plausible minimum 0\.01"),
    ({"input_usd_per_mtok": 0.5e-6}, r"input_usd_per_mtok=5e-07 USD/Mtok is below the plausible minimum"),
    ({"target_margin_frac": 50}, r"looks like a percent.*write 0\.5, not 50"),
], ids=["throughput-slip", "price-per-token", "margin-percent"])
def test_scenario_refuses_implausible_values_with_the_entry_points_messages(update, match):
    with pytest.raises(pydantic.ValidationError, match=match):
        tk.Scenario(**{**BASE, **update})


def test_sweep_axis_of_text_is_refused():
    with pytest.raises(TypeError, match=r"utilization_frac holds '0\.5' at position 1: not a number \(a string\)"):
        tk.sweep(tk.Scenario(**BASE), utilization_frac=[0.4, "0.5"])


def test_a_cached_cost_ratio_under_the_price_rule_is_refused_not_ignored():
    with pytest.raises(ValueError, match="cached_cost_ratio is only used by cost_split_rule='gpu_time'"):
        tk.Scenario(**{**BASE, "cached_cost_ratio": 0.5}).evaluate()
    with pytest.raises(ValueError, match="cached_cost_ratio is only used by cost_split_rule='gpu_time'"):
        tk.sweep(tk.Scenario(**BASE), cached_cost_ratio=[0.1, 0.5])
    # the default ratio is not an input the caller gave: the price rule runs; with gpu_time it is used
    assert len(tk.Scenario(**BASE).evaluate()) == 1
    gpu = tk.Scenario(**{**BASE, "cost_split_rule": "gpu_time", "prefill_throughput_tok_per_s_per_gpu": 8000.0,
                         "decode_throughput_tok_per_s_per_gpu": 1000.0, "cached_cost_ratio": 0.5}).evaluate()
    assert gpu["cached_input_cost_usd_per_mtok"].iloc[0] == pytest.approx(0.5 * gpu["input_cost_usd_per_mtok"].iloc[0])


def test_sweep_refuses_a_labelled_series_axis_whose_labels_it_would_drop():
    s = tk.Scenario(**BASE)
    with pytest.raises(ValueError, match=r"utilization_frac is a Series labelled \['lo', 'mid', 'hi'\]"):
        tk.sweep(s, utilization_frac=pd.Series([0.4, 0.6, 0.8], index=["lo", "mid", "hi"]))
    # unlabelled (a default RangeIndex) is a list of values
    assert tk.sweep(s, utilization_frac=pd.Series([0.4, 0.6, 0.8]))["utilization_frac"].tolist() == [0.4, 0.6, 0.8]
