"""N-d sweeps as an xarray Dataset: every input an axis, every economics kernel a variable.

Each input is a number (fixed), a sequence (a new dimension named after the input), a mapping
``label -> value`` or a :class:`pandas.Series` (a labelled dimension, e.g. systems: a Series is
labelled by its index and its dimension named after the index, or after the input where the
index has no name), or an :class:`xarray.DataArray` with its own dims (several inputs may share
a dim, e.g. cost and throughput per ``hardware_id``, as do Series whose indexes share a name). The
kernels of :mod:`tokenomics.economics` broadcast the axes by name; with ``chunks`` the arrays are
dask-backed and the Dataset stays lazy until computed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from tokenomics._validate import check_numeric
from tokenomics.cost.energy import energy_j_per_token, tok_per_s_per_mw
from tokenomics.economics import (
    breakeven_utilization_frac,
    cost_per_mtok,
    gross_margin_frac,
    profit_usd_per_gpu_hour,
    profit_usd_per_mw_year,
    revenue_usd_per_gpu_hour,
)

__all__ = ["GRID_VARIABLES", "economics_grid"]

GRID_VARIABLES: dict[str, str] = {
    "cost_usd_per_mtok": "cost per Mtok of all tokens [USD/Mtok]",
    "revenue_usd_per_gpu_hour": "revenue per accelerator-hour [USD/GPU-hour]",
    "profit_usd_per_gpu_hour": "revenue - license - TCO per accelerator-hour [USD/GPU-hour]",
    "gross_margin_frac": "profit / revenue",
    "breakeven_utilization_frac": "utilization at zero margin; NaN where no utilization <= 1 breaks even",
    "energy_j_per_token": "facility energy per served token, idle hours included [J/token] (NaN: no power given)",
    "tok_per_s_per_mw": "served tokens per second per MW of facility power [tok/s/MW] (NaN: no power given)",
    "profit_usd_per_mw_year": "profit per MW of facility power per year [USD/MW-year] (NaN: no power given)",
}
"""Variables of :func:`economics_grid`."""


def _axis(name: str, value: Any, chunks: int | None) -> Any:
    import xarray as xr  # heavy optional import: only for labelled grids

    if isinstance(value, xr.DataArray):
        arr = value
    elif isinstance(value, pd.Series):
        if isinstance(value.index, pd.MultiIndex):
            raise ValueError(f"{name}: a Series with a MultiIndex spans several dimensions; give a DataArray")
        dim = str(value.index.name) if value.index.name is not None else name
        check_numeric(name, value)
        arr = xr.DataArray(value.to_numpy(dtype=float, na_value=np.nan), dims=dim, coords={dim: value.index})
    elif isinstance(value, Mapping):
        arr = xr.DataArray(np.asarray(list(value.values()), dtype=float), dims=name,
                           coords={name: [str(k) for k in value]})
    elif isinstance(value, Sequence | np.ndarray) and not isinstance(value, str):
        vals = np.asarray(value, dtype=float)
        if vals.ndim != 1:
            raise ValueError(f"{name}: give a 1-d sequence (a new dimension) or a DataArray, not shape {vals.shape}")
        arr = xr.DataArray(vals, dims=name, coords={name: vals})
    else:
        return float(value)
    return arr.chunk(chunks) if chunks is not None else arr


def economics_grid(
    cost_usd_per_gpu_hour: Any,
    throughput_tok_per_s_per_gpu: Any,
    utilization_frac: Any,
    price_usd_per_mtok: Any,
    license_fee_frac: Any = 0.0,
    *,
    facility_power_kw_per_accelerator: Any = None,
    chunks: int | None = None,
) -> Any:
    """Evaluate cost, revenue, profit, margin, break-even utilization and energy on a labelled N-d grid.

    Parameters
    ----------
    cost_usd_per_gpu_hour : number, sequence, mapping, Series or DataArray
        TCO per accelerator-hour, > 0 [USD/GPU-hour].
    throughput_tok_per_s_per_gpu : number, sequence, mapping, Series or DataArray
        Tokens per second per accelerator while busy, > 0 [tok/s/GPU].
    utilization_frac : number, sequence, mapping, Series or DataArray
        Busy fraction of paid hours, in (0, 1].
    price_usd_per_mtok : number, sequence, mapping, Series or DataArray
        Blended price, > 0 [USD/Mtok].
    license_fee_frac : number, sequence, mapping, Series or DataArray, default 0
        Revenue share, in [0, 1).
    facility_power_kw_per_accelerator : number, sequence, mapping, Series or DataArray, optional
        Facility power per accelerator (IT x PUE), > 0 [kW]: fills the energy variables
        (all NaN without it).
    chunks : int, optional
        Chunk size of every dimension: the Dataset is dask-backed and lazy.

    Returns
    -------
    xarray.Dataset
        The :data:`GRID_VARIABLES` over the union of the inputs' dimensions.

    Raises
    ------
    ValueError
        Invalid values (for lazy grids: when computed), a multi-dimensional plain array, a
        Series with a MultiIndex, or two inputs sharing a dimension with different labels.

    Examples
    --------
    >>> ds = economics_grid({"gb200": 2.5, "b200": 2.0}, 1000.0, [0.4, 0.8], 4.0)
    >>> ds["gross_margin_frac"].dims
    ('cost_usd_per_gpu_hour', 'utilization_frac')
    >>> round(float(ds["cost_usd_per_mtok"].sel(cost_usd_per_gpu_hour="b200", utilization_frac=0.8)), 4)
    0.6944
    """
    import xarray as xr  # heavy optional import: only for labelled grids

    k = _axis("cost_usd_per_gpu_hour", cost_usd_per_gpu_hour, chunks)
    t = _axis("throughput_tok_per_s_per_gpu", throughput_tok_per_s_per_gpu, chunks)
    u = _axis("utilization_frac", utilization_frac, chunks)
    p = _axis("price_usd_per_mtok", price_usd_per_mtok, chunks)
    f = _axis("license_fee_frac", license_fee_frac, chunks)
    kw = None
    if facility_power_kw_per_accelerator is not None:
        kw = _axis("facility_power_kw_per_accelerator", facility_power_kw_per_accelerator, chunks)
    _check_shared_dims({"cost_usd_per_gpu_hour": k, "throughput_tok_per_s_per_gpu": t, "utilization_frac": u,
                        "price_usd_per_mtok": p, "license_fee_frac": f, "facility_power_kw_per_accelerator": kw})
    if not any(isinstance(v, xr.DataArray) for v in (k, t, u, p, f)):
        k = xr.DataArray(k)
    data = {
        "cost_usd_per_mtok": cost_per_mtok(k, t, u),
        "revenue_usd_per_gpu_hour": revenue_usd_per_gpu_hour(t, u, p) if _any_xr(t, u, p)
        else xr.DataArray(revenue_usd_per_gpu_hour(t, u, p)),
        "profit_usd_per_gpu_hour": profit_usd_per_gpu_hour(p, t, u, k, f),
        "gross_margin_frac": gross_margin_frac(p, t, u, k, f),
        "breakeven_utilization_frac": breakeven_utilization_frac(p, t, k, f, on_infeasible="nan"),
    }
    axes = [k, t, u, p, f]
    if kw is not None:
        axes.append(kw)
        data["energy_j_per_token"] = energy_j_per_token(kw, t, u)
        data["tok_per_s_per_mw"] = tok_per_s_per_mw(t, kw, u)
        data["profit_usd_per_mw_year"] = profit_usd_per_mw_year(p, t, u, k, kw, f)
    else:  # the variables are always there; without a power figure they are unknown, not zero
        for name in ("energy_j_per_token", "tok_per_s_per_mw", "profit_usd_per_mw_year"):
            data[name] = xr.full_like(data["profit_usd_per_gpu_hour"], np.nan)
    ds = xr.Dataset({name: arr.rename(None) if isinstance(arr, xr.DataArray) else xr.DataArray(arr)
                     for name, arr in data.items()})
    order = list(dict.fromkeys(d for v in axes if isinstance(v, xr.DataArray) for d in v.dims))
    ds = ds.transpose(*order)
    for name, text in GRID_VARIABLES.items():
        ds[name].attrs["description"] = text
    return ds


def _check_shared_dims(axes: Mapping[str, Any]) -> None:
    """Raise if two inputs share a dimension with different labels (no silent alignment)."""
    import xarray as xr  # heavy optional import: only for labelled grids

    seen: dict[str, tuple[str, Any]] = {}
    for name, arr in axes.items():
        if not isinstance(arr, xr.DataArray):
            continue
        for dim in arr.dims:
            labels = arr.indexes.get(dim)
            if labels is None:
                continue
            first = seen.setdefault(str(dim), (name, labels))
            if not _same_labels(first[1], labels):
                raise ValueError(f"{first[0]} and {name} share the dimension {dim!r} with different labels "
                                 f"([{_shown(first[1])}] and [{_shown(labels)}]); align them first (e.g. reindex)")


def _same_labels(a: Any, b: Any) -> bool:
    """Whether two indexes hold the same labels (in any order: xarray aligns them by label)."""
    return bool(a.equals(b) or (a.is_unique and b.is_unique and len(a) == len(b) and set(a) == set(b)))


def _shown(labels: Any, most: int = 6) -> str:
    head = ", ".join(repr(v) for v in list(labels)[:most])
    return head + (", ..." if len(labels) > most else "")


def _any_xr(*values: Any) -> bool:
    import xarray as xr  # heavy optional import: only for labelled grids

    return any(isinstance(v, xr.DataArray) for v in values)
