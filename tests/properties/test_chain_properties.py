"""Property: a sweep over hardware x workload x interactivity equals the chain evaluated point by point."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenomics as tk
from tests.properties.strategies import CHAIN_SYSTEMS, CHAIN_WORKLOADS, chain_interactivities, examples, utilizations
from tokenomics.chain import CHAIN_COLUMNS, evaluate


@settings(max_examples=examples(6), deadline=None, derandomize=True)
@given(
    hardware=st.lists(st.sampled_from(CHAIN_SYSTEMS), min_size=1, max_size=2, unique=True),
    workloads=st.lists(st.sampled_from(CHAIN_WORKLOADS), min_size=1, max_size=2, unique=True),
    interactivities=st.lists(chain_interactivities, min_size=1, max_size=2, unique=True),
    utilization=utilizations,
)
def test_sweep_equals_pointwise_evaluation(hardware, workloads, interactivities, utilization):
    base = tk.Scenario(hardware=hardware[0], model="deepseek-r1", utilization_frac=utilization)
    swept = tk.sweep(base, hardware=hardware, workload=workloads, interactivity_tok_per_s_per_user=interactivities)
    points = pd.concat(
        [evaluate("deepseek-r1", hw, workload=wl, interactivity_tok_per_s_per_user=x, utilization_frac=utilization)
         for hw, wl, x in itertools.product(hardware, workloads, interactivities)],
        ignore_index=True,
    )
    assert len(swept) == len(points) == len(hardware) * len(workloads) * len(interactivities)
    for col in CHAIN_COLUMNS:
        if points[col].dtype.kind == "f":
            np.testing.assert_array_equal(swept[col].to_numpy(dtype=float), points[col].to_numpy(dtype=float))
        else:
            assert _labels(swept[col]) == _labels(points[col]), col


def _labels(column: pd.Series) -> list[object]:
    return [None if pd.isna(v) else v for v in column.astype(object)]
