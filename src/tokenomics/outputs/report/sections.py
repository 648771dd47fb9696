"""Sections of the report page: each a function from a :class:`Report` to a :class:`Section`.

:data:`SECTIONS` lists the builders in page order; a new section (Monte Carlo, agentic traffic,
...) is one more function appended to it. A builder only renders: every number it shows is in one
of the report's tables (:mod:`tokenomics.outputs.report.build`).

Interactive charts are plotly figures. Traces carry ``meta`` tags read by the page's selectors:
``tco`` (TCO basis), ``workload`` and ``role`` (``"configs"``: individual serving configurations,
hidden until asked for). PNG versions of the main charts (:func:`png_charts`) are drawn with
:mod:`tokenomics.outputs.plot` for slides and papers.
"""

from __future__ import annotations

import functools
import html
import io
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from tokenomics.outputs.colors import BAND_ALPHA, MEASURED_DASH, PROJECTED_DASH, rgba, system_style
from tokenomics.outputs.report.agentic import agentic_body
from tokenomics.outputs.report.build import STANDARD_INTERACTIVITY_TOK_PER_S_PER_USER, Report
from tokenomics.outputs.report.html import (
    Column,
    figure_html,
    headline_table_html,
    table_html,
)
from tokenomics.outputs.report.memory import memory_body

__all__ = ["SECTIONS", "Section", "SectionBuilder", "png_charts"]


@dataclass(frozen=True)
class Section:
    """One titled block of the page.

    Attributes
    ----------
    id : str
        HTML id (anchor of the table of contents).
    title : str
        Heading.
    body : list of str
        HTML fragments in order: paragraphs, charts (:func:`figure_html`), tables.
    """

    id: str
    title: str
    body: list[str] = field(default_factory=list)


SectionBuilder = Callable[[Report], "Section | list[Section] | None"]
"""A function turning a report into one section, several, or none (nothing to show)."""


# --- helpers -------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _name(hardware_id: str) -> str:
    from tokenomics.outputs.plot import display_name

    return display_name(hardware_id)


def _short(hardware_id: str) -> str:
    """Short legend name, e.g. "GB200 NVL72" (vendor prefix dropped)."""
    name = _name(hardware_id)
    for prefix in ("NVIDIA ", "AMD Instinct ", "AMD ", "Google ", "AWS "):
        name = name.removeprefix(prefix)
    return name


def _layout(title: str, x_title: str, y_title: str, **extra: Any) -> dict[str, Any]:
    layout: dict[str, Any] = {
        "meta": {"title": title},
        # automargin: tick labels (long system names) and axis titles get the room they need
        "xaxis": {"title": {"text": x_title}, "gridcolor": "#eee", "zeroline": False, "automargin": True},
        "yaxis": {"title": {"text": y_title}, "gridcolor": "#eee", "zeroline": False, "automargin": True},
        "hovermode": "closest",
        # the legend sits at the bottom of the figure and reserves its own height there, below the x axis title
        "legend": {"font": {"size": 12}, "itemclick": "toggle", "itemdoubleclick": "toggleothers",
                   "orientation": "h", "x": 0.0, "xanchor": "left", "yref": "container", "y": 0.0,
                   "yanchor": "bottom", "tracegroupgap": 0},
        "margin": {"l": 70, "r": 20, "t": 30, "b": 10},
        "plot_bgcolor": "white",
        "paper_bgcolor": "white",
        "font": {"family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", "size": 12},
    }
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(layout.get(key), dict):
            layout[key] = {**layout[key], **value}
        else:
            layout[key] = value
    return layout


def _num(series: pd.Series) -> np.ndarray:
    return np.asarray(pd.to_numeric(series, errors="coerce"), dtype=float)


def _list(values: np.ndarray) -> list[float | None]:
    """Plain floats to 5 significant digits (what a chart can show); NaN and inf become gaps."""
    return [float(f"{v:.5g}") if math.isfinite(v) else None for v in np.asarray(values, dtype=float)]


def _band_trace(x: np.ndarray, low: np.ndarray, high: np.ndarray, color: str, group: str,
                meta: dict[str, str]) -> dict[str, Any] | None:
    ok = np.isfinite(x) & np.isfinite(low) & np.isfinite(high)
    if ok.sum() < 2:
        return None
    xs, lo, hi = x[ok], low[ok], high[ok]
    return {
        "type": "scatter", "mode": "lines", "x": _list(np.concatenate([xs, xs[::-1]])),
        "y": _list(np.concatenate([hi, lo[::-1]])), "fill": "toself", "fillcolor": rgba(color, BAND_ALPHA),
        "line": {"width": 0}, "hoverinfo": "skip", "showlegend": False, "legendgroup": group,
        "name": f"{group} band", "meta": {**meta, "role": "band"},
    }


def _text(value: Any) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return str(value)


# --- pareto and cost ----------------------------------------------------------------------------------


def _config_frontiers(points: pd.DataFrame) -> pd.DataFrame:
    """Each serving configuration's own Pareto points (what "individual configurations" shows)."""
    from tokenomics.curves.frontier import pareto_mask

    keys = [c for c in ("config", "parallelism", "precision", "framework", "disaggregated") if c in points]
    if not keys:
        return points
    codes = points[keys].astype("string").fillna("").agg("|".join, axis=1).to_numpy()
    x, y = _num(points["interactivity_tok_per_s_per_user"]), _num(points["throughput_tok_per_s_per_gpu"])
    keep = np.zeros(len(points), dtype=bool)
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.r_[True, codes[order][1:] != codes[order][:-1], True])
    for start, stop in itertools.pairwise(bounds):
        idx = order[start:stop]
        ok = idx[np.isfinite(x[idx]) & np.isfinite(y[idx])]
        if ok.size:
            keep[ok[pareto_mask(x[ok], y[ok])]] = True
    return points[keep]


def _envelope_index(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Positions of the Pareto envelope (maximise both) among the finite positive points, by x ascending."""
    from tokenomics.curves.frontier import pareto_mask

    ok = np.flatnonzero(np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0))
    keep = ok[pareto_mask(x[ok], y[ok])]
    return keep[np.argsort(x[keep], kind="stable")]


def _median_ratio(num: np.ndarray, den: np.ndarray) -> float:
    """Median of ``num / den`` over the points where both are finite (NaN when there are none)."""
    ok = np.isfinite(num) & np.isfinite(den) & (den != 0)
    return float(np.median(num[ok] / den[ok])) if ok.any() else math.nan


def _kinds_label(kinds: np.ndarray) -> str:
    """Kinds of a curve's points in one label, measured first, e.g. "measured + anchored"."""
    present = [str(k) for k in pd.unique(pd.Series(kinds, dtype=object))]
    order = {"measured": 0, "floor": 1, "anchored": 2, "projected": 3}
    return " + ".join(sorted(present, key=lambda k: order.get(k, len(order))))


def _kind_traces(hardware_id: str, x: np.ndarray, y: np.ndarray, kinds: np.ndarray, *,
                 band: tuple[np.ndarray, np.ndarray] | None, band_text: list[str], hover: str,
                 meta: dict[str, str]) -> list[dict[str, Any]]:
    """One system's curve: measured points solid with markers, anchored and projected ones dashed.

    ``x`` ascending; ``kinds`` the curve kind of each point. The dashed part runs on to the
    measured points next to it, so that the curve stays one line; a shaded band (``band``: low
    and high per point) covers every run of non-measured points. One legend entry per system,
    named after the kinds drawn. ``hover`` is the line of the hover text after the system's name
    and the point's kind; ``band_text`` the band line of each point.
    """
    from tokenomics.outputs.plot import MEASURED_KINDS

    style = system_style(hardware_id)
    group = _short(hardware_id)
    measured = np.isin(kinds.astype(str), MEASURED_KINDS)
    bounds = np.flatnonzero(np.r_[True, measured[1:] != measured[:-1], True])
    runs = [(int(a), int(b)) for a, b in itertools.pairwise(bounds)]
    traces: list[dict[str, Any]] = []
    dashed: list[int | None] = []
    solid: list[int | None] = []
    for start, stop in runs:
        if measured[start]:
            solid.extend([*range(start, stop), None])
            continue
        if band is not None:
            shade = _band_trace(x[start:stop], band[0][start:stop], band[1][start:stop], style.color, group, meta)
            if shade:
                traces.append(shade)
        # reach the measured neighbours, so that dashes and solid line meet
        dashed.extend([*range(max(start - 1, 0), min(stop + 1, len(x))), None])
    name = f"{group} ({_kinds_label(kinds)})"
    template = (f"<b>{html.escape(_name(hardware_id))}</b> · %{{customdata[0]}}<br>{hover}<br>%{{customdata[1]}}"
                "<extra></extra>")

    def line(idx: list[int | None], is_measured: bool, legend: bool) -> dict[str, Any]:
        pick = idx[:-1]  # the last None only separates runs
        xs = _list(np.array([x[i] if i is not None else np.nan for i in pick]))
        ys = _list(np.array([y[i] if i is not None else np.nan for i in pick]))
        custom = [[str(kinds[i]), band_text[i]] if i is not None else [None, None] for i in pick]
        return {
            "type": "scatter", "mode": "lines+markers" if is_measured else "lines", "x": xs, "y": ys,
            "name": name, "legendgroup": group, "showlegend": legend,
            "line": {"color": style.color, "width": 2.2, "dash": MEASURED_DASH if is_measured else PROJECTED_DASH},
            "marker": {"symbol": style.symbol, "size": 7, "color": style.color},
            "customdata": custom, "hovertemplate": template, "meta": meta,
        }

    if dashed:
        traces.append(line(dashed, False, not solid))
    if solid:
        traces.append(line(solid, True, True))
    return traces


def _pareto_figure(rep: Report, model_id: str, workload: str) -> dict[str, Any] | None:
    from tokenomics.outputs.plot import MEASURED_KINDS

    pts = rep.tables["curve_points"]
    pts = pts[(pts["model_id"] == model_id) & (pts["workload"] == workload)]
    if pts.empty:
        return None
    traces: list[dict[str, Any]] = []
    meta = {"workload": workload}
    for hid, sub in pts.groupby("hardware_id", sort=True):
        style = system_style(str(hid))
        kind = str(sub["curve_kind"].iloc[0])
        group = _short(str(hid))
        x, y = _num(sub["interactivity_tok_per_s_per_user"]), _num(sub["throughput_tok_per_s_per_gpu"])
        env = _envelope_index(x, y)
        kinds = sub["kind"].astype("string").fillna("measured").to_numpy(dtype=object)[env]
        band, shade = None, "no band"
        if {"throughput_low_tok_per_s_per_gpu", "throughput_high_tok_per_s_per_gpu"} <= set(sub):
            ratio_lo = _median_ratio(_num(sub["throughput_low_tok_per_s_per_gpu"]), y)
            ratio_hi = _median_ratio(_num(sub["throughput_high_tok_per_s_per_gpu"]), y)
            if math.isfinite(ratio_lo) and math.isfinite(ratio_hi):
                band, shade = (y[env] * ratio_lo, y[env] * ratio_hi), f"band {ratio_lo:.2f}x-{ratio_hi:.2f}x"
        band_text = ["no band (measured)" if k in MEASURED_KINDS else shade for k in kinds]
        traces.extend(_kind_traces(str(hid), x[env], y[env], kinds, band=band, band_text=band_text,
                                   hover="envelope: %{x:.1f} tok/s/user, %{y:,.0f} tok/s/GPU",
                                   meta={**meta, "role": "envelope"}))
        sub = _config_frontiers(sub)
        x, y = _num(sub["interactivity_tok_per_s_per_user"]), _num(sub["throughput_tok_per_s_per_gpu"])
        cfg = sub.get("config", pd.Series(index=sub.index, dtype=object))
        par = sub.get("parallelism", pd.Series(index=sub.index, dtype=object))
        label = [
            _text(c) if _text(c) != "-" else " ".join(
                t for t in (_text(p), _text(prec), _text(fw)) if t != "-")
            for c, p, prec, fw in zip(cfg, par, sub.get("precision", cfg), sub.get("framework", cfg), strict=True)
        ]
        src = [_text(s)[:90] for s in sub.get("source", pd.Series("-", index=sub.index))]
        conc = _num(sub["concurrency"]) if "concurrency" in sub else np.full(len(sub), np.nan)
        one_source = len(set(src)) == 1
        # one source for the whole system goes into the template, not into every point
        source_text = html.escape(src[0]) if one_source and src else "%{customdata[2]}"
        custom = [[lab[:70], f"{c:g}" if math.isfinite(c) else "-", *(() if one_source else (s,))]
                  for lab, s, c in zip(label, src, conc, strict=True)]
        traces.append({
            "type": "scattergl" if len(sub) > 300 else "scatter", "mode": "markers",
            "x": _list(x), "y": _list(y), "name": f"{group} configurations", "legendgroup": group,
            "showlegend": False,
            "marker": {"symbol": style.symbol, "size": 5, "color": rgba(style.color, 0.55)},
            "customdata": custom,
            "hovertemplate": (f"<b>{html.escape(_name(str(hid)))}</b> · {kind}<br>"
                              "configuration: %{customdata[0]}<br>concurrency: %{customdata[1]}<br>"
                              "%{x:.1f} tok/s/user · %{y:,.0f} tok/s/GPU<br>source: " + source_text
                              + "<extra></extra>"),
            "meta": {**meta, "role": "configs"},
            "visible": False,
        })
    layout = _layout(f"{model_id}: throughput vs interactivity ({workload})", "interactivity [tok/s/user]",
                     "throughput [tok/s/GPU]", yaxis={"type": "log", "dtick": 1})
    return {"data": traces, "layout": layout}


def _cost_figure(rep: Report, model_id: str, workload: str) -> dict[str, Any] | None:
    cost = rep.tables["cost_curves"]
    cost = cost[(cost["model_id"] == model_id) & (cost["workload"] == workload)]
    if cost.empty:
        return None
    traces: list[dict[str, Any]] = []
    for (label, hid), sub in cost.groupby(["tco_label", "hardware_id"], sort=True):
        sub = sub.sort_values("interactivity_tok_per_s_per_user", kind="stable")
        meta = {"workload": workload, "tco": str(label), "role": "line"}
        x, y = _num(sub["interactivity_tok_per_s_per_user"]), _num(sub["cost_usd_per_mtok"])
        kinds = sub["kind"].astype("string").fillna("measured").to_numpy(dtype=object)
        band = None
        band_text = ["no band (measured)"] * len(sub)
        if {"cost_low_usd_per_mtok", "cost_high_usd_per_mtok"} <= set(sub):
            lo, hi = _num(sub["cost_low_usd_per_mtok"]), _num(sub["cost_high_usd_per_mtok"])
            band = (lo, hi)
            band_text = [f"band {a:.3f}-{b:.3f} USD/Mtok" if math.isfinite(a) and math.isfinite(b)
                         else "no band (measured)" for a, b in zip(lo, hi, strict=True)]
        hover = (f"TCO {html.escape(str(label))}: {float(sub['cost_usd_per_gpu_hour'].iloc[0]):.2f} USD/GPU-hour<br>"
                 "%{x:.1f} tok/s/user<br>%{y:.3f} USD/Mtok")
        traces.extend(_kind_traces(str(hid), x, y, kinds, band=band, band_text=band_text, hover=hover, meta=meta))
    opts = rep.options
    layout = _layout(f"{model_id}: cost per million tokens at {opts.utilization_frac:.0%} utilization ({workload})",
                     "interactivity [tok/s/user]", "cost [USD/Mtok]", yaxis={"type": "log", "dtick": 1},
                     shapes=[{"type": "line", "xref": "x", "yref": "paper", "x0": _ref(rep), "x1": _ref(rep),
                              "y0": 0, "y1": 1, "line": {"color": "#888", "dash": "dot", "width": 1}}])
    return {"data": traces, "layout": layout}


def _ref(rep: Report) -> float:
    return float(rep.options.reference_interactivity_tok_per_s_per_user)


def _workloads(rep: Report, model_id: str) -> list[str]:
    pts = rep.tables["curve_points"]
    return [str(w) for w in pd.unique(pts.loc[pts["model_id"] == model_id, "workload"])]


# --- margin ------------------------------------------------------------------------------------------


def _margin_figure(rep: Report, model_id: str) -> dict[str, Any] | None:
    mu = rep.tables["margin_vs_utilization"]
    mu = mu[mu["model_id"] == model_id]
    if mu.empty:
        return None
    traces = []
    head = rep.tables["headline"]
    kinds = dict(zip(head.loc[head["model_id"] == model_id, "hardware_id"],
                     head.loc[head["model_id"] == model_id, "curve_kind"], strict=True))
    for hid, sub in mu.groupby("hardware_id", sort=True):
        sub = sub.sort_values("utilization_frac")
        style = system_style(str(hid))
        kind = kinds.get(hid, "measured")
        traces.append({
            "type": "scatter", "mode": "lines", "x": _list(_num(sub["utilization_frac"])),
            "y": _list(_num(sub["gross_margin_frac"])), "name": f"{_short(str(hid))} ({kind})",
            "line": {"color": style.color, "width": 2.2,
                     "dash": PROJECTED_DASH if kind == "projected" else MEASURED_DASH},
            "hovertemplate": (f"<b>{html.escape(_name(str(hid)))}</b> · {kind}<br>utilization %{{x:.0%}}<br>"
                              "gross margin %{y:.1%}<extra></extra>"),
        })
    y = _num(mu["gross_margin_frac"])
    low = max(float(np.nanmin(y)), -1.0) if np.isfinite(y).any() else -1.0
    layout = _layout(f"{model_id}: gross margin vs utilization at {_ref(rep):g} tok/s/user "
                     f"(TCO {rep.options.tco_label()})", "utilization [%]", "gross margin [%]",
                     xaxis={"tickformat": ".0%"}, yaxis={"tickformat": ".0%", "range": [low - 0.05, 1.0]},
                     shapes=[{"type": "line", "xref": "paper", "yref": "y", "x0": 0, "x1": 1, "y0": 0, "y1": 0,
                              "line": {"color": "#444", "width": 1}}])
    return {"data": traces, "layout": layout}


def _heatmap_figure(rep: Report, model_id: str) -> dict[str, Any] | None:
    grid = rep.tables["margin_grid"]
    grid = grid[grid["model_id"] == model_id]
    if grid.empty:
        return None
    table = grid.pivot_table(index="license_fee_frac", columns="utilization_frac", values="gross_margin_frac")
    z = table.to_numpy(dtype=float)
    zmax = max(float(np.nanmax(z)), 0.05) if np.isfinite(z).any() else 1.0
    focus = rep.focus.get(model_id, "")
    trace = {
        "type": "heatmap", "x": _list(table.columns.to_numpy(dtype=float)),
        "y": _list(table.index.to_numpy(dtype=float)), "z": [_list(row) for row in z],
        "zmid": 0.0, "zmin": max(float(np.nanmin(z)), -zmax), "zmax": zmax, "colorscale": "RdBu", "reversescale": True,
        "colorbar": {"title": {"text": "gross margin"}, "tickformat": ".0%"},
        "hovertemplate": "utilization %{x:.0%}<br>license fee %{y:.0%}<br>gross margin %{z:.1%}<extra></extra>",
        "name": "gross margin",
    }
    contour = {
        "type": "contour", "x": trace["x"], "y": trace["y"], "z": trace["z"], "showscale": False,
        "contours": {"start": 0, "end": 0, "size": 1, "coloring": "none", "showlabels": True},
        "line": {"color": "black", "width": 2}, "hoverinfo": "skip", "name": "break-even", "showlegend": False,
    }
    layout = _layout(f"{model_id} on {_short(focus)}: gross margin by utilization and license fee",
                     "utilization [%]", "license fee [% of revenue]",
                     xaxis={"tickformat": ".0%"}, yaxis={"tickformat": ".0%"})
    return {"data": [trace, contour], "layout": layout}


def _tornado_figure(rep: Report, model_id: str) -> dict[str, Any] | None:
    from tokenomics.outputs.plot import label_for

    sens = rep.tables["sensitivity"]
    sens = sens[sens["model_id"] == model_id].sort_values("swing_frac")
    if sens.empty:
        return None
    base = float(sens["base_gross_margin_frac"].iloc[0])
    names = [label_for(str(p), percent=True) for p in sens["parameter"]]
    lo = _num(sens["gross_margin_frac_at_low"]) - base
    hi = _num(sens["gross_margin_frac_at_high"]) - base
    custom = [[f"{a:.4g}", f"{b:.4g}"] for a, b in zip(sens["low_value"], sens["high_value"], strict=True)]
    traces = [
        {"type": "bar", "orientation": "h", "y": names, "x": _list(lo), "base": base, "name": "input at low value",
         "marker": {"color": "#D55E00"}, "customdata": custom,
         "hovertemplate": "%{y}<br>at %{customdata[0]}: margin %{x:+.1%} vs base<extra></extra>"},
        {"type": "bar", "orientation": "h", "y": names, "x": _list(hi), "base": base, "name": "input at high value",
         "marker": {"color": "#0072B2"}, "customdata": custom,
         "hovertemplate": "%{y}<br>at %{customdata[1]}: margin %{x:+.1%} vs base<extra></extra>"},
    ]
    focus = rep.focus.get(model_id, "")
    layout = _layout(f"{model_id} on {_short(focus)}: sensitivity of gross margin (base {base:.1%})",
                     "gross margin [%]", "", barmode="overlay", xaxis={"tickformat": ".0%"},
                     yaxis={"automargin": True}, margin={"l": 20})
    return {"data": traces, "layout": layout}


# --- sections ----------------------------------------------------------------------------------------


def headline_section(rep: Report) -> Section:
    """Headline table: one row per model and system at the reference interactivity."""
    opts = rep.options
    body = [
        f"<p>At {html.escape(opts.conditions_label())}, at catalog list prices. "
        "Break-even utilization: the utilization at which the gross margin is zero "
        "(<i>not reachable</i>: no utilization up to 100 % breaks even). Rows from a "
        "roofline projection show the cost range of the projection's throughput band in parentheses. Rows are "
        "sorted by model, cheapest first. Change these with the CLI options <code>--interactivity</code>, "
        "<code>--utilization</code>, <code>--tco-profile</code>/<code>--tco-vintage</code>/<code>--tco-tier</code> "
        "and <code>--license-fee</code>. Table: <code>headline.csv</code>.</p>",
        headline_table_html(rep.tables["headline"]),
    ]
    return Section("headline", "Headline", body)


def model_sections(rep: Report) -> list[Section]:
    """Per model: Pareto frontier, cost per Mtok and the standard-interactivity table."""
    out = []
    for mid in rep.options.models:
        body: list[str] = []
        for wl in _workloads(rep, mid):
            figs = [_pareto_figure(rep, mid, wl), _cost_figure(rep, mid, wl)]
            charts = [figure_html(f, f"{mid}-{name}-{wl}") for f, name in zip(figs, ("pareto", "cost"), strict=True)
                      if f is not None]
            body.append(f'<div class="grid" data-workload="{html.escape(wl)}">{"".join(charts)}</div>')
            body.append(_standard_table(rep, mid, wl))
        if body:
            body.insert(0, "<p class=note>Each system's Pareto envelope over serving configurations: measured "
                           "solid with markers, roofline projections dashed with their uncertainty band shaded. "
                           "Tick <i>show individual configurations</i> above to see every configuration; click a "
                           "legend entry to hide a system, double-click to show it alone; drag to zoom, "
                           "double-click the chart to reset.</p>")
            out.append(Section(f"model-{mid}", f"{mid}: throughput and cost", body))
    return out


def _kind_summary(kinds: dict[float, str]) -> str:
    """Curve kind of each standard point in words, e.g. "measured 35-50, anchored 20 and 75-100"."""
    if len(set(kinds.values())) <= 1:
        return next(iter(kinds.values()), "")
    xs = sorted(kinds)
    runs: dict[str, list[str]] = {}
    start = 0
    for i in range(1, len(xs) + 1):
        if i == len(xs) or kinds[xs[i]] != kinds[xs[start]]:
            a, b = xs[start], xs[i - 1]
            runs.setdefault(kinds[a], []).append(f"{a:g}" if a == b else f"{a:g}-{b:g}")
            start = i
    order = {"measured": 0, "anchored": 1, "projected": 2}
    return ", ".join(f"{k} {' and '.join(v)}" for k, v in sorted(runs.items(), key=lambda kv: order.get(kv[0], 3)))


def _standard_table(rep: Report, model_id: str, workload: str) -> str:
    std = rep.tables["standard_points"]
    std = std[(std["model_id"] == model_id) & (std["workload"] == workload)]
    if std.empty:
        return ""
    xs = STANDARD_INTERACTIVITY_TOK_PER_S_PER_USER
    rows = []
    for (label, hid), sub in std.groupby(["tco_label", "hardware_id"], sort=False):
        by_x = sub.set_index("interactivity_tok_per_s_per_user")
        rec: dict[str, Any] = {"hardware_id": _short(str(hid)),
                               "tco_usd_per_gpu_hour": float(sub["cost_usd_per_gpu_hour"].iloc[0]), "_tco": label}
        kinds: dict[float, str] = {}
        for x in xs:
            rec[f"t{x:g}"] = float(by_x.loc[x, "throughput_tok_per_s_per_gpu"]) if x in by_x.index else math.nan
            rec[f"c{x:g}"] = float(by_x.loc[x, "cost_usd_per_mtok"]) if x in by_x.index else math.nan
            if math.isfinite(rec[f"t{x:g}"]):
                # each value is what the curve is at its own interactivity, not the system's overall kind
                kinds[x] = rec[f"k{x:g}"] = str(by_x.loc[x, "curve_kind"])
        rec["curve_kind"] = _kind_summary(kinds)
        rows.append(rec)
    frame = pd.DataFrame(rows)
    frame = frame.sort_values(["_tco", f"c{_nearest(xs, _ref(rep)):g}"], na_position="last", kind="stable")
    columns = [Column("hardware_id", "system", "text"), Column("curve_kind", "curve at [tok/s/user]", "text"),
               Column("tco_usd_per_gpu_hour", "TCO [USD/GPU-hour]", "{:.2f}")]
    for x in xs:
        columns.append(Column(f"t{x:g}", f"throughput [tok/s/GPU] at {x:g} tok/s/user", "{:,.0f}"))
    for x in xs:
        columns.append(Column(f"c{x:g}", f"cost [USD/Mtok] at {x:g} tok/s/user", "{:.3f}"))

    kind_key = {f"{prefix}{x:g}": f"k{x:g}" for x in xs for prefix in ("t", "c")}

    def kind_of(rec: dict[str, Any], col: Column) -> dict[str, str]:
        kind = rec.get(kind_key.get(col.key, ""))
        return {"data-kind": kind, "title": kind} if isinstance(kind, str) else {}

    caption = (f"Throughput and cost of {html.escape(model_id)} at the standard interactivity points, "
               f"{html.escape(workload)}, {rep.options.utilization_frac:.0%} utilization, TCO basis as selected "
               "above. <i>curve</i>: where each value is measured, anchored (a projection scaled to the "
               "measured points) or projected; anchored and projected values are in italics. A dash: outside "
               "the curve's measured or projected range (never extrapolated). Table: "
               "<code>standard_points.csv</code>.")
    return (f'<div data-workload="{html.escape(workload)}">'
            + table_html(frame, columns, caption=caption, table_class="compact",
                         row_attr=lambda r: {"data-tco": str(r["_tco"])}, cell_attr=kind_of,
                         group_headers=[("", 3), ("throughput [tok/s/GPU] at interactivity [tok/s/user]", len(xs)),
                                        ("cost [USD/Mtok] at interactivity [tok/s/user]", len(xs))],
                         header_override={c.key: c.key[1:] for c in columns[3:]})
            + "</div>")


def _nearest(xs: tuple[float, ...], x: float) -> float:
    return min(xs, key=lambda v: abs(v - x))


def margin_sections(rep: Report) -> list[Section]:
    """Per model: margin vs utilization, the utilization x license-fee map, the sensitivity of margin."""
    out = []
    for mid in rep.options.models:
        figs = [(_margin_figure(rep, mid), "margin"), (_heatmap_figure(rep, mid), "heatmap"),
                (_tornado_figure(rep, mid), "tornado")]
        charts = [figure_html(f, f"{mid}-{name}") for f, name in figs if f is not None]
        if not charts:
            continue
        focus = rep.focus.get(mid)
        note = (f"<p class=note>Margin at the report's TCO basis ({html.escape(rep.options.tco_label())}) and "
                f"catalog list prices. Heat map and sensitivity on {html.escape(_name(focus))}, the cheapest "
                "system at the reference interactivity among those with a measured curve (else among all); the "
                "black line is break-even. Lines leaving the margin chart continue below -100 %: drag or zoom "
                "out to follow them.</p>" if focus else "")
        grid = f'<div class="grid">{"".join(charts)}</div>'
        out.append(Section(f"margin-{mid}", f"{mid}: gross margin", [note, grid]))
    return out


def tco_section(rep: Report) -> Section:
    """TCO per accelerator-hour by component, and on every catalog basis."""
    from tokenomics.outputs.plot import label_for

    tco = rep.tables["tco"]
    parts = tco[tco["component"] != "total"]
    order = (tco[tco["component"] == "total"].sort_values("usd_per_gpu_hour")["hardware_id"].tolist())
    comps = [c for c in pd.unique(parts["component"])
             if parts.loc[parts["component"] == c, "usd_per_gpu_hour"].abs().sum() > 0]
    palette = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#999999", "#F0E442"]
    traces = []
    for i, comp in enumerate(comps):
        sub = parts[parts["component"] == comp].set_index("hardware_id").reindex(order)
        traces.append({
            "type": "bar", "x": [_short(h) for h in order], "y": _list(_num(sub["usd_per_gpu_hour"])),
            "name": label_for(str(comp)).replace(" [", " ["), "marker": {"color": palette[i % len(palette)]},
            "hovertemplate": (f"%{{x}}<br>{html.escape(str(comp).replace('_', ' '))}: "
                              "%{y:.3f} USD/GPU-hour<extra></extra>"),
        })
    fig = {"data": traces, "layout": _layout(f"TCO per accelerator-hour by component ({rep.options.tco_label()})",
                                             "", "TCO [USD/GPU-hour]", barmode="stack")}
    wide = parts.pivot_table(index="hardware_id", columns="component", values="usd_per_gpu_hour", sort=False)
    wide = wide[[c for c in comps if c in wide.columns]]
    wide["total"] = tco[tco["component"] == "total"].set_index("hardware_id")["usd_per_gpu_hour"]
    wide = wide.reindex(order).reset_index()
    wide["hardware_id"] = wide["hardware_id"].map(_short)
    columns = [Column("hardware_id", "system", "text")] + [
        Column(str(c), f"{str(c).replace('_', ' ')} [USD/GPU-hour]", "{:.3f}") for c in wide.columns[1:]
    ]
    rates = rep.tables["tco_rates"].pivot_table(index="hardware_id", columns="tco_label", values="usd_per_gpu_hour",
                                                 sort=False)
    rates = rates.reindex(order).reset_index()
    rates["hardware_id"] = rates["hardware_id"].map(_short)
    rate_cols = [Column("hardware_id", "system", "text")] + [
        Column(str(c), f"{c} [USD/GPU-hour]", "{:.2f}") for c in rates.columns[1:]]
    body = [
        figure_html(fig, "tco-breakdown"),
        table_html(wide, columns, table_class="compact",
                   caption="TCO per allocated accelerator-hour by component on the report's basis. "
                   "Table: <code>tco.csv</code>."),
        table_html(rates, rate_cols, table_class="compact",
                   caption="TCO on every basis the catalog holds for each system (the TCO "
                   "selector above); a dash: no catalog row for that basis. Table: <code>tco_rates.csv</code>."),
    ]
    return Section("tco", "TCO", body)


def assumptions_section(rep: Report) -> Section:
    """Every assumption of the report."""
    columns = [Column("assumption", "assumption", "text"), Column("value", "value", "text"),
               Column("unit", "unit", "text"), Column("note", "note", "text")]
    return Section("assumptions", "Assumptions", [table_html(rep.tables["assumptions"], columns)])


def skipped_section(rep: Report) -> Section | None:
    """Model and system combinations left out, and why."""
    skipped = rep.tables["skipped"]
    if skipped.empty:
        return None
    frame = skipped.assign(hardware_id=skipped["hardware_id"].map(_name),
                           model_id=skipped["model_id"].replace("*", "every model"))
    columns = [Column("model_id", "model", "text"), Column("hardware_id", "system", "text"),
               Column("stage", "stage", "text"), Column("reason", "reason", "text")]
    return Section("skipped", "Not evaluated", [
        "<p class=note>Combinations left out, and why (also in <code>skipped.csv</code>).</p>",
        table_html(frame, columns)])


def sources_section(rep: Report) -> Section:
    """Every source of every catalog value used, with its as-of date."""
    columns = [Column("category", "category", "text"), Column("item", "item", "text"),
               Column("parameters", "parameters", "text"), Column("source", "source", "link"),
               Column("as_of", "as of [date]", "date")]
    return Section("sources", "Sources", [table_html(rep.tables["sources"], columns, table_class="sources")])


def agentic_section(rep: Report) -> Section | None:
    """Session workloads: realized cache hits, cost per (output) Mtok and gross margin per system."""
    body = agentic_body(rep)
    if body is None:
        return None
    return Section("agentic", "Agentic traffic: realized cache hits, cost and margin", body)


def memory_section(rep: Report) -> Section | None:
    """Render the memory hierarchy: KV offload curves and engram placement maps."""
    body = memory_body(rep)
    if body is None:
        return None
    return Section("memory", "Memory hierarchy: KV offload and engram tables", body)


SECTIONS: list[SectionBuilder] = [
    headline_section,
    agentic_section,
    model_sections,
    margin_sections,
    tco_section,
    memory_section,
    assumptions_section,
    skipped_section,
    sources_section,
]
"""Section builders in page order; append a builder to add a section to every report."""


# --- PNG charts ---------------------------------------------------------------------------------------


def png_charts(rep: Report) -> dict[str, bytes]:
    """Return file name -> PNG bytes of the report's static charts (matplotlib), for slides.

    Parameters
    ----------
    rep : Report
        A built report.

    Returns
    -------
    dict of str to bytes
        ``pareto_<model>.png``, ``cost_vs_interactivity_<model>.png``,
        ``margin_vs_utilization_<model>.png``, ``margin_heatmap_<model>.png``, ``tornado_<model>.png``
        and ``tco_breakdown.png``.
    """
    import matplotlib.pyplot as plt

    from tokenomics.outputs import plot

    t = rep.tables
    opts = rep.options
    figs: dict[str, Any] = {}
    main_tco = opts.tco_label()
    main_wl = opts.workload_label()  # one workload per chart: the extra workloads are in the HTML selector
    for mid in opts.models:
        pts = t["curve_points"]
        pts = pts[(pts["model_id"] == mid) & (pts["workload"].astype(str) == main_wl)]
        if pts.empty:
            continue
        ax = plot.pareto(pts, show_points=False, logy=True,
                         title=f"{mid}: throughput vs interactivity ({main_wl})")
        figs[f"pareto_{mid}.png"] = ax.figure
        cost = t["cost_curves"]
        cost = cost[(cost["model_id"] == mid) & (cost["tco_label"] == main_tco)
                    & (cost["workload"].astype(str) == main_wl)]
        ax = plot.cost_vs_interactivity(cost, title=f"{mid}: cost per Mtok at {opts.utilization_frac:.0%} "
                                                   f"utilization ({main_wl})")
        ax.axvline(_ref(rep), color="0.5", linestyle=":", linewidth=1)
        figs[f"cost_vs_interactivity_{mid}.png"] = ax.figure
        mu = t["margin_vs_utilization"][t["margin_vs_utilization"]["model_id"] == mid]
        if len(mu):
            ax = plot.margin_vs_utilization(mu, title=f"{mid}: gross margin at {_ref(rep):g} tok/s/user")
            figs[f"margin_vs_utilization_{mid}.png"] = ax.figure
        grid = t["margin_grid"][t["margin_grid"]["model_id"] == mid]
        if len(grid):
            ax = plot.margin_heatmap(grid, title=f"{mid} on {plot.display_name(rep.focus[mid])}: gross margin")
            figs[f"margin_heatmap_{mid}.png"] = ax.figure
        sens = t["sensitivity"][t["sensitivity"]["model_id"] == mid]
        if len(sens):
            ax = plot.tornado(sens, title=f"{mid} on {plot.display_name(rep.focus[mid])}: margin sensitivity")
            figs[f"tornado_{mid}.png"] = ax.figure
    ax = plot.tco_breakdown(t["tco"], title=f"TCO ({opts.tco_label()})")
    figs["tco_breakdown.png"] = ax.figure
    out = {}
    for name, fig in figs.items():
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=150)
        out[name] = buf.getvalue()
    plt.close("all")
    return out
