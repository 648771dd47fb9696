"""Report section "uncertainty": the Monte Carlo over the headline rows of every model, rendered.

The numbers come from the report's evaluation step (``rep.tables["uncertainty"]``,
:func:`tokenomics.outputs.report.build.uncertainty_table`); this module only draws them: the cost
distribution per system (p5, p25, median, p75, p95), P(gross margin > 50 %), the share of draws
in which each system is the cheapest, and the median energy per token.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd

from tokenomics.outputs.colors import system_style
from tokenomics.outputs.report.build import MC_DRAWS, MC_TARGET_MARGIN_FRAC, Report
from tokenomics.outputs.report.html import Column, figure_html, log_axis, table_html
from tokenomics.outputs.report.sections import Section, _layout, _list, _name, _num, _short

__all__ = ["MC_DRAWS", "MC_TARGET_MARGIN_FRAC", "uncertainty_section", "uncertainty_table"]


def uncertainty_table(rep: Report, model_id: str) -> pd.DataFrame | None:
    """Rows of one model in the report's Monte Carlo table (None when there are none).

    Parameters
    ----------
    rep : Report
        A built report.
    model_id : str
        Model of the headline rows.

    Returns
    -------
    pandas.DataFrame or None
        One row per system (:data:`tokenomics.outputs.report.build.UNCERTAINTY_COLUMNS`), by
        median cost.
    """
    table = rep.tables.get("uncertainty")
    if table is None or table.empty:
        return None
    rows = table[table["model_id"] == model_id].reset_index(drop=True)
    return None if rows.empty else rows


def _figure(model_id: str, table: pd.DataFrame) -> dict:
    traces = []
    for rec in table.to_dict("records"):
        hid = str(rec["hardware_id"])
        style = system_style(hid)
        traces.append({
            "type": "box", "name": _short(hid), "x": [_short(hid)],
            "q1": [rec["cost_p25_usd_per_mtok"]], "median": [rec["cost_p50_usd_per_mtok"]],
            "q3": [rec["cost_p75_usd_per_mtok"]], "lowerfence": [rec["cost_p5_usd_per_mtok"]],
            "upperfence": [rec["cost_p95_usd_per_mtok"]],
            "marker": {"color": style.color}, "line": {"color": style.color}, "showlegend": False,
            "hovertemplate": (f"<b>{html.escape(_name(hid))}</b><br>median %{{median:$.3f}}/Mtok<extra></extra>"),
        })
    ys = np.concatenate([_num(table["cost_p5_usd_per_mtok"]), _num(table["cost_p95_usd_per_mtok"])])
    n = int(table["n_draws"].iloc[0])
    layout = _layout(f"{model_id}: cost per Mtok across {n} joint draws (box p25-p75, whiskers p5-p95)",
                     "", "cost [USD/Mtok]", yaxis=log_axis(ys))
    if np.isfinite(ys).any():
        layout["yaxis"]["range"] = _list(np.log10([np.nanmin(ys) * 0.8, np.nanmax(ys) * 1.25]))
    return {"data": traces, "layout": layout}


def uncertainty_section(rep: Report) -> list[Section] | None:
    """Per model: the Monte Carlo cost distribution per system, P(margin > 50 %), cheapest share."""
    sections = []
    for mid in rep.options.models:
        table = uncertainty_table(rep, mid)
        if table is None:
            continue
        lo, hi = float(table["utilization_low_frac"].iloc[0]), float(table["utilization_high_frac"].iloc[0])
        n = int(table["n_draws"].iloc[0])
        note = (f"<p class=note>{n} joint draws (seed 0) of every uncertain input: catalog values marked "
                "estimate or unverified vary by their stated spreads (data/uncertainty/spreads.csv), projected "
                f"throughput by its band, utilization uniformly in {lo:.0%}-{hi:.0%}. Systems share the draws of "
                "shared inputs, so the cheapest share compares them in the same world.</p>")
        columns = [
            Column("hardware_id", "system"), Column("curve_kind", "curve"),
            Column("cost_p5_usd_per_mtok", "cost p5 [USD/Mtok]", "{:.3f}"),
            Column("cost_p50_usd_per_mtok", "median [USD/Mtok]", "{:.3f}"),
            Column("cost_p95_usd_per_mtok", "p95 [USD/Mtok]", "{:.3f}"),
            Column("prob_margin_above_frac", f"P(margin > {MC_TARGET_MARGIN_FRAC:.0%}) [%]", "{:.1%}"),
            Column("cheapest_frac", "cheapest in [% of draws]", "{:.1%}"),
            Column("energy_p50_j_per_token", "median energy [J/token]", "{:.3g}"),
        ]
        shown = table.assign(hardware_id=[_name(h) for h in table["hardware_id"]])
        body = [note, figure_html(_figure(mid, table), f"{mid}-uncertainty"), table_html(shown, columns)]
        sections.append(Section(f"uncertainty-{mid}", f"{mid}: uncertainty (Monte Carlo)", body))
    return sections or None
