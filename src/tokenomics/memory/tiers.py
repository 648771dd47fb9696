"""Memory tiers an accelerator can read from: HBM, host DRAM, local NVMe SSD, a CXL pool.

Each tier is described per accelerator by its capacity, the bandwidth at which the accelerator
can read from it, the latency of one read and the smallest unit a read moves. The figures come
from the hardware catalog (``host_memory_gb_per_accelerator``, ``host_link_bw_unidir_gb_per_s``,
``host_link_latency_us``, ``nvme_*``, ``cxl_*``); a tier whose figures the catalog lacks is not
available on that system.

Reading ``n`` items of ``b`` bytes each from a tier takes

``t = latency_s + n * max(b, min_read_bytes) / (bandwidth * link_efficiency)``

bounded below by ``n / iops`` where the tier has a random-read rate (SSD).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, field_validator

from tokenomics import catalog
from tokenomics._validate import check_nonnegative, check_positive, check_range, unknown_name_error
from tokenomics.catalog import Hardware
from tokenomics.units import BYTES_PER_GB, BYTES_PER_TB

TierName = Literal["hbm", "dram", "ssd", "cxl"]
TIER_NAMES: tuple[str, ...] = ("hbm", "dram", "ssd", "cxl")

#: Sustained share of a link's peak bandwidth reached by bulk transfers. NVLink-C2C measured at
#: 375 of 450 GB/s host-to-device on GH200 (HPCwire, 2024-07, "Not so simple, not so fast",
#: Swedish study of Grace Hopper memory); PCIe 5.0 x16 copies reach ~53-56 of 64 GB/s.
LINK_EFFICIENCY_FRAC: float = 0.83

#: Smallest read a gather moves: a 128-byte cache line over PCIe / NVLink-C2C / CXL, a 4 KiB
#: block from NVMe, a 64-byte sector from HBM.
_MIN_READ_BYTES = {"hbm": 64.0, "dram": 128.0, "cxl": 128.0, "ssd": 4096.0}
_HBM_LATENCY_S = 1e-6

#: Catalog fields of each tier below HBM: capacity field and its bytes per unit, read bandwidth
#: [GB/s], latency [us], random-read rate [kIOPS] (SSD only) and sustained link efficiency.
_HOST_TIERS: dict[str, tuple[str, float, str, str, str | None, float]] = {
    "dram": ("host_memory_gb_per_accelerator", BYTES_PER_GB, "host_link_bw_unidir_gb_per_s", "host_link_latency_us",
             None, LINK_EFFICIENCY_FRAC),
    "ssd": ("nvme_capacity_tb_per_accelerator", BYTES_PER_TB, "nvme_read_bw_gb_per_s_per_accelerator",
            "nvme_read_latency_us", "nvme_random_read_kiops_per_accelerator", 1.0),
    "cxl": ("cxl_memory_gb_per_accelerator", BYTES_PER_GB, "cxl_bw_gb_per_s_per_accelerator", "cxl_latency_us",
            None, LINK_EFFICIENCY_FRAC),
}


class MemoryTier(BaseModel):
    """One memory tier as seen by one accelerator.

    Parameters
    ----------
    name : {"hbm", "dram", "ssd", "cxl"}
        The tier.
    capacity_bytes : float
        Capacity per accelerator [bytes].
    read_bw_bytes_per_s : float
        Peak read bandwidth into the accelerator [bytes/s].
    latency_s : float
        Latency of one read [s].
    min_read_bytes : float
        Smallest amount one read moves [bytes].
    read_iops : float or None
        Random reads per second, where the tier has such a limit (SSD) [1/s].
    link_efficiency_frac : float
        Sustained share of ``read_bw_bytes_per_s`` reached, in (0, 1].
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: TierName
    capacity_bytes: float
    read_bw_bytes_per_s: float
    latency_s: float
    min_read_bytes: float
    read_iops: float | None = None
    link_efficiency_frac: float = 1.0

    @field_validator("capacity_bytes", "read_bw_bytes_per_s", "latency_s", "min_read_bytes")
    @classmethod
    def _positive(cls, value: float, info: Any) -> float:
        check_positive(info.field_name, value)
        return float(value)

    @field_validator("read_iops")
    @classmethod
    def _iops(cls, value: float | None, info: Any) -> float | None:
        if value is not None:
            check_positive(info.field_name, value)
        return value

    @field_validator("link_efficiency_frac")
    @classmethod
    def _efficiency(cls, value: float, info: Any) -> float:
        check_range(info.field_name, value, low=0.0, high=1.0, low_inclusive=False)
        return float(value)

    @property
    def effective_bw_bytes_per_s(self) -> float:
        """Sustained read bandwidth, ``read_bw_bytes_per_s * link_efficiency_frac`` [bytes/s]."""
        return self.read_bw_bytes_per_s * self.link_efficiency_frac

    def read_time_s(self, items: Any, item_bytes: Any) -> Any:
        """Time to read ``items`` scattered items of ``item_bytes`` each [s].

        Parameters
        ----------
        items : float or array_like
            Number of items (rows, blocks), >= 0.
        item_bytes : float or array_like
            Size of one item, > 0 [bytes].

        Returns
        -------
        float or numpy.ndarray
            ``latency_s + items * max(item_bytes, min_read_bytes) / effective bandwidth``, at
            least ``items / read_iops``; 0 where ``items`` is 0.

        Raises
        ------
        ValueError
            Negative item counts or non-positive item sizes.
        """
        check_nonnegative("items", items)
        check_positive("item_bytes", item_bytes)
        n = np.asarray(items, dtype=float)
        moved = n * np.maximum(np.asarray(item_bytes, dtype=float), self.min_read_bytes)
        t = moved / self.effective_bw_bytes_per_s
        if self.read_iops is not None:
            t = np.maximum(t, n / self.read_iops)
        out = np.where(n > 0, self.latency_s + t, 0.0)
        return float(out) if out.ndim == 0 else out


def _missing(hardware: Hardware, tier: str, fields: list[str]) -> ValueError:
    return ValueError(
        f"hardware {hardware.hardware_id!r} has no {tier!r} tier: its catalog lacks "
        f"{', '.join(fields)}; add them with tk.add_catalog_file or Hardware.with_values"
    )


def _as_hardware(hardware: Hardware | str) -> Hardware:
    return catalog.hardware(hardware) if isinstance(hardware, str) else hardware


def memory_tier(hardware: Hardware | str, name: str) -> MemoryTier:
    """Return one memory tier of a system, per accelerator.

    Parameters
    ----------
    hardware : Hardware or str
        The system: a catalog entry, or its id or alias (``"b200"``).
    name : {"hbm", "dram", "ssd", "cxl"}
        The tier.

    Returns
    -------
    MemoryTier
        Capacity, bandwidth, latency and read granularity from the catalog.

    Raises
    ------
    KeyError
        Unknown hardware or tier name (close matches listed).
    ValueError
        The system lacks the catalog figures of that tier (named in the message).
    """
    hardware = _as_hardware(hardware)
    key = str(name).strip().lower()
    if key not in TIER_NAMES:
        raise unknown_name_error("memory tier", name, TIER_NAMES)
    if key == "hbm":
        return MemoryTier(
            name="hbm",
            capacity_bytes=hardware.hbm_capacity_bytes,
            read_bw_bytes_per_s=hardware.hbm_bandwidth_bytes_per_s,
            latency_s=_HBM_LATENCY_S,
            min_read_bytes=_MIN_READ_BYTES["hbm"],
        )
    capacity, unit, bandwidth, latency, kiops, efficiency = _HOST_TIERS[key]
    fields = [capacity, bandwidth, latency] + ([kiops] if kiops else [])
    values = {f: getattr(hardware, f) for f in fields}
    missing = [f for f, v in values.items() if v is None]
    if missing:
        raise _missing(hardware, key, missing)
    return MemoryTier(
        name=key,
        capacity_bytes=float(values[capacity]) * unit,
        read_bw_bytes_per_s=float(values[bandwidth]) * BYTES_PER_GB,
        latency_s=float(values[latency]) * 1e-6,
        min_read_bytes=_MIN_READ_BYTES[key],
        read_iops=float(values[kiops]) * 1e3 if kiops else None,
        link_efficiency_frac=efficiency,
    )


def memory_tiers(hardware: Hardware | str) -> dict[str, MemoryTier]:
    """Return every tier the catalog describes for a system, fastest first.

    Parameters
    ----------
    hardware : Hardware or str
        The system: a catalog entry, or its id or alias (``"b200"``).

    Returns
    -------
    dict of str to MemoryTier
        ``"hbm"`` always; ``"dram"``, ``"cxl"`` and ``"ssd"`` where the catalog has their figures.

    Raises
    ------
    KeyError
        Unknown hardware name (close matches listed).
    """
    hardware = _as_hardware(hardware)
    out: dict[str, MemoryTier] = {}
    for name in ("hbm", "dram", "cxl", "ssd"):
        try:
            out[name] = memory_tier(hardware, name)
        except ValueError:
            continue
    return out
