"""Tests of tokenomics.analysis.grid (N-d sweeps as an xarray Dataset)."""

import numpy as np
import pandas as pd
import pytest

from tokenomics.analysis.grid import GRID_VARIABLES, economics_grid

xr = pytest.importorskip("xarray")


def test_grid_dims_and_hand_values():
    systems = xr.DataArray([2.0, 3.0], dims="hardware_id", coords={"hardware_id": ["a", "b"]})
    tput = xr.DataArray([1000.0, 2000.0], dims="hardware_id", coords={"hardware_id": ["a", "b"]})
    ds = economics_grid(systems, tput, [0.5, 1.0], [2.0, 4.0], license_fee_frac=0.3)
    assert set(ds.data_vars) == set(GRID_VARIABLES)
    assert ds["gross_margin_frac"].dims == ("hardware_id", "utilization_frac", "price_usd_per_mtok")
    # by hand: a at u = 0.5, p = 2, f = 0.3: Q = 1000 * 3600 * 0.5 / 1e6 = 1.8; cost = 2 / 1.8;
    # margin = 0.7 - (2 / 1.8) / 2 = 0.14444
    m = float(ds["gross_margin_frac"].sel(hardware_id="a", utilization_frac=0.5, price_usd_per_mtok=2.0))
    assert m == pytest.approx(0.7 - (2 / 1.8) / 2, rel=1e-12)
    # break-even utilization needs no utilization axis: u* = K / (p * 0.7 * t * 0.0036)
    be = ds["breakeven_utilization_frac"].sel(hardware_id="b", price_usd_per_mtok=4.0)
    assert float(be) == pytest.approx(3.0 / (4.0 * 0.7 * 2000 * 0.0036), rel=1e-12)


def test_lazy_grid_matches_eager():
    pytest.importorskip("dask.array")
    kw = {"cost_usd_per_gpu_hour": np.linspace(1, 4, 7), "throughput_tok_per_s_per_gpu": np.linspace(500, 5000, 9),
          "utilization_frac": [0.3, 0.6, 0.9], "price_usd_per_mtok": 2.0}
    lazy = economics_grid(**kw, chunks=3)
    assert lazy["cost_usd_per_mtok"].chunks is not None
    xr.testing.assert_allclose(lazy.compute(), economics_grid(**kw))


def test_infeasible_break_even_is_nan_and_stated():
    ds = economics_grid(100.0, 10.0, 0.5, 0.01)
    assert np.isnan(float(ds["breakeven_utilization_frac"]))
    assert "NaN where" in ds["breakeven_utilization_frac"].attrs["description"]
    with pytest.raises(ValueError, match="utilization_frac"):
        economics_grid(1.0, 1000.0, [0.5, 60.0], 2.0)


def test_energy_variables_by_hand_and_unknown_without_a_power():
    ds = economics_grid(2.0, 1000.0, [0.5, 1.0], 4.0, facility_power_kw_per_accelerator={"a": 1.5, "b": 1.0})
    # J/token = kW x 1000 / (throughput x u): 1500 / 500 = 3
    assert float(ds["energy_j_per_token"].sel(facility_power_kw_per_accelerator="a", utilization_frac=0.5)) == \
        pytest.approx(3.0)
    assert float(ds["tok_per_s_per_mw"].sel(facility_power_kw_per_accelerator="b", utilization_frac=1.0)) == \
        pytest.approx(1e6)
    profit = float(ds["profit_usd_per_gpu_hour"].sel(utilization_frac=1.0))
    assert float(ds["profit_usd_per_mw_year"].sel(facility_power_kw_per_accelerator="b", utilization_frac=1.0)) == \
        pytest.approx(profit * 8760 * 1000)
    plain = economics_grid(2.0, 1000.0, [0.5, 1.0], 4.0)
    assert set(GRID_VARIABLES) <= set(plain.data_vars)
    assert bool(np.isnan(plain["energy_j_per_token"].to_numpy()).all())


def test_series_axis_is_labelled_by_its_index():
    ds = economics_grid(pd.Series([2.0, 3.0], index=["a", "b"]), 1000.0, 0.5, 4.0)
    cost = ds["cost_usd_per_mtok"]
    assert cost.dims == ("cost_usd_per_gpu_hour",)
    assert list(cost["cost_usd_per_gpu_hour"].values) == ["a", "b"]
    # by hand: K / (1000 * 3600 * 0.5 / 1e6) = K / 1.8
    assert cost.sel(cost_usd_per_gpu_hour="b").item() == pytest.approx(3.0 / 1.8, rel=1e-12)
    # Series whose indexes share a name share that dimension (aligned by label, not position)
    k = pd.Series([2.0, 3.0], index=pd.Index(["a", "b"], name="hardware_id"))
    t = pd.Series([2000.0, 1000.0], index=pd.Index(["b", "a"], name="hardware_id"))
    by_system = economics_grid(k, t, 0.5, 4.0)["cost_usd_per_mtok"]
    assert by_system.dims == ("hardware_id",)
    assert by_system.sel(hardware_id="a").item() == pytest.approx(2.0 / 1.8, rel=1e-12)
    assert by_system.sel(hardware_id="b").item() == pytest.approx(3.0 / 3.6, rel=1e-12)
    with pytest.raises(ValueError, match=r"share the dimension 'hardware_id' with different labels"):
        economics_grid(k, t.rename({"b": "c"}), 0.5, 4.0)
