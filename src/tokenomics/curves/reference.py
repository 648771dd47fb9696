"""The throughput curve of a model on a system: measured where bundled, else projected."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from tokenomics import catalog
from tokenomics.catalog import Hardware, Model
from tokenomics.curves.curve import ThroughputCurve
from tokenomics.curves.measured import curves
from tokenomics.perf.hierarchy import check_kv_offload
from tokenomics.perf.project import project_curve
from tokenomics.perf.sessions import project_session_curve
from tokenomics.workload import Workload, workload

__all__ = ["MEASURED_GROUP_COLUMNS", "reference_curve"]

MEASURED_GROUP_COLUMNS: tuple[str, ...] = ("precision", "framework", "spec_decoding", "disaggregated")
"""One serving configuration of measured points (InferenceX's frontier grouping)."""


def reference_curve(
    model: Model | str,
    hardware: Hardware | str,
    *,
    workload: Workload | str | None = None,
    interactivity_tok_per_s_per_user: float | None = None,
    kv_offload: str = "none",
) -> tuple[ThroughputCurve, pd.DataFrame]:
    """Throughput curve of a model on a system: measured where bundled, else projected.

    Measured points are never interpolated across serving configurations: the bundled points
    (:func:`tokenomics.curves.measured.curves`, ``kind="measured"``) of the workload
    (:attr:`tokenomics.Workload.curve_label`, e.g. ``"8k/1k"``) are grouped by
    :data:`MEASURED_GROUP_COLUMNS`, and a group is usable when its Pareto frontier has at least
    two points. With ``interactivity_tok_per_s_per_user`` the usable group that covers it with
    the highest throughput there is taken; when none covers it (or none is usable) the
    calibrated roofline projection (:func:`tokenomics.perf.project.project_curve`,
    best-practice parallelism and precision) at the workload's ISL/OSL is returned, with its
    band. Without an interactivity, the usable group with the most frontier points (then the
    highest peak throughput) is taken.

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name or alias).
    hardware : Hardware or str
        Catalog hardware (or its name or alias).
    workload : Workload or str, optional
        The traffic (default :data:`tokenomics.workload.DEFAULT_WORKLOAD`).
    interactivity_tok_per_s_per_user : float, optional
        The interactivity the curve will be read at [tok/s/user].
    kv_offload : {"none", "dram", "ssd"}, default "none"
        Tiers below HBM that keep evicted session prefixes (session workloads only; the
        projection then uses :func:`tokenomics.perf.hierarchy.kv_offload_tiers`).

    Returns
    -------
    (ThroughputCurve, pandas.DataFrame)
        The curve (``kind`` "measured" or "projected") and the points it was built from (the
        measured group's points, or every projected point with its band columns).

    Raises
    ------
    KeyError
        Unknown model, hardware or workload.
    ValueError
        No usable measured group and the roofline cannot place the model on the system (the
        weights do not fit).

    Examples
    --------
    >>> curve, points = reference_curve("deepseek-r1", "gb200", interactivity_tok_per_s_per_user=50)
    >>> curve.kind in ("measured", "projected")
    True
    """
    m = catalog.model(model) if isinstance(model, str) else model
    hw = catalog.hardware(hardware) if isinstance(hardware, str) else hardware
    wl = _workload(workload)
    mode = check_kv_offload(kv_offload, wl)
    try:
        measured = curves(model=m.model_id, hardware=hw.hardware_id, kind="measured", workload=wl.curve_label)
    except ValueError:
        measured = pd.DataFrame()
    if len(measured) and "kv_offload" in measured.columns:
        # measured runs with another offload mode measure another system configuration
        measured = measured[measured["kv_offload"].fillna("none").astype(str) == mode]
    groups: list[tuple[ThroughputCurve, pd.DataFrame]] = []
    if len(measured):
        for _, group in measured.groupby(list(MEASURED_GROUP_COLUMNS), dropna=False, sort=True):
            try:
                curve = ThroughputCurve.from_points(group, allow_mixed_groups=True)
            except ValueError:
                continue  # e.g. no point with both a total throughput and an interactivity
            if len(curve) >= 2:
                groups.append((curve, group))
    x = interactivity_tok_per_s_per_user
    if x is not None:
        covering = [(c, g) for c, g in groups if bool(c.in_range(x))]
        if covering:
            return max(covering, key=lambda cg: float(cg[0].throughput_at(x)))
    elif groups:
        return max(groups, key=lambda cg: (len(cg[0]), float(np.nanmax(cg[1]["throughput_tok_per_s_per_gpu"]))))
    # session traffic: realized prefix-cache hits, KV-bounded concurrency, queueing
    projected = (project_curve(m, hw, workload=wl) if wl.is_fixed
                 else project_session_curve(m, hw, wl, kv_offload=mode))
    return ThroughputCurve.from_points(projected, allow_mixed_groups=True), projected


def _workload(value: Any) -> Workload:
    return workload(value)
