"""Charts of the tidy tables tokenomics returns (matplotlib).

Every function takes a tidy :class:`pandas.DataFrame` (one row per point or scenario, unit-suffixed
columns), draws on ``ax`` (a new figure when ``ax`` is None) and returns the
:class:`matplotlib.axes.Axes`. Axis labels are built from the column names by
:func:`label_for` (``cost_usd_per_mtok`` -> ``"cost [USD/Mtok]"``); fractions get a percent axis.

Conventions shared by every chart:

* one fixed colour and marker per system (:mod:`tokenomics.outputs.colors`: Okabe-Ito and Tol
  colours, distinguishable under the common forms of colour-vision deficiency [1]_), the same in
  every chart whatever else it shows; ``colors=`` overrides them;
* measured points are solid lines with markers; roofline projections are dashed, with their
  uncertainty band shaded;
* values that cannot be shown on a log axis (<= 0, NaN) are dropped and the number dropped is
  written on the chart, never silently clipped.

References
----------
.. [1] M. Okabe and K. Ito, "Color Universal Design (CUD): how to make figures and presentations
   that are friendly to colorblind people" (2008), https://jfly.uni-koeln.de/color/ (read 2026-09).
.. [2] P. Tol, "Colour schemes", SRON technical note SRON/EPS/TN/09-002 (2021),
   https://personal.sron.nl/~pault/ (read 2026-09).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import TwoSlopeNorm
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FuncFormatter, PercentFormatter
from matplotlib.transforms import offset_copy

from tokenomics.outputs.colors import BAND_ALPHA, FALLBACK_COLORS, SYSTEM_COLORS, system_style

__all__ = [
    "OKABE_ITO",
    "cost_vs_interactivity",
    "display_name",
    "engram_placement_map",
    "fan",
    "hardware_colors",
    "hit_rate_vs_concurrency",
    "label_for",
    "margin_heatmap",
    "margin_vs_utilization",
    "pareto",
    "tco_breakdown",
    "tornado",
]

OKABE_ITO: tuple[str, ...] = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#000000",  # black
    "#F0E442",  # yellow (last: low contrast on white)
)
"""The Okabe-Ito colour-blind-safe palette, ordered for contrast on a white background."""

EXTRA_COLORS: tuple[str, ...] = ("#882255", "#999933", "#332288", "#44AA99", "#AA4499", "#661100")
"""Further colour-blind-safe colours (Paul Tol's "muted" scheme [2]_) used after the first seven
Okabe-Ito colours, so that up to 13 systems get distinct colours (yellow is used last)."""

SERIES_COLORS: tuple[str, ...] = (*OKABE_ITO[:7], *EXTRA_COLORS, OKABE_ITO[7])
"""Colour order of the series of a chart."""

_MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")

MEASURED_KINDS: tuple[str, ...] = ("measured", "floor")
"""Curve-point kinds drawn as measured (solid lines with markers)."""

# unit suffix -> unit text, longest suffix first so that e.g. "_usd_per_mtok" wins over "_mtok"
_UNITS: tuple[tuple[str, str], ...] = (
    ("_tok_per_s_per_gpu", "tok/s/GPU"),
    ("_tok_per_s_per_user", "tok/s/user"),
    ("_tok_per_s_per_kw", "tok/s/kW"),
    ("_kw_per_accelerator", "kW/accelerator"),
    ("_usd_per_gpu_hour", "USD/GPU-hour"),
    ("_usd_per_system_hour", "USD/system-hour"),
    ("_usd_per_gpu_year", "USD/GPU-year"),
    ("_usd_per_mw_year", "USD/MW-year"),
    ("_usd_per_kw_month", "USD/kW/month"),
    ("_usd_per_kwh", "USD/kWh"),
    ("_usd_per_mtok", "USD/Mtok"),
    ("_usd_per_hour", "USD/hour"),
    ("_usd_per_year", "USD/year"),
    ("_usd_per_accelerator", "USD/accelerator"),
    ("_mtok_per_gpu_hour", "Mtok/GPU-hour"),
    ("_frac_per_year", "fraction/year"),
    ("_joules_per_token", "J/token"),
    ("_w_per_gpu", "W/GPU"),
    ("_tb_per_s", "TB/s"),
    ("_gb_per_s", "GB/s"),
    ("_tflops", "TFLOPS"),
    ("_tokens", "tokens"),
    ("_years", "years"),
    ("_frac", "fraction"),
    ("_usd", "USD"),
    ("_kw", "kW"),
    ("_gb", "GB"),
    ("_ms", "ms"),
    ("_w", "W"),
    ("_s", "s"),
)

_WORDS: dict[str, str] = {
    "usd": "USD", "tco": "TCO", "gpu": "GPU", "ttft": "TTFT", "tpot": "TPOT", "pue": "PUE",
    "hbm": "HBM", "kv": "KV", "isl": "ISL", "osl": "OSL", "p90": "p90", "p99": "p99",
}

_PERCENT = PercentFormatter(xmax=1.0, decimals=0)

_BAND_ALPHA = BAND_ALPHA
_LEGEND_INSIDE_MAX = 5


def label_for(column: str, *, percent: bool = False) -> str:
    """Return an axis label ``"name [unit]"`` built from a unit-suffixed column name.

    Parameters
    ----------
    column : str
        A tokenomics column name, e.g. ``"cost_usd_per_mtok"``.
    percent : bool, default False
        For a ``_frac`` column: say ``[%]`` (the axis shows percent) instead of ``[fraction]``.

    Returns
    -------
    str
        Human-readable label; a column without a known unit suffix is returned with
        underscores replaced by spaces and no unit.

    Examples
    --------
    >>> label_for("cost_usd_per_mtok")
    'cost [USD/Mtok]'
    >>> label_for("interactivity_tok_per_s_per_user")
    'interactivity [tok/s/user]'
    >>> label_for("gross_margin_frac", percent=True)
    'gross margin [%]'
    """
    for suffix, unit in _UNITS:
        if column.endswith(suffix) and len(column) > len(suffix):
            stem = column[: -len(suffix)]
            if suffix == "_frac" and percent:
                unit = "%"
            return f"{_words(stem)} [{unit}]"
    return _words(column)


def _words(stem: str) -> str:
    return " ".join(_WORDS.get(w, w) for w in re.split(r"_+", stem.strip("_")) if w)


def _is_frac(column: str) -> bool:
    return column.endswith("_frac")


def display_name(hardware_id: str) -> str:
    """Return the catalog display name of a hardware id, or the id itself when not in the catalog.

    Parameters
    ----------
    hardware_id : str
        Catalog hardware id, e.g. ``"gb200-nvl72"``.

    Returns
    -------
    str
        E.g. ``"GB200 NVL72"``.
    """
    from tokenomics import catalog

    try:
        return str(catalog.hardware(hardware_id).name)
    except (KeyError, ValueError):
        return str(hardware_id)


def hardware_colors(hardware_ids: Iterable[str]) -> dict[str, tuple[str, str]]:
    """Return the fixed colour and marker of each system (:mod:`tokenomics.outputs.colors`).

    Parameters
    ----------
    hardware_ids : iterable of str
        Hardware ids; duplicates are ignored.

    Returns
    -------
    dict of str to (str, str)
        ``hardware_id -> (colour hex, marker)``. A catalog system always gets its colour from
        :data:`tokenomics.outputs.colors.SYSTEM_COLORS`, whatever else is listed and in which
        order; systems outside it get distinct colours chosen by a hash of their id.
    """
    out: dict[str, tuple[str, str]] = {}
    unknown: list[str] = []
    for hid in dict.fromkeys(str(h) for h in hardware_ids):
        if hid in SYSTEM_COLORS:
            style = system_style(hid)
            out[hid] = (style.color, style.marker)
        else:
            unknown.append(hid)
    pool = [*FALLBACK_COLORS, *(c for c in SYSTEM_COLORS.values() if c not in {v[0] for v in out.values()})]
    used = {v[0] for v in out.values()}
    for hid in sorted(unknown):
        start = zlib.crc32(hid.encode("utf-8")) % len(pool)
        free = [pool[(start + k) % len(pool)] for k in range(len(pool))]
        color = next((c for c in free if c not in used), free[0])
        used.add(color)
        out[hid] = (color, system_style(hid).marker)
    return out


def _new_ax(ax: Axes | None, figsize: tuple[float, float] = (7.5, 4.5)) -> Axes:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, new = plt.subplots(figsize=figsize, layout="constrained")
    return new


def _require(frame: pd.DataFrame, columns: Sequence[str], chart: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise KeyError(f"{chart}: columns {missing} are not in the table; have {list(frame.columns)}")


def _numeric(series: pd.Series) -> np.ndarray:
    return np.asarray(pd.to_numeric(series, errors="coerce").to_numpy(dtype=float, na_value=np.nan))


def _groups(frame: pd.DataFrame, by: str | Sequence[str] | None) -> list[tuple[str, pd.DataFrame]]:
    """Split ``frame`` into labelled groups; the label of a hardware group is its display name."""
    if by is None:
        return [("", frame)]
    cols = [by] if isinstance(by, str) else list(by)
    cols = [c for c in cols if c in frame.columns and frame[c].nunique(dropna=True) > 0]
    if not cols:
        return [("", frame)]
    out = []
    for key, sub in frame.groupby(cols, sort=False, dropna=False):
        keys = key if isinstance(key, tuple) else (key,)
        parts = [display_name(str(k)) if c == "hardware_id" else str(k) for c, k in zip(cols, keys, strict=True)]
        out.append((" · ".join(parts), sub))
    return out


def _style_for(
    frame: pd.DataFrame, colors: Mapping[str, tuple[str, str]] | Mapping[str, str] | None
) -> dict[str, tuple[str, str]]:
    ids = [str(h) for h in pd.unique(frame["hardware_id"].astype(str))] if "hardware_id" in frame else []
    styles = hardware_colors(sorted(ids))
    if colors:
        for hid, val in colors.items():
            styles[hid] = (val, styles.get(hid, ("", "o"))[1]) if isinstance(val, str) else (val[0], val[1])
    return styles


def _group_style(sub: pd.DataFrame, styles: dict[str, tuple[str, str]], fallback: int) -> tuple[str, str]:
    if "hardware_id" in sub.columns and len(sub):
        hid = str(sub["hardware_id"].iloc[0])
        if hid in styles:
            return styles[hid]
    return SERIES_COLORS[fallback % len(SERIES_COLORS)], _MARKERS[fallback % len(_MARKERS)]


def _note(ax: Axes, text: str) -> None:
    """Write a small remark in the lower-left corner of the axes (e.g. points dropped)."""
    ax.text(0.01, 0.01, text, transform=ax.transAxes, fontsize=7, color="0.35", va="bottom", ha="left")


def _kind_mask(sub: pd.DataFrame, kinds: Sequence[str]) -> np.ndarray:
    if "kind" not in sub.columns:
        return np.full(len(sub), "projected" not in kinds)
    return np.asarray(sub["kind"].astype("string").fillna("measured").isin(kinds).to_numpy(dtype=bool))


def _upper_envelope(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pareto frontier (maximise both), sorted by x ascending."""
    from tokenomics.curves.frontier import pareto_mask

    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    x, y = x[ok], y[ok]
    if x.size == 0:
        return x, y
    keep = pareto_mask(x, y)
    order = np.argsort(x[keep], kind="stable")
    return x[keep][order], y[keep][order]


def _lower_envelope(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cost frontier (maximise x, minimise y), sorted by x ascending."""
    ex, ny = _upper_envelope(x, 1.0 / np.where(y > 0, y, np.nan))
    return ex, 1.0 / ny


def _projected_line(
    ax: Axes,
    sub: pd.DataFrame,
    x: str,
    y: str,
    band: tuple[str, str] | None,
    color: str,
    label: str,
    *,
    positive_only: bool,
    marker: str = "o",
) -> int:
    """Draw a dashed projected curve with its band; return the number of points dropped."""
    xs, ys = _numeric(sub[x]), _numeric(sub[y])
    lo = hi = None
    if band and band[0] in sub.columns and band[1] in sub.columns:
        lo, hi = _numeric(sub[band[0]]), _numeric(sub[band[1]])
    ok = np.isfinite(xs) & np.isfinite(ys)
    if positive_only:
        ok &= (xs > 0) & (ys > 0)
    order = np.argsort(xs[ok], kind="stable")
    n = int(ok.sum())
    ax.plot(xs[ok][order], ys[ok][order], linestyle="--", color=color, linewidth=1.8, label=label,
            marker=marker, markersize=5, markerfacecolor="white", markevery=max(1, n // 6))
    if lo is not None and hi is not None:
        okb = ok & np.isfinite(lo) & np.isfinite(hi)
        if positive_only:
            okb &= (lo > 0) & (hi > 0)
        ob = np.argsort(xs[okb], kind="stable")
        ax.fill_between(xs[okb][ob], lo[okb][ob], hi[okb][ob], color=color, alpha=_BAND_ALPHA, linewidth=0)
    return int((~ok).sum())


def _finish_legend(ax: Axes, *, has_measured: bool, has_projected: bool) -> None:
    handles, labels = ax.get_legend_handles_labels()
    if has_measured and has_projected:
        handles += [
            Line2D([], [], color="0.3", marker="o", linestyle="-", label="measured"),
            Line2D([], [], color="0.3", marker="o", markerfacecolor="white", linestyle="--",
                   label="projected (band: uncertainty)"),
        ]
        labels += ["measured", "projected (band: uncertainty)"]
    _legend(ax, handles, labels)


def _legend(ax: Axes, handles: list[Any], labels: list[str], loc: Any = "best") -> None:
    """Legend inside the axes for a few entries, outside on the right for many."""
    if not handles:
        return
    if len(handles) > _LEGEND_INSIDE_MAX:
        ax.legend(handles, labels, fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    else:
        ax.legend(handles, labels, fontsize=8, frameon=False, loc=loc)


def pareto(
    points: pd.DataFrame,
    ax: Axes | None = None,
    *,
    x: str = "interactivity_tok_per_s_per_user",
    y: str = "throughput_tok_per_s_per_gpu",
    by: str | Sequence[str] | None = "hardware_id",
    band: tuple[str, str] | None = (
        "throughput_low_tok_per_s_per_gpu",
        "throughput_high_tok_per_s_per_gpu",
    ),
    show_points: bool = True,
    logy: bool = False,
    colors: Mapping[str, Any] | None = None,
    title: str | None = None,
) -> Axes:
    """Throughput-vs-interactivity Pareto frontier per hardware.

    Measured points (``kind`` "measured" or "floor") are drawn as their Pareto frontier, a solid
    line with markers (the dominated points faintly when ``show_points``); projected points
    (``kind`` "projected", or "anchored": scaled to measured points) as a dashed line with the
    ``band`` columns shaded.

    Parameters
    ----------
    points : pandas.DataFrame
        Curve points in the :data:`tokenomics.curves.schema.CURVE_COLUMNS` layout (at least ``x``, ``y``;
        ``kind`` and ``hardware_id`` when present).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.
    x, y : str
        Interactivity [tok/s/user] and throughput [tok/s/GPU] columns.
    by : str or sequence of str or None, default "hardware_id"
        Columns defining one curve each.
    band : (str, str) or None
        Low and high columns of a projection's uncertainty band [tok/s/GPU]; ignored when absent.
    show_points : bool, default True
        Also draw dominated measured points, small and faint.
    logy : bool, default False
        Logarithmic throughput axis (for systems an order of magnitude apart); non-positive
        values are then dropped with a note.
    colors : mapping, optional
        ``hardware_id -> colour`` or ``-> (colour, marker)`` to keep colours fixed across charts.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    KeyError
        If ``x`` or ``y`` is missing.
    """
    _require(points, [x, y], "pareto")
    ax = _new_ax(ax)
    styles = _style_for(points, colors)
    has_m = has_p = False
    dropped = 0
    for i, (label, sub) in enumerate(_groups(points, by)):
        color, marker = _group_style(sub, styles, i)
        meas = sub[_kind_mask(sub, MEASURED_KINDS)]
        proj = sub[_kind_mask(sub, ("projected", "anchored"))]
        if len(meas):
            xs, ys = _numeric(meas[x]), _numeric(meas[y])
            ok = np.isfinite(xs) & np.isfinite(ys) & (xs > 0) & (ys > 0)
            dropped += int((~ok).sum())
            fx, fy = _upper_envelope(xs, ys)
            if show_points:
                ax.scatter(xs[ok], ys[ok], s=10, color=color, alpha=0.25, linewidths=0)
            ax.plot(fx, fy, color=color, marker=marker, markersize=5, linewidth=1.8,
                    label=label + (" (measured)" if len(proj) else ""))
            has_m = True
        if len(proj):
            dropped += _projected_line(ax, proj, x, y, band, color, label + " (projected)" if len(meas) else label,
                                       positive_only=logy, marker=marker)
            has_p = True
    ax.set_xlabel(label_for(x))
    ax.set_xlim(left=0)
    if logy:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(FuncFormatter(_minor_log_label))
        ax.set_ylabel(label_for(y) + " (log)")
    else:
        ax.set_ylim(bottom=0)
        ax.set_ylabel(label_for(y))
    ax.grid(True, which="both" if logy else "major", alpha=0.3)
    if dropped:
        _note(ax, f"{dropped} point(s) with missing or non-positive values not shown")
    _finish_legend(ax, has_measured=has_m, has_projected=has_p)
    if title:
        ax.set_title(title)
    return ax


def cost_vs_interactivity(
    frame: pd.DataFrame,
    ax: Axes | None = None,
    *,
    x: str = "interactivity_tok_per_s_per_user",
    y: str | None = None,
    by: str | Sequence[str] | None = "hardware_id",
    band: tuple[str, str] | None = ("cost_low_usd_per_mtok", "cost_high_usd_per_mtok"),
    frontier: bool = True,
    colors: Mapping[str, Any] | None = None,
    title: str | None = None,
) -> Axes:
    """Cost per million tokens vs interactivity per hardware, log y.

    Measured points are solid with markers (their cost frontier: lowest cost at each
    interactivity when ``frontier``), projected ones dashed with the ``band`` shaded. Costs <= 0
    or NaN cannot be shown on a log axis: they are dropped and the count is written on the chart.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per operating point with ``x`` and ``y`` (e.g. from ``cost_curve``).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.
    x : str
        Interactivity column [tok/s/user].
    y : str, optional
        Cost column [USD/Mtok]; default ``cost_usd_per_mtok`` (as :func:`tokenomics.sweep`), else
        ``total_usd_per_mtok`` (as :func:`tokenomics.cost_curve`).
    by : str or sequence of str or None, default "hardware_id"
        Columns defining one curve each.
    band : (str, str) or None
        Low and high cost columns of a projection [USD/Mtok]; ignored when absent.
    frontier : bool, default True
        Draw only the lowest-cost envelope of the measured points (others faint).
    colors : mapping, optional
        ``hardware_id -> colour`` (or ``(colour, marker)``).
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    KeyError
        If ``x`` or ``y`` is missing.
    """
    if y is None:
        y = next((c for c in ("cost_usd_per_mtok", "total_usd_per_mtok") if c in frame.columns),
                 "cost_usd_per_mtok")
    _require(frame, [x, y], "cost_vs_interactivity")
    ax = _new_ax(ax)
    styles = _style_for(frame, colors)
    has_m = has_p = False
    dropped = 0
    for i, (label, sub) in enumerate(_groups(frame, by)):
        color, marker = _group_style(sub, styles, i)
        meas = sub[_kind_mask(sub, MEASURED_KINDS)]
        proj = sub[_kind_mask(sub, ("projected", "anchored"))]
        if len(meas):
            xs, ys = _numeric(meas[x]), _numeric(meas[y])
            ok = np.isfinite(xs) & np.isfinite(ys) & (xs > 0) & (ys > 0)
            dropped += int((~ok).sum())
            if frontier:
                fx, fy = _lower_envelope(xs[ok], ys[ok])
                ax.scatter(xs[ok], ys[ok], s=10, color=color, alpha=0.25, linewidths=0)
            else:
                order = np.argsort(xs[ok], kind="stable")
                fx, fy = xs[ok][order], ys[ok][order]
            ax.plot(fx, fy, color=color, marker=marker, markersize=5, linewidth=1.8,
                    label=label + (" (measured)" if len(proj) else ""))
            has_m = True
        if len(proj):
            dropped += _projected_line(ax, proj, x, y, band, color, label + " (projected)" if len(meas) else label,
                                       positive_only=True, marker=marker)
            has_p = True
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(FuncFormatter(_minor_log_label))
    ax.set_xlabel(label_for(x))
    ax.set_ylabel(label_for(y) + " (log)")
    ax.set_xlim(left=0)
    ax.grid(True, which="both", alpha=0.3)
    if dropped:
        _note(ax, f"{dropped} point(s) with cost <= 0 or missing not shown (log axis)")
    _finish_legend(ax, has_measured=has_m, has_projected=has_p)
    if title:
        ax.set_title(title)
    return ax


def _minor_log_label(value: float, _: int) -> str:
    """Label minor log ticks 2 and 5 of each decade only (e.g. 0.2, 0.5, 2, 5)."""
    if value <= 0:
        return ""
    mantissa = value / 10 ** np.floor(np.log10(value) + 1e-12)
    return f"{value:g}" if round(mantissa) in (2, 5) and abs(mantissa - round(mantissa)) < 1e-6 else ""


def _zero_crossings(x: np.ndarray, y: np.ndarray) -> list[float]:
    """Return the x where the piecewise-linear y(x) crosses zero from below (x ascending)."""
    out = []
    for i in range(len(x) - 1):
        y0, y1 = y[i], y[i + 1]
        if np.isfinite(y0) and np.isfinite(y1) and y0 < 0 <= y1:
            out.append(float(x[i] + (x[i + 1] - x[i]) * (0 - y0) / (y1 - y0)))
    return out


def margin_vs_utilization(
    frame: pd.DataFrame,
    ax: Axes | None = None,
    *,
    x: str = "utilization_frac",
    y: str = "gross_margin_frac",
    by: str | Sequence[str] | None = "hardware_id",
    breakeven: str | None = "breakeven_utilization_frac",
    colors: Mapping[str, Any] | None = None,
    title: str | None = None,
) -> Axes:
    """Gross margin vs utilization per hardware, with break-even markers.

    The break-even utilization of each curve is marked on the zero line: taken from the
    ``breakeven`` column when the table has it (the closed-form value), otherwise where the
    drawn curve crosses zero. Both axes show percent.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per (curve, utilization) with ``x`` and ``y``, e.g. from ``sweep``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.
    x : str
        Utilization column [fraction].
    y : str
        Gross-margin column [fraction].
    by : str or sequence of str or None, default "hardware_id"
        Columns defining one curve each.
    breakeven : str or None
        Column holding the break-even utilization per curve [fraction]; NaN (none reachable)
        gives no marker.
    colors : mapping, optional
        ``hardware_id -> colour`` (or ``(colour, marker)``).
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    KeyError
        If ``x`` or ``y`` is missing.
    """
    _require(frame, [x, y], "margin_vs_utilization")
    ax = _new_ax(ax)
    styles = _style_for(frame, colors)
    ax.axhline(0.0, color="0.4", linewidth=0.8)
    marked = False
    ends: list[float] = []
    tops: list[float] = []
    for i, (label, sub) in enumerate(_groups(frame, by)):
        color, marker = _group_style(sub, styles, i)
        xs, ys = _numeric(sub[x]), _numeric(sub[y])
        order = np.argsort(xs, kind="stable")
        xs, ys = xs[order], ys[order]
        ax.plot(xs, ys, color=color, linewidth=1.8, label=label)
        fin = np.isfinite(ys)
        if fin.any():
            ends.append(float(ys[fin][-1]))
            tops.append(float(ys[fin].max()))
        if breakeven and breakeven in sub.columns:
            be = [float(v) for v in pd.unique(_numeric(sub[breakeven])) if np.isfinite(v)]
        else:
            be = _zero_crossings(xs, ys)
        for u in be:
            ax.plot([u], [0.0], linestyle="none", marker=marker, markersize=8, color=color,
                    markeredgecolor="white", zorder=5)
            marked = True
    if ends:
        # margins fall without bound as utilization -> 0: show every curve's right end, and at
        # least down to -100 %, rather than the whole fall
        top = max(*tops, 0.0)
        bottom = min(*ends, -1.0)
        pad = 0.06 * (top - bottom)
        ax.set_ylim(bottom - pad, top + pad)
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel(label_for(x, percent=True))
    ax.set_ylabel(label_for(y, percent=True))
    ax.xaxis.set_major_formatter(_PERCENT)
    ax.yaxis.set_major_formatter(_PERCENT)
    ax.grid(True, alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    if marked:
        handles.append(Line2D([], [], color="0.3", marker="o", linestyle="none", label="break-even"))
        labels.append("break-even")
    if handles:
        _legend(ax, handles, labels, loc="lower right")
    if title:
        ax.set_title(title)
    return ax


def margin_heatmap(
    frame: pd.DataFrame,
    ax: Axes | None = None,
    *,
    x: str = "utilization_frac",
    y: str = "license_fee_frac",
    z: str = "gross_margin_frac",
    title: str | None = None,
    colorbar: bool = True,
) -> Axes:
    """Heat map of gross margin over utilization x license fee, with the 0 % contour.

    The colour scale is diverging (ColorBrewer ``RdBu``, colour-blind safe) and centred on zero:
    red is a loss, blue a profit; the solid black contour is break-even.

    Parameters
    ----------
    frame : pandas.DataFrame
        A tidy grid: one row per (``x``, ``y``) pair with ``z``, for one hardware and model
        (filter first; several values of ``hardware_id`` or ``model_id`` raise).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.
    x, y, z : str
        Grid columns (both fractions) and the value column (gross margin [fraction]).
    title : str, optional
        Axes title.
    colorbar : bool, default True
        Add a colour bar.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on; ``ax.zero_contour`` holds the contour set of the 0 level (None when the
        margin does not change sign on the grid).

    Raises
    ------
    KeyError
        If a column is missing.
    ValueError
        If the table holds several hardware or models, duplicate grid points, or fewer than
        2 x 2 grid points.
    """
    _require(frame, [x, y, z], "margin_heatmap")
    for col in ("hardware_id", "model_id"):
        n_values = len(pd.unique(frame[col].dropna())) if col in frame.columns else 0
        if n_values > 1:
            raise ValueError(
                f"margin_heatmap draws one grid; the table has {n_values} values of {col} "
                f"({', '.join(map(str, frame[col].unique()[:5]))}); filter to one first"
            )
    if frame.duplicated([x, y]).any():
        raise ValueError(f"margin_heatmap: duplicate ({x}, {y}) grid points; aggregate or filter first")
    grid = frame.pivot(index=y, columns=x, values=z).sort_index().sort_index(axis=1)
    if grid.shape[0] < 2 or grid.shape[1] < 2:
        raise ValueError(f"margin_heatmap needs at least a 2 x 2 grid; got {grid.shape[1]} x {grid.shape[0]}")
    xs = grid.columns.to_numpy(dtype=float)
    ys = grid.index.to_numpy(dtype=float)
    zz = grid.to_numpy(dtype=float, na_value=np.nan)
    ax = _new_ax(ax, figsize=(6.5, 4.5))
    finite = zz[np.isfinite(zz)]
    lo = float(min(finite.min(), -1e-3)) if finite.size else -1.0
    hi = float(max(finite.max(), 1e-3)) if finite.size else 1.0
    # losses beyond -100 % saturate so that the profitable side keeps its contrast
    vmin = max(lo, _HEATMAP_FLOOR)
    norm = TwoSlopeNorm(vcenter=0.0, vmin=vmin, vmax=hi)
    mesh = ax.pcolormesh(xs, ys, zz, cmap="RdBu", norm=norm, shading="nearest")
    contour = None
    if finite.size and finite.min() < 0 < finite.max():
        contour = ax.contour(xs, ys, zz, levels=[0.0], colors="black", linewidths=1.8)
        ax.clabel(contour, fmt={0.0: "0 %"}, fontsize=8)
    ax.zero_contour = contour  # type: ignore[attr-defined]
    ax.set_xlabel(label_for(x, percent=True))
    ax.set_ylabel(label_for(y, percent=True))
    ax.xaxis.set_major_formatter(_PERCENT)
    ax.yaxis.set_major_formatter(_PERCENT)
    if colorbar:
        cb = ax.figure.colorbar(mesh, ax=ax, extend="min" if lo < _HEATMAP_FLOOR else "neither")
        cb.set_label(label_for(z, percent=True))
        cb.ax.yaxis.set_major_formatter(_PERCENT)
    if title:
        ax.set_title(title)
    return ax


_HEATMAP_FLOOR = -1.0
"""Lowest gross margin given its own colour in :func:`margin_heatmap`; below it, saturated."""

_TCO_ORDER: tuple[str, ...] = (
    "capex_amortisation", "cost_of_capital", "power", "colocation", "maintenance", "other_opex",
    "rental_markup", "published_all_in",
)


def tco_breakdown(
    frame: pd.DataFrame | Sequence[Any],
    ax: Axes | None = None,
    *,
    value: str = "usd_per_gpu_hour",
    title: str | None = None,
) -> Axes:
    """Stacked horizontal bars of the TCO breakdown, one bar per system, total at the bar end.

    Parameters
    ----------
    frame : pandas.DataFrame or sequence of TcoResult
        Long table with columns ``hardware_id``, ``component`` and ``value`` (``component ==
        "total"`` rows are ignored), or :class:`tokenomics.cost.tco.TcoResult` objects.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.
    value : str, default "usd_per_gpu_hour"
        Value column, e.g. ``usd_per_gpu_hour`` or ``usd_per_mw_year``.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on; one bar container per component present.

    Raises
    ------
    KeyError
        If a needed column is missing.
    ValueError
        If a component is negative (a stacked bar cannot show it).
    """
    long = _tco_long(frame, value)
    long = long[long["component"] != "total"]
    if (long[value] < 0).any():
        raise ValueError(f"tco_breakdown: negative {value} in {long.loc[long[value] < 0, 'component'].tolist()}")
    wide = long.pivot_table(index="hardware_id", columns="component", values=value, aggfunc="sum", sort=False)
    comps = [c for c in _TCO_ORDER if c in wide.columns] + [c for c in wide.columns if c not in _TCO_ORDER]
    wide = wide[comps].fillna(0.0)
    wide = wide.loc[:, (wide > 0).any(axis=0)]  # e.g. no rental markup for an owner
    comps = list(wide.columns)
    wide = wide.loc[wide.sum(axis=1).sort_values().index]
    ax = _new_ax(ax, figsize=(8.5, 0.4 * len(wide) + 1.6))
    names = [display_name(str(h)) for h in wide.index]
    left = np.zeros(len(wide))
    palette = [*OKABE_ITO[:6], "#999999", "#F0E442"]
    for j, comp in enumerate(comps):
        vals = wide[comp].to_numpy(dtype=float)
        ax.barh(names, vals, left=left, color=palette[j % len(palette)], label=_words(comp),
                edgecolor="white", linewidth=0.5)
        left += vals
    span = float(left.max()) if len(left) else 1.0
    for yi, tot in enumerate(left):
        ax.text(tot + 0.01 * span, yi, f"{tot:,.2f}", va="center", fontsize=8)
    ax.set_xlim(0, span * 1.15 if span > 0 else 1.0)
    ax.set_xlabel(label_for("tco_" + value))
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    if title:
        ax.set_title(title)
    return ax


def _tco_long(frame: pd.DataFrame | Sequence[Any], value: str) -> pd.DataFrame:
    if isinstance(frame, pd.DataFrame):
        long = frame.reset_index() if "component" not in frame.columns else frame
        _require(long, ["hardware_id", "component", value], "tco_breakdown")
        return long[["hardware_id", "component", value]].astype({value: float})
    parts = []
    for res in frame:
        f = res.to_frame().reset_index()
        f.insert(0, "hardware_id", res.hardware_id)
        parts.append(f)
    if not parts:
        raise ValueError("tco_breakdown needs at least one system")
    long = pd.concat(parts, ignore_index=True)
    _require(long, ["hardware_id", "component", value], "tco_breakdown")
    return long[["hardware_id", "component", value]]


def tornado(
    frame: pd.DataFrame,
    ax: Axes | None = None,
    *,
    value: str = "gross_margin_frac",
    title: str | None = None,
) -> Axes:
    """Tornado chart: the change in an output when each input moves to its low and high value.

    Bars are sorted by swing (largest at the top); each input's low and high values are written
    beside its bars. The vertical line is the base case.

    Parameters
    ----------
    frame : pandas.DataFrame
        From :func:`tokenomics.analysis.sensitivity.margin_sensitivity`: one row per input with columns
        ``parameter``, ``low_value``, ``high_value``, ``base_value``, ``<value>_at_low``,
        ``<value>_at_high`` and ``base_<value>``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.
    value : str, default "gross_margin_frac"
        The output that was varied.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on; two bar containers (input low, input high).

    Raises
    ------
    KeyError
        If a needed column is missing.
    """
    lo_col, hi_col, base_col = f"{value}_at_low", f"{value}_at_high", f"base_{value}"
    _require(frame, ["parameter", "low_value", "high_value", lo_col, hi_col, base_col], "tornado")
    if frame.empty:
        raise ValueError("tornado needs at least one input row")
    base = float(frame[base_col].iloc[0])
    f = frame.assign(_swing=(frame[hi_col] - frame[lo_col]).abs()).sort_values("_swing")
    ax = _new_ax(ax, figsize=(7.0, 0.42 * len(f) + 1.5))
    names = [label_for(str(p)) for p in f["parameter"]]
    lo = f[lo_col].to_numpy(dtype=float) - base
    hi = f[hi_col].to_numpy(dtype=float) - base
    ax.barh(names, lo, left=base, color=OKABE_ITO[3], label="input at low value")
    ax.barh(names, hi, left=base, color=OKABE_ITO[0], label="input at high value")
    ax.axvline(base, color="black", linewidth=1.0)
    fmt = _PERCENT if _is_frac(value) else FuncFormatter(lambda v, _: f"{v:g}")
    for yi, row in enumerate(f.itertuples(index=False)):
        lo_v, hi_v = float(getattr(row, lo_col)), float(getattr(row, hi_col))
        for val, txt in ((lo_v, _fmt_num(row.low_value)), (hi_v, _fmt_num(row.high_value))):
            ha = "left" if val >= base else "right"
            ax.text(val, yi, f" {txt} ", va="center", ha=ha, fontsize=7, color="0.25")
    span = np.nanmax(np.abs(np.concatenate([lo, hi]))) if len(f) else 1.0
    pad = 0.5 * span if span > 0 else 0.1
    both = np.concatenate([lo, hi])
    ax.set_xlim(base + min(np.nanmin(both), 0) - pad, base + max(np.nanmax(both), 0) + pad)
    ax.xaxis.set_major_formatter(fmt)
    ax.set_xlabel(label_for(value, percent=_is_frac(value)) + f" (base {fmt(base, 0)})")
    ax.grid(True, axis="x", alpha=0.3)
    # legend below the x-axis label, outside the bars, so no value label can run into it
    ax.legend(handles=[Patch(color=OKABE_ITO[3], label="input at low value"),
                       Patch(color=OKABE_ITO[0], label="input at high value")],
              fontsize=8, frameon=False, ncol=2, loc="upper center", bbox_to_anchor=(0.5, 0.0),
              bbox_transform=offset_copy(ax.transAxes, fig=ax.get_figure(root=True), y=-_below_xlabel_pt(ax),
                                         units="points"))
    if title:
        # wrapped at draw time to the figure's width, so a narrow figure keeps the whole title
        ax.set_title(title, fontsize="medium", wrap=True)
    return ax


def _below_xlabel_pt(ax: Axes) -> float:
    """Distance [pt] from the bottom of the axes to below its x tick labels and x-axis label."""
    rc = matplotlib.rcParams
    tick = FontProperties(size=rc["xtick.labelsize"]).get_size_in_points()
    label = ax.xaxis.label.get_fontsize()
    return float(rc["xtick.major.size"] + rc["xtick.major.pad"] + tick + rc["axes.labelpad"] + label + 4.0)


def _fmt_num(v: Any) -> str:
    v = float(v)
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.3g}"


def fan(
    frame: pd.DataFrame,
    ax: Axes | None = None,
    *,
    metric: str | None = None,
    x: str = "interactivity_tok_per_s_per_user",
    colors: Mapping[str, Any] | None = None,
    log_y: bool | None = None,
    title: str | None = None,
) -> Axes:
    """Fan chart of a Monte Carlo metric per system: median line, p25-p75 and p5-p95 bands.

    ``frame`` is :meth:`tokenomics.analysis.montecarlo.MonteCarloResult.fan` (one row per system
    and interactivity with ``p5`` .. ``p95``). Systems evaluated at several interactivities get a
    line with shaded bands; a system at one interactivity gets a bar (p5-p95) and a thick bar
    (p25-p75) around its median. A frame without ``x`` values (a Monte Carlo over one operating
    point per system) puts each system at its own named slot of the x axis. Rows with no finite
    median, or without ``x`` when other rows have one, are left out and counted in a note.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns ``hardware_id``, ``x``, ``p5``, ``p25``, ``p50``, ``p75``, ``p95`` (and
        ``metric``, used for the axis label).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.
    metric : str, optional
        Name of the metric for the y label (default: the frame's ``metric`` column).
    x : str, default "interactivity_tok_per_s_per_user"
        Column of the x axis.
    colors : mapping, optional
        ``hardware_id -> colour`` overriding the fixed system colours.
    log_y : bool, optional
        Log y axis; default for money per token (names ending ``_usd_per_mtok``).
    title : str, optional
        Title.

    Returns
    -------
    matplotlib.axes.Axes
        The axes.

    Raises
    ------
    KeyError
        Missing columns.
    """
    _require(frame, ["hardware_id", x, "p5", "p25", "p50", "p75", "p95"], "fan")
    name = metric or (str(frame["metric"].iloc[0]) if "metric" in frame and len(frame) else "value")
    ax = _new_ax(ax)
    styles = hardware_colors(frame["hardware_id"])
    if log_y is None:
        log_y = name.endswith("_usd_per_mtok")
    # a frame without x values (a Monte Carlo over single operating points) has one slot per system
    by_system = not np.isfinite(_numeric(frame[x])).any()
    dropped = 0
    slots: list[str] = []
    for hid, sub in frame.groupby("hardware_id", sort=False):
        color = (colors or {}).get(str(hid), styles[str(hid)][0])
        sub = sub.sort_values(x)
        xs = np.full(len(sub), float(len(slots))) if by_system else _numeric(sub[x])
        q = {c: _numeric(sub[c]) for c in ("p5", "p25", "p50", "p75", "p95")}
        keep = np.isfinite(q["p50"]) & np.isfinite(xs) & ((q["p5"] > 0) if log_y else True)
        dropped += int((~keep).sum())
        if not keep.any():
            continue
        xs = xs[keep]
        q = {c: v[keep] for c, v in q.items()}
        label = display_name(str(hid))
        slots.append(label)
        if len(xs) > 1 and not by_system:
            ax.fill_between(xs, q["p5"], q["p95"], color=color, alpha=0.15, linewidth=0)
            ax.fill_between(xs, q["p25"], q["p75"], color=color, alpha=0.3, linewidth=0)
            ax.plot(xs, q["p50"], color=color, marker=styles[str(hid)][1], label=label)
        else:
            ax.vlines(xs, q["p5"], q["p95"], color=color, linewidth=1.5)
            ax.vlines(xs, q["p25"], q["p75"], color=color, linewidth=6, alpha=0.6)
            ax.plot(xs, q["p50"], color=color, marker=styles[str(hid)][1], linestyle="none", label=label)
    if log_y:  # plain decimals, as the other log axes (not 2x10^-1)
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(FuncFormatter(_minor_log_label))
    if by_system:
        ax.set_xticks(range(len(slots)), slots)
        ax.set_xlim(-0.5, len(slots) - 0.5)
        ax.set_xlabel("system")
    else:
        ax.set_xlabel(label_for(x))
    ax.set_ylabel(label_for(name, percent=_is_frac(name)))
    if dropped:
        _note(ax, f"{dropped} point(s) not shown (no finite or positive quantiles)")
    ax.set_title(title or "Monte Carlo: median, p25-p75 and p5-p95 of every system")
    if ax.lines:
        ax.legend(loc="best", fontsize="small")
    return ax


_TIER_LABELS: dict[str, str] = {"hbm": "HBM", "dram": "host DRAM", "cxl": "CXL pool", "ssd": "NVMe SSD"}


def engram_placement_map(
    frame: pd.DataFrame,
    ax: Axes | None = None,
    *,
    value: str = "stall_frac",
    title: str | None = None,
    colorbar: bool = True,
) -> Axes:
    """Map of engram placement: first engram layer x memory tier -> stall share, with throughput.

    Each cell is coloured by ``value`` (default the share of step time spent waiting for rows)
    and labelled with it and the throughput (input and output tokens); cells whose tables do not fit
    are hatched.

    Parameters
    ----------
    frame : pandas.DataFrame
        Output of :func:`tokenomics.perf.hierarchy.engram_placement` (columns
        ``engram_layer_index``, ``tier``, ``fits``, ``throughput_tok_per_s_per_gpu`` and ``value``).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).
    value : str, default "stall_frac"
        Column that colours the cells.
    title : str, optional
        Axes title.
    colorbar : bool, default True
        Draw a colour bar.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    KeyError
        If a column is missing.
    ValueError
        If a (layer, tier) pair appears twice.
    """
    _require(frame, ["engram_layer_index", "tier", "fits", "throughput_tok_per_s_per_gpu", value],
             "engram_placement_map")
    if frame.duplicated(["engram_layer_index", "tier"]).any():
        raise ValueError("engram_placement_map: duplicate (engram_layer_index, tier) rows; filter to one system")
    tiers = [t for t in ("hbm", "dram", "cxl", "ssd") if t in set(frame["tier"])]
    layers = sorted(frame["engram_layer_index"].unique())
    grid = frame.pivot(index="engram_layer_index", columns="tier", values=value).reindex(index=layers, columns=tiers)
    tput = frame.pivot(index="engram_layer_index", columns="tier",
                       values="throughput_tok_per_s_per_gpu").reindex(index=layers, columns=tiers)
    zz = grid.to_numpy(dtype=float, na_value=np.nan)
    ax = _new_ax(ax, figsize=(6.5, 0.6 * len(layers) + 2.0))
    finite = zz[np.isfinite(zz)]
    vmax = float(max(finite.max(), 0.01)) if finite.size else 0.01
    mesh = ax.pcolormesh(np.arange(len(tiers) + 1), np.arange(len(layers) + 1), zz, cmap="OrRd",
                         vmin=0.0, vmax=vmax, shading="flat")
    for i in range(len(layers)):
        for j in range(len(tiers)):
            z = zz[i, j]
            if not np.isfinite(z):
                ax.add_patch(Rectangle((j, i), 1, 1, hatch="///", fill=False, edgecolor="0.6"))
                ax.text(j + 0.5, i + 0.5, "does not fit", ha="center", va="center", fontsize=8, color="0.3")
                continue
            t = float(tput.iloc[i, j])
            ax.text(j + 0.5, i + 0.5, f"{z:.1%}\n{t:,.0f} tok/s/GPU", ha="center", va="center", fontsize=8,
                    color="white" if z > 0.6 * vmax else "black")
    ax.set_xticks(np.arange(len(tiers)) + 0.5)
    ax.set_xticklabels([_TIER_LABELS[t] for t in tiers])
    ax.set_yticks(np.arange(len(layers)) + 0.5)
    ax.set_yticklabels([str(v) for v in layers])
    ax.set_xlabel("where the engram tables are kept")
    ax.set_ylabel("first engram layer (0-based)")
    ax.invert_yaxis()
    if colorbar:
        cb = ax.figure.colorbar(mesh, ax=ax)
        cb.set_label(label_for(value, percent=True))
        cb.ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=1))
    if title:
        ax.set_title(title)
    return ax


_OFFLOAD_STYLES: dict[str, tuple[str, str, str]] = {
    "none": ("#000000", "-", "HBM only"),
    "dram": ("#0072B2", "--", "HBM + host DRAM"),
    "ssd": ("#D55E00", ":", "HBM + DRAM + NVMe SSD"),
}


def hit_rate_vs_concurrency(
    frame: pd.DataFrame,
    ax: Axes | None = None,
    *,
    x: str = "concurrency",
    y: str = "realized_cache_hit_frac",
    by: str = "kv_offload",
    title: str | None = None,
) -> Axes:
    """Realized prefix-cache hit rate against concurrent sessions, one line per KV offload mode.

    The workload's theoretical hit rate (column ``theoretical_cache_hit_frac``, where present)
    is drawn as a dotted ceiling.

    Parameters
    ----------
    frame : pandas.DataFrame
        Session projections (e.g. :func:`tokenomics.perf.sessions.project_session_curve` for
        each ``kv_offload`` mode, concatenated) or measured agentic runs.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on (default: a new figure).
    x, y : str
        Columns of concurrent sessions and hit rate.
    by : str, default "kv_offload"
        Column whose values get one line each (``none``, ``dram``, ``ssd``).
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on (log-scaled x).

    Raises
    ------
    KeyError
        If a column is missing.
    """
    _require(frame, [x, y, by], "hit_rate_vs_concurrency")
    ax = _new_ax(ax)
    for mode, sub in frame.groupby(by, sort=False):
        sub = sub.sort_values(x)
        color, dash, label = _OFFLOAD_STYLES.get(str(mode), ("#999999", "-.", str(mode)))
        ax.plot(_numeric(sub[x]), _numeric(sub[y]), color=color, linestyle=dash, marker="o", markersize=3,
                label=label)
    if "theoretical_cache_hit_frac" in frame.columns:
        ceiling = float(pd.to_numeric(frame["theoretical_cache_hit_frac"], errors="coerce").max())
        ax.axhline(ceiling, color="0.5", linestyle=":", linewidth=1)
        ax.annotate("theoretical (unbounded cache)", (0.01, ceiling), xycoords=("axes fraction", "data"),
                    va="bottom", fontsize=8, color="0.4")
    ax.set_xscale("log")
    ax.set_ylim(0.0, 1.05)
    ax.set_xlabel(label_for(x))
    ax.set_ylabel(label_for(y, percent=True))
    ax.yaxis.set_major_formatter(_PERCENT)
    ax.legend(loc="lower left", fontsize=8)
    if title:
        ax.set_title(title)
    return ax
