"""Property tests of the curve target rule and the frontier: order, repetition and new
measurements never change a defined answer for the worse."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from tests.properties import strategies as strat
from tokenomics.curves.curve import ThroughputCurve, cost_curve
from tokenomics.curves.frontier import pareto_frontier
from tokenomics.economics import cost_per_mtok

X, Y = strat.X, strat.Y


def _frontier(frame: pd.DataFrame) -> pd.DataFrame:
    return pareto_frontier(frame, by=None)


def _pairs(frame: pd.DataFrame) -> list[tuple[float, float]]:
    return sorted(zip(frame[X].astype(float), frame[Y].astype(float), strict=True))


@strat.DEFAULT_SETTINGS
@given(strat.curve_frames())
def test_frontier_is_idempotent(frame: pd.DataFrame) -> None:
    once = _frontier(frame)
    twice = _frontier(once)
    assert _pairs(twice) == _pairs(once)
    assert twice.attrs["dropped_dominated"] == 0


@strat.DEFAULT_SETTINGS
@given(strat.curve_frames(), st.randoms(use_true_random=False))
def test_frontier_is_independent_of_row_order(frame: pd.DataFrame, rnd: random.Random) -> None:
    order = list(range(len(frame)))
    rnd.shuffle(order)
    shuffled = frame.iloc[order].reset_index(drop=True)
    assert _pairs(_frontier(shuffled)) == _pairs(_frontier(frame))


@strat.DEFAULT_SETTINGS
@given(strat.curve_frames(), strat.interactivities)
def test_target_below_the_frontier_is_met_at_its_first_point(frame: pd.DataFrame, x: float) -> None:
    curve = ThroughputCurve.from_points(frame)
    lo, _ = curve.interactivity_range
    _, tmax = curve.throughput_range
    target = min(x, lo)
    # serving faster than asked meets the target: the lowest-interactivity point's throughput
    assert curve.throughput_at(target) == tmax
    assert curve.can_meet(target)


@strat.DEFAULT_SETTINGS
@given(strat.curve_frames(), strat.interactivities, strat.throughputs, strat.interactivities)
def test_dominating_measurement_never_makes_the_curve_undefined(
    frame: pd.DataFrame, dx: float, dy: float, target: float
) -> None:
    old = ThroughputCurve.from_points(frame)
    # a new point at least as good as every old point on both axes
    new_point = pd.DataFrame({X: [float(frame[X].max()) + dx], Y: [float(frame[Y].max()) + dy]})
    new = ThroughputCurve.from_points(pd.concat([frame, new_point], ignore_index=True))
    before = old.throughput_at(target)
    after = new.throughput_at(target)
    if np.isfinite(before):
        assert np.isfinite(after)
        assert after >= before  # it dominates every old point, so it serves any old target better


@strat.DEFAULT_SETTINGS
@given(strat.curve_frames(), strat.curve_points(min_size=1, max_size=10), strat.interactivities)
def test_any_new_measurement_keeps_a_defined_target_defined(
    frame: pd.DataFrame, extra: list[tuple[float, float]], target: float
) -> None:
    old = ThroughputCurve.from_points(frame)
    new = ThroughputCurve.from_points(pd.concat([frame, pd.DataFrame(extra, columns=[X, Y])], ignore_index=True))
    if old.can_meet(target):
        assert new.can_meet(target)
        assert np.isfinite(new.throughput_at(target))


@strat.DEFAULT_SETTINGS
@given(strat.curve_frames(), st.lists(strat.interactivities, min_size=1, max_size=20))
def test_throughput_never_exceeds_what_a_measurement_at_least_as_fast_shows_above_it(
    frame: pd.DataFrame, targets: list[float]
) -> None:
    curve = ThroughputCurve.from_points(frame)
    xs = np.asarray(targets)
    ys = np.asarray(curve.throughput_at(xs), dtype=float)
    kx, ky = np.asarray(frame[X], dtype=float), np.asarray(frame[Y], dtype=float)
    for x, y in zip(xs, ys, strict=True):
        if np.isnan(y):
            assert x > kx.max()
            continue
        # never more than the best point measured at >= the next knot below; never less than the
        # best point measured at >= the target (the interpolation only claims between them)
        assert y >= ky[kx >= x].max() * (1 - 1e-9)
        assert y <= ky.max() * (1 + 1e-12)


@strat.DEFAULT_SETTINGS
@given(strat.curve_frames(), strat.costs, strat.utilizations)
def test_cost_curve_equals_pointwise_cost(frame: pd.DataFrame, rate: float, u: float) -> None:
    curve = ThroughputCurve.from_points(frame)
    table = cost_curve(curve, rate, u)
    expected = [float(cost_per_mtok(rate, t, u)) for t in table[Y]]
    np.testing.assert_allclose(table["total_usd_per_mtok"], expected, rtol=1e-12)
