"""Lookups, aliases, user catalog files, overrides and malformed-file errors."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.catalog import CatalogError, resolve_hardware_id, resolve_model_id

HEADER = "hardware_id,parameter,value,unit,source,as_of,confidence,note\n"
GOOD = "h100-sxm,hbm_capacity_gb,81,GB,my lab,2026-01-01,estimate,\n"


def write(tmp_path: Path, text: str, name: str = "user.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["GB200", "gb200-nvl72", "GB200 NVL72", "gb200_nvl72", "NVIDIA GB200 NVL72"])
def test_hardware_aliases_resolve(name):
    assert resolve_hardware_id(name) == "gb200-nvl72"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("TPU v7", "tpu-v7"),
        ("Ironwood", "tpu-v7"),
        ("tpu7x", "tpu-v7"),
        ("Vera Rubin", "vr200-nvl144"),
        ("MI355X", "mi355x"),
        ("h100", "h100-sxm"),
        ("Trn2", "trainium2"),
    ],
)
def test_more_hardware_aliases(name, expected):
    assert resolve_hardware_id(name) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("DeepSeek R1", "deepseek-r1"),
        ("deepseek-reasoner", "deepseek-r1"),
        ("GPT-OSS 120B", "gpt-oss-120b"),
        ("Llama-3.3-70B-Instruct", "llama-3.3-70b"),
    ],
)
def test_model_aliases_resolve(name, expected):
    assert resolve_model_id(name) == expected


def test_unknown_hardware_lists_close_ids():
    with pytest.raises(KeyError, match=r"closest: .*GB200") as info:
        tk.hardware("GB2000")
    assert "gb200-nvl72" in str(info.value)


def test_unknown_model_raises_keyerror():
    with pytest.raises(KeyError, match="unknown model 'deepsek-r1'; closest"):
        tk.model("deepsek-r1")


def test_unknown_tco_profile_lists_profiles():
    with pytest.raises(KeyError, match="hyperscaler"):
        tk.tco_profile("hyperscalar")


def test_hardware_object_carries_provenance_and_units():
    hw = tk.hardware("H100")
    prov = hw.provenance["hbm_bandwidth_tb_per_s"]
    assert prov.unit == "TB/s"
    assert prov.source
    assert prov.as_of <= dt.date.today()
    assert hw.hbm_bandwidth_bytes_per_s == pytest.approx(hw.hbm_bandwidth_tb_per_s * 1e12)
    frame = hw.to_frame()
    assert set(frame.columns) >= {"parameter", "value", "unit", "source", "as_of", "confidence"}
    assert "<table" in hw._repr_html_()


def test_hardware_table_is_wide_with_unit_suffixes():
    table = tk.hardware_table()
    assert table.index.name == "hardware_id"
    assert {"hbm_capacity_gb", "hbm_bandwidth_tb_per_s", "bf16_dense_tflops"} <= set(table.columns)
    assert table.loc["h100-sxm", "hbm_capacity_gb"] == tk.hardware("h100-sxm").hbm_capacity_gb


def test_dense_tflops_falls_back_to_wider_precision():
    hw = tk.hardware("H100")
    assert hw.fp4_dense_tflops is None
    assert hw.dense_tflops("nvfp4") == hw.fp8_dense_tflops
    with pytest.raises(KeyError, match="precision"):
        hw.dense_tflops("fp7")


def test_with_values_overrides_and_records_source():
    hw = tk.hardware("H100")
    new = hw.with_values(hbm_bandwidth_tb_per_s=4.0, source="my measurement")
    assert new.hbm_bandwidth_tb_per_s == 4.0
    assert new.provenance["hbm_bandwidth_tb_per_s"].source == "my measurement"
    assert hw.hbm_bandwidth_tb_per_s != 4.0  # original unchanged
    with pytest.raises(KeyError, match="hbm_bandwidth_tb_per_s"):
        hw.with_values(hbm_bandwith_tb_per_s=4.0)


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        ({"layers": 100}, "dense_layers=80 + moe_layers=0 must equal layers=100"),
        ({"kv_heads": 128}, "kv_heads=128 exceeds attention_heads=64"),
        ({"active_params_b": 80.0}, "active_params_b=80 exceeds total_params_b=70.55"),
    ],
)
def test_an_edited_model_whose_counts_disagree_is_refused(edit: dict[str, float], needle: str) -> None:
    llama = tk.model("llama-3.3-70b")
    with pytest.raises(ValueError, match=re.escape(needle)):
        llama.with_values(**edit)
    # the related fields given together are one consistent architecture
    deeper = llama.with_values(layers=100, dense_layers=100)
    assert (deeper.layers, deeper.dense_layers, deeper.moe_layers) == (100, 100, 0)


def test_model_copy_update_also_works():
    hw = tk.hardware("H100").model_copy(update={"tdp_w": 650.0})
    assert hw.tdp_w == 650.0


def test_user_file_overrides_bundled_value(tmp_path, clean_catalogs):
    tk.add_catalog_file(write(tmp_path, HEADER + GOOD), table="hardware")
    hw = tk.hardware("H100")
    assert hw.hbm_capacity_gb == 81.0
    assert hw.provenance["hbm_capacity_gb"].source == "my lab"
    tk.reset_catalogs()
    assert tk.hardware("H100").provenance["hbm_capacity_gb"].source != "my lab"


def test_user_can_add_a_new_system(tmp_path, clean_catalogs):
    index = write(
        tmp_path,
        "hardware_id,name,vendor,family,accelerator_kind,system,aliases,note\n"
        "my-chip,My Chip,Acme,acme,asic,Acme box,AcmeChip,\n",
        "index.csv",
    )
    rows = [
        ("hbm_capacity_gb", 100, "GB"),
        ("hbm_bandwidth_tb_per_s", 5, "TB/s"),
        ("scaleup_domain_accelerators", 16, "count"),
        ("scaleup_bw_unidir_gb_per_s", 400, "GB/s"),
        ("accelerators_per_system", 16, "count"),
        ("release_year", 2026, "year"),
    ]
    specs = write(
        tmp_path,
        HEADER + "".join(f"my-chip,{p},{v},{u},datasheet,2026-06-01,verified,\n" for p, v, u in rows),
        "specs.csv",
    )
    tk.add_catalog_file(index, table="hardware_index")
    tk.add_catalog_file(specs, table="hardware")
    assert tk.hardware("acmechip").hbm_capacity_gb == 100.0
    assert "my-chip" in tk.hardware_table().index


def test_unknown_table_name(tmp_path, clean_catalogs):
    with pytest.raises(KeyError, match="catalog table"):
        tk.add_catalog_file(write(tmp_path, HEADER + GOOD), table="hardwares")


def test_missing_file(tmp_path, clean_catalogs):
    with pytest.raises(FileNotFoundError):
        tk.add_catalog_file(tmp_path / "nope.csv", table="hardware")


FUTURE = (dt.date.today() + dt.timedelta(days=30)).isoformat()


@pytest.mark.parametrize(
    ("row", "field", "message"),
    [
        (
            "h100-sxm,hbm_capacity_gbs,81,GB,src,2026-01-01,estimate,",
            "parameter",
            "unknown parameter 'hbm_capacity_gbs'",
        ),
        ("h100-sxm,hbm_capacity_gb,81,GiB,src,2026-01-01,estimate,", "unit", "not the vocabulary's unit 'GB'"),
        ("h100-sxm,hbm_capacity_gb,81,GB,,2026-01-01,estimate,", "source", "missing source"),
        (f"h100-sxm,hbm_capacity_gb,81,GB,src,{FUTURE},estimate,", "as_of", "in the future"),
        ("h100-sxm,hbm_capacity_gb,81,GB,src,01/02/2026,estimate,", "as_of", "not an ISO date"),
        ("h100-sxm,hbm_capacity_gb,0,GB,src,2026-01-01,estimate,", "value", "must be > 0"),
        ("h100-sxm,hbm_capacity_gb,-5,GB,src,2026-01-01,estimate,", "value", "must be > 0"),
        ("h100-sxm,hbm_capacity_gb,eighty,GB,src,2026-01-01,estimate,", "value", "not a number"),
        ("h100-sxm,scaleup_domain_accelerators,7.5,count,src,2026-01-01,estimate,", "value", "positive integer"),
        ("h100-sxm,release_year,23,year,src,2026-01-01,estimate,", "value", "calendar year"),
        ("h100-sxm,hbm_capacity_gb,81,GB,src,2026-01-01,sure,", "confidence", "not in"),
        (",hbm_capacity_gb,81,GB,src,2026-01-01,estimate,", "hardware_id", "empty key"),
    ],
)
def test_malformed_values_file_names_file_line_field(tmp_path, clean_catalogs, row, field, message):
    path = write(tmp_path, HEADER + GOOD + row + "\n")
    with pytest.raises(CatalogError) as info:
        tk.add_catalog_file(path, table="hardware")
    err = info.value
    assert err.path == str(path)
    assert err.field == field
    assert "line 3" in err.where
    assert message in str(err)
    assert str(path) in str(err)


def test_duplicate_row_is_an_error(tmp_path, clean_catalogs):
    with pytest.raises(CatalogError, match="duplicate of line 2"):
        tk.add_catalog_file(write(tmp_path, HEADER + GOOD + GOOD), table="hardware")


def test_missing_column_is_an_error(tmp_path, clean_catalogs):
    path = write(tmp_path, "hardware_id,parameter,value,unit,as_of,confidence,note\n")
    with pytest.raises(CatalogError, match="'source': required column is missing"):
        tk.add_catalog_file(path, table="hardware")


PROFILE_HEADER = "profile_id,parameter,value,unit,source,as_of,confidence,note\n"


def test_percent_given_for_fraction_is_named(tmp_path, clean_catalogs):
    path = write(
        tmp_path, PROFILE_HEADER + "hyperscaler,cost_of_capital_frac,8,fraction/year,src,2026-01-01,estimate,\n"
    )
    with pytest.raises(CatalogError, match=r"percent given where a fraction is expected") as info:
        tk.add_catalog_file(path, table="tco_profile")
    assert info.value.field == "value"


def test_fraction_above_one_hundred_is_out_of_range(tmp_path, clean_catalogs):
    path = write(
        tmp_path, PROFILE_HEADER + "hyperscaler,maintenance_frac_per_year,150,fraction/year,src,2026-01-01,estimate,\n"
    )
    with pytest.raises(CatalogError, match=r"outside the fraction range \[0, 1\]"):
        tk.add_catalog_file(path, table="tco_profile")


def test_pue_below_one_is_rejected(tmp_path, clean_catalogs):
    path = write(tmp_path, PROFILE_HEADER + "hyperscaler,pue,0.9,ratio,src,2026-01-01,estimate,\n")
    with pytest.raises(CatalogError, match="must be >= 1"):
        tk.add_catalog_file(path, table="tco_profile")


def test_malformed_index_file(tmp_path, clean_catalogs):
    path = write(
        tmp_path, "hardware_id,name,vendor,family,accelerator_kind,system,aliases\nx,X,,fam,gpu,box,\n", "index.csv"
    )
    with pytest.raises(CatalogError, match="line 2, field 'vendor': empty value"):
        tk.add_catalog_file(path, table="hardware_index")


def test_malformed_boolean_in_model_index(tmp_path, clean_catalogs):
    path = write(
        tmp_path,
        "model_id,name,developer,attention_type,native_weight_precision,open_weights,"
        "first_party_provider,aliases\nm,M,Dev,gqa,bf16,yes,Dev,\n",
        "index.csv",
    )
    with pytest.raises(CatalogError, match="'open_weights': 'yes' is not true/false"):
        tk.add_catalog_file(path, table="model_index")


def test_bad_file_is_not_registered(tmp_path, clean_catalogs):
    bad = write(tmp_path, HEADER + "h100-sxm,hbm_capacity_gb,-1,GB,src,2026-01-01,estimate,\n")
    with pytest.raises(CatalogError):
        tk.add_catalog_file(bad, table="hardware")
    assert tk.hardware("H100").provenance["hbm_capacity_gb"].source != "src"


def test_every_bundled_table_loads():
    from tokenomics.catalog import TABLES
    from tokenomics.catalog._registry import REGISTRY

    for name in TABLES:
        frame = REGISTRY.frame(name)
        assert isinstance(frame, pd.DataFrame)


def test_vocabulary_units_are_single_per_parameter():
    from tokenomics.catalog._registry import REGISTRY

    vocab = REGISTRY.vocabulary()
    for (table, parameter), spec in vocab.items():
        assert spec.unit, (table, parameter)
        assert spec.description, (table, parameter)


PRICE_HEADER = "model_id,provider,parameter,value,unit,source,as_of,confidence,note\n"


def test_user_price_rows_win_even_when_older(tmp_path, clean_catalogs):
    rows = "".join(f"deepseek-r1,DeepSeek,{p},{v},USD/Mtok,my contract,2024-01-01,verified,\n"
                   for p, v in (("input_usd_per_mtok", 0.40), ("output_usd_per_mtok", 1.60)))
    tk.add_catalog_file(write(tmp_path, PRICE_HEADER + rows), table="price")
    p = tk.price("deepseek-r1")
    assert (p.input_usd_per_mtok, p.output_usd_per_mtok) == (0.40, 1.60)
    assert p.cached_input_usd_per_mtok is None  # never borrowed from the bundled snapshot
    assert p.provenance["input_usd_per_mtok"].source == "my contract"


def test_user_provider_is_the_default(tmp_path, clean_catalogs):
    rows = "".join(f"deepseek-r1,MyCo,{p},{v},USD/Mtok,negotiated,2026-06-01,verified,\n"
                   for p, v in (("input_usd_per_mtok", 0.50), ("output_usd_per_mtok", 2.00)))
    tk.add_catalog_file(write(tmp_path, PRICE_HEADER + rows), table="price")
    assert tk.price("deepseek-r1").provider == "MyCo"
    assert tk.price("deepseek-r1", "DeepSeek").provider == "DeepSeek"


def test_values_for_an_unknown_id_are_refused(tmp_path, clean_catalogs):
    path = write(tmp_path, HEADER + "h1000,hbm_capacity_gb,81,GB,my lab,2026-01-01,estimate,\n")
    with pytest.raises(CatalogError, match=r"unknown hardware_id 'h1000'.*hardware_index") as info:
        tk.add_catalog_file(path, table="hardware")
    assert info.value.field == "hardware_id"
    assert "line 2" in info.value.where


def test_unit_slip_beyond_plausible_maximum(tmp_path, clean_catalogs):
    path = write(tmp_path, HEADER + "h100-sxm,hbm_bandwidth_tb_per_s,3350,TB/s,my lab,2026-01-01,estimate,\n")
    with pytest.raises(CatalogError, match="plausible maximum 100 TB/s"):
        tk.add_catalog_file(path, table="hardware")
    with pytest.raises(ValueError, match="hbm_bandwidth_tb_per_s: value 3000 TB/s exceeds"):
        tk.hardware("H100").with_values(hbm_bandwidth_tb_per_s=3000)


def test_bundled_values_refer_to_indexed_ids():
    from tokenomics.catalog import TABLES
    from tokenomics.catalog._registry import REGISTRY

    for spec in TABLES.values():
        if spec.index_table:
            ids = set(REGISTRY.frame(spec.index_table)[spec.keys[0]])
            assert set(REGISTRY.frame(spec.name)[spec.keys[0]]) <= ids, spec.name
