"""How the calibration reads a measured point's configuration."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.perf.calibrate import SPEC_ACCEPTANCE_FRAC, _read_config
from tokenomics.perf.speculative import speculative_settings


def _row(precision: str, spec: str | None = None, note: str = "") -> pd.Series:
    return pd.Series({"precision": precision, "spec_decoding": spec, "note": note, "disaggregated": False})


def test_mtp3_point_is_read_at_the_published_three_draft_acceptance() -> None:
    m, hw = tk.model("deepseek-r1"), tk.hardware("b200")
    fields = _read_config(_row("fp4", "mtp", "TRT-LLM, MTP3"), m, hw)
    published = {s.draft_tokens: s.acceptance_frac for s in speculative_settings(m)}
    assert fields["mtp_draft_tokens"] == 3
    assert fields["mtp_acceptance_frac"] == published[3] == pytest.approx(0.70)


def test_mtp_point_without_a_stated_count_is_one_draft_token() -> None:
    fields = _read_config(_row("fp4", "mtp"), tk.model("deepseek-r1"), tk.hardware("b200"))
    assert (fields["mtp_draft_tokens"], fields["mtp_acceptance_frac"]) == (1, pytest.approx(0.85))


def test_model_without_a_published_setting_falls_back_to_the_default_rate() -> None:
    fields = _read_config(_row("fp4", "eagle"), tk.model("gpt-oss-120b"), tk.hardware("b200"))
    assert fields["mtp_acceptance_frac"] == SPEC_ACCEPTANCE_FRAC


def test_no_speculative_decoding_means_no_draft() -> None:
    fields = _read_config(_row("fp8", "none"), tk.model("deepseek-r1"), tk.hardware("h200"))
    assert (fields["mtp_draft_tokens"], fields["mtp_acceptance_frac"]) == (0, 0.0)


@pytest.mark.parametrize(("hardware", "activation"), [("h200", "bf16"), ("mi300x", "bf16"), ("b200", None)])
def test_fp4_weights_compute_in_bf16_only_without_fp4_tensor_cores(hardware: str, activation: str | None) -> None:
    fields = _read_config(_row("mxfp4"), tk.model("gpt-oss-120b"), tk.hardware(hardware))
    assert fields["activation_precision"] == activation
    assert fields["weight_precision"] == "fp4"


def test_int4_checkpoint_is_weight_only_everywhere() -> None:
    fields = _read_config(_row("int4"), tk.model("kimi-k2.5"), tk.hardware("b200"))
    assert fields["activation_precision"] == "bf16"
    assert fields["kv_precision"] == "bf16"


@pytest.mark.parametrize("name", ["sequential_prefill", "operator_tables", "holdout", "frontier_only",
                                  "split_attention", "scenario_lower_bounds"])
@pytest.mark.parametrize("value", ["no", 1, None])
def test_calibrate_switches_must_be_bools(name: str, value: object) -> None:
    from tokenomics.perf import calibrate

    with pytest.raises(ValueError, match=rf"{name}={value!r} must be True or False"):
        calibrate(pd.DataFrame(), **{name: value})  # type: ignore[arg-type]


def _mlperf_scenario(workload: object) -> bool:
    return str(workload).startswith("mlperf-")


def test_one_result_per_benchmark_scenario_calibrates() -> None:
    # several system vendors submit the same accelerators and software: of each hardware, model,
    # precision and scenario only the highest result is a frontier point
    from tokenomics.perf.calibrate import EXCLUDED_SOURCES, _screen, _usable, calibration_points

    pts = calibration_points()
    keep, dropped = _screen(pts, True, EXCLUDED_SOURCES)
    flat = pts.reset_index(drop=True)
    usable = _usable(pts).set_index("row")
    kept = usable.loc[[r for r in keep if _mlperf_scenario(flat.loc[r, "workload"])]]
    kept = kept.assign(workload=[flat.loc[r, "workload"] for r in kept.index])
    groups = kept.groupby(["hardware_id", "model_id", "precision", "workload"]).size()
    assert len(groups) > 40
    assert (groups == 1).all()
    rule = dropped[dropped["reason"].str.startswith("a higher result of the same scenario")]
    assert len(rule) > 50
    for r in rule.itertuples():
        best = int(r.reason.split("row ", 1)[1].split(" ", 1)[0])
        assert usable.loc[best, "throughput"] >= usable.loc[r.row, "throughput"]
        assert flat.loc[best, "workload"] == flat.loc[r.row, "workload"]


def test_mlperf_runs_read_at_their_median_are_at_least_their_floor() -> None:
    # a run that passes its scenario keeps the 99th-percentile TPOT under the limit, so its median
    # interactivity (1 / median TPOT, from the run's LoadGen summary) is at least 1 / TPOT_limit
    from tokenomics.curves.ingest import MLPERF_LATENCY_LIMITS_MS

    pts = tk.curves()
    runs = pts[pts["workload"].isin(("mlperf-server", "mlperf-interactive")) & (pts["kind"] == "measured")]
    assert len(runs) > 200
    bench = {"llama-2-70b": "llama2-70b", "llama-3.1-405b": "llama3.1-405b", "llama-3.1-8b": "llama3.1-8b",
             "deepseek-r1": "deepseek-r1", "gpt-oss-120b": "gpt-oss-120b", "mixtral-8x7b": "mixtral-8x7b"}
    for r in runs.itertuples():
        scenario = "Server" if r.workload == "mlperf-server" else "Interactive"
        floor = 1000.0 / MLPERF_LATENCY_LIMITS_MS[(bench[r.model_id], scenario)][1]
        assert r.interactivity_tok_per_s_per_user >= floor, r
        assert r.interactivity_tok_per_s_per_user == pytest.approx(1.0 / r.tpot_median_s, rel=1e-4)
        assert r.interactivity_p90_tok_per_s_per_user <= r.interactivity_tok_per_s_per_user
        assert "mlperf_log_summary.txt" in r.note


def test_open_loop_results_bound_the_fit_from_below_only() -> None:
    # an MLPerf Server or Interactive result at its median TPOT is a feasible point below the
    # closed-loop frontier: read as a lower bound, a projection above it is no miss, one below
    # it the same miss as before; every other point is unchanged
    from tokenomics.perf import RooflineFactors
    from tokenomics.perf.calibrate import OPEN_LOOP_WORKLOADS, _cases, _Problem, _screen, calibration_points

    pts = calibration_points()
    keep, _ = _screen(pts, True, ())
    cases = [c for c in _cases(pts, keep) if c.hardware.hardware_id in ("b300", "h200-sxm")]
    f = RooflineFactors()
    two_sided = _Problem.build(cases).residuals(f)[: len(cases)]
    bounded = _Problem.build(cases, lower_bounds=True).residuals(f)[: len(cases)]
    open_loop = np.asarray([str(c.label.get("workload")) in OPEN_LOOP_WORKLOADS for c in cases])
    assert open_loop.sum() >= 5
    assert (~open_loop).sum() >= 5
    assert np.array_equal(bounded[~open_loop], two_sided[~open_loop])
    assert np.array_equal(bounded[open_loop], np.minimum(two_sided[open_loop], 0.0))
    assert (two_sided[open_loop] > 0).any()  # some are projected above their result


def test_bundled_fit_reads_the_kv_cache_slower_than_the_weights() -> None:
    # the fitted finding the default model rests on: decode attention's paged KV reads reach
    # about half of the weight-streaming rate in every fitted scope (prior 1: no difference)
    from tokenomics.perf import bundled_calibration

    cal = bundled_calibration()
    assert cal.fitted["global"].split_attention
    for scope, f in cal.fitted.items():
        assert 0.3 < f.kv_read_eff_frac < 0.8, scope


# --- points of stated parallelism without a stated concurrency; projection without a fit --------

def _burst_point(**over: object) -> pd.DataFrame:
    row = {"hardware_id": "h100-sxm", "model_id": "qwen3-32b", "model_in_catalog": True, "precision": "bf16",
           "framework": "vllm", "spec_decoding": "none", "disaggregated": False, "workload": "2000/100",
           "isl_tokens": 2000.0, "osl_tokens": 100.0, "concurrency": np.nan, "tp": 2.0, "ep": 1.0,
           "dp_attention": False, "num_gpus": 2.0, "throughput_tok_per_s_per_gpu": 3000.0,
           "output_throughput_tok_per_s_per_gpu": np.nan, "interactivity_tok_per_s_per_user": 10.0,
           "e2e_interactivity_tok_per_s_per_user": np.nan, "kind": "measured", "source": "own run",
           "as_of": "2026-01-01", "note": ""}
    row.update(over)
    return pd.DataFrame([row])


def test_stated_parallelism_without_concurrency_sweeps_only_that_configuration() -> None:
    from tokenomics.perf.calibrate import _cases

    stated = _cases(_burst_point())
    searched = _cases(_burst_point(tp=np.nan))
    assert [sw.setup.cfg.label for sw in stated[0].sweeps] == ["tp2"]
    assert stated[0].label["parallelism"] == "tp2"
    assert stated[0].kind == "frontier"
    # swept up to its memory capacity, not capped at a concurrency
    b_max = tk.perf.max_concurrency("qwen3-32b", "h100", isl_tokens=2000.0, osl_tokens=100.0,
                                    config=stated[0].sweeps[0].setup.cfg)
    assert stated[0].sweeps[0].work.batch.max() == pytest.approx(b_max)
    assert len({sw.setup.cfg.label for sw in searched[0].sweeps}) > 1


def test_projection_errors_are_projected_over_measured_with_the_given_factors() -> None:
    from tokenomics.perf import projection_errors
    from tokenomics.perf.calibrate import Calibration

    cal = tk.perf.load_calibration()
    point = _burst_point()
    res = projection_errors(point, cal)
    assert len(res) == 1
    row = res.iloc[0]
    assert row["error_frac"] == pytest.approx(row["projected_tok_per_s_per_gpu"] / 3000.0 - 1.0)
    assert row["parallelism"] == "tp2"
    # faster factors project more: the projection follows the calibration it is given
    fast = {k: f.model_copy(update={"hbm_bandwidth_eff_frac": 1.0, "dense_compute_eff_frac": 1.0,
                                    "prefill_compute_eff_frac": 1.0}) for k, f in cal.fitted.items()}
    quick = Calibration(fitted=fast, points=cal.points, residuals=pd.DataFrame(), holdout=None, band=(0.0, 0.0))
    assert projection_errors(point, quick)["projected_tok_per_s_per_gpu"].iloc[0] > row["projected_tok_per_s_per_gpu"]
    # the default is the stored calibration
    assert projection_errors(point)["projected_tok_per_s_per_gpu"].iloc[0] == pytest.approx(
        row["projected_tok_per_s_per_gpu"])


def test_projection_errors_answer_each_point_by_its_label() -> None:
    from tokenomics.perf import projection_errors

    own = _burst_point().drop(columns=["kind", "model_in_catalog", "source", "workload"])
    own.index = ["my run"]
    res = projection_errors(own)  # no kind: read as measured
    assert list(res["point"]) == ["my run"]
    assert (res["precision"].iloc[0], res["point_kind"].iloc[0]) == ("bf16", "measured")


@pytest.mark.parametrize(("over", "match"), [
    ({"isl_tokens": np.nan}, "cannot be projected"),
    ({"throughput_tok_per_s_per_gpu": 0.0}, "throughput_tok_per_s_per_gpu=0 must be > 0"),
    ({"throughput_tok_per_s_per_gpu": -3.0}, "throughput_tok_per_s_per_gpu"),
    ({"interactivity_tok_per_s_per_user": 0.03}, r"interactivity_tok_per_s_per_user.*unit slip"),
    ({"concurrency": 0.0}, "concurrency"),
    ({"model_id": "mixtral-8x7b", "tp": 1.0, "num_gpus": 1.0}, "no configuration of mixtral-8x7b at bf16 fits"),
])
def test_projection_errors_refuse_points_they_cannot_project(over: dict[str, object], match: str) -> None:
    from tokenomics.perf import projection_errors

    with pytest.raises(ValueError, match=match):
        projection_errors(_burst_point(**over))


def test_projection_errors_refuse_missing_columns_unknown_names_and_a_wrong_calibration() -> None:
    from tokenomics.perf import projection_errors

    with pytest.raises(ValueError, match=r"lack the column.*isl_tokens"):
        projection_errors(_burst_point().drop(columns=["isl_tokens"]))
    with pytest.raises(KeyError, match="closest"):
        projection_errors(_burst_point(model_id="qwen-32b"))
    with pytest.raises(TypeError, match="must be a Calibration"):
        projection_errors(_burst_point(), tk.perf.RooflineFactors())  # type: ignore[arg-type]


def test_gpustack_bursts_are_kept_out_of_the_fit_with_their_reason() -> None:
    from tokenomics.perf.calibrate import EXCLUDED_SOURCES

    reason = dict(EXCLUDED_SOURCES)["github.com/gpustack/gpustack"]
    assert "burst" in reason
    assert "independent check" in reason
    points = tk.perf.calibration_points()
    burst = points[points["source"].astype(str).str.contains("github.com/gpustack/gpustack", regex=False)]
    assert {"qwen3-32b", "qwen3-235b-a22b"} <= set(burst["model_id"])
