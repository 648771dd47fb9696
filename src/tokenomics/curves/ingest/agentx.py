"""Reader for AgentX (agentic-coding trace replay) aggregate rows.

Two generations of the format are read:

* **AgentX v1** (``process_agentic_result.py``): nested ``request_metrics`` (latency
  percentiles ``p50/p75/p90/p95`` in seconds, throughput totals and ``per_gpu``), and
  ``server_metrics`` (cache hit rates by tier, prompt tokens by source, KV offload);
  ``kv_offloading`` and ``allocated_cpu_dram_gb`` describe CPU-DRAM KV offload. Newer rows add
  E2E-normalised interactivity (``e2e_norm_intvty``), read when present.
* the **early flat agentic rows** (``agg_dsr1_tp8_users64_offloadoff_...json``): ``users``,
  ``offload_mode`` on/off, ``median_itl`` etc. in seconds and ``tput_per_gpu``; TPOT is absent
  there, so interactivity is ``1 / ITL`` per percentile.

Interactivity is always derived per percentile (``1 / p50(TPOT)``, ``1 / p90(TPOT)``), never
from a standard deviation. ISL/OSL are not fixed in trace replay: ``workload`` is the scenario
preset (``"agentic-coding"`` for AgentX rows; ``"agentic-coding-early"`` for the early flat rows,
whatever their ``scenario_type`` says: they replay the early kv-cache-tester trace, another traffic)
and ``isl_tokens``/``osl_tokens`` stay empty.
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
    check_gpu_count,
    check_parallel_size,
    check_throughput,
    check_throughput_sum,
    check_tpot_seconds,
    frame_from_records,
    get_path,
    gpu_count,
    hardware_of,
    interactivity_from_tpot,
    load_json,
    refuse_arguments,
    resolve_model_name,
)
from tokenomics.curves.ingest.inferencex import per_gpu_throughput

__all__ = ["read_agentx"]

_SPEC_IN_NAME = re.compile(r"_spec-(?P<spec>[^_]+)_", re.IGNORECASE)
_DISAGG_IN_NAME = re.compile(r"_disagg-(?P<d>true|false)_", re.IGNORECASE)
_REL_TOL_PER_GPU = 0.01
_EARLY_WORKLOAD = "agentic-coding-early"
"""Workload of the early flat rows: their ``scenario_type`` ("agentic-coding") names the scenario,
their trace is the early kv-cache-tester one that preset pools, not AgentX's."""


def is_agentx_nested(doc: Any) -> bool:
    """Return True for an AgentX v1 aggregate row (nested ``request_metrics``).

    Parameters
    ----------
    doc : object
        Decoded JSON.

    Returns
    -------
    bool
        Whether ``doc`` is an AgentX v1 row.
    """
    return isinstance(doc, Mapping) and isinstance(doc.get("request_metrics"), Mapping)


def is_agentic_flat(doc: Any) -> bool:
    """Return True for an early flat agentic aggregate row (``users``, ``offload_mode``).

    Parameters
    ----------
    doc : object
        Decoded JSON.

    Returns
    -------
    bool
        Whether ``doc`` is an early agentic row.
    """
    return (
        isinstance(doc, Mapping)
        and "tput_per_gpu" in doc
        and ("users" in doc or doc.get("scenario_type") == "agentic-coding")
        and "request_metrics" not in doc
    )


def _fraction(value: object, source: str, key: str) -> float:
    out = as_float(value, source, key)
    if not math.isnan(out) and not 0.0 <= out <= 1.0:
        hint = " (looks like a percent; fractions are 0..1)" if 1.0 < out <= 100.0 else ""
        raise IngestError(source, key, f"cache-hit rate {out!r} is outside [0, 1]{hint}")
    return out


def _identity(doc: Mapping[str, Any], source: str, hardware: str | None) -> dict[str, Any]:
    hardware_id, hw_name = hardware_of(doc.get("hw"), hardware, source, "hw")
    model_name = doc.get("model") or doc.get("infmax_model_prefix")
    if not model_name:
        raise IngestError(source, "model", "is required but missing")
    model_id, in_catalog = resolve_model_name(model_name)
    return {
        "hardware_id": hardware_id,
        "hardware_name": str(hw_name),
        "model_id": model_id,
        "model_name": str(model_name),
        "model_in_catalog": in_catalog,
        "precision": None if doc.get("precision") is None else str(doc["precision"]).lower(),
        "framework": None if doc.get("framework") is None else str(doc["framework"]).lower(),
        "workload": str(doc.get("scenario_type") or "agentic-coding"),
        "kind": "measured",
        "source": source,
    }


_Counts = tuple[float | None, float | None, float | None]
"""Caller's (num_gpus, num_prefill_gpus, num_decode_gpus)."""


def _nested_record(doc: Mapping[str, Any], source: str, hardware: str | None,
                   as_of: str | None, counts: _Counts) -> dict[str, Any]:
    rec = _identity(doc, source, hardware)
    disagg = bool(as_bool(doc.get("disagg"), source, "disagg"))
    tp = as_float(doc.get("tp"), source, "tp", required=True)
    pp = as_float(doc.get("pp", 1), source, "pp")
    pcp = as_float(doc.get("pcp_size", 1), source, "pcp_size")
    n_p = as_float(doc.get("num_prefill_gpu"), source, "num_prefill_gpu")
    n_d = as_float(doc.get("num_decode_gpu"), source, "num_decode_gpu")
    for key, val in (("tp", tp), ("pp", pp), ("pcp_size", pcp)):
        check_parallel_size(val, source, key)
    check_parallel_size(as_float(doc.get("ep"), source, "ep"), source, "ep")
    check_gpu_count(n_p, source, "num_prefill_gpu")
    check_gpu_count(n_d, source, "num_decode_gpu")
    given_all, given_p, given_d = counts
    if disagg:
        n_p = gpu_count(n_p, given_p, source, "num_prefill_gpu", "num_prefill_gpus")
        n_d = gpu_count(n_d, given_d, source, "num_decode_gpu", "num_decode_gpus")
    else:
        refuse_arguments(source, "disagg", "the row is an aggregated run (one pool of GPUs)",
                         num_prefill_gpus=given_p, num_decode_gpus=given_d)
    if disagg and (math.isnan(n_p) or math.isnan(n_d)):
        raise IngestError(source, "num_prefill_gpu",
                          "disaggregated rows need num_prefill_gpu and num_decode_gpu")
    num_gpus = n_p + n_d if disagg else tp * (1.0 if math.isnan(pp) else pp) * (
        1.0 if math.isnan(pcp) else pcp)
    num_gpus = gpu_count(num_gpus, given_all, source,
                         "num_prefill_gpu + num_decode_gpu" if disagg else "tp", "num_gpus")
    tput_key = "request_metrics.throughput"
    total = as_float(get_path(doc, f"{tput_key}.total.tokens_per_second"), source,
                     f"{tput_key}.total.tokens_per_second")
    output = as_float(get_path(doc, f"{tput_key}.output.tokens_per_second"), source,
                      f"{tput_key}.output.tokens_per_second")
    stated_total = as_float(get_path(doc, f"{tput_key}.per_gpu.total_tput_tps"), source,
                            f"{tput_key}.per_gpu.total_tput_tps")
    check_throughput(total, source, f"{tput_key}.total.tokens_per_second")
    check_throughput(output, source, f"{tput_key}.output.tokens_per_second")
    check_throughput(stated_total, source, f"{tput_key}.per_gpu.total_tput_tps")
    if not math.isnan(total) and not math.isnan(output):
        try:
            t_pg, i_pg, o_pg = per_gpu_throughput(
                total, output,
                num_gpus=None if disagg else num_gpus,
                num_prefill_gpus=n_p if disagg else None,
                num_decode_gpus=n_d if disagg else None,
            )
        except ValueError as err:
            raise IngestError(source, f"{tput_key}.total.tokens_per_second", str(err)) from None
        if not disagg and not math.isnan(stated_total) and not math.isclose(
            stated_total, t_pg, rel_tol=_REL_TOL_PER_GPU
        ):
            raise IngestError(
                source, f"{tput_key}.per_gpu.total_tput_tps",
                f"{stated_total!r} tok/s/GPU disagrees with total / {num_gpus:g} GPUs = {t_pg!r}",
            )
    elif not math.isnan(stated_total):
        t_pg = stated_total
        o_pg = as_float(get_path(doc, f"{tput_key}.per_gpu.output_tput_tps"), source,
                        f"{tput_key}.per_gpu.output_tput_tps")
        i_pg = as_float(get_path(doc, f"{tput_key}.per_gpu.input_tput_tps"), source,
                        f"{tput_key}.per_gpu.input_tput_tps")
        if not disagg:
            check_throughput_sum(t_pg, i_pg, o_pg, source, f"{tput_key}.per_gpu.total_tput_tps")
    else:
        raise IngestError(source, f"{tput_key}.total.tokens_per_second", "is required but missing")
    lat = "request_metrics.latency"
    tpot_src = "tpot" if isinstance(get_path(doc, f"{lat}.tpot"), Mapping) else "itl"
    rec.update({
        "spec_decoding": str(doc.get("spec_decoding") or "none").lower(),
        "disaggregated": disagg,
        "concurrency": as_float(doc.get("conc"), source, "conc"),
        "tp": tp,
        "ep": as_float(doc.get("ep"), source, "ep"),
        "pp": pp,
        "dp_attention": as_bool(doc.get("dp_attention"), source, "dp_attention"),
        "num_gpus": num_gpus,
        "num_prefill_gpus": n_p,
        "num_decode_gpus": n_d,
        "throughput_tok_per_s_per_gpu": t_pg,
        "input_throughput_tok_per_s_per_gpu": i_pg,
        "output_throughput_tok_per_s_per_gpu": o_pg,
        "as_of": as_of,
    })
    for stat, col in (("p50", "median"), ("p90", "p90")):
        for metric in ("ttft", "itl", "e2el"):
            rec[f"{metric}_{col}_s"] = as_float(get_path(doc, f"{lat}.{metric}.{stat}"), source,
                                                f"{lat}.{metric}.{stat}")
        tpot = as_float(get_path(doc, f"{lat}.{tpot_src}.{stat}"), source,
                        f"{lat}.{tpot_src}.{stat}")
        check_tpot_seconds(tpot, source, f"{lat}.{tpot_src}.{stat}")
        rec[f"tpot_{col}_s"] = tpot
    rec["interactivity_tok_per_s_per_user"] = interactivity_from_tpot(rec["tpot_median_s"])
    rec["interactivity_p90_tok_per_s_per_user"] = interactivity_from_tpot(rec["tpot_p90_s"])
    e2e = get_path(doc, f"{lat}.e2e_norm_intvty")
    if not isinstance(e2e, Mapping):
        e2e = doc.get("e2e_norm_intvty") if isinstance(doc.get("e2e_norm_intvty"), Mapping) else None
    if e2e is not None:
        rec["e2e_interactivity_tok_per_s_per_user"] = as_float(
            e2e.get("p50"), source, "e2e_norm_intvty.p50")
        rec["e2e_interactivity_p90_tok_per_s_per_user"] = as_float(
            e2e.get("p90"), source, "e2e_norm_intvty.p90")
    cache = "server_metrics.cache"
    cpu_hit = get_path(doc, f"{cache}.cpu_cache_hit_rate")
    if cpu_hit is None:
        cpu_hit = get_path(doc, f"{cache}.external_cache_hit_rate")
    rec["cache_hit_frac"] = _fraction(get_path(doc, f"{cache}.overall_cache_hit_rate"), source,
                                      f"{cache}.overall_cache_hit_rate")
    rec["gpu_cache_hit_frac"] = _fraction(get_path(doc, f"{cache}.gpu_cache_hit_rate"), source,
                                          f"{cache}.gpu_cache_hit_rate")
    rec["cpu_cache_hit_frac"] = _fraction(cpu_hit, source, f"{cache}.cpu_cache_hit_rate")
    rec["theoretical_cache_hit_frac"] = _fraction(
        get_path(doc, "request_metrics.cache.theoretical_cache_hit_rate"), source,
        "request_metrics.cache.theoretical_cache_hit_rate")
    by_src = "server_metrics.tokens.prompt_by_source"
    rec["prompt_gpu_cache_hit_tokens"] = as_float(get_path(doc, f"{by_src}.gpu_cache_hit"),
                                                  source, f"{by_src}.gpu_cache_hit")
    rec["prompt_cpu_cache_hit_tokens"] = as_float(
        get_path(doc, f"{by_src}.cpu_or_external_cache_hit"), source,
        f"{by_src}.cpu_or_external_cache_hit")
    rec["prompt_computed_tokens"] = as_float(get_path(doc, f"{by_src}.computed"), source,
                                             f"{by_src}.computed")
    offload = doc.get("kv_offloading")
    rec["kv_offload"] = None if offload is None else str(offload).lower()
    rec["kv_offload_dram_gb"] = as_float(doc.get("allocated_cpu_dram_gb"), source,
                                         "allocated_cpu_dram_gb")
    backend = doc.get("kv_offload_backend")
    if isinstance(backend, Mapping) and backend.get("name"):
        rec["note"] = f"KV offload backend {backend.get('name')} {backend.get('version') or ''}".strip()
    return rec


def _flat_record(doc: Mapping[str, Any], path: Path, source: str, hardware: str | None,
                 as_of: str | None, counts: _Counts) -> dict[str, Any]:
    rec = _identity(doc, source, hardware)
    rec["workload"] = _EARLY_WORKLOAD
    tp = as_float(doc.get("tp"), source, "tp", required=True)
    tput = as_float(doc.get("tput_per_gpu"), source, "tput_per_gpu", required=True)
    check_parallel_size(tp, source, "tp")
    check_throughput(tput, source, "tput_per_gpu")
    refuse_arguments(source, "tp", f"the row states one pool of tp{tp:g} GPUs",
                     num_prefill_gpus=counts[1], num_decode_gpus=counts[2])
    gpu_count(tp, counts[0], source, "tp", "num_gpus")
    check_parallel_size(as_float(doc.get("ep"), source, "ep"), source, "ep")
    total = as_float(doc.get("total_tput_tps"), source, "total_tput_tps")
    if not math.isnan(total) and not math.isclose(total / tp, tput, rel_tol=_REL_TOL_PER_GPU):
        raise IngestError(source, "tput_per_gpu",
                          f"{tput!r} tok/s/GPU disagrees with total_tput_tps / tp = {total / tp!r}")
    spec = _SPEC_IN_NAME.search(path.name)
    dis = _DISAGG_IN_NAME.search(path.name)
    if not (dis and dis["d"].lower() == "true"):
        check_throughput_sum(
            tput,
            as_float(doc.get("input_tput_per_gpu"), source, "input_tput_per_gpu"),
            as_float(doc.get("output_tput_per_gpu"), source, "output_tput_per_gpu"),
            source,
        )
    offload = doc.get("offload_mode")
    offload_on = as_bool(offload, source, "offload_mode")
    rec.update({
        "spec_decoding": spec["spec"].lower() if spec else None,
        "disaggregated": (dis["d"].lower() == "true") if dis else False,
        "concurrency": as_float(doc.get("users", doc.get("conc")), source, "users"),
        "tp": tp,
        "ep": as_float(doc.get("ep"), source, "ep"),
        "dp_attention": as_bool(doc.get("dp_attention"), source, "dp_attention"),
        "num_gpus": tp,
        "throughput_tok_per_s_per_gpu": tput,
        "input_throughput_tok_per_s_per_gpu": as_float(doc.get("input_tput_per_gpu"), source,
                                                       "input_tput_per_gpu"),
        "output_throughput_tok_per_s_per_gpu": as_float(doc.get("output_tput_per_gpu"), source,
                                                        "output_tput_per_gpu"),
        "kv_offload": None if offload_on is None else ("dram" if offload_on else "none"),
        "as_of": as_of,
        "note": "interactivity = 1/ITL percentile (TPOT not recorded in this format)",
    })
    for stat, col in (("median", "median"), ("p90", "p90"), ("p99", "p99")):
        rec[f"ttft_{col}_s"] = as_float(doc.get(f"{stat}_ttft"), source, f"{stat}_ttft")
        itl = as_float(doc.get(f"{stat}_itl"), source, f"{stat}_itl")
        check_tpot_seconds(itl, source, f"{stat}_itl")
        if col != "p99":
            rec[f"itl_{col}_s"] = itl
            rec[f"e2el_{col}_s"] = as_float(doc.get(f"{stat}_ttlt"), source, f"{stat}_ttlt")
        rec[f"tpot_{col}_s"] = itl
    rec["interactivity_tok_per_s_per_user"] = interactivity_from_tpot(rec["tpot_median_s"])
    rec["interactivity_p90_tok_per_s_per_user"] = interactivity_from_tpot(rec["tpot_p90_s"])
    rec["gpu_cache_hit_frac"] = _fraction(doc.get("server_gpu_cache_hit_rate"), source,
                                          "server_gpu_cache_hit_rate")
    rec["cpu_cache_hit_frac"] = _fraction(doc.get("server_cpu_cache_hit_rate"), source,
                                          "server_cpu_cache_hit_rate")
    rec["theoretical_cache_hit_frac"] = _fraction(doc.get("theoretical_cache_hit_rate"), source,
                                                  "theoretical_cache_hit_rate")
    return rec


def read_agentx(path: str | Path, *, hardware: str | None = None, num_gpus: float | None = None,
                num_prefill_gpus: float | None = None, num_decode_gpus: float | None = None,
                as_of: str | None = None) -> pd.DataFrame:
    """Read an AgentX (agentic-coding) aggregate row into curve points.

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.json`` aggregate row (AgentX v1 nested, or the early flat agentic schema).
    hardware : str, optional
        Hardware name or id for a row without ``hw``. Where the row names its hardware (e.g.
        ``"cluster:mi355x-amds"``; the ``cluster:`` prefix and runner suffix are stripped), it
        must resolve to the same catalog id; ``hardware_name`` keeps the row's spelling.
    num_gpus, num_prefill_gpus, num_decode_gpus : float, optional
        GPU counts [count]; the rows state them (``tp`` x ``pp`` x ``pcp_size``, or
        ``num_prefill_gpu``/``num_decode_gpu`` of a disaggregated row), so a count given here
        must agree with the row's and per-role counts are refused for an aggregated row.
    as_of : str, optional
        ISO date of the measurement (the files carry none).

    Returns
    -------
    pandas.DataFrame
        One curve point conformed to :data:`tokenomics.curves.schema.CURVE_COLUMNS` (``workload``
        ``"agentic-coding-early"`` for an early flat row, else the row's scenario type), with
        interactivity (median and p90 of ``1 / TPOT``), E2E-normalised interactivity when the
        row has it, cache-hit fractions by tier (GPU, CPU/external, overall, theoretical),
        prompt tokens by source and the KV-offload mode and DRAM allocated.

    Raises
    ------
    IngestError
        If the file is not an agentic aggregate row, a required key is missing, a value is not
        numeric, a cache-hit rate is outside 0..1, TPOT looks like milliseconds, the stated
        per-GPU throughput disagrees with total / GPUs, a parallelism size is below 1, a GPU
        count or throughput is not positive, or (non-disaggregated rows) input + output per-GPU throughput
        is more than 1 % away from the total.
    ArgumentConflictError
        If ``hardware`` or a GPU count contradicts the row, or a per-role GPU count is given for
        an aggregated row.
    KeyError
        If the hardware does not map to a catalog id.

    Examples
    --------
    >>> pts = read_agentx("kimik2.7_tp8_conc32_kvdram-lmcache_..._mi355x-amds_02.json")  # doctest: +SKIP
    >>> float(pts["cache_hit_frac"].iloc[0])  # doctest: +SKIP
    0.88756
    """
    p = Path(path)
    source = str(p)
    doc = load_json(p)
    if is_agentx_nested(doc):
        counts = (num_gpus, num_prefill_gpus, num_decode_gpus)
        return frame_from_records([_nested_record(doc, source, hardware, as_of, counts)])
    if is_agentic_flat(doc):
        counts = (num_gpus, num_prefill_gpus, num_decode_gpus)
        return frame_from_records([_flat_record(doc, p, source, hardware, as_of, counts)])
    raise IngestError(source, "request_metrics",
                      "not an AgentX aggregate row (no request_metrics, users or scenario_type)")
