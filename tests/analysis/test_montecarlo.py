"""Tests of tokenomics.analysis.montecarlo (in memory and chunked on dask)."""

import math
import os
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tokenomics.analysis.distributions import Spread
from tokenomics.analysis.montecarlo import METRICS, SKETCH_BUCKETS, monte_carlo
from tokenomics.cost.tco import itemised_tco_usd_per_gpu_hour

K_A, T_A, K_B, T_B = 3.0, 2000.0, 2.0, 1000.0
P_IN, P_OUT, S_IN = 0.55, 2.19, 0.9
PRICE = S_IN * P_IN + (1 - S_IN) * P_OUT  # blended, no cache hits: 0.714


def _base(**extra):
    frame = pd.DataFrame({
        "hardware_id": ["a", "b"], "throughput_tok_per_s_per_gpu": [T_A, T_B], "cost_usd_per_gpu_hour": [K_A, K_B],
        "utilization_frac": 0.6, "license_fee_frac": 0.0, "input_share_frac": S_IN, "cache_hit_frac": 0.0,
        "input_usd_per_mtok": P_IN, "output_usd_per_mtok": P_OUT, "cached_input_usd_per_mtok": 0.14,
    })
    return frame.assign(**extra)


def _stat(result, case, metric, col):
    s = result.summary
    return float(s[(s["case"] == case) & (s["metric"] == metric)][col].iloc[0])


def test_mean_cost_and_margin_probability_by_hand():
    # u ~ U(0.4, 0.8): E[1/u] = ln(0.8 / 0.4) / 0.4; cost = K / (T * 0.0036 * u)
    r = monte_carlo(_base(), n_draws=4096, utilization_frac=stats.uniform(0.4, 0.4), catalog_spreads=False,
                    target_margin_frac=0.2)
    e_inv_u = math.log(2.0) / 0.4
    assert _stat(r, "a", "cost_usd_per_mtok", "mean") == pytest.approx(K_A / (T_A * 0.0036) * e_inv_u, rel=1e-3)
    # margin = 1 - cost / price > 0.2  <=>  u > K / (T * 0.0036 * price * 0.8) = u* (0.7295); P = (0.8 - u*) / 0.4
    u_star = K_A / (T_A * 0.0036 * PRICE * 0.8)
    assert r.prob_margin_above()["a"] == pytest.approx((0.8 - u_star) / 0.4, abs=2e-3)
    # break-even: u > K / (T * 0.0036 * price) = 0.5836
    assert r.prob_margin_above(0.0)["a"] == pytest.approx((0.8 - K_A / (T_A * 0.0036 * PRICE)) / 0.4, abs=2e-3)
    # a costs 3 / 2000 per GPU-second of throughput, b 2 / 1000: a is cheaper in every draw
    assert r.cheaper_frac.loc["a", "b"] == 1.0
    assert r.cheaper_statement("b", "a") == "b cheaper than a in 0.0 % of 4096 draws"
    assert r.draws["cost_usd_per_mtok"].shape == (4096, 2)


def test_ranking_share_from_the_projection_band_by_hand():
    # a's throughput multiplier is lognormal with p10 = 0.62 and p90 = 1.37 (the band); a is cheaper
    # than b when mult > (K_A / T_A) / (K_B / T_B) = 0.75
    base = _base(throughput_low_tok_per_s_per_gpu=[0.62 * T_A, np.nan],
                 throughput_high_tok_per_s_per_gpu=[1.37 * T_A, np.nan])
    r = monte_carlo(base, n_draws=8192, seed=3)
    z = stats.norm.ppf(0.9)
    mu, sigma = (math.log(1.37) + math.log(0.62)) / 2, (math.log(1.37) - math.log(0.62)) / (2 * z)
    expected = 1 - stats.norm.cdf((math.log(0.75) - mu) / sigma)
    assert r.cheaper_frac.loc["a", "b"] == pytest.approx(expected, abs=5e-3)
    assert _stat(r, "b", "cost_usd_per_mtok", "std") == pytest.approx(0.0, abs=1e-12)


def test_reproducible_by_seed_and_quasi_random_by_default():
    kw = {"n_draws": 1024, "utilization_frac": stats.uniform(0.4, 0.4), "catalog_spreads": False}
    r1, r2 = monte_carlo(_base(), seed=1, **kw), monte_carlo(_base(), seed=1, **kw)
    r3 = monte_carlo(_base(), seed=2, **kw)
    pd.testing.assert_frame_equal(r1.summary, r2.summary)
    assert not r1.summary.equals(r3.summary)
    assert r1.method == "sobol"  # the method that ran: 1024 draws, a power of two
    assert monte_carlo(_base(), seed=1, **{**kw, "n_draws": 1000}).method == "lhs"


def test_dask_chunks_agree_with_memory_and_stay_summaries():
    pytest.importorskip("dask.array")
    kw = {"utilization_frac": stats.uniform(0.4, 0.4), "catalog_spreads": False, "target_margin_frac": 0.3}
    mem = monte_carlo(_base(), n_draws=2**14, method="sobol", **kw)
    lazy = monte_carlo(_base(), n_draws=2**14, method="sobol", backend="dask", chunk_draws=2**12, **kw)
    assert lazy.draws is None
    # same Sobol' points in chunks (fast-forwarded): identical counts, histogram quantiles within a bin
    pd.testing.assert_series_equal(mem.prob_margin_above(), lazy.prob_margin_above())
    for col in ("mean", "p5", "p50", "p95"):
        assert _stat(lazy, "a", "cost_usd_per_mtok", col) == pytest.approx(_stat(mem, "a", "cost_usd_per_mtok", col),
                                                                        rel=2e-3)
    with pytest.raises(ValueError, match="powers of two"):
        monte_carlo(_base(), n_draws=3000, backend="dask", method="sobol", **kw)
    with pytest.raises(ValueError, match="rerun with target_margin_frac"):
        lazy.prob_margin_above(0.5)
    with pytest.raises(ValueError, match="method"):
        monte_carlo(_base(), n_draws=1024, method="halton")


def test_catalog_spreads_vary_tco_around_the_catalog_value():
    import tokenomics as tk

    k0 = tk.tco("tpu-v7").usd_per_gpu_hour
    base = _base(hardware_id=["tpu-v7", "h100-sxm"], cost_usd_per_gpu_hour=[k0, tk.tco("h100-sxm").usd_per_gpu_hour],
                 tco_basis="itemised", tco_profile="hyperscaler")
    r = monte_carlo(base, n_draws=4096)
    fixed = monte_carlo(base, n_draws=4096, catalog_spreads=False)
    assert _stat(fixed, "tpu-v7", "cost_usd_per_mtok", "std") == pytest.approx(0.0, abs=1e-12)
    assert _stat(r, "tpu-v7", "cost_usd_per_mtok", "std") > 0.0
    # the median draw sits near the catalog value (lognormal spreads centred on it)
    k_med = _stat(r, "tpu-v7", "cost_usd_per_mtok", "p50") * T_A * 0.0036 * 0.6
    assert k_med == pytest.approx(k0, rel=0.1)


def test_itemised_tco_is_linear_in_capex_and_it_power():
    # monte_carlo relies on K = capex * A + kw * B
    kw = {"economic_life_years": 4.0, "cost_of_capital_frac": 0.1, "pue": 1.2, "electricity_usd_per_kwh": 0.08,
          "colocation_usd_per_kw_month": 150.0, "maintenance_frac_per_year": 0.03, "rental_markup_frac": 0.2}
    a = itemised_tco_usd_per_gpu_hour(1.0, it_power_kw_per_accelerator=0.0, **kw)["total"]
    b = itemised_tco_usd_per_gpu_hour(0.0, it_power_kw_per_accelerator=1.0, **kw)["total"]
    full = itemised_tco_usd_per_gpu_hour(50_000.0, it_power_kw_per_accelerator=1.7, **kw)["total"]
    assert full == pytest.approx(50_000.0 * a + 1.7 * b, rel=1e-12)


def test_bad_input():
    with pytest.raises(ValueError, match="utilization_frac: the distribution has no probability"):
        monte_carlo(_base(), utilization_frac=stats.uniform(1.2, 0.5))
    with pytest.raises(ValueError, match="license_fee_frac: only"):
        monte_carlo(_base(), license_fee_frac=stats.norm(-0.3, 0.1))
    with pytest.raises(ValueError, match="n_draws"):
        monte_carlo(_base(), n_draws=1)
    with pytest.raises(ValueError, match="lhs"):
        monte_carlo(_base(), n_draws=1024, backend="dask", method="lhs")
    with pytest.raises(KeyError, match="lacks columns"):
        monte_carlo(_base().drop(columns="cost_usd_per_gpu_hour"))
    with pytest.raises(KeyError, match="unknown case"):
        monte_carlo(_base(), n_draws=64, catalog_spreads=False).cheaper_statement("a", "c")


def test_band_moves_projected_rows_only():
    # one system measured at 50 tok/s/user and projected at 25: only the projected row varies
    base = pd.concat([_base(), _base()], ignore_index=True).iloc[[0, 2]].reset_index(drop=True)
    base["interactivity_tok_per_s_per_user"] = [50.0, 25.0]
    base["throughput_low_tok_per_s_per_gpu"] = [np.nan, 0.62 * T_A]
    base["throughput_high_tok_per_s_per_gpu"] = [np.nan, 1.37 * T_A]
    r = monte_carlo(base, n_draws=1024)
    assert _stat(r, "a@50", "cost_usd_per_mtok", "std") == pytest.approx(0.0, abs=1e-12)
    assert _stat(r, "a@25", "cost_usd_per_mtok", "std") > 0.0
    assert math.isnan(r.cheaper_frac.loc["a@50", "a@25"])  # different interactivities are not ranked


def test_model_name_runs_compare_through_the_chain():
    r = monte_carlo("deepseek-r1", ["gb200", "tpu-v7"], interactivity_tok_per_s_per_user=[50.0], n_draws=256,
                    utilization_frac=stats.uniform(0.4, 0.4), workload="1k/1k")
    assert set(r.problem.cases["hardware_id"]) == {"gb200-nvl72", "tpu-v7"}
    assert set(r.problem.cases["workload"]) == {"1k/1k"}
    assert (r.fan("energy_j_per_token")["p50"] > 0).all()  # catalog systems know their facility power
    assert 0.0 <= r.cheaper_frac.loc["tpu-v7", "gb200-nvl72"] <= 1.0
    assert any(p.name.startswith("capex:") for p in r.problem.params)


# --- summaries from sufficient statistics -------------------------------------------------------


def test_sketch_quantiles_within_the_stated_error_of_the_draws():
    from tokenomics.analysis.montecarlo import SKETCH_RELATIVE_ERROR

    base = _base(facility_power_kw_per_accelerator=[1.5, 1.2], throughput_low_tok_per_s_per_gpu=[0.62 * T_A, np.nan],
                 throughput_high_tok_per_s_per_gpu=[1.37 * T_A, np.nan])
    r = monte_carlo(base, n_draws=5000, seed=4, utilization_frac=stats.uniform(0.3, 0.6),
                    license_fee_frac=stats.uniform(0.0, 0.3))
    for metric in METRICS:
        draws = r.draws[metric].to_numpy().astype(float)
        for j, case in enumerate(r.labels):
            col = draws[:, j][np.isfinite(draws[:, j])]
            for q in (0.05, 0.5, 0.95):
                exact = np.quantile(col, q, method="inverted_cdf")  # order statistic of rank ceil(q N)
                got = _stat(r, case, metric, f"p{round(q * 100)}")
                # float32 draws add 2**-24 of rounding on top of the sketch's half-bucket
                assert got == pytest.approx(exact, rel=SKETCH_RELATIVE_ERROR + 1e-6), (metric, case, q)
            assert _stat(r, case, metric, "mean") == pytest.approx(col.mean(), rel=1e-6, abs=1e-9)
            assert _stat(r, case, metric, "std") == pytest.approx(col.std(), rel=1e-5, abs=1e-9)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_quantiles_of_a_constant_metric_are_the_constant(backend):
    # only utilization varies: the break-even utilization (TCO over revenue per busy hour) does not
    kw = {"backend": backend, "chunk_draws": 1024} if backend == "dask" else {}
    r = monte_carlo(_base(facility_power_kw_per_accelerator=[1.5, 1.2]), n_draws=4096,
                    utilization_frac=stats.uniform(0.4, 0.4), catalog_spreads=False, **kw)
    summary = r.summary
    row = summary[(summary["metric"] == "breakeven_utilization_frac") & (summary["case"] == "a")].iloc[0]
    assert row["std"] == pytest.approx(0.0, abs=1e-12)
    for name in ("p5", "p50", "p95"):
        assert row[name] == pytest.approx(row["mean"], rel=1e-12)  # not a bucket's midpoint


def test_energy_metrics_by_hand_and_unknown_without_a_power_figure():
    # energy = kW * 1000 / (T * u): E = 1500 / 2000 * E[1/u], E[1/u] = ln(0.8 / 0.4) / 0.4
    r = monte_carlo(_base(facility_power_kw_per_accelerator=[1.5, np.nan]), n_draws=4096,
                    utilization_frac=stats.uniform(0.4, 0.4), catalog_spreads=False)
    assert _stat(r, "a", "energy_j_per_token", "mean") == pytest.approx(1500 / T_A * math.log(2.0) / 0.4, rel=1e-3)
    # tok/s/MW = T * u * 1000 / kW: mean T * 0.6 * 1000 / 1.5
    assert _stat(r, "a", "tok_per_s_per_mw", "mean") == pytest.approx(T_A * 0.6 * 1000 / 1.5, rel=1e-3)
    for metric in ("energy_j_per_token", "tok_per_s_per_mw", "profit_usd_per_mw_year"):
        assert _stat(r, "b", metric, "finite_frac") == 0.0
        assert math.isnan(_stat(r, "b", metric, "p50"))


def test_cheapest_shares_add_up_per_interactivity():
    base = _base(throughput_low_tok_per_s_per_gpu=[0.62 * T_A, 0.62 * T_B],
                 throughput_high_tok_per_s_per_gpu=[1.37 * T_A, 1.37 * T_B])
    r = monte_carlo(base, n_draws=2048, seed=1)
    assert r.cheapest_frac.sum() == pytest.approx(1.0)
    assert r.cheapest_frac["a"] == pytest.approx(r.cheaper_frac.loc["a", "b"])


def test_dask_tree_reduction_equals_the_in_memory_run():
    pytest.importorskip("dask")
    kw = {"utilization_frac": stats.uniform(0.4, 0.4), "license_fee_frac": stats.uniform(0.0, 0.3),
          "catalog_spreads": False}
    for method in ("sobol", "random"):
        mem = monte_carlo(_base(), n_draws=2**17, method=method, keep_draws=False, **kw)
        lazy = monte_carlo(_base(), n_draws=2**17, method=method, backend="dask", chunk_draws=2**15, **kw)
        # the draws depend on the draw index only: same statistics, whatever the split
        pd.testing.assert_frame_equal(mem.summary, lazy.summary, rtol=1e-9)
        pd.testing.assert_frame_equal(mem.cheaper_frac, lazy.cheaper_frac)


@pytest.mark.slow
def test_dask_memory_does_not_grow_with_the_number_of_draws():
    pytest.importorskip("dask")
    import tracemalloc

    kw = {"utilization_frac": stats.uniform(0.4, 0.4), "catalog_spreads": False, "method": "random",
          "backend": "dask", "chunk_draws": 2**15}
    peaks = []
    for n in (2**17, 2**20):
        tracemalloc.start()
        monte_carlo(_base(), n_draws=n, **kw)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    # 8x the draws (4 -> 32 chunks) add one level to the merge tree: at most split_every (8) more
    # partial statistics held, plus one in flight per scheduler thread; not the per-draw results
    # (7 metrics x 2 cases x 8 bytes: 117 MB at 2**20, 103 MB more than at 2**17)
    size = len(METRICS) * 2 * (SKETCH_BUCKETS + 2) * 8  # counts, sum and sum of squares per metric and case
    threads = os.cpu_count() or 1
    assert peaks[1] - peaks[0] <= (8 + 1 + threads) * size
    assert peaks[1] < 64e6


def test_no_draws_kept_on_request():
    r = monte_carlo(_base(), n_draws=1024, keep_draws=False, catalog_spreads=False)
    assert r.draws is None
    with pytest.raises(ValueError, match="keep_draws=False"):
        r.prob_margin_above(0.1)


# --- unit slips and truncation ------------------------------------------------------------------------


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"utilization_frac": stats.uniform(50, 20)}, "utilization_frac.*percent"),
    ({"utilization_frac": 60.0}, "utilization_frac.*percent"),
    ({"license_fee_frac": stats.norm(30, 5)}, "license_fee_frac.*percent"),
    ({"output_usd_per_mtok": stats.lognorm(0.2, scale=2.19e-6)}, "output_usd_per_mtok.*plausible"),
    ({"input_usd_per_mtok": 5.5e-7}, "input_usd_per_mtok.*plausible"),
    ({"input_usd_per_mtok": stats.uniform(2e3, 1e3)}, "input_usd_per_mtok.*plausible"),
    ({"output_usd_per_mtok": stats.uniform(-5.0, 1.0)}, "output_usd_per_mtok: the distribution has no probability"),
    ({"output_usd_per_mtok": stats.norm(-0.1, 1.0)}, "output_usd_per_mtok: only"),
])
def test_unit_slips_and_spreads_outside_the_range_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        monte_carlo(_base(), n_draws=64, **kwargs)


def test_a_spread_that_would_go_negative_is_truncated():
    # normal(2.19, 1.5): 7 % of it lies below 0; the draws are truncated to > 0, not clipped to 0
    with pytest.warns(UserWarning, match="output_usd_per_mtok: 7.2%"):
        r = monte_carlo(_base(), n_draws=4096, output_usd_per_mtok=stats.norm(2.19, 1.5), catalog_spreads=False)
    margin = r.draws["gross_margin_frac"].to_numpy()
    assert np.isfinite(margin).all()
    assert (r.summary.loc[r.summary["metric"] == "breakeven_price_usd_per_mtok", "p5"] > 0).all()
    p = r.problem.params[0].dist.ppf(np.linspace(0.0, 0.999, 1000))
    # inverse CDF on the valid part [0, inf): strictly increasing, no mass piled at the bound
    assert p[0] == pytest.approx(0.0, abs=1e-12)
    assert (np.diff(p) > 0).all()


@pytest.mark.parametrize(("kwargs", "match"), [
    # uniform on [0.4, 1.4]: 0.4 of its probability lies above 1
    ({"utilization_frac": stats.uniform(0.4, 1.0)}, r"utilization_frac: 40\.0% .*valid range \(0, 1\]"),
    # normal(2.19, 2): P(x < 0) = Phi(-1.095) = 13.7 %
    ({"output_usd_per_mtok": stats.norm(2.19, 2.0)}, r"output_usd_per_mtok: 13\.7% .*valid range \[0, inf\)"),
    # a Spread around the base utilization 0.6: normal multiplier, p5-p95 = 0.2-1.8 (sigma 0.8 / 1.6449):
    # above 1 / 0.6 with probability 1 - Phi((1 / 0.6 - 1) / sigma) = 8.5 %, below 0 Phi(-1 / sigma) = 2.0 %
    ({"utilization_frac": Spread("normal", 0.2, 1.8)}, r"utilization_frac: 10\.5% .*\(0, 1\]"),
])
def test_a_distribution_partly_outside_its_range_warns_naming_field_share_and_range(kwargs, match):
    with pytest.warns(UserWarning, match=match) as caught:
        r = monte_carlo(_base(), n_draws=1024, catalog_spreads=False, **kwargs)
    assert len(caught) == 1
    assert caught[0].filename == __file__  # attributed to the caller, not to the library
    share = float(re.search(r"(\d+\.\d)%", str(caught[0].message)).group(1)) / 100
    assert r.problem.params[0].dist.outside_frac == pytest.approx(share, abs=5e-4)


def test_a_distribution_all_but_inside_its_range_is_truncated_silently():
    # normal(2.19, 0.5): 6e-6 of it lies below 0; beta is inside (0, 1] by construction
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        monte_carlo(_base(), n_draws=256, catalog_spreads=False, output_usd_per_mtok=stats.norm(2.19, 0.5),
                    utilization_frac=stats.beta(6, 4))


def test_the_truncated_input_draws_are_kept_beside_the_metrics():
    with pytest.warns(UserWarning, match="utilization_frac"):
        r = monte_carlo(_base(), n_draws=4096, utilization_frac=stats.uniform(0.4, 1.0), catalog_spreads=False)
    u = r.draws["utilization_frac"]
    assert u.dims == ("draw",)
    assert u.attrs["outside_frac"] == pytest.approx(0.4)
    # truncated to [0.4, 1]: uniform there, mean 0.7 (not the given 0.9)
    assert float(u.min()) >= 0.4
    assert float(u.max()) <= 1.0
    assert float(u.mean()) == pytest.approx(0.7, abs=1e-3)
    # the metrics of each draw come from that draw's input: cost = K / (T * 0.0036 * u)
    cost = r.draws["cost_usd_per_mtok"].sel(case="a").to_numpy()
    np.testing.assert_allclose(cost, K_A / (T_A * 0.0036 * u.to_numpy().astype(float)), rtol=1e-6)
    assert "output_usd_per_mtok" not in r.draws  # fixed inputs are not draws


def test_per_system_catalog_multipliers_are_kept_per_system():
    base = _base(throughput_low_tok_per_s_per_gpu=[0.62 * T_A, np.nan],
                 throughput_high_tok_per_s_per_gpu=[1.37 * T_A, np.nan])
    r = monte_carlo(base, n_draws=1024)
    mult = r.draws["throughput_mult"]
    assert mult.dims == ("draw", "system")
    assert list(mult["system"].values) == ["a", "b"]
    assert (mult.sel(system="b") == 1.0).all()  # b is measured: exact
    # median of the lognormal band multiplier: sqrt(0.62 * 1.37)
    assert float(mult.sel(system="a").median()) == pytest.approx(math.sqrt(0.62 * 1.37), rel=0.02)
    np.testing.assert_allclose(r.draws["cost_usd_per_mtok"].sel(case="a").to_numpy(),
                               K_A / (T_A * mult.sel(system="a").to_numpy().astype(float) * 0.0036 * 0.6), rtol=1e-6)


def test_interactivity_in_seconds_is_refused_before_any_evaluation():
    with pytest.raises(ValueError, match=r"interactivity_tok_per_s_per_user=0\.02"):
        monte_carlo("deepseek-r1", ["b200"], interactivity_tok_per_s_per_user=0.02)


def test_workload_and_kv_offload_are_keywords_of_their_own():
    with pytest.raises(ValueError, match="workload"):
        monte_carlo(_base(), workload="1k/1k")
    with pytest.raises(ValueError, match="kv_offload"):
        monte_carlo(_base(), kv_offload="dram")
    with pytest.raises(ValueError, match="give workload= to monte_carlo directly"):
        monte_carlo("deepseek-r1", ["b200"], compare_options={"workload": "1k/1k"})


# --- case lookups by system alias, target margin hints ------------------------------------------


def test_cheaper_statement_resolves_hardware_aliases():
    r = monte_carlo(_base(hardware_id=["gb300-nvl72", "tpu-v7"]), n_draws=64, catalog_spreads=False)
    by_id = r.cheaper_statement("gb300-nvl72", "tpu-v7")
    # 'gb300' and 'TPU v7' are catalog aliases of the case systems: same answer, labelled by id
    assert r.cheaper_statement("gb300", "tpu-v7") == by_id
    assert r.cheaper_statement("GB300 NVL72", "TPU v7") == by_id
    assert by_id.startswith("gb300-nvl72 cheaper than tpu-v7 in ")
    assert r.case("gb300") == "gb300-nvl72"
    with pytest.raises(KeyError, match=r"unknown case 'gb3000'; closest: gb300-nvl72"):
        r.cheaper_statement("gb3000", "tpu-v7")
    with pytest.raises(KeyError, match="unknown case 'h100'"):  # a catalog system, but no case of this run
        r.cheaper_statement("h100", "tpu-v7")


def test_case_lookup_with_several_interactivities_needs_the_interactivity():
    base = pd.concat([_base(hardware_id=["gb300-nvl72", "tpu-v7"])] * 2, ignore_index=True)
    base["interactivity_tok_per_s_per_user"] = [50.0, 50.0, 100.0, 100.0]
    r = monte_carlo(base, n_draws=64, catalog_spreads=False)
    assert r.case("gb300@50") == r.case("GB300@50.0") == "gb300-nvl72@50"
    assert r.cheaper_statement("gb300@100", "tpu-v7@100") == r.cheaper_statement("gb300-nvl72@100", "tpu-v7@100")
    with pytest.raises(KeyError, match=r"'gb300' is ambiguous.*gb300-nvl72@50, gb300-nvl72@100"):
        r.cheaper_statement("gb300", "tpu-v7@50")
    with pytest.raises(KeyError, match="unknown case 'gb300@70'"):
        r.case("gb300@70")


@pytest.mark.parametrize("target", [50, 50.0, 75.5])
def test_target_margin_in_percent_gets_the_percent_hint(target):
    with pytest.raises(ValueError, match=rf"target_margin_frac={float(target)!r} is outside.*looks like a percent.*"
                                         rf"write {target / 100:g}, not {target:g}"):
        monte_carlo(_base(), n_draws=64, catalog_spreads=False, target_margin_frac=target)
    r = monte_carlo(_base(), n_draws=64, catalog_spreads=False)
    with pytest.raises(ValueError, match="looks like a percent"):
        r.prob_margin_above(target)


# --- options a path would ignore, and chunking ---------------------------------------------------------


def test_base_table_refuses_options_of_a_model_name_run():
    # a base table already fixes systems, interactivities and traffic: these options would be ignored
    for value in ([20.0, 50.0], 50.0):
        with pytest.raises(ValueError, match=r"^interactivity_tok_per_s_per_user= applies only when base is a "
                                             r"model name"):
            monte_carlo(_base(), n_draws=64, interactivity_tok_per_s_per_user=value, catalog_spreads=False)
    with pytest.raises(ValueError, match=r"^workload= and compare_options= apply only when base is a model name"):
        monte_carlo(_base(), n_draws=64, workload="1k/1k", compare_options={"tco_profile": "neocloud"})
    with pytest.raises(ValueError, match=r"^hardware=, workload= and kv_offload= apply only"):
        monte_carlo(_base(), "gb200", n_draws=64, workload="1k/1k", kv_offload="dram")


def test_dask_chunks_of_any_size_give_the_in_memory_statistics():
    pytest.importorskip("dask")
    u = stats.uniform(0.4, 0.4)
    kw = {"utilization_frac": u, "catalog_spreads": False}
    mem = monte_carlo(_base(), n_draws=2**17, method="sobol", keep_draws=False, **kw)
    # E[cost] = K / (T * 0.0036) * E[1/u], E[1/u] = ln(0.8 / 0.4) / 0.4 for u ~ U(0.4, 0.8)
    assert _stat(mem, "a", "cost_usd_per_mtok", "mean") == pytest.approx(K_A / (T_A * 0.0036) * math.log(2) / 0.4,
                                                                        rel=1e-4)
    # the chunks are consecutive runs of one Sobol' sequence: three blocks per chunk, or 1000 draws
    # (rounded up to whole blocks), give the same points and so the same statistics
    for chunk in (3 * 2**15, 1000):
        lazy = monte_carlo(_base(), n_draws=2**17, backend="dask", chunk_draws=chunk, **kw)
        pd.testing.assert_frame_equal(mem.summary, lazy.summary, rtol=1e-9)


def test_dask_messages_name_the_values_given():
    pytest.importorskip("dask")
    with pytest.raises(ValueError, match=r"n_draws=3000 is not one \(take 2048 or 4096\)") as info:
        monte_carlo(_base(), n_draws=3000, backend="dask", chunk_draws=1000, catalog_spreads=False)
    assert "32768" not in str(info.value)
    with pytest.raises(ValueError, match=r"keep_draws=True needs backend='numpy'"):
        monte_carlo(_base(), n_draws=1024, backend="dask", keep_draws=True, catalog_spreads=False)
    with pytest.raises(ValueError, match=r"chunk_draws=2\.5 must be an integer >= 2"):
        monte_carlo(_base(), n_draws=1024, backend="dask", chunk_draws=2.5, catalog_spreads=False)
    with pytest.raises(ValueError, match=r"chunk_draws=256 applies only with backend='dask'"):
        monte_carlo(_base(), n_draws=1024, chunk_draws=256, catalog_spreads=False)
    assert monte_carlo(_base(), n_draws=1024, backend="dask", keep_draws=False, catalog_spreads=False).draws is None
