"""Tests of tokenomics.cost.energy."""

import numpy as np
import pandas as pd
import pytest

from tokenomics.cost.energy import energy_columns, energy_j_per_token, tok_per_s_per_mw


def test_same_value_scalar_array_series():
    # by hand: 1.5 kW / (3000 tok/s * 0.5) = 1 J/token; 1e6 / 1 J = 1e6 tok/s per MW
    assert energy_j_per_token(1.5, 3000.0, 0.5) == pytest.approx(1.0)
    np.testing.assert_allclose(energy_j_per_token(1.5, np.array([3000.0, 1500.0]), 0.5), [1.0, 2.0])
    s = tok_per_s_per_mw(pd.Series([3000.0], index=["x"]), 1.5, 0.5)
    assert s.index.tolist() == ["x"]
    assert s["x"] == pytest.approx(1e6)


def test_bad_input_and_overflow():
    with pytest.raises(ValueError, match="facility_power_kw_per_accelerator"):
        energy_j_per_token(0.0, 1000.0, 1.0)
    with pytest.raises(ValueError, match="percent"):
        tok_per_s_per_mw(1000.0, 1.0, 50)
    with pytest.raises(ValueError, match="not finite"):
        energy_j_per_token(30.0, 0.01, 1e-308)  # a plausible power over an underflowing busy throughput


def test_energy_columns():
    frame = pd.DataFrame({"throughput_tok_per_s_per_gpu": [3000.0], "utilization_frac": [0.5],
                          "price_usd_per_mtok": [2.0], "cost_usd_per_gpu_hour": [2.0]})
    out = energy_columns(frame, 1.5)
    assert out["energy_j_per_token"].iloc[0] == pytest.approx(1.0)
    # profit/GPU-hour = 3000*3600*0.5/1e6 * 2 - 2 = 8.8; per MW-year = 8.8 * 8760 * 1000 / 1.5
    assert out["profit_usd_per_mw_year"].iloc[0] == pytest.approx(8.8 * 8760 * 1000 / 1.5)
    assert "energy_j_per_token" not in frame.columns
    with pytest.raises(KeyError, match="missing columns"):
        energy_columns(frame.drop(columns="price_usd_per_mtok"), 1.5)


def test_power_in_watts_or_megawatts_is_refused():
    with pytest.raises(ValueError, match=r"facility_power_kw_per_accelerator=1500\.0 kW is above the plausible "
                                         r"maximum 30 kW \(a unit slip\? e\.g\. W where kW is meant"):
        energy_j_per_token(1500.0, 3000.0, 0.5)
    with pytest.raises(ValueError, match=r"facility_power_kw_per_accelerator=1500\.0 kW .*W where kW"):
        tok_per_s_per_mw(3000.0, 1500.0, 0.5)
    with pytest.raises(ValueError, match=r"=0\.0015 kW is below the plausible minimum 0\.01 kW .*MW where kW"):
        tok_per_s_per_mw(3000.0, np.array([1.5, 0.0015]), 0.5)
    # the edges pass: 30 kW x 1000 / (3000 tok/s x 0.5) = 20 J/token
    assert energy_j_per_token(30.0, 3000.0, 0.5) == pytest.approx(20.0)


def test_utilization_is_required_and_charges_idle_power():
    # idle hours draw the facility power too: 1.8 kW over 10,000 tok/s busy 50 % of the time is
    # 1800 W / (10,000 x 0.5) tok/s = 0.36 J/token, twice the full-load 0.18 J/token
    with pytest.raises(TypeError, match="utilization_frac"):
        energy_j_per_token(1.8, 10_000.0)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="utilization_frac"):
        tok_per_s_per_mw(10_000.0, 1.8)  # type: ignore[call-arg]
    assert energy_j_per_token(1.8, 10_000.0, 0.5) == pytest.approx(0.36, rel=1e-12)
    assert energy_j_per_token(1.8, 10_000.0, 1.0) == pytest.approx(0.18, rel=1e-12)
    # 10,000 x 0.5 tok/s per 1.8 kW = 5,000 / 0.0018 MW = 2,777,778 tok/s/MW
    assert tok_per_s_per_mw(10_000.0, 1.8, 0.5) == pytest.approx(5_000.0 / 0.0018, rel=1e-12)


def test_series_results_are_named():
    s = energy_j_per_token(1.5, pd.Series([3000.0, 1500.0], index=["x", "y"], name="tput"), 0.5)
    pd.testing.assert_series_equal(s, pd.Series([1.0, 2.0], index=["x", "y"], name="energy_j_per_token"))
    assert tok_per_s_per_mw(pd.Series([3000.0], index=["x"]), 1.5, 0.5).name == "tok_per_s_per_mw"
