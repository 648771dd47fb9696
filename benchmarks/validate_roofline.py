"""Leave-one-hardware-out and leave-one-model-family-out validation of the calibrated roofline.

For every hardware with usable bundled measured points, the efficiency factors are refitted
without that hardware and its points are projected (family -> vendor -> global fallback, as for
hardware nobody has measured). The headline error is the throughput per GPU at the measured
interactivity (projected / measured - 1; -100 % where the projection cannot reach that
interactivity). Points used: the measured Pareto frontier per (hardware, model, precision) across
workloads at least as heavy, less the excluded sources (see ``tokenomics.perf.calibrate``);
the dropped points are listed with their reasons.

Also printed: how uncertain the headline median itself is (90 % bootstrap intervals, resampling
the measured points and, since points of one hardware share its errors, resampling whole
hardware types) and how many points lie within the goal; in-sample errors, the error per
measured series, the number of measured points beyond the model's highest interactivity, a
secondary matched-concurrency error for points of known parallelism and concurrency (a
matched-interactivity comparison near a curve's vertical end magnifies a small latency miss),
whether the stored calibration (``data/roofline/calibrated_factors.csv``) matches this fit and
how long reading it takes against fitting, and the time of a projected curve (20 concurrencies
x 4 configs; and the default frontier search at best-practice precisions) against the time of
one decode-step evaluation measured in the same run. As an independent check, the GPUStack burst
runs (left out of the fit, ``EXCLUDED_SOURCES``: Qwen3-32B and Qwen3-235B-A22B on H100 among
them) are projected with the fit's factors, per model and hardware.

Leave-one-model-family-out: every model family's points (DeepSeek, gpt-oss, Llama...) are
predicted by factors fitted without that family. Both are printed per hardware and per family,
for the default model (decode attention bounded apart from the GEMMs, KV reads at their own
fitted rate), for the single roofline over a step's summed FLOPs and bytes
(``RooflineFactors.split_attention=False``), for the operator-table model
(``RooflineFactors.operator_tables``: GEMM, grouped-MoE and collective rates measured per shape,
``data/perf/``), for the model that charges aggregated chunked prefill after the decode work
(``RooflineFactors.sequential_prefill``) and for the default model fitted with MLPerf Server and
Interactive results as lower bounds (``calibrate(scenario_lower_bounds=True)``), each refitted
the same way. The last line gives the default model's two held-out medians.

Run: python benchmarks/validate_roofline.py
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from scipy.stats import bootstrap

import tokenomics as tk
from tokenomics.perf import (
    REGENERATE_COMMAND,
    ServingConfig,
    calibrate,
    error_summary,
    load_calibration,
    project_curve,
    projection_errors,
)
from tokenomics.perf.calibrate import calibration_points, calibration_table, model_family

INDEPENDENT_SOURCE = "github.com/gpustack/gpustack"
GOAL_HELDOUT_MEDIAN_FRAC = 0.15
GOAL_HELDOUT_WORST_FRAC = 0.30


def _pct(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    for col in ("median_abs_error_frac", "p90_abs_error_frac"):
        out[col.replace("_frac", "_pct")] = (100 * out.pop(col)).round(1)
    return out.astype({"points": int, "unreachable": int})


def _concurrency_summary(res: pd.DataFrame) -> pd.DataFrame:
    known = res[res["error_at_concurrency_frac"].notna()]
    rows = {}
    for key, g in [*known.groupby("hardware_id"), ("overall", known)]:
        thr = g["error_at_concurrency_frac"].abs().to_numpy(dtype=float)
        inter = (g["projected_interactivity_at_concurrency_tok_per_s_per_user"]
                 / g["interactivity_tok_per_s_per_user"] - 1.0).abs().to_numpy(dtype=float)
        rows[str(key)] = {
            "points": len(g),
            "median_abs_throughput_error_pct": round(100 * float(np.median(thr)), 1),
            "p90_abs_throughput_error_pct": round(100 * float(np.quantile(thr, 0.9)), 1),
            "median_abs_interactivity_error_pct": round(100 * float(np.median(inter)), 1),
        }
    return pd.DataFrame.from_dict(rows, orient="index")


def _with_family(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.assign(model_family=[model_family(tk.model(m)) for m in frame["model_id"]])


def _both_holdouts(**model: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Held-out residuals leaving out each hardware, and each model family."""
    by_hw = calibrate(holdout=True, **model).holdout
    by_fam = calibrate(holdout=True, holdout_by="family", **model).holdout
    assert by_hw is not None
    assert by_fam is not None
    return _with_family(by_hw), _with_family(by_fam)


def _median_abs(frame: pd.DataFrame) -> float:
    return float(frame["error_frac"].abs().median())


def _goal_line(name: str, table: pd.DataFrame) -> str:
    worst = table.drop(index="overall")["median_abs_error_pct"].max()
    med = table.loc["overall", "median_abs_error_pct"]
    ok = med <= 100 * GOAL_HELDOUT_MEDIAN_FRAC and worst <= 100 * GOAL_HELDOUT_WORST_FRAC
    return (f"{name}: median {med:.1f} %, worst group {worst:.1f} % -> "
            f"{'meets' if ok else 'does NOT meet'} the goal (median <= {100 * GOAL_HELDOUT_MEDIAN_FRAC:.0f} %, "
            f"every group <= {100 * GOAL_HELDOUT_WORST_FRAC:.0f} %)")


def _median_intervals(holdout: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """90 % percentile-bootstrap intervals of the held-out median |error| [fraction].

    ``points``: the measured points resampled independently; ``hardware``: whole hardware
    types resampled (their points move together, as they do when a hardware is held out).
    """
    err = holdout["error_frac"].abs().to_numpy(dtype=float)
    groups = [g["error_frac"].abs().to_numpy(dtype=float) for _, g in holdout.groupby("hardware_id")]

    def pooled(idx: np.ndarray) -> float:
        return float(np.median(np.concatenate([groups[int(i)] for i in idx])))

    out = {}
    for name, data, stat in (("points", err, np.median), ("hardware", np.arange(len(groups)), pooled)):
        res = bootstrap((data,), stat, confidence_level=0.9, method="percentile", n_resamples=4000,
                        vectorized=False, rng=np.random.default_rng(0))
        out[name] = (float(res.confidence_interval.low), float(res.confidence_interval.high))
    return out


def _independent_check(cal: tk.Calibration) -> None:
    """Project the GPUStack burst runs (excluded from the fit) with this fit's factors."""
    points = calibration_points()
    burst = points[points["source"].astype(str).str.contains(INDEPENDENT_SOURCE, regex=False)]
    if burst.empty:
        return
    res = projection_errors(burst, cal)
    res["series"] = res["model_id"] + " " + res["precision"].astype(str) + " / " + res["hardware_id"]
    print(f"Independent check, not in the fit: {len(res)} GPUStack burst runs (vllm bench serve, all "
          "requests at once; EXCLUDED_SOURCES), projected with this fit's factors:")
    print(_pct(error_summary(res, by="series")).to_string())
    signed = res.groupby("series")["error_frac"].median()
    print("median signed error: " + ", ".join(f"{k} {100 * v:+.0f} %" for k, v in signed.items()) + "\n")


def main() -> None:
    pd.set_option("display.width", 200)
    pd.set_option("display.max_colwidth", 120)
    t0 = time.perf_counter()
    cal = calibrate(holdout=True)
    t_cal = time.perf_counter() - t0
    assert cal.holdout is not None
    print(f"calibration + leave-one-hardware-out: {t_cal:.1f} s, {len(cal.residuals)} measured points used, "
          f"{len(cal.excluded)} left out\n")
    if len(cal.excluded):
        print("Left out (reason per point):")
        short = cal.excluded.assign(reason=cal.excluded["reason"].str.slice(0, 110))
        print(short[["row", "hardware_id", "model_id", "framework", "workload", "reason"]].to_string(index=False), "\n")
    print("Fitted factors per scope:")
    rows = {k: {**v.model_dump(exclude={"source"}), "points": cal.points.get(k, 0)} for k, v in cal.fitted.items()}
    print(pd.DataFrame.from_dict(rows, orient="index").round(5).to_string(), "\n")
    print("LEAVE-ONE-HARDWARE-OUT error of throughput/GPU at matched interactivity:")
    held = _pct(error_summary(cal.holdout))
    print(held.to_string(), "\n")
    beyond = int(cal.holdout["beyond_max_interactivity"].sum())
    print(f"measured points beyond the model's maximum interactivity (held out): {beyond} of {len(cal.holdout)}\n")
    print("In-sample (all hardware in the fit), same measure:")
    print(_pct(error_summary(cal.residuals)).to_string(), "\n")
    print("Secondary, held out: error at matched concurrency (points of known parallelism and concurrency):")
    print(_concurrency_summary(cal.holdout).to_string(), "\n")
    series = cal.holdout.assign(series=cal.holdout["hardware_id"] + " " + cal.holdout["model_id"] + " "
                                + cal.holdout["workload"].astype(str) + " " + cal.holdout["framework"].astype(str)
                                + " " + cal.holdout["parallelism"].astype(str))
    by_source = cal.holdout.assign(source_kind=np.where(
        cal.holdout["workload"].astype(str).str.startswith("mlperf-"), "MLPerf (open-loop, p99-bounded; Offline)",
        "other (closed-loop sweeps, posts)"))
    print("Held-out error by kind of source (MLPerf Server/Interactive read at the run's median TPOT):")
    print(_pct(error_summary(by_source, by="source_kind")).to_string(), "\n")
    print("Held-out error per measured series:")
    print(_pct(error_summary(series, by="series")).drop(index="overall").to_string(), "\n")
    median = held.loc["overall", "median_abs_error_pct"]
    verdict = "meets" if median <= 100 * GOAL_HELDOUT_MEDIAN_FRAC else "does NOT meet"
    print(f"overall held-out median |error| = {median:.1f} % -> {verdict} the goal of "
          f"<= {100 * GOAL_HELDOUT_MEDIAN_FRAC:.0f} %")
    within = int((cal.holdout["error_frac"].abs() <= GOAL_HELDOUT_MEDIAN_FRAC).sum())
    print(f"points within {100 * GOAL_HELDOUT_MEDIAN_FRAC:.0f} % held out: {within} of {len(cal.holdout)}")
    for name, (lo, hi) in _median_intervals(cal.holdout).items():
        print(f"90 % bootstrap interval of the held-out median, resampling {name}: "
              f"{100 * lo:.1f} - {100 * hi:.1f} %")
    print(f"uncertainty band (p10-p90 of measured/projected, held out): x{cal.band[0]:.2f} - x{cal.band[1]:.2f}\n")

    t0 = time.perf_counter()
    stored = load_calibration()
    t_load = time.perf_counter() - t0
    fresh = calibration_table(cal).set_index(["scope", "parameter"])["value"].astype(float).sort_index()
    kept = calibration_table(stored).set_index(["scope", "parameter"])["value"].astype(float).sort_index()
    same = fresh.index.equals(kept.index) and bool(np.allclose(fresh, kept, rtol=1e-6))
    print(f"stored calibration: {'matches this fit' if same else 'STALE, run ' + REGENERATE_COMMAND}; "
          f"reading it takes {1e3 * t_load:.1f} ms = 1/{t_cal / t_load:.0f} of the fit with hold-out "
          f"({t_cal:.1f} s)\n")

    _independent_check(cal)

    configs = [ServingConfig(tp=t, ep=t, dp_attention=d, weight_precision="fp4", kv_precision="fp8")
               for t in (8, 16) for d in (False, True)]
    factors = cal.factors_for("gb200-nvl72")
    project_curve("deepseek-r1", "gb200-nvl72", configs=configs, factors=factors)  # warm caches
    n = 20
    t0 = time.perf_counter()
    for _ in range(n):
        project_curve("deepseek-r1", "gb200-nvl72", configs=configs, factors=factors)
    t_curve = (time.perf_counter() - t0) / n
    t0 = time.perf_counter()
    for _ in range(n):
        tk.decode_step_time_s("deepseek-r1", "gb200-nvl72", 64.0, config=configs[0], factors=factors)
    t_step = (time.perf_counter() - t0) / n
    print(f"project_curve (~20 concurrencies x {len(configs)} configs): {1e3 * t_curve:.1f} ms "
          f"= {t_curve / t_step:.0f}x one decode-step evaluation ({1e3 * t_step:.2f} ms)")
    t0 = time.perf_counter()
    for _ in range(n):
        default = project_curve("deepseek-r1", "gb200-nvl72", isl_tokens=8192.0, osl_tokens=1024.0)
    t_default = (time.perf_counter() - t0) / n
    print(f"project_curve default (frontier search, {default['config'].nunique()} configs, best-practice "
          f"precisions): {1e3 * t_default:.1f} ms = {t_default / t_step:.0f}x one decode-step evaluation")

    print("\nLEAVE-ONE-MODEL-FAMILY-OUT, and the model variants (same points, same fit):")
    results = {}
    variants = (("default (attention bounded apart)", {}),
                ("single roofline (attention summed)", {"split_attention": False}),
                ("operator tables", {"operator_tables": True}),
                ("sequential chunked prefill", {"sequential_prefill": True}),
                ("open-loop lower bounds", {"scenario_lower_bounds": True}))
    for label, model in variants:
        hw_out, fam_out = _both_holdouts(**model)
        results[label] = (hw_out, fam_out)
        print(f"\n[{label}] leave-one-hardware-out, per hardware:")
        t_hw = _pct(error_summary(hw_out))
        print(t_hw.to_string())
        print(f"[{label}] leave-one-hardware-out, per model family:")
        print(_pct(error_summary(hw_out, by="model_family")).to_string())
        print(f"[{label}] leave-one-model-family-out, per model family:")
        t_fam = _pct(error_summary(fam_out, by="model_family"))
        print(t_fam.to_string())
        print(f"[{label}] leave-one-model-family-out, per hardware:")
        print(_pct(error_summary(fam_out)).to_string())
        print(_goal_line(f"[{label}] hardware held out", t_hw))
        print(_goal_line(f"[{label}] family held out", t_fam))
    hw_out, fam_out = results["default (attention bounded apart)"]
    print(f"roofline held-out median abs error: hardware {100 * _median_abs(hw_out):.1f} %, "
          f"family {100 * _median_abs(fam_out):.1f} % (n={len(hw_out)})")


if __name__ == "__main__":
    main()
