"""Compare systems for one model: throughput, cost per Mtok, revenue and gross margin.

For each system, :func:`tokenomics.chain.evaluate` runs the chain (reference curve at the
workload, throughput at the interactivity, TCO, cost, revenue, license, margin, break-evens and
the projection's band); this module resolves the names once, collects the rows and lists the
systems that could not be evaluated.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import pandas as pd

from tokenomics import catalog
from tokenomics._validate import check_fraction, check_nonnegative, check_positive, unknown_name_error
from tokenomics.chain import (
    DEFAULT_INTERACTIVITY_TOK_PER_S_PER_USER,
    DEFAULT_UTILIZATION_FRAC,
    PRICE_FIELDS,
    evaluate,
    known_price_field,
    resolve_tco,
)
from tokenomics.cost.tco import TcoBasis
from tokenomics.perf.hierarchy import check_kv_offload
from tokenomics.workload import Workload
from tokenomics.workload import workload as get_workload

__all__ = ["compare"]


def compare(
    model: str,
    hardware: str | Sequence[str] | None = None,
    *,
    workload: Workload | str | None = None,
    interactivity_tok_per_s_per_user: float = DEFAULT_INTERACTIVITY_TOK_PER_S_PER_USER,
    utilization_frac: float = DEFAULT_UTILIZATION_FRAC,
    license_fee_frac: float | None = None,
    tco: TcoBasis | str | None = None,
    tco_basis: str | None = None,
    tco_profile: str | None = None,
    tco_vintage: str | None = None,
    tco_tier: str | None = None,
    cost_usd_per_gpu_hour: float | None = None,
    price_provider: str | None = None,
    kv_offload: str = "none",
    price_tier: str = "standard",
    **prices_usd_per_mtok: float,
) -> pd.DataFrame:
    """Compare the cost and gross margin of serving one model on several systems.

    For each system, :func:`tokenomics.chain.evaluate`: ``throughput = curve.throughput_at(
    interactivity)`` on the reference curve (measured serving configuration that covers the
    interactivity at the workload, else the calibrated roofline projection), the TCO on the
    basis, ``cost_per_mtok = tco / (throughput x 3600 x utilization) x 1e6``, revenue at list
    prices and the workload's token mix, license fee, ``gross_margin = (revenue - license -
    cost) / revenue`` and break-evens.

    Parameters
    ----------
    model : str
        Model id or alias (e.g. ``"DeepSeek-R1"``, ``"kimi-k2"``).
    hardware : str or sequence of str, optional
        System(s) to compare (ids or aliases; duplicates are dropped); default every catalog
        system.
    workload : Workload or str, optional
        The traffic (default :data:`tokenomics.workload.DEFAULT_WORKLOAD`, ``"8k/1k"``).
    interactivity_tok_per_s_per_user : float, default 50
        Interactivity the throughput is read at [tok/s/user], > 0.
    utilization_frac : float, default 0.6
        Busy fraction of paid hours, in (0, 1].
    license_fee_frac : float, optional
        License fee as a share of revenue, in [0, 1); default 0.30 for a licensed model and 0
        for open weights (:func:`tokenomics.economics.policy.default_license_fee_frac`).
    tco : TcoBasis or {"itemised", "published", "explicit"}, optional
        TCO basis; default itemised with the hyperscaler profile.
    tco_basis, tco_profile, tco_vintage, tco_tier, cost_usd_per_gpu_hour : optional
        The basis by keywords, mapped by :func:`tokenomics.cost.tco.tco_basis`: a vintage or
        tier implies published, a cost [USD/GPU-hour] implies explicit; contradictions raise.
    price_provider : str, optional
        Catalog provider of the list prices (first-party or cheapest by default).
    kv_offload : {"none", "dram", "ssd"}, default "none"
        Tiers below HBM that keep evicted session prefixes (session workloads only), as in
        :func:`tokenomics.chain.evaluate`.
    price_tier : str, default "standard"
        Catalog price tier (``standard``, ``batch``, ``flex``, ``priority``, ``fast``,
        ``off-peak``); see :func:`tokenomics.price`.
    **prices_usd_per_mtok : float
        Explicit prices replacing the catalog's: ``input_usd_per_mtok``,
        ``cached_input_usd_per_mtok``, ``output_usd_per_mtok`` [USD/Mtok].

    Returns
    -------
    pandas.DataFrame
        One row per system that could be evaluated, sorted by cost per Mtok, columns
        :data:`tokenomics.chain.CHAIN_COLUMNS`. Systems that could not be evaluated are listed
        with the stage and reason in ``frame.attrs["skipped"]`` (e.g. the interactivity is
        outside the curve's range: curves are never extrapolated; or the system has no TCO on
        the chosen basis).

    Raises
    ------
    KeyError
        Unknown model, system, workload, TCO vintage/tier/profile or price field.
    ValueError
        Out-of-range utilization, license fee, interactivity or prices (percent hints
        included), contradictory TCO arguments, or no system could be evaluated.

    Examples
    --------
    >>> import tokenomics as tk
    >>> table = tk.compare("deepseek-r1", ["gb200", "b200"], interactivity_tok_per_s_per_user=50)
    >>> set(table["curve_kind"]) <= {"measured", "projected"}
    True
    """
    for name in prices_usd_per_mtok:
        if name not in PRICE_FIELDS:
            # a misspelt keyword lands here: suggest every keyword compare() takes, not only prices
            accepted = [*inspect.signature(compare).parameters][2:-1] + list(PRICE_FIELDS)
            raise unknown_name_error("compare() keyword", name, accepted)
        known_price_field(name)
    basis = resolve_tco(tco, tco_basis=tco_basis, tco_profile=tco_profile, tco_vintage=tco_vintage,
                        tco_tier=tco_tier, cost_usd_per_gpu_hour=cost_usd_per_gpu_hour)
    m = catalog.model(model)
    wl = get_workload(workload)
    mode = check_kv_offload(kv_offload, wl)
    if isinstance(hardware, str):
        hardware = [hardware]
    if hardware is not None and len(hardware) == 0:
        raise ValueError("hardware is an empty list: name at least one system, or None for every system")
    names = list(hardware) if hardware is not None else [str(h) for h in catalog.hardware_table().index]
    systems = [catalog.hardware(h) for h in dict.fromkeys(catalog.resolve_hardware_id(h) for h in names)]
    # inputs every system shares are checked up front: an error there is the caller's, not a system's
    check_positive("interactivity_tok_per_s_per_user", interactivity_tok_per_s_per_user)
    check_fraction("utilization_frac", utilization_frac, low_inclusive=False)
    if license_fee_frac is not None:
        check_fraction("license_fee_frac", license_fee_frac, high_inclusive=False)
    for name, value in prices_usd_per_mtok.items():
        check_nonnegative(name, value)
    rows: list[pd.DataFrame] = []
    skipped: list[dict[str, str]] = []
    for hw in systems:
        try:
            rows.append(evaluate(
                m, hw, workload=wl, tco=basis, interactivity_tok_per_s_per_user=interactivity_tok_per_s_per_user,
                utilization_frac=utilization_frac, license_fee_frac=license_fee_frac,
                price_provider=price_provider, price_tier=price_tier,
                input_usd_per_mtok=prices_usd_per_mtok.get("input_usd_per_mtok"),
                cached_input_usd_per_mtok=prices_usd_per_mtok.get("cached_input_usd_per_mtok"),
                output_usd_per_mtok=prices_usd_per_mtok.get("output_usd_per_mtok"), kv_offload=mode))
        except (KeyError, ValueError) as err:
            skipped.append({"hardware_id": hw.hardware_id, "reason": _message(err)})
    if not rows:
        reasons = "; ".join(f"{s['hardware_id']}: {s['reason']}" for s in skipped[:5])
        raise ValueError(f"no system could be evaluated for {m.model_id}: {reasons}")
    out = pd.concat(rows, ignore_index=True).sort_values("cost_usd_per_mtok", ignore_index=True)
    out.attrs["skipped"] = pd.DataFrame(skipped, columns=["hardware_id", "reason"])
    return out


def _message(err: BaseException) -> str:
    text: Any = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
    return " ".join(str(text).split())
