"""Multi-turn session traffic (agentic coding) on the roofline: prefix cache, concurrency, TTFT.

A closed loop of ``N`` sessions, each alternating a turn on the server (prefill of the
uncached part of its context, then decode) and an idle gap. Per concurrency the model solves,
by fixed-point iteration, for

* the sessions in flight ``B = min(N x busy / (busy + idle), C / (ISL + OSL))``: the KV capacity
  ``C`` (:func:`~tokenomics.perf.step.kv_capacity_tokens`) bounds the sequences that run at
  once, the rest queue;
* the realized prefix-cache hit rate ``h = h_theo x S`` of
  :func:`tokenomics.memory.prefix_cache.realized_hit_frac` (working set of all sessions vs
  the KV capacity, in-flight contexts pinned);
* the mixed step of an aggregated replica at batch ``B`` with ``ISL x h`` cached tokens per
  request, carrying its share ``B x tau / OSL`` of one request's chunked prefill
  (:func:`~tokenomics.perf.step.chunked_prefill_time_s`, only the uncached tokens):
  ``t_step = t_mixed + B x tau / OSL x t_context``. ``t_mixed`` is the aggregated step of
  :func:`~tokenomics.perf.step.roofline_points` (decode attention reads the full context) with
  the prompts' linear layers inside its matrix multiplies, under its weight and KV reads (after
  its decode work with ``RooflineFactors.sequential_prefill``);
  ``t_context`` is the long-context part, attention quadratic in the context run after (not
  under) the decode kernels and every chunk re-reading (MLA: up-projecting) its prefix. TTFT
  without queueing is the request's own
  prefill latency (under DP attention its attention runs on its group's ranks only) plus
  ``ceil(u / C) x t_decode``;
* ``busy = prefill + OSL x TPOT`` and the queueing wait from Little's law on the closed loop,
  ``wait = max(N / R - busy - idle, 0)`` with ``R`` requests/s, so that
  ``TTFT = prefill + wait``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from tokenomics._validate import check_nonnegative, check_numeric, check_positive
from tokenomics.catalog import Hardware, Model
from tokenomics.memory.prefix_cache import DEFAULT_CONTEXT_CV, hit_frac_by_tier
from tokenomics.perf.configs import (
    DEFAULT_CONCURRENCY,
    UNCALIBRATED_BAND,
    as_hardware,
    as_model,
    config_label,
    curve_frame,
    curve_rows,
)
from tokenomics.perf.disagg import _concurrency_values
from tokenomics.perf.factors import RooflineFactors
from tokenomics.perf.hierarchy import check_host_kv_gb_per_gpu, check_kv_offload, kv_offload_tiers
from tokenomics.perf.project import BAND_COLUMNS, _configs, _wider_configs, check_serves_decode, with_speculative
from tokenomics.perf.step import (
    DEFAULT_PREFILL_CHUNK_TOKENS,
    ServingConfig,
    _mixed_step_linear_prefill_s,
    _prefill_context_s,
    _prefill_linear_s,
    _resolve,
    _Setup,
    chunked_prefill_time_s,
    kv_capacity_tokens,
    roofline_points,
)
from tokenomics.workload import Workload, check_context_fits
from tokenomics.workload import workload as get_workload

__all__ = [
    "DEFAULT_SESSIONS",
    "cached_token_cost_ratio",
    "default_sessions",
    "project_session_curve",
    "session_points",
]

DEFAULT_SESSIONS: tuple[float, ...] = DEFAULT_CONCURRENCY
"""Concurrent sessions of a default agentic sweep (per replica), up to :func:`default_sessions`' bound."""


_MIN_SESSIONS = 512.0
"""Sessions a default sweep reaches on every replica [count]."""


def default_sessions(capacity_sessions: float) -> np.ndarray:
    """Return the default session counts of a sweep for a replica that holds ``capacity_sessions`` contexts.

    :data:`DEFAULT_SESSIONS` up to the first count at least twice the contexts all KV tiers hold
    together, and at least to 512: past twice the capacity every session's prefix is evicted
    before it returns and added sessions only queue, so a large replica's curve needs the
    counts up to there and a small one's gains nothing beyond 512.

    Parameters
    ----------
    capacity_sessions : float
        Session contexts the replica's KV tiers hold together [count], > 0.

    Returns
    -------
    numpy.ndarray
        Session counts per replica [count], increasing.

    Raises
    ------
    ValueError
        ``capacity_sessions`` not a finite number > 0.

    Examples
    --------
    >>> default_sessions(17.0)[-1], default_sessions(1_500.0)[-1]
    (np.float64(512.0), np.float64(3072.0))
    """
    check_positive("capacity_sessions", capacity_sessions)
    grid = np.asarray(DEFAULT_SESSIONS, dtype=float)
    stop = int(np.searchsorted(grid, max(2.0 * float(capacity_sessions), _MIN_SESSIONS)))
    return grid[: min(stop + 1, grid.size)]

_ITERATIONS = 60
_DAMPING = 0.5


def _session_inputs(workload: Workload, fixed_hint: str = "") -> tuple[float, float, float, float, float | None]:
    if workload.kind != "sessions":
        raise ValueError(
            f"workload {workload.name!r} is a fixed-sequence benchmark; session traffic needs "
            f"kind='sessions' (e.g. workload('agentic-coding')){fixed_hint}"
        )
    turns = workload.turns_per_session if workload.turns_per_session > 1.0 else None
    return (workload.isl_tokens, workload.osl_tokens, workload.cached_prefix_frac,
            workload.idle_s_between_turns, turns)


MAX_SESSIONS = 1e6
"""Most concurrent sessions per replica :func:`session_points` accepts (beyond: a unit slip)."""


def session_points(
    model: Model | str,
    hardware: Hardware | str,
    sessions: Any,
    workload: Workload | str,
    *,
    config: ServingConfig | None = None,
    factors: RooflineFactors | None = None,
    tier_capacity_tokens: Mapping[str, float] | None = None,
    recall_s_per_token: Mapping[str, float] | None = None,
    context_cv: float = DEFAULT_CONTEXT_CV,
    prefill_chunk_tokens: float = DEFAULT_PREFILL_CHUNK_TOKENS,
    kv_offload: str = "none",
) -> pd.DataFrame:
    """Return throughput, realized cache hits, TTFT and interactivity of a session workload.

    See the module notes for the closed-loop model solved at each concurrency.

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    hardware : Hardware or str
        Catalog hardware (or its name).
    sessions : float, array_like or pandas.Series
        Concurrent sessions per replica ``N`` [count], in (0, :data:`MAX_SESSIONS`] (AgentX
        "concurrency"; a mean, so fractional counts are allowed).
    workload : Workload or str
        A ``kind="sessions"`` workload (or its preset name): mean ISL/OSL, theoretical hit rate,
        idle gap.
    config : ServingConfig, optional
        Parallelism and precisions.
    factors : RooflineFactors, optional
        Efficiencies (default: stated defaults of the hardware's family).
    tier_capacity_tokens : mapping of str to float, optional
        KV capacity per tier [tokens], fastest first (default: ``{"hbm": C}`` with ``C`` from
        :func:`~tokenomics.perf.step.kv_capacity_tokens`). Hits in every tier skip prefill
        compute; hits beyond the first tier are brought back at ``recall_s_per_token``.
    recall_s_per_token : mapping of str to float, optional
        Time to bring one cached token's KV back into HBM from each tier after the first, per
        rank holding the sequence [s/token] (:func:`~tokenomics.perf.hierarchy.kv_offload_tiers`).
        Required for every tier after the first, and only for those. The recall adds to the
        request's prefill time (TTFT) and occupies the accelerator-host links: where the recall
        traffic exceeds them (``recall_link_util > 1``) throughput falls in proportion.
        ``recompute_s`` is the prefill time the same hits would take if computed again instead,
        for comparison.
    context_cv : float, default :data:`~tokenomics.memory.prefix_cache.DEFAULT_CONTEXT_CV`
        Coefficient of variation of session contexts.
    prefill_chunk_tokens : float, default :data:`~tokenomics.perf.step.DEFAULT_PREFILL_CHUNK_TOKENS`
        Prompt tokens the engine prefills per step (chunked-prefill token budget) [tokens], > 0.
    kv_offload : {"none", "dram", "ssd"}, default "none"
        Tiers below HBM that keep evicted prefixes, as in
        :func:`~tokenomics.perf.project_session_curve`: their capacities and recall times from
        :func:`~tokenomics.perf.hierarchy.kv_offload_tiers` (instead of ``tier_capacity_tokens``
        and ``recall_s_per_token``, which it cannot be given with).

    Returns
    -------
    pandas.DataFrame
        One row per session count (indexed like a ``sessions`` Series): ``sessions``,
        ``concurrency`` (in flight), ``theoretical_cache_hit_frac``, ``realized_cache_hit_frac``,
        ``hit_frac_<tier>``, ``kv_capacity_tokens``, ``kv_limited`` (in-flight bound by the KV capacity),
        ``ttft_s`` (prefill + queueing), ``prefill_s``, ``queue_wait_s``, ``tpot_s``,
        ``interactivity_tok_per_s_per_user``, ``requests_per_s``, the throughputs per GPU of
        :func:`~tokenomics.perf.step.roofline_points` and its step breakdown.

    Raises
    ------
    KeyError
        Unknown workload name or ``kv_offload`` mode (close matches listed).
    ValueError
        ``kv_offload`` given with ``tier_capacity_tokens`` or ``recall_s_per_token``, or a tier
        the system lacks; a fixed-sequence workload, a non-positive session count, weights that do not fit, a KV
        capacity that holds not even one context, or a recall time missing for a tier after the
        first, given for a tier ``tier_capacity_tokens`` does not list after the first, or negative.

    Examples
    --------
    >>> from tokenomics.workload import workload
    >>> from tokenomics.perf import ServingConfig
    >>> pts = session_points("deepseek-r1", "b200", [4.0, 64.0], workload("agentic-coding"),
    ...                      config=ServingConfig(tp=8, ep=8, weight_precision="fp4", kv_precision="fp8"))
    >>> bool(pts["realized_cache_hit_frac"].iloc[0] > pts["realized_cache_hit_frac"].iloc[1])
    True
    """
    isl, osl, h_theo, idle, turns = _session_inputs(get_workload(workload))
    check_numeric("sessions", sessions)
    index = sessions.index if isinstance(sessions, pd.Series) else None
    n = np.atleast_1d(np.asarray(sessions, dtype=float))
    if n.size == 0:
        raise ValueError("sessions is empty: give at least one session count")
    if np.any(~np.isfinite(n)) or np.any(n <= 0) or np.any(n > MAX_SESSIONS):
        raise ValueError(f"sessions={sessions!r} must be positive counts of at most {MAX_SESSIONS:g} per replica")
    check_positive("prefill_chunk_tokens", prefill_chunk_tokens)
    s = _resolve(model, hardware, config, factors)
    ctx = isl + osl
    mode = check_kv_offload(kv_offload, get_workload(workload))
    if mode != "none":
        if tier_capacity_tokens is not None or recall_s_per_token is not None:
            raise ValueError(f"kv_offload={mode!r} sets the tiers and recall times: give it or "
                             "tier_capacity_tokens/recall_s_per_token, not both")
        tier_capacity_tokens, recall_s_per_token = kv_offload_tiers(
            s.model, s.hw, config=s.cfg, factors=s.f, kv_offload=mode, context_tokens=ctx)
    tiers = dict(tier_capacity_tokens) if tier_capacity_tokens is not None else {
        "hbm": kv_capacity_tokens(s.model, s.hw, config=s.cfg, factors=s.f, context_tokens=ctx)
    }
    first = next(iter(tiers))
    recall = dict(recall_s_per_token or {})
    below = list(tiers)[1:]
    missing = [t for t in below if t not in recall]
    if missing:
        raise ValueError(
            f"tier_capacity_tokens names {missing} after the first tier {first!r} without a recall time: "
            "give recall_s_per_token for each (see tokenomics.perf.hierarchy.kv_offload_tiers)"
        )
    extra = [t for t in recall if t not in below]
    if extra:
        held = (f"tier_capacity_tokens lists {list(tiers)}" if tier_capacity_tokens is not None
                else f"tier_capacity_tokens is not given, so the KV cache has the one tier {first!r}")
        raise ValueError(
            f"recall_s_per_token names {extra}, but {held}: recall times apply to the tiers after the first "
            "only; give each tier's capacity in tier_capacity_tokens (see "
            "tokenomics.perf.hierarchy.kv_offload_tiers) or drop its recall time"
        )
    for name, per_token in recall.items():
        check_nonnegative(f"recall_s_per_token[{name!r}]", per_token)
    cap = float(tiers[first])
    b_cap = cap / ctx
    if b_cap < 1.0:
        raise ValueError(
            f"the KV capacity of one {s.cfg.label} replica of {s.hw.hardware_id} for {s.model.model_id} "
            f"({cap:,.0f} tokens) holds not even one {ctx:,.0f}-token session context"
        )
    b = np.minimum(n, b_cap)
    hits: dict[str, Any] = {}
    pts = pd.DataFrame()
    cached = np.zeros_like(n)
    for _ in range(_ITERATIONS):
        hits = hit_frac_by_tier(
            h_theo, tiers, n, ctx, in_flight=b, running_context_tokens=isl + osl / 2.0,
            new_tokens_per_turn=isl * (1.0 - h_theo) + osl, turns_per_session=turns, context_cv=context_cv,
        )
        cached = isl * np.asarray(hits["total"], dtype=float)
        recall_s = _recall_s(hits, recall, isl)
        pts = _mixed_points(s, b, isl, osl, cached, prefill_chunk_tokens)
        busy = pts["ttft_s"].to_numpy() + recall_s + osl * pts["tpot_s"].to_numpy()
        target = np.minimum(n * busy / (busy + idle), b_cap)
        if np.allclose(target, b, rtol=1e-4):
            b = target
            break
        b = _DAMPING * b + (1.0 - _DAMPING) * target
    pts = _mixed_points(s, b, isl, osl, cached, prefill_chunk_tokens)
    recall_s = _recall_s(hits, recall, isl)
    link_util = pts["requests_per_s"].to_numpy() * recall_s
    if recall:
        # what the host-tier hits would cost if prefilled again instead of recalled
        hbm_only = _mixed_points(s, b, isl, osl, isl * np.asarray(hits[first], dtype=float), prefill_chunk_tokens)
        recompute_s = np.maximum(hbm_only["ttft_s"].to_numpy() - pts["ttft_s"].to_numpy(), 0.0)
    else:
        recompute_s = np.zeros_like(recall_s)
    slow = np.maximum(link_util, 1.0)
    for col in ("throughput_tok_per_s_per_gpu", "input_throughput_tok_per_s_per_gpu",
                "output_throughput_tok_per_s_per_gpu", "requests_per_s"):
        if col in pts.columns:
            pts[col] = pts[col].to_numpy() / slow
    rate = pts["requests_per_s"].to_numpy()
    prefill = pts["ttft_s"].to_numpy() + recall_s
    busy = prefill + osl * pts["tpot_s"].to_numpy()
    wait = np.maximum(n / rate - busy - idle, 0.0)
    out = pd.DataFrame({"sessions": n}, index=index)
    out["theoretical_cache_hit_frac"] = h_theo
    out["realized_cache_hit_frac"] = np.asarray(hits["total"], dtype=float)
    out["gpu_cache_hit_frac"] = np.asarray(hits[first], dtype=float)
    out["recall_s"] = recall_s
    out["recall_link_util"] = link_util
    out["recompute_s"] = recompute_s
    for name, value in hits.items():
        if name not in ("total", "miss"):
            out[f"hit_frac_{name}"] = np.asarray(value, dtype=float)
    out["kv_capacity_tokens"] = cap
    out["kv_limited"] = b >= b_cap * (1.0 - 1e-6)
    out["prefill_s"] = prefill
    out["queue_wait_s"] = wait
    pts = pts.drop(columns=["ttft_s"]).set_axis(out.index)
    out = pd.concat([out, pts], axis=1)
    out["ttft_s"] = prefill + wait
    out["e2e_interactivity_tok_per_s_per_user"] = osl / (prefill + wait + osl * out["tpot_s"])
    return out


def _mixed_points(s: _Setup, b: np.ndarray, isl: float, osl: float, cached: Any, chunk: float) -> pd.DataFrame:
    """Return serving metrics of ``b`` in-flight sequences, prefill priced at long context.

    Aggregated: each step decodes the batch with its share of the chunked prefill of the
    ``b x tau / OSL`` prompts it completes, ``t_step = t_mixed + b x tau / OSL x t_context``:
    the prompts' linear layers inside the step's matrix multiplies (``t_mixed``), their
    long-context attention, re-reads and up-projection after the decode kernels
    (``t_context``, :func:`~tokenomics.perf.step.chunked_prefill_time_s` less its linear part),
    and a prompt's TTFT is its own
    prefill latency (under DP attention on its group's ranks only) plus ``ceil(u / C) x
    t_decode`` (each of its chunk steps also decodes the batch).
    Disaggregated configurations keep :func:`~tokenomics.perf.step.roofline_points`.
    """
    cached_arr = np.broadcast_to(np.asarray(cached, dtype=float), b.shape)
    if s.cfg.disaggregated:
        return roofline_points(s.model, s.hw, b, isl_tokens=isl, osl_tokens=osl, config=s.cfg, factors=s.f,
                               check_capacity=False, cached_tokens=cached_arr)
    decode_cfg = s.cfg.model_copy(update={"disaggregated": True})
    pts = roofline_points(s.model, s.hw, b, isl_tokens=isl, osl_tokens=osl, config=decode_cfg, factors=s.f,
                          check_capacity=False, cached_tokens=cached_arr)
    # chunked_prefill_time_s in its two parts: the linear layers ride in the step's matrix
    # multiplies, the long-context attention, re-reads and up-projection run after the decode kernels
    c = np.array(cached_arr, dtype=float)
    t_linear = _prefill_linear_s(s, isl, c)
    context = _prefill_context_s(s, isl, c, chunk)
    t_own = t_linear + (_prefill_context_s(s, isl, c, chunk, latency=True) if s.cfg.dp_attention else context)
    tau = s.cfg.tokens_per_step
    n = float(s.cfg.num_gpus)
    t_decode = pts["step_time_s"].to_numpy()
    prompts = b * tau / osl
    t_step = _mixed_step_linear_prefill_s(s, b, isl, osl, cached_arr) + prompts * context
    rate = b * tau / (osl * t_step)
    chunks = np.ceil(np.maximum(isl - cached_arr, 0.0) / chunk)
    ttft = t_own + chunks * t_decode
    tpot = t_step / tau
    pts["tpot_s"] = tpot
    pts["interactivity_tok_per_s_per_user"] = 1.0 / tpot
    pts["e2e_interactivity_tok_per_s_per_user"] = osl / (ttft + osl * tpot)
    pts["ttft_s"] = ttft
    pts["requests_per_s"] = rate
    pts["throughput_tok_per_s_per_gpu"] = (isl + osl) * rate / n
    pts["input_throughput_tok_per_s_per_gpu"] = isl * rate / n
    pts["output_throughput_tok_per_s_per_gpu"] = osl * rate / n
    pts["num_gpus"] = n
    pts["num_prefill_gpus"] = np.nan
    pts["num_decode_gpus"] = np.nan
    pts["step_time_s"] = t_step
    pts["compute_time_s"] = pts["compute_time_s"].to_numpy() + prompts * (t_linear + context)
    pts["bound"] = np.where(pts["compute_time_s"] > pts["memory_time_s"], "compute", "memory")
    return pts


def _recall_s(hits: Mapping[str, Any], recall: Mapping[str, float], isl: float) -> Any:
    """Time to bring a request's host-tier hits back into HBM [s]."""
    total: Any = 0.0
    for name, per_token in recall.items():
        total = total + isl * np.asarray(hits[name], dtype=float) * per_token
    return np.asarray(total, dtype=float)


def cached_token_cost_ratio(
    model: Model | str,
    hardware: Hardware | str,
    *,
    isl_tokens: float,
    cached_frac: float,
    config: ServingConfig | None = None,
    factors: RooflineFactors | None = None,
    prefill_chunk_tokens: float = DEFAULT_PREFILL_CHUNK_TOKENS,
) -> float:
    """Return the model's own GPU-time cost of a cached input token relative to an uncached one.

    With ``c = cached_frac x ISL`` cached tokens and ``t(L, c)`` the engine time of the chunked
    prefill of a prompt of ``L`` tokens of which ``c`` are cached
    (:func:`~tokenomics.perf.step.chunked_prefill_time_s`):

    * an uncached token costs what the cache saves per token,
      ``t_u = (t(ISL, 0) - t(ISL, c)) / c`` (its linear layers and its attention);
    * a cached token costs what its presence adds to the new tokens' prefill,
      ``t_c = (t(ISL, c) - t(ISL - c, 0)) / c`` (the new tokens' attention to the prefix and
      the prefix's KV read again by every chunk).

    ``ratio = min(t_c / t_u, 1)`` replaces the fixed 10 % convention in the GPU-time cost split
    (1 where a tiny cached share saves nothing: every chunk re-reads the prefix).

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    hardware : Hardware or str
        Catalog hardware (or its name).
    isl_tokens : float
        Prompt length [tokens], > 0.
    cached_frac : float
        Cached share of the prompt, in (0, 1).
    config : ServingConfig, optional
        Parallelism and precisions.
    factors : RooflineFactors, optional
        Efficiencies.
    prefill_chunk_tokens : float, default :data:`~tokenomics.perf.step.DEFAULT_PREFILL_CHUNK_TOKENS`
        Prompt tokens prefilled per engine step [tokens], > 0.

    Returns
    -------
    float
        Cost of a cached input token / cost of an uncached one, in [0, 1].

    Raises
    ------
    ValueError
        ``cached_frac`` outside (0, 1) or a non-positive prompt length.

    Examples
    --------
    >>> from tokenomics.perf import ServingConfig
    >>> r = cached_token_cost_ratio("deepseek-r1", "b200", isl_tokens=100_000.0, cached_frac=0.95,
    ...                             config=ServingConfig(tp=8, ep=8, kv_precision="fp8"))
    >>> 0.0 < r < 0.1
    True
    """
    if not 0.0 < cached_frac < 1.0:
        raise ValueError(f"cached_frac={cached_frac!r} must lie in (0, 1)")
    if not isl_tokens > 0:
        raise ValueError(f"isl_tokens={isl_tokens!r} must be > 0")
    return float(_cost_ratios(model, hardware, float(isl_tokens), np.asarray([cached_frac], dtype=float),
                              config, factors, prefill_chunk_tokens)[0])


def _cost_ratios(model: Model | str, hardware: Hardware | str, isl: float, fracs: np.ndarray,
                 config: ServingConfig | None, factors: RooflineFactors | None, chunk: float) -> np.ndarray:
    """:func:`cached_token_cost_ratio` at each cached share of ``fracs`` (each in (0, 1))."""
    c = fracs * isl
    kw: dict[str, Any] = {"config": config, "factors": factors, "chunk_tokens": chunk}
    full = chunked_prefill_time_s(model, hardware, isl_tokens=isl, **kw)
    with_cache = np.asarray(chunked_prefill_time_s(model, hardware, isl_tokens=isl, cached_tokens=c, **kw),
                            dtype=float)
    alone = np.asarray([chunked_prefill_time_s(model, hardware, isl_tokens=isl - x, **kw) for x in c])
    t_uncached = (full - with_cache) / c
    # the cached prefix adds attention to it and its KV read to the new tokens' prefill
    t_cached = np.maximum(with_cache - alone, 0.0) / c
    # t_uncached <= 0: a share so small that shifting the chunk boundaries costs more re-reads
    # than it saves
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(t_uncached > 0, np.minimum(t_cached / t_uncached, 1.0), 1.0)


def project_session_curve(
    model: Model | str,
    hardware: Hardware | str,
    workload: Workload | str,
    *,
    sessions: Sequence[float] | np.ndarray | None = None,
    configs: ServingConfig | Mapping[str, Any] | Iterable[ServingConfig | Mapping[str, Any]] | None = None,
    factors: RooflineFactors | None = None,
    band: tuple[float, float] | None = None,
    frontier: bool = False,
    kv_offload: str = "none",
    host_kv_gb_per_gpu: float | None = None,
    prefill_chunk_tokens: float = DEFAULT_PREFILL_CHUNK_TOKENS,
) -> pd.DataFrame:
    """Project a throughput-vs-interactivity curve of a session workload (agentic coding).

    Like :func:`~tokenomics.perf.project_curve` (its aggregated configuration search with MTP,
    schema, band and columns) with each point from :func:`session_points`: ``concurrency`` is the number of
    concurrent sessions, and the frame adds ``theoretical_cache_hit_frac``,
    ``realized_cache_hit_frac``, ``in_flight``, ``kv_capacity_tokens``, ``kv_limited``,
    ``queue_wait_s`` and ``cached_cost_ratio`` (the model's own cost of a cached vs an uncached
    input token, :func:`cached_token_cost_ratio`, at the realized hit rate).

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    hardware : Hardware or str
        Catalog hardware (or its name).
    workload : Workload or str
        A ``kind="sessions"`` workload, or its preset name (``"agentic-coding"``).
    sessions : sequence of float, optional
        Concurrent sessions per replica. Default: :func:`default_sessions` of each configuration
        (:data:`DEFAULT_SESSIONS` up to twice the contexts its KV tiers hold, at least to 512).
    configs, factors, band, frontier
        As in :func:`~tokenomics.perf.project_curve`. Without ``configs`` the search is
        aggregated serving at the frontier parallelisms and best-practice precisions, without
        speculative decoding and with each published MTP setting of the model
        (:func:`~tokenomics.perf.speculative_settings`); disaggregated session plans are
        :func:`~tokenomics.perf.project_disagg_curve` with the workload's hit rate.
    kv_offload : {"none", "dram", "ssd"}, default "none"
        Tiers below HBM that keep evicted prefixes
        (:func:`~tokenomics.perf.hierarchy.kv_offload_tiers`).
    host_kv_gb_per_gpu : float, optional
        Host DRAM given to the KV cache per accelerator [GB], at most the installed
        (:func:`~tokenomics.perf.hierarchy.check_host_kv_gb_per_gpu`; default: 80 % of the
        installed); only with ``kv_offload`` ``"dram"`` or ``"ssd"``.
    prefill_chunk_tokens : float, default :data:`~tokenomics.perf.step.DEFAULT_PREFILL_CHUNK_TOKENS`
        Prompt tokens the engine prefills per step [tokens], > 0 (:func:`session_points`).

    Returns
    -------
    pandas.DataFrame
        Curve-schema rows (``workload`` = the workload's name, ``isl_tokens``/``osl_tokens`` its
        means, ``ttft_median_s`` = prefill + queueing) plus the columns above.

    Raises
    ------
    KeyError
        Unknown model, hardware, workload or ``kv_offload`` name (close matches listed).
    ValueError
        A fixed-sequence workload (project it with :func:`~tokenomics.perf.project_curve`);
        ``host_kv_gb_per_gpu`` with ``kv_offload="none"`` or outside its range; a session
        context beyond the model's context window; or no configuration holds one session context.
    """
    m, hw = as_model(model), as_hardware(hardware)
    workload = get_workload(workload)
    _session_inputs(workload, "; project fixed-sequence traffic with tokenomics.project_curve")
    check_context_fits(m, workload)
    mode = check_kv_offload(kv_offload, workload)
    if host_kv_gb_per_gpu is not None:
        host_kv_gb_per_gpu = check_host_kv_gb_per_gpu(hw, host_kv_gb_per_gpu, mode)
    check_positive("prefill_chunk_tokens", prefill_chunk_tokens)
    check_serves_decode(m, hw)
    if factors is None:
        from tokenomics.perf.calibrate import bundled_calibration  # heavy: the calibration table

        cal = bundled_calibration()
        factors = cal.factors_for(hw)
        band = band if band is not None else cal.band
    lo, hi = band if band is not None else UNCALIBRATED_BAND
    explicit = (None if sessions is None
                else _concurrency_values(sessions, "concurrent sessions per replica", "sessions"))
    isl, osl = workload.isl_tokens, workload.osl_tokens
    cfgs = _configs(configs, m, hw)
    if configs is None:
        cfgs = with_speculative(cfgs, m)

    def frames_of(cfgs: list[ServingConfig]) -> list[pd.DataFrame]:
        frames = []
        for cfg in cfgs:
            try:
                tiers, recall = kv_offload_tiers(m, hw, config=cfg, factors=factors, kv_offload=mode,
                                                 context_tokens=isl + osl, host_kv_gb_per_gpu=host_kv_gb_per_gpu)
                grid = explicit if explicit is not None else default_sessions(sum(tiers.values()) / (isl + osl))
                pts = session_points(m, hw, grid, workload, config=cfg, factors=factors, tier_capacity_tokens=tiers,
                                     recall_s_per_token=recall, prefill_chunk_tokens=prefill_chunk_tokens)
            except ValueError as err:
                if mode != "none" and "tier" in str(err):
                    raise
                continue
            h = pts["realized_cache_hit_frac"].to_numpy()
            shares = np.unique(np.round(h, 3))
            ratios = _cost_ratios(m, hw, float(isl), np.clip(shares, 1e-3, 1 - 1e-3), cfg, factors,
                                  prefill_chunk_tokens)
            lookup = dict(zip(shares, ratios.tolist(), strict=True))
            label = config_label(cfg, m)
            frame = curve_rows(
                m, cfg, pts, hardware_id=hw.hardware_id, hardware_name=hw.name, workload=workload.name,
                isl_tokens=isl, osl_tokens=osl, concurrency=pts["sessions"], label=label,
                note=(f"session projection, {label}; factors: {factors.source}; "
                      f"throughput band x{lo:.2f}-x{hi:.2f}"),
                cache_hit_frac=pts["realized_cache_hit_frac"],
                gpu_cache_hit_frac=pts["gpu_cache_hit_frac"],
                theoretical_cache_hit_frac=pts["theoretical_cache_hit_frac"],
                kv_offload=mode,
                **{BAND_COLUMNS[0]: pts["throughput_tok_per_s_per_gpu"] * lo,
                   BAND_COLUMNS[1]: pts["throughput_tok_per_s_per_gpu"] * hi},
                realized_cache_hit_frac=pts["realized_cache_hit_frac"],
                in_flight=pts["concurrency"], kv_capacity_tokens=pts["kv_capacity_tokens"],
                kv_limited=pts["kv_limited"], queue_wait_s=pts["queue_wait_s"],
                recall_s=pts["recall_s"], recall_link_util=pts["recall_link_util"],
                recompute_s=pts["recompute_s"],
                cached_cost_ratio=np.asarray([lookup[x] for x in np.round(h, 3)], dtype=float),
                bound=pts["bound"], step_time_s=pts["step_time_s"], factors_source=factors.source,
            )
            frames.append(frame)
        return frames

    frames = frames_of(cfgs)
    if not frames and configs is None:
        # the searched replicas hold the weights but not one session context: spread the model
        # wider (pipeline stages, wide expert parallelism across scale-up domains)
        frames = frames_of(_wider_configs(m, hw, speculative=True))
    if not frames:
        raise ValueError(
            f"no configuration of {m.model_id} on {hw.hardware_id} holds one {isl + osl:,.0f}-token "
            f"session context of workload {workload.name!r}"
        )
    out = curve_frame(frames)
    if frontier:
        from tokenomics.curves.frontier import config_envelope

        out = config_envelope(out)
    out.attrs["band"] = (lo, hi)
    out.attrs["workload"] = workload.name
    return out
