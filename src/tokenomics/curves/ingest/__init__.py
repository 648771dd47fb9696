"""Readers for benchmark results: InferenceX, AgentX, power, MLPerf, AIConfigurator and AIPerf.

Every reader returns one tidy table of curve points conformed to
:data:`tokenomics.curves.schema.CURVE_COLUMNS`. :func:`read_results` detects the format of one file;
:func:`read_results_dir` reads a whole directory and reports every file it skipped, and why.
"""

from __future__ import annotations

from tokenomics.curves.ingest._common import (
    ArgumentConflictError,
    IngestError,
    resolve_hardware_name,
    resolve_model_name,
)
from tokenomics.curves.ingest.agentx import read_agentx
from tokenomics.curves.ingest.aiconfigurator import read_aiconfigurator
from tokenomics.curves.ingest.aiperf import read_aiperf, read_genai_perf
from tokenomics.curves.ingest.directory import (
    ReadResult,
    detect_format,
    drop_duplicate_points,
    read_results,
    read_results_dir,
)
from tokenomics.curves.ingest.inferencex import per_gpu_throughput, read_inferencex
from tokenomics.curves.ingest.mlperf import MLPERF_LATENCY_LIMITS_MS, read_mlperf, read_mlperf_log
from tokenomics.curves.ingest.power import joules_per_token, read_power_baseline, tok_per_s_per_kw

__all__ = [
    "MLPERF_LATENCY_LIMITS_MS",
    "ArgumentConflictError",
    "IngestError",
    "ReadResult",
    "detect_format",
    "drop_duplicate_points",
    "joules_per_token",
    "per_gpu_throughput",
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
    "resolve_hardware_name",
    "resolve_model_name",
    "tok_per_s_per_kw",
]
