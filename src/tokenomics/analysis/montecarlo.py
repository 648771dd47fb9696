"""Monte Carlo over every uncertain input: distributions of cost per Mtok, margin and break-evens.

One draw fixes every uncertain input at once (a *joint* draw) and evaluates every system with
the economics kernels (:mod:`tokenomics.economics`, :func:`tokenomics.cost.tco.itemised_tco_usd_per_gpu_hour`):

* **TCO** per accelerator-hour: the itemised TCO is linear in capex,
  ``K = capex * A(r, life, opex fractions, ...) + B(IT power, PUE, power price, colocation)``, so
  ``A`` (per draw, shared by all systems) and ``B`` (per system) each come from one call of the
  itemised-TCO kernel; the system's TCO is its base value scaled by ``K(draw) / K(catalog)``. A
  published $/GPU-hour is scaled by its own spread.
* **Throughput** at each interactivity: the base value times a multiplier drawn from the
  projection's band for projected curves (lognormal with the band as p10-p90: the band comes from
  the calibration's held-out residuals, :func:`tokenomics.perf.calibrate.calibrate`); measured
  curves are taken as exact. One multiplier per system is shared across interactivities (the
  calibration error is systematic).
* **Catalog values** marked estimate or unverified vary by their stated spreads
  (``data/uncertainty/spreads.csv``, :mod:`tokenomics.analysis.distributions`); verified and
  secondary values are fixed.
* **Utilization, prices and license fee** are numbers or distributions given by the caller.

Inputs shared by all systems (utilization, prices, fee, cost of capital, opex fractions) use the
same draw for every system (common random numbers), so ranking probabilities compare systems in
the same world. Per draw and system: ``cost_usd_per_mtok``, ``gross_margin_frac``, the break-even
utilization (NaN where even full utilization loses money) and the break-even blended price.

Sampling is quasi-Monte Carlo by default (scrambled Sobol' when the draw count is a power of two,
else Latin hypercube; ``scipy.stats.qmc``), reproducible by ``seed``. ``backend="dask"`` streams
chunks through dask with bounded memory and returns summaries (quantiles from fixed-bin
histograms, see :class:`MonteCarloResult`) instead of the draws, for runs larger than memory.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy.stats import qmc

from tokenomics._validate import check_fraction, check_range
from tokenomics.analysis.distributions import Bounded, Spread, bounded, spread_for
from tokenomics.economics import (
    blended_price_usd_per_mtok,
    breakeven_price_usd_per_mtok,
    breakeven_utilization_frac,
    cost_per_mtok,
    gross_margin_frac,
)

__all__ = ["METRICS", "MonteCarloResult", "monte_carlo", "monte_carlo_problem"]

METRICS: dict[str, str] = {
    "cost_usd_per_mtok": "cost per Mtok of all tokens [USD/Mtok]",
    "gross_margin_frac": "(revenue - license - TCO) / revenue",
    "breakeven_utilization_frac": "utilization at zero margin; NaN where no utilization <= 1 breaks even",
    "breakeven_price_usd_per_mtok": "blended price at zero margin [USD/Mtok]",
}
"""Per-draw results and their meaning."""

Method = Literal["auto", "sobol", "lhs", "random"]
_QUANTILES = (0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95)
_BAND_COVERAGE = 0.8  # the projection band is p10-p90
_HIST_BINS = 4096
_QMC_MAX_DRAWS = 2**16  # "auto" uses pseudo-random numbers beyond: QMC's gain is small there, its cost not


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
        ``interactivity_tok_per_s_per_user``, base ``throughput_tok_per_s_per_gpu`` and
        ``cost_usd_per_gpu_hour``, ``curve_kind``.
    params : list
        The uncertain inputs (name, truncated distribution, system index or shared).
    """

    cases: pd.DataFrame
    systems: list[str]
    params: list[_Param]
    fixed: dict[str, float]
    tco: dict[str, Any] = field(default_factory=dict)
    target_margin_frac: float = 0.5

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
        n = u.shape[0]
        draws = {p.name: p.dist.ppf(u[:, j]) for j, p in enumerate(self.params)}

        def shared(name: str) -> Any:
            return draws[name][:, None] if name in draws else self.fixed[name]

        sys_idx: Any = self.cases["_system"].to_numpy()
        if np.array_equal(sys_idx, np.arange(len(self.systems))):
            sys_idx = slice(None)
        t = self.cases["throughput_tok_per_s_per_gpu"].to_numpy()[None, :]
        band = self._per_system(draws, "band", n)
        if band is not None:  # projected rows only: a measured row of the same system stays as measured
            projected = self.cases["throughput_low_tok_per_s_per_gpu"].notna().to_numpy()[None, :]
            t = t * np.where(projected, band[:, sys_idx], 1.0)
        ratio = self._tco_ratio(draws, n)
        k = self.cases["cost_usd_per_gpu_hour"].to_numpy()[None, :]
        if ratio is not None:
            k = k * ratio[:, sys_idx]
        util = shared("utilization_frac")
        fee = shared("license_fee_frac")
        price = blended_price_usd_per_mtok(
            shared("input_usd_per_mtok"), shared("output_usd_per_mtok"), self.fixed["input_share_frac"],
            self.fixed["cache_hit_frac"], shared("cached_input_usd_per_mtok"),
        )
        shape = (n, len(self.cases))
        return {
            "cost_usd_per_mtok": np.broadcast_to(cost_per_mtok(k, t, util), shape),
            "gross_margin_frac": np.broadcast_to(gross_margin_frac(price, t, util, k, fee), shape),
            "breakeven_utilization_frac": np.broadcast_to(
                breakeven_utilization_frac(price, t, k, fee, on_infeasible="nan"), shape
            ),
            "breakeven_price_usd_per_mtok": np.broadcast_to(breakeven_price_usd_per_mtok(t, util, k, fee), shape),
        }

    def _per_system(self, draws: dict[str, np.ndarray], name: str, n: int) -> np.ndarray | None:
        """(draws, systems) multipliers of a per-system input, or None when no system varies it."""
        keys = [f"{name}:{s}" for s in range(len(self.systems))]
        if not any(k in draws for k in keys):
            return None
        return np.column_stack([draws[k] if k in draws else np.ones(n) for k in keys])

    def _tco_ratio(self, draws: dict[str, np.ndarray], n: int) -> np.ndarray | None:
        """TCO of each system in each draw relative to its catalog value, via the itemised kernel.

        The itemised TCO is linear in capex and in IT power (``K = capex * A + kw * B``), so ``A``
        and ``B`` come from two kernel calls per draw, shared by every system.
        """
        from tokenomics.cost.tco import itemised_tco_usd_per_gpu_hour

        published = self._per_system(draws, "usd_per_gpu_hour", n)
        if not self.tco:
            return published
        f = self.fixed

        def get(name: str) -> Any:
            return draws[name] if name in draws else f[name]

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
        per_capex = np.reshape(itemised_tco_usd_per_gpu_hour(1.0, it_power_kw_per_accelerator=0.0, **common)["total"],
                               (-1, 1))
        per_kw = np.reshape(itemised_tco_usd_per_gpu_hour(0.0, it_power_kw_per_accelerator=1.0, **common)["total"],
                            (-1, 1))
        capex = self.tco["capex_usd_per_accelerator"][None, :]
        capex_mult = self._per_system(draws, "capex", n)
        if capex_mult is not None:
            capex = capex * capex_mult
        kw = self.tco["it_power_kw_per_accelerator"][None, :]
        kw_mult = self._per_system(draws, "it_power", n)
        if kw_mult is not None:
            kw = kw * kw_mult
        ratio = (per_capex * capex + per_kw * kw) / self.tco["central_usd_per_gpu_hour"][None, :]
        if published is None:
            return np.where(self.tco["itemised"][None, :], ratio, 1.0) if not self.tco["itemised"].all() else ratio
        return np.where(self.tco["itemised"][None, :], ratio, published)


def _fixed_or_dist(name: str, value: Any, base: float, low: float, high: float, *, low_inclusive: bool,
                   high_inclusive: bool) -> tuple[float | None, Bounded | None]:
    if value is None:
        value = base
    if isinstance(value, Spread):
        value = value.around(base)
    if isinstance(value, int | float | np.floating):
        b = bounded(name, float(value), low, high, low_inclusive=low_inclusive, high_inclusive=high_inclusive)
        return float(value), None
    b = bounded(name, value, low, high, low_inclusive=low_inclusive, high_inclusive=high_inclusive)
    return None, b


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
        ``tco_profile``, ``tco_vintage``, ``tco_tier``.
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
        A distribution without support in its parameter's valid range, or mostly outside it.
    """
    need = ["hardware_id", "throughput_tok_per_s_per_gpu", "cost_usd_per_gpu_hour", "utilization_frac",
            "license_fee_frac", "input_share_frac", "cache_hit_frac", "input_usd_per_mtok", "output_usd_per_mtok",
            "cached_input_usd_per_mtok"]
    missing = [c for c in need if c not in base.columns]
    if missing:
        raise KeyError(f"monte_carlo: base table lacks columns {missing}; use tokenomics.compare() rows")
    if len(base) == 0:
        raise ValueError("monte_carlo: the base table has no rows")
    check_range("target_margin_frac", target_margin_frac, low=-1e12, high=1.0, high_inclusive=False)
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
    tco: dict[str, Any] = {}
    if catalog_spreads:
        _band_params(cases, systems, params)
        if "tco_basis" in cases.columns:
            tco = _tco_params(cases, systems, params, fixed, spreads)
    return MonteCarloProblem(cases, systems, params, fixed, tco, float(target_margin_frac))


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
    from tokenomics import catalog
    from tokenomics.cost.tco import tco

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


def _uniforms(d: int, n: int, method: Method, seed: int | None, start: int = 0) -> np.ndarray:
    if d == 0:
        return np.empty((n, 0))
    if method == "auto":
        method = "random" if n > _QMC_MAX_DRAWS else "sobol" if n & (n - 1) == 0 else "lhs"
    if method == "sobol":
        engine = qmc.Sobol(d, scramble=True, seed=seed)
        if start:
            engine.fast_forward(start)
        return engine.random(n)
    if method == "lhs":
        if start:
            raise ValueError("method='lhs' cannot be chunked; use 'sobol' or 'random' for chunked runs")
        return qmc.LatinHypercube(d, seed=seed).random(n)
    if method == "random":
        return np.random.default_rng([0 if seed is None else seed, start]).random((n, d))
    raise ValueError(f"method={method!r} is not one of 'auto', 'sobol', 'lhs', 'random'")


class _UniformStream:
    """Uniform numbers of one run, handed out block by block (the same numbers as one big call)."""

    def __init__(self, d: int, n: int, method: Method, seed: int | None) -> None:
        if method == "auto":
            method = "random" if n > _QMC_MAX_DRAWS else "sobol" if n & (n - 1) == 0 else "lhs"
        self.d, self.method = d, method
        self._all: np.ndarray | None = None
        self._pos = 0
        if method == "sobol":
            self._engine: Any = qmc.Sobol(max(d, 1), scramble=True, seed=seed)
        elif method == "lhs":
            self._all = qmc.LatinHypercube(max(d, 1), seed=seed).random(n)
        elif method == "random":
            self._engine = np.random.default_rng(seed)
        else:
            raise ValueError(f"method={method!r} is not one of 'auto', 'sobol', 'lhs', 'random'")

    def next(self, k: int) -> np.ndarray:
        if self.d == 0:
            return np.empty((k, 0))
        if self._all is not None:
            block = self._all[self._pos: self._pos + k]
        elif self.method == "sobol":
            block = self._engine.random(k)
        else:
            block = self._engine.random((k, self.d))
        self._pos += k
        return block[:, : self.d]


_BLOCK = 2**15


def _evaluate_blocked(problem: MonteCarloProblem, n: int, method: Method, seed: int | None) -> dict[str, np.ndarray]:
    """Evaluate ``n`` draws in cache-sized blocks; results (draws, cases), stored case-major."""
    stream = _UniformStream(problem.dims, n, method, seed)
    c = len(problem.cases)
    out = {m: np.empty((c, n)) for m in METRICS}
    for start in range(0, n, _BLOCK):
        k = min(_BLOCK, n - start)
        res = problem.evaluate(stream.next(k))
        for m in METRICS:
            out[m][:, start: start + k] = res[m].T
    return {m: v.T for m, v in out.items()}


# --- results -----------------------------------------------------------------------------------


@dataclass
class MonteCarloResult:
    """Distributions per system (and interactivity) from :func:`monte_carlo`.

    Attributes
    ----------
    problem : MonteCarloProblem
        Base values and input distributions.
    n_draws : int
        Number of joint draws.
    draws : xarray.Dataset or None
        Per-draw results, dims ``draw`` x ``case`` (in-memory runs); None for dask runs.
    summary : pandas.DataFrame
        One row per case and metric: mean, std, quantiles p5..p95, share of finite values
        (break-even utilization is NaN where infeasible). Dask runs take quantiles from
        4096-bin histograms over the range of a pilot run (error below one bin width).
    cheaper_frac : pandas.DataFrame
        ``cheaper_frac.loc[a, b]``: share of draws in which case ``a`` costs less per Mtok than
        ``b`` (cases at the same interactivity).
    margin_above_frac : pandas.Series
        Share of draws with ``gross_margin_frac > target_margin_frac`` per case.
    """

    problem: MonteCarloProblem
    n_draws: int
    summary: pd.DataFrame
    cheaper_frac: pd.DataFrame
    margin_above_frac: pd.Series
    draws: Any = None
    method: str = ""
    seed: int | None = None

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
            raise ValueError("a dask run keeps only the target it was run with; rerun with target_margin_frac=...")
        check_range("target_margin_frac", target_margin_frac, low=-1e12, high=1.0, high_inclusive=False)
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
        """
        for x in (a, b):
            if x not in self.cheaper_frac.index:
                from tokenomics._validate import unknown_name_error

                raise unknown_name_error("case", x, list(self.cheaper_frac.index))
        share = float(self.cheaper_frac.loc[a, b])
        if math.isnan(share):
            raise ValueError(f"{a} and {b} are at different interactivities; compare cases at one interactivity")
        return f"{a} cheaper than {b} in {share:.1%} of {self.n_draws} draws".replace("%", " %")

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
            from tokenomics._validate import unknown_name_error

            raise unknown_name_error("metric", metric, METRICS)
        return self.summary[self.summary["metric"] == metric].reset_index(drop=True)


def _labels(cases: pd.DataFrame) -> list[str]:
    inter = cases["interactivity_tok_per_s_per_user"]
    several = len(set(inter.dropna())) > 1
    return [f"{h}@{i:g}" if several else str(h) for h, i in zip(cases["hardware_id"], inter, strict=True)]


def _summarise_draws(
    problem: MonteCarloProblem, out: dict[str, np.ndarray]
) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series]:
    cases = problem.cases
    labels = _labels(cases)
    rows = []
    for metric, arr in out.items():
        finite = np.isfinite(arr)
        with np.errstate(all="ignore"):
            if finite.all():
                qs = np.quantile(arr.T, _QUANTILES, axis=1)
            else:  # column by column: break-even utilization is NaN where infeasible
                qs = np.full((len(_QUANTILES), arr.shape[1]), np.nan)
                for j in range(arr.shape[1]):
                    if finite[:, j].any():
                        qs[:, j] = np.quantile(arr[finite[:, j], j], _QUANTILES)
        for c in range(arr.shape[1]):
            col = arr[finite[:, c], c]
            row = {"case": labels[c], "hardware_id": cases["hardware_id"].iloc[c],
                   "interactivity_tok_per_s_per_user": cases["interactivity_tok_per_s_per_user"].iloc[c],
                   "metric": metric, "finite_frac": float(finite[:, c].mean()),
                   "mean": float(col.mean()) if col.size else math.nan,
                   "std": float(col.std()) if col.size else math.nan}
            for q, name in zip(_QUANTILES, _qnames(), strict=True):
                row[name] = float(qs[_QUANTILES.index(q), c]) if qs is not None and col.size else math.nan
            rows.append(row)
    cost = out["cost_usd_per_mtok"]
    cheaper = _cheaper_counts(cases, cost) / cost.shape[0]
    margin = (out["gross_margin_frac"] > problem.target_margin_frac).mean(axis=0)
    return (pd.DataFrame(rows), pd.DataFrame(cheaper, index=labels, columns=labels),
            pd.Series(margin, index=labels, name="prob_margin_above"))


def _qnames() -> list[str]:
    return [f"p{round(q * 100)}" for q in _QUANTILES]


def _same_interactivity(cases: pd.DataFrame) -> np.ndarray:
    i = cases["interactivity_tok_per_s_per_user"].to_numpy(dtype=float)
    return (i[:, None] == i[None, :]) | (np.isnan(i[:, None]) & np.isnan(i[None, :]))


def _cheaper_counts(cases: pd.DataFrame, cost: np.ndarray) -> np.ndarray:
    c = cost.shape[1]
    counts = np.zeros((c, c))
    for a in range(c):
        counts[a] = (cost[:, [a]] < cost).sum(axis=0)
    return np.where(_same_interactivity(cases), counts, np.nan)


def monte_carlo(
    base: pd.DataFrame | str,
    hardware: str | Sequence[str] | None = None,
    *,
    n_draws: int = 4096,
    seed: int | None = 0,
    method: Method = "auto",
    interactivity_tok_per_s_per_user: float | Sequence[float] = 50.0,
    utilization_frac: Any = None,
    license_fee_frac: Any = None,
    input_usd_per_mtok: Any = None,
    output_usd_per_mtok: Any = None,
    cached_input_usd_per_mtok: Any = None,
    target_margin_frac: float = 0.5,
    catalog_spreads: bool = True,
    spreads: pd.DataFrame | None = None,
    backend: Literal["numpy", "dask"] = "numpy",
    chunk_draws: int = 2**18,
    compare_options: Mapping[str, Any] | None = None,
) -> MonteCarloResult:
    """Joint draws of every uncertain input -> distributions of cost, margin and break-evens.

    Parameters
    ----------
    base : pandas.DataFrame or str
        A :func:`tokenomics.compare` table (one row per system and interactivity), or a model
        name: then ``compare(model, hardware, interactivity_tok_per_s_per_user=i, ...)`` is run
        for each interactivity.
    hardware : str or sequence of str, optional
        Systems, when ``base`` is a model name (default: every catalog system).
    n_draws : int, default 4096
        Joint draws, >= 2.
    seed : int or None, default 0
        Seed of the (quasi-)random numbers; the same seed gives the same draws.
    method : {"auto", "sobol", "lhs", "random"}, default "auto"
        Scrambled Sobol' for a power-of-two ``n_draws`` (else Latin hypercube) in memory;
        dask runs use Sobol' chunks (``n_draws`` and ``chunk_draws`` powers of two) or
        ``"random"``.
    interactivity_tok_per_s_per_user : float or sequence of float, default 50
        Interactivities evaluated when ``base`` is a model name [tok/s/user].
    utilization_frac, license_fee_frac : float, scipy.stats distribution or Spread, optional
        Utilization in (0, 1] and revenue-share fee in [0, 1); default the base's, fixed.
    input_usd_per_mtok, output_usd_per_mtok, cached_input_usd_per_mtok : optional
        List prices [USD/Mtok], numbers or distributions; default the base's.
    target_margin_frac : float, default 0.5
        Target of ``margin_above_frac``.
    catalog_spreads : bool, default True
        Vary estimate/unverified catalog values and projected throughput (see module docstring).
    spreads : pandas.DataFrame, optional
        Spreads catalog; default ``data/uncertainty/spreads.csv``.
    backend : {"numpy", "dask"}, default "numpy"
        In memory (keeps the draws as an xarray Dataset) or streamed through dask in chunks of
        ``chunk_draws`` with bounded memory (summaries only).
    chunk_draws : int, default 262144
        Draws per dask chunk.
    compare_options : mapping, optional
        Further keyword arguments of :func:`tokenomics.compare` (TCO basis, profile, ISL/OSL...).

    Returns
    -------
    MonteCarloResult
        Summaries, ranking shares, P(margin > target) and (in memory) the draws.

    Raises
    ------
    ValueError
        Invalid counts, method, distributions (no support in the valid range, or mostly outside
        it: the parameter is named) or targets.
    KeyError
        Unknown model or system, or a base table without the needed columns.

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
    """
    if isinstance(n_draws, bool) or not isinstance(n_draws, int | np.integer) or n_draws < 2:
        raise ValueError(f"n_draws={n_draws!r} must be an integer >= 2")
    if backend not in ("numpy", "dask"):
        raise ValueError(f"backend={backend!r} is not one of 'numpy', 'dask'")
    if isinstance(base, str):
        base = _compare_base(base, hardware, interactivity_tok_per_s_per_user, utilization_frac, license_fee_frac,
                             dict(compare_options or {}))
    elif hardware is not None:
        raise ValueError("hardware= applies when base is a model name; filter the base table instead")
    problem = monte_carlo_problem(
        base, utilization_frac=utilization_frac, license_fee_frac=license_fee_frac,
        input_usd_per_mtok=input_usd_per_mtok, output_usd_per_mtok=output_usd_per_mtok,
        cached_input_usd_per_mtok=cached_input_usd_per_mtok, target_margin_frac=target_margin_frac,
        catalog_spreads=catalog_spreads, spreads=spreads,
    )
    if backend == "dask":
        return run_dask(problem, int(n_draws), method, seed, int(chunk_draws))
    out = _evaluate_blocked(problem, int(n_draws), method, seed)
    summary, cheaper, margin = _summarise_draws(problem, out)
    return MonteCarloResult(problem, int(n_draws), summary, cheaper, margin, _dataset(problem, out), method, seed)


def _dataset(problem: MonteCarloProblem, out: dict[str, np.ndarray]) -> Any:
    import xarray as xr  # heavy optional import: the draws of an in-memory run

    cases = problem.cases
    coords = {
        "case": _labels(cases),
        "hardware_id": ("case", cases["hardware_id"].astype(str).to_numpy()),
        "interactivity_tok_per_s_per_user": ("case", cases["interactivity_tok_per_s_per_user"].to_numpy(dtype=float)),
    }
    ds = xr.Dataset({k: (("draw", "case"), v) for k, v in out.items()}, coords=coords)
    for k, text in METRICS.items():
        ds[k].attrs["description"] = text
    return ds


def _compare_base(model: str, hardware: str | Sequence[str] | None, interactivity: float | Sequence[float],
                  utilization: Any, fee: Any, options: dict[str, Any]) -> pd.DataFrame:
    from tokenomics.outputs.compare import compare

    values = [interactivity] if isinstance(interactivity, int | float) else list(interactivity)
    kwargs = dict(options)
    if isinstance(utilization, int | float):
        kwargs["utilization_frac"] = float(utilization)
    else:
        kwargs.setdefault("utilization_frac", _median(utilization, 0.6))
    if fee is not None:
        kwargs["license_fee_frac"] = float(fee) if isinstance(fee, int | float) else _median(fee, 0.0)
    check_fraction("utilization_frac", kwargs["utilization_frac"], low_inclusive=False)
    frames = [compare(model, hardware, interactivity_tok_per_s_per_user=float(i), **kwargs) for i in values]
    skipped = [f.attrs.get("skipped") for f in frames]
    for f in frames:
        f.attrs = {}
    out = pd.concat(frames, ignore_index=True)
    # systems compare() could not evaluate (e.g. an interactivity outside the curve) are stated
    out.attrs["skipped"] = pd.concat([s for s in skipped if isinstance(s, pd.DataFrame)], ignore_index=True) \
        if any(isinstance(s, pd.DataFrame) for s in skipped) else pd.DataFrame()
    return out


def _median(dist: Any, default: float) -> float:
    if dist is None:
        return default
    if isinstance(dist, Spread):
        return default
    return float(dist.ppf(0.5))


# --- chunked runs on dask (beyond memory) ---------------------------------------------------------------

_LOG_METRICS = {"cost_usd_per_mtok", "breakeven_price_usd_per_mtok"}


def _edges(problem: MonteCarloProblem, seed: int | None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per metric, the (low, high) histogram range of every case from a pilot run (log for money)."""
    pilot = problem.evaluate(_uniforms(problem.dims, 2**12, "sobol", None if seed is None else seed + 7919))
    out = {}
    for metric, arr in pilot.items():
        a = np.where(np.isfinite(arr), arr, np.nan)
        if metric in _LOG_METRICS:
            a = np.log(a)
        with np.errstate(all="ignore"):
            lo, hi = np.nanmin(a, axis=0), np.nanmax(a, axis=0)
        lo = np.where(np.isfinite(lo), lo, 0.0)
        hi = np.where(np.isfinite(hi), hi, 1.0)
        pad = np.maximum((hi - lo) * 0.5, 1e-6)
        out[metric] = (lo - pad, hi + pad)
    return out


def _chunk(problem: MonteCarloProblem, start: int, size: int, method: str, seed: int | None,
           edges: dict[str, tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    u = _uniforms(problem.dims, size, method, seed, start)  # type: ignore[arg-type]
    total: np.ndarray | None = None
    for s in range(0, size, _BLOCK):  # cache-sized blocks
        part = _reduce(problem, problem.evaluate(u[s: s + _BLOCK]), edges)
        total = part if total is None else total + part
    assert total is not None
    return total


def _reduce(problem: MonteCarloProblem, res: dict[str, np.ndarray],
            edges: dict[str, tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    c = len(problem.cases)
    parts = []
    for metric in METRICS:
        arr = res[metric]
        finite = np.isfinite(arr)
        a = np.where(finite, arr, 0.0)
        parts += [finite.sum(axis=0), a.sum(axis=0), (a * a).sum(axis=0)]
        x = np.log(np.where(finite, arr, 1.0)) if metric in _LOG_METRICS else a
        lo, hi = edges[metric]
        idx = np.floor((x - lo) / (hi - lo) * _HIST_BINS).astype(np.int64) + 1
        idx = np.clip(idx, 0, _HIST_BINS + 1)
        idx = np.where(finite, idx + (_HIST_BINS + 2) * np.arange(c)[None, :], -1)
        flat = idx[idx >= 0]
        parts.append(np.bincount(flat, minlength=(_HIST_BINS + 2) * c).astype(float))
    parts.append((res["gross_margin_frac"] > problem.target_margin_frac).sum(axis=0))
    parts.append(np.nan_to_num(_cheaper_counts(problem.cases, res["cost_usd_per_mtok"]), nan=0.0).ravel())
    return np.concatenate([np.asarray(p, dtype=float).ravel() for p in parts])


def run_dask(problem: MonteCarloProblem, n: int, method: str, seed: int | None, chunk: int) -> MonteCarloResult:
    """Run ``n`` draws in dask chunks of ``chunk`` and summarise (see the module docstring)."""
    import dask
    import dask.array as da  # heavy optional import: the chunked path only

    if method == "auto":
        method = "sobol"
    if method == "lhs":
        raise ValueError("method='lhs' cannot be chunked; use 'sobol' or 'random' with backend='dask'")
    if chunk < 2:
        raise ValueError(f"chunk_draws={chunk!r} must be >= 2")
    chunk = min(chunk, n)
    if method == "sobol" and (n & (n - 1) or chunk & (chunk - 1)):
        raise ValueError(
            f"Sobol' chunks need powers of two for n_draws ({n}) and chunk_draws ({chunk}); "
            "use method='random' for other counts"
        )
    edges = _edges(problem, seed)
    c = len(problem.cases)
    length = len(METRICS) * c * (3 + _HIST_BINS + 2) + c + c * c
    starts = range(0, n, chunk)
    parts = [
        da.from_delayed(dask.delayed(_chunk)(problem, s, min(chunk, n - s), method, seed, edges),
                        shape=(length,), dtype=float)[None, :]
        for s in starts
    ]
    total = da.concatenate(parts, axis=0).sum(axis=0, split_every=8).compute()
    return _result(problem, n, total, edges, method, seed)


def _result(problem: MonteCarloProblem, n: int, total: np.ndarray, edges: dict[str, tuple[np.ndarray, np.ndarray]],
            method: str, seed: int | None) -> MonteCarloResult:
    cases = problem.cases
    c = len(cases)
    labels = _labels(cases)
    pos = 0
    rows = []
    for metric in METRICS:
        cnt, s1, s2 = (total[pos + k * c: pos + (k + 1) * c] for k in range(3))
        pos += 3 * c
        hist = total[pos: pos + (_HIST_BINS + 2) * c].reshape(c, _HIST_BINS + 2)
        pos += (_HIST_BINS + 2) * c
        lo, hi = edges[metric]
        for j in range(c):
            row: dict[str, Any] = {
                "case": labels[j],
                "hardware_id": cases["hardware_id"].iloc[j],
                "interactivity_tok_per_s_per_user": cases["interactivity_tok_per_s_per_user"].iloc[j],
                "metric": metric,
                "finite_frac": cnt[j] / n,
            }
            mean = s1[j] / cnt[j] if cnt[j] else math.nan
            row["mean"] = mean
            row["std"] = math.sqrt(max(s2[j] / cnt[j] - mean * mean, 0.0)) if cnt[j] else math.nan
            for q, name in zip(_QUANTILES, _qnames(), strict=True):
                row[name] = _hist_quantile(hist[j], q, lo[j], hi[j], metric in _LOG_METRICS)
            rows.append(row)
    margin = total[pos: pos + c] / n
    pos += c
    cheaper = total[pos: pos + c * c].reshape(c, c) / n
    same = np.asarray(cases["interactivity_tok_per_s_per_user"].to_numpy(dtype=float))
    mask = (same[:, None] == same[None, :]) | (np.isnan(same[:, None]) & np.isnan(same[None, :]))
    cheaper = np.where(mask, cheaper, np.nan)
    return MonteCarloResult(problem, n, pd.DataFrame(rows), pd.DataFrame(cheaper, index=labels, columns=labels),
                            pd.Series(margin, index=labels, name="prob_margin_above"), None, f"dask:{method}", seed)


def _hist_quantile(hist: np.ndarray, q: float, lo: float, hi: float, log: bool) -> float:
    total = hist.sum()
    if total == 0:
        return math.nan
    cum = np.cumsum(hist)
    k = int(np.searchsorted(cum, q * total, side="left"))
    if k == 0 or k == len(hist) - 1:  # under- or overflow: the pilot range's edge
        x = lo if k == 0 else hi
    else:
        before = cum[k - 1] if k > 0 else 0.0
        frac = (q * total - before) / hist[k] if hist[k] else 0.5
        x = lo + (k - 1 + frac) * (hi - lo) / _HIST_BINS
    return float(math.exp(x)) if log else float(x)
