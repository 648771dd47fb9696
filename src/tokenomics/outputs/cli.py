"""The ``tokenomics`` command line.

Subcommands print tables readable in a terminal, or CSV/JSON for scripts (``--format``). Bad
input gives a one-line error on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import math
import os
import re
import shutil
import sys
import textwrap
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import pandas as pd
import pydantic

import tokenomics as tk
from tokenomics._validate import check_fraction, error_text, unknown_name_error
from tokenomics.chain import DEFAULT_UTILIZATION_FRAC, evaluate, supply
from tokenomics.cost.tco import TCO_OVERRIDES, TcoBasis, tco_basis
from tokenomics.curves.ingest import read_results, read_results_dir
from tokenomics.outputs.report import DEFAULT_MODELS, ReportOptions, format_value, headline_frame, write_report
from tokenomics.workload import DEFAULT_WORKLOAD, Workload, workload, workload_names

EPILOG = """examples:
  tokenomics hardware                      list every accelerator
  tokenomics hardware show "GB200 NVL72"   one system with units and sources
  tokenomics models --format csv           model architectures as CSV
  tokenomics prices --model deepseek-r1    API prices of one model
  tokenomics tco GB200 --profile neocloud  TCO per GPU-hour, itemised
  tokenomics cost --hardware gb200 --model deepseek-r1 --interactivity 50
  tokenomics margin --hardware gb300 --model kimi-k2 --utilization 0.6 --license-fee 0.3 \\
      --price-output 2.5 --throughput 1500
  tokenomics ingest results/ -o points.csv benchmark results -> tidy curve points
  tokenomics measure http://127.0.0.1:8000/v1 --model M --hardware h200 --gpus 8 -o points.csv
  tokenomics report -o my-report          the whole chain on the bundled data -> HTML

Fractions are 0..1 (--utilization 0.6, not 60). Each subcommand has --help.
"""


def _dates_as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """Return ``frame`` with date columns as ``YYYY-MM-DD`` text (datetimes keep their time)."""
    out = frame.copy()
    for col in out.columns:
        values = out[col]
        if pd.api.types.is_datetime64_any_dtype(values):
            midnight = bool((values.dropna() == values.dropna().dt.normalize()).all())
            fmt = "%Y-%m-%d" if midnight else "%Y-%m-%dT%H:%M:%S"
            out[col] = values.dt.strftime(fmt).where(values.notna(), None)
        elif values.dtype == object and values.map(
            lambda v: isinstance(v, dt.date) or v is None or v is pd.NA
            or (isinstance(v, float) and math.isnan(v))
        ).all() and values.map(lambda v: isinstance(v, dt.date)).any():
            out[col] = values.map(lambda v: v.isoformat() if isinstance(v, dt.date) else None)
    return out


def _number(value: float) -> str:
    """Format a number for a terminal table: separators for large values, fixed decimals else."""
    if not math.isfinite(value):
        return "-" if math.isnan(value) else str(value)
    size = abs(value)
    if value == 0:
        return "0"
    if size >= 1000:
        return f"{value:,.0f}"
    if size >= 1:
        return f"{value:,.3f}"
    if size >= 0.001:
        return f"{value:.4f}"
    return f"{value:.3g}"


_CHOSEN: dict[str, list[str] | None] = {"columns": None}
"""Columns chosen with ``--columns`` for the running command (None: as many as fit)."""


def _terminal_width() -> int:
    return max(40, shutil.get_terminal_size((100, 24)).columns)


def _chosen(frame: pd.DataFrame, *, header: str | None = None) -> pd.DataFrame:
    """Return the ``--columns`` of ``frame``, in their order (all columns without the flag).

    ``header`` names the column a transposed table shows as its header row (always shown).
    """
    columns = [c for c in _CHOSEN["columns"] or [] if c != header]
    if not _CHOSEN["columns"]:
        return frame
    names = [str(c) for c in frame.columns]
    for c in columns:
        if c not in names:
            raise unknown_name_error("--columns name", c, [*names, *([header] if header else [])])
    return frame[list(dict.fromkeys(columns))]


def _emit(frame: pd.DataFrame, fmt: str, *, index: bool = True) -> None:
    """Print a table in the requested format; a table fits the terminal (or shows ``--columns``).

    CSV and JSON carry every column, or the ``--columns`` chosen.
    """
    if fmt != "table":
        frame = _chosen(frame)
    if fmt == "csv":
        sys.stdout.write(_dates_as_text(frame).to_csv(index=index))
    elif fmt == "json":
        out = _dates_as_text(frame.reset_index() if index else frame)
        # "\/" is JSON's optional escape of "/": written plainly ("8k/1k"), the same JSON
        sys.stdout.write(out.to_json(orient="records", date_format="iso", indent=2).replace("\\/", "/") + "\n")
    else:
        sys.stdout.write(render_table(frame.reset_index() if index else frame, columns=_CHOSEN["columns"],
                                      width=_terminal_width()))


def _cell_text(value: object) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, int | float | np.integer | np.floating):
        return _number(float(value))
    if isinstance(value, dt.datetime | pd.Timestamp):
        return value.strftime("%Y-%m-%d") if value == value.normalize() else value.isoformat()  # type: ignore[union-attr]
    if isinstance(value, dt.date):
        return value.isoformat()
    return " ".join(str(value).split())


def _header(column: str) -> str:
    """``"name [unit]"`` from a unit-suffixed column; a bare unit column (``usd_per_gpu_hour``) is its unit."""
    from tokenomics.outputs.plot import label_for

    text = label_for(column)
    if "[" not in text:
        probe = label_for(f"x_{column}")
        if probe.startswith("x ["):
            return probe[3:-1]
    return text


def _column_texts(values: pd.Series) -> list[str]:
    """Cell texts of one column: numbers share one format chosen from the column's magnitude."""
    if not (pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)):
        return [_cell_text(v) for v in values.tolist()]
    x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    finite = x[np.isfinite(x)]
    if finite.size == 0:
        return ["-"] * len(x)
    name = str(values.name)
    if name.endswith("_year") and "_per_" not in name:
        fmt = "{:.0f}"  # a calendar year (release_year), not a quantity: 2023, not 2,023
    elif np.all(finite == np.round(finite)) and np.abs(finite).max() < 1e15:
        fmt = "{:,.0f}"
    else:
        typical = float(np.median(np.abs(finite[finite != 0]))) if np.any(finite != 0) else 0.0
        if typical >= 1000:
            fmt = "{:,.0f}"
        elif typical >= 100:
            fmt = "{:,.1f}"
        elif typical >= 1:
            fmt = "{:,.2f}"
        elif typical >= 0.01 or typical == 0:
            fmt = "{:.3f}"
        else:
            fmt = "{:.3g}"
    return [fmt.format(v) if math.isfinite(v) else ("-" if math.isnan(v) else str(v)) for v in x]


def render_table(frame: pd.DataFrame, *, columns: Sequence[str] | None = None, width: int = 100,
                 headers: bool = True, more: str = "choose with --columns, or see all with --format csv") -> str:
    """Render a table for a terminal of ``width`` characters (rich), units in the headers.

    Numbers get separators and a fixed number of decimals, dates are ``YYYY-MM-DD``. Columns are
    kept left to right while they fit; the rest are named in a note under the table, to be chosen
    with ``--columns`` (or seen with ``--format csv``). Columns without any value are left out
    unless chosen.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table (its index is not shown).
    columns : sequence of str, optional
        Columns to show, in order (``--columns``); default as many as fit.
    width : int, default 100
        Terminal width [characters].
    headers : bool, default True
        Headers ``"name [unit]"`` built from the column names (:func:`tokenomics.plot.label_for`);
        False: the column names as they are.
    more : str
        Where the note under the table sends the reader for the columns left out.

    Returns
    -------
    str
        The rendered table, ending with a newline.

    Raises
    ------
    KeyError
        A name in ``columns`` is not a column (close matches listed).
    """
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    names = [str(c) for c in frame.columns]
    if columns:
        for c in columns:
            if c not in names:
                raise unknown_name_error("--columns name", c, names)
        chosen = list(dict.fromkeys(columns))
    else:
        chosen = names
    cells = {c: _column_texts(frame[c]) for c in chosen}
    titles = {c: (_header(c) if headers else c) for c in chosen}
    numeric = {c: bool(len(frame)) and pd.api.types.is_numeric_dtype(frame[c]) and not
               pd.api.types.is_bool_dtype(frame[c]) for c in chosen}

    def need(c: str) -> int:
        title = titles[c]
        head = len(title) if len(title) <= 14 else max((len(w) for w in title.split()), default=1)
        widest = max([head, *(len(v) for v in cells[c])])
        return widest if numeric[c] else min(widest, max(head, 36))  # long text wraps

    empty = [c for c in chosen if not columns and all(v in ("-", "") for v in cells[c])]
    shown: list[str] = []
    used = 0
    for c in (c for c in chosen if c not in empty):
        extra = need(c) + (2 if shown else 0)
        if shown and not columns and used + extra > width:
            break
        shown.append(c)
        used += extra
    left_out = [c for c in chosen if c not in shown and c not in empty]
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1), header_style="bold",
                  collapse_padding=True, expand=False)
    for c in shown:
        w = min(need(c), width)
        head = "\n".join(textwrap.wrap(titles[c], width=w, break_on_hyphens=False)) or titles[c]
        table.add_column(Text(head, style="bold"), justify="right" if numeric[c] else "left", no_wrap=False,
                         width=w, overflow="fold")
    for i in range(len(frame)):
        table.add_row(*(Text(cells[c][i]) for c in shown))
    buf = io.StringIO()
    console = Console(file=buf, width=max(width, used), color_system=None, highlight=False, soft_wrap=False)
    console.print(table)
    text = "\n".join(line.rstrip() for line in buf.getvalue().splitlines()) + "\n"
    if left_out:
        note = (f"({len(left_out)} more column{'s' if len(left_out) > 1 else ''}: {', '.join(left_out)}; "
                f"{more})")
        text += "\n".join(textwrap.wrap(note, width=width, break_on_hyphens=False)) + "\n"
    return text


HARDWARE_COLUMNS = [
    "name", "bf16_dense_tflops", "fp8_dense_tflops", "fp4_dense_tflops", "hbm_capacity_gb",
    "hbm_bandwidth_tb_per_s", "scaleup_domain_accelerators", "scaleup_bw_unidir_gb_per_s", "tdp_w",
    "release_year",
]


def _listed_name(command: str, words: Sequence[str]) -> str | None:
    """Return the NAME of ``command [list|show] [NAME]`` (None to list); ``show`` may be left out."""
    rest = list(words)
    action = rest.pop(0) if rest and rest[0] in ("list", "show") else None
    if len(rest) > 1:
        raise ValueError(f"{command} takes one NAME (quote a name with spaces), got {' '.join(rest)!r}")
    if action == "list" and rest:
        raise ValueError(f"{command} list takes no NAME; to show one: tokenomics {command} show {rest[0]}")
    if action == "show" and not rest:
        raise ValueError(f"{command} show needs a NAME, e.g. tokenomics {command} show "
                         f"{'GB200' if command == 'hardware' else 'deepseek-r1'}")
    return rest[0] if rest else None


def _parameter_rows(frame: pd.DataFrame, fmt: str) -> pd.DataFrame:
    """Format a parameter/value frame for a terminal table, each value for its own row."""
    if fmt != "table":
        return frame

    def text(name: str, v: float) -> str:
        if not math.isfinite(v):
            return "-" if math.isnan(v) else str(v)
        if name.endswith("_year"):
            return f"{v:.0f}"  # a calendar year, not a quantity
        if (v == round(v) and abs(v) < 1e15) or abs(v) >= 1000:
            return f"{v:,.0f}"
        return f"{v:.4g}"

    return frame.assign(value=[text(str(n), float(v)) for n, v in zip(frame["parameter"], frame["value"],
                                                                         strict=True)])


def _cmd_hardware(args: argparse.Namespace) -> None:
    name = _listed_name("hardware", args.words)
    if name is not None:
        _emit(_parameter_rows(tk.hardware(name).to_frame(), args.format), args.format, index=False)
        return
    table = tk.hardware_table()
    cols = [c for c in HARDWARE_COLUMNS if c in table.columns] if args.format == "table" else list(table.columns)
    _emit(table[cols], args.format)


def _cmd_models(args: argparse.Namespace) -> None:
    name = _listed_name("models", args.words)
    if name is not None:
        _emit(_parameter_rows(tk.model(name).to_frame(), args.format), args.format, index=False)
        return
    _emit(tk.model_table().drop(columns=["aliases", "note"], errors="ignore"), args.format)


def _cmd_prices(args: argparse.Namespace) -> None:
    table = tk.price_table(model=args.model, provider=args.provider, price_tier=args.tier)
    if table.empty:
        asked = ", ".join(f"{flag} {value}" for flag, value in (("--model", args.model), ("--provider", args.provider),
                                                                ("--tier", args.tier)) if value)
        raise ValueError(f"no API price listed for {asked}; list what there is with `tokenomics prices"
                         + (f" --model {args.model}`" if args.model else "`"))
    if args.format == "table":
        table = table.drop(columns=["source"], errors="ignore")
    _emit(table, args.format, index=False)


# --- tco, cost, margin, ingest, report ---------------------------------------------------------


def _progress(items: Sequence[str], what: str) -> Iterator[str]:
    """Iterate ``items`` with a progress bar on stderr (a terminal only; it appears after 2 s)."""
    if not sys.stderr.isatty():
        yield from items
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    start = time.perf_counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True, auto_refresh=False) as bar:
        task = bar.add_task(what, total=len(items))
        for item in items:
            bar.update(task, description=f"{what}: {item}")
            if time.perf_counter() - start > 2.0:
                bar.refresh()
            yield item
            bar.advance(task)


def _fraction(name: str, value: float | None, *, open_low: bool = False, open_high: bool = False) -> None:
    """Validate a fraction option; a percent (e.g. 60) gets the hint to write 0.60."""
    if value is not None:
        check_fraction(name, value, low_inclusive=not open_low, high_inclusive=not open_high)


def _add_tco_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("TCO basis (default: itemised, hyperscaler profile; give one basis)")
    g.add_argument("--tco-profile", help="itemised TCO with this operator profile: hyperscaler, neocloud, rental")
    g.add_argument("--tco-vintage", help="published TCO of this set, e.g. 2026-09 (implies a published basis)")
    g.add_argument("--tco-tier", help="published TCO tier: hyperscaler, neocloud, rental, internal "
                                      "(implies a published basis)")
    g.add_argument("--cost-per-gpu-hour", type=_number_arg, metavar="USD",
                   help="explicit TCO [USD/GPU-hour] on every system")
    g.add_argument("--tco-input", action="append", metavar="NAME=VALUE", type=_tco_input,
                   help="replace an input of the itemised TCO on every system, e.g. electricity_usd_per_kwh=0.05 "
                        f"(repeat for several): {', '.join(TCO_OVERRIDES)}")


def _tco_input(text: str) -> tuple[str, float]:
    """Parse ``--tco-input NAME=VALUE`` (the name checked with the basis)."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE (e.g. electricity_usd_per_kwh=0.05)")
    return name.strip(), _number_arg(value.strip())


def _tco_basis(args: argparse.Namespace) -> TcoBasis:
    """Return the TCO basis of ``--tco-profile``, ``--tco-vintage``, ``--tco-tier``, ``--cost-per-gpu-hour``.

    ``--tco-input NAME=VALUE`` replaces inputs of an itemised basis (refused beside a published
    or given figure, which is all-in).
    """
    try:
        basis = tco_basis(profile=args.tco_profile, vintage=args.tco_vintage, tier=args.tco_tier,
                          usd_per_gpu_hour=args.cost_per_gpu_hour)
    except ValueError as err:
        raise ValueError(_as_flags(str(err))) from None
    given = dict(getattr(args, "tco_input", None) or ())
    if not given:
        return basis
    if len(given) < len(args.tco_input):
        raise ValueError("--tco-input names one input twice: give each once")
    if basis.kind != "itemised":
        raise ValueError(f"--tco-input replaces inputs of an itemised TCO; the {basis.label} basis is all-in "
                         "(leave out --tco-vintage, --tco-tier and --cost-per-gpu-hour)")
    try:
        return TcoBasis.itemised(str(basis.profile), **given)
    except pydantic.ValidationError as err:
        raise ValueError(f"--tco-input {_validation_line(err)}") from None


_FLAG_NAMES = {"tco_profile": "--tco-profile", "tco_vintage": "--tco-vintage", "tco_tier": "--tco-tier",
               "cost_usd_per_gpu_hour": "--cost-per-gpu-hour", "cached_input_usd_per_mtok": "--price-cached",
               "input_usd_per_mtok": "--price-input", "output_usd_per_mtok": "--price-output"}


def _as_flags(message: str) -> str:
    """Spell keyword names of a message as the CLI flags that set them."""
    for name, flag in _FLAG_NAMES.items():
        message = message.replace(f"{name}=", f"{flag} ")
    return message


_TCO_FLAGS = {"tco_basis": "--basis", "tco_profile": "--profile", "tco_vintage": "--vintage", "tco_tier": "--tier"}
"""Keyword names of a TCO basis error -> the flags of ``tokenomics tco``."""


def _cmd_tco(args: argparse.Namespace) -> None:
    try:
        basis = tco_basis(args.basis, profile=args.profile, vintage=args.vintage, tier=args.tier)
    except ValueError as err:
        message = str(err)
        for name, flag in _TCO_FLAGS.items():
            message = message.replace(f"{name}=", f"{flag} ")
        raise ValueError(message) from None
    given = dict(args.tco_input or ())
    if len(given) < len(args.tco_input or ()):
        raise ValueError("--input names one input twice: give each once")
    inputs = given
    try:
        if inputs and basis.kind == "itemised":  # the basis states them (its label names them)
            basis, inputs = TcoBasis.itemised(str(basis.profile), **inputs), {}
        res = basis.tco(args.system, **inputs)
    except ValueError as err:
        message = _validation_line(err) if isinstance(err, pydantic.ValidationError) else str(err)
        if "facility_power_kw_per_accelerator=" in message:  # the Python keyword: the flag that sets it
            message = (message.split("; pass ")[0] + "; give it with --input facility_power_kw_per_accelerator=KW")
        for name in given:
            message = message.replace(f"{name}=", f"--input {name}=")
        raise ValueError(message) from None
    frame = res.to_frame().reset_index()
    if _CHOSEN["columns"]:  # the share column by either name: a percentage in a table, a fraction in data
        share = "share_%" if args.format == "table" else "share_frac"
        _CHOSEN["columns"] = [share if c in ("share_%", "share_frac") else c for c in _CHOSEN["columns"]]
    if args.format != "table":
        frame.insert(0, "hardware_id", res.hardware_id)
        _emit(frame, args.format, index=False)
        return
    shown = frame.assign(share_frac=frame["share_frac"] * 100).rename(columns={"share_frac": "share_%"})
    _chosen(shown)  # an unknown --columns name fails before anything is printed
    sys.stdout.write(
        f"TCO of {res.hardware_id} ({basis.label}): {res.usd_per_gpu_hour:.3f} USD/GPU-hour, "
        f"{res.usd_per_system_hour:,.2f} USD/system-hour ({res.accelerators_per_system} accelerators)\n\n"
    )
    with pd.option_context("display.float_format", _number):
        _emit(shown, "table", index=False)
    for note in res.notes:
        sys.stdout.write(f"note: {note}\n")


def _check_flag(flag: str, value: float | None, *, low: float, low_inclusive: bool, unit: str) -> None:
    """Raise a one-line ``ValueError`` naming the flag, its value and the allowed range."""
    if value is None:
        return
    if math.isfinite(value) and (value > low or (low_inclusive and value == low)):
        return
    bracket = "[" if low_inclusive else "("
    raise ValueError(f"{flag} {value:g} is outside the allowed range {bracket}{low:g}, inf) [{unit}]")


def _check_workload_flags(args: argparse.Namespace) -> None:
    """Validate the workload flags of ``cost``/``margin`` before anything is evaluated."""
    _check_flag("--throughput", args.throughput, low=0.0, low_inclusive=False, unit="tok/s/GPU")
    _check_flag("--interactivity", args.interactivity, low=0.0, low_inclusive=False, unit="tok/s/user")
    _check_flag("--cost-per-gpu-hour", args.cost_per_gpu_hour, low=0.0, low_inclusive=True, unit="USD/GPU-hour")
    if args.throughput is not None and args.interactivity is not None:
        raise ValueError(
            "--interactivity is only used to read throughput off a curve; with --throughput given "
            "it would not be used: pass one of them, not both"
        )


def _workload(args: argparse.Namespace) -> Workload:
    """Return the workload of ``--workload`` or ``--isl``/``--osl``, with ``--cache-hit`` where given."""
    _check_flag("--isl", args.isl, low=0.0, low_inclusive=False, unit="tokens")
    _check_flag("--osl", args.osl, low=0.0, low_inclusive=False, unit="tokens")
    custom = args.isl is not None or args.osl is not None
    if custom and args.workload is not None:
        raise ValueError("--isl/--osl define a workload of their own: give them or --workload, not both")
    if custom and (args.isl is None or args.osl is None):
        raise ValueError("give --isl and --osl together (a fixed-sequence workload), or --workload")
    wl = (Workload(name=f"{args.isl:g}/{args.osl:g}", isl_tokens=args.isl, osl_tokens=args.osl) if custom
          else workload(args.workload))
    hit = getattr(args, "cache_hit", None)
    if hit is not None:
        _fraction("--cache-hit", hit)
        wl = Workload.model_validate({**wl.model_dump(), "cached_prefix_frac": hit,
                                      "name": f"{wl.name}, {hit:g} cached"})
    return wl


def _add_workload_options(p: argparse.ArgumentParser, *, need_model: bool) -> None:
    p.add_argument("--hardware", action="append", required=True, metavar="NAME",
                   help="hardware name or alias; repeat for several")
    p.add_argument("--model", required=need_model, help="model name or alias")
    p.add_argument("--interactivity", type=_number_arg, metavar="TOK_PER_S_PER_USER",
                   help="read throughput off the model's curve here (default 50 tok/s/user)")
    p.add_argument("--throughput", type=_number_arg, metavar="TOK_PER_S_PER_GPU",
                   help="give throughput directly (input + output tokens/s per GPU)")
    p.add_argument("--utilization", type=_number_arg, default=DEFAULT_UTILIZATION_FRAC,
                   help="busy fraction of paid hours (default 0.6)")
    _add_traffic_options(p)
    _add_tco_options(p)


def _add_traffic_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workload", metavar="NAME",
                   help=f"workload preset: {', '.join(workload_names())} (default {DEFAULT_WORKLOAD})")
    p.add_argument("--isl", type=_number_arg, help="input tokens per request of a custom fixed workload (with --osl)")
    p.add_argument("--osl", type=_number_arg, help="output tokens per request of a custom fixed workload (with --isl)")
    p.add_argument("--kv-offload", choices=("none", "dram", "ssd"), default="none",
                   help="tiers below HBM holding evicted session prefixes (session workloads such as "
                        "agentic-coding; default none)")


COST_TABLE_FIRST = ("model_id", "hardware_id", "curve_kind", "throughput_tok_per_s_per_gpu", "cost_usd_per_gpu_hour",
                    "cost_usd_per_mtok", "utilization_frac")
"""Leading columns of the ``tokenomics cost`` table: the answer fits an 80-character terminal."""


def _cmd_cost(args: argparse.Namespace) -> None:
    _fraction("--utilization", args.utilization, open_low=True)
    _check_workload_flags(args)
    if args.throughput is None and not args.model:
        raise ValueError("give --model (to read throughput off its curve) or --throughput")
    basis, wl = _tco_basis(args), _workload(args)
    m = tk.model(args.model) if args.model else None
    frame = _per_system(args, lambda hw: supply(
        m, tk.hardware(hw), workload=wl, tco=basis, throughput_tok_per_s_per_gpu=args.throughput,
        interactivity_tok_per_s_per_user=args.interactivity, utilization_frac=args.utilization,
        kv_offload=args.kv_offload))
    if args.format == "table":
        keep = set(_CHOSEN["columns"] or [])  # a chosen column is shown even without a value
        shown = frame.drop(columns=[c for c in frame.columns if frame[c].isna().all() and c not in keep])
        first = [c for c in COST_TABLE_FIRST if c in shown.columns]
        shown = shown[first + [c for c in shown.columns if c not in first]]
        with pd.option_context("display.float_format", _number):
            _emit(shown, "table", index=False)
        return
    _emit(frame, args.format, index=False)


def _cmd_margin(args: argparse.Namespace) -> None:
    _fraction("--utilization", args.utilization, open_low=True)
    _fraction("--license-fee", args.license_fee, open_high=True)
    _check_workload_flags(args)
    for flag, price in (("--price-input", args.price_input), ("--price-output", args.price_output),
                        ("--price-cached", args.price_cached)):
        _check_flag(flag, price, low=0.0, low_inclusive=True, unit="USD/Mtok")
    basis, wl = _tco_basis(args), _workload(args)
    m = tk.model(args.model)
    try:
        frame = _per_system(args, lambda hw: evaluate(
            m, tk.hardware(hw), workload=wl, tco=basis, throughput_tok_per_s_per_gpu=args.throughput,
            interactivity_tok_per_s_per_user=args.interactivity, utilization_frac=args.utilization,
            license_fee_frac=args.license_fee, price_provider=args.provider, price_tier=args.price_tier,
            input_usd_per_mtok=args.price_input, output_usd_per_mtok=args.price_output,
            cached_input_usd_per_mtok=args.price_cached, kv_offload=args.kv_offload))
    except ValueError as err:
        raise ValueError(_as_flags(str(err))) from None
    frame = frame.reset_index(drop=True)
    if args.format != "table":
        _emit(frame, args.format, index=False)
        return
    shown = _chosen(frame.set_index("hardware_id"), header="hardware_id")
    sys.stdout.write(_quantity_table(shown))
    for column, why in _UNREACHABLE.items():
        if column in shown.columns and shown[column].isna().any():
            sys.stdout.write(f"note: '-' under {column}: {why}\n")


_UNREACHABLE = {
    "breakeven_utilization_frac": "no utilization up to 1 reaches the target margin at these prices",
    "breakeven_price_usd_per_mtok": "no price reaches the target margin (the license fee's revenue share "
                                    "leaves too little)",
}
"""Why a break-even of the margin table has no value."""


def _per_system(args: argparse.Namespace, one: Callable[[str], pd.DataFrame]) -> pd.DataFrame:
    """Rows of ``one(hardware_id)`` for every ``--hardware``; the systems that fail are left out.

    As :func:`tokenomics.compare`: each left-out system is named on stderr with its reason
    (``skipped h100-sxm: ...``, by :func:`main` after the table); when every system fails, the
    error is raised (the first one's own error for a single system).
    """
    frames, skipped = [], []
    for hw in _progress(_hardware_ids(args.hardware), f"tokenomics {args.command}"):
        try:
            frames.append(one(hw))
        except (KeyError, ValueError) as err:
            skipped.append((hw, err))
    if not frames:
        if len(skipped) == 1:
            raise skipped[0][1]
        raise ValueError("no system could be evaluated: "
                         + "; ".join(f"{hw}: {error_text(err)}" for hw, err in skipped))
    args.skipped_systems = [(hw, error_text(err)) for hw, err in skipped]  # main() names them on stderr
    return pd.concat(frames, ignore_index=True)


def _hardware_ids(names: Sequence[str]) -> list[str]:
    """Resolve ``--hardware`` names; one system named twice (by two aliases) is an error."""
    ids: dict[str, str] = {}
    for name in names:
        hid = tk.hardware(name).hardware_id
        if hid in ids:
            raise ValueError(f"--hardware {ids[hid]} and --hardware {name} name the same system ({hid}); give it once")
        ids[hid] = name
    return list(ids)


def _quantity_table(frame: pd.DataFrame) -> str:
    """Render one scenario per column: a left-aligned ``quantity`` column, one value column each."""
    body = frame.T.map(_cell)
    names = [str(c) for c in body.columns]
    quantity = [str(q) for q in body.index]
    width_q = max(len("quantity"), *(len(q) for q in quantity))
    widths = [max(len(n), *(len(v) for v in body[c])) for n, c in zip(names, body.columns, strict=True)]
    lines = ["  ".join(["quantity".ljust(width_q), *(n.rjust(w) for n, w in zip(names, widths, strict=True))])]
    for q, (_, row) in zip(quantity, body.iterrows(), strict=True):
        cells = (str(v).rjust(w) for v, w in zip(row, widths, strict=True))
        lines.append("  ".join([q.ljust(width_q), *cells]).rstrip())
    return "\n".join(lines) + "\n"


def _cell(value: object) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        return _number(float(value))
    return str(value)


def _cmd_ingest(args: argparse.Namespace) -> None:
    src = Path(args.path)
    if not src.exists():
        raise FileNotFoundError(f"{src} does not exist")
    out = Path(args.output) if args.output else None
    fmt = args.format or "table"
    if out is not None:
        by_suffix = {".csv": "csv", ".json": "json"}.get(out.suffix.lower())
        if args.format == "table":
            raise ValueError("--format table prints to the terminal; write -o FILE as --format csv or json")
        fmt = args.format or by_suffix or "csv"
        if by_suffix is not None and by_suffix != fmt:
            raise ValueError(f"-o {out} has a {out.suffix} suffix but --format is {fmt}; make them agree")
        if out.exists() and not args.force:
            raise FileExistsError(f"{out} exists; pass --force to overwrite it")
    kwargs = {"hardware": args.hardware, "num_gpus": args.gpus, "num_prefill_gpus": args.prefill_gpus,
              "num_decode_gpus": args.decode_gpus}
    try:
        if src.is_dir():
            points, skipped = read_results_dir(src, **kwargs)
        else:
            points = read_results(src, **kwargs)
            skipped = pd.DataFrame([{"path": str(src), "rows": int(n), "reason": reason}
                                    for reason, n in points.attrs.get("skipped", {}).items()],
                                   columns=["path", "rows", "reason"])
    except (KeyError, ValueError) as err:
        text = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
        text = text.replace("leave hardware out", "leave --hardware out")
        text = re.sub(r"(?<![\w-])hardware=(?!\.\.\.)", "--hardware=", text)
        raise (KeyError(text) if isinstance(err, KeyError) else ValueError(text)) from None
    for rec in skipped.itertuples(index=False):
        rows = f" ({rec.rows} rows)" if rec.rows else ""
        sys.stderr.write(f"skipped {rec.path}{rows}: {rec.reason}\n")
    n_skipped = f", {len(skipped)} skipped" if len(skipped) else ""
    if points.empty:
        raise ValueError(f"no curve points read from {src}{n_skipped}")
    points.attrs = {}
    if out is None:
        _emit(points, fmt, index=False)
        return
    chosen = _dates_as_text(_chosen(points))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    if fmt == "json":
        tmp.write_text(chosen.to_json(orient="records", date_format="iso", indent=2) + "\n", encoding="utf-8")
    else:
        chosen.to_csv(tmp, index=False)
    tmp.replace(out)
    sys.stderr.write(f"wrote {len(points)} curve points to {out} ({fmt}){n_skipped}\n")


_MEASURE_FLAGS = {"isl": "--isl", "osl": "--osl", "num_gpus": "--gpus", "timeout_s": "--timeout",
                  "requests_per_level": "--requests", "concurrencies": "--concurrency", "url": "URL"}
"""Keyword names that open a :func:`tokenomics.outputs.measure.measure` error -> the flags of ``tokenomics measure``."""


def _cmd_measure(args: argparse.Namespace) -> None:
    from tokenomics.outputs.measure import measure

    try:
        levels = [int(c) for c in str(args.concurrency).split(",") if c.strip()]
    except ValueError:
        raise ValueError(f"--concurrency must be comma-separated whole numbers, got {args.concurrency!r}") from None
    try:
        points = measure(args.url, args.model, hardware=args.hardware, num_gpus=args.gpus, concurrencies=levels,
                         requests_per_level=args.requests, isl=args.isl, osl=args.osl, driver=args.driver,
                         output=args.output, overwrite=args.force, progress=not args.quiet,
                         timeout_s=args.timeout, tokenizer=args.tokenizer)
    except ValueError as err:
        message = str(err)
        for name, flag in _MEASURE_FLAGS.items():
            message = re.sub(rf"^{name}=", f"{flag} ", message)
            message = re.sub(rf"^{name}\b", flag, message)
        raise ValueError(message) from None
    if args.output:
        sys.stderr.write(f"wrote {len(points)} measured curve points to {args.output}\n")
    else:
        _emit(points, args.format if args.format != "table" else "csv", index=False)


def _cmd_report(args: argparse.Namespace) -> None:
    _fraction("--utilization", args.utilization, open_low=True)
    _fraction("--license-fee", args.license_fee, open_high=True)
    _check_flag("--interactivity", args.interactivity, low=0.0, low_inclusive=False, unit="tok/s/user")
    opts = ReportOptions(
        models=tuple(args.model or DEFAULT_MODELS),
        hardware=tuple(args.hardware) if args.hardware else None,
        workload=_workload(args),
        utilization_frac=args.utilization,
        license_fee_frac=args.license_fee,
        reference_interactivity_tok_per_s_per_user=args.interactivity,
        price_provider=args.provider,
        tco=_tco_basis(args),
        extra_workloads=tuple(args.also_workload or ()),
        kv_offload=args.kv_offload,
    )
    path = write_report(args.output, opts, force=args.force, progress=not args.quiet)
    if not args.quiet:  # this command has no --columns or --format: the left-out columns are in headline.csv
        sys.stdout.write(render_table(_report_summary(headline_frame(path.parent), opts), width=_terminal_width(),
                                      more=f"every column in {path.parent / 'headline.csv'}"))
    _report_skipped(args, path.parent)
    sys.stdout.write(f"{path}\n")


def _report_skipped(args: argparse.Namespace, folder: Path) -> None:
    """Say on stderr what the report left out (``skipped.csv``): each combination when systems were named."""
    table = folder / "skipped.csv"
    skipped = pd.read_csv(table) if table.is_file() else pd.DataFrame()
    if skipped.empty:
        return
    if args.hardware:  # main() names them after the table, in the command's flags
        args.skipped_systems = [(f"{r.model_id} on {r.hardware_id} ({r.stage})", str(r.reason))
                                for r in skipped.itertuples(index=False)]
    else:
        systems = skipped["hardware_id"].nunique()
        sys.stderr.write(f"{len(skipped)} model x system combinations ({systems} systems) left out: see {table}\n")


def _report_summary(head: pd.DataFrame, opts: Any) -> pd.DataFrame:
    """Format the headline of a report as a terminal table, cheapest system first per model."""
    cols = {
        "model_id": "model",
        "hardware_id": "hardware",
        "curve_kind": "curve",
        "throughput_tok_per_s_per_gpu": "tok/s/GPU",
        "cost_usd_per_gpu_hour": "$/GPU-h",
        "cost_usd_per_mtok": "cost $/Mtok",
        "blended_price_usd_per_mtok": "price $/Mtok",
        "gross_margin_frac": "margin",
        "breakeven_utilization_frac": "break-even util.",
    }
    out = head.sort_values(["model_id", "cost_usd_per_mtok"])[list(cols)].rename(columns=cols)
    out["tok/s/GPU"] = out["tok/s/GPU"].map(lambda v: f"{v:,.0f}")
    for c in ("$/GPU-h", "cost $/Mtok", "price $/Mtok"):
        out[c] = out[c].map(lambda v: f"{v:.3f}")
    for c in ("margin", "break-even util."):
        out[c] = out[c].map(lambda v: "-" if pd.isna(v) else format_value(v, "{:.0%}"))
    title = f"at {opts.conditions_label()}"
    sys.stdout.write(title + "\n")
    return out


class _StoreOnce(argparse._StoreAction):
    """``store`` that refuses an option given twice (argparse would keep the last value silently)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        given: dict[str, Any] = namespace.__dict__.setdefault("_given_once", {})
        if option_string is not None and self.dest in given:
            parser.error(f"{option_string} given twice ({given[self.dest]} and {values}): give it once "
                         "(to compare several values, run the command once per value, or use tk.sweep)")
        given[self.dest] = values
        super().__call__(parser, namespace, values, option_string)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line naming the flag, with a pointer to ``--help``.

    An option that takes one value refuses to be given twice (:class:`_StoreOnce`).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``tokenomics`` command.

    Returns
    -------
    argparse.ArgumentParser
        Parser with one subparser per subcommand; each sets ``func``.
    """
    parser = _Parser(
        prog="tokenomics",
        description="LLM inference economics on sourced catalogs: hardware, TCO, curves, cost and margin.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {tk.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def add(name: str, func: Callable[[argparse.Namespace], None], help_text: str, *, fmt: bool = True,
            epilog: str | None = None) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text, epilog=epilog,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        if fmt:
            p.add_argument("--format", choices=("table", "csv", "json"), default="table",
                           help="output format (default: table)")
            p.add_argument("--columns", metavar="COL,COL", type=_column_list,
                           help="columns to show, comma-separated (default: as many as fit the terminal; "
                                "every column with --format csv or json)")
        p.set_defaults(func=func)
        return p

    hw = add("hardware", _cmd_hardware, "list accelerators, or show one with units and sources",
             epilog="examples:\n  tokenomics hardware\n  tokenomics hardware show \"GB200 NVL72\"\n"
                    "  tokenomics hardware --columns name,hbm_capacity_gb,hbm_bandwidth_tb_per_s\n"
                    "  tokenomics hardware --format csv > hardware.csv\n")
    hw.add_argument("words", nargs="*", metavar="[list|show] [NAME]",
                    help="list (default), or show one hardware by name or alias ('show' may be left out)")
    md = add("models", _cmd_models, "list model architectures, or show one",
             epilog="examples:\n  tokenomics models\n  tokenomics models show deepseek-r1\n"
                    "  tokenomics models deepseek-r1\n  tokenomics models --format json\n")
    md.add_argument("words", nargs="*", metavar="[list|show] [NAME]",
                    help="list (default), or show one model by name or alias ('show' may be left out)")
    pr = add("prices", _cmd_prices, "list API prices [USD per million tokens]",
             epilog="examples:\n  tokenomics prices --model deepseek-r1\n  tokenomics prices --provider DeepSeek\n"
                    "  tokenomics prices --format csv > prices.csv\n")
    pr.add_argument("--model", help="only this model")
    pr.add_argument("--provider", help="only this provider")
    pr.add_argument("--tier", help="only this price tier: standard, batch, flex, priority, fast, off-peak")
    # (section: more subcommands)
    tc = add("tco", _cmd_tco, "TCO of one system per accelerator-hour, with its breakdown",
             epilog="examples:\n  tokenomics tco GB200 --profile neocloud\n"
                    "  tokenomics tco mi355x --vintage 2026-09 --tier rental\n"
                    "  tokenomics tco GB200 --input electricity_usd_per_kwh=0.05 --input pue=1.3\n")
    tc.add_argument("system", metavar="SYSTEM", help="hardware name or alias")
    tc.add_argument("--profile", help="operator profile of an itemised TCO: hyperscaler (default), neocloud, rental")
    tc.add_argument("--basis", choices=("itemised", "published"),
                    help="itemised from capex and opex (default), or a published all-in figure")
    tc.add_argument("--vintage", help="published TCO set, e.g. 2026-09 (implies --basis published)")
    tc.add_argument("--tier", help="published tier: hyperscaler, neocloud, rental, internal (implies published)")
    tc.add_argument("--input", action="append", metavar="NAME=VALUE", type=_tco_input, dest="tco_input",
                    help=f"replace a TCO input, e.g. electricity_usd_per_kwh=0.05 (repeat for several): "
                         f"{', '.join(TCO_OVERRIDES)}")
    co = add("cost", _cmd_cost, "cost per million tokens on one or more systems",
             epilog="examples:\n  tokenomics cost --hardware gb200 --model deepseek-r1 --interactivity 50\n"
                    "  tokenomics cost --hardware b200 --hardware mi355x --throughput 1000\n")
    _add_workload_options(co, need_model=False)
    ma = add("margin", _cmd_margin, "revenue, license fee, gross margin and break-evens of a scenario",
             epilog="examples:\n  tokenomics margin --hardware gb300 --model kimi-k2 --utilization 0.6 \\\n"
                    "      --license-fee 0.3 --price-output 2.5 --throughput 1500\n"
                    "  tokenomics margin --hardware b200 --model deepseek-r1 --interactivity 40\n")
    _add_workload_options(ma, need_model=True)
    ma.add_argument("--license-fee", type=_number_arg, metavar="FRAC",
                    help="license fee as a share of revenue (default 0.30 licensed, 0 open weights)")
    ma.add_argument("--price-input", type=_number_arg, metavar="USD_PER_MTOK", help="override the input price")
    ma.add_argument("--price-output", type=_number_arg, metavar="USD_PER_MTOK", help="override the output price")
    ma.add_argument("--price-cached", type=_number_arg, metavar="USD_PER_MTOK", help="override the cached-input price")
    ma.add_argument("--provider", help="price provider (default first-party or latest)")
    ma.add_argument("--price-tier", default="standard",
                    help="catalog price tier: standard, batch, flex, priority, fast, off-peak (default standard)")
    ma.add_argument("--cache-hit", type=_number_arg, metavar="FRAC",
                    help="cached share of input tokens (replaces the workload's theoretical share)")
    ig = add("ingest", _cmd_ingest, "read benchmark results (InferenceX, AgentX, MLPerf) into tidy curve points",
             epilog="examples:\n  tokenomics ingest results/ -o points.csv\n"
                    "  tokenomics ingest run.json --hardware mi355x --gpus 8 --format json\n")
    ig.add_argument("path", metavar="PATH", help="a result file or a directory of them")
    ig.set_defaults(format=None)  # stdout: a table; -o FILE: csv or json by --format, else by suffix
    ig.add_argument("-o", "--output", metavar="FILE",
                    help="write CSV or JSON here (--format, else the .csv/.json suffix; default: print to stdout)")
    ig.add_argument("--hardware",
                    help="hardware of files that do not name it (a file naming other hardware is an error)")
    ig.add_argument("--gpus", type=_number_arg,
                    help="GPUs of an aggregated raw run whose file does not state them (a stated count must agree)")
    ig.add_argument("--prefill-gpus", type=_number_arg,
                    help="prefill GPUs of a disaggregated raw run whose file does not state them")
    ig.add_argument("--decode-gpus", type=_number_arg,
                    help="decode GPUs of a disaggregated raw run whose file does not state them")
    ig.add_argument("--force", action="store_true", help="overwrite an existing output file")
    me = add("measure", _cmd_measure,
             "measure an OpenAI-compatible endpoint over a concurrency sweep -> measured curve points",
             epilog="examples:\n  tokenomics measure http://127.0.0.1:8000/v1 --model kimi-k2.7 \\\n"
                    "      --hardware h200 --gpus 8 --concurrency 1,4,16,64 -o my-endpoint.csv\n\n"
                    "drives AIPerf when installed (pip install 'inference-tokenomics[measure]'), else a built-in\n"
                    "streaming client; an unreachable or non-OpenAI endpoint stops with one line and writes nothing.\n")
    me.add_argument("url", metavar="URL", help="endpoint base URL, e.g. http://127.0.0.1:8000/v1")
    me.add_argument("--model", required=True, help="model name served by the endpoint")
    me.add_argument("--hardware", required=True, help="hardware behind the endpoint (for per-GPU throughput)")
    me.add_argument("--gpus", type=float, required=True, help="accelerators serving the endpoint")
    me.add_argument("--concurrency", default="1,2,4,8", help="comma-separated levels (default 1,2,4,8)")
    me.add_argument("--requests", type=int, help="requests per level (default max(4 x concurrency, 8))")
    me.add_argument("--isl", type=int, default=512, help="synthetic prompt length [tokens] (default 512)")
    me.add_argument("--osl", type=int, default=128, help="requested output length [tokens] (default 128)")
    me.add_argument("--driver", choices=("auto", "aiperf", "builtin"), default="auto",
                    help="benchmark client (default: aiperf when installed, else builtin)")
    me.add_argument("--timeout", type=float, default=120.0, help="per-request timeout [s] (default 120)")
    me.add_argument("--tokenizer", help="AIPerf tokenizer: Hugging Face id, path, or 'builtin' (default: the model)")
    me.add_argument("-o", "--output", metavar="FILE", help="write the points CSV here (default: stdout)")
    me.add_argument("--force", action="store_true", help="overwrite an existing output file")
    me.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    rp = add("report", _cmd_report, "run the whole chain on the bundled data and write an HTML report",
             fmt=False,
             epilog="examples:\n  tokenomics report\n"
                    "  tokenomics report -o r --model deepseek-r1 --hardware b200 --hardware gb200\n"
                    "  tokenomics report --utilization 0.8 --license-fee 0.3 --tco-profile neocloud\n"
                    "  tokenomics report --workload 8k/1k --also-workload 1k/1k --also-workload 1k/8k\n"
                    "  tokenomics report --tco-vintage 2026-09 --tco-tier hyperscaler --force\n\n"
                    "defaults: DeepSeek-R1 and gpt-oss-120b; every system with a measured or projected\n"
                    "curve and a TCO; itemised hyperscaler TCO; utilization 0.6; license fee 0.30 for a\n"
                    "licensed model, 0 for open weights; catalog list prices; workload 8k/1k; margin\n"
                    "at 50 tok/s/user.\n")
    rp.add_argument("-o", "--output", default="tokenomics-report", metavar="DIR",
                    help="output directory (default: tokenomics-report)")
    rp.add_argument("--model", action="append", metavar="NAME", help="model; repeat for several")
    rp.add_argument("--hardware", action="append", metavar="NAME", help="hardware; repeat (default: all)")
    rp.add_argument("--utilization", type=_number_arg, default=0.6, help="busy fraction of paid hours (default 0.6)")
    rp.add_argument("--license-fee", type=_number_arg, metavar="FRAC",
                    help="license fee share of revenue for every model (default by license)")
    rp.add_argument("--interactivity", type=_number_arg, default=50.0, metavar="TOK_PER_S_PER_USER",
                    help="reference interactivity of the margin table (default 50)")
    _add_traffic_options(rp)
    rp.add_argument("--also-workload", action="append", metavar="NAME",
                    help="add this workload's curves and cost tables to the report's workload selector; repeat")
    rp.add_argument("--provider", help="price provider (default first-party or latest)")
    _add_tco_options(rp)
    rp.add_argument("--force", action="store_true",
                    help="replace DIR even if it holds files the report did not write")
    rp.add_argument("-q", "--quiet", action="store_true",
                    help="no progress on stderr and no summary table on stdout (only the path of index.html)")
    return parser


def _number_arg(text: str) -> float:
    """Parse a number flag; ``60%`` gets the hint to write the fraction ``0.60``."""
    try:
        return float(text)
    except ValueError:
        pass
    stripped = text.strip()
    if stripped.endswith("%"):
        try:
            pct = float(stripped[:-1])
        except ValueError:
            pct = None
        if pct is not None:
            raise argparse.ArgumentTypeError(
                f"{text} is a percent; write the fraction {pct / 100:.2f} (fractions are 0..1)")
    raise argparse.ArgumentTypeError(f"{text!r} is not a number")


def _column_list(text: str) -> list[str]:
    names = [c.strip() for c in text.split(",") if c.strip()]
    if not names:
        raise argparse.ArgumentTypeError("give column names separated by commas, e.g. --columns name,tdp_w")
    return names


def _validation_line(err: pydantic.ValidationError) -> str:
    """One line for a pydantic error: the first error's location and message, no URL."""
    errors = err.errors(include_url=False)
    if not errors:
        return " ".join(str(err).split())
    first = errors[0]
    loc = ".".join(str(part) for part in first.get("loc", ()))
    msg = str(first.get("msg", "")).removeprefix("Value error, ")
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    text = f"{loc}: {msg}{more}" if loc and loc not in msg else f"{msg}{more}"
    return " ".join(text.split())


FLAG_FOR_FIELD: dict[str, str] = {
    "utilization_frac": "--utilization",
    "license_fee_frac": "--license-fee",
    "cache_hit_frac": "--cache-hit",
    "throughput_tok_per_s_per_gpu": "--throughput",
    "interactivity_tok_per_s_per_user": "--interactivity",
    "reference_interactivity_tok_per_s_per_user": "--interactivity",
    "isl_tokens": "--isl",
    "osl_tokens": "--osl",
    "input_usd_per_mtok": "--price-input",
    "output_usd_per_mtok": "--price-output",
    "cached_input_usd_per_mtok": "--price-cached",
    "price_provider": "--provider",
    "price_tier": "--price-tier",
    "tco_profile": "--tco-profile",
    "tco_vintage": "--tco-vintage",
    "tco_tier": "--tco-tier",
    "num_gpus": "--gpus",
    "timeout_s": "--timeout",
    "num_prefill_gpus": "--prefill-gpus",
    "num_decode_gpus": "--decode-gpus",
    "kv_offload": "--kv-offload",
    "cost_usd_per_gpu_hour": "--cost-per-gpu-hour",
}
"""Library field -> CLI flag, so that errors name what the user typed."""

_POWER_HINT = ("pass facility_power_kw_per_accelerator= (tco, evaluate) or it_power_kw_per_accelerator= (tco), "
               "or price the GPU-hour with ")

_LIST_COMMAND = (("unknown hardware", "tokenomics hardware"), ("unknown model", "tokenomics models"),
                 ("provider", "tokenomics prices"))


def _in_cli_terms(text: str, parser: argparse.ArgumentParser, command: str) -> str:
    """Rewrite an error message in terms of the subcommand's flags, and point to the listing command."""
    if "--columns name" in text:
        return text  # it lists column names, which are not flags
    flags = set()
    for action in parser._actions:  # the subcommand's parser: its own flags
        if isinstance(action, argparse._SubParsersAction):
            sub = action.choices.get(command)
            if sub is not None:
                flags = {s for a in sub._actions for s in a.option_strings}
    if "--hardware" in flags:
        text = text.replace("pass hardware=...", "pass --hardware NAME")
    if "--cost-per-gpu-hour" in flags:
        # Python keywords a command line cannot pass: point to the flag that prices the GPU-hour
        text = text.replace(_POWER_HINT, "price the GPU-hour with ")
    for field, flag in FLAG_FOR_FIELD.items():
        if flag in flags:
            text = re.sub(rf"(?<![\w-]){field}(?![\w])", flag, text)
    text = re.sub(r"(--[\w-]+)=(?=$|[\s),;])", r"\1 VALUE", text)  # a keyword hint without its value
    for needle, listing in _LIST_COMMAND:
        if needle in text.lower() and listing not in text:
            text += f" (list them with `{listing}`)"
            break
    return text


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit status: 0 on success, 2 on bad input.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    _CHOSEN["columns"] = getattr(args, "columns", None)
    try:
        args.func(args)
    except pydantic.ValidationError as err:
        sys.stderr.write(f"tokenomics {args.command}: error: "
                         f"{_in_cli_terms(_validation_line(err), parser, args.command)}\n")
        return 2
    except BrokenPipeError:
        # the reader went away (e.g. `tokenomics hardware | head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except (KeyError, ValueError, FileNotFoundError, FileExistsError, OSError) as err:
        text = error_text(err)  # one line, also for multi-line validation errors
        sys.stderr.write(f"tokenomics {args.command}: error: {_in_cli_terms(text, parser, args.command)}\n")
        return 2
    for hw, why in getattr(args, "skipped_systems", []):
        sys.stderr.write(f"skipped {hw}: {_in_cli_terms(' '.join(why.split()), parser, args.command)}\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
