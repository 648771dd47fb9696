"""Pareto frontier, ThroughputCurve interpolation, cost curves and the bundled curve catalog."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.curves.curve import ThroughputCurve, cost_curve
from tokenomics.curves.frontier import (
    ENVELOPE_TOLERANCE_FRAC,
    config_envelope,
    pareto_frontier,
    pareto_mask,
    pareto_mask_naive,
)
from tokenomics.curves.measured import _load, curve_catalog_files, curves
from tokenomics.curves.schema import POINT_KINDS
from tokenomics.perf.calibrate import MAX_THROUGHPUT_WORKLOAD

X = "interactivity_tok_per_s_per_user"
Y = "throughput_tok_per_s_per_gpu"


# --- frontier -------------------------------------------------------------------------------------


def test_frontier_hand_example_ties_and_exclusions() -> None:
    df = pd.DataFrame({
        "hardware_id": ["b200"] * 7 + ["mi355x"],
        X: [10.0, 20.0, 20.0, 30.0, 10.0, 0.0, 25.0, 5.0],
        Y: [300.0, 200.0, 250.0, 50.0, 300.0, 900.0, np.nan, 100.0],
    })
    front = pareto_frontier(df, by=["hardware_id"])
    # b200: (10,300) kept once (row 4 duplicate dropped), (20,250) beats (20,200), (30,50) kept
    assert front.index.tolist() == [0, 2, 3, 7]
    assert front.attrs == {"excluded_nonpositive": 2, "dropped_dominated": 2}
    assert front[front["hardware_id"] == "b200"][X].is_monotonic_increasing


def test_frontier_missing_column() -> None:
    with pytest.raises(KeyError, match="nope"):
        pareto_frontier(pd.DataFrame({X: [1.0], Y: [1.0]}), throughput="nope", by=None)


def test_config_envelope_hand_example() -> None:
    # a: y = 10^4 / x from 10 to 100 tok/s/user (two points: a straight line in log-log);
    # b: one point (50, 300), flat below 50. Best: a up to 10^4 / 300 = 33.3, then b to 50
    # (300), then a (10^4 / x) to 100
    df = pd.DataFrame({"config": ["a", "a", "b"], X: [10.0, 100.0, 50.0], Y: [1000.0, 100.0, 300.0],
                       "concurrency": [64.0, 4.0, 16.0], "input_throughput_tok_per_s_per_gpu": [500.0, 50.0, 150.0]})
    df.attrs["note"] = "kept"
    env = config_envelope(df)
    assert env.attrs == {"note": "kept", "excluded_nonpositive": 0}
    assert env.index.tolist() == list(range(len(env)))
    assert env.loc[~env["interpolated"], "config"].tolist() == ["a", "b", "a"]
    curve = ThroughputCurve.from_points(env, allow_mixed_groups=True)
    at = np.array([12.0, 20.0, 30.0, 40.0, 45.0, 60.0, 80.0])
    by_hand = np.array([10e3 / 12, 500.0, 10e3 / 30, 300.0, 300.0, 10e3 / 60, 125.0])
    np.testing.assert_allclose(curve.throughput_at(at), by_hand, rtol=ENVELOPE_TOLERANCE_FRAC)
    # added rows: on a's line, numeric columns mixed by the throughput weight
    rows = env[env["interpolated"]]
    assert (rows["config"] == "a").all()
    np.testing.assert_allclose(rows[Y] * rows[X], 10e3, rtol=1e-9)
    w = (rows[Y] - 1000.0) / (100.0 - 1000.0)
    np.testing.assert_allclose(rows["concurrency"], 64.0 + w * (4.0 - 64.0))
    np.testing.assert_allclose(rows["input_throughput_tok_per_s_per_gpu"], rows[Y] / 2)


def test_from_points_reads_several_configurations_through_their_envelope() -> None:
    df = pd.DataFrame({"config": ["a", "a", "b"], X: [10.0, 100.0, 50.0], Y: [1000.0, 100.0, 300.0]})
    curve = ThroughputCurve.from_points(df, allow_mixed_groups=True)
    assert curve.points["interpolated"].any()
    assert float(curve.throughput_at(20.0)) == pytest.approx(500.0)  # a's own line, 10^4 / x
    # one configuration, or no configuration column: the Pareto frontier of the points
    pooled = ThroughputCurve.from_points(df.drop(columns="config"))
    assert float(pooled.throughput_at(20.0)) == pytest.approx(716.9, abs=0.1)
    assert "interpolated" not in ThroughputCurve.from_points(df[df["config"] == "a"]).points.columns
    # an envelope is not enveloped again
    env = config_envelope(df)
    again = ThroughputCurve.from_points(env, allow_mixed_groups=True)
    pd.testing.assert_frame_equal(again.points.reset_index(drop=True), env)


def test_config_envelope_of_one_configuration_reads_as_its_curve() -> None:
    x = np.array([5.0, 20.0, 60.0, 200.0])
    df = pd.DataFrame({"config": "tp8", X: x, Y: [9000.0, 6000.0, 2000.0, 100.0]})
    own = ThroughputCurve.from_points(df)
    env = ThroughputCurve.from_points(config_envelope(df), allow_mixed_groups=True)
    at = np.geomspace(5.0, 200.0, 50)
    np.testing.assert_allclose(env.throughput_at(at), own.throughput_at(at), rtol=ENVELOPE_TOLERANCE_FRAC)


def test_config_envelope_of_a_projection_adds_up_and_covers_each_configuration() -> None:
    pts = tk.project_curve("qwen3-235b-a22b", "mi325x", isl_tokens=8192.0, osl_tokens=1024.0, search="aggregated")
    env = config_envelope(pts)
    total = env["input_throughput_tok_per_s_per_gpu"] + env["output_throughput_tok_per_s_per_gpu"]
    np.testing.assert_allclose(total, env[Y], rtol=1e-9)
    curve = ThroughputCurve.from_points(env, allow_mixed_groups=True)
    for _, own in pts.groupby("config"):
        c = ThroughputCurve.from_points(own, allow_mixed_groups=True)
        lo, hi = c.interactivity_range
        at = np.geomspace(max(lo, 1.0), hi, 40)  # a query below 1 tok/s/user is refused as a unit slip
        assert np.all(curve.throughput_at(at) >= c.throughput_at(at) * (1 - 2 * ENVELOPE_TOLERANCE_FRAC))


def test_config_envelope_rejects_bad_input() -> None:
    df = pd.DataFrame({"config": ["a"], X: [1.0], Y: [1.0]})
    for bad in (0, -3, 1.5, True, "32"):
        with pytest.raises(ValueError, match="knots_per_decade"):
            config_envelope(df, knots_per_decade=bad)  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="parallelism"):
        config_envelope(df, config="parallelism")
    with pytest.raises(KeyError, match="closest: throughput_tok_per_s_per_gpu"):
        config_envelope(df, throughput="throughput_tok_per_s")
    with pytest.raises(TypeError):
        config_envelope([(1.0, 1.0)])  # type: ignore[arg-type]
    empty = config_envelope(df.iloc[:0])
    assert empty.empty
    assert "interpolated" in empty.columns
    # points without a usable coordinate are counted, and a curve of none says so
    unusable = pd.DataFrame({"config": ["a", "b"], X: [np.nan, 5.0], Y: [1.0, -2.0]})
    assert config_envelope(unusable).attrs["excluded_nonpositive"] == 2
    with pytest.raises(ValueError, match="2 excluded"):
        ThroughputCurve.from_points(unusable, allow_mixed_groups=True)


def test_mask_matches_naive_on_grid_with_ties() -> None:
    rng = np.random.default_rng(7)
    x = rng.integers(1, 8, 400).astype(float)
    y = rng.integers(1, 8, 400).astype(float)
    np.testing.assert_array_equal(pareto_mask(x, y), pareto_mask_naive(x, y))


def test_mask_rejects_nan() -> None:
    with pytest.raises(ValueError, match="finite"):
        pareto_mask([1.0, np.nan], [1.0, 2.0])


# --- ThroughputCurve -----------------------------------------------------------------------------

KX = np.array([10.0, 40.0, 100.0])
KY = np.array([4000.0, 1500.0, 300.0])


def test_curve_returns_knots_and_stays_between_them() -> None:
    c = ThroughputCurve(KX, KY)
    assert c.throughput_at(40.0) == 1500.0
    np.testing.assert_allclose(c.throughput_at(KX), KY)
    xs = np.linspace(10, 100, 500)
    ys = c.throughput_at(xs)
    assert np.all(np.diff(ys) <= 0)
    assert ys.min() >= KY.min()
    assert ys.max() <= KY.max()
    # log-log PCHIP between two knots of a power law is the power law: midpoint in log space
    two = ThroughputCurve([10.0, 1000.0], [1000.0, 10.0])
    assert two.throughput_at(100.0) == pytest.approx(100.0)


def test_curve_scalar_array_series() -> None:
    c = ThroughputCurve(KX, KY)
    expected = c.throughput_at(20.0)
    assert isinstance(expected, float)
    arr = c.throughput_at(np.array([20.0, 200.0]))
    assert isinstance(arr, np.ndarray)
    assert arr[0] == expected
    assert np.isnan(arr[1])  # finite but outside the measured range: NaN (default)
    s = c.throughput_at(pd.Series([20.0, 200.0], index=["a", "b"]))
    assert isinstance(s, pd.Series)
    assert s.index.tolist() == ["a", "b"]
    assert s["a"] == expected


@pytest.mark.parametrize("extrapolate", ["nan", "raise", "clip"])
def test_curve_nan_input_raises_naming_the_argument(extrapolate: str) -> None:
    c = ThroughputCurve(KX, KY)
    with pytest.raises(ValueError, match=r"interactivity_tok_per_s_per_user is NaN"):
        c.throughput_at(np.nan, extrapolate=extrapolate)  # type: ignore[arg-type]
    # element-wise: the message points at the offending position / index label
    with pytest.raises(ValueError, match=r"NaN at position 1 \(1 of 2 bad\)"):
        c.throughput_at(np.array([20.0, np.nan]), extrapolate=extrapolate)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"NaN at index 'b'"):
        c.throughput_at(pd.Series([20.0, np.nan], index=["a", "b"]),
                        extrapolate=extrapolate)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=rf"{c.throughput_column} is NaN"):
        c.interactivity_at(np.nan, extrapolate=extrapolate)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=rf"{c.throughput_column} is NaN at position 0"):
        c.interactivity_at([np.nan, 1000.0], extrapolate=extrapolate)  # type: ignore[arg-type]


def test_curve_out_of_range_modes() -> None:
    c = ThroughputCurve(KX, KY)
    # a target below the lowest knot is met by serving faster: the lowest knot's throughput
    assert c.throughput_at(5.0) == c.throughput_at(KX[0]) == KY[0]
    assert c.can_meet(5.0)
    assert not c.can_meet(101.0)
    assert not c.in_range(5.0)
    assert c.in_range(10.0)
    np.testing.assert_array_equal(c.in_range(np.array([5.0, 50.0, 101.0])), [False, True, False])
    with pytest.raises(ValueError, match="above the highest measured"):
        c.throughput_at([50.0, 200.0], extrapolate="raise")
    assert c.throughput_at(5.0, extrapolate="raise") == KY[0]
    assert c.throughput_at(200.0, extrapolate="clip") == 300.0
    assert c.throughput_at(1.0, extrapolate="clip") == 4000.0
    with pytest.raises(ValueError, match="extrapolate"):
        c.throughput_at(50.0, extrapolate="linear")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="interactivity"):
        c.throughput_at(-1.0)


def test_inverse_round_trip() -> None:
    c = ThroughputCurve(KX, KY)
    xs = np.array([12.0, 33.0, 77.0])
    np.testing.assert_allclose(c.interactivity_at(c.throughput_at(xs)), xs, rtol=1e-9)
    assert np.isnan(c.interactivity_at(5000.0))


def test_curve_rejects_non_frontier_knots() -> None:
    with pytest.raises(ValueError, match="Pareto"):
        ThroughputCurve([10.0, 20.0], [100.0, 200.0])
    with pytest.raises(ValueError, match="kind"):
        ThroughputCurve([10.0], [100.0], kind="guess")
    with pytest.raises(ValueError, match="throughput"):
        ThroughputCurve([10.0, 20.0], [100.0, 0.0])


def test_single_knot_curve() -> None:
    c = ThroughputCurve([129.0], [2378.0])
    assert c.throughput_at(129.0) == 2378.0
    assert np.isnan(c.throughput_at(130.0))


def test_from_points_refuses_mixed_kinds_and_groups() -> None:
    pts = pd.DataFrame({"hardware_id": ["b200", "b200"], "kind": ["measured", "floor"],
                        X: [10.0, 20.0], Y: [100.0, 50.0]})
    with pytest.raises(ValueError, match="mix kinds"):
        ThroughputCurve.from_points(pts)
    assert ThroughputCurve.from_points(pts, allow_mixed_kinds=True).kind == "mixed"
    pts2 = pts.assign(kind="measured", hardware_id=["b200", "b300"])
    with pytest.raises(ValueError, match="groups"):
        ThroughputCurve.from_points(pts2)
    assert len(ThroughputCurve.from_points(pts2, allow_mixed_groups=True)) == 2


def test_from_points_takes_the_frontier() -> None:
    pts = pd.DataFrame({X: [10.0, 20.0, 15.0, 30.0], Y: [300.0, 200.0, 100.0, 50.0]})
    c = ThroughputCurve.from_points(pts)
    assert len(c) == 3
    assert c.points[X].tolist() == [10.0, 20.0, 30.0]


# --- cost curve ----------------------------------------------------------------------------------


def test_cost_curve_by_hand_and_split_adds_up() -> None:
    c = ThroughputCurve(KX, KY)
    table = cost_curve(c, 2.0, 0.5, interactivity_tok_per_s_per_user=[10.0, 100.0, 500.0])
    # $2/GPU-h / (4000 tok/s * 3600 s/h * 0.5) * 1e6 = 0.27778 $/Mtok; 500 is out of range: dropped
    assert table[X].tolist() == [10.0, 100.0]
    assert table["total_usd_per_mtok"].tolist() == pytest.approx([2 / (4000 * 1800) * 1e6,
                                                                  2 / (300 * 1800) * 1e6])
    split = cost_curve(c, 2.0, 1.0, input_share_frac=0.8, rule="price", input_usd_per_mtok=1.0,
                       output_usd_per_mtok=4.0)
    mix = 0.8 * split["input_usd_per_mtok"] + 0.2 * split["output_usd_per_mtok"]
    np.testing.assert_allclose(mix, split["total_usd_per_mtok"])


def test_cost_curve_split_needs_share() -> None:
    with pytest.raises(ValueError, match="input_share_frac"):
        cost_curve(ThroughputCurve(KX, KY), 2.0, rule="price", input_usd_per_mtok=1.0,
                   output_usd_per_mtok=4.0)


# --- bundled catalog -----------------------------------------------------------------------------

CATALOG = _load()
_DATE = re.compile(r"^\d{4}(-\d{2}(-\d{2})?)?$")


@pytest.mark.parametrize("i", range(len(CATALOG)), ids=lambda i: f"row{i}")
def test_bundled_row(i: int) -> None:
    row = CATALOG.iloc[i]
    assert tk.catalog.resolve_hardware_id(row["hardware_id"]) == row["hardware_id"]
    if bool(row["model_in_catalog"]):
        assert tk.catalog.resolve_model_id(row["model_id"]) == row["model_id"]
    assert row["kind"] in POINT_KINDS
    assert isinstance(row["source"], str)
    assert len(row["source"]) > 10
    assert _DATE.match(str(row["as_of"])), row["as_of"]
    tot, out = row[Y], row["output_throughput_tok_per_s_per_gpu"]
    assert pd.notna(tot) or pd.notna(out)
    for v in (tot, out):
        assert pd.isna(v) or v > 0
    if pd.notna(tot) and pd.notna(out) and not bool(row["disaggregated"] is True):
        assert out <= tot
    # interactivity: 1/TPOT, or (where the source only gives a per-request rate that includes
    # the prefill time) the end-to-end-normalised figure; one of the two is always present except
    # in MLPerf Offline rows, which have no latency bound and report none
    x = row[X] if pd.notna(row[X]) else row["e2e_interactivity_tok_per_s_per_user"]
    if str(row["workload"]) == MAX_THROUGHPUT_WORKLOAD:
        assert pd.isna(x)
        assert row["kind"] == "measured"
        return
    assert pd.notna(x)
    assert 0 < x < 2000
    if row["kind"] == "floor":
        assert str(row["workload"]).startswith("mlperf-")


def test_catalog_coverage_deepseek_r1() -> None:
    dsr1 = CATALOG[CATALOG["model_id"] == "deepseek-r1"]
    measured = set(dsr1.loc[dsr1["kind"] == "measured", "hardware_id"])
    assert {"b200", "gb200-nvl72", "gb300-nvl72", "mi355x"} <= measured
    # the issue asks for measured curves on >= 5 hardware types for at least one model
    named = {"gb200-nvl72", "gb300-nvl72", "b200", "b300", "h100-sxm", "h200-sxm", "mi355x", "tpu-v6e", "tpu-v7"}
    assert len(measured & named) >= 5, sorted(measured)
    # and real curves (several measured operating points) on at least 5 of them
    counts = dsr1[dsr1["kind"] == "measured"].groupby("hardware_id").size()
    assert int((counts.reindex(sorted(named)).fillna(0) >= 4).sum()) >= 4, counts.to_dict()
    assert {"mtp", "none"} <= set(dsr1["spec_decoding"].dropna())
    assert {True, False} <= set(dsr1["disaggregated"].dropna())


def test_catalog_rows_from_shared_files_match_a_fresh_read(shared_data: Path) -> None:
    d = shared_data / "inferencemax" / "agentic_mvp_b200_dsr1_fp4_offload" / "agg"
    if not d.is_dir():
        pytest.skip(f"{d} not present")
    fresh = pd.concat([tk.read_agentx(f) for f in sorted(d.glob("agg_*.json"))])
    bundled = curves(model="deepseek-r1", hardware="b200", workload="agentic-coding-early")
    assert len(bundled) == len(fresh) == 44
    assert set(fresh["workload"]) == set(bundled["workload"]) == {"agentic-coding-early"}
    a = np.sort(fresh[Y].to_numpy(dtype=float))
    b = np.sort(bundled[Y].to_numpy(dtype=float))
    np.testing.assert_allclose(a, b, rtol=1e-5)


def test_curves_filters_and_errors() -> None:
    pts = tk.curves(model="DeepSeek R1", hardware="GB300", kind="measured", spec_decoding="mtp")
    # LMSYS 128k/8k GB300 MTP points publish output tokens/s per GPU (226.2 peak; 224.2 at 43)
    c = ThroughputCurve.from_points(pts[pts["workload"] == "128k/8k"], throughput="output_throughput_tok_per_s_per_gpu")
    assert c.kind == "measured"
    assert c.throughput_at(43.0) == pytest.approx(224.2)
    with pytest.raises(KeyError):
        curves(hardware="B2000")
    with pytest.raises(ValueError, match="kind"):
        curves(kind="guess")
    with pytest.raises(ValueError, match="no bundled curve points"):
        curves(model="deepseek-r1", hardware="tpu-v6e")
    assert all(f.suffix == ".csv" for f in curve_catalog_files())


def test_unknown_model_is_a_key_error_with_close_matches_like_an_unknown_system() -> None:
    # a typo of a model raised ValueError "no bundled curve points", a hardware typo KeyError
    with pytest.raises(KeyError, match=r"unknown model 'deepsek-r1'; closest: DeepSeek R1"):
        curves(model="deepsek-r1")
    with pytest.raises(KeyError, match="unknown model 'no-such-model'"):
        curves(model="no-such-model", hardware="gb200")
    # aliases and spellings of a catalog model still match its points
    assert len(curves(model="DeepSeek-R1-0528")) == len(curves(model="deepseek r1")) > 0
    # a catalog model without bundled points keeps its ValueError listing what exists
    bare = sorted(set(tk.model_table().index) - set(_load()["model_id"]))
    with pytest.raises(ValueError, match="no bundled curve points"):
        curves(model=bare[0])


def test_curve_keeps_dataarray_labels_and_dask_laziness() -> None:
    xr = pytest.importorskip("xarray")
    da = pytest.importorskip("dask.array")
    c = ThroughputCurve(KX, KY)
    x = xr.DataArray([10.0, 100.0], dims="target", coords={"target": ["slow", "fast"]})
    y = c.throughput_at(x)
    assert isinstance(y, xr.DataArray)
    assert y.dims == ("target",)
    assert list(y["target"].values) == ["slow", "fast"]
    assert y.sel(target="fast").item() == 300.0  # a knot returns the knot
    back = c.interactivity_at(xr.DataArray([4000.0, 1500.0], dims="target"))
    assert isinstance(back, xr.DataArray)
    np.testing.assert_allclose(back.values, [10.0, 40.0], rtol=1e-9)
    lazy = c.throughput_at(da.from_array(np.array([10.0, 40.0, 500.0]), chunks=1))
    assert isinstance(lazy, da.Array)
    np.testing.assert_array_equal(lazy.compute(), [4000.0, 1500.0, np.nan])
    assert isinstance(c.throughput_at(x.chunk(1)).data, da.Array)
    # checks run when computed
    bad = c.throughput_at(da.from_array(np.array([10.0, -1.0]), chunks=1))
    with pytest.raises(ValueError, match=r"interactivity_tok_per_s_per_user=-1\.0"):
        bad.compute()


def test_out_of_range_message_prints_plain_numbers() -> None:
    c = ThroughputCurve(KX, KY)
    with pytest.raises(ValueError, match=r"^interactivity_tok_per_s_per_user=500\.0 is above the highest measured "
                                         r"value 100\.0 of this curve \(measured range \[10\.0, 100\.0\]\)") as info:
        c.throughput_at(np.array([500.0]), extrapolate="raise")
    assert "np.float64" not in str(info.value)


def test_cost_curve_keeps_the_series_index_of_the_targets_kept() -> None:
    c = ThroughputCurve(KX, KY)
    targets = pd.Series([10.0, 100.0, 500.0], index=["slow", "fast", "too-fast"])
    table = cost_curve(c, 2.0, 0.5, interactivity_tok_per_s_per_user=targets)
    assert list(table.index) == ["slow", "fast"]  # 500 is above the curve: dropped with its label
    # $2/GPU-h / (300 tok/s * 3600 s/h * 0.5) * 1e6
    assert table.loc["fast", "total_usd_per_mtok"] == pytest.approx(2 / (300 * 1800) * 1e6)


def test_a_tpot_given_as_interactivity_is_refused_with_the_unit_named():
    # 0.02 s per token is 50 tok/s/user; read as an interactivity it would silently take the
    # curve's slowest point
    c = ThroughputCurve([10.0, 50.0, 100.0], [3000.0, 1500.0, 400.0])
    with pytest.raises(ValueError, match=r"0\.02 tok/s/user is below the plausible minimum 1 .*TPOT"):
        c.throughput_at(0.02)
    with pytest.raises(ValueError, match="interactivity_tok_per_s_per_user"):
        c.throughput_at(pd.Series([50.0, 0.02], index=["a", "b"]))
    assert c.throughput_at(5.0) == 3000.0  # below the lowest knot: met at that knot


@pytest.mark.parametrize(("value", "match"), [("40", "not a number"), (True, "not a number"), (None, "missing")])
def test_throughput_at_refuses_text_flags_and_none(value, match) -> None:
    curve = ThroughputCurve([10.0, 40.0], [2000.0, 1000.0])
    with pytest.raises(ValueError, match=match):
        curve.throughput_at(value)
    with pytest.raises(ValueError, match=match):
        curve.interactivity_at(value)


def test_the_provenance_table_accounts_for_every_bundled_row() -> None:
    from tokenomics.catalog import data_dir

    readme = (data_dir() / "curves" / "README.md").read_text(encoding="utf-8")
    counts = [int(n) for n in re.findall(r"^\| (\d+) \|", readme, re.M)]
    bundled = pd.read_csv(data_dir() / "curves" / "measured_points.csv")
    assert sum(counts) == len(bundled)
