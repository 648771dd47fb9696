"""Sourced catalogs: hardware, models, API prices, TCO inputs and published TCO figures.

Every number is read from a tidy CSV under ``data/`` with its unit, source, as-of date and
confidence, validated against the vocabulary ``data/parameters.csv``. Lookups accept ids and
aliases, ignoring case and punctuation; a miss raises ``KeyError`` listing the closest names.

Add your own rows with :func:`add_catalog_file` (validated the same way; your rows win over the
bundled ones) or override values in code with ``entry.with_values(...)``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from tokenomics.catalog._entities import (
    ApiPrice,
    CatalogEntry,
    Hardware,
    Model,
    Provenance,
    PublishedTco,
    TcoInputs,
    TcoProfile,
)
from tokenomics.catalog._registry import (
    PRICE_TIERS,
    REGISTRY,
    TABLES,
    data_dir,
    entity_rows,
    matching_ids,
    require_rows,
    resolve,
)
from tokenomics.catalog._tidy import CONFIDENCE_LEVELS, CatalogError, ParameterSpec, check_value

__all__ = [
    "CONFIDENCE_LEVELS",
    "PRICE_TIERS",
    "TABLES",
    "ApiPrice",
    "CatalogEntry",
    "CatalogError",
    "Hardware",
    "Model",
    "ParameterSpec",
    "Provenance",
    "PublishedTco",
    "TcoInputs",
    "TcoProfile",
    "add_catalog_file",
    "catalog_generation",
    "data_dir",
    "hardware",
    "hardware_table",
    "matching_ids",
    "model",
    "model_table",
    "on_reset",
    "parameter_problem",
    "parameter_spec",
    "price",
    "price_table",
    "published_tco",
    "published_tco_table",
    "reset_catalogs",
    "resolve_hardware_id",
    "resolve_model_id",
    "resolve_profile_id",
    "tco_inputs",
    "tco_profile",
    "tco_profile_table",
    "tco_table",
]

E = TypeVar("E", bound=CatalogEntry)


def _entity_key(cls: type, table: str, key: dict[str, str], as_of: dt.date | None = None) -> tuple[object, ...]:
    """Key of a built entry in the registry's cache (dropped whenever a catalog file is added)."""
    return (cls.__name__, table, tuple(sorted(key.items())), as_of)


def _build(cls: type[E], table: str, key: dict[str, str], meta: dict[str, Any],
           as_of: dt.date | None = None, rows: pd.DataFrame | None = None) -> E:
    """Assemble a catalog object from its index metadata and value rows.

    With ``as_of`` only rows of exactly that date are used (one dated snapshot, e.g. a price
    list), so values of an older snapshot never leak into a newer one. ``rows`` replaces the
    registry's rows of the entity (already filtered by the caller, e.g. to the user's rows).
    """
    cache_key = _entity_key(cls, table, key, as_of)
    cached = REGISTRY._entities.get(cache_key)
    if cached is not None:
        return cached  # type: ignore[return-value]
    if rows is None:
        rows = entity_rows(table, key, as_of)
    if as_of is not None:
        rows = rows[rows["as_of"] == as_of].drop_duplicates("parameter", keep="last")
    fields = cls.model_fields
    needed = [n for n, f in fields.items() if f.is_required() and n not in meta and n not in key]
    require_rows(rows, cls.__name__, key, needed)
    values: dict[str, Any] = {}
    prov: dict[str, Provenance] = {}
    for rec in rows.to_dict("records"):
        name = str(rec["parameter"])
        if name not in fields:
            continue  # a vocabulary parameter not modelled as a field stays in the tables
        value = float(rec["value"])
        values[name] = int(value) if "int" in str(fields[name].annotation) else value
        prov[name] = Provenance(value=value, unit=rec["unit"], source=rec["source"],
                                as_of=rec["as_of"], confidence=rec["confidence"], note=rec["note"])
    obj = cls.model_validate({**meta, **key, **values, "provenance": prov})
    REGISTRY._entities[cache_key] = obj
    return obj


def _index_meta(table: str, ident: str, cls: type[CatalogEntry]) -> dict[str, Any]:
    frame = REGISTRY.frame(table)
    key_col = TABLES[table].keys[0]
    row = frame[frame[key_col] == ident].iloc[0].to_dict()
    return {k: v for k, v in row.items() if k in cls.model_fields and k != key_col}


def resolve_hardware_id(name: str) -> str:
    """Return the catalog hardware id for a name or alias.

    Parameters
    ----------
    name : str
        E.g. ``"GB200"``, ``"gb200-nvl72"``, ``"GB200 NVL72"``, ``"TPU v7"``, ``"Ironwood"``.

    Returns
    -------
    str
        Catalog id such as ``"gb200-nvl72"``.

    Raises
    ------
    KeyError
        If no id or alias matches; the message lists the closest names.

    Examples
    --------
    >>> resolve_hardware_id("GB200 NVL72")
    'gb200-nvl72'
    """
    return resolve("hardware_index", name, "hardware")


def resolve_model_id(name: str) -> str:
    """Return the catalog model id for a name or alias.

    Parameters
    ----------
    name : str
        E.g. ``"DeepSeek-R1"``, ``"deepseek r1"``, ``"gpt-oss-120b"``, or a Hugging Face repository
        name such as ``"deepseek-ai/DeepSeek-R1"`` (the organisation prefix is dropped when the
        full name is not an alias; a precision tag such as ``-FP4`` is not, since it names
        a different checkpoint).

    Returns
    -------
    str
        Catalog id such as ``"deepseek-r1"``.

    Raises
    ------
    KeyError
        If no id or alias matches; the message lists the closest names.

    Examples
    --------
    >>> resolve_model_id("DeepSeek R1")
    'deepseek-r1'
    >>> resolve_model_id("meta-llama/Llama-3.3-70B-Instruct")
    'llama-3.3-70b'
    """
    try:
        return resolve("model_index", name, "model")
    except KeyError:
        repo = str(name).rstrip("/").rsplit("/", 1)
        if len(repo) == 2 and repo[1].strip() and matching_ids("model_index", repo[1]):
            return resolve("model_index", repo[1], "model")
        raise


def resolve_profile_id(name: str) -> str:
    """Return the TCO profile id for a name or alias.

    Parameters
    ----------
    name : str
        E.g. ``"hyperscaler"``, ``"Neocloud-owned"``, ``"3-year rental"``, ``"costr"``.

    Returns
    -------
    str
        Profile id: ``"hyperscaler"``, ``"neocloud"`` or ``"rental"`` (or a user-added one).

    Raises
    ------
    KeyError
        If no id or alias matches; the message lists the closest names.

    Examples
    --------
    >>> resolve_profile_id("3-year rental")
    'rental'
    """
    return resolve("tco_profile_index", name, "TCO profile")


def hardware(name: str) -> Hardware:
    """Return a hardware entry by id or alias.

    Parameters
    ----------
    name : str
        Id or alias, case- and punctuation-insensitive (``"gb200"``, ``"GB200 NVL72"``).

    Returns
    -------
    Hardware
        Validated entry with provenance for every value.

    Raises
    ------
    KeyError
        For an unknown name, listing close matches.
    CatalogError
        If the catalog lacks a required value for it.

    Examples
    --------
    >>> hw = hardware("H100")
    >>> hw.hardware_id, hw.hbm_capacity_gb > 0
    ('h100-sxm', True)
    """
    key = {"hardware_id": resolve_hardware_id(name)}
    built = REGISTRY._entities.get(_entity_key(Hardware, "hardware", key))
    if isinstance(built, Hardware):
        return built
    return _build(Hardware, "hardware", key, _index_meta("hardware_index", key["hardware_id"], Hardware))


def model(name: str) -> Model:
    """Return a model architecture by id or alias.

    Parameters
    ----------
    name : str
        Id or alias, case- and punctuation-insensitive.

    Returns
    -------
    Model
        Validated entry with provenance for every value.

    Raises
    ------
    KeyError
        For an unknown name, listing close matches.
    CatalogError
        If the catalog lacks a required value for it.

    Examples
    --------
    >>> m = model("deepseek r1")
    >>> 0 < m.active_params_b < m.total_params_b  # a mixture of experts
    True
    """
    key = {"model_id": resolve_model_id(name)}
    built = REGISTRY._entities.get(_entity_key(Model, "model", key))
    if isinstance(built, Model):
        return built
    return _build(Model, "model", key, _index_meta("model_index", key["model_id"], Model))


def _wide(frame: pd.DataFrame, keys: list[str], index: pd.DataFrame | None = None,
          key_col: str | None = None) -> pd.DataFrame:
    latest = frame.assign(_user=frame["origin"] == "user").sort_values(["_user", "as_of"], kind="stable")
    latest = latest.drop_duplicates([*keys, "parameter"], keep="last")
    wide = latest.pivot(index=keys, columns="parameter", values="value")
    wide.columns.name = None
    integer_params = {p for (_, p), spec in REGISTRY.vocabulary().items() if spec.kind in ("integer", "count", "year")}
    for col in wide.columns:
        if col in integer_params:
            wide[col] = wide[col].round().astype("Int64")
    if index is not None and key_col is not None:
        meta = index.set_index(key_col).drop(columns=["file", "origin"], errors="ignore")
        wide = meta.join(wide, how="left")
    return wide


def hardware_table() -> pd.DataFrame:
    """Return every hardware entry as one wide table.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``hardware_id``; identity columns then one unit-suffixed column per parameter
        (NaN where a value does not apply or is not published).

    Examples
    --------
    >>> "hbm_bandwidth_tb_per_s" in hardware_table().columns
    True
    """
    return _wide(REGISTRY.frame("hardware"), ["hardware_id"], REGISTRY.frame("hardware_index"), "hardware_id")


def model_table() -> pd.DataFrame:
    """Return every model architecture as one wide table.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``model_id``; identity columns then one column per parameter.
    """
    return _wide(REGISTRY.frame("model"), ["model_id"], REGISTRY.frame("model_index"), "model_id")


def _price_snapshots(model_id: str, provider: str | None, tier: str | None = None) -> pd.DataFrame:
    frame = REGISTRY.frame("price")
    rows = frame[frame["model_id"] == model_id]
    if provider is not None:
        rows = rows[rows["provider"].map(lambda p: p.lower()) == provider.lower()]
    if tier is not None:
        rows = rows[rows["tier"] == tier]
    return rows


def _check_tier(price_tier: str) -> str:
    from tokenomics._validate import unknown_name_error

    tier = str(price_tier).strip().lower().replace("_", "-").replace(" ", "-")
    tier = {"offpeak": "off-peak", "high-speed": "fast", "highspeed": "fast", "turbo": "fast",
            "on-demand": "standard", "default": "standard"}.get(tier, tier)
    if tier not in PRICE_TIERS:
        raise unknown_name_error("price tier", price_tier, PRICE_TIERS)
    return tier


def price(model: str, provider: str | None = None, *, as_of: dt.date | str | None = None,
          price_tier: str = "standard") -> ApiPrice:
    """Return a provider's list price for a model in one price tier.

    Parameters
    ----------
    model : str
        Model id or alias.
    provider : str, optional
        Provider name (case-insensitive). Default, in this order: a provider whose prices you
        added with :func:`add_catalog_file` (your own or negotiated prices; the most recently
        dated if several), the model's first-party provider where it sells the model in this
        tier, else the provider with the lowest current output price in this tier.
    as_of : datetime.date or str, optional
        Use the latest snapshot on or before this date (default: the latest).
    price_tier : str
        ``"standard"`` (on-demand list price, default), ``"batch"``, ``"flex"``, ``"priority"``,
        ``"fast"`` (a high-speed serving of the same model sold at a premium, e.g. Moonshot
        ``-highspeed``) or ``"off-peak"``; see :data:`PRICE_TIERS`.

    Notes
    -----
    Where you added rows for a model and provider, only your rows are used for that pair (their
    latest snapshot), whatever their dates; bundled rows of the pair are ignored. A user file
    without a ``tier`` column is read as ``standard``.

    Returns
    -------
    ApiPrice
        Input, cached-input, output and cache-write prices [USD/Mtok] of one dated snapshot.

    Raises
    ------
    KeyError
        For an unknown model or tier, a provider with no price for it in that tier (the message
        lists the providers and tiers that have one), or no snapshot on or before ``as_of``.

    Examples
    --------
    >>> p = price("deepseek-v3.2", "DeepSeek")
    >>> p.output_usd_per_mtok > p.input_usd_per_mtok
    True
    """
    mid = resolve_model_id(model)
    tier = _check_tier(price_tier)
    when = dt.date.fromisoformat(as_of) if isinstance(as_of, str) else as_of
    every = _price_snapshots(mid, None, tier)
    if provider is None:
        first = str(_index_meta("model_index", mid, Model).get("first_party_provider", ""))
        providers = set(every["provider"])
        mine = every[every["origin"] == "user"]
        if when is not None:
            mine = mine[mine["as_of"] <= when]
        if len(mine):
            provider = str(mine.sort_values("as_of", kind="stable")["provider"].iloc[-1])
        elif first in providers:
            provider = first
        elif providers:
            out = every[every["parameter"] == "output_usd_per_mtok"]
            if when is not None:
                out = out[out["as_of"] <= when]
            current = out.sort_values("as_of").drop_duplicates("provider", keep="last")
            if not current.empty:
                provider = str(current.sort_values("value", kind="stable")["provider"].iloc[0])
            elif when is not None:
                earliest = every["as_of"].min()
                raise KeyError(f"no {mid} {tier} price from any provider on or before {when} "
                               f"(the earliest is of {earliest})")
    rows = _price_snapshots(mid, provider, tier) if provider is not None else every.iloc[0:0]
    if rows.empty:
        from tokenomics._validate import unknown_name_error

        anywhere = _price_snapshots(mid, provider, None) if provider is not None else _price_snapshots(mid, None)
        if not anywhere.empty and provider is not None:
            tiers = sorted(set(anywhere["tier"]))
            raise KeyError(f"no {tier!r} price for {mid} from {provider}; published tiers: {', '.join(tiers)}")
        if every.empty:
            offered = _price_snapshots(mid, None)[["provider", "tier"]].drop_duplicates()
            listing = ", ".join(f"{p} ({t})" for p, t in offered.itertuples(index=False)) or "none"
            raise KeyError(f"no {tier!r} price for {mid} from any provider; prices published: {listing}")
        raise unknown_name_error(f"provider for {mid} ({tier} tier)", provider, sorted(set(every["provider"])))
    if (rows["origin"] == "user").any():
        rows = rows[rows["origin"] == "user"]
    if when is not None:
        rows = rows[rows["as_of"] <= when]
        if rows.empty:
            raise KeyError(f"no {mid} {tier} price from {provider} on or before {when}")
    snapshot = rows["as_of"].max()
    prov_name = str(rows["provider"].iloc[0])
    return _build(ApiPrice, "price", {"model_id": mid, "provider": prov_name, "tier": tier},
                  {"as_of": snapshot}, as_of=snapshot, rows=rows)


def price_table(model: str | None = None, provider: str | None = None,
                price_tier: str | None = None) -> pd.DataFrame:
    """Return dated API prices, one row per model, provider, tier and snapshot date.

    Parameters
    ----------
    model : str, optional
        Keep only this model (id or alias).
    provider : str, optional
        Keep only this provider (case-insensitive).
    price_tier : str, optional
        Keep only this tier (see :data:`PRICE_TIERS`); default all tiers.

    Returns
    -------
    pandas.DataFrame
        Columns ``model_id, provider, tier, as_of`` and the price parameters [USD/Mtok], plus
        ``source``.

    Raises
    ------
    KeyError
        For an unknown model or tier, or a provider with no price (of that model); close matches
        listed.
    """
    frame = REGISTRY.frame("price")
    if model is not None:
        frame = frame[frame["model_id"] == resolve_model_id(model)]
    if provider is not None:
        from tokenomics._validate import normalize_name, unknown_name_error

        every = REGISTRY.frame("price")["provider"].astype(str)
        hit = frame["provider"].astype(str).map(normalize_name) == normalize_name(provider)
        if not hit.any():
            valid = sorted(set(frame["provider"].astype(str))) if model is not None else sorted(set(every))
            what = f"provider for {resolve_model_id(model)}" if model is not None else "provider"
            raise unknown_name_error(what, provider, valid)
        frame = frame[hit]
    if price_tier is not None:
        frame = frame[frame["tier"] == _check_tier(price_tier)]
    keys = ["model_id", "provider", "tier", "as_of"]
    wide = frame.pivot_table(index=keys, columns="parameter", values="value", aggfunc="last")
    wide.columns.name = None
    src = frame.groupby(keys)["source"].first()
    return wide.join(src).reset_index()


def tco_inputs(hardware: str) -> TcoInputs:
    """Return the capital inputs of TCO for a system.

    Parameters
    ----------
    hardware : str
        Hardware id or alias.

    Returns
    -------
    TcoInputs
        All-in capex per accelerator, economic life and residual value, with provenance.

    Raises
    ------
    KeyError
        For an unknown hardware name, or one with no TCO inputs (listing those that have them).
    """
    hid = resolve_hardware_id(hardware)
    frame = REGISTRY.frame("tco_system")
    if hid not in set(frame["hardware_id"]):
        from tokenomics._validate import unknown_name_error

        raise unknown_name_error("hardware with TCO inputs", hid, sorted(set(frame["hardware_id"])))
    return _build(TcoInputs, "tco_system", {"hardware_id": hid}, {})


def tco_table() -> pd.DataFrame:
    """Return the TCO inputs of every system as one wide table.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``hardware_id``; one unit-suffixed column per parameter.
    """
    return _wide(REGISTRY.frame("tco_system"), ["hardware_id"])


def tco_profile(name: str) -> TcoProfile:
    """Return a datacenter and financing profile.

    Parameters
    ----------
    name : str
        ``"hyperscaler"``, ``"neocloud"``, ``"rental"`` or an alias.

    Returns
    -------
    TcoProfile
        Electricity price, PUE, colocation, cost of capital, maintenance, life and markup.

    Raises
    ------
    KeyError
        For an unknown profile, listing close matches.
    """
    pid = resolve_profile_id(name)
    meta = _index_meta("tco_profile_index", pid, TcoProfile)
    return _build(TcoProfile, "tco_profile", {"profile_id": pid}, meta)


def tco_profile_table() -> pd.DataFrame:
    """Return every TCO profile as one wide table.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``profile_id``.
    """
    return _wide(REGISTRY.frame("tco_profile"), ["profile_id"], REGISTRY.frame("tco_profile_index"),
                 "profile_id")


def published_tco(hardware: str, vintage: str = "2026-09", tier: str = "hyperscaler") -> PublishedTco:
    """Return a published all-in $/GPU-hour TCO figure.

    Parameters
    ----------
    hardware : str
        Hardware id or alias.
    vintage : str
        Published set: ``"2025-08"``, ``"2026-07"`` or ``"2026-09"``.
    tier : str
        ``"hyperscaler"``, ``"neocloud"``, ``"rental"`` or ``"internal"``.

    Returns
    -------
    PublishedTco
        The figure [USD per accelerator-hour] with its source.

    Raises
    ------
    KeyError
        For an unknown hardware, vintage or tier, or a combination that was not published; the
        message lists what exists.

    Examples
    --------
    >>> p = published_tco("MI355X", vintage="2025-08", tier="hyperscaler")
    >>> p.vintage, p.tier, p.usd_per_gpu_hour > 0
    ('2025-08', 'hyperscaler', True)
    """
    from tokenomics._validate import unknown_name_error

    hid = resolve_hardware_id(hardware)
    frame = REGISTRY.frame("published_tco")
    cost_rows = frame[frame["parameter"] == "usd_per_gpu_hour"]
    vintages = sorted(set(cost_rows["vintage"]))
    tiers = sorted(set(cost_rows["tier"]))
    if vintage not in vintages:
        raise unknown_name_error("published TCO vintage", vintage, vintages)
    if tier not in tiers:
        raise unknown_name_error("published TCO tier", tier, tiers)
    rows = cost_rows[(cost_rows["hardware_id"] == hid) & (cost_rows["vintage"] == vintage)
                     & (cost_rows["tier"] == tier)]
    if rows.empty:
        have = cost_rows[cost_rows["hardware_id"] == hid][["vintage", "tier"]].drop_duplicates()
        combos = [f"{v}/{t}" for v, t in have.itertuples(index=False)]
        raise KeyError(
            f"no published TCO for {hid} at vintage {vintage!r}, tier {tier!r}; "
            f"published for {hid}: {', '.join(combos) or 'none'}"
        )
    entry = _build(PublishedTco, "published_tco", {"hardware_id": hid, "vintage": vintage, "tier": tier}, {})
    power = entity_rows("published_tco", {"hardware_id": hid, "vintage": vintage, "tier": _ALL_TIERS})
    power = power[power["parameter"] == "facility_power_kw_per_accelerator"]
    if entry.facility_power_kw_per_accelerator is None and not power.empty:
        rec = power.iloc[-1]
        prov = Provenance(value=float(rec["value"]), unit=rec["unit"], source=rec["source"], as_of=rec["as_of"],
                          confidence=rec["confidence"], note=rec["note"])
        entry = entry.model_copy(update={"facility_power_kw_per_accelerator": float(rec["value"]),
                                         "provenance": {**entry.provenance,
                                                        "facility_power_kw_per_accelerator": prov}})
    return entry


_ALL_TIERS = "all"
"""Tier label of published rows that apply to every tier of a set (e.g. facility power)."""


def published_tco_table() -> pd.DataFrame:
    """Return every published $/GPU-hour figure, one row per hardware, vintage and tier.

    Returns
    -------
    pandas.DataFrame
        Columns ``hardware_id, vintage, tier, usd_per_gpu_hour, source, as_of, confidence, note``
        and the set's ``facility_power_kw_per_accelerator`` [kW] where published.
    """
    frame = REGISTRY.frame("published_tco")
    rows = frame[frame["parameter"] == "usd_per_gpu_hour"]
    power = frame[(frame["parameter"] == "facility_power_kw_per_accelerator") & (frame["tier"] == _ALL_TIERS)]
    power = power.rename(columns={"value": "facility_power_kw_per_accelerator"})
    out = rows.rename(columns={"value": "usd_per_gpu_hour"})[
        ["hardware_id", "vintage", "tier", "usd_per_gpu_hour", "source", "as_of", "confidence", "note"]
    ]
    out = out.merge(power[["hardware_id", "vintage", "facility_power_kw_per_accelerator"]],
                    on=["hardware_id", "vintage"], how="left")
    return out.reset_index(drop=True)


def add_catalog_file(path: str | Path, table: str) -> None:
    """Validate a catalog file of your own and add its rows to a table.

    Your rows take precedence over bundled rows for the same key and parameter; an index file's
    row replaces the bundled row of the same id (or adds a new system/model). Nothing in the
    package is modified.

    Parameters
    ----------
    path : str or pathlib.Path
        CSV in the table's format (see the bundled file named in :data:`TABLES`).
    table : str
        One of ``hardware_index``, ``hardware``, ``model_index``, ``model``, ``price``,
        ``tco_system``, ``tco_profile_index``, ``tco_profile``, ``published_tco``.

    Raises
    ------
    KeyError
        For an unknown table.
    FileNotFoundError
        If the file does not exist.
    CatalogError
        If the file is malformed: the message names the file, line, field and problem.
    """
    REGISTRY.add(Path(path), table)


def catalog_generation() -> int:
    """Return a count that changes whenever a catalog file is added or the catalogs are reset.

    For caches of results computed from catalog values: a result stored under one count is
    stale under another.

    Returns
    -------
    int
        The number of changes to the loaded catalogs so far in this process.
    """
    return REGISTRY.generation


_RESET_HOOKS: list[Callable[[], None]] = []


def on_reset(hook: Callable[[], None]) -> None:
    """Have :func:`reset_catalogs` call ``hook`` after reloading the catalogs.

    For modules that keep user additions of their own (the workload presets of
    :func:`tokenomics.register_workload`).

    Parameters
    ----------
    hook : callable
        Called with no arguments; it should forget the user's additions.
    """
    _RESET_HOOKS.append(hook)


def reset_catalogs() -> None:
    """Drop every user-added catalog file and workload preset; reload the bundled ones on next use."""
    REGISTRY.reset()
    for hook in _RESET_HOOKS:
        hook()


def parameter_spec(table: str, parameter: str) -> ParameterSpec:
    """Return the vocabulary entry of a parameter: unit, kind and plausible range.

    Parameters
    ----------
    table : str
        Vocabulary table (``"hardware"``, ``"model"``, ``"price"``, ``"curve"``, ...).
    parameter : str
        Parameter name, e.g. ``"hbm_capacity_gb"``.

    Returns
    -------
    ParameterSpec
        Unit, kind, ``min_value``/``max_value`` and description from ``data/parameters.csv``.

    Raises
    ------
    KeyError
        If the parameter is not in the vocabulary table (close matches listed).

    Examples
    --------
    >>> parameter_spec("hardware", "hbm_capacity_gb").unit
    'GB'
    """
    vocab = REGISTRY.vocabulary()
    spec = vocab.get((table, parameter))
    if spec is None:
        from tokenomics._validate import unknown_name_error

        raise unknown_name_error(f"{table} parameter", parameter, [p for t, p in vocab if t == table])
    return spec


def parameter_problem(table: str, parameter: str, value: float) -> str | None:
    """Say what is wrong with a value of a vocabulary parameter, or return None when plausible.

    Parameters
    ----------
    table, parameter : str
        As for :func:`parameter_spec`.
    value : float
        The value, in the vocabulary's unit.

    Returns
    -------
    str or None
        The problem with the value and the allowed range (non-finite, outside the kind's range,
        beyond the plausible minimum or maximum), or None.

    Examples
    --------
    >>> parameter_problem("curve", "tpot_median_s", 0.025) is None
    True
    >>> parameter_problem("curve", "tpot_median_s", 25.0)[:25]
    'value 25 s exceeds the pl'
    """
    return check_value(float(value), parameter_spec(table, parameter))
