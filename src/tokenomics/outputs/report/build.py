"""The computation of ``tokenomics report``: every number of the report as a tidy table.

The chain, per model and hardware:

1. a throughput-vs-interactivity curve at the report's ISL/OSL: the bundled measured points
   (their Pareto envelope over serving configurations) where at least two exist, else the
   calibrated roofline projection with its uncertainty band;
2. TCO per accelerator-hour (:func:`tokenomics.cost.tco.tco`: itemised from the catalog with an
   operator profile, or a published figure), on the report's basis and on every other basis
   the catalog holds for the system (the report's TCO selector);
3. cost per million tokens along the curve (:func:`tokenomics.economics.cost_per_mtok`), and
   throughput and cost at the standard interactivity points
   (:data:`STANDARD_INTERACTIVITY_TOK_PER_S_PER_USER`);
4. at a reference interactivity: revenue at catalog list prices, license fee, gross margin and
   break-even utilization (:class:`tokenomics.analysis.scenario.Scenario`), margin vs utilization and
   utilization x license-fee grids (:func:`tokenomics.analysis.scenario.sweep`) and the one-at-a-time
   sensitivity of margin (:func:`tokenomics.analysis.sensitivity.margin_sensitivity`).

Nothing here draws or writes: see :mod:`tokenomics.outputs.report.sections` and
:mod:`tokenomics.outputs.report.write`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tokenomics._validate import check_fraction, check_positive, unknown_name_error
from tokenomics.outputs.compare import _band_ratios, reference_curve

__all__ = [
    "DEFAULT_MODELS",
    "STANDARD_INTERACTIVITY_TOK_PER_S_PER_USER",
    "Report",
    "ReportOptions",
    "build_report",
    "default_license_fee_frac",
    "validate_tco_names",
]

DEFAULT_MODELS: tuple[str, ...] = ("deepseek-r1", "gpt-oss-120b")
"""Models of a default report."""

LICENSED_MODEL_FEE_FRAC: float = 0.30
"""Default license fee (share of revenue) of a model whose weights are not open."""

STANDARD_INTERACTIVITY_TOK_PER_S_PER_USER: tuple[float, ...] = (20.0, 35.0, 50.0, 75.0, 100.0)
"""Interactivity points at which the report tabulates throughput and cost [tok/s/user]."""


# --- options ---------------------------------------------------------------------------------


class ReportOptions(BaseModel):
    """Assumptions of a report; every field is listed in the report's "Assumptions" section.

    Parameters
    ----------
    models : tuple of str
        Catalog model ids or aliases (default :data:`DEFAULT_MODELS`).
    hardware : tuple of str, optional
        Hardware ids or aliases; default every catalog system that has a measured or projected
        curve and a TCO on the chosen basis.
    utilization_frac : float, default 0.6
        Busy fraction of paid accelerator-hours, in (0, 1].
    license_fee_frac : float, optional
        License fee as a share of revenue, in [0, 1); default :func:`default_license_fee_frac`
        per model (0.30 for a licensed model, 0 for open weights).
    tco_basis : {"itemised", "published"}, default "itemised"
        Itemised TCO with ``tco_profile``, or a published figure (``tco_vintage``, ``tco_tier``).
    tco_profile : str, default "hyperscaler"
        Operator profile of an itemised TCO.
    tco_vintage, tco_tier : str
        Published TCO set and tier (default "2026-09", "hyperscaler").
    reference_interactivity_tok_per_s_per_user : float, default 50
        Interactivity at which throughput, cost and margin are compared [tok/s/user].
    isl_tokens, osl_tokens : float, default 8192 and 1024
        Input and output sequence length of the workload [tokens]; 8k/1k is the fixed-sequence
        workload InferenceX benchmarks today (1k/1k was retired in July 2026).
    price_provider : str, optional
        API price provider (default the catalog's first-party or latest price).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    models: tuple[str, ...] = DEFAULT_MODELS
    hardware: tuple[str, ...] | None = None
    utilization_frac: float = 0.6
    license_fee_frac: float | None = None
    tco_basis: Literal["itemised", "published"] = "itemised"
    tco_profile: str = "hyperscaler"
    tco_vintage: str = "2026-09"
    tco_tier: str = "hyperscaler"
    reference_interactivity_tok_per_s_per_user: float = 50.0
    isl_tokens: float = 8192.0
    osl_tokens: float = 1024.0
    price_provider: str | None = None

    @field_validator("utilization_frac")
    @classmethod
    def _utilization(cls, value: float) -> float:
        check_fraction("utilization_frac", value, low_inclusive=False)
        return value

    @field_validator("license_fee_frac")
    @classmethod
    def _license(cls, value: float | None) -> float | None:
        if value is not None:
            check_fraction("license_fee_frac", value, high_inclusive=False)
        return value

    @field_validator("reference_interactivity_tok_per_s_per_user", "isl_tokens", "osl_tokens")
    @classmethod
    def _positive(cls, value: float, info: Any) -> float:
        check_positive(info.field_name, value)
        return value

    @field_validator("models")
    @classmethod
    def _models(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        from tokenomics.catalog import resolve_model_id

        if not value:
            raise ValueError("models: give at least one model")
        return tuple(dict.fromkeys(resolve_model_id(m) for m in value))

    @field_validator("hardware")
    @classmethod
    def _hardware(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        from tokenomics.catalog import resolve_hardware_id

        if value is None:
            return None
        if not value:
            raise ValueError("hardware: give at least one system, or none for all")
        return tuple(dict.fromkeys(resolve_hardware_id(h) for h in value))

    @model_validator(mode="after")
    def _tco_names(self) -> ReportOptions:
        validate_tco_names(self.tco_basis, self.tco_profile, self.tco_vintage, self.tco_tier)
        return self

    def tco_label(self) -> str:
        """Describe the TCO basis in words, e.g. ``"itemised, hyperscaler profile"``.

        Returns
        -------
        str
            The description.
        """
        if self.tco_basis == "itemised":
            return f"itemised, {self.tco_profile} profile"
        return f"published {self.tco_vintage}, {self.tco_tier} tier"

    def workload_label(self) -> str:
        """Describe the workload in words, e.g. ``"ISL/OSL 8192/1024"``.

        Returns
        -------
        str
            The description.
        """
        return f"ISL/OSL {self.isl_tokens:g}/{self.osl_tokens:g}"


def validate_tco_names(basis: str, profile: str, vintage: str, tier: str) -> None:
    """Check the TCO profile and, for a published basis, the vintage and tier against the catalog.

    Parameters
    ----------
    basis : {"itemised", "published"}
        TCO basis.
    profile : str
        Operator profile (checked on either basis: it is a report option either way).
    vintage, tier : str
        Published TCO set and tier (checked for ``basis="published"`` only).

    Raises
    ------
    KeyError
        Unknown profile, vintage or tier, or a vintage/tier pair that was never published; the
        message lists the valid names (closest first).

    Examples
    --------
    >>> validate_tco_names("published", "hyperscaler", "2026-09", "rental")
    """
    from tokenomics import catalog

    catalog.tco_profile(profile)
    if basis != "published":
        return
    table = catalog.published_tco_table()
    vintages = sorted(set(table["vintage"]))
    tiers = sorted(set(table["tier"]))
    if vintage not in vintages:
        raise unknown_name_error("published TCO vintage", vintage, vintages)
    if tier not in tiers:
        raise unknown_name_error("published TCO tier", tier, tiers)
    if not ((table["vintage"] == vintage) & (table["tier"] == tier)).any():
        have = sorted(set(table.loc[table["vintage"] == vintage, "tier"]))
        raise KeyError(f"published TCO vintage {vintage!r} has no tier {tier!r}; "
                       f"tiers of {vintage}: {', '.join(have)}")


def default_license_fee_frac(model: str) -> float:
    """Default license fee: 0.30 of revenue for a licensed model, 0 for open weights.

    Parameters
    ----------
    model : str
        Catalog model id or alias.

    Returns
    -------
    float
        License fee as a share of revenue [fraction].

    Raises
    ------
    KeyError
        Unknown model (close matches listed).

    Examples
    --------
    >>> default_license_fee_frac("deepseek-r1")  # open weights
    0.0
    """
    from tokenomics import catalog

    return 0.0 if catalog.model(model).open_weights else LICENSED_MODEL_FEE_FRAC


# --- chain pieces --------------------------------------------------------------------------------


def _tco(hardware_id: str, opts: ReportOptions) -> Any:
    from tokenomics.cost.tco import tco

    if opts.tco_basis == "itemised":
        return tco(hardware_id, opts.tco_profile)
    return tco(hardware_id, basis="published", vintage=opts.tco_vintage, tier=opts.tco_tier)


def _scenario(model_id: str, hardware_id: str, opts: ReportOptions, throughput: float,
              license_fee: float) -> Any:
    from tokenomics.analysis.scenario import Scenario

    return Scenario(
        hardware=hardware_id,
        model=model_id,
        tco_basis=opts.tco_basis,
        tco_profile=opts.tco_profile,
        tco_vintage=opts.tco_vintage,
        tco_tier=opts.tco_tier,
        price_provider=opts.price_provider,
        isl_tokens=opts.isl_tokens,
        osl_tokens=opts.osl_tokens,
        utilization_frac=opts.utilization_frac,
        throughput_tok_per_s_per_gpu=throughput,
        interactivity_tok_per_s_per_user=opts.reference_interactivity_tok_per_s_per_user,
        license_fee_frac=license_fee,
    )


class Report(BaseModel):
    """Everything a report computed: tables (tidy DataFrames) and assumptions.

    Attributes
    ----------
    options : ReportOptions
        The assumptions used.
    tables : dict of str to pandas.DataFrame
        ``headline`` (one row per model and hardware at the reference interactivity),
        ``curve_points``, ``cost_curves`` (per TCO basis, column ``tco_label``),
        ``standard_points`` (throughput and cost at the standard interactivity points, per TCO
        basis), ``tco_rates``, ``margin_vs_utilization``, ``margin_grid``, ``sensitivity``,
        ``tco``, ``assumptions``, ``sources`` and ``skipped``. Curve tables carry a ``workload``
        column.
    focus : dict of str to str
        Per model, the hardware of the heat map and tornado chart (lowest cost per Mtok at the
        reference interactivity among systems with a measured curve, else among all).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    options: ReportOptions
    tables: dict[str, pd.DataFrame] = Field(default_factory=dict)
    focus: dict[str, str] = Field(default_factory=dict)


def _candidate_hardware(opts: ReportOptions) -> list[str]:
    from tokenomics import catalog

    if opts.hardware is not None:
        return list(opts.hardware)
    return [str(h) for h in catalog.hardware_table().index]


def build_report(
    options: ReportOptions | None = None,
    *,
    step: Callable[[str], None] | None = None,
) -> Report:
    """Run the chain and return every table of the report (nothing is written).

    Parameters
    ----------
    options : ReportOptions, optional
        Assumptions (default :class:`ReportOptions()`).
    step : callable, optional
        Called with a short description before each stage (progress display).

    Returns
    -------
    Report
        The tables and assumptions.

    Raises
    ------
    KeyError
        Unknown model, hardware, TCO profile or tier.
    ValueError
        Invalid options, or no hardware could be evaluated for any model.
    """
    from tokenomics import catalog
    from tokenomics.analysis.scenario import sweep
    from tokenomics.analysis.sensitivity import margin_sensitivity
    from tokenomics.curves.frontier import pareto_frontier
    from tokenomics.economics import cost_per_mtok

    opts = options or ReportOptions()
    say = step or (lambda _: None)
    u = opts.utilization_frac
    x_ref = opts.reference_interactivity_tok_per_s_per_user
    skipped: list[dict[str, str]] = []

    say("TCO per accelerator-hour")
    tco_results: dict[str, Any] = {}
    for hid in _candidate_hardware(opts):
        try:
            tco_results[hid] = _tco(hid, opts)
        except (KeyError, ValueError) as err:
            skipped.append({"model_id": "*", "hardware_id": hid, "stage": "TCO", "reason": _reason("TCO", hid, err)})
    if not tco_results:
        raise ValueError(f"no hardware has a TCO on the basis {opts.tco_label()}: {skipped}")
    rates = {hid: _tco_rates(hid, opts, res) for hid, res in tco_results.items()}
    wl = opts.workload_label()
    std_frames: list[pd.DataFrame] = []

    point_frames, cost_frames, headline, util_frames, grid_frames, sens_frames = [], [], [], [], [], []
    focus: dict[str, str] = {}
    u_grid = np.round(np.linspace(0.05, 1.0, 20), 4)
    for model_id in opts.models:
        fee = opts.license_fee_frac if opts.license_fee_frac is not None else default_license_fee_frac(model_id)
        say(f"{model_id}: curves, cost and margin on {len(tco_results)} candidate systems")
        rows_for_model = []
        for hid in tco_results:
            try:
                curve, points = reference_curve(model_id, hid, isl_tokens=opts.isl_tokens,
                                                osl_tokens=opts.osl_tokens, interactivity_tok_per_s_per_user=x_ref)
            except (KeyError, ValueError) as err:
                skipped.append({"model_id": model_id, "hardware_id": hid, "stage": "curve",
                                "reason": _reason("curve", hid, err)})
                continue
            points = points.assign(curve_kind=curve.kind, workload=wl)
            point_frames.append(points)
            front = pareto_frontier(points, by=None)
            low_ratio, high_ratio = _band_ratios(points) if curve.kind == "projected" else (math.nan, math.nan)
            for label, rate in rates[hid].items():
                cost = front[["model_id", "hardware_id", "kind", "interactivity_tok_per_s_per_user",
                              "throughput_tok_per_s_per_gpu"]].copy()
                cost.insert(3, "workload", wl)
                cost.insert(4, "tco_label", label)
                tput = cost["throughput_tok_per_s_per_gpu"].astype(float)
                cost["cost_usd_per_gpu_hour"] = rate
                cost["utilization_frac"] = u
                cost["cost_usd_per_mtok"] = cost_per_mtok(rate, tput, u)
                if "throughput_low_tok_per_s_per_gpu" in front.columns and curve.kind == "projected":
                    cost["cost_low_usd_per_mtok"] = cost_per_mtok(
                        rate, front["throughput_high_tok_per_s_per_gpu"].astype(float), u)
                    cost["cost_high_usd_per_mtok"] = cost_per_mtok(
                        rate, front["throughput_low_tok_per_s_per_gpu"].astype(float), u)
                cost_frames.append(cost)
            std_frames.append(_standard_points(model_id, hid, wl, curve, (low_ratio, high_ratio), rates[hid], u))
            lo, hi = curve.interactivity_range
            t_ref = float(curve.throughput_at(x_ref))
            if not math.isfinite(t_ref):
                skipped.append({
                    "model_id": model_id, "hardware_id": hid, "stage": "margin",
                    "reason": f"{x_ref:g} tok/s/user is outside the {curve.kind} curve's range "
                              f"{lo:.3g}-{hi:.3g} tok/s/user (never extrapolated)",
                })
                continue
            scn = _scenario(model_id, hid, opts, t_ref, fee)
            try:
                row = scn.evaluate()
            except (KeyError, ValueError) as err:
                skipped.append({"model_id": model_id, "hardware_id": hid, "stage": "margin",
                                "reason": _reason("margin", hid, err)})
                continue
            row.insert(2, "curve_kind", curve.kind)
            row["interactivity_tok_per_s_per_user"] = x_ref
            low, high = low_ratio, high_ratio
            # the band columns of a projection are a constant multiple of the central throughput
            row["throughput_low_tok_per_s_per_gpu"] = t_ref * low
            row["throughput_high_tok_per_s_per_gpu"] = t_ref * high
            row["cost_low_usd_per_mtok"] = row["cost_usd_per_mtok"] / high
            row["cost_high_usd_per_mtok"] = row["cost_usd_per_mtok"] / low
            rows_for_model.append(row)
            mu = sweep(scn, utilization_frac=u_grid)
            util_frames.append(mu.assign(model_id=model_id))
        say(f"{model_id}: evaluated on {len(rows_for_model)} of {len(tco_results)} candidate systems"
            + ("; the rest under 'Not evaluated'" if len(rows_for_model) < len(tco_results) else ""))
        if not rows_for_model:
            continue
        table = pd.concat(rows_for_model, ignore_index=True)
        headline.append(table)
        # heat map and sensitivity on the cheapest system with a measured curve, else the cheapest
        measured = table[table["curve_kind"] == "measured"]
        pick = measured if len(measured) else table
        best = pick.loc[pick["cost_usd_per_mtok"].idxmin()]
        focus[model_id] = str(best["hardware_id"])
        say(f"{model_id}: margin grid and sensitivity on {focus[model_id]}")
        scn = _scenario(model_id, focus[model_id], opts, float(best["throughput_tok_per_s_per_gpu"]), fee)
        grid = sweep(scn, utilization_frac=u_grid, license_fee_frac=np.round(np.linspace(0.0, 0.6, 13), 4))
        grid_frames.append(grid.assign(model_id=model_id))
        base = {
            "input_usd_per_mtok": float(best["input_usd_per_mtok"]),
            "output_usd_per_mtok": float(best["output_usd_per_mtok"]),
            "input_share_frac": float(best["input_share_frac"]),
            "cache_hit_frac": float(best["cache_hit_frac"]),
            "throughput_tok_per_s_per_gpu": float(best["throughput_tok_per_s_per_gpu"]),
            "utilization_frac": u,
            "cost_usd_per_gpu_hour": float(best["cost_usd_per_gpu_hour"]),
            "license_fee_frac": fee,
        }
        sens = margin_sensitivity(
            base,
            ranges={"license_fee_frac": (0.0, max(fee, LICENSED_MODEL_FEE_FRAC)),
                    "cache_hit_frac": (0.0, 0.5)},
            cached_input_usd_per_mtok=float(best["cached_input_usd_per_mtok"]),
        )
        sens.insert(0, "model_id", model_id)
        sens.insert(1, "hardware_id", focus[model_id])
        sens_frames.append(sens)
    if not headline:
        raise ValueError(
            "no model could be evaluated on any hardware; skipped: "
            + "; ".join(f"{s['model_id']} on {s['hardware_id']} ({s['stage']}): {s['reason']}" for s in skipped[:5])
        )

    say("sources and assumptions")
    head = _headline_sorted(pd.concat(headline, ignore_index=True))
    used_hw = sorted(set(head["hardware_id"]))
    tco_long = []
    for hid in used_hw:
        f = tco_results[hid].to_frame().reset_index()
        f.insert(0, "hardware_id", hid)
        tco_long.append(f)
    tables = {
        "headline": head,
        "curve_points": pd.concat(point_frames, ignore_index=True),
        "cost_curves": pd.concat(cost_frames, ignore_index=True),
        "standard_points": pd.concat(std_frames, ignore_index=True),
        "tco_rates": pd.DataFrame(
            [{"hardware_id": hid, "tco_label": label, "usd_per_gpu_hour": rate}
             for hid in used_hw for label, rate in rates[hid].items()],
            columns=["hardware_id", "tco_label", "usd_per_gpu_hour"]),
        "margin_vs_utilization": pd.concat(util_frames, ignore_index=True),
        "margin_grid": pd.concat(grid_frames, ignore_index=True),
        "sensitivity": pd.concat(sens_frames, ignore_index=True),
        "tco": pd.concat(tco_long, ignore_index=True),
        "skipped": pd.DataFrame(skipped, columns=["model_id", "hardware_id", "stage", "reason"]),
    }
    tables["assumptions"] = _assumptions(opts, head)
    tables["sources"] = _sources(opts, head, tables["curve_points"], tco_results, catalog)
    return Report(options=opts, tables=tables, focus=focus)


def _tco_rates(hardware_id: str, opts: ReportOptions, chosen: Any) -> dict[str, float]:
    """TCO [USD/GPU-hour] of one system on the report's basis (first) and every other catalog basis."""
    from tokenomics import catalog
    from tokenomics.cost.tco import tco

    out = {opts.tco_label(): float(chosen.usd_per_gpu_hour)}
    for profile in catalog.tco_profile_table().index:
        label = f"itemised, {profile} profile"
        if label not in out:
            with _suppress():
                out[label] = float(tco(hardware_id, str(profile)).usd_per_gpu_hour)
    table = catalog.published_tco_table()
    for tier in table.loc[table["vintage"] == opts.tco_vintage, "tier"].drop_duplicates():
        label = f"published {opts.tco_vintage}, {tier} tier"
        if label not in out:
            with _suppress():
                out[label] = float(tco(hardware_id, basis="published", vintage=opts.tco_vintage,
                                       tier=str(tier)).usd_per_gpu_hour)
    return out


def _suppress() -> Any:
    import contextlib

    return contextlib.suppress(KeyError, ValueError)


def _standard_points(model_id: str, hardware_id: str, workload: str, curve: Any, band: tuple[float, float],
                     rates: dict[str, float], utilization_frac: float) -> pd.DataFrame:
    """Throughput and cost at :data:`STANDARD_INTERACTIVITY_TOK_PER_S_PER_USER`, per TCO basis.

    Outside the curve's interactivity range the throughput is NaN (never extrapolated).
    """
    from tokenomics.economics import cost_per_mtok

    x = np.asarray(STANDARD_INTERACTIVITY_TOK_PER_S_PER_USER, dtype=float)
    lo, hi = curve.interactivity_range
    inside = (x >= lo) & (x <= hi)
    tput = np.where(inside, np.asarray(curve.throughput_at(np.where(inside, x, lo)), dtype=float), np.nan)
    ok = np.isfinite(tput) & (tput > 0)
    has_band = all(math.isfinite(b) and b > 0 for b in band)

    def cost(rate: float, factor: float) -> np.ndarray:
        if not math.isfinite(factor):
            return np.full(x.shape, np.nan)
        t = np.where(ok, tput, 1.0) * factor
        return np.where(ok, np.asarray(cost_per_mtok(rate, t, utilization_frac), dtype=float), np.nan)

    frames = []
    for label, rate in rates.items():
        frames.append(pd.DataFrame({
            "model_id": model_id, "workload": workload, "hardware_id": hardware_id, "curve_kind": curve.kind,
            "tco_label": label, "interactivity_tok_per_s_per_user": x,
            "throughput_tok_per_s_per_gpu": tput,
            "throughput_low_tok_per_s_per_gpu": tput * band[0],
            "throughput_high_tok_per_s_per_gpu": tput * band[1],
            "cost_usd_per_gpu_hour": rate, "utilization_frac": utilization_frac,
            "cost_usd_per_mtok": cost(rate, 1.0),
            "cost_low_usd_per_mtok": cost(rate, band[1] if has_band else math.nan),
            "cost_high_usd_per_mtok": cost(rate, band[0] if has_band else math.nan),
        }))
    return pd.concat(frames, ignore_index=True)


def _msg(err: BaseException) -> str:
    text = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
    return " ".join(str(text).split())


_TCO_ROW_MISSING = re.compile(r"^unknown hardware with TCO inputs '([^']+)'.*$")
_PYTHON_HINT = re.compile(r";?\s*pass \w+=.*$")


def _reason(stage: str, hardware_id: str, err: BaseException) -> str:
    """Return a skip reason in the words of catalog rows and CLI options (no Python arguments)."""
    text = _msg(err)
    if _TCO_ROW_MISSING.match(text):
        return (f"{hardware_id} is in the hardware catalog but has no TCO inputs row (data/tco/systems.csv): "
                "add the row, or choose a published TCO with --tco-vintage/--tco-tier")
    if _PYTHON_HINT.search(text):
        fix = ("add the missing value to its TCO inputs row (data/tco/systems.csv)" if stage == "TCO" else
               "add measured points for it with tokenomics ingest, or leave it out with --hardware")
        return _PYTHON_HINT.sub("", text).rstrip(" ;,") + f": {fix}"
    return text


def _assumptions(opts: ReportOptions, head: pd.DataFrame) -> pd.DataFrame:
    from tokenomics.economics import DEFAULT_CACHED_COST_RATIO

    fee_rule = (
        f"{opts.license_fee_frac:g} of revenue for every model (given)"
        if opts.license_fee_frac is not None
        else f"{LICENSED_MODEL_FEE_FRAC:.2f} of revenue for a licensed model, 0 for open weights "
        "(catalog field open_weights)"
    )
    rows = [
        ("models", ", ".join(opts.models), "", "selected models"),
        ("hardware", ", ".join(sorted(set(head["hardware_id"]))), "",
         "every selected system with a curve and a TCO" if opts.hardware else
         "every catalog system with a measured or projected curve and a TCO on the basis"),
        ("workload ISL/OSL", f"{opts.isl_tokens:g}/{opts.osl_tokens:g}", "tokens",
         "input and output sequence length; input share = ISL / (ISL + OSL), no prefix-cache hits"),
        ("curves", "measured where >= 2 bundled points exist at this ISL/OSL, else roofline projection",
         "", "measured: Pareto envelope over serving configurations; projected: calibrated roofline, "
         "Pareto envelope over TP/EP (up to the scale-up domain, 64) at best-practice precisions, "
         "with its throughput band"),
        ("TCO basis", opts.tco_label(), "USD/GPU-hour",
         "per allocated accelerator-hour; idle hours are paid too"),
        ("utilization", f"{opts.utilization_frac:g}", "fraction", "busy share of paid hours (--utilization)"),
        ("reference interactivity", f"{opts.reference_interactivity_tok_per_s_per_user:g}", "tok/s/user",
         "throughput read off the curve here (interpolated, never extrapolated)"),
        ("license fee", fee_rule, "fraction of revenue", "rule; the fee applied to each model follows"),
        *(_fee_applied(mid, opts) for mid in opts.models),
        ("prices", f"catalog list prices, provider {opts.price_provider or 'first-party or latest'}",
         "USD/Mtok", "blended over input and output by the token mix"),
        ("cached input price", f"{DEFAULT_CACHED_COST_RATIO:g} x input price where none is published",
         "USD/Mtok", "no cache hits in the default workload"),
        ("sensitivity", "each input +-25 % (fractions clipped to their range); license fee 0-0.30; "
         "cache hit 0-0.5", "", "one at a time, others at base"),
    ]
    return pd.DataFrame(rows, columns=["assumption", "value", "unit", "note"])


def _fee_applied(model_id: str, opts: ReportOptions) -> tuple[str, str, str, str]:
    """Assumption row: the license fee actually applied to one model, and why."""
    from tokenomics import catalog

    rule = (f"rule: {LICENSED_MODEL_FEE_FRAC:.2f} for licensed models, 0 for open weights; "
            "override with --license-fee")
    if opts.license_fee_frac is not None:
        value, why = f"{opts.license_fee_frac:g}", "given with --license-fee (license_fee_frac)"
    else:
        open_weights = catalog.model(model_id).open_weights
        value = f"{default_license_fee_frac(model_id):g}"
        why = f"{'open weights' if open_weights else 'licensed weights'}; {rule}"
    return (f"license fee applied to {model_id}", value, "fraction of revenue", why)


def _sources(opts: ReportOptions, head: pd.DataFrame, points: pd.DataFrame, tco_results: dict[str, Any],
             catalog: Any) -> pd.DataFrame:
    rows: list[dict[str, str]] = []

    def add_prov(category: str, item: str, prov: dict[str, Any]) -> None:
        groups: dict[tuple[str, str], list[str]] = {}
        for param, p in prov.items():
            groups.setdefault((str(p.source), str(p.as_of)), []).append(param)
        for (src, as_of), params in groups.items():
            rows.append({"category": category, "item": item, "parameters": ", ".join(sorted(params)),
                         "source": src, "as_of": as_of})

    for hid in sorted(set(head["hardware_id"])):
        add_prov("hardware spec", hid, catalog.hardware(hid).provenance)
        res = tco_results[hid]
        if res.basis == "itemised":
            add_prov("TCO inputs", hid, catalog.tco_inputs(hid).provenance)
        else:
            add_prov("published TCO", hid, catalog.published_tco(hid, vintage=opts.tco_vintage,
                                                                 tier=opts.tco_tier).provenance)
    if opts.tco_basis == "itemised":
        add_prov("TCO profile", opts.tco_profile, catalog.tco_profile(opts.tco_profile).provenance)
    for mid in opts.models:
        add_prov("model architecture", mid, catalog.model(mid).provenance)
        try:
            p = catalog.price(mid, opts.price_provider)
        except (KeyError, ValueError):
            continue
        add_prov(f"API price ({p.provider})", mid, p.provenance)
    cols = ["model_id", "hardware_id", "kind", "source", "as_of"]
    pts = points[[c for c in cols if c in points.columns]].astype("string").fillna("")
    for (mid, hid, kind, src, as_of), n in pts.groupby(cols, sort=True).size().items():
        rows.append({"category": f"curve points ({kind})", "item": f"{mid} on {hid}",
                     "parameters": f"{n} point(s)", "source": str(src), "as_of": str(as_of)})
    return pd.DataFrame(rows, columns=["category", "item", "parameters", "source", "as_of"])


def _headline_sorted(head: pd.DataFrame) -> pd.DataFrame:
    """Headline rows by model, then cheapest first (as the terminal summary of ``tokenomics report``)."""
    if not {"model_id", "cost_usd_per_mtok"} <= set(head.columns):
        return head
    return head.sort_values(["model_id", "cost_usd_per_mtok"], kind="stable", ignore_index=True)
