"""Calibrated roofline projection of decode and prefill for hardware nobody has measured.

Physics in :mod:`tokenomics.perf.step`, efficiency factors in
:mod:`tokenomics.perf.factors`, fitting against measured curves in
:mod:`tokenomics.perf.calibrate` and curve sweeps in :mod:`tokenomics.perf.project`;
disaggregated plans (prefill and decode pools on their own hardware) in
:mod:`tokenomics.perf.disagg`, published speculative-decoding acceptance rates in
:mod:`tokenomics.perf.speculative`.
"""

from __future__ import annotations

from tokenomics.perf.calibrate import (
    REGENERATE_COMMAND,
    Calibration,
    bundled_calibration,
    calibrate,
    calibrated_factors_path,
    calibration_points,
    error_summary,
    frontier_configs,
    load_calibration,
    projection_errors,
    write_calibrated_factors,
)
from tokenomics.perf.configs import (
    DEFAULT_CONCURRENCY,
    PRECISION_RULE,
    UNCALIBRATED_BAND,
    best_practice_precisions,
    config_label,
    default_config,
)
from tokenomics.perf.disagg import (
    Pool,
    ServingPlan,
    best_prefill_config,
    cheapest_at,
    closed_loop_points,
    decode_configs,
    plan_cost_per_mtok,
    plan_points,
    prefill_configs,
    project_disagg_curve,
    vera_rubin_nvl144_cpx,
)
from tokenomics.perf.factors import (
    FITTED_FACTORS,
    RooflineFactors,
    default_factor_table,
    default_factors,
)
from tokenomics.perf.project import BAND_COLUMNS, SEARCH_RULE, aggregated_configs, project_curve
from tokenomics.perf.sessions import (
    DEFAULT_SESSIONS,
    cached_token_cost_ratio,
    default_sessions,
    project_session_curve,
    session_points,
)
from tokenomics.perf.speculative import SPECULATIVE_SETTINGS, SpeculativeSetting, speculative_settings
from tokenomics.perf.step import (
    DEFAULT_PREFILL_CHUNK_TOKENS,
    ServingConfig,
    chunked_prefill_time_s,
    decode_step_time_s,
    kv_capacity_tokens,
    max_concurrency,
    prefill_time_s,
    roofline_points,
    weight_bytes_per_gpu,
)

__all__ = [
    "BAND_COLUMNS",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_PREFILL_CHUNK_TOKENS",
    "DEFAULT_SESSIONS",
    "FITTED_FACTORS",
    "PRECISION_RULE",
    "REGENERATE_COMMAND",
    "SEARCH_RULE",
    "SPECULATIVE_SETTINGS",
    "UNCALIBRATED_BAND",
    "Calibration",
    "Pool",
    "RooflineFactors",
    "ServingConfig",
    "ServingPlan",
    "SpeculativeSetting",
    "aggregated_configs",
    "best_practice_precisions",
    "best_prefill_config",
    "bundled_calibration",
    "cached_token_cost_ratio",
    "calibrate",
    "calibrated_factors_path",
    "calibration_points",
    "cheapest_at",
    "chunked_prefill_time_s",
    "closed_loop_points",
    "config_label",
    "decode_configs",
    "decode_step_time_s",
    "default_config",
    "default_factor_table",
    "default_factors",
    "default_sessions",
    "error_summary",
    "frontier_configs",
    "kv_capacity_tokens",
    "load_calibration",
    "max_concurrency",
    "plan_cost_per_mtok",
    "plan_points",
    "prefill_configs",
    "prefill_time_s",
    "project_curve",
    "project_disagg_curve",
    "project_session_curve",
    "projection_errors",
    "roofline_points",
    "session_points",
    "speculative_settings",
    "vera_rubin_nvl144_cpx",
    "weight_bytes_per_gpu",
    "write_calibrated_factors",
]
