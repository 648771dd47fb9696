"""Reader for MLPerf Inference results summaries (official JSON and the LLM CSV).

MLPerf LLM benchmarks report **output** tokens per second of the whole system under each
scenario. Per accelerator: ``result / total accelerators``. Offline has no latency bound (the
point's interactivity is unknown). Server and Interactive bound the 99th-percentile TPOT; a
submission that passes runs every user at least at ``1 / TPOT_limit`` tok/s/user, so those
points are **floors** (``kind = "floor"``): the interactivity columns hold the guaranteed lower
bound, not a measured speed.

Each submission's LoadGen summary (``mlperf_log_summary.txt``, in the round's results
repository beside the summary JSON's ``Location``) also states the run's median and tail TTFT
and TPOT: :func:`read_mlperf_log` reads one, and ``read_mlperf(..., logs=repository)`` turns every
Server/Interactive floor whose log is found into a measured point at its median TPOT.

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
    ArgumentConflictError,
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

__all__ = ["MLPERF_LATENCY_LIMITS_MS", "MLPERF_PUBLICATION_DATES", "read_mlperf", "read_mlperf_log"]

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
        "power_w": power, "stated_per_accel": None, "limits": None, "location": r.get("Location"),
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
        "location": None,
    }


def _point(row: Mapping[str, Any], source: str, hardware_id: str, as_of: str | None,
           logs: Path | None = None) -> dict[str, Any]:
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
        if logs is not None:
            log = _run_log(row, logs, item)
            if log is not None:
                _measured_from_log(rec, log, logs)
    power = row["power_w"]
    if power is not None:
        power_f = as_float(power, item, "Power_Result")
        rec["power_w_per_gpu"] = power_f / total
        if result > 0:
            rec["output_joules_per_token"] = power_f / result
        rec["note"] += "; power = system wall power / accelerators"
    return rec


_LOG_LINE = re.compile(r"^\s*(?P<key>[A-Za-z0-9][^:]*?)\s*:\s*(?P<value>\S.*?)\s*$")
_LOG_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    # output column: the summary's keys (Server/Interactive wording first, then Offline's)
    "samples_per_s": ("Completed samples per second", "Samples per second"),
    "output_tok_per_s": ("Completed tokens per second", "Tokens per second"),
    "ttft_median_s": ("50.00 percentile first token latency (ns)",),
    "ttft_p90_s": ("90.00 percentile first token latency (ns)",),
    "ttft_p99_s": ("99.00 percentile first token latency (ns)",),
    "tpot_median_s": ("50.00 percentile time to output token (ns)",),
    "tpot_p90_s": ("90.00 percentile time to output token (ns)",),
    "tpot_p99_s": ("99.00 percentile time to output token (ns)",),
    "latency_mean_s": ("Mean latency (ns)",),
    "latency_median_s": ("50.00 percentile latency (ns)",),
    "ttft_limit_s": ("ttft_latency (ns)",),
    "tpot_limit_s": ("tpot_latency (ns)",),
}
_NS = 1e-9
_LOG_SCENARIOS = frozenset({"Offline", "Server"})
"""Scenarios of LLM runs as LoadGen names them (it runs the Interactive scenario as Server)."""


def read_mlperf_log(path: str | Path) -> pd.Series:
    """Read one MLPerf LoadGen summary (``mlperf_log_summary.txt``) of an LLM run.

    Parameters
    ----------
    path : str or pathlib.Path
        The summary of one performance run, e.g.
        ``closed/<submitter>/results/<system>/<benchmark>/Server/performance/run_1/mlperf_log_summary.txt``.

    Returns
    -------
    pandas.Series
        ``scenario`` (Offline, Server; LoadGen names the Interactive scenario Server),
        ``result_valid`` (bool), ``samples_per_s`` [requests/s], ``output_tok_per_s`` [tok/s],
        ``output_tokens_per_sample`` [tokens] (their ratio: the run's mean OSL), and, where the
        run measured them [s]: ``ttft_median_s``, ``ttft_p90_s``, ``ttft_p99_s``,
        ``tpot_median_s``, ``tpot_p90_s``, ``tpot_p99_s``, ``latency_mean_s``,
        ``latency_median_s`` (end-to-end), ``ttft_limit_s`` and ``tpot_limit_s`` (the p99 bounds
        the run was held to). Offline runs have no TTFT or TPOT: those entries are NaN.

    Raises
    ------
    IngestError
        If the file is not a LoadGen summary (no ``Scenario`` or ``Result is`` line, or a scenario
        other than Offline and Server), a value is not a number (the message names file, line and
        key), a latency or rate is not finite and positive, the token or sample rate is missing (a
        benchmark other than an LLM), or a Server run lacks its median TTFT, median or p90 TPOT.
    FileNotFoundError
        If ``path`` does not exist.

    Notes
    -----
    LoadGen prints latencies in nanoseconds; they are returned in seconds. The median TPOT is
    the run's typical per-user speed, ``1 / tpot_median_s`` [tok/s/user]; the scenario only bounds
    the 99th percentile.

    Examples
    --------
    >>> s = read_mlperf_log("mlperf_log_summary.txt")  # doctest: +SKIP
    >>> 1 / s["tpot_median_s"]  # doctest: +SKIP
    16.0
    """
    p = Path(path)
    lines = p.read_text(encoding="utf-8", errors="replace").splitlines()
    raw: dict[str, tuple[str, int]] = {}
    for number, line in enumerate(lines, start=1):
        m = _LOG_LINE.match(line)
        if m:
            raw.setdefault(m.group("key"), (m.group("value"), number))
    for key in ("Scenario", "Result is"):
        if key not in raw:
            raise IngestError(p, key, "line missing: not an MLPerf LoadGen summary")
    if raw["Scenario"][0] not in _LOG_SCENARIOS:
        value, number = raw["Scenario"]
        raise IngestError(f"{p}:{number}", "Scenario", f"{value!r} is not one of {sorted(_LOG_SCENARIOS)}")
    out: dict[str, Any] = {"scenario": raw["Scenario"][0], "result_valid": raw["Result is"][0] == "VALID"}
    for column, keys in _LOG_FIELDS.items():
        found = next((k for k in keys if k in raw), None)
        if found is None:
            out[column] = math.nan
            continue
        value, number = raw[found]
        x = as_float(value, f"{p}:{number}", found)
        scale = _NS if found.endswith("(ns)") else 1.0
        if not (x > 0 and math.isfinite(x)):
            raise IngestError(f"{p}:{number}", found, f"must be finite and > 0, got {value!r}")
        out[column] = x * scale
    for column in ("samples_per_s", "output_tok_per_s"):
        if math.isnan(out[column]):
            raise IngestError(p, _LOG_FIELDS[column][0],
                              "line missing: the run states no token throughput (not an LLM benchmark)")
    if out["scenario"] == "Server":
        for column in ("ttft_median_s", "tpot_median_s", "tpot_p90_s"):
            if math.isnan(out[column]):
                raise IngestError(p, _LOG_FIELDS[column][0], "line missing: a Server LLM run measures it")
    out["output_tokens_per_sample"] = out["output_tok_per_s"] / out["samples_per_s"]
    return pd.Series(out, name=str(p))


_LOG_AGREEMENT_FRAC = 1e-3
"""Largest relative gap between a LoadGen summary's token rate and the summary JSON's result."""


def _run_log(row: Mapping[str, Any], logs: Path, item: str) -> pd.Series | None:
    """Return the LoadGen summary of a JSON row's performance run under ``logs``, if present."""
    location = str(row.get("location") or "").strip()
    if not location:
        return None
    rel = Path(location.removeprefix("./"))
    run = rel if "performance" in rel.parts else rel / "performance" / "run_1"
    f = logs / run / "mlperf_log_summary.txt"
    if not f.is_file():
        return None
    log = read_mlperf_log(f)
    if log["scenario"] != "Server":
        raise IngestError(f, "Scenario", f"{log['scenario']!r}: not the Server run of {item}")
    if not log["result_valid"]:
        raise IngestError(f, "Result is", f"INVALID, but the summary publishes {item}")
    result = as_float(row["result"], item, "Performance_Result", required=True)
    if not math.isclose(log["output_tok_per_s"], result, rel_tol=_LOG_AGREEMENT_FRAC):
        raise IngestError(f, "Completed tokens per second",
                          f"{log['output_tok_per_s']!r} disagrees with the summary's result {result!r} ({item})")
    return log


def _measured_from_log(rec: dict[str, Any], log: pd.Series, logs: Path) -> None:
    """Make a floor point measured at its run's median TPOT (in place)."""
    rec["kind"] = "measured"
    rec["interactivity_tok_per_s_per_user"] = 1.0 / log["tpot_median_s"]
    rec["interactivity_p90_tok_per_s_per_user"] = 1.0 / log["tpot_p90_s"]
    rec["ttft_median_s"] = log["ttft_median_s"]
    rec["tpot_median_s"] = log["tpot_median_s"]
    rec["e2el_median_s"] = log["latency_median_s"]
    rec["note"] += (f"; interactivity = 1 / median TPOT of the run's LoadGen summary "
                    f"({Path(str(log.name)).relative_to(logs)})")


class _Skip(Exception):  # noqa: N818 - internal control flow, never escapes
    """Internal signal: skip this row for the given reason."""


def read_mlperf(
    path: str | Path,
    *,
    on_unknown_hardware: Literal["skip", "raise"] = "skip",
    as_of: str | None = None,
    logs: str | Path | None = None,
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
    logs : str or pathlib.Path, optional
        Root of a local copy of the round's results repository (e.g.
        ``mlcommons/inference_results_v5.1``). Each Server/Interactive JSON row whose run summary
        (``<Location>/performance/run_1/mlperf_log_summary.txt``, :func:`read_mlperf_log`) is
        there becomes ``kind = "measured"`` at ``1 / median TPOT`` (p90 likewise), with its
        median TTFT, TPOT and end-to-end latency; rows without one stay floors. JSON only.
        ``frame.attrs["logs_matched"]`` counts the rows read at their median.

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
        ``result / total_accelerators``; if a run summary under ``logs`` is malformed, is not a
        Server run, is INVALID, or its token rate disagrees with the row's result by more than
        0.1 %.
    FileNotFoundError
        If ``logs`` is not a directory, or no row's run summary is under it.
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
    root = None if logs is None else Path(logs)
    if root is not None and not root.is_dir():
        raise FileNotFoundError(f"logs={str(root)!r} is not a directory (a results repository's root)")
    rows: list[dict[str, Any]]
    if p.suffix.lower() == ".csv":
        if root is not None:
            raise ArgumentConflictError(p, "logs", "the LLM CSV names no run locations; pass the summary JSON")
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
            records.append(_point(row, source, hardware_id, as_of, root))
        except _Skip as why:
            skipped[str(why)] += 1
    frame = frame_from_records(records)
    frame.attrs["skipped"] = dict(skipped)
    if root is not None:
        matched = sum(1 for rec in records if "tpot_median_s" in rec)
        frame.attrs["logs_matched"] = matched
        if matched == 0:
            raise FileNotFoundError(
                f"logs={str(root)!r}: no run summary <Location>/performance/run_1/mlperf_log_summary.txt of "
                f"{source} found under it; pass the root of the round's results repository")
    return frame
