"""Roofline physics of one decode step, one prefill and the memory capacity of a replica.

A *replica* is the group of ``tp x pp`` accelerators that holds one copy of the model. Within it:

* **decode step** (one token round for every running sequence)::

      t_stage = max(t_compute, t_memory) + t_comm
      t_step  = pp x t_stage + t_overhead + layer units x t_layer + t_draft

  with ``layer units`` the layers weighted by their kernel count per decode step relative to a
  dense GQA layer (:func:`layer_kernel_units`: MLA attention and MoE blocks launch more kernels).

  ``t_memory = t_weights + t_KV``: ``t_weights = weight bytes read / (HBM bandwidth x
  eff_hbm)``, ``t_KV = KV bytes read / (f_kv x eff_kv x HBM bandwidth x eff_hbm)``; weight
  bytes are the attention and other always-read weights plus, for MoE layers, the *distinct*
  experts the batch touches; ``eff_kv`` (``kv_read_eff_frac``, fitted) is the large-batch rate
  of decode attention's paged KV reads relative to weight streaming and ``f_kv`` the measured
  fraction of that rate reached at the step's sequences per GPU and context
  (:func:`~tokenomics.perf.operators.kv_read_frac`; 1 with ``kv_read_tables=False``);
  ``t_compute = (2 x active params + attention FLOP(context)) x tokens / (peak FLOP/s x
  eff_compute)``; ``t_comm`` is the tensor-parallel all-reduce or the
  expert-parallel all-to-all over the scale-up domain (scale-out network once the group spans
  more accelerators than one scale-up domain holds).
* **speculative decoding / MTP** with ``n`` draft tokens of acceptance rate ``a``: each step
  verifies ``1 + n`` tokens per sequence and emits ``(1 - a^(n+1)) / (1 - a)`` of them on average
  (the standard expected accepted length with a per-token acceptance rate; ``n + 1`` when
  ``a = 1``). The draft itself is charged separately (:func:`_draft_work`): each of the ``n``
  draft passes runs the MTP module, one more transformer layer of the model (its attention,
  one layer's shared and routed experts for one token per sequence, its own KV cache) plus the
  ``2 h x h`` input projection and the shared LM head, sequentially after the verification
  pass (DeepSeek-V3 Technical Report, arXiv:2412.19437, section 2.2: each MTP module is one
  Transformer block, a projection matrix and the shared embedding and output head)::

      t_draft = pp x n x (max(draft FLOP / (peak x eff_compute), draft bytes / (bandwidth x
                eff_hbm)) + layer units / layers x t_layer)        (per pipeline micro-batch)
* **prefill** of one request of ``ISL`` tokens: ``FLOP = 2 x active params x ISL + attention
  FLOP (causal, quadratic in ISL)`` at ``eff_prefill`` of peak, at least one read of the weights.

Assumptions (stated once, here):

* MoE routing is uniform: with ``k`` of ``E`` experts per token and ``T`` tokens in the batch a
  layer touches ``E x (1 - (1 - k/E)^T)`` distinct experts on average; expert weights are spread
  evenly over the replica (by expert or tensor parallelism). Under expert parallelism the step
  waits for the busiest of the ``ep`` ranks: its distinct experts (weight bytes) and its routed
  tokens (expert FLOPs, all-to-all bytes) exceed the mean by the expected maximum of ``ep``
  binomial draws (normal approximation); skewed routing beyond that is ignored.
* The decode context of a sequence is ``ISL + OSL / 2`` (the average over its generation).
* Without DP-attention the MLA latent cache is replicated on every tensor-parallel rank (it has
  no heads to split); GQA caches split over ``min(tp, kv_heads)`` ranks. With DP-attention in
  groups of ``g = attention_tp`` ranks (``g = 1``: fully data-parallel) each group holds the
  cache of its own ``g / tp`` of the sequences (MLA replicated, GQA split over
  ``min(g, kv_heads)`` within the group) and one copy of the attention weights split over
  its ``g`` ranks.
* Communication: without DP-attention two all-reduces of the hidden state per layer
  (``2 (tp - 1) / tp x bytes / bandwidth``); with DP-attention one all-reduce per layer of the
  group's ``g / tp`` of the tokens within an attention group of ``g > 1``, and with ``ep > 1`` an
  all-to-all
  dispatch (FP8, 1 byte per value) and combine (BF16, 2 bytes) per MoE layer, of which the
  ``(ep - 1) / ep`` remote part crosses the links; plus one collective latency per collective.
* Linear layers run at the activation precision's peak; attention at FP8 when the KV cache is
  FP8 or narrower, else BF16.
* Aggregated serving runs prefill and decode on the same accelerators with chunked prefill:
  every decode step also carries the prompt tokens of the requests that step completes,
  ``B x tokens_per_step / OSL`` prompts of ``ISL`` tokens (``ISL / OSL`` prompt tokens per
  output token). Their FLOPs (at ``eff_prefill``) add to the step's compute and their
  activations to its link traffic, while the weights and KV cache are streamed once for the
  mixed batch::

      t_stage = max(t_GEMM + t_prefill_chunk, t_weights) + max(t_attention, t_KV)
                + t_comm + t_prefill_comm

  (decode attention bounded apart from the GEMMs: its KV reads do not hide under their FLOPs,
  nor its FLOPs under the weight reads; ``RooflineFactors(split_attention=False)`` gives the
  single roofline ``max(t_compute + t_prefill_chunk, t_memory)``, never slower).
  ``RooflineFactors(sequential_prefill=True)`` charges the chunk after the decode work instead,
  ``max(t_compute, t_memory) + t_prefill_chunk`` (prefill and decode as separate forward
  passes, SGLang's default schedule): the upper bound of the step time. Prefill work stretches
  TPOT (a user sees ``t_step / tokens_per_step``) and lowers requests/s ``= B x tokens_per_step
  / (OSL x t_step)``. TTFT is the prefill time of the request alone (queueing ignored).
* Disaggregated serving: decode steps carry no prefill; the prefill pool runs the same
  parallelism and batches prompts, so its weight reads are amortised: one request costs the
  pool ``prefill FLOP / (peak x eff_prefill) + t_comm``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from scipy.stats import norm

from tokenomics._validate import check_positive
from tokenomics.catalog import Hardware, Model
from tokenomics.memory.kv_cache import kv_cache_bytes_per_sequence, kv_sequence_bytes
from tokenomics.perf._arch import Arch, arch
from tokenomics.perf.factors import RooflineFactors, default_factors
from tokenomics.perf.operators import (
    GemmKernel,
    collective_link,
    gemm_kernel,
    gemm_time_s,
    kv_read_grid,
    table_precision,
)
from tokenomics.precision import bytes_per_element, canonical_precision
from tokenomics.units import BYTES_PER_GB, FLOPS_PER_TFLOPS

SCALEOUT_FALLBACK_GB_PER_S: float = 50.0
"""Scale-out bandwidth per accelerator, one way, when the catalog gives none [GB/s]: one
400 Gb/s NIC per GPU (NVIDIA ConnectX-7 in HGX H100/H200/B200 reference designs,
https://www.nvidia.com/en-us/networking/ethernet-adapters/, read 2026-09)."""

_HIDDEN_STATE_BYTES = 2.0
"""Bytes per hidden-state value in all-reduces and combines (BF16)."""
_DISPATCH_BYTES = 1.0
"""Bytes per hidden-state value in the expert-parallel dispatch (FP8, as in DeepEP)."""


class ServingConfig(BaseModel):
    """How a model is deployed on a replica: parallelism, precisions, speculative decoding.

    Attributes
    ----------
    tp : int
        Tensor-parallel size (also the data-parallel size of attention when ``dp_attention``).
    ep : int
        Expert-parallel size; must divide ``tp x pp``. ``1`` means experts are tensor-sharded.
    pp : int
        Pipeline-parallel stages.
    dp_attention : bool
        Data-parallel attention: each of the ``tp / attention_tp`` attention groups runs
        attention for its own sequences.
    attention_tp : int or None
        With ``dp_attention``: tensor-parallel size of attention within each group, a power of
        two dividing ``tp`` (``None``: 1, fully data-parallel attention). The attention weights
        are then split over the group and replicated ``tp / attention_tp`` times; the experts
        stay spread over all ``tp x pp`` ranks. Must be ``None`` without ``dp_attention``.
    weight_precision : str or None
        Precision of the routed-expert (for dense models: all) weights; ``None`` uses the
        model's native precision.
    dense_weight_precision : str or None
        Precision of attention, dense-FFN, shared-expert and LM-head weights; ``None`` uses
        ``weight_precision``.
    kv_precision : str
        KV-cache precision.
    activation_precision : str or None
        Precision of the matrix multiplies (``W4A16`` runs at BF16, ``W4A8`` at FP8); ``None``
        uses ``weight_precision``.
    mtp_draft_tokens : int
        Draft tokens per step of MTP / speculative decoding (0: off).
    mtp_acceptance_frac : float
        Per-token acceptance rate of the draft tokens, 0..1.
    disaggregated : bool
        Prefill on separate accelerators (sized to keep up); else prefill and decode share the
        replica.

    Examples
    --------
    >>> ServingConfig(tp=8, ep=8, dp_attention=True).label
    'tp8-ep8-dpa'
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    tp: int = Field(1, ge=1)
    ep: int = Field(1, ge=1)
    pp: int = Field(1, ge=1)
    dp_attention: bool = False
    attention_tp: int | None = Field(None, ge=1)
    weight_precision: str | None = None
    dense_weight_precision: str | None = None
    kv_precision: str = "bf16"
    activation_precision: str | None = None
    mtp_draft_tokens: int = Field(0, ge=0)
    mtp_acceptance_frac: float = Field(0.0, ge=0.0, le=1.0)
    disaggregated: bool = False

    @field_validator("weight_precision", "dense_weight_precision", "activation_precision")
    @classmethod
    def _optional_precision(cls, value: str | None) -> str | None:
        return None if value is None else canonical_precision(value)

    @field_validator("kv_precision")
    @classmethod
    def _precision(cls, value: str) -> str:
        return canonical_precision(value)

    @model_validator(mode="after")
    def _ep_divides(self) -> ServingConfig:
        if (self.tp * self.pp) % self.ep:
            raise ValueError(f"ep={self.ep} must divide tp x pp = {self.tp * self.pp}")
        return self

    @model_validator(mode="after")
    def _attention_group(self) -> ServingConfig:
        a = self.attention_tp
        if a is not None and not self.dp_attention:
            raise ValueError("attention_tp needs dp_attention=True (without it attention uses tp)")
        if a is not None and self.tp % a:
            raise ValueError(f"attention_tp={a} must divide tp={self.tp}")
        return self

    @property
    def attention_group(self) -> int:
        """Ranks sharing one attention instance: ``tp``, or ``attention_tp`` (1) under DP-attention."""
        if not self.dp_attention:
            return self.tp
        return self.attention_tp or 1

    @property
    def num_gpus(self) -> int:
        """Accelerators in one replica, ``tp x pp``."""
        return self.tp * self.pp

    @property
    def tokens_per_step(self) -> float:
        """Expected tokens emitted per sequence per decode step, ``(1 - a^(n+1)) / (1 - a)``."""
        n, a = self.mtp_draft_tokens, self.mtp_acceptance_frac
        if n == 0:
            return 1.0
        if a >= 1.0:
            return float(n + 1)
        return float((1.0 - a ** (n + 1)) / (1.0 - a))

    @property
    def label(self) -> str:
        """Short label, e.g. ``'tp8-ep8-dpa'`` or ``'tp4-pp2-mtp3'``."""
        parts = [f"tp{self.tp}", f"ep{self.ep}"] if self.ep > 1 else [f"tp{self.tp}"]
        if self.pp > 1:
            parts.append(f"pp{self.pp}")
        if self.dp_attention:
            parts.append("dpa")
            if self.attention_group > 1:
                parts.append(f"atp{self.attention_group}")
        if self.mtp_draft_tokens:
            parts.append(f"mtp{self.mtp_draft_tokens}")
        if self.disaggregated:
            parts.append("disagg")
        return "-".join(parts)


@dataclass(frozen=True)
class _Setup:
    """Everything the step formulas need, resolved once."""

    a: Arch
    model: Model
    hw: Hardware
    cfg: ServingConfig
    f: RooflineFactors
    w_bytes: float
    d_bytes: float
    kv_precision: str
    peak_linear: float
    peak_attn: float
    hbm_bw: float
    dense_kernel: GemmKernel
    moe_kernel: GemmKernel
    kv_read: Any
    """``f(kv_streams, context)``: achieved fraction of the large-batch KV-read rate of decode
    attention (:func:`~tokenomics.perf.operators.kv_read_frac`)."""
    attn_eff: float
    """Achieved fraction of ``peak_attn`` in attention: the large-``M`` dense GEMM fraction of
    the attention precision (FlashAttention/FlashMLA-class kernels run their matrix multiplies at
    GEMM-like rates)."""

    @functools.cached_property
    def c(self) -> _Coefs:
        """The configuration-dependent scalars of the step formulas (:func:`_coefs`)."""
        return _coefs(self)


_SETUPS: dict[tuple[int, int, ServingConfig | None, RooflineFactors | None], tuple[Model, Hardware, _Setup]] = {}
"""Resolved setups by (model identity, hardware identity, config, factors); catalog entries are
frozen, so an entry's identity fixes its values (the entries themselves are kept, so identities
are not reused while cached)."""
_SETUPS_MAX = 4096


def _resolve(
    model: Model | str, hardware: Hardware | str, config: ServingConfig | None, factors: RooflineFactors | None
) -> _Setup:
    from tokenomics.catalog import hardware as hw_lookup
    from tokenomics.catalog import model as model_lookup

    m = model_lookup(model) if isinstance(model, str) else model
    hw = hw_lookup(hardware) if isinstance(hardware, str) else hardware
    try:
        key = (id(m), id(hw), config, factors)
        hit = _SETUPS.get(key)
    except TypeError:  # unhashable factors: resolve without the cache
        return _setup(m, hw, config, factors)
    if hit is not None and hit[0] is m and hit[1] is hw:
        return hit[2]
    s = _setup(m, hw, config, factors)
    if len(_SETUPS) >= _SETUPS_MAX:
        _SETUPS.clear()
    _SETUPS[key] = (m, hw, s)
    return s


def _setup(m: Model, hw: Hardware, config: ServingConfig | None, factors: RooflineFactors | None) -> _Setup:
    cfg = config if config is not None else ServingConfig()
    f = factors if factors is not None else default_factors(hw)
    w = cfg.weight_precision or canonical_precision(m.native_weight_precision)
    d = cfg.dense_weight_precision or w
    act = cfg.activation_precision or w
    kv = cfg.kv_precision
    attn_prec = "fp8" if kv in ("fp8", "fp4") else "bf16"
    attn_kernel = gemm_kernel(hw, "gemm", attn_prec)
    peak_attn = hw.dense_tflops(attn_prec) * FLOPS_PER_TFLOPS
    return _Setup(
        a=arch(m),
        model=m,
        hw=hw,
        cfg=cfg,
        f=f,
        w_bytes=bytes_per_element(w),
        d_bytes=bytes_per_element(d),
        kv_precision=kv,
        peak_linear=hw.dense_tflops(act) * FLOPS_PER_TFLOPS,
        peak_attn=peak_attn,
        hbm_bw=hw.hbm_bandwidth_bytes_per_s,
        dense_kernel=gemm_kernel(hw, "gemm", table_precision("gemm", d, act)),
        moe_kernel=gemm_kernel(hw, "moe", table_precision("moe", w, act)),
        kv_read=kv_read_grid(hw, m.attention_type),
        attn_eff=min(attn_kernel.max_flop_per_s / peak_attn, 1.0),
    )


def _link_bytes_per_s(hw: Hardware, group: int) -> float:
    """One-way link bandwidth per accelerator for a collective over ``group`` accelerators."""
    if group <= hw.scaleup_domain_accelerators:
        return hw.scaleup_bw_unidir_gb_per_s * BYTES_PER_GB
    out = hw.scaleout_bw_unidir_gb_per_s or SCALEOUT_FALLBACK_GB_PER_S
    return out * BYTES_PER_GB


def _kv_divisor(s: _Setup) -> float:
    """Ranks over which one sequence's KV cache is split (per pipeline stage)."""
    # sequences are spread over tp / g attention groups; within a group of g ranks the MLA
    # latent cache is replicated and a GQA cache splits over min(g, kv_heads) ranks
    tp, g = s.cfg.tp, s.cfg.attention_group
    groups = tp // g
    if s.model.attention_type == "mla":
        return float(groups)
    kv_heads = s.model.kv_heads or s.model.attention_heads
    return float(groups * min(g, kv_heads))


def _state_divisor(s: _Setup) -> float:
    """Ranks over which one sequence's linear-attention state is split (per pipeline stage)."""
    # the state is per head: split over the heads of an attention group, not replicated
    tp, g = s.cfg.tp, s.cfg.attention_group
    return float(tp // g * min(g, s.model.linear_key_heads or 1))


def _comm_coefs(s: _Setup, measured: bool) -> tuple[float, float, float, float]:
    """Communication of one pipeline stage, per token of the step.

    Returns ``(A, B, count, latency)``: a step of ``T`` tokens moves ``T (A + B x imbalance(T))``
    seconds of link transfers at full efficiency (``B`` is the expert-parallel all-to-all, which
    waits for the busiest rank, :func:`_token_imbalance`), launches ``count`` collectives and,
    with ``measured``, waits their summed latency [s] (0 otherwise). ``measured`` prices each
    collective with the bus bandwidth and latency of
    :func:`~tokenomics.perf.operators.collective_link` instead of the catalog's one-way link
    bandwidth.
    """
    cfg, a = s.cfg, s.a
    tp, ep, pp = cfg.tp, cfg.ep, cfg.pp
    layers = a.layers / pp
    moe_layers = a.moe_layers / pp
    dense_layers = layers - moe_layers
    scaleout = s.hw.scaleout_bw_unidir_gb_per_s or SCALEOUT_FALLBACK_GB_PER_S

    def link(kind: str, group: int) -> tuple[float, float]:
        if not measured:
            return _link_bytes_per_s(s.hw, group), 0.0
        m = collective_link(s.hw, kind, group, scaleout)
        return m.bus_bytes_per_s, m.latency_s

    msg = a.hidden * _HIDDEN_STATE_BYTES  # one token's hidden state [bytes]
    coef_a = coef_b = count = latency = 0.0
    if tp > 1:
        bw, lat = link("all_reduce", tp)
        allreduce = 2.0 * (tp - 1) / tp * msg / bw
        if not cfg.dp_attention:
            coef_a += 2.0 * layers * allreduce
            count += 2.0 * layers
            latency += 2.0 * layers * lat
        else:
            # attention is local to its group (one all-reduce of the group's tokens per layer
            # when the group has several ranks); FFNs gather/scatter the whole batch
            # (all-reduce volume) unless the experts are expert-parallel, which uses an
            # all-to-all instead
            g = cfg.attention_group
            if g > 1:
                bw_g, lat_g = link("all_reduce", g)
                coef_a += layers * 2.0 * (g - 1) / g * (msg * g / tp) / bw_g
                count += layers
                latency += layers * lat_g
            coef_a += dense_layers * allreduce
            count += dense_layers
            latency += dense_layers * lat
            if ep > 1:
                bw_e, lat_e = link("all_to_all", ep)
                # each rank dispatches its 1 / tp of the tokens to k experts, (ep - 1) / ep remote
                coef_b += (moe_layers / tp * a.active_experts * a.hidden * (ep - 1) / ep
                           * (_DISPATCH_BYTES + _HIDDEN_STATE_BYTES) / bw_e)
                count += 2.0 * moe_layers
                latency += 2.0 * moe_layers * lat_e
            else:
                coef_a += moe_layers * allreduce
                count += moe_layers
                latency += moe_layers * lat
    if pp > 1:
        coef_a += msg / _link_bytes_per_s(s.hw, cfg.num_gpus)
        count += 1.0
    return coef_a, coef_b, count, latency


def _attn_flop_per_token(a: Arch, context: Any) -> Any:
    window = np.minimum(context, a.window_tokens) if a.window_tokens else 0.0
    return (a.decode_attn_flop_per_ctx_token * context + a.window_attn_flop_per_ctx_token * window
            + a.linear_attn_flop_per_token)


@functools.cache
def _max_normal(n: int) -> float:
    """Return the expected largest of ``n`` independent standard normal draws (Blom's approximation)."""
    return float(norm.ppf((n - 0.375) / (n + 0.25))) if n > 1 else 0.0


def _weight_imbalance(tokens: Any, experts: float, k: float, ep: Any, z: Any) -> Any:
    """Distinct experts of the busiest of ``ep`` expert-parallel ranks over the mean, >= 1.

    Each rank holds ``E / ep`` experts, each touched by the step's ``T`` tokens with probability
    ``p = 1 - (1 - k/E)^T`` (uniform routing); the step waits for the rank that streams the most,
    ``min(mu + z sigma, E / ep) / mu`` with ``mu = p E / ep``, ``sigma^2 = p (1 - p) E / ep`` and
    ``z = z(ep)`` the expected largest of ``ep`` standard normals (:func:`_max_normal`; 0 for
    ``ep = 1``, where the ratio is 1).
    """
    per_rank = experts / ep
    p = 1.0 - (1.0 - k / experts) ** tokens
    mu = np.maximum(per_rank * p, 1e-12)
    top = np.minimum(mu + z * np.sqrt(per_rank * p * (1.0 - p)), per_rank)
    return np.maximum(top / mu, 1.0)


def _token_imbalance(tokens: Any, k: float, ep: Any, z: Any) -> Any:
    """Routed tokens of the busiest of ``ep`` expert-parallel ranks over the mean, >= 1.

    The step's ``T k`` token-expert pairs land on ``ep`` ranks (uniform routing): mean
    ``T k / ep``, variance ``T k (1 / ep) (1 - 1 / ep)``; the busiest rank carries
    ``mean + z(ep) sigma`` (``z`` as in :func:`_weight_imbalance`).
    """
    pairs = np.maximum(tokens * k, 1e-12)
    sigma = np.sqrt(pairs * (1.0 / ep) * (1.0 - 1.0 / ep))
    return 1.0 + z * sigma / (pairs / ep)


@dataclass(frozen=True)
class _Coefs:
    """Per-configuration scalars of the step formulas (:func:`_coefs`).

    Floats for one setup, per-point arrays once several are stacked (:func:`_work_many`).
    """

    tp: Any
    ep: Any
    pp: Any
    n: Any
    g: Any
    mtp: Any
    tau: Any
    disagg: Any
    w_bytes: Any
    d_bytes: Any
    peak_linear: Any
    peak_attn: Any
    attn_rate: Any
    """Attention FLOP rate, ``peak_attn x attn_eff`` [FLOP/s]."""
    dk_max: Any
    dk_half: Any
    dk_bw: Any
    dk_launch: Any
    mk_max: Any
    mk_half: Any
    mk_bw: Any
    mk_launch: Any
    kv_div: Any
    z: Any
    comm_a: Any
    comm_b: Any
    collectives: Any
    op_comm_a: Any
    op_comm_b: Any
    op_comm_latency_s: Any


_COEF_FIELDS: tuple[str, ...] = tuple(_Coefs.__dataclass_fields__)


def _coefs(s: _Setup) -> _Coefs:
    """Return the configuration-dependent scalars of a setup."""
    cfg, dk, mk = s.cfg, s.dense_kernel, s.moe_kernel
    comm_a, comm_b, count, _ = _comm_coefs(s, measured=False)
    op_a, op_b, _, op_lat = _comm_coefs(s, measured=True)
    return _Coefs(
        tp=float(cfg.tp), ep=float(cfg.ep), pp=float(cfg.pp), n=float(cfg.num_gpus), g=float(cfg.attention_group),
        mtp=float(cfg.mtp_draft_tokens), tau=cfg.tokens_per_step, disagg=float(cfg.disaggregated),
        w_bytes=s.w_bytes, d_bytes=s.d_bytes, peak_linear=s.peak_linear, peak_attn=s.peak_attn,
        attn_rate=s.peak_attn * s.attn_eff,
        dk_max=dk.max_flop_per_s, dk_half=dk.half_tokens, dk_bw=dk.weight_bytes_per_s, dk_launch=dk.launch_s,
        mk_max=mk.max_flop_per_s, mk_half=mk.half_tokens, mk_bw=mk.weight_bytes_per_s, mk_launch=mk.launch_s,
        kv_div=_kv_divisor(s), z=_max_normal(cfg.ep) if cfg.ep > 1 else 0.0,
        comm_a=comm_a, comm_b=comm_b, collectives=count, op_comm_a=op_a, op_comm_b=op_b, op_comm_latency_s=op_lat,
    )


def _weight_bytes(a: Arch, c: _Coefs, tokens: Any) -> Any:
    """Weight bytes one accelerator reads in one stage step with ``tokens`` tokens."""
    fixed = a.attention_params * c.d_bytes / (c.pp * c.g) + a.always_params * c.d_bytes / c.n
    if a.moe_layers == 0:
        return fixed + np.zeros_like(tokens, dtype=float)
    e, k = a.routed_experts, a.active_experts
    # the busiest expert-parallel rank sets the pace
    touched = e * (1.0 - (1.0 - k / e) ** tokens) * _weight_imbalance(tokens, e, k, c.ep, c.z)
    return fixed + a.moe_layers * touched * a.expert_params * c.w_bytes / c.n


@dataclass(frozen=True)
class _Work:
    """Factor-independent work of a decode sweep and of one prefill (per accelerator)."""

    batch: np.ndarray
    weight_bytes: np.ndarray
    kv_bytes: np.ndarray
    kv_read_extra_bytes: np.ndarray
    """Decode attention's KV reads times ``1 / f(kv_streams, context) - 1``: the bytes its
    below-large-batch read rate costs on top, at the large-batch rate."""
    flop: np.ndarray
    linear_compute_s: np.ndarray
    """Compute time of the matrix multiplies at peak (efficiency 1) [s]."""
    attn_compute_s: np.ndarray
    """Compute time of decode attention at peak [s]."""
    comm_s: np.ndarray
    """Link time at full efficiency [s]."""
    collectives: float
    prefill_compute_s: Any
    """Per-request prefill compute time at peak, per replica [s] (float, or array once stacked)."""
    prefill_weight_bytes: Any
    prefill_comm_s: Any
    prefill_collectives: Any
    op_linear_flop_s: np.ndarray
    """Operator mode: FLOP time of the GEMMs at their measured shape-dependent rates [s]."""
    op_linear_s: np.ndarray
    """Operator mode: GEMM time, ``max(FLOP time, weight-streaming time)`` + launches [s]."""
    op_attn_s: np.ndarray
    """Operator mode: attention FLOP time at the measured attention-precision rate [s]."""
    op_comm_s: np.ndarray
    """Operator mode: collective transfer time at measured bus bandwidths [s]."""
    op_comm_latency_s: Any
    op_prefill_s: Any
    """Operator mode: one request's prefill on one stage, GEMMs at ``M = ISL`` [s]."""
    op_prefill_flop_s: Any
    """Operator mode: its FLOP time only (weights amortised over a batch of prompts) [s]."""
    op_prefill_comm_s: Any
    op_prefill_comm_latency_s: Any
    layer_units: Any
    """Layers of the model weighted by their kernel count relative to a dense GQA layer
    (:func:`layer_kernel_units`): the multiplier of ``layer_latency_s``."""
    draft_bytes: np.ndarray
    """MTP draft: bytes one accelerator reads in one draft pass [bytes] (0 without MTP)."""
    draft_compute_s: np.ndarray
    """MTP draft: compute time of one draft pass at peak [s]."""
    draft_passes: Any
    """Draft passes per step (``mtp_draft_tokens``)."""
    pp: Any
    layers: Any
    tokens_per_step: Any
    isl: Any
    osl: Any
    num_gpus: Any
    disaggregated: Any
    dense: Any
    """1 for a dense model (decode compute at ``dense_compute_eff_frac``), 0 for an MoE."""


def _stack(works: list[_Work]) -> _Work:
    """Concatenate sweeps into one, broadcasting per-sweep scalars to per-point arrays."""
    sizes = [len(w.batch) for w in works]
    values: dict[str, Any] = {}
    for name in _WORK_FIELDS:
        parts = [getattr(w, name) for w in works]
        if any(isinstance(p, np.ndarray) and p.ndim for p in parts):
            values[name] = np.concatenate([
                p if isinstance(p, np.ndarray) and p.shape == (n,)
                else np.broadcast_to(np.asarray(p, dtype=float), (n,))
                for p, n in zip(parts, sizes, strict=True)
            ], dtype=float)
        else:  # one scalar per sweep
            values[name] = np.repeat(np.asarray(parts, dtype=float), sizes)
    return _Work(**values)


_WORK_FIELDS: tuple[str, ...] = tuple(_Work.__dataclass_fields__)


def _gemm_times(a: Arch, attention_type: str, c: _Coefs, tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-GPU time of one stage's GEMMs with ``tokens`` tokens: (FLOP time, total time) [s].

    Three operator classes, each priced by its measured kernel (:mod:`tokenomics.perf.operators`):
    attention projections (``M`` = the attention group's tokens), other dense weights (dense
    FFNs, shared experts, LM head; ``M`` = all tokens) and the routed experts (grouped GEMM,
    ``M`` = tokens per expert, bytes = the experts touched).
    """
    n, pp, g = c.n, c.pp, c.g
    f_attn = 2.0 * a.attention_params * tokens / n
    f_always = 2.0 * a.always_params * tokens / n
    w_attn = a.attention_params * c.d_bytes / (pp * g)
    w_always = a.always_params * c.d_bytes / n
    m_attn = tokens * g / c.tp
    flop_s = (gemm_time_s(c.dk_max, c.dk_half, c.dk_bw, f_attn, 0.0, m_attn)
              + gemm_time_s(c.dk_max, c.dk_half, c.dk_bw, f_always, 0.0, tokens))
    total = (gemm_time_s(c.dk_max, c.dk_half, c.dk_bw, f_attn, w_attn, m_attn)
             + gemm_time_s(c.dk_max, c.dk_half, c.dk_bw, f_always, w_always, tokens))
    attn_launches = 4.0 if attention_type == "mla" else 2.0
    total = total + a.layers / pp * (attn_launches + 2.0) * c.dk_launch
    if a.moe_layers:
        e, k = a.routed_experts, a.active_experts
        f_moe = 2.0 * a.moe_layers * k * a.expert_params * tokens / n
        touched = e * (1.0 - (1.0 - k / e) ** tokens)
        w_moe = a.moe_layers * touched * a.expert_params * c.w_bytes / n
        m_moe = tokens * k / e
        flop_s = flop_s + gemm_time_s(c.mk_max, c.mk_half, c.mk_bw, f_moe, 0.0, m_moe)
        total = (total + gemm_time_s(c.mk_max, c.mk_half, c.mk_bw, f_moe, w_moe, m_moe)
                 + a.moe_layers / pp * c.mk_launch)
    return flop_s, total


REFERENCE_LAYER_KERNELS: float = 10.0
"""Kernels of one decode step of a dense GQA transformer layer: norm, QKV projection, rotary
embedding and KV write, attention, output projection, residual/all-reduce, norm, gate-up
projection, activation, down projection. ``layer_latency_s`` is the fixed time of such a layer."""
_ATTENTION_KERNELS = {"mla": 11.0}
"""Attention-block kernels per decode layer where they differ from GQA's 6: MLA adds the query
down projection and its norm, the key-value down projection and its norm and the absorbed
up-projection batched GEMMs (DeepSeek-V3 report, arXiv:2412.19437, section 2.1.1)."""
_GQA_ATTENTION_KERNELS = 6.0
_DENSE_FFN_KERNELS = 4.0
_MOE_FFN_KERNELS = 7.0
"""MoE block: norm, router GEMM, top-k, two grouped expert GEMMs, activation, combine."""
_SHARED_EXPERT_KERNELS = 3.0


def layer_kernel_units(model: Model) -> float:
    """Return the model's layers weighted by their kernel count per decode step.

    A decode step launches a fixed sequence of small kernels per layer; at small batch their
    fixed cost (launch, prologue, synchronisation) dominates. A dense GQA layer counts 1
    (:data:`REFERENCE_LAYER_KERNELS` kernels); an MLA attention block, an MoE block and shared
    experts count their own kernels.

    Parameters
    ----------
    model : Model
        Catalog model.

    Returns
    -------
    float
        Kernel-weighted layer count [dense-GQA-layer equivalents].

    Examples
    --------
    >>> import tokenomics as tk
    >>> layer_kernel_units(tk.model("llama-3.3-70b"))  # 80 dense GQA layers
    80.0
    """
    a = arch(model)
    attn = _ATTENTION_KERNELS.get(model.attention_type, _GQA_ATTENTION_KERNELS)
    moe = _MOE_FFN_KERNELS + (_SHARED_EXPERT_KERNELS if (model.shared_experts or 0) > 0 else 0.0)
    kernels = a.layers * attn + a.moe_layers * moe + (a.layers - a.moe_layers) * _DENSE_FFN_KERNELS
    return float(kernels / REFERENCE_LAYER_KERNELS)


def _prefill_pairs(a: Arch, isl: float, cached: Any) -> tuple[Any, Any, Any, Any]:
    """Uncached tokens, attention pairs and windowed pairs of a prompt with a cached prefix.

    A request whose first ``cached`` tokens hit the prefix cache computes only the ``u = ISL -
    cached`` new tokens; each attends to the cached prefix and to the new tokens before it,
    ``u x cached + u (u + 1) / 2`` pairs. Also returns the clipped ``cached``.
    """
    c = np.clip(np.asarray(cached, dtype=float), 0.0, isl)
    u = isl - c
    pairs = u * c + u * (u + 1.0) / 2.0
    w = a.window_tokens
    if w:
        # each new token attends to at most the w tokens before it
        full = isl * (isl + 1.0) / 2.0 if isl <= w else w * (w + 1.0) / 2.0 + (isl - w) * w
        done = np.where(c <= w, c * (c + 1.0) / 2.0, w * (w + 1.0) / 2.0 + (c - w) * w)
        win_pairs: Any = full - done
    else:
        win_pairs = 0.0
    return c, u, pairs, win_pairs


def _prefix_bytes(m: Model, c: np.ndarray, kv_precision: str) -> np.ndarray:
    """KV bytes of a cached prefix of ``c`` tokens, one whole replica's worth (0 where ``c = 0``)."""
    # context must be > 0 for the KV formula
    if np.all(c == 0.0):
        return np.zeros_like(c)
    return np.where(c > 0, kv_sequence_bytes(m, np.maximum(c, 1.0), kv_precision), 0.0)


def _draft_work(m: Model, a: Arch, c: _Coefs, seqs: np.ndarray, context: float,
                kv_seq: Any) -> tuple[np.ndarray, np.ndarray]:
    """Bytes read and compute time at peak, per accelerator, of one MTP draft pass [bytes, s].

    One draft pass runs the MTP module on one token per sequence (``seqs`` sequences per
    pipeline stage): one transformer layer of the model (attention weights of one layer, one
    MoE layer's shared and touched routed experts, or one dense layer's FFN), its own KV cache
    (one layer of the sequence's context, ``kv_seq`` bytes for all layers), the ``2 h x h``
    projection that joins the hidden state and the embedding, and the LM head (shared with the
    model, read again). The module is sharded like the model's layers. Zero without MTP.
    """
    n = c.n
    vocab_head = m.vocab_size * a.hidden
    proj = 2.0 * a.hidden * a.hidden
    attn = a.attention_params / a.layers
    if a.moe_layers:
        # the always-read weights of one MoE layer: shared experts (the LM head is counted below)
        shared = float((m.shared_experts or 0) * a.expert_params)
        e, k = a.routed_experts, a.active_experts
        touched = e * (1.0 - (1.0 - k / e) ** seqs)
        routed_bytes: Any = touched * a.expert_params * c.w_bytes / n
        routed_flop: Any = 2.0 * k * a.expert_params * seqs / n
    else:
        shared = max(a.always_params - vocab_head, 0.0) / a.layers
        routed_bytes = routed_flop = 0.0
    weights = attn * c.d_bytes / c.g + (shared + proj + vocab_head) * c.d_bytes / n + routed_bytes
    kv = seqs * kv_seq / a.layers / c.kv_div
    linear = 2.0 * (attn + shared + proj + vocab_head) * seqs / n + routed_flop
    attn_flop = seqs * _attn_flop_per_token(a, context) / a.layers / n
    on = c.mtp > 0
    return (np.where(on, weights + kv, 0.0),
            np.where(on, linear / c.peak_linear + attn_flop / c.peak_attn, 0.0))


def _stack_coefs(coefs: list[_Coefs], sizes: list[int]) -> tuple[_Coefs, _Coefs, _Coefs]:
    """Several setups' scalars as arrays: per decode point, per setup, and the two concatenated.

    Each setup's values are repeated over its ``sizes`` decode points; the per-setup rows (one
    prefill each) follow them in the concatenation.
    """
    table = np.asarray([[getattr(c, name) for name in _COEF_FIELDS] for c in coefs], dtype=float)
    dec = np.repeat(table, np.asarray(sizes), axis=0)
    both = np.concatenate([dec, table])
    return _Coefs(*dec.T), _Coefs(*table.T), _Coefs(*both.T)


def _work(s: _Setup, batch: np.ndarray, isl: float, osl: float, cached: Any = 0.0) -> _Work:
    """Factor-independent work of one setup's decode sweep over ``batch`` sequences per replica.

    ``batch`` of any shape; ``cached`` (cached prefix per request [tokens]) a scalar or a 1-D
    array broadcasting against it. Per-configuration fields are scalars, prefill fields scalars
    for a scalar ``cached``.
    """
    batch = np.asarray(batch, dtype=float)
    scalar = np.ndim(cached) == 0
    v = _work_core([s], [batch], isl, osl, cached)
    shape = np.shape(batch)
    cfg = s.cfg
    out: dict[str, Any] = {}
    for name, x in v.items():
        if name in _PREFILL_FIELDS:
            out[name] = float(np.ravel(x)[0]) if scalar else x
        elif name in _CONFIG_FIELDS:
            out[name] = float(np.ravel(x)[0])
        elif np.ndim(x) == 1 and len(x) == batch.size:
            out[name] = x.reshape(shape)
        else:
            out[name] = x
    out.update(batch=batch, draft_passes=cfg.mtp_draft_tokens, pp=cfg.pp, num_gpus=cfg.num_gpus,
               tokens_per_step=cfg.tokens_per_step, disaggregated=cfg.disaggregated)
    # the step's chunked prompts read their cached prefixes once: broadcast the batch against cached
    out["kv_bytes"] = v["decode_kv"].reshape(shape) + v["prompts"].reshape(shape) / cfg.pp * (
        float(v["cached_read"][0]) if scalar else v["cached_read"])
    for name in ("decode_kv", "prompts", "cached_read"):
        del out[name]
    return _Work(**out)


def _work_many(setups: list[_Setup], batches: list[np.ndarray], isl: float, osl: float,
               cached: float = 0.0) -> _Work:
    """Stacked work of several sweeps of one model on one hardware (1-D batches, one cached length).

    Equal to ``_stack([_work(s, b, isl, osl, cached) for s, b in zip(setups, batches)])``, the
    formulas run once over all points.
    """
    v = _work_core(setups, batches, isl, osl, cached)
    sizes = [len(b) for b in batches]
    reps = np.asarray(sizes)
    out: dict[str, Any] = {}
    for name, x in v.items():
        if name in _PREFILL_FIELDS or name in _CONFIG_FIELDS or name == "cached_read":
            out[name] = np.repeat(np.broadcast_to(np.asarray(x, dtype=float), (len(setups),)), reps)
        elif np.ndim(x) == 0:
            out[name] = np.full(int(reps.sum()), float(x))
        else:
            out[name] = x
    out["kv_bytes"] = out.pop("decode_kv") + out.pop("prompts") / out["pp"] * out.pop("cached_read")
    return _Work(**out)


_PREFILL_FIELDS = frozenset({"prefill_compute_s", "prefill_weight_bytes", "prefill_comm_s", "op_prefill_s",
                             "op_prefill_flop_s", "op_prefill_comm_s"})
"""Fields of :class:`_Work` with one value per prefill (per setup, or per cached length)."""
_CONFIG_FIELDS = frozenset({"collectives", "prefill_collectives", "op_comm_latency_s", "op_prefill_comm_latency_s",
                            "draft_passes", "pp", "num_gpus", "tokens_per_step", "disaggregated"})
"""Fields of :class:`_Work` with one value per setup."""


def _state_bytes(setups: list[_Setup], batches: list[np.ndarray], one: bool) -> Any:
    """Linear-attention state per sequence per GPU of each point (0 without such layers) [bytes]."""
    state = setups[0].a.linear_state_bytes
    if not state:
        return 0.0
    if one:
        return state / _state_divisor(setups[0])
    return np.repeat([state / _state_divisor(s) for s in setups], [np.size(b) for b in batches])


def _work_core(setups: list[_Setup], batches: list[np.ndarray], isl: float, osl: float,
               cached: Any) -> dict[str, Any]:
    """Evaluate the formulas of :class:`_Work` over every point of setups of one model and hardware.

    Decode fields come per point (flattened batches, in order); prefill fields per setup
    (scalar ``cached``) or per cached length (one setup, array ``cached``); per-setup scalars
    per setup. Also returns the decode KV bytes, prompts per step and prefix bytes per prefill
    that make ``kv_bytes``.
    """
    s0 = setups[0]
    m, a = s0.model, s0.a
    if any(s.model is not m or s.a is not a or s.hw is not s0.hw for s in setups):
        raise ValueError("_work_core: setups must share one model and hardware")
    one = len(setups) == 1
    flat = np.ravel(batches[0]) if one else np.concatenate([np.ravel(b) for b in batches])
    flat = flat.astype(float, copy=False)
    scalar = np.ndim(cached) == 0
    if not (one or scalar):
        raise ValueError("_work_core: an array of cached lengths needs a single setup")
    # per-point scalars of the decode points, followed by those of the prefills
    c_cfg = [s.c for s in setups]
    if one:
        c_all = c_dec = c_pre = c_cfg[0]
    else:
        c_dec, c_pre, c_all = _stack_coefs(c_cfg, [len(b) for b in batches])
    context = isl + osl / 2.0
    # KV bytes per sequence at the decode context and of the cached prefix, per precision
    precisions = [s.kv_precision for s in setups]
    clipped, u, pairs, win_pairs = _prefill_pairs(a, isl, cached)
    by_prec = {p: (float(kv_sequence_bytes(m, np.asarray(context, dtype=float), p)),
                   _prefix_bytes(m, clipped, p)) for p in dict.fromkeys(precisions)}
    kv_seq: Any
    prefix: Any
    if one:
        kv_seq, prefix = by_prec[precisions[0]]
    else:
        kv_seq = np.repeat([by_prec[p][0] for p in precisions], [len(b) for b in batches])
        prefix = np.asarray([float(by_prec[p][1]) for p in precisions])
    cached_read = np.atleast_1d(prefix / (c_pre.kv_div * c_pre.pp))

    pp, n = c_dec.pp, c_dec.n
    micro = flat / pp
    tokens = micro * (1.0 + c_dec.mtp)
    linear = tokens * a.linear_flop_per_token / n
    # the routed experts' FLOPs wait for the busiest expert-parallel rank
    routed = tokens * 2.0 * a.moe_layers * a.active_experts * a.expert_params / n
    linear = linear + routed * (_token_imbalance(tokens, a.active_experts, c_dec.ep, c_dec.z) - 1.0)
    attn = tokens * _attn_flop_per_token(a, context) / n
    # prefill of one request: causal attention over ISL (ISL + 1) / 2 pairs, or only the
    # uncached tokens' pairs when a prefix of `cached` tokens hits the prefix cache
    p_attn = (a.prefill_attn_flop_per_pair * pairs + a.window_prefill_attn_flop_per_pair * win_pairs
              + a.linear_attn_flop_per_token * u)
    p_linear = a.linear_flop_per_token * u
    p_tokens = np.atleast_1d(np.asarray(u, dtype=float))
    if not one:
        p_tokens = np.broadcast_to(p_tokens, (len(setups),))
    # the links and GEMMs of the decode steps and of the prefills, element-wise in one pass
    k = len(flat)
    both = np.concatenate([tokens, p_tokens])
    imb = _token_imbalance(both, a.active_experts, c_all.ep, c_all.z)
    comm_both = both * (c_all.comm_a + c_all.comm_b * imb)
    op_comm_both = both * (c_all.op_comm_a + c_all.op_comm_b * imb)
    flop_both, lin_both = _gemm_times(a, m.attention_type, c_all, both)
    p_attn_s = p_attn / c_pre.n / c_pre.attn_rate
    # aggregated serving: the step's chunked prompts read their cached prefixes once
    prompts = (1.0 - c_dec.disagg) * flat * c_dec.tau / osl
    draft_bytes, draft_compute_s = _draft_work(m, a, c_dec, micro, context, kv_seq)
    decode_kv = micro * kv_seq / (c_dec.kv_div * pp)
    heads = 1.0 if m.attention_type == "mla" else float(m.kv_heads or m.attention_heads)
    # linear-attention layers read and rewrite each sequence's recurrent state once per step
    state = 2.0 * micro * _state_bytes(setups, batches, one) / pp
    return {
        "batch": flat,
        "weight_bytes": _weight_bytes(a, c_dec, tokens),
        "prompts": prompts,
        "cached_read": cached_read,
        # decode attention below its large-batch KV-read rate, at KV streams per GPU: sequences
        # of one attention group times, except for MLA, the KV heads each GPU holds
        "kv_read_extra_bytes": decode_kv * (1.0 / s0.kv_read(micro * heads / c_dec.kv_div, context) - 1.0),
        "decode_kv": decode_kv + state,
        "flop": linear + attn,
        "linear_compute_s": linear / c_dec.peak_linear,
        "attn_compute_s": attn / c_dec.peak_attn,
        "comm_s": comm_both[:k],
        "collectives": c_pre.collectives,
        "prefill_compute_s": (p_linear / c_pre.peak_linear + p_attn / c_pre.peak_attn) / c_pre.n,
        # every stage reads its own weights once (all experts are touched at prefill lengths),
        # plus the KV of a cached prefix
        "prefill_weight_bytes": _weight_bytes(a, c_pre, float(isl)) + cached_read,
        "prefill_comm_s": comm_both[k:],
        "prefill_collectives": c_pre.collectives,
        "op_linear_flop_s": flop_both[:k],
        "op_linear_s": lin_both[:k],
        "op_attn_s": attn / c_dec.attn_rate,
        "op_comm_s": op_comm_both[:k],
        "op_comm_latency_s": c_pre.op_comm_latency_s,
        "op_prefill_s": lin_both[k:] + p_attn_s,
        "op_prefill_flop_s": flop_both[k:] + p_attn_s,
        "op_prefill_comm_s": op_comm_both[k:],
        "op_prefill_comm_latency_s": c_pre.op_comm_latency_s,
        "layer_units": layer_kernel_units(m),
        "draft_bytes": draft_bytes,
        "draft_compute_s": draft_compute_s,
        "draft_passes": c_pre.mtp,
        "pp": c_pre.pp,
        "layers": float(a.layers),
        "tokens_per_step": c_pre.tau,
        "isl": float(isl),
        "osl": float(osl),
        "num_gpus": c_pre.n,
        "disaggregated": c_pre.disagg,
        "dense": 0.0 if a.moe_layers else 1.0,
    }


def _times(wk: _Work, f: RooflineFactors, hbm_bw: Any) -> dict[str, np.ndarray]:
    """Decode step breakdown, prefill and serving metrics of a sweep at given factors."""
    pp = wk.pp
    b, tau, isl, osl, n = wk.batch, wk.tokens_per_step, wk.isl, wk.osl, wk.num_gpus
    disagg = np.asarray(wk.disaggregated, dtype=bool)
    fixed = f.step_overhead_s + wk.layer_units * f.layer_latency_s
    # aggregated: the prompts of the B x tau / OSL requests a step completes ride along with it
    # (chunked prefill), per pipeline stage
    prompts = np.where(disagg, 0.0, b * tau / osl)
    hbm = hbm_bw * f.hbm_bandwidth_eff_frac
    eff = np.where(np.asarray(wk.dense) > 0.0, f.dense_compute_eff_frac, f.compute_eff_frac)
    # decode attention below its large-batch KV-read rate; the draft layer reads one layer's KV
    kv_extra = wk.kv_read_extra_bytes if f.kv_read_tables else 0.0
    draft_bytes = wk.draft_bytes + kv_extra * pp / wk.layers
    # MTP draft passes, sequential after the verification pass (one per micro-batch per draft),
    # each one layer's kernels (the model's mean kernel units per layer)
    t_draft = wk.draft_passes * pp * (
        np.maximum(wk.draft_compute_s / eff, draft_bytes / hbm)
        + wk.layer_units / wk.layers * f.layer_latency_s)
    if f.operator_tables:
        # GEMM FLOPs at their measured shape-dependent rates (tokens per step, tokens per expert),
        # attention FLOPs at the measured attention-precision rate; weights and KV cache streamed
        # at the fitted HBM efficiency; collectives at measured bus bandwidths and latencies
        p_compute = wk.op_prefill_flop_s / f.prefill_compute_eff_frac
        p_link = wk.op_prefill_comm_s / f.comm_eff_frac
        t_gemm = wk.op_linear_flop_s / eff
        t_attn = wk.op_attn_s / eff
        t_comm = wk.op_comm_s / f.comm_eff_frac + wk.op_comm_latency_s
        p_comm = p_link + wk.op_prefill_comm_latency_s
        t_p = np.maximum(p_compute, wk.prefill_weight_bytes / hbm) + p_comm
    else:
        t_gemm = wk.linear_compute_s / eff
        t_attn = wk.attn_compute_s / eff
        t_comm = wk.comm_s / f.comm_eff_frac + wk.collectives * f.collective_latency_s
        p_compute = wk.prefill_compute_s / f.prefill_compute_eff_frac
        p_link = wk.prefill_comm_s / f.comm_eff_frac
        p_comm = p_link + wk.prefill_collectives * f.collective_latency_s
        t_p = np.maximum(p_compute, wk.prefill_weight_bytes / hbm) + p_comm
    # the step's chunked-prefill share: its FLOPs under the decode step's weight and KV reads,
    # or after the decode work (sequential_prefill); its activations cross the links
    t_chunk = prompts * p_compute / pp
    t_comm = t_comm + prompts * p_link
    # weights streamed at the HBM efficiency, the KV cache at its own rate relative to them
    t_weights = wk.weight_bytes / hbm
    t_kv = (wk.kv_bytes + kv_extra) / (f.kv_read_eff_frac * hbm)
    t_compute, t_memory = t_gemm + t_attn, t_weights + t_kv
    if f.split_attention:
        # GEMMs against the weight reads, attention against the KV reads, one after the other
        t_attention = np.maximum(t_attn, t_kv)
        if f.sequential_prefill:
            t_stage = np.maximum(t_gemm, t_weights) + t_attention + t_chunk + t_comm
        else:
            t_stage = np.maximum(t_gemm + t_chunk, t_weights) + t_attention + t_comm
    elif f.sequential_prefill:
        t_stage = np.maximum(t_compute, t_memory) + t_chunk + t_comm
    else:
        t_stage = np.maximum(t_compute + t_chunk, t_memory) + t_comm
    t_compute = t_compute + t_chunk
    t_step = pp * t_stage + fixed + t_draft
    ttft = pp * t_p  # the request passes the pipeline stages one after another
    rate = b * tau / (osl * t_step)
    tpot = t_step / tau
    # a disaggregated prefill pool batches prompts: weight reads amortised, FLOPs and links remain
    t_pool = p_compute + p_link
    n_prefill = np.where(disagg, rate * t_pool * n, np.nan)
    n_all = np.where(disagg, n + np.nan_to_num(n_prefill), n) * np.ones_like(b)
    input_div = np.where(disagg, n_prefill, n)
    with np.errstate(divide="ignore", invalid="ignore"):  # no prefill pool (every prompt cached): undefined
        input_rate = np.where(input_div > 0, isl * rate / input_div, np.nan)
    return {
        "tpot_s": tpot,
        "interactivity_tok_per_s_per_user": 1.0 / tpot,
        "e2e_interactivity_tok_per_s_per_user": osl / (ttft + osl * tpot),
        "ttft_s": ttft * np.ones_like(b),
        "requests_per_s": rate,
        "throughput_tok_per_s_per_gpu": (isl + osl) * rate / n_all,
        "input_throughput_tok_per_s_per_gpu": input_rate,
        "output_throughput_tok_per_s_per_gpu": osl * rate / n,
        "num_gpus": n_all,
        "num_prefill_gpus": n_prefill * np.ones_like(b),
        "num_decode_gpus": np.where(disagg, n, np.nan) * np.ones_like(b),
        "step_time_s": t_step,
        "compute_time_s": pp * t_compute,
        "memory_time_s": pp * t_memory,
        "comm_time_s": pp * t_comm,
        "overhead_time_s": fixed * np.ones_like(b),
        "weight_bytes_per_gpu": wk.weight_bytes * pp,
        "kv_bytes_per_gpu": wk.kv_bytes * pp,
        "flop_per_gpu": wk.flop * pp,
    }


def _as_batch(concurrency: Any) -> tuple[np.ndarray, Any]:
    check_positive("concurrency", concurrency)
    if isinstance(concurrency, pd.Series):
        return concurrency.to_numpy(dtype=float), concurrency.index
    return np.asarray(concurrency, dtype=float), None


def _like(values: np.ndarray, template: Any, index: Any, name: str) -> Any:
    if index is not None:
        return pd.Series(values, index=index, name=name)
    if np.ndim(template) == 0:
        return float(values)
    return values


def _check_lengths(isl_tokens: float, osl_tokens: float) -> None:
    check_positive("isl_tokens", isl_tokens)
    check_positive("osl_tokens", osl_tokens)


def decode_step_time_s(
    model: Model | str,
    hardware: Hardware | str,
    concurrency: Any,
    *,
    isl_tokens: float = 1024.0,
    osl_tokens: float = 1024.0,
    config: ServingConfig | None = None,
    factors: RooflineFactors | None = None,
) -> Any:
    """Return the time of one decode step of a replica serving ``concurrency`` sequences.

    ``t_step = pp x (max(t_GEMM, t_weights) + max(t_attention, t_KV) + t_comm) + t_overhead +
    layer units x t_layer + t_draft`` (see the module notes for each term; ``t_draft`` is the MTP
    draft passes; with ``factors.split_attention=False`` the single roofline
    ``max(t_compute, t_memory)`` replaces the two bracketed terms). With aggregated serving (the
    default) the step also carries its share of chunked prefill, ``concurrency x tokens_per_step
    / OSL`` prompts (their FLOPs add to the GEMM term). The time
    per output token is ``t_step / config.tokens_per_step``. Memory capacity is not checked
    here; :func:`max_concurrency` and :func:`roofline_points` do.

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    hardware : Hardware or str
        Catalog hardware (or its name).
    concurrency : float, ndarray or Series
        Sequences decoding together on the replica [count], > 0.
    isl_tokens, osl_tokens : float
        Input and output sequence lengths [tokens], > 0.
    config : ServingConfig, optional
        Parallelism and precisions (default: TP1, native weight precision, BF16 KV).
    factors : RooflineFactors, optional
        Efficiencies (default: the stated defaults of the hardware's family, uncalibrated).

    Returns
    -------
    float, ndarray or Series
        Decode step time [s], same container as ``concurrency``.

    Raises
    ------
    ValueError
        If a concurrency or sequence length is not positive.
    KeyError
        For an unknown model, hardware or precision.

    Examples
    --------
    A batch-1 step of Llama 3.3 70B (BF16) on one H100 at ideal efficiency streams the weights
    once: the step time is the weight bytes over the HBM bandwidth, to within a few percent.

    >>> import tokenomics as tk
    >>> from tokenomics.perf import RooflineFactors
    >>> t = decode_step_time_s("llama-3.3-70b", "h100", 1.0, factors=RooflineFactors.ideal())
    >>> streaming_s = weight_bytes_per_gpu("llama-3.3-70b", "h100") / tk.hardware("h100").hbm_bandwidth_bytes_per_s
    >>> abs(t / streaming_s - 1) < 0.05
    True
    """
    _check_lengths(isl_tokens, osl_tokens)
    batch, index = _as_batch(concurrency)
    s = _resolve(model, hardware, config, factors)
    wk = _work(s, np.atleast_1d(batch), float(isl_tokens), float(osl_tokens))
    step = _times(wk, s.f, s.hbm_bw)["step_time_s"]
    return _like(step.reshape(batch.shape), concurrency, index, "step_time_s")


def prefill_time_s(
    model: Model | str,
    hardware: Hardware | str,
    *,
    isl_tokens: float = 1024.0,
    config: ServingConfig | None = None,
    factors: RooflineFactors | None = None,
    cached_tokens: float = 0.0,
) -> float:
    """Return the prefill time (TTFT without queueing) of one request on a replica.

    ``t = max(FLOP / (N x peak x eff_prefill), weight bytes / (bandwidth x eff_hbm)) + t_comm``
    with ``FLOP = 2 x active params x ISL + attention FLOP x ISL (ISL + 1) / 2`` (causal).

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    hardware : Hardware or str
        Catalog hardware (or its name).
    isl_tokens : float
        Input sequence length [tokens], > 0.
    config : ServingConfig, optional
        Parallelism and precisions.
    factors : RooflineFactors, optional
        Efficiencies (default: stated defaults of the hardware's family).
    cached_tokens : float, default 0
        Leading prompt tokens served from the prefix cache [tokens], in [0, ISL]: only the
        ``ISL - cached`` new tokens are computed (pairs ``u x cached + u (u + 1) / 2``) and the
        cached prefix's KV is read once.

    Returns
    -------
    float
        Prefill time [s].

    Raises
    ------
    ValueError
        If ``isl_tokens`` is not positive.

    Examples
    --------
    >>> from tokenomics.perf import RooflineFactors
    >>> t = prefill_time_s("llama-3.3-70b", "h100", isl_tokens=1000.0, factors=RooflineFactors.ideal())
    >>> 0.1 < t < 0.2  # ~1.4e14 FLOP at 989 TFLOP/s
    True
    """
    check_positive("isl_tokens", isl_tokens)
    s = _resolve(model, hardware, config, factors)
    cached = _check_cached(cached_tokens, float(isl_tokens), ())
    wk = _work(s, np.ones(1), float(isl_tokens), 1.0, cached)
    return float(_times(wk, s.f, s.hbm_bw)["ttft_s"][0])


def _check_cached(cached_tokens: Any, isl: float, shape: tuple[int, ...]) -> Any:
    """Validate cached prompt tokens: finite, in [0, ISL], scalar or one per concurrency."""
    c = np.asarray(cached_tokens, dtype=float)
    if np.any(~np.isfinite(c)) or np.any(c < 0.0) or np.any(c > isl):
        raise ValueError(
            f"cached_tokens={cached_tokens!r} must lie in [0, isl_tokens={isl:g}]: the cached prefix "
            "is a part of the prompt"
        )
    if c.ndim == 0:
        return float(c)
    if c.shape != shape:
        raise ValueError(f"cached_tokens has shape {c.shape}; give a scalar or one value per concurrency {shape}")
    return c


def kv_capacity_tokens(
    model: Model | str,
    hardware: Hardware | str,
    *,
    config: ServingConfig | None = None,
    factors: RooflineFactors | None = None,
    context_tokens: float = 100_000.0,
) -> float:
    """Return the KV-cache capacity of a replica's HBM in tokens of context.

    ``C = (HBM x usable_hbm_frac - weights per GPU) / (KV bytes per token per GPU)``, the KV
    bytes per token taken at ``context_tokens`` (sliding-window layers hold at most their
    window). It is the HBM tier of the prefix cache: the tokens of all sessions (running and
    idle) that can stay resident.

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    hardware : Hardware or str
        Catalog hardware (or its name).
    config : ServingConfig, optional
        Parallelism and precisions.
    factors : RooflineFactors, optional
        Supplies ``usable_hbm_frac``.
    context_tokens : float, default 100000
        Context length at which the per-token KV size is taken [tokens], > 0.

    Returns
    -------
    float
        KV capacity per replica [tokens] (0 if the weights leave no room).

    Raises
    ------
    ValueError
        If the weights alone do not fit in the usable HBM.

    Examples
    --------
    >>> kv_capacity_tokens("llama-3.3-70b", "h100", config=ServingConfig(tp=4)) > 1e5
    True
    """
    check_positive("context_tokens", context_tokens)
    s = _resolve(model, hardware, config, factors)
    ctx = float(context_tokens)
    # raises, naming the sizes, when the weights alone do not fit
    max_concurrency(s.model, s.hw, isl_tokens=ctx, osl_tokens=1.0, config=s.cfg, factors=s.f)
    weights = weight_bytes_per_gpu(s.model, s.hw, config=s.cfg)
    usable = s.hw.hbm_capacity_bytes * s.f.usable_hbm_frac
    per_token = kv_cache_bytes_per_sequence(s.model, ctx + 1.0, s.kv_precision) / (ctx + 1.0)
    return float(max(usable - weights, 0.0) / (per_token / (_kv_divisor(s) * s.cfg.pp)))


def weight_bytes_per_gpu(
    model: Model | str,
    hardware: Hardware | str,
    *,
    config: ServingConfig | None = None,
) -> float:
    """Return the weight bytes one accelerator of the replica stores.

    Attention weights are split over ``tp`` (under DP-attention over ``attention_tp``,
    replicated ``tp / attention_tp`` times) and ``pp``; every
    other weight over ``tp x pp``.

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    hardware : Hardware or str
        Catalog hardware (or its name).
    config : ServingConfig, optional
        Parallelism and precisions.

    Returns
    -------
    float
        Stored weight bytes per accelerator [bytes].

    Examples
    --------
    >>> import tokenomics as tk
    >>> params = tk.model("llama-3.3-70b").total_params_b * 1e9
    >>> round(weight_bytes_per_gpu("llama-3.3-70b", "h100") / params, 3)  # BF16: 2 bytes per parameter
    2.0
    """
    return _stored_weight_bytes(_resolve(model, hardware, config, None))


def _stored_weight_bytes(s: _Setup) -> float:
    """Weight bytes one accelerator stores (:func:`weight_bytes_per_gpu` of a resolved setup)."""
    a, cfg = s.a, s.cfg
    n = cfg.num_gpus
    attn_div = cfg.pp * cfg.attention_group
    return float(
        a.attention_params * s.d_bytes / attn_div
        + (a.always_params + a.embedding_params) * s.d_bytes / n
        + a.routed_params * s.w_bytes / n
    )


def max_concurrency(
    model: Model | str,
    hardware: Hardware | str,
    *,
    isl_tokens: float = 1024.0,
    osl_tokens: float = 1024.0,
    config: ServingConfig | None = None,
    factors: RooflineFactors | None = None,
) -> int:
    """Return the most sequences a replica can hold: weights + KV cache within usable HBM.

    ``B_max = floor((HBM x usable_hbm_frac - weights per GPU) / KV per sequence per GPU)`` with
    the KV cache of a full ``ISL + OSL`` context plus, for hybrid models, the linear-attention
    state (:func:`~tokenomics.memory.kv_cache.linear_state_bytes_per_sequence`), split over the
    attention group's heads.

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    hardware : Hardware or str
        Catalog hardware (or its name).
    isl_tokens, osl_tokens : float
        Input and output sequence lengths [tokens].
    config : ServingConfig, optional
        Parallelism and precisions.
    factors : RooflineFactors, optional
        Supplies ``usable_hbm_frac``.

    Returns
    -------
    int
        Maximum concurrent sequences per replica [count] (0 if not even one fits).

    Raises
    ------
    ValueError
        If the weights alone do not fit in the usable HBM of each accelerator.

    Examples
    --------
    >>> max_concurrency("llama-3.3-70b", "h100", config=ServingConfig(tp=4)) > 100
    True
    """
    _check_lengths(isl_tokens, osl_tokens)
    return _capacity(_resolve(model, hardware, config, factors), float(isl_tokens), float(osl_tokens))


def _capacity(s: _Setup, isl: float, osl: float) -> int:
    """Return :func:`max_concurrency` of a resolved setup (lengths already checked)."""
    weights = _stored_weight_bytes(s)
    usable = s.hw.hbm_capacity_bytes * s.f.usable_hbm_frac
    if weights > usable:
        raise ValueError(
            f"{s.model.model_id} weights need {weights / BYTES_PER_GB:.1f} GB per accelerator with "
            f"{s.cfg.label}, more than the usable {usable / BYTES_PER_GB:.1f} GB of "
            f"{s.hw.hardware_id} ({s.hw.hbm_capacity_gb} GB x usable_hbm_frac="
            f"{s.f.usable_hbm_frac}); use more tensor/pipeline parallelism or narrower weights"
        )
    kv_seq = float(kv_sequence_bytes(s.model, np.asarray(float(isl + osl)), s.kv_precision))
    state = s.a.linear_state_bytes / _state_divisor(s)
    per_seq = (kv_seq / _kv_divisor(s) + state) / s.cfg.pp
    return int(np.floor((usable - weights) / per_seq))


def roofline_points(
    model: Model | str,
    hardware: Hardware | str,
    concurrency: Any,
    *,
    isl_tokens: float = 1024.0,
    osl_tokens: float = 1024.0,
    config: ServingConfig | None = None,
    factors: RooflineFactors | None = None,
    check_capacity: bool = True,
    cached_tokens: Any = 0.0,
) -> pd.DataFrame:
    """Return throughput, interactivity and latency of a replica at each concurrency.

    With ``t_s`` the step time, ``tau`` tokens per step and ``B`` the concurrency::

        requests/s  R    = B x tau / (OSL x t_s)
        TPOT             = t_s / tau
        throughput/GPU   = (ISL + OSL) x R / (tp x pp)       (input + output, like InferenceX)

    Aggregated serving (the default): ``t_s`` is a mixed step that also carries the chunked
    prefill of the ``B x tau / OSL`` prompts it completes (module notes; under the decode
    step's reads, or after its decode work with ``RooflineFactors.sequential_prefill``), so
    prefill work lowers both R and the interactivity. Disaggregated serving: ``t_s`` is a pure
    decode step and the prefill pool is sized to ``R x t_pool x tp x pp`` accelerators (fractional;
    ``t_pool`` = prefill FLOP and link time of one request, weight reads amortised over the
    pool's batch); total throughput is divided by all accelerators, output by decode ones, input
    by prefill ones.

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    hardware : Hardware or str
        Catalog hardware (or its name).
    concurrency : float or array_like
        Concurrent sequences per replica [count], > 0.
    isl_tokens, osl_tokens : float
        Input and output sequence lengths [tokens].
    config : ServingConfig, optional
        Parallelism and precisions.
    factors : RooflineFactors, optional
        Efficiencies (default: stated defaults of the hardware's family).
    check_capacity : bool
        Raise if a concurrency exceeds :func:`max_concurrency` (default True).
    cached_tokens : float or array_like, default 0
        Prompt tokens per request served from the prefix cache [tokens], in [0, ISL]; a scalar
        or one value per concurrency. Prefill computes only the ``ISL - cached`` new tokens
        (attending to the whole context) and reads the cached prefix's KV once; decode
        attention still reads each sequence's full context.

    Returns
    -------
    pandas.DataFrame
        One row per concurrency: ``concurrency, tpot_s, interactivity_tok_per_s_per_user,
        e2e_interactivity_tok_per_s_per_user, ttft_s, requests_per_s,
        throughput_tok_per_s_per_gpu, input_throughput_tok_per_s_per_gpu,
        output_throughput_tok_per_s_per_gpu, num_gpus, num_prefill_gpus, num_decode_gpus``, the
        step breakdown (``step_time_s, compute_time_s, memory_time_s, comm_time_s,
        overhead_time_s, weight_bytes_per_gpu, kv_bytes_per_gpu, flop_per_gpu``;
        ``compute_time_s`` includes the chunked-prefill share), ``bound`` (``"memory"`` or
        ``"compute"``: the larger of those two times) and ``max_concurrency``.

    Raises
    ------
    ValueError
        If a concurrency exceeds the memory capacity (message names the limit), or the weights
        do not fit at all.

    Examples
    --------
    >>> pts = roofline_points("llama-3.3-70b", "h100", [1, 64], config=ServingConfig(tp=4))
    >>> bool(pts["throughput_tok_per_s_per_gpu"].is_monotonic_increasing)
    True
    """
    _check_lengths(isl_tokens, osl_tokens)
    batch = np.atleast_1d(np.asarray(concurrency, dtype=float))
    check_positive("concurrency", batch)
    s = _resolve(model, hardware, config, factors)
    return pd.DataFrame(_points(s, batch, float(isl_tokens), float(osl_tokens), check_capacity, cached_tokens))


def _points(s: _Setup, batch: np.ndarray, isl: float, osl: float, check_capacity: bool = True,
            cached_tokens: Any = 0.0) -> dict[str, Any]:
    """Return the columns of :func:`roofline_points` for a resolved setup (inputs checked)."""
    b_max = _capacity(s, isl, osl)
    if check_capacity and np.any(batch > b_max):
        raise ValueError(
            f"concurrency={batch.max():g} exceeds the memory capacity of one {s.cfg.label} replica "
            f"of {s.hw.hardware_id} for {s.model.model_id} at ISL/OSL {isl:g}/{osl:g}: "
            f"max_concurrency={b_max} (weights + KV cache within "
            f"{s.f.usable_hbm_frac:g} x {s.hw.hbm_capacity_gb:g} GB per accelerator)"
        )
    cached = _check_cached(cached_tokens, isl, batch.shape)
    comp = _times(_work(s, batch, isl, osl, cached), s.f, s.hbm_bw)
    bound = np.where(comp["compute_time_s"] > comp["memory_time_s"], "compute", "memory")
    return {"concurrency": batch, **comp, "bound": bound, "max_concurrency": b_max}


# ---------------------------------------------------------------------------------------------
# Long-context chunked prefill (session traffic). Kept apart from the calibrated step physics
# above: it reuses their linear-layer, weight-read and link terms and adds what a long cached
# context costs an engine that prefills in chunks.
# ---------------------------------------------------------------------------------------------

DEFAULT_PREFILL_CHUNK_TOKENS: float = 8192.0
"""Prompt tokens an aggregated engine prefills per step (chunked prefill token budget) [tokens].

vLLM's default ``max_num_batched_tokens`` for its OpenAI server on accelerators with >= 70 GiB,
as logged by the B200 agentic runs ("Chunked prefill is enabled with
max_num_batched_tokens=8192", vLLM 0.19.1, SemiAnalysisAI/InferenceX @7181314
experimental/multiturn/vllm_benchmark/results/pareto_input/*/server.log, 2026-04-21)."""


def _prefill_attention_precision(s: _Setup) -> str:
    """MLA prefill runs the per-head (expanded) form on a BF16 copy of the latent cache."""
    if s.model.attention_type == "mla":
        return "bf16"
    return "fp8" if s.kv_precision in ("fp8", "fp4") else "bf16"


def chunked_prefill_time_s(
    model: Model | str,
    hardware: Hardware | str,
    *,
    isl_tokens: float,
    cached_tokens: Any = 0.0,
    chunk_tokens: float = DEFAULT_PREFILL_CHUNK_TOKENS,
    config: ServingConfig | None = None,
    factors: RooflineFactors | None = None,
    latency: bool = False,
) -> Any:
    """Return the engine time of one request's chunked prefill at long context [s].

    An aggregated engine prefills the ``u = ISL - c`` uncached tokens of a prompt whose first
    ``c`` tokens hit the prefix cache in steps of at most ``C`` tokens, ``k = max(u / C, 1)``
    of them (the mean over prompt lengths of ``ceil(u / C)``, which keeps the time
    non-increasing in ``c``). Chunk ``j`` attends to the prefix ``P_j = c + j C`` before it::

        t = t_linear(u) + t_attention + sum_j (t_reread(P_j) + t_expand(P_j))

    * ``t_linear``: the linear layers, their weight reads and links for the ``u`` tokens, as in
      :func:`prefill_time_s` (calibrated ``eff_prefill``);
    * ``t_attention = FLOP_pair x (u c + u (u + 1) / 2) / (N x peak_a x eff_a x eff_prefill)``:
      causal attention, quadratic in the context, run after (not overlapped with) the other
      kernels of the step. MLA prefill runs the per-head form in BF16 (the FP8 latent cache is
      dequantized first), other attention at FP8 when the KV cache is FP8; ``eff_a`` is the
      large-``M`` GEMM fraction of that precision;
    * ``t_reread``: each chunk after the first reads its prefix's KV again
      (``P_j x KV bytes per token``, at the calibrated HBM efficiency);
    * ``t_expand`` (MLA only): each chunk gathers its prefix's latent KV and up-projects it to
      per-head keys and values, ``2 x kv_lora x heads x (nope + v)`` FLOP per token and layer at
      the BF16 GEMM rate, and writes and reads the expanded BF16 keys and values.

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    hardware : Hardware or str
        Catalog hardware (or its name).
    isl_tokens : float
        Prompt length [tokens], > 0.
    cached_tokens : float or array_like, default 0
        Leading prompt tokens served from the prefix cache [tokens], in [0, ISL].
    chunk_tokens : float, default :data:`DEFAULT_PREFILL_CHUNK_TOKENS`
        Prompt tokens prefilled per engine step ``C`` [tokens], > 0.
    config : ServingConfig, optional
        Parallelism and precisions.
    factors : RooflineFactors, optional
        Efficiencies (default: stated defaults of the hardware's family).
    latency : bool, default False
        ``False``: the replica's time the request costs (its attention spread over all ranks, as
        concurrent requests spread over the data-parallel attention groups). ``True``: the
        request's own prefill latency: under DP attention its attention, re-reads and
        expansion run on its own group of ``attention_tp`` ranks only, ``tp / attention_tp``
        times longer.

    Returns
    -------
    float or ndarray
        Prefill time of one request on one replica [s], same shape as ``cached_tokens``.

    Raises
    ------
    ValueError
        A non-positive prompt length or chunk, or cached tokens outside [0, ISL].

    References
    ----------
    .. [1] vLLM MLA prefill with a cached context: per chunk the context's latent cache is
       gathered and dequantized, up-projected by ``kv_b_proj`` and attended to, then merged
       with the chunk's own causal attention (``MLACommonImpl._compute_prefill_context``,
       vllm/model_executor/layers/attention/mla_attention.py, read 2026-12-01).

    Examples
    --------
    >>> from tokenomics.perf import RooflineFactors
    >>> cold = chunked_prefill_time_s("deepseek-r1", "b200", isl_tokens=64_000.0,
    ...                               config=ServingConfig(tp=8, ep=8, kv_precision="fp8"))
    >>> short = chunked_prefill_time_s("deepseek-r1", "b200", isl_tokens=8_000.0,
    ...                                config=ServingConfig(tp=8, ep=8, kv_precision="fp8"))
    >>> bool(cold / 64_000 > 2 * short / 8_000)  # attention quadratic in the context
    True
    """
    check_positive("isl_tokens", isl_tokens)
    check_positive("chunk_tokens", chunk_tokens)
    isl, chunk = float(isl_tokens), float(chunk_tokens)
    s = _resolve(model, hardware, config, factors)
    cached = _check_cached(cached_tokens, isl, np.shape(cached_tokens))
    c = np.atleast_1d(np.asarray(cached, dtype=float))
    total = _prefill_linear_s(s, isl, c) + _prefill_context_s(s, isl, c, chunk, latency)
    if np.ndim(cached_tokens) == 0:
        return float(total[0])
    return total.reshape(np.shape(cached_tokens))


def _prefill_linear_s(s: _Setup, isl: float, c: np.ndarray) -> np.ndarray:
    """Return the linear part of one request's prefill (layers, weight reads, links) with ``c`` cached [s]."""
    return np.asarray(_times(_work(_linear_only(s), np.ones_like(c), isl, 1.0, c), s.f, s.hbm_bw)["ttft_s"],
                      dtype=float)


def _linear_only(s: _Setup) -> _Setup:
    """Return the setup with prefill attention FLOPs removed (linear layers, weight reads and links only)."""
    return replace(s, a=replace(s.a, prefill_attn_flop_per_pair=0.0, window_prefill_attn_flop_per_pair=0.0))


def _mixed_step_linear_prefill_s(s: _Setup, batch: np.ndarray, isl: float, osl: float, cached: Any) -> np.ndarray:
    """Return the aggregated step of ``batch`` sequences whose prefill share carries its linear layers only [s].

    The decode step of :func:`roofline_points` with the ``B x tau / OSL`` prompts it completes, of
    which the uncached tokens' linear-layer FLOPs run inside the step's matrix multiplies (under
    its weight and KV reads), as on fixed-sequence traffic; their long-context attention, prefix
    re-reads and MLA up-projection (:func:`chunked_prefill_time_s`) are left to the caller.
    """
    agg = _with_cfg(_linear_only(s), disaggregated=False)
    return np.asarray(_times(_work(agg, batch, isl, osl, cached), s.f, s.hbm_bw)["step_time_s"], dtype=float)


def _with_cfg(s: _Setup, **update: Any) -> _Setup:
    """Return the setup with its serving configuration updated."""
    return replace(s, cfg=s.cfg.model_copy(update=update))


def _prefill_context_s(s: _Setup, isl: float, c: np.ndarray, chunk: float, latency: bool = False) -> np.ndarray:
    """Long-context part of a chunked prefill: attention, prefix re-reads, MLA up-projection [s]."""
    a, cfg, f = s.a, s.cfg, s.f
    n, pp = float(cfg.num_gpus), float(cfg.pp)
    _, u, pairs, win_pairs = _prefill_pairs(a, isl, c)
    prec = _prefill_attention_precision(s)
    peak = s.hw.dense_tflops(prec) * FLOPS_PER_TFLOPS
    attn_rate = min(gemm_kernel(s.hw, "gemm", prec).max_flop_per_s, peak) * f.prefill_compute_eff_frac
    attn_flop = a.prefill_attn_flop_per_pair * pairs + a.window_prefill_attn_flop_per_pair * win_pairs
    t_attn = attn_flop / n / attn_rate * pp
    # prefix tokens the k chunks see: sum_j (c + j C) = k c + C k (k - 1) / 2, with k = u / C
    # (at least one chunk): the mean over prompt lengths of the whole-chunk count
    u_arr = np.maximum(np.asarray(u, dtype=float), 0.0)
    k = np.where(u_arr > 0.0, np.maximum(u_arr / chunk, 1.0), 0.0)
    prefix_all = k * c + chunk * k * (k - 1.0) / 2.0
    per_token_kv = kv_cache_bytes_per_sequence(s.model, isl, s.kv_precision) / isl
    reread = np.maximum(prefix_all - c, 0.0) * per_token_kv / (_kv_divisor(s) * pp)
    hbm = s.hbm_bw * f.hbm_bandwidth_eff_frac
    t_reread = reread / hbm * pp
    t_expand = np.zeros_like(c)
    m = s.model
    if m.attention_type == "mla":
        rope = m.mla_qk_rope_head_dim or 0
        nope = m.mla_qk_nope_head_dim if m.mla_qk_nope_head_dim is not None else m.head_dim - rope
        v = m.v_head_dim if m.v_head_dim is not None else nope
        heads = m.attention_heads
        up_flop = 2.0 * (m.mla_kv_lora_rank or 0) * heads * (nope + v) * a.layers * prefix_all
        bf16_peak = s.hw.dense_tflops("bf16") * FLOPS_PER_TFLOPS
        gemm_rate = min(gemm_kernel(s.hw, "gemm", "bf16").max_flop_per_s, bf16_peak) * f.prefill_compute_eff_frac
        # expanded BF16 keys (nope + rope) and values, written once and read once
        expanded = 2.0 * 2.0 * heads * (nope + rope + v) * a.layers * prefix_all
        t_expand = (up_flop / gemm_rate + expanded / hbm) / n * pp
    context = t_attn + t_reread + t_expand
    if latency:
        context = context * (cfg.tp / cfg.attention_group)
    return np.asarray(context, dtype=float)
