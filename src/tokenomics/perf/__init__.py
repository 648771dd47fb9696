"""Calibrated roofline projection of decode and prefill for hardware nobody has measured.

Physics in :mod:`tokenomics.perf.step`, efficiency factors in
:mod:`tokenomics.perf.factors`, fitting against measured curves in
:mod:`tokenomics.perf.calibrate` and curve sweeps in :mod:`tokenomics.perf.project`.
"""

from __future__ import annotations

from tokenomics.perf.calibrate import (
    REGENERATE_COMMAND,
    Calibration,
    bundled_calibration,
    calibrate,
    calibrated_factors_path,
    error_summary,
    frontier_configs,
    load_calibration,
    write_calibrated_factors,
)
from tokenomics.perf.factors import (
    FITTED_FACTORS,
    RooflineFactors,
    default_factor_table,
    default_factors,
)
from tokenomics.perf.project import (
    BAND_COLUMNS,
    DEFAULT_CONCURRENCY,
    PRECISION_RULE,
    UNCALIBRATED_BAND,
    best_practice_precisions,
    config_label,
    default_config,
    project_curve,
)
from tokenomics.perf.step import (
    ServingConfig,
    decode_step_time_s,
    max_concurrency,
    prefill_time_s,
    roofline_points,
    weight_bytes_per_gpu,
)

__all__ = [
    "BAND_COLUMNS",
    "DEFAULT_CONCURRENCY",
    "FITTED_FACTORS",
    "PRECISION_RULE",
    "REGENERATE_COMMAND",
    "UNCALIBRATED_BAND",
    "Calibration",
    "RooflineFactors",
    "ServingConfig",
    "best_practice_precisions",
    "bundled_calibration",
    "calibrate",
    "calibrated_factors_path",
    "config_label",
    "decode_step_time_s",
    "default_config",
    "default_factor_table",
    "default_factors",
    "error_summary",
    "frontier_configs",
    "load_calibration",
    "max_concurrency",
    "prefill_time_s",
    "project_curve",
    "roofline_points",
    "weight_bytes_per_gpu",
    "write_calibrated_factors",
]
