"""Serving configurations of a default projection: concurrency grid, precision rule, labels.

Shared by the aggregated projection (:mod:`tokenomics.perf.project`), sessions
(:mod:`tokenomics.perf.sessions`) and disaggregated serving (:mod:`tokenomics.perf.disagg`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from tokenomics import catalog
from tokenomics.catalog import Hardware, Model
from tokenomics.curves.schema import CURVE_COLUMNS, POINT_KINDS, conform
from tokenomics.perf.step import ServingConfig, _resolve, weight_bytes_per_gpu
from tokenomics.precision import bytes_per_element, canonical_precision

__all__ = [
    "DEFAULT_CONCURRENCY",
    "PRECISION_RULE",
    "UNCALIBRATED_BAND",
    "as_hardware",
    "as_model",
    "best_practice_precisions",
    "config_label",
    "curve_frame",
    "curve_rows",
    "default_config",
    "stacked_curve_rows",
]

DEFAULT_CONCURRENCY: tuple[float, ...] = (
    1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096,
)
"""Concurrency grid of a default sweep (per replica); it stops at the replica's memory capacity."""


UNCALIBRATED_BAND: tuple[float, float] = (0.5, 1.5)
"""Throughput band (low, high multipliers) stated for projections without calibration residuals."""


PRECISION_RULE: str = (
    "best-practice precisions: routed-expert weights (all weights of dense models) FP4 on hardware "
    "with FP4 units, else FP8 on hardware with an FP8 rate, else BF16; every other weight of MoE "
    "models (attention, dense FFN, shared experts, LM head) FP8 where the hardware has an FP8 "
    "rate, else BF16; a checkpoint stored narrower than that (INT4, MXFP4, FP8 on BF16-only "
    "hardware) keeps its stored weights and computes in BF16 (W4A16, W8A16); KV cache FP8 where "
    "the hardware has an FP8 rate, else BF16; serving modes as in SEARCH_RULE"
)
"""The precision rule of a default projection (:func:`best_practice_precisions`)."""


_POINT_COLUMNS: tuple[str, ...] = (
    "num_gpus", "num_prefill_gpus", "num_decode_gpus", "throughput_tok_per_s_per_gpu",
    "input_throughput_tok_per_s_per_gpu", "output_throughput_tok_per_s_per_gpu",
    "interactivity_tok_per_s_per_user", "e2e_interactivity_tok_per_s_per_user",
)
"""Columns of a projected curve row taken from the roofline's points unchanged."""


def as_model(model: Model | str) -> Model:
    """Return the catalog model of a name (the entry point's look-up), or the model itself."""
    if not isinstance(model, str):
        return model
    return catalog.model(model)


def as_hardware(hardware: Hardware | str) -> Hardware:
    """Return the catalog hardware of a name (the entry point's look-up), or the hardware itself."""
    if not isinstance(hardware, str):
        return hardware
    return catalog.hardware(hardware)


def best_practice_precisions(model: Model | str, hardware: Hardware | str) -> dict[str, str | None]:
    """Return the precisions a well-run deployment of a model uses on a hardware type.

    The rule (:data:`PRECISION_RULE`), from the narrowest number format the hardware computes
    natively (the catalog states its dense FP4 / FP8 rate):

    ========================  =====================  =================  ===========
    hardware                  routed experts         other weights      KV cache
    ========================  =====================  =================  ===========
    FP4 units                 FP4                    FP8                FP8
    FP8 rate, no FP4          FP8                    FP8                FP8
    BF16 only                 BF16                   BF16               BF16
    ========================  =====================  =================  ===========

    Dense models take the "routed experts" column for all their weights: every MLPerf Inference
    v5.1/v6.0 closed submission of Llama 2 70B and Llama 3.1 405B on B200, B300, GB200, GB300
    and MI355X/MI350X states FP4 weights (summary_results.json ``weight_data_types``,
    mlcommons inference_results_v5.1 and v6.0), FP8 on H100/H200/MI300X/MI325X. A checkpoint whose
    native weights are narrower than the table's (INT4 or MXFP4 experts on FP8 hardware, FP8 on
    BF16-only hardware) keeps its stored weights and multiplies in BF16 (W4A16 / W8A16).

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    hardware : Hardware or str
        Catalog hardware (or its name).

    Returns
    -------
    dict of str to str or None
        :class:`ServingConfig` fields ``weight_precision`` (``None``: the native precision),
        ``dense_weight_precision``, ``kv_precision`` and ``activation_precision`` (``None``: the
        weight precision).

    Examples
    --------
    >>> best_practice_precisions("deepseek-r1", "gb200-nvl72")["weight_precision"]
    'fp4'
    >>> best_practice_precisions("kimi-k2.5", "h200")["activation_precision"]  # INT4 kept, W4A16
    'bf16'
    >>> best_practice_precisions("llama-3.3-70b", "tpu-v5e")["kv_precision"]
    'bf16'
    """
    m, hw = as_model(model), as_hardware(hardware)
    fp8 = hw.fp8_dense_tflops is not None
    other = "fp8" if fp8 else "bf16"
    experts = "fp4" if hw.fp4_dense_tflops is not None else other
    native = canonical_precision(m.native_weight_precision)
    if bytes_per_element(native) < bytes_per_element(experts):
        return {"weight_precision": None, "dense_weight_precision": other,
                "kv_precision": other, "activation_precision": "bf16"}
    return {"weight_precision": experts, "dense_weight_precision": other if m.is_moe else None,
            "kv_precision": other, "activation_precision": None}


def config_label(config: ServingConfig, model: Model | str) -> str:
    """Return a label naming a configuration's parallelism and precisions.

    Parameters
    ----------
    config : ServingConfig
        The configuration.
    model : Model or str
        Catalog model (or its name); supplies the native weight precision.

    Returns
    -------
    str
        E.g. ``'tp8-ep8-dpa, experts fp4, dense fp8, KV fp8'``; ``', compute bf16'`` is added
        when the matrix multiplies run wider than the weights (W4A16).

    Examples
    --------
    >>> config_label(ServingConfig(tp=4, weight_precision="fp8", kv_precision="fp8"), "llama-3.3-70b")
    'tp4, weights fp8, KV fp8'
    """
    m = as_model(model)
    w = config.weight_precision or m.native_weight_precision
    d = config.dense_weight_precision or w
    parts = [config.label]
    if m.is_moe:
        parts += [f"experts {w}", f"dense {d}"]
    else:
        parts += [f"weights {w}"] if d == w else [f"weights {w}", f"attention {d}"]
    parts.append(f"KV {config.kv_precision}")
    act = config.activation_precision
    if act is not None and act != canonical_precision(w):
        parts.append(f"compute {act}")
    return ", ".join(parts)


def default_config(model: Model | str, hardware: Hardware | str, **overrides: Any) -> ServingConfig:
    """Return the smallest power-of-two tensor parallelism whose weights fit one scale-up domain.

    MoE models get ``ep = tp``. The native weight precision and BF16 KV cache apply unless
    ``overrides`` say otherwise. (A single minimal configuration; :func:`project_curve` without
    ``configs`` searches the frontier over parallelism at best-practice precisions instead.)

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    hardware : Hardware or str
        Catalog hardware (or its name).
    **overrides
        Other :class:`ServingConfig` fields (e.g. ``kv_precision="fp8"``).

    Returns
    -------
    ServingConfig
        The configuration.

    Raises
    ------
    ValueError
        If the weights do not fit even at ``tp`` equal to the scale-up domain (capped at 64).

    Examples
    --------
    >>> from tokenomics.perf.step import weight_bytes_per_gpu
    >>> cfg = default_config("llama-3.3-70b", "h100")
    >>> weight_bytes_per_gpu("llama-3.3-70b", "h100", config=cfg) < 80e9 < 2 * weight_bytes_per_gpu(
    ...     "llama-3.3-70b", "h100", config=cfg.model_copy(update={"tp": cfg.tp // 2}))
    True
    """
    m, hw = as_model(model), as_hardware(hardware)
    limit = min(hw.scaleup_domain_accelerators, 64)
    tp = 1
    while tp <= limit:
        cfg = ServingConfig(tp=tp, ep=tp if m.is_moe else 1, **overrides)
        s = _resolve(m, hw, cfg, None)
        # leave at least a fifth of the usable memory for the KV cache
        if weight_bytes_per_gpu(m, hw, config=cfg) <= 0.8 * hw.hbm_capacity_bytes * s.f.usable_hbm_frac:
            return cfg
        tp *= 2
    raise ValueError(
        f"{m.model_id} does not fit on {hw.hardware_id} with tensor parallelism up to {limit}; "
        "pass configs=[ServingConfig(tp=..., pp=...)] explicitly"
    )


def _column(n: int, value: Any) -> np.ndarray:
    """One column of ``n`` rows: an array (or Series) as it is, a scalar repeated."""
    arr = value.to_numpy() if isinstance(value, pd.Series) else np.asarray(value)
    if arr.ndim:
        return arr
    return np.full(n, value, dtype=object if isinstance(value, str) else None)


def curve_rows(
    model: Model,
    config: ServingConfig,
    points: Mapping[str, Any],
    *,
    hardware_id: str,
    hardware_name: str,
    workload: str,
    isl_tokens: float,
    osl_tokens: float,
    note: str,
    label: str,
    source: str = "tokenomics.perf",
    concurrency: Any = None,
    **extra: Any,
) -> dict[str, np.ndarray]:
    """Return one configuration's projected points as curve-schema columns.

    The rows a projection adds to a curve (:data:`tokenomics.curves.schema.CURVE_COLUMNS`,
    ``kind="projected"``, ``framework="roofline"``): identity columns from the model, the
    hardware names and the configuration, the metrics from ``points``, and
    ``e2el_median_s = ttft_s + OSL x tpot_s``. :func:`curve_frame` joins several.

    Parameters
    ----------
    model : Model
        Catalog model.
    config : ServingConfig
        The configuration the points were projected for (its parallelism, routed-expert or
        whole weight precision, speculative setting and ``disaggregated``).
    points : mapping of str to array_like
        Per-point metrics: ``concurrency``, ``num_gpus``, ``num_prefill_gpus``,
        ``num_decode_gpus``, ``throughput_tok_per_s_per_gpu``,
        ``input_throughput_tok_per_s_per_gpu``, ``output_throughput_tok_per_s_per_gpu``,
        ``interactivity_tok_per_s_per_user``, ``e2e_interactivity_tok_per_s_per_user``,
        ``ttft_s`` and ``tpot_s`` (as :func:`~tokenomics.perf.roofline_points` names them).
    hardware_id, hardware_name : str
        Hardware columns (a disaggregated plan on two systems names both).
    workload : str
        The ``workload`` column (an ISL/OSL label or a preset name).
    isl_tokens, osl_tokens : float
        Input and output tokens per request [tokens].
    note : str
        How the points were projected.
    label : str
        The ``config`` column (:func:`config_label`, or a plan's label).
    source : str
        The ``source`` column.
    concurrency : array_like, optional
        The ``concurrency`` column when it is not ``points["concurrency"]`` [count].
    **extra
        Further columns, in order after ``parallelism`` and ``config`` (arrays or scalars).

    Returns
    -------
    dict of str to numpy.ndarray
        Columns of equal length, scalars repeated.

    Examples
    --------
    >>> import tokenomics as tk
    >>> from tokenomics.perf import roofline_points
    >>> cfg = ServingConfig(tp=4)
    >>> pts = roofline_points("llama-3.3-70b", "h100", [1.0, 8.0], config=cfg)
    >>> rows = curve_rows(tk.model("llama-3.3-70b"), cfg, pts, hardware_id="h100-sxm",
    ...                   hardware_name="H100 SXM", workload="1k/1k", isl_tokens=1024.0,
    ...                   osl_tokens=1024.0, note="example", label=config_label(cfg, "llama-3.3-70b"))
    >>> rows["parallelism"].tolist(), rows["concurrency"].tolist()
    (['tp4', 'tp4'], [1.0, 8.0])
    """
    osl = float(osl_tokens)
    conc = points["concurrency"] if concurrency is None else concurrency
    ttft, tpot = points["ttft_s"], points["tpot_s"]
    values: dict[str, Any] = {
        "hardware_id": hardware_id,
        "model_id": model.model_id,
        "hardware_name": hardware_name,
        "model_name": model.name,
        "model_in_catalog": True,
        "precision": config.weight_precision or model.native_weight_precision,
        "framework": "roofline",
        "spec_decoding": "mtp" if config.mtp_draft_tokens else "none",
        "disaggregated": config.disaggregated,
        "workload": workload,
        "isl_tokens": float(isl_tokens),
        "osl_tokens": osl,
        "concurrency": conc,
        "tp": float(config.tp),
        "ep": float(config.ep),
        "pp": float(config.pp),
        "dp_attention": config.dp_attention,
        **{name: points[name] for name in _POINT_COLUMNS},
        "ttft_median_s": ttft,
        "tpot_median_s": tpot,
        "e2el_median_s": ttft + osl * tpot,
        "kind": "projected",
        "source": source,
        "note": note,
        "parallelism": config.label,
        "config": label,
        **extra,
    }
    n = len(np.atleast_1d(np.asarray(conc)))
    return {key: _column(n, value) for key, value in values.items()}


def stacked_curve_rows(
    model: Model,
    configs: Sequence[ServingConfig],
    sizes: Sequence[int],
    points: Mapping[str, Any],
    *,
    hardware_id: str,
    hardware_name: str,
    workload: str,
    isl_tokens: float,
    osl_tokens: float,
    note: Sequence[str],
    label: Sequence[str],
    source: str = "tokenomics.perf",
    concurrency: Any = None,
    **extra: Any,
) -> dict[str, np.ndarray]:
    """Return the rows of several configurations' sweeps, stacked, as curve-schema columns.

    The columns of :func:`curve_rows` for each configuration, concatenated in order (the
    same values and dtypes), built once for all of them: ``points`` hold the stacked sweeps,
    ``sizes[k]`` points of ``configs[k]`` after those of the configurations before it.

    Parameters
    ----------
    model : Model
        Catalog model.
    configs : sequence of ServingConfig
        The configurations, in the order of their points.
    sizes : sequence of int
        Points of each configuration [count].
    points : mapping of str to numpy.ndarray
        Per-point metrics of all sweeps (as in :func:`curve_rows`), ``sum(sizes)`` long.
    hardware_id, hardware_name, workload, isl_tokens, osl_tokens, source
        As in :func:`curve_rows` (one value for every row).
    note, label : sequence of str
        The ``note`` and ``config`` column of each configuration.
    concurrency : numpy.ndarray, optional
        The ``concurrency`` column when it is not ``points["concurrency"]`` [count].
    **extra
        Further columns, in order: a ``list`` holds one value per configuration, an array one
        value per point, a scalar one value for all rows.

    Returns
    -------
    dict of str to numpy.ndarray
        Columns of ``sum(sizes)`` rows.
    """
    reps = np.asarray(sizes, dtype=int)
    osl = float(osl_tokens)
    conc = points["concurrency"] if concurrency is None else concurrency
    ttft, tpot = points["ttft_s"], points["tpot_s"]
    values: dict[str, Any] = {
        "hardware_id": hardware_id,
        "model_id": model.model_id,
        "hardware_name": hardware_name,
        "model_name": model.name,
        "model_in_catalog": True,
        "precision": [c.weight_precision or model.native_weight_precision for c in configs],
        "framework": "roofline",
        "spec_decoding": ["mtp" if c.mtp_draft_tokens else "none" for c in configs],
        "disaggregated": [c.disaggregated for c in configs],
        "workload": workload,
        "isl_tokens": float(isl_tokens),
        "osl_tokens": osl,
        "concurrency": conc,
        "tp": [float(c.tp) for c in configs],
        "ep": [float(c.ep) for c in configs],
        "pp": [float(c.pp) for c in configs],
        "dp_attention": [c.dp_attention for c in configs],
        **{name: points[name] for name in _POINT_COLUMNS},
        "ttft_median_s": ttft,
        "tpot_median_s": tpot,
        "e2el_median_s": ttft + osl * tpot,
        "kind": "projected",
        "source": source,
        "note": list(note),
        "parallelism": [c.label for c in configs],
        "config": list(label),
        **extra,
    }
    n = int(reps.sum())
    out: dict[str, np.ndarray] = {}
    for key, value in values.items():
        if isinstance(value, list):
            kind = object if any(isinstance(v, str) for v in value) else None
            out[key] = np.repeat(np.asarray(value, dtype=kind), reps)
        else:
            out[key] = _column(n, value)
    return out


def schema_array(values: np.ndarray, dtype: str) -> Any:
    """Return ``pd.array(values, dtype)`` of a schema dtype, taking ``values`` (a new array) over.

    ``Float64`` from ``float64`` masks the ``NaN``, ``boolean`` from ``bool`` masks nothing.
    """
    if dtype == "Float64" and values.dtype == np.float64:
        return pd.arrays.FloatingArray(values, np.isnan(values))
    if dtype == "boolean" and values.dtype == np.bool_:
        return pd.arrays.BooleanArray(values, np.zeros(len(values), dtype=bool))
    return pd.array(values, dtype=dtype)


def missing_column(n: int, dtype: str) -> Any:
    """Return ``n`` missing values (``NA``) of a schema dtype (``pd.array([pd.NA] * n, dtype)``)."""
    if dtype == "Float64":
        return pd.arrays.FloatingArray(np.zeros(n), np.ones(n, dtype=bool))
    if dtype == "boolean":
        return pd.arrays.BooleanArray(np.zeros(n, dtype=bool), np.ones(n, dtype=bool))
    return pd.array([pd.NA], dtype=dtype).take(np.zeros(n, dtype=np.intp))


def curve_frame(parts: Sequence[Mapping[str, np.ndarray]]) -> pd.DataFrame:
    """Return the rows of several :func:`curve_rows` as one curve-schema frame.

    Parameters
    ----------
    parts : sequence of mapping
        Columns of each configuration (at least one).

    Returns
    -------
    pandas.DataFrame
        Schema columns in schema order with schema dtypes
        (:func:`~tokenomics.curves.schema.conform`), then the other columns in order.

    Raises
    ------
    ValueError
        If ``parts`` is empty.
    """
    if not parts:
        raise ValueError("no rows to join")
    names = list(parts[0])
    if any(list(p) != names for p in parts):
        return conform(pd.concat([pd.DataFrame(dict(p)) for p in parts], ignore_index=True))
    joined = {k: np.concatenate([p[k] for p in parts]) for k in names}
    kinds = set(joined.get("kind", ()))
    if not kinds <= set(POINT_KINDS):
        return conform(pd.DataFrame(joined))  # raises, naming the kind
    # conform's result, each column typed once (conform types them one by one in a frame)
    n = len(joined[names[0]])
    columns: dict[str, Any] = {}
    for col, (dtype, _) in CURVE_COLUMNS.items():
        columns[col] = schema_array(joined[col], dtype) if col in joined else missing_column(n, dtype)
    for col in names:
        if col not in CURVE_COLUMNS:
            columns[col] = joined[col]
    return pd.DataFrame(columns, index=pd.RangeIndex(n), copy=False)
