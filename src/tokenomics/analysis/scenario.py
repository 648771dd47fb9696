"""Scenarios and sweeps: one validated set of assumptions -> the chain's tidy rows.

A :class:`Scenario` names the model, the hardware, the workload, the TCO basis, the prices, the
utilization, the license terms and where the throughput comes from (the system's curve at an
interactivity, a curve you give, or a throughput you give). :meth:`Scenario.evaluate` gives one
row; :func:`sweep` varies any fields over lists and returns a tidy table, one row per
combination. Both run :func:`tokenomics.chain.evaluate`; this module only validates and lays
out the grid.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from tokenomics import catalog
from tokenomics._validate import (
    check_fraction,
    check_nonnegative,
    check_numeric,
    check_positive,
    check_target_margin,
    unknown_name_error,
)
from tokenomics.chain import (
    CHAIN_COLUMNS,
    DEFAULT_UTILIZATION_FRAC,
    check_throughput_plausible,
    evaluate,
)
from tokenomics.cost.tco import DEFAULT_TCO_BASIS, TcoBasis, TcoResult, tco_basis
from tokenomics.curves.curve import ThroughputCurve
from tokenomics.economics import LicenseFee, TokenMix, check_usd_per_mtok
from tokenomics.perf.hierarchy import check_kv_offload
from tokenomics.workload import DEFAULT_WORKLOAD, Workload, workload

__all__ = ["SWEEP_COLUMNS", "Scenario", "sweep"]


def _frac_open_low(name: str, value: Any) -> None:
    check_fraction(name, value, low_inclusive=False)


def _frac_open_high(name: str, value: Any) -> None:
    check_fraction(name, value, high_inclusive=False)




_NUMERIC_CHECKS: dict[str, Callable[[str, Any], None]] = {
    "cost_usd_per_gpu_hour": check_nonnegative,
    "facility_power_kw_per_accelerator": check_positive,
    # plausible ranges from the vocabulary: a $/token price written as $/Mtok, a throughput in
    # tok/ms or ktok/s written as tok/s, are errors
    "input_usd_per_mtok": check_usd_per_mtok,
    "cached_input_usd_per_mtok": check_usd_per_mtok,
    "output_usd_per_mtok": check_usd_per_mtok,
    "utilization_frac": _frac_open_low,
    "throughput_tok_per_s_per_gpu": check_throughput_plausible,
    "interactivity_tok_per_s_per_user": check_positive,
    "prefill_throughput_tok_per_s_per_gpu": check_throughput_plausible,
    "decode_throughput_tok_per_s_per_gpu": check_throughput_plausible,
    "cached_cost_ratio": check_fraction,
    "license_fee_frac": _frac_open_high,
    "license_usd_per_mtok": check_nonnegative,
    "license_usd_per_gpu_hour": check_nonnegative,
    "target_margin_frac": check_target_margin,
}
"""Numeric fields and their element-wise checks (shared by the model and by sweeps)."""

_CATEGORICAL = (
    "hardware",
    "model",
    "workload",
    "tco",
    "price_provider",
    "price_tier",
    "cost_split_rule",
    "kv_offload",
    "interactivity_tok_per_s_per_user",
)
"""Fields a sweep varies in an outer loop: each value re-reads the curve, the TCO or the prices."""

_TCO_KEYWORDS = ("tco_basis", "tco_profile", "tco_vintage", "tco_tier", "cost_usd_per_gpu_hour")

SWEEP_COLUMNS: dict[str, str] = CHAIN_COLUMNS
"""Columns of :func:`sweep` and :meth:`Scenario.evaluate`: :data:`tokenomics.chain.CHAIN_COLUMNS`."""


class Scenario(BaseModel):
    """One set of serving assumptions, validated on construction.

    Parameters
    ----------
    hardware : str
        Hardware id or alias (resolved to the catalog id).
    model : str, optional
        Model id or alias; needed for catalog prices, the curve and the default license fee.
    workload : Workload or str, default :data:`tokenomics.workload.DEFAULT_WORKLOAD`
        The traffic (a preset name or a :class:`~tokenomics.Workload`); it fixes the token mix
        and the curve.
    tco : TcoBasis or {"itemised", "published", "explicit"}, default itemised hyperscaler
        TCO basis. The keywords ``tco_basis``, ``tco_profile``, ``tco_vintage``, ``tco_tier``
        and ``cost_usd_per_gpu_hour`` are accepted instead and mapped by the one rule of
        :func:`tokenomics.cost.tco.tco_basis` (a vintage or tier implies published; a cost
        implies explicit; contradictions raise).
    facility_power_kw_per_accelerator : float, optional
        Facility power per accelerator for per-MW figures [kW]; default from the TCO result.
    price_provider : str, optional
        Provider of the catalog price (first-party/latest when None).
    price_tier : str, default "standard"
        Catalog price tier (``standard``, ``batch``, ``flex``, ``priority``, ``fast``,
        ``off-peak``); see :func:`tokenomics.price`.
    input_usd_per_mtok, cached_input_usd_per_mtok, output_usd_per_mtok : float, optional
        Explicit prices [USD/Mtok], >= 0; each replaces the catalog price. A missing cached
        price is ``0.1 x input`` (:data:`tokenomics.economics.DEFAULT_CACHED_COST_RATIO`).
    utilization_frac : float, default 0.6
        Busy fraction of paid hours, in (0, 1].
    interactivity_tok_per_s_per_user : float, optional
        Where the throughput is read off the curve [tok/s/user] (default 50).
    throughput_tok_per_s_per_gpu : float, optional
        Explicit input + output tokens/s per accelerator while busy, > 0; no curve is read
        (then no interactivity may be given).
    throughput_curve : ThroughputCurve, optional
        A curve of total throughput replacing the system's reference curve.
    cost_split_rule : {"price", "gpu_time"}, default "price"
        Attribution of the cost to token classes (see
        :func:`tokenomics.economics.cost_split_per_mtok`); ``"gpu_time"`` needs
        ``prefill_throughput_tok_per_s_per_gpu`` and ``decode_throughput_tok_per_s_per_gpu``.
    prefill_throughput_tok_per_s_per_gpu, decode_throughput_tok_per_s_per_gpu : float, optional
        Phase throughputs for the ``gpu_time`` rule [tok/s/GPU].
    cached_cost_ratio : float, optional
        Cost weight of a cached input token relative to an uncached one, in [0, 1]
        (``gpu_time`` rule only; given with the price rule it is an error). Default: the model's
        own ratio where a projected session curve carries it, else 0.1.
    license_fee_frac : float, optional
        Revenue share paid as license fee, in [0, 1) (0.30, not 30); default
        :func:`tokenomics.economics.policy.default_license_fee_frac` of the model (0 without one).
    license_usd_per_mtok : float, default 0
        Royalty per Mtok of all tokens [USD/Mtok].
    license_usd_per_gpu_hour : float, default 0
        Fixed license fee [USD/GPU-hour].
    target_margin_frac : float, default 0
        Target gross margin of the break-even columns, < 1.
    kv_offload : {"none", "dram", "ssd"}, default "none"
        Tiers below HBM that keep evicted session prefixes (session workloads only).

    Notes
    -----
    ``license=LicenseFee(...)`` is accepted at construction and unpacked into the flat fields
    above (so that :func:`sweep` can vary each of them).

    Examples
    --------
    >>> import tokenomics as tk
    >>> s = tk.Scenario(hardware="gb200", cost_usd_per_gpu_hour=2.0, input_usd_per_mtok=0.5,
    ...                 output_usd_per_mtok=2.0, workload=tk.Workload(name="1:1", isl_tokens=1, osl_tokens=1),
    ...                 throughput_tok_per_s_per_gpu=1000.0, license_fee_frac=0.3)
    >>> row = s.evaluate()
    >>> round(float(row["gross_margin_frac"].iloc[0]), 4)
    -0.0407
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    hardware: str
    model: str | None = None
    workload: Workload = workload(DEFAULT_WORKLOAD)
    tco: TcoBasis = DEFAULT_TCO_BASIS
    facility_power_kw_per_accelerator: float | None = None
    price_provider: str | None = None
    price_tier: str = "standard"
    input_usd_per_mtok: float | None = None
    cached_input_usd_per_mtok: float | None = None
    output_usd_per_mtok: float | None = None
    utilization_frac: float = DEFAULT_UTILIZATION_FRAC
    interactivity_tok_per_s_per_user: float | None = None
    throughput_tok_per_s_per_gpu: float | None = None
    throughput_curve: ThroughputCurve | None = None
    cost_split_rule: Literal["price", "gpu_time"] = "price"
    prefill_throughput_tok_per_s_per_gpu: float | None = None
    decode_throughput_tok_per_s_per_gpu: float | None = None
    cached_cost_ratio: float | None = None
    license_fee_frac: float | None = None
    license_usd_per_mtok: float = 0.0
    license_usd_per_gpu_hour: float = 0.0
    target_margin_frac: float = 0.0
    kv_offload: str = "none"

    @model_validator(mode="before")
    @classmethod
    def _unpack(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        data = dict(data)
        lic = data.pop("license", None)
        if lic is not None:
            lic = lic if isinstance(lic, LicenseFee) else LicenseFee.model_validate(lic)
            for name, value in (("license_fee_frac", lic.revenue_frac), ("license_usd_per_mtok", lic.usd_per_mtok),
                                ("license_usd_per_gpu_hour", lic.usd_per_gpu_hour)):
                if data.get(name) is not None:
                    raise ValueError(f"give license= or {name}=, not both")
                data[name] = value
        if "token_mix" in data or any(k in data for k in ("input_share_frac", "isl_tokens", "osl_tokens",
                                                           "cache_hit_frac")):
            raise ValueError(
                "the token mix comes from the workload: give workload= (a preset name or "
                "tk.Workload(isl_tokens=..., osl_tokens=..., cached_prefix_frac=...)) instead of "
                "input_share_frac / isl_tokens / osl_tokens / cache_hit_frac / token_mix"
            )
        keywords = {k: data.pop(k) for k in _TCO_KEYWORDS if k in data}
        if keywords or not isinstance(data.get("tco", DEFAULT_TCO_BASIS), TcoBasis):
            basis = data.pop("tco", None)
            if basis is not None and keywords.get("tco_basis") is not None:
                raise ValueError("give tco= or tco_basis=, not both")
            data["tco"] = tco_basis(
                basis if basis is not None else keywords.get("tco_basis"),
                profile=keywords.get("tco_profile"),
                vintage=keywords.get("tco_vintage"),
                tier=keywords.get("tco_tier"),
                usd_per_gpu_hour=keywords.get("cost_usd_per_gpu_hour"),
            )
        if "workload" in data:
            data["workload"] = workload(data["workload"])
        return data

    @field_validator(*(f for f in _NUMERIC_CHECKS if f != "cost_usd_per_gpu_hour"), mode="before")
    @classmethod
    def _not_text_or_flag(cls, value: Any, info: Any) -> Any:
        # before pydantic's coercion, which reads "2500" as 2500.0 and True as 1.0
        if value is not None:
            check_numeric(info.field_name, value)
        return value

    @field_validator(*(f for f in _NUMERIC_CHECKS if f != "cost_usd_per_gpu_hour"))
    @classmethod
    def _numeric(cls, value: float | None, info: Any) -> float | None:
        if value is not None:
            _NUMERIC_CHECKS[info.field_name](info.field_name, value)
        return value

    @field_validator("kv_offload")
    @classmethod
    def _kv_offload(cls, value: str) -> str:
        return check_kv_offload(value)

    @field_validator("hardware")
    @classmethod
    def _hardware(cls, value: str) -> str:
        return catalog.resolve_hardware_id(value)

    @field_validator("model")
    @classmethod
    def _model(cls, value: str | None) -> str | None:
        return None if value is None else catalog.resolve_model_id(value)

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        prices_given = self.input_usd_per_mtok is not None and self.output_usd_per_mtok is not None
        if not prices_given and self.model is None:
            raise ValueError("prices missing: give model= (catalog price) or input_usd_per_mtok and "
                             "output_usd_per_mtok")
        if prices_given and self.price_provider is not None:
            raise ValueError(f"price_provider={self.price_provider!r} is not used: input and output prices are given")
        if prices_given and self.price_tier != "standard":
            raise ValueError(f"price_tier={self.price_tier!r} is not used: input and output prices are given")
        if self.throughput_tok_per_s_per_gpu is not None:
            if self.interactivity_tok_per_s_per_user is not None:
                raise ValueError(
                    "interactivity_tok_per_s_per_user is only used to read throughput off a curve; with "
                    "throughput_tok_per_s_per_gpu given it would not be used: give one of them")
            if self.throughput_curve is not None:
                raise ValueError("give throughput_tok_per_s_per_gpu or throughput_curve, not both")
        elif self.throughput_curve is None and self.model is None:
            raise ValueError("throughput missing: give model= (its curve), throughput_curve= or "
                             "throughput_tok_per_s_per_gpu=")
        phases = (self.prefill_throughput_tok_per_s_per_gpu, self.decode_throughput_tok_per_s_per_gpu)
        if self.cost_split_rule == "gpu_time" and None in phases:
            raise ValueError(
                "cost_split_rule='gpu_time' needs prefill_throughput_tok_per_s_per_gpu and "
                "decode_throughput_tok_per_s_per_gpu"
            )
        if self.cost_split_rule == "price" and any(p is not None for p in phases):
            raise ValueError("prefill/decode throughputs are only used by cost_split_rule='gpu_time'")
        return self

    @property
    def license(self) -> LicenseFee:
        """The license terms as a :class:`~tokenomics.economics.LicenseFee` (fee resolved)."""
        fee = self.license_fee_frac
        if fee is None:
            fee = float(self.evaluate()["license_fee_frac"].iloc[0])
        return LicenseFee(revenue_frac=fee, usd_per_mtok=self.license_usd_per_mtok,
                          usd_per_gpu_hour=self.license_usd_per_gpu_hour)

    @property
    def token_mix(self) -> TokenMix:
        """The token mix of the workload as a :class:`~tokenomics.economics.TokenMix`."""
        return self.workload.token_mix()

    def evaluate(self) -> pd.DataFrame:
        """Run the chain (:func:`tokenomics.chain.evaluate`) on this scenario.

        Returns
        -------
        pandas.DataFrame
            One row with the columns of :data:`SWEEP_COLUMNS` (same as ``sweep(self)``).
        """
        return sweep(self)


def _chain_kwargs(scn: Scenario) -> dict[str, Any]:
    """Keyword arguments of :func:`tokenomics.chain.evaluate` for one scenario."""
    kw = scn.model_dump(exclude={"hardware", "model", "workload", "tco", "throughput_curve"})
    kw.update(model=scn.model, hardware=scn.hardware, workload=scn.workload, tco=scn.tco,
              throughput_curve=scn.throughput_curve)
    return kw


def _as_axis(name: str, values: Any) -> list[Any] | np.ndarray:
    if isinstance(values, pd.Series) and not values.index.equals(pd.RangeIndex(len(values))):
        labels = list(values.index[:3])
        raise ValueError(
            f"sweep axis {name} is a Series labelled {labels}{'...' if len(values) > 3 else ''}: a sweep's rows "
            "are combinations of values, named by their value columns, so the labels would be dropped; pass "
            "the values (series.to_list()), or use tk.evaluate for one row per labelled element")
    if isinstance(values, (str, TcoBasis, Workload)) or not isinstance(
            values, (list, tuple, np.ndarray, pd.Series, pd.Index, range)):
        values = [values]
    if name in _CATEGORICAL:
        out = list(values)
        if not out:
            raise ValueError(f"sweep axis {name} is empty")
        return out
    check_numeric(name, values)
    arr = np.asarray(values.to_numpy() if isinstance(values, (pd.Series, pd.Index)) else values, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"sweep axis {name} must be a non-empty 1-d list of numbers")
    return arr


def sweep(scenario: Scenario, **axes: Any) -> pd.DataFrame:
    """Evaluate a scenario over every combination of the given field values.

    Each keyword names a :class:`Scenario` field (or ``cost_usd_per_gpu_hour`` on an explicit
    TCO basis) and gives a list of values; the result has one row per combination, each the
    output of :func:`tokenomics.chain.evaluate`. Hardware, model, workload, TCO basis, price
    provider and interactivity are varied in an outer loop: every value re-reads the system's
    curve, TCO and prices. The numeric fields (utilization, license terms, prices, ...) are
    broadcast inside one call per outer combination, so millions of rows cost a few vectorised
    passes.

    Parameters
    ----------
    scenario : Scenario
        The base assumptions; fields not swept keep their values.
    **axes : list
        Field name -> values, e.g. ``utilization_frac=[0.3, 0.6, 0.9]``,
        ``hardware=["gb200", "mi355x"]``, ``interactivity_tok_per_s_per_user=[20, 80]``,
        ``workload=["8k/1k", "1k/8k"]``. A scalar is a one-value axis. Every value is
        validated as on the scenario (element-wise).

    Returns
    -------
    pandas.DataFrame
        Tidy table, columns :data:`SWEEP_COLUMNS` (unit-suffixed). Rows are ordered with the
        outer-loop fields outermost (in keyword order), then the numeric fields in keyword order
        (the last one varies fastest). ``breakeven_*`` columns are NaN where no value in the
        valid range reaches the target margin; ``profit_usd_per_mw_year`` is NaN where no
        facility power is known.

    Raises
    ------
    KeyError
        Unknown field name, or unknown hardware/model/workload/TCO/provider values.
    ValueError
        Out-of-range values (field, value and valid range named; percent hints); an axis the
        scenario would ignore or reuse wrongly: hardware, model or workload with an explicit
        throughput or a given curve (one throughput would serve every system), interactivity
        with an explicit throughput, ``cost_usd_per_gpu_hour`` on a non-explicit TCO basis; an
        interactivity outside a curve's range.

    Examples
    --------
    >>> import tokenomics as tk
    >>> s = tk.Scenario(hardware="gb200", cost_usd_per_gpu_hour=2.0, input_usd_per_mtok=0.5,
    ...                 output_usd_per_mtok=2.0, workload=tk.Workload(name="1:1", isl_tokens=1, osl_tokens=1),
    ...                 throughput_tok_per_s_per_gpu=1000.0)
    >>> df = tk.sweep(s, utilization_frac=[0.3, 0.6, 0.9], license_fee_frac=[0.0, 0.3])
    >>> len(df)
    6
    >>> df.loc[df["license_fee_frac"] == 0.0, "gross_margin_frac"].round(4).tolist()
    [-0.4815, 0.2593, 0.5062]
    """
    if not isinstance(scenario, Scenario):
        raise TypeError(f"sweep needs a Scenario, got {type(scenario).__name__}; build one with tk.Scenario(...)")
    fields = [*Scenario.model_fields, "cost_usd_per_gpu_hour"]
    for name in axes:
        if name not in fields:
            raise unknown_name_error("Scenario field", name, fields)
        if name == "throughput_curve":
            raise ValueError("throughput_curve cannot be swept: sweep hardware or interactivity instead")
    explicit = scenario.throughput_tok_per_s_per_gpu is not None or "throughput_tok_per_s_per_gpu" in axes
    for name in ("hardware", "model", "workload"):
        if name in axes and (explicit or scenario.throughput_curve is not None):
            what = "an explicit throughput_tok_per_s_per_gpu" if explicit else "a given throughput_curve"
            raise ValueError(
                f"sweeping {name} with {what} would reuse one throughput on every {name}; leave the "
                "throughput out to read each system's curve")
    if "interactivity_tok_per_s_per_user" in axes and explicit:
        raise ValueError("interactivity_tok_per_s_per_user is only used to read throughput off a curve; "
                         "it cannot be swept with an explicit throughput_tok_per_s_per_gpu")
    if "cost_usd_per_gpu_hour" in axes and scenario.tco.kind != "explicit":
        raise ValueError(f"sweeping cost_usd_per_gpu_hour replaces the scenario's TCO basis ({scenario.tco.label}); "
                         "build the scenario with cost_usd_per_gpu_hour= (explicit basis) to sweep it")
    cat_axes = {k: _as_axis(k, v) for k, v in axes.items() if k in _CATEGORICAL}
    num_axes: dict[str, np.ndarray] = {}
    for k, v in axes.items():
        if k in _CATEGORICAL:
            continue
        arr = _as_axis(k, v)
        assert isinstance(arr, np.ndarray)
        _NUMERIC_CHECKS[k](k, arr)
        num_axes[k] = arr
    if "interactivity_tok_per_s_per_user" in cat_axes:
        check_positive("interactivity_tok_per_s_per_user",
                       np.asarray(cat_axes["interactivity_tok_per_s_per_user"], dtype=float))
    grids = [g.reshape(-1) for g in np.meshgrid(*num_axes.values(), indexing="ij")] if num_axes else []
    base = scenario.model_dump()
    base["tco"] = scenario.tco
    base["workload"] = scenario.workload
    first = {k: float(v[0]) for k, v in num_axes.items() if k != "cost_usd_per_gpu_hour"}
    tco_cache: dict[tuple[str, TcoBasis], TcoResult] = {}
    frames: list[pd.DataFrame] = []
    for combo in itertools.product(*cat_axes.values()):
        update = dict(zip(cat_axes, combo, strict=True))
        scn = Scenario.model_validate({**base, **update, **first})
        kwargs = _chain_kwargs(scn)
        kwargs.update(zip(num_axes, grids, strict=True))
        if "cost_usd_per_gpu_hour" in num_axes:
            kwargs["tco"] = None
        elif scn.tco.kind != "explicit":
            key = (scn.hardware, scn.tco)
            if key not in tco_cache:
                tco_cache[key] = scn.tco.tco(scn.hardware)
            kwargs["tco_result"] = tco_cache[key]
        frames.append(evaluate(**kwargs))
    out = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    for name in ("model_id", "hardware_id", "workload", "curve_kind", "tco_basis", "tco_profile", "tco_vintage",
                 "tco_tier"):
        # a label that does not apply (tco_profile of a published basis) stays None, as in evaluate and compare
        if out[name].notna().all():
            out[name] = out[name].astype("category")
    return out
