"""Property tests of scenarios: margin bounds, and a sweep equals its points evaluated one by one."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenomics as tk
from tests.properties import strategies as strat


def _scenario(**kw: float) -> tk.Scenario:
    base = {"hardware": "b200", "cost_usd_per_gpu_hour": 2.0, "input_usd_per_mtok": 0.5,
            "output_usd_per_mtok": 2.0, "utilization_frac": 0.6, "throughput_tok_per_s_per_gpu": 1000.0}
    return tk.Scenario(**{**base, **kw})


@strat.DEFAULT_SETTINGS
@given(strat.prices, strat.throughputs, strat.utilizations, strat.costs, strat.license_fees, strat.royalties,
       strat.fixed_fees)
def test_margin_bounded_above_by_the_share_left_after_the_fee(p: float, t: float, u: float, k: float,
                                                              f: float, rho: float, fx: float) -> None:
    m = tk.gross_margin_frac(p, t, u, k, f, rho, fx)
    assert np.isfinite(m)
    assert m <= 1.0 - f + 1e-12
    # and it reaches that bound only as the cost vanishes
    assert tk.gross_margin_frac(p, t, u, k / 2, f, rho, fx) >= m - 1e-12 * max(1.0, abs(m))


@settings(max_examples=strat.examples(25), deadline=None)
@given(
    st.lists(strat.utilizations, min_size=1, max_size=4, unique=True),
    st.lists(strat.throughputs, min_size=1, max_size=4, unique=True),
    st.lists(strat.license_fees, min_size=1, max_size=3, unique=True),
)
def test_sweep_equals_pointwise_evaluation(utils: list[float], tputs: list[float], fees: list[float]) -> None:
    base = _scenario()
    table = tk.sweep(base, utilization_frac=utils, throughput_tok_per_s_per_gpu=tputs, license_fee_frac=fees)
    assert len(table) == len(utils) * len(tputs) * len(fees)
    for row in table.itertuples(index=False):
        one = _scenario(utilization_frac=row.utilization_frac,
                        throughput_tok_per_s_per_gpu=row.throughput_tok_per_s_per_gpu,
                        license_fee_frac=row.license_fee_frac).evaluate().iloc[0]
        for col in ("cost_usd_per_mtok", "gross_margin_frac", "profit_usd_per_gpu_hour"):
            assert getattr(row, col) == one[col] or np.isclose(getattr(row, col), one[col], rtol=1e-12)
    assert isinstance(table, pd.DataFrame)
