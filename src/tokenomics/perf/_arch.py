"""Parameter and FLOP counts of a model architecture, as the roofline needs them.

Weights are split into the parts that behave differently at decode time:

* **routed experts**: read only when a token of the batch is routed to them;
* **attention**: replicated on every rank under data-parallel attention;
* **other always-read weights**: dense-layer FFNs, shared experts, routers, norms and the LM head.

Counts come from the structural widths (SwiGLU FFNs: three ``hidden x ffn`` matrices; the
attention projections of GQA, MLA or DeepSeek-V4's compressed attention with its low-rank query
and grouped low-rank output; an untied ``vocab x hidden`` LM head). Where a width is not
in the catalog the published totals fill in:

* one routed expert ``p_e = (P_total - P_active) / (moe_layers x (E - k))`` (the parameters a
  token does *not* touch are exactly the ``E - k`` unrouted experts of each MoE layer);
* always-read ``P_always = max(P_active - moe_layers x k x p_e - P_attention - vocab x hidden,
  vocab x hidden)``.

The input embedding table is looked up, not streamed: a batch reads only its own rows, so it is
stored but never counted as read.
"""

from __future__ import annotations

from dataclasses import dataclass

from tokenomics.catalog import Model
from tokenomics.memory.kv_cache import linear_state_bytes_per_sequence

_BILLION = 1e9


@dataclass(frozen=True)
class Arch:
    """Derived counts of one model architecture (all in parameters or FLOP, SI)."""

    model_id: str
    layers: int
    moe_layers: int
    hidden: int
    routed_experts: int
    active_experts: int
    expert_params: float
    """Parameters of one routed expert (all its matrices)."""
    always_params: float
    """Parameters read every step except the attention ones: dense FFN, shared experts, LM head."""
    attention_params: float
    """Attention projection parameters over all layers."""
    embedding_params: float
    """Input embedding table (not streamed at decode)."""
    total_params: float
    decode_attn_flop_per_ctx_token: float
    """Attention FLOP per generated token per context token, summed over full-attention layers."""
    window_attn_flop_per_ctx_token: float
    """The same for the sliding-window layers (their context is capped at the window)."""
    prefill_attn_flop_per_pair: float
    """Prefill attention FLOP per (query, key) pair, summed over full-attention layers."""
    window_prefill_attn_flop_per_pair: float
    """The same for the sliding-window layers."""
    window_tokens: float
    """Sliding-window length [tokens] (0 when there are no window layers)."""
    linear_attn_flop_per_token: float = 0.0
    """Linear-attention FLOP per token, summed over those layers (independent of the context)."""
    linear_state_bytes: float = 0.0
    """Linear-attention state of one sequence, all layers
    (:func:`~tokenomics.memory.kv_cache.linear_state_bytes_per_sequence`) [bytes]."""

    @property
    def routed_params(self) -> float:
        """All routed-expert parameters [parameters]."""
        return float(self.moe_layers * self.routed_experts * self.expert_params)

    @property
    def linear_flop_per_token(self) -> float:
        """Matrix-multiply FLOP per token: ``2 x`` the active, streamed parameters [FLOP]."""
        return 2.0 * (
            self.attention_params
            + self.always_params
            + self.moe_layers * self.active_experts * self.expert_params
        )


def _attention_params_per_layer(m: Model) -> float:
    heads = m.attention_heads
    hidden = m.hidden_size
    if m.attention_type == "mla":
        rope = m.mla_qk_rope_head_dim or 0
        nope = m.mla_qk_nope_head_dim if m.mla_qk_nope_head_dim is not None else m.head_dim - rope
        v = m.v_head_dim if m.v_head_dim is not None else nope
        kv_lora = m.mla_kv_lora_rank or 0
        qk = nope + rope
        q = hidden * m.mla_q_lora_rank + m.mla_q_lora_rank * heads * qk if m.mla_q_lora_rank else hidden * heads * qk
        kv = hidden * (kv_lora + rope) + kv_lora * heads * (nope + v)
        return float(q + kv + heads * v * hidden)
    if m.attention_type == "csa":
        # DeepSeek-V4: query hidden -> q_lora -> heads x head_dim; one head_dim-wide entry per KV
        # head serves as K and V; grouped low-rank output: heads x head_dim -> o_groups x
        # o_lora (each group its own block) -> hidden. Full rank where a rank is not given. The
        # compressor and lightning-indexer projections are not counted.
        kv_heads = m.kv_heads if m.kv_heads is not None else 1
        width = heads * m.head_dim
        q_rank = m.mla_q_lora_rank
        q = hidden * q_rank + q_rank * width if q_rank else hidden * width
        o = width * m.o_lora_rank + (m.o_groups or 1) * m.o_lora_rank * hidden if m.o_lora_rank else width * hidden
        return float(q + hidden * kv_heads * m.head_dim + o)
    v = m.v_head_dim if m.v_head_dim is not None else m.head_dim
    kv_heads = m.kv_heads if m.kv_heads is not None else heads
    return float(
        hidden * heads * m.head_dim + hidden * kv_heads * (m.head_dim + v) + heads * v * hidden
    )


def _attn_flop_per_pair(m: Model, *, decode: bool) -> float:
    """Attention FLOP per (query token, key token) pair in one layer.

    Decode of MLA uses the absorbed form (scores and values against the shared latent):
    ``2 x heads x (2 x kv_lora + rope)``. Prefill of MLA and every GQA/MHA pass use the
    per-head form: ``2 x heads x (qk_dim + v_dim)``.
    """
    heads = m.attention_heads
    if m.attention_type == "mla" and decode:
        kv_lora = m.mla_kv_lora_rank or 0
        rope = m.mla_qk_rope_head_dim or 0
        return 2.0 * heads * (2 * kv_lora + rope)
    v = m.v_head_dim if m.v_head_dim is not None else m.head_dim
    return 2.0 * heads * (m.head_dim + v)


_ARCHS: dict[int, tuple[Model, Arch]] = {}
"""Derived counts by model identity: models are frozen, and each entry keeps its model so that
its identity is not reused while cached."""


def arch(m: Model) -> Arch:
    """Return the derived counts of a model.

    Parameters
    ----------
    m : Model
        Catalog model.

    Returns
    -------
    Arch
        Parameter and FLOP counts.

    Raises
    ------
    ValueError
        If the MoE fields are inconsistent or the active parameters exceed the total.
    """
    hit = _ARCHS.get(id(m))
    if hit is not None and hit[0] is m:
        return hit[1]
    a = _derive(m)
    if len(_ARCHS) >= 1024:
        _ARCHS.clear()
    _ARCHS[id(m)] = (m, a)
    return a


def _derive(m: Model) -> Arch:
    """:func:`arch`, uncached."""
    total = m.total_params_b * _BILLION
    active = m.active_params_b * _BILLION
    embedding = float(m.vocab_size * m.hidden_size)
    moe_layers = int(m.moe_layers or 0) if m.is_moe else 0
    experts = int(m.routed_experts or 0)
    k = int(m.active_experts or 0)
    if m.is_moe and (moe_layers <= 0 or k <= 0 or experts <= k):
        raise ValueError(
            f"{m.model_id}: an MoE model needs moe_layers > 0 and 0 < active_experts < "
            f"routed_experts (got {moe_layers}, {k}, {experts})"
        )
    if active > total:
        raise ValueError(f"{m.model_id}: active_params_b={m.active_params_b} > total_params_b")
    lm_head = embedding  # untied output projection: vocab x hidden, streamed every step
    swiglu = 3 * m.hidden_size  # gate, up and down matrices per FFN width unit
    if m.is_moe:
        expert = (
            float(swiglu * m.expert_ffn_size)
            if m.expert_ffn_size
            else (total - active) / (moe_layers * (experts - k))
        )
        n_dense = m.dense_layers if m.dense_layers is not None else m.layers - moe_layers
        shared = float((m.shared_experts or 0) * expert * moe_layers)
    else:
        expert, n_dense, shared = 0.0, m.layers, 0.0
    attention = _attention_params_per_layer(m) * m.layers
    if n_dense and not m.dense_ffn_size:
        # widths unknown: what the published active count leaves after experts, attention and
        # the embedding table, but never less than the LM head
        always = max(active - moe_layers * k * expert - attention - embedding, lm_head)
    else:
        always = float(n_dense * swiglu * (m.dense_ffn_size or 0)) + shared + lm_head
    window_layers = int(m.sliding_window_layers or 0)
    linear_layers = int(m.linear_attention_layers or 0)
    # linear-attention layers attend through their recurrent state, not over the context
    full_layers = m.layers - window_layers - linear_layers
    dec = _attn_flop_per_pair(m, decode=True)
    pre = _attn_flop_per_pair(m, decode=False)
    return Arch(
        model_id=m.model_id,
        layers=m.layers,
        moe_layers=moe_layers,
        hidden=m.hidden_size,
        routed_experts=experts,
        active_experts=k,
        expert_params=expert,
        always_params=always,
        attention_params=attention,
        embedding_params=embedding,
        total_params=total,
        decode_attn_flop_per_ctx_token=dec * full_layers,
        window_attn_flop_per_ctx_token=dec * window_layers,
        prefill_attn_flop_per_pair=pre * full_layers,
        window_prefill_attn_flop_per_pair=pre * window_layers,
        window_tokens=float(m.sliding_window_tokens or 0) if window_layers else 0.0,
        linear_attn_flop_per_token=_linear_attn_flop_per_token(m) * linear_layers,
        linear_state_bytes=linear_state_bytes_per_sequence(m),
    )


def _linear_attn_flop_per_token(m: Model) -> float:
    """Recurrent-state FLOP per token of one linear-attention layer.

    Gated DeltaNet per value head: the state's read-out of the key, the rank-one delta update
    and the query's read-out, three ``key_dim x value_dim`` matrix-vector products of 2 FLOP
    per element: ``6 x value_heads x key_dim x value_dim`` (the widths are checked by
    :func:`~tokenomics.memory.kv_cache.linear_state_bytes_per_sequence`).
    """
    return 6.0 * (m.linear_value_heads or 0) * (m.linear_key_head_dim or 0) * (m.linear_value_head_dim or 0)
