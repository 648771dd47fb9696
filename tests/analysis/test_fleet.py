"""Tests of tokenomics.analysis.fleet: fleets per day and a day of serving."""

import numpy as np
import pandas as pd
import pytest

from tokenomics.analysis.fleet import fleet_per_day, serving_day


def test_deepseek_day_of_serving_matches_the_published_figures():
    # DeepSeek, open-infra-index "Day 6: One More Thing, DeepSeek-V3/R1 Inference System
    # Overview" (2025-03-01): 24 h from 2025-02-27 12:00 UTC+8, on average 226.75 H800 nodes
    # (8 GPUs each) at $2/GPU-hour -> $87,072/day; 608B input tokens of which 342B (56.3 %) hit
    # the KV cache, 168B output; at DeepSeek-R1 prices ($0.55 miss, $0.14 hit, $2.19 output per
    # Mtok) the theoretical revenue is $562,027/day and the cost profit margin 545 %.
    d = serving_day(226.75, 8, 2.0, 608e9, 342e9, 168e9, 0.55, 2.19, 0.14).iloc[0]
    # by hand: 226.75 * 8 * 24 * 2 = 87,072
    assert d["cost_usd_per_day"] == pytest.approx(87_072.0, rel=1e-12)
    # by hand from the rounded token counts: 266e3 * 0.55 + 342e3 * 0.14 + 168e3 * 2.19
    # = 146,300 + 47,880 + 367,920 = 562,100 (published 562,027 from unrounded counts)
    assert d["revenue_usd_per_day"] == pytest.approx(562_100.0, rel=1e-12)
    assert d["revenue_usd_per_day"] == pytest.approx(562_027.0, rel=2e-4)
    assert d["cache_hit_frac"] == pytest.approx(0.5625, abs=1e-4)  # published 56.3 %
    # published 545 %: (562,027 - 87,072) / 87,072 = 5.4547
    assert d["cost_profit_margin_frac"] == pytest.approx(5.45, abs=0.01)
    assert d["gross_margin_frac"] == pytest.approx((562_100 - 87_072) / 562_100, rel=1e-12)
    assert "226.75" not in d["fleet_note"]  # 1,814 GPUs: a whole number, nothing to state


def test_fleet_is_stated_not_rounded_silently():
    # 1e9 tokens/day at 2,000 tok/s/GPU and 60 %: 1e9 / (2000 * 86400 * 0.6) = 9.645 GPUs -> 10 paid
    f = fleet_per_day(8e8, 4e8, 2e8, 2000.0, 0.6, 2.0, 0.5, 2.0, 0.05).iloc[0]
    assert f["accelerators_needed"] == pytest.approx(1e9 / (2000 * 86400 * 0.6), rel=1e-12)
    assert f["accelerators"] == 10
    assert f["paid_utilization_frac"] == pytest.approx(9.645061728 * 0.6 / 10, rel=1e-9)
    assert "10 paid" in f["fleet_note"]
    # cost on the whole fleet: 10 * 24 * 2 = 480 $/day; revenue 400 * 0.5 + 400 * 0.05 + 200 * 2 = 620
    assert f["cost_usd_per_day"] == pytest.approx(480.0)
    assert f["revenue_usd_per_day"] == pytest.approx(620.0)
    assert f["cost_profit_margin_frac"] == pytest.approx(140.0 / 480.0)


def test_fleet_per_day_refuses_mtok_per_day_given_for_tokens_per_day():
    # 8,000 / 2,000 / 1,000 Mtok a day written as tokens: 9,000 tokens/day would be one GPU busy
    # 0.001 % of the day, a revenue of $0.0056 and a gross margin of -14,056
    with pytest.raises(ValueError, match=r"input_tokens_per_day \+ output_tokens_per_day=9000\.0 tokens/day is below "
                                         r"the plausible minimum 1e\+06 tokens/day \(a unit slip\? e\.g\. Mtok per day "
                                         r"where tokens per day are meant: multiply by 1e6\); allowed \[1e\+06, inf\]"):
        fleet_per_day(8000, 2000, 1000, 10000, 0.6, 3.28, 0.55, 2.19)
    with pytest.raises(ValueError, match=r"below the plausible minimum 1e\+06 tokens/day"):
        fleet_per_day(np.array([8e9, 8000.0]), 0.0, np.array([1e9, 1000.0]), 10000, 0.6, 3.28, 0.55, 2.19)
    # the same day in tokens: 9e9 / (10,000 x 86,400 x 0.6) = 17.36 GPUs -> 18 paid
    f = fleet_per_day(8e9, 2e9, 1e9, 10000, 0.6, 3.28, 0.55, 2.19).iloc[0]
    assert f["accelerators"] == 18
    # revenue 6,000 Mtok x 0.55 + 2,000 x 0.055 (cached at 10 %) + 1,000 x 2.19 = 5,600 $/day;
    # cost 18 x 24 x 3.28 = 1,416.96 $/day
    assert f["revenue_usd_per_day"] == pytest.approx(5600.0, rel=1e-12)
    assert f["cost_usd_per_day"] == pytest.approx(1416.96, rel=1e-12)
    assert f["gross_margin_frac"] == pytest.approx((5600.0 - 1416.96) / 5600.0, rel=1e-12)
    # the minimum itself passes: 1e6 tokens/day on one accelerator
    assert fleet_per_day(5e5, 0.0, 5e5, 1000.0, 0.5, 2.0, 1.0, 4.0)["accelerators"].iloc[0] == 1


def test_fraction_of_one_accelerator_is_stated():
    f = fleet_per_day(1e6, 0.0, 1e6, 1e4, 0.5, 2.0, 1.0, 4.0).iloc[0]
    assert f["accelerators_needed"] < 1
    assert f["accelerators"] == 1
    assert "1 paid" in f["fleet_note"]


def test_license_fee_and_energy_columns():
    f = fleet_per_day(8e8, 0.0, 2e8, 2000.0, 0.6, 2.0, 0.5, 2.0, license_fee_frac=0.3,
                      facility_power_kw_per_accelerator=1.5).iloc[0]
    assert f["license_usd_per_day"] == pytest.approx(0.3 * f["revenue_usd_per_day"])
    # J/token: 1.5 kW * 1000 * 86400 s * 10 GPUs / 1e9 tokens = 1.296 J/token
    assert f["energy_j_per_token"] == pytest.approx(1.5e3 * 86400 * 10 / 1e9, rel=1e-12)
    assert f["tok_per_s_per_mw"] * f["energy_j_per_token"] == pytest.approx(1e6)
    assert f["profit_usd_per_mw_year"] == pytest.approx(f["profit_usd_per_day"] * 365 / (10 * 1.5e-3), rel=1e-12)


def test_energy_columns_are_there_and_unknown_without_a_power():
    from tokenomics.analysis.fleet import FLEET_COLUMNS

    f = fleet_per_day(8e8, 0.0, 2e8, 2000.0, 0.6, 2.0, 0.5, 2.0)
    assert list(f.columns) == list(FLEET_COLUMNS)
    assert f[["energy_j_per_token", "tok_per_s_per_mw", "profit_usd_per_mw_year"]].isna().all(axis=None)
    d = serving_day(226.75, 8, 2.0, 608e9, 342e9, 168e9, 0.55, 2.19, 0.14)
    assert {"energy_j_per_token", "tok_per_s_per_mw", "profit_usd_per_mw_year"} <= set(d.columns)


def test_bad_input():
    with pytest.raises(ValueError, match="part of the input"):
        fleet_per_day(1e8, 2e8, 1e8, 1000.0, 0.5, 2.0, 1.0, 2.0)
    with pytest.raises(ValueError, match="zero fleet"):
        fleet_per_day(0.0, 0.0, 0.0, 1000.0, 0.5, 2.0, 1.0, 2.0)
    with pytest.raises(ValueError, match="utilization_frac"):
        fleet_per_day(1e8, 0.0, 1e8, 1000.0, 60, 2.0, 1.0, 2.0)
    with pytest.raises(ValueError, match="nodes"):
        serving_day(0, 8, 2.0, 1e9, 0, 1e9, 1.0, 2.0)


def test_vectorised_over_systems():
    f = fleet_per_day(8e8, 4e8, 2e8, np.array([1000.0, 2000.0]), 0.5, np.array([2.0, 3.0]), 0.5, 2.0,
                      system=["a", "b"])
    assert list(f["system"]) == ["a", "b"]
    assert list(f["accelerators"]) == [24.0, 12.0]


def test_serving_day_refuses_per_token_prices_as_a_unit_slip():
    # $0.55e-6 per token written where $/Mtok is meant gave a gross margin of -154,903 silently;
    # the same plausibility check as compare/monte_carlo/the CLI (the price vocabulary) refuses it
    with pytest.raises(ValueError, match=r"input_usd_per_mtok=5\.5e-07 USD/Mtok is below the plausible minimum"):
        serving_day(226.75, 8, 2.0, 608e9, 342e9, 168e9, 0.55e-6, 2.19e-6, 0.14e-6)
    with pytest.raises(ValueError, match=r"output_usd_per_mtok=2\.19e-06 USD/Mtok.*unit slip"):
        serving_day(226.75, 8, 2.0, 608e9, 342e9, 168e9, 0.55, 2.19e-6, 0.14)
    with pytest.raises(ValueError, match=r"cached_input_usd_per_mtok=1\.4e-07"):
        serving_day(226.75, 8, 2.0, 608e9, 342e9, 168e9, 0.55, 2.19, 0.14e-6)
    with pytest.raises(ValueError, match=r"output_usd_per_mtok=2\.19e-06"):
        fleet_per_day(8e8, 4e8, 2e8, 2000.0, 0.6, 2.0, 0.5, 2.19e-6)
    # a free tier (0) stays allowed
    assert serving_day(226.75, 8, 2.0, 608e9, 342e9, 168e9, 0.55, 2.19, 0.0)["revenue_usd_per_day"].iloc[0] > 0


def test_serving_day_checks_cost_counts_and_types_like_the_chain():
    # a per-node hour (8 x $2) written as a GPU-hour: the chain's plausible TCO maximum, with the hint
    with pytest.raises(ValueError, match=r"cost_usd_per_gpu_hour=2000 .*per-system or per-rack"):
        serving_day(226.75, 8, 2000.0, 608e9, 342e9, 168e9, 0.55, 2.19, 0.14)
    with pytest.raises(ValueError, match=r"cost_usd_per_gpu_hour=500"):
        fleet_per_day(8e8, 4e8, 2e8, 2000.0, 0.6, 500.0, 0.5, 2.0)
    with pytest.raises(ValueError, match=r"accelerators_per_node=8\.5 is not a whole number"):
        serving_day(226.75, 8.5, 2.0, 608e9, 342e9, 168e9, 0.55, 2.19, 0.14)
    with pytest.raises(ValueError, match=r"accelerators_per_node=0\.0 is outside"):
        serving_day(226.75, 0, 2.0, 608e9, 342e9, 168e9, 0.55, 2.19, 0.14)
    with pytest.raises(TypeError, match=r"accelerators_per_node=True is not a number \(a boolean\)"):
        serving_day(226.75, True, 2.0, 608e9, 342e9, 168e9, 0.55, 2.19, 0.14)
    with pytest.raises(ValueError, match=r"input_tokens_per_day='608e9' is not a number \(a string\)"):
        serving_day(226.75, 8, 2.0, "608e9", 342e9, 168e9, 0.55, 2.19, 0.14)
    # the average fleet stays fractional, as DeepSeek published it
    assert serving_day(226.75, 8, 2.0, 608e9, 342e9, 168e9, 0.55, 2.19, 0.14)["accelerators"].iloc[0] == 1814.0


def test_fleet_per_day_refuses_an_implausible_throughput():
    # 0.0025 tok/s/GPU: tok/ms or ktok/s given as tok/s; below the curve vocabulary's 0.01 tok/s/GPU
    with pytest.raises(ValueError, match=r"throughput_tok_per_s_per_gpu=0\.0025 tok/s/GPU is below the plausible "
                                         r"minimum 0\.01 tok/s/GPU"):
        fleet_per_day(8e8, 4e8, 2e8, 0.0025, 0.6, 2.0, 0.5, 2.0)


def test_series_inputs_keep_their_index():
    day = serving_day(pd.Series([226.75, 200.0], index=["d1", "d2"]), 8, 2.0, 608e9, 342e9, 168e9, 0.55, 2.19, 0.14)
    assert list(day.index) == ["d1", "d2"]
    # by hand: nodes * 8 GPUs * 24 h * $2
    assert day.loc["d2", "cost_usd_per_day"] == pytest.approx(200.0 * 8 * 24 * 2.0, rel=1e-12)
    plan = fleet_per_day(pd.Series([8e8, 1.6e9], index=["x", "y"]), 4e8, 2e8, 2000.0, 0.6, 2.0, 0.5, 2.0, 0.05)
    assert list(plan.index) == ["x", "y"]
    # by hand: (1.6e9 + 2e8) / (2000 * 86400 * 0.6) = 17.36 accelerators
    assert plan.loc["y", "accelerators_needed"] == pytest.approx(1.8e9 / (2000 * 86400 * 0.6), rel=1e-12)
    with pytest.raises(ValueError, match="different indexes"):
        fleet_per_day(pd.Series([8e8, 1.6e9], index=["x", "y"]), pd.Series([4e8, 4e8]), 2e8, 2000.0, 0.6, 2.0,
                      0.5, 2.0, 0.05)
