"""Prefix-cache hit rates of multi-turn sessions served from a bounded KV cache.

A session's prompt is its growing context: every turn re-sends the previous turns' tokens, of
which the *theoretical* share ``h_theo`` (an unbounded cache) repeats a prefix already served.
A server realizes that hit only if the session's prefix is still resident when the next turn
arrives. The model here is a least-recently-used (LRU) stack over sessions:

* ``B`` of the ``N`` sessions are *in flight* (prefilling or decoding); their KV is pinned in
  the fastest tier (HBM). The other ``N - B`` are idle (tool calls, think time, queueing); their
  prefixes are evictable and ordered by last use.
* When an idle session returns, the sessions used after it are, in steady state, all the others
  (each is touched about once per turn cycle), so it finds its prefix in the first tiers whose
  cumulative capacity holds the *working set*::

      W = B x ctx_run + (N - B - 1)^+ x (ctx + growth) + ctx,   growth = new + ctx / turns

  ``ctx`` = the session's context [tokens], ``new`` = tokens a turn adds, ``ctx / turns`` = the
  prefix a finished session leaves behind for LRU to flush.
* Contexts differ between sessions (coefficient of variation ``cv``), so ``W`` is a sum of
  ``N`` random contexts: taken as Gamma-distributed with mean ``E[W]`` and squared coefficient
  of variation ``cv^2 / N``. The prefix survives in the first ``k`` tiers with probability
  ``S_k = P(W <= C_1 + ... + C_k) = P(a, a C / E[W])``, ``a = N / cv^2`` (regularized lower
  incomplete gamma), and ``realized = h_theo x S``. ``S`` is close to 1 while the working set is
  well inside the capacity and falls steeply once ``N x ctx`` passes it (the LRU "cliff" seen
  in trace replays), more gently for few sessions of very different lengths.
* Idle gaps set how many sessions are in flight, ``B = N x busy / (busy + idle)`` (bounded by the
  KV capacity), so they decide which tier holds whose prefix: in-flight contexts stay in HBM,
  idle prefixes are the ones a DRAM or SSD tier can catch. Capacities are given per tier,
  fastest first, so host tiers plug in as further entries.

Every function broadcasts: scalar in, float out; ndarray in, ndarray out; Series in, Series out.

References
----------
.. [1] InferenceX AgentX / early agentic sweeps: theoretical vs server GPU cache-hit rates vs
   concurrency, SemiAnalysisAI/InferenceX @7181314 experimental/multiturn (2026-04-21) and
   @6c128cd tp8_sweep_29337493492 and tp4_sweep_29003473063 (2026-08-03).
.. [2] vLLM automatic prefix caching: freed blocks are kept and evicted least recently used,
   https://docs.vllm.ai/en/latest/design/prefix_caching.html (read 2026-12-01).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import gammainc

from tokenomics._validate import check_fraction, check_nonnegative, check_positive

__all__ = [
    "DEFAULT_CONTEXT_CV",
    "hit_frac_by_tier",
    "in_flight_sessions",
    "prefix_survival_frac",
    "realized_hit_frac",
    "working_set_tokens",
]

DEFAULT_CONTEXT_CV: float = 0.59
"""Coefficient of variation of session contexts (std / mean of the prompt length).

The ten AgentX Kimi-K2.7 runs pooled (6,928 requests; per-run mean and std of the input tokens
combined): std 56,810 / mean 96,829 = 0.59; the runs range 0.45-0.71 (SemiAnalysisAI/InferenceX
@6c128cd, tp8_sweep_29337493492 and tp4_sweep_29003473063, 2026-08-03)."""


def _broadcast(*values: Any) -> tuple[list[np.ndarray], Callable[[np.ndarray], Any]]:
    """Float arrays of the inputs, broadcast together, and a function restoring the container."""
    index: pd.Index | None = None
    is_array = False
    arrays = []
    for value in values:
        if isinstance(value, pd.Series):
            if index is not None and not value.index.equals(index):
                raise ValueError("pandas Series inputs must share the same index; align them first")
            index = value.index
            arrays.append(value.to_numpy(dtype=float))
        else:
            arr = np.asarray(value, dtype=float)
            is_array = is_array or arr.ndim > 0
            arrays.append(arr)
    out = list(np.broadcast_arrays(*arrays))

    def restore(result: np.ndarray) -> Any:
        if index is not None:
            return pd.Series(np.broadcast_to(result, (len(index),)), index=index, dtype=float)
        if is_array:
            return np.asarray(result, dtype=float)
        return float(result)

    return out, restore


def in_flight_sessions(sessions: Any, busy_s: Any, idle_s: Any, max_in_flight: Any = None) -> Any:
    """Sessions with a request in flight: ``B = min(N x busy / (busy + idle), B_max)``.

    Parameters
    ----------
    sessions : float, array_like or Series
        Concurrent sessions ``N`` [count], > 0.
    busy_s : float, array_like or Series
        Time a turn holds the server (TTFT + output tokens x TPOT) [s], > 0.
    idle_s : float, array_like or Series
        Idle time between a session's turns [s], >= 0.
    max_in_flight : float, array_like or Series, optional
        Most sequences the KV capacity holds at once [count], > 0; the others queue
        (default: no bound).

    Returns
    -------
    float, ndarray or Series
        In-flight sessions [count].

    Examples
    --------
    >>> in_flight_sessions(10.0, busy_s=30.0, idle_s=10.0)
    7.5
    """
    check_positive("sessions", sessions)
    check_positive("busy_s", busy_s)
    check_nonnegative("idle_s", idle_s)
    if max_in_flight is not None:
        check_positive("max_in_flight", max_in_flight)
    cap_arg = np.inf if max_in_flight is None else max_in_flight
    (n, busy, idle, cap), restore = _broadcast(sessions, busy_s, idle_s, cap_arg)
    return restore(np.minimum(n * busy / (busy + idle), cap))


def working_set_tokens(
    sessions: Any,
    context_tokens: Any,
    *,
    in_flight: Any = 0.0,
    running_context_tokens: Any = None,
    new_tokens_per_turn: Any = 0.0,
    turns_per_session: Any = None,
) -> Any:
    """Mean KV tokens that must stay resident for a returning session to hit its prefix.

    ``W = B x ctx_run + max(N - B - 1, 0) x (ctx + new + ctx / turns) + ctx`` (module notes),
    with at most ``N`` sessions counted.

    Parameters
    ----------
    sessions : float, array_like or Series
        Concurrent sessions ``N`` [count], > 0.
    context_tokens : float, array_like or Series
        Mean session context at the end of a turn ``ctx`` (prompt + output) [tokens], > 0.
    in_flight : float, array_like or Series, default 0
        Sessions with a request in flight ``B`` [count], in [0, N].
    running_context_tokens : float, array_like or Series, optional
        Mean context of an in-flight sequence [tokens] (default ``ctx``).
    new_tokens_per_turn : float, array_like or Series, default 0
        Tokens a turn appends to the session that were not cached [tokens], >= 0.
    turns_per_session : float, array_like or Series, optional
        Mean turns per session, >= 1; a finished session's prefix lingers until evicted
        (default: sessions do not end, no such term).

    Returns
    -------
    float, ndarray or Series
        Working set [tokens].

    Examples
    --------
    Four idle sessions of 100k tokens: the returning one and the three used after it.

    >>> working_set_tokens(4.0, 100_000.0)
    400000.0
    """
    check_positive("sessions", sessions)
    check_positive("context_tokens", context_tokens)
    check_nonnegative("in_flight", in_flight)
    check_nonnegative("new_tokens_per_turn", new_tokens_per_turn)
    turns_arg = np.inf if turns_per_session is None else turns_per_session
    if turns_per_session is not None:
        check_positive("turns_per_session", turns_per_session)
    run = context_tokens if running_context_tokens is None else running_context_tokens
    check_positive("running_context_tokens", run)
    (n, ctx, b, ctx_run, new, turns), restore = _broadcast(
        sessions, context_tokens, in_flight, run, new_tokens_per_turn, turns_arg
    )
    if np.any(b > n + 1e-9):
        raise ValueError(f"in_flight={in_flight!r} exceeds sessions={sessions!r}: at most every session is in flight")
    if np.any(turns < 1.0):
        raise ValueError(f"turns_per_session={turns_per_session!r} must be >= 1")
    idle_others = np.maximum(n - b - 1.0, 0.0)
    returning = np.minimum(n - b, 1.0)
    w = b * ctx_run + idle_others * (ctx + new + ctx / turns) + returning * ctx
    return restore(w)


def prefix_survival_frac(
    capacity_tokens: Any,
    sessions: Any,
    context_tokens: Any,
    *,
    in_flight: Any = 0.0,
    running_context_tokens: Any = None,
    new_tokens_per_turn: Any = 0.0,
    turns_per_session: Any = None,
    context_cv: Any = DEFAULT_CONTEXT_CV,
) -> Any:
    """Probability that a returning session finds its prefix within a KV capacity.

    ``S = P(W <= C)`` with ``W`` Gamma-distributed: mean :func:`working_set_tokens`, shape
    ``a = N / cv^2``; ``S = P(a, a C / E[W])`` (regularized lower incomplete gamma).

    Parameters
    ----------
    capacity_tokens : float, array_like or Series
        KV capacity [tokens], >= 0 (cumulative over the tiers that count as a hit).
    sessions, context_tokens, in_flight, running_context_tokens, new_tokens_per_turn, turns_per_session
        As in :func:`working_set_tokens`.
    context_cv : float, array_like or Series, default :data:`DEFAULT_CONTEXT_CV`
        Coefficient of variation of session contexts, > 0.

    Returns
    -------
    float, ndarray or Series
        Survival fraction, in [0, 1].

    Examples
    --------
    >>> round(prefix_survival_frac(2_000_000.0, 8.0, 100_000.0), 3)  # W = 0.8 M of 2 M
    1.0
    >>> round(prefix_survival_frac(2_000_000.0, 40.0, 100_000.0), 3)  # W = 4 M of 2 M
    0.0
    """
    check_nonnegative("capacity_tokens", capacity_tokens)
    check_positive("context_cv", context_cv)
    w = working_set_tokens(
        sessions, context_tokens, in_flight=in_flight, running_context_tokens=running_context_tokens,
        new_tokens_per_turn=new_tokens_per_turn, turns_per_session=turns_per_session,
    )
    (cap, n, ws, cv), restore = _broadcast(capacity_tokens, sessions, w, context_cv)
    shape = n / cv**2
    return restore(gammainc(shape, shape * cap / ws))


def realized_hit_frac(
    theoretical_hit_frac: Any,
    capacity_tokens: Any,
    sessions: Any,
    context_tokens: Any,
    **kwargs: Any,
) -> Any:
    """Prefix-cache hit rate a server realizes: ``h = h_theo x S`` (:func:`prefix_survival_frac`).

    Parameters
    ----------
    theoretical_hit_frac : float, array_like or Series
        Hit rate with an unbounded cache (the workload's ``cached_prefix_frac``), in [0, 1].
    capacity_tokens, sessions, context_tokens, **kwargs
        As in :func:`prefix_survival_frac`.

    Returns
    -------
    float, ndarray or Series
        Realized hit rate, in [0, theoretical].

    Examples
    --------
    >>> round(realized_hit_frac(0.96, 2_000_000.0, 4.0, 100_000.0), 6)
    0.96
    """
    check_fraction("theoretical_hit_frac", theoretical_hit_frac)
    s = prefix_survival_frac(capacity_tokens, sessions, context_tokens, **kwargs)
    (h, surv), restore = _broadcast(theoretical_hit_frac, s)
    return restore(h * surv)


def hit_frac_by_tier(
    theoretical_hit_frac: Any,
    tier_capacity_tokens: Mapping[str, Any],
    sessions: Any,
    context_tokens: Any,
    **kwargs: Any,
) -> dict[str, Any]:
    """Realized hit rate split by the tier that serves the hit (HBM, then host tiers).

    Tiers are searched in the order given (fastest first); the in-flight contexts occupy the
    first. The share of input tokens hit in tier ``k`` is ``h_theo x (S_k - S_(k-1))`` with
    ``S_k`` the survival within the cumulative capacity of tiers ``1..k``.

    Parameters
    ----------
    theoretical_hit_frac : float, array_like or Series
        Hit rate with an unbounded cache, in [0, 1].
    tier_capacity_tokens : mapping of str to float, array_like or Series
        KV capacity of each tier [tokens], >= 0, fastest first, e.g.
        ``{"hbm": 2.8e6, "dram": 2.0e7}``.
    sessions, context_tokens, **kwargs
        As in :func:`prefix_survival_frac`.

    Returns
    -------
    dict of str to float, ndarray or Series
        Hit share of input tokens per tier, plus ``"total"`` (their sum) and ``"miss"``
        (``1 - total``: tokens prefilled).

    Raises
    ------
    ValueError
        No tiers, a negative capacity, or a tier named ``"total"`` or ``"miss"``.

    Examples
    --------
    >>> hits = hit_frac_by_tier(0.96, {"hbm": 2e6, "dram": 8e6}, 40.0, 100_000.0)
    >>> round(hits["hbm"], 3), round(hits["dram"], 3)
    (0.0, 0.96)
    """
    if not tier_capacity_tokens:
        raise ValueError("tier_capacity_tokens: give at least one tier, e.g. {'hbm': capacity}")
    reserved = {"total", "miss"} & set(tier_capacity_tokens)
    if reserved:
        raise ValueError(f"tier_capacity_tokens: {sorted(reserved)} are reserved names")
    check_fraction("theoretical_hit_frac", theoretical_hit_frac)
    out: dict[str, Any] = {}
    cumulative: Any = 0.0
    previous: Any = 0.0
    for name, cap in tier_capacity_tokens.items():
        check_nonnegative(f"tier_capacity_tokens[{name!r}]", cap)
        cumulative = cumulative + (cap.to_numpy(dtype=float) if isinstance(cap, pd.Series) else np.asarray(cap))
        within = realized_hit_frac(theoretical_hit_frac, cumulative, sessions, context_tokens, **kwargs)
        (h_k, h_prev), restore = _broadcast(within, previous)
        out[name] = restore(h_k - h_prev)
        previous = within
    out["total"] = previous
    (total,), restore = _broadcast(previous)
    out["miss"] = restore(1.0 - total)
    return out
