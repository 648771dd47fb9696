"""The roofline's stated default factors and its model switches."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.catalog import data_dir
from tokenomics.perf import RooflineFactors, ServingConfig, default_factor_table, roofline_points

# served MoE precision per hardware family: FP4 on Blackwell and Blackwell Ultra, FP8 on Hopper
SERVED = {"h100-sxm": "fp8", "h200-sxm": "fp8", "b200": "fp4", "b300": "fp4", "gb200-nvl72": "fp4",
          "gb300-nvl72": "fp4"}


def test_moe_decode_compute_prior_is_the_median_measured_kernel_ceiling() -> None:
    kernels = pd.read_csv(data_dir() / "perf" / "operator_efficiency.csv")
    moe = kernels[kernels["operator"] == "moe"]
    ratios = []
    for hw, prec in SERVED.items():
        row = moe[(moe["hardware_id"] == hw) & (moe["precision"] == prec)]
        assert len(row) == 1
        ratios.append(float(row["max_tflops"].iloc[0]) / tk.hardware(hw).dense_tflops(prec))
    # e.g. B200: 1,484 TFLOP/s grouped FP4 GEMM over its 9,000 dense FP4 peak = 0.165
    assert min(ratios) > 0.05
    assert max(ratios) < 0.5
    table = default_factor_table()
    row = table[(table["scope"] == "global") & (table["parameter"] == "compute_eff_frac")]
    assert float(row["value"].iloc[0]) == pytest.approx(float(np.median(ratios)), abs=5e-4)
    assert "operator_efficiency.csv" in row["source"].iloc[0]


def test_switches_are_not_factor_table_rows() -> None:
    from tokenomics.perf.factors import SWITCHES

    names = set(default_factor_table()["parameter"])
    assert not names & set(SWITCHES)
    assert set(SWITCHES) <= set(RooflineFactors.model_fields)


# --- sequential chunked prefill ---------------------------------------------------------------

CFG = ServingConfig(tp=1, weight_precision="fp8", kv_precision="fp8")


def _step(f: RooflineFactors, batch: float, isl: float, osl: float, **cfg: object) -> pd.Series:
    config = CFG.model_copy(update=cfg)
    return roofline_points("llama-3.1-8b", "h100", [batch], isl_tokens=isl, osl_tokens=osl, config=config,
                           factors=f, check_capacity=False).iloc[0]


@pytest.mark.parametrize("batch", [4.0, 64.0])
def test_sequential_prefill_adds_the_chunk_after_the_decode_work(batch: float) -> None:
    base = RooflineFactors(kv_read_tables=False, split_attention=False)  # the single roofline
    seq = base.model_copy(update={"sequential_prefill": True})
    isl, osl = 8192.0, 512.0
    decode = _step(base, batch, isl, osl, disaggregated=True)  # the same step with no prefill share
    t_c, t_m = float(decode["compute_time_s"]), float(decode["memory_time_s"])
    fixed = float(decode["overhead_time_s"])
    # hand calculation of the chunk: B / OSL prompts of ISL tokens per step, the linear FLOPs per
    # token plus causal attention, at the prefill efficiency of the FP8 peak (TP1: no links)
    a = tk.perf._arch.arch(tk.model("llama-3.1-8b"))
    flop = a.linear_flop_per_token * isl + a.prefill_attn_flop_per_pair * isl * (isl + 1.0) / 2.0
    peak = tk.hardware("h100").dense_tflops("fp8") * 1e12
    t_chunk = batch / osl * flop / (peak * base.prefill_compute_eff_frac)
    on = _step(seq, batch, isl, osl)
    off = _step(base, batch, isl, osl)
    assert float(on["step_time_s"]) == pytest.approx(max(t_c, t_m) + t_chunk + fixed, rel=1e-3)
    assert float(off["step_time_s"]) == pytest.approx(max(t_c + t_chunk, t_m) + fixed, rel=1e-3)
    assert float(on["step_time_s"]) >= float(off["step_time_s"])
    # both report the chunk as compute, and the TTFT of a request alone is unchanged
    assert float(on["compute_time_s"]) == pytest.approx(float(off["compute_time_s"]))
    assert float(on["ttft_s"]) == pytest.approx(float(off["ttft_s"]))


def test_sequential_prefill_changes_nothing_when_disaggregated() -> None:
    base = RooflineFactors()
    seq = base.model_copy(update={"sequential_prefill": True})
    a = _step(base, 32.0, 8192.0, 1024.0, disaggregated=True)
    b = _step(seq, 32.0, 8192.0, 1024.0, disaggregated=True)
    assert float(a["step_time_s"]) == float(b["step_time_s"])


def test_sequential_prefill_is_off_by_default_and_in_ideal() -> None:
    assert not RooflineFactors().sequential_prefill
    assert not RooflineFactors.ideal().sequential_prefill


# --- decode attention bounded apart from the GEMMs ----------------------------------------------


@pytest.mark.parametrize(("batch", "isl"), [(512.0, 4096.0), (1.0, 1024.0), (64.0, 32768.0)])
def test_split_attention_bounds_gemms_and_attention_one_after_the_other(batch: float, isl: float) -> None:
    base = RooflineFactors(kv_read_tables=False, split_attention=False)
    split = base.model_copy(update={"split_attention": True})
    osl = 512.0
    off = _step(base, batch, isl, osl, disaggregated=True)  # no prefill share: decode work only
    on = _step(split, batch, isl, osl, disaggregated=True)
    # hand calculation of the attention operator: FLOPs over every context token of every layer
    # at the FP8 peak (FP8 KV cache) and the dense decode efficiency; the KV bytes at the HBM rate
    a = tk.perf._arch.arch(tk.model("llama-3.1-8b"))
    context = isl + osl / 2.0
    hw = tk.hardware("h100")
    t_att = batch * a.decode_attn_flop_per_ctx_token * context / (
        hw.dense_tflops("fp8") * 1e12 * base.dense_compute_eff_frac)
    t_kv = float(off["kv_bytes_per_gpu"]) / (hw.hbm_bandwidth_tb_per_s * 1e12 * base.hbm_bandwidth_eff_frac)
    t_gemm = float(off["compute_time_s"]) - t_att
    t_w = float(off["memory_time_s"]) - t_kv
    assert t_gemm > 0.0
    assert t_w > 0.0
    fixed = float(off["overhead_time_s"])
    assert float(on["step_time_s"]) == pytest.approx(max(t_gemm, t_w) + max(t_att, t_kv) + fixed, rel=1e-6)
    assert float(off["step_time_s"]) == pytest.approx(max(t_gemm + t_att, t_w + t_kv) + fixed, rel=1e-6)
    # never faster than the single roofline; the same totals are reported
    assert float(on["step_time_s"]) >= float(off["step_time_s"]) * (1.0 - 1e-12)
    assert float(on["compute_time_s"]) == pytest.approx(float(off["compute_time_s"]))
    assert float(on["memory_time_s"]) == pytest.approx(float(off["memory_time_s"]))


def test_split_attention_differs_where_gemms_are_compute_bound_and_attention_kv_bound() -> None:
    # 512 sequences of 4k context: the 8B GEMMs are compute-bound (512 tokens x 16 GFLOP at the
    # FP8 peak), attention reads ~140 GB of KV cache: the KV reads no longer hide under compute
    base = RooflineFactors(kv_read_tables=False, split_attention=False)
    split = base.model_copy(update={"split_attention": True})
    off = _step(base, 512.0, 4096.0, 512.0, disaggregated=True)
    on = _step(split, 512.0, 4096.0, 512.0, disaggregated=True)
    assert float(on["step_time_s"]) > 1.05 * float(off["step_time_s"])


def test_split_attention_is_on_by_default_and_off_in_ideal() -> None:
    # ideal: the single roofline, never slower (an upper bound of the default model's speed)
    assert RooflineFactors().split_attention
    assert not RooflineFactors.ideal().split_attention


# --- KV reads at their own rate -------------------------------------------------------------------


@pytest.mark.parametrize("split", [True, False])
@pytest.mark.parametrize(("batch", "isl", "kv_eff"), [(256.0, 8192.0, 0.5), (1.0, 1024.0, 0.3), (64.0, 32768.0, 0.8)])
def test_kv_reads_stream_at_their_own_rate(batch: float, isl: float, kv_eff: float, split: bool) -> None:
    full = RooflineFactors(kv_read_tables=False, split_attention=split, kv_read_eff_frac=1.0)
    slow = full.model_copy(update={"kv_read_eff_frac": kv_eff})
    osl = 512.0
    a = _step(full, batch, isl, osl, disaggregated=True)
    b = _step(slow, batch, isl, osl, disaggregated=True)
    # hand calculation: the KV bytes at HBM peak x hbm efficiency x kv_eff, the weights unchanged
    hw = tk.hardware("h100")
    rate = hw.hbm_bandwidth_tb_per_s * 1e12 * full.hbm_bandwidth_eff_frac
    kv = float(a["kv_bytes_per_gpu"])
    t_w = float(a["memory_time_s"]) - kv / rate
    assert t_w > 0.0
    assert float(b["memory_time_s"]) == pytest.approx(t_w + kv / (rate * kv_eff), rel=1e-9)
    t_att_gemm = float(b["compute_time_s"])
    fixed = float(b["overhead_time_s"])
    if not split:
        assert float(b["step_time_s"]) == pytest.approx(max(t_att_gemm, float(b["memory_time_s"])) + fixed, rel=1e-9)
    assert float(b["step_time_s"]) >= float(a["step_time_s"]) * (1.0 - 1e-12)
    assert float(b["compute_time_s"]) == pytest.approx(float(a["compute_time_s"]))


def test_kv_read_rate_is_bounded() -> None:
    for bad in (0.0, -0.2, 1.5, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="kv_read_eff_frac"):
            RooflineFactors(kv_read_eff_frac=bad)


@pytest.mark.parametrize("name", ["operator_tables", "kv_read_tables", "sequential_prefill", "split_attention"])
@pytest.mark.parametrize("value", ["yes", "no", 0, 1, None])
def test_a_model_switch_is_a_bool_not_a_coerced_value(name: str, value: object) -> None:
    with pytest.raises(ValueError, match=name):
        RooflineFactors(**{name: value})


def test_class_defaults_are_the_global_rows_of_the_factor_table() -> None:
    table = default_factor_table()
    glob = table[table["scope"] == "global"]
    plain = RooflineFactors()
    assert len(glob) >= 8
    for name, value in zip(glob["parameter"], glob["value"], strict=True):
        assert getattr(plain, name) == pytest.approx(float(value)), name


# --- a stored calibration keeps its model switches ---------------------------------------------


def _stored(tmp_path: object, f: RooflineFactors) -> tuple[str, tk.Calibration]:
    from pathlib import Path

    from tokenomics.perf import Calibration, load_calibration, write_calibrated_factors

    cal = Calibration(fitted={"global": f}, points={"global": 3}, residuals=pd.DataFrame(), holdout=None,
                      band=(0.8, 1.2))
    path = write_calibrated_factors(Path(str(tmp_path)) / "cal.csv", cal)
    return path.read_text(encoding="utf-8"), load_calibration(path)


def test_a_switched_calibration_round_trips(tmp_path: object) -> None:
    text, back = _stored(tmp_path, RooflineFactors(sequential_prefill=True, hbm_bandwidth_eff_frac=0.61))
    f = back.fitted["global"]
    assert f.sequential_prefill
    assert f.hbm_bandwidth_eff_frac == pytest.approx(0.61)
    assert "with sequential_prefill=True" in text
    assert "global,sequential_prefill,1.0,bool" in text


def test_a_single_roofline_calibration_round_trips(tmp_path: object) -> None:
    text, back = _stored(tmp_path, RooflineFactors(split_attention=False, kv_read_eff_frac=0.42))
    assert not back.fitted["global"].split_attention
    assert back.fitted["global"].kv_read_eff_frac == pytest.approx(0.42)
    assert "global,split_attention,0.0,bool" in text


def test_a_default_calibration_stores_no_switch_rows(tmp_path: object) -> None:
    from tokenomics.perf.factors import SWITCHES

    text, back = _stored(tmp_path, RooflineFactors())
    assert "default arguments" in text
    assert not any(f",{name}," in text for name in SWITCHES)
    assert not back.fitted["global"].sequential_prefill


def test_a_switch_row_that_is_not_one_or_zero_names_file_and_field(tmp_path: object) -> None:
    from pathlib import Path

    from tokenomics.perf import load_calibration

    text, _ = _stored(tmp_path, RooflineFactors(sequential_prefill=True))
    bad = Path(str(tmp_path)) / "bad.csv"
    bad.write_text(text.replace("global,sequential_prefill,1.0", "global,sequential_prefill,0.5"), encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.csv: scope global, sequential_prefill=0.5"):
        load_calibration(bad)
