"""Pareto frontier of throughput vs interactivity (maximise both), O(n log n).

A point ``q`` dominates ``p`` when ``q`` is at least as good on both axes and strictly better
on one: ``q.x >= p.x and q.y >= p.y and (q.x > p.x or q.y > p.y)``. The frontier keeps every
non-dominated point once: exact duplicates keep their first occurrence (lowest position), so
the result is deterministic. Sorted by interactivity ascending, frontier throughput strictly
decreases.

Algorithm: sort by interactivity descending (ties: throughput descending, then position), scan
once keeping a point when its throughput beats the running maximum of every point before it
(vectorised with ``numpy.maximum.accumulate``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

__all__ = ["DEFAULT_GROUP_COLUMNS", "pareto_frontier", "pareto_mask", "pareto_mask_naive"]

DEFAULT_GROUP_COLUMNS: tuple[str, ...] = (
    "hardware_id", "model_id", "precision", "framework", "spec_decoding", "disaggregated",
    "workload",
)
"""Columns that define one curve by default: one frontier per configuration family."""


def pareto_mask(interactivity: ArrayLike, throughput: ArrayLike) -> NDArray[np.bool_]:
    """Return a boolean mask of the Pareto-optimal points (maximise both coordinates).

    Parameters
    ----------
    interactivity : array_like, shape (n,)
        x coordinate [tok/s/user]; finite values.
    throughput : array_like, shape (n,)
        y coordinate [tok/s/GPU]; finite values.

    Returns
    -------
    numpy.ndarray of bool, shape (n,)
        True where the point is on the frontier. Exact duplicates: only the first is True.

    Raises
    ------
    ValueError
        If the arrays differ in shape or hold NaN or infinite values.

    Notes
    -----
    O(n log n): one ``lexsort`` and one cumulative maximum.

    Examples
    --------
    >>> pareto_mask([10, 20, 30, 20], [300, 200, 50, 100]).tolist()
    [True, True, True, False]
    """
    x = np.asarray(interactivity, dtype=float).ravel()
    y = np.asarray(throughput, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"interactivity and throughput differ in length: {x.size} vs {y.size}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("pareto_mask needs finite values; drop NaN/inf points first")
    n = x.size
    mask = np.zeros(n, dtype=bool)
    if n == 0:
        return mask
    position = np.arange(n)
    # lexsort: last key is primary -> x descending, then y descending, then position ascending
    order = np.lexsort((position, -y, -x))
    ys = y[order]
    best_before = np.empty(n)
    best_before[0] = -np.inf
    if n > 1:
        best_before[1:] = np.maximum.accumulate(ys)[:-1]
    mask[order] = ys > best_before
    return mask


def pareto_mask_naive(interactivity: ArrayLike, throughput: ArrayLike) -> NDArray[np.bool_]:
    """Return the Pareto mask by comparing every pair, O(n^2) (reference for tests and benchmarks).

    Parameters
    ----------
    interactivity : array_like, shape (n,)
        x coordinate.
    throughput : array_like, shape (n,)
        y coordinate.

    Returns
    -------
    numpy.ndarray of bool, shape (n,)
        Same definition as :func:`pareto_mask` (first of exact duplicates kept).
    """
    x = np.asarray(interactivity, dtype=float).ravel()
    y = np.asarray(throughput, dtype=float).ravel()
    n = x.size
    mask = np.ones(n, dtype=bool)
    for i in range(n):
        ge = (x >= x[i]) & (y >= y[i])
        strict = (x > x[i]) | (y > y[i])
        dominated = bool(np.any(ge & strict))
        duplicate_before = bool(np.any((x[:i] == x[i]) & (y[:i] == y[i])))
        mask[i] = not (dominated or duplicate_before)
    return mask


def pareto_frontier(
    points: pd.DataFrame,
    *,
    throughput: str = "throughput_tok_per_s_per_gpu",
    interactivity: str = "interactivity_tok_per_s_per_user",
    by: Sequence[str] | None = DEFAULT_GROUP_COLUMNS,
) -> pd.DataFrame:
    """Return the Pareto-optimal rows of a curve-point table, per group.

    Parameters
    ----------
    points : pandas.DataFrame
        Curve points (e.g. from :func:`tokenomics.read_inferencex`).
    throughput : str
        Column to maximise on the y axis [tok/s/GPU] (default total throughput; use
        ``"output_throughput_tok_per_s_per_gpu"`` for MLPerf-style output-only points).
    interactivity : str
        Column to maximise on the x axis [tok/s/user].
    by : sequence of str or None
        Group columns; one frontier per group (missing values form their own group). Default
        :data:`DEFAULT_GROUP_COLUMNS`; None or ``()`` for one frontier over all points.

    Returns
    -------
    pandas.DataFrame
        The frontier rows (original index kept), sorted by group then interactivity ascending.
        ``attrs["excluded_nonpositive"]`` counts the points left out because a coordinate was
        missing, non-finite or <= 0; ``attrs["dropped_dominated"]`` the dominated points.

    Raises
    ------
    TypeError
        If ``points`` is not a DataFrame.
    KeyError
        If a named column is missing.

    Examples
    --------
    >>> df = pd.DataFrame({"interactivity_tok_per_s_per_user": [10, 20, 20, 0],
    ...                    "throughput_tok_per_s_per_gpu": [300, 200, 100, 500]})
    >>> front = pareto_frontier(df, by=None)
    >>> front.index.tolist(), front.attrs["excluded_nonpositive"]
    ([0, 1], 1)
    """
    if not isinstance(points, pd.DataFrame):
        raise TypeError(
            f"points must be a pandas DataFrame of curve points, got {type(points).__name__}"
        )
    group_cols = list(by or ())
    missing = [c for c in (throughput, interactivity, *group_cols) if c not in points.columns]
    if missing:
        raise KeyError(f"columns not in the table: {missing}; have {list(points.columns)}")
    x = pd.to_numeric(points[interactivity], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    y = pd.to_numeric(points[throughput], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    valid = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    keep = np.zeros(len(points), dtype=bool)
    if group_cols:
        keys = points[group_cols].astype("string").fillna("<NA>")
        codes = keys.groupby(group_cols, sort=True, dropna=False).ngroup().to_numpy()
    else:
        codes = np.zeros(len(points), dtype=int)
    for code in np.unique(codes[valid]):
        idx = np.flatnonzero(valid & (codes == code))
        keep[idx[pareto_mask(x[idx], y[idx])]] = True
    order = np.lexsort((x[keep], codes[keep]))
    front = points.iloc[np.flatnonzero(keep)[order]].copy()
    front.attrs = {
        "excluded_nonpositive": int((~valid).sum()),
        "dropped_dominated": int(valid.sum() - keep.sum()),
    }
    return front
