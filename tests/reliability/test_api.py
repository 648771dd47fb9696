"""Bad input to the Python API: a clear error naming the field, the value and the range, or a
documented correct result; never a crash, never a silent wrong number.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

import tokenomics as tk
from tests.reliability._clear import assert_clear
from tokenomics.catalog import parameter_spec

# --- economics kernels and finance: every argument, every kind of bad value ---------------------------
GOOD: dict[str, float] = {
    "cost_usd_per_gpu_hour": 2.0,
    "throughput_tok_per_s_per_gpu": 1000.0,
    "utilization_frac": 0.6,
    "price_usd_per_mtok": 1.0,
    "license_fee_frac": 0.3,
    "input_usd_per_mtok": 0.5,
    "output_usd_per_mtok": 2.0,
    "input_share_frac": 0.8,
    "cache_hit_frac": 0.5,
    "value_usd_per_gpu_hour": 2.0,
    "facility_power_kw_per_accelerator": 1.5,
    "capex_usd": 50_000.0,
    "rate_frac": 0.08,
    "life_years": 4.0,
}
KERNELS: dict[str, tuple[Callable[..., Any], tuple[str, ...]]] = {
    "cost_per_mtok": (tk.cost_per_mtok, ("cost_usd_per_gpu_hour", "throughput_tok_per_s_per_gpu",
                                          "utilization_frac")),
    "gross_margin_frac": (tk.gross_margin_frac, ("price_usd_per_mtok", "throughput_tok_per_s_per_gpu",
                                                  "utilization_frac", "cost_usd_per_gpu_hour",
                                                  "license_fee_frac")),
    "served_mtok_per_gpu_hour": (tk.served_mtok_per_gpu_hour, ("throughput_tok_per_s_per_gpu",
                                                                "utilization_frac")),
    "blended_price_usd_per_mtok": (tk.blended_price_usd_per_mtok, ("input_usd_per_mtok",
                                                                    "output_usd_per_mtok",
                                                                    "input_share_frac", "cache_hit_frac")),
    "usd_per_mw_year": (tk.usd_per_mw_year, ("value_usd_per_gpu_hour", "facility_power_kw_per_accelerator")),
    "annuity_usd_per_year": (tk.annuity_usd_per_year, ("capex_usd", "rate_frac", "life_years")),
}
BAD_VALUES: list[tuple[str, Any, str]] = [
    ("nan", math.nan, "nan"),
    ("inf", math.inf, "inf"),
    ("-inf", -math.inf, "inf"),
    ("negative", -1.0, "-1.0"),
    ("text", "abc", "abc"),
    ("none", None, ""),
]
KERNEL_CASES = [
    pytest.param(name, arg, value, shown, id=f"{name}-{arg}-{label}")
    for name, (_, args) in KERNELS.items()
    for arg in args
    for label, value, shown in BAD_VALUES
    # a negative value is a valid (if odd) input where the kernel allows it: skip those pairs
    if not (label == "negative" and arg in ("value_usd_per_gpu_hour",))
]


@pytest.mark.parametrize(("kernel", "arg", "value", "shown"), KERNEL_CASES)
def test_kernel_argument(kernel: str, arg: str, value: Any, shown: str) -> None:
    func, args = KERNELS[kernel]
    kwargs = {a: GOOD[a] for a in args}
    kwargs[arg] = value
    assert_clear(lambda: func(**kwargs), ValueError, (arg, shown))


PERCENT_SLIPS = [("utilization_frac", 60.0), ("license_fee_frac", 30.0), ("input_share_frac", 80.0),
                 ("cache_hit_frac", 50.0)]


@pytest.mark.parametrize(("arg", "value"), PERCENT_SLIPS)
def test_percent_written_for_a_fraction(arg: str, value: float) -> None:
    func = next(f for f, args in KERNELS.values() if arg in args)
    args = next(a for f, a in KERNELS.values() if f is func)
    kwargs = {a: GOOD[a] for a in args}
    kwargs[arg] = value
    assert_clear(lambda: func(**kwargs), ValueError, (arg, f"{value:g}", "percent", f"{value / 100:g}"))


OVERFLOW = [  # plausible costs, prices, throughputs and powers; the utilization (or amount) over- or underflows
    ("cost_per_mtok", lambda: tk.cost_per_mtok(100.0, 0.01, 1e-308)),
    ("cost_per_mtok-array", lambda: tk.cost_per_mtok(np.array([2.0, 100.0]), np.array([1000.0, 0.01]),
                                                     np.array([0.5, 1e-308]))),
    ("gross_margin", lambda: tk.gross_margin_frac(1.0, 0.01, 1e-308, 100.0)),
    ("mw_year", lambda: tk.usd_per_mw_year(1e305, 0.01)),
]


@pytest.mark.parametrize("call", [c for _, c in OVERFLOW], ids=[n for n, _ in OVERFLOW])
def test_overflow_is_an_error_not_inf(call: Callable[[], Any]) -> None:
    assert_clear(call, ValueError, ("finite",))


def test_mismatched_array_lengths_name_the_shapes() -> None:
    assert_clear(lambda: tk.cost_per_mtok([1.0, 2.0, 3.0], [1.0, 2.0], 0.5), ValueError, ("shape",))


def test_mismatched_series_indexes() -> None:
    a = pd.Series([1.0, 2.0], index=["x", "y"])
    b = pd.Series([1000.0, 2000.0], index=["y", "z"])
    assert_clear(lambda: tk.cost_per_mtok(a, b, 0.5), ValueError, ("index",))


# --- TCO -------------------------------------------------------------------------------------------
TCO_BAD: list[tuple[str, Any, str]] = [
    (name, value, shown)
    for name in tk.cost.tco.TCO_OVERRIDES
    for value, shown in ((math.nan, "nan"), (math.inf, "inf"), (-1.0, "-1.0"), ("lots", "lots"))
]
TCO_BAD += [("pue", 0.5, "0.5"), ("pue", 5.0, "5.0"), ("pue", 110.0, "110"),
            ("cost_of_capital_frac", 8.0, "percent"), ("maintenance_frac_per_year", 3.0, "percent"),
            ("residual_value_frac", 10.0, "percent"), ("economic_life_years", 0.0, "0.0"),
            ("accelerators_per_system", 0.0, "0.0")]


@pytest.mark.parametrize(("name", "value", "shown"), TCO_BAD, ids=[f"{n}={v!r}" for n, v, _ in TCO_BAD])
def test_tco_override(name: str, value: Any, shown: str) -> None:
    assert_clear(lambda: tk.tco("gb200", **{name: value}), ValueError, (name, shown))


TCO_ENTRY: list[tuple[str, Callable[[], Any], type[BaseException], tuple[str, ...]]] = [
    ("none", lambda: tk.tco(None), TypeError, ("hardware", "None")),
    ("int", lambda: tk.tco(3), TypeError, ("hardware", "int")),
    ("dict", lambda: tk.tco({"id": "b200"}), TypeError, ("hardware", "dict")),
    ("profile-type", lambda: tk.tco("b200", 3), TypeError, ("profile", "int")),
    ("profile-unknown", lambda: tk.tco("b200", "bargain"), KeyError, ("bargain",)),
    ("hardware-unknown", lambda: tk.tco("z100"), KeyError, ("z100",)),
    ("basis", lambda: tk.tco("b200", basis="guess"), ValueError, ("guess",)),
    ("override-unknown", lambda: tk.tco("b200", pue_frac=1.2), KeyError, ("pue_frac", "pue")),
    ("published-override", lambda: tk.tco("b200", basis="published", pue=1.2), ValueError, ("pue",)),
    ("vintage", lambda: tk.tco("b200", basis="published", vintage="1999-01"), KeyError, ("1999-01",)),
    ("tier", lambda: tk.tco("b200", basis="published", tier="cheap"), KeyError, ("cheap",)),
    ("no-power", lambda: tk.tco("tpu-v5p"), ValueError, ("it_power_kw_per_accelerator",)),
]


@pytest.mark.parametrize(("call", "error", "fragments"), [c[1:] for c in TCO_ENTRY], ids=[c[0] for c in TCO_ENTRY])
def test_tco_entry(call: Callable[[], Any], error: type[BaseException], fragments: tuple[str, ...]) -> None:
    assert_clear(call, error, fragments)


# --- names -------------------------------------------------------------------------------------------
NAME_RESULTS = [
    (tk.model, "kimi-k2.\uff15", "kimi-k2.5"),
    (tk.model, "gpt-oss-\uff1120b", "gpt-oss-120b"),
    (tk.model, "\uff2b\uff29\uff2d\uff29 \uff2b\uff12", "kimi-k2"),
    (tk.model, "DeepSeek R1", "deepseek-r1"),
    (tk.model, "  llama-3.3-70b  ", "llama-3.3-70b"),
    (tk.hardware, "\uff27\uff22\uff12\uff10\uff10 NVL72", "gb200-nvl72"),
    (tk.hardware, "MI355X", "mi355x"),
    (tk.hardware, "b\uff12\uff10\uff10", "b200"),
]


@pytest.mark.parametrize(("lookup", "name", "expected"), NAME_RESULTS, ids=[n for _, n, _ in NAME_RESULTS])
def test_name_spelling_resolves_to_the_right_entity(lookup: Callable[[str], Any], name: str, expected: str) -> None:
    entry = lookup(name)
    assert getattr(entry, "model_id", None) == expected or getattr(entry, "hardware_id", None) == expected


NAME_ERRORS = [
    (tk.model, None), (tk.model, ""), (tk.model, 3), (tk.model, "kimi-k2.5\u03b2"), (tk.model, "gpt-oss-999b"),
    (tk.model, "kimi-k9"), (tk.model, "   "), (tk.model, "deepseek-r\uff19"),
    (tk.hardware, None), (tk.hardware, ""), (tk.hardware, "h100-pcie"), (tk.hardware, "b2000"),
    (tk.hardware, "gb200-nvl36"), (tk.hardware, "\u00b5200"),
    (tk.tco_profile, "cheapest"), (tk.tco_profile, None),
    (tk.tco_inputs, "rubin-ultra"), (tk.published_tco, "b900"),
]


@pytest.mark.parametrize(("lookup", "name"), NAME_ERRORS, ids=[f"{f.__name__}-{n!r}" for f, n in NAME_ERRORS])
def test_unknown_name_lists_valid_ids(lookup: Callable[[Any], Any], name: Any) -> None:
    text = assert_clear(lambda: lookup(name), KeyError, (repr(name),))
    assert "valid" in text.lower() or "closest" in text.lower()


PRICE_ERRORS = [("deepseek-r1", "nope"), ("deepseek-r1", "Groq"), ("kimi-k2", "OpenAI"), ("nope", None)]


@pytest.mark.parametrize(("model", "provider"), PRICE_ERRORS)
def test_price_lookup(model: str, provider: str | None) -> None:
    assert_clear(lambda: tk.price(model, provider), KeyError, (provider or model,))


@pytest.mark.parametrize("provider", ["nope", "openai", "Deep Seek 2"])
def test_price_table_unknown_provider(provider: str) -> None:
    assert_clear(lambda: tk.price_table(provider=provider), KeyError, (provider, "valid"))


def test_price_table_provider_spelling() -> None:
    assert set(tk.price_table(provider="\uff44\uff45\uff45\uff50\uff53\uff45\uff45\uff4b")["provider"]) == {"DeepSeek"}


# --- catalog entries changed by the user: unit slips ---------------------------------------------------
def _slips(table: str, entry: Any) -> list[tuple[str, float]]:
    out = []
    for field in entry.numeric_fields():
        try:
            spec = parameter_spec(table, field)
        except KeyError:
            continue
        if spec.max_value is not None:
            out.append((field, spec.max_value * 1000))
        if spec.min_value is not None:
            out.append((field, spec.min_value / 1000))
    return out


HW_SLIPS = _slips("hardware", tk.hardware("b200"))
MODEL_SLIPS = _slips("model", tk.model("deepseek-r1"))


@pytest.mark.parametrize(("field", "value"), HW_SLIPS, ids=[f"{f}={v:g}" for f, v in HW_SLIPS])
def test_hardware_unit_slip(field: str, value: float) -> None:
    assert_clear(lambda: tk.hardware("b200").with_values(**{field: value}), ValueError,
                 (field, f"{value:g}", "plausible"))


@pytest.mark.parametrize(("field", "value"), MODEL_SLIPS, ids=[f"{f}={v:g}" for f, v in MODEL_SLIPS])
def test_model_unit_slip(field: str, value: float) -> None:
    assert_clear(lambda: tk.model("deepseek-r1").with_values(**{field: value}), ValueError,
                 (field, f"{value:g}", "plausible"))


def test_hbm_terabytes_written_as_gigabytes() -> None:
    assert_clear(lambda: tk.hardware("b300").with_values(hbm_capacity_gb=0.18), ValueError,
                 ("hbm_capacity_gb", "0.18", "[4, 2000] GB"))


@pytest.mark.parametrize("field", ["hbm_capacity_gb", "tdp_w", "layers", "nope_field"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -1.0])
def test_catalog_override_not_finite_or_negative(field: str, value: float) -> None:
    entry = tk.model("deepseek-r1") if field == "layers" else tk.hardware("b200")
    error: type[BaseException] = KeyError if field == "nope_field" else ValueError
    assert_clear(lambda: entry.with_values(**{field: value}), error, (field,))


# --- scenarios: one validation path, nothing ignored ---------------------------------------------------
BASE = {"hardware": "b200", "cost_usd_per_gpu_hour": 2.0, "input_usd_per_mtok": 0.5,
        "output_usd_per_mtok": 2.0, "utilization_frac": 0.6, "throughput_tok_per_s_per_gpu": 1000.0}
SCENARIO_CASES: list[tuple[str, dict[str, Any], tuple[str, ...]]] = [
    # inputs the evaluation would ignore
    ("mix-beside-workload", {"input_share_frac": 0.5, "osl_tokens": 100}, ("workload", "osl_tokens")),
    ("isl-beside-workload", {"isl_tokens": 1000}, ("isl_tokens",)),
    ("profile-with-cost", {"tco_profile": "neocloud"}, ("tco_profile", "contradicts")),
    ("vintage-itemised", {"cost_usd_per_gpu_hour": None, "tco_basis": "itemised", "tco_vintage": "2025-08"},
     ("tco_vintage", "contradicts")),
    ("profile-published", {"cost_usd_per_gpu_hour": None, "tco_basis": "published", "tco_profile": "rental"},
     ("tco_profile", "contradicts")),
    ("provider-ignored", {"model": "deepseek-r1", "price_provider": "DeepSeek"}, ("price_provider", "not used")),
    ("phase-ignored", {"prefill_throughput_tok_per_s_per_gpu": 5000.0}, ("prefill", "gpu_time")),
    ("interactivity-ignored", {"interactivity_tok_per_s_per_user": 50.0},
     ("interactivity_tok_per_s_per_user", "not be used")),
    # unit slips in prices
    ("per-token-price", {"input_usd_per_mtok": 0.0000006}, ("input_usd_per_mtok", "6e-07", "plausible")),
    ("per-token-output", {"output_usd_per_mtok": 0.000002}, ("output_usd_per_mtok", "2e-06")),
    ("per-token-cached", {"cached_input_usd_per_mtok": 0.00000005}, ("cached_input_usd_per_mtok", "5e-08")),
    ("price-huge", {"output_usd_per_mtok": 2_000_000.0}, ("output_usd_per_mtok", "2000000")),
    # out of range
    ("util-percent", {"utilization_frac": 60}, ("utilization_frac", "percent")),
    ("util-zero", {"utilization_frac": 0.0}, ("utilization_frac", "0.0")),
    ("fee-percent", {"license_fee_frac": 30}, ("license_fee_frac", "percent")),
    ("fee-one", {"license_fee_frac": 1.0}, ("license_fee_frac", "1.0")),
    ("tput-zero", {"throughput_tok_per_s_per_gpu": 0.0}, ("throughput_tok_per_s_per_gpu", "0.0")),
    ("tput-inf", {"throughput_tok_per_s_per_gpu": math.inf}, ("throughput_tok_per_s_per_gpu", "inf")),
    ("tput-nan", {"throughput_tok_per_s_per_gpu": math.nan}, ("throughput_tok_per_s_per_gpu", "nan")),
    ("cost-negative", {"cost_usd_per_gpu_hour": -2.0}, ("usd_per_gpu_hour", "-2.0")),
    ("cost-nan", {"cost_usd_per_gpu_hour": math.nan}, ("usd_per_gpu_hour", "nan")),
    ("target-margin", {"target_margin_frac": 1.5}, ("target_margin_frac", "1.5")),
    ("cached-ratio", {"cached_cost_ratio": 2.0}, ("cached_cost_ratio", "2.0")),
    # missing or unknown
    ("no-prices", {"input_usd_per_mtok": None}, ("prices missing",)),
    ("no-throughput", {"throughput_tok_per_s_per_gpu": None}, ("throughput missing",)),
    ("unknown-field", {"gpu_hours": 3}, ("gpu_hours",)),
    ("typo-field", {"utilisation_frac": 0.5}, ("utilisation_frac",)),
    ("hardware-unknown", {"hardware": "z100"}, ("z100",)),
    ("model-unknown", {"model": "gpt-9"}, ("gpt-9",)),
    ("workload-unknown", {"workload": "chatty"}, ("chatty",)),
    ("workload-type", {"workload": 3}, ("workload", "int")),
    ("profile-unknown", {"cost_usd_per_gpu_hour": None, "tco_profile": "bargain"}, ("bargain",)),
    ("gpu-time-missing", {"cost_split_rule": "gpu_time"}, ("gpu_time", "prefill")),
]


@pytest.mark.parametrize(("changes", "fragments"), [c[1:] for c in SCENARIO_CASES], ids=[c[0] for c in SCENARIO_CASES])
def test_scenario(changes: dict[str, Any], fragments: tuple[str, ...]) -> None:
    kwargs = {k: v for k, v in {**BASE, **changes}.items() if v is not None}
    assert_clear(lambda: tk.Scenario(**kwargs).evaluate(), (ValueError, KeyError, TypeError), fragments)


def test_sweep_needs_a_scenario() -> None:
    assert_clear(lambda: tk.sweep(None), TypeError, ("Scenario", "NoneType"))


@pytest.mark.parametrize(("axis", "values", "fragment"), [
    ("utilization_frac", [0.5, 60.0], "percent"), ("throughput_tok_per_s_per_gpu", [1000.0, -1.0], "-1.0"),
    ("output_usd_per_mtok", [2.0, 2e-6], "2e-06"), ("license_fee_frac", [0.3, 30.0], "percent"),
    ("input_usd_per_mtok", [0.5, 6e-7], "6e-07"), ("nope", [1.0], "nope"), ("utilization_frac", [], "non-empty"),
])
def test_sweep_axis(axis: str, values: list[float], fragment: str) -> None:
    assert_clear(lambda: tk.sweep(tk.Scenario(**BASE), **{axis: values}), (ValueError, KeyError), (axis, fragment))


# --- curves --------------------------------------------------------------------------------------------
CURVE_CASES: list[tuple[str, Callable[[], Any], type[BaseException], tuple[str, ...]]] = [
    ("frontier-str", lambda: tk.pareto_frontier("x"), TypeError, ("DataFrame", "str")),
    ("frontier-none", lambda: tk.pareto_frontier(None), TypeError, ("DataFrame", "NoneType")),
    ("frontier-list", lambda: tk.pareto_frontier([(1, 2)]), TypeError, ("DataFrame", "list")),
    ("frontier-column", lambda: tk.pareto_frontier(pd.DataFrame({"a": [1]})), KeyError, ("throughput",)),
    ("from-points-str", lambda: tk.ThroughputCurve.from_points("x"), TypeError, ("DataFrame",)),
    ("from-points-empty", lambda: tk.ThroughputCurve.from_points(
        pd.DataFrame({"interactivity_tok_per_s_per_user": [0.0], "throughput_tok_per_s_per_gpu": [-1.0]})),
     ValueError, ("no point",)),
    ("knots-nan", lambda: tk.ThroughputCurve([10.0, 20.0], [100.0, math.nan]), ValueError, ("nan",)),
    ("knots-negative", lambda: tk.ThroughputCurve([-10.0, 20.0], [100.0, 50.0]), ValueError, ("-10.0",)),
    ("knots-not-frontier", lambda: tk.ThroughputCurve([10.0, 20.0], [100.0, 200.0]), ValueError, ("frontier",)),
    ("knots-length", lambda: tk.ThroughputCurve([10.0, 20.0], [100.0]), ValueError, ("length",)),
    ("knots-empty", lambda: tk.ThroughputCurve([], []), ValueError, ("knot",)),
    ("knots-text", lambda: tk.ThroughputCurve(["a"], [1.0]), ValueError, ("interactivity",)),
    ("at-nan", lambda: tk.ThroughputCurve([10.0, 20.0], [100.0, 50.0]).throughput_at(math.nan), ValueError,
     ("interactivity_tok_per_s_per_user", "nan")),
    ("at-zero", lambda: tk.ThroughputCurve([10.0, 20.0], [100.0, 50.0]).throughput_at(0.0), ValueError,
     ("interactivity_tok_per_s_per_user", "0.0")),
    ("at-text", lambda: tk.ThroughputCurve([10.0, 20.0], [100.0, 50.0]).throughput_at("fast"), ValueError,
     ("interactivity_tok_per_s_per_user", "fast")),
    ("at-raise", lambda: tk.ThroughputCurve([10.0, 20.0], [100.0, 50.0]).throughput_at(30.0, extrapolate="raise"),
     ValueError, ("30.0", "20.0")),
    ("at-mode", lambda: tk.ThroughputCurve([10.0, 20.0], [100.0, 50.0]).throughput_at(15.0, extrapolate="linear"),
     ValueError, ("linear",)),
    ("inverse-negative", lambda: tk.ThroughputCurve([10.0, 20.0], [100.0, 50.0]).interactivity_at(-5.0),
     ValueError, ("throughput_tok_per_s_per_gpu", "-5.0")),
    ("mixed-kinds", lambda: tk.ThroughputCurve.from_points(pd.DataFrame({
        "interactivity_tok_per_s_per_user": [10.0, 20.0], "throughput_tok_per_s_per_gpu": [100.0, 50.0],
        "kind": ["measured", "projected"]})), ValueError, ("mix",)),
]


@pytest.mark.parametrize(("call", "error", "fragments"), [c[1:] for c in CURVE_CASES], ids=[c[0] for c in CURVE_CASES])
def test_curve(call: Callable[[], Any], error: type[BaseException], fragments: tuple[str, ...]) -> None:
    assert_clear(call, error, fragments)


def test_curve_target_below_the_frontier_is_met_at_its_first_point() -> None:
    # documented correct result: points (20, 1000) and (50, 500), then a dominating (60, 1200)
    pts = pd.DataFrame({"interactivity_tok_per_s_per_user": [20.0, 50.0],
                        "throughput_tok_per_s_per_gpu": [1000.0, 500.0]})
    assert tk.ThroughputCurve.from_points(pts).throughput_at(50.0) == 500.0
    more = pd.concat([pts, pd.DataFrame({"interactivity_tok_per_s_per_user": [60.0],
                                         "throughput_tok_per_s_per_gpu": [1200.0]})])
    curve = tk.ThroughputCurve.from_points(more)
    assert curve.throughput_at(50.0) == 1200.0
    assert curve.throughput_at(5.0) == 1200.0
    assert math.isnan(curve.throughput_at(61.0))
