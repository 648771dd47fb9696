"""Input checks of the session projection: workloads by name, offload-only inputs, recall tiers, Series."""

from __future__ import annotations

import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.perf import RooflineFactors, ServingConfig, project_session_curve, session_points
from tokenomics.workload import workload

CFG = ServingConfig(tp=4, ep=4, weight_precision="fp4", kv_precision="fp8")
IDEAL = RooflineFactors.ideal()
EARLY = workload("agentic-coding-early")


def _curve(**kwargs: object) -> pd.DataFrame:
    return project_session_curve("deepseek-r1", "b200", kwargs.pop("workload", EARLY), configs=CFG, factors=IDEAL,
                                 sessions=[8.0], **kwargs)  # type: ignore[arg-type]


def test_host_kv_without_offload_is_refused() -> None:
    with pytest.raises(ValueError, match=r"host_kv_gb_per_gpu=100.*kv_offload='none'"):
        _curve(kv_offload="none", host_kv_gb_per_gpu=100.0)
    with pytest.raises(ValueError, match=r"host_kv_gb_per_gpu.*kv_offload='none'"):
        _curve(host_kv_gb_per_gpu=100.0)


@pytest.mark.parametrize(
    ("value", "hint"),
    [
        (-5.0, r"-5.0 GB is outside the allowed range \[1, 225\] GB"),
        (0.0, r"0.0 GB is outside the allowed range \[1, 225\] GB.*kv_offload='none'"),
        (float("nan"), r"NaN; a value in \[1, 225\] GB"),
        (226.0, r"226.0 GB exceeds the 225 GB .*b200"),
        (1e5, r"100000 MB is 100 GB"),  # MB given for GB
        (0.1, r"0.1 TB is 100 GB"),  # TB given for GB
    ],
)
def test_host_kv_out_of_range_names_the_field_and_range(value: float, hint: str) -> None:
    # B200: 225 GB of host DRAM installed per accelerator (catalog)
    assert tk.hardware("b200").host_memory_gb_per_accelerator == 225.0
    with pytest.raises(ValueError, match=r"host_kv_gb_per_gpu") as err:
        _curve(kv_offload="dram", host_kv_gb_per_gpu=value)
    assert err.match(hint)


def test_host_kv_at_the_installed_amount_is_accepted() -> None:
    full = _curve(kv_offload="dram", host_kv_gb_per_gpu=225.0)
    assert set(full["kv_offload"]) == {"dram"}


def test_fixed_workload_points_to_project_curve() -> None:
    with pytest.raises(ValueError, match=r"'8k/1k' is a fixed-sequence benchmark.*project_curve"):
        _curve(workload=workload("8k/1k"))
    with pytest.raises(ValueError, match="fixed-sequence"):
        _curve(workload="8k/1k")


def test_workload_by_name_equals_the_object() -> None:
    by_name = _curve(workload="agentic-coding-early")
    pd.testing.assert_frame_equal(by_name, _curve(workload=EARLY))
    pts = session_points("deepseek-r1", "b200", 4.0, "agentic-coding-early", config=CFG, factors=IDEAL)
    pd.testing.assert_frame_equal(pts, session_points("deepseek-r1", "b200", 4.0, EARLY, config=CFG, factors=IDEAL))
    with pytest.raises(KeyError, match="agentic-coding"):
        _curve(workload="agentic-codin")


def test_recall_for_a_tier_not_held_is_refused() -> None:
    with pytest.raises(ValueError, match=r"recall_s_per_token names \['dram'\].*tier_capacity_tokens is not given"):
        session_points("deepseek-r1", "b200", 4.0, EARLY, config=CFG, factors=IDEAL, recall_s_per_token={"dram": 1e-8})
    with pytest.raises(ValueError, match=r"recall_s_per_token names \['hbm'\]"):
        session_points("deepseek-r1", "b200", 4.0, EARLY, config=CFG, factors=IDEAL,
                       tier_capacity_tokens={"hbm": 1e6, "dram": 1e7}, recall_s_per_token={"hbm": 1e-8, "dram": 1e-8})
    with pytest.raises(ValueError, match=r"recall_s_per_token\['dram'\]"):
        session_points("deepseek-r1", "b200", 4.0, EARLY, config=CFG, factors=IDEAL,
                       tier_capacity_tokens={"hbm": 1e6, "dram": 1e7}, recall_s_per_token={"dram": -1e-8})


def test_series_of_sessions_keeps_its_index() -> None:
    sessions = pd.Series([4.0, 16.0], index=["a", "b"])
    pts = session_points("deepseek-r1", "b200", sessions, EARLY, config=CFG, factors=IDEAL)
    plain = session_points("deepseek-r1", "b200", [4.0, 16.0], EARLY, config=CFG, factors=IDEAL)
    assert list(pts.index) == ["a", "b"]
    pd.testing.assert_frame_equal(pts.reset_index(drop=True), plain)
