"""Agentic section of the report: cost per Mtok, realized cache hits and gross margin per system.

Shown when the report's workload is session traffic (``tokenomics report --workload
agentic-coding``). :func:`agentic_table` evaluates the chain (:func:`tokenomics.chain.evaluate`)
on each system's reference curve at the standard interactivities; :func:`agentic_body` renders
it (charts of cost and of gross margin across interactivity, and the table) for
:func:`tokenomics.outputs.report.sections.agentic_section`.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from tokenomics.chain import evaluate
from tokenomics.outputs.colors import system_style
from tokenomics.outputs.report.html import Column, figure_html, table_html

if TYPE_CHECKING:
    from tokenomics.outputs.report.build import Report, ReportOptions

__all__ = ["AGENTIC_COLUMNS", "agentic_body", "agentic_table"]

AGENTIC_COLUMNS: tuple[str, ...] = (
    "model_id", "hardware_id", "curve_kind", "interactivity_tok_per_s_per_user", "throughput_tok_per_s_per_gpu",
    "theoretical_cache_hit_frac", "realized_cache_hit_frac", "cost_usd_per_mtok", "cost_usd_per_output_mtok",
    "blended_price_usd_per_mtok", "license_fee_frac", "gross_margin_frac",
)
"""Columns of :func:`agentic_table` (meanings as in :data:`tokenomics.chain.CHAIN_COLUMNS`)."""


def agentic_table(curves: dict[tuple[str, str], Any], options: ReportOptions,
                  interactivities: tuple[float, ...]) -> pd.DataFrame:
    """Chain rows of a session workload per (model, system) at each interactivity on its curve.

    Parameters
    ----------
    curves : dict of (model_id, hardware_id) to ThroughputCurve
        The reference curves the report used.
    options : ReportOptions
        Workload, TCO basis, utilization, license fee, price provider.
    interactivities : tuple of float
        Operating points [tok/s/user]; those outside a curve's range are left out.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`AGENTIC_COLUMNS`; empty for a fixed-sequence workload. ``attrs["skipped"]``
        lists the (model, system, interactivity) left out, with the reason (outside the curve's
        interactivity range, or the chain's error).
    """
    if options.workload.is_fixed:
        return pd.DataFrame(columns=list(AGENTIC_COLUMNS))
    rows = []
    skipped: list[dict[str, Any]] = []
    for (model_id, hid), curve in curves.items():
        lo, hi = curve.interactivity_range
        for x in interactivities:
            if not lo <= x <= hi:
                skipped.append({"model_id": model_id, "hardware_id": hid, "interactivity_tok_per_s_per_user": x,
                                "reason": f"outside its curve ({lo:.0f}-{hi:.0f} tok/s/user)"})
                continue
            try:
                row = evaluate(model_id, hid, workload=options.workload, tco=options.tco, throughput_curve=curve,
                               interactivity_tok_per_s_per_user=x, utilization_frac=options.utilization_frac,
                               license_fee_frac=options.license_fee_frac, price_provider=options.price_provider)
            except (KeyError, ValueError) as err:
                skipped.append({"model_id": model_id, "hardware_id": hid, "interactivity_tok_per_s_per_user": x,
                                "reason": str(err).split("\n")[0]})
                continue
            rows.append(row[list(AGENTIC_COLUMNS)])
    out = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=list(AGENTIC_COLUMNS))
    out.attrs["skipped"] = skipped
    return out


def _figure(table: pd.DataFrame, model_id: str, column: str, title: str, y_title: str) -> dict[str, Any]:
    percent = column.endswith("_frac")
    traces = []
    sub = table[table["model_id"] == model_id]
    for hid, g in sub.groupby("hardware_id", sort=True):
        g = g.sort_values("interactivity_tok_per_s_per_user")
        style = system_style(str(hid))
        traces.append({
            "type": "scatter", "mode": "lines+markers", "name": f"{hid} ({g['curve_kind'].iloc[0]})",
            "x": [float(v) for v in g["interactivity_tok_per_s_per_user"]],
            "y": [float(v) for v in g[column]],
            "customdata": [float(v) for v in g["realized_cache_hit_frac"]],
            "line": {"color": style.color}, "marker": {"symbol": style.symbol, "color": style.color},
            "hovertemplate": (f"<b>{html.escape(str(hid))}</b><br>%{{x:.0f}} tok/s/user"
                              f"<br>%{{y:{'.1%' if percent else '.3g'}}}"
                              "<br>realized cache hits %{customdata:.0%}<extra></extra>"),
        })
    layout = {"title": {"text": title}, "xaxis": {"title": {"text": "interactivity [tok/s/user]"}},
              "yaxis": {"title": {"text": y_title}, **({"tickformat": ".0%"} if percent else {})},
              "template": "plotly_white", "height": 380}
    return {"data": traces, "layout": layout}


def agentic_body(rep: Report) -> list[str] | None:
    """Render the agentic table as HTML: charts and the table (None when the workload is not sessions)."""
    table = rep.tables.get("agentic")
    if table is None or table.empty:
        return None
    w = rep.options.workload
    body = [
        f"<p>Session workload <b>{html.escape(w.name)}</b>: {w.isl_tokens:,.0f} input tokens per request of which "
        f"{w.cached_prefix_frac:.0%} could be served from the prefix cache, {w.osl_tokens:,.0f} output tokens "
        f"({w.input_per_output_token:,.0f} input tokens per output token). Cached input is priced at the "
        "<i>realized</i> hit rate of each system at each interactivity (KV capacity vs the sessions' working "
        "set); the cost per output Mtok carries all cost on the output tokens. Table: <code>agentic.csv</code>.</p>"
    ]
    for mid in pd.unique(table["model_id"]):
        charts = [
            _figure(table, str(mid), "cost_usd_per_mtok", f"{mid}: cost per Mtok ({w.name})", "cost [USD/Mtok]"),
            _figure(table, str(mid), "gross_margin_frac", f"{mid}: gross margin ({w.name})",
                    "gross margin [%]"),
        ]
        body.append('<div class="grid">' + "".join(figure_html(f, f"agentic-{mid}-{i}")
                                                   for i, f in enumerate(charts)) + "</div>")
    columns = [
        Column("model_id", "model"), Column("hardware_id", "system"), Column("curve_kind", "curve"),
        Column("interactivity_tok_per_s_per_user", "interactivity [tok/s/user]", "{:.0f}"),
        Column("realized_cache_hit_frac", "realized cache hits [%]", "{:.0%}"),
        Column("cost_usd_per_mtok", "cost [USD/Mtok]", "{:.3f}"),
        Column("cost_usd_per_output_mtok", "cost [USD/output Mtok]", "{:.2f}"),
        Column("gross_margin_frac", "gross margin [%]", "{:.0%}"),
    ]
    ordered = table.sort_values(["model_id", "hardware_id", "interactivity_tok_per_s_per_user"])
    body.append(table_html(ordered.replace([np.inf, -np.inf], np.nan), columns))
    skipped = table.attrs.get("skipped") or []
    if skipped:
        items = "".join(
            f"<li>{html.escape(str(r['model_id']))} on {html.escape(str(r['hardware_id']))} at "
            f"{r['interactivity_tok_per_s_per_user']:g} tok/s/user: {html.escape(str(r['reason']))}</li>"
            for r in skipped)
        body.append(f"<p>Not in the table ({len(skipped)}; also in <code>skipped.csv</code>):</p>"
                    f"<ul class=\"skipped\">{items}</ul>")
    return body
