"""Reader for MLPerf Inference results summaries (official JSON and the LLM CSV).

MLPerf LLM benchmarks report **output** tokens per second of the whole system under each
scenario. Per accelerator: ``result / total accelerators``. Offline has no latency bound (the
point's interactivity is unknown). Server and Interactive bound the 99th-percentile TPOT; a
submission that passes runs every user at least at ``1 / TPOT_limit`` tok/s/user, so those
points are **floors** (``kind = "floor"``): the interactivity columns hold the guaranteed lower
bound, not a measured speed.

Rows that are not LLM token results (other units, other benchmarks), edge-suite rows, rows
mixing accelerator types and rows whose accelerator is not in the hardware catalog are skipped
and counted by reason in ``frame.attrs["skipped"]`` (a ``{reason: count}`` dictionary).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, Literal

import pandas as pd

from tokenomics.curves.ingest._common import (
    IngestError,
    as_float,
    frame_from_records,
    load_json,
    read_csv_table,
    resolve_hardware_name,
    resolve_model_name,
    stated_value,
)
from tokenomics.units import SECONDS_PER_MS

__all__ = ["MLPERF_LATENCY_LIMITS_MS", "MLPERF_PUBLICATION_DATES", "read_mlperf"]

MLPERF_LATENCY_LIMITS_MS: Final[dict[tuple[str, str], tuple[float, float]]] = {
    ("llama2-70b", "Server"): (2000.0, 200.0),
    ("llama2-70b", "Interactive"): (450.0, 40.0),
    ("mixtral-8x7b", "Server"): (2000.0, 200.0),
    ("llama3.1-405b", "Server"): (6000.0, 175.0),
    ("llama3.1-405b", "Interactive"): (4500.0, 80.0),
    ("llama3.1-8b", "Server"): (2000.0, 100.0),
    ("llama3.1-8b", "Interactive"): (500.0, 30.0),
    ("deepseek-r1", "Server"): (2000.0, 80.0),
    ("deepseek-r1", "Interactive"): (1500.0, 15.0),
    ("gpt-oss-120b", "Server"): (3000.0, 80.0),
    ("gpt-oss-120b", "Interactive"): (2000.0, 15.0),
}
"""(benchmark, scenario) -> (p99 TTFT limit, p99 TPOT limit) [ms].

Source: mlcommons/inference ``loadgen/mlperf.conf`` (HEAD b66003e10e2d, 2026-08-20), values
unchanged over the v5.1 and v6.0 rounds for these benchmarks; https://github.com/mlcommons/inference.
"""

MLPERF_PUBLICATION_DATES: Final[dict[str, str]] = {"v5.1": "2025-09-09", "v6.0": "2026-04-01"}
"""Round -> publication date. Sources: mlcommons/inference_results_v5.1 summary commit
965182b (2025-09-09); MLPerf Inference v6.0 announcement (2026-04-01,
https://www.storagereview.com/news/nvidia-sets-mlperf-inference-v6-0-records-with-blackwell-ultra-platform)."""

_COUNT_IN_NAME = re.compile(r"\(x(\d+)\)")
_MULTI = re.compile(r"\(x\d+\).*(,| and )", re.IGNORECASE)
_ACCURACY_SUFFIX = re.compile(r"-(99|99\.9)$")
_FRAMEWORKS = (("tensorrt", "trt"), ("trt-llm", "trt"), ("sglang", "sglang"), ("vllm", "vllm"),
               ("jax", "jax"), ("pytorch", "pytorch"))


def _benchmark_base(model: str) -> str:
    return _ACCURACY_SUFFIX.sub("", model.strip().lower())


def _framework(software: object) -> str | None:
    text = str(software or "").lower()
    for key, name in _FRAMEWORKS:
        if key in text:
            return name
    return text.split(" ", 1)[0] or None


def is_mlperf_summary(doc: Any) -> bool:
    """Return True for an MLPerf ``summary_results.json`` document (a list of result rows).

    Parameters
    ----------
    doc : object
        Decoded JSON.

    Returns
    -------
    bool
        Whether ``doc`` is an MLPerf summary.
    """
    return (
        isinstance(doc, list)
        and bool(doc)
        and all(isinstance(r, Mapping) for r in doc)
        and "Performance_Units" in doc[0]
        and "Scenario" in doc[0]
    )


_CSV_COLUMNS = ("mlperf_version", "model", "scenario", "result", "units", "accelerator",
                "total_accelerators")


def is_mlperf_csv(columns: list[str]) -> bool:
    """Return True if the CSV header is the MLPerf LLM table.

    Parameters
    ----------
    columns : list of str
        CSV header.

    Returns
    -------
    bool
        Whether every required column is present.
    """
    return all(c in columns for c in _CSV_COLUMNS)


def _row_from_json(r: Mapping[str, Any]) -> dict[str, Any]:
    accel = str(r.get("Accelerator") or "")
    count = _COUNT_IN_NAME.search(accel)
    if count:
        total: object = float(count.group(1))
    elif r.get("Total Accelerators") is not None:
        total = r.get("Total Accelerators")
    else:
        per_node, nodes = r.get("a#"), r.get("Nodes")
        try:
            total = float(per_node) * float(nodes)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            total = None
    power = r.get("Power_Result") if str(r.get("Power_Units") or "") == "Watts" else None
    return {
        "id": r.get("ID"), "version": r.get("version"), "division": r.get("Category"),
        "availability": r.get("Availability"), "suite": r.get("Suite"),
        "submitter": r.get("Submitter"), "system": r.get("System"), "accelerator": accel,
        "total": total, "model": str(r.get("Model") or ""), "scenario": r.get("Scenario"),
        "result": r.get("Performance_Result"), "units": r.get("Performance_Units"),
        "precision": r.get("weight_data_types"), "software": r.get("Software"),
        "power_w": power, "stated_per_accel": None, "limits": None,
    }


def _row_from_csv(r: Mapping[str, Any]) -> dict[str, Any]:
    def val(key: str) -> Any:
        v = r.get(key)
        return None if v is None or (isinstance(v, float) and math.isnan(v)) else v

    limits = None
    if val("tpot_p99_limit_ms") is not None:
        limits = (val("ttft_p99_limit_ms"), val("tpot_p99_limit_ms"))
    return {
        "id": val("result_id"), "version": val("mlperf_version"), "division": val("division"),
        "availability": val("availability"), "suite": "datacenter",
        "submitter": val("submitter"), "system": val("system"),
        "accelerator": str(val("accelerator") or ""), "total": val("total_accelerators"),
        "model": str(val("model") or ""), "scenario": val("scenario"), "result": val("result"),
        "units": val("units"), "precision": val("weight_dtype"), "software": val("software"),
        "power_w": None, "stated_per_accel": val("result_per_accelerator"), "limits": limits,
    }


def _point(row: Mapping[str, Any], source: str, hardware_id: str, as_of: str | None) -> dict[str, Any]:
    item = f"{source}#{row['id']}/{row['model']}/{row['scenario']}"
    total = as_float(row["total"], item, "total accelerators", required=True)
    if not total > 0:
        raise IngestError(item, "total accelerators", f"must be > 0, got {total!r}")
    result = as_float(row["result"], item, "Performance_Result", required=True)
    if result < 0:
        raise IngestError(item, "Performance_Result", f"must be >= 0, got {result!r}")
    per_accel = result / total
    stated = row["stated_per_accel"]
    if stated is not None:
        stated_f = as_float(stated, item, "result_per_accelerator")
        if not math.isclose(stated_f, per_accel, rel_tol=1e-3):
            raise IngestError(item, "result_per_accelerator",
                              f"{stated_f!r} != result / total_accelerators = {per_accel!r}")
    scenario = str(row["scenario"])
    base = _benchmark_base(row["model"])
    model_id, in_catalog = resolve_model_name(base)
    rec: dict[str, Any] = {
        "hardware_id": hardware_id,
        "hardware_name": row["accelerator"],
        "model_id": model_id,
        "model_name": row["model"],
        "model_in_catalog": in_catalog,
        "precision": None if row["precision"] is None else str(row["precision"]).lower(),
        "framework": _framework(row["software"]),
        "spec_decoding": None,
        "disaggregated": None,
        "workload": f"mlperf-{scenario.lower()}",
        "num_gpus": total,
        "output_throughput_tok_per_s_per_gpu": per_accel,
        "source": item,
        "as_of": stated_value(MLPERF_PUBLICATION_DATES.get(str(row["version"])), as_of, item,
                              f"version {row['version']}", "as_of", date=True),
        "note": (f"MLPerf {row['version']} {row['division']} {row['availability']}; "
                 f"{row['submitter']}: {row['system']}; output tokens only"),
    }
    if scenario == "Offline":
        rec["kind"] = "measured"
    else:
        limits = row["limits"] or MLPERF_LATENCY_LIMITS_MS.get((base, scenario))
        if limits is None:
            raise _Skip(f"no latency limits known for {base} {scenario}")
        tpot_limit_s = as_float(limits[1], item, "tpot_p99_limit_ms", required=True) * SECONDS_PER_MS
        if not tpot_limit_s > 0:
            raise IngestError(item, "tpot_p99_limit_ms", f"latency limit must be > 0 ms, got {limits[1]!r}")
        floor = 1.0 / tpot_limit_s
        rec["kind"] = "floor"
        rec["interactivity_tok_per_s_per_user"] = floor
        rec["interactivity_p90_tok_per_s_per_user"] = floor
    power = row["power_w"]
    if power is not None:
        power_f = as_float(power, item, "Power_Result")
        rec["power_w_per_gpu"] = power_f / total
        if result > 0:
            rec["output_joules_per_token"] = power_f / result
        rec["note"] += "; power = system wall power / accelerators"
    return rec


class _Skip(Exception):  # noqa: N818 - internal control flow, never escapes
    """Internal signal: skip this row for the given reason."""


def read_mlperf(
    path: str | Path,
    *,
    on_unknown_hardware: Literal["skip", "raise"] = "skip",
    as_of: str | None = None,
) -> pd.DataFrame:
    """Read an MLPerf Inference summary (official JSON or the LLM CSV) into curve points.

    Parameters
    ----------
    path : str or pathlib.Path
        ``summary_results.json`` of a round, or ``mlperf_llm_datacenter_*.csv``.
    on_unknown_hardware : {"skip", "raise"}
        Accelerators outside the hardware catalog (RTX PRO, L40S, Arc, ...) are skipped and
        counted by default; ``"raise"`` raises the ``KeyError`` with the closest catalog ids.
    as_of : str, optional
        ISO date for rows of a round missing from :data:`MLPERF_PUBLICATION_DATES`; for a known
        round it must be the round's publication date.

    Returns
    -------
    pandas.DataFrame
        Curve points conformed to :data:`tokenomics.curves.schema.CURVE_COLUMNS`:
        ``output_throughput_tok_per_s_per_gpu`` [tok/s/accelerator]; Server/Interactive points
        have ``kind = "floor"`` and the scenario's ``1 / TPOT_p99_limit`` as interactivity
        [tok/s/user]; Offline points have ``kind = "measured"`` and no interactivity.
        ``frame.attrs["skipped"]`` maps each skip reason to its row count.

    Raises
    ------
    IngestError
        If the file is neither format, or a kept row has a non-numeric result, a non-positive
        accelerator count, or (CSV) a ``result_per_accelerator`` that disagrees with
        ``result / total_accelerators``.
    ArgumentConflictError
        If ``as_of`` is not the publication date of a kept row's round.
    KeyError
        For unknown hardware when ``on_unknown_hardware="raise"``.

    Notes
    -----
    MLPerf counts output tokens only, so total and input throughput stay empty. Interactivity
    limits: see :data:`MLPERF_LATENCY_LIMITS_MS` (the CSV carries its own).

    Examples
    --------
    >>> pts = read_mlperf("inference_results_v6.0_summary_results.json")  # doctest: +SKIP
    >>> pts.attrs["skipped"]  # doctest: +SKIP
    {'units Samples/s (not tokens)': 62, ...}
    """
    if on_unknown_hardware not in ("skip", "raise"):
        raise ValueError(f"on_unknown_hardware={on_unknown_hardware!r}; use 'skip' or 'raise'")
    p = Path(path)
    source = str(p)
    rows: list[dict[str, Any]]
    if p.suffix.lower() == ".csv":
        table = read_csv_table(p)
        if not is_mlperf_csv(list(table.columns)):
            missing = [c for c in _CSV_COLUMNS if c not in table.columns]
            raise IngestError(source, missing[0], "column missing: not an MLPerf LLM CSV")
        rows = [_row_from_csv(r) for r in table.to_dict(orient="records")]
    else:
        doc = load_json(p)
        if not is_mlperf_summary(doc):
            raise IngestError(source, "Performance_Units",
                              "not an MLPerf summary (expected a list of result rows)")
        rows = [_row_from_json(r) for r in doc]
    skipped: Counter[str] = Counter()
    records: list[dict[str, Any]] = []
    for row in rows:
        if str(row["suite"] or "").lower() != "datacenter":
            skipped[f"suite {row['suite']} (not datacenter)"] += 1
            continue
        if row["units"] != "Tokens/s":
            skipped[f"units {row['units']} (not tokens)"] += 1
            continue
        accel = row["accelerator"]
        if not accel.strip():
            skipped["no accelerator named"] += 1
            continue
        if _MULTI.search(accel):
            skipped["mixed accelerator types"] += 1
            continue
        try:
            hardware_id = resolve_hardware_name(accel, source=source)
        except KeyError:
            if on_unknown_hardware == "raise":
                raise
            skipped[f"hardware not in catalog: {accel}"] += 1
            continue
        try:
            records.append(_point(row, source, hardware_id, as_of))
        except _Skip as why:
            skipped[str(why)] += 1
    frame = frame_from_records(records)
    frame.attrs["skipped"] = dict(skipped)
    return frame
