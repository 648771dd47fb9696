"""Leave-one-hardware-out validation of the calibrated roofline projection.

For every hardware with usable bundled measured points, the efficiency factors are refitted
without that hardware and its points are projected (family -> vendor -> global fallback, as for
hardware nobody has measured). The error is the throughput per GPU at the measured interactivity
(projected / measured - 1; -100 % where the projection cannot reach that interactivity).

Prints median and p90 absolute % error per hardware and overall, in-sample for comparison, the
error per measured series, and the time of a projected curve (20 concurrencies x 4 configs)
against the time of one decode-step evaluation measured in the same run.

Run: python benchmarks/validate_roofline.py
"""

from __future__ import annotations

import time

import pandas as pd

import tokenomics as tk
from tokenomics.roofline import ServingConfig, calibrate, error_summary, project_curve

GOAL_MEDIAN_ABS_ERROR_FRAC = 0.20


def _pct(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    for col in ("median_abs_error_frac", "p90_abs_error_frac"):
        out[col.replace("_frac", "_pct")] = (100 * out.pop(col)).round(1)
    return out.astype({"points": int, "unreachable": int})


def main() -> None:
    pd.set_option("display.width", 200)
    t0 = time.perf_counter()
    cal = calibrate(holdout=True)
    t_cal = time.perf_counter() - t0
    assert cal.holdout is not None
    print(f"calibration + leave-one-hardware-out: {t_cal:.1f} s, {len(cal.residuals)} measured points\n")
    print("Fitted factors per scope:")
    rows = {k: {**v.model_dump(exclude={"source"}), "points": cal.points.get(k, 0)} for k, v in cal.fitted.items()}
    print(pd.DataFrame.from_dict(rows, orient="index").round(5).to_string(), "\n")
    print("LEAVE-ONE-HARDWARE-OUT error of throughput/GPU at matched interactivity:")
    held = _pct(error_summary(cal.holdout))
    print(held.to_string(), "\n")
    print("In-sample (all hardware in the fit), same measure:")
    print(_pct(error_summary(cal.residuals)).to_string(), "\n")
    series = cal.holdout.assign(series=cal.holdout["hardware_id"] + " " + cal.holdout["model_id"] + " "
                                + cal.holdout["workload"].astype(str) + " " + cal.holdout["framework"].astype(str)
                                + " " + cal.holdout["parallelism"].astype(str))
    print("Held-out error per measured series:")
    print(_pct(error_summary(series, by="series")).drop(index="overall").to_string(), "\n")
    median = held.loc["overall", "median_abs_error_pct"]
    verdict = "meets" if median <= 100 * GOAL_MEDIAN_ABS_ERROR_FRAC else "does NOT meet"
    print(f"overall held-out median |error| = {median:.1f} % -> {verdict} the goal of "
          f"<= {100 * GOAL_MEDIAN_ABS_ERROR_FRAC:.0f} %")
    print(f"uncertainty band (p10-p90 of measured/projected, held out): x{cal.band[0]:.2f} - x{cal.band[1]:.2f}\n")

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


if __name__ == "__main__":
    main()
