"""Column schema of the tidy curve-point table shared by ingest, curves, roofline and plots.

Every reader in :mod:`tokenomics.curves.ingest`, every bundled curve and every roofline projection
returns a :class:`pandas.DataFrame` with exactly these columns (missing measurements are NaN or
``None``, never zero). One row is one operating point: a hardware/model/software configuration at
one concurrency.

Throughputs are per accelerator ("GPU" in the field's vocabulary, TPU and Trainium chips
included). Interactivity is output tokens per second seen by one user, ``1 / TPOT``.
"""

from __future__ import annotations

import copy
from typing import Any, Final

import numpy as np
import pandas as pd
from pandas.api.types import pandas_dtype

CURVE_COLUMNS: Final[dict[str, tuple[str, str]]] = {
    # identity ---------------------------------------------------------------------------------
    "hardware_id": ("string", "catalog hardware id, e.g. 'gb200-nvl72'"),
    "model_id": ("string", "catalog model id, e.g. 'deepseek-r1'"),
    "hardware_name": ("string", "hardware as written in the source, e.g. 'b200-dgxc-slurm'"),
    "model_name": ("string", "model as written in the source, e.g. 'nvidia/DeepSeek-R1-0528-FP4'"),
    "model_in_catalog": ("boolean", "False: model_id is the normalised source name, not a catalog id"),
    "precision": ("string", "weight precision, e.g. 'fp4', 'fp8', 'bf16', 'int4'"),
    "framework": ("string", "serving engine, e.g. 'vllm', 'sglang', 'trt', 'dynamo-trt'"),
    "spec_decoding": ("string", "speculative decoding method: 'none', 'mtp', 'eagle3', ..."),
    "disaggregated": ("boolean", "prefill and decode on separate GPU pools"),
    "workload": ("string", "'1k/1k', '8k/1k', 'agentic-coding', MLPerf scenario, ..."),
    "isl_tokens": ("Float64", "input sequence length [tokens]"),
    "osl_tokens": ("Float64", "output sequence length [tokens]"),
    "concurrency": ("Float64", "concurrent requests or users"),
    # parallelism -------------------------------------------------------------------------------
    "tp": ("Float64", "tensor parallel size (decode role for disaggregated runs)"),
    "ep": ("Float64", "expert parallel size"),
    "pp": ("Float64", "pipeline parallel size"),
    "dp_attention": ("boolean", "data-parallel attention"),
    "num_gpus": ("Float64", "all accelerators serving the point [count]"),
    "num_prefill_gpus": ("Float64", "prefill accelerators (disaggregated) [count]"),
    "num_decode_gpus": ("Float64", "decode accelerators (disaggregated) [count]"),
    # throughput per accelerator ----------------------------------------------------------------
    "throughput_tok_per_s_per_gpu": ("Float64", "input + output tokens/s per accelerator, all GPUs"),
    "input_throughput_tok_per_s_per_gpu": ("Float64", "input tokens/s per (prefill) accelerator"),
    "output_throughput_tok_per_s_per_gpu": ("Float64", "output tokens/s per (decode) accelerator"),
    # interactivity (tok/s/user) ------------------------------------------------------------------
    "interactivity_tok_per_s_per_user": ("Float64", "median 1/TPOT [tok/s/user]"),
    "interactivity_p90_tok_per_s_per_user": ("Float64", "90th-percentile-slow user: 1/p90(TPOT)"),
    "e2e_interactivity_tok_per_s_per_user": ("Float64", "median OSL/E2EL (TTFT included)"),
    "e2e_interactivity_p90_tok_per_s_per_user": ("Float64", "1/p90(E2EL/OSL)"),
    # latency [s] ------------------------------------------------------------------------------------
    "ttft_median_s": ("Float64", "median time to first token [s]"),
    "ttft_p90_s": ("Float64", "p90 time to first token [s]"),
    "ttft_p99_s": ("Float64", "p99 time to first token [s]"),
    "tpot_median_s": ("Float64", "median time per output token [s]"),
    "tpot_p90_s": ("Float64", "p90 time per output token [s]"),
    "tpot_p99_s": ("Float64", "p99 time per output token [s]"),
    "itl_median_s": ("Float64", "median inter-token latency [s]"),
    "itl_p90_s": ("Float64", "p90 inter-token latency [s]"),
    "itl_p99_s": ("Float64", "p99 inter-token latency [s]"),
    "e2el_median_s": ("Float64", "median end-to-end request latency [s]"),
    "e2el_p90_s": ("Float64", "p90 end-to-end request latency [s]"),
    "e2el_p99_s": ("Float64", "p99 end-to-end request latency [s]"),
    # caching and offload ------------------------------------------------------------------------------
    "cache_hit_frac": ("Float64", "overall prefix-cache hit fraction of input tokens"),
    "gpu_cache_hit_frac": ("Float64", "fraction of input tokens hit in GPU (HBM) KV cache"),
    "cpu_cache_hit_frac": ("Float64", "fraction hit in CPU DRAM / external KV cache"),
    "kv_offload": ("string", "KV-cache offload mode: 'none', 'dram', ..."),
    "kv_offload_dram_gb": ("Float64", "CPU DRAM allocated to KV offload [GB]"),
    "theoretical_cache_hit_frac": ("Float64", "ideal prefix-cache hit fraction of the workload trace"),
    "prompt_gpu_cache_hit_tokens": ("Float64", "prompt tokens served from GPU KV cache [tokens]"),
    "prompt_cpu_cache_hit_tokens": ("Float64", "prompt tokens served from CPU/external KV [tokens]"),
    "prompt_computed_tokens": ("Float64", "prompt tokens computed (prefilled) [tokens]"),
    # power ----------------------------------------------------------------------------------------------
    "power_w_per_gpu": ("Float64", "measured mean power per accelerator [W]"),
    "joules_per_token": ("Float64", "energy per (input + output) token [J/token]"),
    "output_joules_per_token": ("Float64", "energy per output token [J/token]"),
    "throughput_tok_per_s_per_kw": ("Float64", "input + output tokens/s per kW of GPU power"),
    # provenance -----------------------------------------------------------------------------------------
    "kind": ("string", "'measured', 'floor' (throughput at a latency limit) or 'projected'"),
    "source": ("string", "file path or URL the point came from"),
    "as_of": ("string", "ISO date of the measurement or publication"),
    "note": ("string", "free-text remark on how the point was read or transcribed"),
}
"""Column name -> (pandas dtype, description [unit])."""

_DTYPES: Final[dict[str, Any]] = {col: pandas_dtype(dtype) for col, (dtype, _) in CURVE_COLUMNS.items()}

POINT_KINDS: Final[tuple[str, ...]] = ("measured", "floor", "projected")
"""Allowed values of the ``kind`` column."""


def cache_hit_frac_of_rows(points: pd.DataFrame) -> np.ndarray:
    """Return each point's realized prefix-cache hit fraction of input tokens, all KV tiers together.

    Per row, the first stated of: ``realized_cache_hit_frac`` (projections), ``cache_hit_frac``
    (a measured overall rate), ``gpu_cache_hit_frac + cpu_cache_hit_frac`` (a measured rate per
    tier; a missing host tier counts 0); NaN where a row states none.

    Parameters
    ----------
    points : pandas.DataFrame
        Curve points (:data:`CURVE_COLUMNS`; projections add ``realized_cache_hit_frac``).

    Returns
    -------
    numpy.ndarray
        Hit fraction per row, in [0, 1] or NaN.

    Examples
    --------
    >>> rows = pd.DataFrame({"gpu_cache_hit_frac": [0.004, 0.9], "cpu_cache_hit_frac": [0.828, None]})
    >>> cache_hit_frac_of_rows(rows).round(3).tolist()
    [0.832, 0.9]
    """

    def column(name: str) -> np.ndarray:
        if name not in points.columns:
            return np.full(len(points), np.nan)
        return pd.to_numeric(points[name], errors="coerce").to_numpy(dtype=float, na_value=np.nan)

    gpu, cpu = column("gpu_cache_hit_frac"), column("cpu_cache_hit_frac")
    hit = column("realized_cache_hit_frac")
    hit = np.where(np.isnan(hit), column("cache_hit_frac"), hit)
    return np.where(np.isnan(hit), gpu + np.nan_to_num(cpu), hit)


def value_at(points: pd.DataFrame, values: np.ndarray, interactivity_tok_per_s_per_user: Any) -> Any:
    """Read a per-point value linearly in interactivity, over the points where it is stated.

    Parameters
    ----------
    points : pandas.DataFrame
        Curve points with ``interactivity_tok_per_s_per_user`` [tok/s/user].
    values : numpy.ndarray
        One value per point (NaN where a point states none), e.g.
        :func:`cache_hit_frac_of_rows`.
    interactivity_tok_per_s_per_user : float or numpy.ndarray
        Where to read [tok/s/user]; beyond the stated points, the nearest end's value.

    Returns
    -------
    float or numpy.ndarray
        The value (NaN everywhere when no point states one), shaped like the interactivity.

    Examples
    --------
    >>> rows = pd.DataFrame({"interactivity_tok_per_s_per_user": [10.0, 30.0, 20.0]})
    >>> float(value_at(rows, np.array([0.9, 0.5, np.nan]), 20.0))
    0.7
    """
    x = points["interactivity_tok_per_s_per_user"].to_numpy(dtype=float)
    y = np.asarray(values, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    if not ok.any():
        return np.full(np.shape(interactivity_tok_per_s_per_user), np.nan)[()]
    order = np.argsort(x[ok])
    return np.interp(interactivity_tok_per_s_per_user, x[ok][order], y[ok][order])


def empty_curve_frame() -> pd.DataFrame:
    """Return an empty curve-point table with every column of :data:`CURVE_COLUMNS`.

    Returns
    -------
    pandas.DataFrame
        Zero rows, columns in schema order with their dtypes.
    """
    return pd.DataFrame({c: pd.Series(dtype=t) for c, (t, _) in CURVE_COLUMNS.items()})


def conform(frame: pd.DataFrame) -> pd.DataFrame:
    """Return ``frame`` with every schema column present, in schema order, with schema dtypes.

    Missing columns are added as missing values (``NA``), never zeros. Extra columns are kept
    after the schema columns.

    Parameters
    ----------
    frame : pandas.DataFrame
        Curve points with a subset of :data:`CURVE_COLUMNS`.

    Returns
    -------
    pandas.DataFrame
        A new frame; the input is not modified.

    Raises
    ------
    ValueError
        If ``kind`` holds a value outside :data:`POINT_KINDS`.
    """
    if frame.columns.has_duplicates:  # column by column: a name may stand for several columns
        out = frame.copy()
        for col, dtype in _DTYPES.items():
            out[col] = (out[col].astype(dtype) if col in out.columns
                        else pd.Series(pd.NA, index=out.index, dtype=dtype))
    else:  # one new frame (a column already of its schema dtype is not converted again)
        cols: dict[str, Any] = {}
        for col, dtype in _DTYPES.items():
            if col not in frame.columns:
                cols[col] = pd.Series(pd.NA, index=frame.index, dtype=dtype)
            else:
                cols[col] = frame[col] if frame[col].dtype == dtype else frame[col].astype(dtype)
        cols.update({col: frame[col] for col in frame.columns if col not in cols})
        out = pd.DataFrame(cols, index=frame.index, copy=True)
        out.attrs = copy.deepcopy(frame.attrs)
    if "kind" in frame.columns:
        bad = ~out["kind"].isin(POINT_KINDS) & out["kind"].notna()
        if bool(np.any(bad.to_numpy())):
            raise ValueError(
                f"kind={out.loc[bad, 'kind'].iloc[0]!r} is not one of {POINT_KINDS}"
            )
    extra = [c for c in out.columns if c not in CURVE_COLUMNS]
    return out[[*CURVE_COLUMNS, *extra]]
