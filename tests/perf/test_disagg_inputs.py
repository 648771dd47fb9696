"""Disaggregated plans refuse inputs that would otherwise give a silently wrong or empty answer."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.perf import RooflineFactors, ServingConfig
from tokenomics.perf.disagg import (
    IDENTITY_COLUMNS,
    Pool,
    ServingPlan,
    closed_loop_points,
    plan_points,
    project_disagg_curve,
)
from tokenomics.perf.project import project_curve

FP8 = {"weight_precision": "fp8", "dense_weight_precision": "fp8", "kv_precision": "fp8"}
FACTORS = RooflineFactors()
TCO = {"b200": 3.0, "h200": 2.0}


def _plan(prefill_gpus: int | None = None) -> ServingPlan:
    return ServingPlan(
        prefill=Pool(hardware="b200", config=ServingConfig(tp=8, ep=8, **FP8), num_gpus=prefill_gpus),
        decode=Pool(hardware="h200", config=ServingConfig(tp=8, ep=8, **FP8), num_gpus=16),
    )


def _r1_8k1k() -> pd.DataFrame:
    return plan_points("deepseek-r1", _plan(), [16.0, 32.0], isl_tokens=8192.0, osl_tokens=1024.0,
                       prefill_factors=FACTORS, decode_factors=FACTORS, tco_usd_per_gpu_hour=TCO)


def _closed_loop_r1_8k1k() -> pd.DataFrame:
    return closed_loop_points("deepseek-r1", _plan(prefill_gpus=8), [64.0, 256.0], isl_tokens=8192.0,
                              osl_tokens=1024.0, prefill_factors=FACTORS, decode_factors=FACTORS)


# 1. plan points say what they were computed for; evaluate_plan checks it


def test_plan_points_carry_model_and_lengths_after_their_former_columns() -> None:
    pts = _r1_8k1k()
    assert list(pts.columns[-3:]) == list(IDENTITY_COLUMNS)
    assert list(pts.columns[:3]) == ["concurrency", "requests_per_s", "tpot_s"]
    assert (pts["model_id"] == "deepseek-r1").all()
    assert (pts["isl_tokens"] == 8192.0).all()
    assert (pts["osl_tokens"] == 1024.0).all()


def test_closed_loop_points_carry_pools_model_and_lengths() -> None:
    pts = _closed_loop_r1_8k1k()
    former = ["concurrency", "requests_per_s", "decode_batch_per_replica", "tpot_s",
              "interactivity_tok_per_s_per_user", "ttft_s", "prefill_queue_s", "prefill_utilization_frac",
              "num_prefill_gpus", "num_decode_gpus", "num_gpus", "throughput_tok_per_s_per_gpu", "bound"]
    assert list(pts.columns) == [*former, "prefill_hardware_id", "decode_hardware_id", *IDENTITY_COLUMNS]
    assert set(pts["prefill_hardware_id"]) == {"b200"}
    assert set(pts["decode_hardware_id"]) == {"h200-sxm"}
    assert set(pts["model_id"]) == {"deepseek-r1"}


def test_points_of_another_model_and_workload_are_refused_naming_both_fields() -> None:
    pts = _r1_8k1k()
    with pytest.raises(ValueError) as err:
        tk.evaluate_plan("gpt-oss-120b", pts, workload="1k/1k", utilization_frac=0.6)
    msg = str(err.value)
    assert "points is for model deepseek-r1, not gpt-oss-120b" in msg  # the model is named first


def test_points_of_another_isl_osl_are_refused() -> None:
    pts = _r1_8k1k()
    with pytest.raises(ValueError, match=r"points is for workload ISL/OSL 8192/1024, not 1k/8k \(ISL/OSL 1024/8192\)"):
        tk.evaluate_plan("deepseek-r1", pts, workload="1k/8k")
    # the default workload is the chain's, 8k/1k: these points match it
    assert len(tk.evaluate_plan("deepseek-r1", pts)) == len(pts)


def test_points_of_another_model_alone_are_refused() -> None:
    with pytest.raises(ValueError, match=r"points is for model deepseek-r1, not kimi-k2"):
        tk.evaluate_plan("kimi-k2", _r1_8k1k(), workload="8k/1k")


def test_matching_points_are_evaluated_within_a_small_length_tolerance() -> None:
    pts = _r1_8k1k()
    rows = tk.evaluate_plan("deepseek-r1", pts, workload="8k/1k", utilization_frac=0.6)
    assert len(rows) == len(pts)
    near = tk.Workload(name="near 8k/1k", isl_tokens=8192.0 * 1.001, osl_tokens=1024.0)
    assert len(tk.evaluate_plan("deepseek-r1", pts, workload=near)) == len(pts)
    far = tk.Workload(name="8000/1024", isl_tokens=8000.0, osl_tokens=1024.0)
    with pytest.raises(ValueError, match=r"ISL/OSL 8192/1024, not 8000/1024 \(ISL/OSL 8000/1024\)"):
        tk.evaluate_plan("deepseek-r1", pts, workload=far)


def test_closed_loop_points_are_evaluated_and_checked() -> None:
    pts = _closed_loop_r1_8k1k()
    rows = tk.evaluate_plan("deepseek-r1", pts, workload="8k/1k", utilization_frac=0.6)
    assert (rows["hardware_id"] == "b200+h200-sxm").all()
    assert np.all(rows["cost_usd_per_mtok"] > 0)
    with pytest.raises(ValueError, match=r"points is for model deepseek-r1, not gpt-oss-120b"):
        tk.evaluate_plan("gpt-oss-120b", pts, workload="8k/1k")


def test_a_session_workload_is_checked_on_its_own_isl_osl() -> None:
    wl = tk.workload("agentic-coding")
    with pytest.raises(ValueError, match=r"points is for workload ISL/OSL 8192/1024, not agentic-coding"):
        tk.evaluate_plan("deepseek-r1", _r1_8k1k(), workload=wl)
    pts = plan_points("deepseek-r1", _plan(), [8.0], isl_tokens=wl.isl_tokens, osl_tokens=wl.osl_tokens,
                      theoretical_hit_frac=0.9, prefill_factors=FACTORS, decode_factors=FACTORS,
                      tco_usd_per_gpu_hour=TCO, check_capacity=False)
    assert len(tk.evaluate_plan("deepseek-r1", pts, workload=wl)) == 1


def test_hand_built_points_without_what_they_were_computed_for_are_refused() -> None:
    pts = _r1_8k1k().drop(columns=["model_id", "isl_tokens"])
    with pytest.raises(ValueError, match=r"points lack \['model_id', 'isl_tokens'\]"):
        tk.evaluate_plan("deepseek-r1", pts, workload="8k/1k")
    blank = _r1_8k1k()
    blank.loc[0, "model_id"] = None
    with pytest.raises(ValueError, match=r"missing values in \['model_id'\]"):
        tk.evaluate_plan("deepseek-r1", blank, workload="8k/1k")


# 2. an empty concurrency is an error, not an empty frame


@pytest.mark.parametrize("empty", [[], np.array([])])
def test_an_empty_concurrency_is_refused_by_plan_points(empty: object) -> None:
    with pytest.raises(ValueError, match=r"concurrency is empty"):
        plan_points("deepseek-r1", _plan(), empty, isl_tokens=8192, osl_tokens=1024)


def test_an_empty_concurrency_is_refused_with_a_fixed_prefill_pool() -> None:
    with pytest.raises(ValueError, match=r"concurrency is empty"):
        tk.plan_points("deepseek-r1", tk.vera_rubin_nvl144_cpx("deepseek-r1"), [], isl_tokens=8192, osl_tokens=1024)


def test_an_empty_concurrency_is_refused_by_closed_loop_points() -> None:
    with pytest.raises(ValueError, match=r"concurrency is empty"):
        closed_loop_points("deepseek-r1", _plan(prefill_gpus=8), [], isl_tokens=8192, osl_tokens=1024)


def test_an_empty_concurrency_is_refused_by_the_curve_projections() -> None:
    with pytest.raises(ValueError, match=r"concurrency is empty"):
        project_disagg_curve("deepseek-r1", "b200", "h200", concurrency=[], speculative=False)
    with pytest.raises(ValueError, match=r"concurrency is empty"):
        project_curve("llama-3.3-70b", "h100", configs=ServingConfig(tp=4), factors=FACTORS, concurrency=[])
    with pytest.raises(ValueError, match=r"concurrency=0"):
        project_disagg_curve("deepseek-r1", "b200", "h200", concurrency=[0.0], speculative=False)


# 3. a prefill-only part has no curve of its own, and no decode pool


def test_project_curve_refuses_a_prefill_only_part_and_names_the_disaggregated_call() -> None:
    assert tk.hardware("rubin-cpx").prefill_only
    with pytest.raises(ValueError, match=r"rubin-cpx is a prefill-only part.*"
                                         r"project_disagg_curve\('deepseek-r1', 'rubin-cpx', decode_hw\)"):
        tk.project_curve("deepseek-r1", "rubin-cpx")
    with pytest.raises(ValueError, match=r"prefill-only"):
        tk.project_curve("deepseek-r1", "CPX", search="aggregated")


def test_rubin_cpx_still_serves_as_the_prefill_pool() -> None:
    c = project_disagg_curve("deepseek-r1", "rubin-cpx", "vr200", isl_tokens=8192.0, concurrency=[8.0],
                             speculative=False, with_cost=False)
    assert set(c["prefill_hardware_id"]) == {"rubin-cpx"}
    assert set(c["decode_hardware_id"]) == {"vr200-nvl144"}


def test_a_decode_pool_on_a_prefill_only_part_is_refused() -> None:
    with pytest.raises(ValueError, match=r"decode pool is on rubin-cpx, a prefill-only part"):
        ServingPlan(prefill=Pool(hardware="vr200"), decode=Pool(hardware="rubin-cpx"))


# 4. a handover latency given in milliseconds


@pytest.mark.parametrize(("value", "hint"), [(168, "168 looks like milliseconds: 0.168 s?"),
                                             (36.5, "36.5 looks like milliseconds: 0.0365 s?"),
                                             (10_000, "10000 looks like milliseconds: 10 s?")])
def test_a_handover_latency_in_milliseconds_gets_a_hint(value: float, hint: str) -> None:
    with pytest.raises(ValueError, match=r"kv_handover_latency_s=.* is outside the allowed range") as err:
        ServingPlan(prefill=_plan().prefill, decode=_plan().decode, kv_handover_latency_s=value)
    assert hint in str(err.value)


@pytest.mark.parametrize("value", [-1.0, 10_001.0, 1e6])
def test_other_out_of_range_handover_latencies_get_no_millisecond_hint(value: float) -> None:
    with pytest.raises(ValueError, match=r"kv_handover_latency_s") as err:
        ServingPlan(prefill=_plan().prefill, decode=_plan().decode, kv_handover_latency_s=value)
    assert "milliseconds" not in str(err.value)


def test_the_hint_reaches_project_disagg_curve() -> None:
    with pytest.raises(ValueError, match=r"168 looks like milliseconds: 0.168 s\?"):
        project_disagg_curve("deepseek-r1", "b200", "h200", kv_handover_latency_s=168, speculative=False)


def test_session_projection_refuses_a_prefill_only_part_and_empty_sessions() -> None:
    from tokenomics.perf import project_session_curve
    from tokenomics.workload import workload

    agentic = workload("agentic-coding")
    with pytest.raises(ValueError, match=r"rubin-cpx is a prefill-only part.*project_disagg_curve"):
        project_session_curve("deepseek-r1", "rubin-cpx", agentic)
    with pytest.raises(ValueError, match="sessions is empty"):
        project_session_curve("deepseek-r1", "b200", agentic, sessions=[])
    with pytest.raises(ValueError, match="sessions"):
        project_session_curve("deepseek-r1", "b200", agentic, sessions=[0.0, 4.0])
