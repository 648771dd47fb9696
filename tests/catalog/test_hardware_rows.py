"""Row-level and per-accelerator checks of the bundled hardware catalog.

One test case per row of ``data/hardware/specs.csv`` (it validates on its own against the
vocabulary, cites a source and sits inside a plausible range for its parameter), then invariants
per accelerator that catch the classic transcription traps: sparse FLOPS recorded as dense,
two-way bandwidth recorded as one-way, GiB recorded as GB, and per-rack figures recorded per chip.
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
from tokenomics.catalog._tidy import CONFIDENCE_LEVELS, read_index, read_tidy, read_vocabulary
from tokenomics.units import BYTES_PER_GB, BYTES_PER_GIB

DATA = data_dir()
SPECS = DATA / TABLES["hardware"].relpath
INDEX = DATA / TABLES["hardware_index"].relpath
VOCAB = read_vocabulary(DATA / "parameters.csv")
TODAY = dt.datetime.now(dt.UTC).date()
# A source names a document: a URL, or a repository file as github.com/owner/repo path.
_CITATION = re.compile(r"^(https?://\S+|github\.com/[\w.-]+/[\w.-]+ \S+)")


def _rows() -> list[dict[str, str]]:
    """Rows of the file with their line number (header is line 1) under ``_line``."""
    with SPECS.open(newline="", encoding="utf-8") as fh:
        return [{**r, "_line": str(line)} for line, r in enumerate(csv.DictReader(fh), start=2)]


@functools.cache
def _validated_lines() -> frozenset[int]:
    """Lines of the file that the validator read as values (the whole file, read once)."""
    frame = read_tidy(SPECS, table="hardware", key_columns=("hardware_id",), vocabulary=VOCAB)
    return frozenset(int(v) for v in frame["line"])


ROWS = _rows()
INDEX_FRAME = read_index(INDEX, key_column="hardware_id", required=())
INDEX_IDS = sorted(INDEX_FRAME["hardware_id"])
VENDOR = dict(zip(INDEX_FRAME["hardware_id"], INDEX_FRAME["vendor"], strict=True))
HAS: dict[str, set[str]] = {}
for _r in ROWS:
    HAS.setdefault(_r["hardware_id"], set()).add(_r["parameter"])

# Plausible range of each parameter for accelerators of 2022-2027 (per accelerator, dense, one way).
# A value outside is a unit slip (TB/s as GB/s, W as kW), a per-rack figure, or a percent.
BOUNDS: dict[str, tuple[float, float]] = {
    "bf16_dense_tflops": (50, 10_000),
    "fp8_dense_tflops": (100, 30_000),
    "fp4_dense_tflops": (1_000, 60_000),
    "int8_dense_tops": (100, 10_000),
    "hbm_capacity_gb": (8, 400),
    "hbm_bandwidth_tb_per_s": (0.5, 30),
    "scaleup_domain_accelerators": (1, 10_000),
    "scaleup_bw_unidir_gb_per_s": (50, 2_000),
    "scaleout_bw_unidir_gb_per_s": (1, 400),
    "host_memory_gb_per_accelerator": (16, 2_000),
    "host_link_bw_unidir_gb_per_s": (16, 1_000),
    "tdp_w": (100, 2_500),
    "host_link_latency_us": (0.1, 10),
    "nvme_capacity_tb_per_accelerator": (0.1, 100),
    "nvme_read_bw_gb_per_s_per_accelerator": (0.5, 100),
    "nvme_read_latency_us": (5, 1_000),
    "nvme_random_read_kiops_per_accelerator": (10, 20_000),
    "cxl_memory_gb_per_accelerator": (16, 4_096),
    "cxl_bw_gb_per_s_per_accelerator": (4, 512),
    "cxl_latency_us": (0.1, 10),
    "it_power_kw_per_accelerator": (0.3, 5),
    "facility_power_kw_per_accelerator": (0.5, 6),
    "accelerators_per_system": (1, 10_000),
    "release_year": (2020, 2027),
}


def _row_id(r: dict[str, str]) -> str:
    return f"{r['hardware_id']}:{r['parameter']}@{r['as_of']}"


@pytest.mark.parametrize("row", ROWS, ids=[_row_id(r) for r in ROWS])
def test_row_validates(row: dict[str, str]) -> None:
    """Each row passes the validator, cites a document and lies in its plausible range."""
    assert int(row["_line"]) in _validated_lines()
    assert row["unit"] == VOCAB[("hardware", row["parameter"])].unit
    assert row["hardware_id"] in INDEX_IDS, f"{row['hardware_id']} is not in {INDEX}"
    assert _CITATION.search(row["source"]), f"source does not cite a document: {row['source']!r}"
    assert row["confidence"] in CONFIDENCE_LEVELS
    as_of = dt.date.fromisoformat(row["as_of"])
    assert dt.date(2019, 1, 1) <= as_of <= TODAY
    if row["confidence"] in ("estimate", "unverified"):
        assert row["note"], "an estimate or unverified value must say how it was obtained"
    low, high = BOUNDS[row["parameter"]]
    assert low <= float(row["value"]) <= high, f"{row['parameter']}={row['value']} outside [{low}, {high}]"


@pytest.mark.parametrize("row", [r for r in ROWS if "GiB =" in r["note"]],
                         ids=[_row_id(r) for r in ROWS if "GiB =" in r["note"]])
def test_gib_rows_are_converted_to_decimal_gb(row: dict[str, str]) -> None:
    """A value the source gives in GiB is stored in decimal GB (x 1.0737), as the note says."""
    match = re.search(r"([\d,.]+) GiB =", row["note"])
    assert match is not None
    gib = float(match.group(1).replace(",", ""))
    assert float(row["value"]) == pytest.approx(gib * BYTES_PER_GIB / BYTES_PER_GB, rel=1e-3)


def test_whole_file_validates_and_covers_the_index() -> None:
    frame = read_tidy(SPECS, table="hardware", key_columns=("hardware_id",), vocabulary=VOCAB)
    assert set(frame["hardware_id"]) == set(INDEX_IDS), "every indexed accelerator has spec rows and vice versa"


@pytest.mark.parametrize("hardware_id", INDEX_IDS)
def test_accelerator_loads(hardware_id: str) -> None:
    hw = tk.hardware(hardware_id)
    assert hw.hardware_id == hardware_id
    assert hw.name
    assert hw.vendor
    assert hw.system
    # Required values come with provenance pointing back at a catalog row.
    for name in ("hbm_capacity_gb", "hbm_bandwidth_tb_per_s", "scaleup_domain_accelerators",
                 "scaleup_bw_unidir_gb_per_s", "accelerators_per_system", "release_year"):
        assert name in hw.provenance
    # At least one dense tensor rate, so roofline code has something to use.
    assert any(v is not None for v in (hw.bf16_dense_tflops, hw.fp8_dense_tflops, hw.fp4_dense_tflops,
                                        hw.int8_dense_tops))
    # A scale-up domain never spans more than one purchasable system in this catalog.
    assert hw.scaleup_domain_accelerators <= hw.accelerators_per_system


@pytest.mark.parametrize("hardware_id", [
    h for h in INDEX_IDS
    if VENDOR[h] in ("NVIDIA", "AMD") and {"bf16_dense_tflops", "fp8_dense_tflops"} <= HAS.get(h, set())
])
def test_dense_fp8_is_twice_bf16_on_gpus(hardware_id: str) -> None:
    """On NVIDIA and AMD GPUs dense FP8 = 2 x dense BF16; a sparse figure in one column breaks this."""
    hw = tk.hardware(hardware_id)
    assert hw.fp8_dense_tflops is not None
    assert hw.bf16_dense_tflops is not None
    assert hw.fp8_dense_tflops / hw.bf16_dense_tflops == pytest.approx(2.0, rel=0.10)


@pytest.mark.parametrize("hardware_id", [
    h for h in INDEX_IDS if {"fp4_dense_tflops", "fp8_dense_tflops"} <= HAS.get(h, set())
])
def test_fp4_rate_is_two_to_three_times_fp8(hardware_id: str) -> None:
    """FP4 is 2x FP8 on Blackwell/CDNA4 and 3x on Blackwell Ultra; 4x or 6x means a sparse FP4 figure."""
    hw = tk.hardware(hardware_id)
    assert hw.fp4_dense_tflops is not None
    assert hw.fp8_dense_tflops is not None
    assert 1.8 <= hw.fp4_dense_tflops / hw.fp8_dense_tflops <= 3.1


# Vendor headline scale-up bandwidth per accelerator, BOTH directions, as the vendors print it
# (NVIDIA NVLink 4 900 GB/s, NVLink 5 1.8 TB/s, NVLink 6 3.6 TB/s; H800 400 GB/s; Google ICI
# "bidirectional per chip" from docs.cloud.google.com/tpu/docs/v5e and .../tpu7x, checked 2026-11-29).
# The catalog stores one direction, i.e. exactly half.
BIDIRECTIONAL_GB_PER_S = {
    "h100-sxm": 900, "h200-sxm": 900, "h800": 400, "b200": 1800, "b300": 1800,
    "gb200-nvl72": 1800, "gb300-nvl72": 1800, "vr200-nvl144": 3600,
    "tpu-v5e": 400, "tpu-v5p": 1200, "tpu-v6e": 800, "tpu-v7": 1200,
}


@pytest.mark.parametrize(("hardware_id", "bidir"), sorted(BIDIRECTIONAL_GB_PER_S.items()))
def test_scaleup_bandwidth_is_one_direction(hardware_id: str, bidir: float) -> None:
    assert tk.hardware(hardware_id).scaleup_bw_unidir_gb_per_s == pytest.approx(bidir / 2)


@pytest.mark.parametrize("hardware_id", INDEX_IDS)
def test_network_hierarchy(hardware_id: str) -> None:
    """Scale-out per accelerator is slower than scale-up; HBM is faster than both."""
    hw = tk.hardware(hardware_id)
    hbm_gb_per_s = hw.hbm_bandwidth_bytes_per_s / BYTES_PER_GB
    assert hw.scaleup_bw_unidir_gb_per_s < hbm_gb_per_s
    if hw.scaleout_bw_unidir_gb_per_s is not None:
        assert hw.scaleout_bw_unidir_gb_per_s < hw.scaleup_bw_unidir_gb_per_s


@pytest.mark.parametrize("hardware_id", INDEX_IDS)
def test_power_is_per_accelerator(hardware_id: str) -> None:
    """Power per accelerator exceeds the chip's TDP (the server adds CPUs, NICs, fans) but is far
    below a rack's; facility power is IT power times a PUE-like factor.

    IT power is the system's maximum rating while the SemiAnalysis facility power is what it
    provisions for a typical node, so the ratio may dip just below 1 (B200: 1.71 / 1.79).
    """
    hw = tk.hardware(hardware_id)
    if hw.tdp_w is not None and hw.it_power_kw_per_accelerator is not None:
        assert 1.0 <= hw.it_power_kw_per_accelerator * 1e3 / hw.tdp_w <= 2.5
    if hw.it_power_kw_per_accelerator is not None and hw.facility_power_kw_per_accelerator is not None:
        assert 0.9 <= hw.facility_power_kw_per_accelerator / hw.it_power_kw_per_accelerator <= 1.8


def test_rack_scale_systems_count_packages() -> None:
    """GB200/GB300/Vera Rubin racks hold 72 accelerators; Vera Rubin counts 2-die packages, not dies."""
    for hid in ("gb200-nvl72", "gb300-nvl72", "vr200-nvl144"):
        hw = tk.hardware(hid)
        assert hw.accelerators_per_system == 72
        assert hw.scaleup_domain_accelerators == 72
    # Rack HBM of Vera Rubin NVL72 is 20.7 TB (CES 2026): per package 20.7e3 / 72 = 287.5 GB.
    assert tk.hardware("vr200-nvl144").hbm_capacity_gb == pytest.approx(20.7e3 / 72, rel=0.01)


def test_h800_differs_from_h100_only_in_nvlink() -> None:
    h100, h800 = tk.hardware("h100-sxm"), tk.hardware("h800")
    assert h800.fp8_dense_tflops == h100.fp8_dense_tflops
    assert h800.hbm_bandwidth_tb_per_s == h100.hbm_bandwidth_tb_per_s
    assert h800.scaleup_bw_unidir_gb_per_s < h100.scaleup_bw_unidir_gb_per_s


@pytest.mark.parametrize(("alias", "hardware_id"), [
    ("GB200", "gb200-nvl72"), ("Ironwood", "tpu-v7"), ("TPU7x", "tpu-v7"), ("Vera Rubin NVL72", "vr200-nvl144"),
    ("Trn2", "trainium2"), ("H100 SXM5", "h100-sxm"), ("Instinct MI355X", "mi355x"), ("Trillium", "tpu-v6e"),
])
def test_aliases_resolve(alias: str, hardware_id: str) -> None:
    assert tk.hardware(alias).hardware_id == hardware_id


def test_catalog_facility_power_matches_latest_published_set() -> None:
    """The hardware catalog's facility power is the latest published SemiAnalysis figure."""
    frame = REGISTRY.frame("published_tco")
    power = frame[frame["parameter"] == "facility_power_kw_per_accelerator"]
    latest = power.sort_values("vintage").groupby("hardware_id").last()
    assert len(latest) >= 10
    for hid, rec in latest.iterrows():
        assert tk.hardware(str(hid)).facility_power_kw_per_accelerator == pytest.approx(rec["value"])
