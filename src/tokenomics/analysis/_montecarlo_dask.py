"""Monte Carlo larger than memory: chunks of draws streamed through dask, reduced to summaries.

Each chunk draws its uniform numbers independently of the others (a Sobol' engine fast-forwarded
to the chunk's first point, or a random generator seeded by ``(seed, first point)``), evaluates
every case, and reduces the results to fixed-size partial sums: count, sum and sum of squares
of the finite values, a fixed-bin histogram per metric and case (bins from a pilot run; values
outside fall in under/overflow bins), the P(margin > target) count and the pairwise "cheaper"
counts. dask adds the partial sums in a tree, so memory stays at a few chunks whatever the
number of draws.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from tokenomics.analysis.montecarlo import (
    _BLOCK,
    _HIST_BINS,
    _QUANTILES,
    METRICS,
    MonteCarloProblem,
    MonteCarloResult,
    _cheaper_counts,
    _labels,
    _qnames,
    _uniforms,
)

_LOG_METRICS = {"cost_usd_per_mtok", "breakeven_price_usd_per_mtok"}


def _edges(problem: MonteCarloProblem, seed: int | None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per metric, the (low, high) histogram range of every case from a pilot run (log for money)."""
    pilot = problem.evaluate(_uniforms(problem.dims, 2**12, "sobol", None if seed is None else seed + 7919))
    out = {}
    for metric, arr in pilot.items():
        a = np.where(np.isfinite(arr), arr, np.nan)
        if metric in _LOG_METRICS:
            a = np.log(a)
        with np.errstate(all="ignore"):
            lo, hi = np.nanmin(a, axis=0), np.nanmax(a, axis=0)
        lo = np.where(np.isfinite(lo), lo, 0.0)
        hi = np.where(np.isfinite(hi), hi, 1.0)
        pad = np.maximum((hi - lo) * 0.5, 1e-6)
        out[metric] = (lo - pad, hi + pad)
    return out


def _chunk(problem: MonteCarloProblem, start: int, size: int, method: str, seed: int | None,
           edges: dict[str, tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    u = _uniforms(problem.dims, size, method, seed, start)  # type: ignore[arg-type]
    total: np.ndarray | None = None
    for s in range(0, size, _BLOCK):  # cache-sized blocks
        part = _reduce(problem, problem.evaluate(u[s: s + _BLOCK]), edges)
        total = part if total is None else total + part
    assert total is not None
    return total


def _reduce(problem: MonteCarloProblem, res: dict[str, np.ndarray],
            edges: dict[str, tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    c = len(problem.cases)
    parts = []
    for metric in METRICS:
        arr = res[metric]
        finite = np.isfinite(arr)
        a = np.where(finite, arr, 0.0)
        parts += [finite.sum(axis=0), a.sum(axis=0), (a * a).sum(axis=0)]
        x = np.log(np.where(finite, arr, 1.0)) if metric in _LOG_METRICS else a
        lo, hi = edges[metric]
        idx = np.floor((x - lo) / (hi - lo) * _HIST_BINS).astype(np.int64) + 1
        idx = np.clip(idx, 0, _HIST_BINS + 1)
        idx = np.where(finite, idx + (_HIST_BINS + 2) * np.arange(c)[None, :], -1)
        flat = idx[idx >= 0]
        parts.append(np.bincount(flat, minlength=(_HIST_BINS + 2) * c).astype(float))
    parts.append((res["gross_margin_frac"] > problem.target_margin_frac).sum(axis=0))
    parts.append(np.nan_to_num(_cheaper_counts(problem.cases, res["cost_usd_per_mtok"]), nan=0.0).ravel())
    return np.concatenate([np.asarray(p, dtype=float).ravel() for p in parts])


def run_dask(problem: MonteCarloProblem, n: int, method: str, seed: int | None, chunk: int) -> MonteCarloResult:
    """Run ``n`` draws in dask chunks of ``chunk`` and summarise (see the module docstring)."""
    import dask
    import dask.array as da  # heavy optional import: the chunked path only

    if method == "auto":
        method = "sobol"
    if method == "lhs":
        raise ValueError("method='lhs' cannot be chunked; use 'sobol' or 'random' with backend='dask'")
    if chunk < 2:
        raise ValueError(f"chunk_draws={chunk!r} must be >= 2")
    chunk = min(chunk, n)
    if method == "sobol" and (n & (n - 1) or chunk & (chunk - 1)):
        raise ValueError(
            f"Sobol' chunks need powers of two for n_draws ({n}) and chunk_draws ({chunk}); "
            "use method='random' for other counts"
        )
    edges = _edges(problem, seed)
    c = len(problem.cases)
    length = len(METRICS) * c * (3 + _HIST_BINS + 2) + c + c * c
    starts = range(0, n, chunk)
    parts = [
        da.from_delayed(dask.delayed(_chunk)(problem, s, min(chunk, n - s), method, seed, edges),
                        shape=(length,), dtype=float)[None, :]
        for s in starts
    ]
    total = da.concatenate(parts, axis=0).sum(axis=0, split_every=8).compute()
    return _result(problem, n, total, edges, method, seed)


def _result(problem: MonteCarloProblem, n: int, total: np.ndarray, edges: dict[str, tuple[np.ndarray, np.ndarray]],
            method: str, seed: int | None) -> MonteCarloResult:
    cases = problem.cases
    c = len(cases)
    labels = _labels(cases)
    pos = 0
    rows = []
    for metric in METRICS:
        cnt, s1, s2 = (total[pos + k * c: pos + (k + 1) * c] for k in range(3))
        pos += 3 * c
        hist = total[pos: pos + (_HIST_BINS + 2) * c].reshape(c, _HIST_BINS + 2)
        pos += (_HIST_BINS + 2) * c
        lo, hi = edges[metric]
        for j in range(c):
            row: dict[str, Any] = {
                "case": labels[j],
                "hardware_id": cases["hardware_id"].iloc[j],
                "interactivity_tok_per_s_per_user": cases["interactivity_tok_per_s_per_user"].iloc[j],
                "metric": metric,
                "finite_frac": cnt[j] / n,
            }
            mean = s1[j] / cnt[j] if cnt[j] else math.nan
            row["mean"] = mean
            row["std"] = math.sqrt(max(s2[j] / cnt[j] - mean * mean, 0.0)) if cnt[j] else math.nan
            for q, name in zip(_QUANTILES, _qnames(), strict=True):
                row[name] = _hist_quantile(hist[j], q, lo[j], hi[j], metric in _LOG_METRICS)
            rows.append(row)
    margin = total[pos: pos + c] / n
    pos += c
    cheaper = total[pos: pos + c * c].reshape(c, c) / n
    same = np.asarray(cases["interactivity_tok_per_s_per_user"].to_numpy(dtype=float))
    mask = (same[:, None] == same[None, :]) | (np.isnan(same[:, None]) & np.isnan(same[None, :]))
    cheaper = np.where(mask, cheaper, np.nan)
    return MonteCarloResult(problem, n, pd.DataFrame(rows), pd.DataFrame(cheaper, index=labels, columns=labels),
                            pd.Series(margin, index=labels, name="prob_margin_above"), None, f"dask:{method}", seed)


def _hist_quantile(hist: np.ndarray, q: float, lo: float, hi: float, log: bool) -> float:
    total = hist.sum()
    if total == 0:
        return math.nan
    cum = np.cumsum(hist)
    k = int(np.searchsorted(cum, q * total, side="left"))
    if k == 0 or k == len(hist) - 1:  # under- or overflow: the pilot range's edge
        x = lo if k == 0 else hi
    else:
        before = cum[k - 1] if k > 0 else 0.0
        frac = (q * total - before) / hist[k] if hist[k] else 0.5
        x = lo + (k - 1 + frac) * (hi - lo) / _HIST_BINS
    return float(math.exp(x)) if log else float(x)
