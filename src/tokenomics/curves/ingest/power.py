r"""Reader for InferenceX GPU-power baselines (benchmark metrics plus measured GPU power).

The files (``together_runner/baselines/<hw>/<engine>/<profile>/<isl><osl>/.../conc*.json``) hold
system-level serving metrics (``metrics``, latencies in ms) and metered GPU power (``gpu``:
``n_gpus``, ``mean_power_per_gpu_w``, ``total_avg_power_w``, ``tokens_per_kw``). All throughputs
are divided by the metered GPU count ``n_gpus``; with ``P`` the mean power per GPU [W] and
``T`` the per-GPU throughput [tok/s/GPU]:

.. math::

    E = P / T \\;[\\mathrm{J/token}], \\qquad
    T_{kW} = 1000 \\cdot T / P \\;[\\mathrm{tok/s/kW}]

The file's own ``tokens_per_kw`` counts **output** tokens per second per kW of all metered GPUs;
the reader checks it against ``output / total_avg_power_w``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from tokenomics.curves.ingest._common import (
    IngestError,
    as_float,
    check_parallel_size,
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
from tokenomics.units import W_PER_KW

__all__ = ["joules_per_token", "read_power_baseline", "tok_per_s_per_kw"]

_REL_TOL = 0.01


def joules_per_token(power_w_per_gpu: float, throughput_tok_per_s_per_gpu: float) -> float:
    """Return energy per token: ``power / throughput``.

    Parameters
    ----------
    power_w_per_gpu : float
        Mean power per accelerator [W].
    throughput_tok_per_s_per_gpu : float
        Tokens per second per accelerator [tok/s/GPU].

    Returns
    -------
    float
        Energy per token [J/token].

    Raises
    ------
    ValueError
        If throughput is not positive or power is negative.

    Examples
    --------
    >>> joules_per_token(500.0, 1000.0)
    0.5
    """
    if not throughput_tok_per_s_per_gpu > 0:
        raise ValueError(f"throughput must be > 0 tok/s/GPU, got {throughput_tok_per_s_per_gpu!r}")
    if power_w_per_gpu < 0:
        raise ValueError(f"power must be >= 0 W, got {power_w_per_gpu!r}")
    return power_w_per_gpu / throughput_tok_per_s_per_gpu


def tok_per_s_per_kw(power_w_per_gpu: float, throughput_tok_per_s_per_gpu: float) -> float:
    """Return throughput per kilowatt of accelerator power: ``1000 * throughput / power``.

    Parameters
    ----------
    power_w_per_gpu : float
        Mean power per accelerator [W].
    throughput_tok_per_s_per_gpu : float
        Tokens per second per accelerator [tok/s/GPU].

    Returns
    -------
    float
        Tokens per second per kW [tok/s/kW].

    Raises
    ------
    ValueError
        If power is not positive.

    Examples
    --------
    >>> tok_per_s_per_kw(500.0, 1000.0)
    2000.0
    """
    if not power_w_per_gpu > 0:
        raise ValueError(f"power must be > 0 W, got {power_w_per_gpu!r}")
    return throughput_tok_per_s_per_gpu * W_PER_KW / power_w_per_gpu


def is_power_baseline(doc: Any) -> bool:
    """Return True for a GPU-power baseline file (``metrics`` and ``gpu`` blocks).

    Parameters
    ----------
    doc : object
        Decoded JSON.

    Returns
    -------
    bool
        Whether ``doc`` is a power baseline.
    """
    return (
        isinstance(doc, Mapping)
        and isinstance(doc.get("metrics"), Mapping)
        and isinstance(doc.get("gpu"), Mapping)
    )


def read_power_baseline(
    path: str | Path, *, hardware: str | None = None, as_of: str | None = None
) -> pd.DataFrame:
    """Read a GPU-power baseline into a curve point with power, J/token and tok/s per kW.

    Parameters
    ----------
    path : str or pathlib.Path
        A baseline ``conc*.json`` file.
    hardware : str, optional
        Hardware name or id of a file without ``hw``; where the file names its hardware, it
        must resolve to the same catalog id (``hardware_name`` keeps the file's spelling).
    as_of : str, optional
        ISO date of a file without ``ts``; where the file has one, it must fall on the same day.

    Returns
    -------
    pandas.DataFrame
        One curve point conformed to :data:`tokenomics.curves.schema.CURVE_COLUMNS` with
        ``power_w_per_gpu`` [W], ``joules_per_token`` and ``output_joules_per_token``
        [J/token] and ``throughput_tok_per_s_per_kw`` [tok/s/kW].

    Raises
    ------
    IngestError
        If a required key is missing or non-numeric, the GPU count, power or ISL/OSL is not
        positive, a parallelism size is below 1 (``ep = 0``, the runner's "expert parallelism
        off", is read as an EP degree of 1), or the file's ``tokens_per_kw`` disagrees with
        output / total power by more than 1 %.
    ArgumentConflictError
        If ``hardware`` names another catalog id than the file's ``hw``, or ``as_of`` another
        day than its ``ts``.
    KeyError
        If the hardware does not map to a catalog id.

    Examples
    --------
    >>> pts = read_power_baseline("baselines/b200/sglang/dsr1-fp4/1k1k/tuned/conc64.json")  # doctest: +SKIP
    """
    p = Path(path)
    source = str(p)
    doc = load_json(p)
    if not is_power_baseline(doc):
        raise IngestError(source, "gpu", "not a power baseline (needs 'metrics' and 'gpu' blocks)")
    met: Mapping[str, Any] = doc["metrics"]
    gpu: Mapping[str, Any] = doc["gpu"]
    n_gpus = as_float(gpu.get("n_gpus"), source, "gpu.n_gpus", required=True)
    power = as_float(gpu.get("mean_power_per_gpu_w"), source, "gpu.mean_power_per_gpu_w",
                     required=True)
    if not n_gpus > 0:
        raise IngestError(source, "gpu.n_gpus", f"must be > 0, got {n_gpus!r}")
    if not power > 0:
        raise IngestError(source, "gpu.mean_power_per_gpu_w", f"must be > 0 W, got {power!r}")
    total = as_float(met.get("total_token_throughput"), source, "metrics.total_token_throughput",
                     required=True)
    output = as_float(met.get("output_token_throughput"), source,
                      "metrics.output_token_throughput", required=True)
    if output > total:
        raise IngestError(source, "metrics.output_token_throughput",
                          f"{output!r} exceeds total_token_throughput {total!r}")
    t_pg, o_pg = total / n_gpus, output / n_gpus
    stated = as_float(gpu.get("tokens_per_kw"), source, "gpu.tokens_per_kw")
    total_power = as_float(gpu.get("total_avg_power_w"), source, "gpu.total_avg_power_w")
    if not math.isnan(stated):
        check_power = total_power if total_power > 0 else power * n_gpus
        expected = output * W_PER_KW / check_power
        if not math.isclose(stated, expected, rel_tol=_REL_TOL):
            raise IngestError(
                source, "gpu.tokens_per_kw",
                f"{stated!r} disagrees with output tok/s per kW of GPU power = {expected!r}",
            )
    hardware_id, hw_name = hardware_of(doc.get("hw"), hardware, source, "hw")
    model_name = doc.get("model") or doc.get("profile")
    if not model_name:
        raise IngestError(source, "model", "is required but missing")
    model_id, in_catalog = resolve_model_name(model_name)
    isl = as_float(doc.get("isl"), source, "isl")
    osl = as_float(doc.get("osl"), source, "osl")
    check_sequence_length(isl, source, "isl")
    check_sequence_length(osl, source, "osl")
    tp = as_float(doc.get("tp"), source, "tp")
    check_parallel_size(tp, source, "tp")
    ep = as_float(doc.get("ep"), source, "ep")
    if ep == 0:
        # the baseline runner writes ep = 0 for "expert parallelism off", i.e. an EP degree of 1
        ep = 1.0
    check_parallel_size(ep, source, "ep")
    rec: dict[str, Any] = {
        "hardware_id": hardware_id,
        "hardware_name": str(hw_name),
        "model_id": model_id,
        "model_name": str(model_name),
        "model_in_catalog": in_catalog,
        "precision": None if doc.get("precision") is None else str(doc["precision"]).lower(),
        "framework": None if doc.get("framework") is None else str(doc["framework"]).lower(),
        "spec_decoding": None,
        "disaggregated": False,
        "isl_tokens": isl,
        "osl_tokens": osl,
        "workload": workload_label(isl, osl),
        "concurrency": as_float(doc.get("conc"), source, "conc"),
        "tp": tp,
        "ep": ep,
        "num_gpus": n_gpus,
        "throughput_tok_per_s_per_gpu": t_pg,
        "input_throughput_tok_per_s_per_gpu": (total - output) / n_gpus,
        "output_throughput_tok_per_s_per_gpu": o_pg,
        "power_w_per_gpu": power,
        "joules_per_token": joules_per_token(power, t_pg) if t_pg > 0 else math.nan,
        "output_joules_per_token": joules_per_token(power, o_pg) if o_pg > 0 else math.nan,
        "throughput_tok_per_s_per_kw": tok_per_s_per_kw(power, t_pg),
        "kind": "measured",
        "source": source,
        "as_of": stated_value(str(doc.get("ts"))[:10] if doc.get("ts") else None, as_of, source, "ts",
                              "as_of", date=True),
        "note": f"{int(n_gpus)} metered GPUs; tuning={doc.get('tuning')}",
    }
    for stat in ("median", "p99"):
        for metric in ("ttft", "tpot", "itl", "e2el"):
            key = f"{stat}_{metric}_ms"
            if key not in met:
                continue
            value = ms_to_s(as_float(met.get(key), source, f"metrics.{key}"))
            if metric in ("tpot", "itl"):
                check_tpot_seconds(value, source, f"metrics.{key}")
            if f"{metric}_{stat}_s" in _LATENCY_COLUMNS:
                rec[f"{metric}_{stat}_s"] = value
    rec["interactivity_tok_per_s_per_user"] = interactivity_from_tpot(
        rec.get("tpot_median_s", math.nan))
    return frame_from_records([rec])


_LATENCY_COLUMNS = frozenset({
    "ttft_median_s", "ttft_p99_s", "tpot_median_s", "tpot_p99_s", "itl_median_s",
    "e2el_median_s",
})
