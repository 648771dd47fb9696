"""Published acceptance rates of speculative decoding (MTP, draft models) per model.

A setting is the number of draft tokens ``n`` per decode step and the per-token acceptance rate
``a``; a step then emits ``(1 - a^(n+1)) / (1 - a)`` tokens per sequence on average
(:attr:`tokenomics.perf.ServingConfig.tokens_per_step`). Where the source publishes the mean
accepted length ``L`` per step instead, ``a`` is solved from it (:func:`rate_for_length`), so the
expected tokens per step equal the published length. Only models with a published acceptance
figure are listed; every other model is searched without speculative decoding. Each draft
token also costs a pass of the MTP module (:mod:`tokenomics.perf.step`).
"""

from __future__ import annotations

from dataclasses import dataclass

from scipy.optimize import brentq

from tokenomics.catalog import Model

_DEEPSEEK_MTP = ("deepseek-v3", "deepseek-v3.1", "deepseek-v3.2", "deepseek-r1")

_INFERENCEX_GOLDEN_AL = (
    "SemiAnalysisAI/InferenceX golden_al_distribution/dsv4_mtp.yaml (commit ab51b0612d3a, 2026-06-26): "
    "mean acceptance length on the SPEED-Bench coding category (arXiv:2604.09557), temperature 1.0, "
    "thinking on, DeepSeek-V4-Pro MTP on B300 with vLLM; the acceptance length InferenceX pins its "
    "DeepSeek-V4 MTP runs to (synthetic acceptance)"
)


def rate_for_length(draft_tokens: int, accepted_length: float) -> float:
    """Return the per-token acceptance rate ``a`` whose expected accepted length is given.

    Solves ``(1 - a^(n+1)) / (1 - a) = L`` for ``a`` in (0, 1) (``L`` counts the token the
    verification pass emits itself, so ``1 < L < n + 1``).

    Parameters
    ----------
    draft_tokens : int
        Draft tokens per step ``n`` [count], >= 1.
    accepted_length : float
        Mean tokens emitted per step ``L`` [tokens], in (1, n + 1).

    Returns
    -------
    float
        Per-token acceptance rate, 0..1.

    Raises
    ------
    ValueError
        If ``L`` is outside (1, n + 1) or ``n < 1``.

    Examples
    --------
    >>> round(rate_for_length(1, 1.79), 6)
    0.79
    """
    n, length = int(draft_tokens), float(accepted_length)
    if n < 1 or not 1.0 < length < n + 1.0:
        raise ValueError(
            f"accepted_length={accepted_length!r} must lie in (1, draft_tokens + 1) = (1, {n + 1}) "
            f"for draft_tokens={draft_tokens!r} >= 1"
        )
    return float(brentq(lambda a: sum(a**i for i in range(n + 1)) - length, 0.0, 1.0, xtol=1e-12))


@dataclass(frozen=True)
class SpeculativeSetting:
    """One published speculative-decoding setting of a model family.

    Attributes
    ----------
    model_ids : tuple of str
        Catalog models it applies to.
    method : str
        ``"mtp"`` (the model's own multi-token-prediction module) or a draft-model method.
    draft_tokens : int
        Draft tokens per decode step [count].
    acceptance_frac : float
        Per-token acceptance rate, 0..1.
    source : str
        Where the figure was published.
    note : str
        How the per-token rate was read from the source.
    """

    model_ids: tuple[str, ...]
    method: str
    draft_tokens: int
    acceptance_frac: float
    source: str
    note: str

    def fields(self) -> dict[str, float | int]:
        """Return the :class:`~tokenomics.perf.ServingConfig` fields of this setting."""
        return {"mtp_draft_tokens": self.draft_tokens, "mtp_acceptance_frac": self.acceptance_frac}


_DEEPSEEK_SETTINGS: tuple[SpeculativeSetting, ...] = (
    SpeculativeSetting(
        model_ids=_DEEPSEEK_MTP,
        method="mtp",
        draft_tokens=1,
        acceptance_frac=0.85,
        source="DeepSeek-V3 Technical Report, arXiv:2412.19437, section 5.4.3 (2024-12-27)",
        note="acceptance of the second-token prediction 85-90 % across generation topics; low end used",
    ),
    SpeculativeSetting(
        model_ids=_DEEPSEEK_MTP,
        method="mtp",
        draft_tokens=3,
        acceptance_frac=0.70,
        source=(
            "huggingface.co/nebius/MTP-DeepSeek-V3-0324 model card, table 'Original MTP' "
            "(read 2026-11-29)"
        ),
        note=(
            "DeepSeek's own MTP module reused autoregressively: mean acceptance length 3.20 "
            "(temperature 0) and 3.09 (temperature 1) at K = 7 draft tokens; the per-token rate "
            "a solving (1 - a^8) / (1 - a) = 3.09..3.20 is 0.69..0.71; 0.70 used for 3 draft "
            "tokens (later positions accept less, so a constant rate is an average)"
        ),
    ),
)

def _from_lengths(model_ids: tuple[str, ...], source: str,
                  lengths: tuple[tuple[int, float], ...]) -> tuple[SpeculativeSetting, ...]:
    """MTP settings from published mean acceptance lengths per number of draft tokens."""
    return tuple(
        SpeculativeSetting(
            model_ids=model_ids,
            method="mtp",
            draft_tokens=n,
            acceptance_frac=rate_for_length(n, length),
            source=source,
            note=f"mean acceptance length {length} at {n} draft token{'s' if n > 1 else ''}; the per-token "
            f"rate is solved from it, so tokens per step equal the published length",
        )
        for n, length in lengths
    )


_DEEPSEEK_V4_SETTINGS = _from_lengths(("deepseek-v4-pro",), _INFERENCEX_GOLDEN_AL, ((1, 1.79), (2, 2.27), (3, 2.49)))

_QWEN35_SETTINGS = _from_lengths(
    ("qwen3.5-397b-a17b",),
    "SemiAnalysisAI/InferenceX golden_al_distribution/qwen3.5_mtp.yaml (commit ab51b0612d3a, 2026-06-26): "
    "mean acceptance length on the SPEED-Bench coding category, thinking on, Qwen3.5-397B-A17B NVFP4 "
    "MTP on B300 with vLLM",
    ((1, 1.93), (2, 2.73), (3, 3.39)),
)

SPECULATIVE_SETTINGS: tuple[SpeculativeSetting, ...] = _DEEPSEEK_SETTINGS + _DEEPSEEK_V4_SETTINGS + _QWEN35_SETTINGS
"""Published settings, one row per (model family, draft tokens)."""


def speculative_settings(model: Model | str) -> list[SpeculativeSetting]:
    """Return the published speculative-decoding settings of a model (possibly none).

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).

    Returns
    -------
    list of SpeculativeSetting
        Settings with a published acceptance rate, fewest draft tokens first.

    Raises
    ------
    KeyError
        For an unknown model name (close matches listed).

    Examples
    --------
    >>> [(s.draft_tokens, s.acceptance_frac) for s in speculative_settings("deepseek-r1")]
    [(1, 0.85), (3, 0.7)]
    >>> speculative_settings("llama-3.3-70b")
    []
    """
    from tokenomics.catalog import model as lookup

    m = lookup(model) if isinstance(model, str) else model
    found = [s for s in SPECULATIVE_SETTINGS if m.model_id in s.model_ids]
    return sorted(found, key=lambda s: s.draft_tokens)
