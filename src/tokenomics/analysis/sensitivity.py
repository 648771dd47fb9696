"""Sensitivity of gross margin to each input: one at a time (tornado) and global (Sobol' indices).

Each input is moved to a low and a high value while every other input stays at its base value;
the gross margin is recomputed for all ``2 k + 1`` cases in one vectorised call of the economics
engine:

``m = gross_margin_frac(blended_price(p_in, p_out, s_in, h), throughput, u, K, f)``

with ``p_in``, ``p_out`` the list prices [USD/Mtok], ``s_in`` the input share of tokens, ``h``
the cache-hit fraction of input, ``K`` the TCO [USD/GPU-hour] and ``f`` the license fee as a
share of revenue (see :mod:`tokenomics.economics`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from tokenomics._validate import (
    check_fraction,
    check_nonnegative,
    check_numeric,
    check_range,
    unknown_name_error,
)
from tokenomics.economics import blended_price_usd_per_mtok, gross_margin_frac

__all__ = ["MARGIN_INPUTS", "margin_sensitivity", "margin_sobol"]

MARGIN_INPUTS: dict[str, tuple[float, float, bool]] = {
    "input_usd_per_mtok": (0.0, np.inf, True),
    "output_usd_per_mtok": (0.0, np.inf, True),
    "input_share_frac": (0.0, 1.0, True),
    "cache_hit_frac": (0.0, 1.0, True),
    "throughput_tok_per_s_per_gpu": (0.0, np.inf, False),
    "utilization_frac": (0.0, 1.0, False),
    "cost_usd_per_gpu_hour": (0.0, np.inf, True),
    "license_fee_frac": (0.0, 1.0, True),
}
"""Inputs of the margin model -> (lower bound, upper bound, lower bound allowed)."""

_UPPER_OPEN = {"license_fee_frac"}


def _clip(name: str, value: np.ndarray) -> np.ndarray:
    low, high, low_ok = MARGIN_INPUTS[name]
    tiny = 1e-9
    lo = low if low_ok else low + tiny
    hi = high - tiny if name in _UPPER_OPEN else high
    return np.clip(value, lo, hi)


def margin_sensitivity(
    base: Mapping[str, float],
    ranges: Mapping[str, tuple[float, float]] | None = None,
    *,
    relative_swing_frac: float = 0.25,
    cached_input_usd_per_mtok: float | None = None,
) -> pd.DataFrame:
    """Gross margin when each input in turn moves to a low and a high value.

    Inputs without an explicit range move by ``± relative_swing_frac`` of their base value,
    clipped to their valid range (fractions stay in [0, 1], utilization in (0, 1], license fee
    below 1). The inputs move independently: throughput is held where the cache-hit fraction
    moves, although a served curve's throughput rises with its prefix-cache hits (the report
    therefore does not vary it; give it a zero-width range, or compare workloads).

    Parameters
    ----------
    base : mapping of str to float
        Base case: every key of :data:`MARGIN_INPUTS` (``input_usd_per_mtok``,
        ``output_usd_per_mtok`` [USD/Mtok], ``input_share_frac``, ``cache_hit_frac``,
        ``throughput_tok_per_s_per_gpu`` [tok/s/GPU], ``utilization_frac``,
        ``cost_usd_per_gpu_hour`` [USD/GPU-hour], ``license_fee_frac``).
    ranges : mapping of str to (float, float), optional
        Explicit (low, high) values per input, in the input's unit, low <= high, both in the
        input's valid range.
    relative_swing_frac : float, default 0.25
        Relative move of inputs without an explicit range, in (0, 1].
    cached_input_usd_per_mtok : float, optional
        Cached-input price [USD/Mtok]; default 10 % of the input price (moves with it).

    Returns
    -------
    pandas.DataFrame
        One row per input, sorted by swing (largest first): ``parameter``, ``base_value``,
        ``low_value``, ``high_value``, ``gross_margin_frac_at_low``,
        ``gross_margin_frac_at_high``, ``base_gross_margin_frac``, ``swing_frac`` (absolute
        difference of the two margins).

    Raises
    ------
    KeyError
        A missing or unknown input name (close matches listed).
    ValueError
        A base value or range end outside the input's valid range (percent hint for
        fractions), or a range with low above high, naming ``base[name]`` or
        ``ranges[name]`` and the value.

    Examples
    --------
    >>> base = dict(input_usd_per_mtok=1.0, output_usd_per_mtok=4.0, input_share_frac=0.5,
    ...             cache_hit_frac=0.0, throughput_tok_per_s_per_gpu=1000.0, utilization_frac=0.5,
    ...             cost_usd_per_gpu_hour=2.0, license_fee_frac=0.0)
    >>> t = margin_sensitivity(base)
    >>> round(float(t["base_gross_margin_frac"].iloc[0]), 4)
    0.5556
    """
    bounds = _swing_ranges(base, ranges, relative_swing_frac)
    if cached_input_usd_per_mtok is not None:
        check_nonnegative("cached_input_usd_per_mtok", cached_input_usd_per_mtok)

    names = list(MARGIN_INPUTS)
    k = len(names)
    # case 0 is the base; case 1 + 2 i is input i low, 2 + 2 i input i high
    cases = {n: np.full(2 * k + 1, float(base[n])) for n in names}
    lows, highs = {}, {}
    for i, n in enumerate(names):
        lo, hi = bounds[n]
        lows[n], highs[n] = lo, hi
        cases[n][1 + 2 * i] = lo
        cases[n][2 + 2 * i] = hi
    cached = None
    if cached_input_usd_per_mtok is not None:
        cached = np.full(2 * k + 1, float(cached_input_usd_per_mtok))
    price = blended_price_usd_per_mtok(
        cases["input_usd_per_mtok"], cases["output_usd_per_mtok"], cases["input_share_frac"],
        cases["cache_hit_frac"], cached,
    )
    margin = np.asarray(gross_margin_frac(
        price, cases["throughput_tok_per_s_per_gpu"], cases["utilization_frac"],
        cases["cost_usd_per_gpu_hour"], cases["license_fee_frac"],
    ), dtype=float)
    rows = [
        {
            "parameter": n,
            "base_value": float(base[n]),
            "low_value": lows[n],
            "high_value": highs[n],
            "gross_margin_frac_at_low": margin[1 + 2 * i],
            "gross_margin_frac_at_high": margin[2 + 2 * i],
            "base_gross_margin_frac": margin[0],
        }
        for i, n in enumerate(names)
    ]
    out = pd.DataFrame(rows)
    out["swing_frac"] = (out["gross_margin_frac_at_high"] - out["gross_margin_frac_at_low"]).abs()
    return out.sort_values("swing_frac", ascending=False, kind="stable").reset_index(drop=True)



def _swing_ranges(
    base: Mapping[str, float], ranges: Mapping[str, tuple[float, float]] | None, relative_swing_frac: float
) -> dict[str, tuple[float, float]]:
    """(low, high) of every margin input: the explicit range, else the base +- the swing, clipped."""
    for name in base:
        if name not in MARGIN_INPUTS:
            raise unknown_name_error("margin input", name, MARGIN_INPUTS)
    missing = [n for n in MARGIN_INPUTS if n not in base]
    if missing:
        raise KeyError(f"base lacks {missing}; every input of MARGIN_INPUTS is needed")
    for name in ranges or {}:
        if name not in MARGIN_INPUTS:
            raise unknown_name_error("margin input", name, MARGIN_INPUTS)
    check_range("relative_swing_frac", relative_swing_frac, low=0.0, high=1.0, low_inclusive=False)
    for n in MARGIN_INPUTS:
        _check_input(f"base[{n!r}]", n, base[n])
    out = {}
    for n in MARGIN_INPUTS:
        b = float(base[n])
        if ranges and n in ranges:
            lo, hi = _explicit_range(n, ranges[n])
        else:
            swing = np.array([b * (1 - relative_swing_frac), b * (1 + relative_swing_frac)])
            lo, hi = (float(v) for v in _clip(n, swing))
        out[n] = (lo, hi)
    return out


def _check_input(label: str, name: str, value: Any) -> None:
    """Raise unless ``value`` is one number in the valid range of margin input ``name``, named by ``label``."""
    check_numeric(label, value)
    if np.ndim(value) != 0:
        raise ValueError(f"{label}={value!r} must be one number")
    low, high, low_ok = MARGIN_INPUTS[name]
    high_ok = name not in _UPPER_OPEN and bool(np.isfinite(high))
    if name.endswith("_frac"):
        check_fraction(label, value, low_inclusive=low_ok, high_inclusive=high_ok)
    else:
        check_range(label, value, low=low, high=high, low_inclusive=low_ok, high_inclusive=high_ok)


def _explicit_range(name: str, pair: Any) -> tuple[float, float]:
    """Return the (low, high) of ``ranges[name]``, checked: each in the valid range, low <= high."""
    label = f"ranges[{name!r}]"
    if isinstance(pair, str | bytes) or np.ndim(pair) != 1 or len(pair) != 2:
        raise ValueError(f"{label}={pair!r} must be a (low, high) pair of numbers")
    for k, v in enumerate(pair):
        _check_input(f"{label}[{k}]", name, v)
    lo, hi = float(pair[0]), float(pair[1])
    if lo > hi:
        raise ValueError(f"{label}=({lo!r}, {hi!r}) has low above high; give (low, high), e.g. "
                         f"({hi!r}, {lo!r})")
    return lo, hi


def margin_sobol(
    base: Mapping[str, float],
    ranges: Mapping[str, tuple[float, float]] | None = None,
    *,
    relative_swing_frac: float = 0.25,
    n_base_samples: int = 1024,
    seed: int | None = 0,
    cached_input_usd_per_mtok: float | None = None,
) -> pd.DataFrame:
    """Global sensitivity of gross margin: Sobol' first-order and total indices (SALib).

    Every input of :data:`MARGIN_INPUTS` varies *at once*, uniformly over the same ranges as the
    tornado of :func:`margin_sensitivity`; the margin is evaluated with the economics kernels on
    Saltelli's sample (``n_base_samples * (k + 2)`` points) and decomposed into variance shares:
    ``S1`` (the input alone) and ``ST`` (the input with all its interactions). ``ST - S1`` is
    the share that only shows through interactions, which a tornado cannot show.

    Parameters
    ----------
    base : mapping of str to float
        As :func:`margin_sensitivity`.
    ranges : mapping of str to (float, float), optional
        Explicit (low, high) per input, in its unit, as :func:`margin_sensitivity`.
    relative_swing_frac : float, default 0.25
        Relative half-width of the inputs without an explicit range, in (0, 1].
    n_base_samples : int, default 1024
        Saltelli base sample size, a power of two >= 64.
    seed : int or None, default 0
        Seed of the scrambled Sobol' sequence and of the bootstrap intervals.
    cached_input_usd_per_mtok : float, optional
        Cached-input price [USD/Mtok]; default 10 % of the input price.

    Returns
    -------
    pandas.DataFrame
        One row per input, sorted by ``total_index`` (largest first): ``parameter``, ``low_value``,
        ``high_value``, ``first_order_index``, ``total_index``, ``interaction_index``
        (``ST - S1``), ``first_order_conf``, ``total_conf`` (95 % bootstrap half-widths).

    Raises
    ------
    KeyError
        Missing or unknown input names.
    ValueError
        Base values or ranges outside the inputs' valid ranges, a range with low above high
        (named as in :func:`margin_sensitivity`), a margin that cannot be evaluated, or a bad
        sample size.

    Examples
    --------
    >>> base = dict(input_usd_per_mtok=1.0, output_usd_per_mtok=4.0, input_share_frac=0.5,
    ...             cache_hit_frac=0.0, throughput_tok_per_s_per_gpu=1000.0, utilization_frac=0.5,
    ...             cost_usd_per_gpu_hour=2.0, license_fee_frac=0.0)
    >>> t = margin_sobol(base, n_base_samples=256)
    >>> t["parameter"].iloc[0] in MARGIN_INPUTS
    True
    """
    from SALib.analyze import sobol as sobol_analyze  # heavy optional import: only for Sobol' indices
    from SALib.sample import sobol as sobol_sample

    if isinstance(n_base_samples, bool) or n_base_samples < 64 or n_base_samples & (n_base_samples - 1):
        raise ValueError(f"n_base_samples={n_base_samples!r} must be a power of two >= 64")
    bounds = _swing_ranges(base, ranges, relative_swing_frac)
    names = list(MARGIN_INPUTS)
    fixed = {n: bounds[n][0] for n in names if bounds[n][0] == bounds[n][1]}
    free = [n for n in names if n not in fixed]
    problem = {"num_vars": len(free), "names": free, "bounds": [list(bounds[n]) for n in free]}
    x = sobol_sample.sample(problem, n_base_samples, calc_second_order=False, seed=seed)
    cols = {n: (x[:, free.index(n)] if n in free else np.full(len(x), fixed[n])) for n in names}
    for n in names:
        low, high, low_ok = MARGIN_INPUTS[n]
        check_range(n, cols[n], low=low, high=high, low_inclusive=low_ok,
                    high_inclusive=n not in _UPPER_OPEN and np.isfinite(high))
    cached = None if cached_input_usd_per_mtok is None else np.full(len(x), float(cached_input_usd_per_mtok))
    price = blended_price_usd_per_mtok(cols["input_usd_per_mtok"], cols["output_usd_per_mtok"],
                                       cols["input_share_frac"], cols["cache_hit_frac"], cached)
    margin = np.asarray(gross_margin_frac(price, cols["throughput_tok_per_s_per_gpu"], cols["utilization_frac"],
                                          cols["cost_usd_per_gpu_hour"], cols["license_fee_frac"]), dtype=float)
    si = sobol_analyze.analyze(problem, margin, calc_second_order=False, seed=seed)
    rows = [
        {"parameter": n, "low_value": bounds[n][0], "high_value": bounds[n][1],
         "first_order_index": float(si["S1"][free.index(n)]) if n in free else 0.0,
         "total_index": float(si["ST"][free.index(n)]) if n in free else 0.0,
         "first_order_conf": float(si["S1_conf"][free.index(n)]) if n in free else 0.0,
         "total_conf": float(si["ST_conf"][free.index(n)]) if n in free else 0.0}
        for n in names
    ]
    out = pd.DataFrame(rows)
    out.insert(5, "interaction_index", out["total_index"] - out["first_order_index"])
    return out.sort_values("total_index", ascending=False, kind="stable").reset_index(drop=True)
