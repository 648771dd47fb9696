"""Format detection for one result file and a directory reader that reports every skip."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd

from tokenomics.curves.ingest._common import IngestError, load_json, read_csv_table
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


def read_results(path: str | Path, **kwargs: Any) -> pd.DataFrame:
    """Read one result file of any supported format (detected from its content).

    Parameters
    ----------
    path : str or pathlib.Path
        The file.
    **kwargs
        Passed to the format's reader (e.g. ``hardware=``, ``num_gpus=``, ``as_of=``);
        keywords a reader does not take are ignored for it.

    Returns
    -------
    pandas.DataFrame
        Curve points conformed to :data:`tokenomics.curves.schema.CURVE_COLUMNS`.

    Raises
    ------
    IngestError
        If the format is not recognised or the file is malformed.
    KeyError
        If the hardware does not map to a catalog id.
    """
    fmt = detect_format(path)
    if fmt is None:
        raise IngestError(path, "<document>", f"not a recognised result format ({', '.join(FORMATS)})")
    if fmt == "mlperf":
        return read_mlperf(path, **_pick(kwargs, "on_unknown_hardware"))
    if fmt == "agentx":
        return read_agentx(path, **_pick(kwargs, "hardware", "as_of"))
    if fmt == "power":
        return read_power_baseline(path, **_pick(kwargs, "hardware"))
    if fmt == "aiconfigurator":
        return read_aiconfigurator(path, **_pick(kwargs, "as_of"))
    if fmt == "aiperf":
        return read_aiperf(path, **_pick(kwargs, "hardware", "num_gpus", "model", "concurrency", "precision",
                                         "framework", "as_of"))
    return read_inferencex(path, **_pick(kwargs, "hardware", "num_gpus", "num_prefill_gpus",
                                         "num_decode_gpus", "precision", "framework", "as_of"))


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
    per reason with their count.

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

    Examples
    --------
    >>> points, skipped = read_results_dir("results/")  # doctest: +SKIP
    >>> skipped[["path", "reason"]]  # doctest: +SKIP
    """
    root = Path(path)
    if not root.is_dir():
        raise NotADirectoryError(f"{root} is not a directory")
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
    table = pd.DataFrame(skipped, columns=list(SKIPPED_COLUMNS))
    return ReadResult(points, table)
