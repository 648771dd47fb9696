"""Reader for NVIDIA AIConfigurator projections (``pareto.csv``): projected curve points.

AIConfigurator (``aiconfigurator cli default|exp ... --save-dir DIR``) writes one
``pareto.csv`` per experiment (aggregated or disaggregated serving) with, per candidate
configuration, the columns of ``aiconfigurator_core.sdk.common.ColumnsAgg`` /
``ColumnsDisagg`` (version 0.12.0, read 2026-12-01): ``model, isl, osl, prefix, concurrency,
ttft, tpot, request_latency`` (ms), ``tokens/s``, ``tokens/s/gpu``, ``tokens/s/user``,
``num_total_gpus``, parallelism (``tp, pp, dp, moe_tp, moe_ep`` or their ``(p)``/``(d)``
prefill/decode forms), ``gemm`` / ``kvcache`` precisions, ``backend``, ``version``, ``system``.

**``tokens/s`` and ``tokens/s/gpu`` count OUTPUT (generated) tokens only**; this reader converts:
with ``isl`` prompt tokens per ``osl`` output tokens, input tok/s = output tok/s x isl / osl and
the all-token throughput per GPU (our ``throughput_tok_per_s_per_gpu``) is
``tokens/s x (1 + isl/osl) / num_total_gpus``. Disaggregated rows give output per decode GPU and
input per prefill GPU (the InferenceX convention). ``prefix`` (tokens of the prompt served from
the prefix cache) becomes ``cache_hit_frac = prefix / isl``.

Every point is ``kind = "projected"``: a model's estimate, never a measurement. An unknown system
or model keeps its name (``model_in_catalog = False`` for the model).
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from typing import Any

import pandas as pd

from tokenomics.curves.ingest._common import (
    IngestError,
    as_float,
    check_sequence_length,
    check_tpot_seconds,
    frame_from_records,
    ms_to_s,
    normalized,
    read_csv_table,
    resolve_hardware_name,
    resolve_model_name,
    workload_label,
)

__all__ = ["is_aiconfigurator_csv", "read_aiconfigurator"]

_REQUIRED = ("model", "isl", "osl", "tokens/s", "tokens/s/gpu", "tokens/s/user", "num_total_gpus")


def is_aiconfigurator_csv(header: list[str]) -> bool:
    """Whether a CSV header is an AIConfigurator ``pareto.csv`` (or ``best_config_topn.csv``)."""
    cols = {c.strip() for c in header}
    return {"tokens/s/gpu", "tokens/s/user", "num_total_gpus"} <= cols


def _precision(gemm: object) -> str | None:
    if gemm is None or (isinstance(gemm, float) and math.isnan(gemm)):
        return None
    text = str(gemm).lower()
    for key, out in (("nvfp4", "fp4"), ("mxfp4", "fp4"), ("fp4", "fp4"), ("fp8", "fp8"), ("int8", "int8"),
                     ("w4", "int4"), ("int4", "int4"), ("bfloat16", "bf16"), ("bf16", "bf16"),
                     ("float16", "fp16"), ("fp16", "fp16")):
        if key in text:
            return out
    return text


def _hardware(name: str, source: str) -> str:
    try:
        return resolve_hardware_name(name, source=source)
    except KeyError:
        return normalized(name) or name  # unknown system: keep its name


def _gpus(row: pd.Series, prefix: str, source: str, line: str) -> float:
    """Accelerators of one role: workers x tp x pp x dp (absent factors count as 1)."""
    total = as_float(row.get(f"{prefix}workers", 1.0), source, f"{line} {prefix}workers")
    for key in ("tp", "pp", "dp"):
        value = as_float(row.get(f"{prefix}{key}"), source, f"{line} {prefix}{key}")
        total *= 1.0 if math.isnan(value) else value
    return total if not math.isnan(total) else math.nan


def read_aiconfigurator(path: str | Path, *, as_of: str | None = None) -> pd.DataFrame:
    """Read an AIConfigurator ``pareto.csv`` into projected curve points.

    Parameters
    ----------
    path : str or pathlib.Path
        ``pareto.csv`` (or ``best_config_topn.csv``) from an AIConfigurator save directory.
    as_of : str, optional
        ISO date of the projection; default the file's modification date.

    Returns
    -------
    pandas.DataFrame
        One row per configuration, conformed to :data:`tokenomics.curves.schema.CURVE_COLUMNS`,
        ``kind = "projected"``. ``output_throughput_tok_per_s_per_gpu`` is AIConfigurator's
        ``tokens/s/gpu`` (output tokens); ``throughput_tok_per_s_per_gpu`` adds the input tokens.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    IngestError
        A missing column or a malformed value (naming file, row and column), a non-positive
        ISL/OSL or GPU count, or a TPOT that looks like seconds written as milliseconds.

    Examples
    --------
    >>> pts = read_aiconfigurator("results/agg/pareto.csv")  # doctest: +SKIP
    >>> pts[["hardware_id", "interactivity_tok_per_s_per_user", "output_throughput_tok_per_s_per_gpu"]]
    ...     # doctest: +SKIP
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"AIConfigurator file not found: {p}")
    table = read_csv_table(p)
    missing = [c for c in _REQUIRED if c not in table.columns]
    if missing:
        raise IngestError(p, missing[0], f"required column is missing (have {', '.join(map(str, table.columns))})")
    disagg = "(d)workers" in table.columns or "(p)workers" in table.columns
    when = as_of or dt.date.fromtimestamp(p.stat().st_mtime).isoformat()
    records: list[dict[str, Any]] = []
    for i, row in table.iterrows():
        line = f"row {int(str(i)) + 2}"
        source = f"{p}#{line.replace(' ', '')}"
        isl = as_float(row["isl"], p, f"{line} isl", required=True)
        osl = as_float(row["osl"], p, f"{line} osl", required=True)
        check_sequence_length(isl, p, f"{line} isl")
        check_sequence_length(osl, p, f"{line} osl")
        out_tps = as_float(row["tokens/s"], p, f"{line} tokens/s", required=True)
        n_all = as_float(row["num_total_gpus"], p, f"{line} num_total_gpus", required=True)
        if n_all <= 0:
            raise IngestError(p, f"{line} num_total_gpus", f"must be > 0, got {n_all:g}")
        per_gpu = as_float(row["tokens/s/gpu"], p, f"{line} tokens/s/gpu", required=True)
        if not math.isclose(per_gpu, out_tps / n_all, rel_tol=0.02, abs_tol=0.01):
            raise IngestError(
                p, f"{line} tokens/s/gpu",
                f"{per_gpu:g} is not tokens/s / num_total_gpus = {out_tps:g} / {n_all:g}",
            )
        in_tps = out_tps * isl / osl
        prefix = as_float(row.get("prefix", 0.0), p, f"{line} prefix")
        system = row.get("(d)system") if disagg else row.get("system")
        system_name = str(system) if isinstance(system, str) and system else "unknown"
        model_name = str(row["model"])
        model_id, in_catalog = resolve_model_name(model_name)
        tpot = ms_to_s(as_float(row.get("tpot"), p, f"{line} tpot"))
        if not math.isnan(tpot):
            check_tpot_seconds(tpot, p, f"{line} tpot")
        rec: dict[str, Any] = {
            "hardware_id": _hardware(system_name, str(p)),
            "hardware_name": system_name,
            "model_id": model_id,
            "model_name": model_name,
            "model_in_catalog": in_catalog,
            "precision": _precision(row.get("(d)gemm") if disagg else row.get("gemm")),
            "framework": str(row.get("(d)backend") if disagg else row.get("backend", "")) or None,
            "spec_decoding": "none",
            "disaggregated": disagg,
            "isl_tokens": isl,
            "osl_tokens": osl,
            "workload": workload_label(isl, osl),
            "concurrency": as_float(row.get("concurrency"), p, f"{line} concurrency"),
            "num_gpus": n_all,
            "throughput_tok_per_s_per_gpu": (out_tps + in_tps) / n_all,
            "interactivity_tok_per_s_per_user": as_float(row["tokens/s/user"], p, f"{line} tokens/s/user"),
            "ttft_median_s": ms_to_s(as_float(row.get("ttft"), p, f"{line} ttft")),
            "tpot_median_s": tpot,
            "e2el_median_s": ms_to_s(as_float(row.get("request_latency"), p, f"{line} request_latency")),
            "cache_hit_frac": (prefix / isl) if not math.isnan(prefix) and prefix > 0 else 0.0,
            "kind": "projected",
            "source": source,
            "as_of": when,
        }
        if disagg:
            n_p = _gpus(row, "(p)", str(p), line)
            n_d = _gpus(row, "(d)", str(p), line)
            rec.update({
                "tp": row.get("(d)tp"), "pp": row.get("(d)pp"), "ep": row.get("(d)moe_ep"),
                "num_prefill_gpus": n_p, "num_decode_gpus": n_d,
                "output_throughput_tok_per_s_per_gpu": out_tps / n_d if n_d > 0 else math.nan,
                "input_throughput_tok_per_s_per_gpu": in_tps / n_p if n_p > 0 else math.nan,
            })
        else:
            rec.update({
                "tp": row.get("tp"), "pp": row.get("pp"), "ep": row.get("moe_ep"),
                "output_throughput_tok_per_s_per_gpu": out_tps / n_all,
                "input_throughput_tok_per_s_per_gpu": in_tps / n_all,
            })
        records.append(rec)
    return frame_from_records(records)
