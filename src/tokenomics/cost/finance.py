"""Capital-cost arithmetic: capital recovery factor, annuity, straight-line depreciation.

Every function broadcasts like numpy: scalar in, float out; ndarray in, ndarray out; pandas
Series in, Series out with the index kept. Rates are fractions per year (0.10 for 10 %), lives
are in years, money is in USD.

The annuity of a purchase splits into two parts that :mod:`tokenomics.cost.tco` reports separately:

* **capex amortisation** (straight-line depreciation): ``(capex - residual) / life``;
* **cost of capital**: the rest of the annuity, ``annuity - straight_line``, which equals the
  return the lender or shareholder asks for on the money tied up in the hardware. It is never
  negative for a rate >= 0 (see :func:`cost_of_capital_usd_per_year`).

References
----------
.. [1] PyPSA, ``pypsa.costs.annuity`` (capital recovery factor with the zero-rate limit),
   https://github.com/PyPSA/PyPSA (read 2026-09).
.. [2] Capital recovery factor, https://en.wikipedia.org/wiki/Capital_recovery_factor
   (read 2026-09).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tokenomics._numeric import as_arrays
from tokenomics._validate import check_fraction, check_nonnegative, check_positive

__all__ = [
    "annuity_usd_per_year",
    "capital_recovery_factor",
    "cost_of_capital_usd_per_year",
    "present_value_factor",
    "straight_line_depreciation_usd_per_year",
]


_SERIES_BELOW_RATE = 1e-9
"""Rates at or below this use the series expansion of the capital recovery factor."""


# --- public functions ---


def present_value_factor(rate_frac: Any, years: Any) -> Any:
    """Discount factor that turns money in ``years`` into money today.

    ``pv_factor = (1 + rate_frac) ** -years``

    Parameters
    ----------
    rate_frac : float, array_like or pandas.Series
        Discount rate (cost of capital) per year, a fraction in [0, 1] [1/yr].
    years : float, array_like or pandas.Series
        Time until the cash flow, > 0 [yr].

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Present value of 1 USD received after ``years`` [dimensionless].

    Raises
    ------
    ValueError
        If a rate lies outside [0, 1] (percent hint for 10 instead of 0.10), a year count is
        not > 0, or any input is NaN.

    Examples
    --------
    >>> round(present_value_factor(0.10, 4), 6)
    0.683013
    """
    check_fraction("rate_frac", rate_frac)
    check_positive("years", years)
    (r, n), restore = as_arrays(rate_frac, years)
    return restore(np.exp(-n * np.log1p(r)))


def capital_recovery_factor(rate_frac: Any, life_years: Any) -> Any:
    """Capital recovery factor: the level yearly payment that repays 1 USD over a life.

    ``crf = r / (1 - (1 + r) ** -n)`` for ``r > 0`` and its limit ``crf = 1 / n`` for ``r = 0``.
    A one-year life gives ``crf = 1 + r`` (repay the principal plus one year of interest).

    Parameters
    ----------
    rate_frac : float, array_like or pandas.Series
        Cost of capital (discount rate) per year, a fraction in [0, 1] [1/yr].
    life_years : float, array_like or pandas.Series
        Economic life, > 0 [yr]; need not be an integer.

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Capital recovery factor [1/yr].

    Raises
    ------
    ValueError
        If a rate lies outside [0, 1] (with a percent hint), a life is not > 0, or any input
        is NaN.

    Notes
    -----
    Computed as ``r / -expm1(-n * log1p(r))`` so that small rates keep full precision; for
    ``r <= 1e-9`` (including the exact limit ``1 / n`` at ``r = 0``) the series
    ``1/n + r (n + 1) / (2 n)`` is used.

    Examples
    --------
    Textbook value (A/P, 10 %, 5 years) = 0.26380:

    >>> round(capital_recovery_factor(0.10, 5), 5)
    0.2638
    >>> capital_recovery_factor(0.0, 4)
    0.25
    >>> round(capital_recovery_factor(0.08, 1), 10)
    1.08

    References
    ----------
    .. [1] https://en.wikipedia.org/wiki/Capital_recovery_factor (read 2026-09).
    """
    check_fraction("rate_frac", rate_frac)
    check_positive("life_years", life_years)
    (r, n), restore = as_arrays(rate_frac, life_years)
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        exact = r / -np.expm1(-n * np.log1p(r))
    # below 1e-9 (and at 0) the first-order series 1/n + r (n + 1) / (2 n) is exact to
    # double precision and stays accurate for subnormal rates, where expm1/log1p lose digits
    series = 1.0 / n + r * (n + 1.0) / (2.0 * n)
    return restore(np.where(r > _SERIES_BELOW_RATE, exact, series))


def straight_line_depreciation_usd_per_year(capex_usd: Any, life_years: Any, residual_value_frac: Any = 0.0) -> Any:
    """Straight-line depreciation: the capex less its residual value, spread evenly over life.

    ``depreciation = capex_usd * (1 - residual_value_frac) / life_years``

    Parameters
    ----------
    capex_usd : float, array_like or pandas.Series
        Purchase price (all-in capex), >= 0 [USD].
    life_years : float, array_like or pandas.Series
        Economic life, > 0 [yr].
    residual_value_frac : float, array_like or pandas.Series, default 0
        Resale value at the end of life as a fraction of capex, in [0, 1].

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Depreciation [USD/yr].

    Raises
    ------
    ValueError
        If capex is negative, life is not > 0, the residual fraction lies outside [0, 1], or
        any input is NaN.

    Examples
    --------
    >>> straight_line_depreciation_usd_per_year(40_000.0, 4, 0.1)
    9000.0
    """
    _check_capex(capex_usd)
    check_positive("life_years", life_years)
    check_fraction("residual_value_frac", residual_value_frac)
    (c, n, res), restore = as_arrays(capex_usd, life_years, residual_value_frac)
    return restore(c * (1.0 - res) / n)


def annuity_usd_per_year(capex_usd: Any, rate_frac: Any, life_years: Any, residual_value_frac: Any = 0.0) -> Any:
    """Level yearly payment that recovers a capex and its cost of capital over the life.

    ``annuity = crf(r, n) * (capex - residual * (1 + r) ** -n)``,
    with ``residual = capex * residual_value_frac``: the residual value, received at the end of
    life, is discounted to today and netted off the capex.

    Parameters
    ----------
    capex_usd : float, array_like or pandas.Series
        Purchase price, >= 0 [USD].
    rate_frac : float, array_like or pandas.Series
        Cost of capital per year, fraction in [0, 1] [1/yr].
    life_years : float, array_like or pandas.Series
        Economic life, > 0 [yr].
    residual_value_frac : float, array_like or pandas.Series, default 0
        Resale value at end of life as a fraction of capex, in [0, 1].

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Annuity [USD/yr].

    Raises
    ------
    ValueError
        As :func:`capital_recovery_factor` and :func:`straight_line_depreciation_usd_per_year`.

    Notes
    -----
    Identity used in the tests: ``annuity = (capex - residual) * crf + residual * r``, i.e. the
    depreciating part is repaid with interest and the residual only pays interest.

    Examples
    --------
    >>> round(annuity_usd_per_year(100_000.0, 0.10, 5), 2)
    26379.75
    >>> annuity_usd_per_year(100_000.0, 0.0, 4, 0.2)
    20000.0
    """
    _check_capex(capex_usd)
    check_fraction("rate_frac", rate_frac)
    check_positive("life_years", life_years)
    check_fraction("residual_value_frac", residual_value_frac)
    (c, r, n, res), restore = as_arrays(capex_usd, rate_frac, life_years, residual_value_frac)
    crf = np.asarray(capital_recovery_factor(r, n))
    pv_residual = c * res * np.exp(-n * np.log1p(r))
    return restore(crf * (c - pv_residual))


def cost_of_capital_usd_per_year(
    capex_usd: Any, rate_frac: Any, life_years: Any, residual_value_frac: Any = 0.0
) -> Any:
    """Cost of capital: the part of the annuity above straight-line depreciation.

    ``cost_of_capital = annuity(capex, r, n, residual) - (capex - residual) / n``

    Parameters
    ----------
    capex_usd : float, array_like or pandas.Series
        Purchase price, >= 0 [USD].
    rate_frac : float, array_like or pandas.Series
        Cost of capital per year, fraction in [0, 1] [1/yr].
    life_years : float, array_like or pandas.Series
        Economic life, > 0 [yr].
    residual_value_frac : float, array_like or pandas.Series, default 0
        Resale value at end of life as a fraction of capex, in [0, 1].

    Returns
    -------
    float, numpy.ndarray or pandas.Series
        Cost of capital [USD/yr]; 0 at a zero rate, never negative.

    Raises
    ------
    ValueError
        As :func:`annuity_usd_per_year`.

    Notes
    -----
    ``annuity - straight_line = (capex - residual) * (crf - 1/n) + residual * r`` and
    ``crf >= 1/n`` for ``r >= 0``, so the result is >= 0.

    Examples
    --------
    >>> round(cost_of_capital_usd_per_year(100_000.0, 0.10, 5), 2)
    6379.75
    """
    annuity = annuity_usd_per_year(capex_usd, rate_frac, life_years, residual_value_frac)
    straight = straight_line_depreciation_usd_per_year(capex_usd, life_years, residual_value_frac)
    return annuity - straight


def _check_capex(capex_usd: Any) -> None:
    check_nonnegative("capex_usd", capex_usd)
