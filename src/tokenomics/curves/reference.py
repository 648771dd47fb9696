"""The throughput curve of a model on a system: the measured envelope, the projection anchored to it."""

from __future__ import annotations

import math
import re
from collections import OrderedDict
from typing import Any

import numpy as np
import pandas as pd

from tokenomics import catalog
from tokenomics._validate import check_positive
from tokenomics.catalog import Hardware, Model
from tokenomics.curves.curve import ThroughputCurve
from tokenomics.curves.frontier import ENVELOPE_TOLERANCE_FRAC
from tokenomics.curves.measured import curves
from tokenomics.curves.schema import cache_hit_frac_of_rows, value_at
from tokenomics.perf.hierarchy import check_kv_offload
from tokenomics.perf.project import project_curve
from tokenomics.perf.sessions import project_session_curve
from tokenomics.perf.step import ServingConfig
from tokenomics.workload import Workload, workload

__all__ = ["ANCHOR_PREFERENCE", "CURVE_KINDS", "MEASURED_GROUP_COLUMNS", "anchor_at", "config_at", "curve_kind_at",
           "reference_curve"]

MEASURED_GROUP_COLUMNS: tuple[str, ...] = ("precision", "framework", "spec_decoding", "disaggregated")
"""Configuration columns every point of the measured envelope keeps (InferenceX's grouping)."""

CURVE_KINDS: tuple[str, ...] = ("measured", "anchored", "projected", "given")
"""What a chain row's throughput is: measured envelope, projection scaled to it, projection, given."""

ANCHOR_PREFERENCE: dict[str, tuple[str, ...]] = {
    "none": ("dram", "ssd"), "dram": ("ssd", "none"), "ssd": ("dram", "none"),
}
"""Measured offload modes, in order, whose measured/projected ratio anchors a never-measured mode."""

_X = "interactivity_tok_per_s_per_user"
_Y = "throughput_tok_per_s_per_gpu"
# columns proportional to throughput (scaled by the anchor ratio) and inversely proportional to it
_SCALED = ("throughput_tok_per_s_per_gpu", "input_throughput_tok_per_s_per_gpu",
           "output_throughput_tok_per_s_per_gpu", "throughput_low_tok_per_s_per_gpu",
           "throughput_high_tok_per_s_per_gpu", "throughput_tok_per_s_per_kw")
_INVERSE = ("joules_per_token", "output_joules_per_token")


def reference_curve(
    model: Model | str,
    hardware: Hardware | str,
    *,
    workload: Workload | str | None = None,
    interactivity_tok_per_s_per_user: float | None = None,
    kv_offload: str = "none",
) -> tuple[ThroughputCurve, pd.DataFrame]:
    """One throughput curve per model, system, workload and offload mode: measured, anchored projection.

    0. A fixed workload not measured as such (its ISL/OSL not a measured benchmark's, or a
       cached prefix the benchmarks' distinct prompts lack) within :data:`NEAR_WORKLOAD_FACTOR`
       of a measured benchmark's ISL and OSL: that benchmark's curve (steps 1-2) times the
       projected ratio of the two workloads, ``reference(x) x projected(x) /
       projected_benchmark(x)``, as in step 3 (rows ``"anchored"``; realized hits the
       projection's). So 8,100/1,024 stays within a few percent of the measured 8k/1k curve, and
       a cached prefix raises the measured curve by what the projection gains from it.
    1. Measured envelope: the Pareto frontier of every bundled measured point
       (:func:`tokenomics.curves.measured.curves`, ``kind="measured"``) of the model, system,
       workload (:attr:`tokenomics.Workload.curve_label`) and offload mode, across serving
       configurations and precisions (a provider deploys the best); each frontier point keeps
       its configuration columns (:data:`MEASURED_GROUP_COLUMNS`, parallelism).
    2. Outside the measured interactivity range [x_lo, x_hi], the calibrated roofline projection
       (:func:`tokenomics.perf.project.project_curve`, or
       :func:`tokenomics.perf.sessions.project_session_curve` for session traffic) scaled by the
       anchor ratio at the nearest measured end, ``r = measured(x_end) / projected(x_end)``, so
       the curve is continuous there, and its realized hits the projection's shifted by
       ``measured - projected`` at that end; where a mode with fewer KV tiers is measured nearer
       (in log interactivity; e.g. no-offload runs at light load beside offload runs at heavy
       load), that measurement carried by the projected ratio of the two modes, as in step 3.
       The union's Pareto frontier never rises with interactivity. Inside [x_lo, x_hi] the
       measured envelope is used unchanged between its knots that stay on that frontier.
    3. An offload mode never measured on a system measured in another mode
       (:data:`ANCHOR_PREFERENCE`): its projection scaled, point by point, by that mode's
       ``reference(x) / projected(x)`` (that mode's curve from steps 1-2 over its own
       projection, both read at the point's interactivity and clipped at their ends). The
       measured mode's curve is thereby carried over with only the projected difference between
       the two modes: where the two projections agree, so do the two curves. Realized hits are
       the measured mode's plus the projected difference, when the measured mode has no tier
       this one lacks (else this mode's projected hits). Every row's hits are at most its
       theoretical rate.
    4. Nothing measured: the projection. So too for an entry edited with ``with_values`` or
       built outside the catalog: the bundled measurements were taken on the catalog's entries.
    5. A mode with a tier below HBM is never below the mode one tier down (``"dram"`` above
       ``"none"``, ``"ssd"`` above ``"dram"``): a deployment with the extra tier can leave it
       unused, so the curve is ``max(own(x), lower(x))``, the lower mode's curve from steps 1-5.
       Its rows are the Pareto frontier of both curves' rows, the lower mode's measured rows
       marked ``"anchored"`` to it (``anchor_ratio`` 1).

    Row kinds: ``kind`` is ``"measured"``, ``"anchored"`` (with ``anchor_ratio`` and
    ``anchor_kv_offload``, the mode whose ratio it is) or ``"projected"``; a curve mixing
    measured and anchored knots has ``kind == "mixed"`` (read a row's kind with
    :func:`curve_kind_at`). With ``interactivity_tok_per_s_per_user`` inside the measured range of
    ``kv_offload="none"``, only the envelope is built (no projection is run).

    Parameters
    ----------
    model : Model or str
        Catalog model (or its name or alias).
    hardware : Hardware or str
        Catalog hardware (or its name or alias).
    workload : Workload or str, optional
        The traffic (default :data:`tokenomics.workload.DEFAULT_WORKLOAD`).
    interactivity_tok_per_s_per_user : float, optional
        The interactivity the curve will be read at [tok/s/user]; inside the measured range of
        ``kv_offload="none"`` the measured envelope alone is returned, else (and without it) the
        whole curve.
    kv_offload : {"none", "dram", "ssd"}, default "none"
        Tiers below HBM that keep evicted session prefixes (session workloads only; the
        projection then uses :func:`tokenomics.perf.hierarchy.kv_offload_tiers`).

    Returns
    -------
    (ThroughputCurve, pandas.DataFrame)
        The curve (``kind`` "measured", "mixed", "anchored" or "projected") and the points it
        was built from (its frontier rows; anchored rows carry the scaled band columns,
        ``anchor_ratio`` and ``anchor_kv_offload``).

    Raises
    ------
    KeyError
        Unknown model, hardware or workload.
    ValueError
        The projection is needed and the roofline cannot place the model on the system (the
        weights do not fit).

    Examples
    --------
    >>> curve, points = reference_curve("deepseek-r1", "gb200", interactivity_tok_per_s_per_user=50)
    >>> curve_kind_at(curve, 50) in ("measured", "anchored", "projected")
    True
    """
    m = catalog.model(model) if isinstance(model, str) else model
    hw = catalog.hardware(hardware) if isinstance(hardware, str) else hardware
    wl = _workload(workload)
    mode = check_kv_offload(kv_offload, wl)
    lower = _LOWER_MODE.get(mode)
    if lower is None:
        return _own_curve(m, hw, wl, mode, interactivity_tok_per_s_per_user)
    own, _ = _own_curve(m, hw, wl, mode, None)
    low, _ = reference_curve(m, hw, workload=wl, kv_offload=lower)
    carried = _as_carried(low.points, lower, mode)
    # leaving the tier unused displaces the mode's own curve only where it pays by more than the
    # curves' resolution (a measurement is not replaced by a projection within 0.5 % of it)
    x = carried["interactivity_tok_per_s_per_user"].to_numpy(dtype=float)
    own_y = np.asarray(own.throughput_at(x), dtype=float)
    pays = ~np.isfinite(own_y) | (carried["throughput_tok_per_s_per_gpu"].to_numpy(dtype=float)
                                  > own_y * (1.0 + ENVELOPE_TOLERANCE_FRAC))
    curve = _TierCurve.from_points(pd.concat([own.points, carried[pays]], ignore_index=True),
                                   allow_mixed_kinds=True, allow_mixed_groups=True)
    assert isinstance(curve, _TierCurve)
    curve.parts = (own, low)
    return curve, curve.points


def _as_catalogued(m: Model, hw: Hardware) -> bool:
    """Whether both entries are the catalog's own: measurements were taken on those, not on edits."""
    try:
        return catalog.model(m.model_id) == m and catalog.hardware(hw.hardware_id) == hw
    except KeyError:
        return False


_LOWER_MODE = {"dram": "none", "ssd": "dram"}
"""The offload mode one tier below each mode: a deployment with the extra tier can leave it unused."""


def _as_carried(points: pd.DataFrame, mode: str, upper: str) -> pd.DataFrame:
    """Rows of a lower-tier mode's curve as rows of the mode ``upper`` above it (its tier left unused).

    ``kv_offload`` becomes ``upper`` (the deployment has the tier); measured rows are anchored
    to ``mode`` at ratio 1.
    """
    out = points.copy()
    out["kv_offload"] = upper
    kinds = out["kind"].astype(str) if "kind" in out.columns else pd.Series("measured", index=out.index)
    measured = (kinds == "measured").to_numpy()
    if "anchor_kv_offload" not in out.columns:
        out["anchor_kv_offload"] = None
    if "anchor_ratio" not in out.columns:
        out["anchor_ratio"] = np.nan
    out["anchor_kv_offload"] = out["anchor_kv_offload"].astype(object)
    out.loc[measured, "anchor_kv_offload"] = mode
    out.loc[measured, "anchor_ratio"] = 1.0
    out.loc[measured, "kind"] = "anchored"
    return out


NEAR_WORKLOAD_FACTOR = 2.0
"""A fixed workload within this factor of a measured benchmark's ISL and OSL (each) is carried from
that benchmark's measured curve by the projected ratio of the two workloads (:func:`reference_curve`
step 0): the projection's absolute level misses by its held-out error, its change over a small
change of ISL/OSL far less. The benchmark's measured/projected ratio is applied with weight
``1 - (d / ln NEAR_WORKLOAD_FACTOR)^2`` (``d`` the larger of the two log length ratios): flat near the
benchmark, so the curve moves continuously from the measurement to the plain projection at this factor."""

_BENCHMARK_LABEL = re.compile(r"^(\d+)(k?)/(\d+)(k?)$")


def _label_lengths(label: str) -> tuple[float, float] | None:
    """Nominal (ISL, OSL) of a fixed-benchmark label (``"8k/1k"`` -> 8192, 1024), None for other labels."""
    hit = _BENCHMARK_LABEL.match(label)
    if hit is None:
        return None
    isl, ik, osl, ok = hit.groups()
    return float(isl) * (1024.0 if ik else 1.0), float(osl) * (1024.0 if ok else 1.0)


def _measured_rows(m: Model, hw: Hardware) -> pd.DataFrame:
    """Return every bundled measured point of a catalog model on a catalog system (empty for edited entries)."""
    if not _as_catalogued(m, hw):
        return pd.DataFrame()
    try:
        return curves(model=m.model_id, hardware=hw.hardware_id, kind="measured")
    except ValueError:
        return pd.DataFrame()


def _of_workload(measured: pd.DataFrame, label: str) -> pd.DataFrame:
    """Return the measured rows of one workload label (case ignored, as :func:`~tokenomics.curves.measured.curves`)."""
    if measured.empty:
        return measured
    return measured[measured["workload"].astype(str).str.lower() == label.lower()].reset_index(drop=True)


def _measured_neighbour(measured: pd.DataFrame, wl: Workload) -> tuple[Workload, float] | None:
    """Return the measured fixed benchmark a fixed workload is carried from and its log distance, or None.

    None: the workload is measured itself, or no benchmark lies near it.

    A workload measured under its own label with no cached prefix is its own curve. Otherwise the
    nearest measured benchmark among ``measured`` (the model's points on the system),
    ``d = max(|ln ISL ratio|, |ln OSL ratio|)`` below ``ln NEAR_WORKLOAD_FACTOR``, as a workload
    without cached prefix (the benchmarks send distinct prompts): the same ISL/OSL as the workload
    when it only adds a cached prefix.
    """
    if measured.empty:
        return None
    labels = sorted({str(v) for v in measured["workload"].dropna()})
    if wl.curve_label in labels and wl.cached_prefix_frac == 0.0:
        return None
    best: tuple[float, str, float, float] | None = None
    d_max = math.log(NEAR_WORKLOAD_FACTOR)
    for label in labels:
        lengths = _label_lengths(label)
        if lengths is None or _envelope(_of_workload(measured, label)) is None:
            continue  # not a fixed benchmark, or no point with a total throughput to build a curve of
        d = max(abs(math.log(wl.isl_tokens / lengths[0])), abs(math.log(wl.osl_tokens / lengths[1])))
        if d < d_max and (best is None or d < best[0]):
            best = (d, label, *lengths)
    if best is None:
        return None
    return Workload(name=best[1], isl_tokens=best[2], osl_tokens=best[3],
                    source="measured benchmark the workload is carried from"), best[0]


def _carried_workload(m: Model, hw: Hardware, wl: Workload, near: Workload, d: float,
                      mode: str) -> tuple[ThroughputCurve, pd.DataFrame]:
    """Return a fixed workload's projection carried onto a nearby measured benchmark's curve (step 0)."""
    reference, _ = _own_curve(m, hw, near, mode, None)
    projected = _project(m, hw, wl, mode)
    reference_projection = _curve(_project(m, hw, near, mode))
    weight = 1.0 - (d / math.log(NEAR_WORKLOAD_FACTOR)) ** 2
    rows = _with_knots(projected, reference.points[_X])
    ratio = _mode_ratio(reference, reference_projection, rows[_X]) ** weight
    rows = _with_hits(_anchor(rows, ratio, mode), np.full(len(rows), np.nan))
    rows["note"] = (rows["note"].fillna("").astype(str)
                    + f"; carried from the measured {near.name} curve by the projected ratio of the workloads"
                    + (f" (measured/projected ratio at weight {weight:.2f})" if weight < 1.0 else ""))
    carried = _CarriedCurve.from_points(rows, allow_mixed_groups=True)
    assert isinstance(carried, _CarriedCurve)
    carried.reference, carried.projections = reference, (_curve(projected), reference_projection)
    carried.ratio_weight = weight
    return carried, carried.points


def _own_curve(m: Model, hw: Hardware, wl: Workload, mode: str,
               interactivity_tok_per_s_per_user: float | None) -> tuple[ThroughputCurve, pd.DataFrame]:
    """Return steps 0-4 of :func:`reference_curve` for one offload mode (without the tiers below it)."""
    every = _measured_rows(m, hw)
    near = _measured_neighbour(every, wl) if wl.is_fixed else None
    if near is not None:
        return _carried_workload(m, hw, wl, *near, mode)
    measured = _of_workload(every, wl.curve_label)
    modes = (measured["kv_offload"].fillna("none").astype(str) if len(measured) and "kv_offload" in measured.columns
             else pd.Series("none", index=measured.index, dtype=object))
    envelope = _envelope(measured[modes == mode])
    if envelope is None:
        projected = _project(m, hw, wl, mode)
        for other in ANCHOR_PREFERENCE[mode]:
            if _envelope(measured[modes == other]) is None:
                continue
            other_curve, _ = _own_curve(m, hw, wl, other, None)
            other_proj = _curve(_project(m, hw, wl, other))
            rows = _with_knots(projected, other_curve.points[_X])
            anchored = _carry(rows, other_curve, other_proj, other, hits=_TIERS[other] <= _TIERS[mode])
            carried = _CarriedCurve.from_points(anchored, allow_mixed_groups=True)
            assert isinstance(carried, _CarriedCurve)
            carried.reference, carried.projections = other_curve, (_curve(projected), other_proj)
            return carried, carried.points
        return _curve(projected), projected
    lo, hi = envelope.interactivity_range
    x = interactivity_tok_per_s_per_user
    if x is not None and lo <= float(x) <= hi:
        return envelope, envelope.points
    projected = _project(m, hw, wl, mode)
    proj = _curve(projected)
    px = projected[_X].to_numpy(dtype=float)
    parts = [envelope.points]
    # beyond the mode's measured range each projected point follows the nearest measurement (in
    # log interactivity): its own mode's end ratio, or the measurement of a mode with fewer tiers
    # (the same load served without the extra tier: what the extra tier adds is the projected
    # ratio of the two modes); a mode with more tiers is not carried down, its hits and
    # throughput owe to the tier this mode lacks
    elsewhere = (px < lo) | (px > hi)
    nearest = np.where(elsewhere, _log_distance(px, lo, hi), np.inf)
    for other in ANCHOR_PREFERENCE[mode]:
        other_env = _envelope(measured[modes == other])
        if other_env is None or not elsewhere.any() or _TIERS[other] >= _TIERS[mode]:
            continue
        d = _log_distance(px, *other_env.interactivity_range)
        closer = elsewhere & (d < nearest)
        if closer.any():
            parts.append(_carry(projected[closer], other_env, _curve(_project(m, hw, wl, other)), other, hits=True))
            elsewhere &= ~closer
            nearest = np.where(elsewhere, nearest, np.inf)
    for side, edge in ((elsewhere & (px < lo), lo), (elsewhere & (px > hi), hi)):
        if side.any():
            ratio = float(envelope.throughput_at(edge)) / float(proj.throughput_at(edge, extrapolate="clip"))
            rows = _anchor(projected[side], ratio, mode)
            # hits likewise: the projection's, shifted by measured - projected at that end
            shift = _hit_at(envelope.points, np.array([edge])) - _hit_at(proj.points, np.array([edge]))
            parts.append(_with_hits(rows, cache_hit_frac_of_rows(rows) + shift))
    if len(parts) == 1:
        return envelope, envelope.points
    union = pd.concat(parts, ignore_index=True)
    curve = _AnchoredCurve.from_points(union, allow_mixed_kinds=True, allow_mixed_groups=True)
    assert isinstance(curve, _AnchoredCurve)
    # the envelope holds where its knots stay on the union's frontier (a faster carried point with
    # more tok/s/GPU serves the slower interactivities too: those knots are dropped)
    kept = curve.points.loc[curve.points["kind"].astype(str) == "measured", _X].to_numpy(dtype=float)
    if kept.size:
        curve.envelope, curve.measured_range = envelope, (float(kept.min()), float(kept.max()))
    return curve, curve.points


def curve_kind_at(curve: ThroughputCurve, interactivity_tok_per_s_per_user: Any) -> Any:
    """Return what a curve's throughput is at an interactivity: one of :data:`CURVE_KINDS` (or its kind).

    A ``"mixed"`` curve of :func:`reference_curve` is ``"measured"`` at a measured knot and
    between two neighbouring ones; elsewhere the kind of the non-measured knot beside the
    interactivity (between two such knots, the faster one's; beyond the end knots, the end
    knot's).

    Parameters
    ----------
    curve : ThroughputCurve
        A curve.
    interactivity_tok_per_s_per_user : float, array_like or pandas.Series
        Where it is read [tok/s/user].

    Returns
    -------
    str, numpy.ndarray or pandas.Series
        ``curve.kind`` for a single-kind curve, else "measured" or "anchored": a str for a
        scalar, an object array of the input's shape for an array, a Series (the input's index)
        for a Series.

    Raises
    ------
    ValueError
        If an interactivity is NaN, infinite, zero or negative.

    Examples
    --------
    >>> curve, _ = reference_curve("deepseek-r1", "b200", workload="8k/1k")
    >>> set(curve_kind_at(curve, [10.0, 50.0, 200.0])) <= {"measured", "anchored", "projected"}
    True
    """
    x = interactivity_tok_per_s_per_user
    check_positive("interactivity_tok_per_s_per_user", x)
    values = np.asarray(x.to_numpy(dtype=float) if isinstance(x, pd.Series) else x, dtype=float)
    kind = np.full(values.shape, curve.kind, dtype=object)
    if curve.kind == "mixed":
        kind = _knot_kinds(curve.points, values)
    if isinstance(x, pd.Series):
        return pd.Series(kind, index=x.index, name=x.name)
    return str(kind) if kind.ndim == 0 else kind


def _knot_kinds(points: pd.DataFrame, x: np.ndarray) -> np.ndarray:
    """Kind of a mixed curve at interactivities ``x``, from the frontier knots around each.

    At a knot, its kind; between two measured knots, ``"measured"``; between a measured knot and
    another, the other's; between two others, the faster one's (the knot that serves it);
    beyond the end knots, the end knot's.
    """
    pts = points.sort_values(_X)
    kx = pts[_X].to_numpy(dtype=float)
    kk = (pts["kind"].astype(str) if "kind" in pts.columns else pd.Series("measured", index=pts.index)).to_numpy()
    flat = np.asarray(x, dtype=float).reshape(-1)
    hi = np.clip(np.searchsorted(kx, flat, side="left"), 0, len(kx) - 1)
    lo = np.clip(hi - 1, 0, len(kx) - 1)
    at = np.isclose(kx[hi], flat, rtol=1e-9, atol=0.0)
    lo = np.where(at | (flat < kx[0]), hi, lo)
    a, b = kk[lo], kk[hi]
    out = np.where(a == "measured", b, np.where(b == "measured", a, b))
    return out.astype(object).reshape(np.shape(x))


def config_at(curve: ThroughputCurve, interactivity_tok_per_s_per_user: float) -> str | None:
    """Return the serving configuration of a curve's point that serves an interactivity.

    The curve's knot at the interactivity, or the slowest knot faster than it (the curve
    interpolates between it and the next slower one): a projected knot's ``config`` label
    (parallelism, precisions, MTP), a measured knot's engine and parallelism as run.

    Parameters
    ----------
    curve : ThroughputCurve
        A curve (from :func:`reference_curve` or given).
    interactivity_tok_per_s_per_user : float
        Where it is read [tok/s/user].

    Returns
    -------
    str or None
        The label; None when the curve's points carry no configuration or the interactivity is
        beyond its fastest knot.

    Raises
    ------
    ValueError
        If the interactivity is NaN, infinite, zero or negative.

    Examples
    --------
    >>> curve, _ = reference_curve("deepseek-r1", "vr200-nvl144", workload="8k/1k")
    >>> "experts fp4" in config_at(curve, 50.0)
    True
    """
    check_positive("interactivity_tok_per_s_per_user", interactivity_tok_per_s_per_user)
    if isinstance(curve, _TierCurve) and curve.parts is not None:
        # the mode's own curve or the one a tier down, whichever sets max(own, lower) here (a tie:
        # the tier is not needed, and the lower mode's run, often a measured one, is named)
        own, lower = curve.parts
        y_own, y_low = (float(np.asarray(c.throughput_at(interactivity_tok_per_s_per_user), dtype=float))
                        for c in curve.parts)
        part = lower if np.isfinite(y_low) and not y_own > y_low * (1.0 + 1e-9) else own
        return config_at(part, interactivity_tok_per_s_per_user)
    pts = curve.points
    if _X not in pts.columns or pts.empty:
        return None
    x = pts[_X].to_numpy(dtype=float)
    faster = np.flatnonzero(x >= float(interactivity_tok_per_s_per_user) * (1.0 - 1e-9))
    if faster.size == 0:
        return None
    row = pts.iloc[int(faster[np.argmin(x[faster])])]
    label = row.get("config")
    if isinstance(label, str) and label:
        return label
    def flag(name: str) -> bool:
        v = row.get(name)
        return v is not None and not pd.isna(v) and bool(v)

    head = "disagg" if flag("disaggregated") else ""
    if not pd.isna(row.get("tp", np.nan)):
        sizes = {k: int(row[k]) for k in ("ep", "pp") if k in row.index and not pd.isna(row[k])}
        try:  # the label a projection of the same parallelism carries
            head = ServingConfig(tp=int(row["tp"]), **sizes, dp_attention=flag("dp_attention"),
                                 disaggregated=flag("disaggregated")).label
        except (ValueError, TypeError):  # a parallelism the serving model does not describe
            head = f"tp{int(row['tp'])}"
    if str(row.get("spec_decoding")) == "mtp":
        head = f"{head}-mtp" if head else "mtp"
    words = [str(w) for w in (row.get("framework"), head, row.get("precision"))
             if w is not None and not pd.isna(w) and str(w)]
    return " ".join(words) or None


def anchor_at(curve: ThroughputCurve, interactivity_tok_per_s_per_user: float) -> tuple[float, str | None]:
    """Anchor ratio and anchoring offload mode of a curve's row at an interactivity.

    Parameters
    ----------
    curve : ThroughputCurve
        A curve (from :func:`reference_curve` or given).
    interactivity_tok_per_s_per_user : float
        Where it is read [tok/s/user].

    Returns
    -------
    (float, str or None)
        ``measured / projected`` applied there and the offload mode it was measured in; (NaN,
        None) where the row is not anchored.

    Raises
    ------
    ValueError
        If the interactivity is NaN, infinite, zero or negative.
    """
    if curve_kind_at(curve, interactivity_tok_per_s_per_user) != "anchored":
        return math.nan, None
    pts = curve.points
    if "anchor_ratio" not in pts.columns:
        return math.nan, None
    anchored = pts[pts["kind"].astype(str) == "anchored"] if "kind" in pts.columns else pts
    x = float(interactivity_tok_per_s_per_user)
    ax = anchored[_X].to_numpy(dtype=float)
    row = anchored.iloc[int(np.argmin(np.abs(ax - x)))]
    mode = row.get("anchor_kv_offload")
    return float(row["anchor_ratio"]), (None if mode is None or pd.isna(mode) else str(mode))


class _AnchoredCurve(ThroughputCurve):
    """Measured envelope (its own interpolant) between its knots on the frontier, anchored projection elsewhere."""

    envelope: ThroughputCurve | None = None
    measured_range: tuple[float, float] | None = None
    """Interactivity range [tok/s/user] of the envelope's knots that stay on the curve's frontier."""

    def throughput_at(self, interactivity_tok_per_s_per_user: Any, extrapolate: Any = "nan") -> Any:
        out = super().throughput_at(interactivity_tok_per_s_per_user, extrapolate)
        if self.envelope is None or self.measured_range is None:
            return out
        lo, hi = self.measured_range
        x = np.asarray(interactivity_tok_per_s_per_user, dtype=float)
        with np.errstate(invalid="ignore"):
            inside = (x >= lo) & (x <= hi)
        if not inside.any():
            return out
        return _inside_from(inside, self.envelope.throughput_at(interactivity_tok_per_s_per_user), out)

    def interactivity_at(self, throughput_tok_per_s_per_gpu: Any, extrapolate: Any = "nan") -> Any:
        out = super().interactivity_at(throughput_tok_per_s_per_gpu, extrapolate)
        if self.envelope is None or self.measured_range is None:
            return out
        x_lo, x_hi = self.measured_range
        lo, hi = (float(self.envelope.throughput_at(x_hi)), float(self.envelope.throughput_at(x_lo)))
        y = np.asarray(throughput_tok_per_s_per_gpu, dtype=float)
        with np.errstate(invalid="ignore"):
            inside = (y >= lo) & (y <= hi)
        if not inside.any():
            return out
        return _inside_from(inside, self.envelope.interactivity_at(throughput_tok_per_s_per_gpu), out)


class _TierCurve(ThroughputCurve):
    """An offload mode's curve with the tier below it left unused: ``max(own(x), lower(x))``.

    Its points are the Pareto frontier of both curves' rows (they name the configuration and
    kind of each row); throughput and interactivity are read from the two curves exactly.
    """

    parts: tuple[ThroughputCurve, ThroughputCurve] | None = None

    def throughput_at(self, interactivity_tok_per_s_per_user: Any, extrapolate: Any = "nan") -> Any:
        out = super().throughput_at(interactivity_tok_per_s_per_user, extrapolate)  # validates the input
        if self.parts is None:
            return out
        x = interactivity_tok_per_s_per_user
        values = np.fmax(*(np.asarray(c.throughput_at(x, extrapolate), dtype=float) for c in self.parts))
        return _like_output(values, out)

    def interactivity_at(self, throughput_tok_per_s_per_gpu: Any, extrapolate: Any = "nan") -> Any:
        out = super().interactivity_at(throughput_tok_per_s_per_gpu, extrapolate)
        if self.parts is None:
            return out
        y = throughput_tok_per_s_per_gpu
        values = np.fmax(*(np.asarray(c.interactivity_at(y, extrapolate), dtype=float) for c in self.parts))
        return _like_output(values, out)


def _like_output(values: np.ndarray, template: Any) -> Any:
    """``values`` in the container of ``template`` (float, ndarray or Series)."""
    if np.ndim(template) == 0:
        return float(values)
    if isinstance(template, pd.Series):
        return pd.Series(values, index=template.index, name=template.name)
    return values


class _CarriedCurve(ThroughputCurve):
    """A never-measured offload mode: a measured mode's curve times the projected ratio of the two modes.

    ``throughput_at(x) = reference(x) x projected_mode(x) / projected_reference_mode(x)`` (the
    reference and its projection read at ``x`` clipped into the reference's range:
    :func:`_mode_ratio`), wherever the curve's own points (the anchored projection at the union
    of both curves' knots) reach; their columns (realized hits, configuration) describe it.
    """

    reference: ThroughputCurve | None = None
    projections: tuple[ThroughputCurve, ThroughputCurve] | None = None
    ratio_weight: float = 1.0
    """Exponent of the reference's measured/projected ratio (below 1 for a workload carried from a
    benchmark at a log distance, :data:`NEAR_WORKLOAD_FACTOR`)."""

    def throughput_at(self, interactivity_tok_per_s_per_user: Any, extrapolate: Any = "nan") -> Any:
        out = super().throughput_at(interactivity_tok_per_s_per_user, extrapolate)
        if self.reference is None or self.projections is None:
            return out
        x = interactivity_tok_per_s_per_user
        mode, other = self.projections
        exact = (_mode_ratio(self.reference, other, x) ** self.ratio_weight
                 * np.asarray(mode.throughput_at(x, extrapolate="clip"), dtype=float))
        reached = np.isfinite(np.asarray(out, dtype=float))
        if not reached.any():
            return out
        return _inside_from(reached, exact if np.ndim(out) else float(exact), out)


def _envelope(points: pd.DataFrame) -> ThroughputCurve | None:
    """Pareto frontier of measured points across configurations (None when none is usable)."""
    if not len(points):
        return None
    try:
        return ThroughputCurve.from_points(points, allow_mixed_groups=True)
    except ValueError:
        return None  # no point with both a total throughput and an interactivity


_PROJECTIONS: OrderedDict[tuple[Any, ...], pd.DataFrame] = OrderedDict()
"""Recent projections by catalog generation, model, system, workload (their values) and offload mode."""

PROJECTIONS_KEPT = 64
"""Projections :func:`reference_curve` keeps for the next call with the same inputs (least recent dropped)."""


def _project(m: Model, hw: Hardware, wl: Workload, mode: str) -> pd.DataFrame:
    """Return the projected rows (a copy of the kept result when the same inputs were projected before)."""
    key = (catalog.catalog_generation(), *(repr(entry.model_dump()) for entry in (m, hw, wl)), mode)
    kept = _PROJECTIONS.get(key)
    if kept is None:
        # session traffic: realized prefix-cache hits, KV-bounded concurrency, queueing
        kept = (project_curve(m, hw, workload=wl, frontier=True) if wl.is_fixed
                else project_session_curve(m, hw, wl, kv_offload=mode, frontier=True))
        _PROJECTIONS[key] = kept
        while len(_PROJECTIONS) > PROJECTIONS_KEPT:
            _PROJECTIONS.popitem(last=False)
    _PROJECTIONS.move_to_end(key)
    return kept.copy(deep=True)


def _curve(points: pd.DataFrame) -> ThroughputCurve:
    return ThroughputCurve.from_points(points, allow_mixed_groups=True)


_INTERPOLATED_SUFFIXES = ("_frac", "_ratio", "_s", "_tokens", "_gb")
"""Columns of a projected point read linearly between its neighbours at an added knot (the rest:
configuration and identity columns, taken from the nearer neighbour)."""


def _with_knots(projected: pd.DataFrame, at: pd.Series) -> pd.DataFrame:
    """Return the projection's frontier rows plus rows at interactivities ``at``.

    An added row sits on the projection's own interpolant (clipped at its ends):
    throughput-proportional columns scaled to it, fractions, ratios, times and sizes linear
    between the neighbouring frontier rows (the end row's beyond them), configuration from the
    nearer one.
    """
    proj = _curve(projected)
    front = proj.points.sort_values(_X).reset_index(drop=True)
    fx = front[_X].to_numpy(dtype=float)
    xs = np.unique(at.to_numpy(dtype=float))
    # a knot within a relative 1e-9 of a frontier row's is that row (their logs would coincide)
    near = (np.isclose(xs[:, None], fx[None, :], rtol=1e-9, atol=0.0).any(axis=1) if fx.size
            else np.zeros(xs.shape, dtype=bool))
    xs = xs[np.isfinite(xs) & (xs > 0) & ~near]
    if not xs.size:
        return front
    rows = front.iloc[np.abs(fx[None, :] - xs[:, None]).argmin(axis=1)].reset_index(drop=True)
    y_new = np.asarray(proj.throughput_at(xs, extrapolate="clip"), dtype=float)
    scale = y_new / rows[_Y].to_numpy(dtype=float)
    for name in _SCALED:
        if name in rows.columns:
            rows[name] = pd.to_numeric(rows[name], errors="coerce").to_numpy(dtype=float) * scale
    for name in _INVERSE:
        if name in rows.columns:
            rows[name] = pd.to_numeric(rows[name], errors="coerce").to_numpy(dtype=float) / scale
    for name in rows.columns:
        if name != _X and name.endswith(_INTERPOLATED_SUFFIXES) and pd.api.types.is_numeric_dtype(front[name]):
            y = pd.to_numeric(front[name], errors="coerce").to_numpy(dtype=float)
            ok = np.isfinite(y)
            rows[name] = np.interp(xs, fx[ok], y[ok]) if ok.sum() > 1 else rows[name].to_numpy(dtype=float)
    rows[_X] = xs
    return pd.concat([front, rows], ignore_index=True).sort_values(_X).reset_index(drop=True)


def _log_distance(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Return the distance of interactivities ``x`` from the range [lo, hi] in log interactivity (0 inside)."""
    return np.maximum(np.log(lo / x), 0.0) + np.maximum(np.log(x / hi), 0.0)


_TIERS = {"none": 0, "dram": 1, "ssd": 2}
"""KV tiers below HBM of each offload mode: a mode's measurement carries up to a mode with more."""


def _carry(rows: pd.DataFrame, reference: ThroughputCurve, reference_projection: ThroughputCurve,
           mode: str, *, hits: bool) -> pd.DataFrame:
    """Return projected rows of one offload mode carried onto another mode's curve.

    Throughput scaled by ``reference(x) / reference_projection(x)`` per row. With ``hits`` (the
    reference has no tier the rows' mode lacks), realized hits are the reference's plus the
    projected difference between the two modes; else the rows' own projected hits.
    """
    anchored = _anchor(rows, _mode_ratio(reference, reference_projection, rows[_X]), mode)
    if not hits:
        return _with_hits(anchored, cache_hit_frac_of_rows(anchored))
    x, own = anchored[_X].to_numpy(dtype=float), cache_hit_frac_of_rows(anchored)
    return _with_hits(anchored, _hit_at(reference.points, x) + own - _hit_at(reference_projection.points, x))


def _with_hits(rows: pd.DataFrame, hit: np.ndarray) -> pd.DataFrame:
    """Set ``realized_cache_hit_frac`` to ``hit`` in [0, the row's theoretical rate] (the row's own where NaN)."""
    own = cache_hit_frac_of_rows(rows)
    cap = (pd.to_numeric(rows["theoretical_cache_hit_frac"], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
           if "theoretical_cache_hit_frac" in rows.columns else np.full(len(rows), np.nan))
    value = np.where(np.isnan(hit), own, hit)
    rows["realized_cache_hit_frac"] = np.clip(value, 0.0, np.where(np.isnan(cap), 1.0, cap))
    return rows


def _hit_at(points: pd.DataFrame, x: np.ndarray) -> np.ndarray:
    """Return the points' hit fraction (all tiers) read linearly at interactivities ``x`` (clipped at the ends)."""
    return np.asarray(value_at(points, cache_hit_frac_of_rows(points), x), dtype=float)


def _mode_ratio(reference: ThroughputCurve, projection: ThroughputCurve, at: Any) -> np.ndarray:
    """Return reference / projected throughput of one offload mode at ``at``.

    Both are read at ``at`` clipped into the reference's interactivity range (beyond it: the ratio
    at its nearest end), the projection also clipped at its own ends.
    """
    lo, hi = reference.interactivity_range
    x = np.clip(np.asarray(at, dtype=float), lo, hi)
    ref = np.asarray(reference.throughput_at(x), dtype=float)
    return ref / np.asarray(projection.throughput_at(x, extrapolate="clip"), dtype=float)


def _anchor(points: pd.DataFrame, ratio: float | np.ndarray, mode: str) -> pd.DataFrame:
    """Projected points scaled by an anchor ratio (one, or one per point), marked ``kind="anchored"``."""
    bad = ~(np.isfinite(ratio) & (np.asarray(ratio) > 0))
    if np.any(bad):
        first = float(np.asarray(ratio).reshape(-1)[int(np.argmax(np.asarray(bad).reshape(-1)))])
        raise ValueError(f"anchor_ratio={first!r} is not a positive finite measured/projected ratio")
    out = points.copy()
    for name in _SCALED:
        if name in out.columns:
            out[name] = pd.to_numeric(out[name], errors="coerce") * ratio
    for name in _INVERSE:
        if name in out.columns:
            out[name] = pd.to_numeric(out[name], errors="coerce") / ratio
    return out.assign(kind="anchored", anchor_ratio=ratio, anchor_kv_offload=mode)


def _workload(value: Any) -> Workload:
    return workload(value)


def _inside_from(inside: np.ndarray, envelope_value: Any, spliced_value: Any) -> Any:
    """Take the measured envelope's value where ``inside``, the spliced curve's elsewhere (shape of the input)."""
    if np.ndim(spliced_value) == 0:
        return envelope_value
    values = np.where(inside, np.asarray(envelope_value, dtype=float), np.asarray(spliced_value, dtype=float))
    return _like_output(values, spliced_value)
