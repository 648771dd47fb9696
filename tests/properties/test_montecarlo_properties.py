"""Property tests of the Monte Carlo summaries (tokenomics.analysis.montecarlo)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from scipy import stats

from tests.properties import strategies as strat
from tokenomics.analysis.montecarlo import SKETCH_RELATIVE_ERROR, monte_carlo
from tokenomics.economics import MAX_USD_PER_GPU_HOUR

QUANTILES = ["p5", "p10", "p25", "p50", "p75", "p90", "p95"]


def _base(t_a, t_b, k_a, k_b, p_out):
    return pd.DataFrame({
        "hardware_id": ["a", "b"], "throughput_tok_per_s_per_gpu": [t_a, t_b], "cost_usd_per_gpu_hour": [k_a, k_b],
        "utilization_frac": 0.6, "license_fee_frac": 0.0, "input_share_frac": 0.9, "cache_hit_frac": 0.0,
        "input_usd_per_mtok": 0.5, "output_usd_per_mtok": p_out, "cached_input_usd_per_mtok": 0.05,
        "throughput_low_tok_per_s_per_gpu": [0.62 * t_a, 0.7 * t_b],
        "throughput_high_tok_per_s_per_gpu": [1.37 * t_a, 1.2 * t_b],
        "facility_power_kw_per_accelerator": [1.4, 1.1],
    })


@settings(max_examples=8, deadline=None, derandomize=True)
@given(t_a=strat.throughputs, t_b=strat.throughputs, k_a=strat.costs, k_b=strat.costs, p_out=strat.prices,
       scale=strat.scale_factors)
def test_summaries_are_consistent_and_homogeneous_in_cost(t_a, t_b, k_a, k_b, p_out, scale):
    kw = {"n_draws": 512, "seed": 0, "utilization_frac": stats.uniform(0.3, 0.6), "keep_draws": False}
    r = monte_carlo(_base(t_a, t_b, k_a, k_b, p_out), **kw)
    s = r.summary
    q = s[QUANTILES].to_numpy()
    finite = np.isfinite(q).all(axis=1)
    assert (np.diff(q[finite], axis=1) >= 0).all()  # quantiles ordered
    # a cheaper than b, b cheaper than a, or a tie: the shares add up to at most 1
    assert r.cheaper_frac.loc["a", "b"] + r.cheaper_frac.loc["b", "a"] <= 1.0 + 1e-12
    assert r.cheapest_frac.sum() == pytest.approx(1.0)
    assert r.margin_above_frac.between(0.0, 1.0).all()
    # cost per Mtok is linear in the hourly cost: the same draws scale by the factor
    scale = min(scale, 0.999 * MAX_USD_PER_GPU_HOUR / max(k_a, k_b))  # the scaled costs stay per GPU-hour
    scaled = monte_carlo(_base(t_a, t_b, k_a * scale, k_b * scale, p_out), **kw).summary
    cost = s["metric"] == "cost_usd_per_mtok"
    for col in ("mean", "p50"):
        tol = 1e-9 if col == "mean" else 2 * SKETCH_RELATIVE_ERROR
        np.testing.assert_allclose(scaled.loc[cost, col], scale * s.loc[cost, col], rtol=tol)
    # energy does not depend on the hourly cost at all
    energy = s["metric"] == "energy_j_per_token"
    np.testing.assert_allclose(scaled.loc[energy, "mean"], s.loc[energy, "mean"], rtol=1e-12)
