"""Memory-hierarchy comparisons across systems: KV offload curves and engram placement maps.

:func:`memory_hierarchy_tables` gathers, for a set of systems, the session projection of an
agentic workload with each KV offload mode (:func:`tokenomics.perf.sessions.project_session_curve`)
and the engram placement map (:func:`tokenomics.perf.hierarchy.engram_placement`), as tidy tables
for the report and notebooks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from tokenomics.catalog import Hardware, Model
from tokenomics.economics import cost_per_mtok
from tokenomics.memory.engram import EngramConfig
from tokenomics.memory.tiers import memory_tiers
from tokenomics.perf.hierarchy import ENGRAM_PLACEMENT_COLUMNS, KV_OFFLOAD_MODES, engram_placement
from tokenomics.perf.sessions import project_session_curve
from tokenomics.perf.step import ServingConfig
from tokenomics.workload import Workload

__all__ = ["memory_hierarchy_tables"]



def memory_hierarchy_tables(
    model: Model,
    hardware: Sequence[Hardware],
    sessions_workload: Workload,
    *,
    engram_model: Model,
    engram: EngramConfig,
    engram_concurrency: float = 1024.0,
    offload: bool = True,
    cost_usd_per_gpu_hour: Mapping[str, float] | None = None,
    utilization_frac: float = 0.6,
) -> dict[str, pd.DataFrame]:
    """Return KV offload curves and engram placement maps of several systems as tidy tables.

    Parameters
    ----------
    model : Model
        Model of the KV offload curves.
    hardware : sequence of Hardware
        Systems to compare; a system without the tiers or room for the model is left out of the
        table it cannot enter, with the reason in the ``skipped`` table.
    sessions_workload : Workload
        A session workload (``kind="sessions"``).
    engram_model : Model
        Backbone the engram tables are attached to.
    engram : EngramConfig
        The tables.
    engram_concurrency : float, default 1024
        Sequences per replica of the engram map (capped at each system's capacity).
    offload : bool, default True
        Compute the KV offload curves (False: ``memory_offload`` is empty).
    cost_usd_per_gpu_hour : mapping of str to float, optional
        TCO per system [USD/GPU-hour]; where given, both tables get ``cost_usd_per_mtok``
        (:func:`tokenomics.economics.cost_per_mtok` of their throughput at ``utilization_frac``).
    utilization_frac : float, default 0.6
        Busy fraction of paid hours for the cost column.

    Returns
    -------
    dict of str to pandas.DataFrame
        ``memory_offload`` (frontier of the session projection per system and ``kv_offload``
        mode), ``memory_engram`` (:func:`engram_placement` rows with ``hardware_id``) and
        ``memory_skipped`` (system, table, reason).

    Raises
    ------
    ValueError
        A session workload that is not ``kind="sessions"`` when offload curves are asked for, or
        an engram layer beyond ``engram_model``'s layers (other per-system failures go to
        ``memory_skipped``).
    """
    if offload and sessions_workload.is_fixed:
        raise ValueError(f"sessions_workload={sessions_workload.name!r} is a fixed-sequence workload; the KV offload "
                         "curves need session traffic (e.g. workload('agentic-coding'))")
    engram.check_fits(engram_model.layers)
    offload_rows, engram_rows, skipped = [], [], []
    cfg8 = ServingConfig(tp=8, ep=8 if engram_model.is_moe else 1, dp_attention=engram_model.is_moe,
                         weight_precision="fp8", kv_precision="fp8")
    for hw in hardware:
        for mode in KV_OFFLOAD_MODES if offload else ():
            try:
                curve = project_session_curve(model, hw, sessions_workload, kv_offload=mode, frontier=True)
            except ValueError as err:
                skipped.append({"hardware_id": hw.hardware_id, "table": f"memory_offload ({mode})", "reason": str(err)})
                continue
            offload_rows.append(curve.assign(kv_offload=mode))
        tiers = [t for t in ("hbm", "dram", "cxl", "ssd") if t in memory_tiers(hw)]
        try:
            frame = engram_placement(engram_model, hw, engram, config=cfg8, placements=(0, 1, 2, 4), tiers=tiers,
                                     concurrency=engram_concurrency)
        except ValueError as err:
            skipped.append({"hardware_id": hw.hardware_id, "table": "memory_engram", "reason": str(err)})
            continue
        frame.insert(0, "hardware_id", hw.hardware_id)
        engram_rows.append(frame)
    costs = dict(cost_usd_per_gpu_hour or {})
    for frame in (*offload_rows, *engram_rows):
        rate = frame["hardware_id"].map(costs).astype(float)
        tput = frame["throughput_tok_per_s_per_gpu"].astype(float)
        ok = rate.notna() & tput.notna() & (tput > 0)
        frame["cost_usd_per_mtok"] = float("nan")
        if ok.any():
            frame.loc[ok, "cost_usd_per_mtok"] = cost_per_mtok(rate[ok].to_numpy(), tput[ok].to_numpy(),
                                                              utilization_frac)
    cols = ["hardware_id", "kv_offload", "concurrency", "interactivity_tok_per_s_per_user",
            "throughput_tok_per_s_per_gpu", "realized_cache_hit_frac", "gpu_cache_hit_frac", "ttft_median_s",
            "recall_s", "recompute_s", "recall_link_util", "cost_usd_per_mtok", "config"]
    return {
        "memory_offload": (pd.concat(offload_rows, ignore_index=True)[cols] if offload_rows
                           else pd.DataFrame(columns=cols)),
        "memory_engram": (pd.concat(engram_rows, ignore_index=True) if engram_rows
                          else pd.DataFrame(columns=["hardware_id", *ENGRAM_PLACEMENT_COLUMNS, "cost_usd_per_mtok"])),
        "memory_skipped": pd.DataFrame(skipped, columns=["hardware_id", "table", "reason"]),
    }
