"""Property tests of the TCO: monotone in what makes a system dearer, for every catalog system."""

from __future__ import annotations

import pytest
from hypothesis import given

import tokenomics as tk
from tests.properties import strategies as strat
from tokenomics.cost.tco import itemised_tco_usd_per_gpu_hour


def _rel(a: float) -> float:
    return 1e-12 * max(1.0, abs(a))


@strat.DEFAULT_SETTINGS
@given(strat.tco_systems, strat.tco_profiles, strat.pues, strat.pues)
def test_tco_non_decreasing_in_pue_for_every_system(hw: str, profile: str, p1: float, p2: float) -> None:
    lo, hi = sorted((p1, p2))
    a = tk.tco(hw, profile, pue=lo)
    b = tk.tco(hw, profile, pue=hi)
    assert b.usd_per_gpu_hour >= a.usd_per_gpu_hour - _rel(a.usd_per_gpu_hour)
    # colocation is charged on IT kW, which PUE does not change
    assert b.breakdown_usd_per_gpu_hour["colocation"] == pytest.approx(a.breakdown_usd_per_gpu_hour["colocation"])


@strat.DEFAULT_SETTINGS
@given(strat.tco_systems, strat.tco_profiles, strat.electricity_prices, strat.electricity_prices)
def test_tco_non_decreasing_in_power_price_for_every_system(hw: str, profile: str, e1: float, e2: float) -> None:
    lo, hi = sorted((e1, e2))
    a = tk.tco(hw, profile, electricity_usd_per_kwh=lo).usd_per_gpu_hour
    b = tk.tco(hw, profile, electricity_usd_per_kwh=hi).usd_per_gpu_hour
    assert b >= a - _rel(a)


@strat.DEFAULT_SETTINGS
@given(strat.tco_systems, strat.tco_profiles, strat.capexes, strat.capexes)
def test_tco_non_decreasing_in_capex_for_every_system(hw: str, profile: str, c1: float, c2: float) -> None:
    lo, hi = sorted((c1, c2))
    a = tk.tco(hw, profile, capex_usd_per_accelerator=lo).usd_per_gpu_hour
    b = tk.tco(hw, profile, capex_usd_per_accelerator=hi).usd_per_gpu_hour
    assert b >= a - _rel(a)


@strat.DEFAULT_SETTINGS
@given(strat.tco_inputs())
def test_itemised_components_sum_to_the_total_and_are_non_negative(inputs: dict[str, float]) -> None:
    parts = itemised_tco_usd_per_gpu_hour(**inputs)
    total = parts.pop("total")
    assert sum(parts.values()) == pytest.approx(total, rel=1e-12, abs=1e-12)
    # no item is negative beyond round-off (cost of capital is annuity - straight line)
    assert min(parts.values()) >= -1e-12 * max(1.0, total)


@strat.DEFAULT_SETTINGS
@given(strat.tco_inputs(), strat.scale_factors)
def test_itemised_capex_items_scale_with_capex(inputs: dict[str, float], k: float) -> None:
    a = itemised_tco_usd_per_gpu_hour(**inputs)
    scaled = {**inputs, "capex_usd_per_accelerator": k * inputs["capex_usd_per_accelerator"]}
    b = itemised_tco_usd_per_gpu_hour(**scaled)
    for item in ("capex_amortisation", "cost_of_capital", "maintenance", "other_opex"):
        assert b[item] == pytest.approx(k * a[item], rel=1e-9, abs=1e-12)
    for item in ("power", "colocation"):
        assert b[item] == a[item]


@strat.DEFAULT_SETTINGS
@given(strat.tco_inputs(), strat.pues)
def test_itemised_power_is_it_power_times_pue(inputs: dict[str, float], pue: float) -> None:
    parts = itemised_tco_usd_per_gpu_hour(**{**inputs, "pue": pue})
    expected = inputs["it_power_kw_per_accelerator"] * pue * inputs["electricity_usd_per_kwh"]
    assert parts["power"] == pytest.approx(expected, rel=1e-12, abs=1e-15)
