"""Property tests: Pareto frontier and monotone interpolation."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.interpolate import PchipInterpolator

from tests.properties import strategies as strat
from tokenomics.curves.curve import ThroughputCurve
from tokenomics.curves.frontier import (
    ENVELOPE_TOLERANCE_FRAC,
    config_envelope,
    pareto_frontier,
    pareto_mask,
    pareto_mask_naive,
)

points = strat.curve_points()


def _dominates(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] >= b[0] and a[1] >= b[1] and (a[0] > b[0] or a[1] > b[1])


@settings(max_examples=strat.examples(200), deadline=None)
@given(points)
def test_frontier_properties(pts: list[tuple[float, float]]) -> None:
    x = np.array([p[0] for p in pts])
    y = np.array([p[1] for p in pts])
    mask = pareto_mask(x, y)
    kept = [pts[i] for i in np.flatnonzero(mask)]
    # no frontier point dominates another
    assert not any(_dominates(a, b) for a in kept for b in kept)
    # every dropped point is dominated by a frontier point or duplicates one
    for i in np.flatnonzero(~mask):
        assert any(_dominates(k, pts[i]) or k == pts[i] for k in kept)
    # same answer as the O(n^2) definition
    np.testing.assert_array_equal(mask, pareto_mask_naive(x, y))
    # sorted by interactivity, throughput strictly decreases
    front = pareto_frontier(pd.DataFrame({"interactivity_tok_per_s_per_user": x,
                                          "throughput_tok_per_s_per_gpu": y}), by=None)
    assert front["interactivity_tok_per_s_per_user"].is_monotonic_increasing
    assert np.all(np.diff(front["throughput_tok_per_s_per_gpu"].to_numpy(dtype=float)) < 0)


@settings(max_examples=strat.examples(200), deadline=None)
@given(points, st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=20))
def test_interpolation_monotone_within_knots(pts: list[tuple[float, float]],
                                              fractions: list[float]) -> None:
    frame = pd.DataFrame(pts, columns=["interactivity_tok_per_s_per_user",
                                       "throughput_tok_per_s_per_gpu"])
    curve = ThroughputCurve.from_points(frame)
    lo, hi = curve.interactivity_range
    xs = np.clip(np.sort(lo + (hi - lo) * np.asarray(fractions)), lo, hi)
    ys = np.asarray(curve.throughput_at(xs), dtype=float)
    assert np.all(np.isfinite(ys))
    tmin, tmax = curve.throughput_range
    assert np.all(ys > 0)  # never below zero (pitfall: overshoot on log plots)
    assert np.all(ys >= tmin * (1 - 1e-12))
    assert np.all(ys <= tmax * (1 + 1e-12))
    assert np.all(np.diff(ys) <= 1e-9 * tmax)  # monotone non-increasing
    # the inverse solves the same interpolant: throughput_at(interactivity_at(y)) == y
    # (the other direction is ill-conditioned on nearly flat segments)
    back = np.asarray(curve.interactivity_at(ys), dtype=float)
    assert np.all((back >= lo) & (back <= hi))
    if len(curve) > 1:
        np.testing.assert_allclose(curve.throughput_at(back), ys, rtol=1e-9)
    # above the knots: NaN, never a silent extrapolation; below: met at the lowest knot (within
    # the plausible interactivities, [1, 1e4] tok/s/user)
    if hi * 1.5 <= 1e4:
        assert np.isnan(curve.throughput_at(hi * 1.5))
    assert curve.throughput_at(max(lo / 1.5, 1.0)) == tmax


def _own_curve_at(group: pd.DataFrame, at: np.ndarray) -> np.ndarray:
    """One configuration's curve read independently: its frontier, log-log PCHIP, flat below."""
    front = pareto_frontier(group, by=None).sort_values(strat.X)
    x = front[strat.X].to_numpy(dtype=float)
    y = front[strat.Y].to_numpy(dtype=float)
    out = np.where(at < x[0], y[0], np.nan)
    inside = (at >= x[0]) & (at <= x[-1])
    if x.size == 1:
        out[inside] = y[0]
    else:
        out[inside] = np.exp(PchipInterpolator(np.log(x), np.log(y))(np.log(at[inside])))
    return out


@settings(max_examples=strat.examples(60), deadline=None)
@given(strat.config_curve_frames(), strat.config_curve_frames(max_configs=1))
def test_config_envelope_properties(df: pd.DataFrame, extra: pd.DataFrame) -> None:
    env = config_envelope(df)
    x = env[strat.X].to_numpy(dtype=float)
    y = env[strat.Y].to_numpy(dtype=float)
    # a Pareto frontier, interactivity ascending
    assert np.all(np.diff(x) > 0)
    assert np.all(np.diff(y) < 0)
    # added rows lie on their own configuration's curve; the rest are input points
    for name, rows in env[env["interpolated"]].groupby("config"):
        at = rows[strat.X].to_numpy(dtype=float)
        np.testing.assert_allclose(rows[strat.Y].to_numpy(dtype=float), _own_curve_at(df[df["config"] == name], at),
                                   rtol=1e-9)
    original = env[~env["interpolated"]]
    assert original.merge(df, on=[strat.X, strat.Y, "config"]).shape[0] >= len(original)
    # the curve read through the envelope is at or above every input point
    curve = ThroughputCurve.from_points(env, allow_mixed_groups=True)
    px = df[strat.X].to_numpy(dtype=float)
    assert np.all(np.asarray(curve.throughput_at(px), dtype=float) >= df[strat.Y].to_numpy(dtype=float) * (1 - 1e-9))
    # another configuration only adds: at every row of the first envelope the second is as high,
    # to the refinement tolerance
    more = config_envelope(pd.concat([df, extra.assign(config="extra")], ignore_index=True))
    wider = ThroughputCurve.from_points(more, allow_mixed_groups=True)
    assert np.all(np.asarray(wider.throughput_at(x), dtype=float) >= y * (1 - ENVELOPE_TOLERANCE_FRAC))
