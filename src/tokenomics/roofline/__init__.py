"""Calibrated roofline projection of decode and prefill for hardware nobody has measured.

Physics in :mod:`tokenomics.roofline.step`, efficiency factors in
:mod:`tokenomics.roofline.factors`, fitting against measured curves in
:mod:`tokenomics.roofline.calibrate` and curve sweeps in :mod:`tokenomics.roofline.project`.
"""

from __future__ import annotations

from tokenomics.roofline.calibrate import (
    Calibration,
    bundled_calibration,
    calibrate,
    error_summary,
    frontier_configs,
)
from tokenomics.roofline.factors import (
    FITTED_FACTORS,
    RooflineFactors,
    default_factor_table,
    default_factors,
)
from tokenomics.roofline.project import (
    BAND_COLUMNS,
    DEFAULT_CONCURRENCY,
    UNCALIBRATED_BAND,
    default_config,
    project_curve,
)
from tokenomics.roofline.step import (
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
    "UNCALIBRATED_BAND",
    "Calibration",
    "RooflineFactors",
    "ServingConfig",
    "bundled_calibration",
    "calibrate",
    "decode_step_time_s",
    "default_config",
    "default_factor_table",
    "default_factors",
    "error_summary",
    "frontier_configs",
    "max_concurrency",
    "prefill_time_s",
    "project_curve",
    "roofline_points",
    "weight_bytes_per_gpu",
]
