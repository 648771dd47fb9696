"""Serving configurations of a default projection: concurrency grid, precision rule, labels.

Shared by the aggregated projection (:mod:`tokenomics.perf.project`), sessions
(:mod:`tokenomics.perf.sessions`) and disaggregated serving (:mod:`tokenomics.perf.disagg`).
"""

from __future__ import annotations

from typing import Any

from tokenomics import catalog
from tokenomics.catalog import Hardware, Model
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
    "default_config",
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


def as_model(model: Model | str) -> Model:
    """Return the catalog model of a name (the entry point's look-up), or the model itself."""
    return catalog.model(model) if isinstance(model, str) else model


def as_hardware(hardware: Hardware | str) -> Hardware:
    """Return the catalog hardware of a name (the entry point's look-up), or the hardware itself."""
    return catalog.hardware(hardware) if isinstance(hardware, str) else hardware


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
