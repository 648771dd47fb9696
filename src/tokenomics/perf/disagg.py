"""Disaggregated serving plans: a prefill pool and a decode pool, each on its own hardware.

A plan serves one workload (``ISL`` input tokens of which ``C`` are a cached prefix, ``OSL``
output tokens) with a decode pool of ``N_d`` accelerators in replicas of ``n_d`` (its
parallelism) and a prefill pool of ``N_p`` accelerators in replicas of ``n_p``. At a decode
concurrency ``B`` per decode replica::

    R     = (N_d / n_d) x R_rep(B)                      requests/s (pure decode steps, roofline)
    g                                                   prefill accelerator-seconds per request
    N_p   = n_p x ceil(max(R g / (n_p u_max), R kv / (n_p bw_p eff)))      rate matching
    u_p   = R g / N_p                                   prefill pool utilisation
    t_kv  = kv / (min(n_p bw_p, n_d bw_d) x eff)        KV transfer of one request
    W     = 1/2 x ErlangC(k_p, R s) x s / (k_p - R s)   prefill queueing, k_p = N_p / n_p, s = g / n_p
    TTFT  = W + t_p + t_kv + t_h
    throughput/GPU        = (ISL + OSL) R / (N_p + N_d)
    input per prefill GPU = ISL R / N_p,  output per decode GPU = OSL R / N_d
    cost per GPU-hour     = (N_p c_p + N_d c_d) / (N_p + N_d)

``g`` is the accelerator time a batched prefill pool spends on one prompt (FLOPs at the
prefill efficiency plus link time, weight reads amortised over the batch; from
:func:`~tokenomics.perf.roofline_points` with ``cached_tokens``): only the ``ISL - C`` uncached
tokens are computed, each attending to the whole context. ``t_p`` is the latency of one prefill
alone (the cached prefix's KV read once). ``kv``
is the KV cache of the full ``ISL`` context (the decode pool receives all of it), ``bw`` the
scale-out bandwidth per accelerator (the scale-up link when both pools share one scale-up
domain of the same hardware), ``eff`` the fraction of line rate a transfer reaches. The
decode-side NICs cap the rate: ``R kv <= N_d bw_d eff``. ``t_h`` is the fixed handover latency of
one request beside the bytes on the wire (router dispatch, transfer setup and completion
notice, the decode engine's step boundary; :data:`DEFAULT_KV_HANDOVER_LATENCY_S`).

Assumptions (stated once, here): the prefill pool is an M/D/c queue of ``k_p`` replicas with
Poisson arrivals (the M/D/c wait is taken as half the M/M/c one, the usual approximation for
deterministic service); the cached prefix is resident on the prefill pool; a KV transfer
starts when the prefill ends (no layer-wise overlap); the decode pool's own collectives and the
KV traffic do not contend. Each pool's TCO is its own hardware's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from scipy.special import gammaln, pdtr

from tokenomics._validate import check_fraction, check_positive, check_range
from tokenomics.catalog import Hardware, Model
from tokenomics.cost.tco import tco as tco_of
from tokenomics.curves.frontier import pareto_frontier
from tokenomics.economics import cost_per_mtok
from tokenomics.memory.kv_cache import kv_cache_bytes_per_sequence, linear_state_bytes_per_sequence
from tokenomics.perf.calibrate import bundled_calibration, frontier_configs
from tokenomics.perf.configs import (
    DEFAULT_CONCURRENCY,
    best_practice_precisions,
    config_label,
    curve_frame,
    stacked_curve_rows,
)
from tokenomics.perf.factors import RooflineFactors
from tokenomics.perf.speculative import speculative_settings
from tokenomics.perf.step import (
    ServingConfig,
    _capacity,
    _check_cached,
    _check_lengths,
    _points,
    _resolve,
    _times,
    _work_many,
    max_concurrency,
)
from tokenomics.units import BYTES_PER_GB
from tokenomics.workload import DEFAULT_WORKLOAD, Workload, isl_osl_label
from tokenomics.workload import workload as workload_preset

DEFAULT_PREFILL_MAX_UTILIZATION_FRAC: float = 0.8
"""Busy fraction a prefill pool is sized to at most: above it the queue (TTFT) grows fast."""

DEFAULT_KV_TRANSFER_EFF_FRAC: float = 0.8
"""Fraction of the NIC line rate one KV transfer reaches (RDMA of MB-sized blocks)."""

DEFAULT_KV_HANDOVER_LATENCY_S: float = 0.168
"""Fixed prefill-to-decode handover latency of one request beside the KV bytes on the wire [s].

vLLM's NIXL connector, 3 prefill + 1 decode workers on one node, ``--block-size 64``: the
handover (prefill emits the first token -> the client receives it) is 197 ms p50, of which the
KV transfer itself is about 29 ms; the other 168 ms are orchestration (router dispatch, transfer
notification, the decode engine's step boundaries and its recomputation of the first token).
The same work cuts the whole handover to 36 ms p50 with first-token seeding and concurrent
dispatch, so engines differ several-fold: pass ``kv_handover_latency_s`` per plan. Source:
github.com/vllm-project/vllm issue 50913 (2026-08-03) and pull request 51919 (2026-08-12).
"""

MAX_KV_HANDOVER_LATENCY_S: float = 10.0
"""Largest plausible handover latency [s]: more is a unit slip (milliseconds given as seconds)."""

_MS_HINT_MAX: float = 10_000.0
"""Largest out-of-range handover latency [s] read as milliseconds in the error's hint."""

PREFILL_PARALLELISM: tuple[tuple[int, int], ...] = (
    (1, 1), (2, 1), (4, 1), (8, 1), (1, 2), (1, 4), (1, 8), (2, 2), (2, 4), (4, 2), (4, 4), (8, 2),
)
"""(tp, pp) pairs searched for a prefill replica (``ep = tp`` for MoE models)."""

DISAGG_COLUMNS: tuple[str, ...] = (
    "prefill_hardware_id", "decode_hardware_id", "prefill_config", "decode_config",
    "prefill_replica_gpus", "decode_replica_gpus", "prefill_decode_ratio",
    "prefill_utilization_frac", "prefill_gpu_s_per_request", "prefill_time_s",
    "prefill_queue_s", "kv_transfer_s", "kv_handover_s", "kv_bytes_per_request", "kv_transfer_load_frac",
    "prefill_cost_usd_per_gpu_hour", "decode_cost_usd_per_gpu_hour", "cost_usd_per_gpu_hour",
)
"""Columns a plan's points carry beside the curve schema."""

IDENTITY_COLUMNS: tuple[str, ...] = ("model_id", "isl_tokens", "osl_tokens")
"""Columns that say what plan points were computed for (:func:`tokenomics.evaluate_plan` checks them);
:func:`plan_points` and :func:`closed_loop_points` append them, curve rows have them in the schema."""


def _handover_bytes(m: Model, isl: float, kv_precision: str) -> float:
    """Bytes a prefill hands to decode per request: the prompt's KV cache and any linear-attention state."""
    return float(kv_cache_bytes_per_sequence(m, isl, kv_precision)) + linear_state_bytes_per_sequence(m)


def _as_model(model: Model | str) -> Model:
    from tokenomics.catalog import model as lookup

    return lookup(model) if isinstance(model, str) else model


def _as_hardware(hardware: Hardware | str) -> Hardware:
    from tokenomics.catalog import hardware as lookup

    return lookup(hardware) if isinstance(hardware, str) else hardware


class Pool(BaseModel):
    """One role's accelerators: hardware, replica parallelism and how many.

    Attributes
    ----------
    hardware : str or Hardware
        Catalog hardware id or alias (resolved to the id), or a :class:`Hardware` entry (kept as
        given, e.g. one with :meth:`~tokenomics.catalog.CatalogEntry.with_values` overrides).
    config : ServingConfig
        Parallelism and precisions of one replica of the pool (``disaggregated`` is implied).
    num_gpus : int or None
        Accelerators in the pool, a positive multiple of the replica size ``tp x pp``.
        ``None``: the prefill pool is sized by rate matching; the decode pool fills one system
        (``accelerators_per_system`` rounded up to whole replicas).

    Examples
    --------
    >>> Pool(hardware="CPX", config=ServingConfig(pp=4)).hardware
    'rubin-cpx'
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    hardware: Hardware | str
    config: ServingConfig = Field(default_factory=ServingConfig)
    num_gpus: int | None = None

    @field_validator("hardware", mode="before")
    @classmethod
    def _resolve_hardware(cls, value: Any) -> Hardware | str:
        from tokenomics.catalog import resolve_hardware_id

        if isinstance(value, Hardware):
            return value
        return resolve_hardware_id(str(value))

    @property
    def hardware_id(self) -> str:
        """Catalog id of the pool's hardware."""
        return self.hardware.hardware_id if isinstance(self.hardware, Hardware) else self.hardware

    @field_validator("config")
    @classmethod
    def _disaggregated(cls, value: ServingConfig) -> ServingConfig:
        return value if value.disaggregated else value.model_copy(update={"disaggregated": True})

    @model_validator(mode="after")
    def _count(self) -> Pool:
        n = self.num_gpus
        if n is None:
            return self
        if n <= 0:
            raise ValueError(
                f"num_gpus={n} of the {self.hardware_id} pool must be a positive number of accelerators "
                "(a disaggregated plan needs both a prefill and a decode pool)"
            )
        if n % self.config.num_gpus:
            raise ValueError(
                f"num_gpus={n} of the {self.hardware_id} pool is not a multiple of its replica size "
                f"tp x pp = {self.config.num_gpus} ({self.config.label})"
            )
        return self

    @property
    def replica_gpus(self) -> int:
        """Accelerators per replica, ``tp x pp``."""
        return self.config.num_gpus


class ServingPlan(BaseModel):
    """A disaggregated deployment: a prefill pool and a decode pool.

    Attributes
    ----------
    prefill, decode : Pool
        The two pools (hardware may differ).
    prefill_max_utilization_frac : float
        Busy fraction the prefill pool is sized to at most, in (0, 1).
    kv_transfer_eff_frac : float
        Fraction of the line rate a KV transfer reaches, in (0, 1].
    kv_handover_latency_s : float
        Fixed latency each request adds to TTFT between the pools beside the KV transfer time
        [s], in [0, 10] (default :data:`DEFAULT_KV_HANDOVER_LATENCY_S`); a value above 10 is
        refused, with a hint where it looks like milliseconds.

    Examples
    --------
    >>> plan = ServingPlan(prefill=Pool(hardware="rubin-cpx", config=ServingConfig(pp=4)),
    ...                    decode=Pool(hardware="vr200", config=ServingConfig(tp=8, ep=8)))
    >>> plan.label
    'prefill rubin-cpx tp1-pp4-disagg + decode vr200-nvl144 tp8-ep8-disagg'
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    prefill: Pool
    decode: Pool
    prefill_max_utilization_frac: float = DEFAULT_PREFILL_MAX_UTILIZATION_FRAC
    kv_transfer_eff_frac: float = DEFAULT_KV_TRANSFER_EFF_FRAC
    kv_handover_latency_s: float = DEFAULT_KV_HANDOVER_LATENCY_S

    @field_validator("prefill_max_utilization_frac")
    @classmethod
    def _cap(cls, value: float) -> float:
        check_range("prefill_max_utilization_frac", value, low=0.0, high=1.0,
                    low_inclusive=False, high_inclusive=False)
        return float(value)

    @field_validator("kv_transfer_eff_frac")
    @classmethod
    def _eff(cls, value: float) -> float:
        check_range("kv_transfer_eff_frac", value, low=0.0, high=1.0, low_inclusive=False)
        return float(value)

    @field_validator("kv_handover_latency_s")
    @classmethod
    def _handover(cls, value: float) -> float:
        try:
            check_range("kv_handover_latency_s", value, low=0.0, high=MAX_KV_HANDOVER_LATENCY_S)
        except ValueError as exc:
            try:
                x = float(value)
            except (TypeError, ValueError):
                x = math.nan
            if MAX_KV_HANDOVER_LATENCY_S < x <= _MS_HINT_MAX:
                raise ValueError(f"{exc}; {x:g} looks like milliseconds: {x / 1000.0:g} s?") from None
            raise
        return float(value)

    @model_validator(mode="after")
    def _decode_serves(self) -> ServingPlan:
        hw = _as_hardware(self.decode.hardware)
        if hw.prefill_only:
            raise ValueError(
                f"the decode pool is on {hw.hardware_id}, a prefill-only part (serving_role='prefill'): it "
                "serves only as the prefill pool; put the decode pool on a system that serves decode"
            )
        return self

    @property
    def label(self) -> str:
        """``'prefill <hw> <parallelism> + decode <hw> <parallelism>'``."""
        p, d = self.prefill, self.decode
        return f"prefill {p.hardware_id} {p.config.label} + decode {d.hardware_id} {d.config.label}"


def _scaleout_bytes_per_s(hw: Hardware, role: str) -> float:
    bw = hw.scaleout_bw_unidir_gb_per_s
    if bw is None:
        raise ValueError(
            f"{hw.hardware_id} has no scale-out bandwidth (scaleout_bw_unidir_gb_per_s) in the "
            f"catalog: the {role} pool sends or receives the KV cache over the scale-out network; "
            "add the value with tokenomics.add_catalog_file"
        )
    return float(bw) * BYTES_PER_GB


def _erlang_c(servers: np.ndarray, load: np.ndarray) -> np.ndarray:
    """Probability of waiting in an M/M/c queue (Erlang C), element-wise; ``load < servers``.

    From the Erlang B blocking probability, the Poisson ratio ``B = pmf(c; A) / cdf(c; A)``
    (evaluated in logs), then ``C = B / (1 - rho (1 - B))`` with ``rho = A / c``.
    """
    c = servers.astype(int)
    with np.errstate(divide="ignore"):
        b = np.exp(c * np.log(load) - load - gammaln(c + 1.0) - np.log(pdtr(c, load)))
    rho = load / c
    return b / (1.0 - rho * (1.0 - b))


def decode_pool_factors(hardware: Hardware | str) -> RooflineFactors:
    """Return efficiencies for a disaggregated decode pool with its kernels at measured rates.

    A decode pool runs pure decode steps: no prompt shares its batches. These factors price its
    matrix multiplies, attention and collectives at their measured kernel rates (the operator
    tables of :mod:`tokenomics.perf.operators`, residual multipliers 1: ``operator_tables=True``,
    ``compute_eff_frac = comm_eff_frac = 1``) and keep the bundled calibration's memory
    efficiency and fixed per-step and per-layer costs for the hardware. The calibration's own
    compute efficiency is fitted to mostly aggregated serving, where every step also carries
    chunked prefill (the prefill-decoding interference of DistServe, Zhong et al., OSDI 2024,
    arXiv:2401.09670). An option to pass as ``decode_factors`` / ``factors``; the defaults stay
    the calibration's (``benchmarks/validate_disagg.py`` uses them for recipes that ran
    TensorRT-LLM, whose kernels the operator tables measured, and prints both uniform choices).

    Parameters
    ----------
    hardware : Hardware or str
        Decode hardware (or its name).

    Returns
    -------
    RooflineFactors
        The factors; ``source`` says how they were built.

    Examples
    --------
    >>> f = decode_pool_factors("gb200")
    >>> f.operator_tables, f.compute_eff_frac
    (True, 1.0)
    """
    hw = _as_hardware(hardware)
    base = bundled_calibration().factors_for(hw)
    return base.model_copy(update={"operator_tables": True, "compute_eff_frac": 1.0, "dense_compute_eff_frac": 1.0,
                                   "comm_eff_frac": 1.0,
                                   "source": f"decode pool: measured kernel rates; memory and fixed costs "
                                             f"{base.source}"})


def _pool_factors(hw: Hardware, factors: RooflineFactors | None) -> RooflineFactors:
    if factors is not None:
        return factors
    return bundled_calibration().factors_for(hw)


def _prefill_work(
    m: Model, hw: Hardware, cfg: ServingConfig, isl: float, cached: float, f: RooflineFactors
) -> tuple[float, float]:
    """Accelerator-seconds of the prefill pool per request and the latency of one prefill [s]."""
    b_max = max_concurrency(m, hw, isl_tokens=isl, osl_tokens=1.0, config=cfg, factors=f)
    if b_max < 1:
        raise ValueError(
            f"one {cfg.label} replica of {hw.hardware_id} cannot hold the KV cache of one "
            f"{isl:g}-token prompt of {m.model_id} beside the weights (hbm_capacity_gb="
            f"{hw.hbm_capacity_gb:g}); use more tensor or pipeline parallelism in the prefill pool"
        )

    pts = _points(_resolve(m, hw, cfg, f), np.ones(1), isl, 1.0, False, cached)
    return float(pts["num_prefill_gpus"][0] / pts["requests_per_s"][0]), float(pts["ttft_s"][0])


def _default_decode_gpus(hw: Hardware, cfg: ServingConfig) -> int:
    n = cfg.num_gpus
    return n * max(1, math.ceil(hw.accelerators_per_system / n))


def _tco_usd_per_gpu_hour(hw: Hardware, tco: Any) -> float:
    if tco is None:
        return float(tco_of(hw).usd_per_gpu_hour)
    if isinstance(tco, dict):
        from tokenomics.catalog import resolve_hardware_id

        by_id = {resolve_hardware_id(k): v for k, v in tco.items()}
        if hw.hardware_id not in by_id:
            raise KeyError(f"tco_usd_per_gpu_hour has no entry for {hw.hardware_id!r}; got {sorted(tco)}")
        value = float(by_id[hw.hardware_id])
    else:
        value = float(tco)
    check_range("tco_usd_per_gpu_hour", value, low=0.0, high=1000.0, low_inclusive=False)
    return value


def _concurrency_values(concurrency: Any, what: str, name: str = "concurrency") -> np.ndarray:
    """Return explicit concurrencies as a float array; raise, naming ``name``, if empty or not all > 0."""
    values = np.atleast_1d(np.asarray(concurrency, dtype=float))
    if values.size == 0:
        raise ValueError(f"{name} is empty (got {concurrency!r}): give at least one value > 0, {what} [count]")
    check_positive(name, values)
    return values


def plan_points(
    model: Model | str,
    plan: ServingPlan,
    concurrency: Any,
    *,
    isl_tokens: float = 1024.0,
    osl_tokens: float = 1024.0,
    cached_tokens: float = 0.0,
    theoretical_hit_frac: float | None = None,
    prefill_factors: RooflineFactors | None = None,
    decode_factors: RooflineFactors | None = None,
    tco_usd_per_gpu_hour: float | dict[str, float] | None = None,
    check_capacity: bool = True,
) -> pd.DataFrame:
    """Return throughput, latency and cost of a disaggregated plan at each decode concurrency.

    Rate matching, KV transfer, prefill queueing and the per-pool GPU counts follow the module
    formulas. With a fixed prefill pool (``plan.prefill.num_gpus``) every concurrency must be
    matched by it; otherwise the pool is sized per point.

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    plan : ServingPlan
        The two pools.
    concurrency : float or array_like
        Concurrent sequences per decode replica [count], > 0, at least one.
    isl_tokens, osl_tokens : float
        Input (cached prefix included) and output tokens per request [tokens], > 0.
    cached_tokens : float
        Input tokens per request served from the prefix cache, in [0, ISL) [tokens]: a hit rate
        you assert.
    theoretical_hit_frac : float, optional
        Instead of ``cached_tokens``: the workload's theoretical prefix-cache hit rate, in
        [0, 1). The realized rate is then solved per point (fixed point): the prefix cache is the
        prefill pool's KV capacity (:func:`~tokenomics.perf.step.kv_capacity_tokens` per replica,
        times the replicas), holding one ``ISL``-token context per session in flight
        (:func:`tokenomics.memory.prefix_cache.realized_hit_frac`), and a larger pool holds more.
    prefill_factors, decode_factors : RooflineFactors, optional
        Efficiencies of each pool (default: the bundled calibration's for its hardware;
        :func:`decode_pool_factors` prices a decode pool's kernels at their measured rates).
    tco_usd_per_gpu_hour : float, dict or None
        Each pool's TCO [USD/GPU-hour]: a dict keyed by hardware id, or one figure for both;
        default :func:`tokenomics.tco` of each hardware (itemised, hyperscaler profile).
    check_capacity : bool
        Raise if a concurrency exceeds the decode replica's memory capacity (default True).

    Returns
    -------
    pandas.DataFrame
        One row per concurrency: ``concurrency, requests_per_s, tpot_s,
        interactivity_tok_per_s_per_user, ttft_s, e2e_interactivity_tok_per_s_per_user,
        num_gpus, num_prefill_gpus, num_decode_gpus, throughput_tok_per_s_per_gpu,
        input_throughput_tok_per_s_per_gpu, output_throughput_tok_per_s_per_gpu,
        max_concurrency``, ``cache_hit_frac`` (realized), ``theoretical_cache_hit_frac``,
        :data:`DISAGG_COLUMNS` and :data:`IDENTITY_COLUMNS` (``model_id``, ``isl_tokens``,
        ``osl_tokens``: what the points were computed for, checked by
        :func:`tokenomics.evaluate_plan`).

    Raises
    ------
    ValueError
        An empty or non-positive ``concurrency``, a pool whose weights or prompt do not fit,
        hardware without the scale-out bandwidth or the precision rate its role needs (the
        message names the field), a fixed prefill pool too small for the decode pool's request
        rate, a decode pool whose NICs cannot receive the KV caches at that rate,
        ``cached_tokens`` outside [0, ISL), or both ``cached_tokens`` and
        ``theoretical_hit_frac`` given.

    Examples
    --------
    >>> plan = ServingPlan(
    ...     prefill=Pool(hardware="b200", config=ServingConfig(tp=8, ep=8, weight_precision="fp4",
    ...                                                        kv_precision="fp8")),
    ...     decode=Pool(hardware="h200", config=ServingConfig(tp=8, ep=8, kv_precision="fp8"),
    ...                 num_gpus=16))
    >>> pts = plan_points("deepseek-r1", plan, [16, 64], isl_tokens=8192.0)
    >>> pts["num_gpus"].tolist() == (pts["num_prefill_gpus"] + 16).tolist()
    True
    """
    check_positive("isl_tokens", isl_tokens)
    check_positive("osl_tokens", osl_tokens)
    isl, osl, cached = float(isl_tokens), float(osl_tokens), float(cached_tokens)
    check_range("cached_tokens", cached, low=0.0, high=isl, high_inclusive=False)
    batch = _concurrency_values(concurrency, "concurrent sequences per decode replica")
    m = _as_model(model)
    hw_p, hw_d = _as_hardware(plan.prefill.hardware), _as_hardware(plan.decode.hardware)
    f_p, f_d = _pool_factors(hw_p, prefill_factors), _pool_factors(hw_d, decode_factors)
    _scaleout_bytes_per_s(hw_p, "prefill")
    _scaleout_bytes_per_s(hw_d, "decode")
    prefill = _Prefill.build(m, hw_p, plan.prefill.config, isl, cached, theoretical_hit_frac, f_p)
    costs = (_tco_usd_per_gpu_hour(hw_p, tco_usd_per_gpu_hour), _tco_usd_per_gpu_hour(hw_d, tco_usd_per_gpu_hour))
    out = pd.DataFrame(_plan_frame(m, plan, batch, isl, osl, f_d, prefill, costs, check_capacity))
    return _with_identity(out, m, isl, osl)


def _with_identity(points: pd.DataFrame, m: Model, isl: float, osl: float) -> pd.DataFrame:
    """Append :data:`IDENTITY_COLUMNS` (the model and ISL/OSL the points were computed for)."""
    points["model_id"] = m.model_id
    points["isl_tokens"] = float(isl)
    points["osl_tokens"] = float(osl)
    return points


class _Prefill:
    """Prefill work per request as a function of the cached tokens, and the prefix-cache rule.

    ``g(C)`` is exactly quadratic in the cached tokens ``C`` (linear FLOPs and links in
    ``ISL - C``, attention pairs ``(ISL - C) C + (ISL - C)(ISL - C + 1) / 2``), so three
    evaluations fix it; the single-prefill latency is interpolated the same way.
    """

    def __init__(self, g: np.ndarray, t: np.ndarray, cached: float, hit: float | None, capacity: float) -> None:
        self.g, self.t, self.cached, self.hit, self.capacity = g, t, cached, hit, capacity

    @classmethod
    def build(cls, m: Model, hw: Hardware, cfg: ServingConfig, isl: float, cached: float, hit: float | None,
              f: RooflineFactors, work: tuple[float, float] | None = None) -> _Prefill:
        """``work``: :func:`_prefill_work` of ``cfg`` at ``cached``, where already known."""
        if hit is None:
            g_one, t_one = _prefill_work(m, hw, cfg, isl, cached, f) if work is None else work
            return cls(np.asarray([g_one]), np.asarray([t_one]), cached, None, 0.0)
        if cached:
            raise ValueError("give cached_tokens or theoretical_hit_frac, not both")
        check_range("theoretical_hit_frac", hit, low=0.0, high=1.0, high_inclusive=False)
        from tokenomics.perf.step import kv_capacity_tokens

        knots = np.asarray([0.0, 0.5, 0.999]) * isl
        at_knots = [_prefill_work(m, hw, cfg, isl, float(c), f) for c in knots]
        g_fit = np.polyfit(knots, [w[0] for w in at_knots], 2)
        t_fit = np.polyfit(knots, [w[1] for w in at_knots], 2)
        cap = kv_capacity_tokens(m, hw, config=cfg, factors=f, context_tokens=isl)
        return cls(g_fit, t_fit, 0.0, float(hit), float(cap))

    def at(self, cached: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Accelerator-seconds per request and single-prefill latency at ``cached`` tokens."""
        if self.hit is None:
            return np.full_like(cached, self.g[0]), np.full_like(cached, self.t[0])
        return np.polyval(self.g, cached), np.polyval(self.t, cached)


def _nic_message(batch: np.ndarray, rate: np.ndarray, load_d: np.ndarray, kv: float, n_dec: int, hw_d: Hardware,
                 eff: float) -> str:
    """Return the error of a decode pool whose NICs cannot receive the KV caches (``load_d > 1``)."""
    over = load_d > 1.0
    return (
        f"rates cannot be matched: at concurrency {batch[over].min():g} the decode pool of {n_dec} x "
        f"{hw_d.hardware_id} would receive {rate[over].min() * kv / 1e9:.1f} GB/s of KV "
        f"cache, more than its scale-out bandwidth (scaleout_bw_unidir_gb_per_s="
        f"{hw_d.scaleout_bw_unidir_gb_per_s:g} x {n_dec} x kv_transfer_eff_frac={eff:g}); "
        "lower the concurrency"
    )


def _plan_core(hw_p: Hardware, hw_d: Hardware, n_p: int, fixed: int | None, eff: float, u_max: float,
               prefill: _Prefill, isl: float, osl: float, batch: np.ndarray, rate_rep: np.ndarray,
               tpot: np.ndarray, n_d: Any, n_dec: Any, kv: Any, t_h: Any,
               costs: tuple[float, float]) -> dict[str, Any]:
    """Evaluate the plan formulas (module notes) at each point, element-wise.

    ``rate_rep`` and ``tpot`` are one decode replica's requests/s and TPOT at ``batch``;
    ``n_d`` (replica size), ``n_dec`` (decode pool size), ``kv`` (bytes per request) and ``t_h``
    (handover latency) are scalars or one value per point (several decode configurations
    stacked); ``fixed`` is the prefill pool size when given. Nothing is checked here: ``kv_transfer_load_frac`` above 1
    and ``need`` above the fixed pool's replicas are the callers' errors.
    """
    bw_p: Any = _scaleout_bytes_per_s(hw_p, "prefill")
    bw_d: Any = _scaleout_bytes_per_s(hw_d, "decode")
    rate = (n_dec / n_d) * rate_rep

    # prefill: accelerator-seconds per request and the latency of one prefill
    cached = np.full_like(rate, prefill.cached)
    g, t_p = prefill.at(cached)
    if hw_p.hardware_id == hw_d.hardware_id and fixed is not None:
        same_domain = fixed + n_dec <= hw_d.scaleup_domain_accelerators
        bw_p = np.where(same_domain, hw_d.scaleup_bw_unidir_gb_per_s * BYTES_PER_GB, bw_p)
        bw_d = np.where(same_domain, hw_d.scaleup_bw_unidir_gb_per_s * BYTES_PER_GB, bw_d)

    # decode-side NICs receive every request's KV cache
    load_d = rate * kv / (n_dec * bw_d * eff)
    need = np.maximum(rate * g / (n_p * u_max), rate * kv / (n_p * bw_p * eff))
    sessions = batch * n_dec / n_d
    if prefill.hit is not None:
        # realized hits: the prefill pool's KV capacity holds the sessions' prefixes; more
        # replicas hold more, fewer hits need more replicas (damped fixed point)
        from tokenomics.memory.prefix_cache import realized_hit_frac

        h = np.full_like(rate, prefill.hit)
        for _ in range(40):
            g, t_p = prefill.at(isl * h)
            need = np.maximum(rate * g / (n_p * u_max), rate * kv / (n_p * bw_p * eff))
            k = np.full_like(rate, fixed / n_p) if fixed else np.maximum(1.0, np.ceil(need - 1e-9))
            h_new = np.asarray(realized_hit_frac(prefill.hit, k * prefill.capacity, sessions, isl), dtype=float)
            h = 0.5 * h + 0.5 * np.minimum(h_new, prefill.hit)
        cached = isl * h
        g, t_p = prefill.at(cached)
        need = np.maximum(rate * g / (n_p * u_max), rate * kv / (n_p * bw_p * eff))
    replicas = np.maximum(1.0, np.ceil(need - 1e-9)) if fixed is None else np.full_like(rate, fixed / n_p)
    n_pre = replicas * n_p
    util = rate * g / n_pre
    s = g / n_p
    load = rate * s
    wait = 0.5 * _erlang_c(replicas, load) * s / (replicas - load)
    link = np.minimum(n_p * bw_p, n_d * bw_d) * eff
    t_kv = kv / link
    ttft = wait + t_p + t_kv + t_h
    n_all = n_pre + n_dec
    c_p, c_d = costs
    return {
        "rate": rate, "g": g, "t_p": t_p, "need": need, "replicas": replicas, "n_pre": n_pre, "n_all": n_all,
        "util": util, "wait": wait, "t_kv": t_kv, "t_h": t_h, "ttft": ttft, "load_d": load_d, "cached": cached,
        "tpot": tpot, "cost": (n_pre * c_p + n_dec * c_d) / n_all,
    }


def _plan_frame(m: Model, plan: ServingPlan, batch: np.ndarray, isl: float, osl: float, f_d: RooflineFactors,
                prefill: _Prefill, costs: tuple[float, float], check_capacity: bool) -> dict[str, Any]:
    hw_p, hw_d = _as_hardware(plan.prefill.hardware), _as_hardware(plan.decode.hardware)
    cfg_p, cfg_d = plan.prefill.config, plan.decode.config
    n_p, n_d = cfg_p.num_gpus, cfg_d.num_gpus
    eff, u_max = plan.kv_transfer_eff_frac, plan.prefill_max_utilization_frac

    # decode: pure decode steps of one replica
    dec = _points(_resolve(m, hw_d, cfg_d, f_d), batch, isl, osl, check_capacity)
    n_dec = plan.decode.num_gpus or _default_decode_gpus(hw_d, cfg_d)
    kv = _handover_bytes(m, isl, cfg_d.kv_precision)
    fixed = plan.prefill.num_gpus
    v = _plan_core(hw_p, hw_d, n_p, fixed, eff, u_max, prefill, isl, osl, batch,
                   np.asarray(dec["requests_per_s"], dtype=float), np.asarray(dec["tpot_s"], dtype=float),
                   n_d, n_dec, kv, plan.kv_handover_latency_s, costs)
    rate, g = v["rate"], v["g"]
    if np.any(v["load_d"] > 1.0):
        raise ValueError(_nic_message(batch, rate, v["load_d"], kv, n_dec, hw_d, eff))
    if fixed is not None:
        replicas, need = v["replicas"], v["need"]
        short = need > replicas + 1e-9
        if np.any(short):
            i = int(np.argmax(short))
            raise ValueError(
                f"rates cannot be matched: the prefill pool (num_gpus={fixed} x "
                f"{hw_p.hardware_id}, {cfg_p.label}) serves at most "
                f"{replicas[i] * n_p * u_max / g[i]:.3g} requests/s at prefill_max_utilization_frac="
                f"{u_max:g}, but the decode pool produces {rate[i]:.3g} requests/s at concurrency "
                f"{batch[i]:g}; give the prefill pool at least {int(np.ceil(need[i])) * n_p} GPUs "
                "or lower the concurrency"
            )
    return _plan_columns(v, batch, isl, osl, n_dec, np.full(len(batch), dec["max_concurrency"]), prefill,
                         hw_p.hardware_id, hw_d.hardware_id, cfg_p.label, cfg_d.label, float(n_p), float(n_d),
                         kv, costs)


def _plan_columns(v: dict[str, Any], batch: np.ndarray, isl: float, osl: float, n_dec: Any, b_max: Any,
                  prefill: _Prefill, prefill_hardware_id: str, decode_hardware_id: str, prefill_config: str,
                  decode_config: Any, n_p: float, n_d: Any, kv: Any, costs: tuple[float, float]) -> dict[str, Any]:
    """Return the columns of :func:`plan_points` from :func:`_plan_core` (per-point or per-plan values)."""
    rate, tpot, n_pre, n_all = v["rate"], v["tpot"], v["n_pre"], v["n_all"]
    ttft = v["ttft"]
    c_p, c_d = costs
    return {
        "concurrency": batch,
        "requests_per_s": rate,
        "tpot_s": tpot,
        "interactivity_tok_per_s_per_user": 1.0 / tpot,
        "ttft_s": ttft,
        "e2e_interactivity_tok_per_s_per_user": osl / (ttft + osl * tpot),
        "num_gpus": n_all,
        "num_prefill_gpus": n_pre,
        "num_decode_gpus": np.full_like(rate, 1.0) * n_dec,
        "throughput_tok_per_s_per_gpu": (isl + osl) * rate / n_all,
        "input_throughput_tok_per_s_per_gpu": isl * rate / n_pre,
        "output_throughput_tok_per_s_per_gpu": osl * rate / n_dec,
        "max_concurrency": b_max,
        "cache_hit_frac": v["cached"] / isl,
        "theoretical_cache_hit_frac": prefill.hit if prefill.hit is not None else prefill.cached / isl,
        "prefill_hardware_id": prefill_hardware_id,
        "decode_hardware_id": decode_hardware_id,
        "prefill_config": prefill_config,
        "decode_config": decode_config,
        "prefill_replica_gpus": n_p,
        "decode_replica_gpus": n_d,
        "prefill_decode_ratio": n_pre / n_dec,
        "prefill_utilization_frac": v["util"],
        "prefill_gpu_s_per_request": v["g"],
        "prefill_time_s": v["t_p"],
        "prefill_queue_s": v["wait"],
        "kv_transfer_s": v["t_kv"],
        "kv_handover_s": v["t_h"],
        "kv_bytes_per_request": kv,
        "kv_transfer_load_frac": v["load_d"],
        "prefill_cost_usd_per_gpu_hour": c_p,
        "decode_cost_usd_per_gpu_hour": c_d,
        "cost_usd_per_gpu_hour": v["cost"],
    }


def closed_loop_points(
    model: Model | str,
    plan: ServingPlan,
    concurrency: Any,
    *,
    isl_tokens: float = 1024.0,
    osl_tokens: float = 1024.0,
    max_batch_per_replica: int | None = None,
    prefill_factors: RooflineFactors | None = None,
    decode_factors: RooflineFactors | None = None,
) -> pd.DataFrame:
    """Return the steady state of fixed pools driven by a fixed number of requests in flight.

    A benchmark client (or a fleet of users) keeps ``C`` requests in flight; each spends its
    TTFT in the prefill pool (queue, prefill, KV transfer) and ``OSL x TPOT`` decoding. With
    both pools fixed the request rate ``R`` solves Little's law::

        C = R x TTFT(R) + k_d x b(R)
        k_d x r_d(b) = R                      decode rate of k_d replicas at batch b per replica
        TTFT(R) = W_p(R) + t_p + t_kv + t_h  W_p: M/D/c wait of the k_p prefill replicas

    ``R`` is below both capacities: the prefill pool's ``k_p n_p / g`` (busy all the time) and
    the decode pool's rate at its largest batch ``b_cap`` (memory capacity, or
    ``max_batch_per_replica`` where the engine caps its running requests). When ``C`` exceeds
    what the decode pool holds at ``b_cap``, the surplus waits for a decode slot and adds to
    TTFT: ``TTFT = (C - k_d b_cap) / R``. The symbols are those of the module notes.

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    plan : ServingPlan
        Both pools with ``num_gpus`` given.
    concurrency : float or array_like
        Requests in flight over the whole plan [count], > 0, at least one.
    isl_tokens, osl_tokens : float
        Input and output tokens per request [tokens], > 0.
    max_batch_per_replica : int, optional
        Most sequences one decode replica runs at once (the engine's limit) [count], >= 1;
        default: its memory capacity.
    prefill_factors, decode_factors : RooflineFactors, optional
        Efficiencies of each pool (default: the bundled calibration's for its hardware;
        :func:`decode_pool_factors` prices a decode pool's kernels at their measured rates).

    Returns
    -------
    pandas.DataFrame
        One row per concurrency: ``concurrency, requests_per_s, decode_batch_per_replica,
        tpot_s, interactivity_tok_per_s_per_user, ttft_s, prefill_queue_s,
        prefill_utilization_frac, num_prefill_gpus, num_decode_gpus, num_gpus,
        throughput_tok_per_s_per_gpu, bound`` (``"prefill"``, ``"decode"``: the pool that
        limits the rate, the other's queue being short, or ``"decode slots"`` when requests wait
        for a decode slot), ``prefill_hardware_id, decode_hardware_id`` and
        :data:`IDENTITY_COLUMNS` (``model_id, isl_tokens, osl_tokens``), so that
        :func:`tokenomics.evaluate_plan` can price them and check what they were computed for.

    Raises
    ------
    ValueError
        A pool without ``num_gpus``, an empty or non-positive concurrency or ``max_batch_per_replica``,
        or a pool whose weights or prompt do not fit.

    Examples
    --------
    >>> plan = ServingPlan(
    ...     prefill=Pool(hardware="b200", config=ServingConfig(tp=4, ep=4, weight_precision="fp4",
    ...                  dense_weight_precision="fp8", kv_precision="fp8"), num_gpus=4),
    ...     decode=Pool(hardware="b200", config=ServingConfig(tp=8, ep=8, dp_attention=True,
    ...                 weight_precision="fp4", dense_weight_precision="fp8", kv_precision="fp8"),
    ...                 num_gpus=8))
    >>> pts = closed_loop_points("deepseek-r1", plan, [64, 4096])
    >>> bool(pts["requests_per_s"].is_monotonic_increasing)
    True
    """
    check_positive("isl_tokens", isl_tokens)
    check_positive("osl_tokens", osl_tokens)
    conc = _concurrency_values(concurrency, "requests in flight over the whole plan")
    for role, pool in (("prefill", plan.prefill), ("decode", plan.decode)):
        if pool.num_gpus is None:
            raise ValueError(f"the {role} pool needs num_gpus: a closed loop runs fixed pools")
    if max_batch_per_replica is not None and max_batch_per_replica < 1:
        raise ValueError(f"max_batch_per_replica={max_batch_per_replica} must be >= 1 sequence")
    isl, osl = float(isl_tokens), float(osl_tokens)
    m = _as_model(model)
    hw_p, hw_d = _as_hardware(plan.prefill.hardware), _as_hardware(plan.decode.hardware)
    f_p, f_d = _pool_factors(hw_p, prefill_factors), _pool_factors(hw_d, decode_factors)
    cfg_p, cfg_d = plan.prefill.config, plan.decode.config
    n_p, n_d = cfg_p.num_gpus, cfg_d.num_gpus
    n_pre, n_dec = int(plan.prefill.num_gpus or 0), int(plan.decode.num_gpus or 0)
    k_p, k_d = n_pre / n_p, n_dec / n_d
    g, t_p = _prefill_work(m, hw_p, cfg_p, isl, 0.0, f_p)
    kv = _handover_bytes(m, isl, cfg_d.kv_precision)
    link = min(n_p * _scaleout_bytes_per_s(hw_p, "prefill"), n_d * _scaleout_bytes_per_s(hw_d, "decode"))
    t_kv = kv / (link * plan.kv_transfer_eff_frac)
    b_cap = float(max_concurrency(m, hw_d, isl_tokens=isl, osl_tokens=osl, config=cfg_d, factors=f_d))
    if max_batch_per_replica is not None:
        b_cap = min(b_cap, float(max_batch_per_replica))
    if b_cap < 1:
        raise ValueError(f"one {cfg_d.label} decode replica of {hw_d.hardware_id} holds no {isl:g}+{osl:g} sequence")
    grid = np.unique(np.concatenate([np.geomspace(1.0, b_cap, 256), [b_cap]]))
    dec = _points(_resolve(m, hw_d, cfg_d, f_d), grid, isl, osl, False)
    r_rep = np.maximum.accumulate(np.asarray(dec["requests_per_s"], dtype=float))
    tpot_grid = np.asarray(dec["tpot_s"], dtype=float)
    s = g / n_p
    r_prefill = k_p / s
    r_decode = k_d * r_rep[-1]
    r_top = min(r_prefill * (1.0 - 1e-9), r_decode)

    def state(rate: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        b = np.interp(rate / k_d, r_rep, grid)
        load = rate * s
        servers = np.full_like(rate, k_p)
        wait = 0.5 * _erlang_c(servers, load) * s / np.maximum(k_p - load, 1e-12)
        ttft = wait + t_p + t_kv + plan.kv_handover_latency_s
        return b, wait, ttft, rate * ttft + k_d * b

    # Little's law is increasing in R: bisect each concurrency
    lo = np.zeros_like(conc)
    hi = np.full_like(conc, r_top)
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        inflight = state(mid)[3]
        lo = np.where(inflight < conc, mid, lo)
        hi = np.where(inflight < conc, hi, mid)
    rate = 0.5 * (lo + hi)
    b, wait, ttft, inflight = state(rate)
    slots = conc > inflight * (1.0 + 1e-6)  # decode full: the surplus waits for a slot
    ttft = np.where(slots, ttft + (conc - inflight) / rate, ttft)
    tpot = np.interp(b, grid, tpot_grid)
    n_all = float(n_pre + n_dec)
    util = rate * g / n_pre
    bound = np.where(slots, "decode slots", np.where(util > 0.9, "prefill", "decode"))
    return pd.DataFrame({
        "concurrency": conc,
        "requests_per_s": rate,
        "decode_batch_per_replica": b,
        "tpot_s": tpot,
        "interactivity_tok_per_s_per_user": 1.0 / tpot,
        "ttft_s": ttft,
        "prefill_queue_s": wait,
        "prefill_utilization_frac": util,
        "num_prefill_gpus": float(n_pre),
        "num_decode_gpus": float(n_dec),
        "num_gpus": n_all,
        "throughput_tok_per_s_per_gpu": (isl + osl) * rate / n_all,
        "bound": bound,
        "prefill_hardware_id": hw_p.hardware_id,
        "decode_hardware_id": hw_d.hardware_id,
    }).pipe(_with_identity, m, isl, osl)


def prefill_configs(model: Model | str, hardware: Hardware | str, *, isl_tokens: float = 8192.0,
                    **fields: Any) -> list[ServingConfig]:
    """Return the prefill-replica configurations that hold the model and one prompt.

    Searches :data:`PREFILL_PARALLELISM` (``ep = tp`` for MoE models) at the given precisions.

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    hardware : Hardware or str
        Catalog hardware (or its name).
    isl_tokens : float
        Prompt length the replica must hold [tokens].
    **fields
        Other :class:`ServingConfig` fields (precisions).

    Returns
    -------
    list of ServingConfig
        Possibly empty.

    Examples
    --------
    >>> [c.label for c in prefill_configs("deepseek-r1", "rubin-cpx", weight_precision="fp4",
    ...                                   dense_weight_precision="fp8", kv_precision="fp8")][:2]
    ['tp4-ep4-disagg', 'tp8-ep8-disagg']
    """
    m, hw = _as_model(model), _as_hardware(hardware)
    out = []
    for tp, pp in PREFILL_PARALLELISM:
        cfg = ServingConfig(tp=tp, pp=pp, ep=tp if m.is_moe else 1, disaggregated=True, **fields)
        try:
            if max_concurrency(m, hw, isl_tokens=isl_tokens, osl_tokens=1.0, config=cfg) >= 1:
                out.append(cfg)
        except ValueError:
            continue
    return out


def best_prefill_config(
    model: Model | str,
    hardware: Hardware | str,
    *,
    isl_tokens: float,
    cached_tokens: float = 0.0,
    factors: RooflineFactors | None = None,
    configs: Iterable[ServingConfig] | None = None,
) -> ServingConfig:
    """Return the prefill replica that spends the fewest accelerator-seconds per request.

    Ties (within 2 %) go to the lower single-prefill latency.

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    hardware : Hardware or str
        Prefill hardware (or its name).
    isl_tokens, cached_tokens : float
        Prompt and cached-prefix lengths [tokens].
    factors : RooflineFactors, optional
        Efficiencies (default: the bundled calibration's for the hardware).
    configs : iterable of ServingConfig, optional
        Candidates (default: :func:`prefill_configs` at best-practice precisions).

    Returns
    -------
    ServingConfig
        The chosen configuration.

    Raises
    ------
    ValueError
        If no candidate holds the model and one prompt.

    Examples
    --------
    >>> best_prefill_config("deepseek-r1", "rubin-cpx", isl_tokens=8192.0).num_gpus >= 4
    True
    """
    m, hw = _as_model(model), _as_hardware(hardware)
    return _best_prefill(m, hw, float(isl_tokens), float(cached_tokens), _pool_factors(hw, factors), configs)[0]


def _best_prefill(m: Model, hw: Hardware, isl_tokens: float, cached_tokens: float, f: RooflineFactors,
                  configs: Iterable[ServingConfig] | None) -> tuple[ServingConfig, float, float]:
    """:func:`best_prefill_config` with its :func:`_prefill_work` (all candidates timed at once)."""
    cands = list(configs) if configs is not None else prefill_configs(
        m, hw, isl_tokens=isl_tokens, **best_practice_precisions(m, hw))
    # _prefill_work of each candidate: those that hold one prompt, their single-request points
    # stacked (element-wise, so each equals its own evaluation)
    held = []
    for cfg in cands:
        c = cfg if cfg.disaggregated else cfg.model_copy(update={"disaggregated": True})
        try:
            _check_lengths(isl_tokens, 1.0)
            s = _resolve(m, hw, c, f)
            if _capacity(s, isl_tokens, 1.0) < 1:
                continue
        except ValueError:
            continue
        held.append((cfg, s))
    scored = []
    if held:
        try:
            cached = _check_cached(cached_tokens, isl_tokens, (1,))
        except ValueError:
            held = []
        else:
            ones = np.ones(1)
            pts = _times(_work_many([s for _, s in held], [ones] * len(held), isl_tokens, 1.0, cached), f,
                         hw.hbm_bandwidth_bytes_per_s)
            g_all = pts["num_prefill_gpus"] / pts["requests_per_s"]
            scored = [(float(g_all[i]), float(pts["ttft_s"][i]), cfg) for i, (cfg, _) in enumerate(held)]
    if not scored:
        raise ValueError(
            f"no prefill configuration of {m.model_id} on {hw.hardware_id} holds the weights and "
            f"one {isl_tokens:g}-token prompt (hbm_capacity_gb={hw.hbm_capacity_gb:g}; searched "
            f"tp x pp up to {max(a * b for a, b in PREFILL_PARALLELISM)})"
        )
    g_min = min(x[0] for x in scored)
    near = [x for x in scored if x[0] <= 1.02 * g_min]
    g, t, cfg = min(near, key=lambda x: x[1])
    return cfg, g, t


def decode_configs(model: Model | str, hardware: Hardware | str, *, speculative: bool = True,
                   **fields: Any) -> list[ServingConfig]:
    """Return the decode-replica configurations searched for a disaggregated frontier.

    The parallelism search of :func:`~tokenomics.perf.frontier_configs` for disaggregated decode
    (wide expert parallelism across the scale-out network up to 64 accelerators), each without
    and, where the model has published acceptance rates
    (:func:`~tokenomics.perf.speculative.speculative_settings`), with speculative decoding.

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    hardware : Hardware or str
        Decode hardware (or its name).
    speculative : bool
        Add the published speculative-decoding settings (default True).
    **fields
        Other :class:`ServingConfig` fields (precisions).

    Returns
    -------
    list of ServingConfig
        Possibly empty.

    Examples
    --------
    >>> cfgs = decode_configs("deepseek-r1", "gb200", weight_precision="fp4",
    ...                       dense_weight_precision="fp8", kv_precision="fp8")
    >>> sorted({c.mtp_draft_tokens for c in cfgs})
    [0, 1, 3]
    """
    m, hw = _as_model(model), _as_hardware(hardware)
    try:
        key: Any = (id(m), id(hw), speculative, tuple(sorted(fields.items())))
        hit = _DECODE_SEARCHED.get(key)
    except TypeError:  # unhashable fields: search without the cache
        key, hit = None, None
    if hit is not None and hit[0] is m and hit[1] is hw:
        return list(hit[2])
    base = frontier_configs(m, hw, disaggregated=True, **fields)
    out = list(base)
    if speculative:
        for s in speculative_settings(m):
            out += [c.model_copy(update=s.fields()) for c in base]
    if key is not None:
        if len(_DECODE_SEARCHED) >= 1024:
            _DECODE_SEARCHED.clear()
        _DECODE_SEARCHED[key] = (m, hw, tuple(out))
    return out


_DECODE_SEARCHED: dict[Any, tuple[Model, Hardware, tuple[ServingConfig, ...]]] = {}
"""Decode searches by (model identity, hardware identity, speculative, fields): catalog entries
are frozen, and the entries are kept so that their identities are not reused while cached."""


def project_disagg_curve(
    model: Model | str,
    prefill_hardware: Hardware | str,
    decode_hardware: Hardware | str,
    *,
    isl_tokens: float | None = None,
    osl_tokens: float | None = None,
    cached_tokens: float = 0.0,
    theoretical_hit_frac: float | None = None,
    concurrency: Sequence[float] | np.ndarray | None = None,
    prefill_config: ServingConfig | None = None,
    decode_configs_: Iterable[ServingConfig] | None = None,
    num_decode_gpus: int | None = None,
    prefill_max_utilization_frac: float = DEFAULT_PREFILL_MAX_UTILIZATION_FRAC,
    kv_transfer_eff_frac: float = DEFAULT_KV_TRANSFER_EFF_FRAC,
    kv_handover_latency_s: float = DEFAULT_KV_HANDOVER_LATENCY_S,
    tco_usd_per_gpu_hour: float | dict[str, float] | None = None,
    factors: RooflineFactors | None = None,
    speculative: bool = True,
    frontier: bool = False,
    with_cost: bool = True,
    workload: Workload | str | None = None,
) -> pd.DataFrame:
    """Project a disaggregated throughput-vs-interactivity curve in the curve schema.

    For every decode configuration (:func:`decode_configs` at best-practice precisions unless
    given) the decode concurrency is swept (:data:`~tokenomics.perf.DEFAULT_CONCURRENCY` up to
    the replica's memory capacity and the decode NICs' KV limit) and the prefill pool
    (:func:`best_prefill_config` unless given) is sized by rate matching at each point
    (:func:`plan_points`). ``kind="projected"``, ``disaggregated=True``; ``hardware_id`` is the
    decode hardware, or ``"<prefill>+<decode>"`` when they differ; the ``config`` column names
    both pools, their GPU counts and the speculative setting.

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    prefill_hardware, decode_hardware : Hardware or str
        Hardware of each pool (may be the same).
    isl_tokens, osl_tokens : float, optional
        Tokens per request: input (cached prefix included) and output [tokens]; default the
        workload's.
    cached_tokens : float
        Cached prefix per request [tokens].
    theoretical_hit_frac : float, optional
        Instead of ``cached_tokens``: solve the realized hit rate per point from the prefill
        pool's KV capacity (see :func:`plan_points`); default a session workload's
        ``cached_prefix_frac``.
    concurrency : sequence of float, optional
        Decode concurrencies per replica [count], > 0, at least one (default: the grid above).
    prefill_config : ServingConfig, optional
        Prefill replica (default: :func:`best_prefill_config`).
    decode_configs_ : iterable of ServingConfig, optional
        Decode replicas (default: :func:`decode_configs`).
    num_decode_gpus : int, optional
        Decode pool size (default: one system of the decode hardware in whole replicas).
    prefill_max_utilization_frac, kv_transfer_eff_frac, kv_handover_latency_s : float
        See :class:`ServingPlan`.
    tco_usd_per_gpu_hour : float, dict or None
        Pool TCOs (see :func:`plan_points`).
    factors : RooflineFactors, optional
        Efficiencies of both pools (default: the bundled calibration's for each hardware).
    speculative : bool
        Search published speculative-decoding settings (default True).
    frontier : bool
        Return only the Pareto-optimal points (throughput per GPU vs interactivity).
    with_cost : bool
        Add the pools' TCO columns (default True; False leaves them out, for hardware without
        TCO inputs).
    workload : Workload or str, optional
        The traffic, by preset name or object, giving ISL/OSL and the rows' ``workload``
        (default :data:`tokenomics.workload.DEFAULT_WORKLOAD` where no ISL/OSL is given). Not
        with ``isl_tokens``/``osl_tokens``.

    Returns
    -------
    pandas.DataFrame
        Curve-schema columns plus ``parallelism``, ``config`` and :data:`DISAGG_COLUMNS` (less
        the three cost columns without ``with_cost``).

    Raises
    ------
    ValueError
        If no configuration serves the workload (messages name the limiting field).

    Examples
    --------
    >>> c = project_disagg_curve("deepseek-r1", "rubin-cpx", "vr200", isl_tokens=8192.0,
    ...                          speculative=False)
    >>> set(c["hardware_id"]), bool((c["num_gpus"] == c["num_prefill_gpus"] + c["num_decode_gpus"]).all())
    ({'rubin-cpx+vr200-nvl144'}, True)
    """
    rows = _disagg_rows(
        model, prefill_hardware, decode_hardware, isl_tokens=isl_tokens, osl_tokens=osl_tokens,
        cached_tokens=cached_tokens, theoretical_hit_frac=theoretical_hit_frac, concurrency=concurrency,
        prefill_config=prefill_config, decode_configs_=decode_configs_, num_decode_gpus=num_decode_gpus,
        prefill_max_utilization_frac=prefill_max_utilization_frac, kv_transfer_eff_frac=kv_transfer_eff_frac,
        kv_handover_latency_s=kv_handover_latency_s,
        tco_usd_per_gpu_hour=tco_usd_per_gpu_hour, factors=factors, speculative=speculative, with_cost=with_cost,
        workload=workload,
    )
    out = curve_frame([rows])
    if frontier:
        out = pareto_frontier(out, by=None).reset_index(drop=True)
    return out


def _disagg_rows(
    model: Model | str,
    prefill_hardware: Hardware | str,
    decode_hardware: Hardware | str,
    *,
    isl_tokens: float | None,
    osl_tokens: float | None,
    cached_tokens: float,
    theoretical_hit_frac: float | None,
    concurrency: Sequence[float] | np.ndarray | None,
    prefill_config: ServingConfig | None,
    decode_configs_: Iterable[ServingConfig] | None,
    num_decode_gpus: int | None,
    prefill_max_utilization_frac: float,
    kv_transfer_eff_frac: float,
    tco_usd_per_gpu_hour: float | dict[str, float] | None,
    factors: RooflineFactors | None,
    kv_handover_latency_s: float = DEFAULT_KV_HANDOVER_LATENCY_S,
    speculative: bool,
    with_cost: bool,
    workload: Workload | str | None,
) -> dict[str, np.ndarray]:
    """Return the rows of :func:`project_disagg_curve` as curve columns (before the frontier).

    The decode configurations' sweeps are built one by one and timed together (the step
    formulas and :func:`_plan_core` are element-wise, so each point equals :func:`plan_points`
    of its plan); their checks then run in order, as one plan at a time would.
    """
    m = _as_model(model)
    hw_p, hw_d = _as_hardware(prefill_hardware), _as_hardware(decode_hardware)
    if workload is not None and (isl_tokens is not None or osl_tokens is not None):
        raise ValueError("give workload= or isl_tokens/osl_tokens, not both: the workload sets ISL/OSL")
    explicit = (None if concurrency is None
                else _concurrency_values(concurrency, "concurrent sequences per decode replica"))
    wl = workload_preset(workload if workload is not None else DEFAULT_WORKLOAD)
    isl = float(wl.isl_tokens if isl_tokens is None else isl_tokens)
    osl = float(wl.osl_tokens if osl_tokens is None else osl_tokens)
    wl_label = wl.name if workload is not None else isl_osl_label(isl, osl)
    if workload is not None and not wl.is_fixed and cached_tokens == 0.0 and theoretical_hit_frac is None:
        theoretical_hit_frac = wl.cached_prefix_frac
    f_p, f_d = _pool_factors(hw_p, factors), _pool_factors(hw_d, factors)
    work: tuple[float, float] | None = None
    if prefill_config:
        cfg_p = prefill_config
    else:
        cfg_p, g_p, t_p = _best_prefill(m, hw_p, isl, float(cached_tokens), f_p, None)
        work = (g_p, t_p)
    cfgs_d = list(decode_configs_) if decode_configs_ is not None else decode_configs(
        m, hw_d, speculative=speculative, **best_practice_precisions(m, hw_d))
    if not cfgs_d:
        raise ValueError(
            f"no decode configuration of {m.model_id} on {hw_d.hardware_id} to search (decode_configs_ "
            "is empty, or no parallelism up to 64 holds the weights)"
        )
    cfg_p = cfg_p.model_copy(update={"disaggregated": True})
    _scaleout_bytes_per_s(hw_p, "prefill")
    _scaleout_bytes_per_s(hw_d, "decode")
    check_range("cached_tokens", float(cached_tokens), low=0.0, high=isl, high_inclusive=False)
    prefill = _Prefill.build(m, hw_p, cfg_p, isl, float(cached_tokens), theoretical_hit_frac, f_p, work)
    costs = ((_tco_usd_per_gpu_hour(hw_p, tco_usd_per_gpu_hour), _tco_usd_per_gpu_hour(hw_d, tco_usd_per_gpu_hour))
             if with_cost else (1.0, 1.0))
    eff, u_max = kv_transfer_eff_frac, prefill_max_utilization_frac
    try:
        _check_lengths(isl, osl)
        length_error = None
    except ValueError as exc:
        length_error = str(exc)
    # per configuration, in order: an exception to raise, an error to list, or a sweep to time
    entries: list[Any] = []
    setups = []
    kv_by_precision: dict[str, float] = {}
    # the plans differ in their decode pool only: the prefill pool and the plan's own fields are
    # validated once, each decode pool on its own
    prefill_pool: Pool | None = None
    template: ServingPlan | None = None
    for cfg in cfgs_d:
        try:
            if prefill_pool is None:
                prefill_pool = Pool(hardware=hw_p, config=cfg_p)
            decode_pool = Pool(hardware=hw_d, config=cfg, num_gpus=num_decode_gpus)
            if template is None:
                template = ServingPlan(
                    prefill=prefill_pool,
                    decode=decode_pool,
                    prefill_max_utilization_frac=prefill_max_utilization_frac,
                    kv_transfer_eff_frac=kv_transfer_eff_frac,
                    kv_handover_latency_s=kv_handover_latency_s,
                )
            plan = template.model_copy(update={"decode": decode_pool})
        except Exception as exc:  # raised where one plan at a time would raise it
            entries.append(("raise", exc))
            continue
        cfg_d = plan.decode.config
        try:
            if length_error is not None:
                raise ValueError(length_error)
            s = _resolve(m, hw_d, cfg_d, f_d)
            b_max = _capacity(s, isl, osl)
        except ValueError as exc:
            entries.append(("error", str(exc)))
            continue
        except Exception as exc:
            entries.append(("raise", exc))
            continue
        if b_max < 1:
            entries.append(("error", f"{cfg.label}: max_concurrency=0"))
            continue
        if explicit is None:
            grid = np.asarray([c for c in DEFAULT_CONCURRENCY if c < b_max] + [b_max], dtype=float)
        else:
            grid = explicit
        if cfg_d.kv_precision not in kv_by_precision:
            kv_by_precision[cfg_d.kv_precision] = _handover_bytes(m, isl, cfg_d.kv_precision)
        n_dec = plan.decode.num_gpus or _default_decode_gpus(hw_d, cfg_d)
        entries.append(("ok", cfg, cfg_d, s, b_max, grid, n_dec, kv_by_precision[cfg_d.kv_precision],
                        plan.kv_handover_latency_s))
        setups.append(s)
    ok = [e for e in entries if e[0] == "ok"]
    v: dict[str, np.ndarray] = {}
    batch = n_d_all = n_dec_all = np.zeros(0)
    if ok:
        sizes = [len(e[5]) for e in ok]
        comp = _times(_work_many(setups, [e[5] for e in ok], isl, osl), f_d, hw_d.hbm_bandwidth_bytes_per_s)

        def per_point(values: list[float]) -> np.ndarray:
            return np.repeat(np.asarray(values, dtype=float), sizes)

        batch = np.concatenate([e[5] for e in ok])
        n_d_all = per_point([float(e[2].num_gpus) for e in ok])
        n_dec_all = per_point([float(e[6]) for e in ok])
        kv_all = per_point([e[7] for e in ok])
        v = _plan_core(hw_p, hw_d, cfg_p.num_gpus, None, eff, u_max, prefill, isl, osl, batch,
                       comp["requests_per_s"], comp["tpot_s"], n_d_all, n_dec_all, kv_all,
                       per_point([e[8] for e in ok]), costs)
    keep: list[np.ndarray] = []
    chosen: list[tuple[ServingConfig, ServingConfig, int, int, int]] = []
    errors: list[str] = []
    start = 0
    for entry in entries:
        if entry[0] == "raise":
            raise entry[1]
        if entry[0] == "error":
            errors.append(entry[1])
            continue
        _, cfg, cfg_d, s, b_max, grid, n_dec, kv, _ = entry
        idx = np.arange(start, start + len(grid))
        start += len(grid)
        if np.any(grid > b_max):
            _points(s, grid, isl, osl)  # raises, naming the capacity (explicit concurrencies only)
        over = v["load_d"][idx] > 1.0
        if np.any(over):
            message = _nic_message(grid, v["rate"][idx], v["load_d"][idx], kv, n_dec, hw_d, eff)
            if concurrency is not None:
                raise ValueError(message)
            # the decode NICs limit the rate: keep the concurrencies they can feed
            idx = idx[:int(np.argmax(over))]
            if not len(idx):
                errors.append(message)
                continue
        keep.append(idx)
        chosen.append((cfg, cfg_d, b_max, n_dec, len(idx)))
    if not chosen:
        raise ValueError(
            f"no disaggregated plan of {m.model_id} with prefill on {hw_p.hardware_id} and decode on "
            f"{hw_d.hardware_id} serves ISL/OSL {isl:g}/{osl:g}: " + "; ".join(errors[:3])
        )
    sel = np.concatenate(keep)
    sizes = [n for *_, n in chosen]
    n_dec_sel = n_dec_all[sel]
    b_maxes = [float(b) for _, _, b, _, _ in chosen]
    # (max_concurrency is a per-configuration column of its own below)
    cols = _plan_columns({k: x[sel] for k, x in v.items()}, batch[sel], isl, osl, n_dec_sel, None, prefill,
                         hw_p.hardware_id, hw_d.hardware_id, cfg_p.label, [c.label for _, c, *_ in chosen],
                         float(cfg_p.num_gpus), [float(c.num_gpus) for _, c, *_ in chosen],
                         [kv_by_precision[c.kv_precision] for _, c, *_ in chosen], costs)
    labels = []
    for cfg, cfg_d, _, n_dec, _ in chosen:
        labels.append(
            f"prefill {hw_p.hardware_id} {config_label(cfg_p, m)} + decode {int(n_dec)} x "
            f"{hw_d.hardware_id} {config_label(cfg_d, m)}"
            + (f", MTP {cfg.mtp_draft_tokens} draft @ {cfg.mtp_acceptance_frac:g} acceptance"
               if cfg.mtp_draft_tokens else ""))
    hw_label = hw_d.hardware_id if hw_p.hardware_id == hw_d.hardware_id else f"{hw_p.hardware_id}+{hw_d.hardware_id}"
    return stacked_curve_rows(
        m, [c for _, c, *_ in chosen], sizes, cols, hardware_id=hw_label, hardware_name=hw_label,
        workload=wl_label, isl_tokens=isl, osl_tokens=osl,
        note=[f"disaggregated roofline projection, {label}" for label in labels], label=labels,
        source="tokenomics.perf.disagg", concurrency=batch[sel] * n_dec_sel / n_d_all[sel],
        cache_hit_frac=cols["cache_hit_frac"],
        theoretical_cache_hit_frac=cols["theoretical_cache_hit_frac"],
        max_concurrency=b_maxes,
        capacity_limited=batch[sel] == np.repeat(np.asarray(b_maxes), sizes),
        **{c: cols[c] for c in DISAGG_COLUMNS if with_cost or "cost" not in c},
    )


def plan_cost_per_mtok(points: pd.DataFrame, utilization_frac: Any = 1.0) -> pd.Series:
    """Return the cost per million tokens (input + output) of each plan point.

    ``cost_usd_per_mtok = cost_usd_per_gpu_hour / (throughput_tok_per_s_per_gpu x 3600 x u) x 1e6``
    with the pool-weighted TCO ``(N_p c_p + N_d c_d) / (N_p + N_d)`` and the throughput per
    accelerator of both pools, which equals ``(N_p c_p + N_d c_d) / tokens per hour``.

    Parameters
    ----------
    points : pandas.DataFrame
        Rows of :func:`plan_points` or :func:`project_disagg_curve`.
    utilization_frac : float or Series
        Busy fraction of paid hours, in (0, 1].

    Returns
    -------
    pandas.Series
        Cost [USD/Mtok], named ``cost_usd_per_mtok``.

    Raises
    ------
    KeyError
        If the frame lacks ``cost_usd_per_gpu_hour`` or the throughput column.

    Examples
    --------
    >>> pts = pd.DataFrame({"cost_usd_per_gpu_hour": [3.6], "throughput_tok_per_s_per_gpu": [1000.0]})
    >>> round(float(plan_cost_per_mtok(pts).iloc[0]), 4)
    1.0
    """
    check_fraction("utilization_frac", utilization_frac, low_inclusive=False)
    for col in ("cost_usd_per_gpu_hour", "throughput_tok_per_s_per_gpu"):
        if col not in points:
            raise KeyError(f"points lack the column {col!r} (rows of plan_points or project_disagg_curve)")
    out = cost_per_mtok(points["cost_usd_per_gpu_hour"].astype(float),
                        points["throughput_tok_per_s_per_gpu"].astype(float), utilization_frac)
    return pd.Series(np.asarray(out, dtype=float), index=points.index, name="cost_usd_per_mtok")


def vera_rubin_nvl144_cpx(model: Model | str, *, isl_tokens: float = 8192.0,
                          decode_config: ServingConfig | None = None) -> ServingPlan:
    """Return the Vera Rubin NVL144 CPX rack as a plan: 144 Rubin CPX prefill + 72 Rubin decode.

    The rack holds 144 Rubin CPX, 72 Rubin packages (144 dies) and 36 Vera CPUs
    (NVIDIA, 2025-09-09); its prefill:decode ratio is fixed at 2:1. The prefill replica is
    :func:`best_prefill_config` on Rubin CPX (the rack's 144 CPX are rounded down to whole
    replicas); the decode replica defaults to TP 8 / EP 8 with DP-attention on VR200 at
    best-practice precisions (9 replicas), or ``decode_config``.

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    isl_tokens : float
        Prompt length the prefill replica must hold [tokens].
    decode_config : ServingConfig, optional
        Decode replica (its ``tp x pp`` must divide into 72).

    Returns
    -------
    ServingPlan
        Fixed pools; :func:`plan_points` raises where the rack's ratio cannot match the rates.

    Examples
    --------
    >>> plan = vera_rubin_nvl144_cpx("deepseek-r1")
    >>> plan.prefill.num_gpus <= 144, plan.decode.hardware
    (True, 'vr200-nvl144')
    """
    m = _as_model(model)
    cfg_p = best_prefill_config(m, "rubin-cpx", isl_tokens=isl_tokens)
    cfg_d = decode_config or ServingConfig(tp=8, ep=8, dp_attention=True,
                                           **best_practice_precisions(m, "vr200-nvl144"))
    n_d = cfg_d.num_gpus * (72 // cfg_d.num_gpus)
    if n_d == 0:
        raise ValueError(f"decode_config {cfg_d.label} needs more than the rack's 72 Rubin packages")
    return ServingPlan(
        prefill=Pool(hardware="rubin-cpx", config=cfg_p, num_gpus=cfg_p.num_gpus * (144 // cfg_p.num_gpus)),
        decode=Pool(hardware="vr200-nvl144", config=cfg_d, num_gpus=n_d),
    )


def cheapest_at(
    points: pd.DataFrame,
    interactivity_tok_per_s_per_user: Sequence[float] | np.ndarray,
    *,
    utilization_frac: float = 1.0,
    tco_usd_per_gpu_hour: float | dict[str, float] | None = None,
) -> pd.DataFrame:
    """Return the cheapest point per million tokens that serves each interactivity or faster.

    Rows of aggregated and disaggregated projections may be mixed: a row without
    ``cost_usd_per_gpu_hour`` (an aggregated row) is priced at its hardware's TCO; a
    disaggregated row keeps its pool-weighted TCO. ``cost_usd_per_mtok`` is
    :func:`plan_cost_per_mtok` (input + output tokens).

    Parameters
    ----------
    points : pandas.DataFrame
        Projected points (:func:`~tokenomics.perf.project_curve`, :func:`project_disagg_curve`).
    interactivity_tok_per_s_per_user : sequence of float
        Targets [tok/s/user], > 0.
    utilization_frac : float
        Busy fraction of paid hours, in (0, 1].
    tco_usd_per_gpu_hour : float, dict or None
        TCO of rows without a cost column (see :func:`plan_points`); default
        :func:`tokenomics.tco` of each hardware.

    Returns
    -------
    pandas.DataFrame
        One row per target: ``target_tok_per_s_per_user`` and the chosen point's columns plus
        ``cost_usd_per_mtok``; all-NaN where no point is fast enough.

    Raises
    ------
    ValueError
        No targets, no points, non-positive targets or utilization outside (0, 1].

    Examples
    --------
    >>> pts = pd.DataFrame({"hardware_id": ["h200-sxm"] * 2, "interactivity_tok_per_s_per_user": [20.0, 80.0],
    ...                     "throughput_tok_per_s_per_gpu": [3000.0, 500.0], "cost_usd_per_gpu_hour": [2.0, 2.0]})
    >>> cheapest_at(pts, [10.0, 50.0])["throughput_tok_per_s_per_gpu"].tolist()
    [3000.0, 500.0]
    """
    targets = np.atleast_1d(np.asarray(interactivity_tok_per_s_per_user, dtype=float))
    if targets.size == 0:
        raise ValueError("interactivity_tok_per_s_per_user is empty: give at least one target > 0 [tok/s/user]")
    check_positive("interactivity_tok_per_s_per_user", targets)
    if points.empty:
        raise ValueError("points is empty: give projected points (project_curve, project_disagg_curve)")
    pts = points.copy()
    if "cost_usd_per_gpu_hour" not in pts:
        pts["cost_usd_per_gpu_hour"] = np.nan
    missing = pts["cost_usd_per_gpu_hour"].isna()
    if missing.any():
        prices = {h: _tco_usd_per_gpu_hour(_as_hardware(h), tco_usd_per_gpu_hour)
                  for h in pts.loc[missing, "hardware_id"].unique()}
        pts.loc[missing, "cost_usd_per_gpu_hour"] = pts.loc[missing, "hardware_id"].map(prices)
    pts["cost_usd_per_mtok"] = plan_cost_per_mtok(pts, utilization_frac)
    speed = pts["interactivity_tok_per_s_per_user"].astype(float).to_numpy()
    rows = []
    for x in targets:
        ok = pts[speed >= x]
        if ok.empty:
            rows.append(pd.Series(dtype=object))
        else:
            rows.append(ok.loc[ok["cost_usd_per_mtok"].astype(float).idxmin()])
    out = pd.DataFrame(rows).reset_index(drop=True)
    out.insert(0, "target_tok_per_s_per_user", targets)
    return out
