"""Projected throughput-vs-interactivity curves in the format of measured ones."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from tokenomics._validate import check_positive
from tokenomics.catalog import Hardware, Model
from tokenomics.curves.frontier import config_envelope
from tokenomics.curves.schema import CURVE_COLUMNS
from tokenomics.perf.calibrate import _holds, _multi_node_configs, bundled_calibration, frontier_configs
from tokenomics.perf.configs import (
    DEFAULT_CONCURRENCY,
    PRECISION_RULE,
    UNCALIBRATED_BAND,
    as_hardware,
    as_model,
    best_practice_precisions,
    config_label,
    curve_frame,
    default_config,
    missing_column,
    schema_array,
    stacked_curve_rows,
)
from tokenomics.perf.disagg import (
    DEFAULT_KV_TRANSFER_EFF_FRAC,
    DEFAULT_PREFILL_MAX_UTILIZATION_FRAC,
    _concurrency_values,
    _disagg_rows,
)
from tokenomics.perf.factors import RooflineFactors
from tokenomics.perf.speculative import speculative_settings
from tokenomics.perf.step import (
    ServingConfig,
    _capacity,
    _check_lengths,
    _resolve,
    _times,
    _work_many,
    roofline_points,
)
from tokenomics.workload import Workload, isl_osl_label
from tokenomics.workload import workload as get_workload

BAND_COLUMNS: tuple[str, str] = ("throughput_low_tok_per_s_per_gpu", "throughput_high_tok_per_s_per_gpu")
"""Extra columns of a projected curve holding its uncertainty band [tok/s/GPU]."""

SEARCH_RULE: str = (
    "aggregated serving without speculative decoding and, where the model has published "
    "acceptance rates, with each published MTP setting; plus disaggregated prefill/decode pools "
    "on the same hardware (decode parallelism as searched for disaggregated serving, with and "
    "without MTP; prefill replica with the fewest accelerator-seconds per request; prefill pool "
    "sized by rate matching); the frontier is the envelope of all of them"
)
"""Serving modes of a default projection (``search="full"``)."""


def _aggregated_rows(
    m: Model,
    hw: Hardware,
    cfgs: list[ServingConfig],
    isl: float,
    osl: float,
    concurrency: Sequence[float] | np.ndarray | None,
    factors: RooflineFactors,
    band: tuple[float, float],
    *,
    best_practice: bool,
    cached: float = 0.0,
) -> tuple[dict[str, np.ndarray] | None, dict[str, int]]:
    """Curve rows of every aggregated configuration, all sweeps evaluated in one pass.

    Each configuration's factor-independent work is built on its own concurrency grid; the
    sweeps are then stacked and timed together (:func:`~tokenomics.perf.step._times` is
    element-wise, so every point equals :func:`~tokenomics.perf.roofline_points` of its
    configuration).
    """
    lo, hi = band
    _check_lengths(isl, osl)
    limits: dict[str, int] = {}
    kept: list[tuple[ServingConfig, int, np.ndarray]] = []
    setups = []
    for cfg in cfgs:
        s = _resolve(m, hw, cfg, factors)
        b_max = _capacity(s, isl, osl)
        limits[cfg.label] = b_max
        if b_max < 1:
            continue
        if concurrency is None:
            grid = np.asarray([c for c in DEFAULT_CONCURRENCY if c < b_max] + [b_max], dtype=float)
        else:
            grid = np.atleast_1d(np.asarray(concurrency, dtype=float))
            check_positive("concurrency", grid)
            if np.any(grid > b_max):
                # the message of roofline_points
                roofline_points(m, hw, grid, isl_tokens=isl, osl_tokens=osl, config=cfg, factors=factors)
        kept.append((cfg, b_max, grid))
        setups.append(s)
    if not kept:
        return None, limits
    comp = _times(_work_many(setups, [grid for _, _, grid in kept], isl, osl, cached), factors,
                  hw.hbm_bandwidth_bytes_per_s)
    sizes = [len(grid) for _, _, grid in kept]
    b_maxes = np.repeat(np.asarray([float(b) for _, b, _ in kept]), sizes)
    grid_all = np.concatenate([grid for _, _, grid in kept])
    bound = np.where(comp["compute_time_s"] > comp["memory_time_s"], "compute", "memory")
    suffix = (f"{' (best-practice precisions)' if best_practice else ''}; factors: "
              f"{factors.source}; throughput band x{lo:.2f}-x{hi:.2f}")
    cfgs_kept = [cfg for cfg, _, _ in kept]
    labels = [config_label(cfg, m) for cfg in cfgs_kept]
    extra: dict[str, Any] = {
        BAND_COLUMNS[0]: comp["throughput_tok_per_s_per_gpu"] * lo,
        BAND_COLUMNS[1]: comp["throughput_tok_per_s_per_gpu"] * hi,
        "max_concurrency": [float(b) for _, b, _ in kept],
        "capacity_limited": grid_all == b_maxes,
        "bound": bound,
        "step_time_s": comp["step_time_s"],
        "factors_source": factors.source,
    }
    if cached:
        extra["theoretical_cache_hit_frac"] = np.full(len(grid_all), cached / isl)
        extra["realized_cache_hit_frac"] = np.full(len(grid_all), cached / isl)
    rows = stacked_curve_rows(
        m, cfgs_kept, sizes, {**comp, "concurrency": grid_all}, hardware_id=hw.hardware_id,
        hardware_name=hw.name, workload=isl_osl_label(isl, osl), isl_tokens=isl, osl_tokens=osl,
        note=[f"roofline projection, {label}{_mtp_label(cfg)}{suffix}"
              for cfg, label in zip(cfgs_kept, labels, strict=True)],
        label=labels, **extra,
    )
    return rows, limits


def _join(agg: dict[str, np.ndarray], dis: dict[str, np.ndarray]) -> pd.DataFrame:
    """One frame of aggregated and disaggregated rows, as each conformed and then concatenated.

    Equal to ``pd.concat([curve_frame([agg]), d], ignore_index=True)`` where ``d`` is
    ``curve_frame([dis])`` with the band columns computed from its (``Float64``) throughput
    column: schema columns in schema order with schema dtypes, then the other columns of
    ``agg`` and those only ``dis`` has; a column one side lacks is missing there (``NaN``); the
    band columns are ``Float64``. Each column is typed once.
    """
    n_a, n_d = len(agg["kind"]), len(dis["kind"])

    def fill(n: int, like: np.ndarray, dtype: str | None) -> np.ndarray:
        if dtype == "Float64" or (dtype is None and like.dtype.kind == "f"):
            return np.full(n, np.nan)
        return np.full(n, None if dtype is not None else np.nan, dtype=object)

    def both(col: str, dtype: str | None) -> np.ndarray:
        a, d = agg.get(col), dis.get(col)
        like = a if a is not None else d
        assert like is not None
        return np.concatenate([a if a is not None else fill(n_a, like, dtype),
                               d if d is not None else fill(n_d, like, dtype)])

    columns: dict[str, Any] = {}
    for col, (dtype, _) in CURVE_COLUMNS.items():
        if col in agg or col in dis:
            columns[col] = schema_array(both(col, dtype), dtype)
        else:
            columns[col] = missing_column(n_a + n_d, dtype)
    for col in [*agg, *(c for c in dis if c not in agg)]:
        if col in CURVE_COLUMNS:
            continue
        values = both(col, None)
        columns[col] = schema_array(values, "Float64") if col in BAND_COLUMNS else values
    return pd.DataFrame(columns, index=pd.RangeIndex(n_a + n_d), copy=False)


_SEARCHED: dict[tuple[int, int], tuple[Model, Hardware, tuple[ServingConfig, ...]]] = {}
"""Default searches by (model identity, hardware identity): catalog entries are frozen, and the
entries are kept so that their identities are not reused while cached."""


def _configs(
    configs: ServingConfig | Mapping[str, Any] | Iterable[ServingConfig | Mapping[str, Any]] | None,
    m: Model,
    hw: Hardware,
) -> list[ServingConfig]:
    if configs is None:
        hit = _SEARCHED.get((id(m), id(hw)))
        if hit is not None and hit[0] is m and hit[1] is hw:
            return list(hit[2])
        precisions: dict[str, Any] = best_practice_precisions(m, hw)
        found = frontier_configs(m, hw, **precisions)
        # a dense model too large for TP 8 gets the smallest TP that fits (raises if none does)
        out = found or [default_config(m, hw, **precisions)]
        if found and m.is_moe:
            # and an MoE model that one domain holds also spreads its experts across domains
            out += _wide_ep_configs(m, hw, found, precisions)
        if len(_SEARCHED) >= 1024:
            _SEARCHED.clear()
        _SEARCHED[(id(m), id(hw))] = (m, hw, tuple(out))
        return out
    if isinstance(configs, ServingConfig | Mapping):
        configs = [configs]
    return [c if isinstance(c, ServingConfig) else ServingConfig(**c) for c in configs]


def aggregated_configs(model: Model | str, hardware: Hardware | str) -> list[ServingConfig]:
    """Return the aggregated serving configurations the default search of :func:`project_curve` sweeps.

    :func:`~tokenomics.perf.frontier_configs` at :func:`best_practice_precisions` (or, for a
    dense model too large for TP 8, the smallest TP that fits), and for an MoE model on a
    scale-up domain narrower than :data:`~tokenomics.perf.calibrate.MULTI_NODE_EP_LIMIT` wide
    EP with DP-attention across domains (EP 16-64) that holds a sequence. Before each published
    MTP setting is added; without the multi-node fallback of a workload no replica holds.

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    hardware : Hardware or str
        Catalog hardware (or its name).

    Returns
    -------
    list of ServingConfig
        In search order.

    Raises
    ------
    KeyError
        For an unknown model or hardware.
    ValueError
        If no configuration holds the weights.

    Examples
    --------
    >>> [c.label for c in aggregated_configs("deepseek-r1", "h200")][-3:]
    ['tp16-ep16-dpa', 'tp32-ep32-dpa', 'tp64-ep64-dpa']
    """
    m, hw = as_model(model), as_hardware(hardware)
    return _configs(None, m, hw)


def _wide_ep_configs(m: Model, hw: Hardware, found: list[ServingConfig],
                    precisions: Mapping[str, Any]) -> list[ServingConfig]:
    """Return the wide-EP configurations across scale-up domains not already in ``found``.

    Wide expert parallelism with data-parallel attention over the scale-out network (DeepSeek
    serves V3/R1 decode that way on 8-GPU H800 nodes), for MoE models whose domain is narrower
    than :data:`~tokenomics.perf.calibrate.MULTI_NODE_EP_LIMIT`; the ones that hold a sequence.
    """
    have = {c.label for c in found}
    return [c for c in _multi_node_configs(m, hw, **precisions)
            if c.pp == 1 and c.label not in have and _holds(m, hw, c)]


def _wider_configs(m: Model, hw: Hardware, *, speculative: bool) -> list[ServingConfig]:
    """Return the multi-node configurations of the default search at best-practice precisions.

    For a workload whose sequences no searched replica holds although its weights fit; with
    ``speculative``, followed by each published MTP setting (:func:`with_speculative`).
    """
    wider = _multi_node_configs(m, hw, **best_practice_precisions(m, hw))
    return with_speculative(wider, m) if speculative else wider


def with_speculative(cfgs: list[ServingConfig], m: Model) -> list[ServingConfig]:
    """Return the configurations followed by each of them at each published MTP setting of the model.

    Parameters
    ----------
    cfgs : list of ServingConfig
        Configurations without speculative decoding.
    m : Model
        Catalog model (:func:`~tokenomics.perf.speculative_settings`).

    Returns
    -------
    list of ServingConfig
        ``cfgs``, then every configuration with every setting (none added for a model without
        published acceptance rates).
    """
    return cfgs + [c.model_copy(update=st.fields()) for st in speculative_settings(m) for c in cfgs]


def _mtp_label(cfg: ServingConfig) -> str:
    if not cfg.mtp_draft_tokens:
        return ""
    return f", MTP {cfg.mtp_draft_tokens} draft @ {cfg.mtp_acceptance_frac:g} acceptance"


def _cached_tokens(workload: Workload | str | None, isl_tokens: float) -> float:
    """Prompt tokens per request a fixed workload serves from the prefix cache [tokens].

    ``cached_prefix_frac x ISL``, at most ``ISL - 1``: the last prompt token is always computed
    (it yields the first output token's logits); without a workload, none. (Session traffic,
    which realizes its own hit rate, is refused before.)
    """
    if workload is None:
        return 0.0
    wl = get_workload(workload)
    if wl.cached_prefix_frac <= 0.0:
        return 0.0
    return min(wl.cached_prefix_frac * isl_tokens, isl_tokens - 1.0)


def _lengths(workload: Workload | str | None, isl_tokens: float | None,
             osl_tokens: float | None) -> tuple[float, float]:
    """(ISL, OSL) of a workload or of explicit lengths; both at once is an error."""
    if workload is not None and (isl_tokens is not None or osl_tokens is not None):
        raise ValueError("give workload= or isl_tokens/osl_tokens, not both")
    default = get_workload(workload)
    return (float(default.isl_tokens if isl_tokens is None else isl_tokens),
            float(default.osl_tokens if osl_tokens is None else osl_tokens))


def check_serves_decode(model: Model, hardware: Hardware) -> None:
    """Raise for a prefill-only part: its curve would price decode on hardware that never decodes.

    Parameters
    ----------
    model : Model
        The model to be projected (named in the message).
    hardware : Hardware
        The hardware to be projected.

    Raises
    ------
    ValueError
        ``hardware.prefill_only`` (Rubin CPX): the message names ``project_disagg_curve``.
    """
    if hardware.prefill_only:
        raise ValueError(
            f"{hardware.hardware_id} is a prefill-only part (serving_role='prefill'): it does not serve decode, "
            f"so it has no curve of its own; project it as the prefill pool of a disaggregated plan: "
            f"project_disagg_curve({model.model_id!r}, {hardware.hardware_id!r}, decode_hw) with decode_hw a "
            "system that serves decode"
        )


def project_curve(
    model: Model | str,
    hardware: Hardware | str,
    *,
    workload: Workload | str | None = None,
    isl_tokens: float | None = None,
    osl_tokens: float | None = None,
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
    72-GPU NVLink rack uses its domain, and on narrower domains (8-GPU nodes) also wide EP with
    DP-attention across nodes up to 64 accelerators, the all-to-all over the scale-out network;
    TP up to 8 for dense models, or the smallest TP that
    fits where that is not enough) at the best-practice precisions of
    :func:`best_practice_precisions` (:data:`PRECISION_RULE`: e.g. FP4 experts, FP8 dense
    weights and KV cache for a MoE model on Blackwell; FP8 on Hopper, MI300X and TPU v7; BF16
    on BF16-only hardware). All points of every configuration are returned (columns
    ``parallelism``, ``config`` and ``precision`` say which); the curve a system can deliver is
    the best configuration at each interactivity, :func:`tokenomics.config_envelope` (the
    frontier of the pointwise maximum of each configuration's own curve, sampled densely), or
    ``frontier=True`` here. Where those
    replicas hold the weights but not one sequence of the workload (a long agentic context on
    small-HBM parts), the multi-node configurations of the search (pipeline stages, wide expert
    parallelism across scale-up domains) are tried instead.

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    hardware : Hardware or str
        Catalog hardware (or its name).
    workload : Workload or str, optional
        The traffic (a preset name or a :class:`~tokenomics.Workload`); its ISL/OSL are projected,
        and for a fixed workload with ``cached_prefix_frac > 0`` each prompt's cached prefix
        (``cached_prefix_frac x ISL`` tokens, at most ``ISL - 1``) is served from the prefix cache:
        prefill computes only the new tokens and reads the prefix's KV once (rows carry
        ``theoretical_cache_hit_frac`` and ``realized_cache_hit_frac``; the KV capacity still
        holds each sequence's whole context). Default :data:`tokenomics.workload.DEFAULT_WORKLOAD`.
    isl_tokens, osl_tokens : float, optional
        Input and output sequence lengths [tokens] instead of a workload (a length not given is
        the default workload's).
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
        Return the envelope over all configurations, :func:`tokenomics.config_envelope`
        (default False: every point).
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
        If ``workload`` is session traffic (:func:`~tokenomics.perf.project_session_curve` projects
        it), if ``hardware`` is a prefill-only part (``serving_role='prefill'``, e.g. Rubin CPX: it
        serves only as the prefill pool of :func:`~tokenomics.perf.project_disagg_curve`), if
        ``concurrency`` is empty or not all > 0, if an explicit concurrency exceeds the memory
        capacity (naming the limit) or the weights do not fit (at the best-practice precisions
        within one scale-up domain, or in every given configuration), or if ``isl_tokens +
        osl_tokens`` exceeds the model's ``max_context_tokens``.

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
    >>> set(d["kind"]), bool(d["config"].str.contains("experts fp4").any())
    ({'projected'}, True)
    """
    m, hw = as_model(model), as_hardware(hardware)
    check_serves_decode(m, hw)
    if concurrency is not None:
        concurrency = _concurrency_values(concurrency, "concurrent sequences per replica")
    if factors is None:
        cal = bundled_calibration()
        factors = cal.factors_for(hw)
        band = band if band is not None else cal.band
    if workload is not None and not get_workload(workload).is_fixed:
        name = get_workload(workload).name
        raise ValueError(f"workload {name!r} is session traffic (turns, a growing cached context): its prefix-cache "
                         "hits and queueing are projected by tk.perf.project_session_curve(model, hardware, "
                         f"{name!r}) or tk.reference_curve; project_curve projects fixed ISL/OSL requests (give "
                         "isl_tokens/osl_tokens for the session's mean lengths without its cache)")
    isl_tokens, osl_tokens = _lengths(workload, isl_tokens, osl_tokens)
    cached = _cached_tokens(workload, isl_tokens)
    if m.max_context_tokens and isl_tokens + osl_tokens > m.max_context_tokens:
        raise ValueError(f"isl_tokens={isl_tokens:g} + osl_tokens={osl_tokens:g} = {isl_tokens + osl_tokens:g} "
                         f"exceeds {m.model_id}'s context window (max_context_tokens="
                         f"{int(m.max_context_tokens):,}); give a sequence of <= {int(m.max_context_tokens):,} "
                         "tokens, input and output together")
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
        cfgs = with_speculative(cfgs, m)
    rows, limits = _aggregated_rows(m, hw, cfgs, isl_tokens, osl_tokens, concurrency, factors, (lo, hi),
                                     best_practice=configs is None, cached=cached)
    if rows is None and configs is None:
        # the searched replicas hold the weights but not one sequence of this length: spread the
        # model wider (pipeline stages, wide expert parallelism across scale-up domains)
        rows, more = _aggregated_rows(m, hw, _wider_configs(m, hw, speculative=full), isl_tokens, osl_tokens,
                                      concurrency, factors, (lo, hi), best_practice=True, cached=cached)
        limits = {**limits, **more}
    if rows is None:
        raise ValueError(
            f"no configuration of {m.model_id} on {hw.hardware_id} holds even one sequence of "
            f"ISL/OSL {isl_tokens:g}/{osl_tokens:g}: max_concurrency={limits}"
        )
    skipped = None
    dis = None
    if full:
        try:
            dis = _disagg_rows(
                m, hw, hw, isl_tokens=isl_tokens, osl_tokens=osl_tokens, cached_tokens=cached,
                theoretical_hit_frac=None, concurrency=concurrency, prefill_config=None, decode_configs_=None,
                num_decode_gpus=None, prefill_max_utilization_frac=DEFAULT_PREFILL_MAX_UTILIZATION_FRAC,
                kv_transfer_eff_frac=DEFAULT_KV_TRANSFER_EFF_FRAC, tco_usd_per_gpu_hour=None, factors=factors,
                speculative=True, with_cost=False, workload=None)
        except ValueError as exc:
            skipped = str(exc)
        else:
            dis["note"] = dis["note"] + (f" (best-practice precisions); factors: {factors.source}; "
                                         f"throughput band x{lo:.2f}-x{hi:.2f}")
            dis[BAND_COLUMNS[0]] = dis["throughput_tok_per_s_per_gpu"] * lo
            dis[BAND_COLUMNS[1]] = dis["throughput_tok_per_s_per_gpu"] * hi
            dis["factors_source"] = np.full(len(dis["note"]), factors.source, dtype=object)
    out = curve_frame([rows]) if dis is None else _join(rows, dis)
    if frontier:
        out = config_envelope(out)
    out.attrs["max_concurrency"] = limits
    out.attrs["factors"] = factors.model_dump()
    out.attrs["band"] = (lo, hi)
    out.attrs["precision_rule"] = PRECISION_RULE if configs is None else "explicit configs"
    out.attrs["search_rule"] = SEARCH_RULE if full else (
        "explicit configs" if configs is not None else "aggregated serving without speculative decoding")
    if skipped is not None:
        out.attrs["disaggregated_skipped"] = skipped
    return out
