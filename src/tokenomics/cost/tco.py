"""Total cost of ownership (TCO) per accelerator-hour, itemised or from a published figure.

An itemised TCO adds, per *allocated* accelerator-hour (every hour of the year, busy or not):

========================  ==========================================================================
component                 formula [USD/GPU-hour]
========================  ==========================================================================
``capex_amortisation``    ``capex * (1 - residual_frac) / life_years / 8760`` (straight line)
``cost_of_capital``       ``(annuity(capex, r, life, residual) - straight_line) / 8760``
``power``                 ``it_power_kw * pue * electricity_usd_per_kwh``
``colocation``            ``it_power_kw * colocation_usd_per_kw_month / 730``
``maintenance``           ``capex * maintenance_frac_per_year / 8760``
``other_opex``            ``capex * other_opex_frac_per_year / 8760``
``rental_markup``         ``owner_cost * rental_markup_frac`` (rental profile only)
========================  ==========================================================================

``capex_amortisation + cost_of_capital`` is the capital-recovery annuity
``crf(r, life) * (capex - residual * (1 + r) ** -life)`` (:mod:`tokenomics.cost.finance`).

Power, stated once: ``it_power_kw_per_accelerator`` is the accelerator's share of server or rack
IT power (chip TDP plus CPU, memory, NICs, switches and fans), *before* PUE; the facility draws
``it_power_kw * pue`` and that is what the electricity bill and the per-MW figures use. PUE is
applied exactly once. Chip TDP is never used as the power figure. Colocation rent is charged per
kW of critical IT load, as the CBRE market figures are quoted. When a system has no IT-power
figure, IT power is derived once from the catalog's all-in facility power (which already
includes a facility overhead) at the profile's own PUE, ``it_kw = facility_kw / profile.pue``,
and then charged like any IT power; at the profile's PUE the electricity bill equals the all-in
figure, and a ``pue=`` override scales it. So for every system TCO is non-decreasing in PUE,
electricity price and capex. The result's ``notes`` say which figure was used.

Power is charged at provisioned IT power for every hour (as capacity is contracted), not at
measured draw.

References
----------
.. [1] SemiAnalysis InferenceMAX, "Open-source inference benchmarking" (2025-10-09): TCO tiers
   (hyperscaler and neocloud owners, 4-year life; 3-year rental),
   https://newsletter.semianalysis.com/p/inferencemax-open-source-inference.
.. [2] CBRE, North America Data Center Trends H2 2024 (2025-02-26): wholesale colocation rent
   per kW of critical IT load per month, https://www.cbre.com.
"""

from __future__ import annotations

import difflib
import html
import math
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tokenomics import catalog
from tokenomics._numeric import as_arrays
from tokenomics._validate import (
    check_fraction,
    check_nonnegative,
    check_numeric,
    check_plausible,
    check_positive,
    check_range,
    normalize_name,
    unknown_name_error,
)
from tokenomics.cost.finance import (
    cost_of_capital_usd_per_year,
    straight_line_depreciation_usd_per_year,
)
from tokenomics.economics import (
    MAX_USD_PER_GPU_HOUR,
    check_gpu_hour_cost,
    check_power_kw,
    usd_per_gpu_year,
    usd_per_mw_year,
)
from tokenomics.units import HOURS_PER_MONTH, HOURS_PER_YEAR

__all__ = [
    "DEFAULT_TCO_BASIS",
    "MAX_USD_PER_GPU_HOUR",
    "TCO_COMPONENTS",
    "TCO_OVERRIDES",
    "TcoBasis",
    "TcoResult",
    "check_gpu_hour_cost",
    "itemised_tco_usd_per_gpu_hour",
    "tco",
    "tco_basis",
    "tco_comparison_table",
]

TCO_COMPONENTS: tuple[str, ...] = (
    "capex_amortisation",
    "cost_of_capital",
    "power",
    "colocation",
    "maintenance",
    "other_opex",
    "rental_markup",
)
"""Names of the itemised TCO components, in the order of the breakdown."""

TCO_OVERRIDES: tuple[str, ...] = (
    "capex_usd_per_accelerator",
    "economic_life_years",
    "residual_value_frac",
    "cost_of_capital_frac",
    "it_power_kw_per_accelerator",
    "facility_power_kw_per_accelerator",
    "pue",
    "electricity_usd_per_kwh",
    "colocation_usd_per_kw_month",
    "maintenance_frac_per_year",
    "other_opex_frac_per_year",
    "rental_markup_frac",
    "accelerators_per_system",
    "extra_host_memory_gb_per_accelerator",
)
"""Keyword overrides accepted by :func:`tco`, each in the unit its suffix names.

``extra_host_memory_gb_per_accelerator`` adds host DRAM beyond the system's base configuration
(e.g. for a KV offload tier): its price, ``GB x host_dram_usd_per_gb`` of the system's TCO inputs,
is added to the capex (the base host DRAM is already inside ``capex_usd_per_accelerator``)."""

_TIER_TO_PROFILE: dict[str, str] = {
    "hyperscaler": "hyperscaler",
    "neocloud": "neocloud",
    "rental": "rental",
    "internal": "hyperscaler",
}


# --- the core (vectorised) ---


def itemised_tco_usd_per_gpu_hour(
    capex_usd_per_accelerator: Any,
    economic_life_years: Any,
    cost_of_capital_frac: Any,
    it_power_kw_per_accelerator: Any,
    pue: Any,
    electricity_usd_per_kwh: Any,
    colocation_usd_per_kw_month: Any,
    maintenance_frac_per_year: Any = 0.0,
    other_opex_frac_per_year: Any = 0.0,
    residual_value_frac: Any = 0.0,
    rental_markup_frac: Any = 0.0,
) -> dict[str, Any]:
    """Itemised TCO per allocated accelerator-hour, component by component.

    See the module docstring for each component's formula; the components sum to the total.

    Parameters
    ----------
    capex_usd_per_accelerator : float, array_like or pandas.Series
        All-in capex per accelerator (its share of server/rack and network), >= 0 [USD].
    economic_life_years : float, array_like or pandas.Series
        Economic life, > 0 [yr].
    cost_of_capital_frac : float, array_like or pandas.Series
        Annual cost of capital, in [0, 1] [1/yr].
    it_power_kw_per_accelerator : float, array_like or pandas.Series
        IT power per accelerator before PUE, 0 or in the hardware vocabulary's plausible range
        [0.01, 20] [kW] (not chip TDP; a figure in W is refused).
    pue : float, array_like or pandas.Series
        Power usage effectiveness (facility / IT power), in [1, 3].
    electricity_usd_per_kwh : float, array_like or pandas.Series
        Electricity price, 0 or in the TCO profile vocabulary's plausible range [0.005, 2]
        [USD/kWh] (a price per MWh is refused).
    colocation_usd_per_kw_month : float, array_like or pandas.Series
        Colocation rent per kW of critical IT load, 0 or in the plausible range [1, 5000]
        [USD/kW/month] (a rent per MW or per W is refused).
    maintenance_frac_per_year, other_opex_frac_per_year : float, default 0
        Annual maintenance and other opex as fractions of capex, in [0, 1] [1/yr].
    residual_value_frac : float, default 0
        Resale value at end of life as a fraction of capex, in [0, 1].
    rental_markup_frac : float, default 0
        Markup of a rental price over the owner's cost, >= 0.

    Returns
    -------
    dict of str to float, numpy.ndarray or pandas.Series
        One entry per :data:`TCO_COMPONENTS` plus ``"total"`` [USD/GPU-hour].

    Raises
    ------
    ValueError
        Any input outside its range or NaN (element-wise, percent hints for fractions, unit
        hints for a power in W, an electricity price per MWh or a rent per MW).

    Examples
    --------
    >>> b = itemised_tco_usd_per_gpu_hour(43_800.0, 4, 0.0, 1.0, 1.2, 0.1, 146.0)
    >>> round(b["capex_amortisation"], 4), round(b["power"], 4), round(b["colocation"], 4)
    (1.25, 0.12, 0.2)
    """
    check_power_kw("it_power_kw_per_accelerator", it_power_kw_per_accelerator, allow_zero=True)
    check_range("pue", pue, low=1.0, high=3.0)
    _check_profile_rate("electricity_usd_per_kwh", electricity_usd_per_kwh,
                        hint="a price per Wh where per kWh is meant: multiply by 1000",
                        high_hint="a price per MWh where per kWh is meant: divide by 1000")
    _check_profile_rate("colocation_usd_per_kw_month", colocation_usd_per_kw_month,
                        hint="a rent per W-month where per kW-month is meant: multiply by 1000",
                        high_hint="a rent per MW-month where per kW-month is meant: divide by 1000")
    check_fraction("maintenance_frac_per_year", maintenance_frac_per_year)
    check_fraction("other_opex_frac_per_year", other_opex_frac_per_year)
    check_nonnegative("rental_markup_frac", rental_markup_frac)
    amort_y = straight_line_depreciation_usd_per_year(
        capex_usd_per_accelerator, economic_life_years, residual_value_frac
    )
    coc_y = cost_of_capital_usd_per_year(
        capex_usd_per_accelerator, cost_of_capital_frac, economic_life_years, residual_value_frac
    )
    (capex, kw, pue_a, elec, colo, maint, other, markup, amort, coc), restore = as_arrays(
        capex_usd_per_accelerator,
        it_power_kw_per_accelerator,
        pue,
        electricity_usd_per_kwh,
        colocation_usd_per_kw_month,
        maintenance_frac_per_year,
        other_opex_frac_per_year,
        rental_markup_frac,
        amort_y,
        coc_y,
    )
    parts = {
        "capex_amortisation": amort / HOURS_PER_YEAR,
        "cost_of_capital": coc / HOURS_PER_YEAR,
        "power": kw * pue_a * elec,
        "colocation": kw * colo / HOURS_PER_MONTH,
        "maintenance": capex * maint / HOURS_PER_YEAR,
        "other_opex": capex * other / HOURS_PER_YEAR,
    }
    owner = sum(parts.values())
    parts["rental_markup"] = owner * markup
    parts["total"] = owner + parts["rental_markup"]
    return {k: restore(v) for k, v in parts.items()}


def _check_profile_rate(name: str, value: Any, *, hint: str, high_hint: str) -> None:
    """Refuse a negative rate or one outside the TCO profile vocabulary's plausible range (0 allowed)."""
    spec = catalog.parameter_spec("tco_profile", name)
    check_nonnegative(name, value)
    check_plausible(name, value, low=spec.min_value, high=spec.max_value, unit=spec.unit, allow_zero=True,
                    hint=hint, high_hint=high_hint)


# --- result object ---


class TcoResult(BaseModel):
    """TCO of one system per accelerator-hour, with its breakdown and the inputs used.

    Attributes
    ----------
    hardware_id : str
        Catalog hardware id.
    basis : {"itemised", "published", "explicit"}
        Computed from capex and opex inputs, a published all-in $/GPU-hour figure, or a figure
        the user gave (:meth:`TcoBasis.explicit`).
    profile : str or None
        TCO profile of an itemised result.
    vintage, tier : str or None
        Published set and tier of a published result.
    usd_per_gpu_hour : float
        Total TCO per allocated accelerator-hour [USD/GPU-hour].
    breakdown_usd_per_gpu_hour : dict of str to float
        Components summing to ``usd_per_gpu_hour`` [USD/GPU-hour]; a published result has
        the single component ``"published_all_in"``.
    accelerators_per_system : int
        Accelerators per purchasable system (server or rack).
    it_power_kw_per_accelerator : float or None
        IT power per accelerator used (before PUE) [kW].
    facility_power_kw_per_accelerator : float or None
        Facility power per accelerator (IT x PUE, or the catalog's all-in figure) [kW]; the
        basis of per-MW figures.
    inputs : dict of str to float
        Every input of an itemised result, after overrides.
    notes : list of str
        How power was treated, which values were overridden, and where figures came from.
    """

    model_config = ConfigDict(frozen=True)

    hardware_id: str
    basis: Literal["itemised", "published", "explicit"]
    profile: str | None = None
    vintage: str | None = None
    tier: str | None = None
    usd_per_gpu_hour: float
    breakdown_usd_per_gpu_hour: dict[str, float]
    accelerators_per_system: int
    it_power_kw_per_accelerator: float | None = None
    facility_power_kw_per_accelerator: float | None = None
    inputs: dict[str, float] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)

    @property
    def usd_per_gpu_year(self) -> float:
        """Total TCO per accelerator-year (8760 allocated hours) [USD/GPU-year]."""
        return float(usd_per_gpu_year(self.usd_per_gpu_hour))

    @property
    def usd_per_system_hour(self) -> float:
        """Total TCO per system-hour [USD/system-hour]."""
        return self.usd_per_gpu_hour * self.accelerators_per_system

    @property
    def usd_per_mw_year(self) -> float:
        """Total TCO per MW of facility power per year [USD/MW-year]; NaN without a power figure."""
        if self.facility_power_kw_per_accelerator is None:
            return math.nan
        return float(usd_per_mw_year(self.usd_per_gpu_hour, self.facility_power_kw_per_accelerator))

    def to_frame(self) -> pd.DataFrame:
        """Return the breakdown as a table, one row per component plus ``total``.

        Returns
        -------
        pandas.DataFrame
            Index ``component``; columns ``usd_per_gpu_hour``, ``usd_per_system_hour``,
            ``usd_per_gpu_year``, ``usd_per_mw_year`` (NaN when no facility power is known; see
            ``notes``) and ``share_frac`` (of the total).
        """
        items = {**self.breakdown_usd_per_gpu_hour, "total": self.usd_per_gpu_hour}
        hourly = pd.Series(items, name="usd_per_gpu_hour", dtype=float)
        hourly.index.name = "component"
        frame = pd.DataFrame({"usd_per_gpu_hour": hourly})
        frame["usd_per_system_hour"] = hourly * self.accelerators_per_system
        frame["usd_per_gpu_year"] = usd_per_gpu_year(hourly)
        frame["usd_per_mw_year"] = (
            np.nan
            if self.facility_power_kw_per_accelerator is None
            else usd_per_mw_year(hourly, self.facility_power_kw_per_accelerator)
        )
        frame["share_frac"] = hourly / self.usd_per_gpu_hour if self.usd_per_gpu_hour > 0 else np.nan
        return frame

    def _repr_html_(self) -> str:
        """Render the breakdown and notes as HTML for Jupyter."""
        what = {"itemised": f"profile {self.profile}", "published": f"published {self.vintage} {self.tier}",
                "explicit": "given"}[self.basis]
        head = (
            f"<p><b>TCO {html.escape(self.hardware_id)}</b> ({html.escape(what)}): "
            f"${self.usd_per_gpu_hour:.3f}/GPU-hour, "
            f"${self.usd_per_system_hour:,.2f}/system-hour</p>"
        )
        table = self.to_frame().to_html(float_format=lambda x: f"{x:,.4g}", na_rep="")
        notes = "".join(f"<li>{html.escape(n)}</li>" for n in self.notes)
        return f"<div>{head}{table}<ul>{notes}</ul></div>"


# --- catalog-driven entry point ---


_POSITIVE_OVERRIDES = frozenset(
    {
        "economic_life_years",
        "accelerators_per_system",
        "it_power_kw_per_accelerator",
        "facility_power_kw_per_accelerator",
    }
)


_KERNEL_OVERRIDES = frozenset(TCO_OVERRIDES) - {"facility_power_kw_per_accelerator", "accelerators_per_system",
                                                  "extra_host_memory_gb_per_accelerator"}
"""Overrides that are inputs of :func:`itemised_tco_usd_per_gpu_hour` (array in, array out)."""


def _check_scalar_override(name: str, value: Any) -> None:
    """Refuse an array or Series override: a TcoResult holds one figure per input."""
    if np.ndim(value) == 0:
        return
    n = int(np.size(value))
    many = (", or, for many values at once, tk.itemised_tco_usd_per_gpu_hour (Series in, Series out) with the "
            "other inputs from tk.tco(hardware).inputs; tk.sweep does not vary TCO inputs"
            if name in _KERNEL_OVERRIDES else "")
    raise TypeError(
        f"{name}: tco() takes one number per override and returns one TcoResult, got {type(value).__name__} with "
        f"{n} value{'' if n == 1 else 's'}; pass a scalar and loop, [tk.tco(hardware, {name}=v) for v in values]"
        f"{many}"
    )


def _validate_overrides(overrides: dict[str, Any]) -> None:
    for name in overrides:
        if name not in TCO_OVERRIDES:
            raise unknown_name_error("TCO override", name, TCO_OVERRIDES)
    for name, value in overrides.items():
        _check_scalar_override(name, value)
        if name.endswith(("_frac", "_frac_per_year")):
            if name == "rental_markup_frac":
                check_nonnegative(name, value)
            else:
                check_fraction(name, value)
        elif name == "pue":
            check_range("pue", value, low=1.0, high=3.0)
        elif name in ("it_power_kw_per_accelerator", "facility_power_kw_per_accelerator"):
            check_power_kw(name, value)  # a figure in W is refused by name
        elif name in _POSITIVE_OVERRIDES:
            check_positive(name, value)
        else:
            check_nonnegative(name, value)
        if name == "accelerators_per_system" and (float(value) != int(float(value)) or float(value) < 1):
            raise ValueError(f"accelerators_per_system={value!r} must be a whole number of accelerators, >= 1")
        if name == "extra_host_memory_gb_per_accelerator":
            check_plausible(name, value, low=0.0, high=MAX_EXTRA_HOST_MEMORY_GB, unit="GB", allow_zero=True,
                            high_hint="a figure in MB or bytes where GB are meant?")
        spec = _override_spec(name)
        if spec is not None and (spec.min_value is not None or spec.max_value is not None):
            # the catalog vocabulary's plausible range: months given as years, a per-rack capex,
            # a markup in percent
            slip = "a figure in other units (months, per rack or system, percent)?"
            check_plausible(name, value, low=spec.min_value if spec.min_value is not None else 0.0,
                            high=spec.max_value, unit=spec.unit, allow_zero=name in _ZERO_OVERRIDES, hint=slip,
                            high_hint=slip)


_ZERO_OVERRIDES = frozenset({"capex_usd_per_accelerator", "colocation_usd_per_kw_month", "electricity_usd_per_kwh",
                             "rental_markup_frac"})
"""Overrides whose 0 is meaningful below a plausible minimum (a written-off system, owned datacenter
space, free power, no markup)."""

MAX_EXTRA_HOST_MEMORY_GB: float = 100_000.0
"""Largest plausible extra host DRAM per accelerator [GB] (100 TB): far above any system's host
memory (e.g. 480 GB of LPDDR5X per Grace CPU, shared by two GPUs in GB200 NVL72); above it a figure
in MB or bytes."""


def _override_spec(name: str) -> Any:
    """Return the vocabulary's spec of a TCO override (system inputs first, then profile inputs), or None."""
    for table in ("tco_system", "tco_profile"):
        try:
            return catalog.parameter_spec(table, name)
        except KeyError:
            continue
    return None


def tco(
    hardware: Any,
    profile: Any = None,
    *,
    basis: Literal["itemised", "published"] | None = None,
    vintage: str | None = None,
    tier: str | None = None,
    **overrides: float,
) -> TcoResult:
    """TCO of a system per accelerator-hour, itemised from the catalog or a published figure.

    ``basis="itemised"`` (default) adds capex amortisation, cost of capital, power, colocation,
    maintenance and other opex (and, for the rental profile, the owner's markup) from the
    catalog's capex inputs (:func:`tokenomics.tco_inputs`), the operator profile
    (:func:`tokenomics.tco_profile`) and the hardware's IT power; see the module docstring.
    ``basis="published"`` uses a published all-in $/GPU-hour figure
    (:func:`tokenomics.published_tco`), e.g. the SemiAnalysis InferenceX September-2026
    hyperscaler tier.

    The basis follows what is given, as in :func:`tco_basis`: a ``vintage`` or ``tier`` means
    published, a ``profile`` itemised; a contradiction (a profile with a published basis, a
    vintage or tier with an itemised one) is an error, never ignored.

    Parameters
    ----------
    hardware : str or Hardware
        Hardware id or alias (``"gb200"``, ``"MI355X"``) or a catalog entry.
    profile : str or TcoProfile, optional
        Operator profile (``"hyperscaler"``, the default, ``"neocloud"``, ``"rental"``) of the
        itemised basis.
    basis : {"itemised", "published"}, optional
        Where the figure comes from (default: published with a ``vintage`` or ``tier``, else
        itemised).
    vintage : str, optional
        Published set (default ``"2026-09"``); implies ``basis="published"``.
    tier : str, optional
        Published tier (``hyperscaler``, the default, ``neocloud``, ``rental``, ``internal``);
        implies ``basis="published"``.
    **overrides : float
        Replace any input of :data:`TCO_OVERRIDES` (e.g. ``capex_usd_per_accelerator=50_000``,
        ``pue=1.2``, ``electricity_usd_per_kwh=0.06``), one number each. With
        ``basis="published"`` only ``facility_power_kw_per_accelerator`` and
        ``accelerators_per_system`` apply. For many values of the itemised inputs at once use
        :func:`itemised_tco_usd_per_gpu_hour` (array and Series in, the same out).

    Returns
    -------
    TcoResult
        ``usd_per_gpu_hour``, ``breakdown_usd_per_gpu_hour``, ``to_frame()`` with per
        accelerator-hour, per system-hour and per MW-year columns.

    Raises
    ------
    KeyError
        Unknown hardware, profile, vintage, tier or override name (close matches listed).
    TypeError
        ``hardware`` or ``profile`` neither a name nor a catalog entry (e.g. None); an override
        given as an array or Series (one number each; the message names the override and how
        to cover many values).
    ValueError
        A basis contradicted by the other arguments (``profile`` with ``basis="published"`` or
        with a ``vintage`` or ``tier``, ``vintage`` or ``tier`` with ``basis="itemised"``), an
        override outside its range
        (percent hint for fractions) or outside the catalog
        vocabulary's plausible range (``catalog.parameter_spec``: economic life 0.5-30 years,
        capex 0 or 100-2e6 USD per accelerator, rental markup <= 5; unit slips such as months or
        a per-rack capex), a fractional ``accelerators_per_system``, an unknown basis, or a
        system with neither IT nor facility power (give ``facility_power_kw_per_accelerator=``).

    Examples
    --------
    >>> import tokenomics as tk
    >>> r = tk.tco("gb200", "hyperscaler", capex_usd_per_accelerator=60_000.0)
    >>> r.usd_per_gpu_hour > 0
    True
    >>> round(sum(r.breakdown_usd_per_gpu_hour.values()), 9) == round(r.usd_per_gpu_hour, 9)
    True
    """
    if isinstance(hardware, str):
        hw = catalog.hardware(hardware)
    elif isinstance(hardware, catalog.Hardware):
        hw = hardware
    else:
        raise TypeError(
            f"hardware must be a hardware id or alias (str) or a Hardware entry, got "
            f"{type(hardware).__name__} {hardware!r}"
        )
    _validate_overrides(overrides)
    n_sys = int(overrides.get("accelerators_per_system", hw.accelerators_per_system))
    named = [f"{k}={v!r}" for k, v in (("vintage", vintage), ("tier", tier)) if v is not None]
    if basis is None and named and profile is not None:
        raise ValueError(f"profile={profile!r} (itemised TCO) contradicts {' and '.join(named)} (published TCO): "
                         "give one basis")
    if basis is None:
        basis = "published" if named else "itemised"
    if basis == "itemised" and named:
        verb, pronoun = ("select", "they do") if len(named) > 1 else ("selects", "it does")
        raise ValueError(f"{' and '.join(named)} {verb} a published figure; {pronoun} not apply to "
                         "basis='itemised' (leave basis out, or give basis='published')")
    if basis == "published" and profile is not None:
        raise ValueError(f"profile={profile!r} is an itemised-basis input; it does not apply to "
                         "basis='published' (give tier= for a published tier)")
    if basis == "published":
        vintage = "2026-09" if vintage is None else vintage
        tier = "hyperscaler" if tier is None else tier
        extra = set(overrides) - {"facility_power_kw_per_accelerator", "accelerators_per_system"}
        if extra:
            raise ValueError(
                f"overrides {sorted(extra)} do not apply to basis='published' (an all-in figure); "
                "use basis='itemised' to change TCO inputs"
            )
        pub = catalog.published_tco(hw.hardware_id, vintage=vintage, tier=tier)
        fac = overrides.get(
            "facility_power_kw_per_accelerator",
            pub.facility_power_kw_per_accelerator or hw.facility_power_kw_per_accelerator,
        )
        pub_notes = [
            f"published all-in ${pub.usd_per_gpu_hour}/GPU-hour, {pub.vintage} {pub.tier}: "
            f"{pub.source} (as of {pub.provenance['usd_per_gpu_hour'].as_of})",
        ]
        if fac is None:
            pub_notes.append("no facility power in the catalog: per-MW figures are NaN")
        return TcoResult(
            hardware_id=hw.hardware_id,
            basis="published",
            vintage=pub.vintage,
            tier=pub.tier,
            usd_per_gpu_hour=pub.usd_per_gpu_hour,
            breakdown_usd_per_gpu_hour={"published_all_in": pub.usd_per_gpu_hour},
            accelerators_per_system=n_sys,
            it_power_kw_per_accelerator=hw.it_power_kw_per_accelerator,
            facility_power_kw_per_accelerator=None if fac is None else float(fac),
            notes=pub_notes,
        )
    if basis != "itemised":
        raise ValueError(f"basis={basis!r} is not one of 'itemised', 'published'")

    if profile is None:
        profile = "hyperscaler"
    if isinstance(profile, str):
        prof = catalog.tco_profile(profile)
    elif isinstance(profile, catalog.TcoProfile):
        prof = profile
    else:
        raise TypeError(
            f"profile must be a profile name (str) or a TcoProfile entry, got "
            f"{type(profile).__name__} {profile!r}"
        )
    inp = catalog.tco_inputs(hw.hardware_id)
    life = inp.economic_life_years
    inputs: dict[str, float] = {
        "capex_usd_per_accelerator": inp.capex_usd_per_accelerator,
        "economic_life_years": life if life is not None else prof.economic_life_years,
        "residual_value_frac": inp.residual_value_frac,
        "cost_of_capital_frac": prof.cost_of_capital_frac,
        "pue": prof.pue,
        "electricity_usd_per_kwh": prof.electricity_usd_per_kwh,
        "colocation_usd_per_kw_month": prof.colocation_usd_per_kw_month,
        "maintenance_frac_per_year": prof.maintenance_frac_per_year,
        "other_opex_frac_per_year": prof.other_opex_frac_per_year,
        "rental_markup_frac": prof.rental_markup_frac,
    }
    notes: list[str] = []
    if life is None and "economic_life_years" not in overrides:
        notes.append(f"economic life {prof.economic_life_years:g} years from the {prof.profile_id} profile")
    for name, value in overrides.items():
        if name in inputs:
            inputs[name] = float(value)
    if overrides:
        notes.append("overridden: " + ", ".join(f"{k}={v}" for k, v in sorted(overrides.items())))
    extra_gb = float(overrides.get("extra_host_memory_gb_per_accelerator", 0.0))
    if extra_gb > 0:
        if inp.host_dram_usd_per_gb is None:
            raise ValueError(
                f"extra_host_memory_gb_per_accelerator needs host_dram_usd_per_gb for {hw.hardware_id!r} in the "
                "TCO catalog; add the row or raise capex_usd_per_accelerator instead"
            )
        added = extra_gb * inp.host_dram_usd_per_gb
        inputs["capex_usd_per_accelerator"] += added
        inputs["host_memory_extra_capex_usd_per_accelerator"] = added
        notes.append(
            f"host memory: +{extra_gb:g} GB/accelerator x ${inp.host_dram_usd_per_gb:g}/GB = ${added:,.0f} capex"
        )

    if "facility_power_kw_per_accelerator" in overrides and "it_power_kw_per_accelerator" in overrides:
        raise ValueError(
            f"give it_power_kw_per_accelerator={overrides['it_power_kw_per_accelerator']} or "
            f"facility_power_kw_per_accelerator={overrides['facility_power_kw_per_accelerator']}, not both: "
            "facility power is IT power x PUE (set pue= for the overhead)"
        )
    fac_given = "facility_power_kw_per_accelerator" in overrides
    # a facility figure given replaces the catalog's power figures, as an all-in figure would
    it_kw = None if fac_given else overrides.get("it_power_kw_per_accelerator", hw.it_power_kw_per_accelerator)
    fac_kw = overrides.get("facility_power_kw_per_accelerator", hw.facility_power_kw_per_accelerator)
    pue = inputs["pue"]
    if it_kw is not None:
        it_kw = float(it_kw)
        facility = it_kw * pue
        notes.append(
            f"power: IT {it_kw:.4g} kW/accelerator x PUE {pue:g} = facility {facility:.4g} kW; colocation on IT kW"
        )
    elif fac_kw is not None:
        # the all-in facility figure already includes a facility overhead: IT power is derived
        # from it once, at the profile's own PUE, and is then charged like any IT power
        # (electricity on IT x PUE, colocation on IT kW), so a worse PUE never lowers the TCO
        reference_pue = float(prof.pue)
        it_kw = float(fac_kw) / reference_pue
        facility = it_kw * pue
        whose = "given" if fac_given else f"of the catalog (no IT power for {hw.hardware_id})"
        notes.append(
            f"power: IT {it_kw:.4g} kW/accelerator derived from the all-in facility power {float(fac_kw):.4g} kW "
            f"{whose} / the {prof.profile_id} profile's PUE {reference_pue:g}; x PUE {pue:g} = facility "
            f"{facility:.4g} kW; colocation on IT kW"
        )
    else:
        raise ValueError(
            f"hardware {hw.hardware_id!r} has neither it_power_kw_per_accelerator nor "
            "facility_power_kw_per_accelerator in the catalog; pass facility_power_kw_per_accelerator= "
            "(tco, evaluate) or it_power_kw_per_accelerator= (tco), or price the GPU-hour with "
            "cost_usd_per_gpu_hour="
        )
    inputs["it_power_kw_per_accelerator"] = it_kw
    inputs["facility_power_kw_per_accelerator"] = facility

    parts = itemised_tco_usd_per_gpu_hour(
        capex_usd_per_accelerator=inputs["capex_usd_per_accelerator"],
        economic_life_years=inputs["economic_life_years"],
        cost_of_capital_frac=inputs["cost_of_capital_frac"],
        it_power_kw_per_accelerator=it_kw,
        pue=pue,
        electricity_usd_per_kwh=inputs["electricity_usd_per_kwh"],
        colocation_usd_per_kw_month=inputs["colocation_usd_per_kw_month"],
        maintenance_frac_per_year=inputs["maintenance_frac_per_year"],
        other_opex_frac_per_year=inputs["other_opex_frac_per_year"],
        residual_value_frac=inputs["residual_value_frac"],
        rental_markup_frac=inputs["rental_markup_frac"],
    )
    total = float(parts.pop("total"))
    return TcoResult(
        hardware_id=hw.hardware_id,
        basis="itemised",
        profile=prof.profile_id,
        usd_per_gpu_hour=total,
        breakdown_usd_per_gpu_hour={k: float(v) for k, v in parts.items()},
        accelerators_per_system=n_sys,
        it_power_kw_per_accelerator=it_kw,
        facility_power_kw_per_accelerator=facility,
        inputs=inputs,
        notes=notes,
    )


def tco_comparison_table(
    vintage: str = "2026-09", tiers: tuple[str, ...] = ("hyperscaler", "neocloud", "rental")
) -> pd.DataFrame:
    """Compare the itemised TCO with the published $/GPU-hour tiers, system by system.

    For every system that has catalog TCO inputs and a published figure of ``vintage`` in one
    of ``tiers``, the itemised TCO is computed with the matching profile (``internal`` uses the
    hyperscaler profile) and set beside the published figure. Itemised TCO is linear in capex,
    ``tco = a * capex + b``, so the table also gives the capex at which the itemised figure
    would equal the published one, all other inputs unchanged — usually the main driver of a
    difference (vendor margins dominate TCO; power and colocation are a small part).

    Parameters
    ----------
    vintage : str, default "2026-09"
        Published set.
    tiers : tuple of str
        Published tiers to include.

    Returns
    -------
    pandas.DataFrame
        One row per (hardware, tier): ``hardware_id, tier, profile, vintage,
        itemised_usd_per_gpu_hour, published_usd_per_gpu_hour, difference_usd_per_gpu_hour``
        (itemised - published), ``ratio_frac`` (itemised / published), ``largest_component``,
        ``largest_component_share_frac``, ``capex_usd_per_accelerator``,
        ``implied_capex_usd_per_accelerator`` (NaN where even zero capex exceeds the published
        figure) and ``explanation``. The figures are not expected to match: the published
        tiers come from a proprietary model with its own capex, financing and markups.

    Raises
    ------
    KeyError
        Unknown vintage (valid ones listed).

    Examples
    --------
    >>> import tokenomics as tk
    >>> t = tk.tco_comparison_table()
    >>> {"itemised_usd_per_gpu_hour", "published_usd_per_gpu_hour", "explanation"} <= set(t.columns)
    True
    """
    pub = catalog.published_tco_table()
    vintages = sorted(set(pub["vintage"].astype(str)))
    if vintage not in vintages:
        raise unknown_name_error("published TCO vintage", vintage, vintages)
    pub = pub[(pub["vintage"].astype(str) == vintage) & pub["tier"].isin(tiers)]
    have_inputs = set(catalog.tco_table().index.astype(str))
    rows = []
    for rec in pub.itertuples(index=False):
        hid, tier_name = str(rec.hardware_id), str(rec.tier)
        if hid not in have_inputs:
            continue
        prof = _TIER_TO_PROFILE.get(tier_name, "hyperscaler")
        published = float(rec.usd_per_gpu_hour)
        try:
            res = tco(hid, prof)
            at_zero = tco(hid, prof, capex_usd_per_accelerator=0.0).usd_per_gpu_hour
        except ValueError as err:
            rows.append(
                {
                    "hardware_id": hid,
                    "tier": tier_name,
                    "profile": prof,
                    "vintage": vintage,
                    "published_usd_per_gpu_hour": published,
                    "explanation": f"not itemised: {err}",
                }
            )
            continue
        capex = res.inputs["capex_usd_per_accelerator"]
        slope = (res.usd_per_gpu_hour - at_zero) / capex if capex > 0 else math.nan
        implied = (published - at_zero) / slope if slope > 0 and published >= at_zero else math.nan
        largest = max(res.breakdown_usd_per_gpu_hour, key=res.breakdown_usd_per_gpu_hour.__getitem__)
        share = res.breakdown_usd_per_gpu_hour[largest] / res.usd_per_gpu_hour
        ratio = res.usd_per_gpu_hour / published
        direction = "above" if ratio >= 1 else "below"
        explanation = f"itemised {abs(ratio - 1):.0%} {direction} published; largest item {largest} ({share:.0%}). "
        if math.isnan(implied):
            explanation += "Even zero capex exceeds the published figure: opex inputs differ."
        else:
            explanation += (
                f"Matching the published figure needs capex ${implied:,.0f}/accelerator "
                f"({implied / capex:.2f}x the catalog's ${capex:,.0f}), other inputs unchanged."
            )
        rows.append(
            {
                "hardware_id": hid,
                "tier": tier_name,
                "profile": prof,
                "vintage": vintage,
                "itemised_usd_per_gpu_hour": res.usd_per_gpu_hour,
                "published_usd_per_gpu_hour": published,
                "difference_usd_per_gpu_hour": res.usd_per_gpu_hour - published,
                "ratio_frac": ratio,
                "largest_component": largest,
                "largest_component_share_frac": share,
                "capex_usd_per_accelerator": capex,
                "implied_capex_usd_per_accelerator": implied,
                "explanation": explanation,
            }
        )
    return pd.DataFrame(rows)


# --- the TCO basis: which figure an evaluation uses ---

DEFAULT_TCO_PROFILE: str = "hyperscaler"
"""Operator profile of the default (itemised) TCO basis."""

DEFAULT_TCO_VINTAGE: str = "2026-09"
"""Published set used when a tier is given without a vintage."""

DEFAULT_TCO_TIER: str = "hyperscaler"
"""Published tier used when a vintage is given without a tier."""


class TcoBasis(BaseModel):
    """Where the TCO per accelerator-hour of an evaluation comes from.

    One of three kinds, each with only its own fields:

    - ``itemised(profile)``: capex, financing, power, colocation and opex from the catalog's
      inputs and an operator profile (:func:`tco`);
    - ``published(vintage, tier)``: a published all-in $/GPU-hour figure
      (:func:`tokenomics.published_tco`);
    - ``explicit(usd_per_gpu_hour)``: a figure you give, the same on every system.

    Names are checked against the catalog on construction. Build one with the class methods,
    or from keyword arguments and CLI flags with :func:`tco_basis`.

    Parameters
    ----------
    kind : {"itemised", "published", "explicit"}
        The kind of basis.
    profile : str, optional
        Operator profile of an itemised basis (catalog id or alias).
    vintage, tier : str, optional
        Published set and tier of a published basis.
    usd_per_gpu_hour : float, optional
        TCO of an explicit basis, >= 0 [USD/GPU-hour].
    inputs : tuple of (str, float), optional
        TCO inputs an itemised basis replaces on every system it prices, as ``(name, value)``
        pairs of :data:`TCO_OVERRIDES` (``TcoBasis.itemised("neocloud",
        electricity_usd_per_kwh=0.05)``), each checked as :func:`tco` checks it.

    Raises
    ------
    KeyError
        Unknown profile, vintage or tier, a vintage/tier pair never published, or an unknown
        input name (close matches listed).
    ValueError
        A field that does not belong to ``kind``, a missing one, or an input out of range.

    Examples
    --------
    >>> TcoBasis.published(tier="rental").label
    'published 2026-09, rental tier'
    >>> TcoBasis.explicit(2.5).usd_per_gpu_hour
    2.5
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["itemised", "published", "explicit"]
    profile: str | None = None
    vintage: str | None = None
    tier: str | None = None
    usd_per_gpu_hour: float | None = None
    inputs: tuple[tuple[str, float], ...] = ()

    @field_validator("inputs", mode="before")
    @classmethod
    def _numbers(cls, value: Any) -> Any:
        for pair in value or ():
            if isinstance(pair, tuple | list) and len(pair) == 2:
                check_numeric(str(pair[0]), pair[1])  # "1.2" or True is not coerced into a number
        return value

    @model_validator(mode="after")
    def _fields_of_kind(self) -> TcoBasis:
        own = {"itemised": {"profile"}, "published": {"vintage", "tier"}, "explicit": {"usd_per_gpu_hour"}}
        for name in ("profile", "vintage", "tier", "usd_per_gpu_hour"):
            given = getattr(self, name) is not None
            if given and name not in own[self.kind]:
                raise ValueError(f"TcoBasis kind={self.kind!r} does not use {name}={getattr(self, name)!r}")
            if not given and name in own[self.kind]:
                raise ValueError(f"TcoBasis kind={self.kind!r} needs {name}")
        if self.inputs and self.kind != "itemised":
            raise ValueError(f"TcoBasis kind={self.kind!r} does not use inputs={dict(self.inputs)!r}: TCO inputs "
                             "replace those of an itemised TCO (a published or given figure is all-in)")
        if self.inputs:
            _validate_overrides(dict(self.inputs))
            object.__setattr__(self, "inputs", tuple(sorted((str(k), float(v)) for k, v in self.inputs)))
        if self.kind == "explicit":
            check_gpu_hour_cost("usd_per_gpu_hour", self.usd_per_gpu_hour)
        elif self.kind == "itemised":
            object.__setattr__(self, "profile", catalog.resolve_profile_id(str(self.profile)))
        else:
            _check_published(str(self.vintage), str(self.tier))
        return self

    @classmethod
    def itemised(cls, profile: str = DEFAULT_TCO_PROFILE, **inputs: float) -> TcoBasis:
        """Itemised TCO with an operator profile (``"hyperscaler"``, ``"neocloud"``, ``"rental"``).

        ``**inputs`` replace TCO inputs on every system (:data:`TCO_OVERRIDES`, e.g.
        ``electricity_usd_per_kwh=0.05``, ``pue=1.3``), as in :func:`tco`.
        """
        return cls(kind="itemised", profile=profile, inputs=tuple(inputs.items()))

    @classmethod
    def published(cls, vintage: str = DEFAULT_TCO_VINTAGE, tier: str = DEFAULT_TCO_TIER) -> TcoBasis:
        """Use a published all-in $/GPU-hour of a set (vintage) and tier."""
        return cls(kind="published", vintage=vintage, tier=tier)

    @classmethod
    def explicit(cls, usd_per_gpu_hour: float) -> TcoBasis:
        """Use a TCO you give [USD/GPU-hour], the same on every system."""
        check_gpu_hour_cost("usd_per_gpu_hour", usd_per_gpu_hour)
        return cls(kind="explicit", usd_per_gpu_hour=usd_per_gpu_hour)

    @property
    def label(self) -> str:
        """The basis in words, e.g. ``"itemised, hyperscaler profile"``."""
        if self.kind == "itemised":
            given = "".join(f", {k}={v:g}" for k, v in self.inputs)
            return f"itemised, {self.profile} profile{given}"
        if self.kind == "published":
            return f"published {self.vintage}, {self.tier} tier"
        return f"given, {self.usd_per_gpu_hour:g} USD/GPU-hour"

    def tco(self, hardware: Any, **overrides: float) -> TcoResult:
        """TCO of one system on this basis.

        Parameters
        ----------
        hardware : Hardware or str
            Catalog entry (or its name).
        **overrides : float
            TCO inputs replaced (see :func:`tco`), e.g. ``facility_power_kw_per_accelerator``;
            over the basis's own ``inputs`` where both name one.

        Returns
        -------
        TcoResult
            For an explicit basis: the given figure as its one component, with the catalog's
            power figures (or their overrides) for per-MW results.

        Raises
        ------
        KeyError
            Unknown hardware, or no published figure for it (itemised: no TCO inputs).
        ValueError
            An override out of range, or one the basis does not use (an explicit figure uses
            power and system size only).
        """
        hw = catalog.hardware(hardware) if isinstance(hardware, str) else hardware
        extra: dict[str, Any] = dict(overrides)
        if self.kind == "itemised":
            return tco(hw, str(self.profile), **{**dict(self.inputs), **extra})
        if self.kind == "published":
            return tco(hw, basis="published", vintage=str(self.vintage), tier=str(self.tier), **extra)
        ignored = sorted(set(extra) - _EXPLICIT_OVERRIDES)
        if ignored:
            raise ValueError(f"overrides {ignored} do not apply to an explicit TCO basis (the given "
                             f"{self.usd_per_gpu_hour:g} USD/GPU-hour is all-in); only "
                             f"{sorted(_EXPLICIT_OVERRIDES)} do (for per-MW and per-system figures)")
        _validate_overrides(extra)
        rate = float(self.usd_per_gpu_hour or 0.0)
        return TcoResult(
            hardware_id=hw.hardware_id,
            basis="explicit",
            usd_per_gpu_hour=rate,
            breakdown_usd_per_gpu_hour={"given": rate},
            accelerators_per_system=int(extra.get("accelerators_per_system", hw.accelerators_per_system)),
            it_power_kw_per_accelerator=extra.get("it_power_kw_per_accelerator", hw.it_power_kw_per_accelerator),
            facility_power_kw_per_accelerator=extra.get("facility_power_kw_per_accelerator",
                                                        hw.facility_power_kw_per_accelerator),
            notes=[f"TCO given: {rate:g} USD/GPU-hour"],
        )


_EXPLICIT_OVERRIDES = frozenset({"accelerators_per_system", "it_power_kw_per_accelerator",
                                 "facility_power_kw_per_accelerator"})
"""The overrides an explicit (given) TCO figure uses: power and system size, for per-MW and
per-system results."""

DEFAULT_TCO_BASIS: TcoBasis = TcoBasis.itemised()
"""The TCO basis of every entry point when none is given: itemised, hyperscaler profile."""


def _check_published(vintage: str, tier: str) -> None:
    """Raise KeyError for an unknown vintage or tier, or a pair that was never published."""
    table = catalog.published_tco_table()
    vintages = sorted(set(table["vintage"].astype(str)))
    tiers = sorted(set(table["tier"].astype(str)))
    if vintage not in vintages:
        raise unknown_name_error("published TCO vintage", vintage, vintages)
    if tier not in tiers:
        raise unknown_name_error("published TCO tier", tier, tiers)
    if not ((table["vintage"] == vintage) & (table["tier"] == tier)).any():
        have = sorted(set(table.loc[table["vintage"] == vintage, "tier"]))
        raise KeyError(f"published TCO vintage {vintage!r} has no tier {tier!r}; tiers of {vintage}: {', '.join(have)}")


_BASIS_KINDS: dict[str, Literal["itemised", "published", "explicit"]] = {
    "itemised": "itemised", "itemized": "itemised", "published": "published", "explicit": "explicit",
}


def _basis_kind(basis: object) -> Literal["itemised", "published", "explicit"]:
    """Return the kind a ``basis`` string names; ``ValueError`` with the keyword meant for a profile or tier name."""
    if isinstance(basis, TcoResult):
        raise ValueError(
            f"a TcoResult (the TCO of {basis.hardware_id}, {basis.usd_per_gpu_hour:.4g} USD/GPU-hour) is not a TCO "
            "basis; pass its figure, cost_usd_per_gpu_hour=result.usd_per_gpu_hour (the same on every system), or "
            "evaluate one system with tk.evaluate(model, hardware, tco_result=result); a basis is a tk.TcoBasis or "
            "one of 'itemised', 'published', 'explicit'"
        )
    key = normalize_name(str(basis))
    if isinstance(basis, str) and key in _BASIS_KINDS:
        return _BASIS_KINDS[key]
    shown = repr(basis) if len(repr(basis)) <= 80 else f"<{type(basis).__name__}>"
    text = f"tco_basis={shown} is not one of 'itemised', 'published', 'explicit'"
    try:
        profile: str | None = catalog.resolve_profile_id(str(basis))
    except KeyError:
        profile = None
    tiers = {normalize_name(t): str(t) for t in catalog.published_tco_table()["tier"].astype(str)}
    tier = tiers.get(key)
    meant = []
    if profile is not None:
        meant.append(f"tco_profile={profile!r} (or tk.TcoBasis.itemised({profile!r})) for an itemised TCO")
    if tier is not None:
        meant.append(f"tco_tier={tier!r} (or tk.TcoBasis.published(tier={tier!r})) for a published TCO")
    if meant:
        what = ("a TCO profile and a published tier" if profile is not None and tier is not None
                else "a TCO profile" if profile is not None else "a published TCO tier")
        raise ValueError(f"{text}: {basis!r} is {what}, not a basis kind; did you mean {', or '.join(meant)}?")
    close = difflib.get_close_matches(key, list(_BASIS_KINDS), n=1, cutoff=0.5)
    hint = f"; did you mean {_BASIS_KINDS[close[0]]!r}?" if close else ""
    raise ValueError(f"{text}{hint}")


def tco_basis(
    basis: TcoBasis | str | None = None,
    *,
    profile: str | None = None,
    vintage: str | None = None,
    tier: str | None = None,
    usd_per_gpu_hour: float | None = None,
) -> TcoBasis:
    """Map keyword arguments (or CLI flags) to a :class:`TcoBasis`: the one rule.

    - a :class:`TcoBasis` is returned as is (no other argument may be given);
    - ``usd_per_gpu_hour`` (``--cost-per-gpu-hour``) gives an explicit basis;
    - ``vintage`` or ``tier`` (``--tco-vintage``, ``--tco-tier``) gives a published basis, the
      other defaulting to :data:`DEFAULT_TCO_VINTAGE` / :data:`DEFAULT_TCO_TIER`;
    - ``profile`` (``--tco-profile``), or nothing, gives an itemised basis (default profile
      :data:`DEFAULT_TCO_PROFILE`);
    - ``basis="itemised" | "published" | "explicit"`` names the kind (case and punctuation
      ignored; ``"itemized"`` is ``"itemised"``); it must agree with the other arguments.

    A profile or tier name is not a kind: ``basis="hyperscaler"`` is refused with the hint
    ``tco_profile='hyperscaler'`` (or ``TcoBasis.itemised('hyperscaler')``), and
    ``tco_tier='hyperscaler'`` where a published tier has that name too, rather than read as
    one of them: ``"hyperscaler"``, ``"neocloud"`` and ``"rental"`` name both an itemised
    profile and a published tier, whose figures differ.

    Parameters
    ----------
    basis : TcoBasis, {"itemised", "published", "explicit"} or None
        The basis, its kind, or None to infer the kind from the other arguments.
    profile : str, optional
        Operator profile of an itemised basis.
    vintage, tier : str, optional
        Published set and tier.
    usd_per_gpu_hour : float, optional
        Explicit TCO [USD/GPU-hour].

    Returns
    -------
    TcoBasis
        The basis.

    Raises
    ------
    ValueError
        Contradictory arguments (the message names both), or an unknown kind (a profile or
        tier name given as the kind: the message says which keyword takes it; a
        :class:`TcoResult`: the message says to pass its ``usd_per_gpu_hour`` as
        ``cost_usd_per_gpu_hour`` or the result as ``tco_result`` of :func:`tokenomics.evaluate`).
    KeyError
        Unknown profile, vintage or tier.

    Examples
    --------
    >>> tco_basis(vintage="2026-09").label
    'published 2026-09, hyperscaler tier'
    >>> tco_basis("Itemized", profile="neocloud").label
    'itemised, neocloud profile'
    >>> tco_basis(profile="neocloud", tier="rental")
    Traceback (most recent call last):
    ...
    ValueError: tco_profile='neocloud' (itemised TCO) contradicts tco_tier='rental' (published TCO): give one basis
    """
    given = {
        "tco_profile": (profile, "itemised"),
        "tco_vintage": (vintage, "published"),
        "tco_tier": (tier, "published"),
        "cost_usd_per_gpu_hour": (usd_per_gpu_hour, "explicit"),
    }
    present = {name: (value, kind) for name, (value, kind) in given.items() if value is not None}
    if isinstance(basis, TcoBasis):
        if present:
            name, (value, _) = next(iter(present.items()))
            raise ValueError(f"tco_basis={basis.label!r} (a TcoBasis) contradicts {name}={value!r}: give one of them")
        return basis
    kinds = {kind for _, kind in present.values()}
    if len(kinds) > 1:
        (n1, (v1, k1)), (n2, (v2, k2)) = [
            next((n, vk) for n, vk in present.items() if vk[1] == kind) for kind in sorted(kinds)
        ][:2]
        raise ValueError(f"{n1}={v1!r} ({k1} TCO) contradicts {n2}={v2!r} ({k2} TCO): give one basis")
    kind: str
    if basis is not None:
        kind = _basis_kind(basis)
        if kinds and kinds != {kind}:
            name, (value, _) = next(iter(present.items()))
            raise ValueError(f"tco_basis={kind!r} contradicts {name}={value!r}: give one basis")
    else:
        kind = next(iter(kinds)) if kinds else "itemised"
    if kind == "explicit":
        if usd_per_gpu_hour is None:
            raise ValueError("tco_basis='explicit' needs cost_usd_per_gpu_hour (--cost-per-gpu-hour)")
        check_gpu_hour_cost("cost_usd_per_gpu_hour", usd_per_gpu_hour)
        return TcoBasis.explicit(usd_per_gpu_hour)
    if kind == "published":
        return TcoBasis.published(vintage or DEFAULT_TCO_VINTAGE, tier or DEFAULT_TCO_TIER)
    return TcoBasis.itemised(profile or DEFAULT_TCO_PROFILE)
