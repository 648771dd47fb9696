"""Efficiency factors of the roofline model and the stated defaults they start from.

A roofline gives the time a step *would* take at the hardware's peak rates. Real serving engines
reach a fraction of each peak; :class:`RooflineFactors` holds those fractions and the fixed
per-step costs. They are fitted against measured curves by :func:`tokenomics.perf.calibrate`;
where a family of hardware has no measurements, the defaults in
``data/roofline/default_factors.csv`` apply (each row with its source), resolved along the chain
``family -> vendor -> global``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Final

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from tokenomics._validate import normalize_name, unknown_name_error
from tokenomics.catalog import Hardware

FITTED_FACTORS: Final[tuple[str, ...]] = (
    "hbm_bandwidth_eff_frac",
    "compute_eff_frac",
    "dense_compute_eff_frac",
    "prefill_compute_eff_frac",
    "comm_eff_frac",
    "layer_latency_s",
    "kv_read_eff_frac",
)
"""Factors that :func:`~tokenomics.perf.calibrate` fits; the others stay at their default."""

SWITCHES: Final[tuple[str, ...]] = ("operator_tables", "kv_read_tables", "sequential_prefill", "split_attention")
"""Boolean model choices of :class:`RooflineFactors` (not numbers: neither fitted nor in the
factor tables)."""


class RooflineFactors(BaseModel):
    """Achieved fractions of peak rates and fixed costs of one hardware family.

    Attributes
    ----------
    hbm_bandwidth_eff_frac : float
        Achieved fraction of peak HBM bandwidth when streaming weights and KV cache, (0, 1].
    compute_eff_frac : float
        Achieved fraction of peak dense FLOP/s in the decode steps of mixture-of-experts models,
        (0, 1].
    dense_compute_eff_frac : float
        The same for dense models (every layer a dense FFN), (0, 1]. Fitted apart: an MoE
        decode step also routes, permutes and runs grouped GEMMs at a few tokens per expert,
        which measured kernel tables put far below a dense GEMM at ``M`` = batch
        (``data/perf/operator_efficiency.csv``); one shared efficiency fitted on MoE points
        under-projects dense serving several-fold.
    prefill_compute_eff_frac : float
        Achieved fraction of peak dense FLOP/s in prefill, (0, 1].
    comm_eff_frac : float
        Achieved fraction of the one-way scale-up (or scale-out) link bandwidth in collectives,
        (0, 1].
    step_overhead_s : float
        Fixed time per decode step outside its kernels: scheduling and sampling gaps [s], >= 0.
        0 by default (overlap schedulers hide the CPU side, ``data/roofline/default_factors.csv``).
    layer_latency_s : float
        Fixed time per dense GQA layer per decode step: kernel launches and small-kernel
        latency that no bandwidth or FLOP rate explains (dominant at batch 1) [s], >= 0.
        Other layers cost it in proportion to their kernel count
        (:func:`tokenomics.perf.step.layer_kernel_units`).
    collective_latency_s : float
        Latency of one collective (all-reduce, all-to-all) [s], >= 0.
    usable_hbm_frac : float
        Fraction of HBM capacity available to weights and KV cache, (0, 1].
    kv_read_eff_frac : float
        Large-batch rate of decode attention's KV-cache reads relative to weight streaming
        (``hbm_bandwidth_eff_frac``), (0, 1]: paged KV blocks of a few KB per sequence and head
        are read in smaller, scattered transfers than a weight matrix. KV bytes stream at
        ``hbm_bandwidth_eff_frac x kv_read_eff_frac`` of peak (below that at few sequences or
        short contexts with ``kv_read_tables``).
    operator_tables : bool
        Price GEMM FLOPs (dense, by tokens per step; grouped MoE, by tokens per expert),
        attention FLOPs and collectives with the measured operator tables of
        :mod:`tokenomics.perf.operators`; ``compute_eff_frac``, ``prefill_compute_eff_frac``
        and ``comm_eff_frac`` are then residual multipliers of the measured rates and
        ``collective_latency_s`` is replaced by the measured latencies. Default ``False``:
        one efficiency per peak rate (the plain roofline), which held out better on the
        bundled measurements (``benchmarks/validate_roofline.py`` prints both).
    kv_read_tables : bool
        Read decode attention's KV cache at the measured fraction of the large-batch rate that
        few sequences or short contexts reach (:func:`tokenomics.perf.operators.kv_read_frac`);
        ``hbm_bandwidth_eff_frac x kv_read_eff_frac`` is then the large-batch rate. Default
        ``True``; ``False`` streams every KV byte at that rate.
    sequential_prefill : bool
        Aggregated serving: charge the chunked-prefill share a decode step carries after the
        step's decode work, ``max(t_compute, t_memory) + t_prefill_chunk`` (prefill and decode
        as separate forward passes). Default ``False``: its FLOPs run under the step's weight
        and KV reads, ``max(t_compute + t_prefill_chunk, t_memory)`` (one mixed batch;
        :mod:`tokenomics.perf.step`). Refitted with ``True``, the fixed-sequence held-out
        errors fall and the agentic ones rise (``benchmarks/validate_roofline.py`` prints it).
    split_attention : bool
        Decode attention as an operator of its own, bound by its FLOPs or its KV reads apart
        from the matrix multiplies: ``max(t_GEMM, t_weights) + max(t_attention, t_KV)``
        (default ``True``). ``False``: one roofline over the step's summed FLOPs and bytes,
        ``max(t_GEMM + t_attention, t_weights + t_KV)``, which lets attention's KV reads run
        under the GEMMs' compute (:mod:`tokenomics.perf.step`); it held out worse on the
        bundled measurements (``benchmarks/validate_roofline.py`` prints both).
    source : str
        Where the values came from (``"default"``, ``"calibrated: family blackwell, 42
        points"``, ``"inherited from vendor nvidia"``...).

    Examples
    --------
    >>> RooflineFactors().hbm_bandwidth_eff_frac <= 1.0
    True
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    hbm_bandwidth_eff_frac: float = Field(0.75, gt=0.0, le=1.0, allow_inf_nan=False)
    compute_eff_frac: float = Field(0.163, gt=0.0, le=1.0, allow_inf_nan=False)
    dense_compute_eff_frac: float = Field(0.4, gt=0.0, le=1.0, allow_inf_nan=False)
    prefill_compute_eff_frac: float = Field(0.5, gt=0.0, le=1.0, allow_inf_nan=False)
    comm_eff_frac: float = Field(0.7, gt=0.0, le=1.0, allow_inf_nan=False)
    step_overhead_s: float = Field(0.0, ge=0.0, allow_inf_nan=False)
    layer_latency_s: float = Field(5e-5, ge=0.0, allow_inf_nan=False)
    collective_latency_s: float = Field(1e-5, ge=0.0, allow_inf_nan=False)
    usable_hbm_frac: float = Field(0.85, gt=0.0, le=1.0, allow_inf_nan=False)
    kv_read_eff_frac: float = Field(1.0, gt=0.0, le=1.0, allow_inf_nan=False)
    operator_tables: bool = Field(False, strict=True)
    kv_read_tables: bool = Field(True, strict=True)
    sequential_prefill: bool = Field(False, strict=True)
    split_attention: bool = Field(True, strict=True)
    source: str = "default"

    @classmethod
    def ideal(cls) -> RooflineFactors:
        """Return factors of a perfect machine: every efficiency 1, no fixed costs.

        Returns
        -------
        RooflineFactors
            For hand calculations and upper bounds.

        Examples
        --------
        >>> RooflineFactors.ideal().step_overhead_s
        0.0
        """
        return cls(
            hbm_bandwidth_eff_frac=1.0,
            compute_eff_frac=1.0,
            dense_compute_eff_frac=1.0,
            prefill_compute_eff_frac=1.0,
            comm_eff_frac=1.0,
            step_overhead_s=0.0,
            layer_latency_s=0.0,
            collective_latency_s=0.0,
            usable_hbm_frac=1.0,
            kv_read_eff_frac=1.0,
            operator_tables=False,
            kv_read_tables=False,
            sequential_prefill=False,
            split_attention=False,
            source="ideal",
        )


def _factors_path() -> Path:
    from tokenomics.catalog import data_dir

    return data_dir() / "roofline" / "default_factors.csv"


@functools.cache
def default_factor_table() -> pd.DataFrame:
    """Return the stated default factors with their sources.

    Returns
    -------
    pandas.DataFrame
        Columns ``scope, parameter, value, unit, source, as_of, confidence, note``; ``scope`` is
        ``global``, ``vendor:<vendor>`` or ``family:<family>`` (lower case).

    Raises
    ------
    KeyError
        If a row names a parameter that :class:`RooflineFactors` does not have.
    """
    table = pd.read_csv(_factors_path(), dtype={"scope": str, "parameter": str})
    known = set(RooflineFactors.model_fields) - {"source", *SWITCHES}
    for name in table["parameter"]:
        if name not in known:
            raise unknown_name_error("roofline factor", name, known)
    table["scope"] = table["scope"].str.lower()
    return table


def scope_chain(hardware: Hardware) -> tuple[str, ...]:
    """Return the lookup chain of a hardware entry: family, vendor, global.

    Parameters
    ----------
    hardware : Hardware
        Catalog hardware.

    Returns
    -------
    tuple of str
        E.g. ``("family:blackwell", "vendor:nvidia", "global")``.

    Examples
    --------
    >>> import tokenomics as tk
    >>> scope_chain(tk.hardware("h100"))
    ('family:hopper', 'vendor:nvidia', 'global')
    """
    return (
        f"family:{normalize_name(hardware.family)}",
        f"vendor:{normalize_name(hardware.vendor)}",
        "global",
    )


def default_factors(hardware: Hardware | None = None) -> RooflineFactors:
    """Return the stated default factors for a hardware entry (no calibration).

    Each factor is taken from the most specific scope that states it: the hardware's family,
    then its vendor, then the global row.

    Parameters
    ----------
    hardware : Hardware, optional
        Catalog hardware; ``None`` returns the global defaults.

    Returns
    -------
    RooflineFactors
        With ``source`` naming the scopes used.

    Examples
    --------
    >>> import tokenomics as tk
    >>> default_factors(tk.hardware("tpu-v7")).collective_latency_s
    2e-05
    """
    chain = scope_chain(hardware) if hardware is not None else ("global",)
    return _defaults_for_chain(chain)


@functools.cache
def _defaults_for_chain(chain: tuple[str, ...]) -> RooflineFactors:
    table = default_factor_table()
    values: dict[str, float] = {}
    used: set[str] = set()
    for scope in reversed(chain):
        rows = table[table["scope"] == scope]
        for name, value in zip(rows["parameter"], rows["value"], strict=True):
            values[str(name)] = float(value)
            used.add(scope)
    label = ", ".join(s for s in chain if s in used)
    return RooflineFactors.model_validate({**values, "source": f"default ({label})"})
