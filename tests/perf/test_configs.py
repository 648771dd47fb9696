"""Curve rows of a projection: one helper for aggregated, disaggregated and session curves."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.curves.schema import CURVE_COLUMNS, conform
from tokenomics.perf import ServingConfig, roofline_points
from tokenomics.perf.configs import config_label, curve_frame, curve_rows


def _rows(cfg: ServingConfig, batch: list[float], **extra: object) -> dict[str, np.ndarray]:
    m = tk.model("llama-3.3-70b")
    pts = roofline_points(m, "h100", batch, isl_tokens=2048.0, osl_tokens=512.0, config=cfg)
    return curve_rows(m, cfg, pts, hardware_id="h100-sxm", hardware_name="H100 SXM", workload="2k/0.5k",
                      isl_tokens=2048.0, osl_tokens=512.0, note="test", label=config_label(cfg, m),
                      step_time_s=pts["step_time_s"], factors_source="test", **extra)


def test_rows_carry_the_configuration_and_the_end_to_end_latency() -> None:
    cfg = ServingConfig(tp=4, kv_precision="fp8", mtp_draft_tokens=2, mtp_acceptance_frac=0.7)
    rows = _rows(cfg, [1.0, 16.0])
    assert {len(v) for v in rows.values()} == {2}
    assert rows["spec_decoding"].tolist() == ["mtp", "mtp"]
    assert rows["parallelism"].tolist() == ["tp4-mtp2"] * 2
    assert rows["precision"].tolist() == ["bf16"] * 2  # the native weights of the checkpoint
    # e2el = TTFT + OSL x TPOT
    np.testing.assert_allclose(rows["e2el_median_s"], rows["ttft_median_s"] + 512.0 * rows["tpot_median_s"])
    # extra columns follow parallelism and config, in the order given
    names = list(rows)
    assert names[names.index("config") + 1:] == ["step_time_s", "factors_source"]


def test_the_concurrency_column_can_be_given() -> None:
    rows = _rows(ServingConfig(tp=4), [1.0, 16.0], concurrency=np.array([8.0, 128.0]))
    assert rows["concurrency"].tolist() == [8.0, 128.0]


def test_frame_equals_the_conformed_concatenation_of_per_configuration_frames() -> None:
    parts = [_rows(ServingConfig(tp=4), [1.0, 16.0, 64.0]), _rows(ServingConfig(tp=8, kv_precision="fp8"), [2.0])]
    got = curve_frame(parts)
    want = conform(pd.concat([pd.DataFrame(p) for p in parts], ignore_index=True))
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert list(got.columns[: len(CURVE_COLUMNS)]) == list(CURVE_COLUMNS)
    assert got["cache_hit_frac"].isna().all()  # a schema column nobody filled is missing, never 0


def test_parts_with_different_columns_are_joined_like_conform() -> None:
    parts = [_rows(ServingConfig(tp=4), [1.0]), _rows(ServingConfig(tp=8), [1.0], cache_hit_frac=0.5)]
    got = curve_frame(parts)
    want = conform(pd.concat([pd.DataFrame(p) for p in parts], ignore_index=True))
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_an_unknown_kind_and_no_parts_raise() -> None:
    rows = _rows(ServingConfig(tp=4), [1.0])
    rows["kind"] = np.array(["guessed"], dtype=object)
    with pytest.raises(ValueError, match="kind='guessed'"):
        curve_frame([rows])
    with pytest.raises(ValueError, match="no rows"):
        curve_frame([])


def test_names_resolve_to_the_catalog_entry_of_the_moment() -> None:
    from tokenomics.catalog import REGISTRY
    from tokenomics.perf.configs import as_hardware, as_model

    first = as_model("DeepSeek R1")
    assert first is tk.model("deepseek-r1")
    assert as_hardware("GB200 NVL72") is tk.hardware("gb200-nvl72")
    REGISTRY._entities.clear()  # the catalog rebuilds its entries (as add_catalog_file makes it)
    again = as_model("deepseek-r1")
    assert again is tk.model("deepseek-r1")
    assert again is not first
    with pytest.raises(KeyError, match="closest"):
        as_model("deepsek-r1")


def test_stacked_rows_equal_each_configuration_joined() -> None:
    from tokenomics.perf.configs import stacked_curve_rows

    m = tk.model("llama-3.3-70b")
    cfgs = [ServingConfig(tp=4, kv_precision="fp8"),
            ServingConfig(tp=8, weight_precision="fp8", mtp_draft_tokens=2, mtp_acceptance_frac=0.7)]
    grids = [[1.0, 16.0, 64.0], [2.0, 8.0]]
    pts = [roofline_points(m, "h100", g, isl_tokens=2048.0, osl_tokens=512.0, config=c)
           for c, g in zip(cfgs, grids, strict=True)]
    common = {"hardware_id": "h100-sxm", "hardware_name": "H100 SXM", "workload": "2k/0.5k",
              "isl_tokens": 2048.0, "osl_tokens": 512.0}
    one_by_one = curve_frame([
        curve_rows(m, c, p, note=f"n{c.tp}", label=config_label(c, m), max_concurrency=float(c.tp),
                   step_time_s=p["step_time_s"], bound=p["bound"], factors_source="test", **common)
        for c, p in zip(cfgs, pts, strict=True)])
    both = pd.concat(pts, ignore_index=True)
    stacked = curve_frame([stacked_curve_rows(
        m, cfgs, [len(g) for g in grids], {k: both[k].to_numpy() for k in both}, note=[f"n{c.tp}" for c in cfgs],
        label=[config_label(c, m) for c in cfgs], max_concurrency=[float(c.tp) for c in cfgs],
        step_time_s=both["step_time_s"].to_numpy(), bound=both["bound"].to_numpy(), factors_source="test",
        **common)])
    pd.testing.assert_frame_equal(stacked, one_by_one, check_exact=True)
