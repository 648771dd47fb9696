"""The memory hierarchy in serving: where engram tables live and what it does to throughput.

Engram tables kept in HBM take capacity from the KV cache (fewer concurrent sequences at long
context); kept in host DRAM, a CXL pool or local SSD they free that HBM, and the step pays
whatever part of the row fetch the layers before the engram layer do not hide
(:func:`tokenomics.memory.engram.engram_stall_s`). :func:`engram_placement` evaluates every
(placement, tier) pair for one model, system and serving configuration.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from tokenomics import catalog
from tokenomics._validate import check_numeric, check_positive, unknown_name_error
from tokenomics.catalog import Hardware, Model
from tokenomics.memory.engram import EngramConfig, engram_config, engram_stall_s
from tokenomics.memory.kv_cache import kv_cache_bytes_per_token
from tokenomics.memory.tiers import memory_tier
from tokenomics.perf.factors import RooflineFactors
from tokenomics.perf.step import (
    ServingConfig,
    _kv_divisor,
    _resolve,
    decode_step_time_s,
    kv_capacity_tokens,
    max_concurrency,
    prefill_time_s,
)
from tokenomics.units import BYTES_PER_GB
from tokenomics.workload import Workload

#: Columns of :func:`engram_placement`.
ENGRAM_PLACEMENT_COLUMNS: tuple[str, ...] = (
    "engram_layer_index",
    "tier",
    "fits",
    "table_gb_per_accelerator",
    "hbm_freed_gb_per_accelerator",
    "max_concurrency",
    "concurrency",
    "step_time_s",
    "stall_s",
    "stall_frac",
    "throughput_tok_per_s_per_gpu",
    "output_throughput_tok_per_s_per_gpu",
    "interactivity_tok_per_s_per_user",
    "note",
)


def engram_placement(
    model: Model | str,
    hardware: Hardware | str,
    engram: EngramConfig | str,
    *,
    config: ServingConfig,
    placements: Sequence[int] = (1, 2, 4, 8),
    tiers: Sequence[str] = ("hbm", "dram", "cxl", "ssd"),
    concurrency: float | None = None,
    isl_tokens: float = 8192.0,
    osl_tokens: float = 1024.0,
    factors: RooflineFactors | None = None,
) -> pd.DataFrame:
    """Decode throughput and engram stall for each placement of the tables and each tier.

    For placement ``L`` the config's first engram layer moves to ``L`` and the others keep their
    distance to it. Per accelerator of a replica of ``n`` GPUs:

    * table bytes ``= engram.table_bytes / n`` (sharded over the replica);
    * ``tier == "hbm"``: the HBM left for KV shrinks by that amount; other tiers must hold it
      (``fits``) and free it;
    * at ``c`` sequences (``concurrency``, capped at the capacity; default the capacity),
      ``stall = engram_stall_s(engram, tier, c * tokens_per_step / n, step, layers)``, output
      throughput ``c * tokens_per_step / ((step + stall) * n)`` and, as everywhere, throughput
      of input and output tokens ``output x (ISL + OSL) / OSL`` (the step carries the prompts'
      chunked prefill).

    Parameters
    ----------
    model, hardware : Model, Hardware or str
        Catalog entries (or their names).
    engram : EngramConfig or str
        The tables (e.g. ``engram_config("engram-demo").scaled_to(100e9)``, or a preset name).
    config : ServingConfig
        Parallelism and precisions of the replica.
    placements : sequence of int, default (1, 2, 4, 8)
        0-based layer indices for the first engram layer.
    tiers : sequence of str, default ("hbm", "dram", "cxl", "ssd")
        Tiers to compare; a tier the system lacks raises.
    concurrency : float, optional
        Sequences per replica (default: as many as the KV capacity holds) [count].
    isl_tokens, osl_tokens : float
        Sequence lengths that size the KV cache [tokens].
    factors : RooflineFactors, optional
        Efficiencies (default: the family's stated defaults).

    Returns
    -------
    pandas.DataFrame
        One row per (placement, tier), columns :data:`ENGRAM_PLACEMENT_COLUMNS`; a row whose
        tables do not fit the tier, or whose KV capacity holds no sequence, has ``fits=False``,
        NaN figures and the reason in ``note``.

    Raises
    ------
    KeyError
        An unknown model, system or engram preset name (close matches listed).
    ValueError
        A tier the system lacks, a placement beyond the model's layers, a non-positive concurrency.
    """
    if concurrency is not None:
        check_positive("concurrency", concurrency)
    model = catalog.model(model) if isinstance(model, str) else model
    hardware = catalog.hardware(hardware) if isinstance(hardware, str) else hardware
    engram = engram_config(engram) if isinstance(engram, str) else engram
    by_name = {name: memory_tier(hardware, name) for name in tiers}  # a tier the system lacks raises here
    n = config.num_gpus
    table_per_gpu = engram.table_bytes / n
    rows: list[dict[str, Any]] = []
    for first in placements:
        shift = int(first) - engram.layer_indices[0]
        placed = engram.placed_at(*(i + shift for i in engram.layer_indices))
        placed.check_fits(model.layers)
        for tier_name, tier in by_name.items():
            row: dict[str, Any] = {
                "engram_layer_index": int(first),
                "tier": tier_name,
                "table_gb_per_accelerator": table_per_gpu / BYTES_PER_GB,
                "hbm_freed_gb_per_accelerator": 0.0 if tier_name == "hbm" else table_per_gpu / BYTES_PER_GB,
            }
            hw = hardware
            if tier_name == "hbm":
                left_gb = hardware.hbm_capacity_gb - table_per_gpu / BYTES_PER_GB
                if left_gb <= 0:
                    need = table_per_gpu / BYTES_PER_GB
                    rows.append(_unfit(row, f"tables need {need:.1f} GB of HBM per accelerator"))
                    continue
                hw = hardware.with_values(hbm_capacity_gb=left_gb, source="HBM left after engram tables")
            elif table_per_gpu > tier.capacity_bytes:
                rows.append(_unfit(row, f"tables need {table_per_gpu / BYTES_PER_GB:.1f} GB per accelerator, "
                                        f"{tier_name} holds {tier.capacity_bytes / BYTES_PER_GB:.1f} GB"))
                continue
            try:
                cap = max_concurrency(model, hw, isl_tokens=isl_tokens, osl_tokens=osl_tokens,
                                      config=config, factors=factors)
            except ValueError as err:
                rows.append(_unfit(row, str(err)))
                continue
            if cap < 1:
                rows.append(_unfit(row, "KV capacity holds no sequence"))
                continue
            c = float(cap if concurrency is None else min(concurrency, cap))
            step = float(decode_step_time_s(model, hw, c, isl_tokens=isl_tokens, osl_tokens=osl_tokens,
                                            config=config, factors=factors))
            tokens = c * config.tokens_per_step / n
            stall = float(engram_stall_s(placed, tier, tokens, step, model.layers))
            output = c * config.tokens_per_step / ((step + stall) * n)
            row.update(
                fits=True,
                max_concurrency=cap,
                concurrency=c,
                step_time_s=step,
                stall_s=stall,
                stall_frac=stall / (step + stall),
                throughput_tok_per_s_per_gpu=output * (isl_tokens + osl_tokens) / osl_tokens,
                output_throughput_tok_per_s_per_gpu=output,
                interactivity_tok_per_s_per_user=config.tokens_per_step / (step + stall),
                note="",
            )
            rows.append(row)
    return pd.DataFrame(rows, columns=list(ENGRAM_PLACEMENT_COLUMNS))


def _unfit(row: dict[str, Any], why: str) -> dict[str, Any]:
    row.update(fits=False, max_concurrency=np.nan, concurrency=np.nan, step_time_s=np.nan, stall_s=np.nan,
               stall_frac=np.nan, throughput_tok_per_s_per_gpu=np.nan, output_throughput_tok_per_s_per_gpu=np.nan,
               interactivity_tok_per_s_per_user=np.nan,
               note=why)
    return row


def engram_prefill_stall_frac(
    model: Model,
    hardware: Hardware,
    engram: EngramConfig,
    tier: str,
    *,
    config: ServingConfig,
    isl_tokens: float = 8192.0,
    factors: RooflineFactors | None = None,
) -> float:
    """Share of a prefill's time spent waiting for engram rows (tables in ``tier``).

    The prompt's ``isl_tokens`` rows are fetched per accelerator as ``isl_tokens x tokens / n``
    (sharded over the replica's ``n`` GPUs); the layers before each engram layer hide
    ``prefill_time x L / layers``.

    Parameters
    ----------
    model, hardware, engram, config, factors
        As in :func:`engram_placement`.
    tier : str
        Where the tables are kept.
    isl_tokens : float, default 8192
        Prompt length of the prefill [tokens].

    Returns
    -------
    float
        ``stall / (prefill + stall)``, in [0, 1).
    """
    check_positive("isl_tokens", isl_tokens)
    step = prefill_time_s(model, hardware, isl_tokens=isl_tokens, config=config, factors=factors)
    stall = float(engram_stall_s(engram, memory_tier(hardware, tier), isl_tokens / config.num_gpus, step, model.layers))
    return stall / (step + stall)


#: KV offload modes: which tiers below HBM hold evicted prefixes.
KV_OFFLOAD_MODES: tuple[str, ...] = ("none", "dram", "ssd")

#: Share of a tier's capacity given to the offloaded KV cache. AgentX MI355X Kimi-K2.7 runs with
#: LMCache allocated 2,399 GB of the node's 3,000 GB host DRAM (0.80) (SemiAnalysisAI/InferenceX
#: @6c128cd, tp8_sweep_29337493492, 2026-08-03).
HOST_KV_FRAC: float = 0.80


def check_kv_offload(kv_offload: str, workload: Workload | None = None) -> str:
    """Return a KV offload mode in canonical form, checked against the workload it serves.

    Parameters
    ----------
    kv_offload : str
        ``"none"`` (HBM only), ``"dram"`` (HBM + host DRAM) or ``"ssd"`` (HBM + DRAM + NVMe).
    workload : Workload, optional
        The traffic; offload below HBM applies to session workloads only.

    Returns
    -------
    str
        The mode.

    Raises
    ------
    KeyError
        Unknown mode (the valid ones listed).
    ValueError
        A mode other than ``"none"`` with a fixed-sequence workload (its requests share no prefix,
        so the setting would not be used).
    """
    key = str(kv_offload).strip().lower()
    if key not in KV_OFFLOAD_MODES:
        raise unknown_name_error("kv_offload", kv_offload, KV_OFFLOAD_MODES)
    if key != "none" and workload is not None and workload.is_fixed:
        raise ValueError(
            f"kv_offload={key!r} applies to session workloads (e.g. 'agentic-coding'); workload {workload.name!r} "
            "is a fixed-sequence benchmark whose requests share no prefix: use kv_offload='none'"
        )
    return key


def check_host_kv_gb_per_gpu(hardware: Hardware, host_kv_gb_per_gpu: float, kv_offload: str) -> float:
    """Return the host DRAM given to the KV cache per accelerator, checked against the system.

    Parameters
    ----------
    hardware : Hardware
        The system; its installed host DRAM per accelerator bounds the value.
    host_kv_gb_per_gpu : float
        Host DRAM given to the KV cache per accelerator [GB], in
        [``parameter_spec("hardware", "host_memory_gb_per_accelerator").min_value``, installed].
    kv_offload : str
        The KV offload mode (:func:`check_kv_offload`); ``"none"`` keeps the KV cache in HBM.

    Returns
    -------
    float
        The value [GB].

    Raises
    ------
    ValueError
        With ``kv_offload="none"`` (the value would be ignored); a system without a host DRAM
        tier; a value that is not a finite number in the allowed range, naming the range and,
        where the value reads as TB or MB given for GB, the slip.
    """
    mode = check_kv_offload(kv_offload)
    if mode == "none":
        raise ValueError(
            f"host_kv_gb_per_gpu={host_kv_gb_per_gpu!r} sizes the host DRAM tier of the KV cache, which "
            "kv_offload='none' does not use (the KV cache stays in HBM): give kv_offload='dram' or 'ssd', "
            "or drop host_kv_gb_per_gpu"
        )
    check_numeric("host_kv_gb_per_gpu", host_kv_gb_per_gpu)
    if np.ndim(host_kv_gb_per_gpu) != 0:
        raise ValueError(f"host_kv_gb_per_gpu={host_kv_gb_per_gpu!r} must be one number [GB]")
    x = float(host_kv_gb_per_gpu)
    installed = memory_tier(hardware, "dram").capacity_bytes / BYTES_PER_GB
    spec = catalog.parameter_spec("hardware", "host_memory_gb_per_accelerator")
    low = spec.min_value if spec.min_value is not None else 0.0
    if np.isfinite(x) and low <= x <= installed:
        return x
    rng = f"[{low:g}, {installed:g}] {spec.unit}"
    what = (f"host DRAM given to the KV cache per accelerator, at most the {installed:g} GB installed on "
            f"{hardware.hardware_id}")
    if np.isnan(x):
        msg = f"host_kv_gb_per_gpu is NaN; a value in {rng} is required ({what})"
    elif np.isfinite(x) and x > installed:
        msg = (f"host_kv_gb_per_gpu={x!r} GB exceeds the {installed:g} GB of host DRAM per accelerator installed "
               f"on {hardware.hardware_id} (allowed range {rng})")
    else:
        msg = f"host_kv_gb_per_gpu={x!r} GB is outside the allowed range {rng} ({what})"
    if 0.0 < x < low <= x * 1e3 <= installed:
        msg += f"; a unit slip? {x:g} TB is {x * 1e3:g} GB"
    elif installed < x < np.inf and low <= x / 1e3 <= installed:
        msg += f"; a unit slip? {x:g} MB is {x / 1e3:g} GB"
    elif x == 0.0:
        msg += "; without a host tier use kv_offload='none'"
    if installed < x < np.inf:
        msg += ("; model more with Hardware.with_values(host_memory_gb_per_accelerator=...) and price it with "
                "tk.tco(..., extra_host_memory_gb_per_accelerator=...)")
    raise ValueError(msg)


def kv_offload_tiers(
    model: Model,
    hardware: Hardware,
    *,
    config: ServingConfig,
    factors: RooflineFactors | None = None,
    kv_offload: str = "none",
    context_tokens: float = 100_000.0,
    host_kv_gb_per_gpu: float | None = None,
) -> tuple[dict[str, float], dict[str, float]]:
    """KV capacity of each tier a replica uses for its prefix cache, and the recall time per token.

    With ``b = KV bytes per token / ranks sharing one sequence's KV`` (per accelerator):

    * ``hbm``: :func:`~tokenomics.perf.step.kv_capacity_tokens`;
    * ``dram``: ``host_kv_gb_per_gpu`` (default :data:`HOST_KV_FRAC` x host DRAM per accelerator)
      ``/ b``, recalled at ``b / (link bandwidth x link efficiency)`` per token;
    * ``ssd``: :data:`HOST_KV_FRAC` x NVMe capacity ``/ b``, recalled at ``b / NVMe bandwidth``.

    Parameters
    ----------
    model, hardware, config, factors
        As in :func:`~tokenomics.perf.step.kv_capacity_tokens`.
    kv_offload : {"none", "dram", "ssd"}, default "none"
        Tiers below HBM that hold evicted prefixes.
    context_tokens : float, default 100000
        Context at which the KV size per token is taken [tokens].
    host_kv_gb_per_gpu : float, optional
        Host DRAM given to the KV cache per accelerator [GB] (e.g. AgentX's
        ``allocated_cpu_dram_gb / GPUs``); at most the installed host DRAM.

    Returns
    -------
    (dict, dict)
        Capacity per tier [tokens per replica], fastest first; recall time per tier after HBM
        [s per token].

    Raises
    ------
    KeyError
        Unknown ``kv_offload``.
    ValueError
        A tier the system lacks, or ``host_kv_gb_per_gpu`` with ``kv_offload="none"`` or outside
        :func:`check_host_kv_gb_per_gpu`'s range.
    """
    mode = check_kv_offload(kv_offload)
    if host_kv_gb_per_gpu is not None:
        host_kv_gb_per_gpu = check_host_kv_gb_per_gpu(hardware, host_kv_gb_per_gpu, mode)
    capacities = {"hbm": kv_capacity_tokens(model, hardware, config=config, factors=factors,
                                            context_tokens=context_tokens)}
    recall: dict[str, float] = {}
    if mode == "none":
        return capacities, recall
    s = _resolve(model, hardware, config, factors)
    per_token = kv_cache_bytes_per_token(model, s.kv_precision, context_tokens=context_tokens)
    b = float(per_token) / _kv_divisor(s)
    dram = memory_tier(hardware, "dram")
    dram_bytes = (HOST_KV_FRAC * dram.capacity_bytes if host_kv_gb_per_gpu is None
                  else host_kv_gb_per_gpu * BYTES_PER_GB)
    capacities["dram"] = dram_bytes / b
    recall["dram"] = b / dram.effective_bw_bytes_per_s
    if mode == "ssd":
        ssd = memory_tier(hardware, "ssd")
        capacities["ssd"] = HOST_KV_FRAC * ssd.capacity_bytes / b
        recall["ssd"] = b / ssd.effective_bw_bytes_per_s
    return capacities, recall

