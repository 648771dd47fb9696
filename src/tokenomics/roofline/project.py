"""Projected throughput-vs-interactivity curves in the format of measured ones."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from tokenomics.catalog._entities import Hardware, Model
from tokenomics.roofline.factors import RooflineFactors
from tokenomics.roofline.step import (
    ServingConfig,
    _resolve,
    max_concurrency,
    roofline_points,
    weight_bytes_per_gpu,
)
from tokenomics.schema import conform

DEFAULT_CONCURRENCY: tuple[float, ...] = (
    1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096,
)
"""Concurrency grid of a default sweep (per replica); it stops at the replica's memory capacity."""

UNCALIBRATED_BAND: tuple[float, float] = (0.5, 1.5)
"""Throughput band (low, high multipliers) stated for projections without calibration residuals."""

BAND_COLUMNS: tuple[str, str] = ("throughput_low_tok_per_s_per_gpu", "throughput_high_tok_per_s_per_gpu")
"""Extra columns of a projected curve holding its uncertainty band [tok/s/GPU]."""


def _as_model(model: Model | str) -> Model:
    from tokenomics.catalog import model as lookup

    return lookup(model) if isinstance(model, str) else model


def _as_hardware(hardware: Hardware | str) -> Hardware:
    from tokenomics.catalog import hardware as lookup

    return lookup(hardware) if isinstance(hardware, str) else hardware


def _configs(
    configs: ServingConfig | Mapping[str, Any] | Iterable[ServingConfig | Mapping[str, Any]] | None,
    m: Model,
    hw: Hardware,
) -> list[ServingConfig]:
    if configs is None:
        return [default_config(m, hw)]
    if isinstance(configs, ServingConfig | Mapping):
        configs = [configs]
    return [c if isinstance(c, ServingConfig) else ServingConfig(**c) for c in configs]


def default_config(model: Model | str, hardware: Hardware | str, **overrides: Any) -> ServingConfig:
    """Return the smallest power-of-two tensor parallelism whose weights fit one scale-up domain.

    MoE models get ``ep = tp``. The native weight precision and BF16 KV cache apply unless
    ``overrides`` say otherwise.

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
    >>> default_config("llama-3.3-70b", "h100").tp
    4
    """
    m, hw = _as_model(model), _as_hardware(hardware)
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


def project_curve(
    model: Model | str,
    hardware: Hardware | str,
    *,
    isl_tokens: float = 1024.0,
    osl_tokens: float = 1024.0,
    concurrency: Sequence[float] | np.ndarray | None = None,
    configs: ServingConfig | Mapping[str, Any] | Iterable[ServingConfig | Mapping[str, Any]] | None = None,
    factors: RooflineFactors | None = None,
    band: tuple[float, float] | None = None,
) -> pd.DataFrame:
    """Project a throughput-vs-interactivity curve from the calibrated roofline model.

    Sweeps concurrency for each serving configuration (parallelism, precisions, MTP) with
    :func:`~tokenomics.roofline.roofline_points` and returns the points in the tidy curve
    schema (:data:`tokenomics.schema.CURVE_COLUMNS`) with ``kind="projected"``, ready for the
    frontier, interpolation and cost functions. Each row carries an uncertainty band
    ``throughput_low/high_tok_per_s_per_gpu`` = throughput x the calibration's held-out
    residual quantiles (p10, p90).

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    hardware : Hardware or str
        Catalog hardware (or its name).
    isl_tokens, osl_tokens : float
        Input and output sequence lengths [tokens].
    concurrency : sequence of float, optional
        Concurrencies per replica [count]. Default: :data:`DEFAULT_CONCURRENCY` up to the
        memory capacity of each configuration, which is added as the last point (the sweep stops
        there; column ``capacity_limited`` marks it). Explicit values above the capacity raise.
    configs : ServingConfig, mapping or iterable of them, optional
        Configurations to sweep (mappings are passed to :class:`ServingConfig`). Default: the
        smallest power-of-two TP that fits (:func:`default_config`).
    factors : RooflineFactors, optional
        Efficiencies. Default: the bundled calibration's factors for the hardware's family (or,
        without measurements, its vendor's, or the global fit; see
        :func:`~tokenomics.roofline.calibrate`).
    band : tuple of float, optional
        (low, high) throughput multipliers. Default: from the calibration that supplied the
        factors; :data:`UNCALIBRATED_BAND` when ``factors`` are given without a band.

    Returns
    -------
    pandas.DataFrame
        Schema columns plus ``parallelism`` (config label), ``throughput_low_tok_per_s_per_gpu``,
        ``throughput_high_tok_per_s_per_gpu``, ``max_concurrency``, ``capacity_limited``,
        ``bound``, ``step_time_s`` and ``factors_source``. ``attrs`` hold ``max_concurrency``
        per configuration label, ``factors`` and ``band``.

    Raises
    ------
    ValueError
        If an explicit concurrency exceeds the memory capacity (naming the limit) or the
        weights do not fit.

    Examples
    --------
    >>> from tokenomics.roofline import RooflineFactors, ServingConfig
    >>> c = project_curve("llama-3.3-70b", "h100", configs=ServingConfig(tp=4),
    ...                   factors=RooflineFactors())
    >>> set(c["kind"])
    {'projected'}
    """
    from tokenomics.ingest._common import workload_label

    m, hw = _as_model(model), _as_hardware(hardware)
    if factors is None:
        from tokenomics.roofline.calibrate import bundled_calibration

        cal = bundled_calibration()
        factors = cal.factors_for(hw)
        band = band if band is not None else cal.band
    if band is None:
        band = UNCALIBRATED_BAND
    lo, hi = band
    if not 0.0 < lo <= 1.0 <= hi:
        raise ValueError(f"band={band!r} must satisfy 0 < low <= 1 <= high")
    frames = []
    limits: dict[str, int] = {}
    for cfg in _configs(configs, m, hw):
        b_max = max_concurrency(m, hw, isl_tokens=isl_tokens, osl_tokens=osl_tokens, config=cfg, factors=factors)
        limits[cfg.label] = b_max
        if b_max < 1:
            continue
        if concurrency is None:
            grid = np.asarray([c for c in DEFAULT_CONCURRENCY if c < b_max] + [b_max], dtype=float)
            limited = grid == b_max
        else:
            grid = np.asarray(concurrency, dtype=float)
            limited = grid == b_max
        pts = roofline_points(
            m, hw, grid, isl_tokens=isl_tokens, osl_tokens=osl_tokens, config=cfg, factors=factors
        )
        w = cfg.weight_precision or m.native_weight_precision
        osl = float(osl_tokens)
        frame = pd.DataFrame(
            {
                "hardware_id": hw.hardware_id,
                "model_id": m.model_id,
                "hardware_name": hw.name,
                "model_name": m.name,
                "model_in_catalog": True,
                "precision": w,
                "framework": "roofline",
                "spec_decoding": "mtp" if cfg.mtp_draft_tokens else "none",
                "disaggregated": cfg.disaggregated,
                "workload": workload_label(float(isl_tokens), osl),
                "isl_tokens": float(isl_tokens),
                "osl_tokens": osl,
                "concurrency": pts["concurrency"],
                "tp": float(cfg.tp),
                "ep": float(cfg.ep),
                "pp": float(cfg.pp),
                "dp_attention": cfg.dp_attention,
                "num_gpus": pts["num_gpus"],
                "num_prefill_gpus": pts["num_prefill_gpus"],
                "num_decode_gpus": pts["num_decode_gpus"],
                "throughput_tok_per_s_per_gpu": pts["throughput_tok_per_s_per_gpu"],
                "input_throughput_tok_per_s_per_gpu": pts["input_throughput_tok_per_s_per_gpu"],
                "output_throughput_tok_per_s_per_gpu": pts["output_throughput_tok_per_s_per_gpu"],
                "interactivity_tok_per_s_per_user": pts["interactivity_tok_per_s_per_user"],
                "e2e_interactivity_tok_per_s_per_user": pts["e2e_interactivity_tok_per_s_per_user"],
                "ttft_median_s": pts["ttft_s"],
                "tpot_median_s": pts["tpot_s"],
                "e2el_median_s": pts["ttft_s"] + osl * pts["tpot_s"],
                "kind": "projected",
                "source": "tokenomics.roofline",
                "note": (
                    f"roofline projection, {cfg.label}, KV {cfg.kv_precision}; factors: "
                    f"{factors.source}; throughput band x{lo:.2f}-x{hi:.2f}"
                ),
                "parallelism": cfg.label,
                BAND_COLUMNS[0]: pts["throughput_tok_per_s_per_gpu"] * lo,
                BAND_COLUMNS[1]: pts["throughput_tok_per_s_per_gpu"] * hi,
                "max_concurrency": float(b_max),
                "capacity_limited": limited,
                "bound": pts["bound"],
                "step_time_s": pts["step_time_s"],
                "factors_source": factors.source,
            }
        )
        frames.append(frame)
    if not frames:
        raise ValueError(
            f"no configuration of {m.model_id} on {hw.hardware_id} holds even one sequence of "
            f"ISL/OSL {isl_tokens:g}/{osl_tokens:g}: max_concurrency={limits}"
        )
    out = conform(pd.concat(frames, ignore_index=True))
    out.attrs["max_concurrency"] = limits
    out.attrs["factors"] = factors.model_dump()
    out.attrs["band"] = (lo, hi)
    return out
