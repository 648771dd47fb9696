"""Scenarios and sweeps: one validated set of assumptions -> cost, revenue, margin, break-evens.

A :class:`Scenario` names the hardware, the TCO basis, the price list, the token mix, the
utilization, the license terms and the throughput. :meth:`Scenario.evaluate` gives one row;
:func:`sweep` varies any fields over lists and returns a tidy table, one row per combination,
computed with numpy broadcasting (no Python loop over rows).

The arithmetic is that of :mod:`tokenomics.economics` and :mod:`tokenomics.cost.tco`; this module
only resolves catalog names and lays out the grid.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from tokenomics._validate import (
    check_fraction,
    check_nonnegative,
    check_positive,
    check_range,
    unknown_name_error,
)
from tokenomics.cost.tco import tco
from tokenomics.economics import (
    DEFAULT_CACHED_COST_RATIO,
    LicenseFee,
    TokenMix,
    _attribute,
    _breakeven_price,
    _breakeven_utilization,
    gross_margin_frac,
)
from tokenomics.units import HOURS_PER_YEAR, KW_PER_MW, SECONDS_PER_HOUR, TOKENS_PER_MTOK

__all__ = ["SWEEP_COLUMNS", "Scenario", "sweep"]


def _frac_open_low(name: str, value: Any) -> None:
    check_fraction(name, value, low_inclusive=False)


def _frac_open_high(name: str, value: Any) -> None:
    check_fraction(name, value, high_inclusive=False)


def _below_one(name: str, value: Any) -> None:
    check_range(name, value, low=-1e12, high=1.0, high_inclusive=False)


_NUMERIC_CHECKS: dict[str, Callable[[str, Any], None]] = {
    "cost_usd_per_gpu_hour": check_nonnegative,
    "facility_power_kw_per_accelerator": check_positive,
    "input_usd_per_mtok": check_nonnegative,
    "cached_input_usd_per_mtok": check_nonnegative,
    "output_usd_per_mtok": check_nonnegative,
    "input_share_frac": check_fraction,
    "isl_tokens": check_nonnegative,
    "osl_tokens": check_nonnegative,
    "cache_hit_frac": check_fraction,
    "utilization_frac": _frac_open_low,
    "throughput_tok_per_s_per_gpu": check_positive,
    "interactivity_tok_per_s_per_user": check_positive,
    "prefill_throughput_tok_per_s_per_gpu": check_positive,
    "decode_throughput_tok_per_s_per_gpu": check_positive,
    "cached_cost_ratio": check_fraction,
    "license_fee_frac": _frac_open_high,
    "license_usd_per_mtok": check_nonnegative,
    "license_usd_per_gpu_hour": check_nonnegative,
    "target_margin_frac": _below_one,
}
"""Numeric fields and their element-wise checks (shared by the model and by sweeps)."""

_CATEGORICAL = (
    "hardware",
    "model",
    "tco_basis",
    "tco_profile",
    "tco_vintage",
    "tco_tier",
    "price_provider",
    "cost_split_rule",
)

SWEEP_COLUMNS: dict[str, str] = {
    "hardware_id": "catalog hardware id",
    "model_id": "catalog model id (None when prices are explicit)",
    "tco_basis": "'itemised' (profile), 'published' (vintage + tier) or 'explicit'",
    "tco_profile": "TCO profile of an itemised basis",
    "tco_vintage": "published set of a published basis",
    "tco_tier": "published tier of a published basis",
    "cost_usd_per_gpu_hour": "TCO per allocated accelerator-hour [USD/GPU-hour]",
    "facility_power_kw_per_accelerator": "facility power per accelerator, IT x PUE [kW]",
    "throughput_tok_per_s_per_gpu": "input + output tokens/s per accelerator while busy",
    "utilization_frac": "busy fraction of paid hours",
    "input_share_frac": "input (cached included) share of all tokens",
    "cache_hit_frac": "cached share of input tokens",
    "input_usd_per_mtok": "uncached input price [USD/Mtok]",
    "cached_input_usd_per_mtok": "cached input price used (default 0.1 x input) [USD/Mtok]",
    "output_usd_per_mtok": "output price [USD/Mtok]",
    "blended_price_usd_per_mtok": "revenue per Mtok of all tokens [USD/Mtok]",
    "license_fee_frac": "revenue share paid as license fee",
    "license_usd_per_mtok": "license royalty per Mtok of all tokens [USD/Mtok]",
    "license_usd_per_gpu_hour": "fixed license fee [USD/GPU-hour]",
    "target_margin_frac": "target gross margin of the break-even columns",
    "served_mtok_per_gpu_hour": "Mtok served per allocated GPU-hour",
    "cost_usd_per_mtok": "cost per Mtok of all tokens [USD/Mtok]",
    "input_cost_usd_per_mtok": "cost attributed to an uncached input Mtok [USD/Mtok]",
    "cached_input_cost_usd_per_mtok": "cost attributed to a cached input Mtok [USD/Mtok]",
    "output_cost_usd_per_mtok": "cost attributed to an output Mtok [USD/Mtok]",
    "revenue_usd_per_gpu_hour": "revenue per allocated GPU-hour [USD/GPU-hour]",
    "license_fee_usd_per_gpu_hour": "all license fees per GPU-hour [USD/GPU-hour]",
    "profit_usd_per_gpu_hour": "revenue - license - TCO [USD/GPU-hour]",
    "gross_margin_frac": "profit / revenue",
    "profit_usd_per_gpu_year": "profit per accelerator-year [USD/GPU-year]",
    "profit_usd_per_mw_year": "profit per MW of facility power per year [USD/MW-year]",
    "breakeven_utilization_frac": "utilization giving the target margin (NaN: none in (0, 1])",
    "breakeven_price_usd_per_mtok": "blended price giving the target margin (NaN: none)",
}
"""Columns of :func:`sweep` and :meth:`Scenario.evaluate`, with their meaning [unit]."""


class Scenario(BaseModel):
    """One set of serving assumptions, validated on construction.

    Parameters
    ----------
    hardware : str
        Hardware id or alias (resolved to the catalog id).
    model : str, optional
        Model id or alias; required when prices come from the catalog.
    tco_basis : {"itemised", "published"}, default "itemised"
        TCO from the catalog's inputs and ``tco_profile``, or a published figure
        (``tco_vintage``, ``tco_tier``). Ignored when ``cost_usd_per_gpu_hour`` is given.
    tco_profile : str, default "hyperscaler"
        Operator profile of an itemised TCO.
    tco_vintage, tco_tier : str, default "2026-09", "hyperscaler"
        Published set and tier of a published TCO.
    cost_usd_per_gpu_hour : float, optional
        Explicit TCO [USD/GPU-hour], >= 0; overrides the basis.
    facility_power_kw_per_accelerator : float, optional
        Facility power per accelerator for per-MW figures [kW]; default from the TCO result.
    price_provider : str, optional
        Provider of the catalog price (first-party/latest when None).
    input_usd_per_mtok, cached_input_usd_per_mtok, output_usd_per_mtok : float, optional
        Explicit prices [USD/Mtok], >= 0; each replaces the catalog price. A missing cached
        price is ``0.1 x input`` (:data:`tokenomics.economics.DEFAULT_CACHED_COST_RATIO`).
    input_share_frac : float, optional
        Input (cached included) share of all tokens, in [0, 1]. Give it, or ``isl_tokens``
        and ``osl_tokens``.
    isl_tokens, osl_tokens : float, optional
        Input and output sequence length [tokens]; ``input_share = isl / (isl + osl)``.
    cache_hit_frac : float, default 0
        Cached share of the input tokens, in [0, 1].
    utilization_frac : float
        Busy fraction of paid hours, in (0, 1]. Required.
    throughput_tok_per_s_per_gpu : float
        Input + output tokens/s per accelerator while busy, > 0. Give it explicitly, or give
        ``throughput_curve=`` (a :class:`tokenomics.curves.curve.ThroughputCurve` of total
        throughput) with ``interactivity_tok_per_s_per_user``: the throughput is then read off
        the curve at construction (no extrapolation beyond the measured range).
    interactivity_tok_per_s_per_user : float, optional
        The interactivity the throughput is read at [tok/s/user], > 0.
    cost_split_rule : {"price", "gpu_time"}, default "price"
        Attribution of the cost to token classes (see
        :func:`tokenomics.economics.cost_split_per_mtok`); ``"gpu_time"`` needs
        ``prefill_throughput_tok_per_s_per_gpu`` and ``decode_throughput_tok_per_s_per_gpu``.
    prefill_throughput_tok_per_s_per_gpu, decode_throughput_tok_per_s_per_gpu : float, optional
        Phase throughputs for the ``gpu_time`` rule [tok/s/GPU].
    cached_cost_ratio : float, default 0.1
        Cost weight of a cached input token relative to an uncached one, in [0, 1].
    license_fee_frac : float, default 0
        Revenue share paid as license fee, in [0, 1) (0.30, not 30).
    license_usd_per_mtok : float, default 0
        Royalty per Mtok of all tokens [USD/Mtok].
    license_usd_per_gpu_hour : float, default 0
        Fixed license fee [USD/GPU-hour].
    target_margin_frac : float, default 0
        Target gross margin of the break-even columns, < 1.

    Notes
    -----
    ``license=LicenseFee(...)``, ``token_mix=TokenMix(...)`` and ``throughput_curve=...``
    are accepted at construction and unpacked into the flat fields above (so that
    :func:`sweep` can vary each of them). Sweeping ``interactivity_tok_per_s_per_user`` does
    not re-read a curve; sweep ``throughput_tok_per_s_per_gpu`` instead.

    Examples
    --------
    >>> import tokenomics as tk
    >>> s = tk.Scenario(hardware="gb200", cost_usd_per_gpu_hour=2.0, input_usd_per_mtok=0.5,
    ...                 output_usd_per_mtok=2.0, input_share_frac=0.5, utilization_frac=0.6,
    ...                 throughput_tok_per_s_per_gpu=1000.0, license_fee_frac=0.3)
    >>> row = s.evaluate()
    >>> round(float(row["gross_margin_frac"].iloc[0]), 4)
    -0.0407
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    hardware: str
    model: str | None = None
    tco_basis: Literal["itemised", "published"] = "itemised"
    tco_profile: str = "hyperscaler"
    tco_vintage: str = "2026-09"
    tco_tier: str = "hyperscaler"
    cost_usd_per_gpu_hour: float | None = None
    facility_power_kw_per_accelerator: float | None = None
    price_provider: str | None = None
    input_usd_per_mtok: float | None = None
    cached_input_usd_per_mtok: float | None = None
    output_usd_per_mtok: float | None = None
    input_share_frac: float | None = None
    isl_tokens: float | None = None
    osl_tokens: float | None = None
    cache_hit_frac: float = 0.0
    utilization_frac: float
    throughput_tok_per_s_per_gpu: float
    interactivity_tok_per_s_per_user: float | None = None
    cost_split_rule: Literal["price", "gpu_time"] = "price"
    prefill_throughput_tok_per_s_per_gpu: float | None = None
    decode_throughput_tok_per_s_per_gpu: float | None = None
    cached_cost_ratio: float = DEFAULT_CACHED_COST_RATIO
    license_fee_frac: float = 0.0
    license_usd_per_mtok: float = 0.0
    license_usd_per_gpu_hour: float = 0.0
    target_margin_frac: float = 0.0

    @model_validator(mode="before")
    @classmethod
    def _unpack(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        data = dict(data)
        lic = data.pop("license", None)
        if lic is not None:
            lic = lic if isinstance(lic, LicenseFee) else LicenseFee.model_validate(lic)
            data.setdefault("license_fee_frac", lic.revenue_frac)
            data.setdefault("license_usd_per_mtok", lic.usd_per_mtok)
            data.setdefault("license_usd_per_gpu_hour", lic.usd_per_gpu_hour)
        curve = data.pop("throughput_curve", None)
        if curve is not None:
            data["throughput_tok_per_s_per_gpu"] = _throughput_from_curve(curve, data)
        mix = data.pop("token_mix", None)
        if mix is not None:
            mix = mix if isinstance(mix, TokenMix) else TokenMix.model_validate(mix)
            data.setdefault("input_share_frac", mix.input_share_frac)
            data.setdefault("cache_hit_frac", mix.cache_hit_frac)
        return data

    @field_validator(*_NUMERIC_CHECKS)
    @classmethod
    def _numeric(cls, value: float | None, info: Any) -> float | None:
        if value is not None:
            _NUMERIC_CHECKS[info.field_name](info.field_name, value)
        return value

    @field_validator("hardware")
    @classmethod
    def _hardware(cls, value: str) -> str:
        from tokenomics.catalog import resolve_hardware_id

        return resolve_hardware_id(value)

    @field_validator("model")
    @classmethod
    def _model(cls, value: str | None) -> str | None:
        from tokenomics.catalog import resolve_model_id

        return None if value is None else resolve_model_id(value)

    @field_validator("tco_profile")
    @classmethod
    def _profile(cls, value: str) -> str:
        from tokenomics.catalog import resolve_profile_id

        return resolve_profile_id(value)

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        if self.input_share_frac is None and (self.isl_tokens is None or self.osl_tokens is None):
            raise ValueError("token mix missing: give input_share_frac, or isl_tokens and osl_tokens")
        if self.input_share_frac is not None and self.isl_tokens is not None:
            raise ValueError("give input_share_frac or isl_tokens/osl_tokens, not both")
        if self.isl_tokens is not None and self.osl_tokens is not None:
            check_positive("isl_tokens + osl_tokens", self.isl_tokens + self.osl_tokens)
        if (self.input_usd_per_mtok is None or self.output_usd_per_mtok is None) and (self.model is None):
            raise ValueError(
                "prices missing: give model= (catalog price) or input_usd_per_mtok and output_usd_per_mtok"
            )
        if self.cost_split_rule == "gpu_time" and (
            self.prefill_throughput_tok_per_s_per_gpu is None or self.decode_throughput_tok_per_s_per_gpu is None
        ):
            raise ValueError(
                "cost_split_rule='gpu_time' needs prefill_throughput_tok_per_s_per_gpu and "
                "decode_throughput_tok_per_s_per_gpu"
            )
        return self

    @property
    def license(self) -> LicenseFee:
        """The license terms as a :class:`~tokenomics.economics.LicenseFee`."""
        return LicenseFee(
            revenue_frac=self.license_fee_frac,
            usd_per_mtok=self.license_usd_per_mtok,
            usd_per_gpu_hour=self.license_usd_per_gpu_hour,
        )

    @property
    def token_mix(self) -> TokenMix:
        """The token mix as a :class:`~tokenomics.economics.TokenMix`."""
        if self.input_share_frac is not None:
            return TokenMix(input_share_frac=self.input_share_frac, cache_hit_frac=self.cache_hit_frac)
        return TokenMix.from_isl_osl(float(self.isl_tokens or 0.0), float(self.osl_tokens or 0.0), self.cache_hit_frac)

    def evaluate(self) -> pd.DataFrame:
        """Compute cost, revenue, license fee, margin and break-evens of this scenario.

        Returns
        -------
        pandas.DataFrame
            One row with the columns of :data:`SWEEP_COLUMNS` (same as ``sweep(self)``).
        """
        return sweep(self)


def _throughput_from_curve(curve: Any, data: dict[str, Any]) -> float:
    """Read the total throughput off a ThroughputCurve at the scenario's interactivity."""
    if data.get("throughput_tok_per_s_per_gpu") is not None:
        raise ValueError("give throughput_tok_per_s_per_gpu or throughput_curve, not both")
    x = data.get("interactivity_tok_per_s_per_user")
    if x is None:
        raise ValueError("throughput_curve needs interactivity_tok_per_s_per_user")
    column = getattr(curve, "throughput_column", None)
    if column != "throughput_tok_per_s_per_gpu":
        raise ValueError(
            f"throughput_curve gives {column!r}; the scenario needs total (input + output) throughput_tok_per_s_per_gpu"
        )
    return float(curve.throughput_at(x, extrapolate="raise"))


def _resolve(scn: Scenario, tco_cache: dict[tuple[Any, ...], Any]) -> dict[str, Any]:
    """Catalog-derived scalars of one scenario: TCO, facility power and prices."""
    row: dict[str, Any] = {
        "hardware_id": scn.hardware,
        "model_id": scn.model,
        "tco_basis": scn.tco_basis,
        "tco_profile": scn.tco_profile if scn.tco_basis == "itemised" else None,
        "tco_vintage": scn.tco_vintage if scn.tco_basis == "published" else None,
        "tco_tier": scn.tco_tier if scn.tco_basis == "published" else None,
    }
    need_tco = scn.cost_usd_per_gpu_hour is None or scn.facility_power_kw_per_accelerator is None
    result = None
    if need_tco:
        key = (scn.hardware, scn.tco_basis, scn.tco_profile, scn.tco_vintage, scn.tco_tier)
        if key not in tco_cache:
            if scn.tco_basis == "published":
                tco_cache[key] = tco(scn.hardware, basis="published", vintage=scn.tco_vintage, tier=scn.tco_tier)
            else:
                tco_cache[key] = tco(scn.hardware, scn.tco_profile)
        result = tco_cache[key]
    if scn.cost_usd_per_gpu_hour is not None:
        row.update(tco_basis="explicit", tco_profile=None, tco_vintage=None, tco_tier=None)
        row["cost_usd_per_gpu_hour"] = scn.cost_usd_per_gpu_hour
    else:
        assert result is not None
        row["cost_usd_per_gpu_hour"] = result.usd_per_gpu_hour
    fac = scn.facility_power_kw_per_accelerator
    if fac is None and result is not None:
        fac = result.facility_power_kw_per_accelerator
    row["facility_power_kw_per_accelerator"] = math.nan if fac is None else fac

    p_in, p_c, p_out = scn.input_usd_per_mtok, scn.cached_input_usd_per_mtok, scn.output_usd_per_mtok
    if p_in is None or p_out is None:
        from tokenomics.catalog import price

        assert scn.model is not None
        listed = price(scn.model, scn.price_provider)
        p_in = listed.input_usd_per_mtok if p_in is None else p_in
        p_out = listed.output_usd_per_mtok if p_out is None else p_out
        if p_c is None and scn.input_usd_per_mtok is None:
            p_c = listed.cached_input_usd_per_mtok
    row["input_usd_per_mtok"] = p_in
    row["cached_input_usd_per_mtok"] = math.nan if p_c is None else p_c
    row["output_usd_per_mtok"] = p_out
    return row


def _as_axis(name: str, values: Any) -> list[Any] | np.ndarray:
    if isinstance(values, str) or not isinstance(values, (list, tuple, np.ndarray, pd.Series, pd.Index, range)):
        values = [values]
    if name in _CATEGORICAL:
        return list(values)
    arr = np.asarray(values.to_numpy() if isinstance(values, (pd.Series, pd.Index)) else values, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"sweep axis {name} must be a non-empty 1-d list of numbers")
    return arr


def sweep(scenario: Scenario, **axes: Any) -> pd.DataFrame:
    """Evaluate a scenario over every combination of the given field values.

    Each keyword names a :class:`Scenario` field and gives a list of values; the result has one
    row per combination. Catalog look-ups (hardware, model, TCO basis/profile/tier, price
    provider) run once per distinct combination of those fields; the numeric fields
    (utilization, throughput, license terms, prices, token mix, ...) are laid out with numpy
    broadcasting, so millions of rows cost a few vectorised passes.

    Parameters
    ----------
    scenario : Scenario
        The base assumptions; fields not swept keep their values.
    **axes : list
        Field name -> values, e.g. ``utilization_frac=[0.3, 0.6, 0.9]``,
        ``license_fee_frac=[0, 0.3]``, ``hardware=["gb200", "mi355x"]``. A scalar is a
        one-value axis. Every value is validated as on the scenario (element-wise).

    Returns
    -------
    pandas.DataFrame
        Tidy table, columns :data:`SWEEP_COLUMNS` (unit-suffixed). Rows are ordered with the
        catalog fields outermost (in keyword order), then the numeric fields in keyword order
        (the last one varies fastest). ``breakeven_*`` columns are NaN where no value in the
        valid range reaches the target margin (``NaN`` is exactly that mask: inputs are
        validated to be non-NaN); ``profit_usd_per_mw_year`` is NaN where no facility power is
        known.

    Raises
    ------
    KeyError
        Unknown field name, or unknown hardware/model/profile/tier/vintage values.
    ValueError
        Out-of-range values (field, value and valid range named; percent hints), or a
        combination that is not a valid scenario.

    Examples
    --------
    >>> import tokenomics as tk
    >>> s = tk.Scenario(hardware="gb200", cost_usd_per_gpu_hour=2.0, input_usd_per_mtok=0.5,
    ...                 output_usd_per_mtok=2.0, input_share_frac=0.5, utilization_frac=0.6,
    ...                 throughput_tok_per_s_per_gpu=1000.0)
    >>> df = tk.sweep(s, utilization_frac=[0.3, 0.6, 0.9], license_fee_frac=[0.0, 0.3])
    >>> len(df)
    6
    >>> df.loc[df["license_fee_frac"] == 0.0, "gross_margin_frac"].round(4).tolist()
    [-0.4815, 0.2593, 0.5062]
    """
    fields = list(Scenario.model_fields)
    for name in axes:
        if name not in fields:
            raise unknown_name_error("Scenario field", name, fields)
    cat_axes = {k: _as_axis(k, v) for k, v in axes.items() if k in _CATEGORICAL}
    for k, v in cat_axes.items():
        if len(v) == 0:
            raise ValueError(f"sweep axis {k} is empty")
    num_axes: dict[str, np.ndarray] = {}
    for k, v in axes.items():
        if k in _CATEGORICAL:
            continue
        arr = _as_axis(k, v)
        assert isinstance(arr, np.ndarray)
        _NUMERIC_CHECKS[k](k, arr)
        num_axes[k] = arr

    base = scenario.model_dump()
    # a probe scenario per categorical combination validates names and fixed fields; numeric
    # axes take their first value there and are checked element-wise above.
    probe_num = {k: float(v[0]) for k, v in num_axes.items()}
    if "isl_tokens" in num_axes or "osl_tokens" in num_axes:
        probe_num.setdefault("input_share_frac", None)  # type: ignore[arg-type]
    tco_cache: dict[tuple[Any, ...], Any] = {}
    cat_rows: list[dict[str, Any]] = []
    scenarios: list[Scenario] = []
    for combo in itertools.product(*cat_axes.values()):
        update = dict(zip(cat_axes, combo, strict=True))
        scn = Scenario.model_validate({**base, **update, **probe_num})
        scenarios.append(scn)
        cat_rows.append(_resolve(scn, tco_cache))
    n_cat = len(cat_rows)
    shape = (n_cat, *(a.size for a in num_axes.values()))
    ndim = len(shape)

    def grid(values: np.ndarray, axis: int) -> np.ndarray:
        dims = [1] * ndim
        dims[axis] = values.size
        return values.reshape(dims)

    def param(name: str, per_cat: list[Any]) -> np.ndarray:
        """Axis values when swept, else the per-category values (shape (K, 1, ..., 1))."""
        if name in num_axes:
            return grid(num_axes[name], 1 + list(num_axes).index(name))
        return grid(np.asarray([math.nan if v is None else v for v in per_cat], dtype=float), 0)

    def from_scn(name: str) -> np.ndarray:
        return param(name, [getattr(s, name) for s in scenarios])

    def from_row(name: str) -> np.ndarray:
        return param(name, [r[name] for r in cat_rows])

    cost = from_row("cost_usd_per_gpu_hour")
    if "cost_usd_per_gpu_hour" in num_axes:
        for r in cat_rows:
            r.update(tco_basis="explicit", tco_profile=None, tco_vintage=None, tco_tier=None)
    fac = from_row("facility_power_kw_per_accelerator")
    p_in = from_row("input_usd_per_mtok")
    p_c = from_row("cached_input_usd_per_mtok")
    p_out = from_row("output_usd_per_mtok")
    p_c = np.where(np.isnan(p_c), DEFAULT_CACHED_COST_RATIO * p_in, p_c)
    thr = from_scn("throughput_tok_per_s_per_gpu")
    util = from_scn("utilization_frac")
    hit = from_scn("cache_hit_frac")
    if "isl_tokens" in num_axes or "osl_tokens" in num_axes or scenario.input_share_frac is None:
        isl, osl = from_scn("isl_tokens"), from_scn("osl_tokens")
        check_positive("isl_tokens + osl_tokens", isl + osl)
        s_in = isl / (isl + osl)
    else:
        s_in = from_scn("input_share_frac")
    f = from_scn("license_fee_frac")
    rho = from_scn("license_usd_per_mtok")
    fixed = from_scn("license_usd_per_gpu_hour")
    target = from_scn("target_margin_frac")
    k_ratio = from_scn("cached_cost_ratio")

    # --- the arithmetic, broadcast over the grid (formulas of tokenomics.economics) ---
    q = thr * (util * (SECONDS_PER_HOUR / TOKENS_PER_MTOK))
    blended = s_in * ((1.0 - hit) * p_in + hit * p_c) + (1.0 - s_in) * p_out
    check_positive("blended_price_usd_per_mtok", blended)
    revenue = q * blended
    license_fee = f * revenue + rho * q + fixed
    profit = revenue - license_fee - cost
    margin = gross_margin_frac(blended, thr, util, cost, f, rho, fixed)
    cost_mtok = cost / q
    rules = [s.cost_split_rule for s in scenarios]
    if all(r == "price" for r in rules):
        w_in, w_c, w_out = p_in, p_c, p_out
    else:
        pre = from_scn("prefill_throughput_tok_per_s_per_gpu")
        dec = from_scn("decode_throughput_tok_per_s_per_gpu")
        use_time = grid(np.asarray([r == "gpu_time" for r in rules]), 0)
        w_in = np.where(use_time, 1.0 / pre, p_in)
        w_c = np.where(use_time, k_ratio / pre, p_c)
        w_out = np.where(use_time, 1.0 / dec, p_out)
    _, c_in, c_c, c_out = _attribute(cost_mtok, s_in, hit, w_in, w_c, w_out)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_mw = profit * HOURS_PER_YEAR * KW_PER_MW / fac
    be_util, bad_u = _breakeven_utilization(blended, thr, cost, f, rho, fixed, target)
    be_util = np.where(bad_u, np.nan, be_util)
    be_price, bad_p = _breakeven_price(thr, util, cost, f, rho, fixed, target)
    be_price = np.where(bad_p, np.nan, be_price)

    def col(values: Any) -> np.ndarray:
        return np.ascontiguousarray(np.broadcast_to(values, shape)).reshape(-1)

    out: dict[str, Any] = {}
    codes = col(grid(np.arange(n_cat), 0))
    for name in ("hardware_id", "model_id", "tco_basis", "tco_profile", "tco_vintage", "tco_tier"):
        labels = [r[name] for r in cat_rows]
        cats = list(dict.fromkeys(v for v in labels if v is not None))
        lookup = np.asarray([cats.index(v) if v is not None else -1 for v in labels])
        out[name] = pd.Categorical.from_codes(lookup[codes], categories=cats)
    numeric = {
        "cost_usd_per_gpu_hour": cost,
        "facility_power_kw_per_accelerator": fac,
        "throughput_tok_per_s_per_gpu": thr,
        "utilization_frac": util,
        "input_share_frac": s_in,
        "cache_hit_frac": hit,
        "input_usd_per_mtok": p_in,
        "cached_input_usd_per_mtok": p_c,
        "output_usd_per_mtok": p_out,
        "blended_price_usd_per_mtok": blended,
        "license_fee_frac": f,
        "license_usd_per_mtok": rho,
        "license_usd_per_gpu_hour": fixed,
        "target_margin_frac": target,
        "served_mtok_per_gpu_hour": q,
        "cost_usd_per_mtok": cost_mtok,
        "input_cost_usd_per_mtok": c_in,
        "cached_input_cost_usd_per_mtok": c_c,
        "output_cost_usd_per_mtok": c_out,
        "revenue_usd_per_gpu_hour": revenue,
        "license_fee_usd_per_gpu_hour": license_fee,
        "profit_usd_per_gpu_hour": profit,
        "gross_margin_frac": margin,
        "profit_usd_per_gpu_year": profit * HOURS_PER_YEAR,
        "profit_usd_per_mw_year": per_mw,
        "breakeven_utilization_frac": be_util,
        "breakeven_price_usd_per_mtok": be_price,
    }
    for name, values in numeric.items():
        out[name] = col(values)
    return pd.DataFrame(out, columns=list(SWEEP_COLUMNS))
