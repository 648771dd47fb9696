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
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from tokenomics._validate import check_fraction, check_range, normalize_name, unknown_name_error
from tokenomics.catalog import data_dir
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

        Parameters
        ----------
        points : path, iterable of paths, mapping, iterable of mappings or DataFrame
            Result files or directories (read by :func:`read_agentic_runs`), decoded JSON rows,
            or a run table with the columns of :func:`read_agentic_runs` (at least
            ``input_tokens_mean``, ``output_tokens_mean``, ``theoretical_cache_hit_frac``).
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
            A missing, negative or out-of-range field (naming the file or run and the field).
        """
        return _from_results(points, name=name, idle_s_between_turns=idle_s_between_turns,
                             turns_per_session=turns_per_session)

    @classmethod
    def from_trace(cls, path: str | Path, *, name: str | None = None,
                   block_size_tokens: float | None = None) -> Workload:
        """Build a workload from a request trace (JSONL, one request per line).

        Each line holds ``input_length`` and ``output_length`` [tokens] (also accepted:
        ``input_tokens``/``output_tokens``), optionally ``hash_ids`` (the KV block hashes of the
        prompt, Mooncake / AgentX-Weka trace format, one id per block of ``block_size_tokens``),
        ``session_id``, and ``idle_s`` (idle time before the request). The theoretical hit rate is
        computed with an unbounded cache: a request hits the leading blocks whose hashes appeared
        in any earlier request, ``hit = sum(min(isl, matched_blocks x block)) / sum(isl)``.

        Parameters
        ----------
        path : str or Path
            The JSONL trace.
        name : str, optional
            Workload name (default: the file name without suffix).
        block_size_tokens : float, optional
            Tokens per hashed block (default: ``ceil(input_length / len(hash_ids))`` per line).

        Returns
        -------
        Workload
            Mean ISL/OSL, p50/p90 quantiles, theoretical hit rate; ``kind="sessions"`` when the
            trace has hashes, sessions or idle times.

        Raises
        ------
        ValueError
            Malformed JSON, a missing or negative token count, a cached share larger than the
            input (more hashed blocks than the input holds), a hit-rate field that would be
            ignored; the message names the file, line and field.
        FileNotFoundError
            The file does not exist.
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


def _get(doc: Mapping[str, Any], path: str) -> Any:
    node: Any = doc
    for key in path.split("."):
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node


def _num(value: Any, where: str, key: str) -> float:
    """Return a finite float, NaN for a missing value; raise naming the file and key otherwise."""
    if value is None or value == "":
        return math.nan
    if isinstance(value, bool):
        raise ValueError(f"{where}: field {key!r} must be a number, got {value!r}")
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: field {key!r} must be a number, got {value!r}") from None
    if math.isinf(out):
        raise ValueError(f"{where}: field {key!r} must be finite, got {value!r}")
    return out


def _agentic_record(doc: Mapping[str, Any], where: str) -> dict[str, Any]:
    """One run of an AgentX aggregate (nested) or early flat agentic row, as a run-table record."""
    nested = isinstance(doc.get("request_metrics"), Mapping)
    rec: dict[str, Any]
    if nested:
        tok = "request_metrics.tokens"
        lat = "request_metrics.latency"
        tput = "request_metrics.throughput"
        srv = "server_metrics"
        dur = _num(_get(doc, f"{tput}.duration_seconds"), where, f"{tput}.duration_seconds")
        requests = _num(_get(doc, f"{srv}.tokens.requests_completed") or doc.get("num_requests_successful"),
                        where, "num_requests_successful")
        tpot = _num(_get(doc, f"{lat}.tpot.p50"), where, f"{lat}.tpot.p50")
        rec = {
            "sessions": _num(doc.get("conc"), where, "conc"),
            "kv_offload": "none" if str(doc.get("kv_offloading") or "none").lower() == "none" else "dram",
            "input_tokens_mean": _num(_get(doc, f"{tok}.input.mean"), where, f"{tok}.input.mean"),
            "input_tokens_p50": _num(_get(doc, f"{tok}.input.p50"), where, f"{tok}.input.p50"),
            "input_tokens_p90": _num(_get(doc, f"{tok}.input.p90"), where, f"{tok}.input.p90"),
            "output_tokens_mean": _num(_get(doc, f"{tok}.output_actual.mean"), where, f"{tok}.output_actual.mean"),
            "output_tokens_p50": _num(_get(doc, f"{tok}.output_actual.p50"), where, f"{tok}.output_actual.p50"),
            "output_tokens_p90": _num(_get(doc, f"{tok}.output_actual.p90"), where, f"{tok}.output_actual.p90"),
            "theoretical_cache_hit_frac": _num(_get(doc, "request_metrics.cache.theoretical_cache_hit_rate"),
                                               where, "request_metrics.cache.theoretical_cache_hit_rate"),
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
            "requests": requests,
            "duration_s": dur,
        }
    else:
        itl = _num(doc.get("median_itl"), where, "median_itl")
        off = str(doc.get("offload_mode") or "off").lower()
        rec = {
            "sessions": _num(doc.get("users", doc.get("conc")), where, "users"),
            "kv_offload": "none" if off in ("off", "none") else "dram",
            "input_tokens_mean": _num(doc.get("mean_input_tokens"), where, "mean_input_tokens"),
            "input_tokens_p50": _num(doc.get("median_input_tokens"), where, "median_input_tokens"),
            "input_tokens_p90": _num(doc.get("p90_input_tokens"), where, "p90_input_tokens"),
            "output_tokens_mean": _num(doc.get("mean_output_tokens_actual"), where, "mean_output_tokens_actual"),
            "output_tokens_p50": _num(doc.get("median_output_tokens_actual"), where, "median_output_tokens_actual"),
            "output_tokens_p90": _num(doc.get("p90_output_tokens_actual"), where, "p90_output_tokens_actual"),
            "theoretical_cache_hit_frac": _num(doc.get("theoretical_cache_hit_rate"), where,
                                               "theoretical_cache_hit_rate"),
            "replay_cache_hit_frac": _num(doc.get("theoretical_infinite_cache_hit_rate"), where,
                                          "theoretical_infinite_cache_hit_rate"),
            "realized_cache_hit_frac": _num(doc.get("server_gpu_cache_hit_rate"), where, "server_gpu_cache_hit_rate"),
            "cpu_cache_hit_frac": _num(doc.get("server_cpu_cache_hit_rate"), where, "server_cpu_cache_hit_rate"),
            "throughput_tok_per_s_per_gpu": _num(doc.get("tput_per_gpu"), where, "tput_per_gpu"),
            "output_throughput_tok_per_s_per_gpu": _num(doc.get("output_tput_per_gpu"), where, "output_tput_per_gpu"),
            "interactivity_tok_per_s_per_user": 1.0 / itl if itl > 0 else math.nan,
            "ttft_median_s": _num(doc.get("median_ttft"), where, "median_ttft"),
            "e2el_mean_s": _num(doc.get("mean_ttlt"), where, "mean_ttlt"),
            "requests_per_s": math.nan,
            "kv_pool_tokens": math.nan,
            "requests": _num(doc.get("total_requests_completed"), where, "total_requests_completed"),
            "duration_s": _num(doc.get("duration_seconds"), where, "duration_seconds"),
        }
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
    file_keys = {
        "input_tokens_mean": "request_metrics.tokens.input.mean" if nested else "mean_input_tokens",
        "output_tokens_mean": "request_metrics.tokens.output_actual.mean" if nested else "mean_output_tokens_actual",
        "theoretical_cache_hit_frac": ("request_metrics.cache.theoretical_cache_hit_rate" if nested
                                       else "theoretical_cache_hit_rate"),
    }
    for key in _RUN_REQUIRED:
        if math.isnan(float(rec[key])):
            raise ValueError(f"{where}: field {file_keys[key]!r} is required for an agentic workload but missing")
    _check_run(rec, where)
    return {c: rec[c] for c in _RUN_COLUMNS}


def _check_run(rec: Mapping[str, Any], where: str) -> None:
    for key in ("input_tokens_mean", "output_tokens_mean"):
        value = float(rec[key])
        if not 0.0 < value <= _MAX_TOKENS:
            raise ValueError(f"{where}: field {key!r}={value!r} is outside (0, {_MAX_TOKENS:g}] tokens")
    for key in ("theoretical_cache_hit_frac", "replay_cache_hit_frac", "realized_cache_hit_frac",
                "cpu_cache_hit_frac"):
        value = float(rec.get(key, math.nan))
        if not math.isnan(value) and not 0.0 <= value <= 1.0:
            hint = " (looks like a percent; fractions are 0..1)" if 1.0 < value <= 100.0 else ""
            raise ValueError(f"{where}: field {key!r}={value!r} is outside [0, 1]{hint}")


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
        A file that is not an agentic result, or a missing or out-of-range field (the message
        names the file and field).
    FileNotFoundError
        A path that does not exist.
    """
    items = [paths] if isinstance(paths, str | Path) else list(paths)
    files: list[Path] = []
    for item in items:
        p = Path(item)
        if p.is_dir():
            files.extend(sorted(p.rglob("*.json")))
        elif p.is_file():
            files.append(p)
        else:
            raise FileNotFoundError(f"agentic result path {str(p)!r} does not exist")
    if not files:
        raise ValueError(f"no agentic result files (*.json) under {items!r}")
    records = []
    for f in files:
        try:
            doc = json.loads(f.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise ValueError(f"{f}: line {err.lineno}: not valid JSON ({err.msg})") from None
        if not isinstance(doc, Mapping) or not (
            isinstance(doc.get("request_metrics"), Mapping) or "theoretical_cache_hit_rate" in doc
        ):
            raise ValueError(
                f"{f}: not an agentic result row (expected AgentX 'request_metrics' or the flat "
                "'theoretical_cache_hit_rate' field)"
            )
        records.append(_agentic_record(doc, str(f)))
    return pd.DataFrame.from_records(records, columns=list(_RUN_COLUMNS))


def _weighted(values: Sequence[float], weights: Sequence[float]) -> float:
    pairs = [(v, w) for v, w in zip(values, weights, strict=True) if not math.isnan(v)]
    if not pairs:
        return math.nan
    total = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / total


def _workload_from_runs(name: str, rows: Sequence[Mapping[str, Any]], source: str,
                        idle_s_between_turns: float, turns_per_session: float) -> Workload:
    """Pool run rows into one sessions workload (request-weighted means of per-run statistics)."""
    if not rows:
        raise ValueError("no agentic runs to build a workload from")
    weights = []
    for i, r in enumerate(rows):
        for key in _RUN_REQUIRED:
            if key not in r:
                raise ValueError(f"run {i} ({r.get('run_id', '?')}): field {key!r} is missing")
        _check_run(r, f"run {i} ({r.get('run_id', '?')})")
        req = float(r.get("requests", math.nan) or math.nan)
        weights.append(req if req > 0 else 1.0)

    def pooled(key: str) -> float:
        return _weighted([float(r.get(key, math.nan)) for r in rows], weights)

    isl, osl = pooled("input_tokens_mean"), pooled("output_tokens_mean")
    isl_q = {q: v for q, v in ((0.5, pooled("input_tokens_p50")), (0.9, pooled("input_tokens_p90")))
             if not math.isnan(v)}
    osl_q = {q: v for q, v in ((0.5, pooled("output_tokens_p50")), (0.9, pooled("output_tokens_p90")))
             if not math.isnan(v)}
    return Workload(
        name=name,
        isl_tokens=isl,
        osl_tokens=osl,
        kind="sessions",
        cached_prefix_frac=pooled("theoretical_cache_hit_frac"),
        turns_per_session=turns_per_session,
        idle_s_between_turns=idle_s_between_turns,
        isl_quantiles_tokens=isl_q or None,
        osl_quantiles_tokens=osl_q or None,
        source=source,
    )


def _from_results(
    points: Any,
    *,
    name: str = "agentic",
    idle_s_between_turns: float = 0.0,
    turns_per_session: float = 1.0,
) -> Workload:
    if isinstance(points, pd.DataFrame):
        rows = points.to_dict("records")
        src = f"{len(rows)} agentic runs"
    elif isinstance(points, Mapping):
        rows = [_agentic_record(points, "result row")]
        src = "1 agentic result row"
    else:
        items = [points] if isinstance(points, str | Path) else list(points)
        docs = [i for i in items if isinstance(i, Mapping)]
        if items and len(docs) == len(items):
            rows = [_agentic_record(d, f"result row {i}") for i, d in enumerate(docs)]
        else:
            rows = read_agentic_runs(items).to_dict("records")
        src = "; ".join(sorted({str(r["source"]) for r in rows}))
    return _workload_from_runs(name, rows, src, idle_s_between_turns, turns_per_session)


_TRACE_INPUT_KEYS = ("input_length", "input_tokens", "isl")
_TRACE_OUTPUT_KEYS = ("output_length", "output_tokens", "osl")


def _trace_field(rec: Mapping[str, Any], keys: Sequence[str], where: str) -> float:
    for key in keys:
        if key in rec:
            value = _num(rec[key], where, key)
            if math.isnan(value) or value < 0:
                raise ValueError(f"{where}: field {key!r} must be a token count >= 0, got {rec[key]!r}")
            return value
    raise ValueError(f"{where}: field {keys[0]!r} is missing (also accepted: {', '.join(keys[1:])})")


def _from_trace(path: str | Path, *, name: str | None = None, block_size_tokens: float | None = None) -> Workload:
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"trace file {str(p)!r} does not exist")
    seen: set[Any] = set()
    n = 0
    isl_all: list[float] = []
    osl_all: list[float] = []
    hits_total = 0.0
    hashed_input = 0.0
    sessions: set[Any] = set()
    idle: list[float] = []
    with p.open(encoding="utf-8") as fh:
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
            isl = _trace_field(rec, _TRACE_INPUT_KEYS, where)
            osl = _trace_field(rec, _TRACE_OUTPUT_KEYS, where)
            if isl <= 0:
                raise ValueError(f"{where}: field 'input_length' must be > 0, got {isl:g}")
            if "cache_hit_frac" in rec:
                raise ValueError(
                    f"{where}: field 'cache_hit_frac' is not read (the theoretical hit rate is computed "
                    "from 'hash_ids'); remove it or give hash_ids"
                )
            hashes = rec.get("hash_ids")
            if hashes is not None:
                if not isinstance(hashes, list):
                    raise ValueError(f"{where}: field 'hash_ids' must be a list of block hashes")
                if not hashes:
                    raise ValueError(f"{where}: field 'hash_ids' is empty for an input of {isl:g} tokens")
                block = block_size_tokens or math.ceil(isl / len(hashes))
                if len(hashes) > math.ceil(isl / block) + 1e-9:
                    raise ValueError(
                        f"{where}: field 'hash_ids' has {len(hashes)} blocks of {block:g} tokens, more than "
                        f"the {isl:g} input tokens hold: the cached share would exceed the input"
                    )
                matched = 0
                for h in hashes:
                    key = tuple(h) if isinstance(h, list) else h
                    if key not in seen:
                        break
                    matched += 1
                for h in hashes:
                    seen.add(tuple(h) if isinstance(h, list) else h)
                hits_total += min(isl, matched * block)
                hashed_input += isl
            for key in ("idle_s", "delay_s"):
                if key in rec:
                    value = _num(rec[key], where, key)
                    if math.isnan(value) or not 0.0 <= value <= _MAX_IDLE_S:
                        raise ValueError(f"{where}: field {key!r}={rec[key]!r} is outside [0, {_MAX_IDLE_S:g}] s")
                    idle.append(value)
            if "session_id" in rec:
                sessions.add(rec["session_id"])
            isl_all.append(isl)
            osl_all.append(osl)
            n += 1
    if n == 0:
        raise ValueError(f"{p}: the trace holds no requests")
    if hashed_input and hashed_input < sum(isl_all):
        raise ValueError(f"{p}: some requests carry 'hash_ids' and others not; give them for every request")
    hit = hits_total / hashed_input if hashed_input else 0.0
    osl_mean = float(np.mean(osl_all))
    if osl_mean <= 0:
        raise ValueError(f"{p}: every request has output_length 0")
    q = [0.5, 0.9]
    return Workload(
        name=name or p.stem,
        isl_tokens=float(np.mean(isl_all)),
        osl_tokens=osl_mean,
        kind="sessions" if (sessions or hashed_input or idle) else "fixed",
        cached_prefix_frac=hit,
        turns_per_session=max(1.0, n / len(sessions)) if sessions else 1.0,
        idle_s_between_turns=float(np.mean(idle)) if idle else 0.0,
        isl_quantiles_tokens=dict(zip(q, map(float, np.quantile(isl_all, q)), strict=True)),
        osl_quantiles_tokens=dict(zip(q, map(float, np.maximum(np.quantile(osl_all, q), 1.0)), strict=True)),
        source=f"{p} ({n} requests)",
    )


AGENTIC_RUNS_FILE = "workloads/agentic_runs.csv"
"""Bundled agentic benchmark runs (relative to :func:`tokenomics.catalog.data_dir`)."""

_AGENTX_SOURCE = (
    "AgentX agentic-coding trace replay (semianalysisai/cc-traces-weka-062126-256k, 393 Claude Code "
    "sessions), 5 aggregate runs MI355X Kimi-K2.7-Code, SemiAnalysisAI/InferenceX @6c128cd "
    "tp8_sweep_29337493492 (2026-08-03), pooled by completed requests; idle gaps are capped at 10 s "
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
    register_workload(
        _workload_from_runs("agentic-coding", agentx, _AGENTX_SOURCE, 0.0, _AGENTX_TURNS_PER_SESSION),
        "agentx",
    )
    register_workload(
        _workload_from_runs("agentic-coding-early", early, _EARLY_SOURCE, float(np.median(idle)), 1.0)
    )


_TEXT_RUN_COLUMNS = frozenset({"run_id", "hardware_id", "model_id", "framework", "precision", "kv_offload",
                               "source", "as_of"})

_register_agentic_presets()
