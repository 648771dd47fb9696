"""Format detection for one result file and a directory reader that reports every skip."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd

from tokenomics.curves.ingest._common import (
    ArgumentConflictError,
    IngestError,
    load_json,
    read_csv_table,
    refuse_arguments,
    resolve_hardware_name,
)
from tokenomics.curves.ingest.agentx import is_agentic_flat, is_agentx_nested, read_agentx
from tokenomics.curves.ingest.aiconfigurator import is_aiconfigurator_csv, read_aiconfigurator
from tokenomics.curves.ingest.aiperf import is_aiperf_csv, is_aiperf_json, read_aiperf
from tokenomics.curves.ingest.inferencex import is_aggregate_row, is_raw_benchmark, read_inferencex
from tokenomics.curves.ingest.mlperf import is_mlperf_csv, is_mlperf_summary, read_mlperf
from tokenomics.curves.ingest.power import is_power_baseline, read_power_baseline
from tokenomics.curves.schema import conform, empty_curve_frame

__all__ = ["ReadResult", "detect_format", "read_results", "read_results_dir"]

FORMATS = ("inferencex", "agentx", "power", "mlperf", "aiconfigurator", "aiperf")
"""Formats :func:`detect_format` recognises."""

SKIPPED_COLUMNS = ("path", "rows", "reason")

DUPLICATE_KEY: tuple[str, ...] = (
    "hardware_id", "model_id", "precision", "framework", "spec_decoding", "disaggregated", "workload",
    "isl_tokens", "osl_tokens", "concurrency", "tp", "ep", "dp_attention", "num_gpus",
    "num_prefill_gpus", "num_decode_gpus", "kv_offload", "kind", "throughput_tok_per_s_per_gpu",
    "input_throughput_tok_per_s_per_gpu", "output_throughput_tok_per_s_per_gpu",
    "interactivity_tok_per_s_per_user", "note",
)
"""Columns that identify one run: points equal in all of them (numbers to 9 significant digits,
``note`` without its power remark; ``pp`` is left out, as raw files do not state it and
``num_gpus`` carries it) are one measurement read twice, e.g. an InferenceX aggregate
row and the raw benchmark file it was made from, or an MLPerf result in the round's JSON and in
a CSV derived from it."""

_POWER_NOTE = re.compile(r"; power = [^;]*")
_ROW_IN_SOURCE = re.compile(r"(#.*|\[\d+\])$")


class ReadResult(NamedTuple):
    """Points read from a directory and the files (or rows) skipped, with reasons.

    Unpack it (``points, skipped = read_results_dir(path)``) or use the attributes.

    Attributes
    ----------
    points : pandas.DataFrame
        Curve points conformed to :data:`tokenomics.curves.schema.CURVE_COLUMNS`.
    skipped : pandas.DataFrame
        One row per skipped file or group of skipped rows: ``path``, ``rows`` (rows skipped in
        a table file; 0 for a whole file) and ``reason``.
    """

    points: pd.DataFrame
    skipped: pd.DataFrame


def detect_format(path: str | Path) -> str | None:
    """Return the result format of a file, or None if it is not a recognised result file.

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.json`` or ``.csv`` file.

    Returns
    -------
    str or None
        One of :data:`FORMATS`, or None.

    Raises
    ------
    IngestError
        If a ``.json`` file is not valid JSON or a ``.csv`` file not a readable table.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".csv":
        header = read_csv_table(p, nrows=0).columns.tolist()
        if is_mlperf_csv(header):
            return "mlperf"
        if is_aiconfigurator_csv(header):
            return "aiconfigurator"
        return "aiperf" if is_aiperf_csv(header) else None
    if suffix != ".json":
        return None
    doc: Any = load_json(p)
    if is_mlperf_summary(doc):
        return "mlperf"
    if is_aiperf_json(doc):
        return "aiperf"
    if is_agentx_nested(doc) or is_agentic_flat(doc):
        return "agentx"
    if is_power_baseline(doc):
        return "power"
    if is_aggregate_row(doc) or is_raw_benchmark(doc):
        return "inferencex"
    if isinstance(doc, dict) and "hw" in doc and ("conc" in doc or "model" in doc):
        return "inferencex"  # an InferenceX row with keys missing: its reader names them
    return None


_GPU_ARGUMENTS = ("num_gpus", "num_prefill_gpus", "num_decode_gpus")

_ARGUMENTS: dict[str, tuple[str, ...]] = {
    "inferencex": ("hardware", *_GPU_ARGUMENTS, "precision", "framework", "as_of"),
    "agentx": ("hardware", *_GPU_ARGUMENTS, "as_of"),
    "power": ("hardware", "as_of"),
    "mlperf": ("hardware", "on_unknown_hardware", "as_of"),
    "aiconfigurator": ("hardware", "as_of"),
    "aiperf": ("hardware", "num_gpus", "model", "concurrency", "precision", "framework", "as_of"),
}
"""Keywords :func:`read_results` passes on (or checks) per format; any other given is refused."""

_UNUSED = {
    "precision": "{fmt} files state the precision of every point",
    "framework": "{fmt} files state the serving framework of every point",
    "model": "{fmt} files name the model of every point",
    "concurrency": "{fmt} files state the concurrency of every point",
    "on_unknown_hardware": "only MLPerf summaries skip rows of unknown accelerators",
}


def read_results(path: str | Path, **kwargs: Any) -> pd.DataFrame:
    """Read one result file of any supported format (detected from its content).

    Points that repeat another point of the file (see :data:`DUPLICATE_KEY`, e.g. an MLPerf
    submission listed under two accuracy targets with one result) are kept once; the drop is
    counted in ``frame.attrs["skipped"]`` with the rows the reader itself skipped.

    Parameters
    ----------
    path : str or pathlib.Path
        The file.
    **kwargs
        Passed to the format's reader (e.g. ``hardware=``, ``num_gpus=``, ``as_of=``). A value
        the file states wins and the argument must agree with it; a keyword the format's reader
        does not use (a GPU count for MLPerf, AIConfigurator or power files, ``precision=``
        for files that state it on every row) is refused. None means not given.

    Returns
    -------
    pandas.DataFrame
        Curve points conformed to :data:`tokenomics.curves.schema.CURVE_COLUMNS`;
        ``frame.attrs["skipped"]`` maps each reason rows were skipped for to their count.

    Raises
    ------
    IngestError
        If the format is not recognised or the file is malformed.
    ArgumentConflictError
        If an argument contradicts the file, or does not apply to it.
    TypeError
        If a keyword is none of the readers' arguments.
    KeyError
        If the hardware does not map to a catalog id.
    """
    known = {name for names in _ARGUMENTS.values() for name in names}
    unknown = sorted(k for k in kwargs if k not in known)
    if unknown:
        raise TypeError(f"read_results() got unexpected keyword argument {unknown[0]!r}; "
                        f"the readers take {sorted(known)}")
    fmt = detect_format(path)
    if fmt is None:
        raise IngestError(path, "<document>", f"not a recognised result format ({', '.join(FORMATS)})")
    gpus = _pick(kwargs, *_GPU_ARGUMENTS)
    if fmt in ("mlperf", "power", "aiconfigurator"):
        refuse_arguments(path, "<document>", f"{fmt} files state the accelerator count of every point",
                         **gpus)
    if fmt == "aiperf":
        refuse_arguments(path, "<document>", "an AIPerf endpoint is one pool of GPUs (use num_gpus)",
                         **_pick(kwargs, "num_prefill_gpus", "num_decode_gpus"))
    for name, value in kwargs.items():
        if name not in _ARGUMENTS[fmt]:
            refuse_arguments(path, "<document>", _UNUSED.get(name, f"{fmt} files state it").format(fmt=fmt),
                             **{name: value})
    if fmt == "mlperf":
        frame = read_mlperf(path, **_pick(kwargs, "on_unknown_hardware", "as_of"))
    elif fmt == "agentx":
        frame = read_agentx(path, **_pick(kwargs, "hardware", "as_of", *_GPU_ARGUMENTS))
    elif fmt == "power":
        frame = read_power_baseline(path, **_pick(kwargs, "hardware", "as_of"))
    elif fmt == "aiconfigurator":
        frame = read_aiconfigurator(path, **_pick(kwargs, "as_of"))
    elif fmt == "aiperf":
        frame = read_aiperf(path, **_pick(kwargs, "hardware", "num_gpus", "model", "concurrency", "precision",
                                          "framework", "as_of"))
    else:
        frame = read_inferencex(path, **_pick(kwargs, "hardware", *_GPU_ARGUMENTS, "precision",
                                              "framework", "as_of"))
    if fmt in ("mlperf", "aiconfigurator") and kwargs.get("hardware") is not None:
        _check_named_hardware(frame, kwargs["hardware"])
    skipped = dict(frame.attrs.get("skipped", {}))
    frame, dropped = drop_duplicate_points(frame)
    for (_, kept), count in dropped.items():
        reason = f"duplicate of a point read from {kept} (same {_DUPLICATE_WORDS})"
        skipped[reason] = skipped.get(reason, 0) + count
    frame.attrs["skipped"] = skipped
    return frame


_DUPLICATE_WORDS = "hardware, model, configuration, concurrency or scenario, and throughput"


def _check_named_hardware(frame: pd.DataFrame, hardware: str) -> None:
    """Raise if a point of a file naming the hardware of every row names another catalog id."""
    given = resolve_hardware_name(hardware)
    other = frame[frame["hardware_id"] != given]
    if len(other):
        row = other.iloc[0]
        raise ArgumentConflictError(
            row["source"], "accelerator",
            f"the file names hardware {row['hardware_name']!r} ({row['hardware_id']}); "
            f"hardware={hardware!r} ({given}) contradicts it (leave hardware out for files that "
            "name their hardware)",
        )


def _key_text(value: object) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.9g}"
    return str(value)


def drop_duplicate_points(points: pd.DataFrame) -> tuple[pd.DataFrame, dict[tuple[str, str], int]]:
    """Keep one of each group of points that are the same run read twice.

    Points equal in every column of :data:`DUPLICATE_KEY` form a group; the point with the most
    values (ties: the first read) is kept. Points differing in any of those columns (another
    concurrency, GPU count, software, submitter or throughput) are distinct runs and all kept.

    Parameters
    ----------
    points : pandas.DataFrame
        Curve points (:data:`tokenomics.curves.schema.CURVE_COLUMNS`).

    Returns
    -------
    points : pandas.DataFrame
        The points without duplicates, in their original order.
    dropped : dict
        ``(dropped file, kept file) -> number of points dropped``.
    """
    if len(points) < 2:
        return points, {}
    key = pd.Series([""] * len(points), index=points.index)
    for col in DUPLICATE_KEY:
        values = points[col] if col in points.columns else pd.Series(None, index=points.index)
        if col == "note":
            values = values.map(lambda v: v if not isinstance(v, str) else _POWER_NOTE.sub("", v))
        key = key + "|" + values.map(_key_text)
    if not key.duplicated().any():
        return points, {}
    filled = points.notna().sum(axis=1)
    order = filled.sort_values(ascending=False, kind="stable").index
    keep = ~key.loc[order].duplicated()
    kept_at = {key[i]: i for i in order[keep.to_numpy()]}
    dropped: dict[tuple[str, str], int] = {}
    keep_mask = pd.Series(True, index=points.index)
    for i in order[~keep.to_numpy()]:
        keep_mask[i] = False
        pair = (_file_of(points.loc[i, "source"]), _file_of(points.loc[kept_at[key[i]], "source"]))
        dropped[pair] = dropped.get(pair, 0) + 1
    out = points[keep_mask.to_numpy()]
    out.attrs = dict(points.attrs)
    return out, dropped


def _file_of(source: object) -> str:
    return _ROW_IN_SOURCE.sub("", str(source))


def _pick(kwargs: dict[str, Any], *names: str) -> dict[str, Any]:
    return {k: v for k, v in kwargs.items() if k in names and v is not None}


def read_results_dir(
    path: str | Path, *, recursive: bool = True, pattern: str = "*", **kwargs: Any
) -> ReadResult:
    """Read every result file under a directory; never drop a file silently.

    Each file is read with :func:`read_results`. A file that is not a result file, is
    malformed, names unknown hardware, or needs information the caller did not give (e.g. the
    GPU count or hardware of a raw benchmark file) is listed in ``skipped`` with the reason.
    Rows skipped inside a table file (MLPerf non-token rows, unknown accelerators) are listed
    per reason with their count. A point that is a run already read from another file (see
    :data:`DUPLICATE_KEY`: an InferenceX aggregate row and its raw benchmark file, an MLPerf
    round's JSON and a CSV derived from it) is kept once, and each file's dropped duplicates
    are listed with the file they repeat.

    Parameters
    ----------
    path : str or pathlib.Path
        Directory to read.
    recursive : bool
        Descend into sub-directories (default True).
    pattern : str
        Glob pattern for file names (default every file).
    **kwargs
        Passed to each reader (``hardware=``, ``num_gpus=``, ``as_of=``, ...).

    Returns
    -------
    ReadResult
        ``(points, skipped)``; see :class:`ReadResult`.

    Raises
    ------
    NotADirectoryError
        If ``path`` is not a directory.
    ArgumentConflictError
        If ``hardware=`` or a GPU count contradicts a file, or does not apply to it (these are
        the caller's mistakes, not the file's, so they are raised rather than listed).
    KeyError
        If ``hardware=`` does not map to a catalog id.

    Examples
    --------
    >>> points, skipped = read_results_dir("results/")  # doctest: +SKIP
    >>> skipped[["path", "reason"]]  # doctest: +SKIP
    """
    root = Path(path)
    if not root.is_dir():
        raise NotADirectoryError(f"{root} is not a directory")
    if kwargs.get("hardware") is not None:
        resolve_hardware_name(kwargs["hardware"])
    files = sorted(root.rglob(pattern) if recursive else root.glob(pattern))
    frames: list[pd.DataFrame] = []
    skipped: list[dict[str, Any]] = []
    for f in files:
        if not f.is_file():
            continue
        try:
            fmt = detect_format(f)
            if fmt is None:
                skipped.append({"path": str(f), "rows": 0,
                                "reason": "not a recognised result file "
                                          f"(extension {f.suffix or 'none'} or unknown keys)"})
                continue
            frame = read_results(f, **kwargs)
        except ArgumentConflictError:
            raise
        except (IngestError, KeyError, ValueError, OSError) as err:
            msg = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
            skipped.append({"path": str(f), "rows": 0, "reason": f"{type(err).__name__}: {msg}"})
            continue
        for reason, count in frame.attrs.get("skipped", {}).items():
            skipped.append({"path": str(f), "rows": int(count), "reason": reason})
        frame.attrs = {}
        frames.append(frame)
    points = (
        conform(pd.concat(frames, ignore_index=True)) if frames else empty_curve_frame()
    )
    points, dropped = drop_duplicate_points(points)
    for (gone, kept), count in dropped.items():
        skipped.append({"path": gone, "rows": count,
                        "reason": f"duplicate of a point read from {kept} (same {_DUPLICATE_WORDS})"})
    points = points.reset_index(drop=True)
    table = pd.DataFrame(skipped, columns=list(SKIPPED_COLUMNS))
    return ReadResult(points, table)
