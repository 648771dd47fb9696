"""The traffic being served: fixed-sequence benchmarks or multi-turn sessions.

A :class:`Workload` fixes the tokens a request carries (input, of which a theoretical share is a
prefix already seen, and output) and, for session traffic, how many turns a session has and how
long it sits idle between turns. The token mix used by the economics (uncached input / cached
input / output shares) is derived from it, never passed beside it.

Presets are looked up by name with :func:`workload`; :data:`DEFAULT_WORKLOAD` is the one default
used by every entry point.
"""

from __future__ import annotations

import itertools
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from tokenomics._validate import check_fraction, check_range, normalize_name, unknown_name_error
from tokenomics.economics import TokenMix

#: Name of the workload every entry point uses when none is given.
DEFAULT_WORKLOAD = "8k/1k"

# Plausible bounds of the fields (a slip of units or of a thousand lands outside them).
_MAX_TOKENS = 2_000_000.0
_MAX_IDLE_S = 86_400.0
_MAX_TURNS = 10_000.0


class Workload(BaseModel):
    """A served workload: tokens per request and, for sessions, turns and idle gaps.

    Parameters
    ----------
    name : str
        Label used in tables and charts, e.g. ``"8k/1k"``.
    isl_tokens : float
        Mean input tokens per request, cached prefix included, in (0, 2e6] [tokens].
    osl_tokens : float
        Mean output tokens per request, in (0, 2e6] [tokens].
    kind : {"fixed", "sessions"}, default "fixed"
        ``"fixed"``: independent requests of one ISL/OSL (InferenceX, MLPerf style).
        ``"sessions"``: multi-turn sessions whose prompt is the growing session context.
    cached_prefix_frac : float, default 0
        Theoretical prefix-cache hit rate: share of input tokens that repeat a prefix already
        served (with an unbounded cache), in [0, 1]. The realized rate is lower when the working
        set outgrows KV capacity; the performance model computes it.
    turns_per_session : float, default 1
        Mean requests per session, >= 1.
    idle_s_between_turns : float, default 0
        Mean idle time between a session's turns (tool calls, user think time) [s].
    isl_quantiles_tokens : dict of float to float, optional
        Input-length distribution as quantile (0..1) -> tokens, e.g. ``{0.5: 64_000, 0.9: 110_000}``.
    osl_quantiles_tokens : dict of float to float, optional
        Output-length distribution, same form.
    source : str, default ""
        Where the figures come from (URL or file and date).

    Examples
    --------
    >>> w = Workload(name="8k/1k", isl_tokens=8192, osl_tokens=1024)
    >>> round(w.token_mix().input_share_frac, 4)
    0.8889
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    isl_tokens: float
    osl_tokens: float
    kind: Literal["fixed", "sessions"] = "fixed"
    cached_prefix_frac: float = 0.0
    turns_per_session: float = 1.0
    idle_s_between_turns: float = 0.0
    isl_quantiles_tokens: dict[float, float] | None = None
    osl_quantiles_tokens: dict[float, float] | None = None
    source: str = ""

    @field_validator("isl_tokens", "osl_tokens")
    @classmethod
    def _tokens(cls, value: float, info: Any) -> float:
        check_range(info.field_name, value, low=0.0, high=_MAX_TOKENS, low_inclusive=False)
        return float(value)

    @field_validator("cached_prefix_frac")
    @classmethod
    def _fraction(cls, value: float, info: Any) -> float:
        check_fraction(info.field_name, value)
        return float(value)

    @field_validator("turns_per_session")
    @classmethod
    def _turns(cls, value: float, info: Any) -> float:
        check_range(info.field_name, value, low=1.0, high=_MAX_TURNS)
        return float(value)

    @field_validator("idle_s_between_turns")
    @classmethod
    def _idle(cls, value: float, info: Any) -> float:
        check_range(info.field_name, value, low=0.0, high=_MAX_IDLE_S)
        return float(value)

    @field_validator("isl_quantiles_tokens", "osl_quantiles_tokens")
    @classmethod
    def _quantiles(cls, value: dict[float, float] | None, info: Any) -> dict[float, float] | None:
        if value is None:
            return None
        if not value:
            raise ValueError(f"{info.field_name}: give at least one quantile or None")
        out: dict[float, float] = {}
        for q, tokens in sorted(value.items()):
            check_fraction(f"{info.field_name} quantile", q)
            check_range(f"{info.field_name}[{q}]", tokens, low=0.0, high=_MAX_TOKENS, low_inclusive=False)
            out[float(q)] = float(tokens)
        values = list(out.values())
        if any(b < a for a, b in itertools.pairwise(values)):
            raise ValueError(f"{info.field_name}: token counts must not fall as the quantile rises, got {out}")
        return out

    @model_validator(mode="after")
    def _consistent(self) -> Workload:
        if self.kind == "fixed" and (self.turns_per_session != 1.0 or self.idle_s_between_turns != 0.0):
            raise ValueError(
                "kind='fixed' serves independent requests: turns_per_session must be 1 and "
                f"idle_s_between_turns 0 (got {self.turns_per_session}, {self.idle_s_between_turns}); "
                "use kind='sessions' for multi-turn traffic"
            )
        return self

    @property
    def input_share_frac(self) -> float:
        """Input tokens / all tokens, cached input included [fraction]."""
        return self.isl_tokens / (self.isl_tokens + self.osl_tokens)

    @property
    def input_per_output_token(self) -> float:
        """Input tokens carried per output token [tokens/token]."""
        return self.isl_tokens / self.osl_tokens

    @property
    def curve_label(self) -> str:
        """Workload label of measured curve points for this traffic, e.g. ``"8k/1k"``.

        A fixed-sequence workload is labelled by its ISL/OSL as benchmarks label it (multiples
        of 1024 as ``"k"``); session traffic by its name.
        """
        if not self.is_fixed:
            return self.name
        return f"{_length_label(self.isl_tokens)}/{_length_label(self.osl_tokens)}"

    @property
    def is_fixed(self) -> bool:
        """True for a fixed-sequence benchmark (independent requests, no reused prefix)."""
        return self.kind == "fixed"

    def token_mix(self, realized_hit_frac: float | None = None) -> TokenMix:
        """Token mix for the economics: input share and the cached share of input.

        Parameters
        ----------
        realized_hit_frac : float, optional
            Prefix-cache hit rate realized in the server, in [0, 1]. Default: the workload's
            theoretical ``cached_prefix_frac``. Must not exceed the theoretical rate.

        Returns
        -------
        TokenMix
            ``input_share_frac = isl / (isl + osl)`` and ``cache_hit_frac`` as above.

        Raises
        ------
        ValueError
            A realized rate outside [0, 1] or above the theoretical one.
        """
        hit = self.cached_prefix_frac if realized_hit_frac is None else float(realized_hit_frac)
        check_fraction("realized_hit_frac", hit)
        if hit > self.cached_prefix_frac + 1e-12:
            raise ValueError(
                f"realized_hit_frac={hit} exceeds the workload's theoretical cached_prefix_frac="
                f"{self.cached_prefix_frac}: a server cannot hit more than the traffic repeats"
            )
        return TokenMix(input_share_frac=self.input_share_frac, cache_hit_frac=hit)


def _length_label(tokens: float) -> str:
    n = round(tokens)
    return f"{n // 1024}k" if n >= 1024 and n % 1024 == 0 else str(n)


_PRESETS: dict[str, Workload] = {}


def register_workload(preset: Workload, *aliases: str) -> None:
    """Make a workload available by name to :func:`workload` and every entry point.

    Parameters
    ----------
    preset : Workload
        The workload; its ``name`` is the lookup key.
    *aliases : str
        Further names for it.
    """
    for key in (preset.name, *aliases):
        _PRESETS[normalize_name(key)] = preset


register_workload(
    Workload(name="8k/1k", isl_tokens=8192, osl_tokens=1024, source="InferenceX fixed-sequence benchmark"),
    "8192/1024",
)
register_workload(
    Workload(name="1k/1k", isl_tokens=1024, osl_tokens=1024, source="InferenceX fixed-sequence benchmark"),
    "1024/1024",
)
register_workload(
    Workload(name="1k/8k", isl_tokens=1024, osl_tokens=8192, source="InferenceX fixed-sequence benchmark"),
    "1024/8192",
)


def workload_names() -> list[str]:
    """Names of the registered workload presets."""
    return sorted({w.name for w in _PRESETS.values()})


def workload(name: str | Workload | None = None) -> Workload:
    """Return a workload preset by name (case and punctuation ignored), or pass one through.

    Parameters
    ----------
    name : str, Workload or None
        A preset name such as ``"8k/1k"``, ``"1k/1k"``, ``"1k/8k"``; a :class:`Workload` is
        returned unchanged; ``None`` gives :data:`DEFAULT_WORKLOAD`.

    Returns
    -------
    Workload
        The workload.

    Raises
    ------
    KeyError
        Unknown name; the message lists close matches.

    Examples
    --------
    >>> workload("8k/1k").isl_tokens
    8192.0
    """
    if isinstance(name, Workload):
        return name
    if name is None:
        name = DEFAULT_WORKLOAD
    if not isinstance(name, str):
        raise TypeError(f"workload: expected a preset name or a Workload, got {type(name).__name__}")
    key = normalize_name(name)
    if key not in _PRESETS:
        raise unknown_name_error("workload", name, workload_names())
    return _PRESETS[key]
