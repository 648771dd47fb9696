"""Energy economics per token and per megawatt: J per token, tokens per second per MW.

Power is the *facility* power per accelerator (IT power x PUE, see :mod:`tokenomics.cost.tco`),
paid for every hour whether the accelerator is busy or not, so the energy charged to a served
token grows as utilization falls:

* ``energy_j_per_token = facility_power_kw * 1000 / (throughput_tok_per_s_per_gpu * utilization)``
* ``tok_per_s_per_mw = throughput_tok_per_s_per_gpu * utilization * 1000 / facility_power_kw``

(the two are reciprocal: ``tok_per_s_per_mw = 1e6 / energy_j_per_token``). Profit per MW-year is
:func:`tokenomics.economics.profit_usd_per_mw_year`; :func:`energy_columns` adds all three to a
result table.

References
----------
.. [1] SemiAnalysis InferenceX-app, "tokens per MW" and "J per token" views of the GPU power
   baselines, https://github.com/SemiAnalysisAI/InferenceX-app (read 2026-09).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from tokenomics._numeric import kernel, prepare
from tokenomics._validate import check_fraction
from tokenomics.economics import check_power_kw, check_throughput_per_gpu, profit_usd_per_mw_year
from tokenomics.units import KW_PER_MW, W_PER_KW

__all__ = ["ENERGY_COLUMNS", "energy_columns", "energy_j_per_token", "tok_per_s_per_mw"]

ENERGY_COLUMNS: dict[str, str] = {
    "energy_j_per_token": "facility energy per served token, idle hours included [J/token]",
    "tok_per_s_per_mw": "served tokens per second per MW of facility power [tok/s/MW]",
    "profit_usd_per_mw_year": "gross profit per MW of facility power per year [USD/MW-year]",
}
"""Energy columns of result tables and their meaning."""


def _util(name: str, value: Any) -> None:
    check_fraction(name, value, low_inclusive=False)


def _power(name: str, value: Any) -> None:
    check_power_kw(name, value)


@kernel
def energy_j_per_token(
    facility_power_kw_per_accelerator: Any, throughput_tok_per_s_per_gpu: Any, utilization_frac: Any
) -> Any:
    """Facility energy per served token, idle hours included.

    ``energy_j_per_token = facility_power_kw * 1000 / (throughput * utilization)``

    Parameters
    ----------
    facility_power_kw_per_accelerator : float, array_like, pandas.Series, dask or xarray
        Facility power per accelerator (IT power x PUE), in the plausible range [0.01, 30]
        (:func:`tokenomics.economics.check_power_kw`: a figure in W is refused) [kW].
    throughput_tok_per_s_per_gpu : float, array_like, pandas.Series, dask or xarray
        Input + output tokens per second per accelerator while busy, in [0.01, 1e6]
        (:func:`tokenomics.economics.check_throughput_per_gpu`) [tok/s/GPU].
    utilization_frac : float, array_like, pandas.Series, dask or xarray
        Busy fraction of paid hours, in (0, 1]. Required: the facility power is drawn (and
        paid) in idle hours too, so the energy per served token is the full-load figure
        divided by the utilization; pass 1.0 for the energy per token at full load.

    Returns
    -------
    float, numpy.ndarray, pandas.Series, dask array or DataArray
        Energy [J/token].

    Raises
    ------
    ValueError
        Power or throughput not > 0, power outside its plausible range (W given for kW),
        utilization outside (0, 1], or a non-finite result.

    Examples
    --------
    1.5 kW per accelerator serving 3,000 tok/s at 50 % utilization: 1500 / 1500 = 1 J/token.

    >>> energy_j_per_token(1.5, 3000.0, 0.5)
    1.0
    """
    (kw, t, u), restore = prepare(
        ("facility_power_kw_per_accelerator", facility_power_kw_per_accelerator, _power),
        ("throughput_tok_per_s_per_gpu", throughput_tok_per_s_per_gpu, check_throughput_per_gpu),
        ("utilization_frac", utilization_frac, _util),
    )
    return restore(kw * W_PER_KW / (t * u), "energy_j_per_token")


@kernel
def tok_per_s_per_mw(
    throughput_tok_per_s_per_gpu: Any, facility_power_kw_per_accelerator: Any, utilization_frac: Any
) -> Any:
    """Compute served tokens per second per MW of facility power.

    ``tok_per_s_per_mw = throughput * utilization * 1000 / facility_power_kw``

    Parameters
    ----------
    throughput_tok_per_s_per_gpu : float, array_like, pandas.Series, dask or xarray
        Tokens per second per accelerator while busy, in [0.01, 1e6]
        (:func:`tokenomics.economics.check_throughput_per_gpu`) [tok/s/GPU].
    facility_power_kw_per_accelerator : float, array_like, pandas.Series, dask or xarray
        Facility power per accelerator (IT power x PUE), in the plausible range [0.01, 30]
        (:func:`tokenomics.economics.check_power_kw`: a figure in W is refused) [kW].
    utilization_frac : float, array_like, pandas.Series, dask or xarray
        Busy fraction of paid hours, in (0, 1]. Required: the power of idle hours serves no
        token, so the served tokens per MW scale with the utilization; pass 1.0 for the
        full-load figure.

    Returns
    -------
    float, numpy.ndarray, pandas.Series, dask array or DataArray
        Throughput per MW [tok/s/MW].

    Raises
    ------
    ValueError
        Invalid inputs (a power in W where kW is meant) or a non-finite result.

    Examples
    --------
    >>> tok_per_s_per_mw(3000.0, 1.5, 0.5)
    1000000.0
    """
    (t, kw, u), restore = prepare(
        ("throughput_tok_per_s_per_gpu", throughput_tok_per_s_per_gpu, check_throughput_per_gpu),
        ("facility_power_kw_per_accelerator", facility_power_kw_per_accelerator, _power),
        ("utilization_frac", utilization_frac, _util),
    )
    return restore(t * u * KW_PER_MW / kw, "tok_per_s_per_mw")


def energy_columns(
    frame: pd.DataFrame,
    facility_power_kw_per_accelerator: Any,
    *,
    throughput_column: str = "throughput_tok_per_s_per_gpu",
    utilization_column: str = "utilization_frac",
    price_column: str = "price_usd_per_mtok",
    cost_column: str = "cost_usd_per_gpu_hour",
    license_fee_column: str | None = "license_fee_frac",
) -> pd.DataFrame:
    """Return ``frame`` with the :data:`ENERGY_COLUMNS` added (a copy; the input is not changed).

    Parameters
    ----------
    frame : pandas.DataFrame
        A result table with throughput, utilization, blended price and TCO columns.
    facility_power_kw_per_accelerator : float, array_like or pandas.Series
        Facility power per accelerator, in [0.01, 30] [kW]; one value or one per row.
    throughput_column, utilization_column, price_column, cost_column : str
        Column names of throughput [tok/s/GPU], utilization, blended price [USD/Mtok] and TCO
        [USD/GPU-hour].
    license_fee_column : str or None, default "license_fee_frac"
        Revenue-share license fee column; None or absent means no fee.

    Returns
    -------
    pandas.DataFrame
        ``frame`` plus ``energy_j_per_token``, ``tok_per_s_per_mw``, ``profit_usd_per_mw_year``.

    Raises
    ------
    KeyError
        A named column is missing (the columns present are listed).
    ValueError
        Invalid values (element-wise).
    """
    needed = [throughput_column, utilization_column, price_column, cost_column]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise KeyError(f"energy_columns: missing columns {missing}; the table has {list(frame.columns)}")
    out = frame.copy()
    kw = facility_power_kw_per_accelerator
    if isinstance(kw, pd.Series):
        kw = kw.to_numpy(dtype=float)
    t = out[throughput_column].to_numpy(dtype=float)
    u = out[utilization_column].to_numpy(dtype=float)
    fee = (
        out[license_fee_column].to_numpy(dtype=float)
        if license_fee_column is not None and license_fee_column in out.columns
        else 0.0
    )
    out["energy_j_per_token"] = energy_j_per_token(kw, t, u)
    out["tok_per_s_per_mw"] = tok_per_s_per_mw(t, kw, u)
    out["profit_usd_per_mw_year"] = profit_usd_per_mw_year(
        out[price_column].to_numpy(dtype=float), t, u, out[cost_column].to_numpy(dtype=float), kw, fee
    )
    return out
