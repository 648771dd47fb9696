"""One-at-a-time margin sensitivity: hand-computed margins, clipping, validation."""

from __future__ import annotations

import numpy as np
import pytest

from tokenomics.analysis.sensitivity import MARGIN_INPUTS, margin_sensitivity, margin_sobol

BASE = {"input_usd_per_mtok": 1.0, "output_usd_per_mtok": 4.0, "input_share_frac": 0.5, "cache_hit_frac": 0.0,
            "throughput_tok_per_s_per_gpu": 1000.0, "utilization_frac": 0.5, "cost_usd_per_gpu_hour": 2.0,
            "license_fee_frac": 0.0}


def _row(table, name):
    return table.set_index("parameter").loc[name]


def test_base_and_throughput_by_hand():
    t = margin_sensitivity(BASE)
    # blended price = 0.5 * 1 + 0.5 * 4 = 2.5 USD/Mtok; Q = 1000 * 3600 * 0.5 / 1e6 = 1.8 Mtok/GPU-h
    # cost = 2 / 1.8 = 1.1111 USD/Mtok; margin = 1 - 1.1111 / 2.5 = 0.5556
    assert t["base_gross_margin_frac"].iloc[0] == pytest.approx(1 - (2 / 1.8) / 2.5)
    r = _row(t, "throughput_tok_per_s_per_gpu")
    assert (r.low_value, r.high_value) == (750.0, 1250.0)
    assert r.gross_margin_frac_at_high == pytest.approx(1 - (2 / 2.25) / 2.5)  # Q = 2.25
    assert r.gross_margin_frac_at_low == pytest.approx(1 - (2 / 1.35) / 2.5)  # Q = 1.35


def test_license_fee_and_one_row_per_input():
    t = margin_sensitivity({**BASE, "license_fee_frac": 0.3}, ranges={"license_fee_frac": (0.0, 0.5)})
    assert sorted(t["parameter"]) == sorted(MARGIN_INPUTS)
    r = _row(t, "license_fee_frac")
    base = 0.7 - (2 / 1.8) / 2.5
    assert r.base_gross_margin_frac == pytest.approx(base)
    assert r.gross_margin_frac_at_low == pytest.approx(base + 0.3)
    assert r.gross_margin_frac_at_high == pytest.approx(base - 0.2)


def test_sorted_by_swing_and_other_inputs_held():
    t = margin_sensitivity(BASE)
    assert list(t["swing_frac"]) == sorted(t["swing_frac"], reverse=True)
    # cache hit is 0 at base: +-25 % of 0 is 0, so no swing at all
    r = _row(t, "cache_hit_frac")
    assert r.low_value == r.high_value == 0.0
    assert r.swing_frac == 0.0


def test_fractions_clipped_to_valid_range():
    t = margin_sensitivity({**BASE, "utilization_frac": 0.9, "input_share_frac": 0.9})
    assert _row(t, "utilization_frac").high_value == 1.0
    assert _row(t, "input_share_frac").high_value == 1.0


def test_percent_given_for_fraction_is_an_error():
    with pytest.raises(ValueError, match="percent"):
        margin_sensitivity({**BASE, "utilization_frac": 60})


def test_unknown_or_missing_input():
    with pytest.raises(KeyError, match="utilisation"):
        margin_sensitivity({**BASE, "utilisation_frac": 0.5})
    incomplete = dict(BASE)
    del incomplete["cost_usd_per_gpu_hour"]
    with pytest.raises(KeyError, match="cost_usd_per_gpu_hour"):
        margin_sensitivity(incomplete)


# --- Sobol' indices ------------------------------------------------------------------------------

SOBOL_BASE = BASE


def test_sobol_single_input_takes_all_variance():
    # only the license fee varies: m = (1 - f) - const, so S1 = ST = 1 for the fee, 0 elsewhere
    fixed = {n: (v, v) for n, v in SOBOL_BASE.items() if n != "license_fee_frac"}
    t = margin_sobol(SOBOL_BASE, {**fixed, "license_fee_frac": (0.0, 0.5)}, n_base_samples=256).set_index("parameter")
    assert t.loc["license_fee_frac", "first_order_index"] == pytest.approx(1.0, abs=0.02)
    assert t.loc["license_fee_frac", "total_index"] == pytest.approx(1.0, abs=0.02)
    assert t.loc["utilization_frac", "total_index"] == 0.0


def test_sobol_additive_model_matches_variance_shares_by_hand():
    # with only fee and output price varying at an output-only mix (s_in = 0), m = 1 - f - c / p_out:
    # fee enters additively; its first-order share is Var(f) / Var(m), computed here by hand
    ranges = {n: (v, v) for n, v in SOBOL_BASE.items()}
    ranges.update(input_share_frac=(0.0, 0.0), license_fee_frac=(0.0, 0.4), output_usd_per_mtok=(3.0, 5.0))
    t = margin_sobol(SOBOL_BASE, ranges, n_base_samples=4096).set_index("parameter")
    c = 2.0 / (1000.0 * 3600 * 0.5 / 1e6)  # cost per Mtok = 1.111
    var_f = 0.4**2 / 12
    e_inv, e_inv2 = np.log(5 / 3) / 2, (1 / 3 - 1 / 5) / 2  # E[1/p], E[1/p^2] for p ~ U(3, 5)
    var_p = c**2 * (e_inv2 - e_inv**2)
    assert t.loc["license_fee_frac", "first_order_index"] == pytest.approx(var_f / (var_f + var_p), abs=0.02)
    assert t.loc["license_fee_frac", "interaction_index"] == pytest.approx(0.0, abs=0.02)


def test_sobol_shows_interactions_the_tornado_cannot():
    t = margin_sobol(SOBOL_BASE, relative_swing_frac=0.5, n_base_samples=1024).set_index("parameter")
    # m = 1 - c / (u * t * p): throughput and utilization multiply, so their effects interact
    assert t["interaction_index"].sum() > 0.005
    assert set(t.index) == set(SOBOL_BASE)


def test_sobol_bad_input():
    with pytest.raises(ValueError, match="power of two"):
        margin_sobol(SOBOL_BASE, n_base_samples=100)
    with pytest.raises(KeyError, match="unknown margin input"):
        margin_sobol({**SOBOL_BASE, "utilisation": 0.5})


@pytest.mark.parametrize("func", [margin_sensitivity, margin_sobol])
def test_a_range_with_low_above_high_is_refused(func):
    with pytest.raises(ValueError, match=r"ranges\['utilization_frac'\]=\(0\.8, 0\.4\) has low above high"):
        func(BASE, ranges={"utilization_frac": (0.8, 0.4)})
    # low == high fixes the input: its margins equal the base margin
    r = _row(margin_sensitivity(BASE, ranges={"utilization_frac": (0.5, 0.5)}), "utilization_frac")
    assert r.gross_margin_frac_at_low == r.gross_margin_frac_at_high == pytest.approx(1 - (2 / 1.8) / 2.5)


def test_range_and_base_errors_name_the_entry_and_the_value():
    with pytest.raises(ValueError, match=r"^ranges\['utilization_frac'\]\[0\]=40\.0 is outside the allowed range "
                                         r"\(0\.0, 1\.0\]; it looks like a percent") as info:
        margin_sensitivity(BASE, ranges={"utilization_frac": (40, 80)})
    assert "position" not in str(info.value)
    with pytest.raises(ValueError, match=r"^ranges\['license_fee_frac'\]\[1\]=1\.0 is outside the allowed range"):
        margin_sensitivity(BASE, ranges={"license_fee_frac": (0.0, 1.0)})
    with pytest.raises(ValueError, match=r"ranges\['output_usd_per_mtok'\]=2\.0 must be a \(low, high\) pair"):
        margin_sensitivity(BASE, ranges={"output_usd_per_mtok": 2.0})
    with pytest.raises(ValueError, match=r"^base\['utilization_frac'\]=60\.0 is outside") as info:
        margin_sobol({**BASE, "utilization_frac": 60})
    assert "position" not in str(info.value)
