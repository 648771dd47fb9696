"""Unit economics of LLM serving: cost per million tokens, revenue, license fees, gross margin.

All functions broadcast like numpy: scalar in, float out; ndarray in, ndarray out; pandas Series
in, Series out with the index kept. Money is in USD, throughput in tokens per second per
accelerator ("GPU"), fractions are 0..1 (never percent).

Vocabulary (per *allocated* accelerator-hour, i.e. per hour the GPU is paid for):

* served Mtok per GPU-hour ``Q = throughput_tok_per_s_per_gpu * 3600 * utilization_frac / 1e6``;
* cost per Mtok ``C = cost_usd_per_gpu_hour / Q``;
* revenue ``R = Q * price_usd_per_mtok`` (``price`` is the blended price over all tokens);
* license fee ``L = license_fee_frac * R + license_usd_per_mtok * Q + license_usd_per_gpu_hour``;
* profit ``P = R - L - cost_usd_per_gpu_hour`` and gross margin ``m = P / R``.

Token classes: every token is exactly one of *input* (uncached prompt token), *cached input*
(prompt token served from the prefix cache) or *output*. The cache-hit fraction is a part of the
input, never on top of it: ``input_share = uncached + cached``.

Plausible ranges: every amount per Mtok is checked against [:data:`MIN_USD_PER_MTOK`,
:data:`MAX_USD_PER_MTOK`], every throughput per accelerator against
[:data:`MIN_THROUGHPUT_TOK_PER_S_PER_GPU`, :data:`MAX_THROUGHPUT_TOK_PER_S_PER_GPU`] (the ranges
of the catalog vocabulary, ``tokenomics.catalog.parameter_spec``), costs and powers against the
vocabulary: the same ranges the entry points (:func:`tokenomics.evaluate`,
:func:`tokenomics.compare`, :func:`tokenomics.fleet_per_day`) apply, so a $/token price written as
$/Mtok (:func:`check_usd_per_mtok`), a throughput per system or per hour
(:func:`check_throughput_per_gpu`), a per-rack or per-year cost written as $/GPU-hour
(:func:`check_gpu_hour_cost`) or a power in W written as kW (:func:`check_power_kw`) raises
``ValueError`` here too.

References
----------
.. [1] SemiAnalysis InferenceX-app: cost per Mtok = $/GPU-hr / (tok/s/GPU * 3600 / 1e6);
   revenue/GPU-hr = tok/s * 3600 * blended price / 1e6 with blended = s_in * ((1 - h) p_in +
   h p_cached) + (1 - s_in) p_out and p_cached defaulting to 10 % of p_in,
   https://github.com/SemiAnalysisAI/InferenceX-app (read 2026-09).
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, field_validator

from tokenomics import catalog
from tokenomics._numeric import checked, inputs_trusted, is_xarray, kernel, lazy_raise_where, prepare
from tokenomics._validate import (
    check_fraction,
    check_nonnegative,
    check_numeric,
    check_plausible,
    check_positive,
    check_range,
    check_target_margin,
    position_phrase,
)
from tokenomics.units import HOURS_PER_YEAR, KW_PER_MW, SECONDS_PER_HOUR, TOKENS_PER_MTOK

__all__ = [
    "DEFAULT_CACHED_COST_RATIO",
    "LIST_PRICE_FIELDS",
    "MAX_THROUGHPUT_TOK_PER_S_PER_GPU",
    "MAX_USD_PER_GPU_HOUR",
    "MAX_USD_PER_MTOK",
    "MIN_RELATIVE_MIX_WEIGHT",
    "MIN_THROUGHPUT_TOK_PER_S_PER_GPU",
    "MIN_USD_PER_MTOK",
    "CostSplit",
    "InferencexCost",
    "LicenseFee",
    "TokenMix",
    "attribute_cost_per_mtok",
    "blended_price_usd_per_mtok",
    "breakeven_cost_usd_per_gpu_hour",
    "breakeven_license_fee_frac",
    "breakeven_price_usd_per_mtok",
    "breakeven_utilization_frac",
    "check_gpu_hour_cost",
    "check_power_kw",
    "check_throughput_per_gpu",
    "check_usd_per_mtok",
    "cost_per_mtok",
    "cost_per_output_mtok",
    "cost_split_per_mtok",
    "gross_margin_frac",
    "inferencex_cost_per_mtok",
    "input_share_frac_from_tokens",
    "license_fee_usd_per_gpu_hour",
    "profit_usd_per_gpu_hour",
    "profit_usd_per_gpu_year",
    "profit_usd_per_mw_year",
    "revenue_usd_per_gpu_hour",
    "served_mtok_per_gpu_hour",
    "usd_per_gpu_year",
    "usd_per_mw_year",
]

DEFAULT_CACHED_COST_RATIO: float = 0.1
"""Cost (or price) of a cached input token relative to an uncached one, when none is given.

The InferenceX revenue model prices cached input at 10 % of the input price when no cached price
is known; the same ratio is our default for the GPU-time weight of a cached token.
Source: SemiAnalysis InferenceX-app ``lib/cache-pricing.ts`` (read 2026-09).
"""

_MTOK_PER_TOK_S_HOUR: float = SECONDS_PER_HOUR / TOKENS_PER_MTOK
"""Mtok per GPU-hour delivered by 1 tok/s at full utilization (0.0036)."""

OnInfeasible = Literal["raise", "nan"]


# --- plausible ranges (the catalog vocabulary's) ---

LIST_PRICE_FIELDS: tuple[str, ...] = ("input_usd_per_mtok", "cached_input_usd_per_mtok", "output_usd_per_mtok")
"""List prices of the three token classes [USD/Mtok], each with its range in the price vocabulary."""

MAX_USD_PER_GPU_HOUR: float = 100.0
"""Largest plausible TCO (or fixed fee) per accelerator-hour [USD/GPU-hour].

About ten times the dearest published rental rate of any catalog system: a per-system-hour,
per-rack-hour or per-year figure lands above it."""

MIN_USD_PER_MTOK: float = 0.001
"""Smallest plausible nonzero price or royalty per million tokens [USD/Mtok].

One dollar per billion tokens, below every catalog list price (the cheapest, a cached-input
price, is near 0.003). It is :data:`MAX_USD_PER_MTOK` x 1e-6, so any price up to the maximum
written per token instead of per Mtok lands at or below it. The price vocabulary
(``data/parameters.csv``) states the same range for every list price."""

MAX_USD_PER_MTOK: float = 1000.0
"""Largest plausible price or royalty per million tokens [USD/Mtok]."""

MIN_THROUGHPUT_TOK_PER_S_PER_GPU: float = 0.01
"""Smallest plausible throughput per busy accelerator [tok/s/GPU].

Below it no served point exists: the figure is in tokens per millisecond or in thousands of
tokens per second, and would price a Mtok at hundreds of thousands of dollars."""

MAX_THROUGHPUT_TOK_PER_S_PER_GPU: float = 1e6
"""Largest plausible (input + output) throughput per busy accelerator [tok/s/GPU].

The curve vocabulary's range of ``throughput_tok_per_s_per_gpu``; above it the figure is per
system, per minute or per hour. (A prefill pool's input rate alone, a quantity of its own in
the vocabulary, may reach 1e7.)"""

_PER_TOKEN_HINT = "a per-token figure where per-million is meant"

_POWER_SPECS: dict[str, tuple[str, str]] = {
    "facility_power_kw_per_accelerator": ("hardware", "facility_power_kw_per_accelerator"),
    "it_power_kw_per_accelerator": ("hardware", "it_power_kw_per_accelerator"),
}


def check_usd_per_mtok(name: str, value: Any, *, allow_zero: bool = True) -> None:
    """Raise if a price (or royalty) per Mtok is negative or outside its plausible range.

    Every amount per Mtok -- a list price (:data:`LIST_PRICE_FIELDS`), a blended price, a license
    royalty -- has the one range [:data:`MIN_USD_PER_MTOK`, :data:`MAX_USD_PER_MTOK`] =
    [0.001, 1000] USD/Mtok, or 0.

    Parameters
    ----------
    name : str
        Field name: a list price field, or e.g. ``price_usd_per_mtok``, ``license_usd_per_mtok``.
    value : float, array_like or pandas.Series
        Amount(s) [USD/Mtok].
    allow_zero : bool, default True
        Whether 0 (a free tier, no royalty) is allowed.

    Raises
    ------
    ValueError
        A negative, NaN or infinite value, 0 where ``allow_zero`` is False, or one outside the
        plausible range (below it: a per-token figure such as 0.55e-6 where 0.55 per Mtok is
        meant), naming the field, the value and the range.

    Examples
    --------
    >>> check_usd_per_mtok("input_usd_per_mtok", 0.55)
    >>> check_usd_per_mtok("price_usd_per_mtok", 2.19e-6)
    Traceback (most recent call last):
    ...
    ValueError: price_usd_per_mtok=2.19e-06 USD/Mtok is below the plausible minimum 0.001 USD/Mtok (a unit slip? \
e.g. a per-token figure where per-million is meant); allowed 0 or [0.001, 1000] USD/Mtok
    """
    (check_nonnegative if allow_zero else check_positive)(name, value)
    check_plausible(name, value, low=MIN_USD_PER_MTOK, high=MAX_USD_PER_MTOK, unit="USD/Mtok",
                    allow_zero=allow_zero, hint=_PER_TOKEN_HINT)


def check_throughput_per_gpu(name: str, value: Any) -> None:
    """Raise if a throughput per accelerator is not > 0 or outside its plausible range.

    The range is [:data:`MIN_THROUGHPUT_TOK_PER_S_PER_GPU`, :data:`MAX_THROUGHPUT_TOK_PER_S_PER_GPU`]
    = [0.01, 1e6] tok/s/GPU, that of the curve vocabulary's ``throughput_tok_per_s_per_gpu``.

    Parameters
    ----------
    name : str
        Field name for the message (e.g. ``throughput_tok_per_s_per_gpu``).
    value : float, array_like or pandas.Series
        Throughput(s) per busy accelerator [tok/s/GPU].

    Raises
    ------
    ValueError
        Not > 0, NaN, or outside the plausible range (below it: tokens per millisecond or
        thousands of tokens per second; above it: per system, per minute or per hour), naming
        the field, the value and the range.

    Examples
    --------
    >>> check_throughput_per_gpu("throughput_tok_per_s_per_gpu", 2500.0)
    >>> check_throughput_per_gpu("throughput_tok_per_s_per_gpu", 9e6)
    Traceback (most recent call last):
    ...
    ValueError: throughput_tok_per_s_per_gpu=9000000.0 tok/s/GPU is above the plausible maximum 1e+06 tok/s/GPU \
(a unit slip? e.g. tokens per hour or per minute, or per system, where tokens per second per accelerator are meant); \
allowed [0.01, 1e+06] tok/s/GPU
    """
    check_positive(name, value)
    check_plausible(name, value, low=MIN_THROUGHPUT_TOK_PER_S_PER_GPU, high=MAX_THROUGHPUT_TOK_PER_S_PER_GPU,
                    unit="tok/s/GPU",
                    hint="tokens per millisecond, or thousands or millions of tokens per second, where tokens per "
                         "second per accelerator are meant",
                    high_hint="tokens per hour or per minute, or per system, where tokens per second per "
                              "accelerator are meant")


def check_gpu_hour_cost(name: str, value: Any, *, allow_zero: bool = False) -> None:
    """Raise ``ValueError`` for a cost per accelerator-hour that is not positive or above :data:`MAX_USD_PER_GPU_HOUR`.

    Parameters
    ----------
    name : str
        Field name for the message.
    value : float, array_like or pandas.Series
        TCO or fixed fee [USD/GPU-hour].
    allow_zero : bool, default False
        Whether 0 is allowed (a fixed license fee of 0 is no fee; a zero TCO prices every token
        at zero).

    Raises
    ------
    ValueError
        A negative or NaN value, 0 where ``allow_zero`` is False, or one above
        :data:`MAX_USD_PER_GPU_HOUR` (named, with the hint that a per-system figure must be
        divided by the accelerators per system, a per-year one by 8760 hours).

    Examples
    --------
    >>> check_gpu_hour_cost("cost_usd_per_gpu_hour", 2.0)
    >>> check_gpu_hour_cost("cost_usd_per_gpu_hour", 30000.0)
    Traceback (most recent call last):
    ...
    ValueError: cost_usd_per_gpu_hour=30000 is outside the plausible range (0, 100] USD per accelerator-hour; \
a per-system or per-rack hour? divide by the accelerators per system (a per-year figure: by 8760 hours)
    """
    (check_nonnegative if allow_zero else check_positive)(name, value)
    if isinstance(value, int | float) and value <= MAX_USD_PER_GPU_HOUR:
        return  # the common scalar case, without building an array
    labels = value.index if isinstance(value, pd.Series) else None
    arr = np.asarray(value.to_numpy(dtype=float) if labels is not None else value, dtype=float)
    over = arr > MAX_USD_PER_GPU_HOUR
    if over.any():
        k = int(np.argmax(over.reshape(-1)))
        where = position_phrase(over, arr.shape) if labels is None else \
            f" at index {labels[k]!r} ({int(over.sum())} of {over.size} bad)"
        rng = f"{'[' if allow_zero else '('}0, {MAX_USD_PER_GPU_HOUR:g}]"
        raise ValueError(
            f"{name}={float(arr.reshape(-1)[k]):g}{where} is outside the plausible range {rng} USD per "
            "accelerator-hour; a per-system or per-rack hour? divide by the accelerators per system (a per-year "
            f"figure: by {HOURS_PER_YEAR:g} hours)"
        )


def check_power_kw(name: str, value: Any, *, allow_zero: bool = False) -> None:
    """Raise if a power per accelerator is not positive or outside the hardware vocabulary's plausible range.

    The range is ``catalog.parameter_spec("hardware", name)``'s: [0.01, 30] kW for the facility
    power (IT x PUE), [0.01, 20] kW for the IT power. Above it the figure is in W, below it in MW.

    Parameters
    ----------
    name : str
        ``facility_power_kw_per_accelerator`` or ``it_power_kw_per_accelerator``.
    value : float, array_like or pandas.Series
        Power(s) per accelerator [kW].
    allow_zero : bool, default False
        Whether 0 is allowed.

    Raises
    ------
    ValueError
        Negative, NaN, 0 where not allowed, or outside the plausible range (with the W-for-kW or
        MW-for-kW hint), naming the field, the value and the range.

    Examples
    --------
    >>> check_power_kw("facility_power_kw_per_accelerator", 1.8)
    >>> check_power_kw("facility_power_kw_per_accelerator", 1800.0)
    Traceback (most recent call last):
    ...
    ValueError: facility_power_kw_per_accelerator=1800.0 kW is above the plausible maximum 30 kW (a unit slip? \
e.g. W where kW is meant: divide by 1000); allowed [0.01, 30] kW
    """
    spec = catalog.parameter_spec(*_POWER_SPECS[name])
    (check_nonnegative if allow_zero else check_positive)(name, value)
    check_plausible(name, value, low=spec.min_value, high=spec.max_value, unit=spec.unit, allow_zero=allow_zero,
                    hint="MW where kW is meant: multiply by 1000", high_hint="W where kW is meant: divide by 1000")


# --- validation helpers ---


def _util(name: str, value: Any) -> None:
    check_fraction(name, value, low_inclusive=False)


def _fee(name: str, value: Any) -> None:
    check_fraction(name, value, high_inclusive=False)


def _target(name: str, value: Any) -> None:
    check_target_margin(name, value)


def _any(name: str, value: Any) -> None:
    check_range(name, value)


def _price(name: str, value: Any) -> None:
    check_usd_per_mtok(name, value)


def _positive_price(name: str, value: Any) -> None:
    check_usd_per_mtok(name, value, allow_zero=False)


def _cost(name: str, value: Any) -> None:
    check_gpu_hour_cost(name, value, allow_zero=True)


def _positive_cost(name: str, value: Any) -> None:
    check_gpu_hour_cost(name, value)


def _power(name: str, value: Any) -> None:
    check_power_kw(name, value)


def _license_fields(
    license_fee_frac: Any, license_usd_per_mtok: Any, license_usd_per_gpu_hour: Any
) -> tuple[tuple[str, Any, Any], ...]:
    return (
        ("license_fee_frac", license_fee_frac, _fee),
        ("license_usd_per_mtok", license_usd_per_mtok, _price),
        ("license_usd_per_gpu_hour", license_usd_per_gpu_hour, _cost),
    )


def _cached_above_input(_: np.ndarray, mask: np.ndarray, cached: np.ndarray, inp: np.ndarray) -> ValueError:
    k = int(np.flatnonzero(mask.ravel())[0])
    return ValueError(
        f"cached_input_usd_per_mtok={cached.ravel()[k]:g} is above input_usd_per_mtok={inp.ravel()[k]:g}"
        f"{position_phrase(mask, mask.shape)}: a cached (prefix-hit) input token is priced at most as an uncached one"
    )


def _cached_at_most_input(p_c: Any, p_in: Any) -> Any:
    """``p_c``, refusing (lazily for dask) a cached input price above the uncached one."""
    if inputs_trusted():
        return p_c
    return lazy_raise_where(p_c, p_c > p_in, _cached_above_input, p_c, p_in)


def _finish_breakeven(
    name: str,
    result_name: str,
    result: Any,
    infeasible: Any,
    reason: str,
    on_infeasible: OnInfeasible,
    restore: Any,
) -> Any:
    """Raise or mask break-even answers that fall outside the valid range (lazily for dask)."""
    if on_infeasible not in ("raise", "nan"):
        raise ValueError(f"on_infeasible={on_infeasible!r} is not one of 'raise', 'nan'")
    if on_infeasible == "nan":
        return restore(np.where(infeasible, np.nan, result), result_name, allow_nan=True)

    def error(block: np.ndarray, mask: np.ndarray) -> ValueError:
        where = position_phrase(mask, np.shape(block), counted="")
        return ValueError(
            f"no {name} reaches the target margin{where}: {reason}; "
            "pass on_infeasible='nan' to get NaN there instead"
        )

    return restore(lazy_raise_where(result, infeasible, error), result_name)


def _renamed(result: Any, name: str) -> Any:
    """Return ``result`` with a pandas Series or xarray DataArray named ``name`` (floats and arrays as given)."""
    if isinstance(result, pd.Series) or is_xarray(result):
        return result.rename(name)
    return result


# --- volumes and cost per Mtok ---


@kernel
def served_mtok_per_gpu_hour(throughput_tok_per_s_per_gpu: Any, utilization_frac: Any) -> Any:
    """Million tokens served per allocated accelerator-hour.

    ``Q = throughput_tok_per_s_per_gpu * 3600 * utilization_frac / 1e6``

    Parameters
    ----------
    throughput_tok_per_s_per_gpu : float, array_like or pandas.Series
        Input + output tokens per second per accelerator while busy, in [0.01, 1e6]
        (:func:`check_throughput_per_gpu`) [tok/s/GPU].
    utilization_frac : float, array_like or pandas.Series
        Fraction of paid hours the accelerator serves at that throughput, in (0, 1].

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Served volume [Mtok/GPU-hour].

    Raises
    ------
    ValueError
        Throughput not > 0, utilization outside (0, 1] (percent hint for 30), or NaN.

    Examples
    --------
    >>> served_mtok_per_gpu_hour(1000.0, 0.5)
    1.8
    """
    (t, u), restore = prepare(
        ("throughput_tok_per_s_per_gpu", throughput_tok_per_s_per_gpu, check_throughput_per_gpu),
        ("utilization_frac", utilization_frac, _util),
    )
    return restore(t * (u * _MTOK_PER_TOK_S_HOUR), "served_mtok_per_gpu_hour")


@kernel
def cost_per_mtok(cost_usd_per_gpu_hour: Any, throughput_tok_per_s_per_gpu: Any, utilization_frac: Any) -> Any:
    """Cost per million tokens served.

    ``cost_usd_per_mtok = cost_usd_per_gpu_hour / (throughput * 3600 * utilization) * 1e6``

    Parameters
    ----------
    cost_usd_per_gpu_hour : float, array_like or pandas.Series
        TCO per allocated accelerator-hour, in [0, 100] [USD/GPU-hour]
        (:func:`check_gpu_hour_cost`: a per-rack or per-year figure is refused).
    throughput_tok_per_s_per_gpu : float, array_like or pandas.Series
        Tokens per second per accelerator while busy, in the plausible range [0.01, 1e6]
        [tok/s/GPU] (:func:`check_throughput_per_gpu`: outside it a figure in tok/ms, per
        system or per hour). Use all tokens (input + output) for the cost per Mtok of
        all tokens.
    utilization_frac : float, array_like or pandas.Series
        Busy fraction of paid hours, in (0, 1]. Required: an idle GPU-hour is still paid.

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Cost [USD/Mtok].

    Raises
    ------
    ValueError
        Negative cost or one above :data:`MAX_USD_PER_GPU_HOUR` (a per-rack or per-year figure),
        throughput not > 0 or outside its plausible range, utilization outside (0, 1] or NaN,
        element-wise.

    Notes
    -----
    For disaggregated prefill/decode serving the throughput must be per accelerator of the
    whole deployment (prefill + decode GPUs), not per decode GPU.

    Examples
    --------
    InferenceX worked example (MI355X, Kimi-K2.5 1k/1k, conc 4): 55.6 tok/s/GPU at
    $1.48/GPU-hour:

    >>> round(cost_per_mtok(1.48, 55.6, 1.0), 2)
    7.39

    References
    ----------
    .. [1] SemiAnalysis InferenceX-app ``chart-utils.ts::createChartDataPoint`` (read 2026-09).
    """
    (c, t, u), restore = prepare(
        ("cost_usd_per_gpu_hour", cost_usd_per_gpu_hour, _cost),
        ("throughput_tok_per_s_per_gpu", throughput_tok_per_s_per_gpu, check_throughput_per_gpu),
        ("utilization_frac", utilization_frac, _util),
    )
    return restore(c / (t * (u * _MTOK_PER_TOK_S_HOUR)), "cost_usd_per_mtok")


def cost_per_output_mtok(cost_usd_per_mtok: Any, input_share_frac: Any) -> Any:
    """Cost per million *output* tokens: all serving cost carried by the output tokens.

    ``cost_usd_per_output_mtok = cost_usd_per_mtok / (1 - input_share_frac)``. Agentic traffic
    carries ~100 input tokens per output token, so this is ~100x the cost per Mtok of all tokens.

    Parameters
    ----------
    cost_usd_per_mtok : float, array_like or pandas.Series
        Cost per Mtok of all tokens, >= 0 [USD/Mtok].
    input_share_frac : float, array_like or pandas.Series
        Input (cached included) share of all tokens, in [0, 1).

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Cost per output Mtok [USD/Mtok].

    Raises
    ------
    ValueError
        Negative cost, or an input share outside [0, 1) (no output tokens), element-wise.

    Examples
    --------
    >>> round(cost_per_output_mtok(0.5, 100 / 101), 2)  # 100 input tokens per output token
    50.5
    """
    (c, s), restore = prepare(
        ("cost_usd_per_mtok", cost_usd_per_mtok, check_nonnegative),
        ("input_share_frac", input_share_frac, _input_share_below_one),
    )
    return restore(c / (1.0 - s), "cost_usd_per_output_mtok")


def _input_share_below_one(name: str, value: Any) -> None:
    check_fraction(name, value, high_inclusive=False)


class InferencexCost(NamedTuple):
    """Cost per Mtok in the InferenceX convention (whole GPU-hour charged to each class).

    ``input_usd_per_mtok`` and ``output_usd_per_mtok`` each charge the *whole* GPU-hour to one
    token class, so they do not add up to the spend; use :func:`cost_split_per_mtok` for an
    additive split. Fields are None when the matching throughput was not given.
    """

    total_usd_per_mtok: Any
    input_usd_per_mtok: Any
    output_usd_per_mtok: Any


@kernel
def inferencex_cost_per_mtok(
    cost_usd_per_gpu_hour: Any,
    throughput_tok_per_s_per_gpu: Any,
    *,
    input_throughput_tok_per_s_per_gpu: Any = None,
    output_throughput_tok_per_s_per_gpu: Any = None,
    utilization_frac: Any,
) -> InferencexCost:
    """Cost per Mtok as the InferenceX dashboard computes it (not additive across classes).

    ``total = cost / (throughput * 3600 * utilization / 1e6)``; ``input = cost / (input_throughput
    * 3600 * utilization / 1e6)``; ``output = cost / (output_throughput * 3600 * utilization /
    1e6)``. The dashboard divides by the throughput alone, i.e. it assumes every paid GPU-hour
    busy: ``utilization_frac=1.0`` reproduces its figures.

    Parameters
    ----------
    cost_usd_per_gpu_hour : float, array_like or pandas.Series
        TCO per accelerator-hour, in [0, 100] [USD/GPU-hour]
        (:func:`check_gpu_hour_cost`: a per-rack or per-year figure is refused).
    throughput_tok_per_s_per_gpu : float, array_like or pandas.Series
        Input + output tokens/s per accelerator, in [0.01, 1e6]
        (:func:`check_throughput_per_gpu`) [tok/s/GPU].
    input_throughput_tok_per_s_per_gpu, output_throughput_tok_per_s_per_gpu : optional
        Input (resp. output) tokens/s per accelerator, > 0 [tok/s/GPU]; together at most the
        total throughput (it counts both). Keyword-only, as is ``utilization_frac``
        (:func:`cost_per_mtok` takes utilization third).
    utilization_frac : float, array_like or pandas.Series
        Busy fraction of paid hours, in (0, 1]; required, keyword-only. The InferenceX dashboard
        assumes full utilization: pass 1.0 to reproduce its figures; another value divides
        every figure.

    Returns
    -------
    InferencexCost
        ``(total_usd_per_mtok, input_usd_per_mtok, output_usd_per_mtok)`` [USD/Mtok]; pandas
        Series among them are named ``total_usd_per_mtok``, ``input_cost_usd_per_mtok`` and
        ``output_cost_usd_per_mtok``.

    Raises
    ------
    ValueError
        As :func:`cost_per_mtok`, for every throughput given; input + output throughput above
        the total.

    Notes
    -----
    ``input_usd_per_mtok * s_in + output_usd_per_mtok * s_out`` is **twice** the total cost for
    any mix (pitfall: the whole GPU-hour is charged to each class). Kept for comparison with
    published dashboards only.

    Examples
    --------
    >>> c = inferencex_cost_per_mtok(1.48, 55.6, input_throughput_tok_per_s_per_gpu=27.8,
    ...                              output_throughput_tok_per_s_per_gpu=27.8, utilization_frac=1.0)
    >>> round(c.total_usd_per_mtok, 2), round(c.output_usd_per_mtok, 2)
    (7.39, 14.79)

    References
    ----------
    .. [1] SemiAnalysis InferenceX-app ``lib/utils.ts`` cost fields ``costh``/``costhi``/
       ``costhOutput`` (read 2026-09).
    """
    throughputs = {"throughput_tok_per_s_per_gpu": throughput_tok_per_s_per_gpu,
                   "input_throughput_tok_per_s_per_gpu": input_throughput_tok_per_s_per_gpu,
                   "output_throughput_tok_per_s_per_gpu": output_throughput_tok_per_s_per_gpu}
    given = {k: v for k, v in throughputs.items() if v is not None}
    if len(given) > 1 and not inputs_trusted():
        given = _parts_within_total(given)
        throughput_tok_per_s_per_gpu = given["throughput_tok_per_s_per_gpu"]
        input_throughput_tok_per_s_per_gpu = given.get("input_throughput_tok_per_s_per_gpu")
        output_throughput_tok_per_s_per_gpu = given.get("output_throughput_tok_per_s_per_gpu")
    total = _renamed(cost_per_mtok(cost_usd_per_gpu_hour, throughput_tok_per_s_per_gpu, utilization_frac),
                     "total_usd_per_mtok")
    inp = (
        None
        if input_throughput_tok_per_s_per_gpu is None
        else _renamed(cost_per_mtok(cost_usd_per_gpu_hour, input_throughput_tok_per_s_per_gpu, utilization_frac),
                      "input_cost_usd_per_mtok")
    )
    out = (
        None
        if output_throughput_tok_per_s_per_gpu is None
        else _renamed(cost_per_mtok(cost_usd_per_gpu_hour, output_throughput_tok_per_s_per_gpu, utilization_frac),
                      "output_cost_usd_per_mtok")
    )
    return InferencexCost(total, inp, out)


_PARTS_RTOL: float = 1e-9
"""Relative rounding allowed when input + output throughput are compared with the total."""


def _parts_within_total(given: dict[str, Any]) -> dict[str, Any]:
    """Return the throughputs, refusing (lazily for dask) input + output above the total; containers kept."""
    names = list(given)
    arrays, restore = prepare(*((n, v, check_numeric) for n, v in given.items()))
    total, parts = arrays[0], arrays[1:]
    summed = parts[0] if len(parts) == 1 else parts[0] + parts[1]
    what = " + ".join(names[1:])

    def error(_: np.ndarray, mask: np.ndarray, t: np.ndarray, p: np.ndarray) -> ValueError:
        k = int(np.flatnonzero(mask.ravel())[0])
        return ValueError(
            f"{what}={p.ravel()[k]:g} tok/s/GPU is above throughput_tok_per_s_per_gpu={t.ravel()[k]:g}"
            f"{position_phrase(mask, mask.shape)}: the total counts input and output tokens, so its parts "
            "cannot exceed it"
        )

    # only positive finite values are compared: anything else is left to the per-field checks
    mask = (summed > total * (1.0 + _PARTS_RTOL)) & (total > 0) & (summed < np.inf)
    return {n: restore(lazy_raise_where(a, mask, error, total, summed), n, guard=False)
            for n, a in zip(names, arrays, strict=True)}


# --- token mix and cost split ---


@kernel
def input_share_frac_from_tokens(input_tokens: Any, output_tokens: Any) -> Any:
    """Share of input tokens (cached included) among all tokens.

    ``input_share_frac = input / (input + output)`` — from ISL/OSL, from measured input/output
    token rates (tok/s) or from token totals; the unit cancels.

    Parameters
    ----------
    input_tokens, output_tokens : float, array_like or pandas.Series
        Input (prompt, cached included) and output (generated) amounts, >= 0, not both 0
        [tokens, or tok/s].

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Input share in [0, 1].

    Raises
    ------
    ValueError
        Negative or NaN amounts, or input + output = 0.

    Examples
    --------
    >>> input_share_frac_from_tokens(8192, 1024)
    0.8888888888888888
    """
    (i, o), restore = prepare(
        ("input_tokens", input_tokens, check_nonnegative),
        ("output_tokens", output_tokens, check_nonnegative),
    )
    total = i + o
    total = checked("input_tokens + output_tokens", total, check_positive)
    return restore(i / total, "input_share_frac")


class TokenMix(BaseModel):
    """Workload token mix: which share of served tokens is input, cached input and output.

    ``input_share_frac`` counts every prompt token (cached or not); ``cache_hit_frac`` is the
    part of the input served from the prefix cache, so it is never added on top of the input.
    The three class shares ``uncached_input``, ``cached_input`` and ``output`` sum to 1.

    Parameters
    ----------
    input_share_frac : float
        Input tokens / (input + output tokens), in [0, 1].
    cache_hit_frac : float, default 0
        Cached input tokens / input tokens, in [0, 1].

    Examples
    --------
    >>> mix = TokenMix.from_isl_osl(8192, 1024, cache_hit_frac=0.5)
    >>> round(mix.cached_input_share_frac, 4), round(mix.output_share_frac, 4)
    (0.4444, 0.1111)
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_share_frac: float
    cache_hit_frac: float = 0.0

    @field_validator("input_share_frac", "cache_hit_frac")
    @classmethod
    def _fraction(cls, value: float, info: Any) -> float:
        check_fraction(info.field_name, value)
        return value

    @classmethod
    def from_isl_osl(cls, isl_tokens: float, osl_tokens: float, cache_hit_frac: float = 0.0) -> TokenMix:
        """Build a mix from input and output sequence lengths [tokens].

        Parameters
        ----------
        isl_tokens, osl_tokens : float
            Input and output sequence length per request, >= 0 [tokens].
        cache_hit_frac : float, default 0
            Cached share of the input tokens, in [0, 1].

        Returns
        -------
        TokenMix
            The mix.
        """
        return cls(
            input_share_frac=input_share_frac_from_tokens(isl_tokens, osl_tokens),
            cache_hit_frac=cache_hit_frac,
        )

    @classmethod
    def from_rates(
        cls,
        input_tok_per_s_per_gpu: float,
        output_tok_per_s_per_gpu: float,
        cache_hit_frac: float = 0.0,
    ) -> TokenMix:
        """Build a mix from measured input and output token rates [tok/s/GPU].

        Parameters
        ----------
        input_tok_per_s_per_gpu, output_tok_per_s_per_gpu : float
            Measured input and output throughput of the same deployment, >= 0.
        cache_hit_frac : float, default 0
            Measured cached share of the input tokens, in [0, 1].

        Returns
        -------
        TokenMix
            The mix.
        """
        return cls(
            input_share_frac=input_share_frac_from_tokens(input_tok_per_s_per_gpu, output_tok_per_s_per_gpu),
            cache_hit_frac=cache_hit_frac,
        )

    @property
    def uncached_input_share_frac(self) -> float:
        """Share of all tokens that are uncached input: ``s_in * (1 - h)``."""
        return self.input_share_frac * (1.0 - self.cache_hit_frac)

    @property
    def cached_input_share_frac(self) -> float:
        """Share of all tokens that are cached input: ``s_in * h``."""
        return self.input_share_frac * self.cache_hit_frac

    @property
    def output_share_frac(self) -> float:
        """Share of all tokens that are output: ``1 - s_in``."""
        return 1.0 - self.input_share_frac


class CostSplit(NamedTuple):
    """Cost per Mtok of each token class, additive: ``sum(share_c * cost_c) == total``."""

    total_usd_per_mtok: Any
    input_usd_per_mtok: Any
    cached_input_usd_per_mtok: Any
    output_usd_per_mtok: Any


@kernel
def attribute_cost_per_mtok(
    total_usd_per_mtok: Any,
    input_share_frac: Any,
    cache_hit_frac: Any,
    input_weight: Any,
    cached_input_weight: Any,
    output_weight: Any,
) -> CostSplit:
    """Split a total cost per Mtok over token classes in proportion to relative weights.

    ``cost_c = total * w_c / W`` with ``W = s_unc * w_in + s_cached * w_cached + s_out * w_out``,
    ``s_unc = s_in (1 - h)``, ``s_cached = s_in h``, ``s_out = 1 - s_in``.

    Invariant: ``s_unc * cost_in + s_cached * cost_cached + s_out * cost_out == total``, i.e.
    the per-class costs weighted by the token mix add up to the cost per Mtok of all tokens,
    and so to the spend. Only the *ratios* of the weights matter.

    Parameters
    ----------
    total_usd_per_mtok : float, array_like or pandas.Series
        Cost per Mtok of all tokens, >= 0 [USD/Mtok].
    input_share_frac : float, array_like or pandas.Series
        Input (cached included) share of all tokens, in [0, 1].
    cache_hit_frac : float, array_like or pandas.Series
        Cached share of input tokens, in [0, 1].
    input_weight, cached_input_weight, output_weight : float, array_like or pandas.Series
        Relative cost of one token of each class (e.g. GPU-seconds per token, or list price),
        >= 0; the weight of at least one class present in the mix must be > 0.

    Returns
    -------
    CostSplit
        Total and per-class costs [USD/Mtok].

    Raises
    ------
    ValueError
        Invalid shares or weights, or every class present in the mix has weight 0.

    Examples
    --------
    >>> s = attribute_cost_per_mtok(2.0, 0.5, 0.0, 1.0, 0.1, 3.0)
    >>> s.input_usd_per_mtok, s.output_usd_per_mtok
    (1.0, 3.0)
    """
    arrays, restore = prepare(
        ("total_usd_per_mtok", total_usd_per_mtok, check_nonnegative),
        ("input_share_frac", input_share_frac, check_fraction),
        ("cache_hit_frac", cache_hit_frac, check_fraction),
        ("input_weight", input_weight, check_nonnegative),
        ("cached_input_weight", cached_input_weight, check_nonnegative),
        ("output_weight", output_weight, check_nonnegative),
    )
    return _split(_attribute(*arrays), restore)


MIN_RELATIVE_MIX_WEIGHT: float = 1e-9
"""Smallest mix-weighted class weight, relative to the largest class weight, that can be split.

Below it every class present in the mix is (numerically) free, e.g. an all-cached mix whose
cached token weighs 1e-12 of an uncached one: the per-class costs would grow as ``1 / W`` without
bound, so the split is refused instead. The bound caps every attributed cost at ``1e9 x total``.
"""


def _weight_error(norm: np.ndarray, bad: np.ndarray) -> ValueError:
    where = position_phrase(bad, np.shape(norm), counted="")
    return ValueError(
        f"nothing to attribute the cost to{where}: every token class in the mix has weight 0 (the mix-weighted "
        f"weight is at most {MIN_RELATIVE_MIX_WEIGHT:g} of the largest class weight); give the classes in the "
        "mix a positive weight (e.g. cached_cost_ratio > 0 for an all-cached mix)"
    )


def _attribute(total: Any, s_in: Any, h: Any, w_in: Any, w_c: Any, w_out: Any) -> tuple[Any, Any, Any, Any]:
    """Arrays of (total, input, cached, output) cost per Mtok; see attribute_cost_per_mtok."""
    norm = s_in * (1.0 - h) * w_in + s_in * h * w_c + (1.0 - s_in) * w_out
    w_max = np.maximum(np.maximum(w_in, w_c), w_out)
    norm = lazy_raise_where(norm, ~(norm > MIN_RELATIVE_MIX_WEIGHT * w_max), _weight_error)
    scale = total / norm
    return total + 0.0 * scale, scale * w_in, scale * w_c, scale * w_out


def _split(parts: tuple[Any, Any, Any, Any], restore: Any) -> CostSplit:
    names = (
        "total_usd_per_mtok",
        "input_cost_usd_per_mtok",
        "cached_input_cost_usd_per_mtok",
        "output_cost_usd_per_mtok",
    )
    return CostSplit(*(restore(a, n) for a, n in zip(parts, names, strict=True)))


@kernel
def cost_split_per_mtok(
    cost_usd_per_gpu_hour: Any,
    throughput_tok_per_s_per_gpu: Any,
    utilization_frac: Any,
    input_share_frac: Any,
    cache_hit_frac: Any = 0.0,
    *,
    rule: Literal["gpu_time", "price"] = "gpu_time",
    prefill_throughput_tok_per_s_per_gpu: Any = None,
    decode_throughput_tok_per_s_per_gpu: Any = None,
    cached_cost_ratio: Any = None,
    input_usd_per_mtok: Any = None,
    cached_input_usd_per_mtok: Any = None,
    output_usd_per_mtok: Any = None,
) -> CostSplit:
    """Cost per Mtok split into input (uncached), cached input and output — additive.

    The cost per Mtok of all tokens is ``C = cost_per_mtok(cost, throughput, utilization)``. It
    is attributed to the classes by relative weights ``w_c`` (see
    :func:`attribute_cost_per_mtok`): ``cost_c = C * w_c / sum_k(s_k * w_k)``, so that

    ``s_unc * cost_input + s_cached * cost_cached + s_out * cost_output == C``

    holds for every rule and every mix: the classes add up to the spend (unlike
    :func:`inferencex_cost_per_mtok`).

    Rules
    -----
    ``"gpu_time"`` (default)
        Weight = GPU-seconds one token of the class takes: ``w_in = 1 / prefill_throughput``,
        ``w_out = 1 / decode_throughput``, ``w_cached = cached_cost_ratio * w_in``. The prefill
        and decode throughputs are the rates of an accelerator doing only that phase, e.g. input
        tok/s per prefill GPU and output tok/s per decode GPU of a disaggregated run.
    ``"price"``
        Weight = list price: ``w_in = input_usd_per_mtok``, ``w_out = output_usd_per_mtok``,
        ``w_cached = cached_input_usd_per_mtok`` (default ``cached_cost_ratio * input``).

    Each rule takes only its own inputs: the phase throughputs are refused with ``"price"``, the
    prices with ``"gpu_time"``, and ``cached_cost_ratio`` with ``"price"`` and a cached price.

    Parameters
    ----------
    cost_usd_per_gpu_hour : float, array_like or pandas.Series
        TCO per accelerator-hour, in [0, 100] [USD/GPU-hour]
        (:func:`check_gpu_hour_cost`: a per-rack or per-year figure is refused).
    throughput_tok_per_s_per_gpu : float, array_like or pandas.Series
        Input + output tokens/s per accelerator of the deployment, in [0.01, 1e6]
        (:func:`check_throughput_per_gpu`) [tok/s/GPU].
    utilization_frac : float, array_like or pandas.Series
        Busy fraction of paid hours, in (0, 1].
    input_share_frac : float, array_like or pandas.Series
        Input (cached included) share of all tokens, in [0, 1].
    cache_hit_frac : float, array_like or pandas.Series, default 0
        Cached share of the input tokens, in [0, 1].
    rule : {"gpu_time", "price"}, default "gpu_time"
        Attribution rule, see above.
    prefill_throughput_tok_per_s_per_gpu, decode_throughput_tok_per_s_per_gpu : optional
        Required for ``rule="gpu_time"`` (and only used by it), > 0 [tok/s/GPU].
    cached_cost_ratio : float, optional
        Cost of a cached input token relative to an uncached one, in [0, 1]; default
        :data:`DEFAULT_CACHED_COST_RATIO` (0.1). With ``rule="price"`` it stands in for a cached
        price that is not given.
    input_usd_per_mtok, cached_input_usd_per_mtok, output_usd_per_mtok : optional
        List prices for ``rule="price"`` (input and output required; only used by it), 0 or in
        the price vocabulary's plausible range (:func:`check_usd_per_mtok`) [USD/Mtok]; the
        cached price at most the input price.

    Returns
    -------
    CostSplit
        ``(total_usd_per_mtok, input_usd_per_mtok, cached_input_usd_per_mtok,
        output_usd_per_mtok)`` [USD/Mtok].

    Raises
    ------
    ValueError
        Invalid inputs (element-wise; a $/token price, a cost above
        :data:`MAX_USD_PER_GPU_HOUR`, a cached price above the input price), an unknown rule,
        inputs missing for the rule, or inputs the rule would ignore.

    Examples
    --------
    Half the tokens are output, decode runs at 1/8 the prefill rate per GPU:

    >>> s = cost_split_per_mtok(2.0, 1000.0, 0.5, 0.5, prefill_throughput_tok_per_s_per_gpu=8000.0,
    ...                         decode_throughput_tok_per_s_per_gpu=1000.0)
    >>> [round(x, 4) for x in s]
    [1.1111, 0.2469, 0.0247, 1.9753]
    """
    _check_rule_inputs(rule, {
        "prefill_throughput_tok_per_s_per_gpu": prefill_throughput_tok_per_s_per_gpu,
        "decode_throughput_tok_per_s_per_gpu": decode_throughput_tok_per_s_per_gpu,
        "input_usd_per_mtok": input_usd_per_mtok, "cached_input_usd_per_mtok": cached_input_usd_per_mtok,
        "output_usd_per_mtok": output_usd_per_mtok,
    }, cached_cost_ratio)
    if cached_cost_ratio is None:
        cached_cost_ratio = DEFAULT_CACHED_COST_RATIO
    if rule == "gpu_time":
        if prefill_throughput_tok_per_s_per_gpu is None or decode_throughput_tok_per_s_per_gpu is None:
            raise ValueError(
                "rule='gpu_time' needs prefill_throughput_tok_per_s_per_gpu and "
                "decode_throughput_tok_per_s_per_gpu (tok/s of an accelerator doing only that "
                "phase); give them or use rule='price'"
            )
        rule_fields: tuple[tuple[str, Any, Any], ...] = (
            ("prefill_throughput_tok_per_s_per_gpu", prefill_throughput_tok_per_s_per_gpu, check_positive),
            ("decode_throughput_tok_per_s_per_gpu", decode_throughput_tok_per_s_per_gpu, check_positive),
        )
    elif rule == "price":
        if input_usd_per_mtok is None or output_usd_per_mtok is None:
            raise ValueError("rule='price' needs input_usd_per_mtok and output_usd_per_mtok")
        rule_fields = (
            ("input_usd_per_mtok", input_usd_per_mtok, _price),
            ("output_usd_per_mtok", output_usd_per_mtok, _price),
            (
                "cached_input_usd_per_mtok",
                0.0 if cached_input_usd_per_mtok is None else cached_input_usd_per_mtok,
                _price,
            ),
        )
    else:
        raise ValueError(f"rule={rule!r} is not one of 'gpu_time', 'price'")
    total = cost_per_mtok(cost_usd_per_gpu_hour, throughput_tok_per_s_per_gpu, utilization_frac)
    (c, k, s, h, *r), restore = prepare(
        ("total_usd_per_mtok", total, None),
        ("cached_cost_ratio", cached_cost_ratio, check_fraction),
        ("input_share_frac", input_share_frac, check_fraction),
        ("cache_hit_frac", cache_hit_frac, check_fraction),
        *rule_fields,
    )
    if rule == "gpu_time":
        w_in, w_out = 1.0 / r[0], 1.0 / r[1]
        w_c = k * w_in
    else:
        w_in, w_out = r[0], r[1]
        w_c = k * w_in if cached_input_usd_per_mtok is None else _cached_at_most_input(r[2], w_in)
    return _split(_attribute(c, s, h, w_in, w_c, w_out), restore)


_RULE_INPUTS: dict[str, tuple[str, ...]] = {
    "gpu_time": ("prefill_throughput_tok_per_s_per_gpu", "decode_throughput_tok_per_s_per_gpu"),
    "price": ("input_usd_per_mtok", "cached_input_usd_per_mtok", "output_usd_per_mtok"),
}


def _check_rule_inputs(rule: str, given: dict[str, Any], cached_cost_ratio: Any) -> None:
    """Refuse an input of the split rule not in use (it would be ignored)."""
    if rule not in _RULE_INPUTS:
        raise ValueError(f"rule={rule!r} is not one of 'gpu_time', 'price'")
    for other, names in _RULE_INPUTS.items():
        for name in names:
            if other != rule and given[name] is not None:
                raise ValueError(f"{name} is only used by rule={other!r}; rule={rule!r} ignores it: drop it or "
                                 f"use rule={other!r}")
    if rule == "price" and cached_cost_ratio is not None and given["cached_input_usd_per_mtok"] is not None:
        raise ValueError("cached_cost_ratio is not used by rule='price' when cached_input_usd_per_mtok is given "
                         "(the cached price weighs a cached token): drop one of them")


# --- prices, revenue and license fees ---


@kernel
def blended_price_usd_per_mtok(
    input_usd_per_mtok: Any,
    output_usd_per_mtok: Any,
    input_share_frac: Any,
    cache_hit_frac: Any = 0.0,
    cached_input_usd_per_mtok: Any = None,
) -> Any:
    """Revenue per Mtok of all tokens for a token mix and a price list.

    ``blended = s_in * ((1 - h) * p_in + h * p_cached) + (1 - s_in) * p_out``

    Parameters
    ----------
    input_usd_per_mtok, output_usd_per_mtok : float, array_like or pandas.Series
        List prices of uncached input and output tokens, 0 or in the price vocabulary's plausible
        range (:func:`check_usd_per_mtok`: [0.001, 1000]) [USD/Mtok].
    input_share_frac : float, array_like or pandas.Series
        Input (cached included) share of all tokens, in [0, 1].
    cache_hit_frac : float, array_like or pandas.Series, default 0
        Cached share of input tokens, in [0, 1] — a part of the input, not extra tokens.
    cached_input_usd_per_mtok : float, array_like or pandas.Series, optional
        Cached-input price, 0 or in [0.001, 1000] and at most ``input_usd_per_mtok``
        [USD/Mtok]; default ``0.1 * input_usd_per_mtok`` (:data:`DEFAULT_CACHED_COST_RATIO`).

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Blended price [USD/Mtok].

    Raises
    ------
    ValueError
        Negative or implausible prices (a $/token figure), a cached price above the input
        price, or fractions outside [0, 1] (element-wise, percent hint).

    Examples
    --------
    >>> blended_price_usd_per_mtok(1.0, 4.0, 0.75, 0.5, 0.2)
    1.45
    """
    cached_given = cached_input_usd_per_mtok is not None
    (p_in, p_out, s, h, p_c), restore = prepare(
        ("input_usd_per_mtok", input_usd_per_mtok, _price),
        ("output_usd_per_mtok", output_usd_per_mtok, _price),
        ("input_share_frac", input_share_frac, check_fraction),
        ("cache_hit_frac", cache_hit_frac, check_fraction),
        ("cached_input_usd_per_mtok", cached_input_usd_per_mtok if cached_given else 0.0, _price),
    )
    p_c = _cached_at_most_input(p_c, p_in) if cached_given else DEFAULT_CACHED_COST_RATIO * p_in
    return restore(s * ((1.0 - h) * p_in + h * p_c) + (1.0 - s) * p_out, "blended_price_usd_per_mtok")


@kernel
def revenue_usd_per_gpu_hour(throughput_tok_per_s_per_gpu: Any, utilization_frac: Any, price_usd_per_mtok: Any) -> Any:
    """Revenue per allocated accelerator-hour.

    ``revenue = throughput * 3600 * utilization * price / 1e6``

    Parameters
    ----------
    throughput_tok_per_s_per_gpu : float, array_like or pandas.Series
        Input + output tokens/s per accelerator, in [0.01, 1e6]
        (:func:`check_throughput_per_gpu`) [tok/s/GPU].
    utilization_frac : float, array_like or pandas.Series
        Busy fraction of paid hours, in (0, 1].
    price_usd_per_mtok : float, array_like or pandas.Series
        Blended price over all tokens (see :func:`blended_price_usd_per_mtok`), 0 or in
        [0.001, 1000] (:func:`check_usd_per_mtok`: a $/token figure is refused) [USD/Mtok].

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Revenue [USD/GPU-hour].

    Raises
    ------
    ValueError
        Invalid inputs, element-wise (a $/token price is refused).

    Examples
    --------
    >>> round(revenue_usd_per_gpu_hour(1000.0, 0.5, 2.0), 6)
    3.6
    """
    q = served_mtok_per_gpu_hour(throughput_tok_per_s_per_gpu, utilization_frac)
    (q_a, p), restore = prepare(
        ("served_mtok_per_gpu_hour", q, None), ("price_usd_per_mtok", price_usd_per_mtok, _price)
    )
    return restore(q_a * p, "revenue_usd_per_gpu_hour")


class LicenseFee(BaseModel):
    """Software/model license fee: a revenue share, a royalty per Mtok, a fixed hourly fee, or all.

    ``fee_usd_per_gpu_hour = revenue_frac * revenue + usd_per_mtok * Q + usd_per_gpu_hour``
    where ``Q`` is the served Mtok per GPU-hour (all tokens).

    Parameters
    ----------
    revenue_frac : float, default 0
        Share of revenue paid to the licensor, in [0, 1) (0.30, not 30).
    usd_per_mtok : float, default 0
        Royalty per million tokens served (input + output), 0 or in [0.001, 1000] [USD/Mtok].
    usd_per_gpu_hour : float, default 0
        Fixed fee per allocated accelerator-hour, in [0, 100] [USD/GPU-hour].

    Examples
    --------
    >>> LicenseFee(revenue_frac=0.3).fee_usd_per_gpu_hour(10.0, 1000.0, 1.0)
    3.0
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    revenue_frac: float = 0.0
    usd_per_mtok: float = 0.0
    usd_per_gpu_hour: float = 0.0

    @field_validator("revenue_frac")
    @classmethod
    def _frac(cls, value: float) -> float:
        check_fraction("revenue_frac", value, high_inclusive=False)
        return value

    @field_validator("usd_per_mtok")
    @classmethod
    def _royalty(cls, value: float) -> float:
        check_usd_per_mtok("usd_per_mtok", value)
        return value

    @field_validator("usd_per_gpu_hour")
    @classmethod
    def _fixed(cls, value: float) -> float:
        check_gpu_hour_cost("usd_per_gpu_hour", value, allow_zero=True)
        return value

    def fee_usd_per_gpu_hour(
        self,
        revenue_usd_per_gpu_hour: Any,
        throughput_tok_per_s_per_gpu: Any,
        utilization_frac: Any,
    ) -> Any:
        """License fee per allocated GPU-hour; see :func:`license_fee_usd_per_gpu_hour`.

        Parameters
        ----------
        revenue_usd_per_gpu_hour : float, array_like or pandas.Series
            Revenue [USD/GPU-hour].
        throughput_tok_per_s_per_gpu : float, array_like or pandas.Series
            Tokens/s per accelerator [tok/s/GPU].
        utilization_frac : float, array_like or pandas.Series
            Busy fraction, in (0, 1].

        Returns
        -------
        float, numpy.ndarray or pandas.Series
            Fee [USD/GPU-hour].
        """
        return license_fee_usd_per_gpu_hour(
            revenue_usd_per_gpu_hour,
            throughput_tok_per_s_per_gpu,
            utilization_frac,
            license_fee_frac=self.revenue_frac,
            license_usd_per_mtok=self.usd_per_mtok,
            license_usd_per_gpu_hour=self.usd_per_gpu_hour,
        )


@kernel
def license_fee_usd_per_gpu_hour(
    revenue_usd_per_gpu_hour: Any,
    throughput_tok_per_s_per_gpu: Any,
    utilization_frac: Any,
    license_fee_frac: Any = 0.0,
    license_usd_per_mtok: Any = 0.0,
    license_usd_per_gpu_hour: Any = 0.0,
) -> Any:
    """License fee per allocated accelerator-hour.

    ``fee = license_fee_frac * revenue + license_usd_per_mtok * Q + license_usd_per_gpu_hour``,
    ``Q = throughput * 3600 * utilization / 1e6`` [Mtok/GPU-hour].

    Parameters
    ----------
    revenue_usd_per_gpu_hour : float, array_like or pandas.Series
        Revenue, >= 0 [USD/GPU-hour].
    throughput_tok_per_s_per_gpu : float, array_like or pandas.Series
        Input + output tokens/s per accelerator, in [0.01, 1e6]
        (:func:`check_throughput_per_gpu`) [tok/s/GPU].
    utilization_frac : float, array_like or pandas.Series
        Busy fraction, in (0, 1].
    license_fee_frac : float, array_like or pandas.Series, default 0
        Revenue share, in [0, 1).
    license_usd_per_mtok : float, array_like or pandas.Series, default 0
        Royalty per Mtok of all tokens, 0 or in [0.001, 1000] (:func:`check_usd_per_mtok`) [USD/Mtok].
    license_usd_per_gpu_hour : float, array_like or pandas.Series, default 0
        Fixed fee, in [0, 100] (:func:`check_gpu_hour_cost`) [USD/GPU-hour].

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Fee [USD/GPU-hour].

    Raises
    ------
    ValueError
        Invalid inputs, element-wise; a percent (30) for ``license_fee_frac`` gets a hint, a
        $/token royalty or a fixed fee above :data:`MAX_USD_PER_GPU_HOUR` is refused.

    Examples
    --------
    >>> round(license_fee_usd_per_gpu_hour(10.0, 1000.0, 1.0, 0.3, 0.5, 0.1), 6)
    4.9
    """
    q = served_mtok_per_gpu_hour(throughput_tok_per_s_per_gpu, utilization_frac)
    (r, q_a, f, rho, fixed), restore = prepare(
        ("revenue_usd_per_gpu_hour", revenue_usd_per_gpu_hour, check_nonnegative),
        ("served_mtok_per_gpu_hour", q, None),
        *_license_fields(license_fee_frac, license_usd_per_mtok, license_usd_per_gpu_hour),
    )
    return restore(f * r + rho * q_a + fixed, "license_fee_usd_per_gpu_hour")


# --- profit and margin ---


def _profit_inputs(
    price_usd_per_mtok: Any,
    throughput_tok_per_s_per_gpu: Any,
    utilization_frac: Any,
    cost_usd_per_gpu_hour: Any,
    license_fee_frac: Any,
    license_usd_per_mtok: Any,
    license_usd_per_gpu_hour: Any,
) -> tuple[list[np.ndarray], Any]:
    return prepare(
        ("price_usd_per_mtok", price_usd_per_mtok, _positive_price),
        ("throughput_tok_per_s_per_gpu", throughput_tok_per_s_per_gpu, check_throughput_per_gpu),
        ("utilization_frac", utilization_frac, _util),
        ("cost_usd_per_gpu_hour", cost_usd_per_gpu_hour, _cost),
        *_license_fields(license_fee_frac, license_usd_per_mtok, license_usd_per_gpu_hour),
    )


@kernel
def profit_usd_per_gpu_hour(
    price_usd_per_mtok: Any,
    throughput_tok_per_s_per_gpu: Any,
    utilization_frac: Any,
    cost_usd_per_gpu_hour: Any,
    license_fee_frac: Any = 0.0,
    license_usd_per_mtok: Any = 0.0,
    license_usd_per_gpu_hour: Any = 0.0,
) -> Any:
    """Gross profit per allocated accelerator-hour: revenue less license fee less TCO.

    ``profit = Q * (p * (1 - f) - rho) - F - K`` with ``Q = throughput * 3600 * u / 1e6``,
    ``p`` the blended price, ``f`` the revenue share, ``rho`` the royalty per Mtok, ``F`` the
    fixed license fee per GPU-hour and ``K`` the TCO per GPU-hour.

    Parameters
    ----------
    price_usd_per_mtok : float, array_like or pandas.Series
        Blended price over all tokens, in [0.001, 1000] [USD/Mtok] (:func:`check_usd_per_mtok`: a
        $/token figure is refused).
    throughput_tok_per_s_per_gpu : float, array_like or pandas.Series
        Input + output tokens/s per accelerator, in [0.01, 1e6]
        (:func:`check_throughput_per_gpu`) [tok/s/GPU].
    utilization_frac : float, array_like or pandas.Series
        Busy fraction of paid hours, in (0, 1].
    cost_usd_per_gpu_hour : float, array_like or pandas.Series
        TCO per accelerator-hour, in [0, 100] [USD/GPU-hour]
        (:func:`check_gpu_hour_cost`: a per-rack or per-year figure is refused).
    license_fee_frac : float, array_like or pandas.Series, default 0
        Revenue share paid as license fee, in [0, 1).
    license_usd_per_mtok : float, array_like or pandas.Series, default 0
        Royalty per Mtok of all tokens, 0 or in [0.001, 1000] [USD/Mtok].
    license_usd_per_gpu_hour : float, array_like or pandas.Series, default 0
        Fixed license fee, in [0, 100] [USD/GPU-hour].

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Profit [USD/GPU-hour]; negative for a loss.

    Raises
    ------
    ValueError
        Invalid inputs, element-wise: percent hints for fractions; a $/token price, a per-rack or
        per-year cost or fixed fee, a $/token royalty are refused.

    Examples
    --------
    >>> round(profit_usd_per_gpu_hour(2.0, 1000.0, 0.5, 2.0, 0.3), 6)
    0.52
    """
    (p, t, u, k, f, rho, fixed), restore = _profit_inputs(
        price_usd_per_mtok,
        throughput_tok_per_s_per_gpu,
        utilization_frac,
        cost_usd_per_gpu_hour,
        license_fee_frac,
        license_usd_per_mtok,
        license_usd_per_gpu_hour,
    )
    q = t * (u * _MTOK_PER_TOK_S_HOUR)
    return restore(q * (p * (1.0 - f) - rho) - (fixed + k), "profit_usd_per_gpu_hour")


@kernel
def gross_margin_frac(
    price_usd_per_mtok: Any,
    throughput_tok_per_s_per_gpu: Any,
    utilization_frac: Any,
    cost_usd_per_gpu_hour: Any,
    license_fee_frac: Any = 0.0,
    license_usd_per_mtok: Any = 0.0,
    license_usd_per_gpu_hour: Any = 0.0,
) -> Any:
    """Gross margin: (revenue - license fee - TCO) / revenue.

    ``m = (1 - f) - (rho + (F + K) / Q) / p`` — the same quantity as
    ``profit_usd_per_gpu_hour / revenue_usd_per_gpu_hour``.

    Parameters
    ----------
    price_usd_per_mtok, throughput_tok_per_s_per_gpu, utilization_frac, cost_usd_per_gpu_hour
        As :func:`profit_usd_per_gpu_hour`.
    license_fee_frac, license_usd_per_mtok, license_usd_per_gpu_hour
        As :func:`profit_usd_per_gpu_hour`.

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Gross margin, a fraction <= 1 - license_fee_frac; negative for a loss.

    Raises
    ------
    ValueError
        Invalid inputs, element-wise, as :func:`profit_usd_per_gpu_hour` (a $/token price, a
        per-rack or per-year cost are refused).

    Examples
    --------
    >>> round(gross_margin_frac(2.0, 1000.0, 0.5, 2.0, 0.3), 6)
    0.144444
    """
    (p, t, u, k, f, rho, fixed), restore = _profit_inputs(
        price_usd_per_mtok,
        throughput_tok_per_s_per_gpu,
        utilization_frac,
        cost_usd_per_gpu_hour,
        license_fee_frac,
        license_usd_per_mtok,
        license_usd_per_gpu_hour,
    )
    q = t * (u * _MTOK_PER_TOK_S_HOUR)
    return restore((1.0 - f) - (rho + (fixed + k) / q) / p, "gross_margin_frac")


@kernel
def usd_per_gpu_year(value_usd_per_gpu_hour: Any) -> Any:
    """Convert an amount per accelerator-hour to per accelerator-year (8760 h).

    Parameters
    ----------
    value_usd_per_gpu_hour : float, array_like or pandas.Series
        Amount [USD/GPU-hour]; may be negative (a loss).

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Amount [USD/GPU-year].

    Examples
    --------
    >>> usd_per_gpu_year(1.0)
    8760.0
    """
    (v,), restore = prepare(("value_usd_per_gpu_hour", value_usd_per_gpu_hour, _any))
    return restore(v * HOURS_PER_YEAR, "value_usd_per_gpu_year")


@kernel
def usd_per_mw_year(value_usd_per_gpu_hour: Any, facility_power_kw_per_accelerator: Any) -> Any:
    """Convert an amount per accelerator-hour to per MW of facility power per year.

    ``value_usd_per_mw_year = value_usd_per_gpu_hour * 8760 * 1000 / facility_kw_per_gpu``

    Parameters
    ----------
    value_usd_per_gpu_hour : float, array_like or pandas.Series
        Amount [USD/GPU-hour].
    facility_power_kw_per_accelerator : float, array_like or pandas.Series
        Facility (all-in, after PUE) power per accelerator, in [0.01, 30]
        (:func:`check_power_kw`) [kW]; for an IT-power figure multiply by the PUE first.

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Amount [USD/MW-year].

    Raises
    ------
    ValueError
        Power not > 0 or outside its plausible range (a W figure for kW), or NaN inputs.

    Examples
    --------
    >>> usd_per_mw_year(1.0, 2.0)
    4380000.0
    """
    (v, kw), restore = prepare(
        ("value_usd_per_gpu_hour", value_usd_per_gpu_hour, _any),
        ("facility_power_kw_per_accelerator", facility_power_kw_per_accelerator, _power),
    )
    return restore(v * (HOURS_PER_YEAR * KW_PER_MW) / kw, "value_usd_per_mw_year")


@kernel
def profit_usd_per_gpu_year(
    price_usd_per_mtok: Any,
    throughput_tok_per_s_per_gpu: Any,
    utilization_frac: Any,
    cost_usd_per_gpu_hour: Any,
    license_fee_frac: Any = 0.0,
    license_usd_per_mtok: Any = 0.0,
    license_usd_per_gpu_hour: Any = 0.0,
) -> Any:
    """Gross profit per accelerator-year: ``profit_usd_per_gpu_hour * 8760``.

    Parameters
    ----------
    price_usd_per_mtok, throughput_tok_per_s_per_gpu, utilization_frac, cost_usd_per_gpu_hour
        As :func:`profit_usd_per_gpu_hour`.
    license_fee_frac, license_usd_per_mtok, license_usd_per_gpu_hour
        As :func:`profit_usd_per_gpu_hour`.

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Profit [USD/GPU-year].

    Examples
    --------
    >>> round(profit_usd_per_gpu_year(2.0, 1000.0, 0.5, 2.0, 0.3), 2)
    4555.2
    """
    return _renamed(usd_per_gpu_year(
        profit_usd_per_gpu_hour(
            price_usd_per_mtok,
            throughput_tok_per_s_per_gpu,
            utilization_frac,
            cost_usd_per_gpu_hour,
            license_fee_frac,
            license_usd_per_mtok,
            license_usd_per_gpu_hour,
        )
    ), "profit_usd_per_gpu_year")


@kernel
def profit_usd_per_mw_year(
    price_usd_per_mtok: Any,
    throughput_tok_per_s_per_gpu: Any,
    utilization_frac: Any,
    cost_usd_per_gpu_hour: Any,
    facility_power_kw_per_accelerator: Any,
    license_fee_frac: Any = 0.0,
    license_usd_per_mtok: Any = 0.0,
    license_usd_per_gpu_hour: Any = 0.0,
) -> Any:
    """Gross profit per MW of facility power per year.

    ``profit_usd_per_mw_year = profit_usd_per_gpu_hour * 8760 * 1000 / facility_kw_per_gpu``

    Parameters
    ----------
    price_usd_per_mtok, throughput_tok_per_s_per_gpu, utilization_frac, cost_usd_per_gpu_hour
        As :func:`profit_usd_per_gpu_hour`.
    facility_power_kw_per_accelerator : float, array_like or pandas.Series
        Facility power per accelerator (IT power x PUE), in [0.01, 30] [kW].
    license_fee_frac, license_usd_per_mtok, license_usd_per_gpu_hour
        As :func:`profit_usd_per_gpu_hour`.

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Profit [USD/MW-year].

    Examples
    --------
    >>> round(profit_usd_per_mw_year(2.0, 1000.0, 0.5, 2.0, 2.0, 0.3))
    2277600
    """
    return _renamed(usd_per_mw_year(
        profit_usd_per_gpu_hour(
            price_usd_per_mtok,
            throughput_tok_per_s_per_gpu,
            utilization_frac,
            cost_usd_per_gpu_hour,
            license_fee_frac,
            license_usd_per_mtok,
            license_usd_per_gpu_hour,
        ),
        facility_power_kw_per_accelerator,
    ), "profit_usd_per_mw_year")


# --- break-evens (closed form) ---


def _breakeven_utilization(
    p: Any, t: Any, k: Any, f: Any, rho: Any, fixed: Any, m: Any
) -> tuple[Any, Any]:
    """Closed-form break-even utilization and its infeasibility mask (arrays, no checks)."""
    a = (1.0 - f - m) - rho / p
    with np.errstate(divide="ignore", invalid="ignore"):
        u = (fixed + k) / (p * a) / (t * _MTOK_PER_TOK_S_HOUR)
    return u, (a <= 0.0) | ~(u <= 1.0) | ~(u > 0.0)


def _breakeven_price(t: Any, u: Any, k: Any, f: Any, rho: Any, fixed: Any, m: Any) -> tuple[Any, Any]:
    """Closed-form break-even blended price and its infeasibility mask (arrays, no checks)."""
    denom = 1.0 - f - m
    q = t * (u * _MTOK_PER_TOK_S_HOUR)
    with np.errstate(divide="ignore", invalid="ignore"):
        price = (rho + (fixed + k) / q) / denom
    return price, ~(denom > 0.0) | ~(price > 0.0)


@kernel
def breakeven_utilization_frac(
    price_usd_per_mtok: Any,
    throughput_tok_per_s_per_gpu: Any,
    cost_usd_per_gpu_hour: Any,
    license_fee_frac: Any = 0.0,
    license_usd_per_mtok: Any = 0.0,
    license_usd_per_gpu_hour: Any = 0.0,
    target_margin_frac: Any = 0.0,
    on_infeasible: OnInfeasible = "raise",
) -> Any:
    """Utilization at which the gross margin equals a target (0: break-even).

    From ``m = (1 - f) - (rho + (F + K) / Q) / p``:
    ``Q* = (F + K) / (p * a)`` with ``a = 1 - f - m* - rho / p``, and
    ``u* = Q* * 1e6 / (throughput * 3600)``. Margin rises with utilization, so any ``u >= u*``
    meets the target.

    Parameters
    ----------
    price_usd_per_mtok : float, array_like or pandas.Series
        Blended price, in [0.001, 1000] (:func:`check_usd_per_mtok`: a $/token figure is refused) [USD/Mtok].
    throughput_tok_per_s_per_gpu : float, array_like or pandas.Series
        Tokens/s per accelerator while busy, in [0.01, 1e6]
        (:func:`check_throughput_per_gpu`) [tok/s/GPU].
    cost_usd_per_gpu_hour : float, array_like or pandas.Series
        TCO, in (0, 100] (:func:`check_gpu_hour_cost`) [USD/GPU-hour] (with no hourly cost the
        margin does not depend on utilization).
    license_fee_frac, license_usd_per_mtok, license_usd_per_gpu_hour : optional
        License terms, as :func:`profit_usd_per_gpu_hour`.
    target_margin_frac : float, array_like or pandas.Series, default 0
        Target gross margin, < 1.
    on_infeasible : {"raise", "nan"}, default "raise"
        What to do where no utilization in (0, 1] reaches the target (``a <= 0`` or
        ``u* > 1``): raise ``ValueError`` naming the first such element, or return NaN there.
        Inputs are validated to be non-NaN, so with ``"nan"`` the NaNs are exactly the
        infeasible elements (``numpy.isnan`` is the mask).

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Break-even utilization in (0, 1].

    Raises
    ------
    ValueError
        Invalid inputs (a $/token price, a per-rack or per-year cost), or no solution in (0, 1]
        with ``on_infeasible="raise"``.

    Examples
    --------
    >>> round(breakeven_utilization_frac(2.0, 1000.0, 2.0, 0.3), 6)
    0.396825
    """
    (p, t, k, f, rho, fixed, m), restore = prepare(
        ("price_usd_per_mtok", price_usd_per_mtok, _positive_price),
        ("throughput_tok_per_s_per_gpu", throughput_tok_per_s_per_gpu, check_throughput_per_gpu),
        ("cost_usd_per_gpu_hour", cost_usd_per_gpu_hour, _positive_cost),
        *_license_fields(license_fee_frac, license_usd_per_mtok, license_usd_per_gpu_hour),
        ("target_margin_frac", target_margin_frac, _target),
    )
    u, infeasible = _breakeven_utilization(p, t, k, f, rho, fixed, m)
    return _finish_breakeven(
        "utilization in (0, 1]",
        "breakeven_utilization_frac",
        u,
        infeasible,
        "price after license fees is too low for the throughput and cost",
        on_infeasible,
        restore,
    )


@kernel
def breakeven_price_usd_per_mtok(
    throughput_tok_per_s_per_gpu: Any,
    utilization_frac: Any,
    cost_usd_per_gpu_hour: Any,
    license_fee_frac: Any = 0.0,
    license_usd_per_mtok: Any = 0.0,
    license_usd_per_gpu_hour: Any = 0.0,
    target_margin_frac: Any = 0.0,
    on_infeasible: OnInfeasible = "raise",
) -> Any:
    """Blended price at which the gross margin equals a target (0: break-even).

    ``p* = (rho + (F + K) / Q) / (1 - f - m*)`` with ``Q = throughput * 3600 * u / 1e6``.

    Parameters
    ----------
    throughput_tok_per_s_per_gpu : float, array_like or pandas.Series
        Tokens/s per accelerator while busy, in [0.01, 1e6]
        (:func:`check_throughput_per_gpu`) [tok/s/GPU].
    utilization_frac : float, array_like or pandas.Series
        Busy fraction, in (0, 1].
    cost_usd_per_gpu_hour : float, array_like or pandas.Series
        TCO, in (0, 100] (:func:`check_gpu_hour_cost`) [USD/GPU-hour].
    license_fee_frac, license_usd_per_mtok, license_usd_per_gpu_hour : optional
        License terms, as :func:`profit_usd_per_gpu_hour`.
    target_margin_frac : float, array_like or pandas.Series, default 0
        Target gross margin, < 1.
    on_infeasible : {"raise", "nan"}, default "raise"
        Where ``1 - f - m* <= 0`` no price reaches the target (the revenue share alone
        exceeds the allowed cost share): raise, or return NaN there.

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Break-even blended price [USD/Mtok], > 0.

    Raises
    ------
    ValueError
        Invalid inputs (a $/token price, a per-rack or per-year cost), or no solution with
        ``on_infeasible="raise"``.

    Examples
    --------
    >>> round(breakeven_price_usd_per_mtok(1000.0, 0.5, 2.0, 0.3), 6)
    1.587302
    """
    (t, u, k, f, rho, fixed, m), restore = prepare(
        ("throughput_tok_per_s_per_gpu", throughput_tok_per_s_per_gpu, check_throughput_per_gpu),
        ("utilization_frac", utilization_frac, _util),
        ("cost_usd_per_gpu_hour", cost_usd_per_gpu_hour, _positive_cost),
        *_license_fields(license_fee_frac, license_usd_per_mtok, license_usd_per_gpu_hour),
        ("target_margin_frac", target_margin_frac, _target),
    )
    price, infeasible = _breakeven_price(t, u, k, f, rho, fixed, m)
    return _finish_breakeven(
        "price",
        "breakeven_price_usd_per_mtok",
        price,
        infeasible,
        "license_fee_frac + target_margin_frac >= 1",
        on_infeasible,
        restore,
    )


@kernel
def breakeven_license_fee_frac(
    price_usd_per_mtok: Any,
    throughput_tok_per_s_per_gpu: Any,
    utilization_frac: Any,
    cost_usd_per_gpu_hour: Any,
    license_usd_per_mtok: Any = 0.0,
    license_usd_per_gpu_hour: Any = 0.0,
    target_margin_frac: Any = 0.0,
    on_infeasible: OnInfeasible = "raise",
) -> Any:
    """Largest revenue-share license fee at which the gross margin still equals a target.

    ``f* = 1 - m* - (rho + (F + K) / Q) / p``

    Parameters
    ----------
    price_usd_per_mtok : float, array_like or pandas.Series
        Blended price, in [0.001, 1000] (:func:`check_usd_per_mtok`: a $/token figure is refused) [USD/Mtok].
    throughput_tok_per_s_per_gpu : float, array_like or pandas.Series
        Tokens/s per accelerator while busy, in [0.01, 1e6]
        (:func:`check_throughput_per_gpu`) [tok/s/GPU].
    utilization_frac : float, array_like or pandas.Series
        Busy fraction, in (0, 1].
    cost_usd_per_gpu_hour : float, array_like or pandas.Series
        TCO, in [0, 100] (:func:`check_gpu_hour_cost`: a per-rack or per-year figure is refused) [USD/GPU-hour].
    license_usd_per_mtok, license_usd_per_gpu_hour : optional
        Other license terms paid on top of the revenue share, >= 0.
    target_margin_frac : float, array_like or pandas.Series, default 0
        Target gross margin, < 1.
    on_infeasible : {"raise", "nan"}, default "raise"
        Where ``f* < 0`` (the target is missed even without a revenue share) or
        ``f* >= 1``: raise, or return NaN there.

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Break-even license fee fraction in [0, 1).

    Raises
    ------
    ValueError
        Invalid inputs (a $/token price, a per-rack or per-year cost), or no solution with
        ``on_infeasible="raise"``.

    Examples
    --------
    >>> round(breakeven_license_fee_frac(2.0, 1000.0, 0.5, 2.0), 6)
    0.444444
    """
    (p, t, u, k, _, rho, fixed, m), restore = prepare(
        ("price_usd_per_mtok", price_usd_per_mtok, _positive_price),
        ("throughput_tok_per_s_per_gpu", throughput_tok_per_s_per_gpu, check_throughput_per_gpu),
        ("utilization_frac", utilization_frac, _util),
        ("cost_usd_per_gpu_hour", cost_usd_per_gpu_hour, _cost),
        *_license_fields(0.0, license_usd_per_mtok, license_usd_per_gpu_hour),
        ("target_margin_frac", target_margin_frac, _target),
    )
    q = t * (u * _MTOK_PER_TOK_S_HOUR)
    f = 1.0 - m - (rho + (fixed + k) / q) / p
    return _finish_breakeven(
        "license_fee_frac in [0, 1)",
        "breakeven_license_fee_frac",
        f,
        (f < 0.0) | (f >= 1.0),
        "the target margin is missed even with no revenue-share fee",
        on_infeasible,
        restore,
    )


@kernel
def breakeven_cost_usd_per_gpu_hour(
    price_usd_per_mtok: Any,
    throughput_tok_per_s_per_gpu: Any,
    utilization_frac: Any,
    license_fee_frac: Any = 0.0,
    license_usd_per_mtok: Any = 0.0,
    license_usd_per_gpu_hour: Any = 0.0,
    target_margin_frac: Any = 0.0,
    on_infeasible: OnInfeasible = "raise",
) -> Any:
    """Highest TCO per accelerator-hour at which the gross margin equals a target.

    ``K* = Q * (p * (1 - f - m*) - rho) - F`` with ``Q = throughput * 3600 * u / 1e6``.

    Parameters
    ----------
    price_usd_per_mtok : float, array_like or pandas.Series
        Blended price, in [0.001, 1000] (:func:`check_usd_per_mtok`: a $/token figure is refused) [USD/Mtok].
    throughput_tok_per_s_per_gpu : float, array_like or pandas.Series
        Tokens/s per accelerator while busy, in [0.01, 1e6]
        (:func:`check_throughput_per_gpu`) [tok/s/GPU].
    utilization_frac : float, array_like or pandas.Series
        Busy fraction, in (0, 1].
    license_fee_frac, license_usd_per_mtok, license_usd_per_gpu_hour : optional
        License terms, as :func:`profit_usd_per_gpu_hour`.
    target_margin_frac : float, array_like or pandas.Series, default 0
        Target gross margin, < 1.
    on_infeasible : {"raise", "nan"}, default "raise"
        Where ``K* < 0`` (the target is missed even with free hardware): raise, or NaN.

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Break-even TCO [USD/GPU-hour], >= 0.

    Raises
    ------
    ValueError
        Invalid inputs (a $/token price, a per-rack or per-year cost), or no solution with
        ``on_infeasible="raise"``.

    Examples
    --------
    >>> round(breakeven_cost_usd_per_gpu_hour(2.0, 1000.0, 0.5, 0.3), 6)
    2.52
    """
    (p, t, u, f, rho, fixed, m), restore = prepare(
        ("price_usd_per_mtok", price_usd_per_mtok, _positive_price),
        ("throughput_tok_per_s_per_gpu", throughput_tok_per_s_per_gpu, check_throughput_per_gpu),
        ("utilization_frac", utilization_frac, _util),
        *_license_fields(license_fee_frac, license_usd_per_mtok, license_usd_per_gpu_hour),
        ("target_margin_frac", target_margin_frac, _target),
    )
    q = t * (u * _MTOK_PER_TOK_S_HOUR)
    k = q * (p * (1.0 - f - m) - rho) - fixed
    return _finish_breakeven(
        "cost_usd_per_gpu_hour >= 0",
        "breakeven_cost_usd_per_gpu_hour",
        k,
        k < 0.0,
        "the target margin is missed even with zero hardware cost",
        on_infeasible,
        restore,
    )
