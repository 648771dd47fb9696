"""The traffic being served: fixed-sequence benchmarks or multi-turn sessions.

A :class:`Workload` fixes the tokens a request carries (input, of which a theoretical share is a
prefix already seen, and output) and, for session traffic, how many turns a session has and how
long it sits idle between turns. The token mix used by the economics (uncached input / cached
input / output shares) is derived from it, never passed beside it.

Presets are looked up by name with :func:`workload`; :data:`DEFAULT_WORKLOAD` is the one default
used by every entry point.
"""

from __future__ import annotations

import difflib
import itertools
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from tokenomics._validate import (
    check_fraction,
    check_numeric,
    check_plausible,
    check_range,
    normalize_name,
    unknown_name_error,
)
from tokenomics.catalog import data_dir, on_reset
from tokenomics.economics import TokenMix

#: Name of the workload every entry point uses when none is given.
DEFAULT_WORKLOAD = "8k/1k"

# Plausible bounds of the fields (a slip of units or of a thousand lands outside them).
_MAX_TOKENS = 2_000_000.0
_THOUSANDS_SLIP = 64.0
"""ISL and OSL both fractional and below this read as thousands of tokens (``8.192`` for 8,192)."""
_MAX_IDLE_S = 3_600.0
"""Longest plausible gap between two turns of a session [s]; longer ones are read as a ms-for-s slip
(a session idle for over an hour has ended: its prefix would have left any cache)."""
_IDLE_SLIP_HINT = ("milliseconds written as seconds, 17.9 s is 17900 ms; a session idle for over an hour "
                   "between two turns has ended")
_MAX_TURNS = 10_000.0


class Workload(BaseModel):
    """A served workload: tokens per request and, for sessions, turns and idle gaps.

    Parameters
    ----------
    name : str
        Label used in tables and charts, e.g. ``"8k/1k"``.
    isl_tokens : float
        Mean input tokens per request, cached prefix included, in [1, 2e6] [tokens].
    osl_tokens : float
        Mean output tokens per request, in [1, 2e6] [tokens].
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
        Mean idle time between a session's turns (tool calls, user think time) [s], in [0, 3600]
        (longer is read as milliseconds written as seconds).
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

    @field_validator("isl_tokens", "osl_tokens", "cached_prefix_frac", "turns_per_session", "idle_s_between_turns",
                     mode="before")
    @classmethod
    def _number(cls, value: Any, info: Any) -> Any:
        check_numeric(info.field_name, value)  # "8192" or True is not coerced into a number
        return value

    @field_validator("isl_tokens", "osl_tokens")
    @classmethod
    def _tokens(cls, value: float, info: Any) -> float:
        check_range(info.field_name, value, low=1.0, high=_MAX_TOKENS)
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
        check_plausible(info.field_name, value, low=0.0, high=_MAX_IDLE_S, unit="s", allow_zero=True,
                        high_hint=_IDLE_SLIP_HINT)
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
        isl, osl = self.isl_tokens, self.osl_tokens
        if isl < _THOUSANDS_SLIP and osl < _THOUSANDS_SLIP and (isl % 1 or osl % 1):
            raise ValueError(
                f"isl_tokens={isl:g}, osl_tokens={osl:g} look like thousands of tokens (give "
                f"{isl * 1000:g} / {osl * 1000:g}): both are fractional token counts below {_THOUSANDS_SLIP:g}"
            )
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
        return isl_osl_label(self.isl_tokens, self.osl_tokens)

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

    @classmethod
    def from_results(
        cls,
        points: Any,
        *,
        name: str = "agentic",
        idle_s_between_turns: float = 0.0,
        turns_per_session: float = 1.0,
    ) -> Workload:
        """Build a sessions workload from agentic benchmark results (AgentX or early agentic rows).

        Token statistics and the theoretical hit rate are pooled over the runs, each run weighted
        by its completed requests: ``isl = sum(n_r x mean_isl_r) / sum(n_r)``; the p50/p90
        quantiles are pooled the same way (an approximation of the pooled distribution).

        Every run must carry every field the pooling uses: the mean input and output tokens and
        the theoretical hit rate, the completed requests (> 0; a single run may omit them, its
        weight does not matter) and each quantile that any run gives (a quantile given by no run
        is left out of the workload).

        Parameters
        ----------
        points : path, iterable of paths, mapping, iterable of mappings or DataFrame
            Result files or directories (read by :func:`read_agentic_runs`; an AgentX aggregate
            gives ``request_metrics.tokens.input.mean`` and the like), decoded JSON rows, or a run
            table (DataFrame, or mappings) with the columns of :func:`read_agentic_runs`. A run
            table and a flat result row accept the same names, in either spelling (run-table /
            early flat row): ``input_tokens_mean`` / ``mean_input_tokens``, ``output_tokens_mean``
            / ``mean_output_tokens_actual``, ``theoretical_cache_hit_frac`` /
            ``theoretical_cache_hit_rate`` (these three required), ``requests`` /
            ``total_requests_completed``, ``input_tokens_p50`` / ``median_input_tokens``,
            ``input_tokens_p90`` / ``p90_input_tokens``, ``output_tokens_p50`` /
            ``median_output_tokens_actual``, ``output_tokens_p90`` / ``p90_output_tokens_actual``.
        name : str, default "agentic"
            Workload name.
        idle_s_between_turns : float, default 0
            Mean idle time between a session's turns [s] (result aggregates do not record it).
        turns_per_session : float, default 1
            Mean turns per session (not recorded in the aggregates).

        Returns
        -------
        Workload
            ``kind="sessions"``; ``cached_prefix_frac`` = pooled theoretical hit rate.

        Raises
        ------
        ValueError
            A missing (NaN), negative or out-of-range field, requests <= 0, a p90 below its p50,
            both spellings of one field, a field missing in some runs only, or a hit-rate field
            the pooling would not read (``cache_hit_rate``, ``cached_prefix_frac``, ...). The
            message names the file (or the run: its ``run_id`` or ``source``, else its row) and
            the field as the input spells it, listing the accepted names of a missing one.
        FileNotFoundError
            A result path that does not exist.
        TypeError
            ``points`` of another type, or paths and mappings mixed.
        """
        return _from_results(points, name=name, idle_s_between_turns=idle_s_between_turns,
                             turns_per_session=turns_per_session)

    @classmethod
    def from_trace(cls, path: str | Path, *, name: str | None = None,
                   block_size_tokens: float | None = None) -> Workload:
        """Build a workload from a request trace (JSONL, one request per line).

        Each line holds ``input_length`` and ``output_length`` [tokens], whole JSON numbers
        (also accepted: ``input_tokens``/``output_tokens`` or ``isl``/``osl``, one spelling per
        line), optionally ``hash_ids`` (the KV block hashes of the prompt, integers or strings,
        Mooncake / AgentX-Weka trace format, one id per block of ``block_size_tokens``),
        ``session_id`` (string or integer), and ``idle_s`` or ``delay_s`` (idle time before the
        request [s], in [0, 3600]; with session ids, a session's first request follows no turn and
        its idle time is not a gap between turns). Other fields are not read (the workload's
        ``source`` names them). A hit rate is never read from the trace: the theoretical hit
        rate is computed with an unbounded cache, a request hitting the leading blocks whose
        hashes appeared in any earlier request, ``hit = sum(min(isl, matched_blocks x block)) /
        sum(isl)``.

        Parameters
        ----------
        path : str or Path
            The JSONL trace.
        name : str, optional
            Workload name (default: the file name without suffix).
        block_size_tokens : float, optional
            Tokens per hashed block, in (0, 2e6] (default: ``ceil(input_length / len(hash_ids))``
            per line).

        Returns
        -------
        Workload
            Mean ISL/OSL, p50/p90 quantiles, theoretical hit rate; ``kind="sessions"`` when the
            trace has hashes, sessions or idle times.

        Raises
        ------
        ValueError
            Malformed JSON, a missing token count, one that is not a JSON number (a string such
            as ``"1000"``), not whole (``1000.5``) or outside [0, 2e6] tokens (input > 0), two
            spellings of one field, a cached share larger than the input (more hashed blocks than
            the input holds), or a hit-rate or cached-token field the reader would ignore (any
            field whose name holds ``hit`` or ``cached``, e.g. ``cache_hit_rate`` or
            ``cached_tokens``: the hit rate is computed from the block hashes), or a field whose
            name is close to a read one (``sesion_id``); the message names the file, line and field.
        FileNotFoundError
            The file does not exist.
        IsADirectoryError
            The path is a directory (give the JSONL file).
        """
        return _from_trace(path, name=name, block_size_tokens=block_size_tokens)


def isl_osl_label(isl_tokens: float, osl_tokens: float) -> str:
    """Label a fixed-sequence workload as benchmarks do, e.g. ``"8k/1k"`` or ``"1000/1000"``.

    Parameters
    ----------
    isl_tokens, osl_tokens : float
        Input and output tokens per request [tokens].

    Returns
    -------
    str
        Each length as ``"<n>k"`` when a multiple of 1024, else as an integer.

    Examples
    --------
    >>> isl_osl_label(8192, 1024), isl_osl_label(1000, 1000)
    ('8k/1k', '1000/1000')
    """

    def one(tokens: float) -> str:
        n = int(tokens)
        return f"{n // 1024}k" if n >= 1024 and n % 1024 == 0 else str(n)

    return f"{one(isl_tokens)}/{one(osl_tokens)}"


_PRESETS: dict[str, Workload] = {}


def register_workload(preset: Workload, *aliases: str, replace: bool = False) -> None:
    """Make a workload available by name to :func:`workload` and every entry point.

    Parameters
    ----------
    preset : Workload
        The workload; its ``name`` is the lookup key.
    *aliases : str
        Further names for it.
    replace : bool, default False
        Let the name or an alias take over one that names another workload (a bundled preset
        included); :func:`tokenomics.reset_catalogs` restores the bundled presets.

    Raises
    ------
    TypeError
        ``preset`` is not a :class:`Workload`.
    ValueError
        A name (case and punctuation ignored) already names a different workload and ``replace``
        is False: tables would show the old label for the new traffic.
    """
    if not isinstance(preset, Workload):
        raise TypeError(f"register_workload: expected a Workload, got {type(preset).__name__}")
    names = (preset.name, *aliases)
    keys = [normalize_name(name) for name in names]
    if not replace:
        taken = [(name, _PRESETS[k].name) for name, k in zip(names, keys, strict=True)
                 if k in _PRESETS and _PRESETS[k] != preset]
        if taken:
            name, other = taken[0]
            kind = "the bundled preset" if normalize_name(name) in _BUNDLED else "the workload"
            raise ValueError(f"workload name {name!r} already names {kind} {other!r}; give the workload another "
                             "name, or register_workload(..., replace=True) to replace it "
                             "(tokenomics.reset_catalogs() restores the bundled presets)")
    for k in keys:
        _PRESETS[k] = preset


_BUNDLED: dict[str, Workload] = {}
"""The bundled presets by normalised name, filled once they are registered (restored on reset)."""


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
        Unknown name; the message lists close matches, or every preset the name begins when
        it starts several (``"agentic"``: ``agentic-coding``, ``agentic-coding-early``).

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
        starting = sorted({w.name for k, w in _PRESETS.items() if k.startswith(key)}) if key else []
        if len(starting) > 1:
            raise KeyError(f"workload {name!r} is ambiguous: it starts {', '.join(starting)}; give the full name")
        raise unknown_name_error("workload", name, workload_names())
    return _PRESETS[key]


# --- agentic sessions: result files, traces, the bundled preset ---

_RUN_COLUMNS: tuple[str, ...] = (
    "run_id", "hardware", "model", "framework", "precision", "tp", "ep", "sessions",
    "kv_offload", "requests", "duration_s", "input_tokens_mean", "input_tokens_p50",
    "input_tokens_p90", "output_tokens_mean", "output_tokens_p50", "output_tokens_p90",
    "theoretical_cache_hit_frac", "replay_cache_hit_frac", "realized_cache_hit_frac",
    "cpu_cache_hit_frac", "throughput_tok_per_s_per_gpu", "output_throughput_tok_per_s_per_gpu",
    "interactivity_tok_per_s_per_user", "ttft_median_s", "e2el_mean_s", "requests_per_s",
    "kv_pool_tokens", "source",
)
"""Columns of an agentic run table (:func:`read_agentic_runs`, ``data/workloads/agentic_runs.csv``)."""

_RUN_REQUIRED: tuple[str, ...] = ("input_tokens_mean", "output_tokens_mean", "theoretical_cache_hit_frac")

_POOLED_FIELDS: dict[str, tuple[str, str, str]] = {
    "requests": ("requests", "total_requests_completed", "server_metrics.tokens.requests_completed"),
    "input_tokens_mean": ("input_tokens_mean", "mean_input_tokens", "request_metrics.tokens.input.mean"),
    "input_tokens_p50": ("input_tokens_p50", "median_input_tokens", "request_metrics.tokens.input.p50"),
    "input_tokens_p90": ("input_tokens_p90", "p90_input_tokens", "request_metrics.tokens.input.p90"),
    "output_tokens_mean": ("output_tokens_mean", "mean_output_tokens_actual",
                           "request_metrics.tokens.output_actual.mean"),
    "output_tokens_p50": ("output_tokens_p50", "median_output_tokens_actual",
                          "request_metrics.tokens.output_actual.p50"),
    "output_tokens_p90": ("output_tokens_p90", "p90_output_tokens_actual",
                          "request_metrics.tokens.output_actual.p90"),
    "theoretical_cache_hit_frac": ("theoretical_cache_hit_frac", "theoretical_cache_hit_rate",
                                   "request_metrics.cache.theoretical_cache_hit_rate"),
}
"""Fields the pooling of :meth:`Workload.from_results` reads: run-table column, flat result-row
field (early agentic rows), AgentX aggregate path. A run table or a flat row may use either of the
first two spellings."""

_QUANTILE_FIELDS: tuple[str, ...] = ("input_tokens_p50", "input_tokens_p90", "output_tokens_p50", "output_tokens_p90")

_IGNORED_HIT_FIELDS = frozenset({
    "cache_hit_frac", "cache_hit_rate", "hit_rate", "hit_frac", "prefix_hit_rate", "prefix_hit_frac",
    "prefix_cache_hit_rate", "prefix_cache_hit_frac", "cached_prefix_frac",
})
"""Hit-rate names a run table or flat row might carry that the pooling would not read."""

_Names = dict[str, tuple[str, ...]]
"""Internal field -> its spellings in the input, the one given (or expected) first."""


def _get(doc: Mapping[str, Any], path: str) -> Any:
    node: Any = doc
    for key in path.split("."):
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def _num(value: Any, where: str, key: str) -> float:
    """Return a finite float, NaN for a missing value; raise naming the file and key otherwise."""
    if value is None or value is pd.NA or (isinstance(value, str) and value == ""):
        return math.nan
    if isinstance(value, bool | np.bool_):
        raise ValueError(f"{where}: field {key!r} must be a number, got {value!r}")
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: field {key!r} must be a number, got {value!r}") from None
    if math.isinf(out):
        raise ValueError(f"{where}: field {key!r} must be finite, got {value!r}")
    return out


def _refuse_ignored_hit_fields(doc: Mapping[str, Any], where: str) -> None:
    for key in doc:
        if str(key) in _IGNORED_HIT_FIELDS:
            raise ValueError(
                f"{where}: field {key!r} is not read: the pooled hit rate is the theoretical rate "
                "'theoretical_cache_hit_frac' (also accepted: 'theoretical_cache_hit_rate'); rename or remove it"
            )


def _spelled_fields(doc: Mapping[str, Any], where: str, *, table: bool) -> tuple[dict[str, float], _Names]:
    """Return the pooled fields of a run-table row (``table``) or a flat result row, either spelling."""
    values: dict[str, float] = {}
    names: _Names = {}
    for key, (column, flat, _) in _POOLED_FIELDS.items():
        spellings = (column, flat) if table else (flat, column)
        given = [(s, _num(doc[s], where, s)) for s in spellings if s in doc]
        given = [(s, v) for s, v in given if not math.isnan(v)]
        if len(given) > 1:
            raise ValueError(
                f"{where}: fields {given[0][0]!r}={given[0][1]:g} and {given[1][0]!r}={given[1][1]:g} "
                "are two spellings of one field; give one"
            )
        if given:
            used = given[0][0]
            values[key] = given[0][1]
        else:
            used = next((s for s in spellings if s in doc), spellings[0])
            values[key] = math.nan
        names[key] = (used, *(s for s in spellings if s != used))
    return values, names


def _agentic_record(doc: Mapping[str, Any], where: str) -> tuple[dict[str, Any], _Names]:
    """One run of an AgentX aggregate (nested) or early flat agentic row, as a run-table record.

    Returns the record (columns :data:`_RUN_COLUMNS`) and the spellings of its pooled fields in
    ``doc`` (for messages that name the file's own fields).
    """
    nested = isinstance(doc.get("request_metrics"), Mapping)
    rec: dict[str, Any]
    names: _Names
    if nested:
        lat = "request_metrics.latency"
        tput = "request_metrics.throughput"
        srv = "server_metrics"
        dur = _num(_get(doc, f"{tput}.duration_seconds"), where, f"{tput}.duration_seconds")
        req_path = f"{srv}.tokens.requests_completed"
        if not _get(doc, req_path) and doc.get("num_requests_successful") is not None:
            req_path = "num_requests_successful"
        requests = _num(_get(doc, req_path), where, req_path)
        tpot = _num(_get(doc, f"{lat}.tpot.p50"), where, f"{lat}.tpot.p50")
        names = {key: (path,) for key, (_, _, path) in _POOLED_FIELDS.items()}
        names["requests"] = (req_path,)
        rec = {key: _num(_get(doc, spelled[0]), where, spelled[0]) for key, spelled in names.items()}
        rec.update({
            "sessions": _num(doc.get("conc"), where, "conc"),
            "kv_offload": "none" if str(doc.get("kv_offloading") or "none").lower() == "none" else "dram",
            "replay_cache_hit_frac": math.nan,
            "realized_cache_hit_frac": _num(_get(doc, f"{srv}.cache.gpu_cache_hit_rate"), where,
                                            f"{srv}.cache.gpu_cache_hit_rate"),
            "cpu_cache_hit_frac": _num(_get(doc, f"{srv}.cache.cpu_cache_hit_rate"), where,
                                       f"{srv}.cache.cpu_cache_hit_rate"),
            "throughput_tok_per_s_per_gpu": _num(_get(doc, f"{tput}.per_gpu.total_tput_tps"), where,
                                                 f"{tput}.per_gpu.total_tput_tps"),
            "output_throughput_tok_per_s_per_gpu": _num(_get(doc, f"{tput}.per_gpu.output_tput_tps"), where,
                                                        f"{tput}.per_gpu.output_tput_tps"),
            "interactivity_tok_per_s_per_user": 1.0 / tpot if tpot > 0 else math.nan,
            "ttft_median_s": _num(_get(doc, f"{lat}.ttft.p50"), where, f"{lat}.ttft.p50"),
            "e2el_mean_s": _num(_get(doc, f"{lat}.e2el.mean"), where, f"{lat}.e2el.mean"),
            "requests_per_s": requests / dur if dur > 0 else math.nan,
            "kv_pool_tokens": _num(_get(doc, f"{srv}.kv_cache.gpu_total_tokens") or doc.get("kv_pool_tokens"),
                                   where, f"{srv}.kv_cache.gpu_total_tokens"),
            "duration_s": dur,
        })
    else:
        _refuse_ignored_hit_fields(doc, where)
        itl = _num(doc.get("median_itl"), where, "median_itl")
        off = str(doc.get("offload_mode") or "off").lower()
        rec, names = _spelled_fields(doc, where, table=False)
        rec = {**rec,
               "sessions": _num(doc.get("users", doc.get("conc")), where, "users"),
               "kv_offload": "none" if off in ("off", "none") else "dram",
               "replay_cache_hit_frac": _num(doc.get("theoretical_infinite_cache_hit_rate"), where,
                                             "theoretical_infinite_cache_hit_rate"),
               "realized_cache_hit_frac": _num(doc.get("server_gpu_cache_hit_rate"), where,
                                               "server_gpu_cache_hit_rate"),
               "cpu_cache_hit_frac": _num(doc.get("server_cpu_cache_hit_rate"), where, "server_cpu_cache_hit_rate"),
               "throughput_tok_per_s_per_gpu": _num(doc.get("tput_per_gpu"), where, "tput_per_gpu"),
               "output_throughput_tok_per_s_per_gpu": _num(doc.get("output_tput_per_gpu"), where,
                                                           "output_tput_per_gpu"),
               "interactivity_tok_per_s_per_user": 1.0 / itl if itl > 0 else math.nan,
               "ttft_median_s": _num(doc.get("median_ttft"), where, "median_ttft"),
               "e2el_mean_s": _num(doc.get("mean_ttlt"), where, "mean_ttlt"),
               "requests_per_s": math.nan,
               "kv_pool_tokens": math.nan,
               "duration_s": _num(doc.get("duration_seconds"), where, "duration_seconds")}
        if float(rec["duration_s"]) > 0:
            rec["requests_per_s"] = float(rec["requests"]) / float(rec["duration_s"])
    rec.update(
        run_id=Path(where).name,
        hardware=str(doc.get("hw") or ""),
        model=str(doc.get("model") or doc.get("infmax_model_prefix") or ""),
        framework=str(doc.get("framework") or ""),
        precision=str(doc.get("precision") or ""),
        tp=_num(doc.get("tp"), where, "tp"),
        ep=_num(doc.get("ep"), where, "ep"),
        source=where,
    )
    _check_run(rec, names, where)
    return {c: rec[c] for c in _RUN_COLUMNS}, names


def _accepted(names: _Names, key: str) -> str:
    spelled = names[key]
    return f" (accepted names: {', '.join(repr(s) for s in spelled)})" if len(spelled) > 1 else ""


def _check_run(rec: Mapping[str, Any], names: _Names, where: str) -> None:
    """Check one run's pooled fields, naming them as the input spells them."""
    for key in _RUN_REQUIRED:
        if math.isnan(float(rec[key])):
            raise ValueError(f"{where}: field {names[key][0]!r} is required for an agentic workload but "
                             f"missing{_accepted(names, key)}")
    for key in ("input_tokens_mean", *_QUANTILE_FIELDS, "output_tokens_mean"):
        value = float(rec[key])
        if not math.isnan(value) and not 0.0 < value <= _MAX_TOKENS:
            raise ValueError(f"{where}: field {names[key][0]!r}={value:g} is outside (0, {_MAX_TOKENS:g}] tokens")
    for side in ("input", "output"):
        p50, p90 = float(rec[f"{side}_tokens_p50"]), float(rec[f"{side}_tokens_p90"])
        if p90 < p50:
            raise ValueError(
                f"{where}: field {names[f'{side}_tokens_p90'][0]!r}={p90:g} is below field "
                f"{names[f'{side}_tokens_p50'][0]!r}={p50:g}: a p90 cannot be smaller than the p50"
            )
    for key in ("theoretical_cache_hit_frac", "replay_cache_hit_frac", "realized_cache_hit_frac",
                "cpu_cache_hit_frac"):
        value = float(rec.get(key, math.nan))
        if not math.isnan(value) and not 0.0 <= value <= 1.0:
            hint = " (looks like a percent; fractions are 0..1)" if 1.0 < value <= 100.0 else ""
            field = names[key][0] if key in names else key
            raise ValueError(f"{where}: field {field!r}={value:g} is outside [0, 1]{hint}")


def _read_agentic_records(paths: str | Path | Iterable[str | Path]) -> list[tuple[dict[str, Any], _Names, str]]:
    """Each result file under ``paths`` as (run-table record, spellings of its pooled fields, file)."""
    items = [paths] if isinstance(paths, str | Path) else list(paths)
    files: list[Path] = []
    for item in items:
        if not isinstance(item, str | Path):
            raise TypeError(f"agentic result paths must be str or Path, got {type(item).__name__} ({item!r})")
        p = Path(item)
        if p.is_dir():
            files.extend(sorted(p.rglob("*.json")))
        elif p.is_file():
            files.append(p)
        else:
            raise FileNotFoundError(f"agentic result path {str(p)!r} does not exist")
    if not files:
        raise ValueError(f"no agentic result files (*.json) under {items!r}")
    seen: dict[Path, Path] = {}
    for f in files:
        key = f.resolve()
        if key in seen:
            also = "" if str(seen[key]) == str(f) else f" (also as {seen[key]})"
            raise ValueError(f"{f}: result file given twice{also}; its run would count twice")
        seen[key] = f
    records = []
    for f in files:
        try:
            doc = json.loads(f.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise ValueError(f"{f}: line {err.lineno}: not valid JSON ({err.msg})") from None
        except UnicodeDecodeError as err:
            raise ValueError(f"{f}: not UTF-8 text ({err.reason} at byte {err.start})") from None
        if not isinstance(doc, Mapping) or not (
            isinstance(doc.get("request_metrics"), Mapping) or "theoretical_cache_hit_rate" in doc
        ):
            raise ValueError(
                f"{f}: not an agentic result row (expected AgentX 'request_metrics' or the flat "
                "'theoretical_cache_hit_rate' field)"
            )
        rec, names = _agentic_record(doc, str(f))
        records.append((rec, names, str(f)))
    return records


def read_agentic_runs(paths: str | Path | Iterable[str | Path]) -> pd.DataFrame:
    """Read agentic benchmark result files into a run table (one row per run).

    Reads AgentX aggregate rows (nested ``request_metrics`` / ``server_metrics``, as written by
    InferenceX ``process_agentic_result.py``) and the early flat agentic rows
    (``users``, ``offload_mode``, ``theoretical_cache_hit_rate``). Latencies are in seconds;
    interactivity is ``1 / p50(TPOT)`` (``1 / p50(ITL)`` in the flat rows).

    Parameters
    ----------
    paths : str, Path or iterable of them
        JSON files, or directories whose ``*.json`` files are read.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`_RUN_COLUMNS`: identity (``hardware``, ``model`` as written, ``tp``,
        ``ep``, ``sessions`` = concurrency, ``kv_offload`` ``"none"``/``"dram"``), token
        statistics [tokens], ``theoretical_cache_hit_frac`` (ideal, from the trace hashes),
        ``replay_cache_hit_frac`` (ideal for the requests this run replayed, where recorded),
        ``realized_cache_hit_frac`` (server HBM hits), throughput [tok/s/GPU], latency [s].

    Raises
    ------
    ValueError
        A file that is not an agentic result, a file given twice, or a missing, out-of-range or
        inconsistent field (a p90 below its p50); the message names the file and the field as
        the file spells it (e.g. ``request_metrics.tokens.input.mean``).
    FileNotFoundError
        A path that does not exist.
    """
    records = [rec for rec, _, _ in _read_agentic_records(paths)]
    return pd.DataFrame.from_records(records, columns=list(_RUN_COLUMNS))


def _build_workload(where: str, **fields: Any) -> Workload:
    """``Workload(**fields)``, a validation error re-raised as a ValueError naming ``where``."""
    try:
        return Workload(**fields)
    except ValidationError as err:
        msgs = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in err.errors())
        raise ValueError(f"{where}: {msgs}") from None


def _workload_from_runs(name: str, runs: Sequence[tuple[Mapping[str, Any], _Names, str]], source: str,
                        idle_s_between_turns: float, turns_per_session: float) -> Workload:
    """Pool checked runs into one sessions workload (request-weighted means of per-run statistics).

    Every run must carry every field the pooling uses: the completed ``requests`` (> 0; optional
    for a single run, whose weight does not matter) and each quantile that any run gives.
    """
    if not runs:
        raise ValueError("no agentic runs to build a workload from")
    weights = []
    for rec, names, where in runs:
        req = float(rec["requests"])
        field = names["requests"][0]
        if math.isnan(req):
            if len(runs) > 1:
                raise ValueError(
                    f"{where}: field {field!r} is missing: runs are pooled weighted by their completed "
                    f"requests, so every run must give it{_accepted(names, 'requests')}"
                )
            req = 1.0
        elif not req > 0:
            raise ValueError(f"{where}: field {field!r}={req:g} must be > 0 completed requests "
                             "(runs are pooled weighted by them)")
        weights.append(req)
    for key in _QUANTILE_FIELDS:
        have = [not math.isnan(float(rec[key])) for rec, _, _ in runs]
        if any(have) and not all(have):
            _, names, where = runs[have.index(False)]
            giver = runs[have.index(True)][2]
            raise ValueError(
                f"{where}: field {names[key][0]!r} is missing while {giver} gives it: a quantile is "
                f"pooled over every run, so give it for all runs or for none{_accepted(names, key)}"
            )
    total = sum(weights)

    def pooled(key: str) -> float:
        return sum(float(rec[key]) * w for (rec, _, _), w in zip(runs, weights, strict=True)) / total

    isl_q = {q: pooled(f"input_tokens_p{p}") for q, p in ((0.5, 50), (0.9, 90))
             if not math.isnan(float(runs[0][0][f"input_tokens_p{p}"]))}
    osl_q = {q: pooled(f"output_tokens_p{p}") for q, p in ((0.5, 50), (0.9, 90))
             if not math.isnan(float(runs[0][0][f"output_tokens_p{p}"]))}
    return _build_workload(
        source,
        name=name,
        isl_tokens=pooled("input_tokens_mean"),
        osl_tokens=pooled("output_tokens_mean"),
        kind="sessions",
        cached_prefix_frac=pooled("theoretical_cache_hit_frac"),
        turns_per_session=turns_per_session,
        idle_s_between_turns=idle_s_between_turns,
        isl_quantiles_tokens=isl_q or None,
        osl_quantiles_tokens=osl_q or None,
        source=source,
    )


def _is_blank(value: Any) -> bool:
    return (value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))
            or (isinstance(value, str) and not value.strip()))


def _run_label(row: Mapping[str, Any], position: str) -> str:
    """``run 'id' (row 3)``, ``run from 'source' (row 3)`` or ``row 3``."""
    for key, form in (("run_id", "run {!r}"), ("source", "run from {!r}")):
        value = row.get(key)
        if not _is_blank(value):
            return f"{form.format(str(value))} ({position})"
    return position


def _table_run(row: Mapping[str, Any], where: str) -> tuple[dict[str, Any], _Names, str]:
    """Check a run-table row (DataFrame row, bundled CSV row or run-table mapping) and return it as a run."""
    _refuse_ignored_hit_fields(row, where)
    values, names = _spelled_fields(row, where, table=True)
    rec = {**{k: row.get(k, math.nan) for k in ("replay_cache_hit_frac", "realized_cache_hit_frac",
                                                 "cpu_cache_hit_frac")}, **values}
    for key in ("replay_cache_hit_frac", "realized_cache_hit_frac", "cpu_cache_hit_frac"):
        rec[key] = _num(rec[key], where, key)
    _check_run(rec, names, where)
    return rec, names, where


def _from_results(
    points: Any,
    *,
    name: str = "agentic",
    idle_s_between_turns: float = 0.0,
    turns_per_session: float = 1.0,
) -> Workload:
    runs: list[tuple[Mapping[str, Any], _Names, str]]
    if isinstance(points, pd.DataFrame):
        rows = points.to_dict("records")
        runs = [_table_run(r, _run_label(r, f"row {idx!r}")) for idx, r in zip(points.index, rows, strict=True)]
        src = f"{len(rows)} agentic runs"
    elif isinstance(points, pd.Series):
        row = points.to_dict()
        runs = [_table_run(row, _run_label(row, f"row {points.name!r}"))]
        src = "1 agentic run"
    elif isinstance(points, Mapping):
        runs = [_mapping_run(points, "result row")]
        src = "1 agentic result row"
    else:
        if not isinstance(points, str | Path | Iterable):
            raise TypeError("from_results: expected result paths, result rows (mappings) or a run table "
                            f"(DataFrame), got {type(points).__name__}")
        items = [points] if isinstance(points, str | Path) else list(points)
        docs = [i for i in items if isinstance(i, Mapping)]
        if items and len(docs) == len(items):
            runs = [_mapping_run(d, f"result row {i}") for i, d in enumerate(docs)]
        elif docs:
            raise TypeError("from_results: give either result paths or result rows (mappings), not a mix")
        else:
            runs = [(rec, names, where) for rec, names, where in _read_agentic_records(items)]
        src = "; ".join(sorted({str(r["source"]) if "source" in r else where for r, _, where in runs}))
    return _workload_from_runs(name, runs, src, idle_s_between_turns, turns_per_session)


def _mapping_run(doc: Mapping[str, Any], position: str) -> tuple[Mapping[str, Any], _Names, str]:
    """Read a decoded result row (AgentX nested or early flat) or a run-table row given as a mapping."""
    flat_names = {flat for _, flat, _ in _POOLED_FIELDS.values()}
    where = _run_label(doc, position)
    if isinstance(doc.get("request_metrics"), Mapping) or flat_names & set(doc):
        rec, names = _agentic_record(doc, where)
        rec["source"] = where
        return rec, names, where
    return _table_run(doc, where)


_TRACE_INPUT_KEYS = ("input_length", "input_tokens", "isl")
_TRACE_OUTPUT_KEYS = ("output_length", "output_tokens", "osl")
_TRACE_IDLE_KEYS = ("idle_s", "delay_s")
_TRACE_FIELDS = (*_TRACE_INPUT_KEYS, *_TRACE_OUTPUT_KEYS, *_TRACE_IDLE_KEYS, "hash_ids", "session_id")
"""Fields a trace line is read for; another field is left unread unless it looks like a misspelling of one."""


def _trace_tokens(rec: Mapping[str, Any], keys: Sequence[str], where: str, *, low_inclusive: bool) -> float:
    """Return a token count of a trace line: a JSON integer (or integral number) in range."""
    present = [k for k in keys if k in rec]
    if not present:
        raise ValueError(f"{where}: field {keys[0]!r} is missing (also accepted: {', '.join(keys[1:])})")
    if len(present) > 1:
        raise ValueError(f"{where}: fields {', '.join(repr(k) for k in present)} are spellings of one token "
                         "count; give one")
    key = present[0]
    value = rec[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{where}: field {key!r} must be an integer token count (a JSON number), "
                         f"got {value!r} ({type(value).__name__})")
    if not math.isfinite(value) or (isinstance(value, float) and not value.is_integer()):
        raise ValueError(f"{where}: field {key!r} must be a whole number of tokens, got {value!r}")
    out = float(value)
    low = "[0" if low_inclusive else "(0"
    if out < 0.0 or (out == 0.0 and not low_inclusive) or out > _MAX_TOKENS:
        raise ValueError(f"{where}: field {key!r}={value!r} is outside {low}, {_MAX_TOKENS:g}] tokens")
    return out


def _trace_hash(h: Any, where: str) -> Any:
    if isinstance(h, list) and h and all(isinstance(x, int | str) and not isinstance(x, bool) for x in h):
        return tuple(h)
    if isinstance(h, int | str) and not isinstance(h, bool):
        return h
    raise ValueError(f"{where}: field 'hash_ids' holds {h!r}; a block hash must be an integer or a string")


def _from_trace(path: str | Path, *, name: str | None = None, block_size_tokens: float | None = None) -> Workload:
    p = Path(path)
    if p.is_dir():
        raise IsADirectoryError(f"trace path {str(p)!r} is a directory; give the JSONL trace file itself")
    if not p.exists():
        raise FileNotFoundError(f"trace file {str(p)!r} does not exist")
    if not p.is_file():
        raise ValueError(f"trace path {str(p)!r} is not a regular file")
    if block_size_tokens is not None:
        check_range("block_size_tokens", block_size_tokens, low=0.0, high=_MAX_TOKENS, low_inclusive=False)
    seen: set[Any] = set()
    n = 0
    isl_all: list[float] = []
    osl_all: list[float] = []
    hits_total = 0.0
    hashed_input = 0.0
    sessions: set[Any] = set()
    idle: list[float] = []
    has_idle = False
    lineno = 0
    unread: set[str] = set()
    with p.open(encoding="utf-8") as fh:
        try:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                where = f"{p}: line {lineno}"
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as err:
                    raise ValueError(f"{where}: not valid JSON ({err.msg})") from None
                if not isinstance(rec, Mapping):
                    raise ValueError(f"{where}: expected a JSON object per line, got {type(rec).__name__}")
                unread.update(str(k) for k in rec if k not in _TRACE_FIELDS)
                for key in rec:
                    if "hit" in str(key).lower() or "cached" in str(key).lower():
                        raise ValueError(
                            f"{where}: field {key!r} is not read: the theoretical hit rate is computed "
                            "from the block hashes ('hash_ids'); remove it (and give hash_ids for a hit rate)"
                        )
                    if key not in _TRACE_FIELDS and (close := difflib.get_close_matches(str(key), _TRACE_FIELDS,
                                                                                        n=1, cutoff=0.8)):
                        raise ValueError(f"{where}: field {key!r} is not a trace field; did you mean {close[0]!r}? "
                                         f"(read: {', '.join(_TRACE_FIELDS)})")
                isl = _trace_tokens(rec, _TRACE_INPUT_KEYS, where, low_inclusive=False)
                osl = _trace_tokens(rec, _TRACE_OUTPUT_KEYS, where, low_inclusive=True)
                hashes = rec.get("hash_ids")
                if hashes is not None:
                    if not isinstance(hashes, list):
                        raise ValueError(f"{where}: field 'hash_ids' must be a list of block hashes, "
                                         f"got {type(hashes).__name__}")
                    if not hashes:
                        raise ValueError(f"{where}: field 'hash_ids' is empty for an input of {isl:g} tokens")
                    keys = [_trace_hash(h, where) for h in hashes]
                    block = block_size_tokens or math.ceil(isl / len(keys))
                    if len(keys) > math.ceil(isl / block) + 1e-9:
                        raise ValueError(
                            f"{where}: field 'hash_ids' has {len(keys)} blocks of {block:g} tokens, more than "
                            f"the {isl:g} input tokens hold: the cached share would exceed the input"
                        )
                    matched = 0
                    for key in keys:
                        if key not in seen:
                            break
                        matched += 1
                    seen.update(keys)
                    hits_total += min(isl, matched * block)
                    hashed_input += isl
                idle_keys = [k for k in _TRACE_IDLE_KEYS if k in rec]
                if len(idle_keys) > 1:
                    raise ValueError(f"{where}: fields 'idle_s' and 'delay_s' are spellings of one idle time; "
                                     "give one")
                first_turn = False
                if "session_id" in rec:
                    sid = rec["session_id"]
                    if isinstance(sid, bool) or not isinstance(sid, int | str):
                        raise ValueError(f"{where}: field 'session_id' must be a string or an integer, got {sid!r}")
                    first_turn = sid not in sessions
                    sessions.add(sid)
                for key in idle_keys:
                    value = rec[key]
                    if isinstance(value, bool) or not isinstance(value, int | float):
                        raise ValueError(f"{where}: field {key!r} must be a number of seconds (a JSON number), "
                                         f"got {value!r} ({type(value).__name__})")
                    if not 0.0 <= value <= _MAX_IDLE_S:  # NaN fails too
                        slip = f" (a unit slip? e.g. {_IDLE_SLIP_HINT})" if value > _MAX_IDLE_S else ""
                        raise ValueError(f"{where}: field {key!r}={value!r} is outside [0, {_MAX_IDLE_S:g}] s{slip}")
                    if not first_turn:  # a session's first request follows no turn of it
                        idle.append(float(value))
                    has_idle = True
                isl_all.append(isl)
                osl_all.append(osl)
                n += 1
        except UnicodeDecodeError as err:
            raise ValueError(f"{p}: line {lineno + 1}: not UTF-8 text ({err.reason})") from None
    if n == 0:
        raise ValueError(f"{p}: the trace holds no requests")
    if hashed_input and hashed_input < sum(isl_all):
        raise ValueError(f"{p}: some requests carry 'hash_ids' and others not; give them for every request")
    hit = hits_total / hashed_input if hashed_input else 0.0
    osl_mean = float(np.mean(osl_all))
    if osl_mean <= 0:
        raise ValueError(f"{p}: every request has output_length 0")
    q = [0.5, 0.9]
    return _build_workload(
        str(p),
        name=name or p.stem,
        isl_tokens=float(np.mean(isl_all)),
        osl_tokens=osl_mean,
        kind="sessions" if (sessions or hashed_input or has_idle) else "fixed",
        cached_prefix_frac=hit,
        turns_per_session=max(1.0, n / len(sessions)) if sessions else 1.0,
        idle_s_between_turns=float(np.mean(idle)) if idle else 0.0,
        isl_quantiles_tokens=dict(zip(q, map(float, np.quantile(isl_all, q)), strict=True)),
        osl_quantiles_tokens=dict(zip(q, map(float, np.maximum(np.quantile(osl_all, q), 1.0)), strict=True)),
        source=f"{p} ({n} requests" + (f"; fields not read: {', '.join(sorted(unread))})" if unread else ")"),
    )


AGENTIC_RUNS_FILE = "workloads/agentic_runs.csv"
"""Bundled agentic benchmark runs (relative to :func:`tokenomics.catalog.data_dir`)."""

_AGENTX_SOURCE = (
    "AgentX agentic-coding trace replay (semianalysisai/cc-traces-weka-062126-256k, 393 Claude Code "
    "sessions), 10 aggregate runs MI355X Kimi-K2.7-Code (TP8 and TP4), SemiAnalysisAI/InferenceX @6c128cd "
    "tp8_sweep_29337493492 and tp4_sweep_29003473063 (2026-08-03), pooled by completed requests; idle "
    "gaps are capped at 10 s "
    "by the scenario and not recorded per run (Little's law gives more requests in flight than "
    "sessions, subagents running in parallel), so idle_s_between_turns = 0; turns per session = "
    "~167k requests / 393 sessions of the trace (InferenceX AgentX description, read 2026-08)"
)
_AGENTX_TURNS_PER_SESSION = 167_000 / 393
"""Requests per session of the AgentX trace: ~167k requests over 393 sessions."""

_EARLY_SOURCE = (
    "early agentic trace replay (kv-cache-tester), 44 aggregate runs B200 DeepSeek-R1 FP4, "
    "SemiAnalysisAI/InferenceX @7181314 experimental/multiturn (2026-04-21), pooled by completed "
    "requests; idle gap = median over runs with <= 4 sessions of sessions / requests_per_s - "
    "mean E2E latency (Little's law, unsaturated runs)"
)


def agentic_runs() -> pd.DataFrame:
    """Return the bundled agentic benchmark runs (one row per run, with source and date).

    Returns
    -------
    pandas.DataFrame
        ``data/workloads/agentic_runs.csv``: the columns of :func:`read_agentic_runs` with
        ``hardware_id`` and ``model_id`` resolved to catalog ids, ``source`` (URL at commit) and
        ``as_of``.
    """
    return pd.read_csv(data_dir() / AGENTIC_RUNS_FILE)


def _register_agentic_presets() -> None:
    import csv

    path = data_dir() / AGENTIC_RUNS_FILE
    with path.open(encoding="utf-8", newline="") as fh:
        rows = [{k: (float(v) if v not in ("",) and k not in _TEXT_RUN_COLUMNS else (v if v else math.nan))
                 for k, v in r.items()} for r in csv.DictReader(fh)]
    agentx = [r for r in rows if "6c128cd" in str(r["source"])]
    early = [r for r in rows if "7181314" in str(r["source"])]
    idle = [float(r["sessions"]) / float(r["requests_per_s"]) - float(r["e2el_mean_s"])
            for r in early if float(r["sessions"]) <= 4.0]

    def runs(group: list[dict[str, Any]]) -> list[tuple[Mapping[str, Any], _Names, str]]:
        return [_table_run(r, f"{path}: run {r['run_id']!r}") for r in group]

    register_workload(
        _workload_from_runs("agentic-coding", runs(agentx), _AGENTX_SOURCE, 0.0, _AGENTX_TURNS_PER_SESSION),
        "agentx",
    )
    register_workload(
        _workload_from_runs("agentic-coding-early", runs(early), _EARLY_SOURCE, float(np.median(idle)), 1.0)
    )


_TEXT_RUN_COLUMNS = frozenset({"run_id", "hardware_id", "model_id", "framework", "precision", "kv_offload",
                               "source", "as_of"})

_register_agentic_presets()
_BUNDLED.update(_PRESETS)


def _restore_bundled_workloads() -> None:
    """Forget user-registered workload presets: the bundled ones only, as registered at import."""
    _PRESETS.clear()
    _PRESETS.update(_BUNDLED)


on_reset(_restore_bundled_workloads)


def check_context_fits(model: Any, workload: Workload) -> None:
    """Raise if a workload's sequence (input and output) exceeds the model's context window.

    Parameters
    ----------
    model : Model
        Catalog model (``max_context_tokens``).
    workload : Workload
        The traffic (``isl_tokens`` and ``osl_tokens``, the mean input and output sequences
        [tokens]: the output is generated into the same context).

    Raises
    ------
    ValueError
        ``isl_tokens + osl_tokens > max_context_tokens``, naming all three.
    """
    limit = getattr(model, "max_context_tokens", None)
    isl, osl = float(workload.isl_tokens), float(workload.osl_tokens)
    if limit and isl + osl > float(limit):
        raise ValueError(f"workload {workload.name!r}: isl_tokens={isl:g} + osl_tokens={osl:g} = {isl + osl:g} "
                         f"exceeds {model.model_id}'s context window (max_context_tokens={int(limit):,}); "
                         f"give a sequence of <= {int(limit):,} tokens, input and output together")
