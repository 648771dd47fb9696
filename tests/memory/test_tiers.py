import numpy as np
import pytest

import tokenomics as tk
from tokenomics.memory.tiers import LINK_EFFICIENCY_FRAC, MemoryTier, memory_tier, memory_tiers


def test_dram_tier_from_catalog_pcie_host():
    t = memory_tier(tk.hardware("b200"), "dram")
    assert t.capacity_bytes == pytest.approx(225e9)  # 1.8 TB / 8 GPUs
    assert t.read_bw_bytes_per_s == pytest.approx(64e9)  # PCIe 5.0 x16, one direction
    assert t.effective_bw_bytes_per_s == pytest.approx(64e9 * LINK_EFFICIENCY_FRAC)


def test_grace_link_is_wider_than_pcie():
    c2c = memory_tier(tk.hardware("gb200"), "dram")
    pcie = memory_tier(tk.hardware("b200"), "dram")
    assert c2c.read_bw_bytes_per_s > 3 * pcie.read_bw_bytes_per_s
    assert c2c.latency_s < pcie.latency_s


def test_read_time_hand_calculation_dram():
    t = memory_tier(tk.hardware("b200"), "dram")
    # 1,000 rows of 128 B: 1.5 us latency + 128 kB / (64 GB/s x 0.83)
    expected = 1.5e-6 + 1000 * 128 / (64e9 * 0.83)
    assert t.read_time_s(1000, 128) == pytest.approx(expected)
    # a 64-byte row still moves a 128-byte line
    assert t.read_time_s(1000, 64) == pytest.approx(expected)


def test_ssd_reads_bounded_by_iops():
    t = memory_tier(tk.hardware("b200"), "ssd")
    # 1,000 random 2 kB reads: bandwidth 1000 x 4096 B / 7 GB/s = 0.585 ms < IOPS 1000 / 1e6 = 1 ms
    assert t.read_time_s(1000, 2048) == pytest.approx(80e-6 + 1e-3)


def test_read_time_vectorised_and_zero_items():
    t = memory_tier(tk.hardware("gb200"), "dram")
    out = t.read_time_s(np.array([0.0, 10.0, 100.0]), 128)
    assert isinstance(out, np.ndarray)
    assert out[0] == 0.0
    assert out[1] < out[2]


def test_tiers_a_system_has():
    assert set(memory_tiers(tk.hardware("b200"))) == {"hbm", "dram", "cxl", "ssd"}
    assert set(memory_tiers(tk.hardware("tpu-v7"))) == {"hbm", "dram"}


def test_missing_tier_names_the_missing_fields():
    with pytest.raises(ValueError, match=r"tpu-v7.*'ssd'.*nvme_capacity_tb_per_accelerator"):
        memory_tier(tk.hardware("tpu-v7"), "ssd")
    with pytest.raises(ValueError, match="cxl_memory_gb_per_accelerator"):
        memory_tier(tk.hardware("gb200"), "cxl")


def test_unknown_tier_name():
    with pytest.raises(KeyError, match="dram"):
        memory_tier(tk.hardware("b200"), "dramm")


@pytest.mark.parametrize("field", ["capacity_bytes", "read_bw_bytes_per_s", "latency_s", "min_read_bytes"])
@pytest.mark.parametrize("bad", [0.0, -1.0])
def test_tier_refuses_non_positive(field, bad):
    values = {"name": "dram", "capacity_bytes": 1e9, "read_bw_bytes_per_s": 1e9, "latency_s": 1e-6,
              "min_read_bytes": 64}
    values[field] = bad
    with pytest.raises(ValueError, match=field):
        MemoryTier(**values)


def test_read_time_refuses_negative_items():
    t = memory_tier(tk.hardware("b200"), "dram")
    with pytest.raises(ValueError, match="items"):
        t.read_time_s(-1, 128)


def test_tiers_by_hardware_name():
    hw = tk.hardware("b200")
    assert memory_tiers("B200") == memory_tiers(hw)
    assert memory_tier("b200", "dram") == memory_tier(hw, "dram")
    # B200 host DRAM: 225 GB per accelerator over PCIe 5.0 x16 (64 GB/s)
    assert memory_tier("b200", "dram").capacity_bytes == pytest.approx(225e9)
    with pytest.raises(KeyError, match="closest: b200"):
        memory_tiers("b20")
