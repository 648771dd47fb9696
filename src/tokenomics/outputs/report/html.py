"""HTML building blocks of the report page: formatted tables and embedded plotly charts.

Tables put the unit of every column in its header and format each column with its own rule
(:class:`Column`); sources become links, dates never wrap. Charts are plotly figures serialised
as JSON into the page and drawn by the plotly.js bundled inline (no network at view time).
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "HEADLINE_COLUMNS",
    "Column",
    "figure_html",
    "format_value",
    "headline_cells",
    "headline_table_html",
    "log_axis",
    "table_html",
]

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


@dataclass(frozen=True)
class Column:
    """One column of an HTML table.

    Attributes
    ----------
    key : str
        Column of the frame.
    header : str
        Header text, with the unit in brackets.
    fmt : str
        ``"text"``, ``"link"`` (URLs in the text become links), ``"date"`` (never wrapped), or a
        :meth:`str.format` pattern for numbers (right-aligned; NaN shows as a dash).
    """

    key: str
    header: str
    fmt: str = "text"


def _plain(value: Any) -> Any:
    if value is None or value is pd.NA:
        return None
    if isinstance(value, np.generic):
        return value.item()
    return value


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and not math.isfinite(value))


def format_value(value: Any, fmt: str) -> str:
    """Format a number with a :meth:`str.format` pattern, never as a negative zero.

    Parameters
    ----------
    value : float
        The number.
    fmt : str
        Pattern, e.g. ``"{:.0%}"``.

    Returns
    -------
    str
        The text; a value that rounds to zero has no minus sign.

    Examples
    --------
    >>> format_value(-0.004, "{:.0%}")
    '0%'
    >>> format_value(-0.006, "{:.0%}")
    '-1%'
    """
    text = fmt.format(value)
    return text[1:] if text.startswith("-") and not re.search(r"[1-9]", text) else text


def _fmt(value: Any, fmt: str) -> str:
    if _missing(value):
        return "not reachable" if "%" in fmt else "-"
    try:
        return format_value(value, fmt)
    except (ValueError, TypeError):
        return str(value)


def _tick_text(value: float) -> str:
    return f"{value:,.0f}" if value >= 1000 else f"{value:g}"


def log_axis(values: Sequence[float] | np.ndarray) -> dict[str, Any]:
    """Return the plotly settings of a log axis over ``values``, labelled with plain numbers.

    Ticks run 1-2-5 per decade when the values span up to three decades (1-2-3-5 within one),
    one per decade beyond; every label is the whole number (``0.2``, ``5``, ``10,000``),
    never a bare mantissa.

    Parameters
    ----------
    values : sequence of float
        The values drawn on the axis, in its unit; non-finite and non-positive ones are ignored.

    Returns
    -------
    dict
        ``type``, ``tickvals`` and ``ticktext`` of a plotly axis (only ``type`` when no value is
        positive).
    """
    arr = np.asarray(values, dtype=float).ravel()
    arr = arr[np.isfinite(arr) & (arr > 0)]
    if arr.size == 0:
        return {"type": "log"}
    lo, hi = float(arr.min()), float(arr.max())
    decades = math.log10(hi / lo)
    steps = (1.0, 2.0, 3.0, 5.0) if decades < 1 else (1.0, 2.0, 5.0) if decades <= 3 else (1.0,)
    ticks = [float(f"{m * 10.0 ** e:.6g}") for e in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1)
             for m in steps]
    return {"type": "log", "tickvals": ticks, "ticktext": [_tick_text(v) for v in ticks]}


_URL = re.compile(r"(https?://[^\s,;()\[\]<>\"']+|(?<![\w/.])github\.com/[^\s,;()\[\]<>\"']+)")


def link_text(text: str) -> str:
    """Escape ``text`` for HTML and turn every URL in it into a link with a short label.

    Parameters
    ----------
    text : str
        Free text, e.g. a source citation.

    Returns
    -------
    str
        HTML.

    Examples
    --------
    >>> link_text("see https://example.org/a/b (2026)")
    'see <a href="https://example.org/a/b" title="https://example.org/a/b">example.org/a/b</a> (2026)'
    """
    out, last = [], 0
    for m in _URL.finditer(text):
        out.append(html.escape(text[last:m.start()]))
        url = m.group(0).rstrip(".")
        href = url if url.startswith("http") else f"https://{url}"
        label = re.sub(r"^https?://(www\.)?", "", url)
        if len(label) > 48:
            label = label[:30] + "…" + label[-15:]
        out.append(f'<a href="{html.escape(href)}" title="{html.escape(href)}">{html.escape(label)}</a>')
        last = m.start() + len(url)
    out.append(html.escape(text[last:]))
    return "".join(out)


def _header_text(text: str) -> str:
    """Escape a header; a bracketed unit stays on one line (``[USD/GPU-hour]`` never breaks)."""
    return re.sub(r"(\[[^\]]*\])", r'<span class="unit">\1</span>', html.escape(text))


def _cell(value: Any, col: Column, attrs: dict[str, str] | None = None) -> str:
    value = _plain(value)
    extra = "".join(f' {k}="{html.escape(v)}"' for k, v in (attrs or {}).items())
    if col.fmt == "link":
        return f"<td class=src{extra}>{link_text('' if _missing(value) else str(value))}</td>"
    if col.fmt == "date":
        text = "" if _missing(value) else str(value)[:10]
        return f"<td class=date{extra}>{html.escape(text)}</td>"
    if col.fmt == "text":
        return f"<td class=text{extra}>{html.escape('' if _missing(value) else str(value))}</td>"
    text = "-" if _missing(value) else _fmt(value, col.fmt)
    return f"<td class=num{extra}>{html.escape(text)}</td>"


def table_html(
    frame: pd.DataFrame,
    columns: Sequence[Column],
    *,
    caption: str = "",
    table_id: str = "",
    table_class: str = "",
    row_attr: Callable[[dict[str, Any]], dict[str, str]] | None = None,
    group_headers: Sequence[tuple[str, int]] | None = None,
    header_override: dict[str, str] | None = None,
    cell_attr: Callable[[dict[str, Any], Column], dict[str, str]] | None = None,
) -> str:
    """Render a table with per-column formats, wrapped so that it scrolls rather than overflow.

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows to show.
    columns : sequence of Column
        Columns in order.
    caption : str, optional
        HTML shown under the table.
    table_id, table_class : str, optional
        HTML id and class of the ``<table>``.
    row_attr : callable, optional
        Row record -> extra attributes of its ``<tr>`` (e.g. ``data-tco`` for the selectors).
    group_headers : sequence of (str, int), optional
        A first header row of (text, column span) groups.
    header_override : dict, optional
        Column key -> header text of the second header row (with ``group_headers``).
    cell_attr : callable, optional
        (row record, column) -> extra attributes of that ``<td>`` (e.g. the curve kind of a value).

    Returns
    -------
    str
        HTML.
    """
    heads = []
    if group_headers:
        heads.append("<tr>" + "".join(f'<th colspan="{n}" class=group>{html.escape(t)}</th>'
                                      for t, n in group_headers) + "</tr>")
    override = header_override or {}
    heads.append("<tr>" + "".join(
        f"<th{' class=num' if c.fmt not in ('text', 'link', 'date') else ''}>"
        f"{_header_text(override.get(c.key, c.header))}</th>" for c in columns) + "</tr>")
    body = []
    for rec in frame.to_dict(orient="records"):
        attrs = "".join(f' {k}="{html.escape(v)}"' for k, v in (row_attr(rec) if row_attr else {}).items())
        body.append(f"<tr{attrs}>" + "".join(
            _cell(rec.get(c.key), c, cell_attr(rec, c) if cell_attr else None) for c in columns) + "</tr>")
    ident = f' id="{html.escape(table_id)}"' if table_id else ""
    klass = f' class="{html.escape(table_class)}"' if table_class else ""
    cap = f"<p class=note>{caption}</p>" if caption else ""
    return (f'<div class="table-wrap"><table{ident}{klass}><thead>{"".join(heads)}</thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>{cap}')


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


def _band_text(rec: dict[str, Any], fmt: str) -> str:
    """`` (low-high)`` cost range of a projected row; empty for a measured row."""
    low = _plain(rec.get("cost_low_usd_per_mtok"))
    high = _plain(rec.get("cost_high_usd_per_mtok"))
    if not all(isinstance(v, int | float) and math.isfinite(v) for v in (low, high)):
        return ""
    return f" ({fmt.format(low)}-{fmt.format(high)})"


def headline_table_html(head: pd.DataFrame) -> str:
    """Render the headline table (id ``headline``) from :func:`headline_cells`.

    Parameters
    ----------
    head : pandas.DataFrame
        The ``headline`` table.

    Returns
    -------
    str
        HTML.
    """
    ths = "".join(f"<th{' class=num' if i >= 3 else ''}>{_header_text(h)}</th>"
                  for i, (h, _) in enumerate(HEADLINE_COLUMNS.values()))
    rows = []
    for cells in headline_cells(head):
        tds = "".join(f'<td class={"num" if i >= 3 else "text"}>{html.escape(c)}</td>' for i, c in enumerate(cells))
        rows.append(f"<tr>{tds}</tr>")
    return (f'<div class="table-wrap"><table id="headline" class="compact"><thead><tr>{ths}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def figure_html(figure: dict[str, Any], name: str) -> str:
    """Embed a plotly figure (``{"data": [...], "layout": {...}}``) as a chart drawn on page load.

    Parameters
    ----------
    figure : dict
        Plotly figure as plain data.
    name : str
        Unique name; becomes the chart's HTML id (non-word characters replaced).

    Returns
    -------
    str
        A ``<div class="chart">`` and the figure's JSON in a ``<script type="application/json">``.
    """
    ident = "chart-" + re.sub(r"[^\w-]+", "-", name).strip("-").lower()
    layout = dict(figure.get("layout", {}))
    meta = layout.get("meta")
    title = str(meta.get("title", "")) if isinstance(meta, dict) else ""
    if not title and layout.get("title"):
        # one place for chart titles: a caption above the chart, clear of the chart's tool bar
        raw = layout.pop("title")
        title = str(raw.get("text", "") if isinstance(raw, dict) else raw)
        layout["margin"] = {**layout.get("margin", {}), "t": 30}
        figure = {**figure, "layout": layout}
    payload = json.dumps(_finite(figure), separators=(",", ":"), allow_nan=False, default=_json_default)
    payload = payload.replace("</", "<\\/")
    caption = f"<figcaption>{html.escape(title)}</figcaption>" if title else ""
    return (f'<figure>{caption}<div class="chart" id="{ident}"></div>'
            f'<script type="application/json" class="fig-data" data-target="{ident}">{payload}</script></figure>')


def _finite(value: Any) -> Any:
    """NaN and infinities become null (a gap in a plotly trace)."""
    if isinstance(value, float | np.floating):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot serialise {type(value).__name__} into a chart")


def _headline_sorted(head: pd.DataFrame) -> pd.DataFrame:
    """Headline rows by model, then cheapest first (as the terminal summary of ``tokenomics report``)."""
    if not {"model_id", "cost_usd_per_mtok"} <= set(head.columns):
        return head
    return head.sort_values(["model_id", "cost_usd_per_mtok"], kind="stable", ignore_index=True)
