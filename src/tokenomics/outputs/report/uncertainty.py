"""Report section "uncertainty": Monte Carlo over the headline rows of every model.

For each model, :func:`tokenomics.monte_carlo` draws the headline rows' uncertain inputs jointly
(estimate/unverified catalog values by their stated spreads, projected throughput by its band,
utilization uniform within +-0.2 of the report's value) with a fixed seed, so the section is
reproducible; the section shows the cost distribution per system (p5, p25, median, p75, p95),
P(gross margin > 50 %) and the share of draws in which each system is the cheapest.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
from scipy import stats

from tokenomics.outputs.colors import system_style
from tokenomics.outputs.report.build import Report
from tokenomics.outputs.report.html import Column, figure_html, table_html
from tokenomics.outputs.report.sections import Section, _layout, _list, _name, _num, _short

__all__ = ["MC_DRAWS", "MC_TARGET_MARGIN_FRAC", "uncertainty_section", "uncertainty_table"]

MC_DRAWS: int = 2048
"""Joint draws per model (a power of two: scrambled Sobol' points)."""

MC_TARGET_MARGIN_FRAC: float = 0.5
"""Gross-margin target of the P(margin > target) column."""

_UTILIZATION_HALF_WIDTH = 0.2


def uncertainty_table(rep: Report, model_id: str) -> pd.DataFrame | None:
    """Monte Carlo summary of one model's headline rows (None when there is nothing to draw).

    Parameters
    ----------
    rep : Report
        A built report.
    model_id : str
        Model of the headline rows.

    Returns
    -------
    pandas.DataFrame or None
        One row per system: ``hardware_id``, ``curve_kind``, cost quantiles ``cost_p5`` ..
        ``cost_p95`` [USD/Mtok], ``prob_margin_above``, ``cheapest_frac``.
    """
    from tokenomics.analysis.montecarlo import monte_carlo

    head = rep.tables.get("headline")
    if head is None or head.empty:
        return None
    rows = head[head["model_id"] == model_id].drop_duplicates("hardware_id").reset_index(drop=True)
    if rows.empty:
        return None
    u = float(rows["utilization_frac"].iloc[0])
    lo, hi = max(u - _UTILIZATION_HALF_WIDTH, 0.05), min(u + _UTILIZATION_HALF_WIDTH, 1.0)
    result = monte_carlo(rows, n_draws=MC_DRAWS, seed=0, utilization_frac=stats.uniform(lo, hi - lo),
                         target_margin_frac=MC_TARGET_MARGIN_FRAC)
    cost = result.draws["cost_usd_per_mtok"].to_numpy()
    cheapest = np.bincount(np.argmin(cost, axis=1), minlength=cost.shape[1]) / cost.shape[0]
    fan = result.fan("cost_usd_per_mtok")
    out = pd.DataFrame({
        "hardware_id": fan["hardware_id"].astype(str),
        "curve_kind": rows["curve_kind"].astype(str) if "curve_kind" in rows else "given",
        "cost_p5": fan["p5"], "cost_p25": fan["p25"], "cost_p50": fan["p50"], "cost_p75": fan["p75"],
        "cost_p95": fan["p95"],
        "prob_margin_above": result.margin_above_frac.to_numpy(),
        "cheapest_frac": cheapest,
    })
    out.attrs["utilization_range"] = (lo, hi)
    return out.sort_values("cost_p50", ignore_index=True)


def _figure(model_id: str, table: pd.DataFrame) -> dict:
    traces = []
    for rec in table.to_dict("records"):
        hid = str(rec["hardware_id"])
        style = system_style(hid)
        traces.append({
            "type": "box", "name": _short(hid), "x": [_short(hid)],
            "q1": [rec["cost_p25"]], "median": [rec["cost_p50"]], "q3": [rec["cost_p75"]],
            "lowerfence": [rec["cost_p5"]], "upperfence": [rec["cost_p95"]],
            "marker": {"color": style.color}, "line": {"color": style.color}, "showlegend": False,
            "hovertemplate": (f"<b>{html.escape(_name(hid))}</b><br>median %{{median:$.3f}}/Mtok<extra></extra>"),
        })
    ys = np.concatenate([_num(table["cost_p5"]), _num(table["cost_p95"])])
    layout = _layout(f"{model_id}: cost per Mtok across {MC_DRAWS} joint draws (box p25-p75, whiskers p5-p95)",
                     "", "cost [USD/Mtok]", yaxis={"type": "log"})
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
        lo, hi = table.attrs["utilization_range"]
        note = (f"<p class=note>{MC_DRAWS} joint draws (seed 0) of every uncertain input: catalog values marked "
                "estimate or unverified vary by their stated spreads (data/uncertainty/spreads.csv), projected "
                f"throughput by its band, utilization uniformly in {lo:.0%}-{hi:.0%}. Systems share the draws of "
                "shared inputs, so the cheapest share compares them in the same world.</p>")
        columns = [
            Column("hardware_id", "system"), Column("curve_kind", "curve"),
            Column("cost_p5", "cost p5 [USD/Mtok]", "{:.3f}"), Column("cost_p50", "median [USD/Mtok]", "{:.3f}"),
            Column("cost_p95", "p95 [USD/Mtok]", "{:.3f}"),
            Column("prob_margin_above", f"P(margin > {MC_TARGET_MARGIN_FRAC:.0%}) [%]", "{:.1%}"),
            Column("cheapest_frac", "cheapest in [% of draws]", "{:.1%}"),
        ]
        shown = table.assign(hardware_id=[_name(h) for h in table["hardware_id"]])
        body = [note, figure_html(_figure(mid, table), f"{mid}-uncertainty"), table_html(shown, columns)]
        sections.append(Section(f"uncertainty-{mid}", f"{mid}: uncertainty (Monte Carlo)", body))
    return sections or None
