import itertools

import numpy as np
import pytest

import tokenomics as tk
from tokenomics.memory.engram import EngramConfig, EngramTable, engram_config, engram_fetch_time_s, engram_stall_s
from tokenomics.memory.tiers import memory_tier


def test_demo_configuration_sizes():
    cfg = engram_config("Engram Demo")
    assert cfg.layer_indices == (1, 15)
    # 2 layers x 2 orders x 8 heads x 646,400 rows x 64 dims (engram_demo_v1.py)
    assert cfg.params == 2 * 2 * 8 * 646_400 * 64
    assert cfg.table_bytes == pytest.approx(cfg.params * 2)  # BF16
    # one row per head per order per layer: 2 x 2 x 8 rows of 64 x 2 bytes
    assert cfg.bytes_per_token() == 2 * 2 * 8 * 128
    assert cfg.rows_per_token(1) == 16


def test_scaled_and_moved():
    cfg = engram_config("engram-demo")
    big = cfg.scaled_to(100e9)
    assert big.params == pytest.approx(100e9, rel=1e-5)
    assert big.bytes_per_token() == cfg.bytes_per_token()  # rows fetched do not grow with the table
    moved = cfg.placed_at(2, 16)
    assert moved.layer_indices == (2, 16)
    with pytest.raises(ValueError, match="2 engram layers"):
        cfg.placed_at(2)


def test_stall_hand_calculation_layer_zero_on_pcie_dram():
    cfg = EngramConfig(name="one", tables=(EngramTable(layer_index=0, ngram_order=2, heads=8,
                                                        rows_per_head=1000, head_dim=64),))
    tier = memory_tier(tk.hardware("b200"), "dram")
    # layer 0 has nothing before it to hide the fetch: 64 tokens x 8 rows x 128 B over PCIe
    expected = 1.5e-6 + 64 * 8 * 128 / (64e9 * 0.83)
    assert engram_stall_s(cfg, tier, 64, 0.03, 61) == pytest.approx(expected)


def test_stall_hidden_behind_earlier_layers():
    cfg = engram_config("engram-demo").scaled_to(100e9).placed_at(2, 16)
    tier = memory_tier(tk.hardware("b200"), "dram")
    # 2 of 61 layers of a 30 ms step = 1 ms of cover; the fetch takes microseconds
    assert engram_stall_s(cfg, tier, 256, 0.03, 61) == 0.0


def test_ssd_stall_falls_with_later_placement_and_grows_with_tokens():
    tier = memory_tier(tk.hardware("b200"), "ssd")
    base = engram_config("engram-demo")
    stalls = [engram_stall_s(base.placed_at(i, i + 14), tier, 256, 0.03, 61) for i in (0, 1, 2, 8)]
    assert all(a >= b for a, b in itertools.pairwise(stalls))
    by_tokens = engram_stall_s(base.placed_at(1, 15), tier, np.array([64, 256, 1024]), 0.03, 61)
    assert isinstance(by_tokens, np.ndarray)
    assert np.all(np.diff(by_tokens) > 0)


def test_fetch_times_increase_through_layers():
    tier = memory_tier(tk.hardware("gb200"), "dram")
    done = engram_fetch_time_s(engram_config("engram-demo"), tier, 128)
    assert list(done) == [1, 15]
    assert done[15] > done[1] > 0


def test_layer_beyond_model_is_an_error():
    cfg = engram_config("engram-demo").placed_at(1, 70)
    tier = memory_tier(tk.hardware("b200"), "dram")
    with pytest.raises(ValueError, match=r"layer_index=70.*61 layers"):
        engram_stall_s(cfg, tier, 64, 0.03, 61)


def test_bad_tables_and_names():
    with pytest.raises(ValueError, match="heads"):
        EngramTable(layer_index=1, ngram_order=2, heads=0, rows_per_head=10, head_dim=64)
    with pytest.raises(ValueError, match="layer_index"):
        EngramTable(layer_index=-1, ngram_order=2, heads=8, rows_per_head=10, head_dim=64)
    with pytest.raises(ValueError, match="at least one table"):
        EngramConfig(name="empty", tables=())
    with pytest.raises(KeyError, match="engram-demo"):
        engram_config("engram-dem")
    with pytest.raises(ValueError, match="step_time_s"):
        engram_stall_s(engram_config("engram-demo"), memory_tier(tk.hardware("b200"), "dram"), 64, 0.0, 61)
