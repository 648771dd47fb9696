"""Reader for AIPerf and GenAI-Perf aggregate exports (measured points of your own endpoint).

AIPerf (``ai-dynamo/aiperf``) writes ``profile_export_aiperf.json`` (and ``.csv``); its
predecessor GenAI-Perf writes ``profile_export_genai_perf.json`` (and ``.csv``). Both hold one
benchmark run at one concurrency: per-metric statistics (``avg``, ``p50``, ``p90``, ``p99``, ...)
with a ``unit``, whole-system throughputs and the run's configuration:

* ``time_to_first_token``, ``inter_token_latency``, ``request_latency`` [ms];
* ``output_token_throughput`` [tokens/s, all GPUs], ``request_throughput`` [requests/s];
* ``input_sequence_length`` / ``output_sequence_length`` [tokens];
* AIPerf: ``benchmark_duration`` [s], ``total_isl`` / ``total_osl`` [tokens], the model and
  concurrency (``input_config.endpoint.model_names`` and ``input_config.loadgen.concurrency``;
  from 0.13 ``input_config.models.items[].name`` and ``input_config.phases[].concurrency``) and,
  with GPU telemetry, one entry per GPU under ``telemetry_data.endpoints``;
* GenAI-Perf: ``input_config.model`` and ``input_config.concurrency`` (or
  ``input_config.perf_analyzer.stimulus.concurrency``).

Throughputs are system totals: the GPU count comes from the telemetry section, else from
``num_gpus=`` (an error names it when neither exists). Input throughput is ``total_isl /
benchmark_duration`` where recorded, else ``request_throughput x mean ISL``. Interactivity is
``1 / ITL`` taken percentile by percentile. Sources: AIPerf ``docs/tutorials/
working-with-profile-exports.md`` (github.com/ai-dynamo/aiperf, read 2026-12-01).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from tokenomics.curves.ingest._common import (
    IngestError,
    as_float,
    check_gpu_count,
    check_sequence_length,
    check_tpot_seconds,
    frame_from_records,
    hardware_of,
    interactivity_from_tpot,
    load_json,
    ms_to_s,
    resolve_model_name,
    stated_value,
    workload_label,
)

__all__ = ["is_aiperf_csv", "is_aiperf_json", "read_aiperf", "read_genai_perf"]

_STAT_METRICS = ("time_to_first_token", "inter_token_latency", "request_latency",
                 "output_token_throughput", "request_throughput", "output_sequence_length")

# CSV row labels (AIPerf and GenAI-Perf spellings) -> JSON metric names
_CSV_LABELS = {
    "time to first token": "time_to_first_token",
    "inter token latency": "inter_token_latency",
    "request latency": "request_latency",
    "output sequence length": "output_sequence_length",
    "input sequence length": "input_sequence_length",
    "output token throughput": "output_token_throughput",
    "request throughput": "request_throughput",
    "benchmark duration": "benchmark_duration",
    "total input sequence length": "total_isl",
    "total output sequence length": "total_osl",
    "output token throughput per user": "output_token_throughput_per_user",
}


def is_aiperf_json(doc: Any) -> bool:
    """Whether a decoded JSON document is an AIPerf or GenAI-Perf aggregate export."""
    if not isinstance(doc, Mapping) or not isinstance(doc.get("input_config"), Mapping):
        return False
    return any(isinstance(doc.get(k), Mapping) and "unit" in doc[k] for k in _STAT_METRICS)


def is_aiperf_csv(header: list[str]) -> bool:
    """Whether a CSV header is the first line of an AIPerf / GenAI-Perf aggregate export."""
    cols = [c.strip().lower() for c in header]
    return bool(cols) and cols[0] == "metric" and "avg" in cols and ("p50" in cols or "p90" in cols)


def _read_csv(path: Path) -> dict[str, Any]:
    """Parse the sectioned CSV export into the JSON export's ``{metric: {unit, stat: value}}``.

    Sections are separated by blank lines and each starts with its header: ``Metric,avg,...``
    (distributions), ``Metric,Value`` (summary) and, with GPU telemetry, ``Endpoint,GPU_Index,
    GPU_Name,...`` (one row per GPU and metric), from which the GPUs are counted.
    """
    try:
        return _parse_sections(path)
    except UnicodeDecodeError as err:
        raise IngestError(
            path, "<document>", f"not UTF-8 text ({err.reason} at byte {err.start}); save it as UTF-8"
        ) from None
    except csv.Error as err:
        raise IngestError(path, "<document>", f"malformed CSV ({err})") from None


def _parse_sections(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    header: list[str] | None = None
    gpus: dict[tuple[str, str], str] = {}
    with path.open(newline="", encoding="utf-8-sig") as fh:
        for line, row in enumerate(csv.reader(fh), start=1):
            if not row or not any(c.strip() for c in row):
                header = None
                continue
            if header is None:
                header = [c.strip().lower() for c in row]
                if header[0] not in ("metric", "endpoint"):
                    raise IngestError(path, f"line {line}", f"unknown section header {row[0]!r}")
                continue
            if header[0] == "endpoint":
                cells = dict(zip(header, (c.strip() for c in row), strict=False))
                gpus[(cells.get("endpoint", ""), cells.get("gpu_index", ""))] = cells.get("gpu_name", "")
                continue
            label = row[0].strip()
            unit = ""
            if "(" in label and label.endswith(")"):
                label, unit = label[: label.rindex("(")].strip(), label[label.rindex("(") + 1 : -1]
            key = _CSV_LABELS.get(label.lower().replace("-", " "))
            if key is None:
                continue  # a metric this reader does not use (goodput, HTTP timings, ...)
            stats: dict[str, Any] = {"unit": unit}
            for col, cell in zip(header[1:], row[1:], strict=False):
                if cell.strip():
                    stats["avg" if col == "value" else col] = as_float(cell.replace(",", ""), path,
                                                                      f"line {line} ({label}) {col}")
            doc[key] = stats
    if gpus:
        doc["telemetry_data"] = {"endpoints": {"csv": {"gpus": {
            f"gpu_{i}": {"gpu_name": name} for i, name in enumerate(gpus.values())}}}}
    return doc


def _stat(doc: Mapping[str, Any], metric: str, stat: str, source: str, *, unit: str | None = None) -> float:
    entry = doc.get(metric)
    if not isinstance(entry, Mapping):
        return math.nan
    if unit is not None and entry.get("unit") not in (None, "", unit):
        got = str(entry.get("unit"))
        if unit == "ms" and got in ("s", "sec"):
            return as_float(entry.get(stat), source, f"{metric}.{stat}") * 1000.0
        raise IngestError(source, f"{metric}.unit", f"expected {unit!r}, got {got!r}")
    return as_float(entry.get(stat), source, f"{metric}.{stat}")


def _config(doc: Mapping[str, Any]) -> tuple[Any, Any]:
    cfg = doc.get("input_config") or {}
    endpoint = cfg.get("endpoint") or {}
    model = endpoint.get("model_names") or cfg.get("model") or cfg.get("model_names")
    items = (cfg.get("models") or {}).get("items") if isinstance(cfg.get("models"), Mapping) else None
    if not model and items:  # AIPerf >= 0.13: input_config.models.items[].name
        model = [i.get("name") for i in items if isinstance(i, Mapping)]
    if isinstance(model, list | tuple):
        model = model[0] if model else None
    conc = (cfg.get("loadgen") or {}).get("concurrency")
    for phase in cfg.get("phases") or []:  # AIPerf >= 0.13: input_config.phases[kind=profiling]
        if conc is None and isinstance(phase, Mapping) and phase.get("kind") == "profiling":
            conc = phase.get("concurrency")
    if conc is None:
        conc = cfg.get("concurrency")
    if conc is None:
        conc = ((cfg.get("perf_analyzer") or {}).get("stimulus") or {}).get("concurrency")
    return model, conc


def _telemetry_gpus(doc: Mapping[str, Any]) -> list[str]:
    endpoints = ((doc.get("telemetry_data") or {}).get("endpoints")) or {}
    names: list[str] = []
    for ep in endpoints.values():
        for gpu in ((ep or {}).get("gpus") or {}).values():
            names.append(str((gpu or {}).get("gpu_name", "")))
    return names


def read_aiperf(
    path: str | Path,
    *,
    hardware: str | None = None,
    num_gpus: float | None = None,
    model: str | None = None,
    concurrency: float | None = None,
    precision: str | None = None,
    framework: str | None = None,
    as_of: str | None = None,
) -> pd.DataFrame:
    """Read an AIPerf or GenAI-Perf aggregate export (JSON or CSV) into one measured curve point.

    Parameters
    ----------
    path : str or pathlib.Path
        ``profile_export_aiperf.json`` / ``.csv`` or ``profile_export_genai_perf.json`` / ``.csv``.
    hardware : str, optional
        Hardware name or id where the file records no GPU telemetry; where it does, the
        telemetry's GPU name must resolve to the same catalog id.
    num_gpus : float, optional
        Accelerators behind the endpoint; default the number of GPUs in the telemetry section.
    model, concurrency : optional
        Model name and concurrency where the file does not record them (the CSV exports).
    precision, framework : str, optional
        Recorded as given.
    as_of : str, optional
        ISO date of a run without ``start_time``; where it is recorded, it must fall on the
        same day.

    Returns
    -------
    pandas.DataFrame
        One row conformed to :data:`tokenomics.curves.schema.CURVE_COLUMNS`, ``kind="measured"``.
        An unknown model keeps its name with ``model_in_catalog=False``.

    Raises
    ------
    IngestError
        Malformed file, a missing required metric, no GPU count or hardware anywhere, a unit
        other than the documented one, implausible values (a TPOT in ms written as s).
    ArgumentConflictError
        If ``hardware`` names another catalog id than the GPU telemetry, or ``as_of`` another
        day than ``start_time``.
    KeyError
        If the hardware name does not map to a catalog id.
    """
    p = Path(path)
    source = str(p)
    if p.suffix.lower() == ".csv":
        doc: Mapping[str, Any] = _read_csv(p)
    else:
        loaded = load_json(p)
        if not is_aiperf_json(loaded):
            raise IngestError(p, "<document>", "not an AIPerf / GenAI-Perf aggregate export "
                              "(needs input_config and metric statistics with a unit)")
        doc = loaded
    file_model, file_conc = _config(doc)
    model_name = model or file_model
    if not model_name:
        raise IngestError(p, "input_config.endpoint.model_names", "model is not recorded; pass model=...")
    conc = as_float(concurrency if concurrency is not None else file_conc, source, "concurrency", required=True)
    gpus = _telemetry_gpus(doc)
    n = float(num_gpus) if num_gpus is not None else float(len(gpus)) if gpus else None
    if n is None:
        raise IngestError(p, "num_gpus", "throughputs are system totals and no GPU telemetry is recorded; "
                                         "pass num_gpus=")
    check_gpu_count(n, source, "num_gpus")
    if not hardware and not gpus:
        raise IngestError(p, "hardware", "hardware is not recorded (no GPU telemetry); pass hardware=...")
    hardware_id, hw_name = hardware_of(gpus[0] if gpus else None, hardware, source, "gpu telemetry")
    model_id, in_catalog = resolve_model_name(model_name)

    out_tps = _stat(doc, "output_token_throughput", "avg", source)
    if math.isnan(out_tps):
        raise IngestError(p, "output_token_throughput", "is required but missing")
    isl = _stat(doc, "input_sequence_length", "avg", source)
    osl = _stat(doc, "output_sequence_length", "avg", source)
    duration = _stat(doc, "benchmark_duration", "avg", source)
    total_isl = _stat(doc, "total_isl", "avg", source)
    if not math.isnan(total_isl) and duration > 0:
        in_tps = total_isl / duration
    else:
        in_tps = _stat(doc, "request_throughput", "avg", source) * isl
    for key, value in (("isl", isl), ("osl", osl)):
        if not math.isnan(value):
            check_sequence_length(value, source, key)
    rec: dict[str, Any] = {
        "hardware_id": hardware_id,
        "hardware_name": str(hw_name),
        "model_id": model_id,
        "model_name": str(model_name),
        "model_in_catalog": in_catalog,
        "precision": precision,
        "framework": framework,
        "disaggregated": False,
        "isl_tokens": isl,
        "osl_tokens": osl,
        "workload": workload_label(None if math.isnan(isl) else isl, None if math.isnan(osl) else osl),
        "concurrency": conc,
        "num_gpus": n,
        "output_throughput_tok_per_s_per_gpu": out_tps / n,
        "input_throughput_tok_per_s_per_gpu": in_tps / n if not math.isnan(in_tps) else math.nan,
        "throughput_tok_per_s_per_gpu": (out_tps + in_tps) / n if not math.isnan(in_tps) else math.nan,
        "kind": "measured",
        "source": source,
        "as_of": stated_value(str(doc.get("start_time"))[:10] if doc.get("start_time") else None, as_of,
                              source, "start_time", "as_of", date=True),
    }
    for stat, col in (("p50", "median"), ("p90", "p90"), ("p99", "p99")):
        rec[f"ttft_{col}_s"] = ms_to_s(_stat(doc, "time_to_first_token", stat, source, unit="ms"))
    for stat, col in (("p50", "median"), ("p90", "p90"), ("p99", "p99")):
        itl = ms_to_s(_stat(doc, "inter_token_latency", stat, source, unit="ms"))
        if not math.isnan(itl):
            check_tpot_seconds(itl, source, f"inter_token_latency.{stat}")
        rec[f"tpot_{col}_s"] = itl
        if col != "p99":
            rec[f"itl_{col}_s"] = itl
    for stat, col in (("p50", "median"), ("p90", "p90")):
        rec[f"e2el_{col}_s"] = ms_to_s(_stat(doc, "request_latency", stat, source, unit="ms"))
    rec["interactivity_tok_per_s_per_user"] = interactivity_from_tpot(rec["tpot_median_s"])
    rec["interactivity_p90_tok_per_s_per_user"] = interactivity_from_tpot(rec["tpot_p90_s"])
    if not math.isnan(osl) and rec["e2el_median_s"] > 0:
        rec["e2e_interactivity_tok_per_s_per_user"] = osl / rec["e2el_median_s"]
    return frame_from_records([rec])


read_genai_perf = read_aiperf
"""GenAI-Perf exports share the AIPerf layout; :func:`read_aiperf` reads both."""
