"""The computation of ``tokenomics report``: every number of the report as a tidy table.

The chain, per model and hardware:

1. a throughput-vs-interactivity curve at the report's workload
   (:func:`tokenomics.curves.reference.reference_curve`: the measured envelope where bundled, the
   calibrated roofline projection anchored to it outside its range, else the projection; the
   projection's uncertainty band on anchored and projected rows);
2. TCO per accelerator-hour on the report's :class:`~tokenomics.cost.tco.TcoBasis` and on every
   other basis the catalog holds for the system (the report's TCO selector);
3. cost per million tokens along the curve (:func:`tokenomics.economics.cost_per_mtok`), and
   throughput and cost at the standard interactivity points
   (:data:`STANDARD_INTERACTIVITY_TOK_PER_S_PER_USER`);
4. at a reference interactivity: the headline rows of :func:`tokenomics.chain.evaluate` (revenue
   at catalog list prices, license fee, gross margin, break-evens, band), margin vs utilization and
   utilization x license-fee grids (:func:`tokenomics.analysis.scenario.sweep`) and the one-at-a-time
   sensitivity of margin (:func:`tokenomics.analysis.sensitivity.margin_sensitivity`);
5. per model, a Monte Carlo over the headline rows (:func:`uncertainty_table`,
   :func:`tokenomics.analysis.montecarlo.monte_carlo`).

Nothing here draws or writes: see :mod:`tokenomics.outputs.report.sections` and
:mod:`tokenomics.outputs.report.write`.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from scipy import stats

from tokenomics import catalog
from tokenomics._validate import check_fraction, check_positive, error_text, normalize_name, unknown_name_error
from tokenomics.analysis.montecarlo import monte_carlo
from tokenomics.analysis.scenario import Scenario, sweep
from tokenomics.analysis.sensitivity import margin_sensitivity
from tokenomics.chain import (
    DEFAULT_INTERACTIVITY_TOK_PER_S_PER_USER,
    DEFAULT_UTILIZATION_FRAC,
    band_ratios,
    evaluate,
    resolve_tco,
)
from tokenomics.cost.tco import DEFAULT_TCO_BASIS, DEFAULT_TCO_VINTAGE, TcoBasis, TcoResult
from tokenomics.curves.frontier import pareto_frontier
from tokenomics.curves.reference import curve_kind_at, reference_curve
from tokenomics.economics import DEFAULT_CACHED_COST_RATIO, cost_per_mtok
from tokenomics.economics.policy import LICENSED_MODEL_FEE_FRAC, default_license_fee_frac
from tokenomics.outputs.report.agentic import agentic_table
from tokenomics.outputs.report.html import _headline_sorted
from tokenomics.outputs.report.memory import memory_tables
from tokenomics.perf.calibrate import bundled_calibration
from tokenomics.perf.hierarchy import check_kv_offload
from tokenomics.workload import DEFAULT_WORKLOAD, Workload, workload

__all__ = [
    "DEFAULT_MODELS",
    "STANDARD_INTERACTIVITY_TOK_PER_S_PER_USER",
    "Report",
    "ReportOptions",
    "build_report",
]

DEFAULT_MODELS: tuple[str, ...] = ("deepseek-r1", "gpt-oss-120b")
"""Models of a default report."""

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
    workload : Workload or str, default :data:`tokenomics.workload.DEFAULT_WORKLOAD`
        The traffic (``"8k/1k"`` is the fixed-sequence workload InferenceX benchmarks today).
    utilization_frac : float, default 0.6
        Busy fraction of paid accelerator-hours, in (0, 1].
    license_fee_frac : float, optional
        License fee as a share of revenue, in [0, 1); default
        :func:`tokenomics.economics.policy.default_license_fee_frac` per model (0.30 for a
        licensed model, 0 for open weights).
    tco : TcoBasis, default itemised with the hyperscaler profile
        TCO basis; the keywords ``tco_basis``, ``tco_profile``, ``tco_vintage``, ``tco_tier``
        and ``cost_usd_per_gpu_hour`` are accepted instead (:func:`tokenomics.cost.tco.tco_basis`).
    reference_interactivity_tok_per_s_per_user : float, default 50
        Interactivity at which throughput, cost and margin are compared [tok/s/user].
    price_provider : str, optional
        API price provider (default the catalog's first-party or latest price).
    extra_workloads : tuple of Workload or str, optional
        Further workloads whose curves, cost curves and standard-interactivity tables are added
        (the report's workload selector); headline and margin stay at ``workload``.
    kv_offload : {"none", "dram", "ssd"}, default "none"
        Tiers below HBM that keep evicted session prefixes: applied to the session workloads
        (the main one or extra ones; at least one must be session traffic).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    models: tuple[str, ...] = DEFAULT_MODELS
    hardware: tuple[str, ...] | None = None
    workload: Workload = workload(DEFAULT_WORKLOAD)
    utilization_frac: float = DEFAULT_UTILIZATION_FRAC
    license_fee_frac: float | None = None
    tco: TcoBasis = DEFAULT_TCO_BASIS
    reference_interactivity_tok_per_s_per_user: float = DEFAULT_INTERACTIVITY_TOK_PER_S_PER_USER
    price_provider: str | None = None
    extra_workloads: tuple[Workload, ...] = ()
    kv_offload: str = "none"

    @model_validator(mode="before")
    @classmethod
    def _names(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if "isl_tokens" in data or "osl_tokens" in data:
            raise ValueError("give workload= (a preset name or tk.Workload(isl_tokens=..., osl_tokens=...)) "
                             "instead of isl_tokens/osl_tokens")
        keywords = {k: data.pop(k) for k in ("tco_basis", "tco_profile", "tco_vintage", "tco_tier",
                                             "cost_usd_per_gpu_hour") if k in data}
        if keywords or not isinstance(data.get("tco", DEFAULT_TCO_BASIS), TcoBasis):
            data["tco"] = resolve_tco(data.pop("tco", None), **keywords)
        if "workload" in data:
            data["workload"] = workload(data["workload"])
        if "extra_workloads" in data:
            main = workload(data.get("workload", DEFAULT_WORKLOAD)).name
            given = data["extra_workloads"]
            given = (given,) if isinstance(given, str | Workload) else given or ()
            extra = (workload(w) for w in given)
            data["extra_workloads"] = tuple({w.name: w for w in extra if w.name != main}.values())
        return data

    @field_validator("kv_offload")
    @classmethod
    def _kv_offload(cls, value: str) -> str:
        return check_kv_offload(value)

    @field_validator("price_provider")
    @classmethod
    def _provider(cls, value: str | None) -> str | None:
        if value is None:
            return None
        table = catalog.price_table()
        known = sorted(set(table["provider"].astype(str)))
        if normalize_name(value) not in {normalize_name(k) for k in known}:
            raise unknown_name_error("price provider", value, known)
        return value

    @model_validator(mode="after")
    def _offload_needs_sessions(self) -> ReportOptions:
        # the offload applies to the session workloads, the main one or the extra ones
        if self.kv_offload != "none" and not self._offloaded():
            check_kv_offload(self.kv_offload, self.workload)
        return self

    def _offloaded(self) -> list[str]:
        """Names of the session workloads the KV offload applies to (none without offload)."""
        if self.kv_offload == "none":
            return []
        return [w.name for w in (self.workload, *self.extra_workloads) if not w.is_fixed]

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

    @field_validator("reference_interactivity_tok_per_s_per_user")
    @classmethod
    def _positive(cls, value: float, info: Any) -> float:
        check_positive(info.field_name, value)
        return value

    @field_validator("models", "hardware", mode="before")
    @classmethod
    def _one_name(cls, value: Any) -> Any:
        # one name is a list of one, as compare() reads it ("deepseek-r1", not its characters)
        return (value,) if isinstance(value, str) else value

    @field_validator("models")
    @classmethod
    def _models(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("models: give at least one model")
        return tuple(dict.fromkeys(catalog.resolve_model_id(m) for m in value))

    @field_validator("hardware")
    @classmethod
    def _hardware(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value is None:
            return None
        if not value:
            raise ValueError("hardware: give at least one system, or none for all")
        return tuple(dict.fromkeys(catalog.resolve_hardware_id(h) for h in value))

    @property
    def isl_tokens(self) -> float:
        """Input tokens per request of the workload [tokens]."""
        return self.workload.isl_tokens

    @property
    def osl_tokens(self) -> float:
        """Output tokens per request of the workload [tokens]."""
        return self.workload.osl_tokens

    def tco_label(self) -> str:
        """Describe the TCO basis in words, e.g. ``"itemised, hyperscaler profile"``.

        Returns
        -------
        str
            The description.
        """
        return self.tco.label

    def workload_label(self) -> str:
        """Name the workload, e.g. ``"8k/1k"`` (the ``workload`` column of the report's tables).

        Returns
        -------
        str
            The workload's name.
        """
        return self.workload.name

    def offload_label(self) -> str:
        """Describe the KV offload mode, e.g. ``"KV offload to host DRAM"`` (empty without offload).

        Where the main workload is a fixed-sequence one, the session workloads it applies to are
        named: ``"KV offload to host DRAM (agentic-coding)"``.

        Returns
        -------
        str
            The description.
        """
        text = {"none": "", "dram": "KV offload to host DRAM",
                "ssd": "KV offload to host DRAM and NVMe SSD"}[self.kv_offload]
        if text and self.workload.is_fixed:
            text += f" ({', '.join(self._offloaded())})"
        return text

    def conditions_label(self) -> str:
        """Describe the headline's operating point in words.

        E.g. ``"50 tok/s/user, 60% utilization, agentic-coding, KV offload to host DRAM, TCO
        itemised, hyperscaler profile"``; the KV offload part only when one is set, and the
        license fee (``"30% license fee"``) only when one is given for every model (otherwise
        each model's default fee, listed in the report's assumptions).

        Returns
        -------
        str
            The description.
        """
        parts = [f"{self.reference_interactivity_tok_per_s_per_user:g} tok/s/user",
                 f"{self.utilization_frac:.0%} utilization",
                 "" if self.license_fee_frac is None else f"{self.license_fee_frac:.0%} license fee",
                 self.workload_label(), "" if self.workload.is_fixed else self.offload_label(),
                 f"TCO {self.tco_label()}"]
        return ", ".join(p for p in parts if p)


# --- chain pieces --------------------------------------------------------------------------------


def _scenario(model_id: str, hardware_id: str, opts: ReportOptions, curve: Any, fee: float) -> Scenario:
    """Build the scenario of one model on one system at the report's assumptions and curve."""
    return Scenario(
        hardware=hardware_id,
        model=model_id,
        workload=opts.workload,
        tco=opts.tco,
        price_provider=opts.price_provider,
        utilization_frac=opts.utilization_frac,
        throughput_curve=curve,
        interactivity_tok_per_s_per_user=opts.reference_interactivity_tok_per_s_per_user,
        license_fee_frac=fee,
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
        ``uncertainty`` (:func:`uncertainty_table`),
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
    if opts.hardware is not None:
        return list(opts.hardware)
    # prefill-only parts (Rubin CPX) serve only inside disaggregated plans, not as a system
    table = catalog.hardware_table()
    return [str(h) for h in table.index[table["serving_role"] != "prefill"]]


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
        Invalid options; a reference interactivity beyond every system's curve (the message gives
        the range the curves reach); or no hardware could be evaluated for any model.
    """
    opts = options or ReportOptions()
    say = step or (lambda _: None)
    u = opts.utilization_frac
    x_ref = opts.reference_interactivity_tok_per_s_per_user
    skipped: list[dict[str, str]] = []

    say("TCO per accelerator-hour")
    tco_results: dict[str, TcoResult] = {}
    for hid in _candidate_hardware(opts):
        try:
            tco_results[hid] = opts.tco.tco(hid)
        except (KeyError, ValueError) as err:
            skipped.append({"model_id": "*", "hardware_id": hid, "stage": "TCO", "reason": _reason("TCO", hid, err)})
    if not tco_results:
        raise ValueError(f"no hardware has a TCO on the basis {opts.tco_label()}: "
                         + "; ".join(f"{s['hardware_id']}: {s['reason']}" for s in skipped[:5]))
    rates = {hid: _tco_rates(hid, opts, res) for hid, res in tco_results.items()}
    wl = opts.workload_label()
    std_frames: list[pd.DataFrame] = []

    point_frames, cost_frames, headline, util_frames, grid_frames, sens_frames = [], [], [], [], [], []
    focus: dict[str, str] = {}
    curves_used: dict[tuple[str, str], Any] = {}
    u_grid = np.round(np.linspace(0.05, 1.0, 20), 4)
    all_workloads = (opts.workload, *opts.extra_workloads)
    say(f"curves: {len(opts.models)} model(s) x {len(tco_results)} system(s) x {len(all_workloads)} workload(s)")
    fetched = _prefetch_curves(opts.models, list(tco_results), all_workloads, x_ref, opts.kv_offload)
    _check_reachable(fetched, opts)
    for model_id in opts.models:
        model = catalog.model(model_id)
        fee = opts.license_fee_frac if opts.license_fee_frac is not None else default_license_fee_frac(model)
        say(f"{model_id}: curves, cost and margin on {len(tco_results)} candidate systems")
        rows_for_model = []
        for hid, tco_res in tco_results.items():
            hw = catalog.hardware(hid)
            try:
                curve, points = _fetched(fetched, model_id, hid, opts.workload)
            except (KeyError, ValueError) as err:
                skipped.append({"model_id": model_id, "hardware_id": hid, "stage": "curve",
                                "reason": _reason("curve", hid, err)})
                continue
            points = points.assign(curve_kind=_kind_label(curve), workload=wl)
            point_frames.append(points)
            front = pareto_frontier(points, by=None)
            low_ratio, high_ratio = band_ratios(curve)
            cost_frames.extend(_cost_frames(front, curve, rates[hid], wl, u))
            std_frames.append(_standard_points(model_id, hid, wl, curve, (low_ratio, high_ratio), rates[hid], u))
            try:
                row = evaluate(model, hw, workload=opts.workload, tco=opts.tco, tco_result=tco_res,
                               throughput_curve=curve, interactivity_tok_per_s_per_user=x_ref, utilization_frac=u,
                               license_fee_frac=fee, price_provider=opts.price_provider)
            except (KeyError, ValueError) as err:
                skipped.append({"model_id": model_id, "hardware_id": hid, "stage": "margin",
                                "reason": _reason("margin", hid, err)})
                continue
            curves_used[(model_id, hid)] = curve
            rows_for_model.append(row)
            util_frames.append(sweep(_scenario(model_id, hid, opts, curve, fee), utilization_frac=u_grid))
        for extra in opts.extra_workloads:
            for hid in tco_results:
                try:
                    curve, points = _fetched(fetched, model_id, hid, extra)
                except (KeyError, ValueError) as err:
                    skipped.append({"model_id": model_id, "hardware_id": hid, "stage": f"curve ({extra.name})",
                                    "reason": _reason("curve", hid, err)})
                    continue
                point_frames.append(points.assign(curve_kind=_kind_label(curve), workload=extra.name))
                front = pareto_frontier(points, by=None)
                cost_frames.extend(_cost_frames(front, curve, rates[hid], extra.name, u))
                std_frames.append(_standard_points(model_id, hid, extra.name, curve, band_ratios(curve),
                                                   rates[hid], u))
        fastest = _fastest(fetched, opts.workload.name, model_id)
        if not rows_for_model and fastest is not None and x_ref > fastest[0]:
            say(f"{model_id}: left out, no system reaches {x_ref:g} tok/s/user (fastest: {fastest[1]}, "
                f"{_floor(fastest[0]):g} tok/s/user)")
        else:
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
        scn = _scenario(model_id, focus[model_id], opts, curves_used[(model_id, focus[model_id])], fee)
        grid = sweep(scn, utilization_frac=u_grid, license_fee_frac=np.round(np.linspace(0.0, 0.6, 13), 4))
        grid_frames.append(grid)
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
        # the cache hit is held: it moves throughput (the curve's prefix cache) as well as the price,
        # and this one-at-a-time model would move the price alone (the margin the wrong way round)
        hit = base["cache_hit_frac"]
        sens = margin_sensitivity(
            base,
            ranges={"license_fee_frac": (0.0, max(fee, LICENSED_MODEL_FEE_FRAC)), "cache_hit_frac": (hit, hit)},
            cached_input_usd_per_mtok=float(best["cached_input_usd_per_mtok"]),
        )
        sens = sens[sens["parameter"] != "cache_hit_frac"].reset_index(drop=True)
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
    # session workloads: realized hits, cost and margin across interactivity
    tables["agentic"] = agentic_table(curves_used, opts, STANDARD_INTERACTIVITY_TOK_PER_S_PER_USER)
    left = [{"model_id": r["model_id"], "hardware_id": r["hardware_id"],
             "stage": f"agentic table at {r['interactivity_tok_per_s_per_user']:g} tok/s/user", "reason": r["reason"]}
            for r in tables["agentic"].attrs.get("skipped", [])]
    if left:
        tables["skipped"] = pd.concat([tables["skipped"], pd.DataFrame(left, columns=tables["skipped"].columns)],
                                      ignore_index=True)
    say("memory hierarchy: KV offload and engram placement")
    tables.update(memory_tables(opts, list(tco_results)))
    say("uncertainty: Monte Carlo over the headline rows")
    tables["uncertainty"] = uncertainty_table(head, opts.models)
    tables["assumptions"] = _assumptions(opts, head)
    tables["sources"] = _sources(opts, head, tables["curve_points"], tco_results)
    return Report(options=opts, tables=tables, focus=focus)


def _fetch_one(task: tuple[str, str, Workload, float, str]) -> Any:
    model_id, hid, wl, _, kv_offload = task
    try:
        # the whole curve (measured envelope and the projection anchored to it): the report draws it
        return reference_curve(model_id, hid, workload=wl, kv_offload=kv_offload if not wl.is_fixed else "none")
    except (KeyError, ValueError) as err:
        return err


def _prefetch_curves(models: Sequence[str], hardware: Sequence[str], workloads: Sequence[Workload],
                     x_ref: float, kv_offload: str = "none") -> dict[tuple[str, str, str], Any]:
    """Return the reference curve (or the error) of every model, system and workload, on several cores.

    ``kv_offload`` applies to the session workloads; fixed-sequence ones are served from HBM only.
    """
    tasks = [(m, h, w, x_ref, kv_offload) for m in models for w in workloads for h in hardware]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    workers = min(cores, 4, len(tasks))
    results: list[Any]
    if workers > 1 and len(tasks) >= 4 and "fork" in multiprocessing.get_all_start_methods():
        # projections are CPU-bound pure functions: one process per core
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            results = list(pool.map(_fetch_one, tasks, chunksize=1))
    else:
        results = [_fetch_one(task) for task in tasks]
    return {(m, h, w.name): r for (m, h, w, _, _), r in zip(tasks, results, strict=True)}


def _fastest(fetched: dict[tuple[str, str, str], Any], workload: str,
             model_id: str | None = None) -> tuple[float, str, str] | None:
    """(fastest interactivity [tok/s/user], system, model) over the curves fetched (of one model, or all)."""
    reach = [(float(got[0].interactivity_range[1]), h, m) for (m, h, w), got in fetched.items()
             if w == workload and (model_id is None or m == model_id) and not isinstance(got, BaseException)]
    return max(reach) if reach else None


def _floor(x: float) -> float:
    """``x`` rounded down to 0.1 (a value shown as reachable must be)."""
    return math.floor(x * 10.0) / 10.0


def _check_reachable(fetched: dict[tuple[str, str, str], Any], opts: ReportOptions) -> None:
    """Refuse a reference interactivity beyond every system's curve (curves are never extrapolated)."""
    x_ref = opts.reference_interactivity_tok_per_s_per_user
    fastest = _fastest(fetched, opts.workload.name)
    if fastest is not None and x_ref > fastest[0]:
        reach, hid, model_id = fastest
        raise ValueError(
            f"reference_interactivity_tok_per_s_per_user={x_ref:g} tok/s/user is beyond every system's curve of "
            f"{', '.join(opts.models)} ({opts.workload_label()}): the fastest, {model_id} on {hid}, reaches "
            f"{_floor(reach):g} tok/s/user; choose a value in (0, {_floor(reach):g}] (curves are never "
            "extrapolated)")


def _fetched(fetched: dict[tuple[str, str, str], Any], model_id: str, hid: str, wl: Workload) -> Any:
    got = fetched[(model_id, hid, wl.name)]
    if isinstance(got, BaseException):
        raise got
    return got


def _cost_frames(front: pd.DataFrame, curve: Any, rates: dict[str, float], wl: str, u: float) -> list[pd.DataFrame]:
    """Cost per Mtok along a frontier, one frame per TCO basis."""
    frames = []
    for label, rate in rates.items():
        cost = front[["model_id", "hardware_id", "kind", "interactivity_tok_per_s_per_user",
                      "throughput_tok_per_s_per_gpu"]].copy()
        cost.insert(3, "workload", wl)
        cost.insert(4, "tco_label", label)
        tput = cost["throughput_tok_per_s_per_gpu"].astype(float)
        cost["cost_usd_per_gpu_hour"] = rate
        cost["utilization_frac"] = u
        cost["cost_usd_per_mtok"] = cost_per_mtok(rate, tput, u)
        if "throughput_low_tok_per_s_per_gpu" in front.columns and curve.kind != "measured":
            cost["cost_low_usd_per_mtok"] = _band_cost(rate, front["throughput_high_tok_per_s_per_gpu"], u)
            cost["cost_high_usd_per_mtok"] = _band_cost(rate, front["throughput_low_tok_per_s_per_gpu"], u)
        frames.append(cost)
    return frames


def _tco_rates(hardware_id: str, opts: ReportOptions, chosen: TcoResult) -> dict[str, float]:
    """TCO [USD/GPU-hour] of one system on the report's basis (first) and every other catalog basis."""
    out = {opts.tco_label(): float(chosen.usd_per_gpu_hour)}
    vintage = opts.tco.vintage or DEFAULT_TCO_VINTAGE
    table = catalog.published_tco_table()
    tiers = table.loc[table["vintage"] == vintage, "tier"].drop_duplicates()
    others = [TcoBasis.itemised(str(p)) for p in catalog.tco_profile_table().index]
    others += [TcoBasis.published(vintage, str(t)) for t in tiers]
    for basis in others:
        if basis.label not in out:
            with contextlib.suppress(KeyError, ValueError):
                out[basis.label] = float(basis.tco(hardware_id).usd_per_gpu_hour)
    return out


def _standard_points(model_id: str, hardware_id: str, workload: str, curve: Any, band: tuple[float, float],
                     rates: dict[str, float], utilization_frac: float) -> pd.DataFrame:
    """Throughput and cost at :data:`STANDARD_INTERACTIVITY_TOK_PER_S_PER_USER`, per TCO basis.

    Read as :meth:`~tokenomics.curves.curve.ThroughputCurve.throughput_at` reads it, the rule of
    ``tk.compare`` and ``tk.evaluate``: a target slower than the curve's slowest point is met at
    that point's throughput; one faster than its fastest point is NaN (never extrapolated).
    """
    x = np.asarray(STANDARD_INTERACTIVITY_TOK_PER_S_PER_USER, dtype=float)
    tput = np.asarray(curve.throughput_at(x), dtype=float)
    ok = np.isfinite(tput) & (tput > 0)
    has_band = all(math.isfinite(b) and b > 0 for b in band)
    kinds = curve_kind_at(curve, x)
    # the projection's band applies to anchored and projected rows, never to measured ones
    banded = kinds != "measured"

    def cost(rate: float, factor: float) -> np.ndarray:
        if not math.isfinite(factor):
            return np.full(x.shape, np.nan)
        t = np.where(ok, tput, 1.0) * factor
        return np.where(ok & banded, np.asarray(cost_per_mtok(rate, t, utilization_frac), dtype=float), np.nan)

    def plain(rate: float) -> np.ndarray:
        return np.where(ok, np.asarray(cost_per_mtok(rate, np.where(ok, tput, 1.0), utilization_frac),
                                       dtype=float), np.nan)

    frames = []
    for label, rate in rates.items():
        frames.append(pd.DataFrame({
            "model_id": model_id, "workload": workload, "hardware_id": hardware_id, "curve_kind": kinds,
            "tco_label": label, "interactivity_tok_per_s_per_user": x,
            "throughput_tok_per_s_per_gpu": tput,
            "throughput_low_tok_per_s_per_gpu": np.where(banded, tput * band[0], np.nan),
            "throughput_high_tok_per_s_per_gpu": np.where(banded, tput * band[1], np.nan),
            "cost_usd_per_gpu_hour": rate, "utilization_frac": utilization_frac,
            "cost_usd_per_mtok": plain(rate),
            "cost_low_usd_per_mtok": cost(rate, band[1] if has_band else math.nan),
            "cost_high_usd_per_mtok": cost(rate, band[0] if has_band else math.nan),
        }))
    return pd.concat(frames, ignore_index=True)


def _band_cost(rate: float, throughput: pd.Series, u: float) -> np.ndarray:
    """Cost per Mtok at a band end; NaN on rows without a band (the measured rows of a mixed curve)."""
    t = pd.to_numeric(throughput, errors="coerce").to_numpy(dtype=float)
    ok = np.isfinite(t) & (t > 0)
    return np.where(ok, np.asarray(cost_per_mtok(rate, np.where(ok, t, 1.0), u), dtype=float), np.nan)


def _kind_label(curve: Any) -> str:
    """Return a curve's kind as the report names it: a mixed reference curve is measured with anchored ends."""
    return "measured + anchored" if curve.kind == "mixed" else str(curve.kind)



_TCO_ROW_MISSING = re.compile(r"^unknown hardware with TCO inputs '([^']+)'.*$")
_PYTHON_HINT = re.compile(r";?\s*pass \w+=.*$")


def _reason(stage: str, hardware_id: str, err: BaseException) -> str:
    """Return a skip reason in the words of catalog rows and CLI options (no Python arguments)."""
    text = error_text(err)
    if _TCO_ROW_MISSING.match(text):
        return (f"{hardware_id} is in the hardware catalog but has no TCO inputs row (data/tco/systems.csv): "
                "add the row, or choose a published TCO with --tco-vintage/--tco-tier")
    if _PYTHON_HINT.search(text):
        fix = ("add the missing value to its TCO inputs row (data/tco/systems.csv)" if stage == "TCO" else
               "add measured points for it with tokenomics ingest, or leave it out with --hardware")
        return _PYTHON_HINT.sub("", text).rstrip(" ;,") + f": {fix}"
    return text


def _assumptions(opts: ReportOptions, head: pd.DataFrame) -> pd.DataFrame:
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
        ("workload", opts.workload.name, "", opts.workload.source or "given"),
        ("workload ISL/OSL", f"{opts.isl_tokens:g}/{opts.osl_tokens:g}", "tokens",
         "input and output tokens per request; input share = ISL / (ISL + OSL); cached share of input "
         f"{opts.workload.cached_prefix_frac:g}"),
        ("KV offload", opts.kv_offload, "", "tiers below HBM holding evicted session prefixes (--kv-offload): "
         "none = HBM only, dram = + host DRAM, ssd = + DRAM and NVMe"),
        ("curves", "measured inside the bundled measurements' range, anchored projection beyond it, "
         "projection where nothing is measured (tk.reference_curve)",
         "", "measured: Pareto envelope over serving configurations; anchored: the projection scaled "
         "to the nearest measurement (curve_kind, anchor_ratio); projected: calibrated roofline, "
         "Pareto envelope over aggregated and disaggregated configurations (TP/EP/DP attention, "
         "wide EP across 8-GPU nodes for MoE models, pipeline stages where one replica holds no "
         "sequence, MTP) at best-practice "
         "precisions, with its throughput band; a KV-offload mode is never below the mode one tier down"),
        ("TCO basis", opts.tco_label(), "USD/GPU-hour",
         "per allocated accelerator-hour; idle hours are paid too"),
        ("utilization", f"{opts.utilization_frac:g}", "fraction", "busy share of paid hours (--utilization)"),
        ("reference interactivity", f"{opts.reference_interactivity_tok_per_s_per_user:g}", "tok/s/user",
         "throughput read off the curve here (never beyond its fastest point)"),
        ("license fee", fee_rule, "fraction of revenue", "rule; the fee applied to each model follows"),
        *(_fee_applied(mid, opts) for mid in opts.models),
        ("prices", f"catalog list prices, provider {opts.price_provider or 'first-party or latest'}",
         "USD/Mtok", "blended over input and output by the token mix"),
        ("cached input price", f"{DEFAULT_CACHED_COST_RATIO:g} x input price where none is published",
         "USD/Mtok", "no cache hits in this fixed-sequence workload"
         if opts.workload.is_fixed and not opts.workload.cached_prefix_frac else
         f"priced at each row's realized prefix-cache hit rate (theoretical {opts.workload.cached_prefix_frac:.3f})"),
        ("sensitivity", "each input +-25 % (fractions clipped to their range); license fee 0-0.30; "
         "the prefix-cache hit rate is not varied", "",
         "one at a time, others at base; a hit rate moves throughput (the curve) as well as the price, which "
         "this model would hold: compare workloads with --also-workload instead"),
    ]
    return pd.DataFrame(rows, columns=["assumption", "value", "unit", "note"])


def _fee_applied(model_id: str, opts: ReportOptions) -> tuple[str, str, str, str]:
    """Assumption row: the license fee actually applied to one model, and why."""
    rule = (f"rule: {LICENSED_MODEL_FEE_FRAC:.2f} for licensed models, 0 for open weights; "
            "override with --license-fee")
    if opts.license_fee_frac is not None:
        value, why = f"{opts.license_fee_frac:g}", "given with --license-fee (license_fee_frac)"
    else:
        model = catalog.model(model_id)
        open_weights = model.open_weights
        value = f"{default_license_fee_frac(model):g}"
        why = f"{'open weights' if open_weights else 'licensed weights'}; {rule}"
    return (f"license fee applied to {model_id}", value, "fraction of revenue", why)


def _sources(opts: ReportOptions, head: pd.DataFrame, points: pd.DataFrame,
             tco_results: dict[str, TcoResult]) -> pd.DataFrame:
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
        elif res.basis == "published":
            add_prov("published TCO", hid, catalog.published_tco(hid, vintage=str(opts.tco.vintage),
                                                                 tier=str(opts.tco.tier)).provenance)
    if opts.tco.kind == "itemised":
        profile = str(opts.tco.profile)
        add_prov("TCO profile", profile, catalog.tco_profile(profile).provenance)
    for mid in opts.models:
        add_prov("model architecture", mid, catalog.model(mid).provenance)
        try:
            p = catalog.price(mid, opts.price_provider)
        except (KeyError, ValueError):
            continue
        add_prov(f"API price ({p.provider})", mid, p.provenance)
    cols = ["model_id", "hardware_id", "kind", "source", "as_of"]
    pts = points[[c for c in cols if c in points.columns]].astype("string").fillna("")
    # a projection is as of the calibration its factors come from
    fitted = re.search(r"produced: (\d{4}-\d{2}-\d{2})", str(bundled_calibration().provenance))
    for (mid, hid, kind, src, as_of), n in pts.groupby(cols, sort=True).size().items():
        if not as_of and kind in ("projected", "anchored") and fitted:
            as_of = f"{fitted.group(1)} (calibration)"
        rows.append({"category": f"curve points ({kind})", "item": f"{mid} on {hid}",
                     "parameters": f"{n} point(s)", "source": str(src), "as_of": str(as_of)})
    return pd.DataFrame(rows, columns=["category", "item", "parameters", "source", "as_of"])


MC_DRAWS: int = 2048
"""Joint draws per model in the report's Monte Carlo (a power of two: scrambled Sobol' points)."""

MC_TARGET_MARGIN_FRAC: float = 0.5
"""Gross-margin target of the report's P(margin > target) column."""

MC_UTILIZATION_HALF_WIDTH: float = 0.2
"""Utilization varies uniformly within +- this of the report's value (clipped to [0.05, 1])."""

UNCERTAINTY_COLUMNS: dict[str, str] = {
    "model_id": "catalog model id",
    "hardware_id": "catalog hardware id",
    "curve_kind": "'measured', 'anchored' (projection scaled to the measured envelope) or 'projected'",
    "cost_p5_usd_per_mtok": "5th percentile of the cost per Mtok across the draws [USD/Mtok]",
    "cost_p25_usd_per_mtok": "25th percentile [USD/Mtok]",
    "cost_p50_usd_per_mtok": "median [USD/Mtok]",
    "cost_p75_usd_per_mtok": "75th percentile [USD/Mtok]",
    "cost_p95_usd_per_mtok": "95th percentile [USD/Mtok]",
    "energy_p50_j_per_token": "median facility energy per token [J/token] (NaN: no power figure)",
    "prob_margin_above_frac": "share of draws with gross margin above MC_TARGET_MARGIN_FRAC",
    "cheapest_frac": "share of draws in which the system is the cheapest of the model's systems",
    "utilization_low_frac": "low end of the utilization range drawn",
    "utilization_high_frac": "high end of the utilization range drawn",
    "n_draws": "joint draws",
}
"""Columns of :func:`uncertainty_table`."""


def uncertainty_table(head: pd.DataFrame, models: Sequence[str]) -> pd.DataFrame:
    """Monte Carlo over the headline rows of each model: cost quantiles, P(margin > target), cheapest share.

    For each model, :func:`tokenomics.monte_carlo` draws the headline rows' uncertain inputs
    jointly (estimate/unverified catalog values by their stated spreads, projected throughput by
    its band, utilization uniform within +-:data:`MC_UTILIZATION_HALF_WIDTH` of the report's
    value) with seed 0, so the table is reproducible.

    Parameters
    ----------
    head : pandas.DataFrame
        The report's headline rows (:data:`tokenomics.chain.CHAIN_COLUMNS`).
    models : sequence of str
        Model ids, in the report's order.

    Returns
    -------
    pandas.DataFrame
        One row per model and system, :data:`UNCERTAINTY_COLUMNS`, sorted by model then median
        cost.
    """
    frames = []
    for mid in models:
        rows = head[head["model_id"] == mid].drop_duplicates("hardware_id").reset_index(drop=True)
        if rows.empty:
            continue
        u = float(rows["utilization_frac"].iloc[0])
        lo, hi = max(u - MC_UTILIZATION_HALF_WIDTH, 0.05), min(u + MC_UTILIZATION_HALF_WIDTH, 1.0)
        result = monte_carlo(rows, n_draws=MC_DRAWS, seed=0, utilization_frac=stats.uniform(lo, hi - lo),
                             target_margin_frac=MC_TARGET_MARGIN_FRAC, keep_draws=False)
        cost = result.fan("cost_usd_per_mtok")
        energy = result.fan("energy_j_per_token")
        frames.append(pd.DataFrame({
            "model_id": mid,
            "hardware_id": cost["hardware_id"].astype(str),
            "curve_kind": rows["curve_kind"].astype(str) if "curve_kind" in rows else "given",
            **{f"cost_{q}_usd_per_mtok": cost[q].to_numpy() for q in ("p5", "p25", "p50", "p75", "p95")},
            "energy_p50_j_per_token": energy["p50"].to_numpy(),
            "prob_margin_above_frac": result.margin_above_frac.to_numpy(),
            "cheapest_frac": result.cheapest_frac.to_numpy(),
            "utilization_low_frac": lo,
            "utilization_high_frac": hi,
            "n_draws": MC_DRAWS,
        }).sort_values("cost_p50_usd_per_mtok"))
    if not frames:
        return pd.DataFrame(columns=list(UNCERTAINTY_COLUMNS))
    return pd.concat(frames, ignore_index=True)[list(UNCERTAINTY_COLUMNS)]


