"""Property tests of disaggregated plans: GPU-count identities, rate matching, per-pool cost."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenomics as tk
from tests.properties import strategies as strat
from tokenomics.perf import RooflineFactors, ServingConfig
from tokenomics.perf.disagg import Pool, ServingPlan, plan_cost_per_mtok, plan_points

FACTORS = RooflineFactors()
PAIRS = [("b200", "h200"), ("gb300", "gb200"), ("rubin-cpx", "vr200"), ("h200", "h200")]
PREC = {"weight_precision": "fp8", "dense_weight_precision": "fp8", "kv_precision": "fp8"}


def _plan(prefill: str, decode: str, replicas: int, cap: float) -> ServingPlan:
    p_cfg = ServingConfig(tp=1, pp=8, **PREC) if prefill == "rubin-cpx" else ServingConfig(tp=8, ep=8, **PREC)
    return ServingPlan(prefill=Pool(hardware=prefill, config=p_cfg),
                       decode=Pool(hardware=decode, config=ServingConfig(tp=8, ep=8, **PREC), num_gpus=8 * replicas),
                       prefill_max_utilization_frac=cap)


@settings(max_examples=strat.examples(25), deadline=None)
@given(
    pair=st.sampled_from(PAIRS),
    replicas=st.integers(1, 6),
    batch=st.floats(1.0, 64.0),
    cap=st.floats(0.3, 0.95),
    c_p=strat.costs,
    c_d=strat.costs,
    u=strat.utilizations,
)
def test_plan_identities(pair: tuple[str, str], replicas: int, batch: float, cap: float, c_p: float, c_d: float,
                         u: float) -> None:
    prefill, decode = pair
    isl, osl = 8192.0, 1024.0
    tco = {prefill: c_p, decode: c_d} if prefill != decode else c_p
    pts = plan_points("deepseek-r1", _plan(prefill, decode, replicas, cap), [batch], isl_tokens=isl, osl_tokens=osl,
                      prefill_factors=FACTORS, decode_factors=FACTORS, tco_usd_per_gpu_hour=tco)
    row = pts.iloc[0]
    r, n_p, n_d = row["requests_per_s"], row["num_prefill_gpus"], row["num_decode_gpus"]
    # every token divided by the GPUs that serve it
    assert row["num_gpus"] == n_p + n_d
    assert row["throughput_tok_per_s_per_gpu"] * (n_p + n_d) == pytest.approx((isl + osl) * r)
    assert row["input_throughput_tok_per_s_per_gpu"] * n_p == pytest.approx(isl * r)
    assert row["output_throughput_tok_per_s_per_gpu"] * n_d == pytest.approx(osl * r)
    # the prefill pool keeps up within its cap, and is never more than one replica too large
    assert row["prefill_utilization_frac"] <= cap + 1e-9
    step = row["prefill_replica_gpus"]
    if n_p > step:
        fewer = n_p - step
        nic = tk.hardware(prefill).scaleout_bw_unidir_gb_per_s * 1e9 * 0.8  # default transfer efficiency
        too_busy = r * row["prefill_gpu_s_per_request"] / fewer > cap * (1 - 1e-9)
        too_slow = r * row["kv_bytes_per_request"] / (fewer * nic) > 1 - 1e-9
        assert too_busy or too_slow
    # the blended TCO lies between the pools' and the cost per Mtok adds up to the pools' dollars
    c_pp = tco[prefill] if isinstance(tco, dict) else tco
    c_dd = tco[decode] if isinstance(tco, dict) else tco
    assert min(c_pp, c_dd) - 1e-12 <= row["cost_usd_per_gpu_hour"] <= max(c_pp, c_dd) + 1e-12
    dollars = n_p * c_pp + n_d * c_dd
    assert float(plan_cost_per_mtok(pts, u).iloc[0]) == pytest.approx(dollars / ((isl + osl) * r * 3600 * u) * 1e6)
    assert np.isfinite(row["ttft_s"])
    assert row["ttft_s"] >= row["prefill_time_s"] + row["kv_transfer_s"]


@settings(max_examples=strat.examples(15), deadline=None)
@given(scale=strat.growth_factors, batch=st.floats(1.0, 64.0))
def test_faster_network_never_slows_the_first_token(scale: float, batch: float) -> None:
    base = tk.hardware("h200")
    faster = base.with_values(scaleout_bw_unidir_gb_per_s=base.scaleout_bw_unidir_gb_per_s * scale)
    ttft = []
    for hw in (base, faster):
        plan = ServingPlan(prefill=Pool(hardware=hw, config=ServingConfig(tp=8, ep=8, **PREC)),
                           decode=Pool(hardware=hw, config=ServingConfig(tp=8, ep=8, **PREC), num_gpus=16))
        pts = plan_points("deepseek-r1", plan, [batch], isl_tokens=8192.0, osl_tokens=1024.0,
                          prefill_factors=FACTORS, decode_factors=FACTORS, tco_usd_per_gpu_hour=2.0)
        ttft.append(float(pts["kv_transfer_s"].iloc[0]))
    assert ttft[1] <= ttft[0] * (1 + 1e-12)
