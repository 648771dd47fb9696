"""Pareto frontier of throughput vs interactivity (maximise both), O(n log n).

A point ``q`` dominates ``p`` when ``q`` is at least as good on both axes and strictly better
on one: ``q.x >= p.x and q.y >= p.y and (q.x > p.x or q.y > p.y)``. The frontier keeps every
non-dominated point once: exact duplicates keep their first occurrence (lowest position), so
the result is deterministic. Sorted by interactivity ascending, frontier throughput strictly
decreases.

Algorithm: sort by interactivity descending (ties: throughput descending, then position), scan
once keeping a point when its throughput beats the running maximum of every point before it
(vectorised with ``numpy.maximum.accumulate``).

:func:`config_envelope` is the frontier across serving configurations of the pointwise maximum
of each configuration's own curve (not of their pooled points): adding a configuration never
lowers it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy.interpolate import PchipInterpolator

from tokenomics._validate import unknown_name_error

__all__ = [
    "CONFIG_COLUMN",
    "DEFAULT_GROUP_COLUMNS",
    "ENVELOPE_KNOTS_PER_DECADE",
    "ENVELOPE_MARK",
    "ENVELOPE_REFINE_ROUNDS",
    "ENVELOPE_TOLERANCE_FRAC",
    "config_envelope",
    "pareto_frontier",
    "pareto_mask",
    "pareto_mask_naive",
]

DEFAULT_GROUP_COLUMNS: tuple[str, ...] = (
    "hardware_id", "model_id", "precision", "framework", "spec_decoding", "disaggregated",
    "workload",
)
"""Columns that define one curve by default: one frontier per configuration family."""

CONFIG_COLUMN: Final = "config"
"""Column naming a curve point's serving configuration (:func:`config_envelope`'s default)."""

ENVELOPE_MARK: Final = "interpolated"
"""Boolean column :func:`config_envelope` adds: True on rows it added, False on the points kept."""

ENVELOPE_KNOTS_PER_DECADE: Final = 32
"""Sampling of :func:`config_envelope`: interactivities ``10**(k / 32)`` tok/s/user (7.5 % apart)."""

ENVELOPE_TOLERANCE_FRAC: Final = 0.005
""":func:`config_envelope` refines its samples until the interpolant through them is within this
fraction of the envelope at the quarter points of every gap (or :data:`ENVELOPE_REFINE_ROUNDS` rounds are done)."""

CROSSING_BISECTIONS: Final = 30
"""Bisections in log interactivity that locate where :func:`config_envelope`'s best configuration changes."""

ENVELOPE_REFINE_ROUNDS: Final = 12
"""Most refinement rounds of :func:`config_envelope` (each splits the gaps that miss)."""


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
        raise unknown_name_error("column", missing[0], [str(c) for c in points.columns])
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


def config_envelope(
    points: pd.DataFrame,
    *,
    config: str = CONFIG_COLUMN,
    throughput: str = "throughput_tok_per_s_per_gpu",
    interactivity: str = "interactivity_tok_per_s_per_user",
    knots_per_decade: int = ENVELOPE_KNOTS_PER_DECADE,
) -> pd.DataFrame:
    """Return the frontier of the best configuration at each interactivity, sampled densely.

    Each configuration ``c`` is read as :class:`tokenomics.ThroughputCurve` reads one
    configuration: ``F_c(x) = exp(PCHIP(log x))`` through its frontier points, its highest
    throughput below its lowest interactivity (serving faster than asked meets the target),
    nothing above its highest. The envelope ``E(x) = max_c F_c(x)`` is sampled at the fixed
    interactivities ``10**(k / knots_per_decade)``, at every point, just above each
    configuration's highest interactivity (where ``E`` steps down) and where the best
    configuration changes (the crossing of the two, bisected in log interactivity between
    samples and evaluated on both curves). Then, in rounds: a point left on the frontier although another
    configuration's curve is higher there gets a row on that curve, and where the log-log PCHIP
    through the frontier (what :class:`tokenomics.ThroughputCurve` reads) misses ``E`` by more
    than :data:`ENVELOPE_TOLERANCE_FRAC` at a quarter, half or three quarters of the way
    between two rows (in log interactivity), that point is added. The result is the Pareto
    frontier of points and rows, read within that tolerance of ``E`` at every point checked; a
    configuration added to ``points`` raises ``E`` and so cannot lower the curve by more.

    An added row mixes the two points ``l`` and ``r`` of its configuration around it: every
    numeric column is ``v_l + w (v_r - v_l)`` with ``w = (y - y_l) / (y_r - y_l)``, so input
    and output throughput still add up to ``y``; interactivity is ``x``; other columns are
    ``l``'s. ``interpolated`` is True on added rows.

    Parameters
    ----------
    points : pandas.DataFrame
        Curve points of one model, system and workload, in one or more configurations.
    config : str
        Column naming each point's configuration (a :func:`tokenomics.config_label`).
    throughput : str
        Column to maximise [tok/s/GPU].
    interactivity : str
        Column to maximise [tok/s/user].
    knots_per_decade : int
        Grid interactivities per factor of 10 (>= 1).

    Returns
    -------
    pandas.DataFrame
        Frontier rows, interactivity ascending, index 0..n-1, with a boolean ``interpolated``
        column; ``attrs`` of ``points`` kept, plus ``attrs["excluded_nonpositive"]``, the points
        left out for a missing, non-finite or non-positive coordinate.

    Raises
    ------
    TypeError
        If ``points`` is not a DataFrame.
    KeyError
        If a named column is missing.
    ValueError
        If ``knots_per_decade`` is not an integer >= 1.

    Examples
    --------
    Configuration ``a`` runs from (10, 1000) to (100, 100) tok/s/user, tok/s/GPU, ``y = 10^4 / x``
    in log-log; ``b`` reaches 300 at 50. Read through the pooled points, the curve at 20 and 40
    lies on the chord from ``a``'s first point to ``b``; through the envelope it follows ``a``
    to 33.3, then ``b`` (and so does ``ThroughputCurve.from_points`` of the points themselves,
    which reads several configurations through this envelope):

    >>> import tokenomics as tk
    >>> df = pd.DataFrame({"config": ["a", "a", "b"],
    ...                    "interactivity_tok_per_s_per_user": [10.0, 100.0, 50.0],
    ...                    "throughput_tok_per_s_per_gpu": [1000.0, 100.0, 300.0]})
    >>> env = config_envelope(df)
    >>> pooled = tk.ThroughputCurve.from_points(df.drop(columns="config"))
    >>> best = tk.ThroughputCurve.from_points(env, allow_mixed_groups=True)
    >>> round(float(tk.ThroughputCurve.from_points(df, allow_mixed_groups=True).throughput_at(20.0)))
    500
    >>> [round(float(pooled.throughput_at(v))) for v in (20.0, 40.0)]
    [717, 380]
    >>> [round(float(best.throughput_at(v))) for v in (20.0, 40.0)]
    [500, 300]
    """
    if isinstance(knots_per_decade, bool) or not isinstance(knots_per_decade, int | np.integer) \
            or knots_per_decade < 1:
        raise ValueError(f"knots_per_decade={knots_per_decade!r} must be an integer >= 1")
    front = pareto_frontier(points, throughput=throughput, interactivity=interactivity, by=[config])
    front = front.reset_index(drop=True)
    x = front[interactivity].to_numpy(dtype=float, na_value=np.nan)
    y = front[throughput].to_numpy(dtype=float, na_value=np.nan)
    attrs = {**points.attrs, "excluded_nonpositive": front.attrs["excluded_nonpositive"]}
    if not x.size:
        return _envelope_rows(front, front.iloc[:0], np.zeros(0), np.zeros(0), np.zeros(0), attrs,
                              interactivity, throughput)
    names = front[config].astype("string").fillna("<NA>").to_numpy()
    starts = np.flatnonzero(np.r_[True, names[1:] != names[:-1]])
    ends = np.r_[starts[1:], names.size]  # configuration c: rows starts[c]..ends[c]-1
    own = [PchipInterpolator(np.log(x[a:b]), np.log(y[a:b])) if b - a > 1 else None
           for a, b in zip(starts, ends, strict=True)]

    def curve(c: int, at: np.ndarray) -> np.ndarray:
        """F_c at ``at`` (NaN above configuration c's range)."""
        a, b = starts[c], ends[c]
        out = np.where(at < x[a], y[a], np.nan)
        inside = (at >= x[a]) & (at <= x[b - 1])
        fn = own[c]
        if fn is None:
            out[inside] = y[a]
        elif inside.any():
            out[inside] = np.clip(np.exp(fn(np.log(at[inside]))), y[b - 1], y[a])
        return out

    def best(at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Best configuration at ``at``, its value E, and F_c of every c (rows)."""
        v = np.stack([curve(c, at) for c in range(starts.size)]) if at.size else np.zeros((starts.size, 0))
        c_best = np.argmax(np.where(np.isnan(v), -np.inf, v), axis=0)
        return c_best, v[c_best, np.arange(at.size)], v

    def own_value(cs: np.ndarray, at: np.ndarray) -> np.ndarray:
        """F_c at ``at`` for the configuration ``cs[j]`` of each ``at[j]``."""
        out = np.full(at.size, np.nan)
        for c in np.unique(cs):
            sel = cs == c
            out[sel] = curve(int(c), at[sel])
        return out

    g = float(knots_per_decade)
    k = np.arange(np.ceil(np.log10(x.min()) * g), np.floor(np.log10(x.max()) * g) + 1)
    grid = np.concatenate([10.0 ** (k / g), x[ends - 1] * (1.0 + 1e-9)])
    at = np.unique(np.concatenate([grid, x]))  # the points too: a change of the best between them
    c_at, y_at, v = best(at)
    # where the best configuration changes between two samples, add the crossing of the two
    i = np.flatnonzero(c_at[1:] != c_at[:-1])
    ca, cb = c_at[i], c_at[i + 1]
    ok = np.isfinite(v[ca, i]) & np.isfinite(v[ca, i + 1]) & np.isfinite(v[cb, i]) & np.isfinite(v[cb, i + 1])
    i, ca, cb = i[ok], ca[ok], cb[ok]
    lo, hi = np.log(at[i]), np.log(at[i + 1])  # ca leads at lo, cb at hi: bisect in log x
    for _ in range(CROSSING_BISECTIONS):
        mid = 0.5 * (lo + hi)
        ahead = own_value(ca, np.exp(mid)) >= own_value(cb, np.exp(mid))
        lo, hi = np.where(ahead, mid, lo), np.where(ahead, hi, mid)
    cross = np.exp(lo)  # on ca's side, so ca's row there is not below cb's
    on_grid = np.isin(at, grid)  # rows at the points themselves add nothing to the points
    sample_x = np.concatenate([at[on_grid], cross, np.exp(hi)])
    sample_c = np.concatenate([c_at[on_grid], ca, cb])
    sample_y = np.concatenate([y_at[on_grid], own_value(ca, cross), own_value(cb, np.exp(hi))])
    pos = np.searchsorted(at, x)
    under = y_at[pos] > y  # points under another configuration's curve
    # refine: a point under another curve that stays on the frontier of points and samples gives
    # way to that curve at its interactivity; where the interpolant through that frontier (what
    # ThroughputCurve reads) strays from E at a quarter point of a gap (log x), that point is added
    for _ in range(ENVELOPE_REFINE_ROUNDS):
        fin = np.isfinite(sample_y)
        px, py = np.concatenate([x, sample_x[fin]]), np.concatenate([y, sample_y[fin]])
        keep = pareto_mask(px, py)
        lifted = keep[:x.size] & under
        if lifted.any():
            under &= ~lifted
            sample_x = np.concatenate([sample_x, x[lifted]])
            sample_c = np.concatenate([sample_c, c_at[pos[lifted]]])
            sample_y = np.concatenate([sample_y, y_at[pos[lifted]]])
            continue
        # duplicates of a point stay on the frontier (and x, x(1 + 1e-16) meet in log x)
        lx, first = np.unique(np.log(px[keep]), return_index=True)
        px, py = px[keep][first], py[keep][first]
        wide = px[1:] > px[:-1] * (1.0 + 1e-6)
        if not wide.any():
            break
        lo_x, hi_x = lx[:-1][wide], lx[1:][wide]
        mid = np.exp(np.concatenate([lo_x + q * (hi_x - lo_x) for q in (0.25, 0.5, 0.75)]))
        fit = np.exp(PchipInterpolator(lx, np.log(py))(np.log(mid)))
        c_mid, y_mid, _ = best(mid)
        off = np.isfinite(y_mid) & (np.abs(fit / y_mid - 1.0) > ENVELOPE_TOLERANCE_FRAC)
        if not off.any():
            break
        sample_x = np.concatenate([sample_x, mid[off]])
        sample_c = np.concatenate([sample_c, c_mid[off]])
        sample_y = np.concatenate([sample_y, y_mid[off]])
    # a sample below its configuration's lowest interactivity is that configuration's first point
    on_curve = np.isfinite(sample_y) & (sample_x > x[starts[sample_c]]) & (sample_x < x[ends[sample_c] - 1])
    sample_x, sample_c, sample_y = sample_x[on_curve], sample_c[on_curve], sample_y[on_curve]
    a = starts[sample_c]
    b = ends[sample_c]
    left = a + np.array([np.searchsorted(x[lo:hi], xs, side="right") - 1
                         for lo, hi, xs in zip(a, b, sample_x, strict=True)], dtype=int)
    not_knot = x[left] != sample_x
    left, sample_x, sample_y = left[not_knot], sample_x[not_knot], sample_y[not_knot]
    return _envelope_rows(front, front.iloc[left], sample_x, sample_y, y[left + 1], attrs,
                          interactivity, throughput, right=front.iloc[left + 1])


def _envelope_rows(front: pd.DataFrame, left: pd.DataFrame, x: np.ndarray, y: np.ndarray, y_right: np.ndarray,
                   attrs: dict[str, object], interactivity: str, throughput: str,
                   right: pd.DataFrame | None = None) -> pd.DataFrame:
    """Return the Pareto frontier of ``front`` and rows at (x, y) mixed from ``left`` and ``right``."""
    added = left.reset_index(drop=True)
    if right is not None and len(added):
        other = right.reset_index(drop=True)
        y_left = added[throughput].to_numpy(dtype=float, na_value=np.nan)
        w = (y - y_left) / (y_right - y_left)
        for name in added.columns:
            dtype = added[name].dtype
            if name in (interactivity, throughput) or pd.api.types.is_bool_dtype(dtype) \
                    or not pd.api.types.is_numeric_dtype(dtype):
                continue
            lv = added[name].to_numpy(dtype=float, na_value=np.nan)
            rv = other[name].to_numpy(dtype=float, na_value=np.nan)
            mixed = np.where(lv == rv, lv, lv + w * (rv - lv))
            added[name] = pd.array(mixed, dtype="Float64") if isinstance(dtype, pd.api.extensions.ExtensionDtype) \
                else mixed
    for name, value in ((interactivity, x), (throughput, y)):
        dtype = front[name].dtype
        added[name] = pd.array(value, dtype=dtype) if isinstance(dtype, pd.api.extensions.ExtensionDtype) else value
    both = pd.concat([front.assign(**{ENVELOPE_MARK: False}), added.assign(**{ENVELOPE_MARK: True})],
                     ignore_index=True)
    out = pareto_frontier(both, throughput=throughput, interactivity=interactivity, by=None)
    # rows a rounding apart in log interactivity: a point stands for them, else the first
    lx = np.log(out[interactivity].to_numpy(dtype=float, na_value=np.nan))
    group = np.cumsum(np.r_[True, np.diff(lx) > 0][:lx.size])
    rank = out[ENVELOPE_MARK].to_numpy(dtype=bool).astype(int)
    pick = pd.DataFrame({"group": group, "rank": rank}).sort_values(["group", "rank"], kind="stable")
    out = out.iloc[np.sort(pick.drop_duplicates("group").index.to_numpy())].reset_index(drop=True)
    out.attrs = dict(attrs)
    return out
