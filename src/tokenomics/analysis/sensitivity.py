"""One-at-a-time sensitivity of gross margin to each input (the data of a tornado chart).

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

import numpy as np
import pandas as pd

from tokenomics._validate import check_nonnegative, check_range, unknown_name_error
from tokenomics.economics import blended_price_usd_per_mtok, gross_margin_frac

__all__ = ["MARGIN_INPUTS", "margin_sensitivity"]

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
    below 1).

    Parameters
    ----------
    base : mapping of str to float
        Base case: every key of :data:`MARGIN_INPUTS` (``input_usd_per_mtok``,
        ``output_usd_per_mtok`` [USD/Mtok], ``input_share_frac``, ``cache_hit_frac``,
        ``throughput_tok_per_s_per_gpu`` [tok/s/GPU], ``utilization_frac``,
        ``cost_usd_per_gpu_hour`` [USD/GPU-hour], ``license_fee_frac``).
    ranges : mapping of str to (float, float), optional
        Explicit (low, high) values per input, in the input's unit.
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
        A base value or range outside the input's valid range (percent hint for fractions).

    Examples
    --------
    >>> base = dict(input_usd_per_mtok=1.0, output_usd_per_mtok=4.0, input_share_frac=0.5,
    ...             cache_hit_frac=0.0, throughput_tok_per_s_per_gpu=1000.0, utilization_frac=0.5,
    ...             cost_usd_per_gpu_hour=2.0, license_fee_frac=0.0)
    >>> t = margin_sensitivity(base)
    >>> round(float(t["base_gross_margin_frac"].iloc[0]), 4)
    0.5556
    """
    for name in base:
        if name not in MARGIN_INPUTS:
            raise unknown_name_error("margin input", name, MARGIN_INPUTS)
    missing = [n for n in MARGIN_INPUTS if n not in base]
    if missing:
        raise KeyError(f"margin_sensitivity: base lacks {missing}; every input of MARGIN_INPUTS is needed")
    ranges = dict(ranges or {})
    for name in ranges:
        if name not in MARGIN_INPUTS:
            raise unknown_name_error("margin input", name, MARGIN_INPUTS)
    check_range("relative_swing_frac", relative_swing_frac, low=0.0, high=1.0, low_inclusive=False)
    if cached_input_usd_per_mtok is not None:
        check_nonnegative("cached_input_usd_per_mtok", cached_input_usd_per_mtok)

    names = list(MARGIN_INPUTS)
    k = len(names)
    # case 0 is the base; case 1 + 2 i is input i low, 2 + 2 i input i high
    cases = {n: np.full(2 * k + 1, float(base[n])) for n in names}
    lows, highs = {}, {}
    for i, n in enumerate(names):
        b = float(base[n])
        if n in ranges:
            lo, hi = (float(v) for v in ranges[n])
        else:
            lo, hi = (float(v) for v in _clip(n, np.array([b * (1 - relative_swing_frac),
                                                            b * (1 + relative_swing_frac)])))
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

