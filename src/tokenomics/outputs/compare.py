"""Compare systems for one model: throughput, cost per Mtok, revenue and gross margin.

The chain in one call: for each system, the throughput-vs-interactivity curve (bundled measured
points where they exist at the workload, else the calibrated roofline projection), the throughput
at the chosen interactivity, the TCO per accelerator-hour, and the unit economics of
:class:`tokenomics.analysis.scenario.Scenario` at the chosen utilization, prices and license fee.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["compare", "reference_curve"]


def reference_curve(
    model: str,
    hardware: str,
    *,
    isl_tokens: float = 8192.0,
    osl_tokens: float = 1024.0,
    interactivity_tok_per_s_per_user: float | None = None,
) -> tuple[Any, pd.DataFrame]:
    """Throughput curve of a model on a system: measured where bundled, else projected.

    Measured points are never interpolated across serving configurations: the bundled points
    (:func:`tokenomics.curves.measured.curves`, ``kind="measured"``) of the workload ``ISL/OSL``
    are grouped by precision, framework, speculative decoding and disaggregation (the grouping
    of InferenceX's frontiers), and a group is usable when its Pareto frontier has at least two
    points. With ``interactivity_tok_per_s_per_user`` the usable group that covers it with the
    highest throughput there is taken; when none covers it (or none is usable) the calibrated
    roofline projection (:func:`tokenomics.perf.project.project_curve`, best-practice
    parallelism and precision) at the same ISL/OSL is returned, with its band. Without an
    interactivity, the usable group with the most frontier points (then the highest peak
    throughput) is taken.

    Parameters
    ----------
    model, hardware : str
        Catalog names or aliases.
    isl_tokens, osl_tokens : float
        Workload input and output sequence lengths [tokens].
    interactivity_tok_per_s_per_user : float, optional
        The interactivity the curve will be read at [tok/s/user].

    Returns
    -------
    (ThroughputCurve, pandas.DataFrame)
        The curve (``kind`` "measured" or "projected") and the points it was built from (the
        measured group's points, or every projected point with its band columns).

    Raises
    ------
    KeyError
        Unknown model or hardware.
    ValueError
        No usable measured group and the roofline cannot place the model on the system (the
        weights do not fit).

    Examples
    --------
    >>> curve, points = reference_curve("deepseek-r1", "gb200", interactivity_tok_per_s_per_user=50)
    >>> curve.kind, round(float(curve.throughput_at(50.0)))
    ('measured', 10000)
    """
    from tokenomics.catalog import resolve_hardware_id, resolve_model_id
    from tokenomics.curves.curve import ThroughputCurve
    from tokenomics.curves.ingest._common import workload_label
    from tokenomics.curves.measured import curves
    from tokenomics.perf.project import project_curve

    model_id, hardware_id = resolve_model_id(model), resolve_hardware_id(hardware)
    workload = workload_label(float(isl_tokens), float(osl_tokens))
    try:
        measured = curves(model=model_id, hardware=hardware_id, kind="measured", workload=workload)
    except ValueError:
        measured = pd.DataFrame()
    groups: list[tuple[Any, pd.DataFrame]] = []
    if len(measured):
        keys = ["precision", "framework", "spec_decoding", "disaggregated"]
        for _, group in measured.groupby(keys, dropna=False, sort=True):
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
    projected = project_curve(model_id, hardware_id, isl_tokens=isl_tokens, osl_tokens=osl_tokens)
    curve = ThroughputCurve.from_points(projected, allow_mixed_groups=True)
    return curve, projected


def compare(
    model: str,
    hardware: str | Sequence[str] | None = None,
    *,
    interactivity_tok_per_s_per_user: float = 50.0,
    utilization_frac: float = 0.6,
    license_fee_frac: float | None = None,
    tco_basis: str = "itemised",
    tco_vintage: str = "2026-09",
    tco_tier: str = "hyperscaler",
    tco_profile: str = "hyperscaler",
    isl_tokens: float = 8192.0,
    osl_tokens: float = 1024.0,
    cache_hit_frac: float = 0.0,
    price_provider: str | None = None,
    **prices_usd_per_mtok: float,
) -> pd.DataFrame:
    """Compare the cost and gross margin of serving one model on several systems.

    For each system: ``throughput = curve.throughput_at(interactivity)`` on the reference curve
    (:func:`reference_curve`: a measured serving configuration that covers the interactivity,
    else the calibrated roofline projection), then :meth:`tokenomics.analysis.scenario.Scenario.evaluate` with the TCO,
    prices, token mix, utilization and license fee. Cost per Mtok is
    ``usd_per_gpu_hour / (throughput x 3600 x utilization) x 1e6``; gross margin is
    ``(revenue - license - cost) / revenue``.

    Parameters
    ----------
    model : str
        Model id or alias (e.g. ``"DeepSeek-R1"``, ``"kimi-k2"``).
    hardware : str or sequence of str, optional
        System(s) to compare (ids or aliases; duplicates are dropped); default every catalog
        system.
    interactivity_tok_per_s_per_user : float
        Interactivity the throughput is read at [tok/s/user], > 0.
    utilization_frac : float
        Busy fraction of paid hours, in (0, 1].
    license_fee_frac : float, optional
        License fee as a share of revenue, in [0, 1); default 0.30 for a licensed model and 0
        for open weights (:func:`tokenomics.outputs.report.default_license_fee_frac`).
    tco_basis : {"itemised", "published"}
        Itemised TCO from the catalog's inputs and ``tco_profile`` (the default, as in
        :class:`~tokenomics.analysis.scenario.Scenario` and ``tokenomics report``), or a published
        $/GPU-hour figure (``tco_vintage``, ``tco_tier``).
    tco_vintage, tco_tier, tco_profile : str
        See :func:`tokenomics.cost.tco.tco`.
    isl_tokens, osl_tokens : float
        Workload input and output sequence lengths [tokens].
    cache_hit_frac : float
        Cached share of input tokens, in [0, 1].
    price_provider : str, optional
        Catalog provider of the list prices (first-party or cheapest by default).
    **prices_usd_per_mtok : float
        Explicit prices replacing the catalog's: ``input_usd_per_mtok``,
        ``cached_input_usd_per_mtok``, ``output_usd_per_mtok`` [USD/Mtok].

    Returns
    -------
    pandas.DataFrame
        One row per system that could be evaluated, sorted by cost per Mtok: ``curve_kind``
        (``measured`` or ``projected``), ``throughput_tok_per_s_per_gpu``, the TCO, the cost per
        Mtok in total and split by token class (the split adds up to the total), revenue,
        license fee, profit, ``gross_margin_frac`` and break-evens, with unit-suffixed columns;
        for projected rows the roofline's uncertainty band as ``throughput_low/high_tok_per_s_per_gpu``
        and ``cost_low/high_usd_per_mtok`` (NaN for measured rows).
        Systems that could not be evaluated are listed with the reason in
        ``frame.attrs["skipped"]`` (e.g. the interactivity is outside the curve's range: curves
        are never extrapolated; or the system has no TCO on the chosen basis).

    Raises
    ------
    KeyError
        Unknown model, system, TCO vintage/tier/profile or price field.
    ValueError
        Out-of-range utilization, license fee, interactivity or prices (percent hints included),
        or no system could be evaluated.

    Examples
    --------
    >>> import tokenomics as tk
    >>> table = tk.compare("deepseek-r1", ["gb200", "b200"], interactivity_tok_per_s_per_user=50)
    >>> set(table["curve_kind"]) <= {"measured", "projected"}
    True
    """
    from pydantic import ValidationError

    from tokenomics import catalog
    from tokenomics._validate import check_fraction, check_nonnegative, check_positive, unknown_name_error
    from tokenomics.analysis.scenario import Scenario
    from tokenomics.outputs.report import default_license_fee_frac

    check_positive("interactivity_tok_per_s_per_user", interactivity_tok_per_s_per_user)
    check_fraction("utilization_frac", utilization_frac, low_inclusive=False)
    check_fraction("cache_hit_frac", cache_hit_frac)
    check_positive("isl_tokens", isl_tokens)
    check_positive("osl_tokens", osl_tokens)
    if license_fee_frac is not None:
        check_fraction("license_fee_frac", license_fee_frac, high_inclusive=False)
    allowed = {"input_usd_per_mtok", "cached_input_usd_per_mtok", "output_usd_per_mtok"}
    for name, value in prices_usd_per_mtok.items():
        if name not in allowed:
            raise unknown_name_error("price field", name, allowed)
        check_nonnegative(name, value)
    model_id = catalog.resolve_model_id(model)
    fee = default_license_fee_frac(model_id) if license_fee_frac is None else license_fee_frac
    if isinstance(hardware, str):
        hardware = [hardware]
    if hardware is not None and len(hardware) == 0:
        raise ValueError("hardware is an empty list: name at least one system, or None for every system")
    names = list(hardware) if hardware is not None else [str(h) for h in catalog.hardware_table().index]
    systems = list(dict.fromkeys(catalog.resolve_hardware_id(h) for h in names))
    rows: list[pd.DataFrame] = []
    skipped: list[dict[str, str]] = []
    for hid in systems:
        try:
            curve, points = reference_curve(model_id, hid, isl_tokens=isl_tokens, osl_tokens=osl_tokens,
                                            interactivity_tok_per_s_per_user=interactivity_tok_per_s_per_user)
        except (KeyError, ValueError) as err:
            skipped.append({"hardware_id": hid, "stage": "curve", "reason": _message(err)})
            continue
        throughput = float(curve.throughput_at(interactivity_tok_per_s_per_user))
        if not math.isfinite(throughput):
            lo, hi = curve.interactivity_range
            skipped.append({"hardware_id": hid, "stage": "throughput", "reason": (
                f"{interactivity_tok_per_s_per_user:g} tok/s/user is outside the {curve.kind} curve's "
                f"range {lo:.3g}-{hi:.3g} tok/s/user (never extrapolated)")})
            continue
        try:
            row = Scenario(
                hardware=hid, model=model_id, tco_basis=tco_basis, tco_profile=tco_profile,
                tco_vintage=tco_vintage, tco_tier=tco_tier, price_provider=price_provider,
                isl_tokens=isl_tokens, osl_tokens=osl_tokens, cache_hit_frac=cache_hit_frac,
                utilization_frac=utilization_frac, throughput_tok_per_s_per_gpu=throughput,
                interactivity_tok_per_s_per_user=interactivity_tok_per_s_per_user,
                license_fee_frac=fee, **prices_usd_per_mtok,
            ).evaluate()
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "scenario"
            skipped.append({"hardware_id": hid, "stage": "economics", "reason": f"{where}: {first['msg']}"})
            continue
        except (KeyError, ValueError) as err:
            skipped.append({"hardware_id": hid, "stage": "economics", "reason": _message(err)})
            continue
        row.insert(2, "curve_kind", curve.kind)
        row.insert(3, "interactivity_tok_per_s_per_user", float(interactivity_tok_per_s_per_user))
        low, high = _band_ratios(points)
        row["throughput_low_tok_per_s_per_gpu"] = throughput * low
        row["throughput_high_tok_per_s_per_gpu"] = throughput * high
        row["cost_low_usd_per_mtok"] = row["cost_usd_per_mtok"] / high
        row["cost_high_usd_per_mtok"] = row["cost_usd_per_mtok"] / low
        rows.append(row)
    if not rows:
        reasons = "; ".join(f"{s['hardware_id']}: {s['reason']}" for s in skipped[:5])
        raise ValueError(f"no system could be evaluated for {model_id}: {reasons}")
    out = pd.concat(rows, ignore_index=True).sort_values("cost_usd_per_mtok", ignore_index=True)
    out.attrs["skipped"] = pd.DataFrame(skipped, columns=["hardware_id", "stage", "reason"])
    return out


def _band_ratios(points: pd.DataFrame) -> tuple[float, float]:
    """Return the (low, high) throughput multipliers of a projection's band; NaN for measured."""
    cols = ("throughput_low_tok_per_s_per_gpu", "throughput_high_tok_per_s_per_gpu")
    if not set(cols) <= set(points.columns):
        return math.nan, math.nan
    mid = points["throughput_tok_per_s_per_gpu"].to_numpy(dtype=float)
    ratios = [float(np.nanmedian(points[c].to_numpy(dtype=float) / mid)) for c in cols]
    return ratios[0], ratios[1]


def _message(err: BaseException) -> str:
    return str(err.args[0]) if isinstance(err, KeyError) and err.args else str(err)
