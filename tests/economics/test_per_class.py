"""Per-class gross margins: hand calculations, additivity over a mix, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import tokenomics as tk
from tokenomics.economics import cost_split_per_mtok
from tokenomics.economics.per_class import blended_margin_frac, class_margins, class_margins_from_price


def test_hand_calculation() -> None:
    # cost 0.10 / 0.01 / 0.80 against DeepSeek V3.2's 0.28 / 0.028 / 0.42 USD/Mtok, 30 % license fee:
    # input 1 - 0.3 - 0.10/0.28 = 0.342857; cached 1 - 0.3 - 0.01/0.028 = 0.342857;
    # output 1 - 0.3 - 0.80/0.42 = -1.204762
    m = class_margins(0.10, 0.01, 0.80, 0.28, 0.028, 0.42, license_fee_frac=0.3)
    assert m.input_margin_frac == pytest.approx(0.342857, abs=1e-6)
    assert m.cached_input_margin_frac == pytest.approx(0.342857, abs=1e-6)
    assert m.output_margin_frac == pytest.approx(-1.204762, abs=1e-6)


def test_blended_margin_is_the_margin_of_the_whole_mix() -> None:
    s_in, h, fee = 0.9, 0.8, 0.3
    split = cost_split_per_mtok(2.5, 1500.0, 0.6, s_in, h, prefill_throughput_tok_per_s_per_gpu=20000.0,
                                decode_throughput_tok_per_s_per_gpu=200.0)
    price = tk.price("kimi-k2.7")
    m = class_margins_from_price(split, price, license_fee_frac=fee)
    shares = np.array([s_in * (1 - h), s_in * h, 1 - s_in])
    prices = np.array([price.input_usd_per_mtok, price.cached_input_usd_per_mtok, price.output_usd_per_mtok])
    costs = np.array([split.input_usd_per_mtok, split.cached_input_usd_per_mtok, split.output_usd_per_mtok])
    revenue = shares @ prices
    by_hand = (revenue * (1 - fee) - shares @ costs) / revenue
    got = blended_margin_frac(m, *prices, s_in, h)
    assert got == pytest.approx(by_hand)
    # the split is additive, so the mix cost is the total cost per Mtok
    assert shares @ costs == pytest.approx(split.total_usd_per_mtok)


def test_series_in_series_out() -> None:
    cost = pd.Series([0.1, 0.2], index=["a", "b"])
    m = class_margins(cost, cost / 10, cost * 4, 0.28, 0.028, 0.42)
    assert isinstance(m.output_margin_frac, pd.Series)
    assert list(m.output_margin_frac.index) == ["a", "b"]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"input_usd_per_mtok": 0.0}, "input_usd_per_mtok"),
        ({"output_cost_usd_per_mtok": -1.0}, "output_cost_usd_per_mtok"),
        ({"license_fee_frac": 30.0}, "license_fee_frac"),
    ],
)
def test_bad_input_names_the_field(kwargs: dict[str, float], field: str) -> None:
    args = {
        "input_cost_usd_per_mtok": 0.1, "cached_input_cost_usd_per_mtok": 0.01, "output_cost_usd_per_mtok": 0.8,
        "input_usd_per_mtok": 0.28, "cached_input_usd_per_mtok": 0.028, "output_usd_per_mtok": 0.42,
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=field):
        class_margins(**args)


def test_price_without_cached_rate_is_refused() -> None:
    split = cost_split_per_mtok(2.5, 1500.0, 0.6, 0.9, 0.8, prefill_throughput_tok_per_s_per_gpu=20000.0,
                                decode_throughput_tok_per_s_per_gpu=200.0)
    with pytest.raises(ValueError, match="cached_input_usd_per_mtok"):
        class_margins_from_price(split, tk.price("kimi-k2.7", "Fireworks"))


def test_a_price_per_token_is_refused() -> None:
    # 0.42e-6 is DeepSeek V3.2's output price per token, not per Mtok
    with pytest.raises(ValueError, match=r"output_usd_per_mtok=4\.2e-07 USD/Mtok is below the plausible minimum"):
        class_margins(0.10, 0.01, 0.80, 0.28, 0.028, 0.42e-6)
    m = class_margins(0.10, 0.01, 0.80, 0.28, 0.028, 0.42)
    with pytest.raises(ValueError, match=r"input_usd_per_mtok=2\.8e-07"):
        blended_margin_frac(m, 0.28e-6, 0.028, 0.42, 0.9)
