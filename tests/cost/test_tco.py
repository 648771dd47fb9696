"""Tests of tokenomics.cost.tco: itemised and published TCO per accelerator-hour."""

import math
import re

import numpy as np
import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.cost.tco import TCO_COMPONENTS, itemised_tco_usd_per_gpu_hour, tco_basis

HAND = {
    "capex_usd_per_accelerator": 60_000.0,
    "economic_life_years": 4.0,
    "residual_value_frac": 0.1,
    "cost_of_capital_frac": 0.08,
    "it_power_kw_per_accelerator": 1.5,
    "pue": 1.2,
    "electricity_usd_per_kwh": 0.08,
    "colocation_usd_per_kw_month": 150.0,
    "maintenance_frac_per_year": 0.03,
    "other_opex_frac_per_year": 0.01,
    "rental_markup_frac": 0.0,
    "accelerators_per_system": 72,
}


def test_full_breakdown_by_hand():
    r = tk.tco("gb200", "hyperscaler", **HAND)
    hours = 365 * 24  # 8760
    amort = 60_000 * (1 - 0.1) / 4 / hours  # 13_500 USD/yr straight line -> 1.5411 $/h
    crf = 0.08 / (1 - 1.08**-4)  # 0.3019208
    annuity = crf * (60_000 - 6_000 / 1.08**4)  # residual 6000 discounted 4 years
    coc = (annuity - 13_500) / hours
    power = 1.5 * 1.2 * 0.08  # IT kW x PUE x $/kWh = 0.144 $/h
    colo = 1.5 * 150 / (hours / 12)  # per kW of IT load per month, 730 h/month
    maint = 60_000 * 0.03 / hours
    other = 60_000 * 0.01 / hours
    expected = {
        "capex_amortisation": amort,
        "cost_of_capital": coc,
        "power": power,
        "colocation": colo,
        "maintenance": maint,
        "other_opex": other,
        "rental_markup": 0.0,
    }
    for name, value in expected.items():
        assert r.breakdown_usd_per_gpu_hour[name] == pytest.approx(value, rel=1e-12), name
    total = sum(expected.values())
    assert r.usd_per_gpu_hour == pytest.approx(total, rel=1e-12)
    frame = r.to_frame()
    assert frame.loc["total", "usd_per_system_hour"] == pytest.approx(72 * total)
    # facility power = IT x PUE = 1.8 kW -> 1000 / 1.8 accelerators per MW
    assert frame.loc["total", "usd_per_mw_year"] == pytest.approx(total * hours * 1000 / 1.8)
    assert frame.loc["power", "usd_per_gpu_year"] == pytest.approx(power * hours)
    assert frame["share_frac"].drop("total").sum() == pytest.approx(1.0)
    assert r.facility_power_kw_per_accelerator == pytest.approx(1.8)


def test_itemised_function_vectorised():
    capex = pd.Series([40_000.0, 60_000.0], index=["a", "b"])
    parts = itemised_tco_usd_per_gpu_hour(capex, 4, 0.08, 1.5, 1.2, 0.08, 150.0, 0.03, 0.01)
    assert parts["total"].index.equals(capex.index)
    scalar = itemised_tco_usd_per_gpu_hour(60_000.0, 4, 0.08, 1.5, 1.2, 0.08, 150.0, 0.03, 0.01)
    assert parts["total"]["b"] == pytest.approx(scalar["total"])
    assert sum(parts[c] for c in TCO_COMPONENTS)["a"] == pytest.approx(parts["total"]["a"])


def test_pue_applied_once_and_not_to_facility_power():
    base = tk.tco("gb200", **{**HAND, "electricity_usd_per_kwh": 0.1})
    # the catalog's all-in facility figure does not enter an IT-power based result
    assert base.breakdown_usd_per_gpu_hour["power"] == pytest.approx(1.5 * 1.2 * 0.1)
    assert tk.hardware("gb200").facility_power_kw_per_accelerator != pytest.approx(1.5 * 1.2)
    # IT and facility power given together would contradict each other (facility = IT x PUE)
    with pytest.raises(ValueError, match="not both"):
        tk.tco("gb200", **{**HAND, "electricity_usd_per_kwh": 0.1}, facility_power_kw_per_accelerator=9.0)
    assert base.breakdown_usd_per_gpu_hour["power"] == pytest.approx(1.5 * 1.2 * 0.1)
    # colocation is charged on IT kW, independent of PUE
    hi_pue = tk.tco("gb200", **{**HAND, "pue": 1.5})
    assert hi_pue.breakdown_usd_per_gpu_hour["colocation"] == pytest.approx(
        base.breakdown_usd_per_gpu_hour["colocation"]
    )


def test_facility_power_fallback_derives_it_power_at_the_profile_pue():
    hw = tk.hardware("gb200").model_copy(update={"it_power_kw_per_accelerator": None})
    inputs = {k: v for k, v in HAND.items() if k not in ("it_power_kw_per_accelerator", "pue")}
    ref_pue = tk.tco_profile("hyperscaler").pue
    # at the profile's own PUE the electricity bill is the all-in facility figure, no PUE again
    r = tk.tco(hw, facility_power_kw_per_accelerator=2.4, **inputs)
    assert r.breakdown_usd_per_gpu_hour["power"] == pytest.approx(2.4 * 0.08)
    assert r.breakdown_usd_per_gpu_hour["colocation"] == pytest.approx(2.4 / ref_pue * 150 / 730)
    assert any("derived from the all-in facility power 2.4 kW given" in n for n in r.notes)
    # a PUE override scales the derived IT power; colocation stays on IT kW
    worse = tk.tco(hw, facility_power_kw_per_accelerator=2.4, pue=1.5, **inputs)
    assert worse.breakdown_usd_per_gpu_hour["power"] == pytest.approx(2.4 / ref_pue * 1.5 * 0.08)
    assert worse.breakdown_usd_per_gpu_hour["colocation"] == pytest.approx(
        r.breakdown_usd_per_gpu_hour["colocation"])
    assert worse.usd_per_gpu_hour > r.usd_per_gpu_hour


@pytest.mark.parametrize("hw", ["b300", "mi300x", "mi325x", "mi355x", "tpu-v7"])
def test_tco_rises_with_pue_for_facility_power_systems(hw):
    # these systems carry only an all-in facility figure; a worse PUE used to lower their TCO
    costs = [tk.tco(hw, pue=p).usd_per_gpu_hour for p in (1.0, 1.1, 1.5, 2.0)]
    assert costs == sorted(costs)
    assert costs[0] < costs[-1]


def test_rental_is_owner_cost_plus_markup():
    prof = tk.tco_profile("rental")
    owner = tk.tco("h100", "rental", rental_markup_frac=0.0)
    rental = tk.tco("h100", "rental")
    assert rental.usd_per_gpu_hour == pytest.approx(owner.usd_per_gpu_hour * (1 + prof.rental_markup_frac))


def test_published_basis():
    pub = tk.published_tco("mi355x", vintage="2026-09", tier="hyperscaler")
    r = tk.tco("MI355X", basis="published", vintage="2026-09", tier="hyperscaler")
    assert r.usd_per_gpu_hour == pub.usd_per_gpu_hour
    assert r.breakdown_usd_per_gpu_hour == {"published_all_in": pub.usd_per_gpu_hour}
    assert r.to_frame().loc["total", "usd_per_gpu_hour"] == pub.usd_per_gpu_hour
    with pytest.raises(ValueError, match="basis='published'"):
        tk.tco("mi355x", basis="published", pue=1.2)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"pue_frac": 1.2}, KeyError, "pue"),
        ({"capex_usd": 1.0}, KeyError, "capex_usd_per_accelerator"),
        ({"cost_of_capital_frac": 8.0}, ValueError, "percent"),
        ({"pue": 0.9}, ValueError, r"pue=0\.9"),
        ({"capex_usd_per_accelerator": -1.0}, ValueError, "capex_usd_per_accelerator=-1.0"),
        ({"economic_life_years": 0.0}, ValueError, "economic_life_years"),
        ({"electricity_usd_per_kwh": math.nan}, ValueError, "electricity_usd_per_kwh is NaN"),
    ],
)
def test_bad_overrides(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        tk.tco("gb200", **kwargs)


def test_unknown_names():
    with pytest.raises(KeyError, match="hyperscaler"):
        tk.tco("gb200", "hyperscalr")
    with pytest.raises(KeyError):
        tk.tco("gb200", basis="published", tier="hyperscalr")
    with pytest.raises(KeyError):
        tk.tco("gb200", basis="published", vintage="1999-01")
    with pytest.raises(KeyError, match="gb200"):
        tk.tco("gb2000")
    with pytest.raises(ValueError, match="basis='owned'"):
        tk.tco("gb200", basis="owned")  # type: ignore[arg-type]


def test_repr_html():
    html = tk.tco("gb200")._repr_html_()
    assert "capex_amortisation" in html
    assert "/GPU-hour" in html


SYSTEMS = list(tk.tco_table().index)


@pytest.mark.parametrize("hardware_id", SYSTEMS)
@pytest.mark.parametrize("profile", ["hyperscaler", "neocloud", "rental"])
def test_every_system_itemises(hardware_id, profile):
    hw = tk.hardware(hardware_id)
    if hw.it_power_kw_per_accelerator is None and hw.facility_power_kw_per_accelerator is None:
        # no power figure: an error naming the override, never a silent zero power cost
        with pytest.raises(ValueError, match="pass facility_power_kw_per_accelerator="):
            tk.tco(hardware_id, profile)
        return
    r = tk.tco(hardware_id, profile)
    parts = r.breakdown_usd_per_gpu_hour
    assert set(parts) == set(TCO_COMPONENTS)
    assert all(v >= 0 for v in parts.values())
    assert sum(parts.values()) == pytest.approx(r.usd_per_gpu_hour, rel=1e-12)
    assert 0.1 < r.usd_per_gpu_hour < 50  # sanity: $/GPU-hour, not $/GPU-year
    assert r.facility_power_kw_per_accelerator is not None
    assert r.facility_power_kw_per_accelerator > 0


def test_comparison_table_exists_and_recomputes():
    table = tk.tco_comparison_table()
    pub = tk.published_tco_table()
    pub = pub[(pub["vintage"] == "2026-09") & pub["tier"].isin(["hyperscaler", "neocloud", "rental"])]
    expected = {(h, t) for h, t in zip(pub["hardware_id"], pub["tier"], strict=True) if h in SYSTEMS}
    assert set(zip(table["hardware_id"], table["tier"], strict=True)) == expected
    assert len(table) > 0
    assert table["explanation"].str.len().min() > 20
    for row in table.itertuples():
        itemised = tk.tco(row.hardware_id, row.profile).usd_per_gpu_hour
        assert row.itemised_usd_per_gpu_hour == pytest.approx(itemised)
        assert row.ratio_frac == pytest.approx(itemised / row.published_usd_per_gpu_hour)
        if not np.isnan(row.implied_capex_usd_per_accelerator):
            # the implied capex reproduces the published figure
            again = tk.tco(
                row.hardware_id,
                row.profile,
                capex_usd_per_accelerator=row.implied_capex_usd_per_accelerator,
            )
            assert again.usd_per_gpu_hour == pytest.approx(row.published_usd_per_gpu_hour)
    with pytest.raises(KeyError, match="2026-09"):
        tk.tco_comparison_table(vintage="2026-13")


def test_extra_host_memory_adds_its_price_to_capex():
    base = tk.tco("b200")
    more = tk.tco("b200", extra_host_memory_gb_per_accelerator=500)
    price = tk.tco_inputs("b200").host_dram_usd_per_gb
    added = more.inputs["capex_usd_per_accelerator"] - base.inputs["capex_usd_per_accelerator"]
    assert added == pytest.approx(500 * price)
    assert more.usd_per_gpu_hour > base.usd_per_gpu_hour
    assert any("host memory" in n for n in more.notes)
    with pytest.raises(ValueError, match="extra_host_memory_gb_per_accelerator"):
        tk.tco("b200", extra_host_memory_gb_per_accelerator=-1)
    with pytest.raises(ValueError, match="published"):
        tk.tco("b200", basis="published", extra_host_memory_gb_per_accelerator=100)


@pytest.mark.parametrize(("basis", "hint"), [
    ("hyperscaler", r"'hyperscaler' is a TCO profile and a published tier, not a basis kind; did you mean "
                    r"tco_profile='hyperscaler' \(or tk\.TcoBasis\.itemised\('hyperscaler'\)\) for an itemised TCO, "
                    r"or tco_tier='hyperscaler' \(or tk\.TcoBasis\.published\(tier='hyperscaler'\)\)"),
    ("Neocloud-owned", r"'Neocloud-owned' is a TCO profile, not a basis kind; did you mean tco_profile='neocloud'"),
    ("internal", r"'internal' is a published TCO tier, not a basis kind; did you mean tco_tier='internal'"),
    ("publishd", r"is not one of 'itemised', 'published', 'explicit'; did you mean 'published'\?"),
], ids=["hyperscaler", "profile-alias", "tier-only", "kind-typo"])
def test_a_profile_or_tier_name_as_the_basis_kind_names_the_keyword_meant(basis, hint):
    from tokenomics.cost.tco import tco_basis

    with pytest.raises(ValueError, match=hint):
        tco_basis(basis)
    with pytest.raises(ValueError, match=hint):  # every entry point maps tco= through tco_basis
        tk.Scenario(hardware="gb200", model="deepseek-r1", tco=basis)


def test_basis_kind_ignores_case_and_the_us_spelling():
    from tokenomics.cost.tco import tco_basis

    assert tco_basis("Itemized", profile="rental") == tco_basis("itemised", profile="rental") == \
        tk.TcoBasis.itemised("rental")
    assert tco_basis("PUBLISHED", tier="rental") == tk.TcoBasis.published(tier="rental")


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("it_power_kw_per_accelerator", 1000.0, r"it_power_kw_per_accelerator=1000\.0 kW is above the plausible "
                                                r"maximum 20 kW \(a unit slip\? e\.g\. W where kW is meant"),
        ("electricity_usd_per_kwh", 100.0, r"electricity_usd_per_kwh=100\.0 USD/kWh is above the plausible maximum "
                                           r"2 USD/kWh \(a unit slip\? e\.g\. a price per MWh"),
        ("electricity_usd_per_kwh", 0.0001, r"below the plausible minimum 0\.005 USD/kWh .*per Wh"),
        ("colocation_usd_per_kw_month", 146_000.0, r"colocation_usd_per_kw_month=146000\.0 .*per MW-month"),
    ],
)
def test_itemised_kernel_refuses_unit_slips(field, value, match):
    inputs = {"capex_usd_per_accelerator": 43_800.0, "economic_life_years": 4, "cost_of_capital_frac": 0.0,
              "it_power_kw_per_accelerator": 1.0, "pue": 1.2, "electricity_usd_per_kwh": 0.1,
              "colocation_usd_per_kw_month": 146.0}
    with pytest.raises(ValueError, match=match):
        itemised_tco_usd_per_gpu_hour(**{**inputs, field: value})


def test_itemised_kernel_allows_zero_power_and_rates():
    # no IT power, free electricity and no colocation leave the capex items: 43,800 / 4 / 8760 = 1.25
    b = itemised_tco_usd_per_gpu_hour(43_800.0, 4, 0.0, 0.0, 1.2, 0.0, 0.0)
    assert b["power"] == 0.0
    assert b["colocation"] == 0.0
    assert b["total"] == pytest.approx(1.25)
    with pytest.raises(ValueError, match=r"it_power_kw_per_accelerator=1000\.0 kW"):
        tk.tco("gb200", it_power_kw_per_accelerator=1000.0)  # a W figure as an override
    with pytest.raises(ValueError, match=r"facility_power_kw_per_accelerator=1800\.0 kW .*W where kW"):
        tk.tco("gb200", facility_power_kw_per_accelerator=1800.0)


@pytest.mark.parametrize(("override", "fragment"), [
    ({"economic_life_years": 48.0}, "above the plausible maximum 30 years"),  # months given as years
    ({"economic_life_years": 0.3}, "below the plausible minimum 0.5 years"),
    ({"capex_usd_per_accelerator": 3.5e6}, "above the plausible maximum 2e+06 USD"),  # a rack's capex
    ({"extra_host_memory_gb_per_accelerator": 5e6}, "MB or bytes"),
    ({"accelerators_per_system": 0.5}, "whole number"),
    ({"accelerators_per_system": 72.9}, "whole number"),
])
def test_implausible_overrides_are_refused(override, fragment):
    with pytest.raises(ValueError, match=re.escape(fragment)):
        tk.tco("gb200", **override)


def test_a_rental_markup_in_percent_is_refused_and_zero_overrides_stay_allowed():
    with pytest.raises(ValueError, match="rental_markup_frac=69"):
        tk.tco("gb200", "rental", rental_markup_frac=69.0)
    base = tk.tco("gb200")
    free = tk.tco("gb200", capex_usd_per_accelerator=0.0, electricity_usd_per_kwh=0.0, colocation_usd_per_kw_month=0.0)
    # written off, free power and space: maintenance and other opex are shares of capex, so nothing is left
    assert free.usd_per_gpu_hour == 0.0 < base.usd_per_gpu_hour


def test_an_explicit_basis_refuses_the_overrides_it_would_ignore():
    basis = tk.TcoBasis.explicit(2.0)
    with pytest.raises(ValueError, match=r"overrides \['pue'\] do not apply to an explicit TCO basis"):
        basis.tco("b200", pue=1.5)
    given = basis.tco("b200", facility_power_kw_per_accelerator=1.5)
    assert (given.usd_per_gpu_hour, given.facility_power_kw_per_accelerator) == (2.0, 1.5)


def test_the_basis_follows_the_arguments_and_contradictions_are_refused():
    # a tier or vintage means a published figure, as tco_basis and the CLI read them
    assert tk.tco("gb200", tier="rental").usd_per_gpu_hour == tk.published_tco("gb200", tier="rental").usd_per_gpu_hour
    assert tk.tco("gb200", vintage="2026-09").basis == "published"
    assert tk.tco("gb200").basis == "itemised"
    assert tk.tco("gb200", "neocloud").usd_per_gpu_hour != tk.tco("gb200").usd_per_gpu_hour
    # inputs the chosen basis would ignore are errors naming them
    with pytest.raises(ValueError, match="profile='neocloud'"):
        tk.tco("gb200", "neocloud", basis="published")
    with pytest.raises(ValueError, match=r"profile='hyperscaler' \(itemised TCO\) contradicts vintage='2026-09'"):
        tk.tco("gb200", "hyperscaler", vintage="2026-09")
    with pytest.raises(ValueError, match=re.escape("vintage='2026-09' and tier='rental' (published TCO): give one")):
        tk.tco("gb200", "neocloud", vintage="2026-09", tier="rental")
    with pytest.raises(ValueError, match="tier='rental' selects a published figure"):
        tk.tco("gb200", basis="itemised", tier="rental")


@pytest.mark.parametrize("values", [pd.Series([0.05, 0.1]), np.array([0.05, 0.1]), [0.05]])
def test_an_array_override_is_refused_naming_it_and_the_vectorised_kernel(values):
    with pytest.raises(TypeError, match=r"electricity_usd_per_kwh: tco\(\) takes one number per override") as err:
        tk.tco("gb200", electricity_usd_per_kwh=values)
    assert "tk.itemised_tco_usd_per_gpu_hour" in str(err.value)
    with pytest.raises(TypeError, match="accelerators_per_system"):
        tk.TcoBasis.explicit(2.0).tco("gb200", accelerators_per_system=np.array([72, 36]))


def test_numpy_scalars_are_scalar_overrides():
    expected = tk.tco("gb200", electricity_usd_per_kwh=0.1).usd_per_gpu_hour
    assert tk.tco("gb200", electricity_usd_per_kwh=np.float64(0.1)).usd_per_gpu_hour == expected
    assert tk.tco("gb200", electricity_usd_per_kwh=np.array(0.1)).usd_per_gpu_hour == expected


def test_the_vectorised_kernel_gives_the_tco_of_each_override_value():
    # the route the refusal above names: Series in, Series out, each element tk.tco's figure
    inputs = tk.tco("gb200").inputs
    names = [n for n in HAND if n != "accelerators_per_system"]
    prices = pd.Series([0.05, 0.1], index=["cheap", "dear"])
    total = itemised_tco_usd_per_gpu_hour(**{n: inputs[n] for n in names if n != "electricity_usd_per_kwh"},
                                          electricity_usd_per_kwh=prices)["total"]
    assert list(total.index) == ["cheap", "dear"]
    for label, price in prices.items():
        assert total[label] == pytest.approx(tk.tco("gb200", electricity_usd_per_kwh=price).usd_per_gpu_hour)


def test_a_tco_result_given_as_the_basis_says_what_to_pass_instead():
    result = tk.tco("gb200", electricity_usd_per_kwh=0.15)
    for call in (lambda: tk.compare("deepseek-r1", ["gb200"], tco=result), lambda: tco_basis(result)):
        with pytest.raises(ValueError, match=r"a TcoResult \(the TCO of gb200-nvl72, 3\.\d+ USD/GPU-hour\)") as err:
            call()
        text = str(err.value)
        assert "cost_usd_per_gpu_hour=result.usd_per_gpu_hour" in text
        assert "tco_result=result" in text
        assert "breakdown" not in text
        assert len(text) < 400


def test_an_itemised_basis_carries_tco_inputs_to_every_system() -> None:
    basis = tk.TcoBasis.itemised("neocloud", electricity_usd_per_kwh=0.05, pue=1.3)
    assert basis.label == "itemised, neocloud profile, electricity_usd_per_kwh=0.05, pue=1.3"
    for hw in ("gb200", "mi355x"):
        by_hand = tk.tco(hw, "neocloud", electricity_usd_per_kwh=0.05, pue=1.3).usd_per_gpu_hour
        assert basis.tco(hw).usd_per_gpu_hour == pytest.approx(by_hand)
        assert by_hand != pytest.approx(tk.tco(hw, "neocloud").usd_per_gpu_hour)
    # an explicit override wins over the basis's own input
    assert basis.tco("gb200", pue=1.1).usd_per_gpu_hour == pytest.approx(
        tk.tco("gb200", "neocloud", electricity_usd_per_kwh=0.05, pue=1.1).usd_per_gpu_hour)
    table = tk.compare("deepseek-r1", ["gb200"], tco=basis)
    assert table["cost_usd_per_gpu_hour"].iloc[0] == pytest.approx(basis.tco("gb200").usd_per_gpu_hour)


def test_tco_inputs_are_checked_and_belong_to_an_itemised_basis() -> None:
    with pytest.raises(KeyError, match="closest: electricity_usd_per_kwh"):
        tk.TcoBasis.itemised(electricity=0.05)
    with pytest.raises(ValueError, match=r"pue=13.0 is outside the allowed range \[1.0, 3.0\]"):
        tk.TcoBasis.itemised(pue=13)
    with pytest.raises(ValueError, match=r"pue='1\.2' is not a number"):
        tk.TcoBasis.itemised(pue="1.2")
    with pytest.raises(ValueError, match="does not use inputs"):
        tk.TcoBasis(kind="published", vintage="2026-09", tier="rental", inputs=(("pue", 1.2),))


def test_a_facility_power_override_sets_the_power_charged() -> None:
    """Facility power given replaces the catalog's power, as an all-in figure: IT = facility / the profile's PUE."""
    pue = tk.tco_profile("hyperscaler").pue
    given = tk.tco("gb200", facility_power_kw_per_accelerator=5.0)
    same_it = tk.tco("gb200", it_power_kw_per_accelerator=5.0 / pue)
    assert given.usd_per_gpu_hour == pytest.approx(same_it.usd_per_gpu_hour)
    assert given.facility_power_kw_per_accelerator == pytest.approx(5.0)
    assert given.usd_per_gpu_hour > tk.tco("gb200").usd_per_gpu_hour
    basis = tk.TcoBasis.itemised(facility_power_kw_per_accelerator=5.0)
    assert basis.tco("gb200").usd_per_gpu_hour == pytest.approx(given.usd_per_gpu_hour)
    with pytest.raises(ValueError, match="not both: facility power is IT power x PUE"):
        tk.tco("gb200", facility_power_kw_per_accelerator=5.0, it_power_kw_per_accelerator=4.0)
