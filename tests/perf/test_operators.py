"""Tests of the operator-level efficiency tables and the operator-table step model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tokenomics as tk
from tokenomics.perf import RooflineFactors, ServingConfig
from tokenomics.perf.calibrate import calibrate, model_family
from tokenomics.perf.operators import (
    collective_link,
    collective_table,
    decode_attention_table,
    gemm_kernel,
    kv_read_frac,
    kv_read_source,
    operator_table,
    table_precision,
)


def test_tables_are_sourced_and_plausible() -> None:
    ops = operator_table()
    assert ops["source"].str.contains("aiconfigurator-core").all()
    for row in ops.itertuples(index=False):
        peak = tk.hardware(row.hardware_id).dense_tflops("bf16" if row.precision == "w4a16" else row.precision)
        # a measured rate never exceeds the datasheet peak; weight streaming never the HBM peak
        assert 0.05 * peak < row.max_tflops <= peak
        assert row.weight_stream_gb_per_s <= 1000 * tk.hardware(row.hardware_id).hbm_bandwidth_tb_per_s
    coll = collective_table()
    for row in coll.itertuples(index=False):
        assert row.bus_bw_gb_per_s <= tk.hardware(row.hardware_id).scaleup_bw_unidir_gb_per_s


def test_gemm_rate_rises_with_tokens_and_saturates() -> None:
    k = gemm_kernel(tk.hardware("b200"), "gemm", "fp8")
    m = np.array([1.0, 16.0, 256.0, 4096.0, 65536.0])
    flop = 2.0 * m * 8192 * 8192
    rate = flop / k.time_s(flop, np.zeros_like(m), m)
    assert np.all(np.diff(rate) > 0)
    assert rate[-1] <= k.max_flop_per_s
    # hand check of the formula at M = M_half: half the large-M rate
    half = k.half_tokens
    assert 2.0 * half * 8192 * 8192 / k.time_s(2.0 * half * 8192 * 8192, 0.0, half) == pytest.approx(
        k.max_flop_per_s / 2.0)


def test_small_batch_gemm_is_weight_bound() -> None:
    k = gemm_kernel(tk.hardware("h200"), "gemm", "bf16")
    weights = 8192.0 * 8192.0 * 2.0
    t = float(k.time_s(2.0 * 8192 * 8192, weights, 1.0))
    assert t == pytest.approx(weights / k.weight_bytes_per_s)


def test_unmeasured_hardware_is_derived_from_fractions_of_its_peak() -> None:
    mi = gemm_kernel(tk.hardware("mi355x"), "gemm", "fp8")
    assert mi.source.startswith("derived")
    peak = tk.hardware("mi355x").dense_tflops("fp8") * 1e12
    assert 0.3 * peak < mi.max_flop_per_s < peak
    # TPU v7 has no FP4 rate: an FP4 GEMM runs at its FP8 peak
    tpu4 = gemm_kernel(tk.hardware("tpu-v7"), "gemm", "fp4")
    assert tpu4.max_flop_per_s <= tk.hardware("tpu-v7").dense_tflops("fp8") * 1e12


def test_published_large_gemm_rates_set_the_ceiling_of_hardware_without_tables() -> None:
    from tokenomics.perf.operators import published_gemm_rates

    rates = published_gemm_rates()
    assert rates["source"].str.contains("max-achievable-flops").all()
    for row in rates.itertuples(index=False):
        peak = tk.hardware(row.hardware_id).dense_tflops(row.precision)
        assert 0.3 * peak < row.max_tflops <= peak  # a large GEMM below the datasheet peak
    # AMD's Max-Achievable FLOPs of MI300X: 708 TFLOP/s BF16 (hipBLASLt, median clock 1,207 MHz)
    mi = gemm_kernel(tk.hardware("mi300x"), "gemm", "bf16")
    assert mi.max_flop_per_s == pytest.approx(708e12)
    assert mi.source.startswith("published large-M rate")
    # the shape terms are those a hardware without any table gets: the measured systems' medians
    derived = gemm_kernel(tk.hardware("mi355x"), "gemm", "bf16")
    assert (mi.half_tokens, mi.launch_s) == (derived.half_tokens, derived.launch_s)
    # the published rate is below what the NVIDIA systems' median fraction of peak would give
    share = derived.max_flop_per_s / (tk.hardware("mi355x").dense_tflops("bf16") * 1e12)
    assert mi.max_flop_per_s < share * tk.hardware("mi300x").dense_tflops("bf16") * 1e12


def test_unknown_operator_raises_with_close_matches() -> None:
    with pytest.raises(KeyError, match="gemm"):
        gemm_kernel(tk.hardware("h100"), "gemmm", "bf16")


def test_table_precision() -> None:
    assert table_precision("moe", "fp4", "bf16") == "w4a16"
    assert table_precision("gemm", "fp8", "fp4") == "fp8"
    assert table_precision("gemm", "fp4", "fp4") == "fp4"


def test_collectives_scale_out_beyond_the_domain() -> None:
    hw = tk.hardware("h100")
    inside = collective_link(hw, "all_to_all", 8, 50.0)
    across = collective_link(hw, "all_to_all", 16, 50.0)
    assert across.bus_bytes_per_s == pytest.approx(50e9)
    assert inside.bus_bytes_per_s > across.bus_bytes_per_s


def test_operator_model_is_slower_than_ideal_and_finite() -> None:
    cfg = ServingConfig(tp=8, ep=8, dp_attention=True, weight_precision="fp4", dense_weight_precision="fp8",
                        kv_precision="fp8")
    batch = np.array([1.0, 64.0, 1024.0])
    ops = RooflineFactors(operator_tables=True, compute_eff_frac=1.0, prefill_compute_eff_frac=1.0,
                          comm_eff_frac=1.0, hbm_bandwidth_eff_frac=1.0, step_overhead_s=0.0,
                          layer_latency_s=0.0)
    t_ops = tk.decode_step_time_s("deepseek-r1", "b200", batch, config=cfg, factors=ops)
    t_ideal = tk.decode_step_time_s("deepseek-r1", "b200", batch, config=cfg, factors=RooflineFactors.ideal())
    assert np.all(np.isfinite(t_ops))
    assert np.all(t_ops > t_ideal)


def test_model_family() -> None:
    assert model_family(tk.model("kimi-k2.5")) == "kimi"
    assert model_family(tk.model("gpt-oss-20b")) == "gpt-oss"


def test_holdout_by_rejects_unknown_grouping() -> None:
    with pytest.raises(ValueError, match="holdout_by"):
        calibrate(holdout=True, holdout_by="vendor")


# AIConfigurator 0.12.0 moe_perf.parquet (TensorRT-LLM 1.3.0rc20, NVFP4, balanced routing, TP1, EP8):
# DeepSeek-R1 MoE layer (hidden 7168, inter 2048, 256 experts, top-8), fastest kernel [ms] at
# 2,048 and 4,096 tokens before dispatch
_EP8_DEEPSEEK_MS = {"b200": (0.2992, 0.3300), "gb200": (0.2876, 0.3157),
                    "b300": (0.2229, 0.2831), "gb300": (0.2194, 0.2777)}


@pytest.mark.parametrize("hw", sorted(_EP8_DEEPSEEK_MS))
def test_grouped_moe_table_holds_at_the_expert_parallel_size_deployed(hw: str) -> None:
    # per rank: E/ep experts, FLOP 6 h i tokens k / ep, weights of the experts the batch touches
    k = gemm_kernel(tk.hardware(hw), "moe", "fp4")
    h, i, e, top, ep = 7168.0, 2048.0, 256.0, 8.0, 8.0
    tok = np.array([2048.0, 4096.0])
    flop = 6.0 * h * i * tok * top / ep
    weights = e / ep * (1.0 - (1.0 - top / e) ** tok) * 3.0 * h * i * 0.5
    t_ms = (k.time_s(flop, weights, tok * top / e) + k.launch_s) * 1e3
    ratio = t_ms / np.array(_EP8_DEEPSEEK_MS[hw])
    # a fit to EP1 alone (whose min-latency rows run 3.3x the per-rank EP8 rate) lands at 0.3-0.4
    assert np.all((ratio > 0.5) & (ratio < 1.5)), ratio


def test_decode_attention_grid_is_sourced_and_physical() -> None:
    t = decode_attention_table()
    assert t["source"].str.contains("aiconfigurator-core").all()
    assert t["as_of"].notna().all()
    assert set(t["attention_type"]) == {"mla", "gqa"}
    for (hw, kind), g in t.groupby(["hardware_id", "attention_type"]):
        grid = g.pivot_table(index="context_tokens", columns="kv_streams", values="kv_read_frac")
        f, s, c = grid.to_numpy(), grid.columns.to_numpy(float), grid.index.to_numpy(float)
        # more work never reads slower per byte, and never takes less time (work / f)
        for axis, work in ((1, s[None, :]), (0, c[:, None])):
            with np.errstate(invalid="ignore"):
                assert not (np.diff(f, axis=axis) < -1e-9).any(), (hw, kind)
                assert not (np.diff(work / f, axis=axis) < -1e-9).any(), (hw, kind)
        # the large-batch rate is a plausible fraction of the datasheet HBM bandwidth
        assert 0.5 < g["asymptote_frac_of_peak"].iloc[0] <= 1.0


def test_kv_read_frac_rises_with_streams_and_context_and_saturates() -> None:
    b200 = tk.hardware("b200")
    streams = np.array([1.0, 2.0, 4.0, 16.0, 64.0, 1024.0])
    f = kv_read_frac(b200, "mla", streams, 65536.0)
    assert isinstance(f, np.ndarray)
    assert f.shape == streams.shape
    assert np.all(np.diff(f) >= 0)
    assert f[-1] == pytest.approx(1.0)
    # one 64k-token latent cache streams well below the large-batch rate; time still rises
    assert f[0] < 0.5
    assert np.all(np.diff(streams / f) > 0)
    assert kv_read_frac(b200, "mla", 1.0, 131072.0) > kv_read_frac(b200, "mla", 1.0, 8192.0)
    # held at the grid's edges: beyond 131k tokens and below 1 stream
    assert kv_read_frac(b200, "mla", 1.0, 1e6) == pytest.approx(kv_read_frac(b200, "mla", 1.0, 131072.0))
    assert kv_read_frac(b200, "mla", 0.25, 4096.0) == pytest.approx(kv_read_frac(b200, "mla", 1.0, 4096.0))
    assert isinstance(kv_read_frac(b200, "gqa", 8.0, 4096.0), float)
    # a hardware id resolves like the catalog entry
    assert kv_read_frac("b200", "mla", 4.0, 4096.0) == kv_read_frac(b200, "mla", 4.0, 4096.0)


def test_kv_read_frac_series_in_series_out() -> None:
    import pandas as pd

    b200 = tk.hardware("b200")
    s = pd.Series([1.0, 16.0], index=["one", "sixteen"])
    out = kv_read_frac(b200, "mla", s, 65536.0)
    assert isinstance(out, pd.Series)
    assert list(out.index) == ["one", "sixteen"]
    np.testing.assert_allclose(out.to_numpy(), kv_read_frac(b200, "mla", s.to_numpy(), 65536.0))
    with pytest.raises(ValueError, match="different indexes"):
        kv_read_frac(b200, "mla", s, pd.Series([4096.0, 8192.0], index=["a", "b"]))
    with pytest.raises(ValueError, match=r"kv_streams \(shape \(3,\)\) and context_tokens"):
        kv_read_frac(b200, "mla", np.array([1.0, 2.0, 3.0]), np.array([1024.0, 2048.0]))


def test_kv_read_frac_hand_check_at_a_grid_point() -> None:
    # on a grid point the value is the table's own row
    t = decode_attention_table()
    row = t[(t["hardware_id"] == "h200-sxm") & (t["attention_type"] == "mla")
            & (t["context_tokens"] == 32768) & (t["kv_streams"] == 4)].iloc[0]
    assert kv_read_frac(tk.hardware("h200"), "mla", 4.0, 32768.0) == pytest.approx(row.kv_read_frac)
    # halfway in log streams between two points: the geometric mean
    nxt = t[(t["hardware_id"] == "h200-sxm") & (t["attention_type"] == "mla")
            & (t["context_tokens"] == 32768) & (t["kv_streams"] == 8)].iloc[0]
    mid = kv_read_frac(tk.hardware("h200"), "mla", 4.0 * 2 ** 0.5, 32768.0)
    assert mid == pytest.approx((row.kv_read_frac * nxt.kv_read_frac) ** 0.5)


def test_kv_read_frac_unmeasured_hardware_uses_the_median_grid() -> None:
    mi = tk.hardware("mi355x")
    assert kv_read_source(mi, "mla").startswith("derived")
    assert "aiconfigurator-core" in kv_read_source(tk.hardware("gb200"), "gqa")
    measured = [kv_read_frac(tk.hardware(h), "mla", 2.0, 65536.0)
                for h in ("h100", "h200", "b200", "b300", "gb200", "gb300")]
    assert min(measured) <= kv_read_frac(mi, "mla", 2.0, 65536.0) <= max(measured)
    # CSA reads one shared entry per token like MLA; MHA per head like GQA
    assert kv_read_frac(mi, "csa", 2.0, 65536.0) == kv_read_frac(mi, "mla", 2.0, 65536.0)
    assert kv_read_frac(mi, "mha", 2.0, 65536.0) == kv_read_frac(mi, "gqa", 2.0, 65536.0)


def test_kv_read_frac_bad_input() -> None:
    b200 = tk.hardware("b200")
    with pytest.raises(KeyError, match="mla"):
        kv_read_frac(b200, "mlaa", 1.0, 4096.0)
    with pytest.raises(KeyError, match="gqa"):
        kv_read_source(b200, "gqa2")
    with pytest.raises(KeyError, match="b200"):
        kv_read_frac("b2000", "mla", 1.0, 4096.0)
    for bad in (0.0, -1.0, np.nan, np.inf):
        with pytest.raises(ValueError, match="kv_streams"):
            kv_read_frac(b200, "mla", bad, 4096.0)
        with pytest.raises(ValueError, match="context_tokens"):
            kv_read_frac(b200, "mla", 1.0, np.array([4096.0, bad]))


def test_decode_attention_table_names_file_line_and_field(tmp_path, monkeypatch) -> None:
    import shutil

    from tokenomics.perf import operators

    src = operators._perf_dir() / "decode_attention.csv"
    lines = src.read_text().splitlines()
    head, first = lines[0], lines[1].split(",")
    cols = head.split(",")
    first[cols.index("kv_read_frac")] = "1.5"
    (tmp_path / "perf").mkdir()
    for name in ("operator_efficiency.csv", "collectives.csv"):
        shutil.copy(operators._perf_dir() / name, tmp_path / "perf" / name)
    (tmp_path / "perf" / "decode_attention.csv").write_text("\n".join([head, ",".join(first)]) + "\n")
    monkeypatch.setattr(operators, "_perf_dir", lambda: tmp_path / "perf")
    operators.decode_attention_table.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"decode_attention.csv: line 2: kv_read_frac"):
            operators.decode_attention_table()
    finally:
        operators.decode_attention_table.cache_clear()


def test_ideal_factors_and_switch_turn_the_kv_read_grid_off() -> None:
    from tokenomics.perf import roofline_points

    assert not RooflineFactors.ideal().kv_read_tables
    on = RooflineFactors()
    off = on.model_copy(update={"kv_read_tables": False})
    cfg = ServingConfig(tp=8, ep=8, weight_precision="fp4", kv_precision="fp8")

    def memory_s(f: RooflineFactors, batch: float, isl: float) -> float:
        pts = roofline_points("deepseek-r1", "b200", [batch], isl_tokens=isl, osl_tokens=1024.0, config=cfg,
                              factors=f)
        return float(pts["memory_time_s"].iloc[0])

    # one 64k-token sequence: its replicated latent cache (2.6 GB per GPU) streams at a fraction
    # of the large-batch rate; the step's memory time more than doubles
    assert memory_s(on, 1.0, 65536.0) > 2.0 * memory_s(off, 1.0, 65536.0)
    # 256 sequences of 1.5k tokens read at the large-batch rate
    assert memory_s(on, 256.0, 1024.0) == pytest.approx(memory_s(off, 256.0, 1024.0), rel=0.02)


@pytest.mark.parametrize(("row", "match"), [
    ("mi300x,gemm,bf16,0,src,2025-02-25,", r"line 2, max_tflops: .*must be > 0"),
    ("mi300x,gemv,bf16,708,src,2025-02-25,", r"line 2: unknown operator/precision 'gemv'/'bf16'"),
])
def test_a_malformed_kernel_row_names_file_line_and_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, row: str, match: str,
) -> None:
    from tokenomics.perf import operators

    (tmp_path / "published_gemm_rates.csv").write_text(
        "hardware_id,operator,precision,max_tflops,source,as_of,note\n" + row + "\n", encoding="utf-8")
    monkeypatch.setattr(operators, "_perf_dir", lambda: tmp_path)
    operators.published_gemm_rates.cache_clear()
    try:
        with pytest.raises(ValueError, match=match):
            operators.published_gemm_rates()
    finally:
        operators.published_gemm_rates.cache_clear()
