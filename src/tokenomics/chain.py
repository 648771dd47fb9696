"""The one evaluation path: curve -> throughput -> TCO -> cost -> revenue -> license -> margin.

:func:`evaluate` runs the chain for one model on one system and returns tidy rows (columns
:data:`CHAIN_COLUMNS`):

1. the throughput-vs-interactivity curve (:func:`tokenomics.curves.reference.reference_curve`:
   one per model, system, workload and offload mode: the measured envelope, the calibrated
   roofline projection anchored to it outside its range, or the projection where nothing is
   measured), or a curve you give, or a throughput you give;
2. the throughput at the target interactivity (interpolated, never extrapolated);
3. the TCO per accelerator-hour on a :class:`~tokenomics.cost.tco.TcoBasis`;
4. cost per Mtok, split by token class (:mod:`tokenomics.economics` kernels);
5. revenue at list prices and the workload's token mix, license fee, profit, gross margin;
6. break-even utilization and price;
7. the projection's uncertainty band (anchored and projected rows).

:func:`compare` (:func:`tokenomics.compare`) runs :func:`evaluate` over several systems;
:class:`tokenomics.Scenario` / :func:`tokenomics.sweep`, :func:`tokenomics.monte_carlo`, the
report and every CLI command call :func:`evaluate`; none of them re-derives a formula.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from tokenomics import catalog
from tokenomics._numeric import series_index
from tokenomics._validate import (
    check_fraction,
    check_numeric,
    check_plausible,
    check_positive,
    error_text,
    unknown_name_error,
)
from tokenomics.catalog import Hardware, Model
from tokenomics.cost.energy import energy_j_per_token, tok_per_s_per_mw
from tokenomics.cost.tco import TcoBasis, TcoResult, check_gpu_hour_cost
from tokenomics.cost.tco import tco_basis as make_tco_basis
from tokenomics.curves.curve import ThroughputCurve, check_curve_matches
from tokenomics.curves.reference import anchor_at, config_at, curve_kind_at, reference_curve
from tokenomics.curves.schema import cache_hit_frac_of_rows, value_at
from tokenomics.economics import (
    DEFAULT_CACHED_COST_RATIO,
    blended_price_usd_per_mtok,
    breakeven_price_usd_per_mtok,
    breakeven_utilization_frac,
    check_usd_per_mtok,
    cost_per_mtok,
    cost_per_output_mtok,
    cost_split_per_mtok,
    gross_margin_frac,
    license_fee_usd_per_gpu_hour,
    profit_usd_per_gpu_hour,
    profit_usd_per_mw_year,
    revenue_usd_per_gpu_hour,
    served_mtok_per_gpu_hour,
    usd_per_gpu_year,
)
from tokenomics.economics.policy import default_license_fee_frac
from tokenomics.perf.hierarchy import KV_OFFLOAD_MODES, check_kv_offload
from tokenomics.perf.project import BAND_COLUMNS
from tokenomics.workload import Workload, check_context_fits, workload

__all__ = [
    "CHAIN_COLUMNS",
    "DEFAULT_INTERACTIVITY_TOK_PER_S_PER_USER",
    "DEFAULT_UTILIZATION_FRAC",
    "PRICE_FIELDS",
    "SUPPLY_COLUMNS",
    "SkippedSystemsWarning",
    "band_ratios",
    "compare",
    "evaluate",
    "known_price_field",
    "resolve_tco",
    "session_figures_at",
    "supply",
    "throughput_at",
    "workload_of",
]

DEFAULT_INTERACTIVITY_TOK_PER_S_PER_USER: float = 50.0
"""Interactivity a curve is read at when none is given [tok/s/user]."""

DEFAULT_UTILIZATION_FRAC: float = 0.6
"""Busy fraction of paid hours when none is given."""

PRICE_FIELDS: tuple[str, ...] = ("input_usd_per_mtok", "cached_input_usd_per_mtok", "output_usd_per_mtok")
"""Names of the explicit list prices [USD/Mtok] that replace the catalog's."""

CHAIN_COLUMNS: dict[str, str] = {
    "model_id": "catalog model id (None when prices and throughput are given)",
    "hardware_id": "catalog hardware id",
    "workload": "workload name",
    "kv_offload": "tiers below HBM holding evicted session prefixes: 'none', 'dram' or 'ssd'",
    "curve_kind": "'measured' (measured envelope), 'anchored' (projection scaled to the measured envelope), "
                  "'projected' (nothing measured), the kind of a given curve, or 'given' (throughput given)",
    "config": "serving configuration of the curve's point at or just faster than the interactivity: "
              "parallelism, precisions, MTP of a projection, engine and parallelism of a measurement "
              "(None when throughput or a curve without configurations is given)",
    "anchor_ratio": "measured / projected ratio an anchored row's projection is scaled by (NaN otherwise)",
    "anchor_kv_offload": "offload mode whose measured ratio anchors the row: its own mode at the measured "
                         "range's edges, another measured mode when this one was never measured (None otherwise)",
    "interactivity_tok_per_s_per_user": "interactivity the throughput is read at (NaN when given)",
    "throughput_tok_per_s_per_gpu": "input + output tokens/s per accelerator while busy",
    "throughput_low_tok_per_s_per_gpu": "low end of the projection's band on anchored and projected rows "
                                        "(NaN otherwise)",
    "throughput_high_tok_per_s_per_gpu": "high end of the projection's band on anchored and projected rows "
                                         "(NaN otherwise)",
    "tco_basis": "'itemised' (profile), 'published' (vintage + tier) or 'explicit'",
    "tco_profile": "TCO profile of an itemised basis",
    "tco_vintage": "published set of a published basis",
    "tco_tier": "published tier of a published basis",
    "cost_usd_per_gpu_hour": "TCO per allocated accelerator-hour [USD/GPU-hour]",
    "facility_power_kw_per_accelerator": "facility power per accelerator, IT x PUE [kW]",
    "utilization_frac": "busy fraction of paid hours",
    "input_share_frac": "input (cached included) share of all tokens, from the workload",
    "cache_hit_frac": "cached share of input tokens priced as cached: the workload's for fixed-sequence "
                      "traffic, the realized rate at the operating point for sessions",
    "theoretical_cache_hit_frac": "prefix-cache hit rate of the workload with an unbounded cache",
    "realized_cache_hit_frac": "hit rate the server realizes at the operating point (sessions: from the "
                               "curve, at most the theoretical rate; else the theoretical rate)",
    "input_usd_per_mtok": "uncached input price [USD/Mtok]",
    "cached_input_usd_per_mtok": "cached input price used (default 0.1 x input) [USD/Mtok]",
    "cached_input_price_basis": "where the cached input price comes from: 'given', 'listed', or 'filled' (no "
                                "listed price: DEFAULT_CACHED_COST_RATIO x input)",
    "output_usd_per_mtok": "output price [USD/Mtok]",
    "blended_price_usd_per_mtok": "revenue per Mtok of all tokens [USD/Mtok]",
    "license_fee_frac": "revenue share paid as license fee",
    "license_usd_per_mtok": "license royalty per Mtok of all tokens [USD/Mtok]",
    "license_usd_per_gpu_hour": "fixed license fee [USD/GPU-hour]",
    "target_margin_frac": "target gross margin of the break-even columns",
    "served_mtok_per_gpu_hour": "Mtok served per allocated GPU-hour",
    "cost_usd_per_mtok": "cost per Mtok of all tokens [USD/Mtok]",
    "cost_usd_per_output_mtok": "all cost carried by the output tokens, cost / (1 - input share) [USD/Mtok]",
    "cost_low_usd_per_mtok": "cost at the high end of a projection's throughput band (NaN otherwise)",
    "cost_high_usd_per_mtok": "cost at the low end of a projection's throughput band (NaN otherwise)",
    "input_cost_usd_per_mtok": "cost attributed to an uncached input Mtok [USD/Mtok]",
    "cached_input_cost_usd_per_mtok": "cost attributed to a cached input Mtok [USD/Mtok]",
    "output_cost_usd_per_mtok": "cost attributed to an output Mtok [USD/Mtok]",
    "revenue_usd_per_gpu_hour": "revenue per allocated GPU-hour [USD/GPU-hour]",
    "license_fee_usd_per_gpu_hour": "all license fees per GPU-hour [USD/GPU-hour]",
    "profit_usd_per_gpu_hour": "revenue - license - TCO [USD/GPU-hour]",
    "gross_margin_frac": "profit / revenue",
    "profit_usd_per_gpu_year": "profit per accelerator-year [USD/GPU-year]",
    "profit_usd_per_mw_year": "profit per MW of facility power per year [USD/MW-year] (NaN: no power figure)",
    "energy_j_per_token": "facility energy per served token, idle hours included [J/token] (NaN: no power figure)",
    "tok_per_s_per_mw": "served tokens per second per MW of facility power [tok/s/MW] (NaN: no power figure)",
    "breakeven_utilization_frac": "utilization giving the target margin (NaN: none in (0, 1])",
    "breakeven_price_usd_per_mtok": "blended price giving the target margin (NaN: none)",
}
"""Columns of :func:`evaluate` (and so of compare, sweep, the report's headline, ``cost``)."""

SUPPLY_COLUMNS: tuple[str, ...] = (
    "model_id", "hardware_id", "workload", "kv_offload", "curve_kind", "config", "anchor_ratio", "anchor_kv_offload",
    "interactivity_tok_per_s_per_user", "throughput_tok_per_s_per_gpu", "throughput_low_tok_per_s_per_gpu",
    "throughput_high_tok_per_s_per_gpu",
    "tco_basis", "tco_profile", "tco_vintage", "tco_tier", "cost_usd_per_gpu_hour",
    "facility_power_kw_per_accelerator", "utilization_frac", "served_mtok_per_gpu_hour", "cost_usd_per_mtok",
    "cost_low_usd_per_mtok", "cost_high_usd_per_mtok", "cost_usd_per_output_mtok", "realized_cache_hit_frac",
)
"""Columns of :func:`supply` (a subset of :data:`CHAIN_COLUMNS`, same meaning)."""


def throughput_at(curve: ThroughputCurve, interactivity_tok_per_s_per_user: float) -> float:
    """Total throughput read off a curve at an interactivity, never extrapolated.

    Parameters
    ----------
    curve : ThroughputCurve
        Curve of total (input + output) throughput.
    interactivity_tok_per_s_per_user : float
        Where to read it [tok/s/user], > 0.

    Returns
    -------
    float
        Throughput [tok/s/GPU].

    Raises
    ------
    ValueError
        The curve gives another throughput column, or the interactivity is outside its range.
    """
    check_positive("interactivity_tok_per_s_per_user", interactivity_tok_per_s_per_user)
    if curve.throughput_column != "throughput_tok_per_s_per_gpu":
        raise ValueError(
            f"the curve gives {curve.throughput_column!r}; the chain needs total (input + output) "
            "throughput_tok_per_s_per_gpu"
        )
    x = float(interactivity_tok_per_s_per_user)
    value = float(curve.throughput_at(x))
    if not math.isfinite(value):
        lo, hi = curve.interactivity_range
        pts = curve.points
        who = " ".join(
            "/".join(sorted(pts[col].dropna().astype(str).unique()))
            for col in ("model_id", "hardware_id") if col in pts.columns and pts[col].notna().any()
        )
        # a mixed curve (measured and anchored knots) is named by its knots' kinds
        kind = ("measured and anchored" if curve.kind == "mixed" else curve.kind)
        where = f"the {kind} curve" + (f" of {who}" if who else "")
        if x > hi:
            reason = f"beyond the fastest point of {where} ({hi:.3g} tok/s/user; never extrapolated)"
        else:
            reason = f"outside {where}'s range {lo:.3g}-{hi:.3g} tok/s/user (never extrapolated)"
        raise ValueError(f"interactivity_tok_per_s_per_user={x:g} is {reason}")
    return value


def band_ratios(curve: ThroughputCurve) -> tuple[float, float]:
    """Return the (low, high) throughput multipliers of a projection's band.

    Parameters
    ----------
    curve : ThroughputCurve
        A curve; its projected and anchored frontier points carry the band columns.

    Returns
    -------
    (float, float)
        Median of ``throughput_low / throughput`` and ``throughput_high / throughput`` over the
        frontier's projected and anchored points; NaN for measured or given curves (no band).
    """
    points = curve.points
    if curve.kind not in ("projected", "anchored", "mixed") or not set(BAND_COLUMNS) <= set(points.columns):
        return math.nan, math.nan
    if "kind" in points.columns:
        points = points[points["kind"].astype(str).isin(("projected", "anchored"))]
    mid = points["throughput_tok_per_s_per_gpu"].to_numpy(dtype=float)
    ratios = [pd.to_numeric(points[c], errors="coerce").to_numpy(dtype=float) / mid for c in BAND_COLUMNS]
    if not len(mid) or not all(np.isfinite(r).any() for r in ratios):
        return math.nan, math.nan
    low, high = (float(np.nanmedian(r)) for r in ratios)
    return low, high


def _price_inputs(model: Model | None, provider: str | None, given: dict[str, Any],
                  tier: str = "standard") -> tuple[Any, Any, Any, str]:
    """(input, cached input, output) prices: the given ones, else the catalog's list price in ``tier``.

    The fourth element says where the cached input price came from: ``given``, ``listed`` or
    ``filled`` (``DEFAULT_CACHED_COST_RATIO`` x input where nothing gives one).
    """
    for name in PRICE_FIELDS:
        if given.get(name) is not None:
            check_usd_per_mtok(name, given[name])
    p_in, p_c, p_out = (given.get(k) for k in PRICE_FIELDS)
    cached_basis = "given" if p_c is not None else "listed"
    if p_in is None or p_out is None:
        if model is None:
            raise ValueError("prices missing: give model= (catalog price) or input_usd_per_mtok and "
                             "output_usd_per_mtok")
        listed = catalog.price(model.model_id, provider, price_tier=tier)
        if p_in is None:
            p_in = listed.input_usd_per_mtok
            if p_c is None:
                p_c = listed.cached_input_usd_per_mtok
        if p_out is None:
            p_out = listed.output_usd_per_mtok
    elif provider is not None:
        raise ValueError(f"price_provider={provider!r} is not used: input and output prices are given")
    elif tier != "standard":
        raise ValueError(f"price_tier={tier!r} is not used: input and output prices are given")
    if p_c is None:
        p_c = DEFAULT_CACHED_COST_RATIO * np.asarray(p_in, dtype=float)
        cached_basis = "filled"
    above = np.asarray(p_c, dtype=float) > np.asarray(p_in, dtype=float)
    if above.any():
        c, i = np.broadcast_arrays(np.asarray(p_c, dtype=float), np.asarray(p_in, dtype=float))
        k = int(np.flatnonzero(above.ravel())[0]) if above.ndim else 0
        raise ValueError(f"cached_input_usd_per_mtok={c.ravel()[k]:g} is above input_usd_per_mtok={i.ravel()[k]:g}: "
                         "a cached (prefix-hit) input token is priced at most as an uncached one")
    return p_in, p_c, p_out, cached_basis


def evaluate(
    model: Model | str | None,
    hardware: Hardware | str,
    *,
    workload: Workload | str | None = None,
    tco: TcoBasis | str | None = None,
    cost_usd_per_gpu_hour: Any = None,
    interactivity_tok_per_s_per_user: float | None = None,
    throughput_tok_per_s_per_gpu: Any = None,
    throughput_curve: ThroughputCurve | None = None,
    utilization_frac: Any = DEFAULT_UTILIZATION_FRAC,
    license_fee_frac: Any = None,
    license_usd_per_mtok: Any = 0.0,
    license_usd_per_gpu_hour: Any = 0.0,
    price_provider: str | None = None,
    price_tier: str = "standard",
    input_usd_per_mtok: Any = None,
    cached_input_usd_per_mtok: Any = None,
    output_usd_per_mtok: Any = None,
    facility_power_kw_per_accelerator: Any = None,
    cost_split_rule: Literal["price", "gpu_time"] = "price",
    prefill_throughput_tok_per_s_per_gpu: Any = None,
    decode_throughput_tok_per_s_per_gpu: Any = None,
    cached_cost_ratio: Any = None,
    target_margin_frac: Any = 0.0,
    tco_result: TcoResult | None = None,
    kv_offload: str = "none",
) -> pd.DataFrame:
    """Run the chain for one model on one system; tidy rows, one per element of the inputs.

    ``throughput = curve.throughput_at(interactivity)``;
    ``cost_per_mtok = tco / (throughput x 3600 x utilization) x 1e6``;
    ``revenue = served_mtok x blended_price``; ``profit = revenue - license - tco``;
    ``gross_margin = profit / revenue`` (:mod:`tokenomics.economics`). Numeric inputs may be
    arrays of one length (or scalars): they are broadcast, one row per element.

    Parameters
    ----------
    model : Model, str or None
        Catalog model (or name). None only with explicit prices and an explicit throughput or
        curve.
    hardware : Hardware or str
        Catalog system (or name).
    workload : Workload or str, optional
        The traffic; it fixes the token mix and the measured curve (default
        :data:`tokenomics.workload.DEFAULT_WORKLOAD`).
    tco : TcoBasis or {"itemised", "published", "explicit"}, optional
        TCO basis (default :data:`tokenomics.cost.tco.DEFAULT_TCO_BASIS`).
    cost_usd_per_gpu_hour : float or array_like, optional
        Explicit TCO [USD/GPU-hour]; the same as ``tco=TcoBasis.explicit(...)``, array-able.
    interactivity_tok_per_s_per_user : float or array_like, optional
        Where the curve is read [tok/s/user] (default
        :data:`DEFAULT_INTERACTIVITY_TOK_PER_S_PER_USER`). Not with an explicit throughput. An
        array gives one row per element (each at its own curve point and token mix).
    throughput_tok_per_s_per_gpu : float or array_like, optional
        Explicit total throughput [tok/s/GPU], in the plausible range [0.01, 1e6]
        (:func:`check_throughput_plausible`: below it a figure in tok/ms or ktok/s); skips the
        curve.
    throughput_curve : ThroughputCurve, optional
        A curve of your own replacing the reference curve.
    utilization_frac : float or array_like
        Busy fraction of paid hours, in (0, 1].
    license_fee_frac : float or array_like, optional
        Revenue share, in [0, 1); default
        :func:`tokenomics.economics.policy.default_license_fee_frac` of the model (0 without one).
    license_usd_per_mtok, license_usd_per_gpu_hour : float or array_like
        Royalty per Mtok [USD/Mtok], 0 or in [0.0001, 1000]
        (:func:`tokenomics.economics.check_usd_per_mtok`: a $/token figure is refused), and fixed
        fee [USD/GPU-hour], in [0, 100] (:func:`tokenomics.economics.check_gpu_hour_cost`: a
        per-rack or per-year figure is refused).
    price_provider : str, optional
        Catalog provider of the list price (first-party or latest by default).
    price_tier : str, default "standard"
        Catalog price tier: ``standard``, ``batch``, ``flex``, ``priority``, ``fast`` (a high-speed
        serving sold at a premium) or ``off-peak``; see :func:`tokenomics.price`.
    input_usd_per_mtok, cached_input_usd_per_mtok, output_usd_per_mtok : float or array_like, optional
        Explicit prices replacing the catalog's [USD/Mtok], 0 or in the plausible range
        (:func:`tokenomics.economics.check_usd_per_mtok`: a $/token figure is refused); cached defaults to 0.1 x
        input.
    facility_power_kw_per_accelerator : float or array_like, optional
        Facility power for per-MW figures [kW]; default from the TCO.
    cost_split_rule : {"price", "gpu_time"}
        Attribution of cost to token classes (:func:`tokenomics.economics.cost_split_per_mtok`).
    prefill_throughput_tok_per_s_per_gpu, decode_throughput_tok_per_s_per_gpu : optional
        Phase throughputs of the ``gpu_time`` rule [tok/s/GPU].
    cached_cost_ratio : float or array_like, optional
        Cost weight of a cached input token relative to an uncached one (``gpu_time`` rule
        only: the price rule weighs a cached token by its price). Default: the model's own ratio
        where a projected session curve carries it
        (:func:`tokenomics.perf.cached_token_cost_ratio`), else 0.1.
    target_margin_frac : float or array_like
        Target gross margin of the break-even columns, < 1.
    tco_result : TcoResult, optional
        A TCO already computed on the basis for this hardware (saves recomputing it).
    kv_offload : {"none", "dram", "ssd"}, default "none"
        Tiers below HBM that keep evicted session prefixes (session workloads; the reference
        curve is then the measured runs with that offload mode or the projection with those
        tiers, :func:`tokenomics.perf.hierarchy.kv_offload_tiers`). Not with a fixed-sequence
        workload, an explicit throughput or a curve of your own (it would not be used).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`CHAIN_COLUMNS`, one row per broadcast element; indexed like the pandas
        Series inputs where there are any (they must share one index).

    Raises
    ------
    TypeError
        Several systems (or models) given at once: ``evaluate`` takes one; use
        :func:`compare` for several systems. A boolean or string given for a number
        (:class:`~tokenomics._validate.NotANumberError`, also a ``ValueError``).
    KeyError
        Unknown model, hardware, workload, TCO name or price provider.
    ValueError
        Out-of-range inputs; Series inputs with different indexes; an input the path would
        ignore (an interactivity with an explicit throughput, a throughput with a curve, a price
        provider with explicit prices, phase throughputs or a cached cost ratio with the price
        rule, contradictory TCO arguments); implausible license terms (a $/token royalty, a
        per-rack fixed fee); an interactivity outside the curve (never extrapolated).

    Examples
    --------
    >>> import tokenomics as tk
    >>> row = evaluate(None, "gb200", workload=tk.Workload(name="1:1", isl_tokens=1, osl_tokens=1),
    ...                cost_usd_per_gpu_hour=2.0, throughput_tok_per_s_per_gpu=1000.0,
    ...                input_usd_per_mtok=0.5, output_usd_per_mtok=2.0, license_fee_frac=0.3)
    >>> round(float(row["gross_margin_frac"].iloc[0]), 4)
    -0.0407
    """
    if interactivity_tok_per_s_per_user is not None and np.ndim(interactivity_tok_per_s_per_user) > 0:
        # each interactivity reads its own curve point and token mix: one evaluation per element
        return _evaluate_each_interactivity(dict(locals()))
    numeric: dict[str, Any] = {
        "cost_usd_per_gpu_hour": cost_usd_per_gpu_hour, "throughput_tok_per_s_per_gpu": throughput_tok_per_s_per_gpu,
        "utilization_frac": utilization_frac, "license_fee_frac": license_fee_frac,
        "license_usd_per_mtok": license_usd_per_mtok, "license_usd_per_gpu_hour": license_usd_per_gpu_hour,
        "input_usd_per_mtok": input_usd_per_mtok, "cached_input_usd_per_mtok": cached_input_usd_per_mtok,
        "output_usd_per_mtok": output_usd_per_mtok,
        "facility_power_kw_per_accelerator": facility_power_kw_per_accelerator,
        "prefill_throughput_tok_per_s_per_gpu": prefill_throughput_tok_per_s_per_gpu,
        "decode_throughput_tok_per_s_per_gpu": decode_throughput_tok_per_s_per_gpu,
        "cached_cost_ratio": cached_cost_ratio, "target_margin_frac": target_margin_frac,
    }
    for name in ("utilization_frac", "license_usd_per_mtok", "license_usd_per_gpu_hour", "target_margin_frac"):
        if numeric[name] is None:
            raise ValueError(f"{name} is missing (None): give a number (see evaluate's defaults)")
    for name, value in numeric.items():
        if value is not None:
            check_numeric(name, value)  # "0.6" or True would pass np.asarray(..., dtype=float) below
            if np.ndim(value) > 0 and np.size(value) == 0:
                raise ValueError(f"{name} is empty: give a scalar or a non-empty 1-d array (one row per element)")
    index = series_index(**numeric)
    _one_entry("model", model, Model, "tk.compare(model, hardware) takes one model; loop over the models")
    _one_entry("hardware", hardware, Hardware, "for several systems use tk.compare(model, [systems...])")
    m = catalog.model(model) if isinstance(model, str) else model
    hw = catalog.hardware(hardware) if isinstance(hardware, str) else hardware
    wl = workload_of(workload)
    if cost_split_rule not in ("price", "gpu_time"):
        raise ValueError(f"cost_split_rule={cost_split_rule!r} is not one of 'price', 'gpu_time'")
    phases = (prefill_throughput_tok_per_s_per_gpu, decode_throughput_tok_per_s_per_gpu)
    if cost_split_rule == "price" and any(p is not None for p in phases):
        raise ValueError("prefill/decode throughputs are only used by cost_split_rule='gpu_time'")
    if cost_split_rule == "price" and cached_cost_ratio is not None:
        raise ValueError("cached_cost_ratio is only used by cost_split_rule='gpu_time' (the price rule weighs a "
                         "cached token by its price)")
    if cost_split_rule == "gpu_time" and any(p is None for p in phases):
        raise ValueError("cost_split_rule='gpu_time' needs prefill_throughput_tok_per_s_per_gpu and "
                         "decode_throughput_tok_per_s_per_gpu")
    for name, value in zip(("prefill_throughput_tok_per_s_per_gpu", "decode_throughput_tok_per_s_per_gpu"), phases,
                           strict=True):
        if value is not None:
            check_throughput_plausible(name, value)
    check_usd_per_mtok("license_usd_per_mtok", license_usd_per_mtok)
    check_gpu_hour_cost("license_usd_per_gpu_hour", license_usd_per_gpu_hour, allow_zero=True)
    # prices first: a missing price is the caller's error, found before any curve is read
    p_in, p_c, p_out, cached_basis = _price_inputs(m, price_provider, {
        "input_usd_per_mtok": input_usd_per_mtok, "cached_input_usd_per_mtok": cached_input_usd_per_mtok,
        "output_usd_per_mtok": output_usd_per_mtok}, price_tier)
    rows = supply(m, hw, workload=wl, tco=tco, cost_usd_per_gpu_hour=cost_usd_per_gpu_hour,
                  interactivity_tok_per_s_per_user=interactivity_tok_per_s_per_user,
                  throughput_tok_per_s_per_gpu=throughput_tok_per_s_per_gpu, throughput_curve=throughput_curve,
                  utilization_frac=utilization_frac,
                  facility_power_kw_per_accelerator=facility_power_kw_per_accelerator, tco_result=tco_result,
                  kv_offload=kv_offload)
    n = len(rows)
    # sessions: cached input is priced at the hit rate the server realizes, not the theoretical one
    realized = rows["realized_cache_hit_frac"].to_numpy(dtype=float)
    # a measured run can realize slightly more than the pooled preset's theoretical rate: the traffic
    # cannot repeat more than the workload says, so the priced hit rate is capped there
    mix = wl.token_mix(min(float(realized[0]), wl.cached_prefix_frac) if np.isfinite(realized[0]) else None)
    if cached_cost_ratio is None:
        own = rows.attrs.get("cached_cost_ratio", math.nan)
        cached_cost_ratio = own if math.isfinite(own) else DEFAULT_CACHED_COST_RATIO
    fee = (default_license_fee_frac(m) if m is not None else 0.0) if license_fee_frac is None else license_fee_frac

    def column(value: Any) -> np.ndarray:
        arr = np.asarray(value, dtype=float)
        if arr.ndim > 1 or (arr.ndim == 1 and arr.size not in (1, n)):
            raise ValueError(f"numeric inputs must be scalars or 1-d arrays of one length ({n}), got shape {arr.shape}")
        return np.broadcast_to(arr.reshape(-1) if arr.ndim else arr, (n,))

    t = rows["throughput_tok_per_s_per_gpu"].to_numpy()
    k = rows["cost_usd_per_gpu_hour"].to_numpy()
    u = rows["utilization_frac"].to_numpy()
    fac_a = rows["facility_power_kw_per_accelerator"].to_numpy()
    p_in, p_c, p_out = column(p_in), column(p_c), column(p_out)
    f, rho, fixed = column(fee), column(license_usd_per_mtok), column(license_usd_per_gpu_hour)
    target, k_ratio = column(target_margin_frac), column(cached_cost_ratio)
    s_in, hit = mix.input_share_frac, mix.cache_hit_frac

    # 5-6. prices, revenue, license, margin and break-evens (kernels)
    blended = blended_price_usd_per_mtok(p_in, p_out, s_in, hit, p_c)
    if np.any(blended <= 0.0):
        i = int(np.argmax(blended <= 0.0))
        raise ValueError(
            f"the prices earn nothing on this token mix (input_usd_per_mtok={p_in[i]:g}, "
            f"cached_input_usd_per_mtok={p_c[i]:g}, output_usd_per_mtok={p_out[i]:g} USD/Mtok at input share "
            f"{float(np.broadcast_to(s_in, (n,))[i]):.3f}, cache hit {float(np.broadcast_to(hit, (n,))[i]):.3f}): "
            "give a price > 0 for a token class the workload carries")
    if cost_split_rule == "price":
        split = cost_split_per_mtok(k, t, u, s_in, hit, rule="price", input_usd_per_mtok=p_in,
                                    cached_input_usd_per_mtok=p_c, output_usd_per_mtok=p_out)
    else:
        split = cost_split_per_mtok(k, t, u, s_in, hit, rule="gpu_time",
                                    prefill_throughput_tok_per_s_per_gpu=column(phases[0]),
                                    decode_throughput_tok_per_s_per_gpu=column(phases[1]), cached_cost_ratio=k_ratio)
    revenue = revenue_usd_per_gpu_hour(t, u, blended)
    license_fee = license_fee_usd_per_gpu_hour(revenue, t, u, f, rho, fixed)
    profit = profit_usd_per_gpu_hour(blended, t, u, k, f, rho, fixed)
    margin = gross_margin_frac(blended, t, u, k, f, rho, fixed)
    known = np.isfinite(fac_a)
    per_mw = np.full(n, math.nan)
    j_per_token = np.full(n, math.nan)
    per_s_per_mw = np.full(n, math.nan)
    if known.any():
        per_mw[known] = profit_usd_per_mw_year(blended[known], t[known], u[known], k[known], fac_a[known],
                                               f[known], rho[known], fixed[known])
        j_per_token[known] = energy_j_per_token(fac_a[known], t[known], u[known])
        per_s_per_mw[known] = tok_per_s_per_mw(t[known], fac_a[known], u[known])
    be_util = breakeven_utilization_frac(blended, t, k, f, rho, fixed, target, on_infeasible="nan")
    be_price = breakeven_price_usd_per_mtok(t, u, k, f, rho, fixed, target, on_infeasible="nan")

    demand: dict[str, Any] = {
        "input_share_frac": s_in,
        "cache_hit_frac": hit,
        "theoretical_cache_hit_frac": wl.cached_prefix_frac,
        "input_usd_per_mtok": p_in,
        "cached_input_usd_per_mtok": p_c,
        "output_usd_per_mtok": p_out,
        "blended_price_usd_per_mtok": blended,
        "license_fee_frac": f,
        "license_usd_per_mtok": rho,
        "license_usd_per_gpu_hour": fixed,
        "target_margin_frac": target,
        "input_cost_usd_per_mtok": split.input_usd_per_mtok,
        "cached_input_cost_usd_per_mtok": split.cached_input_usd_per_mtok,
        "output_cost_usd_per_mtok": split.output_usd_per_mtok,
        "revenue_usd_per_gpu_hour": revenue,
        "license_fee_usd_per_gpu_hour": license_fee,
        "profit_usd_per_gpu_hour": profit,
        "gross_margin_frac": margin,
        "profit_usd_per_gpu_year": usd_per_gpu_year(profit),
        "profit_usd_per_mw_year": per_mw,
        "energy_j_per_token": j_per_token,
        "tok_per_s_per_mw": per_s_per_mw,
        "breakeven_utilization_frac": be_util,
        "breakeven_price_usd_per_mtok": be_price,
    }
    for name, values in demand.items():
        rows[name] = np.broadcast_to(np.asarray(values, dtype=float), (n,))
    rows["cached_input_price_basis"] = np.full(n, cached_basis, dtype=object)
    out = rows[list(CHAIN_COLUMNS)]
    if index is not None and len(index) == n:
        out.index = index
    return out


def _one_entry(name: str, value: Any, cls: type, hint: str) -> None:
    """Raise ``TypeError`` unless ``value`` is one catalog entry (an object of ``cls``, a name, or None for a model)."""
    if value is None and name == "model":
        return
    if isinstance(value, str | cls):
        return
    what = f"a {type(value).__name__} of {len(value)}" if isinstance(value, Sequence | set | frozenset) \
        else type(value).__name__
    raise TypeError(f"evaluate takes one {name} (a name or a {cls.__name__}), got {what}: {value!r}; {hint}")


def _evaluate_each_interactivity(args: dict[str, Any]) -> pd.DataFrame:
    """Run :func:`evaluate` once per element of an array of interactivities; other 1-d inputs go along."""
    xs = args["interactivity_tok_per_s_per_user"]
    index = series_index(**{k: v for k, v in args.items() if isinstance(v, pd.Series)})
    x = np.asarray(xs, dtype=float)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"interactivity_tok_per_s_per_user must be a scalar or a non-empty 1-d array, "
                         f"got shape {x.shape}")
    n = x.size

    def element(name: str, value: Any, i: int) -> Any:
        if isinstance(value, (str, bytes)) or value is None or np.ndim(value) == 0:
            return value
        arr = np.asarray(value.to_numpy() if isinstance(value, pd.Series) else value)
        if arr.ndim != 1 or arr.size not in (1, n):
            raise ValueError(f"{name} must be a scalar or a 1-d array of the interactivities' length ({n}), "
                             f"got shape {arr.shape}")
        return arr[0 if arr.size == 1 else i].item()

    rows = [evaluate(**{k: element(k, v, i) for k, v in args.items()}) for i in range(n)]
    out = pd.concat(rows, ignore_index=True)
    if index is not None and len(index) == n:
        out.index = index
    return out


def _broadcast_named(values: dict[str, Any]) -> list[np.ndarray]:
    """Broadcast the inputs to one shape; a length mismatch names the inputs and their lengths."""
    arrays = {name: np.asarray(v, dtype=float) for name, v in values.items()}
    try:
        return list(np.broadcast_arrays(*arrays.values()))
    except ValueError:
        sized = ", ".join(f"{name} ({a.size})" for name, a in arrays.items() if a.ndim)
        raise ValueError(f"array inputs must have one length (or be scalars): {sized}") from None


def supply(
    model: Model | None,
    hardware: Hardware,
    *,
    workload: Workload,
    tco: TcoBasis | str | None = None,
    cost_usd_per_gpu_hour: Any = None,
    interactivity_tok_per_s_per_user: float | None = None,
    throughput_tok_per_s_per_gpu: Any = None,
    throughput_curve: ThroughputCurve | None = None,
    utilization_frac: Any = DEFAULT_UTILIZATION_FRAC,
    facility_power_kw_per_accelerator: Any = None,
    tco_result: TcoResult | None = None,
    kv_offload: str = "none",
) -> pd.DataFrame:
    """Run the supply side of the chain: curve, throughput, TCO and cost per Mtok.

    ``cost_per_mtok = tco / (throughput x 3600 x utilization) x 1e6``
    (:func:`tokenomics.economics.cost_per_mtok`), with the projection's band. Called by
    :func:`evaluate`, and alone where no prices are involved (``tokenomics cost``).

    Parameters
    ----------
    model : Model or None
        Catalog model (None only with an explicit throughput or curve).
    hardware : Hardware
        Catalog system.
    workload : Workload
        The traffic.
    tco, cost_usd_per_gpu_hour, interactivity_tok_per_s_per_user, throughput_tok_per_s_per_gpu,
    throughput_curve, utilization_frac, facility_power_kw_per_accelerator, tco_result, kv_offload
        As :func:`evaluate`.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SUPPLY_COLUMNS`, one row per broadcast element.

    Raises
    ------
    KeyError, ValueError
        As :func:`evaluate`.
    """
    for name, value in (("cost_usd_per_gpu_hour", cost_usd_per_gpu_hour),
                        ("interactivity_tok_per_s_per_user", interactivity_tok_per_s_per_user),
                        ("throughput_tok_per_s_per_gpu", throughput_tok_per_s_per_gpu),
                        ("utilization_frac", utilization_frac),
                        ("facility_power_kw_per_accelerator", facility_power_kw_per_accelerator)):
        if value is not None:
            check_numeric(name, value)
    basis = _basis(tco, cost_usd_per_gpu_hour)
    mode = check_kv_offload(kv_offload)
    if hardware.prefill_only:
        raise ValueError(
            f"{hardware.hardware_id} is a prefill-only part (serving_role='prefill', scale-up domain "
            f"{hardware.scaleup_domain_accelerators}): it does not serve decode alone; evaluate it as the prefill pool "
            "of a disaggregated plan (tokenomics.perf.disagg.project_disagg_curve or plan_points, then "
            "tokenomics.evaluate_plan)"
        )
    if model is not None:
        check_context_fits(model, workload)
    if mode != "none" and (throughput_tok_per_s_per_gpu is not None or throughput_curve is not None):
        raise ValueError(f"kv_offload={mode!r} selects the reference curve; with an explicit throughput or curve "
                         "it would not be used: drop kv_offload or the throughput/curve")
    # 1-2. curve and throughput at the target interactivity
    low = high = anchor_ratio = math.nan
    anchor_mode: str | None = None
    realized = own_ratio = math.nan
    x: float = math.nan
    if throughput_tok_per_s_per_gpu is not None:
        if interactivity_tok_per_s_per_user is not None:
            raise ValueError("interactivity_tok_per_s_per_user is only used to read throughput off a curve; "
                             "with throughput_tok_per_s_per_gpu given it would not be used: give one of them")
        if throughput_curve is not None:
            raise ValueError("give throughput_tok_per_s_per_gpu or throughput_curve, not both")
        check_throughput_plausible("throughput_tok_per_s_per_gpu", throughput_tok_per_s_per_gpu)
        thr: Any = throughput_tok_per_s_per_gpu
        kind = "given"
        config: str | None = None
    else:
        x = float(DEFAULT_INTERACTIVITY_TOK_PER_S_PER_USER if interactivity_tok_per_s_per_user is None
                  else interactivity_tok_per_s_per_user)
        check_positive("interactivity_tok_per_s_per_user", x)
        check_interactivity_plausible(x)
        if throughput_curve is not None:
            # a curve of another system, model or workload would be read as this one's
            check_curve_matches(throughput_curve.points, model_id=None if model is None else model.model_id,
                                hardware_id=hardware.hardware_id, workload=workload)
            mode = _stated_offload(throughput_curve, mode)
        if throughput_curve is None:
            if model is None:
                raise ValueError("give model= to read its curve, or throughput_tok_per_s_per_gpu")
            throughput_curve, _ = reference_curve(model, hardware, workload=workload,
                                                  interactivity_tok_per_s_per_user=x, kv_offload=mode)
        thr = throughput_at(throughput_curve, x)
        kind = curve_kind_at(throughput_curve, x)
        config = config_at(throughput_curve, x)
        if kind != "measured":
            low, high = band_ratios(throughput_curve)
        anchor_ratio, anchor_mode = anchor_at(throughput_curve, x)
        if not workload.is_fixed:
            realized, own_ratio = session_figures_at(throughput_curve, x)

    # 3. TCO
    if basis.kind == "explicit":
        cost: Any = basis.usd_per_gpu_hour if cost_usd_per_gpu_hour is None else cost_usd_per_gpu_hour
        fac_default = hardware.facility_power_kw_per_accelerator
    else:
        if tco_result is None:
            # a scalar facility power given for a system the catalog has no power for feeds its TCO
            given = np.asarray(facility_power_kw_per_accelerator if facility_power_kw_per_accelerator is not None
                               else math.nan, dtype=float)
            lacks = hardware.it_power_kw_per_accelerator is None and hardware.facility_power_kw_per_accelerator is None
            tco_result = (basis.tco(hardware, facility_power_kw_per_accelerator=float(given))
                          if lacks and given.ndim == 0 and np.isfinite(given) and given > 0 else basis.tco(hardware))
        elif tco_result.hardware_id != hardware.hardware_id or tco_result.basis != basis.kind:
            raise ValueError(f"tco_result is for {tco_result.hardware_id} ({tco_result.basis}), not "
                             f"{hardware.hardware_id} ({basis.kind})")
        cost = tco_result.usd_per_gpu_hour
        fac_default = tco_result.facility_power_kw_per_accelerator
    if facility_power_kw_per_accelerator is not None:
        check_positive("facility_power_kw_per_accelerator", facility_power_kw_per_accelerator)
    fac = fac_default if facility_power_kw_per_accelerator is None else facility_power_kw_per_accelerator

    thr_name = ("throughput_tok_per_s_per_gpu" if throughput_tok_per_s_per_gpu is not None
                else "interactivity_tok_per_s_per_user")
    arrays = _broadcast_named({thr_name: thr, "cost_usd_per_gpu_hour": cost, "utilization_frac": utilization_frac,
                               "facility_power_kw_per_accelerator": math.nan if fac is None else fac})
    if arrays[0].ndim > 1:
        raise ValueError(f"numeric inputs must be scalars or 1-d arrays, got shape {arrays[0].shape}")
    t, k, u, fac_a = (np.atleast_1d(a) for a in arrays)

    # 4. cost per Mtok (kernels), with the projection's band (a constant multiple of throughput)
    unit_cost = cost_per_mtok(k, t, u)
    numeric: dict[str, Any] = {
        "anchor_ratio": anchor_ratio,
        "interactivity_tok_per_s_per_user": x,
        "throughput_tok_per_s_per_gpu": t,
        "throughput_low_tok_per_s_per_gpu": t * low,
        "throughput_high_tok_per_s_per_gpu": t * high,
        "cost_usd_per_gpu_hour": k,
        "facility_power_kw_per_accelerator": fac_a,
        "utilization_frac": u,
        "served_mtok_per_gpu_hour": served_mtok_per_gpu_hour(t, u),
        "cost_usd_per_mtok": unit_cost,
        "cost_low_usd_per_mtok": unit_cost / high,
        "cost_high_usd_per_mtok": unit_cost / low,
        "cost_usd_per_output_mtok": cost_per_output_mtok(unit_cost, workload.input_share_frac),
        "realized_cache_hit_frac": (workload.cached_prefix_frac if math.isnan(realized)
                                    else min(realized, workload.cached_prefix_frac)),
    }
    labels = {
        "model_id": None if model is None else model.model_id,
        "hardware_id": hardware.hardware_id,
        "workload": workload.name,
        "kv_offload": mode,
        "curve_kind": kind,
        "config": config,
        "anchor_kv_offload": anchor_mode,
        "tco_basis": basis.kind,
        "tco_profile": basis.profile,
        "tco_vintage": basis.vintage,
        "tco_tier": basis.tier,
    }
    n = t.size
    columns = {name: np.full(n, v, dtype=object) for name, v in labels.items()}
    columns.update({name: np.broadcast_to(np.asarray(v, dtype=float), (n,)) for name, v in numeric.items()})
    out = pd.DataFrame(columns)[list(SUPPLY_COLUMNS)]
    out.attrs["cached_cost_ratio"] = own_ratio
    return out


def check_interactivity_plausible(interactivity_tok_per_s_per_user: float) -> None:
    """Raise if an interactivity is outside the vocabulary's plausible range (a TPOT read as its inverse).

    Parameters
    ----------
    interactivity_tok_per_s_per_user : float
        Output tokens per second seen by one user [tok/s/user], ``1 / TPOT``.

    Raises
    ------
    ValueError
        Outside ``catalog.parameter_spec("curve", "interactivity_tok_per_s_per_user")``'s range
        ([1, 10,000] tok/s/user), with the hint of a TPOT typed in seconds (below the range) or in
        milliseconds or microseconds (above it).
    """
    spec = catalog.parameter_spec("curve", "interactivity_tok_per_s_per_user")
    x = float(interactivity_tok_per_s_per_user)
    low = spec.min_value if spec.min_value is not None else 0.0
    high = spec.max_value if spec.max_value is not None else math.inf
    if not low <= x <= high:
        # above the range a TPOT typed in milliseconds or microseconds, below it one in seconds
        hint = (f"a TPOT of {x:g} ms per token is {1e3 / x:g} tok/s/user, of {x:g} us {1e6 / x:g}" if x > high
                else f"a TPOT of {x:g} s per token is {1.0 / x:g} tok/s/user")
        raise ValueError(
            f"interactivity_tok_per_s_per_user={x:g} tok/s/user is outside the plausible range "
            f"[{low:g}, {high:g}] tok/s/user: interactivity is tokens per second per user (1 / TPOT); {hint}"
        )


_THROUGHPUT_SPECS = {
    "throughput_tok_per_s_per_gpu": "throughput_tok_per_s_per_gpu",
    "prefill_throughput_tok_per_s_per_gpu": "input_throughput_tok_per_s_per_gpu",
    "decode_throughput_tok_per_s_per_gpu": "output_throughput_tok_per_s_per_gpu",
}


def check_throughput_plausible(name: str, value: Any) -> None:
    """Raise if a throughput per accelerator is not positive or outside the vocabulary's plausible range.

    The plausible range is the curve vocabulary's (``catalog.parameter_spec("curve", ...)``):
    [0.01, 1e6] tok/s/GPU for the total throughput (the output throughput's for a decode phase, the
    input throughput's, up to 1e7, for a prefill phase). Below 0.01 tok/s/GPU no served point
    exists: the figure is in other units (tokens per millisecond, thousands or millions of tokens
    per second) and would price a Mtok at hundreds of thousands of dollars.

    Parameters
    ----------
    name : str
        ``throughput_tok_per_s_per_gpu``, ``prefill_throughput_tok_per_s_per_gpu`` or
        ``decode_throughput_tok_per_s_per_gpu``.
    value : float, array_like or pandas.Series
        Throughput(s) [tok/s/GPU].

    Raises
    ------
    ValueError
        Not > 0, NaN, or outside the plausible range, naming the field, the value and the range.

    Examples
    --------
    >>> check_throughput_plausible("throughput_tok_per_s_per_gpu", 2500.0)
    >>> check_throughput_plausible("throughput_tok_per_s_per_gpu", 0.0025)
    Traceback (most recent call last):
    ...
    ValueError: throughput_tok_per_s_per_gpu=0.0025 tok/s/GPU is below the plausible minimum 0.01 tok/s/GPU \
(a unit slip? e.g. tokens per millisecond, or thousands or millions of tokens per second, where tokens per second \
per accelerator are meant); allowed [0.01, 1e+06] tok/s/GPU
    """
    spec = catalog.parameter_spec("curve", _THROUGHPUT_SPECS[name])
    check_positive(name, value)
    check_plausible(name, value, low=spec.min_value, high=spec.max_value, unit=spec.unit,
                    hint="tokens per millisecond, or thousands or millions of tokens per second, where tokens "
                         "per second per accelerator are meant")


def _stated_offload(curve: ThroughputCurve, mode: str) -> str:
    """Return the one KV offload mode a given curve's points state (``mode`` when they state none or several)."""
    if "kv_offload" not in curve.points.columns:
        return mode
    stated = {str(v) for v in curve.points["kv_offload"].dropna().tolist() if str(v).strip()}
    one = stated.pop().strip().lower() if len(stated) == 1 else mode
    return one if one in KV_OFFLOAD_MODES else mode


def session_figures_at(curve: ThroughputCurve, interactivity_tok_per_s_per_user: float) -> tuple[float, float]:
    """Realized prefix-cache hit rate and cached-token cost ratio of a session curve at an interactivity.

    Linear interpolation in interactivity over the curve's points (its Pareto frontier) of each
    point's hit fraction in all KV tiers (:func:`tokenomics.curves.schema.cache_hit_frac_of_rows`:
    a projection's ``realized_cache_hit_frac``, a measured overall rate, or the measured GPU and
    host-tier rates added), and of ``cached_cost_ratio`` where the curve carries it.

    Parameters
    ----------
    curve : ThroughputCurve
        Curve of a session workload.
    interactivity_tok_per_s_per_user : float
        Operating point [tok/s/user].

    Returns
    -------
    (float, float)
        Realized hit rate in [0, 1] and cost ratio; NaN where the curve has no such column.
    """
    pts = curve.points
    ratio = (pd.to_numeric(pts["cached_cost_ratio"], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
             if "cached_cost_ratio" in pts.columns else np.full(len(pts), np.nan))
    x = interactivity_tok_per_s_per_user
    return float(value_at(pts, cache_hit_frac_of_rows(pts), x)), float(value_at(pts, ratio, x))


def _basis(tco: TcoBasis | str | None, cost_usd_per_gpu_hour: Any) -> TcoBasis:
    """Return the TCO basis of an evaluation (the :func:`tokenomics.cost.tco.tco_basis` rule)."""
    if cost_usd_per_gpu_hour is None:
        return make_tco_basis(tco)
    values = np.asarray(cost_usd_per_gpu_hour, dtype=float)
    from_cost = make_tco_basis(tco, usd_per_gpu_hour=float(values.ravel()[0]) if values.size else math.nan)
    if values.size > 1:
        check_gpu_hour_cost("cost_usd_per_gpu_hour", values)
    return from_cost


def resolve_tco(
    tco: TcoBasis | str | None = None,
    *,
    tco_basis: str | None = None,
    tco_profile: str | None = None,
    tco_vintage: str | None = None,
    tco_tier: str | None = None,
    cost_usd_per_gpu_hour: float | None = None,
) -> TcoBasis:
    """Return the TCO basis of an entry point from ``tco=`` or the keyword spelling (one rule).

    Parameters
    ----------
    tco : TcoBasis or str, optional
        A basis or its kind.
    tco_basis, tco_profile, tco_vintage, tco_tier, cost_usd_per_gpu_hour : optional
        Keyword spelling, mapped by :func:`tokenomics.cost.tco.tco_basis`.

    Returns
    -------
    TcoBasis
        The basis.

    Raises
    ------
    ValueError
        ``tco`` and ``tco_basis`` both given, or contradictory keywords.
    """
    if tco is not None and tco_basis is not None:
        raise ValueError(f"give tco= or tco_basis=, not both (got {tco!r} and {tco_basis!r})")
    return make_tco_basis(tco if tco is not None else tco_basis, profile=tco_profile, vintage=tco_vintage,
                          tier=tco_tier, usd_per_gpu_hour=cost_usd_per_gpu_hour)


def workload_of(value: Workload | str | None) -> Workload:
    """Return the workload of an entry point: a preset name, an object, or None for the default."""
    return workload(value)


def known_price_field(name: str) -> None:
    """Raise KeyError (close matches listed) for a name that is not an explicit price field."""
    if name not in PRICE_FIELDS:
        raise unknown_name_error("price field", name, PRICE_FIELDS)


def _system_name(system: Hardware | str) -> str:
    return system.hardware_id if isinstance(system, Hardware) else system


def compare(
    model: Model | str,
    hardware: Hardware | str | Sequence[Hardware | str] | None = None,
    *,
    workload: Workload | str | None = None,
    interactivity_tok_per_s_per_user: float = DEFAULT_INTERACTIVITY_TOK_PER_S_PER_USER,
    utilization_frac: float = DEFAULT_UTILIZATION_FRAC,
    license_fee_frac: float | None = None,
    tco: TcoBasis | str | None = None,
    tco_basis: str | None = None,
    tco_profile: str | None = None,
    tco_vintage: str | None = None,
    tco_tier: str | None = None,
    cost_usd_per_gpu_hour: float | None = None,
    price_provider: str | None = None,
    kv_offload: str = "none",
    price_tier: str = "standard",
    **prices_usd_per_mtok: float,
) -> pd.DataFrame:
    """Compare the cost and gross margin of serving one model on several systems.

    For each system, :func:`tokenomics.chain.evaluate`: ``throughput = curve.throughput_at(
    interactivity)`` on the reference curve (the measured envelope of the workload, the
    calibrated roofline projection anchored to it outside its range, else the projection), the TCO on the
    basis, ``cost_per_mtok = tco / (throughput x 3600 x utilization) x 1e6``, revenue at list
    prices and the workload's token mix, license fee, ``gross_margin = (revenue - license -
    cost) / revenue`` and break-evens.

    Parameters
    ----------
    model : Model or str
        Model, or its id or alias (e.g. ``"DeepSeek-R1"``, ``"kimi-k2"``).
    hardware : Hardware, str or sequence of them, optional
        System(s) to compare (entries, ids or aliases; a :class:`~tokenomics.catalog.Hardware`
        is used as given, e.g. one edited with ``with_values``); default every catalog system
        that serves alone (not prefill-only parts such as Rubin CPX).
    workload : Workload or str, optional
        The traffic (default :data:`tokenomics.workload.DEFAULT_WORKLOAD`, ``"8k/1k"``).
    interactivity_tok_per_s_per_user : float, default 50
        Interactivity the throughput is read at [tok/s/user], > 0.
    utilization_frac : float, default 0.6
        Busy fraction of paid hours, in (0, 1].
    license_fee_frac : float, optional
        License fee as a share of revenue, in [0, 1); default 0.30 for a licensed model and 0
        for open weights (:func:`tokenomics.economics.policy.default_license_fee_frac`).
    tco : TcoBasis or {"itemised", "published", "explicit"}, optional
        TCO basis; default itemised with the hyperscaler profile. A profile or tier name is not a
        kind: ``tco="neocloud"`` is refused with the hint ``tco_profile="neocloud"`` (or
        ``tk.TcoBasis.itemised("neocloud")``), see :func:`tokenomics.cost.tco.tco_basis`.
    tco_basis, tco_profile, tco_vintage, tco_tier, cost_usd_per_gpu_hour : optional
        The basis by keywords, mapped by :func:`tokenomics.cost.tco.tco_basis`: a vintage or
        tier implies published, a cost [USD/GPU-hour] implies explicit; contradictions raise.
    price_provider : str, optional
        Catalog provider of the list prices (first-party or cheapest by default).
    kv_offload : {"none", "dram", "ssd"}, default "none"
        Tiers below HBM that keep evicted session prefixes (session workloads only), as in
        :func:`tokenomics.chain.evaluate`.
    price_tier : str, default "standard"
        Catalog price tier (``standard``, ``batch``, ``flex``, ``priority``, ``fast``,
        ``off-peak``); see :func:`tokenomics.price`.
    **prices_usd_per_mtok : float
        Explicit prices replacing the catalog's: ``input_usd_per_mtok``,
        ``cached_input_usd_per_mtok``, ``output_usd_per_mtok`` [USD/Mtok].

    Returns
    -------
    pandas.DataFrame
        One row per system that could be evaluated, sorted by cost per Mtok, columns
        :data:`tokenomics.chain.CHAIN_COLUMNS`. Systems that could not be evaluated are left
        out with a :class:`SkippedSystemsWarning` and listed in ``frame.attrs["skipped"]``, one
        ``{"hardware_id": ..., "reason": ...}`` record each
        (``pd.DataFrame(frame.attrs["skipped"])`` tabulates them; e.g. the interactivity is
        outside the curve's range: curves are never extrapolated; or the system has no TCO on
        the chosen basis).

    Raises
    ------
    KeyError
        Unknown model, system, workload, TCO vintage/tier/profile, price field, price provider
        or price tier, or no list price for the model there (checked once, before any system).
    ValueError
        Out-of-range utilization, license fee, interactivity or prices (percent hints and the
        $/token-for-$/Mtok slip included), a price provider or tier with explicit prices,
        contradictory TCO arguments, a TCO profile or tier name given as ``tco`` (the message
        names the keyword meant), one system named twice (by id or alias), or no system could
        be evaluated.

    Examples
    --------
    >>> import tokenomics as tk
    >>> table = tk.compare("deepseek-r1", ["gb200", "b200"], interactivity_tok_per_s_per_user=50)
    >>> set(table["curve_kind"]) <= {"measured", "anchored", "projected"}
    True
    """
    for name in prices_usd_per_mtok:
        if name not in PRICE_FIELDS:
            # a misspelt keyword lands here: suggest every keyword compare() takes, not only prices
            accepted = [*inspect.signature(compare).parameters][2:-1] + list(PRICE_FIELDS)
            raise unknown_name_error("compare() keyword", name, accepted)
        known_price_field(name)
    basis = resolve_tco(tco, tco_basis=tco_basis, tco_profile=tco_profile, tco_vintage=tco_vintage,
                        tco_tier=tco_tier, cost_usd_per_gpu_hour=cost_usd_per_gpu_hour)
    m = model if isinstance(model, Model) else catalog.model(model)
    wl = workload_of(workload)
    mode = check_kv_offload(kv_offload, wl)
    if isinstance(hardware, str | Hardware):
        hardware = [hardware]
    if hardware is not None and len(hardware) == 0:
        raise ValueError("hardware is an empty list: name at least one system, or None for every system")
    every = catalog.hardware_table()
    # by default every system that serves alone: prefill-only parts (Rubin CPX) only serve in disaggregated plans
    names: list[Hardware | str] = list(hardware) if hardware is not None else [
        str(h) for h in every.index[every["serving_role"] != "prefill"]]
    ids: dict[str, Hardware | str] = {}
    for system in names:
        hid = system.hardware_id if isinstance(system, Hardware) else catalog.resolve_hardware_id(system)
        if hid in ids:
            raise ValueError(f"hardware {_system_name(ids[hid])!r} and {_system_name(system)!r} name the same "
                             f"system ({hid}); give it once")
        ids[hid] = system
    systems = [h if isinstance(h, Hardware) else catalog.hardware(hid) for hid, h in ids.items()]
    # inputs every system shares are checked up front: an error there is the caller's, not a system's
    shared: dict[str, Any] = {"interactivity_tok_per_s_per_user": interactivity_tok_per_s_per_user,
              "utilization_frac": utilization_frac, "license_fee_frac": license_fee_frac, **prices_usd_per_mtok}
    for name, value in shared.items():
        if value is not None and not isinstance(value, str) and np.ndim(value) > 0:
            if np.size(value) == 1:  # a one-element array is one value
                shared[name] = float(np.ravel(value)[0])
                continue
            raise ValueError(f"{name} takes one value in compare(), got {np.size(value)}: for several use "
                             f"tk.sweep(tk.Scenario(...), {name}=[...]) or tk.evaluate, which take arrays")
    interactivity_tok_per_s_per_user = shared.pop("interactivity_tok_per_s_per_user")
    utilization_frac = shared.pop("utilization_frac")
    license_fee_frac = shared.pop("license_fee_frac")
    prices_usd_per_mtok = shared
    check_positive("interactivity_tok_per_s_per_user", interactivity_tok_per_s_per_user)
    check_fraction("utilization_frac", utilization_frac, low_inclusive=False)
    if license_fee_frac is not None:
        check_fraction("license_fee_frac", license_fee_frac, high_inclusive=False)
    # prices, provider and tier are the model's, the same for every system: an unknown provider
    # (KeyError, closest names) or a $/token price is the caller's error, raised once here
    _price_inputs(m, price_provider, {name: prices_usd_per_mtok.get(name) for name in PRICE_FIELDS}, price_tier)
    rows: list[pd.DataFrame] = []
    skipped: list[dict[str, str]] = []
    for hw in systems:
        try:
            rows.append(evaluate(
                m, hw, workload=wl, tco=basis, interactivity_tok_per_s_per_user=interactivity_tok_per_s_per_user,
                utilization_frac=utilization_frac, license_fee_frac=license_fee_frac,
                price_provider=price_provider, price_tier=price_tier,
                input_usd_per_mtok=prices_usd_per_mtok.get("input_usd_per_mtok"),
                cached_input_usd_per_mtok=prices_usd_per_mtok.get("cached_input_usd_per_mtok"),
                output_usd_per_mtok=prices_usd_per_mtok.get("output_usd_per_mtok"), kv_offload=mode))
        except (KeyError, ValueError) as err:
            skipped.append({"hardware_id": hw.hardware_id, "reason": error_text(err)})
    if not rows:
        reasons = "; ".join(f"{s['hardware_id']}: {s['reason']}" for s in skipped[:5])
        raise ValueError(f"no system could be evaluated for {m.model_id}: {reasons}")
    out = pd.concat(rows, ignore_index=True).sort_values("cost_usd_per_mtok", ignore_index=True)
    # records, not a frame: pandas compares attrs when frames are concatenated
    out.attrs["skipped"] = skipped
    if skipped:
        reasons = "; ".join(f"{s['hardware_id']}: {s['reason']}" for s in skipped[:5])
        warnings.warn(f"compare: {len(skipped)} of {len(systems)} systems left out ({reasons}); "
                      "frame.attrs['skipped'] lists them", SkippedSystemsWarning, stacklevel=2)
    return out


class SkippedSystemsWarning(UserWarning):
    """:func:`compare` left out systems it could not evaluate (listed in ``frame.attrs["skipped"]``).

    Silence it with ``warnings.simplefilter("ignore", tk.SkippedSystemsWarning)`` where a
    comparison over every catalog system is meant to drop the ones that cannot serve the point.
    """


