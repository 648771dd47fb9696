"""Prefix-cache working set, survival and realized hit rates, checked by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import gamma

from tokenomics.memory.prefix_cache import (
    DEFAULT_CONTEXT_CV,
    hit_frac_by_tier,
    in_flight_sessions,
    prefix_survival_frac,
    realized_hit_frac,
    working_set_tokens,
)


def test_working_set_by_hand() -> None:
    # 10 sessions of 100k, 3 in flight at 90k: 3 x 90k + (10 - 3 - 1) x (100k + 5k + 100k / 50) + 100k
    expected = 3 * 90_000 + 6 * (100_000 + 5_000 + 2_000) + 100_000
    got = working_set_tokens(10.0, 100_000.0, in_flight=3.0, running_context_tokens=90_000.0,
                             new_tokens_per_turn=5_000.0, turns_per_session=50.0)
    assert got == pytest.approx(expected)


def test_working_set_all_in_flight_is_all_running_contexts() -> None:
    got = working_set_tokens(4.0, 100_000.0, in_flight=4.0, running_context_tokens=80_000.0)
    assert got == pytest.approx(320_000.0)


def test_survival_is_a_gamma_cdf() -> None:
    # W ~ Gamma(shape N / cv^2, mean 16 x 100k); S = P(W <= 1.5 M)
    for cv in (0.45, 0.59):
        shape = 16 / cv**2
        expected = gamma.cdf(1.5e6, shape, scale=1.6e6 / shape)
        assert prefix_survival_frac(1.5e6, 16.0, 100_000.0, context_cv=cv) == pytest.approx(expected)
    shape = 16 / DEFAULT_CONTEXT_CV**2
    assert prefix_survival_frac(1.5e6, 16.0, 100_000.0) == pytest.approx(gamma.cdf(1.5e6, shape, scale=1.6e6 / shape))


def test_scalar_array_series_agree() -> None:
    n = [4.0, 16.0, 24.0, 64.0]
    arr = realized_hit_frac(0.95, 2e6, np.asarray(n), 100_000.0)
    ser = realized_hit_frac(0.95, 2e6, pd.Series(n, index=list("abcd")), 100_000.0)
    assert isinstance(arr, np.ndarray)
    assert list(ser.index) == list("abcd")
    for i, x in enumerate(n):
        assert realized_hit_frac(0.95, 2e6, x, 100_000.0) == pytest.approx(arr[i]) == pytest.approx(ser.iloc[i])
    # a working set well inside the capacity keeps the theoretical rate, far outside loses it
    assert arr[0] == pytest.approx(0.95, abs=1e-6)
    assert arr[-1] < 1e-6
    assert np.all(np.diff(arr) <= 0)


def test_tiers_add_up_and_host_tier_catches_the_overflow() -> None:
    hits = hit_frac_by_tier(0.96, {"hbm": 2e6, "dram": 8e6}, np.asarray([4.0, 40.0]), 100_000.0)
    total = hits["hbm"] + hits["dram"]
    np.testing.assert_allclose(total, hits["total"])
    np.testing.assert_allclose(hits["total"] + hits["miss"], 1.0)
    assert hits["hbm"][0] == pytest.approx(0.96, abs=1e-6)
    assert hits["dram"][1] == pytest.approx(0.96, abs=1e-3)
    # the same HBM alone realizes the HBM share
    np.testing.assert_allclose(hits["hbm"], realized_hit_frac(0.96, 2e6, np.asarray([4.0, 40.0]), 100_000.0))


def test_in_flight_by_hand() -> None:
    assert in_flight_sessions(10.0, busy_s=30.0, idle_s=10.0) == pytest.approx(7.5)
    assert in_flight_sessions(10.0, busy_s=30.0, idle_s=10.0, max_in_flight=5.0) == pytest.approx(5.0)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: realized_hit_frac(1.5, 1e6, 4.0, 1e5), "theoretical_hit_frac"),
        (lambda: prefix_survival_frac(-1.0, 4.0, 1e5), "capacity_tokens"),
        (lambda: working_set_tokens(4.0, 1e5, in_flight=5.0), "in_flight"),
        (lambda: working_set_tokens(0.0, 1e5), "sessions"),
        (lambda: hit_frac_by_tier(0.9, {}, 4.0, 1e5), "at least one tier"),
        (lambda: hit_frac_by_tier(0.9, {"total": 1e6}, 4.0, 1e5), "reserved"),
        (lambda: working_set_tokens(4.0, 1e5, turns_per_session=0.5), "turns_per_session"),
    ],
)
def test_bad_input_names_the_field(call, match: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=match):
        call()
