"""tokenomics: LLM inference economics.

Sourced catalogs of accelerators, TCO inputs, API prices and model architectures; TCO per
accelerator-hour; measured and projected throughput-vs-interactivity curves; cost per million
tokens, revenue, license fees and gross margin.

Examples
--------
>>> import tokenomics as tk
>>> tk.hardware("GB200 NVL72").hbm_capacity_gb > 0
True
"""

from __future__ import annotations

from tokenomics._version import __version__

__all__: list[str] = ["__version__"]

# --- catalogs ---------------------------------------------------------------------------------
from tokenomics.catalog import (
    CatalogError,
    add_catalog_file,
    hardware,
    hardware_table,
    model,
    model_table,
    price,
    price_table,
    published_tco,
    published_tco_table,
    reset_catalogs,
    tco_inputs,
    tco_profile,
    tco_profile_table,
    tco_table,
)

__all__ += [
    "CatalogError",
    "add_catalog_file",
    "hardware",
    "hardware_table",
    "kv_cache_bytes_per_sequence",
    "kv_cache_bytes_per_token",
    "model",
    "model_table",
    "price",
    "price_table",
    "published_tco",
    "published_tco_table",
    "reset_catalogs",
    "tco_inputs",
    "tco_profile",
    "tco_profile_table",
    "tco_table",
]

from tokenomics.memory.kv_cache import kv_cache_bytes_per_sequence, kv_cache_bytes_per_token  # noqa: E402

# --- workload ------------------------------------------------------------------------------------
# (section: workload)
from tokenomics.workload import DEFAULT_WORKLOAD, Workload, register_workload, workload, workload_names  # noqa: E402

__all__ += ["DEFAULT_WORKLOAD", "Workload", "register_workload", "workload", "workload_names"]

# --- finance, TCO and unit economics ------------------------------------------------------------
# (section: economics)
from tokenomics.analysis.scenario import Scenario, sweep  # noqa: E402
from tokenomics.cost.finance import (  # noqa: E402
    annuity_usd_per_year,
    capital_recovery_factor,
    cost_of_capital_usd_per_year,
    present_value_factor,
    straight_line_depreciation_usd_per_year,
)
from tokenomics.cost.tco import (  # noqa: E402
    DEFAULT_TCO_BASIS,
    TcoBasis,
    TcoResult,
    itemised_tco_usd_per_gpu_hour,
    tco,
    tco_basis,
    tco_comparison_table,
)
from tokenomics.economics import (  # noqa: E402
    CostSplit,
    InferencexCost,
    LicenseFee,
    TokenMix,
    attribute_cost_per_mtok,
    blended_price_usd_per_mtok,
    breakeven_cost_usd_per_gpu_hour,
    breakeven_license_fee_frac,
    breakeven_price_usd_per_mtok,
    breakeven_utilization_frac,
    cost_per_mtok,
    cost_split_per_mtok,
    gross_margin_frac,
    inferencex_cost_per_mtok,
    input_share_frac_from_tokens,
    license_fee_usd_per_gpu_hour,
    profit_usd_per_gpu_hour,
    profit_usd_per_gpu_year,
    profit_usd_per_mw_year,
    revenue_usd_per_gpu_hour,
    served_mtok_per_gpu_hour,
    usd_per_gpu_year,
    usd_per_mw_year,
)
from tokenomics.economics.policy import LICENSED_MODEL_FEE_FRAC, default_license_fee_frac  # noqa: E402

__all__ += [
    "DEFAULT_TCO_BASIS",
    "LICENSED_MODEL_FEE_FRAC",
    "CostSplit",
    "InferencexCost",
    "LicenseFee",
    "Scenario",
    "TcoBasis",
    "TcoResult",
    "TokenMix",
    "annuity_usd_per_year",
    "attribute_cost_per_mtok",
    "blended_price_usd_per_mtok",
    "breakeven_cost_usd_per_gpu_hour",
    "breakeven_license_fee_frac",
    "breakeven_price_usd_per_mtok",
    "breakeven_utilization_frac",
    "capital_recovery_factor",
    "cost_of_capital_usd_per_year",
    "cost_per_mtok",
    "cost_split_per_mtok",
    "default_license_fee_frac",
    "gross_margin_frac",
    "inferencex_cost_per_mtok",
    "input_share_frac_from_tokens",
    "itemised_tco_usd_per_gpu_hour",
    "license_fee_usd_per_gpu_hour",
    "present_value_factor",
    "profit_usd_per_gpu_hour",
    "profit_usd_per_gpu_year",
    "profit_usd_per_mw_year",
    "revenue_usd_per_gpu_hour",
    "served_mtok_per_gpu_hour",
    "straight_line_depreciation_usd_per_year",
    "sweep",
    "tco",
    "tco_basis",
    "tco_comparison_table",
    "usd_per_gpu_year",
    "usd_per_mw_year",
]

# --- ingest and curves ----------------------------------------------------------------------------
# (section: curves)
from tokenomics.curves.curve import ThroughputCurve, cost_curve  # noqa: E402
from tokenomics.curves.frontier import config_envelope, pareto_frontier, pareto_mask  # noqa: E402
from tokenomics.curves.ingest import (  # noqa: E402
    IngestError,
    ReadResult,
    read_agentx,
    read_aiconfigurator,
    read_aiperf,
    read_genai_perf,
    read_inferencex,
    read_mlperf,
    read_mlperf_log,
    read_power_baseline,
    read_results,
    read_results_dir,
)
from tokenomics.curves.measured import curves  # noqa: E402
from tokenomics.curves.reference import reference_curve  # noqa: E402

__all__ += [
    "IngestError",
    "ReadResult",
    "ThroughputCurve",
    "config_envelope",
    "cost_curve",
    "curves",
    "pareto_frontier",
    "pareto_mask",
    "read_agentx",
    "read_aiconfigurator",
    "read_aiperf",
    "read_genai_perf",
    "read_inferencex",
    "read_mlperf",
    "read_mlperf_log",
    "read_power_baseline",
    "read_results",
    "read_results_dir",
    "reference_curve",
]

# --- roofline projection --------------------------------------------------------------------------
# (section: roofline)
from tokenomics.perf import (  # noqa: E402
    Calibration,
    RooflineFactors,
    ServingConfig,
    calibrate,
    decode_step_time_s,
    max_concurrency,
    prefill_time_s,
    project_curve,
    roofline_points,
)

__all__ += [
    "Calibration",
    "RooflineFactors",
    "ServingConfig",
    "calibrate",
    "decode_step_time_s",
    "max_concurrency",
    "prefill_time_s",
    "project_curve",
    "roofline_points",
]

# --- disaggregated serving ------------------------------------------------------------------------
# (section: disaggregated serving)
from tokenomics.perf.disagg import (  # noqa: E402
    Pool,
    ServingPlan,
    plan_cost_per_mtok,
    plan_points,
    project_disagg_curve,
    vera_rubin_nvl144_cpx,
)

__all__ += [
    "Pool",
    "ServingPlan",
    "plan_cost_per_mtok",
    "plan_points",
    "project_disagg_curve",
    "vera_rubin_nvl144_cpx",
]

# --- uncertainty, fleets and energy ----------------------------------------------------------------
# (section: uncertainty)
from tokenomics.analysis.distributions import Spread, load_spreads  # noqa: E402
from tokenomics.analysis.fleet import fleet_per_day, serving_day  # noqa: E402
from tokenomics.analysis.grid import economics_grid  # noqa: E402
from tokenomics.analysis.montecarlo import MonteCarloResult, monte_carlo  # noqa: E402
from tokenomics.analysis.plans import evaluate_plan  # noqa: E402
from tokenomics.cost.energy import energy_columns, energy_j_per_token, tok_per_s_per_mw  # noqa: E402

__all__ += [
    "MonteCarloResult",
    "Spread",
    "economics_grid",
    "energy_columns",
    "energy_j_per_token",
    "evaluate_plan",
    "fleet_per_day",
    "load_spreads",
    "monte_carlo",
    "serving_day",
    "tok_per_s_per_mw",
]

# --- agentic sessions: workload, prefix cache, session projection -------------------------------------
from tokenomics.perf.sessions import project_session_curve, session_points  # noqa: E402
from tokenomics.workload import agentic_runs, read_agentic_runs  # noqa: E402

__all__ += [
    "agentic_runs",
    "project_session_curve",
    "read_agentic_runs",
    "session_points",
]

# --- outputs ----------------------------------------------------------------------------------------
# (section: outputs)
from tokenomics.analysis.sensitivity import margin_sensitivity, margin_sobol  # noqa: E402
from tokenomics.chain import CHAIN_COLUMNS, SkippedSystemsWarning, evaluate  # noqa: E402
from tokenomics.outputs import plot  # noqa: E402
from tokenomics.outputs.compare import compare  # noqa: E402
from tokenomics.outputs.report import ReportOptions, build_report, write_report  # noqa: E402

__all__ += ["CHAIN_COLUMNS", "ReportOptions", "SkippedSystemsWarning", "build_report", "compare", "evaluate",
            "margin_sensitivity", "plot", "write_report"]
__all__ += ["margin_sobol"]

