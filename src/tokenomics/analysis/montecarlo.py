"""Monte Carlo over every uncertain input: distributions of cost per Mtok, margin, break-evens and energy.

One draw fixes every uncertain input at once (a *joint* draw) and evaluates every system with
the economics kernels (:mod:`tokenomics.economics`, :mod:`tokenomics.cost.energy`,
:func:`tokenomics.cost.tco.itemised_tco_usd_per_gpu_hour`):

* **TCO** per accelerator-hour: the itemised TCO is linear in capex and IT power,
  ``K = capex * A(r, life, opex fractions, ...) + kw * B(PUE, power price, colocation)``, so
  ``A`` and ``B`` (per draw, shared by all systems) each come from one call of the itemised-TCO
  kernel; the system's TCO is its base value scaled by ``K(draw) / K(catalog)``. A published
  $/GPU-hour is scaled by its own spread.
* **Throughput** at each interactivity: the base value times a multiplier drawn from the
  projection's band for projected curves (lognormal with the band as p10-p90: the band comes from
  the calibration's held-out residuals, :func:`tokenomics.perf.calibrate.calibrate`); measured
  curves are taken as exact. One multiplier per system is shared across interactivities (the
  calibration error is systematic).
* **Catalog values** marked estimate or unverified vary by their stated spreads
  (``data/uncertainty/spreads.csv``, :mod:`tokenomics.analysis.distributions`); verified and
  secondary values are fixed. Facility power per accelerator moves with the IT-power spread.
* **Utilization, prices and license fee** are numbers or distributions given by the caller,
  checked against their plausible ranges (a utilization of 60, a price in $/token: ValueError)
  and truncated to their valid ranges (see :func:`monte_carlo`, Notes).

Inputs shared by all systems (utilization, prices, fee, cost of capital, opex fractions) use the
same draw for every system (common random numbers), so ranking probabilities compare systems in
the same world. Per draw and system: the :data:`METRICS`.

Sampling is quasi-Monte Carlo by default (scrambled Sobol' when the draw count is a power of two,
else Latin hypercube up to 2**16 draws, pseudo-random beyond; ``scipy.stats.qmc``), reproducible
by ``seed``; every input is drawn by its inverse CDF from one matrix of uniform numbers
(:class:`tokenomics.analysis.distributions.ColumnSampler`).

**Summaries** (both backends) come from per-block sufficient statistics merged by addition: the
count, shifted sum and sum of squares (mean, standard deviation), P(margin > target) counts,
pairwise "cheaper" counts and "cheapest" counts, and a log-bucket quantile sketch (the float's
exponent and its top :data:`SKETCH_MANTISSA_BITS` mantissa bits: 128 buckets per octave). A
quantile ``p`` of the sketch lies within a relative :data:`SKETCH_RELATIVE_ERROR` (0.39 %) of the
draws' order statistic of rank ``ceil(p N)`` for magnitudes in [2**-32, 2**48), and within the
draws' smallest and largest values (a constant metric's quantiles are that constant); magnitudes
below 2**-32 count as 0. ``backend="numpy"`` also keeps every draw (an xarray Dataset: exact quantiles
with ``draws.quantile``); ``backend="dask"`` streams chunks through a dask tree reduction of the
statistics: memory is the working set of the chunks in flight (one per thread, set by the chunk
size) plus at most ``split_every`` partial statistics (7 x cases x :data:`SKETCH_BUCKETS` counts)
per level of the tree (``log_8`` of the chunk count: 4 levels for 1e9 draws in chunks of 2**18),
never the draws.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy.stats import qmc

from tokenomics import catalog
from tokenomics._numeric import trusted_inputs
from tokenomics._validate import (
    check_fraction,
    check_plausible,
    check_target_margin,
    normalize_name,
    unknown_name_error,
)
from tokenomics.analysis.distributions import (
    Bounded,
    ColumnSampler,
    Spread,
    bounded,
    check_plausible_distribution,
    spread_for,
    warn_if_truncated,
)
from tokenomics.chain import DEFAULT_UTILIZATION_FRAC, compare
from tokenomics.cost.energy import energy_j_per_token, tok_per_s_per_mw
from tokenomics.cost.tco import itemised_tco_usd_per_gpu_hour, tco
from tokenomics.economics import (
    blended_price_usd_per_mtok,
    breakeven_price_usd_per_mtok,
    breakeven_utilization_frac,
    cost_per_mtok,
    gross_margin_frac,
    profit_usd_per_mw_year,
)
from tokenomics.workload import Workload

__all__ = [
    "METRICS",
    "SKETCH_BUCKETS",
    "SKETCH_MANTISSA_BITS",
    "SKETCH_RELATIVE_ERROR",
    "MonteCarloProblem",
    "MonteCarloResult",
    "monte_carlo",
    "monte_carlo_problem",
]

METRICS: dict[str, str] = {
    "cost_usd_per_mtok": "cost per Mtok of all tokens [USD/Mtok]",
    "gross_margin_frac": "(revenue - license - TCO) / revenue",
    "breakeven_utilization_frac": "utilization at zero margin; NaN where no utilization <= 1 breaks even",
    "breakeven_price_usd_per_mtok": "blended price at zero margin [USD/Mtok]",
    "energy_j_per_token": "facility energy per served token, idle hours included [J/token] (NaN: no power figure)",
    "tok_per_s_per_mw": "served tokens per second per MW of facility power [tok/s/MW] (NaN: no power figure)",
    "profit_usd_per_mw_year": "gross profit per MW of facility power per year [USD/MW-year] (NaN: no power figure)",
}
"""Per-draw results and their meaning."""

SKETCH_MANTISSA_BITS: int = 7
"""Mantissa bits of a quantile-sketch bucket: 2**7 buckets per octave."""

SKETCH_RELATIVE_ERROR: float = 2.0 ** -(SKETCH_MANTISSA_BITS + 1) + 2.0**-24
"""Largest relative error of a sketch quantile (half a bucket's relative width, plus float32 rounding of the key)."""

Method = Literal["auto", "sobol", "lhs", "random"]
_QUANTILES = (0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95)
_BAND_COVERAGE = 0.8  # the projection band is p10-p90
_QMC_MAX_DRAWS = 2**16  # "auto" uses pseudo-random numbers beyond: QMC's gain is small there, its cost not
_DEFAULT_INTERACTIVITY = 50.0  # tok/s/user evaluated when base is a model name
_DEFAULT_CHUNK_DRAWS = 2**18  # draws per dask chunk
_UNIT_CAPEX = np.array([[1.0], [0.0]])
_UNIT_KW = np.array([[0.0], [1.0]])
_WORKERS = max(1, min(4, os.cpu_count() or 1))  # threads of an in-memory run
_M = len(METRICS)
_MARGIN = list(METRICS).index("gross_margin_frac")
_COST = list(METRICS).index("cost_usd_per_mtok")


# --- the problem: base values and distributions ---------------------------------------------


@dataclass
class _Param:
    name: str
    dist: Bounded
    system: int | None  # None: shared by every system


@dataclass
class MonteCarloProblem:
    """Systems, base values and the distributions of every uncertain input (see :func:`monte_carlo_problem`).

    Attributes
    ----------
    cases : pandas.DataFrame
        One row per (system, interactivity): ``hardware_id``,
        ``interactivity_tok_per_s_per_user``, base ``throughput_tok_per_s_per_gpu``,
        ``cost_usd_per_gpu_hour`` and ``facility_power_kw_per_accelerator``, ``curve_kind``.
    systems : list of str
        Systems in order of first appearance.
    params : list
        The uncertain inputs (name, truncated distribution, system index or shared).
    fixed : dict of str to float
        Values of the inputs that do not vary.
    """

    cases: pd.DataFrame
    systems: list[str]
    params: list[_Param]
    fixed: dict[str, float]
    tco: dict[str, Any] = field(default_factory=dict)
    target_margin_frac: float = 0.5

    def __post_init__(self) -> None:
        cases = self.cases
        self._sampler = ColumnSampler([p.dist for p in self.params])
        self._sys = cases["_system"].to_numpy(dtype=np.intp)
        self._t0 = cases["throughput_tok_per_s_per_gpu"].to_numpy(dtype=float)[:, None]
        self._k0 = cases["cost_usd_per_gpu_hour"].to_numpy(dtype=float)[:, None]
        low = cases.get("throughput_low_tok_per_s_per_gpu")
        self._projected = (low.notna().to_numpy() if low is not None else np.zeros(len(cases), bool))
        fac = cases.get("facility_power_kw_per_accelerator")
        self._fac0 = (fac.to_numpy(dtype=float) if fac is not None else np.full(len(cases), np.nan))[:, None]
        self._fac_known = np.isfinite(self._fac0[:, 0]) & (self._fac0[:, 0] > 0)
        self._col = {p.name: j for j, p in enumerate(self.params)}
        self._groups = _interactivity_groups(cases)
        self._cols: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    @property
    def dims(self) -> int:
        """Number of uncertain inputs (dimensions of the sampling space)."""
        return len(self.params)

    def evaluate(self, u: np.ndarray) -> dict[str, np.ndarray]:
        """Evaluate every case for uniform numbers ``u`` of shape (draws, dims).

        Parameters
        ----------
        u : numpy.ndarray
            Uniform numbers in [0, 1), one column per uncertain input.

        Returns
        -------
        dict of str to numpy.ndarray
            Each of :data:`METRICS`, shape (draws, cases).
        """
        vals = self.evaluate_cases(u)
        return {m: vals[i].T for i, m in enumerate(METRICS)}

    def evaluate_cases(self, u: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Evaluate every case; the :data:`METRICS` stacked case-major, shape (metrics, cases, draws).

        Parameters
        ----------
        u : numpy.ndarray
            Uniform numbers in [0, 1), shape (draws, dims).
        out : numpy.ndarray, optional
            A float64 array of shape (metrics, cases, draws) to write into.

        Returns
        -------
        numpy.ndarray
            The metrics; NaN where a break-even is infeasible or no facility power is known.
        """
        return self._evaluate(np.ascontiguousarray(np.asarray(u, dtype=float).T), out, trusted=False)

    def _evaluate(self, ut: np.ndarray, out: np.ndarray | None, *, trusted: bool,
                  inputs: np.ndarray | None = None) -> np.ndarray:
        """:meth:`evaluate_cases` of uniform numbers ``ut`` of shape (dims, draws).

        ``trusted`` skips the kernels' input checks: every draw is inside its valid range by
        construction and the base values were checked by :func:`_reference`. ``inputs``, of
        shape (dims, draws), receives the sampled inputs.
        """
        if trusted:
            with trusted_inputs():
                return self._evaluate(ut, out, trusted=False, inputs=inputs)
        n, c = ut.shape[1], len(self.cases)
        if out is None:
            out = np.empty((_M, c, n))
        x = self._sampler.ppf(ut)
        if inputs is not None:
            inputs[...] = x

        def shared(name: str) -> Any:
            j = self._col.get(name)
            return x[j][None, :] if j is not None else self.fixed[name]

        t = self._t0
        band = self._per_system(x, "band", n)
        if band is not None:  # projected rows only: a measured row of the same system stays as measured
            t = t * np.where(self._projected[:, None], band[self._sys], 1.0)
        ratio, kw_mult = self._tco_ratio(x, n)
        k = self._k0 if ratio is None else self._k0 * ratio[self._sys]
        fac = self._fac0 if kw_mult is None else self._fac0 * kw_mult[self._sys]
        util = shared("utilization_frac")
        fee = shared("license_fee_frac")
        price = blended_price_usd_per_mtok(
            shared("input_usd_per_mtok"), shared("output_usd_per_mtok"), self.fixed["input_share_frac"],
            self.fixed["cache_hit_frac"], shared("cached_input_usd_per_mtok"),
        )
        out[0] = cost_per_mtok(k, t, util)
        out[1] = gross_margin_frac(price, t, util, k, fee)
        out[2] = breakeven_utilization_frac(price, t, k, fee, on_infeasible="nan")
        out[3] = breakeven_price_usd_per_mtok(t, util, k, fee)
        known = self._fac_known
        if known.all():
            out[4] = energy_j_per_token(fac, t, util)
            out[5] = tok_per_s_per_mw(t, fac, util)
            out[6] = profit_usd_per_mw_year(price, t, util, k, fac, fee)
        elif known.any():  # rows without a power figure stay NaN
            def rows(a: Any) -> Any:
                return a[known] if np.ndim(a) == 2 and np.shape(a)[0] == c else a

            out[4:] = np.nan
            fk, tk, kk = rows(fac), rows(t), rows(k)
            out[4, known] = energy_j_per_token(fk, tk, util)
            out[5, known] = tok_per_s_per_mw(tk, fk, util)
            out[6, known] = profit_usd_per_mw_year(price, tk, util, kk, fk, fee)
        else:
            out[4:] = np.nan
        return out

    def _per_system(self, x: np.ndarray, name: str, n: int) -> np.ndarray | None:
        """(systems, draws) multipliers of a per-system input, or None when no system varies it."""
        if name not in self._cols:
            idx = [(s, self._col[f"{name}:{s}"]) for s in range(len(self.systems)) if f"{name}:{s}" in self._col]
            self._cols[name] = (np.array([i for i, _ in idx], dtype=np.intp),
                                np.array([j for _, j in idx], dtype=np.intp))
        systems, columns = self._cols[name]
        if systems.size == 0:
            return None
        mult = np.ones((len(self.systems), n))
        mult[systems] = x[columns]
        return mult

    def _tco_ratio(self, x: np.ndarray, n: int) -> tuple[np.ndarray | None, np.ndarray | None]:
        """TCO of each system relative to its catalog value, (systems, draws), and the IT-power multipliers.

        The itemised TCO is linear in capex and in IT power (``K = capex * A + kw * B``), so ``A``
        and ``B`` come from two kernel calls, shared by every system.
        """
        published = self._per_system(x, "usd_per_gpu_hour", n)
        kw_mult = self._per_system(x, "it_power", n)
        if "itemised" not in self.tco:
            return published, kw_mult
        f = self.fixed

        def get(name: str) -> Any:
            j = self._col.get(name)
            return x[j] if j is not None else f[name]

        common = {
            "economic_life_years": f["economic_life_years"],
            "cost_of_capital_frac": get("cost_of_capital_frac"),
            "pue": f["pue"],
            "electricity_usd_per_kwh": f["electricity_usd_per_kwh"],
            "colocation_usd_per_kw_month": f["colocation_usd_per_kw_month"],
            "residual_value_frac": f["residual_value_frac"],
            "rental_markup_frac": get("rental_markup_frac"),
            "maintenance_frac_per_year": get("maintenance_frac_per_year"),
            "other_opex_frac_per_year": get("other_opex_frac_per_year"),
        }
        # one call for both coefficients: capex (1, 0) and IT power (0, 1) broadcast against the draws
        both = np.asarray(itemised_tco_usd_per_gpu_hour(_UNIT_CAPEX, it_power_kw_per_accelerator=_UNIT_KW,
                                                        **common)["total"])
        per_capex, per_kw = both[0:1], both[1:2]
        capex = self.tco["capex_usd_per_accelerator"][:, None]
        capex_mult = self._per_system(x, "capex", n)
        if capex_mult is not None:
            capex = capex * capex_mult
        kw = self.tco["it_power_kw_per_accelerator"][:, None]
        if kw_mult is not None:
            kw = kw * kw_mult
        ratio = (per_capex * capex + per_kw * kw) / self.tco["central_usd_per_gpu_hour"][:, None]
        itemised = self.tco["itemised"][:, None]
        if published is None:
            return (ratio if itemised.all() else np.where(itemised, ratio, 1.0)), kw_mult
        return np.where(itemised, ratio, published), kw_mult


def _interactivity_groups(cases: pd.DataFrame) -> list[np.ndarray]:
    """Case indices sharing one interactivity (cases ranked against each other)."""
    inter = cases["interactivity_tok_per_s_per_user"].to_numpy(dtype=float)
    keys = np.where(np.isnan(inter), -1.0, inter)
    return [np.flatnonzero(keys == v) for v in dict.fromkeys(keys.tolist())]


_PLAUSIBLE_PRICE = "price"


def _fixed_or_dist(name: str, value: Any, base: float, low: float, high: float, *, low_inclusive: bool,
                   high_inclusive: bool) -> tuple[float | None, Bounded | None]:
    given = value is not None
    if value is None:
        value = base
    if isinstance(value, Spread):
        value = value.around(base)
    if isinstance(value, int | float | np.floating):
        if given:
            _check_plausible(name, value)
        bounded(name, float(value), low, high, low_inclusive=low_inclusive, high_inclusive=high_inclusive)
        return float(value), None
    try:
        dist = bounded(name, value, low, high, low_inclusive=low_inclusive, high_inclusive=high_inclusive)
    except ValueError as err:
        try:  # a percent or a $/token figure explains a distribution outside the range: say so
            _check_plausible(name, value)
        except ValueError as slip:
            raise ValueError(f"{err}; {str(slip).removeprefix(name + ': ')}") from None
        raise
    _check_plausible(name, value)
    warn_if_truncated(dist)
    return None, dist


def _check_plausible(name: str, value: Any) -> None:
    """Refuse unit slips of a user input (number or distribution): percent for a fraction, $/token for $/Mtok."""
    if name.endswith("_frac"):
        if isinstance(value, int | float | np.floating):
            check_fraction(name, value)
        check_plausible_distribution(name, value, fraction=True)
        return
    spec = catalog.parameter_spec(_PLAUSIBLE_PRICE, name)
    if isinstance(value, int | float | np.floating):
        check_plausible(name, value, low=spec.min_value, high=spec.max_value, unit=spec.unit, allow_zero=True)
    check_plausible_distribution(name, value, low=spec.min_value, high=spec.max_value, unit=spec.unit)


def monte_carlo_problem(
    base: pd.DataFrame,
    *,
    utilization_frac: Any = None,
    license_fee_frac: Any = None,
    input_usd_per_mtok: Any = None,
    output_usd_per_mtok: Any = None,
    cached_input_usd_per_mtok: Any = None,
    target_margin_frac: float = 0.5,
    catalog_spreads: bool = True,
    spreads: pd.DataFrame | None = None,
) -> MonteCarloProblem:
    """Build the sampling problem from a base table (one row per system and interactivity).

    Parameters
    ----------
    base : pandas.DataFrame
        Rows as :func:`tokenomics.compare` returns them: ``hardware_id``,
        ``throughput_tok_per_s_per_gpu``, ``cost_usd_per_gpu_hour``, ``utilization_frac``,
        ``license_fee_frac``, ``input_share_frac``, ``cache_hit_frac``, the three list prices;
        optional ``interactivity_tok_per_s_per_user``, ``curve_kind``,
        ``throughput_low/high_tok_per_s_per_gpu`` (the projection band), ``tco_basis``,
        ``tco_profile``, ``tco_vintage``, ``tco_tier``, ``facility_power_kw_per_accelerator``
        (energy metrics; an itemised system's is its IT power x PUE).
    utilization_frac, license_fee_frac : float, scipy.stats distribution or Spread, optional
        Default: the base table's value, fixed.
    input_usd_per_mtok, output_usd_per_mtok, cached_input_usd_per_mtok : optional
        List prices [USD/Mtok], as numbers or distributions; default the base table's.
    target_margin_frac : float, default 0.5
        Margin target of :meth:`MonteCarloResult.prob_margin_above` defaults (and the dask summary).
    catalog_spreads : bool, default True
        Vary projected throughput by its band and, for rows with a ``tco_basis`` (catalog
        systems), estimate/unverified catalog values (capex, profile opex, IT power, published
        TCO) by their stated spreads; False fixes them. Rows without ``tco_basis`` keep their
        ``cost_usd_per_gpu_hour``.
    spreads : pandas.DataFrame, optional
        Spreads catalog (:func:`tokenomics.analysis.distributions.load_spreads`).

    Returns
    -------
    MonteCarloProblem
        The problem.

    Raises
    ------
    KeyError
        Missing base columns (listed).
    ValueError
        A distribution without support in its parameter's valid range, or mostly outside it; a
        value or distribution whose median is implausible for its parameter (a percent for a
        fraction, a $/token figure for a $/Mtok price), naming the parameter.
    """
    need = ["hardware_id", "throughput_tok_per_s_per_gpu", "cost_usd_per_gpu_hour", "utilization_frac",
            "license_fee_frac", "input_share_frac", "cache_hit_frac", "input_usd_per_mtok", "output_usd_per_mtok",
            "cached_input_usd_per_mtok"]
    missing = [c for c in need if c not in base.columns]
    if missing:
        raise KeyError(f"monte_carlo: base table lacks columns {missing}; use tokenomics.compare() rows")
    if len(base) == 0:
        raise ValueError("monte_carlo: the base table has no rows")
    check_target_margin("target_margin_frac", target_margin_frac)
    cases = base.copy().reset_index(drop=True)
    if "interactivity_tok_per_s_per_user" not in cases:
        cases["interactivity_tok_per_s_per_user"] = np.nan
    if "curve_kind" not in cases:
        cases["curve_kind"] = "given"
    systems = list(dict.fromkeys(cases["hardware_id"].astype(str)))
    cases["_system"] = [systems.index(h) for h in cases["hardware_id"].astype(str)]
    first = cases.iloc[0]
    params: list[_Param] = []
    fixed: dict[str, float] = {"input_share_frac": float(first["input_share_frac"]),
                               "cache_hit_frac": float(first["cache_hit_frac"])}
    user = {
        "utilization_frac": (utilization_frac, 0.0, 1.0, False, True),
        "license_fee_frac": (license_fee_frac, 0.0, 1.0, True, False),
        "input_usd_per_mtok": (input_usd_per_mtok, 0.0, math.inf, True, False),
        "output_usd_per_mtok": (output_usd_per_mtok, 0.0, math.inf, True, False),
        "cached_input_usd_per_mtok": (cached_input_usd_per_mtok, 0.0, math.inf, True, False),
    }
    for name, (value, lo, hi, lo_in, hi_in) in user.items():
        fx, dist = _fixed_or_dist(name, value, float(first[name]), lo, hi, low_inclusive=lo_in, high_inclusive=hi_in)
        if dist is None:
            assert fx is not None
            fixed[name] = fx
        else:
            params.append(_Param(name, dist, None))
    terms: dict[str, Any] = {}
    if catalog_spreads:
        _band_params(cases, systems, params)
        if "tco_basis" in cases.columns:
            terms = _tco_params(cases, systems, params, fixed, spreads)
    if "facility_power_kw_per_accelerator" not in cases:
        cases["facility_power_kw_per_accelerator"] = np.nan
    if terms:  # an itemised system's facility power is its IT power x PUE
        kw = terms["it_power_kw_per_accelerator"][cases["_system"].to_numpy()] * fixed["pue"]
        fac = cases["facility_power_kw_per_accelerator"].to_numpy(dtype=float)
        own = terms["itemised"][cases["_system"].to_numpy()]
        cases["facility_power_kw_per_accelerator"] = np.where(own & ~(fac > 0), kw, fac)
    return MonteCarloProblem(cases, systems, params, fixed, terms, float(target_margin_frac))


def _band_params(cases: pd.DataFrame, systems: list[str], params: list[_Param]) -> None:
    cols = ("throughput_low_tok_per_s_per_gpu", "throughput_high_tok_per_s_per_gpu")
    if not set(cols) <= set(cases.columns):
        return
    for s, hid in enumerate(systems):
        rows = cases[(cases["_system"] == s) & cases[cols[0]].notna()]
        if rows.empty:
            continue
        t = rows["throughput_tok_per_s_per_gpu"].to_numpy(dtype=float)
        lo = float(np.median(rows[cols[0]].to_numpy(dtype=float) / t))
        hi = float(np.median(rows[cols[1]].to_numpy(dtype=float) / t))
        spread = Spread("lognormal", min(lo, 1.0), max(hi, 1.0), _BAND_COVERAGE, "projection band (held-out residuals)")
        params.append(_Param(f"band:{s}", bounded(f"throughput band of {hid}", spread.around(1.0)), s))


def _tco_params(cases: pd.DataFrame, systems: list[str], params: list[_Param], fixed: dict[str, float],
                spreads: pd.DataFrame | None) -> dict[str, Any]:
    basis = cases.get("tco_basis", pd.Series(["itemised"] * len(cases)))
    first = cases.iloc[0]
    profile_name = str(first.get("tco_profile", "hyperscaler")) if "tco_profile" in cases else "hyperscaler"
    itemised = np.array([str(basis[cases["_system"] == s].iloc[0]) == "itemised" for s in range(len(systems))])
    capex0 = np.ones(len(systems))
    kw0 = np.zeros(len(systems))
    central = np.ones(len(systems))
    if itemised.any():
        profile = catalog.tco_profile(profile_name)
        for name in ("cost_of_capital_frac", "maintenance_frac_per_year", "other_opex_frac_per_year",
                     "rental_markup_frac"):
            value = float(getattr(profile, name))
            prov = profile.provenance.get(name)
            spread = spread_for("tco_profile", name, prov.confidence, spreads) if prov is not None else None
            if spread is None or value == 0.0:
                fixed[name] = value
            else:
                hi = math.inf if name == "rental_markup_frac" else 1.0
                params.append(_Param(name, bounded(name, spread.around(value), 0.0, hi, low_inclusive=True), None))
                fixed[name] = value
    for s, hid in enumerate(systems):
        if itemised[s]:
            res = tco(hid, basis="itemised", profile=profile_name)
            inputs = res.inputs
            for k in ("economic_life_years", "pue", "electricity_usd_per_kwh", "colocation_usd_per_kw_month",
                      "residual_value_frac"):
                fixed.setdefault(k, float(inputs[k]))
            capex0[s] = float(inputs["capex_usd_per_accelerator"])
            kw0[s] = float(inputs["it_power_kw_per_accelerator"])
            central[s] = float(res.usd_per_gpu_hour)
            prov = catalog.tco_inputs(hid).provenance.get("capex_usd_per_accelerator")
            spread = spread_for("tco_system", "capex_usd_per_accelerator", prov.confidence, spreads) if prov else None
            if spread is not None:
                dist = bounded(f"capex_usd_per_accelerator of {hid}", spread.around(1.0))
                params.append(_Param(f"capex:{s}", dist, s))
            hprov = catalog.hardware(hid).provenance.get("it_power_kw_per_accelerator")
            spread = spread_for("hardware", "it_power_kw_per_accelerator", hprov.confidence, spreads) if hprov else None
            if spread is not None:
                params.append(_Param(f"it_power:{s}", bounded(f"it_power_kw_per_accelerator of {hid}",
                                                              spread.around(1.0)), s))
        else:
            row = cases[cases["_system"] == s].iloc[0]
            pub = catalog.published_tco(hid, vintage=str(row["tco_vintage"]), tier=str(row["tco_tier"]))
            prov = pub.provenance.get("usd_per_gpu_hour")
            spread = spread_for("published_tco", "usd_per_gpu_hour", prov.confidence, spreads) if prov else None
            if spread is not None:
                params.append(_Param(f"usd_per_gpu_hour:{s}", bounded(f"usd_per_gpu_hour of {hid}",
                                                                      spread.around(1.0)), s))
    if not itemised.any():
        return {}
    return {"itemised": itemised, "capex_usd_per_accelerator": capex0, "it_power_kw_per_accelerator": kw0,
            "central_usd_per_gpu_hour": central}


# --- sampling ------------------------------------------------------------------------------------


# --- sufficient statistics of a block of draws ----------------------------------------------------

_SHIFT = 23 - SKETCH_MANTISSA_BITS  # keys from the bits of float32 (rounding: 2**-24 relative)
_KEY_LO = (127 - 32) << SKETCH_MANTISSA_BITS  # |x| >= 2**-32
_NB = 80 << SKETCH_MANTISSA_BITS  # buckets per sign: 80 octaves, up to 2**48
_BINS = 2 * _NB + 2  # negative buckets, zero, positive buckets, non-finite
SKETCH_BUCKETS: int = _BINS
"""Buckets of the quantile sketch per metric and case: 80 octaves of magnitude per sign, zero, non-finite."""
_ABS = np.int32(0x7FFFFFFF)


def _bucket_values() -> np.ndarray:
    keys = np.arange(_KEY_LO, _KEY_LO + _NB, dtype=np.int32)
    lo = (keys << _SHIFT).view(np.float32).astype(float)
    hi = ((keys + 1) << _SHIFT).view(np.float32).astype(float)
    mid = (lo + hi) / 2.0
    return np.concatenate([-mid[::-1], [0.0], mid, [np.nan]])


_BUCKET_VALUE = _bucket_values()
"""Value reported for each sketch bucket (its midpoint; 0 for the zero bucket; NaN for non-finite)."""


def _buckets(x: np.ndarray, nan: np.ndarray | None = None) -> np.ndarray:
    """Sketch bucket of every element of a float array, in [0, _BINS).

    Integer operations on the bits of the value as float32: the magnitude's key (exponent and
    top mantissa bits) relative to 2**-32, clamped to the zero and top buckets, mirrored for
    negative values. NaN goes to the last bucket, or to the zero bucket when its mask ``nan`` is
    given (the caller moves those counts).
    """
    bits = x.astype(np.float32).view(np.int32)
    sign = bits >> 31  # 0 or -1
    key = bits & _ABS
    key >>= _SHIFT
    key -= _KEY_LO - 1  # the zero bucket at 0
    np.maximum(key, np.int32(0), out=key)
    np.minimum(key, np.int32(_NB), out=key)
    key ^= sign  # two's complement negation of negative values' keys
    key -= sign
    key += _NB
    if nan is None:
        np.copyto(key, _BINS - 1, where=np.isnan(x))
    else:
        np.copyto(key, _NB, where=nan)
    return key


@dataclass
class _Stats:
    """Mergeable statistics of some draws: everything a summary needs, nothing per draw."""

    n: int
    sums: np.ndarray  # (metrics, cases, 2): sum and sum of squares of (x - reference), finite x only
    sketch: np.ndarray  # (metrics, cases, _BINS) counts
    margin_above: np.ndarray  # (cases,)
    cheaper: np.ndarray  # (cases, cases): draws in which a costs less than b (same interactivity)
    cheapest: np.ndarray  # (cases,): draws in which a case is the cheapest of its interactivity
    low: np.ndarray  # (metrics, cases): smallest finite draw (+inf before any)
    high: np.ndarray  # (metrics, cases): largest finite draw (-inf before any)

    @classmethod
    def zeros(cls, c: int) -> _Stats:
        return cls(0, np.zeros((_M, c, 2)), np.zeros((_M, c, _BINS), dtype=np.int64), np.zeros(c, dtype=np.int64),
                   np.zeros((c, c), dtype=np.int64), np.zeros(c, dtype=np.int64), np.full((_M, c), np.inf),
                   np.full((_M, c), -np.inf))

    def __iadd__(self, other: _Stats) -> _Stats:
        self.n += other.n
        self.sums += other.sums
        self.sketch += other.sketch
        self.margin_above += other.margin_above
        self.cheaper += other.cheaper
        self.cheapest += other.cheapest
        np.minimum(self.low, other.low, out=self.low)
        np.maximum(self.high, other.high, out=self.high)
        return self


def _accumulate(acc: _Stats, problem: MonteCarloProblem, vals: np.ndarray, ref: np.ndarray) -> None:
    """Add the statistics of one block of metrics ``vals`` (metrics, cases, draws) to ``acc``."""
    m, c, n = vals.shape
    rows = m * c
    # sketch: count each row's buckets over the (narrow) span the block occupies, then add in place
    nan = np.isnan(vals)
    idx = _buckets(vals, nan).reshape(rows, n)
    lo = idx.min(axis=1)
    width = idx.max(axis=1) - lo + 1
    offset = np.cumsum(width) - width
    idx -= (lo - offset)[:, None]
    counts = np.bincount(idx.ravel(), minlength=int(width.sum()))
    sketch = acc.sketch.reshape(rows, _BINS)
    for r, (a, w, o) in enumerate(zip(lo.tolist(), width.tolist(), offset.tolist(), strict=True)):
        sketch[r, a: a + w] += counts[o: o + w]  # one slice per (metric, case) row, not per draw
    n_nan = np.count_nonzero(nan, axis=2)
    acc.sketch[:, :, _BINS - 1] += n_nan
    acc.sketch[:, :, _NB] -= n_nan  # NaN was counted in the zero bucket
    for reduce, nan_reduce, merge, out in ((np.min, np.fmin.reduce, np.fmin, acc.low),
                                           (np.max, np.fmax.reduce, np.fmax, acc.high)):
        ext = reduce(vals, axis=2)  # fast; NaN where a row holds NaN: those rows again, passing over NaN
        if (rows_nan := np.isnan(ext)).any():
            ext[rows_nan] = nan_reduce(vals[rows_nan], axis=1)
        merge(out, ext, out=out)
    d = vals - ref[:, :, None]
    np.copyto(d, 0.0, where=np.isnan(d))
    acc.sums[:, :, 0] += d.sum(axis=2)
    acc.sums[:, :, 1] += np.einsum("mcn,mcn->mc", d, d)
    acc.margin_above += np.count_nonzero(vals[_MARGIN] > problem.target_margin_frac, axis=1)
    cost = vals[_COST]
    for g in problem._groups:  # one pass per interactivity, all systems at once
        cg = cost[g]
        acc.cheaper[np.ix_(g, g)] += np.count_nonzero(cg[:, None, :] < cg[None, :, :], axis=2)
        acc.cheapest[g] += np.bincount(np.argmin(cg, axis=0), minlength=len(g))
    acc.n += n


def _reference(problem: MonteCarloProblem) -> np.ndarray:
    """Metrics at the median draw (u = 0.5): the shift of the sums, so variances do not cancel.

    Evaluated with the kernels' input checks: the base values are validated here once; every draw
    then stays inside its parameter's valid range by construction.
    """
    ref = problem._evaluate(np.full((problem.dims, 1), 0.5), None, trusted=False)[:, :, 0]
    return np.where(np.isfinite(ref), ref, 0.0)


_BLOCK_VALUES = 2**16


def _block_draws(c: int) -> int:
    """Draws per block: about 2**16 values per metric (cache-sized), a power of two (Sobol' balance)."""
    return int(min(2**16, max(2**9, 1 << int(math.log2(max(_BLOCK_VALUES // max(c, 1), 1))))))


def _range_stats(problem: MonteCarloProblem, start: int, size: int, method: str, seed: int | None,
                 ref: np.ndarray, store: np.ndarray | None = None, lhs: np.ndarray | None = None,
                 inputs: np.ndarray | None = None) -> _Stats:
    """Statistics of draws ``start .. start + size`` (a whole number of blocks unless it is the last range).

    The uniform numbers depend on the draw index only, never on how a run is split: Sobol' points
    ``start ..`` of one scrambled sequence (fast-forwarded), pseudo-random blocks seeded by
    ``(seed, block start)``, or rows of the Latin hypercube ``lhs``.
    """
    d, c = problem.dims, len(problem.cases)
    block = _block_draws(c)
    engine: Any = None
    if method == "sobol":
        engine = qmc.Sobol(max(d, 1), scramble=True, seed=seed)
        if start:
            engine.fast_forward(start)
    acc = _Stats.zeros(c)
    buf = np.empty((_M, c, block))
    for s in range(start, start + size, block):
        k = min(block, start + size - s)
        if d == 0:
            ut = np.empty((0, k))
        elif method == "sobol":
            ut = np.ascontiguousarray(engine.random(k)[:, :d].T)
        elif method == "lhs":
            assert lhs is not None
            ut = np.ascontiguousarray(lhs[s: s + k, :d].T)
        else:
            ut = np.random.default_rng([0 if seed is None else seed, s]).random((d, k))
        vals = problem._evaluate(ut, buf[:, :, :k] if k == block else None, trusted=True,
                                 inputs=None if inputs is None else inputs[:, s: s + k])
        if store is not None:
            store[:, :, s: s + k] = vals
        _accumulate(acc, problem, vals, ref)
    return acc


def _method(method: str, n: int) -> str:
    if method == "auto":
        return "random" if n > _QMC_MAX_DRAWS else "sobol" if n & (n - 1) == 0 else "lhs"
    if method not in ("sobol", "lhs", "random"):
        raise ValueError(f"method={method!r} is not one of 'auto', 'sobol', 'lhs', 'random'")
    return method


def _run_memory(problem: MonteCarloProblem, n: int, method: str, seed: int | None,
                keep_draws: bool) -> tuple[_Stats, np.ndarray | None, np.ndarray | None]:
    """Ranges of whole blocks on a few threads (numpy releases the GIL); draws and inputs kept as float32 if asked."""
    c = len(problem.cases)
    method = _method(method, n)
    lhs = qmc.LatinHypercube(max(problem.dims, 1), seed=seed).random(n) if method == "lhs" else None
    ref = _reference(problem)
    block = _block_draws(c)
    store = np.empty((_M, c, n), dtype=np.float32) if keep_draws else None
    inputs = np.empty((problem.dims, n), dtype=np.float32) if keep_draws else None
    blocks = -(-n // block)
    workers = min(_WORKERS, blocks)
    edges = [min(n, (blocks * w // workers) * block) for w in range(workers + 1)]
    with ThreadPoolExecutor(workers) as pool:
        parts = list(pool.map(lambda w: _range_stats(problem, edges[w], edges[w + 1] - edges[w], method, seed, ref,
                                                     store, lhs, inputs), range(workers)))
    return _merge(*parts), store, inputs


def _merge(*parts: _Stats) -> _Stats:
    total = parts[0]
    for p in parts[1:]:
        total += p
    return total


def _run_dask(problem: MonteCarloProblem, n: int, method: str, seed: int | None, chunk: int,
              split_every: int = 8) -> _Stats:
    """Chunks of ``chunk`` draws as dask tasks, their statistics merged by a tree of ``split_every``."""
    import dask  # heavy optional import: the chunked path only

    method = "sobol" if method == "auto" else _method(method, n)
    if method == "lhs":
        raise ValueError("method='lhs' cannot be chunked; use 'sobol' or 'random' with backend='dask'")
    if method == "sobol" and n & (n - 1):
        # the chunks are consecutive runs of one sequence: only the total count governs the balance
        lower = 1 << (n.bit_length() - 1)
        raise ValueError(
            f"Sobol' points are balanced only in powers of two: n_draws={n} is not one (take {lower} or "
            f"{2 * lower}), or use method='random' for other counts"
        )
    chunk = min(chunk, n)
    block = _block_draws(len(problem.cases))
    if chunk % block and chunk < n:  # whole blocks per chunk: the draws do not depend on the chunking
        chunk = -(-chunk // block) * block
    ref = _reference(problem)
    # the problem and reference enter the graph once, by key; each chunk task holds only its start
    p = dask.delayed(problem, traverse=False)
    r = dask.delayed(ref, traverse=False)
    level = [dask.delayed(_range_stats, pure=True)(p, s, min(chunk, n - s), method, seed, r)
             for s in range(0, n, chunk)]
    while len(level) > 1:
        level = [dask.delayed(_merge, pure=True)(*level[i: i + split_every])
                 for i in range(0, len(level), split_every)]
    return level[0].compute()


# --- results -----------------------------------------------------------------------------------


def _summary(problem: MonteCarloProblem, st: _Stats) -> pd.DataFrame:
    """One row per case and metric from the statistics (mean, std, sketch quantiles)."""
    cases = problem.cases
    labels = _labels(cases)
    ref = _reference(problem)
    finite = st.sketch[:, :, :-1].sum(axis=2)  # (metrics, cases)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_d = st.sums[:, :, 0] / finite
        var = np.maximum(st.sums[:, :, 1] / finite - mean_d**2, 0.0)
    cum = np.cumsum(st.sketch[:, :, :-1], axis=2)
    rows = []
    for i, metric in enumerate(METRICS):
        for j in range(len(cases)):
            nf = int(finite[i, j])
            row: dict[str, Any] = {
                "case": labels[j], "hardware_id": cases["hardware_id"].iloc[j],
                "interactivity_tok_per_s_per_user": cases["interactivity_tok_per_s_per_user"].iloc[j],
                "metric": metric, "finite_frac": nf / st.n,
                "mean": float(ref[i, j] + mean_d[i, j]) if nf else math.nan,
                "std": float(math.sqrt(var[i, j])) if nf else math.nan,
            }
            for q, name in zip(_QUANTILES, _qnames(), strict=True):
                if nf:
                    rank = max(math.ceil(q * nf - 1e-9), 1)
                    # a bucket's midpoint, never outside the draws' own range (a constant is exact)
                    value = float(_BUCKET_VALUE[int(np.searchsorted(cum[i, j], rank, side="left"))])
                    row[name] = min(max(value, float(st.low[i, j])), float(st.high[i, j]))
                else:
                    row[name] = math.nan
            rows.append(row)
    return pd.DataFrame(rows)


def _result(problem: MonteCarloProblem, n: int, st: _Stats, draws: Any, method: str,
            seed: int | None) -> MonteCarloResult:
    labels = _labels(problem.cases)
    same = np.zeros((len(labels), len(labels)), dtype=bool)
    for g in problem._groups:
        same[np.ix_(g, g)] = True
    cheaper = np.where(same, st.cheaper / n, np.nan)
    return MonteCarloResult(
        problem, n, _summary(problem, st), pd.DataFrame(cheaper, index=labels, columns=labels),
        pd.Series(st.margin_above / n, index=labels, name="prob_margin_above"), draws, method, seed,
        pd.Series(st.cheapest / n, index=labels, name="cheapest_frac"),
    )


def _qnames() -> list[str]:
    return [f"p{round(q * 100)}" for q in _QUANTILES]




@dataclass
class MonteCarloResult:
    """Distributions per system (and interactivity) from :func:`monte_carlo`.

    Attributes
    ----------
    problem : MonteCarloProblem
        Base values and input distributions.
    n_draws : int
        Number of joint draws.
    summary : pandas.DataFrame
        One row per case and metric (:data:`METRICS`, energy included): ``finite_frac`` (share
        of finite values: break-even utilization is NaN where infeasible, energy where no power
        figure is known), exact ``mean`` and ``std``, quantiles ``p5``..``p95`` from the
        log-bucket sketch (within :data:`SKETCH_RELATIVE_ERROR` of the draws' order statistic).
    cheaper_frac : pandas.DataFrame
        ``cheaper_frac.loc[a, b]``: share of draws in which case ``a`` costs less per Mtok than
        ``b`` (cases at the same interactivity; NaN otherwise).
    margin_above_frac : pandas.Series
        Share of draws with ``gross_margin_frac > target_margin_frac`` per case.
    draws : xarray.Dataset or None
        Per-draw results (in-memory runs with ``keep_draws``; None for dask runs): the
        :data:`METRICS`, dims ``draw`` x ``case``; and the sampled inputs, truncated to their
        valid ranges, as float32: each uncertain input shared by all systems under its own name
        (``utilization_frac``, ``output_usd_per_mtok``, ``cost_of_capital_frac``, ...), dim
        ``draw``; the per-system catalog multipliers (``throughput_mult``, ``capex_mult``,
        ``it_power_mult``, ``published_tco_mult``; 1 where a system's value is fixed), dims
        ``draw`` x ``system``. Inputs that do not vary are not included.
    method : str
        The sampling that ran: ``"sobol"``, ``"lhs"`` or ``"random"`` (``"auto"`` resolved),
        ``"dask:<method>"`` for dask runs.
    seed : int or None
        The seed given.
    cheapest_frac : pandas.Series
        Share of draws in which a case has the lowest cost per Mtok of its interactivity.
    """

    problem: MonteCarloProblem
    n_draws: int
    summary: pd.DataFrame
    cheaper_frac: pd.DataFrame
    margin_above_frac: pd.Series
    draws: Any = None
    method: str = ""
    seed: int | None = None
    cheapest_frac: pd.Series = field(default_factory=lambda: pd.Series(dtype=float))

    @property
    def labels(self) -> list[str]:
        """Case labels: the system id, with ``@<interactivity>`` when several are evaluated."""
        return _labels(self.problem.cases)

    def prob_margin_above(self, target_margin_frac: float | None = None) -> pd.Series:
        """Share of draws in which the gross margin exceeds a target, per case.

        Parameters
        ----------
        target_margin_frac : float, optional
            Target (default: the run's ``target_margin_frac``); other targets need the draws
            (in-memory runs).

        Returns
        -------
        pandas.Series
            P(margin > target) per case label, in [0, 1].
        """
        if target_margin_frac is None or target_margin_frac == self.problem.target_margin_frac:
            return self.margin_above_frac
        if self.draws is None:
            raise ValueError("a run without draws (dask, or keep_draws=False) keeps only the target it was run with; "
                             "rerun with target_margin_frac=...")
        check_target_margin("target_margin_frac", target_margin_frac)
        m = self.draws["gross_margin_frac"].to_numpy()
        return pd.Series((m > target_margin_frac).mean(axis=0), index=self.labels, name="prob_margin_above")

    def cheaper_statement(self, a: str, b: str) -> str:
        """Say in how many draws one system is cheaper per Mtok than another.

        Parameters
        ----------
        a, b : str
            Case labels (see :attr:`labels`).

        Returns
        -------
        str
            E.g. ``"gb300-nvl72 cheaper than tpu-v7 in 83.1 % of 4096 draws"``.

        Raises
        ------
        KeyError
            A name that is no case, nor a system (id or alias) of one (closest cases listed), or
            a system evaluated at several interactivities named without ``@<interactivity>``.
        ValueError
            Two cases at different interactivities.
        """
        a, b = self.case(a), self.case(b)
        share = float(self.cheaper_frac.loc[a, b])
        if math.isnan(share):
            raise ValueError(f"{a} and {b} are at different interactivities; compare cases at one interactivity")
        return f"{a} cheaper than {b} in {share:.1%} of {self.n_draws} draws".replace("%", " %")

    def case(self, name: str) -> str:
        """Return the case label a system name refers to: its id or any catalog alias.

        Labels are the catalog hardware ids (``"gb300-nvl72"``), with ``@<interactivity>`` when
        several interactivities were evaluated (``"gb300-nvl72@50"``). A name is matched as a
        label first (ignoring case and punctuation), then its system part is resolved as a
        catalog hardware name (``"gb300"``, ``"GB300 NVL72"``, ``"TPU v7"``); the interactivity
        part is read as a number (``"gb300@50.0"`` is ``gb300-nvl72@50``).

        Parameters
        ----------
        name : str
            A case label, or a system id or alias (with ``@<interactivity>`` where the run has
            several).

        Returns
        -------
        str
            The case label (one of :attr:`labels`).

        Raises
        ------
        KeyError
            No case matches (the closest cases listed), or the system has several cases and no
            interactivity was named (its cases listed).
        """
        labels = [str(lab) for lab in self.cheaper_frac.index]
        if name in labels:
            return str(name)
        by_key = {normalize_name(lab): lab for lab in labels}
        if normalize_name(str(name)) in by_key:
            return by_key[normalize_name(str(name))]
        system, at, inter = str(name).partition("@")
        try:
            hid = catalog.resolve_hardware_id(system.strip())
            wanted = f"{float(inter):g}" if at else None
        except (KeyError, ValueError):
            raise unknown_name_error("case", name, labels) from None
        cases = self.problem.cases
        matches = [
            lab for lab, h, x in zip(_labels(cases), cases["hardware_id"].astype(str),
                                     cases["interactivity_tok_per_s_per_user"], strict=True)
            if _same_system(h, hid) and (wanted is None or (pd.notna(x) and f"{float(x):g}" == wanted))
        ]
        if len(set(matches)) == 1:
            return matches[0]
        if matches:
            raise KeyError(f"case {name!r} is ambiguous: {hid} was evaluated at several interactivities "
                           f"({', '.join(matches)}); name one, e.g. {matches[0]!r}")
        raise unknown_name_error("case", name, labels)

    def fan(self, metric: str = "cost_usd_per_mtok") -> pd.DataFrame:
        """Quantiles of a metric per system and interactivity (the data of a fan chart).

        Parameters
        ----------
        metric : str, default "cost_usd_per_mtok"
            One of :data:`METRICS`.

        Returns
        -------
        pandas.DataFrame
            ``hardware_id``, ``interactivity_tok_per_s_per_user`` and ``p5``..``p95``, ``mean``.
        """
        if metric not in METRICS:
            raise unknown_name_error("metric", metric, METRICS)
        return self.summary[self.summary["metric"] == metric].reset_index(drop=True)


def _same_system(case_hardware_id: str, hardware_id: str) -> bool:
    """Whether a case's hardware id (a catalog id, or a name of a user's base table) is this catalog system."""
    if case_hardware_id == hardware_id:
        return True
    try:
        return catalog.resolve_hardware_id(case_hardware_id) == hardware_id
    except KeyError:
        return False


def _labels(cases: pd.DataFrame) -> list[str]:
    inter = cases["interactivity_tok_per_s_per_user"]
    several = len(set(inter.dropna())) > 1
    return [f"{h}@{i:g}" if several else str(h) for h, i in zip(cases["hardware_id"], inter, strict=True)]


def monte_carlo(
    base: pd.DataFrame | str,
    hardware: str | Sequence[str] | None = None,
    *,
    n_draws: int = 4096,
    seed: int | None = 0,
    method: Method = "auto",
    interactivity_tok_per_s_per_user: float | Sequence[float] | None = None,
    workload: Workload | str | None = None,
    kv_offload: str = "none",
    utilization_frac: Any = None,
    license_fee_frac: Any = None,
    input_usd_per_mtok: Any = None,
    output_usd_per_mtok: Any = None,
    cached_input_usd_per_mtok: Any = None,
    target_margin_frac: float = 0.5,
    catalog_spreads: bool = True,
    spreads: pd.DataFrame | None = None,
    backend: Literal["numpy", "dask"] = "numpy",
    chunk_draws: int | None = None,
    keep_draws: bool | None = None,
    compare_options: Mapping[str, Any] | None = None,
) -> MonteCarloResult:
    """Joint draws of every uncertain input -> distributions of cost, margin, break-evens and energy.

    Parameters
    ----------
    base : pandas.DataFrame or str
        A :func:`tokenomics.compare` table (one row per system and interactivity), or a model
        name: then ``compare(model, hardware, interactivity_tok_per_s_per_user=i, workload=...,
        kv_offload=..., ...)`` is run for each interactivity.
    hardware : str or sequence of str, optional
        Systems, when ``base`` is a model name (default: every catalog system).
    n_draws : int, default 4096
        Joint draws, >= 2.
    seed : int or None, default 0
        Seed of the (quasi-)random numbers; the same seed gives the same draws.
    method : {"auto", "sobol", "lhs", "random"}, default "auto"
        In memory: scrambled Sobol' for a power-of-two ``n_draws``, else Latin hypercube up to
        2**16 draws and pseudo-random beyond. Dask runs use Sobol' (``n_draws`` a power of two:
        the balance of Sobol' points holds for the first ``2**m`` of the sequence) or
        ``"random"``.
    interactivity_tok_per_s_per_user : float or sequence of float, optional
        Interactivities evaluated when ``base`` is a model name [tok/s/user] (default 50), each
        in the plausible range [1, 10000] (a TPOT in seconds given here is refused).
    workload : Workload or str, optional
        Traffic of the systems' curves and token mix when ``base`` is a model name (default
        :data:`tokenomics.workload.DEFAULT_WORKLOAD`).
    kv_offload : {"none", "dram", "ssd"}, default "none"
        Tiers below HBM holding evicted session prefixes (session workloads), when ``base`` is
        a model name.
    utilization_frac, license_fee_frac : float, scipy.stats distribution or Spread, optional
        Utilization in (0, 1] and revenue-share fee in [0, 1); default the base's, fixed. A
        distribution is truncated to that range (see Notes).
    input_usd_per_mtok, output_usd_per_mtok, cached_input_usd_per_mtok : optional
        List prices [USD/Mtok], numbers or distributions (truncated to >= 0, see Notes);
        default the base's.
    target_margin_frac : float, default 0.5
        Target of ``margin_above_frac``.
    catalog_spreads : bool, default True
        Vary estimate/unverified catalog values and projected throughput (see module docstring).
    spreads : pandas.DataFrame, optional
        Spreads catalog; default ``data/uncertainty/spreads.csv``.
    backend : {"numpy", "dask"}, default "numpy"
        In one process, block by block (and keeping the draws, see ``keep_draws``), or as dask
        tasks of ``chunk_draws`` draws merged by a tree reduction of their statistics (memory
        bounded by the chunk size: runs larger than memory).
    chunk_draws : int, optional
        Draws per dask chunk, >= 2 (default 262144; ``backend="dask"`` only). Rounded up to a
        whole number of evaluation blocks (a power of two from 512 to 65536 draws, fewer the
        more cases), so the draws, which depend on the draw index only, never depend on the
        chunking: chunk ``k`` holds points ``k * chunk ..`` of the one sequence of ``n_draws``.
    keep_draws : bool, optional
        In memory: keep every draw in ``result.draws``, the metrics and the sampled inputs
        ((7 metrics x cases + uncertain inputs) x draws float32 values; default True); False
        keeps only the statistics. A dask run keeps only the statistics (``keep_draws=True``
        with it is refused).
    compare_options : mapping, optional
        Further keyword arguments of :func:`tokenomics.compare` (TCO basis, profile, prices...).

    Returns
    -------
    MonteCarloResult
        Summaries, ranking shares, P(margin > target), cheapest shares and (in memory) the draws.

    Raises
    ------
    ValueError
        Invalid counts, method or targets; a distribution without support in its parameter's
        valid range, mostly outside it, or with an implausible median (a percent for a
        fraction, $/token for $/Mtok): the parameter is named; ``hardware``,
        ``interactivity_tok_per_s_per_user``, ``workload``, ``kv_offload`` or
        ``compare_options`` with a base table; a Sobol' dask run of ``n_draws`` not a power of
        two; ``chunk_draws`` not an integer >= 2, or given for an in-memory run;
        ``keep_draws=True`` with ``backend="dask"``.
    KeyError
        Unknown model or system, or a base table without the needed columns.

    Warns
    -----
    UserWarning
        A distribution given for utilization, license fee or a price with more than 1 %
        (:data:`tokenomics.analysis.distributions.MAX_SILENT_MASS_OUTSIDE`) of its probability
        outside the parameter's valid range, naming the parameter, the share outside and the
        range: its draws are truncated (see Notes).

    Notes
    -----
    **Truncation.** Every draw of an input lies in its valid range: utilization in (0, 1],
    license fee in [0, 1), prices >= 0. A distribution reaching outside the range is
    *truncated*, not clipped: its draws are its inverse CDF on the part inside the range,
    ``x = F^-1(F(low) + u (F(high) - F(low)))``, so no probability piles up at a bound, but the
    mean moves and the spread narrows (``scipy.stats.uniform(0.4, 1.0)`` as utilization is
    drawn as uniform on [0.4, 1]). The share outside, ``1 - (F(high) - F(low))``, comes from
    the distribution's CDF (a frozen ``scipy.stats`` distribution's ``cdf``; a
    :class:`~tokenomics.analysis.distributions.Spread` around the base value, its closed form; a
    number is fixed and must lie in the range). Above 1 % a ``UserWarning`` says so; above
    50 % (:data:`~tokenomics.analysis.distributions.MIN_MASS_IN_RANGE` inside), or with no
    probability in the range, the distribution is refused (``ValueError``). Each input's share
    outside is ``result.problem.params[i].dist.outside_frac``; the truncated draws themselves are
    variables of ``result.draws`` (in-memory runs), one per input.

    Examples
    --------
    >>> import pandas as pd
    >>> from scipy import stats
    >>> base = pd.DataFrame({"hardware_id": ["a", "b"], "throughput_tok_per_s_per_gpu": [2000.0, 1500.0],
    ...     "cost_usd_per_gpu_hour": [3.0, 2.0], "utilization_frac": 0.6, "license_fee_frac": 0.0,
    ...     "input_share_frac": 0.9, "cache_hit_frac": 0.0, "input_usd_per_mtok": 0.55,
    ...     "output_usd_per_mtok": 2.19, "cached_input_usd_per_mtok": 0.14})
    >>> r = monte_carlo(base, n_draws=1024, utilization_frac=stats.uniform(0.4, 0.4), catalog_spreads=False)
    >>> r.cheaper_statement("a", "b")
    'a cheaper than b in 0.0 % of 1024 draws'
    >>> r.draws["utilization_frac"].dims
    ('draw',)
    """
    if isinstance(n_draws, bool) or not isinstance(n_draws, int | np.integer) or n_draws < 2:
        raise ValueError(f"n_draws={n_draws!r} must be an integer >= 2")
    if backend not in ("numpy", "dask"):
        raise ValueError(f"backend={backend!r} is not one of 'numpy', 'dask'")
    chunk = _check_chunking(backend, chunk_draws, keep_draws)
    if isinstance(base, str):
        options = dict(compare_options or {})
        for name in ("workload", "kv_offload"):
            if name in options:
                raise ValueError(f"give {name}= to monte_carlo directly, not in compare_options")
        options.update(workload=workload, kv_offload=kv_offload)
        inter = _DEFAULT_INTERACTIVITY if interactivity_tok_per_s_per_user is None \
            else interactivity_tok_per_s_per_user
        base = _compare_base(base, hardware, inter, utilization_frac, license_fee_frac, options)
    else:
        given = [f"{name}=" for name, v, default in (
            ("hardware", hardware, None), ("interactivity_tok_per_s_per_user", interactivity_tok_per_s_per_user, None),
            ("workload", workload, None), ("kv_offload", kv_offload, "none"),
            ("compare_options", compare_options, None)) if not _is_default(v, default)]
        if given:
            names = given[0] if len(given) == 1 else f"{', '.join(given[:-1])} and {given[-1]}"
            raise ValueError(f"{names} {'applies' if len(given) == 1 else 'apply'} only when base is a model name; "
                             "the base table already fixes the systems, interactivities and traffic (filter or "
                             "rebuild it instead)")
    problem = monte_carlo_problem(
        base, utilization_frac=utilization_frac, license_fee_frac=license_fee_frac,
        input_usd_per_mtok=input_usd_per_mtok, output_usd_per_mtok=output_usd_per_mtok,
        cached_input_usd_per_mtok=cached_input_usd_per_mtok, target_margin_frac=target_margin_frac,
        catalog_spreads=catalog_spreads, spreads=spreads,
    )
    if backend == "dask":
        st = _run_dask(problem, int(n_draws), method, seed, chunk)
        return _result(problem, int(n_draws), st, None, f"dask:{'sobol' if method == 'auto' else method}", seed)
    st, store, inputs = _run_memory(problem, int(n_draws), method, seed, keep_draws is not False)
    draws = _dataset(problem, store, inputs) if store is not None and inputs is not None else None
    return _result(problem, int(n_draws), st, draws, _method(method, int(n_draws)), seed)


def _is_default(value: Any, default: Any) -> bool:
    return value is None if default is None else isinstance(value, str) and value == default


def _check_chunking(backend: str, chunk_draws: Any, keep_draws: bool | None) -> int:
    """Draws per dask chunk (the default for a dask run); ValueError for options the backend would ignore."""
    if backend == "numpy":
        if chunk_draws is not None:
            raise ValueError(f"chunk_draws={chunk_draws!r} applies only with backend='dask'; an in-memory run "
                             "evaluates fixed blocks (leave chunk_draws unset, or pass backend='dask')")
        return 0
    if keep_draws:
        raise ValueError("keep_draws=True needs backend='numpy': a dask run merges each chunk into statistics "
                         "and keeps no draws (leave keep_draws unset, or run in memory)")
    if chunk_draws is None:
        return _DEFAULT_CHUNK_DRAWS
    if isinstance(chunk_draws, bool) or not isinstance(chunk_draws, int | np.integer) or chunk_draws < 2:
        raise ValueError(f"chunk_draws={chunk_draws!r} must be an integer >= 2")
    return int(chunk_draws)


_INPUT_MULTIPLIERS: dict[str, tuple[str, str]] = {
    "band": ("throughput_mult", "multiplier of the projected throughput (projection band; measured curves exact)"),
    "capex": ("capex_mult", "multiplier of the catalog capex per accelerator"),
    "it_power": ("it_power_mult", "multiplier of the catalog IT power per accelerator"),
    "usd_per_gpu_hour": ("published_tco_mult", "multiplier of the published TCO per GPU-hour"),
}
"""Per-system sampled inputs: the variable of the draws holding them, and its meaning."""


def _dataset(problem: MonteCarloProblem, store: np.ndarray, inputs: np.ndarray) -> Any:
    import xarray as xr  # heavy optional import: the draws of an in-memory run

    cases = problem.cases
    coords = {
        "case": _labels(cases),
        "hardware_id": ("case", cases["hardware_id"].astype(str).to_numpy()),
        "interactivity_tok_per_s_per_user": ("case", cases["interactivity_tok_per_s_per_user"].to_numpy(dtype=float)),
    }
    ds = xr.Dataset({m: (("draw", "case"), store[i].T) for i, m in enumerate(METRICS)}, coords=coords)
    for m, text in METRICS.items():
        ds[m].attrs["description"] = text
    per_system: dict[str, np.ndarray] = {}
    for j, p in enumerate(problem.params):
        kind = p.name.partition(":")[0]
        if p.system is None:
            ds[p.name] = ("draw", inputs[j])
            ds[p.name].attrs["description"] = (f"sampled input, truncated to its valid range {p.dist.valid_range} "
                                               f"({p.dist.outside_frac:.2%} of its distribution lies outside it)")
            ds[p.name].attrs["outside_frac"] = p.dist.outside_frac
        else:
            if kind not in per_system:
                per_system[kind] = np.ones((inputs.shape[1], len(problem.systems)), dtype=np.float32)
            per_system[kind][:, p.system] = inputs[j]
    for kind, values in per_system.items():
        name, text = _INPUT_MULTIPLIERS[kind]
        ds[name] = (("draw", "system"), values)
        ds[name].attrs["description"] = f"sampled input: {text} (1 where the system's value is fixed)"
    if per_system:
        ds = ds.assign_coords(system=problem.systems)
    return ds


def _compare_base(model: str, hardware: str | Sequence[str] | None, interactivity: float | Sequence[float],
                  utilization: Any, fee: Any, options: dict[str, Any]) -> pd.DataFrame:
    values = [interactivity] if isinstance(interactivity, int | float) else list(interactivity)
    spec = catalog.parameter_spec("curve", "interactivity_tok_per_s_per_user")
    for i in values:
        check_plausible("interactivity_tok_per_s_per_user", i, low=spec.min_value, high=spec.max_value,
                        unit=spec.unit)
    kwargs = dict(options)
    if isinstance(utilization, int | float):
        kwargs["utilization_frac"] = float(utilization)
    else:
        kwargs.setdefault("utilization_frac", _median("utilization_frac", utilization, DEFAULT_UTILIZATION_FRAC))
    if fee is not None:
        kwargs["license_fee_frac"] = (float(fee) if isinstance(fee, int | float)
                                      else _median("license_fee_frac", fee, 0.0))
    check_fraction("utilization_frac", kwargs["utilization_frac"], low_inclusive=False)
    frames = [compare(model, hardware, interactivity_tok_per_s_per_user=float(i), **kwargs) for i in values]
    skipped = [f.attrs.get("skipped") for f in frames]
    for f in frames:
        f.attrs = {}
    out = pd.concat(frames, ignore_index=True)
    # systems compare() could not evaluate (e.g. an interactivity outside the curve) are stated
    out.attrs["skipped"] = [r for s in skipped if s for r in s]
    return out


def _median(name: str, dist: Any, default: float) -> float:
    """Central value of a distribution given for a compare() input (checked for unit slips first)."""
    if dist is None or isinstance(dist, Spread):
        return default
    _check_plausible(name, dist)
    return float(dist.ppf(0.5))
