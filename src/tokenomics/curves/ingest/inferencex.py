"""Readers for InferenceX (formerly InferenceMAX) fixed-sequence results.

Two formats:

* **aggregate rows** (``agg_*.json``, written by InferenceX ``utils/process_result.py``): one flat
  object (or a list of them) with per-GPU throughputs (``tput_per_gpu``,
  ``output_tput_per_gpu``, ``input_tput_per_gpu``) and latency percentiles in **seconds**
  (``median_tpot``, ``p90_ttft``, ...);
* **raw benchmark-serving files** (vLLM-style ``benchmark_serving`` output): system totals
  (``total_token_throughput``, ``output_throughput``) and latencies in **milliseconds**
  (``median_tpot_ms``, ...). The GPU count is not in these files: it comes from the caller, from
  the InferenceX result-file name (``..._tp8-ep1-..._conc4_<runner>.json``) or, for multi-node
  disaggregated runs, from ``..._gpus_16_ctx_8_gen_8.json``.

Per-GPU throughput (both formats, InferenceX convention, issue SemiAnalysisAI/InferenceX#131):

* aggregated serving on ``N`` GPUs: every throughput divided by ``N``;
* disaggregated prefill/decode on ``P`` prefill + ``D`` decode GPUs:
  ``total / (P + D)``, ``output / D`` and ``(total - output) / P``.

Interactivity is ``1 / TPOT`` per percentile (median, p90, p99); ``std_intvty`` of the aggregate
rows (``1 / std(TPOT)``) is meaningless and ignored.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from tokenomics.curves.ingest._common import (
    IngestError,
    as_bool,
    as_float,
    check_field,
    check_gpu_count,
    check_parallel_size,
    check_sequence_length,
    check_throughput,
    check_throughput_sum,
    check_tpot_seconds,
    frame_from_records,
    gpu_count,
    hardware_of,
    interactivity_from_tpot,
    load_json,
    ms_to_s,
    refuse_arguments,
    resolve_model_name,
    stated_value,
    workload_label,
)
from tokenomics.units import W_PER_KW

__all__ = ["per_gpu_throughput", "read_inferencex"]

_RESULT_NAME = re.compile(
    r"^(?:agg_)?(?P<prefix>[^_]+)_(?P<isl>\d+)k(?P<osl>\d+)k_(?P<precision>[^_]+)_(?P<framework>[^_]+)_"
    r"tp(?P<tp>\d+)-ep(?P<ep>\d+)-dpa(?P<dpa>true|false)_disagg-(?P<disagg>true|false)_"
    r"spec-(?P<spec>[^_]+)_conc(?P<conc>\d+)_(?P<hw>.+)$",
    re.IGNORECASE,
)
_DISAGG_NAME = re.compile(r"gpus_(?P<total>\d+)_ctx_(?P<ctx>\d+)_gen_(?P<gen>\d+)", re.IGNORECASE)
_STATS = ("median", "p90", "p99")
_TOKENS_PER_K = 1024


def per_gpu_throughput(
    total_tok_per_s: float,
    output_tok_per_s: float,
    *,
    num_gpus: float | None = None,
    num_prefill_gpus: float | None = None,
    num_decode_gpus: float | None = None,
) -> tuple[float, float, float]:
    r"""Return (total, input, output) throughput per GPU with the right denominators.

    Aggregated serving on ``N`` GPUs divides every throughput by ``N``. Disaggregated serving
    divides by role:

    .. math::

        T_\\text{tot} = \\frac{T}{P + D},\\quad
        T_\\text{out} = \\frac{T_o}{D},\\quad
        T_\\text{in} = \\frac{T - T_o}{P}

    Parameters
    ----------
    total_tok_per_s : float
        System input + output tokens per second [tok/s].
    output_tok_per_s : float
        System output tokens per second [tok/s].
    num_gpus : float, optional
        GPUs of an aggregated deployment [count].
    num_prefill_gpus, num_decode_gpus : float, optional
        GPUs per role of a disaggregated deployment [count]; both or neither.

    Returns
    -------
    tuple of float
        ``(total, input, output)`` [tok/s/GPU].

    Raises
    ------
    ValueError
        If the GPU counts are missing, inconsistent or not positive, or output exceeds total.

    Examples
    --------
    >>> per_gpu_throughput(1600.0, 400.0, num_prefill_gpus=4, num_decode_gpus=12)
    (100.0, 300.0, 33.333333333333336)
    """
    if output_tok_per_s > total_tok_per_s * (1 + 1e-9):
        raise ValueError(
            f"output throughput {output_tok_per_s!r} tok/s exceeds total {total_tok_per_s!r} tok/s"
        )
    input_tok_per_s = total_tok_per_s - output_tok_per_s
    if num_prefill_gpus is not None or num_decode_gpus is not None:
        if num_prefill_gpus is None or num_decode_gpus is None:
            raise ValueError("disaggregated runs need both num_prefill_gpus and num_decode_gpus")
        if num_prefill_gpus <= 0 or num_decode_gpus <= 0:
            raise ValueError(
                f"GPU counts must be > 0, got prefill={num_prefill_gpus}, decode={num_decode_gpus}"
            )
        if num_gpus is not None and not math.isclose(num_gpus, num_prefill_gpus + num_decode_gpus):
            raise ValueError(
                f"num_gpus={num_gpus} != num_prefill_gpus + num_decode_gpus "
                f"= {num_prefill_gpus + num_decode_gpus}"
            )
        return (
            total_tok_per_s / (num_prefill_gpus + num_decode_gpus),
            input_tok_per_s / num_prefill_gpus,
            output_tok_per_s / num_decode_gpus,
        )
    if num_gpus is None or not num_gpus > 0:
        raise ValueError(f"num_gpus must be > 0, got {num_gpus!r}")
    return total_tok_per_s / num_gpus, input_tok_per_s / num_gpus, output_tok_per_s / num_gpus


def _name_meta(path: Path) -> dict[str, Any]:
    match = _RESULT_NAME.match(path.stem)
    if not match:
        return {}
    g = match.groupdict()
    return {
        "prefix": g["prefix"],
        "isl": float(int(g["isl"]) * _TOKENS_PER_K),
        "osl": float(int(g["osl"]) * _TOKENS_PER_K),
        "precision": g["precision"].lower(),
        "framework": g["framework"].lower(),
        "tp": float(g["tp"]),
        "ep": float(g["ep"]),
        "dp_attention": g["dpa"].lower() == "true",
        "disagg": g["disagg"].lower() == "true",
        "spec": g["spec"].lower(),
        "conc": float(g["conc"]),
        "hw": g["hw"],
    }


def _date_from_stamp(stamp: object) -> str | None:
    text = str(stamp or "")
    m = re.match(r"^(\d{4})-?(\d{2})-?(\d{2})", text)
    # an unreadable stamp is passed on as written, so the record check names it
    return f"{m.group(1)}-{m.group(2)}-{m.group(3)}" if m else (text or None)


def is_aggregate_row(doc: Any) -> bool:
    """Return True for an InferenceX fixed-sequence aggregate row (or a list of them).

    Parameters
    ----------
    doc : object
        Decoded JSON.

    Returns
    -------
    bool
        Whether ``doc`` looks like ``agg_*.json`` output of ``process_result.py``.
    """
    rows = doc if isinstance(doc, list) else [doc]
    return bool(rows) and all(
        isinstance(r, Mapping) and "tput_per_gpu" in r and "hw" in r and "users" not in r
        and r.get("scenario_type") is None
        for r in rows
    )


def is_raw_benchmark(doc: Any) -> bool:
    """Return True for a raw ``benchmark_serving`` result (system totals, ``*_ms`` keys).

    Parameters
    ----------
    doc : object
        Decoded JSON.

    Returns
    -------
    bool
        Whether ``doc`` looks like a raw benchmark-serving file.
    """
    return (
        isinstance(doc, Mapping)
        and "total_token_throughput" in doc
        and "output_throughput" in doc
        and any(str(k).endswith("_ms") for k in doc)
    )


def _aggregate_record(
    row: Mapping[str, Any],
    source: str,
    *,
    hardware: str | None,
    num_gpus: float | None,
    num_prefill_gpus: float | None,
    num_decode_gpus: float | None,
    precision: str | None,
    framework: str | None,
    as_of: str | None,
) -> dict[str, Any]:
    ms_keys = [k for k in row if str(k).endswith("_ms")]
    if ms_keys:
        raise IngestError(
            source, ms_keys[0], "aggregate rows hold seconds; '*_ms' keys belong to raw files"
        )
    hardware_id, hw_name = hardware_of(row.get("hw"), hardware, source, "hw")
    model_name = row.get("model") or row.get("infmax_model_prefix")
    if not model_name:
        raise IngestError(source, "model", "is required but missing")
    model_id, in_catalog = resolve_model_name(model_name)
    disagg = bool(as_bool(row.get("disagg"), source, "disagg"))
    multinode = bool(as_bool(row.get("is_multinode"), source, "is_multinode"))
    tp = as_float(row.get("tp"), source, "tp")
    pp = as_float(row.get("pp", 1), source, "pp")
    pcp = as_float(row.get("pcp_size", 1), source, "pcp_size")
    n_prefill = as_float(row.get("num_prefill_gpu"), source, "num_prefill_gpu")
    n_decode = as_float(row.get("num_decode_gpu"), source, "num_decode_gpu")
    for key, val in (("tp", tp), ("pp", pp), ("pcp_size", pcp)):
        check_parallel_size(val, source, key)
    check_gpu_count(n_prefill, source, "num_prefill_gpu")
    check_gpu_count(n_decode, source, "num_decode_gpu")
    if disagg or multinode:
        n_prefill = gpu_count(n_prefill, num_prefill_gpus, source, "num_prefill_gpu", "num_prefill_gpus")
        n_decode = gpu_count(n_decode, num_decode_gpus, source, "num_decode_gpu", "num_decode_gpus")
        if math.isnan(n_prefill) or math.isnan(n_decode):
            raise IngestError(
                source, "num_prefill_gpu", "multi-node/disaggregated rows need num_prefill_gpu "
                "and num_decode_gpu for the per-role GPU denominators"
            )
        n_all = gpu_count(n_prefill + n_decode, num_gpus, source, "num_prefill_gpu + num_decode_gpu",
                          "num_gpus")
    else:
        n_all = tp * (1.0 if math.isnan(pp) else pp) * (1.0 if math.isnan(pcp) else pcp)
        refuse_arguments(source, "disagg", "the row is an aggregated run (one pool of GPUs)",
                         num_prefill_gpus=num_prefill_gpus, num_decode_gpus=num_decode_gpus)
        n_all = gpu_count(n_all, num_gpus, source, "tp", "num_gpus")
    tput = as_float(row.get("tput_per_gpu"), source, "tput_per_gpu", required=True)
    out_tput = as_float(row.get("output_tput_per_gpu"), source, "output_tput_per_gpu")
    in_tput = as_float(row.get("input_tput_per_gpu"), source, "input_tput_per_gpu")
    for key, val in (("tput_per_gpu", tput), ("output_tput_per_gpu", out_tput),
                     ("input_tput_per_gpu", in_tput)):
        check_throughput(val, source, key)
    if not (disagg or multinode):
        check_throughput_sum(tput, in_tput, out_tput, source)
    rec: dict[str, Any] = {
        "hardware_id": hardware_id,
        "hardware_name": str(hw_name),
        "model_id": model_id,
        "model_name": str(model_name),
        "model_in_catalog": in_catalog,
        "precision": stated_value(_lower(row.get("precision")), precision, source, "precision", "precision"),
        "framework": stated_value(_lower(row.get("framework")), framework, source, "framework", "framework"),
        "spec_decoding": _lower(row.get("spec_decoding")) or "none",
        "disaggregated": disagg,
        "isl_tokens": as_float(row.get("isl"), source, "isl"),
        "osl_tokens": as_float(row.get("osl"), source, "osl"),
        "concurrency": as_float(row.get("conc"), source, "conc"),
        "tp": tp if not (disagg or multinode) else as_float(
            row.get("decode_tp", row.get("tp")), source, "decode_tp"),
        "ep": as_float(row.get("decode_ep", row.get("ep")), source, "ep"),
        "pp": pp,
        "dp_attention": as_bool(row.get("decode_dp_attention", row.get("dp_attention")), source,
                                "dp_attention"),
        "num_gpus": n_all,
        "num_prefill_gpus": n_prefill,
        "num_decode_gpus": n_decode,
        "throughput_tok_per_s_per_gpu": tput,
        "input_throughput_tok_per_s_per_gpu": in_tput,
        "output_throughput_tok_per_s_per_gpu": out_tput,
        "kind": "measured",
        "source": source,
        "as_of": as_of,
    }
    check_sequence_length(rec["isl_tokens"], source, "isl")
    check_sequence_length(rec["osl_tokens"], source, "osl")
    for key in ("tp", "ep"):
        check_parallel_size(rec[key], source, key)
    check_gpu_count(n_all, source, "num_gpus")
    rec["workload"] = workload_label(rec["isl_tokens"], rec["osl_tokens"])
    for stat in _STATS:
        for metric in ("ttft", "tpot", "itl", "e2el"):
            col = f"{metric}_{stat}_s"
            key = f"{stat}_{metric}"
            value = as_float(row.get(key), source, key)
            if metric in ("tpot", "itl"):
                check_tpot_seconds(value, source, key)
            rec[col] = value
    rec["interactivity_tok_per_s_per_user"] = interactivity_from_tpot(rec["tpot_median_s"])
    rec["interactivity_p90_tok_per_s_per_user"] = interactivity_from_tpot(rec["tpot_p90_s"])
    stated = as_float(row.get("median_intvty"), source, "median_intvty")
    derived = rec["interactivity_tok_per_s_per_user"]
    if not math.isnan(stated) and not math.isnan(derived) and not math.isclose(
        stated, derived, rel_tol=1e-3
    ):
        raise IngestError(
            source, "median_intvty",
            f"{stated!r} tok/s/user disagrees with 1/median_tpot = {derived!r}",
        )
    _power_fields(row, source, rec)
    return rec


def _power_fields(row: Mapping[str, Any], source: str, rec: dict[str, Any]) -> None:
    if as_bool(row.get("power_valid"), source, "power_valid") is False:
        return
    j_total = as_float(row.get("joules_per_total_token"), source, "joules_per_total_token")
    j_out = as_float(row.get("joules_per_output_token"), source, "joules_per_output_token")
    if math.isnan(j_total) and math.isnan(j_out):
        return
    check_field(j_total, source, "joules_per_total_token", "joules_per_token")
    check_field(j_out, source, "joules_per_output_token", "output_joules_per_token")
    rec["joules_per_token"] = j_total
    rec["output_joules_per_token"] = j_out
    tput = rec["throughput_tok_per_s_per_gpu"]
    if not math.isnan(j_total) and j_total > 0:
        # J/token = W_per_GPU / (tok/s/GPU), so W_per_GPU = J/token * tok/s/GPU
        rec["power_w_per_gpu"] = j_total * tput
        # tok/s per kW = 1000 W/kW / (J/token)
        rec["throughput_tok_per_s_per_kw"] = W_PER_KW / j_total


def _raw_record(
    doc: Mapping[str, Any],
    path: Path,
    source: str,
    *,
    hardware: str | None,
    num_gpus: float | None,
    num_prefill_gpus: float | None,
    num_decode_gpus: float | None,
    precision: str | None,
    framework: str | None,
    as_of: str | None,
) -> dict[str, Any]:
    meta = _name_meta(path)
    disagg_match = _DISAGG_NAME.search(path.stem)
    n_p: float | None = num_prefill_gpus
    n_d: float | None = num_decode_gpus
    n_all: float | None = num_gpus
    if disagg_match:
        stated_all = float(disagg_match["total"])
        stated_p = float(disagg_match["ctx"])
        stated_d = float(disagg_match["gen"])
        if not math.isclose(stated_all, stated_p + stated_d):
            raise IngestError(
                source, "<file name>",
                f"gpus_{int(stated_all)} is not ctx_{int(stated_p)} + gen_{int(stated_d)}",
            )
        n_all = gpu_count(stated_all, num_gpus, source, "<file name>", "num_gpus")
        n_p = gpu_count(stated_p, num_prefill_gpus, source, "<file name>", "num_prefill_gpus")
        n_d = gpu_count(stated_d, num_decode_gpus, source, "<file name>", "num_decode_gpus")
    elif meta and meta["disagg"] and (num_prefill_gpus is not None or num_decode_gpus is not None):
        pass  # a disaggregated run whose name states no per-role counts: the caller's are used
    elif meta:
        refuse_arguments(
            source, "<file name>", f"the file name states an aggregated run on tp{meta['tp']:g} GPUs",
            num_prefill_gpus=num_prefill_gpus, num_decode_gpus=num_decode_gpus,
        )
        n_all = gpu_count(meta["tp"], num_gpus, source, "<file name>", "num_gpus")
    for key, count in (("num_gpus", n_all), ("num_prefill_gpus", n_p), ("num_decode_gpus", n_d)):
        if count is not None:
            check_gpu_count(float(count), source, key)
    for key in ("tp", "ep"):
        if meta.get(key) is not None:
            check_parallel_size(float(meta[key]), source, key)
    disagg = n_p is not None or n_d is not None
    if not disagg and n_all is None:
        raise IngestError(
            source, "num_gpus",
            "raw benchmark-serving files carry system totals only; pass num_gpus= (or "
            "num_prefill_gpus=/num_decode_gpus= for a disaggregated run)",
        )
    if hardware is None and meta.get("hw") is None:
        raise IngestError(
            source, "hw", "hardware is not recorded in this raw file; pass hardware=..."
        )
    hardware_id, hw_name = hardware_of(meta.get("hw"), hardware, source, "<file name>")
    model_name = doc.get("model_id") or meta.get("prefix")
    if not model_name:
        raise IngestError(source, "model_id", "is required but missing")
    model_id, in_catalog = resolve_model_name(model_name)
    total = as_float(doc.get("total_token_throughput"), source, "total_token_throughput",
                     required=True)
    output = as_float(doc.get("output_throughput"), source, "output_throughput", required=True)
    check_throughput(total, source, "total_token_throughput")
    check_throughput(output, source, "output_throughput")
    try:
        t_pg, i_pg, o_pg = per_gpu_throughput(
            total, output, num_gpus=n_all, num_prefill_gpus=n_p, num_decode_gpus=n_d
        )
    except ValueError as err:
        raise IngestError(source, "total_token_throughput", str(err)) from None
    completed = as_float(doc.get("completed"), source, "completed")
    isl = meta.get("isl", math.nan)
    osl = meta.get("osl", math.nan)
    if math.isnan(isl) and completed > 0:
        isl = as_float(doc.get("total_input_tokens"), source, "total_input_tokens") / completed
        osl = as_float(doc.get("total_output_tokens"), source, "total_output_tokens") / completed
    check_sequence_length(isl, source, "isl")
    check_sequence_length(osl, source, "osl")
    rec: dict[str, Any] = {
        "hardware_id": hardware_id,
        "hardware_name": str(hw_name),
        "model_id": model_id,
        "model_name": str(model_name),
        "model_in_catalog": in_catalog,
        "precision": stated_value(meta.get("precision"), precision, source, "<file name>", "precision"),
        "framework": stated_value(meta.get("framework"), framework, source, "<file name>", "framework"),
        "spec_decoding": meta.get("spec"),
        "disaggregated": disagg,
        "isl_tokens": isl,
        "osl_tokens": osl,
        "workload": workload_label(isl, osl),
        "concurrency": as_float(doc.get("max_concurrency", meta.get("conc")), source,
                                "max_concurrency"),
        "tp": meta.get("tp"),
        "ep": meta.get("ep"),
        "dp_attention": meta.get("dp_attention"),
        "num_gpus": n_all if n_all is not None else (n_p or 0.0) + (n_d or 0.0),
        "num_prefill_gpus": n_p,
        "num_decode_gpus": n_d,
        "throughput_tok_per_s_per_gpu": t_pg,
        "input_throughput_tok_per_s_per_gpu": i_pg,
        "output_throughput_tok_per_s_per_gpu": o_pg,
        "kind": "measured",
        "source": source,
        "as_of": stated_value(_date_from_stamp(doc.get("date")), as_of, source, "date", "as_of", date=True),
    }
    for stat in _STATS:
        for metric in ("ttft", "tpot", "itl", "e2el"):
            key = f"{stat}_{metric}_ms"
            value = ms_to_s(as_float(doc.get(key), source, key))
            if metric in ("tpot", "itl"):
                check_tpot_seconds(value, source, key)
            rec[f"{metric}_{stat}_s"] = value
    rec["interactivity_tok_per_s_per_user"] = interactivity_from_tpot(rec["tpot_median_s"])
    rec["interactivity_p90_tok_per_s_per_user"] = interactivity_from_tpot(rec["tpot_p90_s"])
    return rec


def _lower(value: object) -> str | None:
    return None if value is None else str(value).strip().lower()


def read_inferencex(
    path: str | Path,
    *,
    hardware: str | None = None,
    num_gpus: float | None = None,
    num_prefill_gpus: float | None = None,
    num_decode_gpus: float | None = None,
    precision: str | None = None,
    framework: str | None = None,
    as_of: str | None = None,
) -> pd.DataFrame:
    """Read an InferenceX fixed-sequence result (aggregate row or raw benchmark file).

    The format is detected from the keys: ``tput_per_gpu`` marks an aggregate row (seconds,
    per-GPU throughput already computed), ``total_token_throughput`` with ``*_ms`` keys a raw
    benchmark-serving file (milliseconds, system totals). Raw latencies are converted to
    seconds once; interactivity is ``1 / TPOT`` per percentile.

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.json`` file.
    hardware : str, optional
        Hardware name or id of a file that does not name it (raw files whose name does not
        carry the runner, e.g. the multi-node ``gpus_16_ctx_8_gen_8`` files). Where the file
        names its hardware (``hw``, the runner in the file name) it must name the same catalog
        id; ``hardware_name`` keeps the file's spelling.
    num_gpus : float, optional
        GPUs of an aggregated raw run [count] whose file name states none. Where the file
        states the count (``tp`` of the row or file name, ``gpus_N`` of a disaggregated file
        name, the row's prefill + decode GPUs) it must agree.
    num_prefill_gpus, num_decode_gpus : float, optional
        GPUs per role of a disaggregated run [count] whose file states none (else from
        ``ctx_P_gen_D`` in the file name or the row's ``num_prefill_gpu``/``num_decode_gpu``,
        with which they must agree); refused for an aggregated run.
    precision, framework : str, optional
        Precision and serving framework of a file that does not state them; where the file
        states them (the row's ``precision``/``framework``, the raw file's name) they must agree
        (case and punctuation aside).
    as_of : str, optional
        ISO date of the measurement for a file without one (aggregate rows carry none); a raw
        file's ``date`` must fall on the same day.

    Returns
    -------
    pandas.DataFrame
        Curve points conformed to :data:`tokenomics.curves.schema.CURVE_COLUMNS`, one row per result.

    Raises
    ------
    IngestError
        If the file is malformed: not JSON, a required key missing, a non-numeric value,
        milliseconds where seconds belong, an inconsistent stated interactivity, a raw file
        without a GPU count, a non-positive throughput, ISL/OSL or GPU count, a parallelism size below 1,
        or (aggregated rows on one set of GPUs) input + output per-GPU throughput more than
        1 % away from the total. Disaggregated rows divide input and output by different GPU
        counts, so the sum check is skipped there.
    ArgumentConflictError
        If ``hardware``, a GPU count, ``precision``, ``framework`` or ``as_of`` contradicts
        what the file states, or a per-role GPU count is given for an aggregated run.
    KeyError
        If the hardware name does not map to a catalog id (closest ids listed).

    Notes
    -----
    Per-GPU denominators for disaggregated runs: total over all prefill + decode GPUs, output
    over decode GPUs, input over prefill GPUs (see :func:`per_gpu_throughput`).

    Examples
    --------
    >>> pts = read_inferencex("agg_dsr1_1k1k_fp4_vllm_tp8-ep8-dpafalse_disagg-false"
    ...                       "_spec-none_conc4_b200-nb_0.json")  # doctest: +SKIP
    >>> pts[["hardware_id", "throughput_tok_per_s_per_gpu"]]  # doctest: +SKIP
    """
    p = Path(path)
    source = str(p)
    doc = load_json(p)
    if is_aggregate_row(doc):
        rows = doc if isinstance(doc, list) else [doc]
        records = [
            _aggregate_record(r, source if len(rows) == 1 else f"{source}[{i}]",
                              hardware=hardware, num_gpus=num_gpus, num_prefill_gpus=num_prefill_gpus,
                              num_decode_gpus=num_decode_gpus, precision=precision, framework=framework,
                              as_of=as_of)
            for i, r in enumerate(rows)
        ]
        return frame_from_records(records)
    if is_raw_benchmark(doc):
        return frame_from_records([
            _raw_record(
                doc, p, source, hardware=hardware, num_gpus=num_gpus,
                num_prefill_gpus=num_prefill_gpus, num_decode_gpus=num_decode_gpus,
                precision=precision, framework=framework, as_of=as_of,
            )
        ])
    if isinstance(doc, Mapping):
        missing = "tput_per_gpu" if "hw" in doc else "total_token_throughput"
        raise IngestError(source, missing, "not an InferenceX aggregate row or raw benchmark file")
    raise IngestError(source, "<document>", "expected a JSON object or a list of aggregate rows")
