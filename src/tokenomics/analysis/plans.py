"""Disaggregated serving plans on the evaluation path: each pool at its own TCO, then the chain.

:func:`evaluate_plan` takes plan points (:mod:`tokenomics.perf.disagg`) to cost, revenue, license
fee and gross margin with :func:`tokenomics.chain.evaluate`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from tokenomics import catalog, chain
from tokenomics.catalog import Model
from tokenomics.curves.curve import check_curve_matches
from tokenomics.perf.disagg import IDENTITY_COLUMNS
from tokenomics.workload import Workload

__all__ = ["evaluate_plan"]

def _check_points_identity(points: pd.DataFrame, model_id: str, wl: Any) -> None:
    """Raise unless every row states the model and ISL/OSL, and they are ``model_id`` and the workload's.

    The comparison is :func:`~tokenomics.curves.curve.check_curve_matches` (which passes what a
    frame does not state); a session workload's mean ISL/OSL are compared as a fixed one's.
    """
    missing = [c for c in IDENTITY_COLUMNS if c not in points]
    if missing:
        raise ValueError(
            f"points lack {missing}: evaluate_plan needs the model and ISL/OSL the points were computed for, to "
            "check them against model= and workload= (plan_points, closed_loop_points and project_disagg_curve "
            "rows carry them; add them to points built by hand)"
        )
    empty = [c for c in IDENTITY_COLUMNS if points[c].isna().any()]
    if empty:
        raise ValueError(f"points have missing values in {empty}: every row must state the model and ISL/OSL "
                         "it was computed for")
    check_curve_matches(points, model_id=model_id, workload=wl, field="points")
    if not wl.is_fixed:
        check_curve_matches(points, workload=Workload(name=wl.name, isl_tokens=wl.isl_tokens,
                                                      osl_tokens=wl.osl_tokens), field="points")


def evaluate_plan(
    model: Model | str,
    points: pd.DataFrame,
    *,
    workload: Any = None,
    tco: Any = None,
    utilization_frac: Any = None,
    **chain_kwargs: Any,
) -> pd.DataFrame:
    """Run disaggregated plan points through the evaluation path, each pool at its own TCO.

    Each pool's TCO comes from the same basis (:func:`tokenomics.chain.resolve_tco`:
    itemised profile, published tier or an explicit figure); the plan's cost per GPU-hour is
    ``(N_p c_p + N_d c_d) / (N_p + N_d)`` and its facility power the same GPU-weighted mean, and
    :func:`tokenomics.chain.evaluate` then takes the throughput per GPU of both pools to cost,
    revenue, license fee and margin. ``hardware_id`` names both pools.

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name).
    points : pandas.DataFrame
        Rows of :func:`tokenomics.perf.disagg.plan_points`,
        :func:`tokenomics.perf.disagg.closed_loop_points` or
        :func:`tokenomics.perf.disagg.project_disagg_curve`; points built by hand need the pool
        columns and ``model_id``, ``isl_tokens``, ``osl_tokens``.
    workload : Workload or str, optional
        Traffic (token mix, prices), as in :func:`tokenomics.chain.evaluate`.
    tco : TcoBasis or str, optional
        TCO basis of both pools (default: the chain's default basis).
    utilization_frac : float, optional
        Busy fraction of paid hours (default: the chain's).
    **chain_kwargs
        Other :func:`tokenomics.chain.evaluate` arguments (license, prices, target margin). Not
        ``cost_usd_per_gpu_hour``, ``throughput_tok_per_s_per_gpu`` or a curve: the plan gives
        them.

    Returns
    -------
    pandas.DataFrame
        :data:`tokenomics.chain.CHAIN_COLUMNS` per point, plus ``prefill_hardware_id``,
        ``decode_hardware_id``, ``num_prefill_gpus``, ``num_decode_gpus``,
        ``prefill_cost_usd_per_gpu_hour``, ``decode_cost_usd_per_gpu_hour`` and ``config``
        where the points carry it.

    Raises
    ------
    KeyError
        Points without the pool columns, or a pool hardware without TCO inputs on the basis.
    ValueError
        Arguments the plan supplies (an explicit cost, throughput or curve); points without
        ``model_id``, ``isl_tokens`` and ``osl_tokens`` (:data:`IDENTITY_COLUMNS`); points whose
        ``model_id`` is not ``model``, or whose ISL/OSL differ from the workload's (default the
        chain's) by more than 1 % (a session workload: its mean ``isl_tokens``/``osl_tokens``, and
        its name where the points state a ``workload``), naming both.

    Examples
    --------
    >>> from tokenomics.perf.disagg import Pool, ServingConfig, ServingPlan, plan_points
    >>> plan = ServingPlan(prefill=Pool(hardware="b200", config=ServingConfig(tp=8, ep=8, kv_precision="fp8")),
    ...                    decode=Pool(hardware="h200", config=ServingConfig(tp=8, ep=8, kv_precision="fp8"),
    ...                                num_gpus=16))
    >>> pts = plan_points("deepseek-r1", plan, [32], isl_tokens=8192.0, osl_tokens=1024.0)
    >>> rows = evaluate_plan("deepseek-r1", pts, workload="8k/1k", utilization_frac=0.6)
    >>> rows["hardware_id"].iloc[0]
    'b200+h200-sxm'
    """
    clash = {"cost_usd_per_gpu_hour", "throughput_tok_per_s_per_gpu", "throughput_curve",
             "interactivity_tok_per_s_per_user", "tco_result"} & set(chain_kwargs)
    if clash:
        raise ValueError(f"{sorted(clash)}: the plan supplies its own cost per GPU-hour and throughput")
    needed = ("prefill_hardware_id", "decode_hardware_id", "num_prefill_gpus", "num_decode_gpus",
              "throughput_tok_per_s_per_gpu")
    missing = [c for c in needed if c not in points]
    if missing:
        raise KeyError(f"points lack {missing} (rows of plan_points, closed_loop_points or project_disagg_curve)")
    # points made for another model or ISL/OSL would be priced as this workload's
    model_id = (catalog.model(model) if isinstance(model, str) else model).model_id
    wl = chain.workload_of(workload)
    _check_points_identity(points, model_id, wl)
    basis = chain.resolve_tco(tco)
    n_p = points["num_prefill_gpus"].to_numpy(dtype=float)
    n_d = points["num_decode_gpus"].to_numpy(dtype=float)
    costs: dict[str, tuple[float, float]] = {}
    for h in set(points["prefill_hardware_id"]) | set(points["decode_hardware_id"]):
        if basis.kind == "explicit":
            costs[h] = (float(basis.usd_per_gpu_hour), math.nan)  # type: ignore[arg-type]
        else:
            r = basis.tco(catalog.hardware(h) if isinstance(h, str) else h)
            fac = r.facility_power_kw_per_accelerator
            costs[h] = (float(r.usd_per_gpu_hour), math.nan if fac is None else float(fac))
    c_p = points["prefill_hardware_id"].map(lambda h: costs[h][0]).to_numpy(dtype=float)
    c_d = points["decode_hardware_id"].map(lambda h: costs[h][0]).to_numpy(dtype=float)
    f_p = points["prefill_hardware_id"].map(lambda h: costs[h][1]).to_numpy(dtype=float)
    f_d = points["decode_hardware_id"].map(lambda h: costs[h][1]).to_numpy(dtype=float)
    n = n_p + n_d
    kw: dict[str, Any] = dict(chain_kwargs)
    if utilization_frac is not None:
        kw["utilization_frac"] = utilization_frac
    fac = (n_p * f_p + n_d * f_d) / n
    if np.all(np.isfinite(fac)):
        kw["facility_power_kw_per_accelerator"] = fac
    decode_hw = str(points["decode_hardware_id"].iloc[0])
    rows = chain.evaluate(model, decode_hw, workload=workload, cost_usd_per_gpu_hour=(n_p * c_p + n_d * c_d) / n,
                          throughput_tok_per_s_per_gpu=points["throughput_tok_per_s_per_gpu"].to_numpy(dtype=float),
                          **kw)
    rows["hardware_id"] = (points["prefill_hardware_id"] + "+" + points["decode_hardware_id"]).to_numpy()
    rows["interactivity_tok_per_s_per_user"] = points["interactivity_tok_per_s_per_user"].to_numpy(dtype=float)
    rows["curve_kind"] = "projected"
    rows["tco_basis"] = basis.kind
    rows["tco_profile"] = basis.profile
    rows["tco_vintage"] = basis.vintage
    rows["tco_tier"] = basis.tier
    rows["prefill_hardware_id"] = points["prefill_hardware_id"].to_numpy()
    rows["decode_hardware_id"] = points["decode_hardware_id"].to_numpy()
    rows["num_prefill_gpus"] = n_p
    rows["num_decode_gpus"] = n_d
    rows["prefill_cost_usd_per_gpu_hour"] = c_p
    rows["decode_cost_usd_per_gpu_hour"] = c_d
    if "config" in points:
        rows["config"] = points["config"].to_numpy()
    return rows
