"""Bad catalog files added by a user: an error naming the file, the line, the field, the value
and the allowed range; nothing dropped, defaulted or silently accepted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import tokenomics as tk
from tests.reliability._clear import assert_clear
from tokenomics.catalog import CatalogError

HW_HEADER = "hardware_id,parameter,value,unit,source,as_of,confidence,note"
GOOD_ROW = "h100-sxm,hbm_capacity_gb,80,GB,datasheet,2026-01-01,verified,"


def _values_file(tmp_path: Path, row: str, name: str = "user.csv") -> Path:
    path = tmp_path / name
    path.write_text("\n".join([HW_HEADER, GOOD_ROW, row]) + "\n", encoding="utf-8")
    return path


# (id, row on line 3, field the message names, fragments)
ROW_CASES: list[tuple[str, str, str, tuple[str, ...]]] = [
    ("tb-as-gb", "b200,hbm_capacity_gb,0.18,GB,src,2026-01-01,estimate,", "value", ("0.18", "[4, 2000] GB")),
    ("gb-as-mb", "b200,hbm_capacity_gb,192000,GB,src,2026-01-01,estimate,", "value", ("192000", "2000")),
    ("bw-gb-as-tb", "b200,hbm_bandwidth_tb_per_s,8000,TB/s,src,2026-01-01,estimate,", "value", ("8000", "100")),
    ("bw-tiny", "b200,hbm_bandwidth_tb_per_s,0.008,TB/s,src,2026-01-01,estimate,", "value", ("0.008", "0.05")),
    ("tdp-kw-as-w", "b200,tdp_w,1.2,W,src,2026-01-01,estimate,", "value", ("1.2", "[10, 10000] W")),
    ("tdp-mw", "b200,tdp_w,1200000,W,src,2026-01-01,estimate,", "value", ("1.2e+06", "10000")),
    ("it-power-w", "b200,it_power_kw_per_accelerator,1400,kW,src,2026-01-01,estimate,", "value", ("1400", "20")),
    ("flops-negative", "b200,bf16_dense_tflops,-2250,TFLOPS,src,2026-01-01,estimate,", "value", ("-2250", "> 0")),
    ("flops-zero", "b200,bf16_dense_tflops,0,TFLOPS,src,2026-01-01,estimate,", "value", ("0", "> 0")),
    ("flops-nan", "b200,bf16_dense_tflops,nan,TFLOPS,src,2026-01-01,estimate,", "value", ("nan", "finite")),
    ("flops-inf", "b200,bf16_dense_tflops,inf,TFLOPS,src,2026-01-01,estimate,", "value", ("inf", "finite")),
    ("flops-text", "b200,bf16_dense_tflops,lots,TFLOPS,src,2026-01-01,estimate,", "value", ("lots",)),
    ("flops-comma", "b200,bf16_dense_tflops,\"2,250\",TFLOPS,src,2026-01-01,estimate,", "value", ("2,250",)),
    ("flops-empty", "b200,bf16_dense_tflops,,TFLOPS,src,2026-01-01,estimate,", "value", ("''",)),
    ("count-fraction", "b200,accelerators_per_system,7.5,count,src,2026-01-01,estimate,", "value",
     ("7.5", "integer")),
    ("count-zero", "b200,scaleup_domain_accelerators,0,count,src,2026-01-01,estimate,", "value", ("0", "integer")),
    ("year-text", "b200,release_year,2024.5,year,src,2026-01-01,estimate,", "value", ("2024.5", "year")),
    ("year-far", "b200,release_year,2300,year,src,2026-01-01,estimate,", "value", ("2300", "2100")),
    ("unit-wrong", "b200,hbm_capacity_gb,192,GiB,src,2026-01-01,estimate,", "unit", ("GiB", "GB")),
    ("unit-tb", "b200,hbm_capacity_gb,0.192,TB,src,2026-01-01,estimate,", "unit", ("TB",)),
    ("unit-empty", "b200,hbm_capacity_gb,192,,src,2026-01-01,estimate,", "unit", ("''",)),
    ("parameter-unknown", "b200,hbm_size_gb,192,GB,src,2026-01-01,estimate,", "parameter", ("hbm_size_gb",)),
    ("parameter-other-table", "b200,input_usd_per_mtok,1,USD/Mtok,src,2026-01-01,estimate,", "parameter",
     ("input_usd_per_mtok",)),
    ("source-missing", "b200,hbm_capacity_gb,192,GB,,2026-01-01,estimate,", "source", ("missing source",)),
    ("as-of-text", "b200,hbm_capacity_gb,192,GB,src,last year,estimate,", "as_of", ("last year", "iso")),
    ("as-of-us", "b200,hbm_capacity_gb,192,GB,src,03/15/2025,estimate,", "as_of", ("03/15/2025",)),
    ("as-of-future", "b200,hbm_capacity_gb,192,GB,src,2999-01-01,estimate,", "as_of", ("2999-01-01", "future")),
    ("as-of-empty", "b200,hbm_capacity_gb,192,GB,src,,estimate,", "as_of", ("''",)),
    ("confidence", "b200,hbm_capacity_gb,192,GB,src,2026-01-01,sure,", "confidence", ("sure",)),
    ("key-empty", ",hbm_capacity_gb,192,GB,src,2026-01-01,estimate,", "hardware_id", ("empty",)),
    ("extra-field", "b200,hbm_capacity_gb,192,GB,src,2026-01-01,estimate,,surplus", "row", ("more fields",)),
    ("duplicate", GOOD_ROW, "parameter", ("duplicate", "line 2")),
]


@pytest.mark.parametrize(("row", "field", "fragments"), [c[1:] for c in ROW_CASES], ids=[c[0] for c in ROW_CASES])
def test_values_row(tmp_path: Path, row: str, field: str, fragments: tuple[str, ...]) -> None:
    path = _values_file(tmp_path, row)
    text = assert_clear(lambda: tk.add_catalog_file(path, table="hardware"), CatalogError,
                        (str(path), "line 3", *fragments))
    assert f"field {field!r}" in text
    assert tk.hardware("b200").hbm_capacity_gb != 0.18  # a rejected file leaves the catalog as it was


PRICE_HEADER = "model_id,provider,tier,parameter,value,unit,source,as_of,confidence,note"
PRICE_CASES: list[tuple[str, str, tuple[str, ...]]] = [
    ("per-token", "deepseek-r1,Me,standard,input_usd_per_mtok,0.00000055,USD/Mtok,src,2026-01-01,estimate,",
     ("5.5e-07", "0.001")),
    ("per-thousand", "deepseek-r1,Me,standard,output_usd_per_mtok,2190,USD/Mtok,src,2026-01-01,estimate,",
     ("2190", "1000")),
    ("negative", "deepseek-r1,Me,standard,output_usd_per_mtok,-2,USD/Mtok,src,2026-01-01,estimate,", ("-2",)),
    ("unit-per-token", "deepseek-r1,Me,standard,output_usd_per_mtok,2,USD/token,src,2026-01-01,estimate,",
     ("USD/token",)),
]


@pytest.mark.parametrize(("row", "fragments"), [c[1:] for c in PRICE_CASES], ids=[c[0] for c in PRICE_CASES])
def test_price_row(tmp_path: Path, row: str, fragments: tuple[str, ...]) -> None:
    path = tmp_path / "prices.csv"
    path.write_text(PRICE_HEADER + "\n" + row + "\n")
    assert_clear(lambda: tk.add_catalog_file(path, table="price"), CatalogError, (str(path), "line 2", *fragments))


def test_free_price_is_allowed(tmp_path: Path, clean_catalogs: None) -> None:
    # zero is a price (a free tier), not a unit slip: the documented correct result
    path = tmp_path / "prices.csv"
    path.write_text(PRICE_HEADER + "\n"
                    + "deepseek-r1,Me,standard,input_usd_per_mtok,0,USD/Mtok,src,2026-01-01,estimate,\n"
                    + "deepseek-r1,Me,standard,output_usd_per_mtok,0,USD/Mtok,src,2026-01-01,estimate,\n")
    tk.add_catalog_file(path, table="price")
    assert tk.price("deepseek-r1", "Me").output_usd_per_mtok == 0.0


INDEX_HEADER = "hardware_id,name,vendor,family,accelerator_kind,system,aliases,note"
INDEX_CASES: list[tuple[str, str, str, tuple[str, ...]]] = [
    ("extra-fields", "my-chip,My Chip,Acme,acme,gpu,box,mychip,a note,lost,also lost", "row",
     ("10 fields", "8 columns", "lost")),
    ("id-empty", ",My Chip,Acme,acme,gpu,box,mychip,", "hardware_id", ("empty",)),
    ("duplicate-id", "h100-sxm,Again,NVIDIA,hopper,gpu,box,,", "hardware_id", ("duplicate",)),
]


@pytest.mark.parametrize(("row", "field", "fragments"), [c[1:] for c in INDEX_CASES], ids=[c[0] for c in INDEX_CASES])
def test_index_row(tmp_path: Path, row: str, field: str, fragments: tuple[str, ...]) -> None:
    path = tmp_path / "index.csv"
    lines = [INDEX_HEADER, row] if field != "hardware_id" or "duplicate" not in fragments else [
        INDEX_HEADER, "h100-sxm,H,NVIDIA,hopper,gpu,box,,", row]
    path.write_text("\n".join(lines) + "\n")
    text = assert_clear(lambda: tk.add_catalog_file(path, table="hardware_index"), CatalogError,
                        (str(path), *fragments))
    assert f"field {field!r}" in text


WHOLE_FILE: list[tuple[str, bytes, tuple[str, ...]]] = [
    ("latin1", (HW_HEADER + "\nb200,hbm_capacity_gb,192,GB,caf\xe9,2026-01-01,estimate,\n").encode("latin-1"),
     ("not utf-8",)),
    ("utf16", (HW_HEADER + "\n" + GOOD_ROW + "\n").encode("utf-16"), ("not utf-8",)),
    ("missing-column", b"hardware_id,parameter,value,unit,source,as_of,note\n", ("confidence", "missing")),
    ("empty", b"", ("missing",)),
    ("unclosed-quote", (HW_HEADER + '\nb200,hbm_capacity_gb,"192,GB,src,2026-01-01,estimate,\n').encode(),
     ("line",)),
]


@pytest.mark.parametrize(("content", "fragments"), [c[1:] for c in WHOLE_FILE], ids=[c[0] for c in WHOLE_FILE])
def test_whole_file(tmp_path: Path, content: bytes, fragments: tuple[str, ...]) -> None:
    path = tmp_path / "user.csv"
    path.write_bytes(content)
    assert_clear(lambda: tk.add_catalog_file(path, table="hardware"), CatalogError, (str(path), *fragments))


def test_bom_header_is_read(tmp_path: Path, clean_catalogs: None) -> None:
    # a byte-order mark (Excel's "CSV UTF-8") is not a missing column: the row is read
    path = tmp_path / "user.csv"
    row = "b200,hbm_capacity_gb,190,GB,src,2026-01-01,estimate,"
    path.write_bytes(b"\xef\xbb\xbf" + (HW_HEADER + "\n" + row + "\n").encode())
    tk.add_catalog_file(path, table="hardware")
    assert tk.hardware("b200").hbm_capacity_gb == 190.0


def test_unknown_table(tmp_path: Path) -> None:
    path = _values_file(tmp_path, GOOD_ROW.replace("80", "81"))
    assert_clear(lambda: tk.add_catalog_file(path, table="hardwares"), KeyError, ("hardwares",))


def test_missing_file(tmp_path: Path) -> None:
    assert_clear(lambda: tk.add_catalog_file(tmp_path / "nope.csv", table="hardware"), FileNotFoundError,
                 ("nope.csv",))
