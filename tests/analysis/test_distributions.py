"""Tests of tokenomics.analysis.distributions and the spreads catalog."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tokenomics.analysis.distributions import (
    ColumnSampler,
    Spread,
    bounded,
    check_plausible_distribution,
    load_spreads,
    spread_for,
    warn_if_truncated,
)
from tokenomics.catalog import data_dir


@pytest.mark.parametrize(
    ("kind", "lo", "hi", "cov"),
    [
        ("lognormal", 0.8, 1.25, 0.9),
        ("normal", 0.7, 1.3, 0.8),
        ("uniform", 0.5, 1.5, 1.0),
        ("triangular", 0.6, 1.3, 1.0),
    ],
)
def test_spread_quantiles_and_fast_path(kind, lo, hi, cov):
    s = Spread(kind, lo, hi, cov)
    ref = s.multiplier()
    q = np.linspace(0.001, 0.999, 101)
    np.testing.assert_allclose(s.fast().ppf(q), ref.ppf(q), rtol=1e-9)
    x = np.linspace(lo * 0.9, hi * 1.1, 57)
    np.testing.assert_allclose(s.fast().cdf(x), ref.cdf(x), atol=1e-9)
    tail = (1 - cov) / 2
    if cov < 1:
        np.testing.assert_allclose(ref.ppf([tail, 1 - tail]), [lo, hi], rtol=1e-9)
    assert s.around(10.0).ppf(0.5) == pytest.approx(10.0 * ref.ppf(0.5))


def test_spread_refuses_bad_statements():
    with pytest.raises(ValueError, match="low_mult <= 1 <= high_mult"):
        Spread("lognormal", 1.2, 1.5)
    with pytest.raises(ValueError, match="coverage"):
        Spread("normal", 0.8, 1.2, 1.0)
    with pytest.raises(ValueError, match="distribution="):
        Spread("cauchy", 0.8, 1.2)  # type: ignore[arg-type]


def test_truncated_or_refused_as_documented():
    # 84 % of N(1, 1) is positive: truncated, every draw > 0
    b = bounded("capex_usd_per_accelerator", stats.norm(1.0, 1.0))
    draws = b.ppf(np.linspace(0, 1, 1001))
    assert draws.min() > 0
    # by hand: the truncated median is the N(1,1) quantile at F(0) + 0.5 (1 - F(0))
    assert b.median == pytest.approx(stats.norm(1, 1).ppf(stats.norm.cdf(-1) + 0.5 * (1 - stats.norm.cdf(-1))))
    with pytest.raises(ValueError, match=r"license_fee_frac: only 2\.3%"):
        bounded("license_fee_frac", stats.norm(-0.5, 0.25), 0.0, 1.0, low_inclusive=True, high_inclusive=False)
    with pytest.raises(ValueError, match="utilization_frac: the distribution has no probability"):
        bounded("utilization_frac", stats.uniform(1.5, 1.0), 0.0, 1.0)
    with pytest.raises(ValueError, match=r"utilization_frac=60\.0 is outside"):
        bounded("utilization_frac", 60.0, 0.0, 1.0)
    with pytest.raises(TypeError, match=r"frozen scipy\.stats"):
        bounded("x", "wide")


@pytest.mark.parametrize(("dist", "low", "high", "outside"), [
    (stats.uniform(0.4, 1.0), 0.0, 1.0, 0.4),  # scipy's cdf: 0.4 of [0.4, 1.4] above 1
    (stats.norm(1.0, 1.0), 0.0, math.inf, stats.norm.cdf(-1.0)),
    (Spread("uniform", 0.5, 1.5).around(0.8), 0.0, 1.0, 0.25),  # the closed form: [0.4, 1.2] above 1
    (0.6, 0.0, 1.0, 0.0),  # a number inside the range: nothing outside
])
def test_share_outside_the_range_comes_from_the_cdf(dist, low, high, outside):
    b = bounded("x", dist, low, high)
    assert b.outside_frac == pytest.approx(outside, abs=1e-12)


def test_truncation_warns_above_one_percent_outside():
    with pytest.warns(UserWarning, match=r"utilization_frac: 25\.0% .*valid range \(0, 1\]"):
        warn_if_truncated(bounded("utilization_frac", stats.uniform(0.5, 0.6667), 0.0, 1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # 0.99 % of U(0.2, 0.808) above 1: below the threshold
        warn_if_truncated(bounded("utilization_frac", stats.uniform(0.2, 0.808), 0.0, 1.0))
        warn_if_truncated(bounded("utilization_frac", 0.6, 0.0, 1.0))


def _uncertain_rows():
    rows = []
    tables = {"hardware/specs.csv": "hardware", "models/architectures.csv": "model", "pricing/api_prices.csv": "price",
              "tco/systems.csv": "tco_system", "tco/profiles.csv": "tco_profile", "tco/published.csv": "published_tco",
              "roofline/default_factors.csv": "roofline"}
    for rel, table in tables.items():
        frame = pd.read_csv(data_dir() / rel, comment="#")
        for _, r in frame[frame["confidence"].isin(["estimate", "unverified"])].iterrows():
            rows.append((table, r["parameter"], r["confidence"]))
    return sorted(set(rows))


@pytest.mark.parametrize(("table", "parameter", "confidence"), _uncertain_rows())
def test_every_estimate_and_unverified_value_has_a_stated_spread(table, parameter, confidence):
    s = spread_for(table, parameter, confidence)
    assert s is not None
    assert s.note.strip()


def test_verified_values_are_fixed_and_missing_spreads_raise(tmp_path):
    assert spread_for("tco_system", "capex_usd_per_accelerator", "verified") is None
    empty = tmp_path / "spreads.csv"
    empty.write_text("table,parameter,confidence,distribution,low_mult,high_mult,coverage,source,as_of,note\n")
    with pytest.raises(KeyError, match="no spread stated"):
        spread_for("hardware", "tdp_w", "estimate", load_spreads(empty))


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ("hardware,tdp_w,estimate,lognormal,0.8,1.2,0.9,s,2026-01-01,", "note"),
        ("hardwear,tdp_w,estimate,lognormal,0.8,1.2,0.9,s,2026-01-01,why", "table"),
        ("hardware,tdp_watts,estimate,lognormal,0.8,1.2,0.9,s,2026-01-01,why", "parameter"),
        ("hardware,tdp_w,verified,lognormal,0.8,1.2,0.9,s,2026-01-01,why", "confidence"),
        ("hardware,tdp_w,estimate,lognormal,1.1,1.2,0.9,s,2026-01-01,why", "distribution"),
        ("hardware,tdp_w,estimate,lognormal,0.8,1.2,0.9,s,2999-01-01,why", "as_of"),
    ],
)
def test_malformed_spreads_name_file_line_field(tmp_path, row, field):
    f = tmp_path / "spreads.csv"
    f.write_text("table,parameter,confidence,distribution,low_mult,high_mult,coverage,source,as_of,note\n" + row + "\n")
    with pytest.raises(ValueError, match=rf"spreads.csv, line 2, field '{field}'"):
        load_spreads(f)


def test_bundled_spreads_load():
    s = load_spreads()
    assert len(s) > 10
    assert all(math.isfinite(x.low_mult) for x in s["spread"])


def test_column_sampler_matches_each_distribution_alone():
    dists = [bounded("a", Spread("lognormal", 0.7, 1.4).around(3.0)),
             bounded("b", Spread("normal", 0.5, 1.5).around(2.0), 0.0, 1.0 * 10),  # truncated at 0
             bounded("c", stats.uniform(0.4, 0.4), 0.0, 1.0),
             bounded("d", Spread("triangular", 0.8, 1.3, 1.0).around(1.0))]
    u = np.random.default_rng(0).random((4, 500))
    x = ColumnSampler(dists).ppf(u)
    for j, d in enumerate(dists):
        np.testing.assert_allclose(x[j], d.ppf(u[j]), rtol=1e-12)


@pytest.mark.parametrize(("name", "dist", "kw", "match"), [
    ("utilization_frac", stats.uniform(50, 20), {"fraction": True}, "percent"),
    ("input_usd_per_mtok", stats.lognorm(0.1, scale=5e-7), {"low": 1e-3, "high": 1e3, "unit": "USD/Mtok"},
     "plausible range"),
    ("input_usd_per_mtok", 5e4, {"low": 1e-3, "high": 1e3, "unit": "USD/Mtok"}, "plausible range"),
])
def test_implausible_medians_are_unit_slips(name, dist, kw, match):
    with pytest.raises(ValueError, match=f"{name}.*{match}"):
        check_plausible_distribution(name, dist, **kw)
    check_plausible_distribution(name, stats.uniform(0.4, 0.4), **kw)  # a plausible one passes
