"""Row-level and per-entity checks of the bundled TCO catalogs.

One test case per row of ``data/tco/systems.csv``, ``data/tco/profiles.csv`` and
``data/tco/published.csv`` (validates alone against the vocabulary, cites a source, lies in a
plausible range), then checks that every published figure is reachable through
:func:`tokenomics.published_tco`, that derived values recompute from what they are derived from,
and two published figures against the text that cites them.
"""

from __future__ import annotations

import csv
import datetime as dt
import functools
import re

import pytest

import tokenomics as tk
from tokenomics.catalog import TABLES, data_dir
from tokenomics.catalog._registry import REGISTRY
from tokenomics.catalog._tidy import CONFIDENCE_LEVELS, read_tidy, read_vocabulary
from tokenomics.units import SECONDS_PER_HOUR, TOKENS_PER_MTOK

DATA = data_dir()
VOCAB = read_vocabulary(DATA / "parameters.csv")
TODAY = dt.datetime.now(dt.UTC).date()
# A source is a URL or a repository file (github.com/owner/repo path); a value with no public
# source says so ("placeholder ...") and must then be marked unverified.
_CITATION = re.compile(r"^(https?://\S+|github\.com/[\w.-]+/[\w.-]+ \S+)")
_PLACEHOLDER = "placeholder"

FILES = {  # table -> key columns
    "tco_system": ("hardware_id",),
    "tco_profile": ("profile_id",),
    "published_tco": ("hardware_id", "vintage", "tier"),
}

BOUNDS: dict[str, tuple[float, float]] = {
    "capex_usd_per_accelerator": (3_000, 250_000),
    "host_dram_usd_per_gb": (1, 50),
    "economic_life_years": (2, 8),
    "residual_value_frac": (0, 0.5),
    "electricity_usd_per_kwh": (0.03, 0.30),
    "pue": (1.0, 2.0),
    "colocation_usd_per_kw_month": (50, 400),
    "cost_of_capital_frac": (0.02, 0.25),
    "maintenance_frac_per_year": (0, 0.15),
    "other_opex_frac_per_year": (0, 0.10),
    "rental_markup_frac": (0, 1.0),
    "usd_per_gpu_hour": (0.3, 12),
    "facility_power_kw_per_accelerator": (0.5, 6),
}


def _rows(table: str) -> list[dict[str, str]]:
    with (DATA / TABLES[table].relpath).open(newline="", encoding="utf-8") as fh:
        return [{**r, "_table": table, "_line": str(line)} for line, r in enumerate(csv.DictReader(fh), start=2)]


@functools.cache
def _validated_lines(table: str) -> frozenset[int]:
    """Lines of a file that the validator read as values (the whole file, read once)."""
    frame = read_tidy(DATA / TABLES[table].relpath, table=table, key_columns=FILES[table], vocabulary=VOCAB)
    return frozenset(int(v) for v in frame["line"])


ALL_ROWS = [r for t in FILES for r in _rows(t)]
PUBLISHED = _rows("published_tco")
PUBLISHED_USD = [r for r in PUBLISHED if r["parameter"] == "usd_per_gpu_hour"]


def _row_id(r: dict[str, str]) -> str:
    keys = ":".join(r[k] for k in FILES[r["_table"]])
    return f"{r['_table']}:{keys}:{r['parameter']}"


@pytest.mark.parametrize("row", ALL_ROWS, ids=[_row_id(r) for r in ALL_ROWS])
def test_row_validates(row: dict[str, str]) -> None:
    """Each row passes the validator, cites a source and lies in its plausible range."""
    table = row["_table"]
    assert int(row["_line"]) in _validated_lines(table)
    assert row["unit"] == VOCAB[(table, row["parameter"])].unit
    assert row["confidence"] in CONFIDENCE_LEVELS
    assert dt.date.fromisoformat(row["as_of"]) <= TODAY
    if row["source"].startswith(_PLACEHOLDER):
        assert row["confidence"] == "unverified", "a placeholder must be marked unverified"
    else:
        assert _CITATION.search(row["source"]), f"source does not cite a document: {row['source']!r}"
    if row["confidence"] in ("estimate", "unverified"):
        assert row["note"], "an estimate or unverified value must say how it was obtained"
    low, high = BOUNDS[row["parameter"]]
    assert low <= float(row["value"]) <= high, f"{row['parameter']}={row['value']} outside [{low}, {high}]"


@pytest.mark.parametrize("table", list(FILES))
def test_whole_file_validates(table: str) -> None:
    frame = read_tidy(DATA / TABLES[table].relpath, table=table, key_columns=FILES[table], vocabulary=VOCAB)
    assert len(frame) > 0
    if table != "tco_profile":
        known = set(REGISTRY.frame("hardware_index")["hardware_id"])
        assert set(frame["hardware_id"]) <= known, "TCO rows name only catalog hardware"


@pytest.mark.parametrize("row", PUBLISHED_USD, ids=[_row_id(r) for r in PUBLISHED_USD])
def test_published_figure_is_reachable(row: dict[str, str]) -> None:
    fig = tk.published_tco(row["hardware_id"], vintage=row["vintage"], tier=row["tier"])
    assert fig.usd_per_gpu_hour == pytest.approx(float(row["value"]))
    assert fig.source == row["source"]
    assert fig.provenance["usd_per_gpu_hour"].as_of == dt.date.fromisoformat(row["as_of"])


def test_published_rows_use_known_vintages_and_tiers() -> None:
    """Dollar figures carry an owner/renter tier; the tier ``all`` only carries facility power."""
    for r in PUBLISHED:
        assert r["vintage"] in ("2025-08", "2026-07", "2026-09")
        if r["parameter"] == "usd_per_gpu_hour":
            assert r["tier"] in ("hyperscaler", "neocloud", "rental", "internal")
        else:
            assert r["tier"] == "all"


def test_mi355x_worked_example() -> None:
    """InferenceX worked example (research/inferencex.md section 3, from InferenceX-app data):
    MI355X, Kimi-K2.5 1k/1k, conc 4, 55.6 tok/s/GPU -> $7.39 per M total tokens at $1.48/GPU-hour
    (the 2025-08 hyperscaler figure). Recompute the $/Mtok from the catalog's rate by hand:
    1.48 / (55.6 x 3600 / 1e6) = 1.48 / 0.20016 = 7.394.
    """
    rate = tk.published_tco("MI355X", vintage="2025-08", tier="hyperscaler").usd_per_gpu_hour
    assert rate == 1.48
    assert rate / (55.6 * SECONDS_PER_HOUR / TOKENS_PER_MTOK) == pytest.approx(7.39, abs=0.005)


def test_gb200_september_2026_rental() -> None:
    """GB200 NVL72 3-year rental was raised to $4.00/GPU-hour in the Sep-2026 set
    (InferenceX-app PR #1071, rental fix; research/inferencex.md section 3)."""
    assert tk.published_tco("GB200 NVL72", vintage="2026-09", tier="rental").usd_per_gpu_hour == 4.00


def test_tpu_v7_internal_basis_is_below_external() -> None:
    internal = tk.published_tco("tpu-v7", vintage="2026-09", tier="internal").usd_per_gpu_hour
    external = tk.published_tco("tpu-v7", vintage="2026-09", tier="hyperscaler").usd_per_gpu_hour
    assert internal < external


@pytest.mark.parametrize("vintage", ["2025-08", "2026-07"])
def test_hyperscaler_tier_is_cheapest_owner(vintage: str) -> None:
    """An owner with cheaper capital and facilities (hyperscaler) has a lower TCO than a neocloud."""
    for hid in {r["hardware_id"] for r in PUBLISHED_USD if r["vintage"] == vintage and r["tier"] == "neocloud"}:
        h = tk.published_tco(hid, vintage=vintage, tier="hyperscaler").usd_per_gpu_hour
        n = tk.published_tco(hid, vintage=vintage, tier="neocloud").usd_per_gpu_hour
        assert h < n, hid


def test_every_published_system_has_tco_inputs() -> None:
    for hid in {r["hardware_id"] for r in PUBLISHED_USD}:
        assert tk.tco_inputs(hid).capex_usd_per_accelerator > 0


def test_unknown_published_combination_raises() -> None:
    with pytest.raises(KeyError, match="tpu-v7"):
        tk.published_tco("tpu-v7", vintage="2025-08", tier="hyperscaler")


@pytest.mark.parametrize("profile", ["hyperscaler", "neocloud", "rental"])
def test_profile_loads_with_every_parameter(profile: str) -> None:
    prof = tk.tco_profile(profile)
    every = {p for (t, p) in VOCAB if t == "tco_profile"}
    assert every <= set(prof.provenance), f"missing: {every - set(prof.provenance)}"
    assert (prof.rental_markup_frac > 0) == (profile == "rental"), "only the renter pays a markup"


def test_profiles_are_ordered() -> None:
    """A hyperscaler has cheaper capital and a better PUE than a neocloud; the renter's owner is a neocloud."""
    hyp, neo, rent = (tk.tco_profile(p) for p in ("hyperscaler", "neocloud", "rental"))
    assert hyp.cost_of_capital_frac < neo.cost_of_capital_frac
    assert hyp.pue < neo.pue
    for name in ("electricity_usd_per_kwh", "pue", "colocation_usd_per_kw_month", "cost_of_capital_frac",
                 "maintenance_frac_per_year", "other_opex_frac_per_year", "economic_life_years"):
        assert getattr(rent, name) == getattr(neo, name), name


def test_rental_markup_recomputes_from_published_tiers() -> None:
    """The rental markup is derived in its note as the median over the GPUs of the July-2026 set of
    costr (as corrected in the 2026-09 set) / costn (2026-07) - 1."""
    import statistics

    gpus = ["h100-sxm", "h200-sxm", "b200", "b300", "gb200-nvl72", "gb300-nvl72", "mi300x", "mi325x", "mi355x"]
    ratios = [tk.published_tco(g, vintage="2026-09", tier="rental").usd_per_gpu_hour
              / tk.published_tco(g, vintage="2026-07", tier="neocloud").usd_per_gpu_hour - 1 for g in gpus]
    assert tk.tco_profile("rental").rental_markup_frac == pytest.approx(statistics.median(ratios), abs=5e-3)
    # the 2025-08 set's GB200 figure the markup was read from before
    costr = tk.published_tco("gb200-nvl72", vintage="2025-08", tier="rental").usd_per_gpu_hour
    costn = tk.published_tco("gb200-nvl72", vintage="2025-08", tier="neocloud").usd_per_gpu_hour
    assert costr / costn - 1 == pytest.approx(0.20, abs=1e-2)


def test_capex_derivations_recompute() -> None:
    """Capex notes: DGX H100 $270k / 8 GPUs and DGX B200 $47,409/GPU, each / (1 - 0.19) for the
    cluster interconnect share (Epoch CLUSTER_INTERCONNECT_COST_FRACTION); GB200 NVL72 $5.0M / 72."""
    interconnect = 0.19
    assert tk.tco_inputs("H100").capex_usd_per_accelerator == pytest.approx(270_000 / 8 / (1 - interconnect), rel=1e-6)
    assert tk.tco_inputs("B200").capex_usd_per_accelerator == pytest.approx(47_409 / (1 - interconnect), rel=1e-6)
    assert tk.tco_inputs("GB200").capex_usd_per_accelerator == pytest.approx(5_000_000 / 72, rel=1e-6)


def test_capex_is_per_accelerator_not_per_system() -> None:
    """A per-rack or per-server price slipped into the per-accelerator column would be >= $250k."""
    table = tk.tco_table()
    assert (table["capex_usd_per_accelerator"] < 250_000).all()
    # Newer generations of one vendor line cost more per accelerator.
    cap = table["capex_usd_per_accelerator"]
    assert cap["h100-sxm"] < cap["b200"] < cap["gb200-nvl72"] < cap["vr200-nvl144"]
