"""The report page: sections, selectors, inline plotly.js and the script that draws the charts.

The sections are those of :data:`~tokenomics.outputs.report.sections.SECTIONS`; the script draws
every chart on load and applies the TCO, workload and configuration selectors to charts and tables.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Sequence

import pandas as pd

from tokenomics._version import __version__
from tokenomics.outputs.report.build import Report
from tokenomics.outputs.report.sections import SECTIONS, Section, SectionBuilder

__all__ = ["render_html"]

_CSS = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:1280px;margin:0 auto;
padding:0 1.2em 3em;color:#222;line-height:1.45;font-size:15px}
header{position:sticky;top:0;z-index:10;background:#fff;border-bottom:1px solid #ddd;padding:.6em 0 .5em}
h1{font-size:1.5em;margin:.5em 0 .2em}h2{margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em;
font-size:1.25em}
nav{font-size:.85em;margin:.3em 0;display:flex;flex-wrap:wrap;gap:.1em .9em}nav a{white-space:nowrap}
.controls{display:flex;flex-wrap:wrap;gap:.4em 1.4em;align-items:center;font-size:.9em}
.controls label{white-space:nowrap}.controls select{font-size:1em;max-width:100%}
.table-wrap{max-width:100%;overflow-x:auto;margin:.6em 0}
table{border-collapse:collapse;font-size:.84em}
th,td{border:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f4f4f4;font-weight:600}th.group{text-align:center}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}td.num{white-space:nowrap}
th{min-width:4.5em}.unit{white-space:nowrap}
td.date{white-space:nowrap}td.src{min-width:24em;max-width:36em;overflow-wrap:anywhere}
.sources td:nth-child(3){max-width:22em;overflow-wrap:anywhere;font-size:.92em}
figure{margin:0;min-width:0}
.chart{width:100%;height:600px}
figcaption{font-weight:600;font-size:.95em;margin:.8em 0 0}
table.compact td.text{white-space:nowrap}
td[data-kind=anchored],td[data-kind=projected]{font-style:italic}
.note{color:#555;font-size:.9em;max-width:70em}
.grid{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1em}
@media (max-width:1000px){.grid{grid-template-columns:minmax(0,1fr)}}
a{color:#0b5cad}
"""

_JS = r"""
(function () {
  function value(id) { var el = document.getElementById(id); return el ? el.value : null; }
  function state() {
    var box = document.getElementById('show-configs');
    return {tco: value('sel-tco'), workload: value('sel-workload'), configs: !!(box && box.checked)};
  }
  function wanted(meta, st) {
    if (!meta) { return true; }
    if (meta.tco && st.tco && meta.tco !== st.tco) { return false; }
    if (meta.workload && st.workload && meta.workload !== st.workload) { return false; }
    if (meta.role === 'configs') { return st.configs; }
    return true;
  }
  function apply() {
    var st = state();
    document.querySelectorAll('[data-workload]').forEach(function (el) {
      el.style.display = (!st.workload || el.dataset.workload === st.workload) ? '' : 'none';
    });
    document.querySelectorAll('tr[data-tco]').forEach(function (el) {
      el.style.display = (!st.tco || el.dataset.tco === st.tco) ? '' : 'none';
    });
    document.querySelectorAll('.chart').forEach(function (div) {
      if (!div.data) { return; }
      var vis = div.data.map(function (tr) {
        var on = wanted(tr.meta, st);
        return on ? (tr.visible === 'legendonly' ? 'legendonly' : true) : false;
      });
      Plotly.restyle(div, {visible: vis});
      if (div.offsetParent !== null) { Plotly.Plots.resize(div); }
    });
  }
  function draw() {
    var st = state();
    var scripts = document.querySelectorAll('script.fig-data');
    var pending = [];
    scripts.forEach(function (s) {
      var fig = JSON.parse(s.textContent);
      fig.data.forEach(function (tr) {
        tr.visible = wanted(tr.meta, st) ? (tr.visible === false ? true : tr.visible) : false;
      });
      var div = document.getElementById(s.dataset.target);
      pending.push(Plotly.newPlot(div, fig.data, fig.layout, {
        responsive: true, displaylogo: false,
        toImageButtonOptions: {format: 'png', scale: 2, filename: s.dataset.target}
      }));
    });
    ['sel-tco', 'sel-workload', 'show-configs'].forEach(function (id) {
      var el = document.getElementById(id);
      if (el) { el.addEventListener('change', apply); }
    });
    Promise.all(pending).then(function () { apply(); window.tokenomicsReportReady = true; });
  }
  if (document.readyState === 'loading') { document.addEventListener('DOMContentLoaded', draw); } else { draw(); }
})();
"""


def _options(values: Sequence[str], selected: str) -> str:
    return "".join(
        f'<option value="{html.escape(v)}"{" selected" if v == selected else ""}>{html.escape(v)}</option>'
        for v in values)


def _controls(rep: Report) -> str:
    opts = rep.options
    tco_labels = [str(v) for v in pd.unique(rep.tables["tco_rates"]["tco_label"])]
    workloads = [str(v) for v in pd.unique(rep.tables["curve_points"]["workload"])]
    parts = [f'<label>TCO basis and tier <select id="sel-tco">{_options(tco_labels, opts.tco_label())}</select>'
             "</label>"]
    parts.append(f'<label>workload <select id="sel-workload">{_options(workloads, opts.workload_label())}</select>'
                 "</label>")
    parts.append('<label><input type="checkbox" id="show-configs"> show individual configurations</label>')
    return f'<div class="controls">{"".join(parts)}</div>'


def _sections(rep: Report, builders: Sequence[SectionBuilder]) -> list[Section]:
    out: list[Section] = []
    for build in builders:
        got = build(rep)
        if got is None:
            continue
        out.extend(got if isinstance(got, list) else [got])
    return out


def render_html(rep: Report, *, elapsed_s: float = 0.0, files: Sequence[str] = (),
                sections: Sequence[SectionBuilder] | None = None) -> str:
    """Render the report as one self-contained HTML page (plotly.js inline; works offline).

    Parameters
    ----------
    rep : Report
        A built report.
    elapsed_s : float, default 0
        Time the report took [s], shown in the page.
    files : sequence of str, optional
        Files written beside the page (listed at the end).
    sections : sequence of SectionBuilder, optional
        Builders to render (default :data:`~tokenomics.outputs.report.sections.SECTIONS`).

    Returns
    -------
    str
        The page.
    """
    from plotly.offline import get_plotlyjs

    opts = rep.options
    blocks = _sections(rep, SECTIONS if sections is None else sections)
    nav = "".join(f'<a href="#{html.escape(s.id)}">{html.escape(s.title)}</a>' for s in blocks)
    parts = [
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>",
        "<meta name=viewport content='width=device-width, initial-scale=1'>",
        f"<title>tokenomics report</title><style>{_CSS}</style>",
        f"<script>{get_plotlyjs()}</script></head><body>",
        "<header><h1>LLM inference economics: cost per million tokens and gross margin</h1>",
        f"<nav>{nav}</nav>{_controls(rep)}</header>",
        f"<p class=note>tokenomics {html.escape(__version__)}, generated "
        f"{dt.datetime.now(dt.UTC).strftime('%Y-%m-%d %H:%M UTC')} in {elapsed_s:.1f} s. "
        f"Models: {html.escape(', '.join(opts.models))}. TCO: {html.escape(opts.tco_label())}. "
        f"Utilization {opts.utilization_frac:.0%}, {html.escape(opts.workload_label())}"
        f"{', ' + html.escape(opts.offload_label()) if opts.offload_label() else ''}. "
        "Charts are interactive: hover for details, drag to zoom, click legend entries to hide systems. "
        "Every assumption and source is listed at the end.</p>",
    ]
    for s in blocks:
        parts.append(f'<section id="{html.escape(s.id)}"><h2>{html.escape(s.title)}</h2>')
        parts.extend(b for b in s.body if b)
        parts.append("</section>")
    if files:
        parts.append("<p class=note>Files beside this page: "
                     + ", ".join(f"<code>{html.escape(n)}</code>" for n in files) + ".</p>")
    parts.append(f"<script>{_JS}</script></body></html>")
    return "\n".join(parts)
