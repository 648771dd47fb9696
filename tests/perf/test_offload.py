import pytest

import tokenomics as tk
from tokenomics.memory.kv_cache import kv_cache_bytes_per_token
from tokenomics.memory.tiers import LINK_EFFICIENCY_FRAC
from tokenomics.perf import RooflineFactors, ServingConfig
from tokenomics.perf.hierarchy import HOST_KV_FRAC, kv_offload_tiers
from tokenomics.perf.sessions import project_session_curve, session_points
from tokenomics.workload import Workload

R1 = tk.model("deepseek-r1")
B200 = tk.hardware("b200")
CFG = ServingConfig(tp=4, ep=4, weight_precision="fp4", dense_weight_precision="fp8", kv_precision="fp8")
IDEAL = RooflineFactors.ideal()
SESSIONS = Workload(name="long", isl_tokens=80_000, osl_tokens=1_000, kind="sessions", cached_prefix_frac=0.95,
                    idle_s_between_turns=10.0)


def test_dram_tier_capacity_and_recall_hand_calculation():
    caps, recall = kv_offload_tiers(R1, B200, config=CFG, factors=IDEAL, kv_offload="dram", context_tokens=81_000)
    # MLA latent cache replicated on each of the 4 TP ranks: one rank holds a token's full KV
    per_token = kv_cache_bytes_per_token(R1, "fp8", context_tokens=81_000)
    assert caps["dram"] == pytest.approx(HOST_KV_FRAC * 225e9 / per_token)
    assert recall["dram"] == pytest.approx(per_token / (64e9 * LINK_EFFICIENCY_FRAC))
    assert list(caps) == ["hbm", "dram"]


def test_modes_add_tiers_and_bad_modes_fail():
    caps, recall = kv_offload_tiers(R1, B200, config=CFG, factors=IDEAL, kv_offload="none")
    assert list(caps) == ["hbm"]
    assert recall == {}
    caps, recall = kv_offload_tiers(R1, B200, config=CFG, factors=IDEAL, kv_offload="SSD")
    assert list(caps) == ["hbm", "dram", "ssd"]
    assert recall["ssd"] > recall["dram"]
    with pytest.raises(KeyError, match="dram"):
        kv_offload_tiers(R1, B200, config=CFG, kv_offload="cpu-dram")
    with pytest.raises(ValueError, match="no 'ssd' tier"):
        kv_offload_tiers(R1, tk.hardware("tpu-v7"), config=ServingConfig(tp=8, ep=8, kv_precision="fp8"),
                         kv_offload="ssd")
    with pytest.raises(ValueError, match="exceeds the 225 GB"):
        kv_offload_tiers(R1, B200, config=CFG, kv_offload="dram", host_kv_gb_per_gpu=300)
    with pytest.raises(ValueError, match="host_kv_gb_per_gpu"):
        kv_offload_tiers(R1, B200, config=CFG, kv_offload="dram", host_kv_gb_per_gpu=0)


def test_offload_keeps_hits_where_hbm_alone_loses_them():
    sessions = [4.0, 32.0, 48.0]
    off = session_points(R1, B200, sessions, SESSIONS, config=CFG, factors=IDEAL)
    caps, recall = kv_offload_tiers(R1, B200, config=CFG, factors=IDEAL, kv_offload="dram", context_tokens=81_000)
    on = session_points(R1, B200, sessions, SESSIONS, config=CFG, factors=IDEAL, tier_capacity_tokens=caps,
                        recall_s_per_token=recall)
    # few sessions: everything fits in HBM, offload changes nothing
    assert on["realized_cache_hit_frac"].iloc[0] == pytest.approx(off["realized_cache_hit_frac"].iloc[0])
    assert on["recall_s"].iloc[0] == pytest.approx(0.0, abs=1e-6)
    # many sessions: HBM alone loses the prefixes, DRAM keeps them and they are recalled over PCIe
    assert off["realized_cache_hit_frac"].iloc[2] < 0.2
    assert on["realized_cache_hit_frac"].iloc[2] > 0.8
    assert on["gpu_cache_hit_frac"].iloc[2] < 0.2
    assert on["recall_s"].iloc[2] > 0
    assert on["ttft_s"].iloc[2] < off["ttft_s"].iloc[2]


def test_recall_time_is_required_for_host_tiers():
    with pytest.raises(ValueError, match="recall"):
        session_points(R1, B200, 8.0, SESSIONS, config=CFG, factors=IDEAL,
                       tier_capacity_tokens={"hbm": 1e6, "dram": 1e7})


def test_projected_curve_states_its_offload_mode():
    curve = project_session_curve(R1, B200, SESSIONS, sessions=[8.0, 48.0], configs=[CFG], factors=IDEAL,
                                  kv_offload="dram")
    assert set(curve["kv_offload"]) == {"dram"}
    assert (curve["cache_hit_frac"] >= curve["gpu_cache_hit_frac"]).all()
