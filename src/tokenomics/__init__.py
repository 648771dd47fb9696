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

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("inference-tokenomics")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0+unknown"

__all__: list[str] = ["__version__"]

# --- catalogs ---------------------------------------------------------------------------------
from tokenomics.catalog import (
    CatalogError,
    add_catalog_file,
    hardware,
    hardware_table,
    kv_cache_bytes_per_sequence,
    kv_cache_bytes_per_token,
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

# --- finance, TCO and unit economics ------------------------------------------------------------
# (section: economics)

# --- ingest and curves ----------------------------------------------------------------------------
# (section: curves)

# --- roofline projection --------------------------------------------------------------------------
# (section: roofline)

# --- outputs ----------------------------------------------------------------------------------------
# (section: outputs)

