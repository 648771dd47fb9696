"""Property tests: Pareto frontier and monotone interpolation."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.properties import strategies as strat
from tokenomics.curves.curve import ThroughputCurve
from tokenomics.curves.frontier import pareto_frontier, pareto_mask, pareto_mask_naive

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
