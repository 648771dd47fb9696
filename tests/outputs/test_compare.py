"""compare(): the chain for several systems, recomputed by hand."""

from __future__ import annotations

import math
import warnings

import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.curves.reference import curve_kind_at


@pytest.fixture(scope="module")
def table():
    return tk.compare("deepseek-r1", ["gb200", "b200"], interactivity_tok_per_s_per_user=50.0,
                      utilization_frac=0.6, license_fee_frac=0.3, tco_basis="published",
                      tco_vintage="2026-09", tco_tier="hyperscaler", workload="8k/1k")


def test_rows_recompute_from_their_own_columns(table):
    for row in table.to_dict("records"):
        # cost per Mtok = $/GPU-hour / (tok/s/GPU x 3600 s/h x utilization) x 1e6 tok/Mtok
        cost = row["cost_usd_per_gpu_hour"] / (row["throughput_tok_per_s_per_gpu"] * 3600 * 0.6) * 1e6
        assert row["cost_usd_per_mtok"] == pytest.approx(cost, rel=1e-12)
        # the published Sep-2026 hyperscaler figure is the basis
        assert row["cost_usd_per_gpu_hour"] == tk.published_tco(row["hardware_id"]).usd_per_gpu_hour
        # revenue per GPU-hour = tok/s x 3600 x utilization x blended price / 1e6
        revenue = row["throughput_tok_per_s_per_gpu"] * 3600 * 0.6 * row["blended_price_usd_per_mtok"] / 1e6
        assert row["revenue_usd_per_gpu_hour"] == pytest.approx(revenue, rel=1e-12)
        margin = (revenue * (1 - 0.3) - row["cost_usd_per_gpu_hour"]) / revenue
        assert row["gross_margin_frac"] == pytest.approx(margin, rel=1e-9)
        # the split by token class adds up to the total
        share_in = 8192 / (8192 + 1024)
        total = share_in * row["input_cost_usd_per_mtok"] + (1 - share_in) * row["output_cost_usd_per_mtok"]
        assert total == pytest.approx(row["cost_usd_per_mtok"], rel=1e-9)


def test_throughput_is_read_off_the_reference_curve(table):
    for row in table.to_dict("records"):
        curve, _ = tk.reference_curve("deepseek-r1", row["hardware_id"], workload="8k/1k",
                                      interactivity_tok_per_s_per_user=50.0)
        assert row["curve_kind"] == curve_kind_at(curve, 50.0)
        assert row["throughput_tok_per_s_per_gpu"] == pytest.approx(float(curve.throughput_at(50.0)))


def test_sorted_by_cost(table):
    assert list(table["cost_usd_per_mtok"]) == sorted(table["cost_usd_per_mtok"])


def test_out_of_range_interactivity_is_reported_not_extrapolated():
    with pytest.raises(ValueError, match=r"interactivity_tok_per_s_per_user=5000 is beyond the fastest point of "
                                         r"the [\w ]+ curve of deepseek-r1 gb200-nvl72"):
        tk.compare("deepseek-r1", ["gb200"], interactivity_tok_per_s_per_user=5000.0)


def test_skipped_systems_are_listed():
    with pytest.warns(tk.SkippedSystemsWarning, match=r"1 of 2 systems left out \(trainium2: no published TCO"):
        table = tk.compare("deepseek-r1", ["gb200", "trainium2"], tco_basis="published")
    skipped = pd.DataFrame(table.attrs["skipped"])
    assert "trainium2" in set(skipped["hardware_id"])
    assert all(isinstance(r, str) and r for r in skipped["reason"])
    assert "trainium2" not in set(table["hardware_id"])


def test_compare_frames_concatenate() -> None:
    # attrs hold plain records, so pandas can compare them when frames are joined
    with pytest.warns(tk.SkippedSystemsWarning):
        a = tk.compare("deepseek-r1", ["gb200", "trainium2"], tco_basis="published")
    b = tk.compare("gpt-oss-120b", ["gb200"], tco_basis="published")
    both = pd.concat([a, b], ignore_index=True)
    assert len(both) == len(a) + len(b)
    assert pd.concat([a, a.copy()]).attrs["skipped"] == a.attrs["skipped"]


def test_a_comparison_that_drops_no_system_warns_nothing() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = tk.compare("deepseek-r1", ["gb200", "b200"])
    assert table.attrs["skipped"] == []


def test_open_weights_default_license_fee_is_zero():
    table = tk.compare("deepseek-r1", ["gb200"])
    assert table["license_fee_frac"].iloc[0] == 0.0
    assert math.isfinite(table["gross_margin_frac"].iloc[0])


def test_bad_inputs():
    with pytest.raises(ValueError, match="percent"):
        tk.compare("deepseek-r1", ["gb200"], utilization_frac=60)
    with pytest.raises(KeyError, match="closest"):
        tk.compare("deepseek-r1", ["gb2000"])
    with pytest.raises(KeyError, match="closest: output_usd_per_mtok"):
        tk.compare("deepseek-r1", ["gb200"], output_usd_per_mtk=2.0)
    with pytest.raises(ValueError, match="interactivity"):
        tk.compare("deepseek-r1", ["gb200"], interactivity_tok_per_s_per_user=0)


def test_explicit_prices_replace_catalog():
    table = tk.compare("deepseek-r1", ["gb200"], input_usd_per_mtok=1.0, output_usd_per_mtok=4.0,
                       cached_input_usd_per_mtok=0.1)
    row = table.iloc[0]
    assert row["input_usd_per_mtok"] == 1.0
    assert row["output_usd_per_mtok"] == 4.0


def test_projected_and_anchored_rows_carry_the_band():
    table = tk.compare("deepseek-r1", ["gb300", "gb200", "b200"], interactivity_tok_per_s_per_user=35.0,
                       workload="8k/1k")
    meas = table[table["curve_kind"] == "measured"]
    banded = table[table["curve_kind"].isin(["projected", "anchored"])]
    assert len(meas)
    assert len(banded)
    assert (banded["throughput_low_tok_per_s_per_gpu"] < banded["throughput_tok_per_s_per_gpu"]).all()
    assert (banded["throughput_high_tok_per_s_per_gpu"] > banded["throughput_tok_per_s_per_gpu"]).all()
    # cost is inversely proportional to throughput: the low-throughput end is the high-cost end
    ratio = banded["throughput_tok_per_s_per_gpu"] / banded["throughput_low_tok_per_s_per_gpu"]
    assert ((banded["cost_high_usd_per_mtok"] / (banded["cost_usd_per_mtok"] * ratio) - 1).abs() < 1e-12).all()
    assert meas["cost_low_usd_per_mtok"].isna().all()
    assert meas["anchor_ratio"].isna().all()
    anchored = table[table["curve_kind"] == "anchored"]
    assert (anchored["anchor_ratio"] > 0).all()


def test_default_tco_basis_matches_scenario_and_report():
    row = tk.compare("deepseek-r1", "gb200").iloc[0]  # a single name is accepted
    assert row["tco_basis"] == "itemised"
    assert row["cost_usd_per_gpu_hour"] == pytest.approx(tk.tco("gb200", "hyperscaler").usd_per_gpu_hour)
    assert tk.ReportOptions().tco == tk.Scenario(hardware="gb200", model="deepseek-r1").tco == tk.DEFAULT_TCO_BASIS


def test_tco_vintage_or_tier_implies_published():
    # GB300: the published Sep-2026 hyperscaler figure, not the itemised one
    row = tk.compare("deepseek-r1", "gb300", tco_vintage="2026-09", tco_tier="hyperscaler").iloc[0]
    assert row["tco_basis"] == "published"
    assert row["cost_usd_per_gpu_hour"] == tk.published_tco("gb300").usd_per_gpu_hour
    row = tk.compare("deepseek-r1", "gb300", tco_tier="rental").iloc[0]
    assert row["cost_usd_per_gpu_hour"] == tk.published_tco("gb300", tier="rental").usd_per_gpu_hour
    with pytest.raises(ValueError, match=r"tco_profile='neocloud'.*contradicts tco_vintage='2026-09'"):
        tk.compare("deepseek-r1", "gb300", tco_profile="neocloud", tco_vintage="2026-09")
    with pytest.raises(ValueError, match="not both"):
        tk.compare("deepseek-r1", "gb300", tco=tk.TcoBasis.published(), tco_basis="published")


def test_explicit_cost_per_gpu_hour():
    table = tk.compare("deepseek-r1", ["gb200", "b200"], cost_usd_per_gpu_hour=2.5)
    assert (table["cost_usd_per_gpu_hour"] == 2.5).all()
    assert (table["tco_basis"] == "explicit").all()


def test_workload_changes_curve_and_mix():
    short = tk.compare("deepseek-r1", "gb200", workload="1k/1k").iloc[0]
    long_in = tk.compare("deepseek-r1", "gb200", workload="8k/1k").iloc[0]
    assert short["workload"] == "1k/1k"
    assert short["input_share_frac"] == pytest.approx(0.5)
    assert long_in["input_share_frac"] == pytest.approx(8 / 9)
    assert short["throughput_tok_per_s_per_gpu"] != long_in["throughput_tok_per_s_per_gpu"]


def test_empty_lists():
    with pytest.raises(ValueError, match="empty"):
        tk.compare("deepseek-r1", [])


def test_license_and_price_checked_up_front():
    with pytest.raises(ValueError, match=r"license_fee_frac=30\.0.*write 0\.3, not 30"):
        tk.compare("deepseek-r1", ["gb200"], license_fee_frac=30)
    with pytest.raises(ValueError, match="output_usd_per_mtok"):
        tk.compare("deepseek-r1", ["gb200"], output_usd_per_mtok=-2.0)


def test_misspelt_keyword_suggests_the_real_one():
    with pytest.raises(KeyError, match="closest: utilization_frac"):
        tk.compare("deepseek-r1", ["gb200"], utilisation_frac=0.6)


def test_a_per_system_hour_cost_is_refused_as_a_unit_slip():
    with pytest.raises(ValueError, match="per-system"):
        tk.compare("deepseek-r1", ["gb200"], cost_usd_per_gpu_hour=279.0)


def test_unknown_price_provider_is_a_key_error_raised_once_up_front():
    # as Scenario and tk.price: a KeyError with the closest provider, not "no system could be evaluated"
    with pytest.raises(KeyError, match=r"unknown provider for deepseek-r1 \(standard tier\) 'fireworx'; "
                                       r"closest: Fireworks") as info:
        tk.compare("deepseek-r1", ["gb200", "b200"], price_provider="fireworx")
    assert "no system could be evaluated" not in str(info.value)
    assert str(info.value).count("fireworx") == 1  # once, not once per system
    assert len(tk.compare("deepseek-r1", ["gb200"], price_provider="FIREWORKS")) == 1  # case ignored


def test_per_token_prices_are_refused_up_front_with_the_plausibility_message():
    with pytest.raises(ValueError, match=r"^input_usd_per_mtok=5\.5e-07 USD/Mtok is below the plausible minimum"):
        tk.compare("deepseek-r1", ["gb200", "b200"], input_usd_per_mtok=0.55e-6, output_usd_per_mtok=2.19e-6)
    with pytest.raises(ValueError, match=r"^price_provider='DeepSeek' is not used"):
        tk.compare("deepseek-r1", ["gb200"], price_provider="DeepSeek", input_usd_per_mtok=0.55,
                   output_usd_per_mtok=2.19)


@pytest.mark.parametrize(("tco", "hint"), [
    ("hyperscaler", r"did you mean tco_profile='hyperscaler' \(or tk\.TcoBasis\.itemised\('hyperscaler'\)\)"),
    ("neocloud", r"tco_profile='neocloud'.*or tco_tier='neocloud' \(or tk\.TcoBasis\.published\(tier='neocloud'\)\)"),
    ("internal", r"'internal' is a published TCO tier.*did you mean tco_tier='internal'"),
], ids=["hyperscaler", "neocloud", "internal"])
def test_a_tco_profile_or_tier_name_given_as_tco_names_the_keyword_meant(tco, hint):
    with pytest.raises(ValueError, match=hint):
        tk.compare("deepseek-r1", ["gb200"], tco=tco)


def test_tco_kind_spelling_is_ignored():
    by_kind = tk.compare("deepseek-r1", ["gb200"], tco="itemised", tco_profile="neocloud")
    assert by_kind.equals(tk.compare("deepseek-r1", ["gb200"], tco="Itemized", tco_profile="neocloud"))


def test_one_system_named_twice_is_refused():
    with pytest.raises(ValueError, match=r"'gb200' and 'GB200 NVL72' name the same system \(gb200-nvl72\)"):
        tk.compare("deepseek-r1", ["gb200", "GB200 NVL72"])
