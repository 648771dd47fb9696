"""Fleets and days: tokens per day by class -> accelerators, cost, revenue and margin per day.

Two questions, one set of kernels (:mod:`tokenomics.economics`):

* :func:`fleet_per_day` -- *plan*: tokens per day (input, of which cached, and output), a
  throughput and a utilization -> the accelerators needed and the day's cost, revenue and margin;
* :func:`serving_day` -- *account*: a day of serving as DeepSeek published one (node count,
  $/GPU-hour, tokens in / cached / out, list prices) -> cost, revenue and margins of that day.

Token classes follow the economics convention: cached input is a *part* of the input, never on
top of it (``cached_input_tokens_per_day <= input_tokens_per_day``). Revenue prices uncached
input, cached input and output at their list prices (the blended price of the mix); cost is
the paid accelerator-hours times the TCO per accelerator-hour.

Two margins are reported, as the field uses both: the **gross margin** ``(R - L - C) / R`` and
the **cost-profit margin** ``(R - L - C) / C`` (DeepSeek's "cost profit margin" of 545 %).

A fleet is never rounded silently: ``accelerators_needed`` is the fractional requirement,
``accelerators`` the whole accelerators paid for (``ceil``), ``paid_utilization_frac`` the busy
share of the paid fleet after rounding, and ``fleet_note`` states any rounding; cost and margins
use the whole fleet.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from tokenomics import catalog
from tokenomics._numeric import series_index
from tokenomics._validate import check_fraction, check_nonnegative, check_plausible, check_positive, check_range
from tokenomics.cost.energy import energy_j_per_token, tok_per_s_per_mw
from tokenomics.cost.tco import check_gpu_hour_cost
from tokenomics.economics import (
    MAX_THROUGHPUT_TOK_PER_S_PER_GPU,
    MIN_THROUGHPUT_TOK_PER_S_PER_GPU,
    blended_price_usd_per_mtok,
    check_throughput_per_gpu,
    check_usd_per_mtok,
    cost_per_mtok,
    gross_margin_frac,
    input_share_frac_from_tokens,
    license_fee_usd_per_gpu_hour,
    profit_usd_per_mw_year,
    revenue_usd_per_gpu_hour,
)
from tokenomics.units import SECONDS_PER_HOUR

__all__ = ["FLEET_COLUMNS", "HOURS_PER_DAY", "MIN_TOKENS_PER_DAY", "fleet_per_day", "serving_day"]

HOURS_PER_DAY: float = 24.0
"""Hours in a day [h/day]."""

MIN_TOKENS_PER_DAY: float = 1e6
"""Smallest plausible day's tokens (input + output) of a fleet plan [tokens/day].

One Mtok a day is 12 tokens per second on average: under 1 % of one accelerator's day at any
throughput above 1,200 tok/s, no fleet to plan. A day's volume written in Mtok where tokens are
meant (8,000 for 8e9) lands below it for every fleet serving under 1e12 tokens a day."""

FLEET_COLUMNS: dict[str, str] = {
    "input_tokens_per_day": "prompt tokens per day, cached included [tokens/day]",
    "cached_input_tokens_per_day": "prompt tokens per day served from the prefix cache [tokens/day]",
    "output_tokens_per_day": "generated tokens per day [tokens/day]",
    "cache_hit_frac": "cached share of the input tokens",
    "throughput_tok_per_s_per_gpu": "input + output tokens per second per busy accelerator [tok/s/GPU]",
    "accelerators_needed": "accelerators the tokens need at the utilization (fractional) [GPUs]",
    "accelerators": "accelerators paid for (whole for a plan; as given for an account) [GPUs]",
    "paid_utilization_frac": "busy share of the paid accelerator-hours",
    "gpu_hours_per_day": "paid accelerator-hours per day [GPU-hours/day]",
    "blended_price_usd_per_mtok": "revenue per Mtok of all tokens at the list prices [USD/Mtok]",
    "cost_usd_per_mtok": "cost per Mtok of all tokens served [USD/Mtok]",
    "cost_usd_per_day": "TCO of the paid accelerator-hours [USD/day]",
    "revenue_usd_per_day": "revenue at the list prices [USD/day]",
    "license_usd_per_day": "license fees [USD/day]",
    "profit_usd_per_day": "revenue - license - cost [USD/day]",
    "gross_margin_frac": "profit / revenue",
    "cost_profit_margin_frac": "profit / cost (DeepSeek's 'cost profit margin')",
    "energy_j_per_token": "facility energy per served token, idle hours included [J/token] (NaN: no power given)",
    "tok_per_s_per_mw": "served tokens per second per MW of facility power [tok/s/MW] (NaN: no power given)",
    "profit_usd_per_mw_year": "profit per MW of facility power per year [USD/MW-year] (NaN: no power given)",
    "fleet_note": "rounding of the fleet, stated",
}
"""Columns of :func:`fleet_per_day` and :func:`serving_day`."""

_SECONDS_PER_DAY = SECONDS_PER_HOUR * HOURS_PER_DAY


def _tokens(input_tokens: Any, cached: Any, output: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    check_nonnegative("input_tokens_per_day", input_tokens)
    check_nonnegative("cached_input_tokens_per_day", cached)
    check_nonnegative("output_tokens_per_day", output)
    i, c, o = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (input_tokens, cached, output))
    i, c, o = np.broadcast_arrays(i, c, o)
    over = c > i
    if over.any():
        k = int(np.flatnonzero(over)[0])
        raise ValueError(
            f"cached_input_tokens_per_day={c[k]:.6g} exceeds input_tokens_per_day={i[k]:.6g}: cached tokens "
            "are a part of the input, not extra tokens"
        )
    total = i + o
    if (total <= 0).any():
        k = int(np.flatnonzero(total <= 0)[0])
        raise ValueError(
            f"no tokens per day at position {k} (input + output = 0): a zero fleet has no cost per token "
            "or margin; give a positive token volume"
        )
    return i, c, o


def _check_terms(cost_usd_per_gpu_hour: Any, input_usd_per_mtok: Any, output_usd_per_mtok: Any,
                 cached_input_usd_per_mtok: Any) -> None:
    """Check the TCO and list prices as every entry point does (per-system hours and $/token refused)."""
    check_gpu_hour_cost("cost_usd_per_gpu_hour", cost_usd_per_gpu_hour)
    for name, value in (("input_usd_per_mtok", input_usd_per_mtok), ("output_usd_per_mtok", output_usd_per_mtok),
                        ("cached_input_usd_per_mtok", cached_input_usd_per_mtok)):
        if value is not None:
            check_usd_per_mtok(name, value)


def _check_accelerators_per_node(value: Any) -> None:
    """Raise unless every element is a whole number of accelerators within the vocabulary's system size."""
    spec = catalog.parameter_spec("hardware", "accelerators_per_system")
    check_range("accelerators_per_node", value, low=1.0, high=spec.max_value)
    arr = np.asarray(value, dtype=float).ravel()
    frac = arr != np.round(arr)
    if frac.any():
        v = float(arr[np.flatnonzero(frac)[0]])
        raise ValueError(f"accelerators_per_node={v!r} is not a whole number of accelerators (8 for an HGX node); "
                         "a fractional average fleet goes in nodes")


def _money(
    frame: pd.DataFrame,
    total_tokens: np.ndarray,
    input_tokens: np.ndarray,
    cached: np.ndarray,
    accelerators: np.ndarray,
    hours: Any,
    cost_usd_per_gpu_hour: Any,
    input_usd_per_mtok: Any,
    output_usd_per_mtok: Any,
    cached_input_usd_per_mtok: Any,
    license_fee_frac: Any,
    license_usd_per_mtok: Any,
    license_usd_per_gpu_hour: Any,
    facility_power_kw_per_accelerator: Any,
) -> pd.DataFrame:
    """Fill the money and energy columns from the paid GPU-hours, using the economics kernels."""
    s_in = input_share_frac_from_tokens(input_tokens, total_tokens - input_tokens)
    hit = np.divide(cached, input_tokens, out=np.zeros_like(cached), where=input_tokens > 0)
    price = blended_price_usd_per_mtok(input_usd_per_mtok, output_usd_per_mtok, s_in, hit, cached_input_usd_per_mtok)
    gpu_hours = accelerators * hours
    # the paid fleet serves the day's tokens: its throughput per paid GPU at full utilization
    served_tput = total_tokens / (gpu_hours * SECONDS_PER_HOUR)
    cost_h = np.broadcast_to(np.asarray(cost_usd_per_gpu_hour, dtype=float), served_tput.shape)
    revenue_h = revenue_usd_per_gpu_hour(served_tput, 1.0, price)
    license_h = license_fee_usd_per_gpu_hour(
        revenue_h, served_tput, 1.0, license_fee_frac, license_usd_per_mtok, license_usd_per_gpu_hour
    )
    frame["cache_hit_frac"] = hit
    frame["gpu_hours_per_day"] = gpu_hours
    frame["blended_price_usd_per_mtok"] = price
    frame["cost_usd_per_mtok"] = cost_per_mtok(cost_h, served_tput, 1.0)
    frame["cost_usd_per_day"] = cost_h * gpu_hours
    frame["revenue_usd_per_day"] = revenue_h * gpu_hours
    frame["license_usd_per_day"] = license_h * gpu_hours
    frame["profit_usd_per_day"] = (
        frame["revenue_usd_per_day"] - frame["license_usd_per_day"] - frame["cost_usd_per_day"]
    )
    frame["gross_margin_frac"] = gross_margin_frac(
        price, served_tput, 1.0, cost_h, license_fee_frac, license_usd_per_mtok, license_usd_per_gpu_hour
    )
    frame["cost_profit_margin_frac"] = frame["profit_usd_per_day"] / frame["cost_usd_per_day"]
    if facility_power_kw_per_accelerator is not None:
        frame["energy_j_per_token"] = energy_j_per_token(facility_power_kw_per_accelerator, served_tput, 1.0)
        frame["tok_per_s_per_mw"] = tok_per_s_per_mw(served_tput, facility_power_kw_per_accelerator, 1.0)
        frame["profit_usd_per_mw_year"] = profit_usd_per_mw_year(
            price, served_tput, 1.0, cost_h, facility_power_kw_per_accelerator,
            license_fee_frac, license_usd_per_mtok, license_usd_per_gpu_hour,
        )
    else:  # the columns are always there; without a power figure they are unknown, not zero
        for name in ("energy_j_per_token", "tok_per_s_per_mw", "profit_usd_per_mw_year"):
            frame[name] = np.nan
    extra = [c for c in frame.columns if c not in FLEET_COLUMNS]  # e.g. ``system``, first
    return frame[extra + [c for c in FLEET_COLUMNS if c in frame.columns]]


def fleet_per_day(
    input_tokens_per_day: Any,
    cached_input_tokens_per_day: Any,
    output_tokens_per_day: Any,
    throughput_tok_per_s_per_gpu: Any,
    utilization_frac: Any,
    cost_usd_per_gpu_hour: Any,
    input_usd_per_mtok: Any,
    output_usd_per_mtok: Any,
    cached_input_usd_per_mtok: Any = None,
    *,
    license_fee_frac: Any = 0.0,
    license_usd_per_mtok: Any = 0.0,
    license_usd_per_gpu_hour: Any = 0.0,
    facility_power_kw_per_accelerator: Any = None,
    system: Any = None,
) -> pd.DataFrame:
    """Accelerators, cost, revenue and margins of serving a day's tokens.

    ``accelerators_needed = (input + output tokens per day) / (throughput * 86400 * utilization)``;
    the paid fleet is ``ceil(accelerators_needed)`` and its busy share
    ``paid_utilization_frac = accelerators_needed * utilization / accelerators``. Cost is
    ``accelerators * 24 * cost_usd_per_gpu_hour``; revenue is the day's Mtok times the blended
    price of the mix (:func:`~tokenomics.economics.blended_price_usd_per_mtok`); license fees as
    :func:`~tokenomics.economics.license_fee_usd_per_gpu_hour`.

    Parameters
    ----------
    input_tokens_per_day : float or array_like
        Prompt tokens per day, cached included, >= 0 [tokens/day] (tokens, not Mtok).
    cached_input_tokens_per_day : float or array_like
        The part of the input served from the prefix cache, 0 <= cached <= input [tokens/day].
    output_tokens_per_day : float or array_like
        Generated tokens per day, >= 0 [tokens/day]; input + output at least
        :data:`MIN_TOKENS_PER_DAY` (1e6: below it a volume in Mtok per day is refused).
    throughput_tok_per_s_per_gpu : float or array_like
        Input + output tokens per second per busy accelerator, in the plausible range
        [0.01, 1e6] [tok/s/GPU] (:func:`tokenomics.economics.check_throughput_per_gpu`).
    utilization_frac : float or array_like
        Busy share of paid hours the plan aims at, in (0, 1].
    cost_usd_per_gpu_hour : float or array_like
        TCO per accelerator-hour, in (0, 100] [USD/GPU-hour].
    input_usd_per_mtok, output_usd_per_mtok : float or array_like
        List prices of uncached input and output tokens, 0 or in [0.001, 1000] [USD/Mtok] (a
        per-token price is refused as a unit slip).
    cached_input_usd_per_mtok : float or array_like, optional
        Cached-input list price, >= 0 [USD/Mtok]; default 10 % of the input price.
    license_fee_frac, license_usd_per_mtok, license_usd_per_gpu_hour : optional
        License terms, as :func:`~tokenomics.economics.profit_usd_per_gpu_hour`.
    facility_power_kw_per_accelerator : float or array_like, optional
        Facility power per accelerator (IT x PUE), > 0 [kW]: fills ``energy_j_per_token``,
        ``tok_per_s_per_mw`` and ``profit_usd_per_mw_year`` (NaN without it).
    system : str or sequence of str, optional
        Labels for the rows (e.g. system names).

    Returns
    -------
    pandas.DataFrame
        One row per broadcast input: the :data:`FLEET_COLUMNS`; indexed like the pandas
        Series inputs where there are any.

    Raises
    ------
    ValueError
        Negative tokens, cached above input, zero tokens (no fleet to state), input + output
        below :data:`MIN_TOKENS_PER_DAY` (Mtok per day given for tokens per day), invalid or
        implausible throughput, utilization, GPU-hour cost, prices ($/token for $/Mtok) or
        license terms; booleans or strings for numbers; Series inputs with different indexes.

    Examples
    --------
    1e9 tokens a day (800M input of which 400M cached, 200M output) at 2,000 tok/s/GPU and 60 %
    utilization need 1e9 / (2000 * 86400 * 0.6) = 9.65 accelerators, so 10 are paid:

    >>> f = fleet_per_day(8e8, 4e8, 2e8, 2000.0, 0.6, 2.0, 0.5, 2.0, 0.05)
    >>> round(float(f["accelerators_needed"].iloc[0]), 2), int(f["accelerators"].iloc[0])
    (9.65, 10)
    """
    index = series_index(
        input_tokens_per_day=input_tokens_per_day, cached_input_tokens_per_day=cached_input_tokens_per_day,
        output_tokens_per_day=output_tokens_per_day, throughput_tok_per_s_per_gpu=throughput_tok_per_s_per_gpu,
        utilization_frac=utilization_frac, cost_usd_per_gpu_hour=cost_usd_per_gpu_hour,
        input_usd_per_mtok=input_usd_per_mtok, output_usd_per_mtok=output_usd_per_mtok,
        cached_input_usd_per_mtok=cached_input_usd_per_mtok, license_fee_frac=license_fee_frac,
        license_usd_per_mtok=license_usd_per_mtok, license_usd_per_gpu_hour=license_usd_per_gpu_hour,
        facility_power_kw_per_accelerator=facility_power_kw_per_accelerator,
    )
    i, c, o = _tokens(input_tokens_per_day, cached_input_tokens_per_day, output_tokens_per_day)
    check_plausible("input_tokens_per_day + output_tokens_per_day", i + o, low=MIN_TOKENS_PER_DAY, high=None,
                    unit="tokens/day", hint="Mtok per day where tokens per day are meant: multiply by 1e6")
    check_throughput_per_gpu("throughput_tok_per_s_per_gpu", throughput_tok_per_s_per_gpu)
    check_fraction("utilization_frac", utilization_frac, low_inclusive=False)
    _check_terms(cost_usd_per_gpu_hour, input_usd_per_mtok, output_usd_per_mtok, cached_input_usd_per_mtok)
    total = i + o
    t, u = np.broadcast_arrays(
        np.asarray(throughput_tok_per_s_per_gpu, dtype=float), np.asarray(utilization_frac, dtype=float)
    )
    total, i, c, t, u = np.broadcast_arrays(total, i, c, t, u)
    needed = total / (t * _SECONDS_PER_DAY * u)
    whole = np.ceil(needed)
    frame = pd.DataFrame({
        "input_tokens_per_day": i,
        "cached_input_tokens_per_day": c,
        "output_tokens_per_day": total - i,
        "throughput_tok_per_s_per_gpu": t,
        "accelerators_needed": needed,
        "accelerators": whole,
        "paid_utilization_frac": needed * u / whole,
    })
    if system is not None:
        frame.insert(0, "system", np.broadcast_to(np.asarray(system, dtype=object), needed.shape))
    frame["fleet_note"] = [
        "" if n == w else f"{n:.4g} accelerators needed at utilization {uu:.3g}; {w:.0f} paid (busy {n * uu / w:.3g})"
        for n, w, uu in zip(needed, whole, u, strict=True)
    ]
    out = _money(
        frame, total, i, c, whole, HOURS_PER_DAY, cost_usd_per_gpu_hour, input_usd_per_mtok, output_usd_per_mtok,
        cached_input_usd_per_mtok, license_fee_frac, license_usd_per_mtok, license_usd_per_gpu_hour,
        facility_power_kw_per_accelerator,
    )
    return _indexed(out, index)


def serving_day(
    nodes: Any,
    accelerators_per_node: Any,
    cost_usd_per_gpu_hour: Any,
    input_tokens: Any,
    cached_input_tokens: Any,
    output_tokens: Any,
    input_usd_per_mtok: Any,
    output_usd_per_mtok: Any,
    cached_input_usd_per_mtok: Any = None,
    *,
    hours: float = HOURS_PER_DAY,
    license_fee_frac: Any = 0.0,
    license_usd_per_mtok: Any = 0.0,
    license_usd_per_gpu_hour: Any = 0.0,
    facility_power_kw_per_accelerator: Any = None,
) -> pd.DataFrame:
    """Cost, revenue and margins of a day of serving stated the way DeepSeek published one.

    Over the period of ``hours``: ``cost = nodes * accelerators_per_node * hours *
    cost_usd_per_gpu_hour``; ``revenue = uncached_input * p_in + cached_input * p_cached +
    output * p_out`` (per Mtok); ``gross_margin = (revenue - license - cost) / revenue``;
    ``cost_profit_margin = (revenue - license - cost) / cost``. The ``*_per_day`` columns state
    the period at its rate over 24 h (``x 24 / hours``: a 12-hour period's tokens, cost and
    revenue doubled); margins and throughput do not depend on it. ``nodes`` may be fractional:
    an average over the period (DeepSeek's 226.75), stated in ``fleet_note``.

    Parameters
    ----------
    nodes : float or array_like
        Average number of serving nodes over the period, > 0 [nodes].
    accelerators_per_node : float or array_like
        Accelerators per node, a whole number >= 1 (8 for an HGX H800 node) [GPUs/node].
    cost_usd_per_gpu_hour : float or array_like
        Rental or TCO per accelerator-hour, in (0, 100] (a per-node or per-rack hour is refused,
        :func:`tokenomics.cost.tco.check_gpu_hour_cost`) [USD/GPU-hour].
    input_tokens, cached_input_tokens, output_tokens : float or array_like
        Tokens served in the period: all prompt tokens (cached included), the cached part of
        them, and generated tokens, >= 0 [tokens].
    input_usd_per_mtok, output_usd_per_mtok : float or array_like
        List prices of uncached input and output, 0 or in the vocabulary's plausible range
        [0.001, 1000] [USD/Mtok] (:func:`tokenomics.economics.check_usd_per_mtok`: a per-token
        price such as 0.55e-6 is refused as a unit slip).
    cached_input_usd_per_mtok : float or array_like, optional
        Cached-input list price, 0 or in [0.001, 1000] [USD/Mtok]; default 10 % of the input
        price.
    hours : float, default 24
        Length of the period, in (0, 24 * 366] [h].
    license_fee_frac, license_usd_per_mtok, license_usd_per_gpu_hour : optional
        License terms.
    facility_power_kw_per_accelerator : float or array_like, optional
        Facility power per accelerator [kW]: fills the energy columns (NaN without it).

    Returns
    -------
    pandas.DataFrame
        One row per broadcast input with the :data:`FLEET_COLUMNS`, indexed like the pandas
        Series inputs where there are any; ``accelerators`` is the (average) paid fleet
        ``nodes * accelerators_per_node``.

    Raises
    ------
    ValueError
        Invalid counts (a fractional ``accelerators_per_node``), tokens (cached above input, none
        at all), a GPU-hour cost above the plausible maximum, prices below the plausible minimum
        ($/token for $/Mtok) or license terms; booleans or strings for numbers; an
        implied ``(input + output) / (accelerators x hours x 3600)`` outside the vocabulary's
        plausible throughput per GPU (tokens off by a factor, e.g. billions given as thousands);
        Series inputs with different indexes.

    Examples
    --------
    DeepSeek-V3/R1 online service, 24 h from 2025-02-27 12:00 (UTC+8): on average 226.75 H800
    nodes of 8 GPUs at $2/GPU-hour; 608B input tokens of which 342B cached, 168B output; priced
    at DeepSeek-R1 list prices ($0.55 / $0.14 / $2.19 per Mtok):

    >>> d = serving_day(226.75, 8, 2.0, 608e9, 342e9, 168e9, 0.55, 2.19, 0.14)
    >>> round(float(d["cost_usd_per_day"].iloc[0])), round(float(d["revenue_usd_per_day"].iloc[0]))
    (87072, 562100)

    References
    ----------
    .. [1] DeepSeek, "Day 6: One More Thing, DeepSeek-V3/R1 Inference System Overview",
       open-infra-index, 2025-03-01,
       https://github.com/deepseek-ai/open-infra-index/blob/main/202502OpenSourceWeek/day_6_one_more_thing_deepseekV3R1_inference_system_overview.md
    """
    index = series_index(
        nodes=nodes, accelerators_per_node=accelerators_per_node, cost_usd_per_gpu_hour=cost_usd_per_gpu_hour,
        input_tokens=input_tokens, cached_input_tokens=cached_input_tokens, output_tokens=output_tokens,
        input_usd_per_mtok=input_usd_per_mtok, output_usd_per_mtok=output_usd_per_mtok,
        cached_input_usd_per_mtok=cached_input_usd_per_mtok, license_fee_frac=license_fee_frac,
        license_usd_per_mtok=license_usd_per_mtok, license_usd_per_gpu_hour=license_usd_per_gpu_hour,
        facility_power_kw_per_accelerator=facility_power_kw_per_accelerator,
    )
    i, c, o = _tokens(input_tokens, cached_input_tokens, output_tokens)
    check_positive("nodes", nodes)
    _check_accelerators_per_node(accelerators_per_node)
    _check_terms(cost_usd_per_gpu_hour, input_usd_per_mtok, output_usd_per_mtok, cached_input_usd_per_mtok)
    check_range("hours", hours, low=0.0, high=HOURS_PER_DAY * 366, low_inclusive=False)
    n, per = np.broadcast_arrays(np.asarray(nodes, dtype=float), np.asarray(accelerators_per_node, dtype=float))
    total = i + o
    total, i, c, n, per = np.broadcast_arrays(total, i, c, n, per)
    accelerators = n * per
    _check_implied_throughput(total / (accelerators * hours * SECONDS_PER_HOUR))
    frame = pd.DataFrame({
        "input_tokens_per_day": i * (HOURS_PER_DAY / hours),
        "cached_input_tokens_per_day": c * (HOURS_PER_DAY / hours),
        "output_tokens_per_day": (total - i) * (HOURS_PER_DAY / hours),
        "throughput_tok_per_s_per_gpu": total / (accelerators * hours * SECONDS_PER_HOUR),
        "accelerators_needed": accelerators,
        "accelerators": accelerators,
        "paid_utilization_frac": 1.0,
    })
    frame["fleet_note"] = [
        "" if float(a).is_integer() else f"{a:.6g} accelerators on average over the period (fractional, as given)"
        for a in accelerators
    ]
    out = _money(
        frame, total, i, c, accelerators, hours, cost_usd_per_gpu_hour, input_usd_per_mtok, output_usd_per_mtok,
        cached_input_usd_per_mtok, license_fee_frac, license_usd_per_mtok, license_usd_per_gpu_hour,
        facility_power_kw_per_accelerator,
    )
    if hours != HOURS_PER_DAY:
        for col in ("gpu_hours_per_day", "cost_usd_per_day", "revenue_usd_per_day", "license_usd_per_day",
                    "profit_usd_per_day"):
            out[col] = out[col] * (HOURS_PER_DAY / hours)
    return _indexed(out, index)


def _indexed(frame: pd.DataFrame, index: pd.Index | None) -> pd.DataFrame:
    """Index the frame like the Series inputs (one row per element); else return it as built."""
    if index is not None and len(index) == len(frame):
        frame.index = index
    return frame


def _check_implied_throughput(throughput: np.ndarray) -> None:
    """Raise if the tokens and fleet of a serving period imply an implausible throughput per GPU."""
    low, high = MIN_THROUGHPUT_TOK_PER_S_PER_GPU, MAX_THROUGHPUT_TOK_PER_S_PER_GPU
    t = np.asarray(throughput, dtype=float).ravel()
    bad = (t < low) | (t > high)
    if bad.any():
        v = float(t[np.flatnonzero(bad)[0]])
        side = "below the plausible minimum" if v < low else "above the physical maximum"
        raise ValueError(
            f"input_tokens + output_tokens over nodes x accelerators_per_node x hours imply "
            f"throughput_tok_per_s_per_gpu={v:.3g} tok/s/GPU, {side} (plausible [{low:g}, {high:g}] tok/s/GPU): "
            "are the token counts in tokens (not thousands or millions), and nodes and hours as meant?"
        )
