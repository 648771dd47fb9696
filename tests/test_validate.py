import numpy as np
import pandas as pd
import pytest

from tokenomics._validate import (
    NotANumberError,
    check_fraction,
    check_nonnegative,
    check_numeric,
    check_plausible,
    check_positive,
    check_range,
    check_target_margin,
    chunk_of,
    normalize_name,
    position_phrase,
    unknown_name_error,
)


def test_normalize_name_ignores_case_space_punctuation():
    assert normalize_name("GB200 NVL-72") == normalize_name("gb200nvl72") == "gb200nvl72"


def test_unknown_name_lists_close_matches():
    err = unknown_name_error("hardware", "GB2000", ["gb200-nvl72", "gb300-nvl72", "h100-sxm"])
    assert isinstance(err, KeyError)
    assert "gb200-nvl72" in str(err).split("closest:")[1]


@pytest.mark.parametrize("value", [0.5, np.array([0.1, 0.9]), pd.Series([0.0, 1.0])])
def test_fraction_accepts_unit_interval(value):
    check_fraction("utilization_frac", value)


def test_fraction_percent_hint_names_field_and_value():
    with pytest.raises(ValueError, match=r"utilization_frac=60\.0.*percent"):
        check_fraction("utilization_frac", 60.0)


def test_fraction_array_reports_position():
    with pytest.raises(ValueError, match=r"position 2 \(1 of 3 bad\)"):
        check_fraction("x_frac", np.array([0.1, 0.2, 1.5]))


def test_series_reports_index_label():
    with pytest.raises(ValueError, match=r"index 'b'"):
        check_positive("throughput", pd.Series([1.0, -2.0], index=["a", "b"]))


def test_nan_is_an_error_with_range():
    with pytest.raises(ValueError, match=r"price is NaN"):
        check_nonnegative("price", np.array([1.0, np.nan]))


def test_exclusive_bounds():
    with pytest.raises(ValueError, match=r"\(0\.0, 1\.0\]"):
        check_range("u", 0.0, low=0.0, high=1.0, low_inclusive=False)
    check_range("u", 1.0, low=0.0, high=1.0, low_inclusive=False)


def test_positive_rejects_zero_and_inf():
    for bad in (0.0, -1.0, np.inf):
        with pytest.raises(ValueError, match="throughput"):
            check_positive("throughput", bad)


@pytest.mark.parametrize(("typed", "key"), [
    ("kimi-k2.\uff15", "kimik25"),            # full-width digit kept, not dropped
    ("\uff27\uff22\uff12\uff10\uff10", "gb200"),  # full-width letters and digits
    ("gpt-oss-\uff1120b", "gptoss120b"),
    ("Stra\u00dfe", "strasse"),               # case folding, not just lower()
    ("kimi-k2.5\u03b2", "kimik25\u03b2"),       # a letter of another script stays
])
def test_normalize_name_nfkc(typed, key):
    assert normalize_name(typed) == key


def test_plausible_names_field_value_and_range():
    with pytest.raises(ValueError, match=r"input_usd_per_mtok=6e-07 USD/Mtok is below the plausible minimum "
                                         r"0\.001.*allowed 0 or \[0\.001, 1000\] USD/Mtok"):
        check_plausible("input_usd_per_mtok", 6e-7, low=0.001, high=1000.0, unit="USD/Mtok", allow_zero=True)
    check_plausible("input_usd_per_mtok", np.array([0.0, 0.5]), low=0.001, high=1000.0, unit="USD/Mtok",
                    allow_zero=True)
    with pytest.raises(ValueError, match=r"x=0.0 is outside the allowed range \[0.001, inf\]"):
        check_plausible("x", 0.0, low=0.001, high=None, unit="GB")
    with pytest.raises(ValueError, match="outside the allowed range"):
        check_plausible("x", 5000.0, low=0.001, high=1000.0, unit="GB")


def test_text_names_its_field():
    with pytest.raises(ValueError, match="utilization_frac='lots' is not a number"):
        check_fraction("utilization_frac", "lots")


@pytest.mark.parametrize(("value", "shown"), [(1.5, r"if 1\.5 is a percent, write 0\.015"),
                                              (1.0000001, r"if 1\.0000001 is a percent, write 0\.010000001")])
def test_fraction_just_above_one_offers_the_percent_reading_only_as_a_possibility(value, shown):
    with pytest.raises(ValueError, match=shown) as info:
        check_fraction("utilization_frac", value)
    assert "looks like a percent" not in str(info.value)


@pytest.mark.parametrize("bad", [True, False, np.True_, "2500", b"2500", np.str_("1"), np.array([1.0, 2.0]) > 1,
                                 np.array(["1", "2"]), [1.0, True], (1.0, "2"), np.array([1.0, "x"], dtype=object),
                                 pd.Series([True, False]), pd.Series(["1", "2"]), pd.Series([1, "2"], dtype=object),
                                 pd.Series([True, None], dtype="boolean")])
def test_flags_and_text_are_not_numbers_in_every_check(bad):
    for check in (check_numeric, check_positive, check_nonnegative, check_fraction, check_range):
        with pytest.raises(NotANumberError, match=r"^x[ =]") as info:
            check("x", bad)
        assert isinstance(info.value, TypeError)
        assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("good", [2, 2.5, np.int64(3), np.float32(0.5), [0.5, 1], np.array([0.5, 1.0]),
                                  np.array([0.5, 1], dtype=object), pd.Series([0.5, 1.0]),
                                  pd.Series([1, None], dtype="Int64").fillna(1)])
def test_numbers_pass_the_type_check(good):
    check_numeric("x", good)
    check_positive("x", good)


def test_dask_arrays_are_checked_by_dtype_without_computing():
    da = pytest.importorskip("dask.array")
    check_numeric("x", da.from_array(np.array([1.0, 2.0]), chunks=1))
    with pytest.raises(NotANumberError, match="x has dtype bool"):
        check_numeric("x", da.from_array(np.array([True, False]), chunks=1))


def test_plausible_hint_names_the_slip_and_the_range_is_the_plausible_one():
    with pytest.raises(ValueError, match=r"t=0\.0025 tok/s/GPU is below the plausible minimum 0\.01 tok/s/GPU \(a unit "
                                         r"slip\? e\.g\. tok/ms\); allowed \[0\.01, 1e\+06\] tok/s/GPU"):
        check_plausible("t", 0.0025, low=0.01, high=1e6, unit="tok/s/GPU", hint="tok/ms")
    with pytest.raises(ValueError, match=r"p=5000\.0 USD/Mtok is outside the allowed range 0 or \[0\.001, 1000\] "
                                         r"USD/Mtok \(above the plausible maximum\)"):
        check_plausible("p", 5000.0, low=0.001, high=1000.0, unit="USD/Mtok", allow_zero=True)
    with pytest.raises(ValueError, match=r"p=-1\.0 USD/Mtok is outside the allowed range"):  # negative: no unit slip
        check_plausible("p", -1.0, low=0.001, high=1000.0, unit="USD/Mtok", allow_zero=True)
    with pytest.raises(ValueError, match=r"p is NaN; a value in 0 or \[0\.001, 1000\] USD/Mtok is required"):
        check_plausible("p", np.nan, low=0.001, high=1000.0, unit="USD/Mtok", allow_zero=True)


@pytest.mark.parametrize(("value", "write"), [(50, "0.5"), (75.5, "0.755"), (1.0, "0.01")])
def test_target_margin_percent_hint(value, write):
    with pytest.raises(ValueError, match=rf"target_margin_frac={float(value)!r} is outside the allowed range "
                                         rf"\[-1000000000000\.0, 1\.0\); it looks like a percent.*write {write}"):
        check_target_margin("target_margin_frac", value)
    check_target_margin("target_margin_frac", np.array([-2.0, 0.0, 0.99]))
    with pytest.raises(ValueError, match="outside the allowed range") as info:
        check_target_margin("target_margin_frac", 500.0)
    assert "percent" not in str(info.value)


def test_plausible_high_hint_names_the_unit_slip():
    with pytest.raises(ValueError, match=r"p_kw=1800\.0 kW is above the plausible maximum 30 kW \(a unit slip\? "
                                         r"e\.g\. W where kW is meant\); allowed \[0\.01, 30\] kW"):
        check_plausible("p_kw", 1800.0, low=0.01, high=30.0, unit="kW", high_hint="W where kW is meant")
    # without a low hint, a value below the minimum gets the plain message
    with pytest.raises(ValueError, match=r"p_kw=0\.001 kW is below the plausible minimum 0\.01 kW; allowed"):
        check_plausible("p_kw", 0.001, low=0.01, high=30.0, unit="kW", high_hint="W where kW is meant")
    check_plausible("p_kw", np.array([0.01, 30.0]), low=0.01, high=30.0, unit="kW", high_hint="W where kW is meant")


def test_positions_inside_a_chunk_count_in_the_whole_array():
    bad = np.array([False, True])
    assert position_phrase(bad, (2,)) == " at position 1 (1 of 2 bad)"
    assert position_phrase(np.array(True), ()) == ""
    with chunk_of([4], [10]):  # the block holds elements 4 and 5 of 10
        assert position_phrase(bad, (2,)) == " at position 5 of 10 (1 of 2 bad in its chunk)"
        with pytest.raises(ValueError, match=r"x_frac=60\.0 at position 5 of 10 \(1 of 2 bad in its chunk\)"):
            check_fraction("x_frac", np.array([0.5, 60.0]))
    with chunk_of([1, 2], [3, 4]):  # a 2-d block starting at row 1, column 2: element (2, 3) is 11 in C order
        assert position_phrase(np.array([[False, False], [False, True]]), (2, 2)).startswith(" at position 11 of 12")


@pytest.mark.parametrize("value", [float("nan"), -1.0, 0, np.float64("inf")])
def test_plain_scalars_out_of_range_are_errors(value):
    with pytest.raises(ValueError, match="x"):
        check_positive("x", value)


def test_an_integer_too_large_for_a_float_is_a_value_error():
    with pytest.raises(ValueError, match=r"x: the integer 1000.*401 digits"):
        check_positive("x", 10**400)
