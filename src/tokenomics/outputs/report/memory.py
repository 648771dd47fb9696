"""Memory-hierarchy section of the report: KV offload and engram placement.

:func:`memory_tables` computes, for up to three of the report's systems (an x86 + PCIe host, a
Grace / Vera host and a TPU where present), the engram placement map of the public demo layout
scaled to 100 B parameters on DeepSeek-V3 (:func:`tokenomics.analysis.memory.memory_hierarchy_tables`)
and, when the report's workload is session traffic, its first model's session curve with each
KV offload mode. :func:`memory_body` renders them for
:func:`tokenomics.outputs.report.sections.memory_section`.
"""

from __future__ import annotations

import contextlib
import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from tokenomics import catalog
from tokenomics.analysis.memory import memory_hierarchy_tables
from tokenomics.memory.engram import engram_config
from tokenomics.outputs.report.html import Column, figure_html, log_axis, table_html
from tokenomics.workload import workload

if TYPE_CHECKING:
    from tokenomics.outputs.report.build import Report, ReportOptions

__all__ = ["ENGRAM_PARAMS", "MEMORY_SYSTEMS", "memory_body", "memory_tables"]

MEMORY_SYSTEMS: tuple[str, ...] = ("b200", "gb200-nvl72", "tpu-v7")
"""Systems of the memory section, one per kind of host link: PCIe 5.0, NVLink-C2C, TPU host."""

ENGRAM_PARAMS: float = 100e9
"""Engram table size of the placement map: the 100 B parameters of the published host-DRAM claim."""

_OFFLOAD_COLORS = {"none": "#000000", "dram": "#0072B2", "ssd": "#D55E00"}
_TIER_NAMES = {"hbm": "HBM", "dram": "host DRAM", "cxl": "CXL pool", "ssd": "NVMe SSD"}


def memory_tables(options: ReportOptions, hardware: Sequence[str]) -> dict[str, pd.DataFrame]:
    """KV offload curves (session workloads) and engram placement maps of the report's systems.

    Parameters
    ----------
    options : ReportOptions
        The report's models and workload.
    hardware : sequence of str
        Systems the report evaluates; those of :data:`MEMORY_SYSTEMS` among them are used.

    Returns
    -------
    dict of str to pandas.DataFrame
        ``memory_offload`` (empty for a fixed-sequence workload; ``model_id`` the report's first
        model), ``memory_engram`` (``model_id`` the engram backbone) and ``memory_skipped`` (also
        every requested system outside :data:`MEMORY_SYSTEMS`).
    """
    chosen = [catalog.hardware(h) for h in MEMORY_SYSTEMS if h in set(hardware)]
    # the requested systems this section leaves out, said in memory_skipped.csv
    left = pd.DataFrame({"hardware_id": [h for h in hardware if h not in MEMORY_SYSTEMS], "table": "memory",
                         "reason": f"the memory section covers {', '.join(MEMORY_SYSTEMS)} only"})
    if not chosen:
        empty = pd.DataFrame()
        return {"memory_offload": empty, "memory_engram": empty, "memory_skipped": left}
    sessions = options.workload if not options.workload.is_fixed else None
    model, engram_model = catalog.model(options.models[0]), catalog.model("deepseek-v3")
    out = memory_hierarchy_tables(
        model, chosen, sessions if sessions is not None else workload("agentic-coding"),
        engram_model=engram_model, engram=engram_config("engram-demo").scaled_to(ENGRAM_PARAMS),
        offload=sessions is not None,
        cost_usd_per_gpu_hour=_tco_rates(options, [h.hardware_id for h in chosen]),
        utilization_frac=options.utilization_frac,
    )
    for name, model_id in (("memory_offload", model.model_id), ("memory_engram", engram_model.model_id)):
        if len(out[name]) and "model_id" not in out[name].columns:
            out[name].insert(0, "model_id", model_id)
    if len(left):
        out["memory_skipped"] = pd.concat([out["memory_skipped"], left], ignore_index=True)
    return out


def _tco_rates(options: ReportOptions, hardware: Sequence[str]) -> dict[str, float]:
    rates = {}
    for hid in hardware:
        with contextlib.suppress(KeyError, ValueError):
            rates[hid] = float(options.tco.tco(hid).usd_per_gpu_hour)
    return rates


def _offload_figure(table: pd.DataFrame, y: str, title: str, y_title: str) -> dict[str, Any]:
    percent = y.endswith("_frac")
    traces = []
    for (hid, mode), g in table.groupby(["hardware_id", "kv_offload"], sort=True):
        g = g.sort_values("concurrency")
        traces.append({
            "type": "scatter", "mode": "lines+markers", "name": f"{hid} · {mode}",
            "x": [float(v) for v in g["concurrency"]], "y": [float(v) for v in g[y]],
            "line": {"color": _OFFLOAD_COLORS.get(str(mode), "#999999"),
                     "dash": {"b200": "solid", "gb200-nvl72": "dash"}.get(str(hid), "dot")},
            "hovertemplate": (f"<b>{html.escape(str(hid))}</b>, kv_offload {html.escape(str(mode))}<br>"
                              f"%{{x:.0f}} sessions<br>%{{y:{'.1%' if percent else '.3g'}}}<extra></extra>"),
        })
    layout = {"title": {"text": title},
              "xaxis": {"title": {"text": "concurrent sessions"}, **log_axis(table["concurrency"].to_numpy())},
              "yaxis": {"title": {"text": y_title}, **({"tickformat": ".0%"} if percent else {})},
              "template": "plotly_white", "height": 380}
    return {"data": traces, "layout": layout}


def _engram_figure(table: pd.DataFrame, hid: str) -> dict[str, Any]:
    """Heat map of one system's engram stall; all systems of ``table`` share one colour scale."""
    sub = table[table["hardware_id"] == hid]
    top = float(table["stall_frac"].max()) * 100
    tiers = [t for t in ("hbm", "dram", "cxl", "ssd") if t in set(sub["tier"])]
    layers = sorted(int(v) for v in pd.unique(sub["engram_layer_index"]))
    grid = sub.pivot(index="engram_layer_index", columns="tier", values="stall_frac").reindex(index=layers,
                                                                                             columns=tiers)
    z = [[None if pd.isna(v) else float(v) * 100 for v in row] for row in grid.to_numpy()]
    return {
        "data": [{"type": "heatmap", "x": [_TIER_NAMES[t] for t in tiers], "y": [str(v) for v in layers], "z": z,
                  "colorscale": "OrRd", "zmin": 0, "zmax": top if top > 0 else 1, "xgap": 2, "ygap": 2,
                  "colorbar": {"title": {"text": "stall [%]"}},
                  "hovertemplate": "first engram layer %{y}, %{x}: stall %{z:.2f} %<extra></extra>"}],
        "layout": {"title": {"text": f"{hid}: engram stall by placement"},
                   "xaxis": {"title": {"text": "where the tables are kept"}},
                   "yaxis": {"title": {"text": "first engram layer"}, "autorange": "reversed", "type": "category"},
                   "template": "plotly_white", "height": 340},
    }


def memory_body(rep: Report) -> list[str] | None:
    """Render the memory-hierarchy tables as HTML (None when no chosen system is in the report)."""
    engram = rep.tables.get("memory_engram")
    offload = rep.tables.get("memory_offload")
    if engram is None or engram.empty:
        return None
    body = [
        "<p>HBM is the scarce resource. Two ways to stretch it, modelled per system from its memory tiers "
        "(hardware catalog: host DRAM and its link, NVMe, CXL): <b>KV offload</b> keeps evicted session "
        "prefixes in host DRAM or NVMe and brings them back over the link instead of prefilling them again; "
        "<b>engram tables</b> (hashed n-gram embeddings, arXiv 2601.07372) kept outside HBM free it for KV "
        "cache, and the layers before the engram layer hide the row fetch.</p>"
    ]
    if offload is not None and not offload.empty:
        charts = [
            _offload_figure(offload, "realized_cache_hit_frac", "realized prefix-cache hits by KV offload mode",
                            "realized cache hits [%]"),
            _offload_figure(offload, "throughput_tok_per_s_per_gpu", "throughput by KV offload mode",
                            "throughput [tok/s/GPU]"),
        ]
        body.append('<div class="grid">' + "".join(figure_html(f, f"memory-offload-{i}")
                                                   for i, f in enumerate(charts)) + "</div>")
        body.append("<p class=note>Session projection of the report's first model on its workload; "
                    "Table: <code>memory_offload.csv</code>.</p>")
    else:
        body.append("<p class=note>KV offload matters for session traffic: run "
                    "<code>tokenomics report --workload agentic-coding --kv-offload dram</code> for its curves.</p>")
    hids = list(pd.unique(engram["hardware_id"]))
    body.append('<div class="grid">' + "".join(figure_html(_engram_figure(engram, str(h)), f"memory-engram-{h}")
                                               for h in hids) + "</div>")
    wide = engram.pivot_table(index=["hardware_id", "engram_layer_index"], columns="tier", values="stall_frac",
                              sort=True).reset_index()
    cap = engram.pivot_table(index="hardware_id", columns="tier", values="max_concurrency", aggfunc="first")
    wide["kv_in_hbm"] = wide["hardware_id"].map(cap["hbm"]) if "hbm" in cap else float("nan")
    outside = [t for t in ("dram", "cxl", "ssd") if t in cap.columns]
    wide["kv_outside"] = wide["hardware_id"].map(cap[outside].max(axis=1)) if outside else float("nan")
    columns = [Column("hardware_id", "system"), Column("engram_layer_index", "first engram layer", "{:.0f}")]
    columns += [Column(t, f"stall, tables in {_TIER_NAMES[t]}", "{:.2%}") for t in ("hbm", "dram", "cxl", "ssd")
                if t in wide.columns]
    columns += [Column("kv_in_hbm", "KV capacity, tables in HBM [sequences]", "{:,.0f}"),
                Column("kv_outside", "KV capacity, tables outside HBM [sequences]", "{:,.0f}")]
    if "cost_usd_per_mtok" in engram.columns:
        cost = engram.pivot_table(index=["hardware_id", "engram_layer_index"], columns="tier",
                                  values="cost_usd_per_mtok", sort=True)
        for t in cost.columns:
            wide[f"cost_{t}"] = cost[t].to_numpy()
            columns.append(Column(f"cost_{t}", f"cost, tables in {_TIER_NAMES[str(t)]} [USD/Mtok]", "{:.3f}"))
    body.append(table_html(wide, columns,
                           table_class="compact",
                           caption="DeepSeek-V3 (61 layers) with the public engram demo layout scaled to 100 B "
                                   "parameters (200 GB BF16, sharded over an 8-GPU replica), decode at up to 1,024 "
                                   "sequences. Table: <code>memory_engram.csv</code>."))
    return body
