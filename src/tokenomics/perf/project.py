"""Projected throughput-vs-interactivity curves in the format of measured ones."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from tokenomics.catalog._entities import Hardware, Model
from tokenomics.curves.schema import conform
from tokenomics.perf.factors import RooflineFactors
from tokenomics.perf.step import (
    ServingConfig,
    _resolve,
    max_concurrency,
    roofline_points,
    weight_bytes_per_gpu,
)
from tokenomics.precision import bytes_per_element, canonical_precision

DEFAULT_CONCURRENCY: tuple[float, ...] = (
    1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096,
)
"""Concurrency grid of a default sweep (per replica); it stops at the replica's memory capacity."""

UNCALIBRATED_BAND: tuple[float, float] = (0.5, 1.5)
"""Throughput band (low, high multipliers) stated for projections without calibration residuals."""

BAND_COLUMNS: tuple[str, str] = ("throughput_low_tok_per_s_per_gpu", "throughput_high_tok_per_s_per_gpu")
"""Extra columns of a projected curve holding its uncertainty band [tok/s/GPU]."""

PRECISION_RULE: str = (
    "best-practice precisions: routed-expert weights (all weights of dense models) FP4 on hardware "
    "with FP4 units, else FP8 on hardware with an FP8 rate, else BF16; every other weight of MoE "
    "models (attention, dense FFN, shared experts, LM head) FP8 where the hardware has an FP8 "
    "rate, else BF16; a checkpoint stored narrower than that (INT4, MXFP4, FP8 on BF16-only "
    "hardware) keeps its stored weights and computes in BF16 (W4A16, W8A16); KV cache FP8 where "
    "the hardware has an FP8 rate, else BF16; serving modes as in SEARCH_RULE"
)
"""The precision rule of a default projection (:func:`best_practice_precisions`)."""

SEARCH_RULE: str = (
    "aggregated serving without speculative decoding and, where the model has published "
    "acceptance rates, with each published MTP setting; plus disaggregated prefill/decode pools "
    "on the same hardware (decode parallelism as searched for disaggregated serving, with and "
    "without MTP; prefill replica with the fewest accelerator-seconds per request; prefill pool "
    "sized by rate matching); the frontier is the envelope of all of them"
)
"""Serving modes of a default projection (``search="full"``)."""


def _columns(n: int, values: dict[str, Any]) -> dict[str, np.ndarray]:
    """Columns of one configuration's points: arrays as they are, scalars repeated ``n`` times."""
    out = {}
    for key, value in values.items():
        arr = value.to_numpy() if isinstance(value, pd.Series) else np.asarray(value)
        out[key] = arr if arr.ndim else np.full(n, value, dtype=object if isinstance(value, str) else None)
    return out


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
        from tokenomics.perf.calibrate import frontier_configs

        precisions: dict[str, Any] = best_practice_precisions(m, hw)
        found = frontier_configs(m, hw, **precisions)
        # a dense model too large for TP 8 gets the smallest TP that fits (raises if none does)
        return found or [default_config(m, hw, **precisions)]
    if isinstance(configs, ServingConfig | Mapping):
        configs = [configs]
    return [c if isinstance(c, ServingConfig) else ServingConfig(**c) for c in configs]


def _mtp_label(cfg: ServingConfig) -> str:
    if not cfg.mtp_draft_tokens:
        return ""
    return f", MTP {cfg.mtp_draft_tokens} draft @ {cfg.mtp_acceptance_frac:g} acceptance"


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
    m, hw = _as_model(model), _as_hardware(hardware)
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
    m = _as_model(model)
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
    frontier: bool = False,
    search: Literal["full", "aggregated"] = "full",
) -> pd.DataFrame:
    """Project a throughput-vs-interactivity curve from the calibrated roofline model.

    Sweeps concurrency for each serving configuration (parallelism, precisions, MTP) with
    :func:`~tokenomics.perf.roofline_points` and returns the points in the tidy curve
    schema (:data:`tokenomics.curves.schema.CURVE_COLUMNS`) with ``kind="projected"``, ready for the
    frontier, interpolation and cost functions. Each row carries an uncertainty band
    ``throughput_low/high_tok_per_s_per_gpu`` = throughput x the calibration's held-out
    residual quantiles (p10, p90).

    Without ``configs`` the sweep covers the parallelism search of
    :func:`~tokenomics.perf.frontier_configs` (powers-of-two TP, ``ep = tp`` and without
    DP-attention, with fully data-parallel attention or with DP-attention over tensor-parallel
    attention groups of 2-8 ranks for MoE models, within one scale-up domain up to 64 accelerators, so a
    72-GPU NVLink rack uses its domain; TP up to 8 for dense models, or the smallest TP that
    fits where that is not enough) at the best-practice precisions of
    :func:`best_practice_precisions` (:data:`PRECISION_RULE`: e.g. FP4 experts, FP8 dense
    weights and KV cache for a MoE model on Blackwell; FP8 on Hopper, MI300X and TPU v7; BF16
    on BF16-only hardware). All points of every configuration are returned (columns
    ``parallelism``, ``config`` and ``precision`` say which); the curve a system can deliver is
    their Pareto envelope, ``ThroughputCurve.from_points(points, allow_mixed_groups=True)`` or
    ``tokenomics.pareto_frontier(points, by=None)``, or ``frontier=True`` here.

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
        frontier search over parallelism at best-practice precisions (above). The former
        default, the smallest power-of-two TP that fits, is ``configs=default_config(model,
        hardware)``.
    factors : RooflineFactors, optional
        Efficiencies. Default: the bundled calibration's factors for the hardware's family (or,
        without measurements, its vendor's, or the global fit; see
        :func:`~tokenomics.perf.calibrate`).
    band : tuple of float, optional
        (low, high) throughput multipliers. Default: from the calibration that supplied the
        factors; :data:`UNCALIBRATED_BAND` when ``factors`` are given without a band.
    frontier : bool
        Return only the Pareto-optimal points over all configurations (default False: every
        point).
    search : {"full", "aggregated"}
        Without ``configs``: ``"full"`` (default) adds to the aggregated search the published
        speculative-decoding settings of the model (:func:`~tokenomics.perf.speculative_settings`)
        and disaggregated plans on the same hardware (:func:`~tokenomics.perf.project_disagg_curve`),
        as :data:`SEARCH_RULE` states; ``"aggregated"``: aggregated serving without speculative
        decoding only. Ignored with explicit ``configs``.

    Returns
    -------
    pandas.DataFrame
        Schema columns (``precision`` is the routed-expert, for dense models the whole, weight
        precision) plus ``parallelism`` (parallelism label), ``config`` (parallelism and
        precisions, :func:`config_label`), ``throughput_low_tok_per_s_per_gpu``,
        ``throughput_high_tok_per_s_per_gpu``, ``max_concurrency``, ``capacity_limited``,
        ``bound``, ``step_time_s`` and ``factors_source``. ``attrs`` hold ``max_concurrency``
        per parallelism label, ``factors``, ``band``, ``precision_rule`` (the rule's text
        for a default sweep, else ``"explicit configs"``), ``search_rule`` and, where the
        disaggregated search found no plan, ``disaggregated_skipped`` (the reason).
        Disaggregated rows (``disaggregated`` True) also carry the pool columns of
        :data:`~tokenomics.perf.disagg.DISAGG_COLUMNS`; ``spec_decoding`` and ``config`` state
        the speculative setting of every row.

    Raises
    ------
    ValueError
        If an explicit concurrency exceeds the memory capacity (naming the limit) or the
        weights do not fit (at the best-practice precisions within one scale-up domain, or in
        every given configuration).

    Examples
    --------
    >>> from tokenomics.perf import RooflineFactors, ServingConfig
    >>> c = project_curve("llama-3.3-70b", "h100", configs=ServingConfig(tp=4),
    ...                   factors=RooflineFactors())
    >>> set(c["kind"])
    {'projected'}

    Without ``configs``: the frontier search at best-practice precisions (up to EP 64 in an
    NVL72 rack).

    >>> d = project_curve("deepseek-r1", "gb200-nvl72", isl_tokens=8192.0)
    >>> int(d["ep"].max()), d["config"].iloc[0]
    (64, 'tp4-ep4, experts fp4, dense fp8, KV fp8')
    """
    from tokenomics.curves.ingest._common import workload_label

    m, hw = _as_model(model), _as_hardware(hardware)
    if factors is None:
        from tokenomics.perf.calibrate import bundled_calibration

        cal = bundled_calibration()
        factors = cal.factors_for(hw)
        band = band if band is not None else cal.band
    if band is None:
        band = UNCALIBRATED_BAND
    lo, hi = band
    if not 0.0 < lo <= 1.0 <= hi:
        raise ValueError(f"band={band!r} must satisfy 0 < low <= 1 <= high")
    if search not in ("full", "aggregated"):
        raise ValueError(f"search={search!r} must be 'full' or 'aggregated'")
    full = configs is None and search == "full"
    cfgs = _configs(configs, m, hw)
    if full:
        from tokenomics.perf.speculative import speculative_settings

        cfgs = cfgs + [c.model_copy(update=st.fields()) for st in speculative_settings(m) for c in cfgs]
    frames = []
    limits: dict[str, int] = {}
    for cfg in cfgs:
        label = config_label(cfg, m)
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
        frame = _columns(
            len(pts),
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
                "source": "tokenomics.perf",
                "note": (
                    f"roofline projection, {label}"
                    f"{_mtp_label(cfg)}"
                    f"{' (best-practice precisions)' if configs is None else ''}; factors: "
                    f"{factors.source}; throughput band x{lo:.2f}-x{hi:.2f}"
                ),
                "parallelism": cfg.label,
                "config": label,
                BAND_COLUMNS[0]: pts["throughput_tok_per_s_per_gpu"] * lo,
                BAND_COLUMNS[1]: pts["throughput_tok_per_s_per_gpu"] * hi,
                "max_concurrency": float(b_max),
                "capacity_limited": limited,
                "bound": pts["bound"],
                "step_time_s": pts["step_time_s"],
                "factors_source": factors.source,
            },
        )
        frames.append(frame)
    if not frames:
        raise ValueError(
            f"no configuration of {m.model_id} on {hw.hardware_id} holds even one sequence of "
            f"ISL/OSL {isl_tokens:g}/{osl_tokens:g}: max_concurrency={limits}"
        )
    names = list(frames[0])
    out = conform(pd.DataFrame({k: np.concatenate([f[k] for f in frames]) for k in names}))
    skipped = None
    if full:
        from tokenomics.perf.disagg import project_disagg_curve

        try:
            dis = project_disagg_curve(m, hw, hw, isl_tokens=isl_tokens, osl_tokens=osl_tokens,
                                       concurrency=concurrency, factors=factors, with_cost=False)
        except ValueError as exc:
            skipped = str(exc)
        else:
            dis["note"] = (dis["note"] + f" (best-practice precisions); factors: {factors.source}; "
                           f"throughput band x{lo:.2f}-x{hi:.2f}")
            dis[BAND_COLUMNS[0]] = dis["throughput_tok_per_s_per_gpu"] * lo
            dis[BAND_COLUMNS[1]] = dis["throughput_tok_per_s_per_gpu"] * hi
            dis["factors_source"] = factors.source
            out = conform(pd.concat([out, dis], ignore_index=True))
    if frontier:
        from tokenomics.curves.frontier import pareto_frontier

        out = pareto_frontier(out, by=None).reset_index(drop=True)
    out.attrs["max_concurrency"] = limits
    out.attrs["factors"] = factors.model_dump()
    out.attrs["band"] = (lo, hi)
    out.attrs["precision_rule"] = PRECISION_RULE if configs is None else "explicit configs"
    out.attrs["search_rule"] = SEARCH_RULE if full else (
        "explicit configs" if configs is not None else "aggregated serving without speculative decoding")
    if skipped is not None:
        out.attrs["disaggregated_skipped"] = skipped
    return out
