"""Row-level and per-snapshot checks of the bundled API price catalog.

One test case per row of ``data/pricing/api_prices.csv``, then invariants per price snapshot and per
model: cached input never above uncached input, every model priced by its first-party seller or by
at least two providers, the default lookup returning the first-party price, and price magnitudes
that catch a $/token vs $/Mtok slip.
"""

from __future__ import annotations

import csv
import datetime as dt
import functools
import re
from collections import defaultdict
from pathlib import Path

import pytest

import tokenomics as tk
from tokenomics._validate import normalize_name
from tokenomics.catalog import TABLES, data_dir
from tokenomics.catalog._tidy import read_index, read_tidy, read_vocabulary

DATA = data_dir()
PRICES = DATA / TABLES["price"].relpath
INDEX = DATA / TABLES["model_index"].relpath
VOCAB = read_vocabulary(DATA / "parameters.csv")
_CITATION = re.compile(r"[a-z0-9-]+\.(com|ai|io|org|net|site|edu)\b", re.IGNORECASE)


def _rows() -> list[dict[str, str]]:
    """Rows of the file with their line number (header is line 1) under ``_line``."""
    with PRICES.open(newline="", encoding="utf-8") as fh:
        return [{**r, "_line": str(line)} for line, r in enumerate(csv.DictReader(fh), start=2)]


@functools.cache
def _validated_lines() -> frozenset[int]:
    """Lines of the file that the validator read as values (the whole file, read once)."""
    frame = read_tidy(PRICES, table="price", key_columns=KEYS, vocabulary=VOCAB)
    return frozenset(int(v) for v in frame["line"])


ROWS = _rows()
_INDEX = read_index(INDEX, key_column="model_id", required=())
INDEX_IDS = sorted(_INDEX["model_id"])
FIRST_PARTY = dict(zip(_INDEX["model_id"], _INDEX["first_party_provider"], strict=True))


def _snapshots(tier: str | None = "standard") -> dict[tuple[str, str, str], dict[str, float]]:
    snaps: dict[tuple[str, str, str], dict[str, float]] = defaultdict(dict)
    for r in ROWS:
        if tier is None or r["tier"] == tier:
            key = (r["model_id"], r["provider"], r["as_of"]) if tier else (r["model_id"], r["provider"],
                                                                            r["tier"], r["as_of"])
            snaps[key][r["parameter"]] = float(r["value"])  # type: ignore[index]
    return dict(snaps)


SNAPSHOTS = _snapshots()  # standard tier, keyed (model, provider, as_of)
ALL_TIERS = _snapshots(None)  # every tier, keyed (model, provider, tier, as_of)
KEYS = ("model_id", "provider", "tier")


@pytest.mark.parametrize(
    "row", ROWS, ids=[f"{r['model_id']}:{r['provider']}:{r['tier']}:{r['parameter']}@{r['as_of']}" for r in ROWS]
)
def test_row_validates(row: dict[str, str]) -> None:
    """Each row passes the catalog validator and carries a real citation."""
    assert int(row["_line"]) in _validated_lines()
    assert row["unit"] == VOCAB[("price", row["parameter"])].unit == "USD/Mtok"
    assert row["model_id"] in INDEX_IDS
    assert _CITATION.search(row["source"]), f"source does not cite a document: {row['source']!r}"
    # Hand-maintained tables of a third party (Roo-Code) are secondary unless the provider's own
    # page is cited beside them.
    if "Roo-Code" in row["source"] and row["confidence"] == "verified":
        own = [s for s in row["source"].split(";") if "Roo-Code" not in s and _CITATION.search(s)]
        assert own, "a Roo-Code figure is 'verified' only with the provider's own page cited too"
    # Pitfall 4: a $/token or $/ktok figure would be off by 1e6 or 1e3 from this band.
    assert 0.001 <= float(row["value"]) <= 100.0, "price outside any plausible USD/Mtok range"


def test_whole_file_validates() -> None:
    frame = read_tidy(PRICES, table="price", key_columns=KEYS, vocabulary=VOCAB)
    assert len(frame) == len(ROWS)


@pytest.mark.parametrize("key", sorted(ALL_TIERS), ids=["/".join(k) for k in sorted(ALL_TIERS)])
def test_snapshot_is_complete_and_coherent(key: tuple[str, ...]) -> None:
    snap = ALL_TIERS[key]
    assert "input_usd_per_mtok" in snap, "a snapshot needs an input price"
    assert "output_usd_per_mtok" in snap, "a snapshot needs an output price"
    cached = snap.get("cached_input_usd_per_mtok")
    if cached is not None:
        # Pitfall 3: cached tokens are a discounted part of the input, never dearer than a miss.
        assert cached <= snap["input_usd_per_mtok"]
    assert dt.date.fromisoformat(key[-1]) <= dt.date.today()


def test_provider_names_have_one_spelling() -> None:
    spellings: dict[str, set[str]] = defaultdict(set)
    for r in ROWS:
        spellings[normalize_name(r["provider"])].add(r["provider"])
    assert all(len(v) == 1 for v in spellings.values()), spellings


@pytest.mark.parametrize("model_id", INDEX_IDS)
def test_every_model_is_priced_by_first_party_or_two_providers(model_id: str) -> None:
    providers = {p for (m, p, _) in SNAPSHOTS if m == model_id}
    assert FIRST_PARTY[model_id] in providers or len(providers - {FIRST_PARTY[model_id]}) >= 2, providers


@pytest.mark.parametrize("model_id", INDEX_IDS)
def test_default_price_is_first_party_where_sold(model_id: str) -> None:
    providers = {p for (m, p, _) in SNAPSHOTS if m == model_id}
    p = tk.price(model_id)
    if FIRST_PARTY[model_id] in providers:
        assert p.provider == FIRST_PARTY[model_id]
        latest = max(d for (m, prov, d) in SNAPSHOTS if m == model_id and prov == p.provider)
        assert p.as_of == dt.date.fromisoformat(latest)
        snap = SNAPSHOTS[(model_id, p.provider, latest)]
        assert p.input_usd_per_mtok == snap["input_usd_per_mtok"]
        assert p.output_usd_per_mtok == snap["output_usd_per_mtok"]
        assert p.cached_input_usd_per_mtok == snap.get("cached_input_usd_per_mtok")
    else:
        assert p.provider in providers


@pytest.mark.parametrize("model_id", INDEX_IDS)
def test_providers_agree_within_an_order_of_magnitude(model_id: str) -> None:
    """A unit slip on one provider's row shows as an outlier against the others."""
    latest: dict[str, tuple[str, dict[str, float]]] = {}
    for (m, prov, d), snap in SNAPSHOTS.items():
        if m == model_id and (prov not in latest or d > latest[prov][0]):
            latest[prov] = (d, snap)
    for param in ("input_usd_per_mtok", "output_usd_per_mtok"):
        values = sorted(s[param] for _, s in latest.values())
        assert values[-1] <= 10 * values[0], f"{param} spread {values}"


def test_deepseek_price_history_is_dated() -> None:
    """The deepseek-chat price moved 0.27/1.10 (V3) -> 0.56/1.68 (V3.1) -> 0.28/0.42 (V3.2)."""
    v3, v31, v32 = (tk.price(m, "DeepSeek") for m in ("deepseek-v3", "deepseek-v3.1", "deepseek-v3.2"))
    assert v3.as_of < v31.as_of < v32.as_of
    assert (v3.input_usd_per_mtok, v3.output_usd_per_mtok) == (0.27, 1.10)
    assert (v31.input_usd_per_mtok, v31.output_usd_per_mtok) == (0.56, 1.68)
    assert (v32.input_usd_per_mtok, v32.cached_input_usd_per_mtok, v32.output_usd_per_mtok) == (0.28, 0.028, 0.42)
    with pytest.raises(KeyError, match="on or before"):
        tk.price("deepseek-v3.2", "DeepSeek", as_of="2025-01-01")


def test_price_table_has_one_row_per_snapshot() -> None:
    table = tk.price_table()
    assert len(table) == len(ALL_TIERS)
    assert len(tk.price_table(price_tier="standard")) == len(SNAPSHOTS)
    assert {"input_usd_per_mtok", "output_usd_per_mtok", "source"} <= set(table.columns)


# --- price tiers --------------------------------------------------------------------------------

_TIERED = sorted({(m, p, t) for (m, p, t, _) in ALL_TIERS if t != "standard"})


@pytest.mark.parametrize("key", _TIERED, ids=["/".join(k) for k in _TIERED])
def test_tier_is_priced_against_its_standard_rate(key: tuple[str, str, str]) -> None:
    """Batch, flex and off-peak are discounts; priority and fast are premiums (same provider)."""
    model_id, provider, tier = key
    other = tk.price(model_id, provider, price_tier=tier)
    try:
        base = tk.price(model_id, provider, as_of=other.as_of)
    except KeyError:
        pytest.skip(f"{provider} publishes no standard {model_id} price on or before {other.as_of}")
    if tier in ("batch", "flex", "off-peak"):
        assert other.output_usd_per_mtok < base.output_usd_per_mtok
        assert other.input_usd_per_mtok <= base.input_usd_per_mtok
    else:
        assert other.output_usd_per_mtok > base.output_usd_per_mtok
        assert other.input_usd_per_mtok >= base.input_usd_per_mtok
    assert other.tier == tier
    assert base.tier == "standard"


def test_unknown_tier_names_the_tiers() -> None:
    with pytest.raises(KeyError, match="priority"):
        tk.price("deepseek-v3.2", price_tier="premium-plus")


def test_missing_tier_lists_what_the_provider_publishes() -> None:
    with pytest.raises(KeyError, match="published tiers: standard"):
        tk.price("kimi-k2", "Groq", price_tier="batch")


def test_user_file_without_tier_column_is_standard(tmp_path: Path) -> None:
    f = tmp_path / "mine.csv"
    f.write_text(
        "model_id,provider,parameter,value,unit,source,as_of,confidence,note\n"
        "kimi-k2,Acme,input_usd_per_mtok,0.5,USD/Mtok,own contract (acme.com),2026-11-01,verified,\n"
        "kimi-k2,Acme,output_usd_per_mtok,2.0,USD/Mtok,own contract (acme.com),2026-11-01,verified,\n",
        encoding="utf-8",
    )
    try:
        tk.add_catalog_file(f, "price")
        p = tk.price("kimi-k2", "Acme")
        assert (p.tier, p.output_usd_per_mtok) == ("standard", 2.0)
    finally:
        tk.catalog.reset_catalogs()


def test_user_file_with_an_unknown_tier_is_rejected(tmp_path: Path) -> None:
    f = tmp_path / "mine.csv"
    f.write_text(
        "model_id,provider,tier,parameter,value,unit,source,as_of,confidence,note\n"
        "kimi-k2,Acme,gold,input_usd_per_mtok,0.5,USD/Mtok,own contract (acme.com),2026-11-01,verified,\n",
        encoding="utf-8",
    )
    with pytest.raises(tk.catalog.CatalogError, match=r"line 2.*tier.*'gold' is not one of"):
        tk.add_catalog_file(f, "price")


def test_a_date_before_every_third_party_price_names_the_earliest() -> None:
    # Qwen3-32B has no first-party price: the default provider is chosen among third parties,
    # and before any of them published there is nothing to choose from
    with pytest.raises(KeyError, match=r"on or before 2024-01-01 \(the earliest is of 2026-02-14\)"):
        tk.price("qwen3-32b", as_of="2024-01-01")
    assert tk.price("qwen3-32b", as_of="2026-03-01").provider == "Groq"
