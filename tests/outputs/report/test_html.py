"""HTML building blocks of the report: number formats and log axes."""

from __future__ import annotations

import pandas as pd
import pytest

from tokenomics.outputs.report.html import HEADLINE_COLUMNS, format_value, headline_cells, log_axis


@pytest.mark.parametrize(("value", "fmt", "text"), [
    (-0.004, "{:.0%}", "0%"), (-0.0004, "{:.1%}", "0.0%"), (-0.0001, "{:.3f}", "0.000"),
    (-0.006, "{:.0%}", "-1%"), (-0.05, "{:.1f}", "-0.1"), (-0.0, "{:.2f}", "0.00"), (0.25, "{:.0%}", "25%"),
])
def test_format_value_never_prints_negative_zero(value: float, fmt: str, text: str) -> None:
    assert format_value(value, fmt) == text


def test_headline_margin_that_rounds_to_zero_has_no_minus_sign() -> None:
    head = pd.DataFrame({"model_id": ["m"], "hardware_id": ["h"], "cost_usd_per_mtok": [0.5],
                         "gross_margin_frac": [-0.0004]})
    cells = headline_cells(head)[0]
    assert cells[list(HEADLINE_COLUMNS).index("gross_margin_frac")] == "0.0%"


def test_log_axis_labels_are_whole_numbers() -> None:
    # 0.031 .. 2.7 spans about two decades: ticks 1-2-5 per decade, labelled as plain numbers
    axis = log_axis([0.031, 0.5, 2.7, float("nan")])
    assert axis["type"] == "log"
    shown = [t for v, t in zip(axis["tickvals"], axis["ticktext"], strict=True) if 0.031 <= v <= 2.7]
    assert shown == ["0.05", "0.1", "0.2", "0.5", "1", "2"]
    assert all(float(t.replace(",", "")) == pytest.approx(v) for v, t in zip(axis["tickvals"], axis["ticktext"],
                                                                             strict=True))


def test_log_axis_over_many_decades_and_large_numbers() -> None:
    axis = log_axis([1.0, 20_000.0])
    shown = [t for v, t in zip(axis["tickvals"], axis["ticktext"], strict=True) if 1 <= v <= 20_000]
    assert shown == ["1", "10", "100", "1,000", "10,000"]
    assert log_axis([float("nan"), 0.0]) == {"type": "log"}
