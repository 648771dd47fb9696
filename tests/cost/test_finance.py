"""Tests of tokenomics.cost.finance: capital recovery factor, annuity, depreciation."""

import numpy as np
import pandas as pd
import pytest

from tokenomics.cost.finance import (
    annuity_usd_per_year,
    capital_recovery_factor,
    cost_of_capital_usd_per_year,
    present_value_factor,
    straight_line_depreciation_usd_per_year,
)


def test_crf_textbook_value():
    # Compound-interest table "A/P, i = 10 %, n = 5" = 0.26380 (e.g. any engineering-economics
    # table; closed form 0.1 / (1 - 1.1**-5) = 0.263797...).
    assert capital_recovery_factor(0.10, 5) == pytest.approx(0.26380, abs=5e-6)
    # A/P, 8 %, 10 years = 0.14903
    assert capital_recovery_factor(0.08, 10) == pytest.approx(0.14903, abs=5e-6)


def test_crf_zero_rate_limit_and_continuity():
    assert capital_recovery_factor(0.0, 4) == 0.25
    assert capital_recovery_factor(1e-12, 4) == pytest.approx(0.25, rel=1e-9)


def test_crf_one_year_life_is_one_plus_rate():
    assert capital_recovery_factor(0.07, 1) == pytest.approx(1.07, rel=1e-12)


def test_crf_scalar_array_series_agree():
    rates = [0.0, 0.05, 0.10]
    expected = [1 / 4, 0.05 / (1 - 1.05**-4), 0.10 / (1 - 1.10**-4)]
    assert isinstance(capital_recovery_factor(0.05, 4), float)
    arr = capital_recovery_factor(np.array(rates), 4)
    assert isinstance(arr, np.ndarray)
    np.testing.assert_allclose(arr, expected, rtol=1e-12)
    ser = capital_recovery_factor(pd.Series(rates, index=["a", "b", "c"]), 4)
    assert isinstance(ser, pd.Series)
    assert list(ser.index) == ["a", "b", "c"]
    np.testing.assert_allclose(ser.to_numpy(), expected, rtol=1e-12)


def test_crf_array_with_nan_raises_naming_position():
    with pytest.raises(ValueError, match=r"rate_frac is NaN at position 1"):
        capital_recovery_factor(np.array([0.1, np.nan]), 4)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rate_frac": 10.0, "life_years": 4}, "percent"),
        ({"rate_frac": -0.1, "life_years": 4}, r"rate_frac=-0\.1"),
        ({"rate_frac": 0.1, "life_years": 0.0}, r"life_years=0\.0.*\(0\.0, inf\)"),
    ],
)
def test_crf_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        capital_recovery_factor(**kwargs)


def test_annuity_by_hand_with_residual():
    # capex 100k, 10 %, 4 years, 20 % residual: PV(residual) = 20_000 / 1.1**4 = 13_660.27
    crf = 0.1 / (1 - 1.1**-4)  # 0.315470804
    expected = crf * (100_000 - 20_000 / 1.1**4)
    assert annuity_usd_per_year(100_000.0, 0.1, 4, 0.2) == pytest.approx(expected, rel=1e-12)
    # identity: (capex - residual) * crf + residual * r
    assert expected == pytest.approx(80_000 * crf + 20_000 * 0.1, rel=1e-12)


def test_annuity_zero_rate_equals_straight_line():
    assert annuity_usd_per_year(100_000.0, 0.0, 4, 0.2) == pytest.approx(20_000.0)
    assert straight_line_depreciation_usd_per_year(100_000.0, 4, 0.2) == pytest.approx(20_000.0)
    assert cost_of_capital_usd_per_year(100_000.0, 0.0, 4, 0.2) == pytest.approx(0.0, abs=1e-9)


def test_cost_of_capital_one_year_life():
    # one year: pay back capex - residual, plus one year of interest on the whole capex
    assert cost_of_capital_usd_per_year(50_000.0, 0.12, 1, 0.3) == pytest.approx(50_000 * 0.12, rel=1e-12)


def test_cost_of_capital_nonnegative_and_series_index_kept():
    capex = pd.Series([10_000.0, 20_000.0], index=pd.Index(["x", "y"], name="hw"))
    coc = cost_of_capital_usd_per_year(capex, 0.1, 5)
    assert list(coc.index) == ["x", "y"]
    assert (coc > 0).all()
    np.testing.assert_allclose(coc.to_numpy(), capex.to_numpy() * (0.1 / (1 - 1.1**-5) - 0.2))


def test_present_value_factor():
    assert present_value_factor(0.1, 4) == pytest.approx(1.1**-4)
    assert present_value_factor(0.0, 4) == 1.0


def test_series_with_different_indexes_raise():
    with pytest.raises(ValueError, match="same index"):
        capital_recovery_factor(pd.Series([0.1], index=["a"]), pd.Series([4.0], index=["b"]))


def test_negative_capex_raises():
    with pytest.raises(ValueError, match="capex_usd"):
        straight_line_depreciation_usd_per_year(-1.0, 4)
