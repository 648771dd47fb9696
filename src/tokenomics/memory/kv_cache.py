"""KV-cache size per token and per sequence, by attention type and KV precision.

The formulas (per layer, per token):

* MHA / GQA: ``kv_heads x (head_dim + v_head_dim) x bytes`` (K and V).
* MLA (DeepSeek-V3 family, Kimi K2): one shared latent ``kv_lora_rank`` plus the decoupled RoPE
  key ``qk_rope_head_dim``; in BF16 ``(kv_lora_rank + qk_rope_head_dim) x 2`` bytes. In FP8 the
  FlashMLA cache layout stores the latent in FP8 with one FP32 scale per 128 values and keeps the
  RoPE part in BF16: ``kv_lora_rank + kv_lora_rank / 128 x 4 + qk_rope_head_dim x 2`` bytes
  (656 bytes for DeepSeek-V3).
* Sliding-window layers hold at most ``sliding_window_tokens`` tokens per sequence.
* Linear-attention layers (``linear_attention_layers``: Gated DeltaNet, Kimi Delta Attention) keep
  a fixed-size recurrent state and no per-token cache; they are not counted here. Their state per
  sequence is :func:`linear_state_bytes_per_sequence`.
* DeepSeek-V4 compressed attention (``attention_type == "csa"``): one entry of ``head_dim`` values
  per KV head serves as both K and V; CSA and HCA layers store one row per ``csa_compress_ratio`` /
  ``hca_compress_ratio`` tokens plus the raw ``sliding_window_tokens`` window (DeepSeek-V4 model
  card, 2026-04-24). The CSA lightning-indexer keys are not counted.
"""

from __future__ import annotations

from typing import Any, overload

import numpy as np
import pandas as pd

from tokenomics import catalog
from tokenomics._validate import check_positive
from tokenomics.catalog import Model
from tokenomics.precision import bytes_per_element, canonical_precision

_MLA_FP8_SCALE_GROUP = 128
"""Latent values per FP32 scale in the FlashMLA FP8 KV layout (deepseek-ai/FlashMLA, docs
20250929-hopper-fp8-sparse-deep-dive.md, 2025-09-29)."""
_FP32_BYTES = 4.0
_BF16_BYTES = 2.0
LINEAR_STATE_BYTES: float = _FP32_BYTES
"""Bytes per element of a linear-attention layer's recurrent state: FP32, the ``mamba_ssm_dtype``
of the Qwen3.5 checkpoints (huggingface.co/Qwen/Qwen3.5-397B-A17B config.json), which SGLang and
vLLM adopt unless told otherwise (SGLang ``--mamba-ssm-dtype``)."""
LINEAR_CONV_STATE_BYTES: float = _BF16_BYTES
"""Bytes per element of the short-convolution state: the activation precision (BF16)."""


def _model(model: Model | str) -> Model:
    return catalog.model(model) if isinstance(model, str) else model


def _window_layers(m: Model) -> tuple[int, float]:
    """Return (sliding-window layers, window length [tokens]) of a model, checked for consistency."""
    layers = m.sliding_window_layers or 0
    if layers > m.layers:
        raise ValueError(
            f"{m.model_id}: sliding_window_layers={layers} exceeds layers={m.layers}"
        )
    if layers and not m.sliding_window_tokens:
        raise ValueError(
            f"{m.model_id}: sliding_window_layers={layers} but sliding_window_tokens is missing; "
            "the window length is needed to size the cache of those layers"
        )
    return layers, float(m.sliding_window_tokens or 0)


def _layer_mix(m: Model) -> tuple[float, float, float]:
    """Return (full-cache layers, window-only layers, compressed rows per token summed over layers).

    Compressed layers (CSA/HCA) also hold the raw window; their window part is added by the
    callers through ``window_equivalent`` = window-only + compressed layer count.
    """
    window_layers, _ = _window_layers(m)
    linear = m.linear_attention_layers or 0
    csa, hca = m.csa_layers or 0, m.hca_layers or 0
    if (csa and not m.csa_compress_ratio) or (hca and not m.hca_compress_ratio):
        raise ValueError(f"{m.model_id}: compressed-attention layers need their compress ratio")
    full = m.layers - window_layers - linear - csa - hca
    if full < 0:
        raise ValueError(
            f"{m.model_id}: window ({window_layers}) + linear ({linear}) + CSA ({csa}) + HCA ({hca}) "
            f"layers exceed layers={m.layers}"
        )
    rows = (csa / m.csa_compress_ratio if csa and m.csa_compress_ratio else 0.0) + (
        hca / m.hca_compress_ratio if hca and m.hca_compress_ratio else 0.0
    )
    return float(full), float(window_layers + csa + hca), rows


def kv_bytes_per_token_per_layer(model: Model | str, kv_precision: str = "bf16") -> float:
    """Return KV-cache bytes one token occupies in one attention layer.

    Parameters
    ----------
    model : Model or str
        Catalog model or its name.
    kv_precision : str
        KV-cache precision (``"bf16"``, ``"fp8"``, ``"fp4"``).

    Returns
    -------
    float
        Bytes per token per layer [bytes].

    Raises
    ------
    KeyError
        For an unknown model or precision.
    ValueError
        If the model lacks the dimensions its attention type needs.

    Examples
    --------
    >>> kv_bytes_per_token_per_layer("llama-3.3-70b", "bf16")  # 8 KV heads x 128 x 2 (K,V) x 2 B
    4096.0
    """
    m = _model(model)
    prec = canonical_precision(kv_precision)
    if m.attention_type == "mla":
        if m.mla_kv_lora_rank is None or m.mla_qk_rope_head_dim is None:
            raise ValueError(f"{m.model_id}: MLA needs mla_kv_lora_rank and mla_qk_rope_head_dim")
        if prec == "fp8":
            scales = m.mla_kv_lora_rank / _MLA_FP8_SCALE_GROUP * _FP32_BYTES
            return float(m.mla_kv_lora_rank + scales + m.mla_qk_rope_head_dim * _BF16_BYTES)
        return float((m.mla_kv_lora_rank + m.mla_qk_rope_head_dim) * bytes_per_element(prec))
    if m.kv_heads is None:
        raise ValueError(f"{m.model_id}: {m.attention_type} attention needs kv_heads")
    if m.attention_type == "csa":
        return float(m.kv_heads * m.head_dim * bytes_per_element(prec))
    v_dim = m.v_head_dim if m.v_head_dim is not None else m.head_dim
    return float(m.kv_heads * (m.head_dim + v_dim) * bytes_per_element(prec))


@overload
def kv_cache_bytes_per_sequence(model: Model | str, context_tokens: float, kv_precision: str = ...) -> float: ...
@overload
def kv_cache_bytes_per_sequence(
    model: Model | str, context_tokens: np.ndarray, kv_precision: str = ...
) -> np.ndarray: ...
@overload
def kv_cache_bytes_per_sequence(
    model: Model | str, context_tokens: pd.Series, kv_precision: str = ...
) -> pd.Series: ...
def kv_cache_bytes_per_sequence(model: Model | str, context_tokens: Any, kv_precision: str = "bf16") -> Any:
    """Return the KV-cache bytes of one sequence of a given context length.

    Formula: ``per_layer x ((full_layers + csa/r_csa + hca/r_hca) x L + (window_layers + csa + hca)
    x min(L, window))`` where ``L`` is the context length, ``per_layer`` comes from
    :func:`kv_bytes_per_token_per_layer`, and linear-attention layers count for nothing.

    Parameters
    ----------
    model : Model or str
        Catalog model or its name.
    context_tokens : float, ndarray or Series
        Tokens in the context (prompt plus generated so far) [tokens], > 0.
    kv_precision : str
        KV-cache precision.

    Returns
    -------
    float, ndarray or Series
        KV-cache bytes per sequence [bytes]; same container as ``context_tokens``.

    Raises
    ------
    KeyError
        For an unknown model or precision.
    ValueError
        If any context length is not positive, or the model's sliding-window fields are
        inconsistent (window layers without a window length, or more window layers than layers).

    Examples
    --------
    >>> kv_cache_bytes_per_sequence("llama-3.3-70b", 1000.0)  # 80 layers x 4096 B x 1000
    327680000.0
    """
    check_positive("context_tokens", context_tokens)
    m = _model(model)
    raw = context_tokens.to_numpy(dtype=float) if isinstance(context_tokens, pd.Series) else context_tokens
    out = kv_sequence_bytes(m, np.asarray(raw, dtype=float), kv_precision)
    if isinstance(context_tokens, pd.Series):
        return pd.Series(out, index=context_tokens.index, name="kv_cache_bytes")
    if np.ndim(out) == 0:
        return float(out)
    return out


_SEQUENCE_COEFFICIENTS: dict[tuple[int, str], tuple[Model, float, float, float]] = {}
"""Per (model object, KV precision): the model and the bytes per context token of the growing
layers, of the windowed layers and the window length (the model object is kept alive so its id is
not reused)."""


def kv_sequence_bytes(m: Model, context_tokens: np.ndarray, kv_precision: str) -> np.ndarray:
    """Return :func:`kv_cache_bytes_per_sequence` of a resolved model, context lengths unchecked.

    For hot paths whose context lengths are positive by construction; the per-model coefficients
    are computed once per model and precision.

    Parameters
    ----------
    m : Model
        Resolved catalog model.
    context_tokens : ndarray
        Context lengths [tokens], > 0 (not checked).
    kv_precision : str
        KV-cache precision.

    Returns
    -------
    ndarray
        KV-cache bytes per sequence [bytes].
    """
    key = (id(m), kv_precision)
    coef = _SEQUENCE_COEFFICIENTS.get(key)
    if coef is None or coef[0] is not m:
        per_layer = kv_bytes_per_token_per_layer(m, kv_precision)
        _, window = _window_layers(m)
        full_layers, windowed, compressed_rows = _layer_mix(m)
        if len(_SEQUENCE_COEFFICIENTS) > 1024:
            _SEQUENCE_COEFFICIENTS.clear()
        coef = (m, per_layer * (full_layers + compressed_rows), per_layer * windowed, float(window))
        _SEQUENCE_COEFFICIENTS[key] = coef
    _, growing, windowed_bytes, window = coef
    if windowed_bytes == 0.0:
        return growing * context_tokens
    return growing * context_tokens + windowed_bytes * np.minimum(context_tokens, window)


def kv_cache_bytes_per_token(
    model: Model | str, kv_precision: str = "bf16", context_tokens: Any = None
) -> Any:
    """Return KV-cache bytes per token of context.

    Without ``context_tokens`` this is the marginal size of one more token in a long context:
    ``per_layer x full_layers`` (sliding-window layers add nothing once the context exceeds the
    window). With ``context_tokens`` it is the average over the sequence,
    ``kv_cache_bytes_per_sequence(L) / L``, which counts the window layers' bounded cache.

    Parameters
    ----------
    model : Model or str
        Catalog model or its name.
    kv_precision : str
        KV-cache precision (``"bf16"``, ``"fp8"``, ``"fp4"``).
    context_tokens : float, ndarray or Series, optional
        Context length(s) [tokens] for the averaged figure.

    Returns
    -------
    float, ndarray or Series
        Bytes per token [bytes/token].

    Raises
    ------
    KeyError
        For an unknown model or precision.
    ValueError
        If a context length is not positive, or the model's sliding-window fields are
        inconsistent.

    Examples
    --------
    >>> kv_cache_bytes_per_token("deepseek-v3", "bf16")  # 61 layers x (512 + 64) x 2 B
    70272.0
    """
    m = _model(model)
    if context_tokens is None:
        full_layers, _, compressed_rows = _layer_mix(m)
        return kv_bytes_per_token_per_layer(m, kv_precision) * (full_layers + compressed_rows)
    total = kv_cache_bytes_per_sequence(m, context_tokens, kv_precision)
    if isinstance(context_tokens, pd.Series):
        return (total / context_tokens.astype(float)).rename("kv_cache_bytes_per_token")
    return total / np.asarray(context_tokens, dtype=float) if np.ndim(total) else total / float(context_tokens)


def linear_state_bytes_per_sequence(model: Model | str) -> float:
    """Return the recurrent state one sequence keeps in the linear-attention layers.

    Formula, summed over ``linear_attention_layers``: ``value_heads x key_head_dim x
    value_head_dim x 4 B`` (the FP32 recurrent state, :data:`LINEAR_STATE_BYTES`) plus
    ``(conv_kernel - 1) x (2 x key_heads x key_head_dim + value_heads x value_head_dim) x 2 B``
    (the convolution's last tokens of q, k and v). The state does not grow with the context; a
    decode step reads and rewrites it.

    Parameters
    ----------
    model : Model or str
        Catalog model or its name.

    Returns
    -------
    float
        State bytes per sequence [bytes]; 0 for a model without linear-attention layers.

    Raises
    ------
    KeyError
        For an unknown model.
    ValueError
        If the model has linear-attention layers but not their head counts and widths.

    Examples
    --------
    >>> round(linear_state_bytes_per_sequence("qwen3.5-397b-a17b") / 1e6, 1)  # 45 x (4.19 + 0.07) MB
    192.1
    """
    m = _model(model)
    layers = m.linear_attention_layers or 0
    if not layers:
        return 0.0
    widths = {"linear_key_heads": m.linear_key_heads, "linear_value_heads": m.linear_value_heads,
              "linear_key_head_dim": m.linear_key_head_dim, "linear_value_head_dim": m.linear_value_head_dim,
              "linear_conv_kernel": m.linear_conv_kernel}
    missing = [k for k, v in widths.items() if not v]
    if missing:
        raise ValueError(f"{m.model_id}: {layers} linear-attention layers need {', '.join(missing)}")
    kh, vh = float(m.linear_key_heads or 0), float(m.linear_value_heads or 0)
    dk, dv = float(m.linear_key_head_dim or 0), float(m.linear_value_head_dim or 0)
    recurrent = vh * dk * dv * LINEAR_STATE_BYTES
    conv = (float(m.linear_conv_kernel or 0) - 1.0) * (2.0 * kh * dk + vh * dv) * LINEAR_CONV_STATE_BYTES
    return float(layers * (recurrent + conv))
