"""``tokenomics report``: the whole chain on the bundled data, written as HTML, PNGs and CSVs.

The chain, per model and hardware:

1. a throughput-vs-interactivity curve at the report's ISL/OSL: the bundled measured points
   (their Pareto envelope over serving configurations) where at least two exist, else the
   calibrated roofline projection with its uncertainty band;
2. TCO per accelerator-hour (:func:`tokenomics.cost.tco.tco`: itemised from the catalog with an
   operator profile, or a published figure);
3. cost per million tokens along the curve (:func:`tokenomics.economics.cost_per_mtok`);
4. at a reference interactivity: revenue at catalog list prices, license fee, gross margin and
   break-even utilization (:class:`tokenomics.analysis.scenario.Scenario`), margin vs utilization and
   utilization x license-fee grids (:func:`tokenomics.analysis.scenario.sweep`) and the one-at-a-time
   sensitivity of margin (:func:`tokenomics.analysis.sensitivity.margin_sensitivity`);
5. charts (:mod:`tokenomics.outputs.plot`) and a self-contained ``index.html`` listing every assumption
   and every source.

The output directory is written atomically (built beside the target, then renamed) and is never
overwritten unless it is empty, was written by a previous report (marker file
:data:`MARKER`), or ``force=True``.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import html
import io
import math
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tokenomics._validate import check_fraction, check_positive, unknown_name_error
from tokenomics.outputs.compare import _band_ratios, reference_curve

__all__ = [
    "DEFAULT_MODELS",
    "MARKER",
    "ReportOptions",
    "build_report",
    "default_license_fee_frac",
    "validate_tco_names",
    "write_report",
]

DEFAULT_MODELS: tuple[str, ...] = ("deepseek-r1", "gpt-oss-120b")
"""Models of a default report."""

LICENSED_MODEL_FEE_FRAC: float = 0.30
"""Default license fee (share of revenue) of a model whose weights are not open."""

MARKER: str = ".tokenomics-report"
"""File a report writes into its directory; its presence allows the next report to replace it."""

HEADLINE_COLUMNS: dict[str, tuple[str, str]] = {
    "model_id": ("model", "{}"),
    "hardware_id": ("hardware", "{}"),
    "curve_kind": ("curve", "{}"),
    "interactivity_tok_per_s_per_user": ("interactivity [tok/s/user]", "{:.0f}"),
    "throughput_tok_per_s_per_gpu": ("throughput [tok/s/GPU]", "{:,.0f}"),
    "cost_usd_per_gpu_hour": ("TCO [USD/GPU-hour]", "{:.2f}"),
    "cost_usd_per_mtok": ("cost [USD/Mtok]", "{:.3f}"),
    "blended_price_usd_per_mtok": ("price [USD/Mtok]", "{:.3f}"),
    "license_fee_frac": ("license fee [%]", "{:.0%}"),
    "gross_margin_frac": ("gross margin [%]", "{:.1%}"),
    "breakeven_utilization_frac": ("break-even utilization [%]", "{:.1%}"),
}
"""Columns of the headline table: CSV column -> (HTML header, format)."""


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
        ``curve_points``, ``cost_curves``, ``margin_vs_utilization``, ``margin_grid``,
        ``sensitivity``, ``tco``, ``assumptions``, ``sources`` and ``skipped``.
    focus : dict of str to str
        Per model, the hardware of the heat map and tornado chart (lowest cost per Mtok at the
        reference interactivity).
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
            skipped.append({"model_id": "*", "hardware_id": hid, "stage": "TCO", "reason": _msg(err)})
    if not tco_results:
        raise ValueError(f"no hardware has a TCO on the basis {opts.tco_label()}: {skipped}")

    point_frames, cost_frames, headline, util_frames, grid_frames, sens_frames = [], [], [], [], [], []
    focus: dict[str, str] = {}
    u_grid = np.round(np.linspace(0.05, 1.0, 20), 4)
    for model_id in opts.models:
        fee = opts.license_fee_frac if opts.license_fee_frac is not None else default_license_fee_frac(model_id)
        say(f"{model_id}: curves, cost and margin on {len(tco_results)} candidate systems")
        rows_for_model = []
        for hid, tco_res in tco_results.items():
            try:
                curve, points = reference_curve(model_id, hid, isl_tokens=opts.isl_tokens,
                                                osl_tokens=opts.osl_tokens, interactivity_tok_per_s_per_user=x_ref)
            except (KeyError, ValueError) as err:
                skipped.append({"model_id": model_id, "hardware_id": hid, "stage": "curve", "reason": _msg(err)})
                continue
            rate = tco_res.usd_per_gpu_hour
            points = points.assign(curve_kind=curve.kind)
            point_frames.append(points)
            front = pareto_frontier(points, by=None)
            cost = front[["model_id", "hardware_id", "kind", "interactivity_tok_per_s_per_user",
                          "throughput_tok_per_s_per_gpu"]].copy()
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
                skipped.append({"model_id": model_id, "hardware_id": hid, "stage": "margin", "reason": _msg(err)})
                continue
            row.insert(2, "curve_kind", curve.kind)
            row["interactivity_tok_per_s_per_user"] = x_ref
            low, high = _band_ratios(points) if curve.kind == "projected" else (math.nan, math.nan)
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
        best = table.loc[table["cost_usd_per_mtok"].idxmin()]
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
        "margin_vs_utilization": pd.concat(util_frames, ignore_index=True),
        "margin_grid": pd.concat(grid_frames, ignore_index=True),
        "sensitivity": pd.concat(sens_frames, ignore_index=True),
        "tco": pd.concat(tco_long, ignore_index=True),
        "skipped": pd.DataFrame(skipped, columns=["model_id", "hardware_id", "stage", "reason"]),
    }
    tables["assumptions"] = _assumptions(opts, head)
    tables["sources"] = _sources(opts, head, tables["curve_points"], tco_results, catalog)
    return Report(options=opts, tables=tables, focus=focus)


def _msg(err: BaseException) -> str:
    text = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
    return " ".join(str(text).split())


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
        ("utilization_frac", f"{opts.utilization_frac:g}", "fraction", "busy share of paid hours"),
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


# --- charts ----------------------------------------------------------------------------------------


def _charts(rep: Report) -> dict[str, Any]:
    """Return file name -> matplotlib Figure of every chart of the report."""
    import matplotlib.pyplot as plt

    from tokenomics.outputs import plot

    t = rep.tables
    opts = rep.options
    colors = plot.hardware_colors(sorted(set(t["cost_curves"]["hardware_id"])))
    figs: dict[str, Any] = {}
    for mid in opts.models:
        pts = t["curve_points"][t["curve_points"]["model_id"] == mid]
        if pts.empty:
            continue
        wl = f"ISL/OSL {opts.isl_tokens:g}/{opts.osl_tokens:g}"
        ax = plot.pareto(pts, colors=colors, show_points=False, logy=True,
                         title=f"{mid}: throughput vs interactivity ({wl})")
        figs[f"pareto_{mid}.png"] = ax.figure
        cost = t["cost_curves"][t["cost_curves"]["model_id"] == mid]
        ax = plot.cost_vs_interactivity(cost, colors=colors,
                                        title=f"{mid}: cost per Mtok at {opts.utilization_frac:.0%} utilization")
        ax.axvline(opts.reference_interactivity_tok_per_s_per_user, color="0.5", linestyle=":", linewidth=1)
        figs[f"cost_vs_interactivity_{mid}.png"] = ax.figure
        mu = t["margin_vs_utilization"][t["margin_vs_utilization"]["model_id"] == mid]
        if len(mu):
            ax = plot.margin_vs_utilization(
                mu, colors=colors,
                title=f"{mid}: gross margin at {opts.reference_interactivity_tok_per_s_per_user:g} tok/s/user")
            figs[f"margin_vs_utilization_{mid}.png"] = ax.figure
        grid = t["margin_grid"][t["margin_grid"]["model_id"] == mid]
        if len(grid):
            ax = plot.margin_heatmap(grid.drop(columns=["model_id"]).assign(model_id=mid),
                                     title=f"{mid} on {plot.display_name(rep.focus[mid])}: gross margin")
            figs[f"margin_heatmap_{mid}.png"] = ax.figure
        sens = t["sensitivity"][t["sensitivity"]["model_id"] == mid]
        if len(sens):
            ax = plot.tornado(sens, title=f"{mid} on {plot.display_name(rep.focus[mid])}: margin sensitivity")
            figs[f"tornado_{mid}.png"] = ax.figure
    ax = plot.tco_breakdown(t["tco"], title=f"TCO ({opts.tco_label()})")
    figs["tco_breakdown.png"] = ax.figure
    for fig in figs.values():
        fig.set_dpi(100)
    plt.close("all")
    return figs


# --- HTML -------------------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;font-size:.85em;margin:.8em 0}
th,td{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums}th{background:#f4f4f4}
img{max-width:100%;height:auto;display:block;margin:.6em 0 1.4em}
.note{color:#555;font-size:.9em}.grid{display:grid;grid-template-columns:1fr 1fr;gap:1em}
@media (max-width:900px){.grid{grid-template-columns:1fr}}
"""


def _fmt(value: Any, fmt: str) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "not reachable" if "%" in fmt else "-"
    try:
        return fmt.format(value)
    except (ValueError, TypeError):
        return str(value)


def headline_cells(head: pd.DataFrame) -> list[list[str]]:
    """Return the headline table's cell texts, row by row, exactly as the HTML shows them.

    Parameters
    ----------
    head : pandas.DataFrame
        The ``headline`` table (or the ``headline.csv`` read back).

    Returns
    -------
    list of list of str
        One list of formatted cells per row, in :data:`HEADLINE_COLUMNS` order.
    """
    rows = []
    for rec in _headline_sorted(head).to_dict(orient="records"):
        cells = []
        for col, (_, fmt) in HEADLINE_COLUMNS.items():
            text = _fmt(_plain(rec.get(col)), fmt)
            if col == "cost_usd_per_mtok":
                text += _band_text(rec, fmt)
            cells.append(text)
        rows.append(cells)
    return rows


def _headline_sorted(head: pd.DataFrame) -> pd.DataFrame:
    """Headline rows by model, then cheapest first (as the terminal summary of ``tokenomics report``)."""
    if not {"model_id", "cost_usd_per_mtok"} <= set(head.columns):
        return head
    return head.sort_values(["model_id", "cost_usd_per_mtok"], kind="stable", ignore_index=True)


def _band_text(rec: dict[str, Any], fmt: str) -> str:
    """`` (low-high)`` cost range of a projected row; empty for a measured row."""
    low = _plain(rec.get("cost_low_usd_per_mtok"))
    high = _plain(rec.get("cost_high_usd_per_mtok"))
    if not all(isinstance(v, int | float) and math.isfinite(v) for v in (low, high)):
        return ""
    return f" ({fmt.format(low)}-{fmt.format(high)})"


def _plain(value: Any) -> Any:
    if value is None or value is pd.NA:
        return None
    if isinstance(value, np.generic):
        return value.item()
    return value


def _table_html(frame: pd.DataFrame, table_id: str = "") -> str:
    ident = f' id="{table_id}"' if table_id else ""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = []
    for rec in frame.itertuples(index=False):
        cells = []
        for v in rec:
            num = isinstance(v, int | float | np.number) and not isinstance(v, bool)
            text = f"{v:,.4g}" if isinstance(v, float | np.floating) else ("" if v is None else str(v))
            if isinstance(v, float) and not math.isfinite(v):
                text = ""
            cells.append(f'<td{" class=num" if num else ""}>{html.escape(text)}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table{ident}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _headline_html(head: pd.DataFrame) -> str:
    ths = "".join(f"<th>{html.escape(h)}</th>" for h, _ in HEADLINE_COLUMNS.values())
    rows = []
    for cells in headline_cells(head):
        tds = "".join(
            f'<td{" class=num" if i >= 3 else ""}>{html.escape(c)}</td>' for i, c in enumerate(cells)
        )
        rows.append(f"<tr>{tds}</tr>")
    return f'<table id="headline"><thead><tr>{ths}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _png_bytes(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return buf.getvalue()


def _html(rep: Report, pngs: dict[str, bytes], elapsed_s: float) -> str:
    from tokenomics import __version__

    opts = rep.options
    t = rep.tables
    head = t["headline"]

    def img(name: str, alt: str) -> str:
        if name not in pngs:
            return ""
        data = base64.b64encode(pngs[name]).decode("ascii")
        return f'<figure><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}"></figure>'

    parts = [
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>",
        "<meta name=viewport content='width=device-width, initial-scale=1'>",
        f"<title>tokenomics report</title><style>{_CSS}</style></head><body>",
        "<h1>LLM inference economics: cost per million tokens and gross margin</h1>",
        f"<p class=note>tokenomics {html.escape(__version__)}, generated "
        f"{dt.datetime.now(dt.UTC).strftime('%Y-%m-%d %H:%M UTC')} in {elapsed_s:.1f} s. "
        f"Models: {html.escape(', '.join(opts.models))}. TCO: {html.escape(opts.tco_label())}. "
        f"Utilization {opts.utilization_frac:.0%}, ISL/OSL {opts.isl_tokens:g}/{opts.osl_tokens:g}. "
        "Every assumption and source is listed at the end.</p>",
        "<h2>Headline</h2>",
        f"<p>At {opts.reference_interactivity_tok_per_s_per_user:g} tok/s/user and "
        f"{opts.utilization_frac:.0%} utilization, at catalog list prices. "
        "Break-even utilization: the utilization at which the gross margin is zero "
        "(<i>not reachable</i>: no utilization up to 100 % breaks even). Rows from a roofline "
        "projection show the cost range of the projection's throughput band in parentheses "
        "(<code>cost_low/high_usd_per_mtok</code>). Rows are sorted by model, cheapest first. "
        "Source table: <code>headline.csv</code>.</p>",
        _headline_html(head),
    ]
    for mid in opts.models:
        if not (head["model_id"] == mid).any():
            continue
        parts.append(f"<h2>{html.escape(mid)}</h2><div class=grid>")
        for stem, alt in (("pareto", "throughput vs interactivity"), ("cost_vs_interactivity", "cost per Mtok"),
                          ("margin_vs_utilization", "margin vs utilization"),
                          ("margin_heatmap", "utilization x license fee margin"),
                          ("tornado", "margin sensitivity")):
            parts.append(img(f"{stem}_{mid}.png", f"{mid}: {alt}"))
        parts.append("</div>")
        if mid in rep.focus:
            parts.append(f"<p class=note>Heat map and sensitivity on {html.escape(rep.focus[mid])}, "
                         "the system with the lowest cost per Mtok at the reference interactivity.</p>")
    parts += [
        "<h2>TCO</h2>",
        img("tco_breakdown.png", "TCO breakdown"),
        _table_html(t["tco"].pivot(index="hardware_id", columns="component", values="usd_per_gpu_hour")
                    .reset_index()),
        "<p class=note>USD per allocated accelerator-hour, by component; full table in <code>tco.csv</code>.</p>",
        "<h2>Assumptions</h2>",
        _table_html(t["assumptions"]),
    ]
    if len(t["skipped"]):
        parts += ["<h2>Not evaluated</h2>",
                  "<p class=note>Combinations left out, and why (also in <code>skipped.csv</code>).</p>",
                  _table_html(t["skipped"])]
    parts += ["<h2>Sources</h2>", _table_html(t["sources"]),
              "<p class=note>Files: " + ", ".join(f"<code>{n}</code>" for n in sorted(_csv_names(rep)))
              + " and the PNG charts.</p>",
              "</body></html>"]
    return "\n".join(p for p in parts if p)


def _csv_names(rep: Report) -> list[str]:
    return [f"{name}.csv" for name in rep.tables]


# --- writing -----------------------------------------------------------------------------------------


def _check_target(out: Path, force: bool) -> None:
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"{out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file() and not force:
        raise FileExistsError(
            f"{out} is not empty and was not written by tokenomics report; choose another "
            "directory with -o, or pass --force to replace it"
        )


@contextlib.contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[str], None]]:
    if not enabled:
        yield lambda _: None
        return
    from rich.console import Console

    console = Console(stderr=True, log_time=False, log_path=False)
    start = time.perf_counter()
    with console.status("tokenomics report") as status:

        def say(text: str) -> None:
            console.log(f"[{time.perf_counter() - start:5.1f} s] {text}", highlight=False)
            status.update(text)

        yield say


def write_report(
    out_dir: str | Path = "tokenomics-report",
    options: ReportOptions | None = None,
    *,
    force: bool = False,
    progress: bool = True,
) -> Path:
    """Run the chain and write ``index.html``, the PNG charts and the CSV tables.

    The directory is built beside ``out_dir`` under a temporary name and renamed into place
    once complete, so a failed run leaves no half-written report.

    Parameters
    ----------
    out_dir : str or pathlib.Path, default "tokenomics-report"
        Output directory.
    options : ReportOptions, optional
        Assumptions (default :class:`ReportOptions()`).
    force : bool, default False
        Replace ``out_dir`` even if it holds files a report did not write.
    progress : bool, default True
        Show progress on stderr.

    Returns
    -------
    pathlib.Path
        ``out_dir/index.html``.

    Raises
    ------
    FileExistsError
        ``out_dir`` is a file, or a non-empty directory without the :data:`MARKER` file and
        ``force`` is False.
    KeyError, ValueError
        Invalid options (see :func:`build_report`).
    """
    out = Path(out_dir)
    _check_target(out, force)
    out.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with _progress(progress) as say:
        rep = build_report(options, step=say)
        say("charts")
        figs = _charts(rep)
        pngs = {name: _png_bytes(fig) for name, fig in figs.items()}
        say("writing files")
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
        try:
            for name, data in pngs.items():
                (tmp / name).write_bytes(data)
            for name, frame in rep.tables.items():
                frame.to_csv(tmp / f"{name}.csv", index=False)
            (tmp / "index.html").write_text(_html(rep, pngs, time.perf_counter() - start), encoding="utf-8")
            (tmp / MARKER).write_text(
                "written by tokenomics report; a later report may replace this directory\n", encoding="utf-8"
            )
            _check_target(out, force)  # again: something may have appeared meanwhile
            _swap_into_place(tmp, out)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        say(f"done: {out / 'index.html'}")
    return out / "index.html"


def _swap_into_place(tmp: Path, out: Path) -> None:
    """Rename ``tmp`` to ``out``; an existing ``out`` is moved aside first and deleted after."""
    os.chmod(tmp, 0o755)  # mkdtemp creates 0700
    if not out.exists():
        os.replace(tmp, out)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}-old-", dir=out.parent))
    old.rmdir()
    os.replace(out, old)
    try:
        os.replace(tmp, out)
    except BaseException:
        os.replace(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)


def headline_frame(path: str | Path) -> pd.DataFrame:
    """Read a report's ``headline.csv`` back.

    Parameters
    ----------
    path : str or pathlib.Path
        The report directory.

    Returns
    -------
    pandas.DataFrame
        The headline table.
    """
    return pd.read_csv(Path(path) / "headline.csv")
