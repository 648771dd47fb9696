"""Physical and calendar constants used throughout tokenomics.

Every conversion factor lives here, so that no module writes ``3600`` or ``1e6`` of its own.
"""

from __future__ import annotations

SECONDS_PER_HOUR: float = 3600.0
"""Seconds in one hour [s/h]."""

HOURS_PER_YEAR: float = 8760.0
"""Hours in a (non-leap) year [h/yr]; the convention of annualised TCO models."""

MONTHS_PER_YEAR: float = 12.0
"""Months in a year."""

HOURS_PER_MONTH: float = HOURS_PER_YEAR / MONTHS_PER_YEAR
"""Average hours in a month [h/month] (730)."""

TOKENS_PER_MTOK: float = 1e6
"""Tokens in one million tokens ("Mtok"), the unit of API price lists."""

W_PER_KW: float = 1e3
"""Watts per kilowatt."""

KW_PER_MW: float = 1e3
"""Kilowatts per megawatt."""

BYTES_PER_GB: float = 1e9
"""Bytes per (decimal) gigabyte; vendor HBM capacities are decimal GB."""

BYTES_PER_GIB: float = 2.0**30
"""Bytes per binary gibibyte."""

BYTES_PER_TB: float = 1e12
"""Bytes per (decimal) terabyte."""

FLOPS_PER_TFLOPS: float = 1e12
"""FLOP/s per TFLOP/s."""

SECONDS_PER_MS: float = 1e-3
"""Seconds per millisecond."""
