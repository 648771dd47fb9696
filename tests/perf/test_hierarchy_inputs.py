"""Host DRAM given to the offloaded KV cache: range, unit slips and the mode that uses it."""

from __future__ import annotations

import pytest

import tokenomics as tk
from tokenomics.memory.kv_cache import kv_cache_bytes_per_token
from tokenomics.perf import RooflineFactors, ServingConfig
from tokenomics.perf.hierarchy import check_host_kv_gb_per_gpu, kv_offload_tiers

R1 = tk.model("deepseek-r1")
B200 = tk.hardware("b200")
CFG = ServingConfig(tp=4, ep=4, weight_precision="fp4", kv_precision="fp8")
IDEAL = RooflineFactors.ideal()


def test_host_kv_sizes_the_dram_tier_by_hand() -> None:
    caps, _ = kv_offload_tiers(R1, B200, config=CFG, factors=IDEAL, kv_offload="dram", context_tokens=81_000,
                               host_kv_gb_per_gpu=100.0)
    # MLA latent cache replicated on each TP rank: 100 GB / bytes per token
    assert caps["dram"] == pytest.approx(100e9 / kv_cache_bytes_per_token(R1, "fp8", context_tokens=81_000))


def test_bounds_are_inclusive() -> None:
    assert check_host_kv_gb_per_gpu(B200, 1.0, "dram") == 1.0
    assert check_host_kv_gb_per_gpu(B200, 225.0, "ssd") == 225.0


def test_host_kv_with_no_offload_is_refused() -> None:
    with pytest.raises(ValueError, match=r"host_kv_gb_per_gpu=100.0.*kv_offload='none'"):
        kv_offload_tiers(R1, B200, config=CFG, factors=IDEAL, kv_offload="none", host_kv_gb_per_gpu=100.0)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (float("inf"), r"inf GB is outside the allowed range \[1, 225\] GB"),
        (0.2, r"0.2 GB is outside .*; a unit slip\? 0.2 TB is 200 GB"),
        (2e5, r"200000.0 GB exceeds the 225 GB .*; a unit slip\? 200000 MB is 200 GB"),
        (400.0, r"400.0 GB exceeds the 225 GB of host DRAM per accelerator installed on b200"),
    ],
)
def test_out_of_range(value: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_host_kv_gb_per_gpu(B200, value, "dram")


def test_no_unit_hint_where_the_other_reading_does_not_fit_either() -> None:
    # 0.5 TB = 500 GB and 400 MB = 0.4 GB are both outside [1, 225] GB
    for value in (0.5, 400.0):
        with pytest.raises(ValueError, match="host_kv_gb_per_gpu") as err:
            check_host_kv_gb_per_gpu(B200, value, "dram")
        assert "unit slip" not in str(err.value)


def test_not_a_number_is_refused() -> None:
    with pytest.raises(TypeError, match="host_kv_gb_per_gpu"):
        check_host_kv_gb_per_gpu(B200, True, "dram")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one number"):
        check_host_kv_gb_per_gpu(B200, [100.0, 200.0], "dram")  # type: ignore[arg-type]
